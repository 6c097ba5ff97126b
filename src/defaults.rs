//! API defaulting (docs/spec/configuration.md#api-defaulting) and the resolved, validated HPA the
//! engine runs.

use crate::settings::Settings;
use crate::spec::MAX_METRICS;
use crate::spec::{
    Behavior, HpaSpec, MetricSourceType, MetricSpec, MetricTarget, PolicyType, ScalingPolicy,
    ScalingRules, SelectPolicy,
};
use crate::tolerance::Tolerance;
use crate::validation::{validate_spec, BadValue, Detail, ErrorType, FieldPath, ValidationError};

/// `metrics` when the spec lists none: `cpu` at 80 % average utilization.
pub static DEFAULT_METRICS: [MetricSpec<'static>; 1] =
    [MetricSpec::resource("cpu", MetricTarget::utilization(80))];

/// Default scale-up policies: 4 pods or 100 % per 15 s, whichever is larger.
pub static DEFAULT_SCALE_UP_POLICIES: [ScalingPolicy; 2] = [
    ScalingPolicy {
        type_: PolicyType::Pods,
        value: 4,
        period_seconds: 15,
    },
    ScalingPolicy {
        type_: PolicyType::Percent,
        value: 100,
        period_seconds: 15,
    },
];

/// Default scale-down policies: 100 % per 15 s.
pub static DEFAULT_SCALE_DOWN_POLICIES: [ScalingPolicy; 1] = [ScalingPolicy {
    type_: PolicyType::Percent,
    value: 100,
    period_seconds: 15,
}];

/// One direction of a behavior after API defaulting.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ResolvedRules<'a> {
    /// Stabilization window in seconds; `None` only for scale-down, where the controller
    /// substitutes its downscale-stabilization setting.
    pub stabilization_window_seconds: Option<i32>,
    /// How the policies combine.
    pub select_policy: SelectPolicy,
    /// The policies (never empty).
    pub policies: &'a [ScalingPolicy],
    /// A per-direction tolerance, when set.
    pub tolerance: Option<Tolerance>,
}

impl<'a> ResolvedRules<'a> {
    /// The longest policy period in seconds (`getLongestPolicyPeriod`: at least 0):
    /// events before `now` minus this become outdated when an event of this direction is
    /// stored (docs/spec/history.md#scale-events).
    pub fn longest_period_seconds(&self) -> i32 {
        self.policies
            .iter()
            .fold(0, |longest, p| longest.max(p.period_seconds))
    }
}

/// A behavior after API defaulting.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ResolvedBehavior<'a> {
    /// `scaleUp`.
    pub scale_up: ResolvedRules<'a>,
    /// `scaleDown`.
    pub scale_down: ResolvedRules<'a>,
}

/// A validated HPA spec with API defaults applied: what the engine evaluates.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Hpa<'a> {
    min_replicas: i32,
    max_replicas: i32,
    metrics: &'a [MetricSpec<'a>],
    behavior: Option<ResolvedBehavior<'a>>,
}

fn resolve_rules<'a>(
    rules: Option<&ScalingRules<'a>>,
    default_policies: &'a [ScalingPolicy],
    default_window: Option<i32>,
) -> ResolvedRules<'a> {
    // Field by field through the reference: no copy of the rules (their tolerance quantity
    // alone is 24 bytes). One test of `rules`, not one per field.
    match rules {
        Some(r) => ResolvedRules {
            stabilization_window_seconds: r.stabilization_window_seconds.or(default_window),
            select_policy: r.select_policy.unwrap_or(SelectPolicy::Max),
            policies: r.policies.unwrap_or(default_policies),
            tolerance: r.tolerance.as_ref().and_then(Tolerance::from_quantity),
        },
        None => ResolvedRules {
            stabilization_window_seconds: default_window,
            select_policy: SelectPolicy::Max,
            policies: default_policies,
            tolerance: None,
        },
    }
}

/// API defaulting of a behavior (`GenerateHPAScaleUpRules` / `GenerateHPAScaleDownRules`).
pub fn resolve_behavior<'a>(behavior: &Behavior<'a>) -> ResolvedBehavior<'a> {
    ResolvedBehavior {
        scale_up: resolve_rules(
            behavior.scale_up.as_ref(),
            &DEFAULT_SCALE_UP_POLICIES,
            Some(0),
        ),
        scale_down: resolve_rules(
            behavior.scale_down.as_ref(),
            &DEFAULT_SCALE_DOWN_POLICIES,
            None,
        ),
    }
}

impl<'a> Hpa<'a> {
    /// Applies API defaulting to `spec` and validates it with the API server's rules
    /// (`settings.scale_to_zero` is the HPAScaleToZero gate for `minReplicas: 0`).
    // A ValidationError carries its field path and value inline (no allocator to box them).
    #[allow(clippy::result_large_err)]
    pub fn new(spec: &HpaSpec<'a>, settings: &Settings) -> Result<Hpa<'a>, ValidationError> {
        validate_spec(spec, settings.scale_to_zero)?;
        // Kubernetes sets no limit; this engine's decisions hold at most MAX_METRICS results.
        if spec.metrics.len() > MAX_METRICS {
            return Err(ValidationError::new(
                FieldPath::root("spec").child("metrics"),
                ErrorType::TooMany,
                BadValue::Int(i64::try_from(spec.metrics.len()).unwrap_or(i64::MAX)),
                Detail::AtMostItems(MAX_METRICS),
            ));
        }
        Ok(Hpa::from_stored(spec))
    }

    /// Applies API defaulting only, without validation: for objects an API server already
    /// holds (they may predate today's rules, e.g. `minReplicas: 0` kept after the
    /// HPAScaleToZero gate was turned off) and for upstream's controller tests, whose objects
    /// never pass an API server. The engine handles any spec without panicking, the way
    /// upstream's controller does; prefer [`Hpa::new`] for new specs.
    pub fn from_stored(spec: &HpaSpec<'a>) -> Hpa<'a> {
        let metrics: &'a [MetricSpec<'a>] = if spec.metrics.is_empty() {
            &DEFAULT_METRICS
        } else {
            spec.metrics
        };
        let mut hpa = Hpa {
            min_replicas: spec.min_replicas.unwrap_or(1),
            max_replicas: spec.max_replicas,
            metrics,
            behavior: None,
        };
        // Assigned afterwards: inside the literal, the 112-byte behavior went through a
        // temporary and a copy.
        if let Some(b) = &spec.behavior {
            hpa.behavior = Some(resolve_behavior(b));
        }
        hpa
    }

    /// `minReplicas` after defaulting.
    pub const fn min_replicas(&self) -> i32 {
        self.min_replicas
    }

    /// `maxReplicas`.
    pub const fn max_replicas(&self) -> i32 {
        self.max_replicas
    }

    /// The metrics after defaulting (never empty).
    pub const fn metrics(&self) -> &'a [MetricSpec<'a>] {
        self.metrics
    }

    /// The defaulted behavior, `None` for the legacy normalization.
    pub const fn behavior(&self) -> Option<&ResolvedBehavior<'a>> {
        self.behavior.as_ref()
    }

    /// Whether some metric is an Object or External metric (scale to/from zero).
    pub fn has_object_or_external_metric(&self) -> bool {
        self.metrics.iter().any(|m| {
            matches!(
                m.type_,
                Some(MetricSourceType::Object) | Some(MetricSourceType::External)
            )
        })
    }
}
