//! The calculators, one per metric source and target type, and their proposal rules
//! (docs/spec/calculator.md).

use core::cmp::Ordering;

use super::fast::Fast;
use super::pass::{pod_pass, Plain, PodPass};
use super::ratio::{count, measure};
use super::{CalcContext, CalcError, Calculation, Ctx, PodTarget};
use crate::arith::{self, Ratio};
use crate::input::{ConditionStatus, PodPhase, PodSamplesIn, PodSource, PodView};

/// The pod-based calculators: `GetResourceReplicas` (utilization targets,
/// docs/spec/calculator.md#utilization) and `calcPlainMetricReplicas` (Resource/ContainerResource
/// average-value targets and Pods metrics, docs/spec/calculator.md#average-value). `resource` is
/// `None` for Pods metrics. The pass over the pods runs in its fast form when `FAST`: the
/// evaluation passes [`crate::tuning::FAST_FORMS`], the tests both.
// Inlined into the one caller on small targets: with the view-generic pass, a Cortex-M0's
// engine code fits its budget only so (register allocation of `evaluate_metric_into`).
#[cfg_attr(not(target_pointer_width = "64"), inline(always))]
pub(crate) fn pod_metric<'a, S: PodSource<'a>, const FAST: bool>(
    ctx: &Ctx<'_, 'a, S>,
    samples: &PodSamplesIn<'a, S>,
    resource: Option<&'a str>,
    container: Option<&'a str>,
    target: PodTarget,
) -> Result<Calculation, CalcError<'a>> {
    // Filled in place (a returned pass would be copied out of a `Result`); zeroed first,
    // which is smaller on a Cortex-M0.
    let mut pass = PodPass::default();
    #[cfg(feature = "older-controllers")]
    older::container_in_every_sample::<S>(ctx, samples, container)?;
    // A missing pod is filled in below target with `fill`: utilization, its request ×
    // max(target, 100 %); an average, the target itself.
    let (requests, fill) = match (target, resource) {
        (PodTarget::Utilization(percent), Some(r)) => (Some(r), missing_fill_percent(ctx, percent)),
        (PodTarget::Utilization(_), None) => (None, 0),
        (PodTarget::Average(milli), _) => (None, milli),
    };
    if FAST {
        pod_pass::<S, Fast<'a, S>>(ctx, samples, container, resource, requests, fill, &mut pass)?;
    } else {
        pod_pass::<S, Plain<'a, S>>(ctx, samples, container, resource, requests, fill, &mut pass)?;
    }
    let entries = pass.ready.wrapping_add(pass.orphans);
    if entries == 0 {
        return Err(CalcError::NoReadyPodMetrics);
    }
    if let Some(e) = pass.first_request_error {
        return Err(CalcError::Request(e));
    }
    let mode = ctx.settings.arithmetic;
    let utilization = matches!(target, PodTarget::Utilization(_));
    // Orphan samples count in averages of plain values, not in utilization (whose raw value
    // is the ready pods' average).
    let first_entries = if utilization {
        pass.ready
    } else {
        pass.value_sum.add_sum(pass.orphan_sum);
        entries
    };
    let (ratio, percent, raw_milli) =
        measure(mode, target, &pass, first_entries).ok_or(CalcError::NoMatchingRequests)?;

    // Without missing pods, and unless unready pods are to be counted on a scale-up, the
    // first pass decides (docs/spec/calculator.md#utilization, step f): the current count inside
    // the tolerance band, else `ceil(ratio × ready pods)`.
    let side = ratio.cmp_one();
    let (below, above) = (
        side == Some(Ordering::Less),
        side == Some(Ordering::Greater),
    );
    let scale_up_with_unready = pass.unready > 0 && above;
    let second = scale_up_with_unready || pass.missing != 0;
    let second_ratio;
    let (new_ratio, n) = if second {
        // Second pass: missing pods count as at the target below it (utilization: their
        // request × max(target, 100 %)) and as 0 above it; unready pods as 0 on a scale-up.
        let mut entries = entries;
        let fill_missing = below || above;
        // Before 1.28 a plain target's missing pods count as 0 unless below 1, so also at
        // exactly 1 (docs/spec/releases.md#plain-missing-at-one).
        #[cfg(feature = "older-controllers")]
        let fill_missing = fill_missing
            || (!below && !utilization && ctx.settings.controller.plain_missing_unless_below());
        if fill_missing {
            entries = entries.wrapping_add(pass.missing);
            pass.request_sum.add_sum(pass.missing_requests);
            if below {
                pass.value_sum.add_sum(pass.missing_fill);
            }
        }
        if scale_up_with_unready {
            entries = entries.wrapping_add(pass.unready);
            pass.request_sum.add_sum(pass.unready_requests);
        }
        let Some((ratio, ..)) = measure(mode, target, &pass, entries) else {
            return Err(CalcError::NoMatchingRequests);
        };
        second_ratio = ratio;
        (&second_ratio, entries)
    } else {
        (&ratio, pass.ready)
    };
    let (replicas, within_tolerance) = proposal(ctx, (below, above), new_ratio, count(n), second);
    Ok(Calculation {
        replicas,
        utilization: percent,
        raw_milli,
        within_tolerance,
    })
}

/// The proposal of the pod-based calculators and whether the tolerance band held it at the
/// current count: after the first pass (docs/spec/calculator.md#utilization, step f), the current
/// count inside the band, else `ceil(ratio × count)`; after the `second` (steps i-k), also the
/// current count when the ratio crossed 1 (the first ratio was `below` or `above` 1) or the
/// proposal moved against the new ratio. The ratio by reference: either pass's, without a copy.
fn proposal<P, T, O>(
    ctx: &CalcContext<'_, '_, P, T, O>,
    (below, above): (bool, bool),
    new_ratio: &Ratio,
    count: i64,
    second: bool,
) -> (i32, bool) {
    if within(ctx, *new_ratio) {
        return (ctx.current, true);
    }
    let new_side = new_ratio.cmp_one();
    let (less, greater) = (Some(Ordering::Less), Some(Ordering::Greater));
    // Never after the first pass, where both ratios are the same.
    let flipped = (below && new_side == greater) || (above && new_side == less);
    if flipped {
        return (ctx.current, false);
    }
    let replicas = new_ratio.ceil_times(count);
    if second
        && ((new_side == less && replicas > ctx.current)
            || (new_side == greater && replicas < ctx.current))
    {
        return (ctx.current, false);
    }
    (replicas, false)
}

/// The tolerance test of the release (docs/spec/calculator.md#tolerances): the band of the HPA's
/// tolerances, or before 1.33 the controller flag's distance from 1
/// (docs/spec/releases.md#tolerance-test).
// Always inlined: out of line, its two calls cost 16 bytes more code on a Cortex-M0 without
// the `exact` feature.
#[inline(always)]
fn within<P, T, O>(ctx: &CalcContext<'_, '_, P, T, O>, ratio: Ratio) -> bool {
    #[cfg(feature = "older-controllers")]
    if ctx.settings.controller.distance_tolerance() {
        return ratio.within_distance(&ctx.settings.tolerance);
    }
    ratio.within(&ctx.tolerances)
}

/// The percent of its request a missing pod is filled in with below a utilization target:
/// max(target, 100 %), or 100 % before 1.26 (docs/spec/releases.md#missing-pod-fill).
fn missing_fill_percent<P, T, O>(ctx: &CalcContext<'_, '_, P, T, O>, target_percent: i32) -> i64 {
    #[cfg(feature = "older-controllers")]
    if ctx.settings.controller.missing_pods_at_request() {
        return 100;
    }
    // Without `older-controllers` the release is not read.
    let _ = ctx;
    i64::from(target_percent.max(100))
}

/// `getReadyPodsCount`: Running pods whose Ready condition is True (deleted ones included).
fn ready_running_pods<'a, S: PodSource<'a>>(ctx: &Ctx<'_, 'a, S>) -> Result<i64, CalcError<'a>> {
    if ctx.obs.pods.is_empty() {
        return Err(CalcError::ReadyPodsNoPods);
    }
    let ready = ctx
        .obs
        .pods
        .iter()
        .filter(|p| {
            p.phase() == PodPhase::Running
                && p.ready().is_some_and(|r| r.status == ConditionStatus::True)
        })
        .count();
    Ok(i64::try_from(ready).unwrap_or(i64::MAX))
}

/// The usage of an Object metric (`values` is `Ok(value)`) or an External metric (`Err`
/// with its series) in milli-units: its value, or the series' sum with upstream's overflow
/// rule for the target type.
fn usage<'a>(values: Result<i64, &[i64]>, per_pod: bool) -> Result<i64, CalcError<'a>> {
    let series = match values {
        Ok(value) => return Ok(value),
        Err(series) => series,
    };
    if series.is_empty() {
        return Err(CalcError::NoExternalMetrics);
    }
    Ok(series_sum(series, per_pod).unwrap_or(i64::MAX))
}

/// An External series' sum with upstream's overflow rule for the target type: `None` where
/// upstream takes it as MaxInt64. `GetExternalPerPodMetricReplicas`: a running sum that leaves
/// [0, MaxInt64] is upstream's overflow signal. `GetExternalMetricReplicas`: a positive
/// overflow ends the sum at MaxInt64, a negative one saturates.
pub(super) fn series_sum(series: &[i64], per_pod: bool) -> Option<i64> {
    let mut sum: i64 = 0;
    for &v in series {
        sum = match sum.checked_add(v) {
            Some(s) if per_pod && s < 0 => return None,
            Some(s) => s,
            None if per_pod || v >= 0 => return None,
            None => i64::MIN,
        };
    }
    Some(sum)
}

/// Object and External metrics (`values` as for [`usage`]): `GetObjectMetricReplicas` and
/// `GetExternalMetricReplicas` for value targets (docs/spec/calculator.md#object-value,
/// docs/spec/calculator.md#external-value), measured against the ready pods;
/// `GetObjectPerPodMetricReplicas` and `GetExternalPerPodMetricReplicas` for average-value targets
/// (`per_pod`, docs/spec/calculator.md#object-average-value,
/// docs/spec/calculator.md#external-average-value), measured against `status.replicas`.
// Inlined into the one caller on small targets: with the view-generic pass, a Cortex-M0's
// engine code fits its budget only so (register allocation of `evaluate_metric_into`).
#[cfg_attr(not(target_pointer_width = "64"), inline(always))]
pub(crate) fn usage_metric<'a, S: PodSource<'a>>(
    ctx: &Ctx<'_, 'a, S>,
    values: Result<i64, &[i64]>,
    target_milli: i64,
    per_pod: bool,
) -> Result<Calculation, CalcError<'a>> {
    let external = values.is_err();
    let usage = usage(values, per_pod)?;
    let mode = ctx.settings.arithmetic;
    // `usage / target`, for both target types: the per-pod proposal is its ceiling.
    let ratio = arith::ratio(mode, usage, target_milli);
    let status_replicas = ctx.obs.status_replicas;
    // One tolerance test for both: per pod, of the ratio to the target times
    // `status.replicas` (always); for value targets (`getUsageRatioReplicaCount`, spec
    // 10.3), of `ratio` with a current count, else `ceil(ratio)` from zero.
    let (tested, held) = if per_pod {
        (
            arith::per_pod_ratio(mode, usage, target_milli, status_replicas),
            status_replicas,
        )
    } else {
        (ratio, ctx.current)
    };
    let within_tolerance = (per_pod || ctx.current != 0) && within(ctx, tested);
    let replicas = if within_tolerance {
        held
    } else if per_pod || ctx.current == 0 {
        // `int32(ceil(usage / target))`; from zero replicas `ceil(ratio × 1)`, the same
        // (× 1.0 is exact). `x > MaxInt32 → MaxInt32, else int32(ceil(x))` is a saturating
        // ceil.
        ratio.ceil_times(1)
    } else {
        ratio.ceil_times(ready_running_pods::<S>(ctx)?)
    };
    let raw_milli = if !per_pod {
        usage
    } else if external && arith::reaches_max_i64(mode, usage) {
        i64::MAX
    } else {
        arith::ceil_div_i64(mode, usage, i64::from(status_replicas))
    };
    Ok(Calculation {
        replicas,
        utilization: None,
        raw_milli,
        within_tolerance,
    })
}

/// The rules of older releases' metrics client (docs/spec/releases.md).
#[cfg(feature = "older-controllers")]
mod older {
    use super::super::{sample_value, CalcError, Ctx};
    use crate::input::{PodSamplesIn, PodSource, PodView, SampleSlot};

    /// Before the newest release, the metrics client fails a ContainerResource metric when a
    /// sample has no usage of the named container (docs/spec/releases.md#missing-container):
    /// the first such sample in pod order, then the unlisted pods' samples. A container that
    /// has usage of another resource only is absent from the engine's input, so it counts as
    /// absent. With samples not lined up with the pods, the pass reports that instead.
    pub(super) fn container_in_every_sample<'a, S: PodSource<'a>>(
        ctx: &Ctx<'_, 'a, S>,
        samples: &PodSamplesIn<'a, S>,
        container: Option<&'a str>,
    ) -> Result<(), CalcError<'a>> {
        let Some(name) = container else {
            return Ok(());
        };
        if !ctx.settings.controller.missing_container_fails()
            || samples.per_pod.len() != ctx.obs.pods.len()
        {
            return Ok(());
        }
        let listed = ctx.obs.pods.iter().zip(samples.per_pod.iter());
        let first_listed = listed
            .filter_map(|(pod, slot)| slot.sample().map(|s| (Some(pod.name()), s)))
            .find(|(_, s)| sample_value(*s, container).is_none());
        let first = first_listed.or_else(|| {
            samples
                .orphans
                .iter()
                .map(|s| (None, s))
                .find(|(_, s)| sample_value(*s, container).is_none())
        });
        match first {
            Some((pod, _)) => Err(CalcError::ContainerNotInMetrics {
                container: name,
                pod,
            }),
            None => Ok(()),
        }
    }
}
