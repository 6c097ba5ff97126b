//! normalization.json: the unit families (stabilization, rate limits, scale events, API
//! defaulting of behaviors, quantities).

use hpa::conditions::Conditions;
use hpa::defaults::{
    resolve_behavior, Hpa, ResolvedBehavior, ResolvedRules, DEFAULT_SCALE_DOWN_POLICIES,
    DEFAULT_SCALE_UP_POLICIES,
};
use hpa::history::Direction;
use hpa::input::{MetricValues, Observation};
use hpa::normalize::{self, Bounds, Normalized};
use hpa::quantity::{build_quantity_milli, Format};
use hpa::settings::{Arithmetic, Settings};
use hpa::spec::{Behavior, HpaSpec, PolicyType, ScalingPolicy, SelectPolicy};
use hpa::time::Instant;
use hpa::Autoscaler;
use serde_json::Value;
use testkit::conformance::*;

use crate::rules::*;
use crate::{opt_list, secs, whole, Diff, Hist, Outcome};

fn behavior_with_windows(up: i32, down: i32) -> ResolvedBehavior<'static> {
    ResolvedBehavior {
        scale_up: ResolvedRules {
            stabilization_window_seconds: Some(up),
            select_policy: SelectPolicy::Max,
            policies: &DEFAULT_SCALE_UP_POLICIES,
            tolerance: None,
        },
        scale_down: ResolvedRules {
            stabilization_window_seconds: Some(down),
            select_policy: SelectPolicy::Max,
            policies: &DEFAULT_SCALE_DOWN_POLICIES,
            tolerance: None,
        },
    }
}

/// `stabilizeRecommendationWithBehaviors` through `normalize::with_behavior` (its stabilized
/// value; the rate limits that follow in that function are not part of upstream's function).
///
/// `recommendations_after`: upstream overwrites the last entry older than BOTH windows in
/// place (or appends), while the engine appends and drops only entries that no window can
/// reach any more (older than 3600 s). So the lists are compared as the multiset of entries
/// that are not older than both windows, which includes the new `(desired, now)` entry; the
/// old entries upstream keeps are never looked at again by either.
pub fn run_stabilize_with_behaviors(c: &'static Value) -> R<Outcome> {
    let i = get(c, "inputs")?;
    let recs = timed(list(i, "recommendations")?, "replicas")?;
    let up = int32(i, "scale_up_stabilization_window_s")?;
    let down = int32(i, "scale_down_stabilization_window_s")?;
    let current = int32(i, "current_replicas")?;
    let desired = int32(i, "desired_replicas")?;
    let now = Instant(0);
    let mut h = Hist::new();
    loaded(h.load(true, &recs, &[], &[]))?;
    let mut conditions = Conditions::new();
    let n = normalize::with_behavior(
        &mut h,
        &Settings::DEFAULT,
        &behavior_with_windows(up, down),
        &mut conditions,
        Bounds {
            current,
            min: 0,
            max: i32::MAX,
            now,
        },
        desired,
    );
    let e = get(c, "expect")?;
    let mut diff = Diff::default();
    diff.eq("recommendation", int32(e, "recommendation")?, n.stabilized);
    if let Some(after) = opt_list(e, "recommendations_after")? {
        let old = |t: Instant| {
            t.is_before_cutoff(now, secs(i64::from(up)))
                && t.is_before_cutoff(now, secs(i64::from(down)))
        };
        let mut want: Vec<(i32, Instant)> = timed(after, "replicas")?
            .into_iter()
            .filter(|&(_, t)| !old(t))
            .collect();
        let mut have: Vec<(i32, Instant)> = h.recommendations().filter(|&(_, t)| !old(t)).collect();
        want.sort_unstable();
        have.sort_unstable();
        diff.eq("recommendations not older than both windows", want, have);
    }
    diff.outcome()
}

/// `stabilizeRecommendation` (legacy) through `normalize::legacy`.
///
/// `recommendations_len_after`: upstream overwrites the last entry older than the window in
/// place, the engine appends and keeps old entries until its 3600 s retention. Upstream's
/// length is `in-window entries + new entry + (old entries − 1 reused slot)`; the engine's
/// in-window count after the call must equal that length minus the old entries upstream
/// keeps, `max(old − 1, 0)` (with no old entry this is the plain length).
pub fn run_normalize_legacy(c: &'static Value) -> R<Outcome> {
    let i = get(c, "inputs")?;
    let recs = timed(list(i, "recommendations")?, "replicas")?;
    let window = secs(int(i, "downscale_stabilization_window_s")?);
    let desired = int32(i, "desired_replicas")?;
    let now = Instant(0);
    let mut h = Hist::new();
    loaded(h.load(true, &recs, &[], &[]))?;
    let settings = Settings {
        downscale_stabilization_window: window,
        ..Settings::DEFAULT
    };
    let mut conditions = Conditions::new();
    let n = normalize::legacy(
        &mut h,
        &settings,
        &mut conditions,
        Bounds {
            current: desired,
            min: 0,
            max: i32::MAX,
            now,
        },
        desired,
    );
    let e = get(c, "expect")?;
    let mut diff = Diff::default();
    diff.eq("recommendation", int32(e, "recommendation")?, n.stabilized);
    let old_before = recs
        .iter()
        .filter(|&&(_, t)| t.is_before_cutoff(now, window))
        .count();
    let kept_old = old_before.saturating_sub(1);
    let len_after =
        usize::try_from(int(e, "recommendations_len_after")?).map_err(|e| e.to_string())?;
    let in_window_after = h
        .recommendations()
        .filter(|&(_, t)| !t.is_before_cutoff(now, window))
        .count();
    diff.eq(
        "recommendations after (in window; upstream length minus the old slots it keeps)",
        len_after.saturating_sub(kept_old),
        in_window_after,
    );
    diff.outcome()
}

/// `convertDesiredReplicasWithBehaviorRate` through `normalize::with_behavior`: the case's
/// defaulted rules with both stabilization windows set to 0 and an empty recommendation
/// history, so stabilization returns the desired count unchanged and only the rate limits and
/// min/max decide; the past scale events are loaded into the history. Also checks that API
/// defaulting of the rules as written gives the defaulted rules of the vector.
pub fn run_scaling_with_rules(c: &'static Value) -> R<Outcome> {
    let i = get(c, "inputs")?;
    let mut up = resolved_rules(get(i, "scale_up_rules")?)?;
    let mut down = resolved_rules(get(i, "scale_down_rules")?)?;
    let mut diff = Diff::default();
    let specified = Behavior {
        scale_up: match i.get("scale_up_rules_specified") {
            Some(v) if !v.is_null() => Some(scaling_rules(v)?),
            _ => None,
        },
        scale_down: match i.get("scale_down_rules_specified") {
            Some(v) if !v.is_null() => Some(scaling_rules(v)?),
            _ => None,
        },
    };
    diff.eq(
        "API defaulting of the rules as written",
        ResolvedBehavior {
            scale_up: up,
            scale_down: down,
        },
        resolve_behavior(&specified),
    );
    up.stabilization_window_seconds = Some(0);
    down.stabilization_window_seconds = Some(0);
    let behavior = ResolvedBehavior {
        scale_up: up,
        scale_down: down,
    };
    let mut h = Hist::new();
    loaded(h.load(
        true,
        &[],
        &event_list(list(i, "scale_up_events")?)?,
        &event_list(list(i, "scale_down_events")?)?,
    ))?;
    let mut conditions = Conditions::new();
    let n = normalize::with_behavior(
        &mut h,
        &Settings::DEFAULT,
        &behavior,
        &mut conditions,
        bounds(i)?,
        int32(i, "desired_replicas")?,
    );
    replicas_and_reason(c, &n, diff)
}

pub fn run_scale_limits(c: &'static Value) -> R<Outcome> {
    let i = get(c, "inputs")?;
    let rules = resolved_rules(get(i, "rules")?)?;
    let mut h = Hist::new();
    loaded(h.load(
        true,
        &[],
        &event_list(list(i, "scale_up_events")?)?,
        &event_list(list(i, "scale_down_events")?)?,
    ))?;
    let current = int32(i, "current_replicas")?;
    let now = Instant(0);
    let (limit, _) = match text(i, "direction")? {
        "up" => normalize::scale_up_limit(&h, &rules, current, now, Arithmetic::Kubernetes),
        "down" => normalize::scale_down_limit(&h, &rules, current, now, Arithmetic::Kubernetes),
        other => return Err(format!("unknown direction {other:?}")),
    };
    let mut diff = Diff::default();
    diff.eq("limit", int32(get(c, "expect")?, "limit")?, limit);
    diff.outcome()
}

/// `getReplicasChangePerPeriod` then `storeScaleEvent`, for both directions, through the
/// public API: the previous events are loaded into an HPA's history; the change in the period
/// is read as the period-start replicas of a `Pods 0 per period` policy
/// (`current − added + deleted`); the event is stored by a real rescale (an HPA whose min/max
/// force `prev → new`, reported with `rescale_succeeded`).
///
/// `events_after`: upstream's list after storing, slot by slot: each slot's change and
/// outdated flag (docs/spec/history.md#scale-events: the events before `now - longest period`
/// become outdated and the last outdated slot is overwritten, or the event is appended).
pub fn run_store_scale_events(c: &'static Value) -> R<Outcome> {
    let i = get(c, "inputs")?;
    let e = get(c, "expect")?;
    let previous = event_list(list(i, "previous_events")?)?;
    let query_period = int32(i, "period_s_for_change_query")?;
    let mut want_after = Vec::new();
    for ev in list(e, "events_after")? {
        want_after.push(Some((int32(ev, "replica_change")?, flag(ev, "outdated")?)));
    }
    let want_change = int32(e, "replicas_change_in_period_before")?;
    let now = Instant(0);
    let mut diff = Diff::default();

    for (call_key, up) in [("scale_up_call", true), ("scale_down_call", false)] {
        let call = get(i, call_key)?;
        let prev = int32(call, "prev_replicas")?;
        let new = int32(call, "new_replicas")?;
        let label = if up { "scale-up" } else { "scale-down" };
        let mut a: Autoscaler = Autoscaler::new();
        let (ups, downs) = if up {
            (&previous[..], &[][..])
        } else {
            (&[][..], &previous[..])
        };
        loaded(a.load_history(true, &[], ups, downs))?;

        // Change in the period, before storing.
        let probe = ResolvedRules {
            stabilization_window_seconds: Some(0),
            select_policy: SelectPolicy::Max,
            policies: leak(vec![ScalingPolicy {
                type_: PolicyType::Pods,
                value: 0,
                period_seconds: query_period,
            }]),
            tolerance: None,
        };
        let change = if up {
            let (start, _) =
                normalize::scale_up_limit(a.history(), &probe, prev, now, Arithmetic::Kubernetes);
            prev - start
        } else {
            let (start, _) =
                normalize::scale_down_limit(a.history(), &probe, prev, now, Arithmetic::Kubernetes);
            start - prev
        };
        diff.eq(
            &format!("{label}: replicas_change_in_period_before"),
            want_change,
            change,
        );

        // Store through a rescale `prev -> new`.
        let behavior = match get(call, "behavior")? {
            Value::Null => None,
            b => Some(behavior_specified(b)?),
        };
        let (min, max) = if up { (new, new) } else { (1, new) };
        let spec = HpaSpec {
            min_replicas: Some(min),
            max_replicas: max,
            metrics: &[],
            behavior,
            scale_target_ref: None,
        };
        let hpa = Hpa::new(&spec, &Settings::DEFAULT).map_err(|e| e.to_string())?;
        let obs = Observation {
            now,
            replicas: prev,
            status_replicas: prev,
            pods: &[],
            metrics: &[MetricValues::Error("not read: replicas outside [min, max]")],
        };
        let d = a
            .evaluate(&hpa, &Settings::DEFAULT, &obs)
            .map_err(|e| e.to_string())?;
        diff.eq(
            &format!("{label}: rescale to"),
            Some(new),
            d.rescale.then_some(d.desired_replicas),
        );
        a.rescale_succeeded();
        let direction = if up { Direction::Up } else { Direction::Down };
        let have: Vec<Option<(i32, bool)>> = a
            .history()
            .scale_event_list(direction)
            .map(|e| e.map(|e| (e.change, e.outdated)))
            .collect();
        diff.eq(
            &format!("{label}: the list after storing (change, outdated)"),
            want_after.clone(),
            have,
        );
    }
    diff.outcome()
}

/// `convertDesiredReplicasWithRules` (legacy limits) through `normalize::legacy` with an
/// empty history (so the stabilized value is the desired count) and the case's factor/minimum.
pub fn run_convert_with_rules(c: &'static Value) -> R<Outcome> {
    let i = get(c, "inputs")?;
    let settings = Settings {
        legacy_scale_up_factor: whole(i, "scale_up_limit_factor")?,
        legacy_scale_up_minimum: whole(i, "scale_up_limit_minimum")?,
        ..Settings::DEFAULT
    };
    let mut h = Hist::new();
    loaded(h.load(true, &[], &[], &[]))?;
    let mut conditions = Conditions::new();
    let n = normalize::legacy(
        &mut h,
        &settings,
        &mut conditions,
        bounds(i)?,
        int32(i, "desired_replicas")?,
    );
    replicas_and_reason(c, &n, Diff::default())
}

/// A case's `current_replicas`, `min_replicas` and `max_replicas`, at time 0.
fn bounds(i: &Value) -> R<Bounds> {
    Ok(Bounds {
        current: int32(i, "current_replicas")?,
        min: int32(i, "min_replicas")?,
        max: int32(i, "max_replicas")?,
        now: Instant(0),
    })
}

/// Compares the normalized count and its limit with the case's `replicas` and `reason`.
fn replicas_and_reason(c: &'static Value, n: &Normalized, mut diff: Diff) -> R<Outcome> {
    let e = get(c, "expect")?;
    diff.eq("replicas", int32(e, "replicas")?, n.replicas);
    diff.eq("reason", text(e, "reason")?, n.limit.as_str());
    diff.outcome()
}

pub fn run_behavior_defaulting(c: &'static Value) -> R<Outcome> {
    let i = get(c, "inputs")?;
    let rules = scaling_rules(get(i, "rules_specified")?)?;
    let up = match text(i, "direction")? {
        "up" => true,
        "down" => false,
        other => return Err(format!("unknown direction {other:?}")),
    };
    let b = resolve_behavior(&if up {
        Behavior {
            scale_up: Some(rules),
            scale_down: None,
        }
    } else {
        Behavior {
            scale_up: None,
            scale_down: Some(rules),
        }
    });
    let got = if up { b.scale_up } else { b.scale_down };
    let e = get(c, "expect")?;
    let mut diff = Diff::default();
    diff.eq("policies", policies(list(e, "policies")?)?, got.policies);
    diff.eq(
        "stabilization_window_s",
        opt_int32(e, "stabilization_window_s")?,
        got.stabilization_window_seconds,
    );
    diff.eq(
        "select_policy",
        select_policy(text(e, "select_policy")?)?,
        got.select_policy,
    );
    diff.eq("tolerance", None, got.tolerance);
    diff.outcome()
}

pub fn run_build_quantity(c: &'static Value) -> R<Outcome> {
    let i = get(c, "inputs")?;
    let format = if text(i, "resource_name")? == "memory" {
        Format::BinarySI
    } else {
        Format::DecimalSI
    };
    let q = build_quantity_milli(int(i, "raw_proposal_milli")?, format);
    let e = get(c, "expect")?;
    let mut diff = Diff::default();
    diff.eq("value_milli", int(e, "value_milli")?, q.milli_value());
    diff.eq("format", text(e, "format")?, q.format().as_str());
    diff.outcome()
}
