//! The owned model (between the passes): a checked trace as [`Trace`](super::Trace) and
//! [`Manifest`](super::Manifest) keep it, in the engine's value types (quantities, instants,
//! policies) but owning its strings and lists.
//!
//! The engine borrows everything it reads, so the owned model is lent to it through the views
//! of [`super::view`]. It is apart from the raw model, which holds the document's text before
//! any check, and from the views, which are the mapping onto the engine's borrowed types.

use hpa::input::{ContainerKind, PodPhase, ReadyCondition};
use hpa::quantity::Quantity;
use hpa::spec::{MetricSourceType, MetricTarget, ScalingPolicy, SelectPolicy};
use hpa::time::{Duration, Instant};

/// `hpa.spec`, converted and validated: what [`HpaSpec`] borrows.
///
/// [`HpaSpec`]: hpa::spec::HpaSpec
#[derive(Clone, Debug)]
pub(super) struct OwnedSpec {
    pub(super) min_replicas: Option<i32>,
    pub(super) max_replicas: i32,
    pub(super) metrics: Vec<OwnedMetric>,
    pub(super) behavior: Option<OwnedBehavior>,
    pub(super) scale_target_ref: Option<OwnedRef>,
}

/// `CrossVersionObjectReference` (absent strings are empty).
#[derive(Clone, Debug, Default)]
pub(super) struct OwnedRef {
    pub(super) kind: String,
    pub(super) name: String,
    pub(super) api_version: String,
}

/// `MetricIdentifier`, its selector in the text upstream prints for it.
#[derive(Clone, Debug, Default)]
pub(super) struct OwnedIdentifier {
    pub(super) name: String,
    pub(super) selector: Option<String>,
    pub(super) selector_invalid: bool,
}

/// `MetricSpec`: each metric source with its target.
#[derive(Clone, Debug, Default)]
pub(super) struct OwnedMetric {
    pub(super) type_: Option<MetricSourceType>,
    pub(super) object: Option<(OwnedRef, OwnedIdentifier, MetricTarget)>,
    pub(super) pods: Option<(OwnedIdentifier, MetricTarget)>,
    pub(super) resource: Option<(String, MetricTarget)>,
    pub(super) container_resource: Option<(String, String, MetricTarget)>,
    pub(super) external: Option<(OwnedIdentifier, MetricTarget)>,
}

/// `HorizontalPodAutoscalerBehavior`.
#[derive(Clone, Debug)]
pub(super) struct OwnedBehavior {
    pub(super) scale_up: Option<OwnedRules>,
    pub(super) scale_down: Option<OwnedRules>,
}

/// `HPAScalingRules`.
#[derive(Clone, Debug)]
pub(super) struct OwnedRules {
    pub(super) stabilization_window_seconds: Option<i32>,
    pub(super) select_policy: Option<SelectPolicy>,
    pub(super) policies: Option<Vec<ScalingPolicy>>,
    pub(super) tolerance: Option<Quantity>,
}

/// One step: what [`Observation`] borrows, and whether the rescale succeeds (`applied`).
///
/// [`Observation`]: hpa::input::Observation
#[derive(Clone, Debug)]
pub(super) struct OwnedStep {
    pub(super) at: i64,
    pub(super) replicas: i32,
    pub(super) status_replicas: i32,
    pub(super) applied: bool,
    pub(super) pods: Vec<OwnedPod>,
    pub(super) metrics: Vec<OwnedMetricValues>,
}

/// A pod of a step.
#[derive(Clone, Debug)]
pub(super) struct OwnedPod {
    pub(super) name: String,
    pub(super) phase: PodPhase,
    pub(super) ready: Option<ReadyCondition>,
    pub(super) start_time: Option<Instant>,
    pub(super) deleted: bool,
    pub(super) containers: Vec<OwnedContainer>,
    pub(super) requests: Option<Vec<(String, Quantity)>>,
}

/// A container of a pod.
#[derive(Clone, Debug)]
pub(super) struct OwnedContainer {
    pub(super) name: String,
    pub(super) kind: ContainerKind,
    pub(super) requests: Vec<(String, Quantity)>,
}

/// One pod's sample, in milli-units.
#[derive(Clone, Debug)]
pub(super) struct OwnedSample {
    pub(super) milli: i64,
    pub(super) timestamp: Instant,
    pub(super) window: Duration,
    pub(super) containers: Vec<(String, i64)>,
}

/// One entry of a step's `metrics`: samples per pod (in the step's pod order, and those of
/// pods the step does not list sorted by name), an Object value, External values or an error.
#[derive(Clone, Debug)]
pub(super) enum OwnedMetricValues {
    Pods {
        per_pod: Vec<Option<OwnedSample>>,
        orphans: Vec<OwnedSample>,
    },
    Object(i64),
    External(Vec<i64>),
    Error(String),
}
