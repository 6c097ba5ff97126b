//! The pass's fast form, for hosts ([`crate::tuning::FAST_FORMS`]): the same pass as
//! [`super::pass::Plain`], faster and larger. It reuses a pod's request for the next pods of
//! the same template also when their slices are only equal in content (the plain form: the
//! same slices), counts runs of plainly ready pods in a loop without calls, and sums in 128
//! bits.

use super::pass::{same_pod_level, Form};
use crate::arith::Sum;
use crate::input::{ContainerView, PodSource, PodView, RequestView, SampleSlot, SampleView};
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
    // One loop for each rule, with its checks inside only.
    let (n, values) = match readiness.settled_by() {
        None => return 0,
        Some(None) => run_values::<S>(rest, cached, None),
        Some(Some(cutoff)) => run_values::<S>(rest, cached, Some(cutoff)),
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
        if let Some((containers, pod_level, _)) = cached {
            if !(same_containers(containers, pod.containers(), false)
                && same_pod_level(pod_level, pod.requests()))
            {
                break;
            }
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
    use crate::input::{Container, Native, Observation, PodPhase, PodSamples};
    use crate::input::{ResourceRequest, Sample};
    use crate::settings::Settings;

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
                pod_metric::<Native, true>(&ctx, &samples, resource, None, target),
                pod_metric::<Native, false>(&ctx, &samples, resource, None, target),
                "round {round}"
            );
        }
    }
}
