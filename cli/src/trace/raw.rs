//! The raw model (pass 1, parsing): serde types mirroring the document field by field, as the
//! format and the `autoscaling/v2` schema spell it.
//!
//! Every struct denies unknown fields and takes a map only ([`objects_only!`]); maps with keys
//! of the document's choosing are [`StrictMap`]s and the untyped parts of `metadata` and
//! `status` are [`AnyValue`]s, so duplicate keys are rejected everywhere. Integer fields are
//! Rust integers (`15000.0` is an error); quantities and the controller's numbers keep their
//! exact text. Nothing here is checked beyond the document's shape: the conversion
//! ([`super::convert`]) gives meaning to the values, which is why the two are apart.

use serde::Deserialize;

use super::strict::{objects_only, AnyValue, NumberText, QuantityText, StrictMap};

objects_only! {
    RawTrace => "a trace object",
    RawTraceHpa => "an autoscaling/v2 HorizontalPodAutoscaler object",
    RawObjectMeta => "an ObjectMeta object",
    RawStatus => "a HorizontalPodAutoscalerStatus object",
    RawCondition => "a HorizontalPodAutoscalerCondition object",
    RawTraceSpec => "a HorizontalPodAutoscalerSpec object",
    RawSpec => "a HorizontalPodAutoscalerSpec object",
    RawObjectRef => "a CrossVersionObjectReference object",
    RawMetricSpec => "a MetricSpec object",
    RawObjectSource => "an ObjectMetricSource object",
    RawPodsSource => "a PodsMetricSource or ExternalMetricSource object",
    RawResourceSource => "a ResourceMetricSource object",
    RawContainerResourceSource => "a ContainerResourceMetricSource object",
    RawIdentifier => "a MetricIdentifier object",
    RawLabelSelector => "a LabelSelector object",
    RawRequirement => "a LabelSelectorRequirement object",
    RawTarget => "a MetricTarget object",
    RawBehavior => "a HorizontalPodAutoscalerBehavior object",
    RawRules => "an HPAScalingRules object",
    RawPolicy => "an HPAScalingPolicy object",
    RawController => "a controller object",
    RawStep => "a step object",
    RawPod => "a pod object",
    RawContainer => "a container object",
    RawMetricValues => "a metric values object",
    RawSample => "a sample object",
}

/// The document.
#[derive(Deserialize)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawTrace {
    pub(super) hpa: RawTraceHpa,
    pub(super) controller: Option<RawController>,
    pub(super) steps: Vec<RawStep>,
}

/// `hpa`: an `autoscaling/v2` HorizontalPodAutoscaler object, with the format's own leniency
/// (`metadata` and `status` values of any type, `spec.syncPeriodSeconds`); a standalone
/// manifest is read as the API server reads it instead ([`super::objects::RawHpa`]).
#[derive(Deserialize)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawTraceHpa {
    pub(super) api_version: Option<String>,
    pub(super) kind: Option<String>,
    pub(super) metadata: Option<RawObjectMeta>,
    pub(super) spec: Option<RawTraceSpec>,
    pub(super) status: Option<RawStatus>,
}

/// `metadata` of a trace's `hpa`: ObjectMeta's field names, any values (only `name` is used).
#[derive(Deserialize)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)] // The other fields are accepted for the schema's sake and ignored.
pub(super) struct RawObjectMeta {
    pub(super) name: Option<String>,
    pub(super) generate_name: Option<AnyValue>,
    pub(super) namespace: Option<AnyValue>,
    pub(super) self_link: Option<AnyValue>,
    pub(super) uid: Option<AnyValue>,
    pub(super) resource_version: Option<AnyValue>,
    pub(super) generation: Option<AnyValue>,
    pub(super) creation_timestamp: Option<AnyValue>,
    pub(super) deletion_timestamp: Option<AnyValue>,
    pub(super) deletion_grace_period_seconds: Option<AnyValue>,
    pub(super) labels: Option<AnyValue>,
    pub(super) annotations: Option<AnyValue>,
    pub(super) owner_references: Option<AnyValue>,
    pub(super) finalizers: Option<AnyValue>,
    pub(super) managed_fields: Option<AnyValue>,
}

/// `status`: HorizontalPodAutoscalerStatus (only `conditions` is used).
#[derive(Deserialize)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)] // The other fields are accepted for the schema's sake and ignored.
pub(super) struct RawStatus {
    pub(super) observed_generation: Option<AnyValue>,
    pub(super) last_scale_time: Option<AnyValue>,
    pub(super) current_replicas: Option<AnyValue>,
    pub(super) desired_replicas: Option<AnyValue>,
    pub(super) current_metrics: Option<AnyValue>,
    pub(super) conditions: Option<Vec<RawCondition>>,
}

/// `HorizontalPodAutoscalerCondition`.
#[derive(Deserialize)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)] // Only `type` and `status` are used.
pub(super) struct RawCondition {
    #[serde(rename = "type")]
    pub(super) type_: Option<String>,
    pub(super) status: Option<String>,
    pub(super) last_transition_time: Option<AnyValue>,
    pub(super) reason: Option<AnyValue>,
    pub(super) message: Option<AnyValue>,
}

/// `hpa.spec` of a trace: `HorizontalPodAutoscalerSpec` and the format's `syncPeriodSeconds`.
#[derive(Deserialize, Default)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)] // `syncPeriodSeconds` is ignored (docs/spec/trace-format.md#rule-20).
pub(super) struct RawTraceSpec {
    pub(super) scale_target_ref: Option<RawObjectRef>,
    pub(super) min_replicas: Option<i32>,
    pub(super) max_replicas: Option<i32>,
    pub(super) metrics: Option<Vec<RawMetricSpec>>,
    pub(super) behavior: Option<RawBehavior>,
    pub(super) sync_period_seconds: Option<AnyValue>,
}

impl From<RawTraceSpec> for RawSpec {
    fn from(spec: RawTraceSpec) -> Self {
        RawSpec {
            scale_target_ref: spec.scale_target_ref,
            min_replicas: spec.min_replicas,
            max_replicas: spec.max_replicas,
            metrics: spec.metrics,
            behavior: spec.behavior,
        }
    }
}

/// `HorizontalPodAutoscalerSpec` of `autoscaling/v2`, as the API server reads it (a standalone
/// manifest; what the other API versions convert into).
#[derive(Deserialize, Default)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawSpec {
    pub(super) scale_target_ref: Option<RawObjectRef>,
    pub(super) min_replicas: Option<i32>,
    pub(super) max_replicas: Option<i32>,
    pub(super) metrics: Option<Vec<RawMetricSpec>>,
    pub(super) behavior: Option<RawBehavior>,
}

/// `CrossVersionObjectReference`.
#[derive(Deserialize, Default)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawObjectRef {
    pub(super) kind: Option<String>,
    pub(super) name: Option<String>,
    pub(super) api_version: Option<String>,
}

/// `MetricSpec`.
#[derive(Deserialize, Default)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawMetricSpec {
    #[serde(rename = "type")]
    pub(super) type_: Option<String>,
    pub(super) object: Option<RawObjectSource>,
    pub(super) pods: Option<RawPodsSource>,
    pub(super) resource: Option<RawResourceSource>,
    pub(super) container_resource: Option<RawContainerResourceSource>,
    pub(super) external: Option<RawExternalSource>,
}

/// `ObjectMetricSource`.
#[derive(Deserialize)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawObjectSource {
    pub(super) described_object: Option<RawObjectRef>,
    pub(super) target: Option<RawTarget>,
    pub(super) metric: Option<RawIdentifier>,
}

/// `PodsMetricSource` and `ExternalMetricSource`.
#[derive(Deserialize)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawPodsSource {
    pub(super) metric: Option<RawIdentifier>,
    pub(super) target: Option<RawTarget>,
}

/// `ResourceMetricSource`.
#[derive(Deserialize)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawResourceSource {
    pub(super) name: Option<String>,
    pub(super) target: Option<RawTarget>,
}

/// `ContainerResourceMetricSource`.
#[derive(Deserialize)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawContainerResourceSource {
    pub(super) name: Option<String>,
    pub(super) target: Option<RawTarget>,
    pub(super) container: Option<String>,
}

/// `ExternalMetricSource` (same shape as `PodsMetricSource`).
pub(super) type RawExternalSource = RawPodsSource;

/// `MetricIdentifier`.
#[derive(Deserialize, Default)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawIdentifier {
    pub(super) name: Option<String>,
    pub(super) selector: Option<RawLabelSelector>,
}

/// `LabelSelector`.
#[derive(Deserialize)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawLabelSelector {
    pub(super) match_labels: Option<StrictMap<String>>,
    pub(super) match_expressions: Option<Vec<RawRequirement>>,
}

/// `LabelSelectorRequirement`.
#[derive(Deserialize)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawRequirement {
    pub(super) key: Option<String>,
    pub(super) operator: Option<String>,
    pub(super) values: Option<Vec<String>>,
}

/// `MetricTarget`.
#[derive(Deserialize, Default)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawTarget {
    #[serde(rename = "type")]
    pub(super) type_: Option<String>,
    pub(super) value: Option<QuantityText>,
    pub(super) average_value: Option<QuantityText>,
    pub(super) average_utilization: Option<i32>,
}

/// `HorizontalPodAutoscalerBehavior`.
#[derive(Deserialize)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawBehavior {
    pub(super) scale_up: Option<RawRules>,
    pub(super) scale_down: Option<RawRules>,
}

/// `HPAScalingRules`.
#[derive(Deserialize, Default)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawRules {
    pub(super) stabilization_window_seconds: Option<i32>,
    pub(super) select_policy: Option<String>,
    pub(super) policies: Option<Vec<RawPolicy>>,
    pub(super) tolerance: Option<QuantityText>,
}

/// `HPAScalingPolicy`.
#[derive(Deserialize)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawPolicy {
    #[serde(rename = "type")]
    pub(super) type_: Option<String>,
    pub(super) value: Option<i32>,
    pub(super) period_seconds: Option<i32>,
}

/// `controller`.
#[derive(Deserialize, Default)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawController {
    pub(super) tolerance: Option<NumberText>,
    pub(super) downscale_stabilization_window_seconds: Option<NumberText>,
    pub(super) cpu_initialization_period_seconds: Option<NumberText>,
    pub(super) initial_readiness_delay_seconds: Option<NumberText>,
    pub(super) scale_to_zero: Option<bool>,
    pub(super) arithmetic: Option<RawArithmetic>,
}

/// `controller.arithmetic`.
#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub(super) enum RawArithmetic {
    Kubernetes,
    Exact,
}

/// One step.
#[derive(Deserialize)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawStep {
    pub(super) at: i64,
    pub(super) replicas: i64,
    pub(super) status_replicas: Option<i64>,
    pub(super) pods: Option<Vec<RawPod>>,
    pub(super) metrics: Option<Vec<RawMetricValues>>,
    pub(super) applied: Option<bool>,
}

/// A pod of a step.
#[derive(Deserialize)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawPod {
    pub(super) name: String,
    pub(super) phase: Option<RawPhase>,
    pub(super) ready: Option<RawConditionStatus>,
    pub(super) ready_transition_time: Option<i64>,
    pub(super) start_time: Option<i64>,
    pub(super) deleted: Option<bool>,
    pub(super) containers: Option<Vec<RawContainer>>,
    pub(super) requests: Option<StrictMap<QuantityText>>,
}

/// `phase`.
#[derive(Deserialize, Clone, Copy)]
pub(super) enum RawPhase {
    Pending,
    Running,
    Succeeded,
    Failed,
    Unknown,
}

/// `ready`.
#[derive(Deserialize, Clone, Copy)]
pub(super) enum RawConditionStatus {
    True,
    False,
    Unknown,
}

/// A container of a pod.
#[derive(Deserialize)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawContainer {
    pub(super) name: String,
    pub(super) requests: Option<StrictMap<QuantityText>>,
    pub(super) restartable_init: Option<bool>,
}

/// One entry of a step's `metrics`.
#[derive(Deserialize)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawMetricValues {
    pub(super) samples: Option<StrictMap<RawSample>>,
    pub(super) value: Option<QuantityText>,
    pub(super) values: Option<Vec<QuantityText>>,
    pub(super) error: Option<String>,
}

/// One pod's sample.
#[derive(Deserialize)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawSample {
    pub(super) value: Option<QuantityText>,
    pub(super) timestamp: Option<i64>,
    pub(super) window: Option<i64>,
    pub(super) containers: Option<StrictMap<QuantityText>>,
}

#[cfg(test)]
mod tests {
    use crate::trace::test_support::{assert_error, base_with, json, yaml};

    #[test]
    fn unknown_fields() {
        assert_error(
            json(&base_with(r#""at": 0,"#, r#""at": 0, "foo": 1,"#)),
            "steps[0].foo",
            "unknown field `foo`",
        );
        assert_error(
            json(&base_with(
                r#""maxReplicas": 10"#,
                r#""maxReplicas": 10, "minReplica": 1"#,
            )),
            "hpa.spec.minReplica",
            "unknown field `minReplica`",
        );
        assert_error(
            json(&base_with(r#""name": "w""#, r#""name": "w", "nam": "x""#)),
            "hpa.metadata.nam",
            "unknown field `nam`",
        );
        assert_error(
            json(&base_with(
                r#""metadata""#,
                r#""status": {"replicas": 1}, "metadata""#,
            )),
            "hpa.status.replicas",
            "unknown field `replicas`",
        );
        assert_error(
            json(&base_with(r#""steps""#, r#""controler": {}, "steps""#)),
            "controler",
            "unknown field `controler`",
        );
        assert_error(
            yaml("hpa: {spec: {maxReplicas: 1}}\nsteps:\n- {at: 0, replicas: 1, bogus: 2}\n"),
            "steps[0].bogus",
            "unknown field `bogus`",
        );
    }
}
