//! `autoscaling/v2beta2`: the fields of `autoscaling/v2` but for the per-direction
//! `tolerance`, which the API server keeps in two annotations for the round trip.

use serde::Deserialize;

use super::annotations;
use super::{Converted, RawHpaStatus, RawMeta};
use crate::trace::raw::{RawBehavior, RawMetricSpec, RawObjectRef, RawPolicy, RawRules};
use crate::trace::strict::objects_only;
use crate::trace::TraceError;

objects_only! {
    RawV2beta2Hpa => "an autoscaling/v2beta2 HorizontalPodAutoscaler object",
    RawV2beta2Spec => "an autoscaling/v2beta2 HorizontalPodAutoscalerSpec object",
    RawV2beta2Behavior => "an autoscaling/v2beta2 HorizontalPodAutoscalerBehavior object",
    RawV2beta2Rules => "an autoscaling/v2beta2 HPAScalingRules object",
}

#[derive(Deserialize)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)] // The type meta and status are read for their types only.
pub(in crate::trace) struct RawV2beta2Hpa {
    api_version: Option<String>,
    kind: Option<String>,
    metadata: Option<RawMeta>,
    spec: Option<RawV2beta2Spec>,
    status: Option<RawHpaStatus>,
}

#[derive(Deserialize, Default)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
struct RawV2beta2Spec {
    scale_target_ref: Option<RawObjectRef>,
    min_replicas: Option<i32>,
    max_replicas: Option<i32>,
    metrics: Option<Vec<RawMetricSpec>>,
    behavior: Option<RawV2beta2Behavior>,
}

#[derive(Deserialize)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
struct RawV2beta2Behavior {
    scale_up: Option<RawV2beta2Rules>,
    scale_down: Option<RawV2beta2Rules>,
}

#[derive(Deserialize)]
#[serde(remote = "Self", deny_unknown_fields, rename_all = "camelCase")]
struct RawV2beta2Rules {
    stabilization_window_seconds: Option<i32>,
    select_policy: Option<String>,
    policies: Option<Vec<RawPolicy>>,
}

impl From<RawV2beta2Rules> for RawRules {
    fn from(rules: RawV2beta2Rules) -> Self {
        RawRules {
            stabilization_window_seconds: rules.stabilization_window_seconds,
            select_policy: rules.select_policy,
            policies: rules.policies,
            tolerance: None,
        }
    }
}

/// The object as `autoscaling/v2`: the tolerance annotations restored into the behavior (an
/// annotation that is not a quantity fails the conversion upstream, and is an error here).
pub(super) fn to_v2(raw: RawV2beta2Hpa) -> Result<Converted, TraceError> {
    let spec = raw.spec.unwrap_or_default();
    let mut behavior = spec.behavior.map(|b| RawBehavior {
        scale_up: b.scale_up.map(RawRules::from),
        scale_down: b.scale_down.map(RawRules::from),
    });
    let metadata = raw.metadata.unwrap_or_default();
    for (key, up) in [
        (annotations::SCALE_UP_TOLERANCE, true),
        (annotations::SCALE_DOWN_TOLERANCE, false),
    ] {
        if let Some(text) = metadata.annotation(key) {
            let tolerance = annotations::tolerance(key, text)?;
            let behavior = behavior.get_or_insert(RawBehavior {
                scale_up: None,
                scale_down: None,
            });
            let rules = if up {
                &mut behavior.scale_up
            } else {
                &mut behavior.scale_down
            };
            rules.get_or_insert_with(RawRules::default).tolerance = Some(tolerance);
        }
    }
    let bounds = (spec.scale_target_ref, spec.min_replicas, spec.max_replicas);
    Ok(Converted::new(
        metadata,
        bounds,
        spec.metrics,
        behavior,
        Vec::new(),
    ))
}
