//! Reading the conformance vectors (`tests/conformance/*.json`) into the engine's inputs: the
//! JSON accessors and the mappings of metric specs, pod phases, condition statuses and
//! selectors. Shared by `tests/conformance.rs` and the firmware's `build.rs` (which encodes the
//! same cases for the target), so that both evaluate the same inputs.
#![allow(dead_code)]

use std::fmt::Write as _;

use hpa::input::{ConditionStatus, ContainerUsage, PodPhase};
use hpa::quantity::Quantity;
use hpa::spec::{CrossVersionObjectReference, MetricIdentifier, MetricSpec, MetricTarget};
use hpa::time::Instant;
use serde_json::{Map, Value};

/// A mapping result: the error names the field.
pub type R<T> = Result<T, String>;

pub fn at(s: i64) -> Instant {
    Instant(s.saturating_mul(1000))
}

pub fn condition_status(v: &Value) -> R<ConditionStatus> {
    match v {
        Value::Bool(true) => Ok(ConditionStatus::True),
        Value::Bool(false) => Ok(ConditionStatus::False),
        Value::String(s) => match s.as_str() {
            "True" => Ok(ConditionStatus::True),
            "False" => Ok(ConditionStatus::False),
            "Unknown" => Ok(ConditionStatus::Unknown),
            other => Err(format!("unknown condition status {other:?}")),
        },
        other => Err(format!("unknown condition status {other}")),
    }
}

pub fn list(v: &'static Value, key: &str) -> R<&'static [Value]> {
    get(v, key)?
        .as_array()
        .map(Vec::as_slice)
        .ok_or_else(|| format!("`{key}` is not a list"))
}

pub fn obj(v: &'static Value, key: &str) -> R<&'static Map<String, Value>> {
    get(v, key)?
        .as_object()
        .ok_or_else(|| format!("`{key}` is not an object"))
}

pub fn opt_text(v: &'static Value, key: &str) -> R<Option<&'static str>> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(x) => x
            .as_str()
            .map(Some)
            .ok_or_else(|| format!("`{key}` is not a string")),
    }
}

pub fn leak<T>(v: Vec<T>) -> &'static [T] {
    Box::leak(v.into_boxed_slice())
}

pub fn leak_str(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

pub fn get<'v>(v: &'v Value, key: &str) -> R<&'v Value> {
    v.get(key).ok_or_else(|| format!("missing field `{key}`"))
}

pub fn text(v: &'static Value, key: &str) -> R<&'static str> {
    get(v, key)?
        .as_str()
        .ok_or_else(|| format!("`{key}` is not a string"))
}

pub fn int(v: &Value, key: &str) -> R<i64> {
    int_value(get(v, key)?, key)
}

pub fn int_value(x: &Value, what: &str) -> R<i64> {
    x.as_i64()
        .ok_or_else(|| format!("`{what}` is not an exact integer: {x}"))
}

pub fn opt_int(v: &Value, key: &str) -> R<Option<i64>> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(x) => int_value(x, key).map(Some),
    }
}

pub fn opt_obj(v: &'static Value, key: &str) -> R<Option<&'static Map<String, Value>>> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(x) => x
            .as_object()
            .map(Some)
            .ok_or_else(|| format!("`{key}` is not an object")),
    }
}

pub fn usages(m: &'static Map<String, Value>) -> R<&'static [ContainerUsage<'static>]> {
    let mut out = Vec::new();
    for (k, v) in m {
        out.push(ContainerUsage {
            name: k.as_str(),
            milli: int_value(v, k)?,
        });
    }
    Ok(leak(out))
}

pub fn to_i32(x: i64, what: &str) -> R<i32> {
    i32::try_from(x).map_err(|_| format!("`{what}` = {x} does not fit an int32"))
}

pub fn int32(v: &Value, key: &str) -> R<i32> {
    to_i32(int(v, key)?, key)
}

pub fn opt_int32(v: &Value, key: &str) -> R<Option<i32>> {
    opt_int(v, key)?.map(|x| to_i32(x, key)).transpose()
}

pub fn phase(p: Option<&str>) -> R<PodPhase> {
    Ok(match p {
        Some("Running") => PodPhase::Running,
        Some("Pending") => PodPhase::Pending,
        Some("Succeeded") => PodPhase::Succeeded,
        Some("Failed") => PodPhase::Failed,
        // Go's empty phase is none of Pending/Failed, like Unknown.
        Some("Unknown") | Some("") | None => PodPhase::Unknown,
        Some(other) => return Err(format!("unknown pod phase {other:?}")),
    })
}

/// The rendering of a metric label selector used in upstream's messages (Go's `%+v` of a
/// `*metav1.LabelSelector`). The engine only prints it; no case compares it.
pub fn selector_text(sel: Option<&'static Value>) -> R<Option<&'static str>> {
    let Some(sel) = sel.filter(|s| !s.is_null()) else {
        return Ok(None);
    };
    let mut labels = String::new();
    if let Some(m) = sel.get("matchLabels").or_else(|| sel.get("match_labels")) {
        let m = m.as_object().ok_or("matchLabels is not an object")?;
        let mut pairs: Vec<(&String, &Value)> = m.iter().collect();
        pairs.sort_by(|a, b| a.0.cmp(b.0));
        for (k, v) in pairs {
            let _ = write!(labels, "{k}: {},", v.as_str().unwrap_or_default());
        }
    }
    Ok(Some(leak_str(format!(
        "&LabelSelector{{MatchLabels:map[string]string{{{labels}}},MatchExpressions:[]LabelSelectorRequirement{{}},}}"
    ))))
}

pub fn calc_metric_spec(m: &'static Value) -> R<&'static MetricSpec<'static>> {
    let source = text(m, "source")?;
    let name = text(m, "name")?;
    let t = get(m, "target")?;
    let target = match text(t, "type")? {
        "Utilization" => MetricTarget::utilization(int32(t, "utilization_percent")?),
        "AverageValue" => MetricTarget::average_value(Quantity::from_milli(int(t, "value_milli")?)),
        "Value" => MetricTarget::value(Quantity::from_milli(int(t, "value_milli")?)),
        other => return Err(format!("unknown target type {other:?}")),
    };
    let ident = MetricIdentifier {
        name,
        selector: selector_text(m.get("selector"))?,
        selector_invalid: false,
    };
    let spec = match source {
        "Resource" => MetricSpec::resource(name, target),
        "ContainerResource" => MetricSpec::container_resource(name, text(m, "container")?, target),
        "Pods" => MetricSpec::pods(ident, target),
        "Object" => {
            let d = get(m, "described_object")?;
            MetricSpec::object(
                CrossVersionObjectReference {
                    kind: text(d, "kind")?,
                    name: text(d, "name")?,
                    api_version: text(d, "api_version")?,
                },
                ident,
                target,
            )
        }
        "External" => MetricSpec::external(ident, target),
        other => return Err(format!("unknown metric source {other:?}")),
    };
    Ok(Box::leak(Box::new(spec)))
}
