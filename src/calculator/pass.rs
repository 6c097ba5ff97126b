//! The pass over the pods (docs/spec/calculator.md#utilization steps a-e,
//! docs/spec/calculator.md#average-value) as the specification states it. How it reads requests
//! and sums the ready pods is its [`Form`]: [`Plain`] here, [`super::fast::Fast`] on hosts.

use super::ratio::percent_of;
use super::{sample_value, CalcError, Ctx};
use crate::arith::Sum;
use crate::input::{same_slices, PodSamplesIn, PodSource, SampleSlot, SampleView};
use crate::pods::{group, plainly_ready, request_of, Grouping, PodGroup, RequestError};

/// Counts and sums of the pass over the pods.
#[derive(Clone, Copy, Default)]
pub(super) struct PodPass<'a> {
    // Counts of pods and orphan samples: their sums cannot overflow (two slices' lengths).
    pub(super) ready: usize,
    pub(super) unready: usize,
    pub(super) missing: usize,
    /// Σ of ready pods' values (exact).
    pub(super) value_sum: Sum,
    /// Σ of ready pods' requests (exact), utilization only.
    pub(super) request_sum: Sum,
    pub(super) first_request_error: Option<RequestError<'a>>,
    /// Σ of the orphan samples' values (exact).
    pub(super) orphan_sum: Sum,
    /// Number of orphan samples with a value.
    pub(super) orphans: usize,
    /// Σ of missing pods' requests (utilization only), and of the values they are filled in
    /// with below target (utilization: `request × max(target, 100) / 100` each; an average:
    /// the target each).
    pub(super) missing_requests: Sum,
    pub(super) missing_fill: Sum,
    /// Σ of unready pods' requests, utilization only.
    pub(super) unready_requests: Sum,
}

/// How the pass reads the pods' requests and sums the ready pods. Both forms give the same
/// pass; [`crate::tuning::FAST_FORMS`] chooses which one an evaluation runs.
pub(super) trait Form<'a, S: PodSource<'a>>: Default {
    /// Called before the pass takes each pod: counts a run of pods from there on that the pass
    /// would count as ready into the sums at once, and returns its length (the pass skips
    /// them). `pods` and `slots` are those the pass has not taken yet.
    fn ready_run(
        &mut self,
        pods: (&'a [S::Pod], &'a [S::Slot]),
        container: Option<&str>,
        requests: Option<&str>,
        readiness: &Grouping,
    ) -> usize;

    /// `pod`'s request for `resource` ([`crate::pods::pod_request`]).
    fn request(
        &mut self,
        pod: &'a S::Pod,
        container: Option<&'a str>,
        resource: &'a str,
    ) -> Result<i64, RequestError<'a>>;

    /// Adds a ready pod's value and request to the sums.
    fn add_ready(&mut self, value: i64, request: i64);

    /// Σ of the ready pods' values and requests.
    fn sums(self) -> (Sum, Sum);
}

/// The form the specification states, with the sums kept as [`Sum`]s (calls: on a Cortex-M0
/// each inlined addition is about 70 bytes). A pod's request is the last one computed when the
/// pod has the container and pod-level request slices of the pod it was computed for (pods of
/// one template, as firmware and C callers build them: equal inputs, equal request). On a
/// Cortex-M0 a cpu request is most of a pod's time (about 440 of 760 instructions); reusing it
/// costs 72 bytes of code there, and reusing it also for slices equal in content, as hosts do
/// ([`super::fast`]), would cost 236 more. Runs of pods that need no more than that reuse
/// (plainly ready, their own sample value) are counted by [`plain_run`], a loop whose state
/// fits a Cortex-M0's registers: 84 instructions a pod there against 161 through the pass,
/// for 476 bytes of code.
// 4-byte aligned on small targets, as `Sum`: the `i64` of `last` made it 8-byte aligned, and
// zeroing it then linked `__aeabi_memclr8` (158 bytes) beside the `__aeabi_memclr4` programs
// link anyway.
#[cfg_attr(not(target_pointer_width = "64"), repr(C, packed(4)))]
pub(super) struct Plain<'a, S: PodSource<'a>> {
    values: Sum,
    requests: Sum,
    /// The last pod whose request was computed, and that request.
    last: Option<(&'a S::Pod, i64)>,
}

// By hand: a derive would ask `S: Default` of the layout, which is only a name. Each field
// `Default::default()`, as a derive writes them: `None` and `Sum::default()` spelled out made
// the pass 40 bytes larger on a Cortex-M0.
impl<'a, S: PodSource<'a>> Default for Plain<'a, S> {
    fn default() -> Self {
        Plain {
            values: Default::default(),
            requests: Default::default(),
            last: Default::default(),
        }
    }
}

impl<'a, S: PodSource<'a>> Form<'a, S> for Plain<'a, S> {
    fn ready_run(
        &mut self,
        (pods, slots): (&'a [S::Pod], &'a [S::Slot]),
        container: Option<&str>,
        requests: Option<&str>,
        readiness: &Grouping,
    ) -> usize {
        // Pods read with their own sample value only; with counted requests, once a request
        // was computed (the run's pods have its pod's slices). A request within `i32`: the
        // run's requests, at most `u32::MAX` of them, sum within `i64`.
        let last = match (requests, self.last) {
            (None, _) => Some(None),
            (Some(_), Some((pod, milli))) if i32::try_from(milli).is_ok() => {
                Some(Some((pod, milli)))
            }
            (Some(_), _) => None,
        };
        if let (None, Some(last)) = (container, last) {
            // At most `u32::MAX` pods (all of them on 32-bit targets).
            let most = usize::try_from(u32::MAX).unwrap_or(usize::MAX);
            let pods = pods.get(..most).unwrap_or(pods);
            let (run, values) = plain_run::<S>((pods, slots), last.map(|(pod, _)| pod), readiness);
            if run > 0 {
                self.values.push(values);
                let milli = last.map_or(0, |(_, milli)| milli);
                self.requests
                    .push(milli.wrapping_mul(i64::try_from(run).unwrap_or(0)));
            }
            return run;
        }
        0
    }

    fn request(
        &mut self,
        pod: &'a S::Pod,
        container: Option<&'a str>,
        resource: &'a str,
    ) -> Result<i64, RequestError<'a>> {
        if let Some((last, milli)) = self.last {
            if same_slices(last, pod) {
                return Ok(milli);
            }
        }
        // An error is not kept: the next pod computes its own (it names its pod).
        let milli = request_of(pod, container, resource)?;
        self.last = Some((pod, milli));
        Ok(milli)
    }

    fn add_ready(&mut self, value: i64, request: i64) {
        self.values.push(value);
        self.requests.push(request);
    }

    fn sums(self) -> (Sum, Sum) {
        (self.values, self.requests)
    }
}

/// The leading run of `(pods, samples)` that the pass would count as ready with the pod's own
/// sample value and, with `last`, the request of `last` (the same slices): its length and the
/// sum of its values. It ends before the sum would leave the `i64` range, so it is exact in
/// one word: the loop keeps its state in registers and calls nothing.
#[inline(never)]
fn plain_run<'a, S: PodSource<'a>>(
    (pods, slots): (&[S::Pod], &[S::Slot]),
    last: Option<&S::Pod>,
    readiness: &Grouping,
) -> (usize, i64) {
    let Some(settled_by) = readiness.settled_by() else {
        return (0, 0);
    };
    let mut values = 0_i64;
    let mut n = 0_usize;
    for (pod, slot) in pods.iter().zip(slots) {
        let Some(sample) = slot.sample() else {
            break;
        };
        if !plainly_ready(pod, settled_by) || last.is_some_and(|l| !same_slices(l, pod)) {
            break;
        }
        let Some(sum) = values.checked_add(sample.milli()) else {
            break;
        };
        values = sum;
        n = n.wrapping_add(1);
    }
    (n, values)
}

/// Upstream's checks before grouping (the metrics API returned something, and some pod
/// matched the selector), then the pass over the pods (docs/spec/calculator.md#utilization steps
/// a-e, docs/spec/calculator.md#average-value) for the metric of `resource` (`None`: a Pods
/// metric): each pod's group and the sums of each group, with `requests` (utilization targets)
/// the requests for that resource, missing pods filled in with `fill` (see
/// [`super::pod_metric`]), and the orphan samples' sum, into `pass` (all zero). Upstream's second
/// pass fills in missing and unready pods with their requests: those are the requests this pass
/// reads, so their sums are kept here and the second pass is arithmetic on sums, without a
/// second walk over the pods.
// Out of line on hosts (`crate::tuning::FAST_FORMS`), where the code after the pass otherwise
// made the loop spill registers (about 5 % slower at 1,000 pods).
#[cfg_attr(target_pointer_width = "64", inline(never))]
pub(super) fn pod_pass<'a, S: PodSource<'a>, F: Form<'a, S>>(
    ctx: &Ctx<'_, 'a, S>,
    samples: &PodSamplesIn<'a, S>,
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
    // `any` over the slots, not a chained iterator: less code on a Cortex-M0.
    let any = samples.per_pod.iter().any(|s| s.sample().is_some()) || !samples.orphans.is_empty();
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
    // Counters in locals, not in `pass`: they stay in registers (a struct field updated in
    // memory every iteration made the loop wait on store-to-load forwarding). They are `usize`
    // (one register on 32-bit targets) and cannot exceed the pod count, so they are added to
    // without an overflow check.
    let (mut ready, mut unready, mut missing) = (0_usize, 0_usize, 0_usize);
    let mut form = F::default();
    let slots = samples.per_pod;
    // The pods taken so far.
    let mut taken = 0_usize;
    loop {
        // The forms count runs of plainly ready pods at once.
        let rest = (
            pods.get(taken..).unwrap_or_default(),
            slots.get(taken..).unwrap_or_default(),
        );
        let run = form.ready_run(rest, container, requests, &readiness);
        ready = ready.wrapping_add(run);
        taken = taken.wrapping_add(run);
        let (Some(pod), Some(slot)) = (pods.get(taken), slots.get(taken)) else {
            break;
        };
        taken = taken.wrapping_add(1);
        // Every listed pod's request counts (an error fails the metric).
        let request = match requests {
            None => 0,
            Some(resource) => match form.request(pod, container, resource) {
                Ok(milli) => milli,
                Err(e) => {
                    pass.first_request_error.get_or_insert(e);
                    0
                }
            },
        };
        let (sample, value) = match slot.sample() {
            Some(s) => match container {
                None => (Some(s), s.milli()),
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
                form.add_ready(value, request);
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
    // Last: taken before the orphans' loop, the sums cost 56 bytes more on a Cortex-M0.
    (pass.value_sum, pass.request_sum) = form.sums();
    Ok(())
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::*;
    use crate::input::{Container, ContainerKind, Native, Pod, PodPhase, ResourceRequest, Sample};
    use crate::pods::pod_request;
    use crate::quantity::Quantity;

    /// [`plain_run`] takes the leading plainly ready pods with a sample and, with a last pod,
    /// its slices, and stops before the pod that ends the run (another template, no sample,
    /// deleted, Pending, initializing for the cpu rule) or that would take the values' sum out
    /// of `i64`.
    #[test]
    fn a_plain_run_ends_where_the_pass_must_look() {
        use crate::pods::Readiness;
        use crate::time::{Duration, Instant};
        let cpu = [ResourceRequest {
            resource: "cpu",
            quantity: Quantity::from_milli(500),
        }];
        let (app, other) = (
            [Container {
                name: "app",
                kind: ContainerKind::Regular,
                requests: &cpu,
            }],
            [Container {
                name: "app",
                kind: ContainerKind::Regular,
                requests: &cpu,
            }],
        );
        // Started at 0, an hour before now.
        let pod = crate::pods::tests::pod(&app, None);
        let sample = |milli| {
            Some(Sample {
                milli,
                timestamp: Instant(0),
                window: Duration::from_secs(60),
                containers: &[],
            })
        };
        let grouping = |cpu| {
            Grouping::new(&Readiness {
                cpu,
                cpu_initialization_period: Duration::from_secs(300),
                initial_readiness_delay: Duration::from_secs(30),
                now: Instant(3_600_000),
            })
        };
        let (plain, cpu_rule) = (grouping(false), grouping(true));
        let enders = [
            (
                Pod {
                    containers: &other,
                    ..pod
                },
                sample(7),
                true,
            ),
            (pod, None, false),
            (
                Pod {
                    deleted: true,
                    ..pod
                },
                sample(7),
                false,
            ),
            (
                Pod {
                    phase: PodPhase::Pending,
                    ..pod
                },
                sample(7),
                false,
            ),
            (
                Pod {
                    start_time: Some(Instant(3_599_000)),
                    ..pod
                },
                sample(7),
                false,
            ),
            (pod, sample(i64::MAX), false),
        ];
        for (i, (ender, slot, other_slices)) in enders.into_iter().enumerate() {
            let pods = [pod, pod, ender, pod];
            let slots = [sample(100), sample(200), slot, sample(300)];
            for (last, readiness) in [
                (None, &plain),
                (Some(&pod), &plain),
                (Some(&pod), &cpu_rule),
            ] {
                let got = plain_run::<Native>((&pods, &slots), last, readiness);
                // Another template ends a run only with requests; a recent start only under
                // the cpu rule; the others always.
                let through = (other_slices && last.is_none())
                    || (i == 4 && !core::ptr::eq(readiness, &cpu_rule));
                let expected = if through { (4, 607) } else { (2, 300) };
                assert_eq!(got, expected, "{i} {last:?}");
            }
        }
        // No run when every pod is still initializing under the cpu rule.
        let initializing = Grouping::new(&Readiness {
            cpu: true,
            cpu_initialization_period: Duration::from_secs(300),
            initial_readiness_delay: Duration::from_secs(30),
            now: Instant(i64::MIN),
        });
        assert_eq!(
            plain_run::<Native>((&[pod], &[sample(1)]), None, &initializing),
            (0, 0)
        );
    }

    /// The plain form's request is [`pod_request`]'s for every pod, over random sequences of
    /// pods of a few templates (the same slices, equal slices of their own, a container that
    /// lacks the resource, no container, pod-level requests), and it is computed again for each
    /// pod but those with the last computed pod's slices.
    #[test]
    fn a_reused_request_is_the_one_computed() {
        let request = |resource, milli| ResourceRequest {
            resource,
            quantity: Quantity::from_milli(milli),
        };
        let container = |name, requests| Container {
            name,
            kind: ContainerKind::Regular,
            requests,
        };
        let (cpu, cpu_again, memory) = (
            [request("cpu", 500)],
            [request("cpu", 500)],
            [request("memory", 7_000)],
        );
        let app = [container("app", &cpu)];
        let app_again = [container("app", &cpu_again)];
        let memory_only = [container("app", &memory)];
        let two = [container("app", &cpu), container("side", &memory)];
        let templates: [&[Container<'_>]; 5] = [&app, &app_again, &memory_only, &[], &two];
        let (pod_level, pod_level_again) = ([request("cpu", 900)], [request("cpu", 900)]);
        let pod_levels = [None, Some(&pod_level[..]), Some(&pod_level_again[..])];
        let names = ["p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"];
        let mut next = crate::arith::test_rng(0x5EED_0F7E_3A11_AE00);
        let (mut reused, mut computed) = (0, 0);
        // Under Miri, which interprets each round in a tenth of a second, 100 rounds; the
        // floors below scale with the rounds (a round has 14 requests on average).
        let rounds = if cfg!(miri) { 100 } else { 500 };
        for _ in 0..rounds {
            let n = (next() % 8) as usize;
            let pods: Vec<Pod<'_>> = (0..n)
                .map(|i| {
                    let r = next();
                    // Runs of one template, as callers build them, and changes of template.
                    let t = if r.is_multiple_of(3) { r >> 8 } else { 0 };
                    Pod {
                        name: names[i],
                        phase: PodPhase::Running,
                        ready: None,
                        start_time: None,
                        deleted: false,
                        containers: templates[(t % 5) as usize],
                        requests: pod_levels[(t >> 4) as usize % 3],
                    }
                })
                .collect();
            for (container, resource) in [
                (None, "cpu"),
                (None, "memory"),
                (Some("app"), "cpu"),
                (Some("side"), "memory"),
            ] {
                let mut form = Plain::<Native>::default();
                for pod in &pods {
                    let last = form.last;
                    let got = form.request(pod, container, resource);
                    assert_eq!(got, pod_request(pod, container, resource), "{pod:?}");
                    if last.is_some_and(|(last, _)| same_slices(last, pod)) {
                        // Nothing computed: the last pod is still the one computed.
                        let kept = form.last.map(|(p, milli)| (core::ptr::from_ref(p), milli));
                        assert_eq!(kept, last.map(|(p, milli)| (core::ptr::from_ref(p), milli)));
                        reused += 1;
                    } else {
                        computed += 1;
                    }
                }
            }
        }
        assert!(
            reused > 2 * rounds && computed > 2 * rounds,
            "{reused} reused, {computed} computed"
        );
    }
}
