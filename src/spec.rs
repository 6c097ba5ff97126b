//! The HorizontalPodAutoscaler `autoscaling/v2` spec, as the caller hands it to the engine.
//!
//! The shape mirrors the Kubernetes API field by field (a metric has a `type` and one source
//! field per source kind, a target has a `type` and three value fields), so that every rule of
//! API validation can be checked here and every run-time rule that depends on a mismatch
//! (an Object target whose `type` does not match its populated field) behaves as upstream.
//! Everything is borrowed from the caller; nothing is copied.

use crate::quantity::Quantity;

/// The most metrics one HPA may list in this engine (Kubernetes has no limit; real HPAs use
/// a handful). Bounds the size of a [`crate::Decision`]; [`crate::Hpa::new`] refuses more.
pub const MAX_METRICS: usize = 8;

/// `spec` of a HorizontalPodAutoscaler (docs/spec/configuration.md#api-defaulting,
/// docs/spec/validation.md).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct HpaSpec<'a> {
    /// `minReplicas`; `None` defaults to 1.
    pub min_replicas: Option<i32>,
    /// `maxReplicas`.
    pub max_replicas: i32,
    /// `metrics`; an empty list defaults to one `cpu` Utilization 80 % metric.
    pub metrics: &'a [MetricSpec<'a>],
    /// `behavior`; `None` selects the legacy normalization.
    pub behavior: Option<Behavior<'a>>,
    /// `scaleTargetRef`, when the caller wants it validated (optional in traces).
    pub scale_target_ref: Option<CrossVersionObjectReference<'a>>,
}

/// `CrossVersionObjectReference` (scale target and Object metric described object).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CrossVersionObjectReference<'a> {
    /// `kind`.
    pub kind: &'a str,
    /// `name`.
    pub name: &'a str,
    /// `apiVersion` (may be empty).
    pub api_version: &'a str,
}

/// Which source a metric reads (`metrics[].type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MetricSourceType {
    /// `Object`.
    Object,
    /// `Pods`.
    Pods,
    /// `Resource`.
    Resource,
    /// `ContainerResource`.
    ContainerResource,
    /// `External`.
    External,
}

impl MetricSourceType {
    /// The API spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            MetricSourceType::Object => "Object",
            MetricSourceType::Pods => "Pods",
            MetricSourceType::Resource => "Resource",
            MetricSourceType::ContainerResource => "ContainerResource",
            MetricSourceType::External => "External",
        }
    }
}

/// One entry of `spec.metrics`: a type and the source fields as populated by the user.
/// Validation requires exactly the field that matches `type_` to be set.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MetricSpec<'a> {
    /// `type`; `None` when the manifest omitted it (a validation error).
    pub type_: Option<MetricSourceType>,
    /// `object`.
    pub object: Option<ObjectMetricSource<'a>>,
    /// `pods`.
    pub pods: Option<PodsMetricSource<'a>>,
    /// `resource`.
    pub resource: Option<ResourceMetricSource<'a>>,
    /// `containerResource`.
    pub container_resource: Option<ContainerResourceMetricSource<'a>>,
    /// `external`.
    pub external: Option<ExternalMetricSource<'a>>,
}

impl<'a> MetricSpec<'a> {
    /// A Resource metric (convenience constructor).
    pub const fn resource(name: &'a str, target: MetricTarget) -> Self {
        MetricSpec {
            type_: Some(MetricSourceType::Resource),
            object: None,
            pods: None,
            resource: Some(ResourceMetricSource { name, target }),
            container_resource: None,
            external: None,
        }
    }

    /// A ContainerResource metric (convenience constructor).
    pub const fn container_resource(
        name: &'a str,
        container: &'a str,
        target: MetricTarget,
    ) -> Self {
        MetricSpec {
            type_: Some(MetricSourceType::ContainerResource),
            object: None,
            pods: None,
            resource: None,
            container_resource: Some(ContainerResourceMetricSource {
                name,
                container,
                target,
            }),
            external: None,
        }
    }

    /// A Pods metric (convenience constructor).
    pub const fn pods(metric: MetricIdentifier<'a>, target: MetricTarget) -> Self {
        MetricSpec {
            type_: Some(MetricSourceType::Pods),
            object: None,
            pods: Some(PodsMetricSource { metric, target }),
            resource: None,
            container_resource: None,
            external: None,
        }
    }

    /// An Object metric (convenience constructor).
    pub const fn object(
        described_object: CrossVersionObjectReference<'a>,
        metric: MetricIdentifier<'a>,
        target: MetricTarget,
    ) -> Self {
        MetricSpec {
            type_: Some(MetricSourceType::Object),
            object: Some(ObjectMetricSource {
                described_object,
                metric,
                target,
            }),
            pods: None,
            resource: None,
            container_resource: None,
            external: None,
        }
    }

    /// An External metric (convenience constructor).
    pub const fn external(metric: MetricIdentifier<'a>, target: MetricTarget) -> Self {
        MetricSpec {
            type_: Some(MetricSourceType::External),
            object: None,
            pods: None,
            resource: None,
            container_resource: None,
            external: Some(ExternalMetricSource { metric, target }),
        }
    }
}

/// `metrics[].resource`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ResourceMetricSource<'a> {
    /// Resource name (`cpu`, `memory`, ...).
    pub name: &'a str,
    /// Target.
    pub target: MetricTarget,
}

/// `metrics[].containerResource`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ContainerResourceMetricSource<'a> {
    /// Resource name.
    pub name: &'a str,
    /// Container whose usage and request are used.
    pub container: &'a str,
    /// Target.
    pub target: MetricTarget,
}

/// `metrics[].pods`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PodsMetricSource<'a> {
    /// Metric name and selector.
    pub metric: MetricIdentifier<'a>,
    /// Target.
    pub target: MetricTarget,
}

/// `metrics[].object`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ObjectMetricSource<'a> {
    /// The object the metric describes.
    pub described_object: CrossVersionObjectReference<'a>,
    /// Metric name and selector.
    pub metric: MetricIdentifier<'a>,
    /// Target.
    pub target: MetricTarget,
}

/// `metrics[].external`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ExternalMetricSource<'a> {
    /// Metric name and selector.
    pub metric: MetricIdentifier<'a>,
    /// Target.
    pub target: MetricTarget,
}

/// `MetricIdentifier`: a metric name and an optional label selector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MetricIdentifier<'a> {
    /// `name`.
    pub name: &'a str,
    /// The label selector rendered as Go's `%+v` would print it (only used in messages);
    /// `None` when unset (printed `<nil>`).
    pub selector: Option<&'a str>,
    /// Set when the selector cannot be converted (upstream fails the metric at run time).
    pub selector_invalid: bool,
}

impl<'a> MetricIdentifier<'a> {
    /// A metric name without selector.
    pub const fn named(name: &'a str) -> Self {
        MetricIdentifier {
            name,
            selector: None,
            selector_invalid: false,
        }
    }
}

/// `MetricTarget.type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MetricTargetType {
    /// `Utilization`.
    Utilization,
    /// `Value`.
    Value,
    /// `AverageValue`.
    AverageValue,
}

impl MetricTargetType {
    /// The API spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            MetricTargetType::Utilization => "Utilization",
            MetricTargetType::Value => "Value",
            MetricTargetType::AverageValue => "AverageValue",
        }
    }
}

/// `MetricTarget`: a type and the value fields as populated.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MetricTarget {
    /// `type`; `None` when omitted (a validation error).
    pub type_: Option<MetricTargetType>,
    /// `value`.
    pub value: Option<Quantity>,
    /// `averageValue`.
    pub average_value: Option<Quantity>,
    /// `averageUtilization` (percent of request).
    pub average_utilization: Option<i32>,
}

impl MetricTarget {
    /// `type: Utilization, averageUtilization: percent`.
    pub const fn utilization(percent: i32) -> Self {
        MetricTarget {
            type_: Some(MetricTargetType::Utilization),
            value: None,
            average_value: None,
            average_utilization: Some(percent),
        }
    }

    /// `type: Value, value: q`.
    pub const fn value(q: Quantity) -> Self {
        MetricTarget {
            type_: Some(MetricTargetType::Value),
            value: Some(q),
            average_value: None,
            average_utilization: None,
        }
    }

    /// `type: AverageValue, averageValue: q`.
    pub const fn average_value(q: Quantity) -> Self {
        MetricTarget {
            type_: Some(MetricTargetType::AverageValue),
            value: None,
            average_value: Some(q),
            average_utilization: None,
        }
    }
}

/// `spec.behavior`.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Behavior<'a> {
    /// `scaleUp`; `None` gets the API defaults.
    pub scale_up: Option<ScalingRules<'a>>,
    /// `scaleDown`; `None` gets the API defaults.
    pub scale_down: Option<ScalingRules<'a>>,
}

/// `HPAScalingRules`, as written by the user (unset fields are `None`).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ScalingRules<'a> {
    /// `stabilizationWindowSeconds`.
    pub stabilization_window_seconds: Option<i32>,
    /// `selectPolicy`.
    pub select_policy: Option<SelectPolicy>,
    /// `policies`; `None` gets the defaults, `Some(&[])` is invalid.
    pub policies: Option<&'a [ScalingPolicy]>,
    /// `tolerance` (HPAConfigurableTolerance).
    pub tolerance: Option<Quantity>,
}

/// `selectPolicy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SelectPolicy {
    /// `Max`: the policy allowing the largest change.
    Max,
    /// `Min`: the policy allowing the smallest change.
    Min,
    /// `Disabled`: no scaling in this direction.
    Disabled,
}

impl SelectPolicy {
    /// The API spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            SelectPolicy::Max => "Max",
            SelectPolicy::Min => "Min",
            SelectPolicy::Disabled => "Disabled",
        }
    }
}

/// `HPAScalingPolicy.type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PolicyType {
    /// A number of pods per period.
    Pods,
    /// A percentage of the period-start replicas per period.
    Percent,
}

impl PolicyType {
    /// The API spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            PolicyType::Pods => "Pods",
            PolicyType::Percent => "Percent",
        }
    }
}

/// `HPAScalingPolicy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ScalingPolicy {
    /// `type`.
    pub type_: PolicyType,
    /// `value` (> 0).
    pub value: i32,
    /// `periodSeconds` (1..=1800).
    pub period_seconds: i32,
}
