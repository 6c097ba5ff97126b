//! Replica proposals per metric source and target type (docs/spec/calculator.md).
//!
//! Each function mirrors one upstream replica-calculator entry point. Pod-based calculators
//! make one pass over the pods and allocate nothing: sums replace upstream's per-pod map,
//! and upstream's second pass over the pods is arithmetic on the sums the pass keeps.

use core::cmp::Ordering;

use crate::arith::{self, Ratio, Sum, Tolerances};
use crate::input::{ConditionStatus, Container, Observation, PodPhase, PodSamples};
use crate::input::{ResourceRequest, Sample};
use crate::pods::{group, plainly_ready, pod_request, Grouping, PodGroup, Readiness, RequestError};
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

/// A metric's readings that upstream's arithmetic takes as they are, with results a user
/// would not expect (docs/parity.md, "Readings upstream takes as they are"): the engine keeps
/// that arithmetic in `kubernetes` mode and says so (see `hpa::metrics::reading`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Reading {
    /// Nothing out of the ordinary.
    #[default]
    Plain,
    /// A value the calculation used was negative: a pod's sample or request, an Object
    /// value, an entry of an External series. Upstream computes with it as it is: a negative
    /// Object value proposes 0 replicas or fewer, negative pod usage or requests can propose
    /// fewer than 0.
    Negative,
    /// Upstream's overflow guard on an External series took the total as MaxInt64: with an
    /// AverageValue target a running sum below zero (a negative entry) or beyond int64, with a
    /// Value target a sum beyond int64. The proposal is then the largest replica count.
    TreatedAsOverflow,
}

impl Reading {
    /// `plain`, `negative` or `treatedAsOverflow` (the replay output's spelling).
    pub const fn as_str(self) -> &'static str {
        match self {
            Reading::Plain => "plain",
            Reading::Negative => "negative",
            Reading::TreatedAsOverflow => "treatedAsOverflow",
        }
    }

    /// `Negative` when `signs` (a bitwise or of values) is negative.
    fn of_signs(signs: i64) -> Reading {
        if signs < 0 {
            Reading::Negative
        } else {
            Reading::Plain
        }
    }
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
        readiness(self.obs, self.settings, cpu)
    }
}

/// The readiness rules of an evaluation (the cpu rules for a `cpu` metric).
fn readiness(obs: &Observation<'_>, settings: &Settings, cpu: bool) -> Readiness {
    Readiness {
        cpu,
        cpu_initialization_period: settings.cpu_initialization_period,
        initial_readiness_delay: settings.initial_readiness_delay,
        now: obs.now,
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

pub(crate) const WIDE: bool = cfg!(target_pointer_width = "64");

/// Counts and sums of the pass over the pods.
#[derive(Clone, Copy, Default)]
struct PodPass<'a> {
    // Counts of pods and orphan samples: their sums cannot overflow (two slices' lengths).
    ready: usize,
    unready: usize,
    missing: usize,
    /// Σ of ready pods' values (exact).
    value_sum: Sum,
    /// Σ of ready pods' requests (exact), utilization only.
    request_sum: Sum,
    first_request_error: Option<RequestError<'a>>,
    /// Σ of the orphan samples' values (exact).
    orphan_sum: Sum,
    /// Number of orphan samples with a value.
    orphans: usize,
    /// Σ of missing pods' requests (utilization only), and of the values they are filled in
    /// with below target (utilization: `request × max(target, 100) / 100` each; an average:
    /// the target each).
    missing_requests: Sum,
    missing_fill: Sum,
    /// Σ of unready pods' requests, utilization only.
    unready_requests: Sum,
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

/// The same container slice, or (on 64-bit targets, where the comparison costs less than
/// the request it saves) slices equal in everything a request depends on: kinds, names when
/// one container is named, and request names and quantities. Equal inputs, equal request.
#[inline(always)]
fn same_containers(a: &[Container<'_>], b: &[Container<'_>], named: bool) -> bool {
    core::ptr::eq(a, b) || (cfg!(target_pointer_width = "64") && equal_containers(a, b, named))
}

fn equal_containers(a: &[Container<'_>], b: &[Container<'_>], named: bool) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.kind == y.kind
                && (!named || crate::pods::same(x.name, y.name))
                && equal_requests(x.requests, y.requests)
        })
}

fn equal_requests(a: &[ResourceRequest<'_>], b: &[ResourceRequest<'_>]) -> bool {
    core::ptr::eq(a, b)
        || (a.len() == b.len()
            && a.iter().zip(b).all(|(x, y)| {
                crate::pods::same(x.resource, y.resource) && x.quantity == y.quantity
            }))
}

/// Upstream's checks before grouping (the metrics API returned something, and some pod
/// matched the selector), then the pass over the pods (docs/spec/calculator.md#utilization steps
/// a-e, docs/spec/calculator.md#average-value) for the metric of `resource` (`None`: a Pods
/// metric): each pod's group and the sums of each group, with `requests` (utilization targets) the
/// requests for that resource, missing pods filled in with `fill` (see [`pod_metric`]), and the
/// orphan samples' sum, into `pass` (all zero). Upstream's second pass fills in missing and unready
/// pods with their requests: those are the requests this pass reads, so their sums are kept here
/// and the second pass is arithmetic on sums, without a second walk over the pods. Out of line on
/// 64-bit targets, where the code after the pass otherwise made the loop spill registers (about 5 %
/// slower at 1,000 pods); inlined elsewhere, where that is smaller.
#[cfg_attr(target_pointer_width = "64", inline(never))]
#[cfg_attr(not(target_pointer_width = "64"), inline(always))]
fn pod_pass<'a, const WIDE: bool>(
    ctx: &CalcContext<'_, 'a>,
    samples: &PodSamples<'a>,
    container: Option<&'a str>,
    resource: Option<&'a str>,
    requests: Option<&'a str>,
    fill: i64,
    pass: &mut PodPass<'a>,
) -> Result<(), CalcError<'a>> {
    let pods = ctx.obs.pods;
    if samples.per_pod.len() != pods.len() {
        return Err(CalcError::SampleCountMismatch {
            pods: pods.len(),
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
        return Err(match resource {
            Some(_) => CalcError::NoResourceMetrics,
            None => CalcError::NoCustomMetrics,
        });
    }
    if pods.is_empty() {
        return Err(CalcError::NoPods);
    }
    // `same`, not `==`: no call to `memcmp` for a three-byte name.
    let cpu = resource.is_some_and(|r| crate::pods::same(r, "cpu"));
    let readiness = Grouping::new(&ctx.readiness(cpu));
    // Counters and the sums of ready pods in locals, not in a struct: they stay in
    // registers (a struct field updated in memory every iteration made the loop wait on
    // store-to-load forwarding). The counters are `usize` (one register on 32-bit targets);
    // they cannot exceed the pod count, so they are added to without an overflow check.
    let (mut ready, mut unready, mut missing) = (0_usize, 0_usize, 0_usize);
    let mut value_sum = Sum::default();
    let mut request_sum = Sum::default();
    // The last successful request, reused while consecutive pods share their container and
    // pod-level request slices (pods of one template, as callers that build their pods from
    // one spec pass them). Same slices, same data: the result is exact. `WIDE` forms only:
    // on a Cortex-M0 the cache was about 100 bytes of code, and flash is scarcer there than
    // the time of one request per pod.
    let mut cached: Option<CachedRequest<'a>> = None;
    // `WIDE`: Σ of ready pods' values and requests (fewer than 2^63 terms below 2^63 in
    // magnitude: they cannot overflow).
    let mut wide: WideSums = (0, 0);
    let slots = samples.per_pod;
    let mut pairs = pods.iter().zip(slots.iter());
    // `WIDE`: the pods taken from `pairs` so far.
    let mut taken = 0_usize;
    loop {
        if WIDE && container.is_none() {
            // Runs of plainly ready pods of the cached request's template (or without
            // requests), in a loop without calls. Without a cached request, counted
            // requests leave the run at once.
            let key = match requests {
                Some(_) => cached.map(Some),
                None => Some(None),
            };
            if let Some(key) = key {
                let rest = (
                    pods.get(taken..).unwrap_or_default(),
                    slots.get(taken..).unwrap_or_default(),
                );
                let n = ready_run(rest, key, &readiness, &mut wide);
                if let Some(last) = n.checked_sub(1) {
                    pairs.nth(last);
                    ready = ready.wrapping_add(n);
                    taken = taken.wrapping_add(n);
                }
            }
            taken = taken.wrapping_add(1);
        }
        let Some((pod, slot)) = pairs.next() else {
            break;
        };
        // Every listed pod's request counts (an error fails the metric).
        let request = match requests {
            None => 0,
            Some(resource) => match cached {
                Some((containers, pod_level, milli))
                    if WIDE
                        && same_containers(containers, pod.containers, container.is_some())
                        && same_pod_level(pod_level, pod.requests) =>
                {
                    milli
                }
                _ => match pod_request(pod, container, resource) {
                    Ok(milli) => {
                        if WIDE {
                            cached = Some((pod.containers, pod.requests, milli));
                        }
                        milli
                    }
                    Err(e) => {
                        pass.first_request_error.get_or_insert(e);
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
        match group(pod, sample, &readiness) {
            PodGroup::Ready => {
                ready = ready.wrapping_add(1);
                if WIDE {
                    wide.0 = wide.0.wrapping_add(i128::from(value));
                    wide.1 = wide.1.wrapping_add(i128::from(request));
                } else {
                    add(&mut value_sum, value);
                    add(&mut request_sum, request);
                }
            }
            PodGroup::Unready => {
                unready = unready.wrapping_add(1);
                pass.unready_requests.push(request);
            }
            PodGroup::Missing => {
                missing = missing.wrapping_add(1);
                let value = match requests {
                    Some(_) => {
                        pass.missing_requests.push(request);
                        percent_of(request, fill)
                    }
                    None => fill,
                };
                pass.missing_fill.push(value);
            }
            PodGroup::Ignored => {}
        }
    }
    if WIDE {
        value_sum = Sum::from_i128(wide.0);
        request_sum = Sum::from_i128(wide.1);
    }
    let mut orphans = 0_usize;
    for v in samples
        .orphans
        .iter()
        .filter_map(|s| sample_value(s, container))
    {
        pass.orphan_sum.push(v);
        orphans = orphans.wrapping_add(1);
    }
    pass.ready = ready;
    pass.unready = unready;
    pass.missing = missing;
    pass.orphans = orphans;
    pass.value_sum = value_sum;
    pass.request_sum = request_sum;
    Ok(())
}

/// The sums of ready pods' values and requests on `WIDE` forms.
type WideSums = (i128, i128);

/// The leading run of `(pods, samples)` that [`pod_pass`] would count as ready with the
/// pod's own sample value (no named container) and, with `cached`, the cached request
/// (without, requests are not counted): counted into the `wide` sums.
/// Returns its length. No calls in the loop on the usual path (the same template):
/// its state stays in registers.
#[inline(never)]
fn ready_run<'a>(
    rest: (&[crate::input::Pod<'a>], &[Option<Sample<'a>>]),
    cached: Option<CachedRequest<'a>>,
    readiness: &Grouping,
    wide: &mut WideSums,
) -> usize {
    // One loop for each rule, with its checks inside only.
    let (n, values) = match readiness.settled_by() {
        None => return 0,
        Some(None) => run_values(rest, cached, None),
        Some(Some(cutoff)) => run_values(rest, cached, Some(cutoff)),
    };
    // Each of the run's requests is the cached one: n × request, exact in 128 bits.
    let request = cached.map_or(0, |(_, _, milli)| milli);
    let requests = i128::try_from(n)
        .unwrap_or(0)
        .wrapping_mul(i128::from(request));
    *wide = (wide.0.wrapping_add(values), wide.1.wrapping_add(requests));
    n
}

/// The length of [`ready_run`]'s run and the sum of its values.
#[inline(always)]
fn run_values<'a>(
    (pods, slots): (&[crate::input::Pod<'a>], &[Option<Sample<'a>>]),
    cached: Option<CachedRequest<'a>>,
    settled_by: Option<i64>,
) -> (usize, i128) {
    let mut values = 0_i128;
    let mut n = 0_usize;
    for (pod, slot) in pods.iter().zip(slots.iter()) {
        let Some(sample) = slot else {
            break;
        };
        if !plainly_ready(pod, settled_by) {
            break;
        }
        if let Some((containers, pod_level, _)) = cached {
            if !(same_containers(containers, pod.containers, false)
                && same_pod_level(pod_level, pod.requests))
            {
                break;
            }
        }
        values = values.wrapping_add(i128::from(sample.milli));
        n = n.wrapping_add(1);
    }
    (n, values)
}

/// `sum += v`: inlined on 64-bit targets, where the per-pod loop keeps the sums in
/// registers; a call elsewhere (each inlined addition is about 70 bytes on a Cortex-M0).
#[inline(always)]
fn add(sum: &mut Sum, v: i64) {
    if cfg!(target_pointer_width = "64") {
        sum.add(v);
    } else {
        sum.push(v);
    }
}

/// The target of a pod-based metric.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PodTarget {
    /// A percentage of the pods' requests (Resource and ContainerResource utilization).
    Utilization(i32),
    /// An average value per pod in milli-units (Resource and ContainerResource average
    /// values, Pods metrics).
    Average(i64),
}

/// The pod-based calculators: `GetResourceReplicas` (utilization targets,
/// docs/spec/calculator.md#utilization) and `calcPlainMetricReplicas` (Resource/ContainerResource
/// average-value targets and Pods metrics, docs/spec/calculator.md#average-value). `resource` is
/// `None` for Pods metrics.
#[inline(never)]
pub(crate) fn pod_metric<'a, const WIDE: bool>(
    ctx: &CalcContext<'_, 'a>,
    samples: &PodSamples<'a>,
    resource: Option<&'a str>,
    container: Option<&'a str>,
    target: PodTarget,
) -> Result<Calculation, CalcError<'a>> {
    // Filled in place (a returned pass would be copied out of a `Result`); zeroed first,
    // which is smaller on a Cortex-M0.
    let mut pass = PodPass::default();
    // A missing pod is filled in below target with `fill`: utilization, its request ×
    // max(target, 100 %); an average, the target itself.
    let (requests, fill) = match (target, resource) {
        (PodTarget::Utilization(percent), Some(r)) => (Some(r), i64::from(percent.max(100))),
        (PodTarget::Utilization(_), None) => (None, 0),
        (PodTarget::Average(milli), _) => (None, milli),
    };
    pod_pass::<WIDE>(ctx, samples, container, resource, requests, fill, &mut pass)?;
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
        if below || above {
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

/// The ratio of the pass's value and request sums (clamped to `int64` where upstream stores
/// them) to the target, the utilization in percent (utilization targets), and
/// `values / entries`; `None` for a zero sum of requests (upstream's `NoMatchingRequests`).
/// Utilization: `GetResourceUtilizationRatio`, the truncated percent and its ratio to the
/// target; average values: the average's ratio to the target.
// On a Cortex-M0: the sums are read from the pass in memory (sums passed by value or by
// reference to a lone `Sum` were copied to the stack at each call), and an `Option` is
// read in place where a `Result` with a `CalcError` was copied out with `memcpy`.
#[inline(never)]
fn measure(
    mode: crate::settings::Arithmetic,
    target: PodTarget,
    pass: &PodPass<'_>,
    entries: usize,
) -> Option<(Ratio, Option<i32>, i64)> {
    let values = clamped(pass.value_sum);
    let average = values.checked_div(count(entries)).unwrap_or(0);
    let (num, den, percent) = match target {
        PodTarget::Utilization(target_percent) => {
            let requests = clamped(pass.request_sum);
            if requests == 0 {
                return None;
            }
            let percent = percent_ratio(values, requests);
            (i64::from(percent), i64::from(target_percent), Some(percent))
        }
        PodTarget::Average(milli) => (average, milli, None),
    };
    Some((arith::ratio(mode, num, den), percent, average))
}

/// `trunc(value × percent / 100)` clamped to `i64`, for `percent >= 0`: the magnitude's
/// 128-bit product divided by 100 (a 32-bit divisor, no 128-bit division).
fn percent_of(value: i64, percent: i64) -> i64 {
    let (hi, lo) = arith::mul_wide(value.unsigned_abs(), percent.unsigned_abs());
    let (q, _) = arith::div_small(u128::from(hi) << 64 | u128::from(lo), 100);
    crate::pods::signed(value < 0, q)
}

/// A count as an `i64` (saturating; exact on 32-bit targets).
fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// [`Sum::clamped`] out of line: one copy for the sums of [`measure`] and of a pod's
/// container requests.
#[inline(never)]
pub(crate) fn clamped(sum: Sum) -> i64 {
    sum.clamped()
}

/// `int32(values * 100 / requests)`, truncated toward zero and saturating, for
/// `requests != 0`, in 64-bit words: with `|values| = q·|requests| + m`, the magnitude is
/// `100q + floor(100m / |requests|)`.
fn percent_ratio(values: i64, requests: i64) -> i32 {
    let (v, r) = (values.unsigned_abs(), requests.unsigned_abs());
    // On 64-bit targets, below 2^57 `|values| × 100` fits 64 bits and one division gives the
    // same `floor(100 |values| / |requests|)` (the bit loop costs about a hundred
    // instructions there).
    let magnitude = if cfg!(target_pointer_width = "64") && v >> 57 == 0 {
        v.wrapping_mul(100).checked_div(r).unwrap_or(0)
    } else {
        let (q, m) = (v.checked_div(r).unwrap_or(0), v.checked_rem(r).unwrap_or(0));
        // From 2^32 up, q × 100 is far beyond the i32 range: no need to compute it.
        if q >> 32 == 0 {
            q.wrapping_mul(100)
                .wrapping_add(arith::mul_div_below(m, 100, r))
        } else {
            u64::MAX
        }
    };
    let percent = crate::pods::signed((values < 0) != (requests < 0), u128::from(magnitude));
    i32::try_from(percent).unwrap_or(if percent < 0 { i32::MIN } else { i32::MAX })
}

/// The proposal of the pod-based calculators and whether the tolerance band held it at the
/// current count: after the first pass (docs/spec/calculator.md#utilization, step f), the current
/// count inside the band, else `ceil(ratio × count)`; after the `second` (steps i-k), also the
/// current count when the ratio crossed 1 (the first ratio was `below` or `above` 1) or the
/// proposal moved against the new ratio. The ratio by reference: either pass's, without a copy.
fn proposal(
    ctx: &CalcContext<'_, '_>,
    (below, above): (bool, bool),
    new_ratio: &Ratio,
    count: i64,
    second: bool,
) -> (i32, bool) {
    if new_ratio.within(&ctx.tolerances) {
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
#[inline(always)]
fn series_sum(series: &[i64], per_pod: bool) -> Option<i64> {
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

/// [`Reading`] of an Object value (`values` is `Ok(value)`) or an External series (`Err`),
/// `per_pod` for an average-value target.
pub(crate) fn usage_reading(values: Result<i64, &[i64]>, per_pod: bool) -> Reading {
    match values {
        Ok(value) => Reading::of_signs(value),
        Err(series) if series_sum(series, per_pod).is_none() => Reading::TreatedAsOverflow,
        Err(series) => Reading::of_signs(series.iter().fold(0, |signs, v| signs | v)),
    }
}

/// [`Reading`] of a pod-based metric: `Negative` when a value or request the calculation
/// uses is negative (a ready pod's or an orphan's sample; the request of a pod that is not
/// ignored, for utilization targets). A second walk over the pods with the pass's own
/// rules, apart from the evaluation: it costs the evaluation nothing.
pub(crate) fn pod_reading(
    (obs, settings): (&Observation<'_>, &Settings),
    samples: &PodSamples<'_>,
    resource: Option<&str>,
    container: Option<&str>,
    requests: bool,
) -> Reading {
    let cpu = resource.is_some_and(|r| crate::pods::same(r, "cpu"));
    let readiness = Grouping::new(&readiness(obs, settings, cpu));
    let mut signs = 0_i64;
    for (pod, slot) in obs.pods.iter().zip(samples.per_pod) {
        let value = slot
            .as_ref()
            .and_then(|s| Some((s, sample_value(s, container)?)));
        let group = group(pod, value.map(|(s, _)| s), &readiness);
        if group == PodGroup::Ready {
            signs |= value.map_or(0, |(_, v)| v);
        }
        if let (true, Some(resource), false) = (requests, resource, group == PodGroup::Ignored) {
            signs |= pod_request(pod, container, resource).unwrap_or(0);
        }
    }
    for v in samples
        .orphans
        .iter()
        .filter_map(|s| sample_value(s, container))
    {
        signs |= v;
    }
    Reading::of_signs(signs)
}

/// Object and External metrics (`values` as for [`usage`]): `GetObjectMetricReplicas` and
/// `GetExternalMetricReplicas` for value targets (docs/spec/calculator.md#object-value,
/// docs/spec/calculator.md#external-value), measured against the ready pods;
/// `GetObjectPerPodMetricReplicas` and `GetExternalPerPodMetricReplicas` for average-value targets
/// (`per_pod`, docs/spec/calculator.md#object-average-value,
/// docs/spec/calculator.md#external-average-value), measured against `status.replicas`.
#[inline(never)]
pub(crate) fn usage_metric<'a>(
    ctx: &CalcContext<'_, 'a>,
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
    let within_tolerance = (per_pod || ctx.current != 0) && tested.within(&ctx.tolerances);
    let replicas = if within_tolerance {
        held
    } else if per_pod || ctx.current == 0 {
        // `int32(ceil(usage / target))`; from zero replicas `ceil(ratio × 1)`, the same
        // (× 1.0 is exact). `x > MaxInt32 → MaxInt32, else int32(ceil(x))` is a saturating
        // ceil.
        ratio.ceil_times(1)
    } else {
        ratio.ceil_times(ready_running_pods(ctx)?)
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

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    /// The pod pass's two forms (128-bit sums and runs of ready pods on 64-bit targets,
    /// [`Sum`]s elsewhere) agree, over pods of one template and of several, with unready,
    /// missing, deleted and initializing pods, orphans, extreme values and request errors.
    #[test]
    #[allow(clippy::arithmetic_side_effects, clippy::indexing_slicing)]
    fn both_pass_forms_agree() {
        use crate::input::{ConditionStatus, ContainerKind, Pod, ReadyCondition};
        use crate::quantity::Quantity;
        use crate::time::{Duration, Instant};
        let reqs_a = [ResourceRequest {
            resource: "cpu",
            quantity: Quantity::from_milli(500),
        }];
        let reqs_b = [ResourceRequest {
            resource: "cpu",
            quantity: Quantity::from_milli(i64::MAX / 3),
        }];
        let reqs_c = [ResourceRequest {
            resource: "memory",
            quantity: Quantity::from_milli(7),
        }];
        let container = |requests| Container {
            name: "app",
            kind: ContainerKind::Regular,
            requests,
        };
        let (ca, ca2, cb, cc) = (
            [container(&reqs_a)],
            [container(&reqs_a)],
            [container(&reqs_b)],
            [container(&reqs_c)],
        );
        let templates: [&[Container<'_>]; 4] = [&ca, &ca2, &cb, &cc];
        let mut rng = arith::test_rng(0x9E37_79B9_7F4A_7C15);
        let settings = Settings::DEFAULT;
        let tolerances = Tolerances {
            down: crate::tolerance::Tolerance::DEFAULT,
            up: crate::tolerance::Tolerance::DEFAULT,
        };
        let values = [0, 1, 330, 499, 12_345, i64::MAX, i64::MIN, -5, i64::MAX / 2];
        for round in 0..3000 {
            let n = (rng() % 12) as usize;
            let mut pods = std::vec::Vec::new();
            let mut slots = std::vec::Vec::new();
            for _ in 0..n {
                let r = rng();
                let odd = round % 3 == 0 && r.is_multiple_of(5);
                pods.push(Pod {
                    name: "p",
                    phase: match (odd, r >> 8 & 3) {
                        (true, 0) => PodPhase::Pending,
                        (true, 1) => PodPhase::Failed,
                        _ => PodPhase::Running,
                    },
                    ready: Some(ReadyCondition {
                        status: if odd && r >> 10 & 1 == 0 {
                            ConditionStatus::False
                        } else {
                            ConditionStatus::True
                        },
                        last_transition: Some(Instant(-3_600_000)),
                    }),
                    start_time: Some(Instant(if odd && r >> 11 & 1 == 0 {
                        -1_000
                    } else {
                        -3_700_000
                    })),
                    deleted: odd && r >> 12 & 1 == 0,
                    containers: templates[if round % 2 == 0 {
                        0
                    } else {
                        (r >> 16) as usize % 4
                    }],
                    requests: None,
                });
                let big = round % 5 == 0;
                slots.push((!(odd && r >> 13 & 1 == 0)).then(|| Sample {
                    milli: if big {
                        values[(r >> 20) as usize % values.len()]
                    } else {
                        (r >> 20) as i64 % 1000
                    },
                    timestamp: Instant(0),
                    window: Duration::from_secs(60),
                    containers: &[],
                }));
            }
            let orphans = [Sample {
                milli: 42,
                timestamp: Instant(0),
                window: Duration::from_secs(60),
                containers: &[],
            }];
            let samples = PodSamples {
                per_pod: &slots,
                orphans: if round % 7 == 0 { &orphans } else { &[] },
            };
            let obs = Observation {
                now: Instant(0),
                replicas: n as i32,
                status_replicas: n as i32,
                pods: &pods,
                metrics: &[],
            };
            let ctx = CalcContext {
                obs: &obs,
                settings: &settings,
                tolerances,
                current: n as i32,
            };
            let resource = match round % 4 {
                0 => None,
                1 => Some("memory"),
                _ => Some("cpu"),
            };
            let target = if round % 3 == 1 {
                PodTarget::Average(300)
            } else {
                PodTarget::Utilization(60)
            };
            assert_eq!(
                pod_metric::<true>(&ctx, &samples, resource, None, target),
                pod_metric::<false>(&ctx, &samples, resource, None, target),
                "round {round}"
            );
        }
    }

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
        use crate::metrics::{evaluate_metric, MetricOutcome};
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
            let wide = pod_metric::<true>(&ctx, &values, Some("cpu"), Some("app"), target);
            let narrow = pod_metric::<false>(&ctx, &values, Some("cpu"), Some("app"), target);
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

    /// `ceil_times(1)` is upstream's `int32(ceil(float64(value) / float64(target)))` in
    /// kubernetes mode (host binary64; `as` saturates, NaN to 0, as upstream PR #141397
    /// does): the multiplication by 1.0 is exact. (Exact mode: `exact_helpers_match_i128`.)
    #[test]
    #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
    fn ceil_times_one_is_ceil_div() {
        use crate::settings::Arithmetic;
        let edges = [
            i64::MIN,
            i64::MIN + 1,
            -(1 << 53) - 1,
            -7,
            -1,
            0,
            1,
            2,
            3,
            7,
            999,
            1000,
            1001,
            (1 << 53) + 1,
            i64::from(i32::MAX) * 1000 + 1,
            i64::MAX - 1,
            i64::MAX,
        ];
        for &v in &edges {
            for &t in &edges {
                let ratio = arith::ratio(Arithmetic::Kubernetes, v, t);
                let upstream = ((v as f64) / (t as f64)).ceil() as i32;
                assert_eq!(ratio.ceil_times(1), upstream, "{v} / {t}");
            }
        }
    }

    /// The 64-bit helpers against the 128-bit expressions they replace.
    #[test]
    #[allow(clippy::arithmetic_side_effects)]
    fn wide_free_helpers_match_i128() {
        let edges = [
            i64::MIN,
            i64::MIN + 1,
            i64::MIN / 100,
            -(1 << 40) - 7,
            -1001,
            -199,
            -100,
            -99,
            -1,
            0,
            1,
            99,
            100,
            101,
            12_345,
            1 << 40,
            i64::MAX / 100,
            i64::MAX / 3,
            i64::MAX - 1,
            i64::MAX,
        ];
        let mut rng = arith::test_rng(0x2545_F491_4F6C_DD1D);
        let mut next = || {
            let s = rng();
            (s as i64) >> (s % 64)
        };
        let mut pairs: std::vec::Vec<(i64, i64)> = std::vec::Vec::new();
        for &a in &edges {
            for &b in &edges {
                pairs.push((a, b));
            }
        }
        for _ in 0..100_000 {
            pairs.push((next(), next()));
        }
        for (a, b) in pairs {
            if b != 0 {
                let want = arith::clamp_i32(i128::from(a) * 100 / i128::from(b));
                assert_eq!(percent_ratio(a, b), want, "{a} * 100 / {b}");
            }
            let p = i128::from(b.unsigned_abs() % 5_000_000);
            let want = arith::clamp_i64(i128::from(a) * p / 100);
            assert_eq!(percent_of(a, p as i64), want, "{a} * {p} / 100");
        }
    }
}
