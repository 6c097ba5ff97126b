//! Links the whole engine into a bare-metal executable whose panic handler calls a symbol
//! that does not exist. If any panic path were reachable, the link would fail with
//! `undefined symbol: hpa_panic_path_is_reachable`; .ci/run also checks the image for
//! soft-float routines. The engine is used directly and through a `SharedAutoscaler`
//! (feature `critical-section`), every method of it, nested calls included.
#![no_std]
#![no_main]

use core::hint::black_box;
use core::panic::PanicInfo;

use hpa::input::{ConditionStatus, PodPhase};
use hpa::input::{Container, ContainerKind, ReadyCondition, ResourceRequest};
use hpa::shared::{Observe, SharedAutoscaler};
use hpa::spec::{Behavior, MetricIdentifier, MetricSpec, MetricTarget, ScalingRules};
use hpa::validation::{validate_spec_each, Unrecognized};
use hpa::{Autoscaler, Hpa, HpaSpec, Instant, MetricValues, Observation, Pod, PodSamples};
use hpa::{Quantity, Sample, Settings};

extern "C" {
    fn hpa_panic_path_is_reachable() -> !;
}

#[panic_handler]
fn panic(_: &PanicInfo) -> ! {
    // SAFETY: never defined; referencing it turns a reachable panic into a link error.
    #[cfg(not(feature = "find-panics"))]
    unsafe {
        hpa_panic_path_is_reachable()
    }
    // To locate a panic path: build with `--features find-panics`, then look for the callers
    // of core::panicking::* in `llvm-objdump -d` of the image.
    #[cfg(feature = "find-panics")]
    loop {}
}

/// The probe runs on one core without interrupt handlers: a critical section needs no masking.
struct NoInterrupts;
critical_section::set_impl!(NoInterrupts);

// SAFETY: nothing can preempt the probe's single thread, so an empty critical section
// excludes every other context.
unsafe impl critical_section::Impl for NoInterrupts {
    unsafe fn acquire() -> critical_section::RawRestoreState {}
    unsafe fn release(_: critical_section::RawRestoreState) {}
}

static mut STATE: Autoscaler = Autoscaler::new();

/// The shared autoscaler's inputs: the probe's observation, which also calls back into it
/// from `observe` (a nested call, refused).
struct Inputs;

impl Observe for Inputs {
    fn observe<T>(&self, now: Instant, evaluate: impl FnOnce(&Observation<'_>) -> T) -> T {
        black_box(SHARED.last_decision().ok());
        observe(now, evaluate)
    }
}

static SHARED: SharedAutoscaler<Inputs> = SharedAutoscaler::new(Inputs);

/// Calls `evaluate` with the probe's observation at `now`.
fn observe<T>(now: Instant, evaluate: impl FnOnce(&Observation<'_>) -> T) -> T {
    let requests = [ResourceRequest {
        resource: "cpu",
        quantity: black_box(Quantity::from_milli(500)),
    }];
    let containers = [Container {
        name: "app",
        kind: ContainerKind::Regular,
        requests: &requests,
    }];
    let pod = Pod {
        name: "p0",
        phase: black_box(PodPhase::Running),
        ready: Some(ReadyCondition {
            status: ConditionStatus::True,
            last_transition: Some(Instant(black_box(-100_000))),
        }),
        start_time: Some(Instant(black_box(-600_000))),
        deleted: black_box(false),
        containers: &containers,
        requests: None,
    };
    let pods = [pod; 3];
    let samples = [Some(Sample {
        milli: black_box(400),
        timestamp: Instant(0),
        window: hpa::Duration(60_000),
        containers: &[],
    }); 3];
    let queue = [black_box(80_000_i64)];
    let metrics = [
        MetricValues::Pods(PodSamples {
            per_pod: &samples,
            orphans: &[],
        }),
        MetricValues::External(&queue),
    ];
    evaluate(&Observation {
        now,
        replicas: black_box(3),
        status_replicas: 3,
        pods: &pods,
        metrics: &metrics,
    })
}

#[no_mangle]
pub extern "C" fn _start() -> ! {
    let specs = [
        MetricSpec::resource("cpu", MetricTarget::utilization(black_box(60))),
        MetricSpec::external(
            MetricIdentifier::named("queue"),
            MetricTarget::value(Quantity::from_milli(black_box(15_000))),
        ),
    ];
    let quantity = Quantity::parse(black_box("250m")).unwrap_or(Quantity::from_milli(0));
    let spec = HpaSpec {
        min_replicas: Some(black_box(1)),
        max_replicas: black_box(20),
        metrics: &specs,
        behavior: black_box(Some(Behavior {
            scale_up: None,
            scale_down: Some(ScalingRules {
                tolerance: Some(quantity),
                ..ScalingRules::default()
            }),
        })),
        scale_target_ref: None,
    };
    // Every error, through the visitor (with an unrecognized string to report as well).
    let unknown = [Unrecognized::MetricType {
        metric: black_box(0),
        value: black_box("Foo"),
    }];
    let mut seen = 0_usize;
    let count = validate_spec_each(&spec, black_box(false), &unknown, &mut |e| {
        black_box(e);
        seen = seen.wrapping_add(1);
    });
    black_box((count, seen));
    let mut settings = Settings::DEFAULT;
    settings.arithmetic = black_box(settings.arithmetic);
    let mut t = 0_i64;
    loop {
        t += 15_000;
        if let Ok(hpa) = Hpa::new(&spec, &settings) {
            // SAFETY: single-threaded bare-metal probe.
            let state = unsafe { &mut *core::ptr::addr_of_mut!(STATE) };
            observe(Instant(black_box(t)), |obs| {
                if let Ok(d) = state.evaluate(&hpa, &settings, obs) {
                    black_box(d.desired_replicas);
                    if black_box(d.rescale) {
                        state.rescale_succeeded();
                    } else {
                        state.rescale_failed();
                    }
                }
            });
            // The same through the shared autoscaler, with calls nested in its closures.
            black_box(SHARED.update(|_| SHARED.update(|_| ()).is_err()).ok());
            if let Ok(d) = SHARED.evaluate(&hpa, &settings, Instant(black_box(t))) {
                black_box(d.desired_replicas);
            }
            black_box(
                SHARED
                    .with_autoscaler(|a| {
                        (
                            a.status().desired_replicas,
                            SHARED.evaluate(&hpa, &settings, Instant(t)).is_err(),
                        )
                    })
                    .ok(),
            );
            black_box(SHARED.rescale_pending().ok());
            if black_box(SHARED.last_decision()).is_ok_and(|d| d.is_some_and(|d| d.rescale)) {
                black_box(SHARED.rescale_succeeded().ok());
            } else {
                black_box(SHARED.rescale_failed().ok());
            }
            black_box(SHARED.status_desired_replicas().ok());
            // Snapshots: a save, and a restore of whatever bytes the page holds.
            // SAFETY: single-threaded bare-metal probe.
            let page = unsafe { &mut *core::ptr::addr_of_mut!(PAGE) };
            black_box(state.save(Instant(black_box(t)), page).ok());
            black_box(
                state
                    .restore(black_box(&page[..]), Instant(black_box(t)))
                    .ok(),
            );
        }
    }
}

/// A flash page's worth of snapshot.
static mut PAGE: [u8; <hpa::Autoscaler>::SNAPSHOT_MAX_BYTES] =
    [0; <hpa::Autoscaler>::SNAPSHOT_MAX_BYTES];
