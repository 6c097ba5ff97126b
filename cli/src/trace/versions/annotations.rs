//! The annotations through which the API server round-trips what an older API version cannot
//! hold: `autoscaling/v1`'s other metrics (a JSON list of v1 `MetricSpec`, the `v2beta1`
//! shape), the behavior of `v1` and `v2beta1` (Go's internal `HorizontalPodAutoscalerBehavior`
//! as `encoding/json` writes it: field names without JSON tags, `ScaleUp`, `Policies`, ...),
//! and `v2beta2`'s tolerances (docs/spec/manifests.md#annotations).
//!
//! Their JSON is read as Go's `encoding/json` reads it into those types: keys match exactly or
//! else ignoring case, unknown keys are ignored, `null` is the zero value. The API server ignores
//! an annotation that does not decode (since Kubernetes 1.18, kubernetes/kubernetes#89963):
//! so does the conversion, with a note saying why.

use hpa::quantity::Quantity;
use serde_json::{Map, Value};

use super::v2beta1::{
    metric_to_v2, RawV2beta1ContainerResource, RawV2beta1External, RawV2beta1Metric,
    RawV2beta1Object, RawV2beta1Pods, RawV2beta1Resource,
};
use super::RawMeta;
use crate::trace::raw::{
    RawBehavior, RawLabelSelector, RawMetricSpec, RawObjectRef, RawPolicy, RawRequirement, RawRules,
};
use crate::trace::strict::{QuantityText, StrictMap};
use crate::trace::TraceError;

/// `autoscaling.MetricSpecsAnnotation`.
pub(super) const METRICS: &str = "autoscaling.alpha.kubernetes.io/metrics";
/// `autoscaling.MetricStatusesAnnotation`.
const CURRENT_METRICS: &str = "autoscaling.alpha.kubernetes.io/current-metrics";
/// `autoscaling.HorizontalPodAutoscalerConditionsAnnotation`.
const CONDITIONS: &str = "autoscaling.alpha.kubernetes.io/conditions";
/// `autoscaling.BehaviorSpecsAnnotation`.
pub(super) const BEHAVIOR: &str = "autoscaling.alpha.kubernetes.io/behavior";
/// `autoscaling.ToleranceScaleUpAnnotation`.
pub(super) const SCALE_UP_TOLERANCE: &str = "autoscaling.alpha.kubernetes.io/scale-up-tolerance";
/// `autoscaling.ToleranceScaleDownAnnotation`.
pub(super) const SCALE_DOWN_TOLERANCE: &str =
    "autoscaling.alpha.kubernetes.io/scale-down-tolerance";

/// Removes the round-trip annotations, as upstream does once it has converted them.
pub(super) fn drop_round_trip(meta: &mut RawMeta) {
    const ROUND_TRIP: [&str; 6] = [
        METRICS,
        CURRENT_METRICS,
        CONDITIONS,
        BEHAVIOR,
        SCALE_UP_TOLERANCE,
        SCALE_DOWN_TOLERANCE,
    ];
    if let Some(annotations) = &mut meta.annotations {
        annotations
            .0
            .retain(|(key, _)| !ROUND_TRIP.contains(&key.as_str()));
    }
}

/// A note for an annotation the API server ignores.
fn ignored(key: &str, why: &str) -> String {
    format!("metadata.annotations[{key}]: ignored, as the API server ignores it: {why}")
}

/// The metrics of `autoscaling/v1`'s annotation, as `autoscaling/v2` metrics (none when it is
/// absent or malformed).
pub(super) fn metrics(meta: &RawMeta, notes: &mut Vec<String>) -> Vec<RawMetricSpec> {
    let Some(text) = meta.annotation(METRICS) else {
        return Vec::new();
    };
    let decoded = json(text).and_then(|value| match value {
        Value::Null => Ok(Vec::new()),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, m)| metric(i, m))
            .collect(),
        other => Err(format!(
            "expected a list of MetricSpec, found {}",
            kind(&other)
        )),
    });
    match decoded {
        Ok(metrics) => metrics.into_iter().map(metric_to_v2).collect(),
        Err(why) => {
            notes.push(ignored(METRICS, &why));
            Vec::new()
        }
    }
}

/// The behavior of the annotation (`None` when absent, malformed or empty).
pub(super) fn behavior(meta: &RawMeta, notes: &mut Vec<String>) -> Option<RawBehavior> {
    let text = meta.annotation(BEHAVIOR)?;
    let decoded = json(text).and_then(|value| {
        if value.is_null() {
            return Ok(None);
        }
        let o = object(&value, "the behavior")?;
        let scale_up = field(o, "ScaleUp")
            .map(|r| rules("ScaleUp", r))
            .transpose()?;
        let scale_down = field(o, "ScaleDown")
            .map(|r| rules("ScaleDown", r))
            .transpose()?;
        // Upstream keeps only a behavior that is not Go's zero value.
        Ok(
            (scale_up.is_some() || scale_down.is_some()).then_some(RawBehavior {
                scale_up,
                scale_down,
            }),
        )
    });
    decoded.unwrap_or_else(|why| {
        notes.push(ignored(BEHAVIOR, &why));
        None
    })
}

/// A tolerance annotation of `autoscaling/v2beta2`; one that is not a quantity fails the
/// conversion upstream ("failed to parse annotation").
pub(super) fn tolerance(key: &str, text: &str) -> Result<QuantityText, TraceError> {
    Quantity::parse(text)
        .map(|_| QuantityText(text.to_owned()))
        .map_err(|e| {
            TraceError::new(
                format!("metadata.annotations[{key}]"),
                format!("failed to parse annotation {key:?}: invalid quantity {text:?}: {e}"),
            )
        })
}

type Decoded<T> = Result<T, String>;

fn json(text: &str) -> Decoded<Value> {
    serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// The field `name` as `encoding/json` finds it: the exact key, else one equal ignoring case;
/// `null` as absent.
fn field<'a>(object: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    object
        .get(name)
        .or_else(|| {
            object
                .iter()
                .find(|(key, _)| key.eq_ignore_ascii_case(name))
                .map(|(_, value)| value)
        })
        .filter(|value| !value.is_null())
}

fn object<'a>(value: &'a Value, what: &str) -> Decoded<&'a Map<String, Value>> {
    value
        .as_object()
        .ok_or_else(|| format!("{what}: expected an object, found {}", kind(value)))
}

fn string(o: &Map<String, Value>, name: &str) -> Decoded<Option<String>> {
    field(o, name)
        .map(|v| {
            v.as_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("{name}: expected a string, found {}", kind(v)))
        })
        .transpose()
}

fn int32(o: &Map<String, Value>, name: &str) -> Decoded<Option<i32>> {
    field(o, name)
        .map(|v| match v {
            Value::Number(n) => n
                .to_string()
                .parse::<i32>()
                .map_err(|_| format!("{name}: {n} is not a 32-bit integer")),
            other => Err(format!(
                "{name}: expected an integer, found {}",
                kind(other)
            )),
        })
        .transpose()
}

/// A `resource.Quantity`: a string, or a number's text.
fn quantity(o: &Map<String, Value>, name: &str) -> Decoded<Option<QuantityText>> {
    field(o, name)
        .map(|v| {
            let text = match v {
                Value::String(s) => s.trim().to_owned(),
                Value::Number(n) => n.to_string(),
                other => {
                    return Err(format!(
                        "{name}: expected a quantity, found {}",
                        kind(other)
                    ))
                }
            };
            Quantity::parse(&text)
                .map(|_| QuantityText(text.clone()))
                .map_err(|e| format!("{name}: invalid quantity {text:?}: {e}"))
        })
        .transpose()
}

fn list<'a>(o: &'a Map<String, Value>, name: &str) -> Decoded<Option<&'a Vec<Value>>> {
    field(o, name)
        .map(|v| {
            v.as_array()
                .ok_or_else(|| format!("{name}: expected a list, found {}", kind(v)))
        })
        .transpose()
}

fn strings(o: &Map<String, Value>, name: &str) -> Decoded<Option<Vec<String>>> {
    list(o, name)?
        .map(|items| {
            items
                .iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s.clone()),
                    Value::Null => Ok(String::new()),
                    other => Err(format!("{name}: expected strings, found {}", kind(other))),
                })
                .collect()
        })
        .transpose()
}

/// A source object of a metric (`None` when absent).
fn source<'a>(o: &'a Map<String, Value>, name: &str) -> Decoded<Option<&'a Map<String, Value>>> {
    field(o, name).map(|v| object(v, name)).transpose()
}

fn object_ref(o: &Map<String, Value>, name: &str) -> Decoded<Option<RawObjectRef>> {
    source(o, name)?
        .map(|r| {
            Ok(RawObjectRef {
                kind: string(r, "kind")?,
                name: string(r, "name")?,
                api_version: string(r, "apiVersion")?,
            })
        })
        .transpose()
}

fn selector(o: &Map<String, Value>, name: &str) -> Decoded<Option<RawLabelSelector>> {
    source(o, name)?
        .map(|s| {
            let match_labels = source(s, "matchLabels")?
                .map(|labels| {
                    labels
                        .iter()
                        .map(|(k, v)| match v {
                            Value::String(text) => Ok((k.clone(), text.clone())),
                            other => Err(format!(
                                "matchLabels: expected strings, found {}",
                                kind(other)
                            )),
                        })
                        .collect::<Decoded<Vec<_>>>()
                        .map(StrictMap)
                })
                .transpose()?;
            let match_expressions = list(s, "matchExpressions")?
                .map(|items| {
                    items
                        .iter()
                        .map(|item| {
                            let r = object(item, "matchExpressions")?;
                            Ok(RawRequirement {
                                key: string(r, "key")?,
                                operator: string(r, "operator")?,
                                values: strings(r, "values")?,
                            })
                        })
                        .collect::<Decoded<Vec<_>>>()
                })
                .transpose()?;
            Ok(RawLabelSelector {
                match_labels,
                match_expressions,
            })
        })
        .transpose()
}

/// One entry of the metrics annotation.
fn metric(i: usize, value: &Value) -> Decoded<RawV2beta1Metric> {
    if value.is_null() {
        return Ok(RawV2beta1Metric::default());
    }
    let m = object(value, &format!("[{i}]"))?;
    let at = |e: String| format!("[{i}].{e}");
    // Errors inside a source name it: `[0].resource.targetAverageUtilization: ...`.
    let inside = |name: &'static str| {
        move |e: String| {
            // The source itself not an object names itself already.
            if e.starts_with(&format!("{name}: ")) {
                format!("[{i}].{e}")
            } else {
                format!("[{i}].{name}.{e}")
            }
        }
    };
    Ok(RawV2beta1Metric {
        type_: string(m, "type").map_err(at)?,
        object: source(m, "object")
            .and_then(|o| {
                o.map(|o| {
                    Ok(RawV2beta1Object {
                        target: object_ref(o, "target")?,
                        metric_name: string(o, "metricName")?,
                        target_value: quantity(o, "targetValue")?,
                        selector: selector(o, "selector")?,
                        average_value: quantity(o, "averageValue")?,
                    })
                })
                .transpose()
            })
            .map_err(inside("object"))?,
        pods: source(m, "pods")
            .and_then(|p| {
                p.map(|p| {
                    Ok(RawV2beta1Pods {
                        metric_name: string(p, "metricName")?,
                        target_average_value: quantity(p, "targetAverageValue")?,
                        selector: selector(p, "selector")?,
                    })
                })
                .transpose()
            })
            .map_err(inside("pods"))?,
        resource: source(m, "resource")
            .and_then(|r| {
                r.map(|r| {
                    Ok(RawV2beta1Resource {
                        name: string(r, "name")?,
                        target_average_utilization: int32(r, "targetAverageUtilization")?,
                        target_average_value: quantity(r, "targetAverageValue")?,
                    })
                })
                .transpose()
            })
            .map_err(inside("resource"))?,
        container_resource: source(m, "containerResource")
            .and_then(|r| {
                r.map(|r| {
                    Ok(RawV2beta1ContainerResource {
                        name: string(r, "name")?,
                        target_average_utilization: int32(r, "targetAverageUtilization")?,
                        target_average_value: quantity(r, "targetAverageValue")?,
                        container: string(r, "container")?,
                    })
                })
                .transpose()
            })
            .map_err(inside("containerResource"))?,
        external: source(m, "external")
            .and_then(|e| {
                e.map(|e| {
                    Ok(RawV2beta1External {
                        metric_name: string(e, "metricName")?,
                        metric_selector: selector(e, "metricSelector")?,
                        target_value: quantity(e, "targetValue")?,
                        target_average_value: quantity(e, "targetAverageValue")?,
                    })
                })
                .transpose()
            })
            .map_err(inside("external"))?,
    })
}

/// One direction of the behavior annotation (Go's field names).
fn rules(direction: &str, value: &Value) -> Decoded<RawRules> {
    let r = object(value, direction)?;
    let at = |e: String| format!("{direction}.{e}");
    let policies = list(r, "Policies")
        .and_then(|policies| {
            policies
                .map(|items| {
                    items
                        .iter()
                        .map(|item| {
                            if item.is_null() {
                                return Ok(RawPolicy {
                                    type_: None,
                                    value: None,
                                    period_seconds: None,
                                });
                            }
                            let p = object(item, "Policies")?;
                            Ok(RawPolicy {
                                type_: string(p, "Type")?,
                                value: int32(p, "Value")?,
                                period_seconds: int32(p, "PeriodSeconds")?,
                            })
                        })
                        .collect::<Decoded<Vec<_>>>()
                })
                .transpose()
        })
        .map_err(at)?;
    Ok(RawRules {
        stabilization_window_seconds: int32(r, "StabilizationWindowSeconds").map_err(at)?,
        select_policy: string(r, "SelectPolicy").map_err(at)?,
        policies,
        tolerance: quantity(r, "Tolerance").map_err(at)?,
    })
}
