//! What C reads back: a decision, and the status with its conditions and their messages.

use core::ffi::c_char;
use core::fmt;

use hpa::conditions::{Condition, Conditions, Reason};
use hpa::metrics::{self, MetricError, MetricName, MetricOutcome, MetricProposal, Reading};
use hpa::quantity::{build_quantity_milli, Format};
use hpa::spec::{MetricSourceType, MetricSpec};
use hpa::{Decision, Observation, RescaleReason, Settings};

use crate::enums::{self, hpa_metric_outcome, hpa_metric_source_type, hpa_rescale_reason};
use crate::text::{write_display, write_str, Stored, Text};
use crate::{
    HPA_MAX_CONDITIONS, HPA_MAX_METRICS, HPA_MESSAGE_CAPACITY, HPA_NAME_CAPACITY,
    HPA_QUANTITY_TEXT_CAPACITY,
};

/// One status condition with Kubernetes' message.
#[repr(C)]
pub struct hpa_condition {
    /// An `hpa_condition_type`.
    pub r#type: u32,
    /// An `hpa_condition_status`.
    pub status: u32,
    /// An `hpa_reason`.
    pub reason: u32,
    /// The message, as the Kubernetes controller writes it (e.g. "the HPA controller was able
    /// to update the target scale to 5").
    pub message: [c_char; HPA_MESSAGE_CAPACITY],
}

/// One metric's result: its proposal and the current value it measured, or its error.
#[repr(C)]
pub struct hpa_metric_result {
    /// An `hpa_metric_outcome`.
    pub outcome: u32,
    /// The metric's source, an `hpa_metric_source_type` (after defaulting).
    pub source: u32,
    /// The replica count the metric proposes (outcome `HPA_METRIC_OUTCOME_PROPOSAL`).
    pub replicas: i32,
    /// 1 when the proposal is the current count because the usage ratio was within the
    /// tolerance.
    pub within_tolerance: u32,
    /// An `hpa_reading`: whether a reading was negative or taken as MaxInt64 by upstream's
    /// overflow guard (outcome `HPA_METRIC_OUTCOME_PROPOSAL`; 0 otherwise).
    pub reading: u32,
    /// 1 when `current_average_utilization` is set (utilization targets).
    pub has_current_average_utilization: u32,
    /// `currentMetrics[].current.averageUtilization`, in percent.
    pub current_average_utilization: i32,
    /// 1 when `current_average_value_milli` is set.
    pub has_current_average_value: u32,
    /// 1 when `current_value_milli` is set.
    pub has_current_value: u32,
    /// `current.averageValue`, in milli-units.
    pub current_average_value_milli: i64,
    /// `current.value`, in milli-units.
    pub current_value_milli: i64,
    /// `current.averageValue` as Kubernetes prints it (`"250m"`, `"300Mi"`), or "".
    pub current_average_value_text: [c_char; HPA_QUANTITY_TEXT_CAPACITY],
    /// `current.value` as Kubernetes prints it, or "".
    pub current_value_text: [c_char; HPA_QUANTITY_TEXT_CAPACITY],
    /// For an error: the ScalingActive reason it sets (an `hpa_reason`), else 0.
    pub error_reason: u32,
    /// The name upstream gives the metric in messages (e.g. "cpu resource utilization
    /// (percentage of request)").
    pub name: [c_char; HPA_NAME_CAPACITY],
    /// For an error: upstream's error text, else "".
    pub error: [c_char; HPA_MESSAGE_CAPACITY],
}

/// The result of one evaluation, written by `hpa_autoscaler_evaluate`.
///
/// When `rescale` is 1, set the scale target to `desired_replicas`, then report the outcome
/// with `hpa_autoscaler_rescale_succeeded` or `hpa_autoscaler_rescale_failed`.
#[repr(C)]
pub struct hpa_decision {
    /// The evaluation time (`hpa_observation.now_ms`).
    pub at_ms: i64,
    /// The scale target's current replica count (`hpa_observation.replicas`).
    pub current_replicas: i32,
    /// The replica count to set when `rescale` is 1; otherwise what `status.desiredReplicas`
    /// shows (the current count, or the previous value when metrics failed).
    pub desired_replicas: i32,
    /// 1 when the caller should change the replica count.
    pub rescale: u32,
    /// Why, an `hpa_rescale_reason` (`reason` holds the text).
    pub rescale_reason: u32,
    /// 1 when `proposal` is set.
    pub has_proposal: u32,
    /// The metrics' combined proposal before normalization.
    pub proposal: i32,
    /// 1 when `stabilized` is set.
    pub has_stabilized: u32,
    /// The count after stabilization, before rate limits and min/max.
    pub stabilized: i32,
    /// The main rule that shaped the result, an `hpa_limited_by`.
    pub limited_by: u32,
    /// 1 when a history ring was full and its conservative summary influenced the result.
    pub history_overflowed: u32,
    /// The number of metrics that failed (`metrics_error` holds upstream's message).
    pub invalid_metrics: u32,
    /// The number of entries of `metrics`: one per metric when the metrics were evaluated,
    /// 0 when they were not (replicas outside [min, max], scaling disabled at zero).
    pub metrics_len: usize,
    /// The number of entries of `conditions`.
    pub conditions_len: usize,
    /// Upstream's rescale reason ("cpu resource utilization (percentage of request) above
    /// target", "All metrics below target", ...), or "".
    pub reason: [c_char; HPA_MESSAGE_CAPACITY],
    /// When some metric failed: "invalid metrics (K invalid out of N), first error is: ...",
    /// else "".
    pub metrics_error: [c_char; HPA_MESSAGE_CAPACITY],
    /// Each metric's result, in configuration order.
    pub metrics: [hpa_metric_result; HPA_MAX_METRICS],
    /// The status conditions after this evaluation, in Kubernetes' order (AbleToScale
    /// changes again when the rescale is reported).
    pub conditions: [hpa_condition; HPA_MAX_CONDITIONS],
}

/// The HorizontalPodAutoscaler's status, written by `hpa_autoscaler_scaling_status`.
#[repr(C)]
pub struct hpa_scaling_status {
    /// `status.desiredReplicas` (0 before the first decision).
    pub desired_replicas: i32,
    /// 1 when `last_scale_time_ms` is set.
    pub has_last_scale_time: u32,
    /// `status.lastScaleTime`: the evaluation time of the last successful rescale.
    pub last_scale_time_ms: i64,
    /// 1 when a decided rescale awaits its outcome.
    pub rescale_pending: u32,
    /// The number of entries of `conditions`.
    pub conditions_len: usize,
    /// The conditions, in Kubernetes' order.
    pub conditions: [hpa_condition; HPA_MAX_CONDITIONS],
}

/// Messages a condition keeps until it is set again, stored in the autoscaler state.
#[derive(Clone, Copy)]
#[repr(C)]
pub(crate) struct Messages {
    /// The ScalingActive message set by the last evaluation that evaluated metrics.
    pub(crate) scaling_active: Stored<HPA_MESSAGE_CAPACITY>,
    /// The caller's message for the last failed rescale.
    pub(crate) update_failure: Stored<HPA_MESSAGE_CAPACITY>,
}

impl Messages {
    /// Adds both messages to `f`.
    pub(crate) fn fingerprint(&self, f: &mut hpa::fingerprint::Fingerprint) {
        self.scaling_active.fingerprint(f);
        self.update_failure.fingerprint(f);
    }

    /// No message yet.
    pub(crate) const fn new() -> Messages {
        Messages {
            scaling_active: Stored::new(),
            update_failure: Stored::new(),
        }
    }

    /// Records the ScalingActive message of an evaluation that evaluated its metrics.
    pub(crate) fn after_evaluation(&mut self, decision: &Decision<'_>) {
        if decision.metrics.is_empty() {
            return;
        }
        if let Some(e) = decision
            .metrics_error
            .as_ref()
            .filter(|_| decision.limited_by == hpa::LimitedBy::InvalidMetrics)
        {
            self.scaling_active.set(&format_args!(
                "the HPA was unable to compute the replica count: {}",
                ConditionText(&e.first)
            ));
            return;
        }
        let combined = hpa::metrics::combine(&decision.metrics, decision.current_replicas);
        let winner = combined
            .winner
            .and_then(|i| decision.metrics.get(i))
            .and_then(|o| match o {
                MetricOutcome::Proposal(p) => Some(p.name()),
                MetricOutcome::Error(_) => None,
            });
        match winner {
            Some(name) => self.scaling_active.set(&format_args!(
                "the HPA was able to successfully calculate a replica count from {name}"
            )),
            None => self.scaling_active.set(&""),
        }
    }
}

/// The text a failed metric puts in the ScalingActive condition: its error without the
/// outermost "failed to get ... metric value: " that upstream adds when passing it on.
struct ConditionText<'e, 'a>(&'e MetricError<'a>);

impl fmt::Display for ConditionText<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut full = [0u8; HPA_MESSAGE_CAPACITY];
        let mut t = Text::new(&mut full);
        let _ = fmt::write(&mut t, format_args!("{}", self.0));
        let n = t.finish();
        let full = core::str::from_utf8(full.get(..n).unwrap_or(&[])).unwrap_or("");
        let mut prefix = [0u8; HPA_NAME_CAPACITY];
        let mut t = Text::new(&mut prefix);
        let _ = fmt::write(&mut t, format_args!("{}", OuterPrefix(self.0.spec)));
        let n = t.finish();
        let prefix = core::str::from_utf8(prefix.get(..n).unwrap_or(&[])).unwrap_or("");
        f.write_str(full.strip_prefix(prefix).unwrap_or(full))
    }
}

/// The wrapping `computeReplicasForMetric` adds to a metric's error.
struct OuterPrefix<'e, 'a>(&'e MetricSpec<'a>);

impl fmt::Display for OuterPrefix<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let spec = self.0;
        match spec.type_ {
            Some(MetricSourceType::Resource) | Some(MetricSourceType::ContainerResource) => {
                match (&spec.resource, &spec.container_resource) {
                    (Some(r), _) => write!(f, "failed to get {} resource metric value: ", r.name),
                    (None, Some(c)) => {
                        write!(f, "failed to get {} container metric value: ", c.container)
                    }
                    _ => Ok(()),
                }
            }
            Some(MetricSourceType::Pods) => f.write_str("failed to get pods metric value: "),
            Some(MetricSourceType::Object) => f.write_str("failed to get object metric value: "),
            Some(MetricSourceType::External) => {
                let name = spec.external.map(|e| e.metric.name).unwrap_or("");
                write!(f, "failed to get {name} external metric value: ")
            }
            None => Ok(()),
        }
    }
}

/// Kubernetes' message of a condition.
struct ConditionMessage<'m> {
    condition: Condition,
    messages: &'m Messages,
    desired_replicas: i32,
}

impl fmt::Display for ConditionMessage<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.condition.reason {
            Reason::SucceededRescale => write!(
                f,
                "the HPA controller was able to update the target scale to {}",
                self.desired_replicas
            ),
            Reason::FailedUpdateScale => write!(
                f,
                "the HPA controller was unable to update the target scale: {}",
                self.messages.update_failure
            ),
            Reason::ValidMetricFound
            | Reason::FailedGetResourceMetric
            | Reason::FailedGetContainerResourceMetric
            | Reason::FailedGetPodsMetric
            | Reason::FailedGetObjectMetric
            | Reason::FailedGetExternalMetric
            | Reason::InvalidMetricSourceType => f.write_str(self.messages.scaling_active.as_str()),
            other => f.write_str(other.fixed_message().unwrap_or("")),
        }
    }
}

/// Writes conditions into C condition structs (which start zeroed); returns how many.
pub(crate) fn write_conditions(
    out: &mut [hpa_condition; HPA_MAX_CONDITIONS],
    conditions: &Conditions,
    messages: &Messages,
    desired_replicas: i32,
) -> usize {
    let mut n = 0;
    for (slot, c) in out.iter_mut().zip(conditions.iter()) {
        slot.r#type = enums::condition_type_value(c.type_) as u32;
        slot.status = enums::condition_status_value(c.status) as u32;
        slot.reason = enums::reason_value(c.reason) as u32;
        write_display(
            &mut slot.message,
            &ConditionMessage {
                condition: c,
                messages,
                desired_replicas,
            },
        );
        n += 1;
    }
    n
}

/// `buildQuantity`: memory in BinarySI, everything else in DecimalSI (as `hpa replay`).
fn quantity_format(spec: &MetricSpec<'_>) -> Format {
    let resource = match spec.type_ {
        Some(MetricSourceType::Resource) => spec.resource.map(|r| r.name),
        Some(MetricSourceType::ContainerResource) => spec.container_resource.map(|r| r.name),
        _ => None,
    };
    if resource == Some("memory") {
        Format::BinarySI
    } else {
        Format::DecimalSI
    }
}

fn source_value(spec: &MetricSpec<'_>) -> u32 {
    spec.type_
        .map(|t| enums::metric_source_type_value(t) as u32)
        .unwrap_or(hpa_metric_source_type::Unset as u32)
}

fn write_proposal(out: &mut hpa_metric_result, p: &MetricProposal<'_>, reading: Reading) {
    out.outcome = hpa_metric_outcome::Proposal as u32;
    out.source = source_value(p.spec);
    out.replicas = p.replicas;
    out.within_tolerance = u32::from(p.within_tolerance);
    out.reading = enums::reading_value(reading) as u32;
    if let Some(u) = p.average_utilization {
        out.has_current_average_utilization = 1;
        out.current_average_utilization = u;
    }
    let format = quantity_format(p.spec);
    if let Some(v) = p.average_value {
        out.has_current_average_value = 1;
        out.current_average_value_milli = v;
        write_display(
            &mut out.current_average_value_text,
            &build_quantity_milli(v, format),
        );
    }
    if let Some(v) = p.value {
        out.has_current_value = 1;
        out.current_value_milli = v;
        write_display(
            &mut out.current_value_text,
            &build_quantity_milli(v, format),
        );
    }
    write_display(&mut out.name, &p.name());
}

fn write_error(out: &mut hpa_metric_result, e: &MetricError<'_>) {
    out.outcome = hpa_metric_outcome::Error as u32;
    out.source = source_value(e.spec);
    out.error_reason = enums::reason_value(e.reason()) as u32;
    write_display(&mut out.name, &MetricName(e.spec));
    write_display(&mut out.error, e);
}

/// Fills a zeroed `hpa_decision` with `decision`, the evaluation of an observation under
/// settings (for each metric's [`Reading`]).
pub(crate) fn write_decision(
    out: &mut hpa_decision,
    decision: &Decision<'_>,
    (obs, settings): (&Observation<'_>, &Settings),
    messages: &Messages,
    desired_replicas: i32,
) {
    out.at_ms = decision.at.millis();
    out.current_replicas = decision.current_replicas;
    out.desired_replicas = decision.desired_replicas;
    out.rescale = u32::from(decision.rescale);
    out.rescale_reason = match decision.reason {
        RescaleReason::None => hpa_rescale_reason::None,
        RescaleReason::AboveTarget(_) => hpa_rescale_reason::AboveTarget,
        RescaleReason::AllBelowTarget => hpa_rescale_reason::AllBelowTarget,
        RescaleReason::AboveMaxReplicas => hpa_rescale_reason::AboveMaxReplicas,
        RescaleReason::BelowMinReplicas => hpa_rescale_reason::BelowMinReplicas,
    } as u32;
    write_display(&mut out.reason, &decision.reason);
    if let Some(p) = decision.proposal {
        out.has_proposal = 1;
        out.proposal = p;
    }
    if let Some(s) = decision.stabilized {
        out.has_stabilized = 1;
        out.stabilized = s;
    }
    out.limited_by = enums::limited_by_value(decision.limited_by) as u32;
    out.history_overflowed = u32::from(decision.history_overflowed);
    match &decision.metrics_error {
        Some(e) => {
            out.invalid_metrics = u32::try_from(e.invalid).unwrap_or(u32::MAX);
            write_display(&mut out.metrics_error, e);
        }
        None => {
            write_str(&mut out.metrics_error, "");
        }
    }
    let mut n = 0;
    for ((slot, outcome), values) in out
        .metrics
        .iter_mut()
        .zip(decision.metrics.iter())
        .zip(obs.metrics)
    {
        match outcome {
            MetricOutcome::Proposal(p) => {
                write_proposal(slot, p, metrics::reading(p.spec, values, obs, settings));
            }
            MetricOutcome::Error(e) => write_error(slot, e),
        }
        n += 1;
    }
    out.metrics_len = n;
    out.conditions_len = write_conditions(
        &mut out.conditions,
        &decision.conditions,
        messages,
        desired_replicas,
    );
}
