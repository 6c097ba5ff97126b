//! API validation of an `autoscaling/v2` HorizontalPodAutoscaler spec (docs/spec/validation.md),
//! reported the way the Kubernetes API server reports it.
//!
//! One walk of the spec follows the order in which upstream's
//! `validateHorizontalPodAutoscalerSpec` appends its errors (`pkg/apis/autoscaling/validation`).
//! [`validate_spec_each`] passes **every** error to a visitor, like the error list `kubectl`
//! prints for a rejected object; [`validate_spec`] and [`validate_spec_with`] return the
//! **first** one (and stop the walk there). A [`ValidationError`] renders exactly like Go's
//! `field.Error.Error()`: `<field path>: <type>[: <value>][: <detail>]`, for example
//! `spec.minReplicas: Invalid value: 0: must be greater than or equal to 1` or
//! `spec.behavior.scaleUp.policies: Required value: must specify at least one Policy`.
//!
//! Validation runs after API defaulting, as in the API server: an absent `minReplicas`,
//! `metrics`, `selectPolicy` or `policies` is the (valid) default, while `policies: []` is
//! invalid. Values the typed model cannot hold (an unknown metric `type`, target `type`,
//! `selectPolicy` or policy `type` string) are passed to [`validate_spec_with`] as
//! [`Unrecognized`] entries, so that they are reported in upstream's order too; the same errors
//! are available one by one from the `ValidationError::unsupported_*` constructors.
//!
//! Where the text cannot match upstream byte for byte:
//! * a rejected quantity prints in canonical form (`-300m`); Go prints the raw
//!   `resource.Quantity{...}` struct for the `*Quantity` upstream passes;
//! * with several wrongly populated metric sources, upstream's order of their `Forbidden`
//!   errors depends on Go map order; they are reported here in the order upstream examines the
//!   sources (object, external, pods, resource, containerResource);
//! * the `apiVersion` messages of `ValidateCrossVersionObjectReference` (added upstream in
//!   1.34, source not available to this implementation) are reconstructed: a value with more
//!   than one `/` gives `schema.ParseGroupVersion`'s error, a missing group (allowed only for a
//!   `ReplicationController` scale target and for Object metrics' described objects) gives
//!   "apiVersion must specify API group".
//!
//! Nothing here allocates: paths are fixed-capacity segment lists and rejected strings are
//! copied into a fixed buffer ([`MAX_VALUE_LEN`] bytes, longer values are cut and marked).
//! Without an allocator the error cannot be boxed, so it is returned by value (a few hundred
//! bytes, once per spec); hence the `result_large_err` allowance below. The visitor form builds
//! each error on the stack and lends it to the visitor.
//!
//! Layers: `error` (the error and its rendering), `detail` (the detail messages), `walk` (the
//! rules, in upstream's order) and `names` (name and label formats); the entry points are here.
#![allow(clippy::result_large_err)]

use core::ops::ControlFlow;

use crate::spec::{HpaSpec, MetricSourceType};

mod detail;
mod error;
mod names;
mod walk;

pub use detail::{Detail, NamePart, NameRule, SupportedValues};
pub use error::{
    source_field_name, BadValue, Direction, ErrorType, FieldPath, Segment, ValidationError,
    ValueText,
};

/// The largest allowed scaling policy period, in seconds (`MaxPeriodSeconds`).
pub const MAX_PERIOD_SECONDS: i32 = 1800;

/// The largest allowed stabilization window, in seconds (`MaxStabilizationWindowSeconds`).
pub const MAX_STABILIZATION_WINDOW_SECONDS: i32 = 3600;

/// The most segments a [`FieldPath`] holds (the deepest HPA path has 6).
pub const MAX_PATH_DEPTH: usize = 8;

/// The most bytes of a rejected string kept in a [`BadValue`]; longer values are cut at a
/// character boundary and printed with a trailing `...`.
pub const MAX_VALUE_LEN: usize = 256;

/// A value the typed spec cannot hold, reported by [`validate_spec_with`] at its place in
/// upstream's order. The corresponding typed field is ignored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Unrecognized<'a> {
    /// `spec.metrics[metric].type` is `value` (empty or unknown).
    MetricType {
        /// Index in `spec.metrics`.
        metric: usize,
        /// The string given.
        value: &'a str,
    },
    /// `spec.metrics[metric].<source>.target.type` is `value` (empty or unknown).
    TargetType {
        /// Index in `spec.metrics`.
        metric: usize,
        /// Which source's target.
        source: MetricSourceType,
        /// The string given.
        value: &'a str,
    },
    /// `spec.behavior.<direction>.selectPolicy` is `value` (not Max, Min or Disabled).
    SelectPolicy {
        /// The direction.
        direction: Direction,
        /// The string given.
        value: &'a str,
    },
    /// `spec.behavior.<direction>.policies[policy].type` is `value` (not Pods or Percent).
    PolicyType {
        /// The direction.
        direction: Direction,
        /// Index in `policies`.
        policy: usize,
        /// The string given.
        value: &'a str,
    },
}

impl Unrecognized<'_> {
    /// The error upstream reports for this value.
    pub fn to_error(&self) -> ValidationError {
        match *self {
            Unrecognized::MetricType { metric, value } => {
                ValidationError::unsupported_metric_type(metric, value)
            }
            Unrecognized::TargetType {
                metric,
                source,
                value,
            } => ValidationError::unsupported_target_type(metric, source, value),
            Unrecognized::SelectPolicy { direction, value } => {
                ValidationError::unsupported_select_policy(direction, value)
            }
            Unrecognized::PolicyType {
                direction,
                policy,
                value,
            } => ValidationError::unsupported_policy_type(direction, policy, value),
        }
    }
}

/// Validates `spec` as the API server does after defaulting, returning the first error in
/// upstream's order. `scale_to_zero` is the `HPAScaleToZero` gate: with it `minReplicas` may be
/// 0 (which still needs an Object or External metric), without it the lower bound is 1.
pub fn validate_spec(spec: &HpaSpec<'_>, scale_to_zero: bool) -> Result<(), ValidationError> {
    validate_spec_with(spec, scale_to_zero, &[])
}

/// [`validate_spec`] for a spec in which some strings could not be mapped to the typed model:
/// each [`Unrecognized`] entry replaces the typed field at its place and is reported there,
/// so the error returned is still the first one upstream would report.
///
/// This is the first error [`validate_spec_each`] reports; the walk stops there.
pub fn validate_spec_with(
    spec: &HpaSpec<'_>,
    scale_to_zero: bool,
    unrecognized: &[Unrecognized<'_>],
) -> Result<(), ValidationError> {
    let mut sink = Sink {
        visit: None,
        first: None,
        count: 0,
    };
    // The walk breaks at the first error, which `sink.first` then holds.
    let _ = walk::walk_spec(spec, scale_to_zero, unrecognized, &mut sink);
    match sink.first {
        Some(error) => Err(error),
        None => Ok(()),
    }
}

/// Validates `spec` like [`validate_spec_with`], but reports **every** error, in the order of
/// the API server's error list (`field.ErrorList`), to `on_error`; returns how many there were
/// (0 for a valid spec). Nothing is allocated: each error is built on the stack, passed by
/// reference and dropped.
///
/// The list is the one `kubectl` prints for a rejected object: the API server's
/// `ErrorList.ToAggregate()` and `kubectl` both drop an error whose text repeats an earlier
/// one, and the only repetition HPA validation produces (`validateMetricSpec` appends the
/// Unsupported-value error of an unknown metric `type` twice) is reported once here.
///
/// Which checks go on after an error follows upstream's `validation.go`: every check of the
/// spec runs, each appending its own errors, except where upstream itself skips one. Upstream
/// skips: the format checks of an empty `kind`, `name`, metric name, container resource name
/// or container (each is Required instead); the standard-resource check of a container
/// resource name that is not a valid label key; the in-depth checks of every populated metric
/// source after the first (they are only `Forbidden`); and, within a label key with more than
/// one `/`, everything but that one message. A missing or unknown metric `type`, or target
/// `type`, does not stop the checks of that metric or target.
///
/// ```
/// use hpa::spec::{HpaSpec, MetricSpec, MetricTarget};
/// use hpa::validation::validate_spec_each;
///
/// let metrics = [MetricSpec::resource("", MetricTarget::utilization(0))];
/// let spec = HpaSpec {
///     min_replicas: Some(0),
///     max_replicas: 0,
///     metrics: &metrics,
///     behavior: None,
///     scale_target_ref: None,
/// };
/// let mut lines = Vec::new();
/// let count = validate_spec_each(&spec, false, &[], &mut |e| lines.push(e.to_string()));
/// assert_eq!(count, 5);
/// assert_eq!(
///     lines,
///     [
///         "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
///         "spec.maxReplicas: Invalid value: 0: must be greater than 0",
///         "spec.metrics[0].resource.name: Required value: must specify a resource name",
///         "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be \
///          greater than 0",
///         "spec.metrics: Forbidden: must specify at least one Object or External metric to \
///          support scaling to zero replicas",
///     ]
/// );
/// ```
pub fn validate_spec_each(
    spec: &HpaSpec<'_>,
    scale_to_zero: bool,
    unrecognized: &[Unrecognized<'_>],
    on_error: &mut dyn FnMut(&ValidationError),
) -> usize {
    let mut sink = Sink {
        visit: Some(on_error),
        first: None,
        count: 0,
    };
    // With a visitor the walk never breaks.
    let _ = walk::walk_spec(spec, scale_to_zero, unrecognized, &mut sink);
    sink.count
}

/// Whether the walk goes on after an error ([`ControlFlow::Break`] once the first error is
/// all the caller wants).
type Flow = ControlFlow<()>;

const GO_ON: Flow = ControlFlow::Continue(());

/// Where the walk reports its errors: to a visitor (every error), or into `first` (the walk
/// then stops).
struct Sink<'f> {
    visit: Option<&'f mut dyn FnMut(&ValidationError)>,
    first: Option<ValidationError>,
    count: usize,
}

impl Sink<'_> {
    fn report(&mut self, error: ValidationError) -> Flow {
        self.count = self.count.saturating_add(1);
        match self.visit.as_mut() {
            Some(visit) => {
                visit(&error);
                GO_ON
            }
            None => {
                self.first = Some(error);
                ControlFlow::Break(())
            }
        }
    }
}
