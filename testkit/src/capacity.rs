//! A small autoscaler against a reference that never folds, on one closed loop: the check of
//! the "conservative when full" promise (docs/spec/history.md#capacity), shared by
//! `tests/history_capacity.rs`, `tests/long_run.rs` and the `evaluate` fuzz target.
//!
//! The reference is an `Autoscaler<REFERENCE, REFERENCE>` (32 KiB rings): with steps at least
//! one second apart it never folds anything (3600 s and 1800 s of history at most, entries of at
//! a few bytes; checked at every step), and the conformance suite shows the engine equals
//! upstream whenever nothing is folded. A small autoscaler and the reference see
//! identical observations; the small one's decisions drive the loop (its replica count is
//! applied and reported with `rescale_succeeded`), as they would in a real deployment.
//!
//! Why the small one drives: a scale event records the change the caller applied. If the
//! reference's decision were applied instead, the small one's `rescale_succeeded` would record
//! its own (different) change, and no public API can record another change into it without
//! losing its folded summary. The reference, which never folds, can be brought in line: when
//! the two decisions differ, its history is reloaded with `History::load` from its own
//! recommendations and the scale events that really happened, and its status is set to the
//! small one's. So at every step the reference is "upstream, given the same past".
//!
//! Asserted at every step:
//! (a) `history_overflowed == false` => the small decision equals the reference's (desired
//!     replicas, rescale, reason, proposal, stabilized value, limit, conditions);
//! (b) `history_overflowed == true` => the small desired count lies between the current count
//!     and the reference's desired count, inclusive: it never moves further, nor the other way;
//! and the reference never reports an overflow.

use hpa::history::{Direction, ScaleEvent};
use hpa::spec::{Behavior, MetricIdentifier, MetricSpec, MetricTarget};
use hpa::{Autoscaler, Decision, Hpa, HpaSpec, Instant, MetricValues, Observation};
use hpa::{Quantity, Settings};

/// Ring bytes of the reference autoscaler: far more than its histories ever take.
pub const REFERENCE: usize = 1 << 15;

/// One External metric with an AverageValue target of 1 (1000 milli-units): outside the
/// tolerance band the proposal is `ceil(value / 1000)`
/// (docs/spec/calculator.md#external-average-value), whatever the pods.
pub static METRICS: [MetricSpec<'static>; 1] = [MetricSpec::external(
    MetricIdentifier::named("queue_length"),
    MetricTarget::average_value(Quantity::from_milli(1000)),
)];

/// A spec of [`METRICS`] (what [`closed_loop`] observes) with these bounds and behavior.
pub fn spec(min_replicas: i32, max_replicas: i32, behavior: Option<Behavior<'_>>) -> HpaSpec<'_> {
    HpaSpec {
        min_replicas: Some(min_replicas),
        max_replicas,
        metrics: &METRICS,
        behavior,
        scale_target_ref: None,
    }
}

/// The parts of a decision (a) compares.
pub fn summary(d: &Decision<'_>) -> String {
    format!(
        "desired={} rescale={} reason={:?} proposal={:?} stabilized={:?} limited_by={:?} conditions={:?}",
        d.desired_replicas, d.rescale, d.reason, d.proposal, d.stabilized, d.limited_by, d.conditions
    )
}

/// What happens to a decided rescale.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Outcome {
    Succeeded,
    Failed,
    Unreported,
}

/// What a closed loop went through.
#[derive(Default, Debug)]
pub struct Stats {
    pub steps: usize,
    pub overflowed: usize,
    /// Overflowed decisions whose desired count differs from the reference's.
    pub held_back: usize,
    /// The most bytes the small autoscaler's rings held after a step.
    pub peak_recommendation_bytes: usize,
    pub peak_event_bytes: usize,
    /// The small autoscaler folded some entry.
    pub folded: bool,
    /// The lowest and highest desired count the small autoscaler decided.
    pub desired_range: Option<(i32, i32)>,
}

/// Puts the reference in the state upstream would be in after the caller applied the small
/// autoscaler's decision: its own recommendations, its scale-event lists with the change that
/// really happened stored as upstream's `storeScaleEvent` stores it (HPAs with a behavior:
/// the direction's events before `at - longest period` become outdated, the last outdated
/// slot is overwritten or the event appended; a forgotten slot is outdated), and the small
/// one's status.
pub fn align_reference<const R: usize, const E: usize>(
    reference: &mut Autoscaler<REFERENCE, REFERENCE>,
    small: &Autoscaler<R, E>,
    hpa: &Hpa<'_>,
    applied: Option<(i32, Instant)>,
) {
    let recommendations: Vec<(i32, Instant)> = reference.history().recommendations().collect();
    let history = reference.history();
    let mut lists = [Direction::Up, Direction::Down].map(|d| {
        history
            .scale_event_list(d)
            .collect::<Vec<Option<ScaleEvent>>>()
    });
    if let (Some((change, at)), Some(b)) = (applied.filter(|(c, _)| *c != 0), hpa.behavior()) {
        let (list, rules) = if change > 0 {
            (&mut lists[0], &b.scale_up)
        } else {
            (&mut lists[1], &b.scale_down)
        };
        let cutoff = at.millis() - 1000 * i64::from(rules.longest_period_seconds());
        for e in list.iter_mut().flatten() {
            e.outdated |= e.at.millis() < cutoff;
        }
        let event = Some(ScaleEvent {
            change: change.abs(),
            at,
            outdated: false,
        });
        match list.iter().rposition(|e| e.is_none_or(|e| e.outdated)) {
            Some(i) => list[i] = event,
            None => list.push(event),
        }
    }
    let [ups, downs] = &lists;
    reference
        .load_history(true, &recommendations, ups, downs)
        .expect("upstream's lists load");
    *reference.status_mut() = small.status().clone();
}

/// One step of a closed loop.
pub struct StepInput {
    /// Evaluation time (ms).
    pub now: i64,
    /// The External metric's value (milli-units): `ceil(load / 1000)` replicas outside the band.
    pub load: i64,
    /// A replica count someone else sets before the evaluation (no scale event).
    pub set_replicas: Option<i32>,
    /// What happens to a decided rescale.
    pub outcome: Outcome,
}

/// Drives a small autoscaler and the reference through `steps` inputs from `next`, starting
/// at `replicas`, and checks (a) and (b) at every step (see the module docs).
pub fn closed_loop<const R: usize, const E: usize>(
    hpa: &Hpa<'_>,
    settings: &Settings,
    label: &str,
    mut replicas: i32,
    steps: usize,
    mut next: impl FnMut(usize) -> StepInput,
) -> Stats {
    let mut small: Autoscaler<R, E> = Autoscaler::new();
    let mut reference: Autoscaler<REFERENCE, REFERENCE> = Autoscaler::new();
    let mut stats = Stats::default();
    for step in 0..steps {
        let StepInput {
            now,
            load,
            set_replicas,
            outcome,
        } = next(step);
        if let Some(r) = set_replicas {
            replicas = r;
        }
        let values = [load];
        let metrics = [MetricValues::External(&values)];
        let obs = Observation {
            now: Instant(now),
            replicas,
            status_replicas: replicas,
            pods: &[],
            metrics: &metrics,
        };
        let s = small.evaluate(hpa, settings, &obs).expect("valid input");
        let r = reference
            .evaluate(hpa, settings, &obs)
            .expect("valid input");
        let context = || {
            format!(
                "{label}, step {step}, now {now} ms, current {replicas}, load {load}\n  small:     {}\n  reference: {}",
                summary(&s),
                summary(&r)
            )
        };
        assert!(
            !r.history_overflowed && !reference.history().has_folded(),
            "the reference must never fold: {}",
            context()
        );
        stats.steps += 1;
        let (lo, hi) = stats
            .desired_range
            .unwrap_or((s.desired_replicas, s.desired_replicas));
        stats.desired_range = Some((lo.min(s.desired_replicas), hi.max(s.desired_replicas)));
        if s.history_overflowed {
            stats.overflowed += 1;
            let (lo, hi) = (
                replicas.min(r.desired_replicas),
                replicas.max(r.desired_replicas),
            );
            assert!(
                (lo..=hi).contains(&s.desired_replicas),
                "(b) an overflowed decision must lie between the current count and upstream's: {}",
                context()
            );
            if s.desired_replicas != r.desired_replicas {
                stats.held_back += 1;
            }
        } else {
            assert_eq!(
                summary(&s),
                summary(&r),
                "(a) without overflow the decision must equal upstream's: {}",
                context()
            );
        }

        let same = s.desired_replicas == r.desired_replicas && s.rescale == r.rescale;
        let applied_change = (s.rescale && outcome == Outcome::Succeeded)
            .then_some((s.desired_replicas - replicas, Instant(now)));
        let new_replicas = if applied_change.is_some() {
            s.desired_replicas
        } else {
            replicas
        };
        match outcome {
            Outcome::Succeeded => {
                small.rescale_succeeded();
                if same {
                    reference.rescale_succeeded();
                }
            }
            Outcome::Failed => {
                small.rescale_failed();
                if same {
                    reference.rescale_failed();
                }
            }
            Outcome::Unreported => {}
        }
        if !same {
            align_reference(&mut reference, &small, hpa, applied_change);
        } else if small.status() != reference.status() {
            // Only an overflowed decision can leave a different status (e.g. the
            // stabilization reason); (a) above checked that the decisions are the same
            // otherwise.
            *reference.status_mut() = small.status().clone();
        }
        replicas = new_replicas;
        let (recommendation_bytes, event_bytes) = small.history().bytes_used();
        stats.peak_recommendation_bytes = stats.peak_recommendation_bytes.max(recommendation_bytes);
        stats.peak_event_bytes = stats.peak_event_bytes.max(event_bytes);
        stats.folded |= small.history().has_folded();
    }
    stats
}
