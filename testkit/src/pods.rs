//! Pods and samples for the calculators' tests (`tests/exact_mode.rs`,
//! `tests/older_controllers.rs`), and one metric's proposal over them.
//!
//! Every pod is running, Ready for ten minutes and started fifteen minutes before `Instant(0)`,
//! so every calculator counts it (its cpu initialization period is long over,
//! docs/spec/pods.md#cpu-readiness, case c), and requests 1 CPU in its one container `app`.

use hpa::input::{
    ConditionStatus, Container, ContainerKind, ContainerUsage, PodPhase, ReadyCondition,
    ResourceRequest,
};
use hpa::metrics::{evaluate_metric, CalcContext, MetricOutcome, Tolerances};
use hpa::spec::MetricSpec;
use hpa::{Duration, Instant, MetricValues, Observation, Pod, Quantity, Sample, Settings};

static CPU_REQUEST: [ResourceRequest<'static>; 1] = [ResourceRequest {
    resource: "cpu",
    quantity: Quantity::from_milli(1000),
}];
static CONTAINERS: [Container<'static>; 1] = [Container {
    name: "app",
    kind: ContainerKind::Regular,
    requests: &CPU_REQUEST,
}];
const NAMES: [&str; 10] = ["p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9"];

/// The pod `name`.
pub const fn pod(name: &'static str) -> Pod<'static> {
    Pod {
        name,
        phase: PodPhase::Running,
        ready: Some(ReadyCondition {
            status: ConditionStatus::True,
            last_transition: Some(Instant(-600_000)),
        }),
        start_time: Some(Instant(-900_000)),
        deleted: false,
        containers: &CONTAINERS,
        requests: None,
    }
}

/// `n` pods (at most ten) named `p0`, `p1`, ...
pub fn pods(n: usize) -> Vec<Pod<'static>> {
    NAMES[..n].iter().map(|name| pod(name)).collect()
}

/// A sample of `milli` CPU taken at `Instant(0)` over a minute, with the usage of `containers`.
pub fn sample(milli: i64, containers: &'static [ContainerUsage<'static>]) -> Sample<'static> {
    Sample {
        milli,
        timestamp: Instant(0),
        window: Duration::from_secs(60),
        containers,
    }
}

/// One metric's proposal over `pods` (the current and status replicas are their count) with
/// `values`, or the error's text.
pub fn outcome(
    settings: &Settings,
    tolerances: Tolerances,
    metric: &MetricSpec<'_>,
    pods: &[Pod<'_>],
    values: &MetricValues<'_>,
) -> Result<i32, String> {
    let replicas = i32::try_from(pods.len()).expect("an i32 pod count");
    let obs = Observation {
        now: Instant(0),
        replicas,
        status_replicas: replicas,
        pods,
        metrics: &[],
    };
    let ctx = CalcContext {
        obs: &obs,
        settings,
        tolerances,
        current: replicas,
    };
    match evaluate_metric(&ctx, metric, values) {
        MetricOutcome::Proposal(p) => Ok(p.replicas),
        MetricOutcome::Error(e) => Err(e.to_string()),
    }
}
