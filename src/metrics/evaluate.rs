//! One metric's outcome (docs/spec/metrics.md#target-routing): its target routed to its
//! calculator, the proposal or the failure.

use super::route::{route_and_selector, Route};
use super::{fail, MetricFailure, MetricOutcome, MetricProposal};
use crate::calculator::{self, CalcContext, CalcError};
use crate::input::MetricValues;
use crate::spec::MetricSpec;
use crate::tuning::FAST_FORMS;

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
/// slot (a returned outcome went through a 56-byte temporary and a copy). Out of line: inlined
/// into both callers, about 1 KB more code and 136 bytes more stack on a Cortex-M0.
#[inline(never)]
pub(crate) fn evaluate_metric_into<'a>(
    out: &mut MetricOutcome<'a>,
    ctx: &CalcContext<'_, 'a>,
    spec: &'a MetricSpec<'a>,
    values: &MetricValues<'a>,
) {
    *out = outcome(ctx, spec, values);
}

/// The body of [`evaluate_metric_into`], inlined there so that its exits write into `out` (48
/// bytes less code on a Cortex-M0 than a call).
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
