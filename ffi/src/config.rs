//! The HPA configuration as C passes it, and its conversion into the core's borrowed spec.
//!
//! The core's spec borrows everything (`HpaSpec<'a>` holds `&str` names and slices), so a
//! configuration is converted at the start of each call into a [`Config`] on the stack that
//! borrows the caller's strings: nothing is copied into the autoscaler, and the caller may
//! change the configuration between calls (as one edits an HPA object), the history is kept.

use core::fmt::Write as _;

use hpa::quantity::Quantity;
use hpa::spec::{
    Behavior, CrossVersionObjectReference, ExternalMetricSource, HpaSpec, MetricIdentifier,
    MetricSourceType, MetricSpec, MetricTarget, MetricTargetType, ObjectMetricSource,
    PodsMetricSource, ResourceMetricSource, ScalingPolicy, ScalingRules, SelectPolicy,
};
use hpa::spec::{ContainerResourceMetricSource, PolicyType};
use hpa::validation::{
    validate_spec_with, BadValue, Detail as K8sDetail, Direction, ErrorType, FieldPath,
    Unrecognized, ValidationError,
};
use hpa::{Duration, Hpa, Settings, Tolerance};

use crate::enums;
use crate::error::{Detail, Fault, Refusal};
use crate::raw::{self, hpa_str, Outputs};
use crate::status::hpa_status;
use crate::text::Text;
use crate::{HPA_MAX_METRICS, HPA_MAX_POLICIES};

/// A decimal number `mantissa × 10^exponent`, e.g. `{ 1, -1 }` for 0.1 or `{ 35, -2 }` for
/// 0.35: how tolerances are given, exactly as Kubernetes reads them.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct hpa_decimal {
    /// The digits, with the sign.
    pub mantissa: i64,
    /// The power of ten.
    pub exponent: i32,
}

/// `CrossVersionObjectReference`: `spec.scaleTargetRef`, and an Object metric's
/// `describedObject`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hpa_object_ref {
    /// `kind`, e.g. `"Deployment"`.
    pub kind: hpa_str,
    /// `name`.
    pub name: hpa_str,
    /// `apiVersion`, e.g. `"apps/v1"` (may be empty).
    pub api_version: hpa_str,
}

/// `MetricTarget`: the target `type` and its value.
///
/// With `fields` 0 (the usual case) only the value that `type` names is set:
/// `average_utilization` for `HPA_METRIC_TARGET_TYPE_UTILIZATION`, `value_milli` for
/// `HPA_METRIC_TARGET_TYPE_VALUE`, `average_value_milli` for
/// `HPA_METRIC_TARGET_TYPE_AVERAGE_VALUE`. To reproduce a manifest that populates other
/// fields, set `fields` to the `HPA_TARGET_FIELD_*` bits of exactly the fields it populates.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hpa_metric_target {
    /// An `hpa_metric_target_type`; 0 is unset (a validation error).
    pub r#type: u32,
    /// 0, or `HPA_TARGET_FIELD_*` bits naming the populated fields.
    pub fields: u32,
    /// `value`, in milli-units (1000 per unit).
    pub value_milli: i64,
    /// `averageValue`, in milli-units.
    pub average_value_milli: i64,
    /// `averageUtilization`, in percent of the pods' requests.
    pub average_utilization: i32,
}

/// One entry of `spec.metrics`.
///
/// Which members are read depends on `type`: `name` is the resource name (`"cpu"`,
/// `"memory"`) for Resource and ContainerResource metrics and the metric name for Pods,
/// Object and External metrics; `container` is read for ContainerResource metrics;
/// `selector` and `selector_invalid` for Pods, Object and External metrics;
/// `described_object` for Object metrics. Other members are ignored.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hpa_metric {
    /// An `hpa_metric_source_type`; 0 is unset (a validation error).
    pub r#type: u32,
    /// The resource or metric name.
    pub name: hpa_str,
    /// The container (ContainerResource).
    pub container: hpa_str,
    /// The metric's label selector as Go's `%+v` prints it, used in messages only
    /// (e.g. `"&LabelSelector{MatchLabels:map[string]string{queue: orders,},MatchExpressions:[]LabelSelectorRequirement{},}"`);
    /// `ptr` NULL when the metric has no selector.
    pub selector: hpa_str,
    /// 1 when the selector cannot be converted (the metric then fails at every evaluation,
    /// as upstream), else 0.
    pub selector_invalid: u32,
    /// The object the metric describes (Object).
    pub described_object: hpa_object_ref,
    /// The target.
    pub target: hpa_metric_target,
}

/// `HPAScalingPolicy`: at most `value` pods (`HPA_POLICY_TYPE_PODS`) or percent
/// (`HPA_POLICY_TYPE_PERCENT`) of change per `period_seconds`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct hpa_scaling_policy {
    /// An `hpa_policy_type`.
    pub r#type: u32,
    /// Pods or percent (> 0).
    pub value: i32,
    /// The period, 1 to 1800 seconds.
    pub period_seconds: i32,
}

/// `HPAScalingRules`: one direction of `behavior`. A zeroed struct is Kubernetes' default
/// for the direction.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hpa_scaling_rules {
    /// 1 when `stabilization_window_seconds` is set. Unset: 0 s for scale-up, the
    /// controller's `downscale_stabilization_window_ms` for scale-down.
    pub has_stabilization_window_seconds: u32,
    /// `stabilizationWindowSeconds`, 0 to 3600.
    pub stabilization_window_seconds: i32,
    /// An `hpa_select_policy`; 0 (unset) is `Max`.
    pub select_policy: u32,
    /// `policies`. NULL (with length 0) selects Kubernetes' default policies; a non-NULL
    /// pointer with length 0 is the empty list, which validation rejects. At most
    /// `HPA_MAX_POLICIES`.
    pub policies: *const hpa_scaling_policy,
    /// The number of policies.
    pub policies_len: usize,
    /// 1 when `tolerance` is set.
    pub has_tolerance: u32,
    /// `tolerance` (HPAConfigurableTolerance): replaces the controller's tolerance in this
    /// direction.
    pub tolerance: hpa_decimal,
}

/// `spec.behavior`: NULL rules get Kubernetes' defaults for their direction.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hpa_behavior {
    /// `scaleUp`, or NULL.
    pub scale_up: *const hpa_scaling_rules,
    /// `scaleDown`, or NULL.
    pub scale_down: *const hpa_scaling_rules,
}

/// Bit of `hpa_settings.explicit_zeros`: a `tolerance` of 0 means no tolerance.
pub const HPA_SETTING_TOLERANCE: u32 = 1;
/// Bit of `hpa_settings.explicit_zeros`: a `downscale_stabilization_window_ms` of 0 means no
/// window.
pub const HPA_SETTING_DOWNSCALE_STABILIZATION_WINDOW: u32 = 2;
/// Bit of `hpa_settings.explicit_zeros`: a `cpu_initialization_period_ms` of 0 means none.
pub const HPA_SETTING_CPU_INITIALIZATION_PERIOD: u32 = 4;
/// Bit of `hpa_settings.explicit_zeros`: an `initial_readiness_delay_ms` of 0 means none.
pub const HPA_SETTING_INITIAL_READINESS_DELAY: u32 = 8;
/// Bit of `hpa_settings.explicit_zeros`: a `scale_to_zero` of 0 turns the gate off.
pub const HPA_SETTING_SCALE_TO_ZERO: u32 = 16;
/// Bit of `hpa_settings.explicit_zeros`: a `configurable_tolerance` of 0 turns the gate off.
pub const HPA_SETTING_CONFIGURABLE_TOLERANCE: u32 = 32;
/// Bit of `hpa_settings.explicit_zeros`: a `legacy_scale_up_minimum` of 0 means no floor.
pub const HPA_SETTING_LEGACY_SCALE_UP_MINIMUM: u32 = 64;
const SETTING_BITS: u32 = 127;

/// The controller's settings (kube-controller-manager flags).
///
/// A zeroed struct is the controller's defaults, as are a NULL `hpa_config.settings` and what
/// `hpa_settings_default` writes: a field left 0 gets its default (in parentheses below). A
/// field whose 0 is a value (no tolerance, no window, a gate off) takes it when its
/// `HPA_SETTING_*` bit is set in `explicit_zeros`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hpa_settings {
    /// `--horizontal-pod-autoscaler-tolerance` (0.1), non-negative.
    pub tolerance: hpa_decimal,
    /// `--horizontal-pod-autoscaler-downscale-stabilization` (300000 ms), non-negative.
    pub downscale_stabilization_window_ms: i64,
    /// `--horizontal-pod-autoscaler-cpu-initialization-period` (300000 ms), non-negative.
    pub cpu_initialization_period_ms: i64,
    /// `--horizontal-pod-autoscaler-initial-readiness-delay` (30000 ms), non-negative.
    pub initial_readiness_delay_ms: i64,
    /// The HPAScaleToZero feature gate (on): 1 on, 0 off with `HPA_SETTING_SCALE_TO_ZERO`.
    pub scale_to_zero: u32,
    /// The HPAConfigurableTolerance feature gate (on): honour `hpa_scaling_rules.tolerance`. 1
    /// on, 0 off with `HPA_SETTING_CONFIGURABLE_TOLERANCE`.
    pub configurable_tolerance: u32,
    /// An `hpa_arithmetic` (`HPA_ARITHMETIC_KUBERNETES`).
    pub arithmetic: u32,
    /// The legacy (no behavior) scale-up factor (2), at least 1.
    pub legacy_scale_up_factor: i32,
    /// The legacy scale-up floor (4), non-negative.
    pub legacy_scale_up_minimum: i32,
    /// `HPA_SETTING_*` bits: the fields whose 0 is meant as a value, not as "the default".
    pub explicit_zeros: u32,
}

/// One HorizontalPodAutoscaler: its `spec` and the controller settings.
///
/// A zeroed struct with `max_replicas` set is Kubernetes' default HPA: `minReplicas` 1, one
/// `cpu` Utilization 80 % metric, no behavior (legacy normalization), default settings. The
/// pointed-to data is the caller's and must stay valid for the duration of each call it is
/// passed to; nothing is kept after the call, so the configuration may change between calls.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hpa_config {
    /// 1 when `min_replicas` is set (unset: 1).
    pub has_min_replicas: u32,
    /// `minReplicas`; 0 needs the HPAScaleToZero gate and an Object or External metric.
    pub min_replicas: i32,
    /// `maxReplicas` (required, at least 1).
    pub max_replicas: i32,
    /// `metrics`: an empty list (length 0, the pointer may be NULL) gets Kubernetes' default,
    /// `cpu` at 80 %. At most `HPA_MAX_METRICS`.
    pub metrics: *const hpa_metric,
    /// The number of metrics.
    pub metrics_len: usize,
    /// `behavior`, or NULL for the legacy normalization.
    pub behavior: *const hpa_behavior,
    /// `scaleTargetRef`, validated when not NULL.
    pub scale_target_ref: *const hpa_object_ref,
    /// The controller settings, or NULL for Kubernetes' defaults.
    pub settings: *const hpa_settings,
}

/// One direction of a behavior, converted.
#[derive(Clone, Copy)]
pub(crate) struct Rules {
    pub(crate) window: Option<i32>,
    pub(crate) select: Option<SelectPolicy>,
    /// `None`: the defaults; otherwise the first `len` entries.
    pub(crate) policies: Option<([ScalingPolicy; HPA_MAX_POLICIES], usize)>,
    pub(crate) tolerance: Option<Quantity>,
}

/// The most unrecognized values a configuration can hold: one per policy.
const MAX_UNRECOGNIZED: usize = 2 * HPA_MAX_POLICIES;

/// A configuration converted for the core, borrowing the caller's strings.
pub(crate) struct Config<'a> {
    pub(crate) min_replicas: Option<i32>,
    pub(crate) max_replicas: i32,
    pub(crate) metrics: [MetricSpec<'a>; HPA_MAX_METRICS],
    pub(crate) metrics_len: usize,
    pub(crate) behavior: Option<(Option<Rules>, Option<Rules>)>,
    target_ref: Option<CrossVersionObjectReference<'a>>,
    /// The controller settings.
    pub(crate) settings: Settings,
    unrecognized: Unrecognizeds,
}

/// Values the typed spec cannot hold (a policy `type` left unset), for validation to report.
struct Unrecognizeds {
    list: [Unrecognized<'static>; MAX_UNRECOGNIZED],
    len: usize,
}

impl Unrecognizeds {
    fn push(&mut self, u: Unrecognized<'static>) {
        if let Some(slot) = self.list.get_mut(self.len) {
            *slot = u;
            self.len += 1;
        }
    }

    fn as_slice(&self) -> &[Unrecognized<'static>] {
        self.list.get(..self.len).unwrap_or(&[])
    }
}

impl<'a> Config<'a> {
    /// An empty configuration, to be filled by [`convert`] (converted in place: the struct
    /// is several KiB, kept off the stack of callers' callers).
    pub(crate) fn empty() -> Config<'a> {
        Config {
            min_replicas: None,
            max_replicas: 0,
            metrics: [MetricSpec::default(); HPA_MAX_METRICS],
            metrics_len: 0,
            behavior: None,
            target_ref: None,
            settings: Settings::DEFAULT,
            unrecognized: Unrecognizeds {
                list: [Unrecognized::MetricType {
                    metric: 0,
                    value: "",
                }; MAX_UNRECOGNIZED],
                len: 0,
            },
        }
    }

    /// The spec as the core takes it, before API defaulting.
    pub(crate) fn spec(&self) -> HpaSpec<'_> {
        fn rules(r: &Option<Rules>) -> Option<ScalingRules<'_>> {
            r.as_ref().map(|r| ScalingRules {
                stabilization_window_seconds: r.window,
                select_policy: r.select,
                policies: r.policies.as_ref().map(|(p, n)| p.get(..*n).unwrap_or(&[])),
                tolerance: r.tolerance,
            })
        }
        HpaSpec {
            min_replicas: self.min_replicas,
            max_replicas: self.max_replicas,
            metrics: self.metrics.get(..self.metrics_len).unwrap_or(&[]),
            behavior: self.behavior.as_ref().map(|(up, down)| Behavior {
                scale_up: rules(up),
                scale_down: rules(down),
            }),
            scale_target_ref: self.target_ref,
        }
    }

    /// Applies API defaulting and Kubernetes' validation.
    pub(crate) fn validate(&self) -> Result<Hpa<'_>, Refusal> {
        let spec = self.spec();
        let unrecognized = self.unrecognized.as_slice();
        if !unrecognized.is_empty() {
            validate_spec_with(&spec, self.settings.scale_to_zero, unrecognized)
                .map_err(Refusal::Invalid)?;
        }
        Hpa::new(&spec, &self.settings).map_err(Refusal::Invalid)
    }
}

/// Converts a C configuration into `config` (from [`Config::empty`]), checking every pointer,
/// string, flag and enum value, and that nothing it reads overlaps `outputs`.
///
/// # Safety
///
/// Every non-NULL pointer reachable from `cfg` must point to live data of the stated length.
pub(crate) unsafe fn convert<'a>(
    cfg: &'a hpa_config,
    config: &mut Config<'a>,
    outputs: &Outputs,
) -> Result<(), Refusal> {
    let min_replicas = raw::when(cfg.has_min_replicas, cfg.min_replicas)
        .map_err(|f| f.at("has_min_replicas").at("config"))?;
    // SAFETY: the caller's contract.
    let metrics = unsafe { outputs.slice(cfg.metrics, cfg.metrics_len) }
        .map_err(|f| f.at("metrics").at("config"))?;
    if metrics.len() > HPA_MAX_METRICS {
        // Kubernetes sets no limit; the engine's decisions hold HPA_MAX_METRICS results.
        return Err(Refusal::Invalid(ValidationError::new(
            FieldPath::root("spec").child("metrics"),
            ErrorType::TooMany,
            BadValue::Int(i64::try_from(metrics.len()).unwrap_or(i64::MAX)),
            K8sDetail::AtMostItems(HPA_MAX_METRICS),
        )));
    }
    *config = Config::empty();
    config.min_replicas = min_replicas;
    config.max_replicas = cfg.max_replicas;
    config.metrics_len = metrics.len();
    for (i, (slot, m)) in config.metrics.iter_mut().zip(metrics).enumerate() {
        // SAFETY: the caller's contract.
        *slot = unsafe { metric(m, outputs) }.map_err(|f| f.at_index("metrics", i).at("config"))?;
    }
    // SAFETY: the caller's contract.
    let behavior = unsafe { outputs.optional(cfg.behavior) };
    if let Some(b) = behavior.map_err(|f| f.at("behavior").at("config"))? {
        let unrecognized = &mut config.unrecognized;
        let mut direction = |p: *const hpa_scaling_rules, d: Direction, name: &'static str| {
            // SAFETY: the caller's contract.
            let r = unsafe { outputs.optional(p) }.map_err(|f| f.at(name))?;
            // SAFETY: the caller's contract.
            r.map(|r| unsafe { rules(r, d, unrecognized, outputs) }.map_err(|f| f.at(name)))
                .transpose()
        };
        let up = direction(b.scale_up, Direction::ScaleUp, "scale_up");
        let down = direction(b.scale_down, Direction::ScaleDown, "scale_down");
        let err = |f: Fault| f.at("behavior").at("config");
        config.behavior = Some((up.map_err(err)?, down.map_err(err)?));
    }
    // SAFETY: the caller's contract.
    if let Some(r) = unsafe { outputs.optional(cfg.scale_target_ref) }
        .map_err(|f| f.at("scale_target_ref").at("config"))?
    {
        // SAFETY: the caller's contract.
        config.target_ref = Some(
            unsafe { object_ref(r, outputs) }.map_err(|f| f.at("scale_target_ref").at("config"))?,
        );
    }
    // SAFETY: the caller's contract.
    let settings_ptr = unsafe { outputs.optional(cfg.settings) };
    if let Some(s) = settings_ptr.map_err(|f| f.at("settings").at("config"))? {
        config.settings = settings(s).map_err(|f| f.at("settings").at("config"))?;
    }
    Ok(())
}

/// # Safety
///
/// The strings of `r` must be live.
unsafe fn object_ref<'a>(
    r: &'a hpa_object_ref,
    outputs: &Outputs,
) -> Result<CrossVersionObjectReference<'a>, Fault> {
    // SAFETY: the caller's contract, for each string.
    unsafe {
        Ok(CrossVersionObjectReference {
            kind: outputs.string(r.kind).map_err(|f| f.at("kind"))?,
            name: outputs.string(r.name).map_err(|f| f.at("name"))?,
            api_version: outputs
                .string(r.api_version)
                .map_err(|f| f.at("api_version"))?,
        })
    }
}

pub(crate) fn target(t: &hpa_metric_target) -> Result<MetricTarget, Fault> {
    let type_ = raw::known(t.r#type, enums::target_type).map_err(|f| f.at("type"))?;
    const ALL: u32 = crate::enums::HPA_TARGET_FIELD_VALUE
        | crate::enums::HPA_TARGET_FIELD_AVERAGE_VALUE
        | crate::enums::HPA_TARGET_FIELD_AVERAGE_UTILIZATION;
    if t.fields & !ALL != 0 {
        return Err(Fault::new(hpa_status::InvalidEnum, Detail::Enum(t.fields)).at("fields"));
    }
    let fields = if t.fields != 0 {
        t.fields
    } else {
        match type_ {
            Some(MetricTargetType::Utilization) => {
                crate::enums::HPA_TARGET_FIELD_AVERAGE_UTILIZATION
            }
            Some(MetricTargetType::Value) => crate::enums::HPA_TARGET_FIELD_VALUE,
            Some(MetricTargetType::AverageValue) => crate::enums::HPA_TARGET_FIELD_AVERAGE_VALUE,
            None => 0,
        }
    };
    let has = |bit: u32| fields & bit != 0;
    Ok(MetricTarget {
        type_,
        value: has(crate::enums::HPA_TARGET_FIELD_VALUE)
            .then(|| Quantity::from_milli(t.value_milli)),
        average_value: has(crate::enums::HPA_TARGET_FIELD_AVERAGE_VALUE)
            .then(|| Quantity::from_milli(t.average_value_milli)),
        average_utilization: has(crate::enums::HPA_TARGET_FIELD_AVERAGE_UTILIZATION)
            .then_some(t.average_utilization),
    })
}

/// # Safety
///
/// The strings of `m` must be live.
unsafe fn metric<'a>(m: &'a hpa_metric, outputs: &Outputs) -> Result<MetricSpec<'a>, Fault> {
    let source = raw::known(m.r#type, enums::metric_source_type).map_err(|f| f.at("type"))?;
    let target = target(&m.target).map_err(|f| f.at("target"))?;
    // SAFETY: the caller's contract, for each string.
    let name = || unsafe { outputs.string(m.name) }.map_err(|f| f.at("name"));
    let identifier = || -> Result<MetricIdentifier<'a>, Fault> {
        Ok(MetricIdentifier {
            name: name()?,
            // SAFETY: the caller's contract.
            selector: unsafe { outputs.optional_string(m.selector) }
                .map_err(|f| f.at("selector"))?,
            selector_invalid: raw::flag(m.selector_invalid)
                .map_err(|f| f.at("selector_invalid"))?,
        })
    };
    Ok(match source {
        None => MetricSpec::default(),
        Some(MetricSourceType::Resource) => MetricSpec {
            type_: source,
            resource: Some(ResourceMetricSource {
                name: name()?,
                target,
            }),
            ..MetricSpec::default()
        },
        Some(MetricSourceType::ContainerResource) => MetricSpec {
            type_: source,
            container_resource: Some(ContainerResourceMetricSource {
                name: name()?,
                // SAFETY: the caller's contract.
                container: unsafe { outputs.string(m.container) }.map_err(|f| f.at("container"))?,
                target,
            }),
            ..MetricSpec::default()
        },
        Some(MetricSourceType::Pods) => MetricSpec {
            type_: source,
            pods: Some(PodsMetricSource {
                metric: identifier()?,
                target,
            }),
            ..MetricSpec::default()
        },
        Some(MetricSourceType::Object) => MetricSpec {
            type_: source,
            object: Some(ObjectMetricSource {
                // SAFETY: the caller's contract.
                described_object: unsafe { object_ref(&m.described_object, outputs) }
                    .map_err(|f| f.at("described_object"))?,
                metric: identifier()?,
                target,
            }),
            ..MetricSpec::default()
        },
        Some(MetricSourceType::External) => MetricSpec {
            type_: source,
            external: Some(ExternalMetricSource {
                metric: identifier()?,
                target,
            }),
            ..MetricSpec::default()
        },
    })
}

/// Writes `mantissa × 10^exponent` as a plain decimal (`-0.05`, `1500`), or in exponent
/// notation when that would take more than a few dozen digits.
fn write_decimal(t: &mut Text<'_>, d: hpa_decimal) {
    const PLAIN_LIMIT: i32 = 30;
    if !(-PLAIN_LIMIT..=PLAIN_LIMIT).contains(&d.exponent) {
        let _ = write!(t, "{}e{}", d.mantissa, d.exponent);
        return;
    }
    if d.mantissa < 0 {
        t.push("-");
    }
    let mut digits = [0u8; 24];
    let mut dt = Text::new(&mut digits);
    let _ = write!(dt, "{}", d.mantissa.unsigned_abs());
    let n = dt.finish();
    let digits = core::str::from_utf8(digits.get(..n).unwrap_or(&[])).unwrap_or("0");
    if d.exponent >= 0 {
        t.push(digits);
        for _ in 0..d.exponent {
            t.push("0");
        }
        return;
    }
    let point = usize::try_from(d.exponent.unsigned_abs()).unwrap_or(0);
    if point >= digits.len() {
        t.push("0.");
        for _ in 0..point.saturating_sub(digits.len()) {
            t.push("0");
        }
        t.push(digits);
    } else {
        let split = digits.len().saturating_sub(point);
        t.push(digits.get(..split).unwrap_or(""));
        t.push(".");
        t.push(digits.get(split..).unwrap_or(""));
    }
}

/// A decimal as the quantity the API server stores for its plain decimal text (DecimalSI,
/// so that messages print it as Kubernetes would, e.g. `-50m`).
pub(crate) fn decimal_quantity(d: hpa_decimal) -> Result<Quantity, Fault> {
    let mut buf = [0u8; 96];
    let mut text = Text::new(&mut buf);
    write_decimal(&mut text, d);
    let len = text.finish();
    let s = core::str::from_utf8(buf.get(..len).unwrap_or(&[])).unwrap_or("");
    Quantity::parse(s).map_err(|_| {
        Fault::new(
            hpa_status::OutOfRange,
            Detail::Range(
                i64::from(d.exponent),
                "is beyond a quantity's exponent range",
            ),
        )
        .at("exponent")
    })
}

/// # Safety
///
/// `r.policies` must point to `r.policies_len` live policies when not NULL.
unsafe fn rules(
    r: &hpa_scaling_rules,
    direction: Direction,
    unrecognized: &mut Unrecognizeds,
    outputs: &Outputs,
) -> Result<Rules, Fault> {
    let window = raw::when(
        r.has_stabilization_window_seconds,
        r.stabilization_window_seconds,
    )
    .map_err(|f| f.at("has_stabilization_window_seconds"))?;
    let select =
        raw::known(r.select_policy, enums::select_policy).map_err(|f| f.at("select_policy"))?;
    let policies = if r.policies.is_null() && r.policies_len == 0 {
        None
    } else {
        // A non-NULL pointer with length 0 is the empty list.
        // SAFETY: the caller's contract.
        let list =
            unsafe { outputs.slice(r.policies, r.policies_len) }.map_err(|f| f.at("policies"))?;
        if list.len() > HPA_MAX_POLICIES {
            return Err(Fault::new(
                hpa_status::TooLarge,
                Detail::TooMany(list.len(), HPA_MAX_POLICIES),
            )
            .at("policies"));
        }
        let mut out = [ScalingPolicy {
            type_: PolicyType::Pods,
            value: 0,
            period_seconds: 0,
        }; HPA_MAX_POLICIES];
        for (i, (slot, p)) in out.iter_mut().zip(list).enumerate() {
            let kind = raw::known(p.r#type, enums::policy_type)
                .map_err(|f| f.at("type").at_index("policies", i))?;
            if kind.is_none() {
                // Kubernetes' `type: ""`: reported by validation at its place.
                unrecognized.push(Unrecognized::PolicyType {
                    direction,
                    policy: i,
                    value: "",
                });
            }
            *slot = ScalingPolicy {
                type_: kind.unwrap_or(PolicyType::Pods),
                value: p.value,
                period_seconds: p.period_seconds,
            };
        }
        Some((out, list.len()))
    };
    let tolerance =
        match raw::when(r.has_tolerance, r.tolerance).map_err(|f| f.at("has_tolerance"))? {
            Some(d) => Some(decimal_quantity(d).map_err(|f| f.at("tolerance"))?),
            None => None,
        };
    Ok(Rules {
        window,
        select,
        policies,
        tolerance,
    })
}

fn setting_fault(rule: &'static str, field: &'static str) -> Fault {
    Fault::new(hpa_status::InvalidSettings, Detail::Setting(rule)).at(field)
}

/// Converts controller settings.
#[allow(clippy::needless_update)] // needless only without the core's optional fields
pub(crate) fn settings(s: &hpa_settings) -> Result<Settings, Fault> {
    if s.explicit_zeros & !SETTING_BITS != 0 {
        return Err(Fault::new(
            hpa_status::InvalidFlag,
            Detail::Setting("has an unknown HPA_SETTING_ bit"),
        )
        .at("explicit_zeros"));
    }
    let default = Settings::DEFAULT;
    let defaulted = |zero: bool, bit: u32| zero && s.explicit_zeros & bit == 0;
    let tolerance = if defaulted(s.tolerance.mantissa == 0, HPA_SETTING_TOLERANCE) {
        default.tolerance
    } else {
        u64::try_from(s.tolerance.mantissa)
            .ok()
            .ok_or_else(|| setting_fault("must not be negative", "tolerance"))
            .and_then(|m| {
                Tolerance::from_decimal(m, s.tolerance.exponent)
                    .ok_or_else(|| setting_fault("is beyond float64's range", "tolerance"))
            })?
    };
    let duration = |ms: i64, bit: u32, default: Duration, field: &'static str| {
        if defaulted(ms == 0, bit) {
            Ok(default)
        } else if ms < 0 {
            Err(setting_fault("must not be negative", field))
        } else {
            Ok(Duration::from_millis(ms))
        }
    };
    let gate = |v: u32, bit: u32, default: bool, field: &'static str| {
        if defaulted(v == 0, bit) {
            Ok(default)
        } else {
            raw::flag(v).map_err(|f| f.at(field))
        }
    };
    let legacy_scale_up_factor = match s.legacy_scale_up_factor {
        0 => default.legacy_scale_up_factor,
        f if f < 1 => {
            return Err(setting_fault(
                "must be at least 1",
                "legacy_scale_up_factor",
            ))
        }
        f => f,
    };
    let legacy_scale_up_minimum = match s.legacy_scale_up_minimum {
        m if defaulted(m == 0, HPA_SETTING_LEGACY_SCALE_UP_MINIMUM) => {
            default.legacy_scale_up_minimum
        }
        m if m < 0 => {
            return Err(setting_fault(
                "must not be negative",
                "legacy_scale_up_minimum",
            ))
        }
        m => m,
    };
    Ok(Settings {
        tolerance,
        downscale_stabilization_window: duration(
            s.downscale_stabilization_window_ms,
            HPA_SETTING_DOWNSCALE_STABILIZATION_WINDOW,
            default.downscale_stabilization_window,
            "downscale_stabilization_window_ms",
        )?,
        cpu_initialization_period: duration(
            s.cpu_initialization_period_ms,
            HPA_SETTING_CPU_INITIALIZATION_PERIOD,
            default.cpu_initialization_period,
            "cpu_initialization_period_ms",
        )?,
        initial_readiness_delay: duration(
            s.initial_readiness_delay_ms,
            HPA_SETTING_INITIAL_READINESS_DELAY,
            default.initial_readiness_delay,
            "initial_readiness_delay_ms",
        )?,
        scale_to_zero: gate(
            s.scale_to_zero,
            HPA_SETTING_SCALE_TO_ZERO,
            default.scale_to_zero,
            "scale_to_zero",
        )?,
        configurable_tolerance: gate(
            s.configurable_tolerance,
            HPA_SETTING_CONFIGURABLE_TOLERANCE,
            default.configurable_tolerance,
            "configurable_tolerance",
        )?,
        arithmetic: raw::known(s.arithmetic, enums::arithmetic)
            .map_err(|f| f.at("arithmetic"))?
            .unwrap_or(default.arithmetic),
        legacy_scale_up_factor,
        legacy_scale_up_minimum,
        // The core's optional fields (`older-controllers`, enabled in a workspace build by the
        // CLI): the C API does not set them.
        ..default
    })
}

/// The C form of settings.
pub(crate) fn settings_value(s: &Settings) -> hpa_settings {
    let (mantissa, exponent) = s.tolerance.decimal();
    hpa_settings {
        tolerance: hpa_decimal {
            mantissa: i64::try_from(mantissa).unwrap_or(i64::MAX),
            exponent,
        },
        downscale_stabilization_window_ms: s.downscale_stabilization_window.as_millis(),
        cpu_initialization_period_ms: s.cpu_initialization_period.as_millis(),
        initial_readiness_delay_ms: s.initial_readiness_delay.as_millis(),
        scale_to_zero: u32::from(s.scale_to_zero),
        configurable_tolerance: u32::from(s.configurable_tolerance),
        arithmetic: enums::arithmetic_value(s.arithmetic) as u32,
        legacy_scale_up_factor: s.legacy_scale_up_factor,
        legacy_scale_up_minimum: s.legacy_scale_up_minimum,
        explicit_zeros: explicit_zeros(s),
    }
}

/// The `HPA_SETTING_*` bits of the fields of `s` that are 0, so that its C form means `s`.
fn explicit_zeros(s: &Settings) -> u32 {
    let zeros = [
        (s.tolerance.decimal().0 == 0, HPA_SETTING_TOLERANCE),
        (
            s.downscale_stabilization_window.as_millis() == 0,
            HPA_SETTING_DOWNSCALE_STABILIZATION_WINDOW,
        ),
        (
            s.cpu_initialization_period.as_millis() == 0,
            HPA_SETTING_CPU_INITIALIZATION_PERIOD,
        ),
        (
            s.initial_readiness_delay.as_millis() == 0,
            HPA_SETTING_INITIAL_READINESS_DELAY,
        ),
        (!s.scale_to_zero, HPA_SETTING_SCALE_TO_ZERO),
        (
            !s.configurable_tolerance,
            HPA_SETTING_CONFIGURABLE_TOLERANCE,
        ),
        (
            s.legacy_scale_up_minimum == 0,
            HPA_SETTING_LEGACY_SCALE_UP_MINIMUM,
        ),
    ];
    zeros
        .iter()
        .filter(|(zero, _)| *zero)
        .fold(0, |bits, (_, bit)| bits | bit)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::ToString;

    fn text(mantissa: i64, exponent: i32) -> std::string::String {
        decimal_quantity(hpa_decimal { mantissa, exponent })
            .map(|q| q.to_string())
            .unwrap_or_else(|_| "error".into())
    }

    #[test]
    fn decimals_read_as_kubernetes_quantities() {
        assert_eq!(text(1, -1), "100m");
        assert_eq!(text(35, -2), "350m");
        assert_eq!(text(-5, -2), "-50m");
        assert_eq!(text(15, 2), "1500");
        assert_eq!(text(0, 0), "0");
        assert_eq!(text(123, -3), "123m");
        assert_eq!(text(1, -10), "1n");
        assert_eq!(text(i64::MIN, 0), "-9223372036854775808");
        assert_eq!(text(i64::MAX, -5), "92233720368547758070u");
        assert_eq!(text(1, 31), "10e30");
        assert_eq!(text(7, -40), "1e-9");
        assert_eq!(text(1, i32::MAX), "10e2147483646");
        assert_eq!(text(10, i32::MAX), "error");
    }
}
