//! The steps: replica counts, pods and their containers, and one metric entry per spec metric
//! with the shape its type needs (samples per pod, a value, values or an error). Apart because
//! it is the trace format's own model of what the controller observed, which a standalone
//! manifest does not have.

use std::collections::{HashMap, HashSet};

use hpa::input::{ConditionStatus, ContainerKind, PodPhase, ReadyCondition};
use hpa::quantity::Quantity;
use hpa::spec::MetricSourceType;
use hpa::time::{Duration, Instant};

use super::quantity;
use crate::trace::owned::{OwnedContainer, OwnedMetricValues, OwnedPod, OwnedSample, OwnedStep};
use crate::trace::raw::{
    RawConditionStatus, RawMetricValues, RawPhase, RawPod, RawSample, RawStep,
};
use crate::trace::strict::{QuantityText, StrictMap};
use crate::trace::TraceError;

/// A replica count in `[0, 2^31 - 1]`.
fn replica_count(path: String, value: i64) -> Result<i32, TraceError> {
    i32::try_from(value)
        .ok()
        .filter(|v| *v >= 0)
        .ok_or_else(|| {
            TraceError::new(
                path,
                format!("must be between 0 and {}, got {value}", i32::MAX),
            )
        })
}

fn convert_requests(
    path: &str,
    raw: StrictMap<QuantityText>,
) -> Result<Vec<(String, Quantity)>, TraceError> {
    raw.0
        .into_iter()
        .map(|(resource, text)| {
            let q = quantity(&format!("{path}.{resource}"), &text)?;
            Ok((resource, q))
        })
        .collect()
}

fn convert_pod(path: &str, raw: RawPod) -> Result<OwnedPod, TraceError> {
    let mut names = HashSet::new();
    let mut containers = Vec::new();
    for (k, c) in raw.containers.unwrap_or_default().into_iter().enumerate() {
        let cpath = format!("{path}.containers[{k}]");
        if !names.insert(c.name.clone()) {
            return Err(TraceError::new(
                format!("{cpath}.name"),
                format!("duplicate container name {:?}", c.name),
            ));
        }
        containers.push(OwnedContainer {
            kind: if c.restartable_init.unwrap_or(false) {
                ContainerKind::RestartableInit
            } else {
                ContainerKind::Regular
            },
            requests: convert_requests(
                &format!("{cpath}.requests"),
                c.requests.unwrap_or_default(),
            )?,
            name: c.name,
        });
    }
    let requests = raw
        .requests
        .map(|r| convert_requests(&format!("{path}.requests"), r))
        .transpose()?;
    let phase = match raw.phase.unwrap_or(RawPhase::Running) {
        RawPhase::Pending => PodPhase::Pending,
        RawPhase::Running => PodPhase::Running,
        RawPhase::Succeeded => PodPhase::Succeeded,
        RawPhase::Failed => PodPhase::Failed,
        RawPhase::Unknown => PodPhase::Unknown,
    };
    let ready = raw.ready.map(|status| ReadyCondition {
        status: match status {
            RawConditionStatus::True => ConditionStatus::True,
            RawConditionStatus::False => ConditionStatus::False,
            RawConditionStatus::Unknown => ConditionStatus::Unknown,
        },
        last_transition: raw.ready_transition_time.map(Instant),
    });
    Ok(OwnedPod {
        name: raw.name,
        phase,
        ready,
        start_time: raw.start_time.map(Instant),
        deleted: raw.deleted.unwrap_or(false),
        containers,
        requests,
    })
}

/// Which of a metric entry's fields are set.
fn entry_fields(raw: &RawMetricValues) -> Vec<&'static str> {
    let mut fields = Vec::new();
    if raw.samples.is_some() {
        fields.push("samples");
    }
    if raw.value.is_some() {
        fields.push("value");
    }
    if raw.values.is_some() {
        fields.push("values");
    }
    if raw.error.is_some() {
        fields.push("error");
    }
    fields
}

/// One pod's sample, or `None` when the pod has no sample (docs/spec/trace-format.md#rule-7,
/// docs/spec/metrics.md#metrics-apis): a Resource sample without `value` and containers is a pod
/// whose metrics list no containers, which upstream's resource metrics client gives no sample.
/// A ContainerResource sample is kept as it is, whatever containers it lists: the engine reads
/// the named container in it, and a pod whose sample lacks that container is missing, as
/// upstream since PR #127193 (the sample still counts as the metrics API having answered, so
/// that a metric no pod has the container for fails with upstream's "did not receive metrics
/// for targeted pods", not "no metrics returned").
fn convert_sample(
    path: &str,
    raw: RawSample,
    type_: MetricSourceType,
    at: i64,
) -> Result<Option<OwnedSample>, TraceError> {
    let window = match raw.window {
        None => 60_000,
        Some(w) if w < 0 => {
            return Err(TraceError::new(
                format!("{path}.window"),
                format!("must not be negative, got {w}"),
            ))
        }
        Some(w) => w,
    };
    let containers = raw
        .containers
        .unwrap_or_default()
        .0
        .into_iter()
        .map(|(name, text)| {
            let q = quantity(&format!("{path}.containers.{name}"), &text)?;
            Ok((name, q.milli_value()))
        })
        .collect::<Result<Vec<_>, TraceError>>()?;
    let milli = match &raw.value {
        Some(text) => quantity(&format!("{path}.value"), text)?.milli_value(),
        None if type_ == MetricSourceType::Pods => {
            return Err(TraceError::new(
                format!("{path}.value"),
                "required: a Pods metric sample needs `value`",
            ))
        }
        None if containers.is_empty() && type_ == MetricSourceType::Resource => return Ok(None),
        // Upstream sums the containers' milli-values; saturate instead of wrapping.
        None => containers
            .iter()
            .fold(0i64, |sum, (_, milli)| sum.saturating_add(*milli)),
    };
    Ok(Some(OwnedSample {
        milli,
        timestamp: Instant(raw.timestamp.unwrap_or(at)),
        window: Duration::from_millis(window),
        containers,
    }))
}

fn convert_metric_values(
    path: &str,
    raw: RawMetricValues,
    type_: MetricSourceType,
    spec_metric: &str,
    pod_index: &HashMap<&str, usize>,
    at: i64,
) -> Result<OwnedMetricValues, TraceError> {
    let fields = entry_fields(&raw);
    let expected = match type_ {
        MetricSourceType::Resource
        | MetricSourceType::ContainerResource
        | MetricSourceType::Pods => "samples",
        MetricSourceType::Object => "value",
        MetricSourceType::External => "values",
    };
    match fields.as_slice() {
        [] => {
            return Err(TraceError::new(
                path,
                format!(
                    "empty entry: {spec_metric} (a {} metric) needs `{expected}` or `error`",
                    type_.as_str()
                ),
            ))
        }
        [one] if *one == expected || *one == "error" => {}
        [one] => {
            return Err(TraceError::new(
                path,
                format!(
                    "{spec_metric} is a {} metric: its entry needs `{expected}` or `error`, \
                     not `{one}`",
                    type_.as_str()
                ),
            ))
        }
        several => {
            return Err(TraceError::new(
                path,
                format!(
                    "an entry holds exactly one of `samples`, `value`, `values` or `error`, \
                     found `{}`",
                    several.join("`, `")
                ),
            ))
        }
    }
    if let Some(message) = raw.error {
        return Ok(OwnedMetricValues::Error(message));
    }
    if let Some(samples) = raw.samples {
        let mut per_pod = vec![None; pod_index.len()];
        let mut orphans = Vec::new();
        for (name, sample) in samples.0 {
            let Some(sample) =
                convert_sample(&format!("{path}.samples.{name}"), sample, type_, at)?
            else {
                continue;
            };
            // `pod_index` numbers the pods from 0, one slot each in `per_pod`.
            match pod_index
                .get(name.as_str())
                .and_then(|&i| per_pod.get_mut(i))
            {
                Some(slot) => *slot = Some(sample),
                None => orphans.push((name, sample)),
            }
        }
        orphans.sort_by(|a, b| a.0.cmp(&b.0));
        return Ok(OwnedMetricValues::Pods {
            per_pod,
            orphans: orphans.into_iter().map(|(_, s)| s).collect(),
        });
    }
    if let Some(text) = raw.value {
        return Ok(OwnedMetricValues::Object(
            quantity(&format!("{path}.value"), &text)?.milli_value(),
        ));
    }
    let values = raw
        .values
        .unwrap_or_default()
        .iter()
        .enumerate()
        .map(|(k, text)| Ok(quantity(&format!("{path}.values[{k}]"), text)?.milli_value()))
        .collect::<Result<Vec<_>, TraceError>>()?;
    Ok(OwnedMetricValues::External(values))
}

pub(super) fn convert_step(
    i: usize,
    raw: RawStep,
    metric_types: &[MetricSourceType],
    default_metric: bool,
) -> Result<OwnedStep, TraceError> {
    let path = format!("steps[{i}]");
    let replicas = replica_count(format!("{path}.replicas"), raw.replicas)?;
    let status_replicas = match raw.status_replicas {
        Some(v) => replica_count(format!("{path}.statusReplicas"), v)?,
        None => replicas,
    };
    let mut pods = Vec::new();
    for (j, pod) in raw.pods.unwrap_or_default().into_iter().enumerate() {
        pods.push(convert_pod(&format!("{path}.pods[{j}]"), pod)?);
    }
    let mut pod_index = HashMap::with_capacity(pods.len());
    for (j, pod) in pods.iter().enumerate() {
        if pod_index.insert(pod.name.as_str(), j).is_some() {
            return Err(TraceError::new(
                format!("{path}.pods[{j}].name"),
                format!("duplicate pod name {:?}", pod.name),
            ));
        }
    }
    let raw_metrics = raw.metrics.unwrap_or_default();
    if raw_metrics.len() != metric_types.len() {
        let what = if default_metric {
            "one entry for the default cpu metric (hpa.spec.metrics is empty)".to_owned()
        } else {
            format!(
                "{} entries, one per hpa.spec.metrics[i] in the same order",
                metric_types.len()
            )
        };
        return Err(TraceError::new(
            format!("{path}.metrics"),
            format!("expected {what}, found {}", raw_metrics.len()),
        ));
    }
    let metrics = raw_metrics
        .into_iter()
        .zip(metric_types)
        .enumerate()
        .map(|(j, (entry, type_))| {
            let spec_metric = if default_metric {
                "the default cpu metric".to_owned()
            } else {
                format!("hpa.spec.metrics[{j}]")
            };
            convert_metric_values(
                &format!("{path}.metrics[{j}]"),
                entry,
                *type_,
                &spec_metric,
                &pod_index,
                raw.at,
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(OwnedStep {
        at: raw.at,
        replicas,
        status_replicas,
        applied: raw.applied.unwrap_or(true),
        pods,
        metrics,
    })
}

#[cfg(test)]
mod tests {
    use crate::trace::owned::{OwnedMetricValues, OwnedSample};
    use crate::trace::test_support::{assert_error, base_with, json};
    use crate::trace::Trace;

    #[test]
    fn replica_ranges() {
        assert_error(
            json(&base_with(r#""replicas": 1"#, r#""replicas": -1"#)),
            "steps[0].replicas",
            "must be between 0 and 2147483647, got -1",
        );
        assert_error(
            json(&base_with(
                r#""replicas": 1"#,
                r#""replicas": 1, "statusReplicas": 2147483648"#,
            )),
            "steps[0].statusReplicas",
            "must be between 0 and 2147483647, got 2147483648",
        );
    }

    #[test]
    fn duplicate_names() {
        assert_error(
            json(&base_with(
                r#"[{"name": "p0"}]"#,
                r#"[{"name": "p0"}, {"name": "p0"}]"#,
            )),
            "steps[0].pods[1].name",
            "duplicate pod name \"p0\"",
        );
        assert_error(
            json(&base_with(
                r#"{"name": "p0"}"#,
                r#"{"name": "p0", "containers": [{"name": "c"}, {"name": "c"}]}"#,
            )),
            "steps[0].pods[0].containers[1].name",
            "duplicate container name \"c\"",
        );
    }

    #[test]
    fn metric_entries() {
        assert_error(
            json(&base_with(
                r#""metrics": [{"samples""#,
                r#""metrics": [{"error": "x"}, {"samples""#,
            )),
            "steps[0].metrics",
            "expected 1 entries, one per hpa.spec.metrics[i] in the same order, found 2",
        );
        assert_error(
            json(&base_with(
                r#",
            "metrics": [{"samples": {"p0": {"value": "100m"}}}]"#,
                "",
            )),
            "steps[0].metrics",
            "expected 1 entries",
        );
        assert_error(
            json(&base_with(
                r#"{"samples": {"p0": {"value": "100m"}}}"#,
                r#"{"value": "1"}"#,
            )),
            "steps[0].metrics[0]",
            "hpa.spec.metrics[0] is a Resource metric: its entry needs `samples` or `error`, \
             not `value`",
        );
        assert_error(
            json(&base_with(
                r#"{"samples": {"p0": {"value": "100m"}}}"#,
                r#"{}"#,
            )),
            "steps[0].metrics[0]",
            "empty entry",
        );
        assert_error(
            json(&base_with(r#"{"samples""#, r#"{"error": "x", "samples""#)),
            "steps[0].metrics[0]",
            "an entry holds exactly one of",
        );
        // An empty `spec.metrics` is the default cpu metric.
        let default_metric = base_with(r#""metrics": [{"type""#, r#""metrics": [], "x": [{"type""#)
            .replacen(
                r#", "x": [{"type": "Resource",
    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}]"#,
                "",
                1,
            );
        assert!(json(&default_metric).is_ok(), "{default_metric}");
    }

    /// The samples of the only step's first metric.
    fn first_samples(trace: &Trace) -> (Vec<Option<OwnedSample>>, Vec<OwnedSample>) {
        match &trace.steps[0].metrics[0] {
            OwnedMetricValues::Pods { per_pod, orphans } => (per_pod.clone(), orphans.clone()),
            other => panic!("expected samples, got {other:?}"),
        }
    }

    #[test]
    fn samples() {
        // A Resource sample with neither `value` nor container usage: a pod whose metrics
        // list no containers, which upstream gives no sample (docs/spec/metrics.md#metrics-apis).
        for empty in [r#"{"timestamp": 3}"#, r#"{"containers": {}}"#] {
            let trace = json(&base_with(r#"{"value": "100m"}"#, empty)).unwrap();
            let (per_pod, orphans) = first_samples(&trace);
            assert!(per_pod[0].is_none() && orphans.is_empty(), "{empty}");
        }
        let orphan = base_with(
            r#""p0": {"value": "100m"}"#,
            r#""p0": {"value": "100m"}, "gone": {"containers": {}}"#,
        );
        let (per_pod, orphans) = first_samples(&json(&orphan).unwrap());
        assert!(per_pod[0].is_some() && orphans.is_empty());
        assert_error(
            json(&base_with(
                r#"{"value": "100m"}"#,
                r#"{"value": "1", "window": -1}"#,
            )),
            "steps[0].metrics[0].samples.p0.window",
            "must not be negative, got -1",
        );
        let pods_metric = base_with(
            r#"{"type": "Resource",
    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}"#,
            r#"{"type": "Pods", "pods": {"metric": {"name": "qps"},
    "target": {"type": "AverageValue", "averageValue": "1"}}}"#,
        );
        assert!(json(&pods_metric).is_ok());
        for no_value in [r#"{"containers": {"c": "1"}}"#, r#"{"containers": {}}"#] {
            assert_error(
                json(&pods_metric.replacen(r#"{"value": "100m"}"#, no_value, 1)),
                "steps[0].metrics[0].samples.p0.value",
                "required: a Pods metric sample needs `value`",
            );
        }
    }
}
