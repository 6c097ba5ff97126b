//! The pass's fast form, for hosts ([`crate::tuning::FAST_FORMS`]): the same pass as
//! [`super::pass::Plain`], faster and larger. It reuses a pod's request for the next pods of
//! the same template also when their slices are only equal in content (the plain form: the
//! same slices), counts runs of plainly ready pods in a loop without calls, and sums in 128
//! bits.

use super::pass::Form;
use crate::arith::Sum;
use crate::input::{
    same_pod_level, ContainerView, PodSource, PodView, RequestView, SampleSlot, SampleView,
};
use crate::pods::{plainly_ready, request_of, Grouping, RequestError};

/// The fast form's state.
pub(super) struct Fast<'a, S: PodSource<'a>> {
    /// The last successful request, reused while consecutive pods share their container and
    /// pod-level request slices or hold equal ones (pods of one template, as callers that build
    /// their pods from one spec pass them). Equal inputs, equal request: the result is exact.
    cached: Option<CachedRequest<'a, S::Pod>>,
    /// Σ of ready pods' values and requests (fewer than 2^63 terms below 2^63 in magnitude:
    /// they cannot overflow).
    sums: (i128, i128),
}

// By hand: a derive would ask `S: Default` of the layout, which is only a name.
impl<'a, S: PodSource<'a>> Default for Fast<'a, S> {
    fn default() -> Self {
        Fast {
            cached: None,
            sums: (0, 0),
        }
    }
}

impl<'a, S: PodSource<'a>> Form<'a, S> for Fast<'a, S> {
    fn ready_run(
        &mut self,
        (pods, slots): (&'a [S::Pod], &'a [S::Slot]),
        container: Option<&str>,
        requests: Option<&str>,
        readiness: &Grouping,
    ) -> usize {
        // Pods read with their own sample value only. Without a cached request, counted
        // requests leave the run at once.
        if container.is_none() {
            let key = match requests {
                Some(_) => self.cached.map(Some),
                None => Some(None),
            };
            if let Some(key) = key {
                return ready_run::<S>((pods, slots), key, readiness, &mut self.sums);
            }
        }
        0
    }

    fn request(
        &mut self,
        pod: &'a S::Pod,
        container: Option<&'a str>,
        resource: &'a str,
    ) -> Result<i64, RequestError<'a>> {
        if let Some((containers, pod_level, milli)) = self.cached {
            if same_containers(containers, pod.containers(), container.is_some())
                && same_pod_level(pod_level, pod.requests())
            {
                return Ok(milli);
            }
        }
        let milli = request_of(pod, container, resource)?;
        self.cached = Some((pod.containers(), pod.requests(), milli));
        Ok(milli)
    }

    fn add_ready(&mut self, value: i64, request: i64) {
        self.sums.0 = self.sums.0.wrapping_add(i128::from(value));
        self.sums.1 = self.sums.1.wrapping_add(i128::from(request));
    }

    fn sums(self) -> (Sum, Sum) {
        (Sum::from_i128(self.sums.0), Sum::from_i128(self.sums.1))
    }
}

/// Container slice, pod-level request slice, and the request they give.
type CachedRequest<'a, P> = (
    &'a [<P as PodView<'a>>::Container],
    Option<&'a [<P as PodView<'a>>::Request]>,
    i64,
);

/// The same container slice, or slices equal in everything a request depends on (the
/// comparison costs less than the request it saves): kinds, names when one container is named,
/// and request names and quantities. Equal inputs, equal request.
fn same_containers<'a, C: ContainerView<'a>>(a: &[C], b: &[C], named: bool) -> bool {
    core::ptr::eq(a, b) || equal_containers(a, b, named)
}

// Out of line and cold: pods of one template usually share the slice, and inlined into
// [`run_values`]'s loop this comparison spilled the loop's state to the stack.
#[cold]
#[inline(never)]
fn equal_containers<'a, C: ContainerView<'a>>(a: &[C], b: &[C], named: bool) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.kind() == y.kind()
                && (!named || crate::pods::same(x.name(), y.name()))
                && equal_requests(x.requests(), y.requests())
        })
}

fn equal_requests<'a, R: RequestView<'a>>(a: &[R], b: &[R]) -> bool {
    core::ptr::eq(a, b)
        || (a.len() == b.len()
            && a.iter().zip(b).all(|(x, y)| {
                crate::pods::same(x.resource(), y.resource()) && x.quantity() == y.quantity()
            }))
}

/// The leading run of `(pods, samples)` that the pass would count as ready with the pod's own
/// sample value (no named container) and, with `cached`, the cached request (without,
/// requests are not counted): counted into the `wide` sums.
/// Returns its length. No calls in the loop on the usual path (the same template):
/// its state stays in registers.
#[inline(never)]
fn ready_run<'a, S: PodSource<'a>>(
    rest: (&[S::Pod], &[S::Slot]),
    cached: Option<CachedRequest<'a, S::Pod>>,
    readiness: &Grouping,
    wide: &mut (i128, i128),
) -> usize {
    let Some(settled_by) = readiness.settled_by() else {
        return 0;
    };
    // A run the pods declare alike, else one loop for each rule, with its checks inside only.
    let (n, values) = match declared_run::<S>(rest, cached, settled_by) {
        Some(run) => run,
        None => match settled_by {
            None => run_values::<S>(rest, cached, None),
            Some(cutoff) => run_values::<S>(rest, cached, Some(cutoff)),
        },
    };
    // Each of the run's requests is the cached one: n × request, exact in 128 bits.
    let request = cached.map_or(0, |(_, _, milli)| milli);
    let requests = i128::try_from(n)
        .unwrap_or(0)
        .wrapping_mul(i128::from(request));
    *wide = (wide.0.wrapping_add(values), wide.1.wrapping_add(requests));
    n
}

/// [`ready_run`]'s run read from a run of pods declared alike ([`PodView::alike`],
/// docs/spec/pods.md#alike-pods), or `None` when the first pod declares none or is not
/// counted so. The run's pods are the first pod but for their start times (not decreasing):
/// the first pod's checks hold for all of them, the cpu rule's cutoff ends the run at the first
/// pod started after it (a binary search), and only the samples are read one by one.
#[inline(always)]
fn declared_run<'a, S: PodSource<'a>>(
    (pods, slots): (&[S::Pod], &[S::Slot]),
    cached: Option<CachedRequest<'a, S::Pod>>,
    settled_by: Option<i64>,
) -> Option<(usize, i128)> {
    let first = pods.first()?;
    let declared = first.alike();
    if declared < 2 || !has_cached_template::<S>(cached, first) {
        return None;
    }
    // The run's pods differ from the first in their start times only, which do not decrease:
    // the pods plainly ready are a leading part of it.
    let run = pods.get(..declared).unwrap_or(pods);
    let settled = run.partition_point(|pod| plainly_ready(pod, settled_by));
    let slots = slots.get(..settled).unwrap_or(slots);
    let mut values = 0_i128;
    let mut n = 0_usize;
    for slot in slots {
        let Some(sample) = slot.sample() else {
            break;
        };
        values = values.wrapping_add(i128::from(sample.milli()));
        n = n.wrapping_add(1);
    }
    Some((n, values))
}

/// `pod` has the template of the cached request (its container and pod-level request slices,
/// or equal ones), or nothing is cached (requests are not counted).
#[inline(always)]
fn has_cached_template<'a, S: PodSource<'a>>(
    cached: Option<CachedRequest<'a, S::Pod>>,
    pod: &S::Pod,
) -> bool {
    cached.is_none_or(|(containers, pod_level, _)| {
        same_containers(containers, pod.containers(), false)
            && same_pod_level(pod_level, pod.requests())
    })
}

/// The length of [`ready_run`]'s run and the sum of its values.
#[inline(always)]
fn run_values<'a, S: PodSource<'a>>(
    (pods, slots): (&[S::Pod], &[S::Slot]),
    cached: Option<CachedRequest<'a, S::Pod>>,
    settled_by: Option<i64>,
) -> (usize, i128) {
    let mut values = 0_i128;
    let mut n = 0_usize;
    for (pod, slot) in pods.iter().zip(slots.iter()) {
        let Some(sample) = slot.sample() else {
            break;
        };
        if !plainly_ready(pod, settled_by) {
            break;
        }
        if !has_cached_template::<S>(cached, pod) {
            break;
        }
        values = values.wrapping_add(i128::from(sample.milli()));
        n = n.wrapping_add(1);
    }
    (n, values)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::super::{pod_metric, CalcContext, PodTarget};
    use crate::arith::{self, Tolerances};
    use crate::input::{Container, Native, PodPhase};
    use crate::input::{ResourceRequest, Sample};
    use crate::settings::Settings;

    /// A request of `milli` of `resource`.
    fn request(resource: &str, milli: i64) -> [ResourceRequest<'_>; 1] {
        [ResourceRequest {
            resource,
            quantity: crate::quantity::Quantity::from_milli(milli),
        }]
    }

    /// A regular container `app` with `requests`.
    fn app<'a>(requests: &'a [ResourceRequest<'a>]) -> Container<'a> {
        Container {
            name: "app",
            kind: crate::input::ContainerKind::Regular,
            requests,
        }
    }

    /// [`pod_metric`] of `pods` and their samples, `FAST` or plain, at time 0 with the
    /// default settings and tolerances.
    fn pass<'a, S: crate::input::PodSource<'a>, const FAST: bool>(
        pods: &'a [S::Pod],
        (per_pod, orphans): (&'a [S::Slot], &'a [S::Sample]),
        resource: Option<&'a str>,
        target: PodTarget,
    ) -> Result<super::super::Calculation, super::super::CalcError<'a>> {
        let n = i32::try_from(pods.len()).unwrap_or(i32::MAX);
        let obs = crate::input::ObservationOf {
            now: crate::time::Instant(0),
            replicas: n,
            status_replicas: n,
            pods,
            metrics: &[],
        };
        let settings = Settings::DEFAULT;
        let ctx = CalcContext {
            obs: &obs,
            settings: &settings,
            tolerances: TOLERANCES,
            current: n,
        };
        let samples = crate::input::PodSamplesOf { per_pod, orphans };
        pod_metric::<S, FAST>(&ctx, &samples, resource, None, target)
    }

    /// The default tolerance both ways.
    const TOLERANCES: Tolerances = Tolerances {
        down: crate::tolerance::Tolerance::DEFAULT,
        up: crate::tolerance::Tolerance::DEFAULT,
    };

    /// The pod pass's two forms (128-bit sums and runs of ready pods on 64-bit targets,
    /// [`Sum`]s elsewhere) agree, over pods of one template and of several, with unready,
    /// missing, deleted and initializing pods, orphans, extreme values and request errors.
    #[test]
    #[allow(clippy::arithmetic_side_effects, clippy::indexing_slicing)]
    fn both_pass_forms_agree() {
        use crate::input::{ConditionStatus, Pod, ReadyCondition};
        use crate::time::{Duration, Instant};
        let reqs_a = request("cpu", 500);
        let reqs_b = request("cpu", i64::MAX / 3);
        let reqs_c = request("memory", 7);
        let container = app;
        let (ca, ca2, cb, cc) = (
            [container(&reqs_a)],
            [container(&reqs_a)],
            [container(&reqs_b)],
            [container(&reqs_c)],
        );
        let templates: [&[Container<'_>]; 4] = [&ca, &ca2, &cb, &cc];
        let mut rng = arith::test_rng(0x9E37_79B9_7F4A_7C15);
        let values = [0, 1, 330, 499, 12_345, i64::MAX, i64::MIN, -5, i64::MAX / 2];
        // Under Miri, which interprets each step thousands of times slower, 70 rounds: every
        // remainder the rounds switch on (by 2, 3, 4, 5 and 7) still comes up.
        for round in 0..if cfg!(miri) { 70 } else { 3000 } {
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
            let orphans: &[Sample<'_>] = if round % 7 == 0 { &orphans } else { &[] };
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
                pass::<Native, true>(&pods, (&slots, orphans), resource, target),
                pass::<Native, false>(&pods, (&slots, orphans), resource, target),
                "round {round}"
            );
        }
    }

    /// A pod of the core's layout with an [`PodView::alike`] declaration.
    #[derive(Debug)]
    struct Declared<'a> {
        pod: crate::input::Pod<'a>,
        alike: usize,
    }

    impl<'a> crate::input::PodView<'a> for Declared<'a> {
        type Container = Container<'a>;
        type Request = ResourceRequest<'a>;
        fn name(&self) -> &'a str {
            self.pod.name
        }
        fn phase(&self) -> PodPhase {
            self.pod.phase
        }
        fn ready(&self) -> Option<crate::input::ReadyCondition> {
            self.pod.ready
        }
        fn start_time(&self) -> Option<crate::time::Instant> {
            self.pod.start_time
        }
        fn deleted(&self) -> bool {
            self.pod.deleted
        }
        fn containers(&self) -> &'a [Container<'a>] {
            self.pod.containers
        }
        fn requests(&self) -> Option<&'a [ResourceRequest<'a>]> {
            self.pod.requests
        }
        fn alike(&self) -> usize {
            self.alike
        }
    }

    /// Pods that declare runs of alike pods ([`PodView::alike`]: the same template, phase,
    /// deletion and Ready status, start times not decreasing) give the decision the same pods
    /// give without declaring, pass by pass: runs that the cpu rule's cutoff ends part way,
    /// runs with missing samples, of unready, pending or deleted pods, declarations shorter
    /// than the run or past the slice's end. False declarations give some decision, without
    /// panicking.
    #[test]
    #[allow(clippy::arithmetic_side_effects, clippy::indexing_slicing)]
    fn declared_runs_count_as_their_pods() {
        use crate::input::{ConditionStatus, Pod, ReadyCondition};
        use crate::time::{Duration, Instant};
        let (reqs_a, reqs_b) = (request("cpu", 500), request("cpu", 250));
        let container = app;
        let (ca, cb) = ([container(&reqs_a)], [container(&reqs_b)]);
        let templates: [&[Container<'_>]; 2] = [&ca, &cb];
        let mut rng = arith::test_rng(0xA11C_E5EE_D000_0001);
        // `now` is 0: the cpu rule's cutoff is -300 s. Start times step over it.
        for round in 0..if cfg!(miri) { 40 } else { 2000 } {
            let mut pods = std::vec::Vec::new();
            let mut slots = std::vec::Vec::new();
            // Segments of pods alike among themselves, started in order.
            let mut start = -900_000_i64;
            for _ in 0..(rng() % 5) {
                let r = rng();
                let phase = match r % 8 {
                    0 => PodPhase::Pending,
                    1 => PodPhase::Failed,
                    2 => PodPhase::Succeeded,
                    _ => PodPhase::Running,
                };
                let status = if r >> 3 & 7 == 0 {
                    ConditionStatus::False
                } else {
                    ConditionStatus::True
                };
                let deleted = r >> 6 & 15 == 0;
                let template = templates[(r >> 10) as usize % 2];
                let len = (r >> 12) as usize % 40;
                for _ in 0..len {
                    start += (rng() % 40_000) as i64;
                    pods.push(Pod {
                        name: "p",
                        phase,
                        ready: Some(ReadyCondition {
                            status,
                            last_transition: Some(Instant(start + 30_000)),
                        }),
                        start_time: Some(Instant(start)),
                        deleted,
                        containers: template,
                        requests: None,
                    });
                    let r = rng();
                    slots.push((!r.is_multiple_of(23)).then(|| Sample {
                        milli: (r >> 8) as i64 % 2000,
                        timestamp: Instant(0),
                        window: Duration::from_secs(60),
                        containers: &[],
                    }));
                }
            }
            // Each pod's declaration: the whole stretch of pods alike from it on (or past the
            // slice's end), part of it, or nothing.
            let false_declarations = round % 10 == 9;
            let mut declared = std::vec::Vec::new();
            let mut end = pods.len();
            for i in (0..pods.len()).rev() {
                if i + 1 < pods.len() && !crate::input::alike_pair(&pods[i], &pods[i + 1]) {
                    end = i + 1;
                }
                let stretch = end - i;
                let r = rng();
                let alike = if false_declarations {
                    (r % 60) as usize
                } else {
                    match r % 4 {
                        0 => 1,
                        1 => 1 + (r >> 8) as usize % stretch,
                        2 if end == pods.len() => usize::MAX,
                        _ => stretch,
                    }
                };
                declared.push(Declared {
                    pod: pods[i],
                    alike,
                });
            }
            declared.reverse();
            if !false_declarations {
                assert!(crate::input::alike_declarations_hold(&declared[..]));
            }
            let resource = if round % 3 == 0 {
                Some("memory")
            } else {
                Some("cpu")
            };
            let target = if round % 4 == 1 {
                PodTarget::Average(300)
            } else {
                PodTarget::Utilization(60)
            };
            let plain = pass::<Native, false>(&pods, (&slots, &[]), resource, target);
            let fast = pass::<(Declared<'_>, Option<Sample<'_>>, Sample<'_>), true>(
                &declared,
                (&slots, &[]),
                resource,
                target,
            );
            if !false_declarations {
                assert_eq!(fast, plain, "round {round}");
            }
        }
    }
}
