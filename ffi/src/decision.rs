//! What C reads back: a decision, and the status with its conditions and their messages.

use core::ffi::c_char;
use core::fmt;
use core::mem::MaybeUninit;

use hpa::conditions::{Condition, Conditions, Reason};
use hpa::input::MetricValuesOf;
use hpa::metrics::{self, MetricError, MetricName, MetricOutcome, Reading};
use hpa::quantity::{build_quantity_milli, Format};
use hpa::spec::{MetricSourceType, MetricSpec};
use hpa::{Decision, RescaleReason, Settings};

use crate::enums::{self, hpa_metric_outcome, hpa_metric_source_type, hpa_rescale_reason};
use crate::out::{elements, field};
use crate::quantity::{decimal_si_milli, DECIMAL_SI_MILLI_BYTES};
use crate::text::{
    i32_decimal, write_display_uninit, write_pieces_uninit, write_str_uninit, written_str, Stored,
    Text, I32_DECIMAL_BYTES,
};
use crate::view::CObservation;
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
///
/// It need not be initialized before the call. The call writes every member, each text up to
/// its NUL, and the first `metrics_len` metrics and `conditions_len` conditions; it leaves
/// the bytes after a text's NUL and the entries past those counts as they were (compare
/// decisions member by member, not with `memcmp`).
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

/// The HorizontalPodAutoscaler's status, written by `hpa_autoscaler_scaling_status`: every
/// member, each text up to its NUL, and the first `conditions_len` conditions (as
/// `hpa_decision`).
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

/// A metric's name as upstream writes it ([`MetricName`]), formatted once for the texts of an
/// evaluation that repeat it (the metric's result, the rescale reason, the ScalingActive
/// message) and copied into each: the name is a function of the metric's spec alone. Names a
/// kept configuration holds (formatted by `hpa_autoscaler_configure`) are not formatted again.
pub(crate) struct Names<'k> {
    /// The address of the evaluation's first metric spec; `known[i]` is the name of the spec
    /// `i` places further.
    first: usize,
    known: &'k [Option<&'k str>],
    /// The address of the spec whose name `buf` holds, or null.
    spec: *const (),
    buf: [MaybeUninit<u8>; HPA_MESSAGE_CAPACITY],
    /// The name's length, or `None` when it does not fit in `buf` (longer than any text it
    /// goes into: it is then formatted into each, to be cut as that text cuts it).
    len: Option<usize>,
}

impl<'k> Names<'k> {
    /// No name formatted yet; `known[i]`, when set, is the name of `metrics[i]`.
    pub(crate) fn new(metrics: &[MetricSpec<'_>], known: &'k [Option<&'k str>]) -> Names<'k> {
        Names {
            first: metrics.as_ptr() as usize,
            known: known.get(..metrics.len()).unwrap_or(&[]),
            spec: core::ptr::null(),
            buf: [MaybeUninit::uninit(); HPA_MESSAGE_CAPACITY],
            len: None,
        }
    }

    /// The name of `spec`'s metric, or `None` when it is too long to keep whole. Specs are
    /// told apart by their address: while `self` lives, a spec is not changed.
    fn of(&mut self, spec: &MetricSpec<'_>) -> Option<&str> {
        if !self.known.is_empty() {
            let offset = (core::ptr::from_ref(spec) as usize).wrapping_sub(self.first);
            let size = core::mem::size_of::<MetricSpec<'_>>();
            if offset.is_multiple_of(size) {
                if let Some(&Some(name)) = self.known.get(offset / size) {
                    return Some(name);
                }
            }
        }
        let at = core::ptr::from_ref(spec).cast::<()>();
        if at != self.spec {
            let mut t = Text::uninit(&mut self.buf);
            let _ = fmt::write(&mut t, format_args!("{}", MetricName(spec)));
            self.len = t.finish_whole().map(str::len);
            self.spec = at;
        }
        let written = self.buf.get(..self.len?)?;
        // SAFETY: `finish_whole` returned the first `len` bytes of `buf` as a `str`: they are
        // initialized UTF-8, and nothing wrote `buf` since.
        Some(unsafe { written_str(written) })
    }

    /// Writes the name of `spec`'s metric, followed by `after`, into a text.
    fn write(&mut self, out: &mut [MaybeUninit<c_char>], spec: &MetricSpec<'_>, after: &str) {
        match self.of(spec) {
            Some(name) if after.is_empty() => write_str_uninit(out, name),
            Some(name) => write_pieces_uninit(out, &[name, after]),
            None => write_display_uninit(out, &format_args!("{}{after}", MetricName(spec))),
        };
    }
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
    /// No message yet.
    pub(crate) const fn new() -> Messages {
        Messages {
            scaling_active: Stored::new(),
            update_failure: Stored::new(),
        }
    }

    /// Records the ScalingActive message of an evaluation that evaluated its metrics.
    pub(crate) fn after_evaluation(&mut self, decision: &Decision<'_>, names: &mut Names<'_>) {
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
                MetricOutcome::Proposal(p) => Some(p.spec),
                MetricOutcome::Error(_) => None,
            });
        const FROM: &str = "the HPA was able to successfully calculate a replica count from ";
        match winner {
            Some(spec) => match names.of(spec) {
                Some(name) => self.scaling_active.set_pieces(&[FROM, name]),
                None => self
                    .scaling_active
                    .set(&format_args!("{FROM}{}", MetricName(spec))),
            },
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

/// Kubernetes' message of a condition: a fixed text, the ScalingActive message kept in the
/// state, or a fixed text followed by the replica count or the caller's text, written in
/// pieces without `core::fmt` (each decision and status writes them).
fn write_condition_message(
    out: &mut [MaybeUninit<c_char>],
    condition: Condition,
    messages: &Messages,
    desired_replicas: i32,
) {
    match condition.reason {
        Reason::SucceededRescale => {
            let mut digits = [0; I32_DECIMAL_BYTES];
            write_pieces_uninit(
                out,
                &[
                    "the HPA controller was able to update the target scale to ",
                    i32_decimal(desired_replicas, &mut digits),
                ],
            )
        }
        Reason::FailedUpdateScale => write_pieces_uninit(
            out,
            &[
                "the HPA controller was unable to update the target scale: ",
                messages.update_failure.as_str(),
            ],
        ),
        Reason::ValidMetricFound
        | Reason::FailedGetResourceMetric
        | Reason::FailedGetContainerResourceMetric
        | Reason::FailedGetPodsMetric
        | Reason::FailedGetObjectMetric
        | Reason::FailedGetExternalMetric
        | Reason::InvalidMetricSourceType => {
            write_str_uninit(out, messages.scaling_active.as_str())
        }
        other => write_str_uninit(out, other.fixed_message().unwrap_or("")),
    };
}

/// Writes conditions into C condition structs, which need not be initialized; returns how
/// many. Entries past that count are not written.
pub(crate) fn write_conditions(
    out: &mut MaybeUninit<[hpa_condition; HPA_MAX_CONDITIONS]>,
    conditions: &Conditions,
    messages: &Messages,
    desired_replicas: i32,
) -> usize {
    let mut n = 0;
    for (slot, c) in elements(out).iter_mut().zip(conditions.iter()) {
        let slot_p = slot.as_mut_ptr();
        field!(slot_p, r#type).write(enums::condition_type_value(c.type_) as u32);
        field!(slot_p, status).write(enums::condition_status_value(c.status) as u32);
        field!(slot_p, reason).write(enums::reason_value(c.reason) as u32);
        write_condition_message(
            elements(field!(slot_p, message)),
            c,
            messages,
            desired_replicas,
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

/// A quantity's milli-units and its text, or 0 and "" when it is unset.
fn write_quantity(
    (has, milli, text): (
        &mut MaybeUninit<u32>,
        &mut MaybeUninit<i64>,
        &mut MaybeUninit<[c_char; HPA_QUANTITY_TEXT_CAPACITY]>,
    ),
    value: Option<i64>,
    format: Format,
) {
    has.write(u32::from(value.is_some()));
    milli.write(value.unwrap_or(0));
    match value {
        Some(v) if format == Format::DecimalSI => {
            let mut buf = [0; DECIMAL_SI_MILLI_BYTES];
            write_str_uninit(elements(text), decimal_si_milli(v, &mut buf))
        }
        Some(v) => write_display_uninit(elements(text), &build_quantity_milli(v, format)),
        None => write_str_uninit(elements(text), ""),
    };
}

/// The members of a metric's result that are numbers.
struct MetricNumbers {
    outcome: hpa_metric_outcome,
    replicas: i32,
    within_tolerance: bool,
    reading: Reading,
    average_utilization: Option<i32>,
    average_value: Option<i64>,
    value: Option<i64>,
    error_reason: u32,
}

/// Writes a metric's result, every member (0 or "" when it does not apply).
fn write_metric(
    out: &mut MaybeUninit<hpa_metric_result>,
    outcome: &MetricOutcome<'_>,
    reading: Reading,
    names: &mut Names<'_>,
) {
    let p = out.as_mut_ptr();
    // The numbers are taken in each arm, apart from the writes: writing a proposal's fields
    // straight from the outcome let the compiler load them, and branch on them, before it
    // checked the variant, and valgrind reported the bytes an error leaves unwritten as used.
    let (spec, numbers) = match outcome {
        MetricOutcome::Proposal(proposal) => (
            proposal.spec,
            MetricNumbers {
                outcome: hpa_metric_outcome::Proposal,
                replicas: proposal.replicas,
                within_tolerance: proposal.within_tolerance,
                reading,
                average_utilization: proposal.average_utilization,
                average_value: proposal.average_value,
                value: proposal.value,
                error_reason: 0,
            },
        ),
        MetricOutcome::Error(e) => (
            e.spec,
            MetricNumbers {
                outcome: hpa_metric_outcome::Error,
                replicas: 0,
                within_tolerance: false,
                reading: Reading::Plain,
                average_utilization: None,
                average_value: None,
                value: None,
                error_reason: enums::reason_value(e.reason()) as u32,
            },
        ),
    };
    field!(p, outcome).write(numbers.outcome as u32);
    field!(p, source).write(source_value(spec));
    field!(p, replicas).write(numbers.replicas);
    field!(p, within_tolerance).write(u32::from(numbers.within_tolerance));
    field!(p, reading).write(enums::reading_value(numbers.reading) as u32);
    field!(p, has_current_average_utilization)
        .write(u32::from(numbers.average_utilization.is_some()));
    field!(p, current_average_utilization).write(numbers.average_utilization.unwrap_or(0));
    let format = quantity_format(spec);
    write_quantity(
        (
            field!(p, has_current_average_value),
            field!(p, current_average_value_milli),
            field!(p, current_average_value_text),
        ),
        numbers.average_value,
        format,
    );
    write_quantity(
        (
            field!(p, has_current_value),
            field!(p, current_value_milli),
            field!(p, current_value_text),
        ),
        numbers.value,
        format,
    );
    field!(p, error_reason).write(numbers.error_reason);
    match outcome {
        MetricOutcome::Proposal(proposal) => {
            names.write(elements(field!(p, name)), proposal.spec, "");
            write_str_uninit(elements(field!(p, error)), "");
        }
        MetricOutcome::Error(e) => {
            names.write(elements(field!(p, name)), e.spec, "");
            write_display_uninit(elements(field!(p, error)), e);
        }
    }
}

/// Writes `decision`, the evaluation of an observation under settings (for each metric's
/// [`Reading`], `Plain` for pod-based metrics when the observation has no negative pod value),
/// into an `hpa_decision` that need not be initialized: every member, the texts up to their
/// NUL, the first `metrics_len` metrics and `conditions_len` conditions.
pub(crate) fn write_decision(
    out: &mut MaybeUninit<hpa_decision>,
    decision: &Decision<'_>,
    (obs, settings, pod_values_not_negative): (&CObservation<'_>, &Settings, bool),
    (messages, names): (&Messages, &mut Names<'_>),
    desired_replicas: i32,
) {
    let p = out.as_mut_ptr();
    field!(p, at_ms).write(decision.at.millis());
    field!(p, current_replicas).write(decision.current_replicas);
    field!(p, desired_replicas).write(decision.desired_replicas);
    field!(p, rescale).write(u32::from(decision.rescale));
    field!(p, rescale_reason).write(match decision.reason {
        RescaleReason::None => hpa_rescale_reason::None,
        RescaleReason::AboveTarget(_) => hpa_rescale_reason::AboveTarget,
        RescaleReason::AllBelowTarget => hpa_rescale_reason::AllBelowTarget,
        RescaleReason::AboveMaxReplicas => hpa_rescale_reason::AboveMaxReplicas,
        RescaleReason::BelowMinReplicas => hpa_rescale_reason::BelowMinReplicas,
    } as u32);
    let reason = elements(field!(p, reason));
    match decision.reason {
        RescaleReason::None => {
            write_str_uninit(reason, "");
        }
        RescaleReason::AboveTarget(MetricName(spec)) => {
            names.write(reason, spec, " above target");
        }
        _ => {
            write_display_uninit(reason, &decision.reason);
        }
    }
    field!(p, has_proposal).write(u32::from(decision.proposal.is_some()));
    field!(p, proposal).write(decision.proposal.unwrap_or(0));
    field!(p, has_stabilized).write(u32::from(decision.stabilized.is_some()));
    field!(p, stabilized).write(decision.stabilized.unwrap_or(0));
    field!(p, limited_by).write(enums::limited_by_value(decision.limited_by) as u32);
    field!(p, history_overflowed).write(u32::from(decision.history_overflowed));
    let invalid = decision.metrics_error.as_ref().map_or(0, |e| e.invalid);
    field!(p, invalid_metrics).write(u32::try_from(invalid).unwrap_or(u32::MAX));
    match &decision.metrics_error {
        Some(e) => write_display_uninit(elements(field!(p, metrics_error)), e),
        None => write_str_uninit(elements(field!(p, metrics_error)), ""),
    };
    let mut n = 0;
    let slots = elements(field!(p, metrics));
    for ((slot, outcome), values) in slots
        .iter_mut()
        .zip(decision.metrics.iter())
        .zip(obs.metrics)
    {
        let reading = match (outcome, values) {
            (MetricOutcome::Error(_), _) => Reading::Plain,
            (MetricOutcome::Proposal(_), MetricValuesOf::Pods(_)) if pod_values_not_negative => {
                Reading::Plain
            }
            (MetricOutcome::Proposal(p), _) => metrics::reading(p.spec, values, obs, settings),
        };
        write_metric(slot, outcome, reading, names);
        n += 1;
    }
    field!(p, metrics_len).write(n);
    let conditions = write_conditions(
        field!(p, conditions),
        &decision.conditions,
        messages,
        desired_replicas,
    );
    field!(p, conditions_len).write(conditions);
}
