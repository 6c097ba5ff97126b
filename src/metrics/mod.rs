//! Per-metric dispatch, error wrapping and the multi-metric rule (docs/spec/metrics.md).
//!
//! - `route`: a metric's target read as upstream reads it, and the calculator it goes to;
//! - `evaluate`: one metric's outcome;
//! - `name`, `error`: the metric names and error texts of upstream's messages;
//! - `reading`: whether a metric's readings include one upstream takes as it is;
//! - `combine`: the multi-metric rule.

mod combine;
mod error;
mod evaluate;
mod name;
mod reading;
mod route;

// The calculators' and pod grouping's types and entry points, for callers that run one stage
// (upstream's replica calculator and pod grouping tests, the firmware's conformance cases).
pub use crate::arith::Tolerances;
pub use crate::calculator::{CalcContext, CalcError, Calculation, Reading};
pub use crate::pods::{group_pod, pod_request, PodGroup, Readiness, RequestError};
pub(crate) use combine::tally;
pub use combine::{combine, Combined, InvalidMetricsError};
pub use evaluate::evaluate_metric;
pub(crate) use evaluate::evaluate_metric_into;
pub use name::MetricName;
pub use reading::reading;

use crate::spec::MetricSpec;

pub use crate::spec::MAX_METRICS;

/// Why one metric produced no proposal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MetricFailure<'a> {
    /// The calculator failed.
    Calc(CalcError<'a>),
    /// The target fields name no usable target.
    InvalidSource,
    /// The metric's label selector cannot be converted.
    InvalidSelector,
    /// The caller passed values of the wrong shape for this metric's source.
    WrongValues,
}

/// A failed metric together with its spec, so that it can be rendered as upstream's error.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MetricError<'a> {
    /// The metric.
    pub spec: &'a MetricSpec<'a>,
    /// What went wrong.
    pub failure: MetricFailure<'a>,
}

/// One metric's result.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MetricOutcome<'a> {
    /// The metric proposed a replica count.
    Proposal(MetricProposal<'a>),
    /// The metric is invalid this time.
    Error(MetricError<'a>),
}

/// A metric's proposal and the current value it measured (the HPA's `currentMetrics`).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MetricProposal<'a> {
    /// The metric.
    pub spec: &'a MetricSpec<'a>,
    /// Proposed replicas.
    pub replicas: i32,
    /// `current.averageUtilization`.
    pub average_utilization: Option<i32>,
    /// `current.averageValue` in milli-units.
    pub average_value: Option<i64>,
    /// `current.value` in milli-units.
    pub value: Option<i64>,
    /// The proposal is the current count because the usage ratio was inside the tolerance.
    /// (Whether a reading was out of the ordinary is [`reading`]'s to say.)
    pub within_tolerance: bool,
}

impl<'a> MetricProposal<'a> {
    /// The name upstream uses in reasons and messages, e.g.
    /// `cpu resource utilization (percentage of request)`.
    pub fn name(&self) -> MetricName<'a> {
        MetricName(self.spec)
    }
}

/// A failed metric's outcome.
pub(crate) fn fail<'a>(spec: &'a MetricSpec<'a>, failure: MetricFailure<'a>) -> MetricOutcome<'a> {
    MetricOutcome::Error(MetricError { spec, failure })
}
