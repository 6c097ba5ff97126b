//! The enumerations of the C API.
//!
//! Enumerations cross the boundary as `uint32_t` fields and arguments, never as C enums: a
//! value the library does not know is refused with `HPA_STATUS_INVALID_ENUM` instead of being
//! undefined behaviour. The C enums in `hpa.h` name the values. Where a Kubernetes field is
//! optional, the value 0 means "unset" and gets Kubernetes' default, so that a zeroed struct is
//! the API default.

use core::ffi::{c_char, CStr};

use hpa::conditions::{ConditionStatus, ConditionType, Reason};
use hpa::input::{ContainerKind, PodPhase};
use hpa::metrics::Reading;
use hpa::quantity::Format;
use hpa::spec::{MetricSourceType, MetricTargetType, PolicyType, SelectPolicy};
use hpa::validation::ErrorType;
use hpa::{Arithmetic, LimitedBy};

/// `spec.metrics[].type`: which source a metric reads (`hpa_metric.type`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum hpa_metric_source_type {
    /// Unset: Kubernetes' validation reports "Required value".
    Unset = 0,
    /// `Resource`: a resource (cpu, memory) of the whole pod.
    Resource = 1,
    /// `ContainerResource`: a resource of one named container.
    ContainerResource = 2,
    /// `Pods`: a custom metric per pod.
    Pods = 3,
    /// `Object`: one value describing a Kubernetes object.
    Object = 4,
    /// `External`: values from outside the cluster (a queue length, a request rate).
    External = 5,
}

/// `MetricTarget.type` (`hpa_metric_target.type`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum hpa_metric_target_type {
    /// Unset: Kubernetes' validation reports "Required value".
    Unset = 0,
    /// `Utilization`: `average_utilization` percent of the pods' requests.
    Utilization = 1,
    /// `Value`: `value_milli` in total (Object and External metrics).
    Value = 2,
    /// `AverageValue`: `average_value_milli` per pod.
    AverageValue = 3,
}

/// `behavior.*.selectPolicy` (`hpa_scaling_rules.select_policy`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum hpa_select_policy {
    /// Unset: the default, `Max`.
    Unset = 0,
    /// `Max`: the policy allowing the largest change.
    Max = 1,
    /// `Min`: the policy allowing the smallest change.
    Min = 2,
    /// `Disabled`: no scaling in this direction.
    Disabled = 3,
}

/// `HPAScalingPolicy.type` (`hpa_scaling_policy.type`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum hpa_policy_type {
    /// Unset: Kubernetes' validation reports `Unsupported value: ""`.
    Unset = 0,
    /// `Pods`: a number of pods per period.
    Pods = 1,
    /// `Percent`: a percentage of the replicas at the start of the period.
    Percent = 2,
}

/// How upstream's float64 expressions are evaluated (`hpa_settings.arithmetic`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum hpa_arithmetic {
    /// Reproduce Kubernetes' IEEE binary64 results bit for bit (the default).
    Kubernetes = 1,
    /// Evaluate the same expressions in exact rationals.
    Exact = 2,
}

/// A pod's phase (`hpa_pod.phase`); 0 is `Running`, the common case.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum hpa_pod_phase {
    /// `Running`.
    Running = 0,
    /// `Pending`: counted as unready.
    Pending = 1,
    /// `Succeeded`.
    Succeeded = 2,
    /// `Failed`: ignored.
    Failed = 3,
    /// `Unknown`.
    Unknown = 4,
}

/// A pod's `Ready` condition (`hpa_pod.ready`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum hpa_ready {
    /// The pod has no Ready condition (for CPU metrics such a pod is unready).
    Absent = 0,
    /// Ready: `True`.
    True = 1,
    /// Ready: `False`.
    False = 2,
    /// Ready: `Unknown`.
    Unknown = 3,
}

/// What kind of container a container is (`hpa_container.kind`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum hpa_container_kind {
    /// A regular container (`spec.containers`).
    Regular = 0,
    /// A sidecar: an init container with `restartPolicy: Always`.
    Sidecar = 1,
    /// A plain init container.
    Init = 2,
}

/// What one `hpa_metric_values` entry carries (`hpa_metric_values.kind`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum hpa_values_kind {
    /// Per-pod samples: Resource, ContainerResource and Pods metrics.
    Samples = 1,
    /// One value: Object metrics.
    Object = 2,
    /// The series values an adapter returned: External metrics.
    External = 3,
    /// Fetching the metric failed with a message (any source).
    Error = 4,
}

/// Whether a metric proposed a replica count (`hpa_metric_result.outcome`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum hpa_metric_outcome {
    /// The metric proposed `replicas`.
    Proposal = 1,
    /// The metric failed with `error`.
    Error = 2,
}

/// The four status condition types (`hpa_condition.type`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum hpa_condition_type {
    /// Whether the autoscaler can read and update the scale target.
    AbleToScale = 1,
    /// Whether metrics give a replica count.
    ScalingActive = 2,
    /// Whether the result was clamped by min/max or a rate limit.
    ScalingLimited = 3,
    /// Whether the autoscaler itself scaled the target to zero.
    ScaledToZero = 4,
}

/// A condition's status (`hpa_condition.status`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum hpa_condition_status {
    /// `True`.
    True = 1,
    /// `False`.
    False = 2,
    /// `Unknown`.
    Unknown = 3,
}

/// A condition's reason (`hpa_condition.reason`, `hpa_metric_result.error_reason`), as
/// Kubernetes spells it in `hpa_reason_str`.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum hpa_reason {
    /// AbleToScale True: the scale target was read.
    SucceededGetScale = 1,
    /// AbleToScale True: a scale-down was held back by the down window.
    ScaleDownStabilized = 2,
    /// AbleToScale True: a scale-up was held back by the up window.
    ScaleUpStabilized = 3,
    /// AbleToScale True: stabilization changed nothing.
    ReadyForNewScale = 4,
    /// AbleToScale True: the new replica count was applied.
    SucceededRescale = 5,
    /// AbleToScale False: applying the new replica count failed.
    FailedUpdateScale = 6,
    /// ScalingActive False: the target has zero replicas.
    ScalingDisabled = 7,
    /// ScalingActive False: a Resource metric failed.
    FailedGetResourceMetric = 8,
    /// ScalingActive False: a ContainerResource metric failed.
    FailedGetContainerResourceMetric = 9,
    /// ScalingActive False: a Pods metric failed.
    FailedGetPodsMetric = 10,
    /// ScalingActive False: an Object metric failed.
    FailedGetObjectMetric = 11,
    /// ScalingActive False: an External metric failed.
    FailedGetExternalMetric = 12,
    /// ScalingActive False: a metric has an unknown source type.
    InvalidMetricSourceType = 13,
    /// ScalingActive True: some metric gave a replica count.
    ValidMetricFound = 14,
    /// ScalingLimited True: capped at maxReplicas.
    TooManyReplicas = 15,
    /// ScalingLimited True: raised to minReplicas.
    TooFewReplicas = 16,
    /// ScalingLimited True: capped by the scale-up rate.
    ScaleUpLimit = 17,
    /// ScalingLimited True: held by the scale-down rate.
    ScaleDownLimit = 18,
    /// ScalingLimited False: nothing limited the result.
    DesiredWithinRange = 19,
    /// ScaledToZero True: the autoscaler scaled the workload to zero.
    ScaledToZero = 20,
    /// ScaledToZero False: the autoscaler did not scale the workload to zero.
    NotScaledToZero = 21,
}

/// Why the engine asks for a new replica count (`hpa_decision.rescale_reason`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum hpa_rescale_reason {
    /// No change asked.
    None = 0,
    /// `<metric> above target`.
    AboveTarget = 1,
    /// `All metrics below target`.
    AllBelowTarget = 2,
    /// `Current number of replicas above Spec.MaxReplicas`.
    AboveMaxReplicas = 3,
    /// `Current number of replicas below Spec.MinReplicas`.
    BelowMinReplicas = 4,
}

/// The main rule that shaped a decision (`hpa_decision.limited_by`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum hpa_limited_by {
    /// Nothing held the metrics' proposal back.
    Nothing = 0,
    /// The usage ratio was inside the tolerance band.
    Tolerance = 1,
    /// A stabilization window held the count.
    Stabilization = 2,
    /// A scaling policy (or the legacy 2x/+4 rule) limited the rate.
    RatePolicy = 3,
    /// Raised to `minReplicas`.
    MinReplicas = 4,
    /// Capped at `maxReplicas`.
    MaxReplicas = 5,
    /// Invalid metrics: no decision.
    InvalidMetrics = 6,
    /// The target has zero replicas and the autoscaler did not scale it there.
    ScalingDisabled = 7,
}

/// A reading upstream's arithmetic takes as it is, though out of the ordinary
/// (`hpa_metric_result.reading`; docs/parity.md).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum hpa_reading {
    /// Nothing out of the ordinary.
    Plain = 0,
    /// A value the calculation used was negative (a pod's sample or request, an Object value,
    /// an External series entry): computed with as it is, as upstream does.
    Negative = 1,
    /// Upstream's overflow guard on an External AverageValue series took the sum as MaxInt64
    /// (a negative entry, or beyond int64): the proposal is the largest count.
    TreatedAsOverflow = 2,
}

/// The type of a Kubernetes field error (`hpa_field_error.type`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum hpa_field_error_type {
    /// Not a Kubernetes validation error: a C-level problem (NULL pointer, unknown enum
    /// value, invalid UTF-8, ...) described by the status.
    None = 0,
    /// `Required value`.
    Required = 1,
    /// `Invalid value`.
    Invalid = 2,
    /// `Unsupported value`.
    Unsupported = 3,
    /// `Forbidden`.
    Forbidden = 4,
    /// `Too long`.
    TooLong = 5,
    /// `Too many`.
    TooMany = 6,
}

/// How a quantity is written (`hpa_quantity_write`'s `format`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum hpa_quantity_format {
    /// Decimal SI suffixes (`m`, `k`, `M`, ...), e.g. `1500m`, `2k`.
    DecimalSi = 1,
    /// Binary suffixes (`Ki`, `Mi`, `Gi`, ...), e.g. `256Mi`; how Kubernetes prints memory.
    BinarySi = 2,
    /// Exponent notation, e.g. `12e6`.
    DecimalExponent = 3,
}

/// Bit of `hpa_metric_target.fields`: populate `value`.
pub const HPA_TARGET_FIELD_VALUE: u32 = 1;
/// Bit of `hpa_metric_target.fields`: populate `averageValue`.
pub const HPA_TARGET_FIELD_AVERAGE_VALUE: u32 = 2;
/// Bit of `hpa_metric_target.fields`: populate `averageUtilization`.
pub const HPA_TARGET_FIELD_AVERAGE_UTILIZATION: u32 = 4;

// ---- Conversions from the numbers C sends -------------------------------------------------

/// The source type for a C value (`None`: unknown value; `Some(None)`: unset).
pub(crate) fn metric_source_type(v: u32) -> Option<Option<MetricSourceType>> {
    Some(match v {
        0 => None,
        1 => Some(MetricSourceType::Resource),
        2 => Some(MetricSourceType::ContainerResource),
        3 => Some(MetricSourceType::Pods),
        4 => Some(MetricSourceType::Object),
        5 => Some(MetricSourceType::External),
        _ => return None,
    })
}

/// The C value of a source type.
pub(crate) fn metric_source_type_value(t: MetricSourceType) -> hpa_metric_source_type {
    match t {
        MetricSourceType::Resource => hpa_metric_source_type::Resource,
        MetricSourceType::ContainerResource => hpa_metric_source_type::ContainerResource,
        MetricSourceType::Pods => hpa_metric_source_type::Pods,
        MetricSourceType::Object => hpa_metric_source_type::Object,
        MetricSourceType::External => hpa_metric_source_type::External,
    }
}

/// The target type for a C value (`None`: unknown value; `Some(None)`: unset).
pub(crate) fn target_type(v: u32) -> Option<Option<MetricTargetType>> {
    Some(match v {
        0 => None,
        1 => Some(MetricTargetType::Utilization),
        2 => Some(MetricTargetType::Value),
        3 => Some(MetricTargetType::AverageValue),
        _ => return None,
    })
}

/// The select policy for a C value (`None`: unknown value; `Some(None)`: unset).
pub(crate) fn select_policy(v: u32) -> Option<Option<SelectPolicy>> {
    Some(match v {
        0 => None,
        1 => Some(SelectPolicy::Max),
        2 => Some(SelectPolicy::Min),
        3 => Some(SelectPolicy::Disabled),
        _ => return None,
    })
}

/// The C value of a select policy.
pub(crate) fn select_policy_value(p: SelectPolicy) -> hpa_select_policy {
    match p {
        SelectPolicy::Max => hpa_select_policy::Max,
        SelectPolicy::Min => hpa_select_policy::Min,
        SelectPolicy::Disabled => hpa_select_policy::Disabled,
    }
}

/// The policy type for a C value (`None`: unknown value; `Some(None)`: unset).
pub(crate) fn policy_type(v: u32) -> Option<Option<PolicyType>> {
    Some(match v {
        0 => None,
        1 => Some(PolicyType::Pods),
        2 => Some(PolicyType::Percent),
        _ => return None,
    })
}

/// The C value of a policy type.
pub(crate) fn policy_type_value(p: PolicyType) -> hpa_policy_type {
    match p {
        PolicyType::Pods => hpa_policy_type::Pods,
        PolicyType::Percent => hpa_policy_type::Percent,
    }
}

/// The arithmetic mode for a C value.
pub(crate) fn arithmetic(v: u32) -> Option<Arithmetic> {
    match v {
        1 => Some(Arithmetic::Kubernetes),
        2 => Some(Arithmetic::Exact),
        _ => None,
    }
}

/// The C value of an arithmetic mode.
pub(crate) fn arithmetic_value(a: Arithmetic) -> hpa_arithmetic {
    match a {
        Arithmetic::Kubernetes => hpa_arithmetic::Kubernetes,
        Arithmetic::Exact => hpa_arithmetic::Exact,
    }
}

/// The pod phase for a C value.
pub(crate) fn pod_phase(v: u32) -> Option<PodPhase> {
    match v {
        0 => Some(PodPhase::Running),
        1 => Some(PodPhase::Pending),
        2 => Some(PodPhase::Succeeded),
        3 => Some(PodPhase::Failed),
        4 => Some(PodPhase::Unknown),
        _ => None,
    }
}

/// The Ready condition status for a C value (`Some(None)`: no Ready condition).
pub(crate) fn ready(v: u32) -> Option<Option<ConditionStatus>> {
    Some(match v {
        0 => None,
        1 => Some(ConditionStatus::True),
        2 => Some(ConditionStatus::False),
        3 => Some(ConditionStatus::Unknown),
        _ => return None,
    })
}

/// The container kind for a C value.
pub(crate) fn container_kind(v: u32) -> Option<ContainerKind> {
    match v {
        0 => Some(ContainerKind::Regular),
        1 => Some(ContainerKind::RestartableInit),
        2 => Some(ContainerKind::Init),
        _ => None,
    }
}

/// The values kind for a C value.
pub(crate) fn values_kind(v: u32) -> Option<hpa_values_kind> {
    match v {
        1 => Some(hpa_values_kind::Samples),
        2 => Some(hpa_values_kind::Object),
        3 => Some(hpa_values_kind::External),
        4 => Some(hpa_values_kind::Error),
        _ => None,
    }
}

/// The quantity format for a C value.
pub(crate) fn quantity_format(v: u32) -> Option<Format> {
    match v {
        1 => Some(Format::DecimalSI),
        2 => Some(Format::BinarySI),
        3 => Some(Format::DecimalExponent),
        _ => None,
    }
}

// ---- Conversions to the numbers C receives ------------------------------------------------

/// The C value of a condition type.
pub(crate) fn condition_type_value(t: ConditionType) -> hpa_condition_type {
    match t {
        ConditionType::AbleToScale => hpa_condition_type::AbleToScale,
        ConditionType::ScalingActive => hpa_condition_type::ScalingActive,
        ConditionType::ScalingLimited => hpa_condition_type::ScalingLimited,
        ConditionType::ScaledToZero => hpa_condition_type::ScaledToZero,
    }
}

/// The C value of a condition status.
pub(crate) fn condition_status_value(s: ConditionStatus) -> hpa_condition_status {
    match s {
        ConditionStatus::True => hpa_condition_status::True,
        ConditionStatus::False => hpa_condition_status::False,
        ConditionStatus::Unknown => hpa_condition_status::Unknown,
    }
}

/// The C value of a reason.
pub(crate) fn reason_value(r: Reason) -> hpa_reason {
    match r {
        Reason::SucceededGetScale => hpa_reason::SucceededGetScale,
        Reason::ScaleDownStabilized => hpa_reason::ScaleDownStabilized,
        Reason::ScaleUpStabilized => hpa_reason::ScaleUpStabilized,
        Reason::ReadyForNewScale => hpa_reason::ReadyForNewScale,
        Reason::SucceededRescale => hpa_reason::SucceededRescale,
        Reason::FailedUpdateScale => hpa_reason::FailedUpdateScale,
        Reason::ScalingDisabled => hpa_reason::ScalingDisabled,
        Reason::FailedGetResourceMetric => hpa_reason::FailedGetResourceMetric,
        Reason::FailedGetContainerResourceMetric => hpa_reason::FailedGetContainerResourceMetric,
        Reason::FailedGetPodsMetric => hpa_reason::FailedGetPodsMetric,
        Reason::FailedGetObjectMetric => hpa_reason::FailedGetObjectMetric,
        Reason::FailedGetExternalMetric => hpa_reason::FailedGetExternalMetric,
        Reason::InvalidMetricSourceType => hpa_reason::InvalidMetricSourceType,
        Reason::ValidMetricFound => hpa_reason::ValidMetricFound,
        Reason::TooManyReplicas => hpa_reason::TooManyReplicas,
        Reason::TooFewReplicas => hpa_reason::TooFewReplicas,
        Reason::ScaleUpLimit => hpa_reason::ScaleUpLimit,
        Reason::ScaleDownLimit => hpa_reason::ScaleDownLimit,
        Reason::DesiredWithinRange => hpa_reason::DesiredWithinRange,
        Reason::ScaledToZero => hpa_reason::ScaledToZero,
        Reason::NotScaledToZero => hpa_reason::NotScaledToZero,
    }
}

/// The C value of a limiting rule.
pub(crate) fn limited_by_value(l: LimitedBy) -> hpa_limited_by {
    match l {
        LimitedBy::Nothing => hpa_limited_by::Nothing,
        LimitedBy::Tolerance => hpa_limited_by::Tolerance,
        LimitedBy::Stabilization => hpa_limited_by::Stabilization,
        LimitedBy::RatePolicy => hpa_limited_by::RatePolicy,
        LimitedBy::MinReplicas => hpa_limited_by::MinReplicas,
        LimitedBy::MaxReplicas => hpa_limited_by::MaxReplicas,
        LimitedBy::InvalidMetrics => hpa_limited_by::InvalidMetrics,
        LimitedBy::ScalingDisabled => hpa_limited_by::ScalingDisabled,
    }
}

/// The C value of a reading note.
pub(crate) fn reading_value(r: Reading) -> hpa_reading {
    match r {
        Reading::Plain => hpa_reading::Plain,
        Reading::Negative => hpa_reading::Negative,
        Reading::TreatedAsOverflow => hpa_reading::TreatedAsOverflow,
    }
}

/// The C value of a field error type.
pub(crate) fn field_error_type_value(t: ErrorType) -> hpa_field_error_type {
    match t {
        ErrorType::Required => hpa_field_error_type::Required,
        ErrorType::Invalid => hpa_field_error_type::Invalid,
        ErrorType::Unsupported => hpa_field_error_type::Unsupported,
        ErrorType::Forbidden => hpa_field_error_type::Forbidden,
        ErrorType::TooLong => hpa_field_error_type::TooLong,
        ErrorType::TooMany => hpa_field_error_type::TooMany,
    }
}

// ---- Names ---------------------------------------------------------------------------------

fn condition_type_name(v: u32) -> Option<&'static CStr> {
    Some(match v {
        1 => c"AbleToScale",
        2 => c"ScalingActive",
        3 => c"ScalingLimited",
        4 => c"ScaledToZero",
        _ => return None,
    })
}

fn condition_status_name(v: u32) -> Option<&'static CStr> {
    Some(match v {
        1 => c"True",
        2 => c"False",
        3 => c"Unknown",
        _ => return None,
    })
}

/// Kubernetes' spelling of a reason number.
pub(crate) fn reason_name(v: u32) -> Option<&'static CStr> {
    Some(match v {
        1 => c"SucceededGetScale",
        2 => c"ScaleDownStabilized",
        3 => c"ScaleUpStabilized",
        4 => c"ReadyForNewScale",
        5 => c"SucceededRescale",
        6 => c"FailedUpdateScale",
        7 => c"ScalingDisabled",
        8 => c"FailedGetResourceMetric",
        9 => c"FailedGetContainerResourceMetric",
        10 => c"FailedGetPodsMetric",
        11 => c"FailedGetObjectMetric",
        12 => c"FailedGetExternalMetric",
        13 => c"InvalidMetricSourceType",
        14 => c"ValidMetricFound",
        15 => c"TooManyReplicas",
        16 => c"TooFewReplicas",
        17 => c"ScaleUpLimit",
        18 => c"ScaleDownLimit",
        19 => c"DesiredWithinRange",
        20 => c"ScaledToZero",
        21 => c"NotScaledToZero",
        _ => return None,
    })
}

fn limited_by_name(v: u32) -> Option<&'static CStr> {
    Some(match v {
        0 => c"nothing",
        1 => c"tolerance",
        2 => c"stabilization",
        3 => c"ratePolicy",
        4 => c"minReplicas",
        5 => c"maxReplicas",
        6 => c"invalidMetrics",
        7 => c"scalingDisabled",
        _ => return None,
    })
}

fn reading_name(v: u32) -> Option<&'static CStr> {
    Some(match v {
        0 => c"plain",
        1 => c"negative",
        2 => c"treatedAsOverflow",
        _ => return None,
    })
}

fn ptr_or_null(name: Option<&'static CStr>) -> *const c_char {
    match name {
        Some(n) => n.as_ptr(),
        None => core::ptr::null(),
    }
}

/// Kubernetes' name of a condition type (`"AbleToScale"`, `"ScalingActive"`,
/// `"ScalingLimited"`, `"ScaledToZero"`); NULL for a number that is no `hpa_condition_type`.
/// The string is static.
#[no_mangle]
pub extern "C" fn hpa_condition_type_str(condition_type: u32) -> *const c_char {
    ptr_or_null(condition_type_name(condition_type))
}

/// Kubernetes' name of a condition status (`"True"`, `"False"`, `"Unknown"`); NULL for a
/// number that is no `hpa_condition_status`. The string is static.
#[no_mangle]
pub extern "C" fn hpa_condition_status_str(condition_status: u32) -> *const c_char {
    ptr_or_null(condition_status_name(condition_status))
}

/// Kubernetes' name of a condition reason (e.g. `"SucceededRescale"`); NULL for a number that
/// is no `hpa_reason`. The string is static.
#[no_mangle]
pub extern "C" fn hpa_reason_str(reason: u32) -> *const c_char {
    ptr_or_null(reason_name(reason))
}

/// The name `hpa replay` prints for a limiting rule (`"nothing"`, `"tolerance"`,
/// `"stabilization"`, `"ratePolicy"`, `"minReplicas"`, `"maxReplicas"`, `"invalidMetrics"`,
/// `"scalingDisabled"`); NULL for a number that is no `hpa_limited_by`. The string is static.
#[no_mangle]
pub extern "C" fn hpa_limited_by_str(limited_by: u32) -> *const c_char {
    ptr_or_null(limited_by_name(limited_by))
}

/// The name `hpa replay` prints for a reading (`"plain"`, `"negative"`,
/// `"treatedAsOverflow"`); NULL for a number that is no `hpa_reading`. The string is static.
#[no_mangle]
pub extern "C" fn hpa_reading_str(reading: u32) -> *const c_char {
    ptr_or_null(reading_name(reading))
}
