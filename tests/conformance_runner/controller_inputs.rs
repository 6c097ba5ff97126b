//! normalization.json, controller scenarios: the HPA's metric specs, the pods the fake lister
//! returns and the values the fake metrics clients return, as engine inputs.

use hpa::input::{
    ConditionStatus, ContainerUsage, MetricValues, Pod, PodSamples, ReadyCondition, Sample,
};
use hpa::spec::{
    CrossVersionObjectReference, MetricIdentifier, MetricSourceType, MetricSpec, MetricTarget,
    MetricTargetType,
};
use serde_json::Value;
use testkit::conformance::*;

use crate::{opt_flag, secs};

/// A label selector of equality terms (`k=v`, `k==v`, `k!=v`); `None` if it does not parse as
/// one (the only selectors the vectors use).
pub fn parse_selector(s: &str) -> Option<Vec<(String, bool, String)>> {
    let ok = |t: &str| {
        !t.is_empty()
            && t.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-/".contains(&b))
    };
    let mut out = Vec::new();
    for term in s.split(',') {
        let term = term.trim();
        let (k, eq, v) = if let Some((k, v)) = term.split_once("!=") {
            (k, false, v)
        } else if let Some((k, v)) = term.split_once("==") {
            (k, true, v)
        } else {
            let (k, v) = term.split_once('=')?;
            (k, true, v)
        };
        if !ok(k.trim()) || !(v.trim().is_empty() || ok(v.trim())) {
            return None;
        }
        out.push((k.trim().to_string(), eq, v.trim().to_string()));
    }
    Some(out)
}

/// A controller scenario's metric target. A `type` of null (or no target) is a target without
/// a type, as upstream's harness builds when a case sets no CPU target and no metric (the API
/// would reject it; the controller evaluates nothing while the replica count is outside
/// min/max, and fails the metric inside).
fn controller_target(t: Option<&'static Value>) -> R<MetricTarget> {
    let Some(t) = t.filter(|t| !t.is_null()) else {
        return Ok(typeless_target(None, None, None));
    };
    let mut target = typeless_target(
        opt_int(t, "value_milli")?,
        opt_int(t, "average_value_milli")?,
        opt_int32(t, "average_utilization")?,
    );
    target.type_ = match opt_text(t, "type")? {
        None => None,
        Some("Utilization") => Some(MetricTargetType::Utilization),
        Some("Value") => Some(MetricTargetType::Value),
        Some("AverageValue") => Some(MetricTargetType::AverageValue),
        Some(other) => return Err(format!("unknown target type {other:?}")),
    };
    Ok(target)
}

fn identifier(m: &'static Value) -> R<MetricIdentifier<'static>> {
    Ok(MetricIdentifier {
        name: text(m, "name")?,
        selector: selector_text(m.get("selector"))?,
        selector_invalid: false,
    })
}

/// A controller-scenario metric spec; `Ok(None)` for a source type the API does not know.
pub fn controller_metric(m: &'static Value) -> R<Option<MetricSpec<'static>>> {
    Ok(Some(match text(m, "type")? {
        "Resource" => {
            let r = get(m, "resource")?;
            MetricSpec::resource(text(r, "name")?, controller_target(r.get("target"))?)
        }
        "ContainerResource" => {
            let r = get(m, "container_resource")?;
            MetricSpec::container_resource(
                text(r, "name")?,
                text(r, "container")?,
                controller_target(r.get("target"))?,
            )
        }
        "Pods" => {
            let p = get(m, "pods")?;
            MetricSpec::pods(
                identifier(get(p, "metric")?)?,
                controller_target(p.get("target"))?,
            )
        }
        "Object" => {
            let o = get(m, "object")?;
            let d = get(o, "described_object")?;
            MetricSpec::object(
                CrossVersionObjectReference {
                    kind: text(d, "kind")?,
                    name: text(d, "name")?,
                    api_version: text(d, "api_version")?,
                },
                identifier(get(o, "metric")?)?,
                controller_target(o.get("target"))?,
            )
        }
        "External" => {
            let x = get(m, "external")?;
            MetricSpec::external(
                identifier(get(x, "metric")?)?,
                controller_target(x.get("target"))?,
            )
        }
        _ => return Ok(None),
    }))
}

pub fn controller_pod(p: &'static Value) -> R<Pod<'static>> {
    let ready = opt_flag(p, "ready")?.map(|r| -> R<ReadyCondition> {
        Ok(ReadyCondition {
            status: if r {
                ConditionStatus::True
            } else {
                ConditionStatus::False
            },
            last_transition: opt_int(p, "ready_transition_time_s")?.map(at),
        })
    });
    Ok(Pod {
        name: text(p, "name")?,
        phase: phase(opt_text(p, "phase")?)?,
        ready: ready.transpose()?,
        start_time: opt_int(p, "start_time_s")?.map(at),
        deleted: flag(p, "deleted")? || !is_null(p, "deletion_timestamp_s"),
        containers: fixed_containers(obj(p, "requests_milli")?, "cpu")?,
        requests: None,
    })
}

/// Samples in pod order plus orphans, from `(pod name, sample)` entries.
fn pod_samples(
    pods: &[Pod<'static>],
    entries: Vec<(&'static str, Sample<'static>)>,
) -> MetricValues<'static> {
    let per_pod = pods
        .iter()
        .map(|p| entries.iter().find(|(n, _)| *n == p.name).map(|&(_, s)| s))
        .collect();
    let orphans = entries
        .iter()
        .filter(|(n, _)| !pods.iter().any(|p| p.name == *n))
        .map(|&(_, s)| s)
        .collect();
    MetricValues::Pods(PodSamples {
        per_pod: leak(per_pod),
        orphans: leak(orphans),
    })
}

/// One pod's entry of the fake resource metrics API (a PodMetrics item) as the metrics client
/// reads it (docs/spec/metrics.md#metrics-apis); its containers are those listed for any resource.
/// Resource metrics: the sum of the containers' usage of `key`'s resource, no sample when the entry
/// lists no container or one lacks that resource. ContainerResource metrics: the entry whole, in
/// which the engine looks the named container up (an entry without it is a pod without a sample, as
/// upstream's since PR #127193, while the API still counts as having answered).
fn resource_sample(
    e: &'static Value,
    key: &str,
    container: Option<&'static str>,
) -> R<Option<Sample<'static>>> {
    let containers = match opt_obj(e, key)? {
        Some(m) => usages(m)?,
        None => &[],
    };
    let mut listed: Vec<&str> = containers.iter().map(|u| u.name).collect();
    for other in ["cpu_milli", "memory_milli"] {
        for k in opt_obj(e, other)?.into_iter().flat_map(|m| m.keys()) {
            if !listed.contains(&k.as_str()) {
                listed.push(k);
            }
        }
    }
    let value = match container {
        Some(name) => containers.iter().find(|u| u.name == name).map(|u| u.milli),
        None => {
            (!listed.is_empty() && listed.len() == containers.len()).then(|| sum_usage(containers))
        }
    };
    if value.is_none() && container.is_none() {
        return Ok(None);
    }
    entry_sample(e, value, ("timestamp_s", "window_s"), containers).map(Some)
}

/// What the fake metrics clients return for one metric of the HPA.
pub fn controller_values(
    spec: &MetricSpec<'static>,
    sources: &'static Value,
    pods: &[Pod<'static>],
) -> R<MetricValues<'static>> {
    let failed = |src: &'static Value, what: &'static str| -> R<Option<MetricValues<'static>>> {
        Ok(flag(src, "error")?.then_some(MetricValues::Error(what)))
    };
    match spec.type_ {
        Some(MetricSourceType::Resource) | Some(MetricSourceType::ContainerResource) => {
            let src = get(sources, "resource")?;
            if let Some(v) = failed(src, "the fake resource metrics client failed")? {
                return Ok(v);
            }
            let resource = spec
                .resource
                .map(|r| r.name)
                .or(spec.container_resource.map(|r| r.name))
                .ok_or("resource metric without source")?;
            let key = match resource {
                "cpu" => "cpu_milli",
                "memory" => "memory_milli",
                other => return Err(format!("no fake metrics for resource {other:?}")),
            };
            let container = spec.container_resource.map(|r| r.container);
            let mut entries = Vec::new();
            for e in list(src, "pods")? {
                if let Some(sample) = resource_sample(e, key, container)? {
                    entries.push((text(e, "pod")?, sample));
                }
            }
            Ok(pod_samples(pods, entries))
        }
        Some(MetricSourceType::Pods) => {
            let src = get(sources, "custom_pods")?;
            if let Some(v) = failed(src, "the fake custom metrics client failed")? {
                return Ok(v);
            }
            let name = spec.pods.map(|p| p.metric.name).unwrap_or_default();
            let mut entries = Vec::new();
            for e in list(src, "items")? {
                // A null value: the adapter has no value for that pod.
                if text(e, "metric")? != name || is_null(e, "value_milli") {
                    continue;
                }
                entries.push((
                    text(e, "pod")?,
                    Sample {
                        milli: int(e, "value_milli")?,
                        timestamp: at(int(e, "timestamp_s")?),
                        // The metrics client's default window when WindowSeconds is unset.
                        window: secs(opt_int(e, "window_s")?.unwrap_or(60)),
                        containers: &[],
                    },
                ));
            }
            Ok(pod_samples(pods, entries))
        }
        Some(MetricSourceType::Object) => {
            let src = get(sources, "custom_object")?;
            if let Some(v) = failed(src, "the fake custom metrics client failed")? {
                return Ok(v);
            }
            let name = spec.object.map(|o| o.metric.name).unwrap_or_default();
            if text(src, "metric")? != name {
                return Err(format!(
                    "custom_object serves {:?}, not {name:?}",
                    text(src, "metric")?
                ));
            }
            Ok(MetricValues::Object(int(src, "value_milli")?))
        }
        Some(MetricSourceType::External) => {
            let src = get(sources, "external")?;
            if let Some(v) = failed(src, "the fake external metrics client failed")? {
                return Ok(v);
            }
            let name = spec.external.map(|x| x.metric.name).unwrap_or_default();
            let mut values = Vec::new();
            for e in list(src, "items")? {
                if text(e, "metric")? == name {
                    values.push(int(e, "value_milli")?);
                }
            }
            Ok(MetricValues::External(leak(values)))
        }
        // An unknown source type fails before any metrics client is asked.
        None => Ok(MetricValues::External(&[])),
    }
}

fn sum_usage(u: &[ContainerUsage<'_>]) -> i64 {
    u.iter().map(|c| c.milli).sum()
}
