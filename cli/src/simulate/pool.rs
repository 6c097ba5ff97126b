//! The pool's pods and samples as the engine reads them, through its views ([`PodView`],
//! [`SampleSlot`], [`SampleView`]) rather than as the core's structs.
//!
//! A run hands the engine about a thousand pods and as many samples per metric at each of tens
//! of thousands of evaluations, and the engine's pass over them was most of a run's time. As
//! the core's structs a pod takes 96 bytes and a sample slot 40; here a pod is its template
//! (shared), its creation time and whether it is ready (24 bytes), and a slot its value
//! (16 bytes): the pass and the writing of the samples touch a quarter of the memory. Every view
//! method returns what the pod or sample the pool model describes holds ([`PoolPod::native`],
//! [`PoolSample::native`]), so the engine decides exactly as with the core's structs.

use hpa::input::{
    ConditionStatus, Container, ContainerUsage, Pod, PodPhase, PodView, ReadyCondition,
    ResourceRequest, Sample, SampleSlot, SampleView,
};
use hpa::time::{Duration, Instant};

use super::SAMPLE_WINDOW;

/// What every pod of a run shares.
#[derive(Debug)]
pub(super) struct Shape<'a> {
    /// The template's containers.
    pub(super) containers: &'a [Container<'a>],
    /// The template's pod-level requests.
    pub(super) requests: Option<&'a [ResourceRequest<'a>]>,
    /// Time from a pod's creation to its readiness, ms.
    pub(super) startup_delay: i64,
}

/// A pod of the pool: `Pending` (not ready since its creation) until the start-up delay has
/// passed, then `Running` and ready since.
#[derive(Clone, Copy, Debug)]
pub(super) struct PoolPod<'a> {
    shape: &'a Shape<'a>,
    /// Creation time (and start time), ms.
    pub(super) created: i64,
    ready: bool,
    /// [`PodView::alike`]: how many pods, this one first, are ready pods ([`declare_alike`]).
    alike: u32,
}

impl<'a> PoolPod<'a> {
    /// A pod created at `created`, still starting.
    pub(super) fn pending(shape: &'a Shape<'a>, created: i64) -> Self {
        PoolPod {
            shape,
            created,
            ready: false,
            alike: 1,
        }
    }

    /// A pod created at `created`, ready since the start-up delay after.
    pub(super) fn ready(shape: &'a Shape<'a>, created: i64) -> Self {
        PoolPod {
            shape,
            created,
            ready: true,
            alike: 1,
        }
    }

    /// The pod as the core's struct.
    pub(super) fn native(&self) -> Pod<'a> {
        Pod {
            name: self.name(),
            phase: self.phase(),
            ready: PodView::ready(self),
            start_time: self.start_time(),
            deleted: self.deleted(),
            containers: self.containers(),
            requests: self.requests(),
        }
    }
}

impl<'a> PodView<'a> for PoolPod<'a> {
    type Container = Container<'a>;
    type Request = ResourceRequest<'a>;
    #[inline(always)]
    fn name(&self) -> &'a str {
        "pod"
    }
    #[inline(always)]
    fn phase(&self) -> PodPhase {
        if self.ready {
            PodPhase::Running
        } else {
            PodPhase::Pending
        }
    }
    #[inline(always)]
    fn ready(&self) -> Option<ReadyCondition> {
        Some(if self.ready {
            ReadyCondition {
                status: ConditionStatus::True,
                last_transition: Some(Instant(
                    self.created.saturating_add(self.shape.startup_delay),
                )),
            }
        } else {
            ReadyCondition {
                status: ConditionStatus::False,
                last_transition: Some(Instant(self.created)),
            }
        })
    }
    #[inline(always)]
    fn start_time(&self) -> Option<Instant> {
        Some(Instant(self.created))
    }
    #[inline(always)]
    fn deleted(&self) -> bool {
        false
    }
    #[inline(always)]
    fn containers(&self) -> &'a [Container<'a>] {
        self.shape.containers
    }
    #[inline(always)]
    fn requests(&self) -> Option<&'a [ResourceRequest<'a>]> {
        self.shape.requests
    }
    #[inline(always)]
    fn alike(&self) -> usize {
        usize::try_from(self.alike).unwrap_or(1)
    }
}

/// Declares the pool's `ready` pods, its first ones, alike ([`PodView::alike`]): they differ
/// only in their creation (and start) times and readiness transitions, and were created in
/// order, oldest first. The engine then counts them without reading each one; the pods after
/// them, still starting, declare nothing. Called whenever the number of ready pods changed.
pub(super) fn declare_alike(pods: &mut [PoolPod<'_>], ready: usize) {
    let ready = ready.min(pods.len());
    let (alike, starting) = pods.split_at_mut(ready);
    for (pod, left) in alike.iter_mut().zip((1..=ready).rev()) {
        pod.alike = u32::try_from(left).unwrap_or(u32::MAX);
    }
    for pod in starting {
        pod.alike = 1;
    }
}

/// A pod's slot for one metric, and its sample: taken at the evaluation time over
/// [`SAMPLE_WINDOW`], its value the pod's (Resource and Pods metrics) or one container's
/// (ContainerResource metrics, which read the container's usage).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PoolSample<'a> {
    /// No sample (a pod still starting).
    Missing,
    /// The pod's value, milli-units.
    Pod(i64),
    /// The one container's usage, which is also the sample's value.
    Container(&'a ContainerUsage<'a>),
}

impl<'a> PoolSample<'a> {
    /// The slot as the core's, for a sample taken at `now`.
    pub(super) fn native(&self, now: Instant) -> Option<Sample<'a>> {
        match self {
            PoolSample::Missing => None,
            PoolSample::Pod(_) | PoolSample::Container(_) => Some(Sample {
                milli: self.milli(),
                timestamp: self.timestamp(now),
                window: self.window(),
                containers: self.containers(),
            }),
        }
    }
}

impl<'a> SampleSlot<'a> for PoolSample<'a> {
    type Sample = PoolSample<'a>;
    #[inline(always)]
    fn sample(&self) -> Option<&PoolSample<'a>> {
        match self {
            PoolSample::Missing => None,
            PoolSample::Pod(_) | PoolSample::Container(_) => Some(self),
        }
    }
}

impl<'a> SampleView<'a> for PoolSample<'a> {
    type Usage = ContainerUsage<'a>;
    #[inline(always)]
    fn milli(&self) -> i64 {
        match self {
            PoolSample::Missing => 0,
            PoolSample::Pod(milli) => *milli,
            PoolSample::Container(usage) => usage.milli,
        }
    }
    /// The evaluation time: every sample is taken then.
    #[inline(always)]
    fn timestamp(&self, now: Instant) -> Instant {
        now
    }
    #[inline(always)]
    fn window(&self) -> Duration {
        SAMPLE_WINDOW
    }
    #[inline(always)]
    fn containers(&self) -> &'a [ContainerUsage<'a>] {
        match self {
            PoolSample::Missing | PoolSample::Pod(_) => &[],
            PoolSample::Container(usage) => core::slice::from_ref(*usage),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hpa::input::alike_declarations_hold;
    use hpa::input::ContainerKind;
    use hpa::Quantity;

    /// A request of one cpu.
    const CPU: [ResourceRequest<'static>; 1] = [ResourceRequest {
        resource: "cpu",
        quantity: Quantity::from_milli(1000),
    }];

    /// A regular container `app` with `requests`.
    fn app<'a>(requests: &'a [ResourceRequest<'a>]) -> [Container<'a>; 1] {
        [Container {
            name: "app",
            kind: ContainerKind::Regular,
            requests,
        }]
    }

    /// The compact pods are small, and read as the pods the pool model built as the core's
    /// structs before (phase, readiness and its transition, start time, template).
    #[test]
    fn pool_pods_read_as_the_pool_models_pods() {
        assert!(std::mem::size_of::<PoolPod<'_>>() <= 24);
        assert!(std::mem::size_of::<PoolSample<'_>>() <= 16);
        let cpu = CPU;
        let containers = app(&cpu);
        let pod_level = [ResourceRequest {
            resource: "memory",
            quantity: Quantity::from_milli(5),
        }];
        for requests in [None, Some(&pod_level[..])] {
            let shape = Shape {
                containers: &containers,
                requests,
                startup_delay: 30_000,
            };
            let template = |phase, status, transition, created| Pod {
                name: "pod",
                phase,
                ready: Some(ReadyCondition {
                    status,
                    last_transition: Some(Instant(transition)),
                }),
                start_time: Some(Instant(created)),
                deleted: false,
                containers: &containers,
                requests,
            };
            for created in [-3_600_000, 0, 45_000, i64::MAX - 10] {
                assert_eq!(
                    PoolPod::pending(&shape, created).native(),
                    template(PodPhase::Pending, ConditionStatus::False, created, created)
                );
                assert_eq!(
                    PoolPod::ready(&shape, created).native(),
                    template(
                        PodPhase::Running,
                        ConditionStatus::True,
                        created.saturating_add(30_000),
                        created
                    ),
                );
                let pod = PoolPod::ready(&shape, created);
                assert!(std::ptr::eq(pod.containers(), &containers[..]));
            }
        }
    }

    /// The compact samples read as the samples the pool model built before: taken at the
    /// evaluation time over 60 s, a container's usage listed as the sample's only container.
    #[test]
    fn pool_samples_read_as_the_pool_models_samples() {
        let now = Instant(900_000);
        assert_eq!(PoolSample::Missing.native(now), None);
        assert!(PoolSample::Missing.sample().is_none());
        assert_eq!(
            PoolSample::Pod(812).native(now),
            Some(Sample {
                milli: 812,
                timestamp: now,
                window: Duration::from_secs(60),
                containers: &[],
            })
        );
        let usage = ContainerUsage {
            name: "sidecar",
            milli: 77,
        };
        let sample = PoolSample::Container(&usage);
        assert_eq!(
            sample.native(now),
            Some(Sample {
                milli: 77,
                timestamp: now,
                window: Duration::from_secs(60),
                containers: &[usage],
            })
        );
        assert_eq!(sample.sample().map(|s| s.milli()), Some(77));
        // The core's own sample reads the same through the views, whatever time it is read at.
        let native = sample.native(now).unwrap();
        let read = &native;
        assert_eq!(read.timestamp(Instant(0)), sample.timestamp(now));
        assert_eq!(read.milli(), sample.milli());
        assert_eq!(read.containers(), sample.containers());
        assert_eq!(read.window(), sample.window());
    }

    /// The pool declares its ready pods alike, and the check of the declarations finds a
    /// false one: a pod declared alike with a pod still starting, or with a pod of another
    /// template, or with a pod started earlier.
    #[test]
    fn the_pools_alike_declarations_hold_and_false_ones_are_found() {
        let cpu = CPU;
        let containers = app(&cpu);
        let other_containers = containers;
        let shape = Shape {
            containers: &containers,
            requests: None,
            startup_delay: 30_000,
        };
        let other = Shape {
            containers: &other_containers,
            requests: None,
            startup_delay: 30_000,
        };
        let mut pods: Vec<PoolPod<'_>> = (0..5).map(|_| PoolPod::ready(&shape, -60_000)).collect();
        pods.extend((0..3).map(|i| PoolPod::ready(&shape, i * 15_000)));
        pods.extend((0..4).map(|_| PoolPod::pending(&shape, 90_000)));
        assert!(alike_declarations_hold(&pods), "nothing declared yet");
        declare_alike(&mut pods, 8);
        assert_eq!(
            pods.iter().map(PodView::alike).collect::<Vec<_>>(),
            [8, 7, 6, 5, 4, 3, 2, 1, 1, 1, 1, 1]
        );
        assert!(alike_declarations_hold(&pods));
        // Declared over the first starting pod.
        declare_alike(&mut pods, 9);
        assert!(!alike_declarations_hold(&pods));
        // Fewer ready pods after a scale-down.
        pods.truncate(6);
        declare_alike(&mut pods, 6);
        assert!(alike_declarations_hold(&pods));
        // Another template, or an earlier start, within a declared run.
        let mut mixed = pods.clone();
        mixed[3] = PoolPod::ready(&other, mixed[3].created);
        declare_alike(&mut mixed, 6);
        assert!(!alike_declarations_hold(&mixed));
        let mut unordered = pods.clone();
        unordered[5] = PoolPod::ready(&shape, -120_000);
        declare_alike(&mut unordered, 6);
        assert!(!alike_declarations_hold(&unordered));
        declare_alike(&mut unordered, 5);
        assert!(alike_declarations_hold(&unordered));
    }
}
