//! `hpa::shared::SharedAutoscaler` (feature `critical-section`, here with critical-section's
//! `std` implementation) under an arbitrary sequence of calls, against a plain `Autoscaler`
//! driven the same way. Never panics, and:
//!
//! * every call returns what the plain autoscaler returns (the decision summary or the
//!   engine's error, the last decision, the rescale reports, `status.desiredReplicas`), and
//!   the two states stay equal;
//! * every call made from inside another one (from the closure of `update` or
//!   `with_autoscaler`, or from `Observe::observe` during `evaluate`) returns `InUse` and
//!   changes nothing (the comparison with the plain autoscaler, which does not make them,
//!   shows it).
#![no_main]

use std::cell::Cell;

use hpa::shared::{InUse, Observe, SharedAutoscaler, SharedEvaluateError};
use hpa::{Autoscaler, Hpa, Instant, MetricValues, Observation, Settings};
use hpa_fuzz::shared::{Call, Input, Nested};
use libfuzzer_sys::fuzz_target;
use testkit::capacity;
use testkit::invariants::state;
use testkit::snapshot::BEHAVIOR;

// The critical-section implementation (a global lock that allows nesting).
use critical_section as _;

/// `minReplicas` of every spec.
const MIN_REPLICAS: i32 = 1;

/// Small rings, so that a few hundred calls fold.
type Shared = SharedAutoscaler<Inputs, 64, 24>;
type Plain = Autoscaler<64, 24>;

/// What the main loop maintains: one External metric's value and the replica count.
struct Inputs {
    load_milli: i64,
    replicas: i32,
    /// The call to make from inside the next observation.
    nested: Cell<Option<Nested>>,
    /// How many nested calls found the state in use.
    in_use: Cell<u32>,
}

impl Inputs {
    const NEW: Inputs = Inputs {
        load_milli: 0,
        replicas: 1,
        nested: Cell::new(None),
        in_use: Cell::new(0),
    };
}

impl Observe for Inputs {
    fn observe<T>(&self, now: Instant, evaluate: impl FnOnce(&Observation<'_>) -> T) -> T {
        if let Some(n) = self.nested.take() {
            assert!(nested(n), "{n:?} from the observation");
            self.in_use.set(self.in_use.get() + 1);
        }
        let values = [self.load_milli];
        let metrics = [MetricValues::External(&values)];
        evaluate(&Observation {
            now,
            replicas: self.replicas,
            status_replicas: self.replicas,
            pods: &[],
            metrics: &metrics,
        })
    }
}

/// Reused across inputs (a `static`, as firmware keeps it): each input starts by resetting it.
static SHARED: Shared = SharedAutoscaler::new(Inputs::NEW);

/// Makes call `n` on [`SHARED`] from inside another call: whether it found the state in use.
fn nested(n: Nested) -> bool {
    let spec = capacity::spec(MIN_REPLICAS, 10, None);
    let settings = Settings::DEFAULT;
    let hpa = Hpa::new(&spec, &settings).expect("a valid spec");
    match n {
        Nested::Update => SHARED.update(|i| i.replicas = 0) == Err(InUse),
        Nested::WithAutoscaler => SHARED.with_autoscaler(|a| *a = Plain::new()) == Err(InUse),
        Nested::Evaluate => matches!(
            SHARED.evaluate(&hpa, &settings, Instant(0)),
            Err(SharedEvaluateError::InUse)
        ),
        Nested::LastDecision => SHARED.last_decision() == Err(InUse),
        Nested::RescalePending => SHARED.rescale_pending() == Err(InUse),
        Nested::RescaleSucceeded => SHARED.rescale_succeeded() == Err(InUse),
        Nested::RescaleFailed => SHARED.rescale_failed() == Err(InUse),
        Nested::StatusDesiredReplicas => SHARED.status_desired_replicas() == Err(InUse),
    }
}

fuzz_target!(|input: Input| {
    let max = 1 + i32::from(input.max % 200);
    let spec = capacity::spec(MIN_REPLICAS, max, input.behavior.then_some(BEHAVIOR));
    let settings = Settings::DEFAULT;
    let hpa = Hpa::new(&spec, &settings).expect("a valid spec");

    SHARED
        .with_autoscaler(|a| *a = Plain::new())
        .expect("not nested");
    SHARED.update(|i| *i = Inputs::NEW).expect("not nested");
    // The last decision cannot be reset: the model starts from it.
    let mut last = SHARED.last_decision().expect("not nested");
    let mut plain = Plain::new();
    let mut inputs = Inputs::NEW;
    let mut now: i64 = 0;

    for (i, call) in input.calls.iter().take(300).enumerate() {
        let context = || format!("call {i}: {call:?}");
        match *call {
            Call::Update {
                load,
                replicas,
                nested: n,
            } => {
                let inner = SHARED
                    .update(|s| {
                        s.load_milli = i64::from(load);
                        if let Some(r) = replicas {
                            s.replicas = i32::from(r);
                        }
                        n.map(nested)
                    })
                    .expect("not nested");
                assert_ne!(inner, Some(false), "{}", context());
                inputs.load_milli = i64::from(load);
                if let Some(r) = replicas {
                    inputs.replicas = i32::from(r);
                }
            }
            Call::Evaluate { dt_ms, nested: n } => {
                now = now.saturating_add(i64::from(dt_ms));
                SHARED.update(|s| s.nested.set(n)).expect("not nested");
                let got = SHARED.evaluate(&hpa, &settings, Instant(now));
                let expected = inputs.observe(Instant(now), |obs| {
                    plain.evaluate(&hpa, &settings, obs).map(|d| d.summary())
                });
                match (got, expected) {
                    (Ok(a), Ok(b)) => {
                        assert_eq!(a, b, "{}", context());
                        last = Some(b);
                    }
                    (Err(SharedEvaluateError::Evaluate(a)), Err(b)) => {
                        assert_eq!(a, b, "{}", context())
                    }
                    (got, expected) => panic!("{}: {got:?}, expected {expected:?}", context()),
                }
                let (pending, in_use) = SHARED
                    .update(|s| (s.nested.take(), s.in_use.replace(0)))
                    .expect("not nested");
                assert_eq!(pending, None, "the observation was not made: {}", context());
                assert_eq!(in_use, u32::from(n.is_some()), "{}", context());
            }
            Call::WithAutoscaler { nested: n } => {
                let (inner, seen) = SHARED
                    .with_autoscaler(|a| (n.map(nested), state(a)))
                    .expect("not nested");
                assert_ne!(inner, Some(false), "{}", context());
                assert_eq!(seen, state(&plain), "{}", context());
            }
            Call::LastDecision => {
                assert_eq!(SHARED.last_decision(), Ok(last.clone()), "{}", context())
            }
            Call::RescalePending => {
                assert_eq!(SHARED.rescale_pending(), Ok(plain.rescale_pending()))
            }
            Call::RescaleSucceeded => {
                assert_eq!(SHARED.rescale_succeeded(), Ok(plain.rescale_succeeded()))
            }
            Call::RescaleFailed => {
                assert_eq!(SHARED.rescale_failed(), Ok(plain.rescale_failed()))
            }
            Call::StatusDesiredReplicas => assert_eq!(
                SHARED.status_desired_replicas(),
                Ok(plain.status().desired_replicas)
            ),
        }
    }
    let seen = SHARED.with_autoscaler(|a| state(a)).expect("not nested");
    assert_eq!(seen, state(&plain));
});
