//! `autoscaling/v2beta1`: the metric sources name their targets and identifiers in fields of
//! their own (`targetAverageUtilization`, `metricName`, ...), and the behavior is kept in an
//! annotation for the round trip. The same metric shape is `autoscaling/v1`'s, in its metrics
//! annotation ([`super::annotations::metrics`]).

use serde::Deserialize;

use super::annotations;
use super::{Converted, RawHpaStatus, RawMeta};
use crate::trace::raw::{
    RawContainerResourceSource, RawIdentifier, RawLabelSelector, RawMetricSpec, RawObjectRef,
    RawObjectSource, RawPodsSource, RawResourceSource, RawTarget,
};
use crate::trace::strict::{objects_only, QuantityText};
use crate::trace::TraceError;

objects_only! {
    RawV2beta1Hpa => "an autoscaling/v2beta1 HorizontalPodAutoscaler object",
    RawV2beta1Spec => "an autoscaling/v2beta1 HorizontalPodAutoscalerSpec object",
    RawV2beta1Metric => "an autoscaling/v2beta1 MetricSpec object",
    RawV2beta1Object => "an autoscaling/v2beta1 ObjectMetricSource object",
    RawV2beta1Pods => "an autoscaling/v2beta1 PodsMetricSource object",
    RawV2beta1Resource => "an autoscaling/v2beta1 ResourceMetricSource object",
    RawV2beta1ContainerResource => "an autoscaling/v2beta1 ContainerResourceMetricSource object",
    RawV2beta1External => "an autoscaling/v2beta1 ExternalMetricSource object",
}

#[derive(Deserialize)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)] // The type meta and status are read for their types only.
pub(in crate::trace) struct RawV2beta1Hpa {
    api_version: Option<String>,
    kind: Option<String>,
    metadata: Option<RawMeta>,
    spec: Option<RawV2beta1Spec>,
    status: Option<RawHpaStatus>,
}

#[derive(Deserialize, Default)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
struct RawV2beta1Spec {
    scale_target_ref: Option<RawObjectRef>,
    min_replicas: Option<i32>,
    max_replicas: Option<i32>,
    metrics: Option<Vec<RawV2beta1Metric>>,
}

/// `MetricSpec` of `autoscaling/v2beta1` (and of `autoscaling/v1`'s annotation).
#[derive(Deserialize, Default)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawV2beta1Metric {
    #[serde(rename = "type")]
    pub(super) type_: Option<String>,
    pub(super) object: Option<RawV2beta1Object>,
    pub(super) pods: Option<RawV2beta1Pods>,
    pub(super) resource: Option<RawV2beta1Resource>,
    pub(super) container_resource: Option<RawV2beta1ContainerResource>,
    pub(super) external: Option<RawV2beta1External>,
}

#[derive(Deserialize, Default)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawV2beta1Object {
    pub(super) target: Option<RawObjectRef>,
    pub(super) metric_name: Option<String>,
    pub(super) target_value: Option<QuantityText>,
    pub(super) selector: Option<RawLabelSelector>,
    pub(super) average_value: Option<QuantityText>,
}

#[derive(Deserialize, Default)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawV2beta1Pods {
    pub(super) metric_name: Option<String>,
    pub(super) target_average_value: Option<QuantityText>,
    pub(super) selector: Option<RawLabelSelector>,
}

#[derive(Deserialize, Default)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawV2beta1Resource {
    pub(super) name: Option<String>,
    pub(super) target_average_utilization: Option<i32>,
    pub(super) target_average_value: Option<QuantityText>,
}

#[derive(Deserialize, Default)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawV2beta1ContainerResource {
    pub(super) name: Option<String>,
    pub(super) target_average_utilization: Option<i32>,
    pub(super) target_average_value: Option<QuantityText>,
    pub(super) container: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawV2beta1External {
    pub(super) metric_name: Option<String>,
    pub(super) metric_selector: Option<RawLabelSelector>,
    pub(super) target_value: Option<QuantityText>,
    pub(super) target_average_value: Option<QuantityText>,
}

/// Go's zero `resource.Quantity`, what a non-pointer quantity field holds when absent.
fn zero() -> QuantityText {
    QuantityText("0".to_owned())
}

fn identifier(name: Option<String>, selector: Option<RawLabelSelector>) -> Option<RawIdentifier> {
    Some(RawIdentifier { name, selector })
}

fn target(
    type_: &str,
    value: Option<QuantityText>,
    average_value: Option<QuantityText>,
    average_utilization: Option<i32>,
) -> Option<RawTarget> {
    Some(RawTarget {
        type_: Some(type_.to_owned()),
        value,
        average_value,
        average_utilization,
    })
}

/// A metric as `autoscaling/v2`, as upstream converts each source: the target type follows
/// from which fields are set; an Object metric's `targetValue` and a Pods metric's
/// `targetAverageValue` are always set (zero when absent), being plain values in Go.
pub(super) fn metric_to_v2(m: RawV2beta1Metric) -> RawMetricSpec {
    RawMetricSpec {
        type_: m.type_,
        object: m.object.map(|o| RawObjectSource {
            described_object: Some(o.target.unwrap_or_default()),
            metric: identifier(o.metric_name, o.selector),
            target: {
                let type_ = if o.average_value.is_none() {
                    "Value"
                } else {
                    "AverageValue"
                };
                target(
                    type_,
                    Some(o.target_value.unwrap_or_else(zero)),
                    o.average_value,
                    None,
                )
            },
        }),
        pods: m.pods.map(|p| RawPodsSource {
            metric: identifier(p.metric_name, p.selector),
            target: target(
                "AverageValue",
                None,
                Some(p.target_average_value.unwrap_or_else(zero)),
                None,
            ),
        }),
        resource: m.resource.map(|r| RawResourceSource {
            name: r.name,
            target: resource_target(r.target_average_utilization, r.target_average_value),
        }),
        container_resource: m.container_resource.map(|r| RawContainerResourceSource {
            name: r.name,
            target: resource_target(r.target_average_utilization, r.target_average_value),
            container: r.container,
        }),
        external: m.external.map(|e| RawPodsSource {
            metric: identifier(e.metric_name, e.metric_selector),
            target: {
                let type_ = if e.target_value.is_none() {
                    "AverageValue"
                } else {
                    "Value"
                };
                target(type_, e.target_value, e.target_average_value, None)
            },
        }),
    }
}

fn resource_target(
    utilization: Option<i32>,
    average_value: Option<QuantityText>,
) -> Option<RawTarget> {
    let type_ = if utilization.is_none() {
        "AverageValue"
    } else {
        "Utilization"
    };
    target(type_, None, average_value, utilization)
}

/// The object as `autoscaling/v2`: each metric converted, the behavior annotation restored
/// (ignored when malformed, as upstream does, with a note).
pub(super) fn to_v2(raw: RawV2beta1Hpa) -> Result<Converted, TraceError> {
    let spec = raw.spec.unwrap_or_default();
    let metadata = raw.metadata.unwrap_or_default();
    let mut notes = Vec::new();
    let behavior = annotations::behavior(&metadata, &mut notes);
    let metrics = spec
        .metrics
        .map(|metrics| metrics.into_iter().map(metric_to_v2).collect());
    let bounds = (spec.scale_target_ref, spec.min_replicas, spec.max_replicas);
    Ok(Converted::new(metadata, bounds, metrics, behavior, notes))
}
