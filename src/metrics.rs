//! Per-metric dispatch, error wrapping and the multi-metric rule (docs/spec/metrics.md).

use core::fmt;

pub use crate::calculator::Reading;
use crate::calculator::{self, CalcContext, CalcError, PodTarget};
use crate::conditions::Reason;
use crate::input::{MetricValues, Observation};
use crate::quantity::Quantity;
use crate::settings::Settings;
use crate::spec::{MetricSourceType, MetricSpec, MetricTargetType};
use crate::tuning::FAST_FORMS;

/// The most metrics one HPA may list in this engine (Kubernetes has no limit; real HPAs use
/// a handful). Bounds the size of a [`crate::Decision`].
pub const MAX_METRICS: usize = 8;

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
fn route_and_selector<'a>(spec: &MetricSpec<'a>) -> Option<(Route<'a>, bool)> {
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

/// Why one metric produced no proposal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MetricFailure<'a> {
    /// The calculator failed.
    Calc(CalcError<'a>),
    /// The target fields name no usable target.
    InvalidSource,
    /// The metric's label selector cannot be converted.
    InvalidSelector,
    /// The caller passed values of the wrong shape for this metric's source.
    WrongValues,
}

/// A failed metric together with its spec, so that it can be rendered as upstream's error.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MetricError<'a> {
    /// The metric.
    pub spec: &'a MetricSpec<'a>,
    /// What went wrong.
    pub failure: MetricFailure<'a>,
}

/// One metric's result.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MetricOutcome<'a> {
    /// The metric proposed a replica count.
    Proposal(MetricProposal<'a>),
    /// The metric is invalid this time.
    Error(MetricError<'a>),
}

/// A metric's proposal and the current value it measured (the HPA's `currentMetrics`).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MetricProposal<'a> {
    /// The metric.
    pub spec: &'a MetricSpec<'a>,
    /// Proposed replicas.
    pub replicas: i32,
    /// `current.averageUtilization`.
    pub average_utilization: Option<i32>,
    /// `current.averageValue` in milli-units.
    pub average_value: Option<i64>,
    /// `current.value` in milli-units.
    pub value: Option<i64>,
    /// The proposal is the current count because the usage ratio was inside the tolerance.
    /// (Whether a reading was out of the ordinary is [`reading`]'s to say.)
    pub within_tolerance: bool,
}

impl<'a> MetricProposal<'a> {
    /// The name upstream uses in reasons and messages, e.g.
    /// `cpu resource utilization (percentage of request)`.
    pub fn name(&self) -> MetricName<'a> {
        MetricName(self.spec)
    }
}

/// Renders a metric's name as upstream does in `<name> above target`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MetricName<'a>(pub &'a MetricSpec<'a>);

struct Selector<'a>(Option<&'a str>);

impl fmt::Display for Selector<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.unwrap_or("<nil>"))
    }
}

impl fmt::Display for MetricName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let spec = self.0;
        match route(spec) {
            Some(Route::Pods {
                resource: Some(resource),
                container,
                target: PodTarget::Utilization(_),
            }) => {
                let container = if container.is_some() {
                    " container"
                } else {
                    ""
                };
                write!(
                    f,
                    "{resource}{container} resource utilization (percentage of request)"
                )
            }
            Some(Route::Pods {
                resource: Some(resource),
                ..
            }) => write!(f, "{resource} resource"),
            Some(Route::Pods { resource: None, .. }) => match &spec.pods {
                Some(p) => write!(f, "pods metric {}", p.metric.name),
                None => Ok(()),
            },
            Some(Route::Usage {
                external: false,
                per_pod: false,
                ..
            }) => match &spec.object {
                Some(o) => write!(f, "{} metric {}", o.described_object.kind, o.metric.name),
                None => Ok(()),
            },
            // Upstream names per-pod Object metrics "external metric" too.
            Some(Route::Usage { external, .. }) => {
                let metric = if external {
                    spec.external.map(|e| e.metric)
                } else {
                    spec.object.map(|o| o.metric)
                };
                match metric {
                    Some(m) => write!(f, "external metric {}({})", m.name, Selector(m.selector)),
                    None => Ok(()),
                }
            }
            None => Ok(()),
        }
    }
}

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
            CalcError::SampleCountMismatch { pods, samples } => write!(
                f,
                "per-pod samples do not line up with the pod list ({samples} sample slots for {pods} pods)"
            ),
        }
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

/// Evaluates one metric (docs/spec/metrics.md#target-routing): what upstream's
/// `computeReplicasForMetric` returns.
pub fn evaluate_metric<'a>(
    ctx: &CalcContext<'_, 'a>,
    spec: &'a MetricSpec<'a>,
    values: &MetricValues<'a>,
) -> MetricOutcome<'a> {
    // Through `evaluate_metric_into`, not the shared body inlined a second time: one copy
    // of the calculators' call tree (two made the firmware's deepest stack 160 bytes deeper).
    let mut outcome = fail(spec, MetricFailure::InvalidSource);
    evaluate_metric_into(&mut outcome, ctx, spec, values);
    outcome
}

/// [`evaluate_metric`] into `out`: the reconcile evaluates straight into its decision's
/// slot (a returned outcome went through a 56-byte temporary and a copy).
#[inline(never)]
pub(crate) fn evaluate_metric_into<'a>(
    out: &mut MetricOutcome<'a>,
    ctx: &CalcContext<'_, 'a>,
    spec: &'a MetricSpec<'a>,
    values: &MetricValues<'a>,
) {
    *out = outcome(ctx, spec, values);
}

/// The body of [`evaluate_metric_into`], inlined there so that its exits write into `out`.
#[inline(always)]
fn outcome<'a>(
    ctx: &CalcContext<'_, 'a>,
    spec: &'a MetricSpec<'a>,
    values: &MetricValues<'a>,
) -> MetricOutcome<'a> {
    let checked = route_and_selector(spec);
    // One exit for every failure (each inlined exit copies the failure into the outcome).
    let calculate = || {
        let Some((route, selector_invalid)) = checked else {
            return Err(MetricFailure::InvalidSource);
        };
        if selector_invalid {
            return Err(MetricFailure::InvalidSelector);
        }
        match (route, values) {
            (_, MetricValues::Error(msg)) => Err(CalcError::Fetch(msg)),
            (
                Route::Pods {
                    resource,
                    container,
                    target,
                },
                MetricValues::Pods(s),
            ) => calculator::pod_metric::<{ FAST_FORMS }>(ctx, s, resource, container, target),
            (
                Route::Usage {
                    external: false,
                    per_pod,
                    target,
                },
                MetricValues::Object(v),
            ) => calculator::usage_metric(ctx, Ok(*v), target, per_pod),
            (
                Route::Usage {
                    external: true,
                    per_pod,
                    target,
                },
                MetricValues::External(vs),
            ) => calculator::usage_metric(ctx, Err(vs), target, per_pod),
            _ => return Err(MetricFailure::WrongValues),
        }
        .map_err(MetricFailure::Calc)
    };
    let c = match calculate() {
        Ok(c) => c,
        Err(failure) => return fail(spec, failure),
    };
    // Value targets of Object and External metrics report `current.value`, the others
    // `current.averageValue` (and utilization targets `current.averageUtilization`).
    let value_target = matches!(checked, Some((Route::Usage { per_pod: false, .. }, _)));
    MetricOutcome::Proposal(MetricProposal {
        spec,
        replicas: c.replicas,
        average_utilization: c.utilization,
        average_value: (!value_target).then_some(c.raw_milli),
        value: value_target.then_some(c.raw_milli),
        within_tolerance: c.within_tolerance,
    })
}

/// Whether the readings of metric `spec` (`values`, observed in `obs`) include one that
/// upstream's arithmetic takes as it is with results a user would not expect: a negative value
/// the calculation uses, or an External series sum that upstream's guard takes as MaxInt64
/// (docs/parity.md, "Readings upstream takes as they are"). The engine keeps upstream's
/// arithmetic; this says when it mattered.
/// Apart from the evaluation (a second look at the readings, which the evaluation itself does
/// not pay for): `hpa replay` prints it per metric and `--explain` explains it, and the C API
/// fills `hpa_metric_result.reading` with it. `Plain` for values that do not fit the metric.
pub fn reading(
    spec: &MetricSpec<'_>,
    values: &MetricValues<'_>,
    obs: &Observation<'_>,
    settings: &Settings,
) -> Reading {
    match (route(spec), values) {
        (
            Some(Route::Pods {
                resource,
                container,
                target,
            }),
            MetricValues::Pods(samples),
        ) => {
            let requests = matches!(target, PodTarget::Utilization(_));
            calculator::pod_reading((obs, settings), samples, resource, container, requests)
        }
        (
            Some(Route::Usage {
                external: false, ..
            }),
            MetricValues::Object(v),
        ) => calculator::usage_reading(Ok(*v), false),
        (
            Some(Route::Usage {
                external: true,
                per_pod,
                ..
            }),
            MetricValues::External(vs),
        ) => calculator::usage_reading(Err(vs), per_pod),
        _ => Reading::Plain,
    }
}

/// A failed metric's outcome.
pub(crate) fn fail<'a>(spec: &'a MetricSpec<'a>, failure: MetricFailure<'a>) -> MetricOutcome<'a> {
    MetricOutcome::Error(MetricError { spec, failure })
}

/// The multi-metric result (docs/spec/metrics.md#combination).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Combined<'a> {
    /// The largest proposal (0 when every metric failed), and the metric that made it.
    pub replicas: i32,
    /// Index of the winning metric, if any metric was valid.
    pub winner: Option<usize>,
    /// Number of invalid metrics.
    pub invalid: usize,
    /// The first invalid metric.
    pub first_error: Option<MetricError<'a>>,
    /// Scaling cannot proceed: every metric failed, or some failed and the rest would
    /// scale down.
    pub failed: bool,
}

/// Combines per-metric outcomes (docs/spec/metrics.md#combination): the maximum wins; ties keep the
/// earliest, except that while the running result is 0 every later valid metric replaces it.
pub fn combine<'a>(outcomes: &[MetricOutcome<'a>], current: i32) -> Combined<'a> {
    let t = tally(outcomes, current);
    Combined {
        replicas: t.replicas,
        winner: t.winner.map(|(i, _)| i),
        invalid: t.invalid,
        first_error: t.first_error.copied(),
        failed: t.failed,
    }
}

/// [`combine`] by reference, for the reconcile: the winner and the first error stay where
/// they are (no copy of a 32-byte error through a temporary).
pub(crate) struct Tally<'o, 'a> {
    pub replicas: i32,
    pub winner: Option<(usize, &'o MetricProposal<'a>)>,
    pub invalid: usize,
    pub first_error: Option<&'o MetricError<'a>>,
    pub failed: bool,
}

/// [`combine`]'s rule (docs/spec/metrics.md#combination).
pub(crate) fn tally<'o, 'a>(outcomes: &'o [MetricOutcome<'a>], current: i32) -> Tally<'o, 'a> {
    let mut replicas = 0;
    let mut winner = None;
    let mut invalid = 0_usize;
    let mut first_error = None;
    for (i, outcome) in outcomes.iter().enumerate() {
        match outcome {
            MetricOutcome::Error(e) => {
                first_error.get_or_insert(e);
                invalid = invalid.saturating_add(1);
            }
            MetricOutcome::Proposal(p) => {
                if replicas == 0 || p.replicas > replicas {
                    replicas = p.replicas;
                    winner = Some((i, p));
                }
            }
        }
    }
    let failed = invalid >= outcomes.len() || (invalid > 0 && replicas < current);
    Tally {
        replicas,
        winner,
        invalid,
        first_error,
        failed,
    }
}

/// Upstream's aggregated error: `invalid metrics (K invalid out of N), first error is: …`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct InvalidMetricsError<'a> {
    /// Number of invalid metrics.
    pub invalid: usize,
    /// Number of metrics.
    pub total: usize,
    /// The first invalid metric's error.
    pub first: MetricError<'a>,
}

impl fmt::Display for InvalidMetricsError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid metrics ({} invalid out of {}), first error is: {}",
            self.invalid, self.total, self.first
        )
    }
}
