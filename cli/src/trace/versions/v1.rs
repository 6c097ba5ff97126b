//! `autoscaling/v1`: a CPU utilization target (`targetCPUUtilizationPercentage`); the other
//! metrics and the behavior of an HPA written through another version travel in annotations,
//! which the API server converts back (docs/spec/manifests.md#autoscaling-v1).

use serde::Deserialize;

use super::annotations;
use super::{Converted, RawMeta, Time};
use crate::trace::raw::{RawMetricSpec, RawObjectRef, RawResourceSource, RawTarget};
use crate::trace::strict::objects_only;
use crate::trace::TraceError;

objects_only! {
    RawV1Hpa => "an autoscaling/v1 HorizontalPodAutoscaler object",
    RawV1Spec => "an autoscaling/v1 HorizontalPodAutoscalerSpec object",
    RawV1Status => "an autoscaling/v1 HorizontalPodAutoscalerStatus object",
}

#[derive(Deserialize)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)] // The type meta and status are read for their types only.
pub(in crate::trace) struct RawV1Hpa {
    api_version: Option<String>,
    kind: Option<String>,
    metadata: Option<RawMeta>,
    spec: Option<RawV1Spec>,
    status: Option<RawV1Status>,
}

#[derive(Deserialize, Default)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
struct RawV1Spec {
    scale_target_ref: Option<RawObjectRef>,
    min_replicas: Option<i32>,
    max_replicas: Option<i32>,
    #[serde(rename = "targetCPUUtilizationPercentage")]
    target_cpu_utilization_percentage: Option<i32>,
}

/// Read for its types only.
#[derive(Deserialize)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct RawV1Status {
    observed_generation: Option<i64>,
    last_scale_time: Option<Time>,
    current_replicas: Option<i32>,
    desired_replicas: Option<i32>,
    #[serde(rename = "currentCPUUtilizationPercentage")]
    current_cpu_utilization_percentage: Option<i32>,
}

/// `autoscaling.DefaultCPUUtilization`: the target of a v1 object that sets none.
const DEFAULT_CPU_UTILIZATION: i32 = 80;

fn cpu_utilization(percent: i32) -> RawMetricSpec {
    RawMetricSpec {
        type_: Some("Resource".to_owned()),
        resource: Some(RawResourceSource {
            name: Some("cpu".to_owned()),
            target: Some(RawTarget {
                type_: Some("Utilization".to_owned()),
                average_utilization: Some(percent),
                ..RawTarget::default()
            }),
        }),
        ..RawMetricSpec::default()
    }
}

/// The object as `autoscaling/v2`, in upstream's order: the metrics of the annotation, then the
/// CPU target; with neither, the CPU target of 80 %; the behavior from its annotation; the
/// round-trip annotations dropped. A malformed annotation is ignored (as the API server has
/// done since Kubernetes 1.18), with a note.
pub(super) fn to_v2(raw: RawV1Hpa) -> Result<Converted, TraceError> {
    let spec = raw.spec.unwrap_or_default();
    let metadata = raw.metadata.unwrap_or_default();
    let mut notes = Vec::new();
    let mut metrics = annotations::metrics(&metadata, &mut notes);
    metrics.extend(spec.target_cpu_utilization_percentage.map(cpu_utilization));
    if metrics.is_empty() {
        metrics.push(cpu_utilization(DEFAULT_CPU_UTILIZATION));
    }
    let behavior = annotations::behavior(&metadata, &mut notes);
    let bounds = (spec.scale_target_ref, spec.min_replicas, spec.max_replicas);
    Ok(Converted::new(
        metadata,
        bounds,
        Some(metrics),
        behavior,
        notes,
    ))
}
