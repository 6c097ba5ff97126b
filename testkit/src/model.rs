//! Owned models of an evaluation sequence (spec pieces, pods, samples, metric values, steps),
//! from which the engine's borrowed inputs are built step by step. `tests/invariants.rs`
//! generates them from a seed, `fuzz/fuzz_targets/evaluate.rs` from the fuzzer's bytes.

use hpa::input::{
    Container, ContainerKind, ContainerUsage, MetricValues, Observation, Pod, PodPhase, PodSamples,
    ReadyCondition, ResourceRequest, Sample,
};
use hpa::quantity::Quantity;
use hpa::spec::{Behavior, ScalingPolicy, ScalingRules, SelectPolicy};
use hpa::time::{Duration, Instant};

/// One direction's scaling rules.
pub struct RulesModel {
    pub window: Option<i32>,
    pub select: Option<SelectPolicy>,
    pub policies: Option<Vec<ScalingPolicy>>,
    pub tolerance: Option<Quantity>,
}

impl RulesModel {
    /// The engine's view.
    pub fn view(&self) -> ScalingRules<'_> {
        ScalingRules {
            stabilization_window_seconds: self.window,
            select_policy: self.select,
            policies: self.policies.as_deref(),
            tolerance: self.tolerance,
        }
    }
}

/// A behavior, each direction's rules optional.
pub struct BehaviorModel {
    pub up: Option<RulesModel>,
    pub down: Option<RulesModel>,
}

impl BehaviorModel {
    /// The engine's view.
    pub fn view(&self) -> Behavior<'_> {
        Behavior {
            scale_up: self.up.as_ref().map(RulesModel::view),
            scale_down: self.down.as_ref().map(RulesModel::view),
        }
    }
}

pub struct ContainerModel {
    pub name: &'static str,
    pub kind: ContainerKind,
    pub requests: Vec<ResourceRequest<'static>>,
}

pub struct PodModel {
    pub name: &'static str,
    pub phase: PodPhase,
    pub ready: Option<ReadyCondition>,
    pub start_time: Option<Instant>,
    pub deleted: bool,
    pub containers: Vec<ContainerModel>,
    pub requests: Option<Vec<ResourceRequest<'static>>>,
}

pub struct SampleModel {
    pub milli: i64,
    pub timestamp: Instant,
    pub window: Duration,
    pub containers: Vec<ContainerUsage<'static>>,
}

impl SampleModel {
    /// The engine's view.
    pub fn view(&self) -> Sample<'_> {
        Sample {
            milli: self.milli,
            timestamp: self.timestamp,
            window: self.window,
            containers: &self.containers,
        }
    }
}

/// One metric's values in a step.
pub enum ValuesModel {
    Pods {
        per_pod: Vec<Option<SampleModel>>,
        orphans: Vec<SampleModel>,
    },
    Object(i64),
    External(Vec<i64>),
    Error,
}

/// How the caller reports a step's rescale.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Outcome {
    Succeeded,
    Failed,
    Unreported,
}

/// One evaluation of a sequence.
pub struct Step {
    pub now: Instant,
    /// `None`: apply the previous decision (closed loop).
    pub replicas: Option<i32>,
    /// `None`: equal to the replicas.
    pub status_replicas: Option<i32>,
    pub pods: Vec<PodModel>,
    pub values: Vec<ValuesModel>,
    pub outcome: Outcome,
}

/// Runs `f` with the observation of `step` (replicas given by the caller).
pub fn with_observation<T>(
    step: &Step,
    replicas: i32,
    status_replicas: i32,
    f: impl FnOnce(&Observation<'_>) -> T,
) -> T {
    let containers: Vec<Vec<Container<'_>>> = step
        .pods
        .iter()
        .map(|p| {
            p.containers
                .iter()
                .map(|c| Container {
                    name: c.name,
                    kind: c.kind,
                    requests: &c.requests,
                })
                .collect()
        })
        .collect();
    let pods: Vec<Pod<'_>> = step
        .pods
        .iter()
        .zip(&containers)
        .map(|(p, cs)| Pod {
            name: p.name,
            phase: p.phase,
            ready: p.ready,
            start_time: p.start_time,
            deleted: p.deleted,
            containers: cs,
            requests: p.requests.as_deref(),
        })
        .collect();
    let samples: Vec<(Vec<Option<Sample<'_>>>, Vec<Sample<'_>>)> = step
        .values
        .iter()
        .map(|v| match v {
            ValuesModel::Pods { per_pod, orphans } => (
                per_pod
                    .iter()
                    .map(|s| s.as_ref().map(SampleModel::view))
                    .collect(),
                orphans.iter().map(SampleModel::view).collect(),
            ),
            _ => (Vec::new(), Vec::new()),
        })
        .collect();
    let values: Vec<MetricValues<'_>> = step
        .values
        .iter()
        .zip(&samples)
        .map(|(v, (per_pod, orphans))| match v {
            ValuesModel::Pods { .. } => MetricValues::Pods(PodSamples { per_pod, orphans }),
            ValuesModel::Object(x) => MetricValues::Object(*x),
            ValuesModel::External(xs) => MetricValues::External(xs),
            ValuesModel::Error => MetricValues::Error("the metrics adapter is unavailable"),
        })
        .collect();
    f(&Observation {
        now: step.now,
        replicas,
        status_replicas,
        pods: &pods,
        metrics: &values,
    })
}
