//! Replica proposals per metric source and target type (algorithm spec section 10).
//!
//! Each function mirrors one upstream replica-calculator entry point. Pod-based calculators
//! make at most two passes over the pods and allocate nothing: sums replace upstream's
//! per-pod map, and the second pass recomputes what the first pass does not keep.

use crate::arith::{self, Ratio, Sum, Tolerances};
use crate::input::{ConditionStatus, Container, Observation, PodPhase, PodSamples};
use crate::input::{ResourceRequest, Sample};
use crate::pods::{group_pod, pod_request, PodGroup, Readiness, RequestError};
use crate::settings::Settings;

/// Why a calculator could not propose a replica count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CalcError<'a> {
    /// The metrics adapter failed with this message.
    Fetch(&'a str),
    /// The resource metrics API returned no sample at all.
    NoResourceMetrics,
    /// The external metrics API returned no value.
    NoExternalMetrics,
    /// The custom metrics API returned no value for any pod.
    NoCustomMetrics,
    /// No pod matched the selector.
    NoPods,
    /// Every sample belonged to an unready or ignored pod.
    NoReadyPodMetrics,
    /// No sample belonged to a pod with a request.
    NoMatchingRequests,
    /// A pod's request could not be computed.
    Request(RequestError<'a>),
    /// Counting ready pods for an Object/External value target found no pod.
    ReadyPodsNoPods,
    /// The caller passed samples that do not line up with the pod list.
    SampleCountMismatch {
        /// Number of pods.
        pods: usize,
        /// Number of per-pod sample slots.
        samples: usize,
    },
}

/// The proposal of one calculator and the current value it measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Calculation {
    /// Proposed replica count.
    pub replicas: i32,
    /// Measured utilization in percent of request (utilization targets only).
    pub utilization: Option<i32>,
    /// Measured raw value in milli-units: average per pod, or the total for value targets.
    pub raw_milli: i64,
    /// The proposal is the current count because the ratio was inside the tolerance band.
    pub within_tolerance: bool,
}

/// Everything a calculator needs besides its metric's own values.
#[derive(Clone, Copy, Debug)]
pub struct CalcContext<'o, 'a> {
    /// The observation (pods, replica counts, time).
    pub obs: &'o Observation<'a>,
    /// Controller settings (readiness periods, arithmetic mode).
    pub settings: &'o Settings,
    /// The HPA's tolerances.
    pub tolerances: Tolerances,
    /// `scale.spec.replicas`.
    pub current: i32,
}

impl CalcContext<'_, '_> {
    fn readiness(&self, cpu: bool) -> Readiness {
        Readiness {
            cpu,
            cpu_initialization_period: self.settings.cpu_initialization_period,
            initial_readiness_delay: self.settings.initial_readiness_delay,
            now: self.obs.now,
        }
    }
}

/// A sample's value for this metric: the named container's usage, or the pod's.
fn sample_value(sample: &Sample<'_>, container: Option<&str>) -> Option<i64> {
    match container {
        None => Some(sample.milli),
        Some(name) => sample
            .containers
            .iter()
            .find(|c| crate::pods::same(c.name, name))
            .map(|c| c.milli),
    }
}

/// Upstream's checks before grouping: the metrics API returned something, and some pod
/// matched the selector. `empty` is the error for an empty metrics response.
fn check_alignment<'a>(
    ctx: &CalcContext<'_, 'a>,
    samples: &PodSamples<'a>,
    empty: CalcError<'a>,
) -> Result<(), CalcError<'a>> {
    if samples.per_pod.len() != ctx.obs.pods.len() {
        return Err(CalcError::SampleCountMismatch {
            pods: ctx.obs.pods.len(),
            samples: samples.per_pod.len(),
        });
    }
    let any = samples
        .per_pod
        .iter()
        .flatten()
        .chain(samples.orphans.iter())
        .next()
        .is_some();
    if !any {
        return Err(empty);
    }
    if ctx.obs.pods.is_empty() {
        return Err(CalcError::NoPods);
    }
    Ok(())
}

/// Counts of the first pass over the pods.
#[derive(Clone, Copy, Default)]
struct FirstPass<'a> {
    ready: i64,
    unready: i64,
    missing: i64,
    /// Σ of ready pods' values (exact).
    value_sum: Sum,
    /// Σ of ready pods' requests (exact), utilization only.
    request_sum: Sum,
    first_request_error: Option<RequestError<'a>>,
}

impl FirstPass<'_> {
    /// Without missing pods, and unless unready pods are to be counted on a scale-up, the
    /// first pass decides (spec 10.1 f): the current count inside the tolerance band, else
    /// `ceil(ratio × ready pods)`. Returns the proposal and whether the band held it.
    fn decide(
        &self,
        ctx: &CalcContext<'_, '_>,
        ratio: Ratio,
        scale_up_with_unready: bool,
    ) -> Option<(i32, bool)> {
        if scale_up_with_unready || self.missing != 0 {
            return None;
        }
        Some(if ratio.within(&ctx.tolerances) {
            (ctx.current, true)
        } else {
            (ratio.ceil_times(self.ready), false)
        })
    }
}

/// Σ and count of orphan samples' values.
fn orphan_sums(samples: &PodSamples<'_>, container: Option<&str>) -> (Sum, i64) {
    let mut sum = Sum::default();
    let mut n: i64 = 0;
    for v in samples
        .orphans
        .iter()
        .filter_map(|s| sample_value(s, container))
    {
        sum.add(v);
        n = n.saturating_add(1);
    }
    (sum, n)
}

/// Container slice, pod-level request slice, and the request they give.
type CachedRequest<'a> = (&'a [Container<'a>], Option<&'a [ResourceRequest<'a>]>, i64);

/// The same pod-level request slice (or none on both sides).
#[inline(always)]
fn same_pod_level(a: Option<&[ResourceRequest<'_>]>, b: Option<&[ResourceRequest<'_>]>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => core::ptr::eq(a, b),
        _ => false,
    }
}

/// The first pass over the pods (spec 10.1 a-e, 10.2): each pod's group, the ready pods'
/// sums, and with `requests` (utilization targets) their requests for that resource.
#[inline(always)]
fn first_pass<'a>(
    ctx: &CalcContext<'_, 'a>,
    samples: &PodSamples<'a>,
    container: Option<&'a str>,
    requests: Option<&'a str>,
    cpu: bool,
) -> FirstPass<'a> {
    let pods = ctx.obs.pods;
    let readiness = ctx.readiness(cpu);
    // Counters and sums in locals, not in a struct: they stay in registers (a struct field
    // updated in memory every iteration made the loop wait on store-to-load forwarding).
    let (mut ready, mut unready, mut missing) = (0_i64, 0_i64, 0_i64);
    let mut value_sum = Sum::default();
    let mut request_sum = Sum::default();
    let mut first_request_error = None;
    // The last successful request, reused while consecutive pods share their container and
    // pod-level request slices (pods of one template, as callers that build their pods from
    // one spec pass them). Same slices, same data: the result is exact.
    let mut cached: Option<CachedRequest<'a>> = None;
    for (pod, slot) in pods.iter().zip(samples.per_pod.iter()) {
        // Every listed pod's request counts (an error fails the metric).
        let request = match requests {
            None => 0,
            Some(resource) => match cached {
                Some((containers, pod_level, milli))
                    if core::ptr::eq(containers, pod.containers)
                        && same_pod_level(pod_level, pod.requests) =>
                {
                    milli
                }
                _ => match pod_request(pod, container, resource) {
                    Ok(milli) => {
                        cached = Some((pod.containers, pod.requests, milli));
                        milli
                    }
                    Err(e) => {
                        first_request_error.get_or_insert(e);
                        0
                    }
                },
            },
        };
        let (sample, value) = match slot {
            Some(s) => match container {
                None => (Some(s), s.milli),
                Some(_) => match sample_value(s, container) {
                    Some(v) => (Some(s), v),
                    None => (None, 0),
                },
            },
            None => (None, 0),
        };
        match group_pod(pod, sample, &readiness) {
            PodGroup::Ready => {
                ready = ready.saturating_add(1);
                value_sum.add(value);
                request_sum.add(request);
            }
            PodGroup::Unready => unready = unready.saturating_add(1),
            PodGroup::Missing => missing = missing.saturating_add(1),
            PodGroup::Ignored => {}
        }
    }
    FirstPass {
        ready,
        unready,
        missing,
        value_sum,
        request_sum,
        first_request_error,
    }
}

/// `GetResourceReplicas`: Resource and ContainerResource metrics with a utilization target
/// (spec section 10.1).
#[inline(never)]
pub(crate) fn resource_utilization<'a>(
    ctx: &CalcContext<'_, 'a>,
    samples: &PodSamples<'a>,
    resource: &'a str,
    container: Option<&'a str>,
    target_percent: i32,
) -> Result<Calculation, CalcError<'a>> {
    check_alignment(ctx, samples, CalcError::NoResourceMetrics)?;
    let pods = ctx.obs.pods;
    let cpu = resource == "cpu";
    let readiness = ctx.readiness(cpu);
    let first = first_pass(ctx, samples, container, Some(resource), cpu);
    let (_, orphans) = orphan_sums(samples, container);
    if first.ready.saturating_add(orphans) == 0 {
        return Err(CalcError::NoReadyPodMetrics);
    }
    if let Some(e) = first.first_request_error {
        return Err(CalcError::Request(e));
    }
    let mode = ctx.settings.arithmetic;
    let (ratio, utilization) = utilization_ratio(
        mode,
        first.value_sum.clamped(),
        first.request_sum.clamped(),
        target_percent,
    )?;
    // Σ is clamped to int64 where upstream stores it; the average divides the clamped sum.
    let raw_milli = first
        .value_sum
        .clamped()
        .checked_div(first.ready)
        .unwrap_or(0);
    let result = |(replicas, within_tolerance)| Calculation {
        replicas,
        utilization: Some(utilization),
        raw_milli,
        within_tolerance,
    };

    let scale_up_with_unready = first.unready > 0 && ratio.above_one();
    if let Some(decided) = first.decide(ctx, ratio, scale_up_with_unready) {
        return Ok(result(decided));
    }

    // Second pass: fill in missing pods (and unready ones on a scale-up).
    let fallback = i128::from(target_percent.max(100));
    let mut value_sum = first.value_sum.total();
    let mut request_sum = first.request_sum.total();
    let mut entries = first.ready.saturating_add(orphans);
    for (pod, slot) in pods.iter().zip(samples.per_pod.iter()) {
        let value = slot.as_ref().and_then(|s| sample_value(s, container));
        let sample = slot.as_ref().filter(|_| value.is_some());
        let group = group_pod(pod, sample, &readiness);
        let filled = match group {
            PodGroup::Missing if ratio.below_one() => Some(true),
            PodGroup::Missing if ratio.above_one() => Some(false),
            PodGroup::Unready if scale_up_with_unready => Some(false),
            _ => None,
        };
        let Some(full) = filled else { continue };
        let request = i128::from(pod_request(pod, container, resource).unwrap_or(0));
        if full {
            let fill =
                arith::div_rem_i128(request.saturating_mul(fallback), 100).map_or(0, |(q, _)| q);
            let fill = arith::clamp_i64(fill);
            value_sum = value_sum.saturating_add(i128::from(fill));
        }
        request_sum = request_sum.saturating_add(request);
        entries = entries.saturating_add(1);
    }
    let (new_ratio, _) = utilization_ratio(
        mode,
        arith::clamp_i64(value_sum),
        arith::clamp_i64(request_sum),
        target_percent,
    )?;
    Ok(result(second_pass_replicas(ctx, ratio, new_ratio, entries)))
}

/// `GetResourceUtilizationRatio` on the sums (clamped to `int64` as upstream stores them):
/// the truncated percent and its ratio to the target.
fn utilization_ratio<'a>(
    mode: crate::settings::Arithmetic,
    values: i64,
    requests: i64,
    target_percent: i32,
) -> Result<(Ratio, i32), CalcError<'a>> {
    if requests == 0 {
        return Err(CalcError::NoMatchingRequests);
    }
    // `values * 100 / requests` is exact in 64 bits unless the product overflows.
    let percent = match values.checked_mul(100) {
        Some(v) => arith::clamp_i32(i128::from(v.checked_div(requests).unwrap_or(0))),
        None => arith::clamp_i32(
            arith::div_rem_i128(i128::from(values).saturating_mul(100), i128::from(requests))
                .map_or(0, |(q, _)| q),
        ),
    };
    Ok((
        arith::ratio(mode, i64::from(percent), i64::from(target_percent)),
        percent,
    ))
}

/// The shared ending of both pod-based calculators (spec 10.1 i-k): the proposal, and
/// whether the tolerance band held it at the current count.
fn second_pass_replicas(
    ctx: &CalcContext<'_, '_>,
    ratio: Ratio,
    new_ratio: Ratio,
    entries: i64,
) -> (i32, bool) {
    if new_ratio.within(&ctx.tolerances) {
        return (ctx.current, true);
    }
    let flipped = (ratio.below_one() && new_ratio.above_one())
        || (ratio.above_one() && new_ratio.below_one());
    if flipped {
        return (ctx.current, false);
    }
    let replicas = new_ratio.ceil_times(entries);
    if (new_ratio.below_one() && replicas > ctx.current)
        || (new_ratio.above_one() && replicas < ctx.current)
    {
        return (ctx.current, false);
    }
    (replicas, false)
}

/// `calcPlainMetricReplicas`: Resource/ContainerResource average-value targets and Pods
/// metrics (spec section 10.2). `resource` is `None` for Pods metrics.
#[inline(never)]
pub(crate) fn plain_average<'a>(
    ctx: &CalcContext<'_, 'a>,
    samples: &PodSamples<'a>,
    resource: Option<&'a str>,
    container: Option<&'a str>,
    target_milli: i64,
) -> Result<Calculation, CalcError<'a>> {
    let empty = match resource {
        Some(_) => CalcError::NoResourceMetrics,
        None => CalcError::NoCustomMetrics,
    };
    check_alignment(ctx, samples, empty)?;
    let first = first_pass(ctx, samples, container, None, resource == Some("cpu"));
    let (orphan_sum, orphans) = orphan_sums(samples, container);
    let entries = first.ready.saturating_add(orphans);
    if entries == 0 {
        return Err(CalcError::NoReadyPodMetrics);
    }
    let mode = ctx.settings.arithmetic;
    let total = first.value_sum.total().saturating_add(orphan_sum.total());
    let average = arith::clamp_i64(total).checked_div(entries).unwrap_or(0);
    let ratio = arith::ratio(mode, average, target_milli);
    let result = |(replicas, within_tolerance)| Calculation {
        replicas,
        utilization: None,
        raw_milli: average,
        within_tolerance,
    };

    let scale_up_with_unready = first.unready > 0 && ratio.above_one();
    if let Some(decided) = first.decide(ctx, ratio, scale_up_with_unready) {
        return Ok(result(decided));
    }

    let mut total = total;
    let mut entries = entries;
    if first.missing > 0 {
        if ratio.below_one() {
            let fill = i128::from(target_milli).saturating_mul(i128::from(first.missing));
            total = total.saturating_add(fill);
            entries = entries.saturating_add(first.missing);
        } else if ratio.above_one() {
            entries = entries.saturating_add(first.missing);
        }
    }
    if scale_up_with_unready {
        entries = entries.saturating_add(first.unready);
    }
    let new_average = arith::clamp_i64(total).checked_div(entries).unwrap_or(0);
    let new_ratio = arith::ratio(mode, new_average, target_milli);
    Ok(result(second_pass_replicas(ctx, ratio, new_ratio, entries)))
}

/// `getReadyPodsCount`: Running pods whose Ready condition is True (deleted ones included).
fn ready_running_pods<'a>(ctx: &CalcContext<'_, 'a>) -> Result<i64, CalcError<'a>> {
    if ctx.obs.pods.is_empty() {
        return Err(CalcError::ReadyPodsNoPods);
    }
    let ready = ctx
        .obs
        .pods
        .iter()
        .filter(|p| {
            p.phase == PodPhase::Running
                && p.ready.is_some_and(|r| r.status == ConditionStatus::True)
        })
        .count();
    Ok(i64::try_from(ready).unwrap_or(i64::MAX))
}

/// `getUsageRatioReplicaCount` (spec 10.3): tolerance and ready pods, or `ceil(ratio)` from
/// zero.
fn usage_ratio_replicas<'a>(
    ctx: &CalcContext<'_, 'a>,
    ratio: Ratio,
    raw_milli: i64,
) -> Result<Calculation, CalcError<'a>> {
    let (replicas, within_tolerance) = if ctx.current == 0 {
        (ratio.ceil_times(1), false)
    } else if ratio.within(&ctx.tolerances) {
        (ctx.current, true)
    } else {
        // `x > MaxInt32 → MaxInt32, else int32(ceil(x))` is a saturating ceil.
        (ratio.ceil_times(ready_running_pods(ctx)?), false)
    };
    Ok(Calculation {
        replicas,
        utilization: None,
        raw_milli,
        within_tolerance,
    })
}

/// `GetObjectMetricReplicas`: Object metric with a value target (spec 10.3).
pub(crate) fn object_value<'a>(
    ctx: &CalcContext<'_, 'a>,
    value_milli: i64,
    target_milli: i64,
) -> Result<Calculation, CalcError<'a>> {
    let ratio = arith::ratio(ctx.settings.arithmetic, value_milli, target_milli);
    usage_ratio_replicas(ctx, ratio, value_milli)
}

/// `GetObjectPerPodMetricReplicas` / the end of `GetExternalPerPodMetricReplicas`: per-pod
/// targets measured against `status.replicas` (spec 10.4, 10.6).
fn per_pod<'a>(
    ctx: &CalcContext<'_, 'a>,
    usage: i64,
    target_milli: i64,
    external: bool,
) -> Calculation {
    let mode = ctx.settings.arithmetic;
    let status_replicas = ctx.obs.status_replicas;
    let ratio = arith::per_pod_ratio(mode, usage, target_milli, status_replicas);
    let within_tolerance = ratio.within(&ctx.tolerances);
    let replicas = if within_tolerance {
        status_replicas
    } else {
        arith::ceil_div_i32(mode, usage, target_milli)
    };
    let raw_milli = if external && arith::reaches_max_i64(mode, usage) {
        i64::MAX
    } else {
        arith::ceil_div_i64(mode, usage, i64::from(status_replicas))
    };
    Calculation {
        replicas,
        utilization: None,
        raw_milli,
        within_tolerance,
    }
}

/// `GetObjectPerPodMetricReplicas`: Object metric with an average-value target (spec 10.4).
pub(crate) fn object_per_pod<'a>(
    ctx: &CalcContext<'_, 'a>,
    value_milli: i64,
    target_milli: i64,
) -> Calculation {
    per_pod(ctx, value_milli, target_milli, false)
}

/// `GetExternalMetricReplicas`: External metric with a value target (spec 10.5).
pub(crate) fn external_value<'a>(
    ctx: &CalcContext<'_, 'a>,
    values: &[i64],
    target_milli: i64,
) -> Result<Calculation, CalcError<'a>> {
    if values.is_empty() {
        return Err(CalcError::NoExternalMetrics);
    }
    let mut sum: i64 = 0;
    for &v in values {
        if v > 0 && sum > i64::MAX.saturating_sub(v) {
            sum = i64::MAX;
            break;
        }
        sum = sum.saturating_add(v);
    }
    let ratio = arith::ratio(ctx.settings.arithmetic, sum, target_milli);
    usage_ratio_replicas(ctx, ratio, sum)
}

/// `GetExternalPerPodMetricReplicas`: External metric with an average-value target (10.6).
pub(crate) fn external_per_pod<'a>(
    ctx: &CalcContext<'_, 'a>,
    values: &[i64],
    target_milli: i64,
) -> Result<Calculation, CalcError<'a>> {
    if values.is_empty() {
        return Err(CalcError::NoExternalMetrics);
    }
    // A running sum that leaves [0, MaxInt64] is upstream's overflow signal.
    let mut sum: i64 = 0;
    for &v in values {
        match sum.checked_add(v) {
            Some(s) if s >= 0 => sum = s,
            _ => {
                sum = i64::MAX;
                break;
            }
        }
    }
    Ok(per_pod(ctx, sum, target_milli, true))
}
