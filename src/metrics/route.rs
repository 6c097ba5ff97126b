//! A metric's target read the way the upstream controller reads it, and the calculator it goes
//! to (docs/spec/metrics.md#target-routing).

use crate::calculator::PodTarget;
use crate::quantity::Quantity;
use crate::spec::{MetricSourceType, MetricSpec, MetricTargetType};

/// How one metric is evaluated, after reading its target fields as upstream does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Route<'a> {
    /// A metric of per-pod samples: Resource and ContainerResource (`resource` set,
    /// `container` for ContainerResource) and Pods metrics.
    Pods {
        resource: Option<&'a str>,
        container: Option<&'a str>,
        target: PodTarget,
    },
    /// An Object (`external` false) or External metric, with a value target or, when
    /// `per_pod`, an average-value target.
    Usage {
        external: bool,
        per_pod: bool,
        target: i64,
    },
}

fn milli(q: Option<Quantity>) -> Option<i64> {
    q.map(|q| q.milli_value())
}

/// Reads a metric's target the way the upstream controller does
/// (docs/spec/metrics.md#target-routing, docs/spec/trace-format.md#rule-22); `None` when the spec
/// names no usable target (only possible past validation for Object metrics whose `target.type`
/// does not match the populated field).
pub(crate) fn route<'a>(spec: &MetricSpec<'a>) -> Option<Route<'a>> {
    route_and_selector(spec).map(|(route, _)| route)
}

/// [`route`], and whether the metric's label selector cannot be converted (never for
/// resource metrics): one match on the source type for both.
pub(super) fn route_and_selector<'a>(spec: &MetricSpec<'a>) -> Option<(Route<'a>, bool)> {
    let pods = |resource, container, target| Route::Pods {
        resource,
        container,
        target,
    };
    let usage = |external, per_pod, target| Route::Usage {
        external,
        per_pod,
        target,
    };
    let resource_target = |t: &crate::spec::MetricTarget| match milli(t.average_value) {
        Some(target) => Some(PodTarget::Average(target)),
        None => t.average_utilization.map(PodTarget::Utilization),
    };
    match spec.type_ {
        Some(MetricSourceType::Resource) => spec
            .resource
            .as_ref()
            .and_then(|r| Some((pods(Some(r.name), None, resource_target(&r.target)?), false))),
        Some(MetricSourceType::ContainerResource) => {
            spec.container_resource.as_ref().and_then(|r| {
                Some((
                    pods(Some(r.name), Some(r.container), resource_target(&r.target)?),
                    false,
                ))
            })
        }
        Some(MetricSourceType::Pods) => spec.pods.as_ref().and_then(|p| {
            let target = milli(p.target.average_value)?;
            Some((
                pods(None, None, PodTarget::Average(target)),
                p.metric.selector_invalid,
            ))
        }),
        // Only the target field that is used is read.
        Some(MetricSourceType::Object) => spec.object.as_ref().and_then(|o| {
            let route = match o.target.type_ {
                Some(MetricTargetType::Value) => usage(false, false, milli(o.target.value)?),
                Some(MetricTargetType::AverageValue) => {
                    usage(false, true, milli(o.target.average_value)?)
                }
                _ => return None,
            };
            Some((route, o.metric.selector_invalid))
        }),
        Some(MetricSourceType::External) => spec.external.as_ref().and_then(|e| {
            let route = match milli(e.target.average_value) {
                Some(target) => usage(true, true, target),
                None => usage(true, false, milli(e.target.value)?),
            };
            Some((route, e.metric.selector_invalid))
        }),
        None => None,
    }
}
