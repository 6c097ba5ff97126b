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

use crate::status::hpa_status;

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
    /// Unset: the default, `KUBERNETES`.
    Unset = 0,
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

// ---- Conversions ---------------------------------------------------------------------------

/// Conversions between a C enum above and the core type it stands for, generated from one
/// table of its variants, so that each number is written once: in the enum. (cbindgen reads
/// plain enums only, so the enums stay outside the macro.) A number C sends is compared with
/// the discriminant of each variant of the table.
///
/// `C_ENUM as CORE [, unset VARIANT] { VARIANT => CORE_VARIANT [: c"name"], ... }`, or
/// `C_ENUM { VARIANT, ... }` for an enum that stands for no core type, then the functions to
/// generate, each optional, in this order:
/// - `from_c: NAME,`: `NAME(u32) -> Option<CORE>` (`None`: a number that is no variant); with
///   an unset variant, `Option<Option<CORE>>` (`Some(None)`: unset); `Option<C_ENUM>` without
///   a core type. Its match on the C enum is exhaustive: a variant missing from the table does
///   not compile.
/// - `to_c: NAME,`: `NAME(CORE) -> C_ENUM`, exhaustive on the core type.
/// - `names: NAME,`: `NAME(u32) -> Option<&'static CStr>`, the names of the table.
macro_rules! c_enum_conversions {
    // The variant of `$c_enum` whose number is `$v`, among `$c`.
    (@variant $c_enum:ident $v:ident $($c:ident)*) => {
        match $v {
            $(raw if raw == $c_enum::$c as u32 => Some($c_enum::$c),)*
            _ => None,
        }
    };
    (@sections $c_enum:ident $core:ident $unset:tt $table:tt
        $(from_c: $from_c:ident,)? $(to_c: $to_c:ident,)? $(names: $names:ident,)?) => {
        $(c_enum_conversions!(@from_c $from_c $c_enum $core $unset $table);)?
        $(c_enum_conversions!(@to_c $to_c $c_enum $core $table);)?
        $(c_enum_conversions!(@names $names $c_enum $table);)?
    };
    (@from_c $name:ident $c_enum:ident $core:ident []
        { $($c:ident => $cv:ident $(: $text:literal)?),* $(,)? }) => {
        #[doc = concat!("The `", stringify!($core), "` of a C `", stringify!($c_enum),
            "` number (`None`: no such number).")]
        pub(crate) fn $name(v: u32) -> Option<$core> {
            Some(match c_enum_conversions!(@variant $c_enum v $($c)*)? {
                $($c_enum::$c => $core::$cv,)*
            })
        }
    };
    (@from_c $name:ident $c_enum:ident $core:ident [$unset:ident]
        { $($c:ident => $cv:ident $(: $text:literal)?),* $(,)? }) => {
        #[doc = concat!("The `", stringify!($core), "` of a C `", stringify!($c_enum),
            "` number (`None`: no such number; `Some(None)`: `", stringify!($unset), "`).")]
        pub(crate) fn $name(v: u32) -> Option<Option<$core>> {
            Some(match c_enum_conversions!(@variant $c_enum v $unset $($c)*)? {
                $c_enum::$unset => None,
                $($c_enum::$c => Some($core::$cv),)*
            })
        }
    };
    (@to_c $name:ident $c_enum:ident $core:ident
        { $($c:ident => $cv:ident $(: $text:literal)?),* $(,)? }) => {
        #[doc = concat!("The C `", stringify!($c_enum), "` of a `", stringify!($core), "`.")]
        pub(crate) fn $name(value: $core) -> $c_enum {
            match value {
                $($core::$cv => $c_enum::$c,)*
            }
        }
    };
    (@names $name:ident $c_enum:ident { $($c:ident => $cv:ident : $text:literal),* $(,)? }) => {
        #[doc = concat!("The name of a C `", stringify!($c_enum),
            "` number (`None`: no such number).")]
        pub(crate) fn $name(v: u32) -> Option<&'static CStr> {
            Some(match c_enum_conversions!(@variant $c_enum v $($c)*)? {
                $($c_enum::$c => $text,)*
            })
        }
    };
    ($c_enum:ident as $core:ident, unset $unset:ident $table:tt $($sections:tt)*) => {
        c_enum_conversions!(@sections $c_enum $core [$unset] $table $($sections)*);
    };
    ($c_enum:ident as $core:ident $table:tt $($sections:tt)*) => {
        c_enum_conversions!(@sections $c_enum $core [] $table $($sections)*);
    };
    ($c_enum:ident { $($c:ident),* $(,)? } from_c: $name:ident,) => {
        #[doc = concat!("The C `", stringify!($c_enum), "` of a number (`None`: no such number).")]
        pub(crate) fn $name(v: u32) -> Option<$c_enum> {
            c_enum_conversions!(@variant $c_enum v $($c)*)
        }
    };
}

c_enum_conversions! {
    hpa_status {
        Ok, NullPointer, Misaligned, Uninitialized, BufferTooSmall, Overlap, LengthMismatch,
        InvalidEnum, InvalidFlag, InvalidUtf8, OutOfRange, TooLarge, InvalidSpec,
        InvalidSettings, TimeWentBackwards, WrongValuesKind, NoPendingRescale, CorruptState,
        InvalidSnapshot, SnapshotVersion, NotConfigured, QuantityFormat, QuantitySuffix, QuantityExponent,
    }
    from_c: status,
}

c_enum_conversions! {
    hpa_metric_source_type as MetricSourceType, unset Unset {
        Resource => Resource,
        ContainerResource => ContainerResource,
        Pods => Pods,
        Object => Object,
        External => External,
    }
    from_c: metric_source_type,
    to_c: metric_source_type_value,
}

c_enum_conversions! {
    hpa_metric_target_type as MetricTargetType, unset Unset {
        Utilization => Utilization,
        Value => Value,
        AverageValue => AverageValue,
    }
    from_c: target_type,
}

c_enum_conversions! {
    hpa_select_policy as SelectPolicy, unset Unset {
        Max => Max,
        Min => Min,
        Disabled => Disabled,
    }
    from_c: select_policy,
    to_c: select_policy_value,
}

c_enum_conversions! {
    hpa_policy_type as PolicyType, unset Unset {
        Pods => Pods,
        Percent => Percent,
    }
    from_c: policy_type,
    to_c: policy_type_value,
}

c_enum_conversions! {
    hpa_arithmetic as Arithmetic, unset Unset {
        Kubernetes => Kubernetes,
        Exact => Exact,
    }
    from_c: arithmetic,
    to_c: arithmetic_value,
}

c_enum_conversions! {
    hpa_pod_phase as PodPhase {
        Running => Running,
        Pending => Pending,
        Succeeded => Succeeded,
        Failed => Failed,
        Unknown => Unknown,
    }
    from_c: pod_phase,
}

c_enum_conversions! {
    // A pod without a Ready condition is `Some(None)`.
    hpa_ready as ConditionStatus, unset Absent {
        True => True,
        False => False,
        Unknown => Unknown,
    }
    from_c: ready,
}

c_enum_conversions! {
    hpa_container_kind as ContainerKind {
        Regular => Regular,
        Sidecar => RestartableInit,
        Init => Init,
    }
    from_c: container_kind,
}

c_enum_conversions! {
    hpa_values_kind { Samples, Object, External, Error }
    from_c: values_kind,
}

c_enum_conversions! {
    hpa_quantity_format as Format {
        DecimalSi => DecimalSI,
        BinarySi => BinarySI,
        DecimalExponent => DecimalExponent,
    }
    from_c: quantity_format,
}

c_enum_conversions! {
    hpa_condition_type as ConditionType {
        AbleToScale => AbleToScale: c"AbleToScale",
        ScalingActive => ScalingActive: c"ScalingActive",
        ScalingLimited => ScalingLimited: c"ScalingLimited",
        ScaledToZero => ScaledToZero: c"ScaledToZero",
    }
    to_c: condition_type_value,
    names: condition_type_name,
}

c_enum_conversions! {
    hpa_condition_status as ConditionStatus {
        True => True: c"True",
        False => False: c"False",
        Unknown => Unknown: c"Unknown",
    }
    to_c: condition_status_value,
    names: condition_status_name,
}

c_enum_conversions! {
    // The names are Kubernetes' spellings.
    hpa_reason as Reason {
        SucceededGetScale => SucceededGetScale: c"SucceededGetScale",
        ScaleDownStabilized => ScaleDownStabilized: c"ScaleDownStabilized",
        ScaleUpStabilized => ScaleUpStabilized: c"ScaleUpStabilized",
        ReadyForNewScale => ReadyForNewScale: c"ReadyForNewScale",
        SucceededRescale => SucceededRescale: c"SucceededRescale",
        FailedUpdateScale => FailedUpdateScale: c"FailedUpdateScale",
        ScalingDisabled => ScalingDisabled: c"ScalingDisabled",
        FailedGetResourceMetric => FailedGetResourceMetric: c"FailedGetResourceMetric",
        FailedGetContainerResourceMetric => FailedGetContainerResourceMetric:
            c"FailedGetContainerResourceMetric",
        FailedGetPodsMetric => FailedGetPodsMetric: c"FailedGetPodsMetric",
        FailedGetObjectMetric => FailedGetObjectMetric: c"FailedGetObjectMetric",
        FailedGetExternalMetric => FailedGetExternalMetric: c"FailedGetExternalMetric",
        InvalidMetricSourceType => InvalidMetricSourceType: c"InvalidMetricSourceType",
        ValidMetricFound => ValidMetricFound: c"ValidMetricFound",
        TooManyReplicas => TooManyReplicas: c"TooManyReplicas",
        TooFewReplicas => TooFewReplicas: c"TooFewReplicas",
        ScaleUpLimit => ScaleUpLimit: c"ScaleUpLimit",
        ScaleDownLimit => ScaleDownLimit: c"ScaleDownLimit",
        DesiredWithinRange => DesiredWithinRange: c"DesiredWithinRange",
        ScaledToZero => ScaledToZero: c"ScaledToZero",
        NotScaledToZero => NotScaledToZero: c"NotScaledToZero",
    }
    to_c: reason_value,
    names: reason_name,
}

c_enum_conversions! {
    // The names are the ones `hpa replay` prints.
    hpa_limited_by as LimitedBy {
        Nothing => Nothing: c"nothing",
        Tolerance => Tolerance: c"tolerance",
        Stabilization => Stabilization: c"stabilization",
        RatePolicy => RatePolicy: c"ratePolicy",
        MinReplicas => MinReplicas: c"minReplicas",
        MaxReplicas => MaxReplicas: c"maxReplicas",
        InvalidMetrics => InvalidMetrics: c"invalidMetrics",
        ScalingDisabled => ScalingDisabled: c"scalingDisabled",
    }
    to_c: limited_by_value,
    names: limited_by_name,
}

c_enum_conversions! {
    // The names are the ones `hpa replay` prints.
    hpa_reading as Reading {
        Plain => Plain: c"plain",
        Negative => Negative: c"negative",
        TreatedAsOverflow => TreatedAsOverflow: c"treatedAsOverflow",
    }
    to_c: reading_value,
    names: reading_name,
}

c_enum_conversions! {
    // `None` (a C-level problem, not a field error) has no core counterpart.
    hpa_field_error_type as ErrorType {
        Required => Required,
        Invalid => Invalid,
        Unsupported => Unsupported,
        Forbidden => Forbidden,
        TooLong => TooLong,
        TooMany => TooMany,
    }
    to_c: field_error_type_value,
}

/// Kubernetes' name of a condition type (`"AbleToScale"`, `"ScalingActive"`,
/// `"ScalingLimited"`, `"ScaledToZero"`); `"unknown condition type"` for a number that is no
/// `hpa_condition_type`. The string is static and never NULL.
#[no_mangle]
pub extern "C" fn hpa_condition_type_str(condition_type: u32) -> *const c_char {
    condition_type_name(condition_type)
        .unwrap_or(c"unknown condition type")
        .as_ptr()
}

/// Kubernetes' name of a condition status (`"True"`, `"False"`, `"Unknown"`);
/// `"unknown condition status"` for a number that is no `hpa_condition_status`. The string is
/// static and never NULL.
#[no_mangle]
pub extern "C" fn hpa_condition_status_str(condition_status: u32) -> *const c_char {
    condition_status_name(condition_status)
        .unwrap_or(c"unknown condition status")
        .as_ptr()
}

/// Kubernetes' name of a condition reason (e.g. `"SucceededRescale"`); `"unknown reason"` for
/// a number that is no `hpa_reason`. The string is static and never NULL.
#[no_mangle]
pub extern "C" fn hpa_reason_str(reason: u32) -> *const c_char {
    reason_name(reason).unwrap_or(c"unknown reason").as_ptr()
}

/// The name `hpa replay` prints for a limiting rule (`"nothing"`, `"tolerance"`,
/// `"stabilization"`, `"ratePolicy"`, `"minReplicas"`, `"maxReplicas"`, `"invalidMetrics"`,
/// `"scalingDisabled"`); `"unknown limiting rule"` for a number that is no `hpa_limited_by`.
/// The string is static and never NULL.
#[no_mangle]
pub extern "C" fn hpa_limited_by_str(limited_by: u32) -> *const c_char {
    limited_by_name(limited_by)
        .unwrap_or(c"unknown limiting rule")
        .as_ptr()
}

/// The name `hpa replay` prints for a reading (`"plain"`, `"negative"`,
/// `"treatedAsOverflow"`); `"unknown reading"` for a number that is no `hpa_reading`. The
/// string is static and never NULL.
#[no_mangle]
pub extern "C" fn hpa_reading_str(reading: u32) -> *const c_char {
    reading_name(reading).unwrap_or(c"unknown reading").as_ptr()
}
