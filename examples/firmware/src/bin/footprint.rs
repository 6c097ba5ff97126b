//! Footprint probe: a firmware that links the engine's whole evaluation path and measures it.
//!
//! One HPA with all five metric sources (Resource utilization, ContainerResource, Pods, Object,
//! External), a behavior or none and either arithmetic mode, all chosen through
//! `black_box` so that nothing is constant-folded away; then `Autoscaler::evaluate` and both
//! rescale reports. It prints `state <bytes>` (`size_of::<Autoscaler>()`) and `stack <bytes>`
//! (the deepest of a few evaluations, by stack painting) and exits.
//!
//! Features: `validate` builds the `Hpa` with `Hpa::new` (API validation) instead of
//! `Hpa::from_stored`; `parse` also links `Quantity::parse` and `Tolerance::from_decimal`;
//! `save` and `restore` also save the state after the evaluations into a page buffer and
//! restore it from there (`Autoscaler::save`, `Autoscaler::restore`), printing
//! `snapshot <bytes>` and, with both, `save-stack <bytes>` and `restore-stack <bytes>`;
//! `baseline` keeps the same program but calls no engine function, so that
//! `size(footprint) - size(footprint --features baseline)` is the engine's own code.
#![no_std]
#![no_main]

#[path = "../out.rs"]
mod out;
#[path = "../stack.rs"]
mod stack;

use core::hint::black_box;
use core::panic::PanicInfo;

use cortex_m_rt::entry;
use cortex_m_semihosting::debug::{self, EXIT_SUCCESS};
use hpa::input::{ConditionStatus, Container, ContainerKind, ContainerUsage, ReadyCondition};
use hpa::input::{PodPhase, ResourceRequest};
use hpa::quantity::Quantity;
use hpa::settings::Arithmetic;
use hpa::spec::{Behavior, CrossVersionObjectReference, MetricIdentifier, MetricSpec};
use hpa::spec::{MetricTarget, PolicyType, ScalingPolicy, ScalingRules, SelectPolicy};
use hpa::{Autoscaler, Duration, HpaSpec, Instant, MetricValues, Observation, Pod, PodSamples};
use hpa::{Sample, Settings};

extern "C" {
    fn hpa_footprint_panic_path_is_reachable() -> !;
}

#[panic_handler]
fn panic(_: &PanicInfo) -> ! {
    // SAFETY: never defined; referencing it turns a reachable panic into a link error.
    unsafe { hpa_footprint_panic_path_is_reachable() }
}

/// The HPA state, in static RAM (`.bss`).
static mut STATE: Autoscaler = Autoscaler::new();

/// Stands for the flash page a snapshot is saved to (`.bss`): any snapshot of the state fits.
#[cfg(any(feature = "save", feature = "restore"))]
static mut PAGE: [u8; <Autoscaler>::SNAPSHOT_MAX_BYTES] = [0; <Autoscaler>::SNAPSHOT_MAX_BYTES];

static REQUESTS: [ResourceRequest<'static>; 2] = [
    ResourceRequest {
        resource: "cpu",
        quantity: Quantity::from_milli(500),
    },
    ResourceRequest {
        resource: "memory",
        quantity: Quantity::from_milli(268_435_456_000),
    },
];
static CONTAINERS: [Container<'static>; 1] = [Container {
    name: "app",
    kind: ContainerKind::Regular,
    requests: &REQUESTS,
}];
static USAGE: [ContainerUsage<'static>; 1] = [ContainerUsage {
    name: "app",
    milli: 400,
}];
static DESCRIBED: CrossVersionObjectReference<'static> = CrossVersionObjectReference {
    kind: "Service",
    name: "front",
    api_version: "v1",
};
static SPECS: [MetricSpec<'static>; 5] = [
    MetricSpec::resource("cpu", MetricTarget::utilization(60)),
    MetricSpec::container_resource(
        "memory",
        "app",
        MetricTarget::average_value(Quantity::from_milli(200_000_000_000)),
    ),
    MetricSpec::pods(
        MetricIdentifier::named("requests"),
        MetricTarget::average_value(Quantity::from_milli(10_000)),
    ),
    MetricSpec::object(
        DESCRIBED,
        MetricIdentifier::named("hits"),
        MetricTarget::value(Quantity::from_milli(100_000)),
    ),
    MetricSpec::external(
        MetricIdentifier::named("queue"),
        MetricTarget::average_value(Quantity::from_milli(15_000)),
    ),
];
static UP: [ScalingPolicy; 2] = [
    ScalingPolicy {
        type_: PolicyType::Pods,
        value: 4,
        period_seconds: 15,
    },
    ScalingPolicy {
        type_: PolicyType::Percent,
        value: 100,
        period_seconds: 15,
    },
];

fn pods() -> [Pod<'static>; 4] {
    [Pod {
        name: "p",
        phase: black_box(PodPhase::Running),
        ready: Some(ReadyCondition {
            status: black_box(ConditionStatus::True),
            last_transition: Some(Instant(black_box(-100_000))),
        }),
        start_time: Some(Instant(black_box(-600_000))),
        deleted: black_box(false),
        containers: &CONTAINERS,
        requests: None,
    }; 4]
}

#[entry]
fn main() -> ! {
    let pods = pods();
    let sample = Sample {
        milli: black_box(400),
        timestamp: Instant(0),
        window: Duration(60_000),
        containers: &USAGE,
    };
    let samples = [Some(sample); 4];
    let external = [black_box(80_000_i64)];
    let values = [
        MetricValues::Pods(PodSamples {
            per_pod: &samples,
            orphans: &[],
        }),
        MetricValues::Pods(PodSamples {
            per_pod: &samples,
            orphans: &[],
        }),
        MetricValues::Pods(PodSamples {
            per_pod: &samples,
            orphans: &[],
        }),
        MetricValues::Object(black_box(150_000)),
        MetricValues::External(&external),
    ];
    let behavior = black_box(Some(Behavior {
        scale_up: Some(ScalingRules {
            stabilization_window_seconds: Some(0),
            select_policy: Some(SelectPolicy::Max),
            policies: Some(&UP),
            tolerance: Some(Quantity::from_milli(black_box(50))),
        }),
        scale_down: None,
    }));
    let spec = HpaSpec {
        min_replicas: Some(black_box(1)),
        max_replicas: black_box(20),
        metrics: black_box(&SPECS[..]),
        behavior,
        scale_target_ref: None,
    };
    let mut settings = Settings::DEFAULT;
    settings.arithmetic = black_box(Arithmetic::Kubernetes);
    #[cfg(feature = "parse")]
    {
        if let Ok(q) = Quantity::parse(black_box("250m")) {
            black_box(q);
        }
        if let Some(t) = hpa::Tolerance::from_decimal(black_box(15), black_box(-2)) {
            settings.tolerance = t;
        }
    }

    // The HPA is built once, as a firmware does at start-up; each evaluation is measured.
    let hpa = build(&spec, &settings);
    let mut deepest = 0;
    let mut t = 0_i64;
    for round in 0..black_box(4) {
        t += 15_000;
        let obs = Observation {
            now: Instant(black_box(t)),
            replicas: black_box(4),
            status_replicas: 4,
            pods: &pods,
            metrics: &values,
        };
        if let Some(hpa) = &hpa {
            let used = stack::measure(|| evaluate(hpa, &settings, &obs, round));
            deepest = deepest.max(used);
        }
    }
    #[cfg(all(any(feature = "save", feature = "restore"), not(feature = "baseline")))]
    snapshot(Instant(t));
    out::write(b"state ");
    out::uint(core::mem::size_of::<Autoscaler>() as u64);
    out::line(&[b" bytes"]);
    out::write(b"decision ");
    out::uint(core::mem::size_of::<hpa::Decision<'static>>() as u64);
    out::line(&[b" bytes"]);
    out::write(b"stack ");
    out::uint(deepest as u64);
    out::line(&[b" bytes: deepest evaluation"]);
    debug::exit(EXIT_SUCCESS);
    #[allow(clippy::empty_loop)]
    loop {}
}

/// The validated (`validate`) or defaulted HPA.
#[cfg(not(feature = "baseline"))]
fn build<'a>(spec: &HpaSpec<'a>, settings: &Settings) -> Option<hpa::Hpa<'a>> {
    #[cfg(feature = "validate")]
    let hpa = match hpa::Hpa::new(spec, settings) {
        Ok(h) => Some(h),
        Err(e) => {
            black_box(&e);
            None
        }
    };
    #[cfg(not(feature = "validate"))]
    let hpa = {
        black_box(settings);
        Some(hpa::Hpa::from_stored(spec))
    };
    hpa
}

/// One evaluation and its rescale report.
#[inline(never)]
#[cfg(not(feature = "baseline"))]
fn evaluate(hpa: &hpa::Hpa<'_>, settings: &Settings, obs: &Observation<'_>, round: u32) {
    // SAFETY: single-threaded firmware without interrupts; the only reference to STATE.
    let state = unsafe { &mut *core::ptr::addr_of_mut!(STATE) };
    // The decision lives in this frame, so the measured stack includes it.
    let mut decision = hpa::Decision::new();
    if state
        .evaluate_into(hpa, settings, obs, &mut decision)
        .is_ok()
    {
        black_box(&decision);
        if decision.rescale {
            if round.is_multiple_of(2) {
                state.rescale_succeeded();
            } else {
                state.rescale_failed();
            }
        }
    }
}

/// Saves the state as it is at `now` (`save`), resets it as a reboot does and restores it
/// (`restore`), each in a measured frame of its own. Without `save` the page holds no
/// snapshot and the restore is refused early: that build measures code only.
#[cfg(all(any(feature = "save", feature = "restore"), not(feature = "baseline")))]
fn snapshot(now: Instant) {
    // SAFETY: single-threaded firmware without interrupts; the only references to STATE and
    // PAGE.
    let state = unsafe { &mut *core::ptr::addr_of_mut!(STATE) };
    let page = unsafe { &mut *core::ptr::addr_of_mut!(PAGE) };
    #[cfg(not(feature = "save"))]
    let len = black_box(page.len());
    #[cfg(feature = "save")]
    let len = {
        let mut saved = None;
        let used = stack::measure(|| saved = state.save(black_box(now), page).ok());
        let Some(len) = saved else {
            return out::line(&[b"save refused"]);
        };
        out::write(b"snapshot ");
        out::uint(len as u64);
        out::line(&[b" bytes"]);
        out::write(b"save-stack ");
        out::uint(used as u64);
        out::line(&[b" bytes: one save"]);
        len
    };
    #[cfg(not(feature = "restore"))]
    black_box(len);
    #[cfg(feature = "restore")]
    {
        *state = Autoscaler::new();
        let snapshot = page.get(..len).unwrap_or(&[]);
        let mut restored = false;
        let used = stack::measure(|| restored = state.restore(snapshot, black_box(now)).is_ok());
        if restored {
            out::write(b"restore-stack ");
            out::uint(used as u64);
            out::line(&[b" bytes: one restore"]);
        } else if cfg!(feature = "save") {
            out::line(&[b"restore refused"]);
        }
    }
}

/// Without the engine: the spec itself stands for the HPA.
#[cfg(feature = "baseline")]
fn build<'a>(spec: &'a HpaSpec<'a>, settings: &Settings) -> Option<&'a HpaSpec<'a>> {
    black_box(settings);
    Some(black_box(spec))
}

/// The same call shape without the engine.
#[inline(never)]
#[cfg(feature = "baseline")]
fn evaluate(spec: &HpaSpec<'_>, settings: &Settings, obs: &Observation<'_>, round: u32) {
    black_box((spec, settings, obs, round));
    // SAFETY: as above.
    black_box(unsafe { &mut *core::ptr::addr_of_mut!(STATE) });
}
