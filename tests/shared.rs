//! `hpa::shared` on the host: one thread plays the timer interrupt (evaluating), others play
//! the main loop (updating samples, reading the last decision, reporting rescales), with
//! critical-section's `std` implementation (a global mutex).
//!
//! Run with `cargo test --release --features critical-section --test shared`.
#![cfg(feature = "critical-section")]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;

use hpa::input::ResourceRequest;
use hpa::input::{ConditionStatus, Container, ContainerKind, PodPhase, ReadyCondition};
use hpa::shared::{InUse, Observe, SharedAutoscaler, SharedEvaluateError};
use hpa::spec::{MetricSpec, MetricTarget};
use hpa::{Duration, Hpa, HpaSpec, Instant, MetricValues, Observation, Pod, PodSamples};
use hpa::{Quantity, Sample, Settings};

// The critical-section implementation for this test binary.
use critical_section as _;

const PODS: usize = 8;

static REQUESTS: [ResourceRequest<'static>; 1] = [ResourceRequest {
    resource: "cpu",
    quantity: Quantity::from_milli(1000),
}];
static CONTAINERS: [Container<'static>; 1] = [Container {
    name: "app",
    kind: ContainerKind::Regular,
    requests: &REQUESTS,
}];
static METRICS: [MetricSpec<'static>; 1] =
    [MetricSpec::resource("cpu", MetricTarget::utilization(50))];

struct Inputs {
    usage_milli: [Option<i64>; PODS],
    replicas: i32,
    updates: u64,
}

impl Observe for Inputs {
    fn observe<T>(&self, now: Instant, evaluate: impl FnOnce(&Observation<'_>) -> T) -> T {
        let pod = Pod {
            name: "w",
            phase: PodPhase::Running,
            ready: Some(ReadyCondition {
                status: ConditionStatus::True,
                last_transition: Some(Instant(-900_000)),
            }),
            start_time: Some(Instant(-900_000)),
            deleted: false,
            containers: &CONTAINERS,
            requests: None,
        };
        let running = usize::try_from(self.replicas).unwrap_or(0).min(PODS);
        let pods = [pod; PODS];
        let samples = self.usage_milli.map(|u| {
            u.map(|milli| Sample {
                milli,
                timestamp: now,
                window: Duration::from_secs(60),
                containers: &[],
            })
        });
        let values = [MetricValues::Pods(PodSamples {
            per_pod: &samples[..running],
            orphans: &[],
        })];
        evaluate(&Observation {
            now,
            replicas: self.replicas,
            status_replicas: self.replicas,
            pods: &pods[..running],
            metrics: &values,
        })
    }
}

static SHARED: SharedAutoscaler<Inputs> = SharedAutoscaler::new(Inputs {
    usage_milli: [Some(1000); PODS],
    replicas: 2,
    updates: 0,
});

/// A CPU utilization HPA with a 50 % target, up to one replica per pod slot.
fn spec() -> HpaSpec<'static> {
    HpaSpec {
        min_replicas: Some(1),
        max_replicas: PODS as i32,
        metrics: &METRICS,
        behavior: None,
        scale_target_ref: None,
    }
}

#[test]
fn interrupt_and_main_loop_from_several_threads() {
    let spec = spec();
    let settings = Settings::DEFAULT;
    let hpa = Hpa::new(&spec, &settings).expect("valid spec");
    let done = AtomicBool::new(false);
    // Writers that have written once: the ticks start only when all of them race, so the
    // test never passes without its races (on a busy machine a thread can start late).
    let writing = AtomicUsize::new(0);
    const WRITERS: usize = 3;

    thread::scope(|s| {
        // Writers: every pod always runs at 100 % of its request (1000m of 1000m): the
        // writes race with the evaluations but never change the answer.
        for w in 0..WRITERS {
            let done = &done;
            let writing = &writing;
            s.spawn(move || {
                let mut i = w;
                let mut first = true;
                while !done.load(Ordering::Relaxed) {
                    SHARED
                        .update(|inputs| {
                            inputs.usage_milli[i % PODS] = Some(1000);
                            inputs.updates += 1;
                        })
                        .expect("not nested");
                    if first {
                        writing.fetch_add(1, Ordering::Release);
                        first = false;
                    }
                    i += 1;
                }
            });
        }
        // Main loop: applies each decided rescale and reports it.
        {
            let done = &done;
            s.spawn(move || {
                while !done.load(Ordering::Relaxed) {
                    if let Some(d) = SHARED.last_decision().expect("not nested") {
                        if d.rescale && SHARED.rescale_pending().expect("not nested") {
                            SHARED
                                .update(|inputs| inputs.replicas = d.desired_replicas)
                                .expect("not nested");
                            SHARED.rescale_succeeded().expect("not nested");
                        }
                    }
                    thread::yield_now();
                }
            });
        }
        while writing.load(Ordering::Acquire) < WRITERS {
            thread::yield_now();
        }
        // The "timer interrupt": evaluates every 15 s of simulated time.
        let mut last_at = Instant(i64::MIN);
        // Miri interprets each evaluation (and the racing threads) thousands of times slower:
        // 40 ticks there, still many more than the doubling needs to reach maxReplicas.
        for step in 1..=if cfg!(miri) { 40 } else { 400_i64 } {
            let now = Instant(step * 15_000);
            let d = SHARED.evaluate(&hpa, &settings, now).expect("valid input");
            assert!(d.at > last_at);
            last_at = d.at;
            // 100 % against a 50 % target: every metric proposal doubles the current count,
            // capped at maxReplicas.
            let expected = (2 * d.current_replicas).min(PODS as i32);
            assert_eq!(
                d.metric_replicas.as_slice(),
                &[Some(2 * d.current_replicas)]
            );
            assert_eq!(d.desired_replicas, expected);
            let rescale = d.rescale;
            assert_eq!(SHARED.last_decision(), Ok(Some(d)));
            // The next tick comes after the main loop applied this rescale (a sync period is
            // long); without the wait, a new evaluation would replace the pending rescale.
            let mut spins = 0_u64;
            while rescale && SHARED.rescale_pending().expect("not nested") {
                spins += 1;
                assert!(
                    spins < 100_000_000,
                    "the main loop never applied the rescale"
                );
                thread::yield_now();
            }
        }
        done.store(true, Ordering::Relaxed);
    });

    // The main loop applied the rescales: the workload ends at maxReplicas.
    let last = SHARED.last_decision().expect("not nested");
    let last = last.expect("decisions were made");
    assert_eq!(last.desired_replicas, PODS as i32);
    assert!(SHARED.update(|inputs| inputs.updates).expect("not nested") >= WRITERS as u64);
    assert_eq!(SHARED.update(|inputs| inputs.replicas), Ok(PODS as i32));
}

/// Inputs whose observation calls back into their own shared autoscaler, as a careless
/// `Observe` might.
struct Reentrant {
    inputs: Inputs,
    /// What the calls from inside `observe` returned: (`last_decision`, `update`).
    seen: std::sync::Mutex<Vec<(bool, bool)>>,
}

impl Observe for Reentrant {
    fn observe<T>(&self, now: Instant, evaluate: impl FnOnce(&Observation<'_>) -> T) -> T {
        let inner = (
            NESTED.last_decision() == Err(InUse),
            NESTED.update(|_| ()) == Err(InUse),
        );
        self.seen.lock().expect("not poisoned").push(inner);
        self.inputs.observe(now, evaluate)
    }
}

static NESTED: SharedAutoscaler<Reentrant> = SharedAutoscaler::new(Reentrant {
    inputs: Inputs {
        usage_milli: [Some(1000); PODS],
        replicas: 2,
        updates: 0,
    },
    seen: std::sync::Mutex::new(Vec::new()),
});

/// A call made from inside another call on the same autoscaler (an `update` or
/// `with_autoscaler` closure, or `Observe::observe`) returns `InUse` and does nothing, instead
/// of panicking on the `RefCell`; the outer call completes as it would alone.
#[test]
fn nested_calls_are_refused_not_panics() {
    let spec = spec();
    let settings = Settings::DEFAULT;
    let hpa = Hpa::new(&spec, &settings).expect("valid spec");
    let inner = NESTED.update(|r| {
        r.inputs.updates += 1;
        (
            NESTED.update(|r| r.inputs.updates += 100),
            NESTED.with_autoscaler(|_| ()),
            NESTED.evaluate(&hpa, &settings, Instant(0)),
            NESTED.rescale_pending(),
            NESTED.rescale_succeeded(),
            NESTED.rescale_failed(),
            NESTED.status_desired_replicas(),
        )
    });
    assert_eq!(
        inner,
        Ok((
            Err(InUse),
            Err(InUse),
            Err(SharedEvaluateError::InUse),
            Err(InUse),
            Err(InUse),
            Err(InUse),
            Err(InUse),
        ))
    );
    assert_eq!(NESTED.update(|r| r.inputs.updates), Ok(1));
    assert_eq!(NESTED.last_decision(), Ok(None));
    let in_autoscaler = NESTED.with_autoscaler(|_| NESTED.evaluate(&hpa, &settings, Instant(0)));
    assert_eq!(in_autoscaler, Ok(Err(SharedEvaluateError::InUse)));
    assert_eq!(NESTED.last_decision(), Ok(None));

    // The outer evaluation completes; the calls inside `observe` were refused.
    let d = NESTED
        .evaluate(&hpa, &settings, Instant(15_000))
        .expect("evaluates");
    assert_eq!(d.desired_replicas, 4);
    assert_eq!(NESTED.last_decision(), Ok(Some(d)));
    let seen = NESTED.update(|r| r.seen.lock().expect("not poisoned").clone());
    assert_eq!(seen, Ok(vec![(true, true)]));
}
