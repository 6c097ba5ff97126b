//! The benchmarks' scenario as data, `no_std` and without allocation: the host benchmarks
//! (`benches/evaluate.rs`, `ffi/benches/c_path.rs`, through `mod.rs`) and the Cortex-M0 cost
//! probe (`examples/firmware/src/bin/cost.rs`) include this file, so that they measure one
//! evaluation. A CPU utilization HPA with a behavior (3600 s scale-down
//! stabilization), pods of one template, warmed up for an hour of 15 s steps with alternating
//! load (each rescale reported), then evaluated at [`MEASURED_LOAD`].

use hpa::input::{ConditionStatus, Container, ContainerKind, PodPhase, ReadyCondition};
use hpa::input::{ResourceRequest, Sample};
use hpa::spec::{Behavior, MetricSpec, MetricTarget, ScalingRules};
use hpa::{Duration, HpaSpec, Instant, Pod, Quantity};

/// The time between evaluations.
pub const PERIOD_MS: i64 = 15_000;
/// Evaluations before the measured one: 3600 s of history at [`PERIOD_MS`].
pub const WARM_UP_STEPS: i64 = 240;
/// The load of the measured evaluation, in millicores per pod (before each pod's offset).
pub const MEASURED_LOAD: i64 = 330;

pub static REQUESTS: [ResourceRequest<'static>; 1] = [ResourceRequest {
    resource: "cpu",
    quantity: Quantity::from_milli(500),
}];
pub static CONTAINERS: [Container<'static>; 1] = [Container {
    name: "app",
    kind: ContainerKind::Regular,
    requests: &REQUESTS,
}];
static METRICS: [MetricSpec<'static>; 1] =
    [MetricSpec::resource("cpu", MetricTarget::utilization(60))];

/// Every pod: running, ready for an hour, sharing [`CONTAINERS`] (one pod template).
pub const POD: Pod<'static> = Pod {
    name: "worker",
    phase: PodPhase::Running,
    ready: Some(ReadyCondition {
        status: ConditionStatus::True,
        last_transition: Some(Instant(-3_600_000)),
    }),
    start_time: Some(Instant(-3_700_000)),
    deleted: false,
    containers: &CONTAINERS,
    requests: None,
};

pub fn spec() -> HpaSpec<'static> {
    HpaSpec {
        min_replicas: Some(1),
        max_replicas: 100_000,
        metrics: &METRICS,
        behavior: Some(Behavior {
            scale_up: None,
            scale_down: Some(ScalingRules {
                stabilization_window_seconds: Some(3600),
                ..ScalingRules::default()
            }),
        }),
        scale_target_ref: None,
    }
}

/// The load of warm-up step `step`: alternating, so that the history holds varied values and
/// rescales.
pub fn warm_up_load(step: i64) -> i64 {
    if step % 2 == 0 {
        420
    } else {
        240
    }
}

/// Pod `i`'s usage under `load`: the load plus `i % 7` millicores.
pub fn usage(i: usize, load: i64) -> i64 {
    load + (i % 7) as i64
}

/// A pod's sample of `milli` millicores at `at`, over a minute.
pub fn sample(milli: i64, at: i64) -> Sample<'static> {
    Sample {
        milli,
        timestamp: Instant(at),
        window: Duration::from_secs(60),
        containers: &[],
    }
}
