//! Behaviors, policies and histories as the vectors spell them, shared by the unit families
//! and the controller scenarios of normalization.json.

use hpa::defaults::{ResolvedBehavior, ResolvedRules};
use hpa::history::{LoadError, ScaleEvent};
use hpa::quantity::Quantity;
use hpa::spec::{Behavior, PolicyType, ScalingPolicy, ScalingRules, SelectPolicy};
use hpa::time::Instant;
use hpa::Tolerance;
use serde_json::Value;
use testkit::conformance::*;

use crate::opt_list;

pub fn select_policy(s: &str) -> R<SelectPolicy> {
    match s {
        "Max" => Ok(SelectPolicy::Max),
        "Min" => Ok(SelectPolicy::Min),
        "Disabled" => Ok(SelectPolicy::Disabled),
        other => Err(format!("unknown selectPolicy {other:?}")),
    }
}

pub fn policies(list: &'static [Value]) -> R<&'static [ScalingPolicy]> {
    let mut out = Vec::new();
    for p in list {
        out.push(ScalingPolicy {
            type_: match text(p, "type")? {
                "Pods" => PolicyType::Pods,
                "Percent" => PolicyType::Percent,
                other => return Err(format!("unknown policy type {other:?}")),
            },
            value: int32(p, "value")?,
            period_seconds: int32(p, "period_s")?,
        });
    }
    Ok(leak(out))
}

fn behavior_tolerance(milli: Option<i64>) -> R<Option<Tolerance>> {
    milli
        .map(|m| {
            Tolerance::from_quantity(&Quantity::from_milli(m))
                .ok_or_else(|| format!("tolerance {m}m is not a valid tolerance"))
        })
        .transpose()
}

/// Rules as the user wrote them (`*_specified`: null fields unset).
pub fn scaling_rules(v: &'static Value) -> R<ScalingRules<'static>> {
    Ok(ScalingRules {
        stabilization_window_seconds: opt_int32(v, "stabilization_window_s")?,
        select_policy: opt_text(v, "select_policy")?
            .map(select_policy)
            .transpose()?,
        policies: opt_list(v, "policies")?.map(policies).transpose()?,
        tolerance: opt_int(v, "tolerance_milli")?.map(Quantity::from_milli),
    })
}

/// Rules after API defaulting, as the vectors spell them.
pub fn resolved_rules(v: &'static Value) -> R<ResolvedRules<'static>> {
    Ok(ResolvedRules {
        stabilization_window_seconds: opt_int32(v, "stabilization_window_s")?,
        select_policy: select_policy(text(v, "select_policy")?)?,
        policies: policies(list(v, "policies")?)?,
        tolerance: behavior_tolerance(opt_int(v, "tolerance_milli")?)?,
    })
}

pub fn resolved_behavior(v: &'static Value) -> R<ResolvedBehavior<'static>> {
    Ok(ResolvedBehavior {
        scale_up: resolved_rules(get(v, "scale_up")?)?,
        scale_down: resolved_rules(get(v, "scale_down")?)?,
    })
}

pub fn behavior_specified(v: &'static Value) -> R<Behavior<'static>> {
    let dir = |k: &str| -> R<Option<ScalingRules<'static>>> {
        match v.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(r) => scaling_rules(r).map(Some),
        }
    };
    Ok(Behavior {
        scale_up: dir("scale_up")?,
        scale_down: dir("scale_down")?,
    })
}

/// `[{replicas|replica_change, timestamp_s}]` as `(value, instant)` in time order (stable):
/// upstream's lists are in slot order, which its slot reuse scrambles; only values and
/// timestamps decide anything, and `History::load` wants time order.
pub fn timed(list: &'static [Value], value_key: &str) -> R<Vec<(i32, Instant)>> {
    let mut out = Vec::new();
    for e in list {
        out.push((int32(e, value_key)?, at(int(e, "timestamp_s")?)));
    }
    out.sort_by_key(|&(_, t)| t);
    Ok(out)
}

/// One of upstream's scale-event lists, slot by slot (`outdated` defaults to false).
pub fn event_list(list: &'static [Value]) -> R<Vec<Option<ScaleEvent>>> {
    let mut out = Vec::new();
    for e in list {
        out.push(Some(ScaleEvent {
            change: int32(e, "replica_change")?,
            at: at(int(e, "timestamp_s")?),
            outdated: match e.get("outdated") {
                Some(_) => flag(e, "outdated")?,
                None => false,
            },
        }));
    }
    Ok(out)
}

/// A loaded history, which must be one upstream can have.
pub fn loaded(result: Result<(), LoadError>) -> R<()> {
    result.map_err(|e| format!("history: {e}"))
}
