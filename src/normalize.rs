//! Normalization of the combined proposal: the legacy path (algorithm spec section 12) and
//! the `behavior` path with both stabilization windows and the Pods/Percent policies
//! (section 13).

use crate::arith;
use crate::conditions::{ConditionStatus, ConditionType, Conditions, Reason};
use crate::defaults::{ResolvedBehavior, ResolvedRules};
use crate::history::{History, LimitDirection};
use crate::settings::{Arithmetic, Settings};
use crate::spec::{PolicyType, SelectPolicy};
use crate::time::{Duration, Instant};

/// What normalization did to the proposal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Normalized {
    /// After stabilization, before min/max and rate limits.
    pub stabilized: i32,
    /// The final desired replica count.
    pub replicas: i32,
    /// The ScalingLimited reason.
    pub limit: Reason,
    /// A history ring overflowed and its summary changed the result.
    pub overflowed: bool,
}

/// The inputs both paths share.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    /// The target's current replicas.
    pub current: i32,
    /// `minReplicas`.
    pub min: i32,
    /// `maxReplicas`.
    pub max: i32,
    /// The evaluation time.
    pub now: Instant,
}

/// How long recommendations may matter: the longest behavior window or the legacy window.
pub fn recommendation_retention(settings: &Settings) -> Duration {
    settings
        .downscale_stabilization_window
        .max(crate::history::BEHAVIOR_WINDOW_LIMIT)
}

fn set_limited(conditions: &mut Conditions, limited: bool, reason: Reason) {
    let status = if limited {
        ConditionStatus::True
    } else {
        ConditionStatus::False
    };
    conditions.set(ConditionType::ScalingLimited, status, reason);
}

/// `normalizeDesiredReplicas`: the legacy path for HPAs without `behavior`.
pub fn legacy<const R: usize, const E: usize>(
    history: &mut History<R, E>,
    settings: &Settings,
    conditions: &mut Conditions,
    b: Bounds,
    desired: i32,
) -> Normalized {
    let stab = history.stabilize_legacy(
        desired,
        b.current,
        b.now,
        settings.downscale_stabilization_window,
        recommendation_retention(settings),
    );
    let stabilized = stab.replicas;
    let reason = if stabilized != desired {
        Reason::ScaleDownStabilized
    } else {
        Reason::ReadyForNewScale
    };
    conditions.set(ConditionType::AbleToScale, ConditionStatus::True, reason);

    // int32(max(factor * float64(current), minimum)): exact for integer factors.
    let scale_up_limit = arith::clamp_i32(
        i128::from(settings.legacy_scale_up_factor)
            .saturating_mul(i128::from(b.current))
            .max(i128::from(settings.legacy_scale_up_minimum)),
    );
    let (ceiling, ceiling_reason) = if b.max > scale_up_limit {
        (scale_up_limit, Reason::ScaleUpLimit)
    } else {
        (b.max, Reason::TooManyReplicas)
    };
    let (replicas, limit) = if stabilized < b.min {
        (b.min, Reason::TooFewReplicas)
    } else if stabilized > ceiling {
        (ceiling, ceiling_reason)
    } else {
        (stabilized, Reason::DesiredWithinRange)
    };
    set_limited(conditions, replicas != stabilized, limit);
    Normalized {
        stabilized,
        replicas,
        limit,
        overflowed: stab.overflowed,
    }
}

/// `normalizeDesiredReplicasWithBehaviors`: stabilization with both windows, then the
/// policy rate limits and min/max in the direction of travel.
pub fn with_behavior<const R: usize, const E: usize>(
    history: &mut History<R, E>,
    settings: &Settings,
    behavior: &ResolvedBehavior<'_>,
    conditions: &mut Conditions,
    b: Bounds,
    desired: i32,
) -> Normalized {
    let up_window = Duration::from_secs(i64::from(
        behavior.scale_up.stabilization_window_seconds.unwrap_or(0),
    ));
    // The controller substitutes its flag, truncated to whole seconds (trace rule 15).
    let down_window = Duration::from_secs(behavior.scale_down.stabilization_window_seconds.map_or(
        settings.downscale_stabilization_window.whole_secs(),
        i64::from,
    ));
    let stab = history.stabilize_behavior(
        desired,
        b.current,
        b.now,
        up_window,
        down_window,
        recommendation_retention(settings),
    );
    let stabilized = stab.replicas;
    let reason = if stabilized == desired {
        Reason::ReadyForNewScale
    } else if desired >= b.current {
        Reason::ScaleUpStabilized
    } else {
        Reason::ScaleDownStabilized
    };
    conditions.set(ConditionType::AbleToScale, ConditionStatus::True, reason);

    let mode = settings.arithmetic;
    let mut overflowed = stab.overflowed;
    let (replicas, limit) = if stabilized > b.current {
        let (mut limit, of) = scale_up_limit(history, &behavior.scale_up, b.current, b.now, mode);
        overflowed |= of;
        if limit < b.current {
            limit = b.current;
        }
        let (ceiling, reason) = if b.max > limit {
            (limit, Reason::ScaleUpLimit)
        } else {
            (b.max, Reason::TooManyReplicas)
        };
        if stabilized > ceiling {
            (ceiling, reason)
        } else {
            (stabilized, Reason::DesiredWithinRange)
        }
    } else if stabilized < b.current {
        let (mut limit, of) =
            scale_down_limit(history, &behavior.scale_down, b.current, b.now, mode);
        overflowed |= of;
        if limit > b.current {
            limit = b.current;
        }
        let (floor, reason) = if b.min < limit {
            (limit, Reason::ScaleDownLimit)
        } else {
            (b.min, Reason::TooFewReplicas)
        };
        if stabilized < floor {
            (floor, reason)
        } else {
            (stabilized, Reason::DesiredWithinRange)
        }
    } else {
        (stabilized, Reason::DesiredWithinRange)
    };
    set_limited(conditions, replicas != stabilized, limit);
    Normalized {
        stabilized,
        replicas,
        limit,
        overflowed,
    }
}

/// Period-start replicas of one policy: `current − added + deleted` over its period.
fn period_start<const R: usize, const E: usize>(
    history: &History<R, E>,
    current: i32,
    period_seconds: i32,
    now: Instant,
    direction: LimitDirection,
) -> (i32, bool) {
    let changes = history.changes_in_period(
        now,
        Duration::from_secs(i64::from(period_seconds)),
        direction,
    );
    let start = i128::from(current)
        .saturating_sub(i128::from(changes.added))
        .saturating_add(i128::from(changes.deleted));
    (arith::clamp_i32(start), changes.overflowed)
}

/// `calculateScaleUpLimitWithScalingRules` (spec 13.3); also says whether folded events
/// were counted.
pub fn scale_up_limit<const R: usize, const E: usize>(
    history: &History<R, E>,
    rules: &ResolvedRules<'_>,
    current: i32,
    now: Instant,
    mode: Arithmetic,
) -> (i32, bool) {
    policy_limit(history, rules, current, now, mode, LimitDirection::Up)
}

/// `calculateScaleDownLimitWithBehaviors` (spec 13.4).
pub fn scale_down_limit<const R: usize, const E: usize>(
    history: &History<R, E>,
    rules: &ResolvedRules<'_>,
    current: i32,
    now: Instant,
    mode: Arithmetic,
) -> (i32, bool) {
    policy_limit(history, rules, current, now, mode, LimitDirection::Down)
}

/// The replica count the policies allow in one direction. `Max` selects the policy allowing
/// the largest change (the highest count up, the lowest down), `Min` the smallest.
fn policy_limit<const R: usize, const E: usize>(
    history: &History<R, E>,
    rules: &ResolvedRules<'_>,
    current: i32,
    now: Instant,
    mode: Arithmetic,
    direction: LimitDirection,
) -> (i32, bool) {
    let largest_change = match rules.select_policy {
        SelectPolicy::Disabled => return (current, false),
        SelectPolicy::Min => false,
        SelectPolicy::Max => true,
    };
    // Scaling up, the largest change is the highest count; scaling down, the lowest.
    let take_highest = largest_change == (direction == LimitDirection::Up);
    let mut result = if take_highest { i32::MIN } else { i32::MAX };
    let mut overflowed = false;
    for policy in rules.policies {
        let (start, of) = period_start(history, current, policy.period_seconds, now, direction);
        overflowed |= of;
        let proposed = match (policy.type_, direction) {
            (PolicyType::Pods, LimitDirection::Up) => start.saturating_add(policy.value),
            (PolicyType::Pods, LimitDirection::Down) => start.saturating_sub(policy.value),
            (PolicyType::Percent, LimitDirection::Up) => {
                arith::percent_up(mode, start, policy.value)
            }
            (PolicyType::Percent, LimitDirection::Down) => {
                arith::percent_down(mode, start, policy.value)
            }
        };
        result = if take_highest {
            result.max(proposed)
        } else {
            result.min(proposed)
        };
    }
    (result, overflowed)
}
