//! A failed metric's ScalingActive reason and upstream's error text for it.

use core::fmt;

use super::name::Selector;
use super::route::{route, Route};
use super::{MetricError, MetricFailure};
use crate::calculator::{CalcError, PodTarget};
use crate::conditions::Reason;
use crate::spec::{MetricSourceType, MetricSpec};

impl MetricError<'_> {
    /// The ScalingActive reason this failure sets.
    pub fn reason(&self) -> Reason {
        match self.spec.type_ {
            Some(MetricSourceType::Resource) => Reason::FailedGetResourceMetric,
            Some(MetricSourceType::ContainerResource) => Reason::FailedGetContainerResourceMetric,
            Some(MetricSourceType::Pods) => Reason::FailedGetPodsMetric,
            Some(MetricSourceType::Object) => Reason::FailedGetObjectMetric,
            Some(MetricSourceType::External) => Reason::FailedGetExternalMetric,
            None => Reason::InvalidMetricSourceType,
        }
    }
}

/// The calculator error text, with the fetch wrapping of the metric's source.
struct CalcText<'e, 'a>(&'e MetricSpec<'a>, &'e CalcError<'a>);

impl fmt::Display for CalcText<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let spec = self.0;
        let fetch_failed = |f: &mut fmt::Formatter<'_>, msg: &dyn fmt::Display| match spec.type_ {
            Some(MetricSourceType::Resource) | Some(MetricSourceType::ContainerResource) => {
                let resource = spec
                    .resource
                    .map(|r| r.name)
                    .or(spec.container_resource.map(|r| r.name))
                    .unwrap_or("");
                write!(f, "unable to get metrics for resource {resource}: {msg}")
            }
            Some(MetricSourceType::Pods) => {
                let name = spec.pods.map(|p| p.metric.name).unwrap_or("");
                write!(f, "unable to get metric {name}: {msg}")
            }
            Some(MetricSourceType::Object) => match &spec.object {
                Some(o) => write!(
                    f,
                    "unable to get metric {}: {} on {}/{msg}",
                    o.metric.name, o.described_object.kind, o.described_object.name
                ),
                None => write!(f, "{msg}"),
            },
            Some(MetricSourceType::External) | None => match &spec.external {
                Some(e) => write!(
                    f,
                    "unable to get external metric {}/{}: {msg}",
                    e.metric.name,
                    Selector(e.metric.selector)
                ),
                None => write!(f, "{msg}"),
            },
        };
        match self.1 {
            CalcError::Fetch(msg) => fetch_failed(f, msg),
            CalcError::NoResourceMetrics => {
                fetch_failed(f, &"no metrics returned from resource metrics API")
            }
            CalcError::NoCustomMetrics => fetch_failed(f, &"no metrics returned from custom metrics API"),
            CalcError::NoExternalMetrics => {
                fetch_failed(f, &"no metrics returned from external metrics API")
            }
            CalcError::NoPods => f.write_str("no pods returned by selector while calculating replica count"),
            CalcError::NoReadyPodMetrics => {
                f.write_str("did not receive metrics for targeted pods (pods might be unready)")
            }
            CalcError::NoMatchingRequests => f.write_str("no metrics returned matched known pods"),
            CalcError::Request(e) => write!(f, "{e}"),
            CalcError::ReadyPodsNoPods => f.write_str(
                "unable to calculate ready pods: no pods returned by selector while calculating replica count",
            ),
            #[cfg(feature = "older-controllers")]
            CalcError::ContainerNotInMetrics { container, pod } => {
                let missing = |f: &mut fmt::Formatter<'_>| -> fmt::Result {
                    write!(f, "failed to get container metrics: container {container} not present in metrics for ")?;
                    match pod {
                        Some(pod) => write!(f, "pod {pod}"),
                        None => f.write_str("an unlisted pod"),
                    }
                };
                fetch_failed(f, &Fmt(missing))
            }
            CalcError::SampleCountMismatch { pods, samples } => write!(
                f,
                "per-pod samples do not line up with the pod list ({samples} sample slots for {pods} pods)"
            ),
        }
    }
}

/// A closure's text, for [`CalcText`]'s wrapping.
#[cfg(feature = "older-controllers")]
struct Fmt<F>(F);

#[cfg(feature = "older-controllers")]
impl<F: Fn(&mut fmt::Formatter<'_>) -> fmt::Result> fmt::Display for Fmt<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (self.0)(f)
    }
}

impl fmt::Display for MetricError<'_> {
    /// Upstream's error text for this metric, as passed on by `computeReplicasForMetric`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let spec = self.spec;
        let inner = |f: &mut fmt::Formatter<'_>| -> fmt::Result {
            match self.failure {
                MetricFailure::Calc(e) => write!(f, "{}", CalcText(spec, &e)),
                MetricFailure::InvalidSelector => f.write_str("invalid metric label selector"),
                MetricFailure::WrongValues => {
                    f.write_str("the values passed for this metric do not fit its source type")
                }
                MetricFailure::InvalidSource => match spec.type_ {
                    Some(MetricSourceType::Resource) | Some(MetricSourceType::ContainerResource) => f.write_str(
                        "invalid resource metric source: neither an average utilization target nor an average value (usage) target was set",
                    ),
                    Some(MetricSourceType::Object) => f.write_str(
                        "invalid object metric source: neither a value target nor an average value target was set",
                    ),
                    Some(MetricSourceType::External) => f.write_str(
                        "invalid external metric source: neither a value target nor an average value target was set",
                    ),
                    Some(MetricSourceType::Pods) => f.write_str("invalid pods metric source: no average value target was set"),
                    None => f.write_str("unknown metric source type"),
                },
            }
        };
        let calc_level = matches!(
            self.failure,
            MetricFailure::Calc(_) | MetricFailure::WrongValues
        );
        match (spec.type_, route(spec)) {
            (Some(MetricSourceType::Resource), r)
            | (Some(MetricSourceType::ContainerResource), r) => {
                match (&spec.resource, &spec.container_resource) {
                    (Some(res), _) => {
                        write!(f, "failed to get {} resource metric value: ", res.name)?
                    }
                    (None, Some(c)) => {
                        write!(f, "failed to get {} container metric value: ", c.container)?
                    }
                    _ => {}
                }
                match r {
                    Some(Route::Pods {
                        resource: Some(resource),
                        target,
                        ..
                    }) if calc_level => match target {
                        PodTarget::Utilization(_) => {
                            write!(f, "failed to get {resource} utilization: ")?
                        }
                        PodTarget::Average(_) => write!(f, "failed to get {resource} usage: ")?,
                    },
                    _ => {}
                }
                inner(f)
            }
            (Some(MetricSourceType::Pods), _) => {
                f.write_str("failed to get pods metric value: ")?;
                inner(f)
            }
            (Some(MetricSourceType::Object), r) => {
                f.write_str("failed to get object metric value: ")?;
                if let (Some(Route::Usage { per_pod: true, .. }), true, Some(o)) =
                    (r, calc_level, &spec.object)
                {
                    write!(f, "failed to get {} object metric: ", o.metric.name)?;
                }
                inner(f)
            }
            (Some(MetricSourceType::External), r) => {
                let name = spec.external.map(|e| e.metric.name).unwrap_or("");
                write!(f, "failed to get {name} external metric value: ")?;
                if let Some(Route::Usage { per_pod, .. }) = r {
                    if calc_level || self.failure == MetricFailure::InvalidSelector {
                        if per_pod {
                            write!(f, "failed to get {name} external metric: ")?
                        } else {
                            write!(f, "failed to get external metric {name}: ")?
                        }
                    }
                }
                inner(f)
            }
            (None, _) => inner(f),
        }
    }
}
