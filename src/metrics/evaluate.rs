//! One metric's outcome (docs/spec/metrics.md#target-routing): its target routed to its
//! calculator, the proposal or the failure.

use super::route::{route_and_selector, Route};
use super::{fail, MetricFailure, MetricOutcome, MetricProposal};
use crate::calculator::{self, CalcContext, CalcError, Ctx};
use crate::input::{MetricValuesIn, MetricValuesOf, PodSource, PodView, SampleSlot, SampleView};
use crate::spec::MetricSpec;
use crate::tuning::FAST_FORMS;

/// Evaluates one metric (docs/spec/metrics.md#target-routing): what upstream's
/// `computeReplicasForMetric` returns.
pub fn evaluate_metric<'a, P, T, O>(
    ctx: &CalcContext<'_, 'a, P, T, O>,
    spec: &'a MetricSpec<'a>,
    values: &MetricValuesOf<'a, T, O>,
) -> MetricOutcome<'a>
where
    P: PodView<'a> + 'a,
    T: SampleSlot<'a, Sample = O> + 'a,
    O: SampleView<'a> + 'a,
{
    // Through `evaluate_metric_into`, not the shared body inlined a second time: one copy
    // of the calculators' call tree (two made the firmware's deepest stack 160 bytes deeper).
    let mut outcome = fail(spec, MetricFailure::InvalidSource);
    evaluate_metric_into::<(P, T, O)>(&mut outcome, ctx, spec, values);
    outcome
}

/// [`evaluate_metric`] into `out`: the reconcile evaluates straight into its decision's
/// slot (a returned outcome went through a 56-byte temporary and a copy). Out of line: inlined
/// into both callers, about 1 KB more code and 136 bytes more stack on a Cortex-M0.
#[inline(never)]
pub(crate) fn evaluate_metric_into<'a, S: PodSource<'a>>(
    out: &mut MetricOutcome<'a>,
    ctx: &Ctx<'_, 'a, S>,
    spec: &'a MetricSpec<'a>,
    values: &MetricValuesIn<'a, S>,
) {
    *out = outcome::<S>(ctx, spec, values);
}

/// The body of [`evaluate_metric_into`], inlined there so that its exits write into `out` (48
/// bytes less code on a Cortex-M0 than a call).
#[inline(always)]
fn outcome<'a, S: PodSource<'a>>(
    ctx: &Ctx<'_, 'a, S>,
    spec: &'a MetricSpec<'a>,
    values: &MetricValuesIn<'a, S>,
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
            (_, MetricValuesOf::Error(msg)) => Err(CalcError::Fetch(msg)),
            (
                Route::Pods {
                    resource,
                    container,
                    target,
                },
                MetricValuesOf::Pods(s),
            ) => calculator::pod_metric::<S, { FAST_FORMS }>(ctx, s, resource, container, target),
            (
                Route::Usage {
                    external,
                    per_pod,
                    target,
                },
                values,
            ) => {
                // One call for both sources (two cost 60 bytes more code on a Cortex-M0).
                let values = match (external, values) {
                    (false, MetricValuesOf::Object(v)) => Ok(*v),
                    (true, MetricValuesOf::External(vs)) => Err(*vs),
                    _ => return Err(MetricFailure::WrongValues),
                };
                calculator::usage_metric::<S>(ctx, values, target, per_pod)
            }
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

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::arith::Tolerances;
    use crate::calculator::PodTarget;
    use crate::input::{Container, Native, Observation, PodPhase, PodSamples, Sample};
    use crate::metrics::MetricOutcome;
    use crate::settings::Settings;

    /// A ContainerResource sample that lacks the metric's container (no containers at all,
    /// or others only) is a missing pod (upstream since PR #127193,
    /// docs/spec/metrics.md#metrics-apis): the proposal is the one of the same observation without
    /// that pod's sample, scaling up and down; an orphan sample without the container counts for
    /// nothing. When no pod has the container, the metric fails as upstream's does once the metrics
    /// API answered ("did not receive metrics for targeted pods"), not as for an empty answer.
    #[test]
    #[allow(clippy::indexing_slicing)]
    fn sample_without_the_named_container_is_a_missing_pod() {
        use crate::input::{ConditionStatus, ContainerKind, ContainerUsage, MetricValues, Pod};
        use crate::input::{ReadyCondition, ResourceRequest};
        use crate::quantity::Quantity;
        use crate::spec::{MetricSpec, MetricTarget};
        use crate::time::{Duration, Instant};
        fn sample<'a>(containers: &'a [ContainerUsage<'a>]) -> Sample<'a> {
            Sample {
                milli: 900,
                timestamp: Instant(-1_000),
                window: Duration::from_secs(60),
                containers,
            }
        }
        let request = |milli| {
            [ResourceRequest {
                resource: "cpu",
                quantity: Quantity::from_milli(milli),
            }]
        };
        let (app, sidecar) = (request(500), request(100));
        let containers = [
            Container {
                name: "app",
                kind: ContainerKind::Regular,
                requests: &app,
            },
            Container {
                name: "sidecar",
                kind: ContainerKind::Regular,
                requests: &sidecar,
            },
        ];
        let pods = [Pod {
            name: "p",
            phase: PodPhase::Running,
            ready: Some(ReadyCondition {
                status: ConditionStatus::True,
                last_transition: Some(Instant(-3_600_000)),
            }),
            start_time: Some(Instant(-3_700_000)),
            deleted: false,
            containers: &containers,
            requests: None,
        }; 4];
        let spec = MetricSpec::container_resource("cpu", "app", MetricTarget::utilization(50));
        // The outcome of both pass forms and of `evaluate_metric`, at 4 current replicas.
        let outcome = |per_pod: &[Option<Sample<'_>>], orphans: &[Sample<'_>]| {
            let (settings, tolerance) = (Settings::DEFAULT, crate::tolerance::Tolerance::DEFAULT);
            let obs = Observation {
                now: Instant(0),
                replicas: 4,
                status_replicas: 4,
                pods: &pods,
                metrics: &[],
            };
            let ctx = CalcContext {
                obs: &obs,
                settings: &settings,
                tolerances: Tolerances {
                    down: tolerance,
                    up: tolerance,
                },
                current: 4,
            };
            let values = PodSamples { per_pod, orphans };
            let target = PodTarget::Utilization(50);
            let wide = calculator::pod_metric::<Native, true>(
                &ctx,
                &values,
                Some("cpu"),
                Some("app"),
                target,
            );
            let narrow = calculator::pod_metric::<Native, false>(
                &ctx,
                &values,
                Some("cpu"),
                Some("app"),
                target,
            );
            assert_eq!(wide, narrow);
            // What the outcome says, without its borrows of the samples (they end with the call).
            match evaluate_metric(&ctx, &spec, &MetricValues::Pods(values)) {
                MetricOutcome::Proposal(p) => Ok((
                    p.replicas,
                    p.average_utilization,
                    p.average_value,
                    p.within_tolerance,
                )),
                MetricOutcome::Error(e) => Err(std::format!("{e}")),
            }
        };
        let sidecar_only = [ContainerUsage {
            name: "sidecar",
            milli: 90,
        }];
        // The missing pod counts as using nothing scaling up (80 % measured, 60 % rebalanced:
        // 4 × 1.2 → 5) and as using its request scaling down (10 % measured, 32.5 %
        // rebalanced: 4 × 0.65 → 3; an ignored pod would give 3 × 0.2 → 1).
        for (usage, replicas) in [(400, 5), (50, 3)] {
            let used = [
                sidecar_only[0],
                ContainerUsage {
                    name: "app",
                    milli: usage,
                },
            ];
            let ready = Some(sample(&used));
            let expected = outcome(&[ready, None, ready, ready], &[]);
            let utilization = i32::try_from(usage / 5).ok();
            assert_eq!(
                expected,
                Ok((replicas, utilization, Some(usage), false)),
                "{usage}"
            );
            for lacking in [sample(&[]), sample(&sidecar_only)] {
                let with = [ready, Some(lacking), ready, ready];
                assert_eq!(outcome(&with, &[]), expected, "{usage} {lacking:?}");
                assert_eq!(outcome(&with, &[lacking]), expected, "{usage} {lacking:?}");
            }
        }
        // No pod has the container: the metrics API answered, no pod has a sample.
        let lacking = [Some(sample(&sidecar_only)), Some(sample(&[])), None, None];
        let message = "failed to get app container metric value: failed to get cpu \
                       utilization: did not receive metrics for targeted pods (pods might be \
                       unready)";
        assert_eq!(outcome(&lacking, &[]), Err(message.into()));
    }
}
