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
}

impl<'a> PoolPod<'a> {
    /// A pod created at `created`, still starting.
    pub(super) fn pending(shape: &'a Shape<'a>, created: i64) -> Self {
        PoolPod {
            shape,
            created,
            ready: false,
        }
    }

    /// A pod created at `created`, ready since the start-up delay after.
    pub(super) fn ready(shape: &'a Shape<'a>, created: i64) -> Self {
        PoolPod {
            shape,
            created,
            ready: true,
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
    use hpa::input::ContainerKind;
    use hpa::Quantity;

    /// The compact pods are small, and read as the pods the pool model built as the core's
    /// structs before (phase, readiness and its transition, start time, template).
    #[test]
    fn pool_pods_read_as_the_pool_models_pods() {
        assert!(std::mem::size_of::<PoolPod<'_>>() <= 24);
        assert!(std::mem::size_of::<PoolSample<'_>>() <= 16);
        let cpu = [ResourceRequest {
            resource: "cpu",
            quantity: Quantity::from_milli(1000),
        }];
        let containers = [Container {
            name: "app",
            kind: ContainerKind::Regular,
            requests: &cpu,
        }];
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
}
