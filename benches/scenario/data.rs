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

/// Every per-pod check the CPU utilization grouping needs for the common pod, hand-written
/// for a run of such pods: a sample, not deleted, neither Pending nor Failed, Ready `True`,
/// started before the initialization cutoff, and the first pod's container and pod-level
/// request slices (so that its request counts for every pod); sums samples and requests.
/// No unready or missing pods, no history, no arithmetic beyond the sums: what any
/// evaluation of these inputs must do per pod, at the least. The host benchmark times it
/// beside the engine; the Cortex-M0 cost probe counts its instructions.
pub fn checks_floor(
    pods: &[Pod<'_>],
    samples: &[Option<Sample<'_>>],
    init_cutoff: i64,
    request: i64,
) -> (i64, i64, u32) {
    let (mut values, mut requests, mut ready) = (0_i64, 0_i64, 0_u32);
    let Some(first) = pods.first() else {
        return (0, 0, 0);
    };
    for (pod, sample) in pods.iter().zip(samples) {
        let Some(sample) = sample else { break };
        let plain = !pod.deleted
            && pod.phase != PodPhase::Failed
            && pod.phase != PodPhase::Pending
            && pod.ready.is_some_and(|r| r.status == ConditionStatus::True)
            && pod.start_time.is_some_and(|start| start.0 <= init_cutoff)
            && core::ptr::eq(pod.containers, first.containers)
            && pod.requests.map(<[_]>::as_ptr) == first.requests.map(<[_]>::as_ptr);
        if !plain {
            break;
        }
        values += sample.milli;
        requests += request;
        ready += 1;
    }
    (values, requests, ready)
}
