//! Normalization of the combined proposal: the legacy path (docs/spec/normalization.md#legacy)
//! and the `behavior` path with both stabilization windows and the Pods/Percent policies
//! (docs/spec/normalization.md#behavior).

use crate::arith;
use crate::conditions::{ConditionStatus, ConditionType, Conditions, Reason};
use crate::defaults::{ResolvedBehavior, ResolvedRules};
use crate::history::{Direction, History, Stabilization};
use crate::settings::{Arithmetic, Settings};
use crate::spec::{PolicyType, SelectPolicy};
use crate::time::{Duration, Instant};

/// What normalization did to the proposal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Normalized {
    /// After stabilization, before min/max and rate limits.
    pub stabilized: i32,
    /// The final desired replica count.
    pub replicas: i32,
    /// The ScalingLimited reason.
    pub limit: Reason,
    /// A history ring overflowed and its summary changed the result.
    pub overflowed: bool,
    /// How the result came about (stabilization bounds, rate limit), for explanations.
    pub detail: NormalizationDetail,
}

/// How normalization arrived at its result: the data behind an explanation such as
/// "stabilized into [3, 7], scale-up limited to 8 by policy 0 from 4 replicas at the start of
/// its period". Filled from values normalization computes anyway; it decides nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct NormalizationDetail {
    /// Stabilization clamped `current` into `[stabilization_low, stabilization_high]`. With a
    /// behavior: the lowest recommendation in the scale-up window and the highest in the
    /// scale-down window (both including the new proposal). Legacy path: both are the highest
    /// recommendation in the downscale window (including the new proposal), unless a folded
    /// history summary widened the range (`overflowed`).
    pub stabilization_low: i32,
    /// See [`NormalizationDetail::stabilization_low`].
    pub stabilization_high: i32,
    /// The rate limit in the direction of travel: set when the stabilized value differs from
    /// `current` (behavior path) or exceeds it (legacy path, which limits scale-up only).
    pub rate_limit: Option<RateLimit>,
}

/// A rate limit of normalization (docs/spec/normalization.md#legacy-rate-limit,
/// docs/spec/normalization.md#rate-limits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RateLimit {
    /// A scale-up limit (a ceiling) when true, a scale-down limit (a floor) when false.
    pub scale_up: bool,
    /// The limit before min/max: the most (scale-up) or fewest (scale-down) replicas allowed
    /// now, never past `current`.
    pub replicas: i32,
    /// The policy that set the limit: its index in the direction's resolved policies (after
    /// API defaulting). `None` for the legacy `max(2 x current, 4)` rule and for
    /// `selectPolicy: Disabled`.
    pub policy: Option<usize>,
    /// That policy's period-start replicas (`current - added + deleted` over its period);
    /// `current` for the legacy rule and for `Disabled`.
    pub period_start: i32,
}

/// The inputs both paths share.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
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
    let retention = recommendation_retention(settings);
    normalize(history, settings, None, conditions, b, desired, retention)
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
    let retention = recommendation_retention(settings);
    normalize(
        history,
        settings,
        Some(behavior),
        conditions,
        b,
        desired,
        retention,
    )
}

/// Both paths in one function, [`legacy`] without a behavior: they share the conditions and
/// the result, and the reconcile makes one call. `retention` is
/// [`recommendation_retention`], which the reconcile has computed already.
// Inlined into its one caller on a Cortex-M0: 60 bytes less code (64 without the `exact`
// feature) for a deeper stack, which is under its budget while code is not.
pub(crate) fn normalize<const R: usize, const E: usize>(
    history: &mut History<R, E>,
    settings: &Settings,
    behavior: Option<&ResolvedBehavior<'_>>,
    conditions: &mut Conditions,
    b: Bounds,
    desired: i32,
    retention: Duration,
) -> Normalized {
    let windows = match behavior {
        None => Stabilization::Legacy(settings.downscale_stabilization_window),
        Some(behavior) => {
            let up_window = Duration::from_secs(i64::from(
                behavior.scale_up.stabilization_window_seconds.unwrap_or(0),
            ));
            // The controller substitutes its flag, truncated to whole seconds
            // (docs/spec/trace-format.md#rule-15).
            let down_window =
                Duration::from_secs(behavior.scale_down.stabilization_window_seconds.map_or(
                    settings.downscale_stabilization_window.whole_secs(),
                    i64::from,
                ));
            Stabilization::Behavior(up_window, down_window)
        }
    };
    let stab = history.stabilize(desired, b.current, b.now, windows);
    // Both stabilizations look at the recommendations before this one.
    history.push_recommendation(desired, b.now, retention);
    let stabilized = stab.replicas;
    // The legacy path only holds scale-downs back.
    let reason = if stabilized == desired {
        Reason::ReadyForNewScale
    } else if behavior.is_some() && desired >= b.current {
        Reason::ScaleUpStabilized
    } else {
        Reason::ScaleDownStabilized
    };
    conditions.set(ConditionType::AbleToScale, ConditionStatus::True, reason);

    let mut overflowed = stab.overflowed;
    // The behavior's rate limit in the direction of travel; the legacy scale-up limit.
    let step = match behavior {
        None => {
            // int32(max(factor * float64(current), minimum)): exact for integer factors, and
            // in 64 bits (a product of two i32 cannot overflow an i64).
            let scale_up_limit = arith::clamp_i64_to_i32(
                i64::from(settings.legacy_scale_up_factor)
                    .wrapping_mul(i64::from(b.current))
                    .max(i64::from(settings.legacy_scale_up_minimum)),
            );
            // The legacy path limits scale-up only, whatever the direction.
            Some(RateLimit {
                scale_up: true,
                replicas: scale_up_limit,
                policy: None,
                period_start: b.current,
            })
        }
        Some(_) if stabilized == b.current => None,
        Some(behavior) => {
            // One direction of travel: its policies, never past `current` the other way.
            let up = stabilized > b.current;
            let rules = if up {
                &behavior.scale_up
            } else {
                &behavior.scale_down
            };
            let counting = Counting::of(settings);
            let p = policy_limit(history, rules, b.current, b.now, counting, up);
            overflowed |= p.overflowed;
            let limit = if up {
                p.limit.max(b.current)
            } else {
                p.limit.min(b.current)
            };
            Some(RateLimit {
                scale_up: up,
                replicas: limit,
                policy: p.policy,
                period_start: p.period_start,
            })
        }
    };
    let (replicas, limit) = match step {
        // The legacy path raises to minReplicas first, whatever the direction.
        _ if behavior.is_none() && stabilized < b.min => (b.min, Reason::TooFewReplicas),
        Some(RateLimit {
            scale_up: up,
            replicas: limit,
            ..
        }) => {
            // The bound in the direction of travel: the rate limit, or max/min when tighter.
            let (bound, reason) = if up {
                if b.max > limit {
                    (limit, Reason::ScaleUpLimit)
                } else {
                    (b.max, Reason::TooManyReplicas)
                }
            } else if b.min < limit {
                (limit, Reason::ScaleDownLimit)
            } else {
                (b.min, Reason::TooFewReplicas)
            };
            let beyond = if up {
                stabilized > bound
            } else {
                stabilized < bound
            };
            if beyond {
                (bound, reason)
            } else {
                (stabilized, Reason::DesiredWithinRange)
            }
        }
        None => (stabilized, Reason::DesiredWithinRange),
    };
    set_limited(conditions, replicas != stabilized, limit);
    Normalized {
        stabilized,
        replicas,
        limit,
        overflowed,
        detail: NormalizationDetail {
            stabilization_low: stab.low,
            stabilization_high: stab.high,
            // The legacy limit is reported when it applies: on the way up.
            rate_limit: step.filter(|_| behavior.is_some() || stabilized > b.current),
        },
    }
}

/// How the policy limits count: the arithmetic mode, and which events the period start counts.
#[derive(Clone, Copy)]
struct Counting {
    mode: Arithmetic,
    /// Only the direction's own events, as before Kubernetes 1.25
    /// (docs/spec/releases.md#period-start).
    #[cfg(feature = "older-controllers")]
    one_direction: bool,
}

impl Counting {
    /// The newest release's counting in `mode`.
    fn newest(mode: Arithmetic) -> Counting {
        Counting {
            mode,
            #[cfg(feature = "older-controllers")]
            one_direction: false,
        }
    }

    /// The counting of the settings' release.
    fn of(settings: &Settings) -> Counting {
        Counting {
            mode: settings.arithmetic,
            #[cfg(feature = "older-controllers")]
            one_direction: settings.controller.one_direction_period_start(),
        }
    }
}

/// Period-start replicas of one policy: `current − added + deleted` over its period.
fn period_start<const R: usize, const E: usize>(
    history: &History<R, E>,
    current: i32,
    period_seconds: i32,
    now: Instant,
    direction: Direction,
    counting: Counting,
) -> (i32, bool) {
    let changes = history.changes_in_period(
        now,
        Duration::from_secs(i64::from(period_seconds)),
        direction,
    );
    let (added, deleted) = (changes.added, changes.deleted);
    // Before 1.25: `current − added` up, `current + deleted` down.
    #[cfg(feature = "older-controllers")]
    let (added, deleted) = match (counting.one_direction, direction) {
        (false, _) => (added, deleted),
        (true, Direction::Up) => (added, 0),
        (true, Direction::Down) => (0, deleted),
    };
    // Without `older-controllers` only the mode, read by the caller.
    let _ = counting;
    (start_replicas(current, added, deleted), changes.overflowed)
}

/// `current − added + deleted`, saturated to i32. `added` and `deleted` are sums of replica
/// counts, in [0, i32::MAX]: their difference is exact in 32 bits, and one saturating addition
/// clamps the exact result (no 64-bit arithmetic, long on a Cortex-M0).
fn start_replicas(current: i32, added: i32, deleted: i32) -> i32 {
    current.saturating_add(deleted.wrapping_sub(added))
}

/// A policy limit and where it came from.
struct PolicyLimit {
    limit: i32,
    overflowed: bool,
    /// Index of the policy that set `limit` (`None` for `Disabled`).
    policy: Option<usize>,
    /// That policy's period-start replicas (`current` for `Disabled`).
    period_start: i32,
}

/// Both directions' policy limits (docs/spec/normalization.md#scale-up-limit when `up`,
/// docs/spec/normalization.md#scale-down-limit otherwise), remembering which policy gave the
/// result (the first one on ties, as the running min/max keeps it).
fn policy_limit<const R: usize, const E: usize>(
    history: &History<R, E>,
    rules: &ResolvedRules<'_>,
    current: i32,
    now: Instant,
    counting: Counting,
    up: bool,
) -> PolicyLimit {
    // `take_min`: the running result keeps the smaller proposal.
    let take_min = match (rules.select_policy, up) {
        (SelectPolicy::Disabled, _) => {
            return PolicyLimit {
                limit: current,
                overflowed: false,
                policy: None,
                period_start: current,
            }
        }
        (SelectPolicy::Min, true) | (SelectPolicy::Max, false) => true,
        (SelectPolicy::Max, true) | (SelectPolicy::Min, false) => false,
    };
    let mut out = PolicyLimit {
        limit: if take_min { i32::MAX } else { i32::MIN },
        overflowed: false,
        policy: None,
        period_start: current,
    };
    let direction = if up { Direction::Up } else { Direction::Down };
    for (i, policy) in rules.policies.iter().enumerate() {
        let (start, of) = period_start(
            history,
            current,
            policy.period_seconds,
            now,
            direction,
            counting,
        );
        out.overflowed |= of;
        let proposed = match (policy.type_, up) {
            (PolicyType::Pods, true) => start.saturating_add(policy.value),
            (PolicyType::Pods, false) => start.saturating_sub(policy.value),
            (PolicyType::Percent, up) => {
                arith::percent_change(counting.mode, start, policy.value, up)
            }
        };
        let better = if take_min {
            proposed < out.limit
        } else {
            proposed > out.limit
        };
        // The first policy always sets the limit (it may equal the starting bound).
        if better || out.policy.is_none() {
            out.limit = proposed;
            out.policy = Some(i);
            out.period_start = start;
        }
    }
    out
}

/// `calculateScaleUpLimitWithScalingRules` (docs/spec/normalization.md#scale-up-limit) of the newest
/// release; also says whether folded events were counted.
pub fn scale_up_limit<const R: usize, const E: usize>(
    history: &History<R, E>,
    rules: &ResolvedRules<'_>,
    current: i32,
    now: Instant,
    mode: Arithmetic,
) -> (i32, bool) {
    let l = policy_limit(history, rules, current, now, Counting::newest(mode), true);
    (l.limit, l.overflowed)
}

/// `calculateScaleDownLimitWithBehaviors` (docs/spec/normalization.md#scale-down-limit) of the
/// newest release.
pub fn scale_down_limit<const R: usize, const E: usize>(
    history: &History<R, E>,
    rules: &ResolvedRules<'_>,
    current: i32,
    now: Instant,
    mode: Arithmetic,
) -> (i32, bool) {
    let l = policy_limit(history, rules, current, now, Counting::newest(mode), false);
    (l.limit, l.overflowed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 32-bit period start against the exact 64-bit expression.
    #[test]
    #[allow(clippy::arithmetic_side_effects)]
    fn start_replicas_is_exact() {
        let counts = [0, 1, 2, 1000, i32::MAX / 2, i32::MAX - 1, i32::MAX];
        let currents = [i32::MIN, i32::MIN + 1, -5, 0, 3, i32::MAX - 1, i32::MAX];
        for current in currents {
            for added in counts {
                for deleted in counts {
                    let exact = i64::from(current) - i64::from(added) + i64::from(deleted);
                    assert_eq!(
                        start_replicas(current, added, deleted),
                        arith::clamp_i32(i128::from(exact)),
                        "{current} {added} {deleted}"
                    );
                }
            }
        }
    }
}
