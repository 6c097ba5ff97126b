//! Reading the conformance vectors (`tests/conformance/*.json`) into the engine's inputs: the
//! JSON accessors, the mappings of metric specs, pod phases, condition statuses and
//! selectors, and the replica calculator cases whole ([`CalcCase`], [`GroupPodsCase`],
//! [`RequestsCase`]). Shared by `tests/conformance.rs` and the firmware's `build.rs` (which
//! encodes the same cases for the target), so that both evaluate the same inputs.
//!
//! Vectors are leaked (`Box::leak`, see [`load`]) so that the engine's borrowed views can
//! point into them for the whole run: a few megabytes, once.

use std::fmt::Write as _;
use std::path::Path;

use hpa::input::{ConditionStatus, Container, ContainerKind, ContainerUsage, Pod, PodPhase};
use hpa::input::{ReadyCondition, ResourceRequest, Sample};
use hpa::quantity::Quantity;
use hpa::spec::{CrossVersionObjectReference, MetricIdentifier, MetricSpec, MetricTarget};
use hpa::time::{Duration, Instant};
use hpa::Tolerance;
use serde_json::{Map, Value};

mod cases;
pub use cases::{
    CalcCase, CalcExpect, GroupPodsCase, GroupPodsExpect, RequestsCase, RequestsExpect,
};

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

/// A replica_calc target. A `type` of null (or no target at all) is a target without a type,
/// as upstream's tests may build (the API would reject it): its value fields are read as set,
/// `utilization_percent`, `average_value_milli` and `value_milli`.
pub fn calc_target(t: Option<&'static Value>) -> R<MetricTarget> {
    let Some(t) = t.filter(|t| !t.is_null()) else {
        return Ok(typeless_target(None, None, None));
    };
    Ok(match opt_text(t, "type")? {
        Some("Utilization") => MetricTarget::utilization(int32(t, "utilization_percent")?),
        Some("AverageValue") => {
            MetricTarget::average_value(Quantity::from_milli(int(t, "value_milli")?))
        }
        Some("Value") => MetricTarget::value(Quantity::from_milli(int(t, "value_milli")?)),
        Some(other) => return Err(format!("unknown target type {other:?}")),
        None => typeless_target(
            opt_int(t, "value_milli")?,
            opt_int(t, "average_value_milli")?,
            opt_int32(t, "utilization_percent")?,
        ),
    })
}

/// A target whose `type` is unset, with the value fields as given (milli-units, percent).
pub fn typeless_target(
    value: Option<i64>,
    average_value: Option<i64>,
    average_utilization: Option<i32>,
) -> MetricTarget {
    MetricTarget {
        type_: None,
        value: value.map(Quantity::from_milli),
        average_value: average_value.map(Quantity::from_milli),
        average_utilization,
    }
}

pub fn calc_metric_spec(m: &'static Value) -> R<&'static MetricSpec<'static>> {
    let source = text(m, "source")?;
    let name = text(m, "name")?;
    let target = calc_target(m.get("target"))?;
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

/// A JSON number as an exact decimal `mantissa × 10^exp`, from its text (`0.34`, `2.0`, `8`,
/// `1e-7`): serde_json prints a float as the shortest text that reads back to the same
/// double, which is the decimal written in the file.
pub fn decimal(x: &Value, what: &str) -> R<(i128, i32)> {
    if !x.is_number() {
        return Err(format!("`{what}` is not a number: {x}"));
    }
    let s = x.to_string();
    let bad = || format!("`{what}` = {s} is not a plain decimal");
    let (num, exp) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], s[i + 1..].parse::<i32>().map_err(|_| bad())?),
        None => (s.as_str(), 0),
    };
    let (neg, num) = match num.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, num),
    };
    let (int_part, frac) = num.split_once('.').unwrap_or((num, ""));
    let digits = format!("{int_part}{frac}");
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let mut mantissa: i128 = digits.parse().map_err(|_| bad())?;
    let frac_len = i32::try_from(frac.len()).map_err(|_| bad())?;
    let mut exp = exp.checked_sub(frac_len).ok_or_else(bad)?;
    while mantissa != 0 && mantissa % 10 == 0 {
        mantissa /= 10;
        exp += 1;
    }
    if mantissa == 0 {
        exp = 0;
    }
    Ok((if neg { -mantissa } else { mantissa }, exp))
}

/// A tolerance flag value (`0.1`, `0.34`, `2.0`): the decimal, read as Go's flag parsing does.
pub fn tolerance(x: &Value, what: &str) -> R<Tolerance> {
    let (m, e) = decimal(x, what)?;
    let m = u64::try_from(m).map_err(|_| format!("`{what}` is negative"))?;
    Tolerance::from_decimal(m, e).ok_or_else(|| format!("`{what}` is out of range"))
}

/// Containers `container1`/`container2` (the harnesses' fixed pair, plus any other name the
/// request map lists), each requesting `resource` as given (absent: no request).
pub fn fixed_containers(
    requests: &'static Map<String, Value>,
    resource: &'static str,
) -> R<&'static [Container<'static>]> {
    let mut names: Vec<&'static str> = vec!["container1", "container2"];
    for k in requests.keys() {
        if !names.contains(&k.as_str()) {
            names.push(k.as_str());
        }
    }
    let mut out = Vec::new();
    for name in names {
        let reqs: &'static [ResourceRequest<'static>] = match requests.get(name) {
            Some(v) => leak(vec![ResourceRequest {
                resource,
                quantity: Quantity::from_milli(int_value(v, name)?),
            }]),
            None => &[],
        };
        out.push(Container {
            name,
            kind: ContainerKind::Regular,
            requests: reqs,
        });
    }
    Ok(leak(out))
}

/// One pod's sample for the case's metric, `None` when the pod has none. Resource and Pods
/// read `metric_milli` (null: no sample). ContainerResource reads the pod's entry in the
/// resource metrics API, `container_metrics_milli` (null or `{}`: no entry, no sample): an
/// entry is passed whole and the engine looks the named container up in it, so an entry
/// without that container is a pod without a sample, as upstream's since PR #127193, while
/// the API still counts as having answered. Without a `container_metrics_milli` entry, a
/// `metric_milli` is the named container's usage. `metric_timestamp_s` and `metric_window_s`
/// are needed only when the sample has a value for the metric.
pub fn calc_sample(
    p: &'static Value,
    source: &str,
    container: Option<&'static str>,
) -> R<Option<Sample<'static>>> {
    let mut containers = match opt_obj(p, "container_metrics_milli")? {
        Some(m) => usages(m)?,
        None => &[],
    };
    let milli = opt_int(p, "metric_milli")?;
    let value = match (source, container) {
        ("ContainerResource", Some(name)) => {
            if let (true, Some(v)) = (containers.is_empty(), milli) {
                containers = leak(vec![ContainerUsage { name, milli: v }]);
            }
            containers.iter().find(|u| u.name == name).map(|u| u.milli)
        }
        ("ContainerResource", None) => {
            return Err("a ContainerResource metric names no container".into())
        }
        _ => milli,
    };
    let entry = source == "ContainerResource" && !containers.is_empty();
    if value.is_none() && !entry {
        return Ok(None);
    }
    let times = ("metric_timestamp_s", "metric_window_s");
    entry_sample(p, value, times, containers).map(Some)
}

/// A metrics API entry's sample: `value` (`None`: an entry without the metric's container),
/// taken at the entry's `times` (timestamp and window keys, seconds). An entry without a
/// value may have null times: the engine never reads them.
pub fn entry_sample(
    e: &'static Value,
    value: Option<i64>,
    (timestamp_key, window_key): (&str, &str),
    containers: &'static [ContainerUsage<'static>],
) -> R<Sample<'static>> {
    let (timestamp, window) = match value {
        Some(_) => (int(e, timestamp_key)?, int(e, window_key)?),
        None => (
            opt_int(e, timestamp_key)?.unwrap_or(0),
            opt_int(e, window_key)?.unwrap_or(60),
        ),
    };
    Ok(Sample {
        milli: value.unwrap_or(0),
        timestamp: at(timestamp),
        window: Duration::from_secs(window),
        containers,
    })
}

/// A replica_calc case's pods (with the harness's two containers requesting `resource`), each
/// pod's sample and the orphan samples (`extra_pod_metrics`), for a metric of `source`
/// (naming `container` for ContainerResource).
#[allow(clippy::type_complexity)]
pub fn calc_pods(
    c: &'static Value,
    source: &str,
    resource: &'static str,
    container: Option<&'static str>,
) -> R<(
    Vec<Pod<'static>>,
    Vec<Option<Sample<'static>>>,
    Vec<Sample<'static>>,
)> {
    let mut pods = Vec::new();
    let mut per_pod = Vec::new();
    for p in list(c, "pods")? {
        pods.push(Pod {
            name: text(p, "name")?,
            phase: phase(opt_text(p, "phase")?)?,
            ready: Some(ReadyCondition {
                status: condition_status(get(p, "ready")?)?,
                last_transition: opt_int(p, "ready_transition_time_s")?.map(at),
            }),
            start_time: opt_int(p, "start_time_s")?.map(at),
            deleted: get(p, "deleted")?
                .as_bool()
                .ok_or("`deleted` is not a boolean")?,
            containers: fixed_containers(obj(p, "requests_milli")?, resource)?,
            requests: None,
        });
        per_pod.push(calc_sample(p, source, container)?);
    }
    let mut orphans = Vec::new();
    for e in list(c, "extra_pod_metrics")? {
        orphans.extend(calc_sample(e, source, container)?);
    }
    Ok((pods, per_pod, orphans))
}

/// A group_pods case's sample for pod `name`: its entry in `metrics`, `None` when there is
/// none or its value is null.
pub fn group_sample(metrics: &Map<String, Value>, name: &str) -> R<Option<Sample<'static>>> {
    let Some(s) = metrics.get(name).filter(|s| !s.is_null()) else {
        return Ok(None);
    };
    let Some(value) = opt_int(s, "value_milli")? else {
        return Ok(None);
    };
    Ok(Some(Sample {
        milli: value,
        timestamp: at(int(s, "timestamp_s")?),
        window: Duration::from_secs(int(s, "window_s")?),
        containers: &[],
    }))
}

/// A vector file, leaked for the rest of the run.
pub fn load(path: &Path) -> R<&'static Value> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let v: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not valid JSON: {e}", path.display()))?;
    Ok(Box::leak(Box::new(v)))
}

/// Whether `key` is absent or null.
pub fn is_null(v: &Value, key: &str) -> bool {
    v.get(key).is_none_or(Value::is_null)
}

pub fn flag(v: &Value, key: &str) -> R<bool> {
    get(v, key)?
        .as_bool()
        .ok_or_else(|| format!("`{key}` is not a boolean"))
}

/// A `{resource: milli}` map as requests.
pub fn request_list(m: &'static Map<String, Value>) -> R<&'static [ResourceRequest<'static>]> {
    let mut out = Vec::new();
    for (k, v) in m {
        out.push(ResourceRequest {
            resource: k.as_str(),
            quantity: Quantity::from_milli(int_value(v, k)?),
        });
    }
    Ok(leak(out))
}
