//! The multi-metric rule (docs/spec/metrics.md#combination) and upstream's aggregated error.

use core::fmt;

use super::{MetricError, MetricOutcome, MetricProposal};

/// The multi-metric result (docs/spec/metrics.md#combination).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Combined<'a> {
    /// The largest proposal (0 when every metric failed), and the metric that made it.
    pub replicas: i32,
    /// Index of the winning metric, if any metric was valid.
    pub winner: Option<usize>,
    /// Number of invalid metrics.
    pub invalid: usize,
    /// The first invalid metric.
    pub first_error: Option<MetricError<'a>>,
    /// Scaling cannot proceed: every metric failed, or some failed and the rest would
    /// scale down.
    pub failed: bool,
}

/// Combines per-metric outcomes (docs/spec/metrics.md#combination): the maximum wins; ties keep the
/// earliest, except that while the running result is 0 every later valid metric replaces it.
pub fn combine<'a>(outcomes: &[MetricOutcome<'a>], current: i32) -> Combined<'a> {
    let t = tally(outcomes, current);
    Combined {
        replicas: t.replicas,
        winner: t.winner.map(|(i, _)| i),
        invalid: t.invalid,
        first_error: t.first_error.copied(),
        failed: t.failed,
    }
}

/// [`combine`] by reference, for the reconcile: the winner and the first error stay where
/// they are (no copy of a 32-byte error through a temporary).
pub(crate) struct Tally<'o, 'a> {
    pub replicas: i32,
    pub winner: Option<(usize, &'o MetricProposal<'a>)>,
    pub invalid: usize,
    pub first_error: Option<&'o MetricError<'a>>,
    pub failed: bool,
}

/// [`combine`]'s rule (docs/spec/metrics.md#combination).
pub(crate) fn tally<'o, 'a>(outcomes: &'o [MetricOutcome<'a>], current: i32) -> Tally<'o, 'a> {
    let mut replicas = 0;
    let mut winner = None;
    let mut invalid = 0_usize;
    let mut first_error = None;
    for (i, outcome) in outcomes.iter().enumerate() {
        match outcome {
            MetricOutcome::Error(e) => {
                first_error.get_or_insert(e);
                invalid = invalid.saturating_add(1);
            }
            MetricOutcome::Proposal(p) => {
                if replicas == 0 || p.replicas > replicas {
                    replicas = p.replicas;
                    winner = Some((i, p));
                }
            }
        }
    }
    let failed = invalid >= outcomes.len() || (invalid > 0 && replicas < current);
    Tally {
        replicas,
        winner,
        invalid,
        first_error,
        failed,
    }
}

/// Upstream's aggregated error: `invalid metrics (K invalid out of N), first error is: …`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct InvalidMetricsError<'a> {
    /// Number of invalid metrics.
    pub invalid: usize,
    /// Number of metrics.
    pub total: usize,
    /// The first invalid metric's error.
    pub first: MetricError<'a>,
}

impl fmt::Display for InvalidMetricsError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid metrics ({} invalid out of {}), first error is: {}",
            self.invalid, self.total, self.first
        )
    }
}
