//! The properties every decision keeps (docs/spec/reconcile.md names the branches R4-R6),
//! checked by `tests/invariants.rs` on generated sequences and by the fuzz target
//! `fuzz/fuzz_targets/evaluate.rs` on the fuzzer's.

use hpa::autoscaler::{Autoscaler, Decision, LimitedBy};
use hpa::conditions::ConditionType;
use hpa::input::ConditionStatus;
use hpa::metrics::MetricOutcome;
use hpa::spec::SelectPolicy;
use hpa::{Hpa, Settings, Status};

/// Everything observable about an autoscaler's state.
pub fn state<const R: usize, const E: usize>(a: &Autoscaler<R, E>) -> String {
    format!(
        "{:?} pending={} recommendations={:?} events={:?}",
        a.status(),
        a.rescale_pending(),
        a.history().recommendations().collect::<Vec<_>>(),
        a.history().scale_events().collect::<Vec<_>>()
    )
}

/// Whether the status holds `ScaledToZero: True`.
pub fn scaled_to_zero(status: &Status) -> bool {
    status
        .conditions
        .get(ConditionType::ScaledToZero)
        .is_some_and(|c| c.status == ConditionStatus::True)
}

/// The combined proposal of docs/spec/metrics.md#combination recomputed from the per-metric
/// outcomes: (max valid proposal with the "0 is replaced" rule, invalid count).
pub fn combine(d: &Decision<'_>) -> (i32, usize) {
    let mut replicas = 0;
    let mut invalid = 0;
    for outcome in &d.metrics {
        match outcome {
            MetricOutcome::Proposal(p) => {
                if replicas == 0 || p.replicas > replicas {
                    replicas = p.replicas;
                }
            }
            MetricOutcome::Error(_) => invalid += 1,
        }
    }
    (replicas, invalid)
}

/// Checks one accepted decision against the rules of docs/spec/reconcile.md: `before` is the
/// status before the evaluation, `valid` whether the API server accepts the spec (the range
/// checks need a valid one); `context` describes the step for a failure's message.
///
/// * the branch: current 0 without scale-from-zero -> 0, no rescale (R5); current above max
///   -> max; current below min -> min; otherwise one outcome per metric (R6);
/// * a failed metric set (all invalid, or some invalid and the rest proposing less than
///   current, docs/spec/metrics.md#combination) -> no rescale, `desiredReplicas` kept;
/// * otherwise `rescale == (desired != current)`, and for a valid spec with min <= max:
///   desired in [min, max]; with a behavior and current >= 1, desired between current and
///   `max(proposal, 0)` (stabilization and policies only ever hold back,
///   docs/spec/normalization.md#behavior); without one, desired >= min(current, proposal) and
///   desired <= max(current, factor * current, minimum) (docs/spec/normalization.md#legacy);
///   `selectPolicy: Disabled` forbids moving in that direction.
pub fn check_decision(
    hpa: &Hpa<'_>,
    settings: &Settings,
    valid: bool,
    before: &Status,
    d: &Decision<'_>,
    current: i32,
    context: &dyn Fn() -> String,
) {
    let (min, max) = (hpa.min_replicas(), hpa.max_replicas());
    let stz = settings.scale_to_zero && scaled_to_zero(before);
    // R4/R5: metrics are computed at zero replicas if `(min != 0 && scaledToZero) ||
    // canScaleFromZero`.
    let can_scale_from_zero = stz && hpa.has_object_or_external_metric();
    let computes_at_zero = (min != 0 && stz) || can_scale_from_zero;
    assert_eq!(d.current_replicas, current, "{}", context());
    assert!(!d.rescale || d.desired_replicas != current, "{}", context());

    if current == 0 && !computes_at_zero {
        // R5: scaling is disabled.
        assert_eq!(d.limited_by, LimitedBy::ScalingDisabled, "{}", context());
        assert_eq!(
            (d.desired_replicas, d.rescale, d.proposal),
            (0, false, None),
            "{}",
            context()
        );
        assert!(d.metrics.is_empty(), "{}", context());
        return;
    }
    if current != 0 && current > max {
        assert_eq!(
            (d.desired_replicas, d.rescale, d.proposal),
            (max, true, None),
            "{}",
            context()
        );
        assert!(d.metrics.is_empty(), "{}", context());
        return;
    }
    if current != 0 && current < min {
        assert_eq!(
            (d.desired_replicas, d.rescale, d.proposal),
            (min, true, None),
            "{}",
            context()
        );
        return;
    }
    // R6: metrics.
    assert_eq!(d.metrics.len(), hpa.metrics().len(), "{}", context());
    let (combined, invalid) = combine(d);
    let failed = invalid == d.metrics.len() || (invalid > 0 && combined < current);
    assert_eq!(
        d.limited_by == LimitedBy::InvalidMetrics,
        failed,
        "{}",
        context()
    );
    assert_eq!(d.metrics_error.is_some(), invalid > 0, "{}", context());
    if failed {
        assert!(!d.rescale, "{}", context());
        assert_eq!(d.proposal, None, "{}", context());
        assert_eq!(d.desired_replicas, before.desired_replicas, "{}", context());
        return;
    }
    assert_eq!(d.proposal, Some(combined), "{}", context());
    assert_eq!(d.rescale, d.desired_replicas != current, "{}", context());
    let desired = d.desired_replicas;
    let proposed = combined.max(0);
    if !valid || min > max {
        return;
    }
    assert!(
        (min..=max).contains(&desired),
        "desired outside [min, max]: {}",
        context()
    );
    if current == 0 {
        return;
    }
    match hpa.behavior() {
        Some(b) => {
            let (lo, hi) = (current.min(proposed), current.max(proposed));
            assert!(
                (lo..=hi).contains(&desired),
                "a behavior only holds back: {}",
                context()
            );
            if b.scale_up.select_policy == SelectPolicy::Disabled {
                assert!(desired <= current, "scale-up disabled: {}", context());
            }
            if b.scale_down.select_policy == SelectPolicy::Disabled {
                assert!(desired >= current, "scale-down disabled: {}", context());
            }
        }
        None => {
            let limit = (i64::from(settings.legacy_scale_up_factor) * i64::from(current))
                .max(i64::from(settings.legacy_scale_up_minimum))
                .max(i64::from(current));
            assert!(
                desired >= current.min(proposed),
                "legacy never goes below the proposal: {}",
                context()
            );
            assert!(
                i64::from(desired) <= limit,
                "legacy scale-up limit: {}",
                context()
            );
        }
    }
}
