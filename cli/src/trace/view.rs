//! The engine views: the owned model lent to the engine as its borrowed input types
//! ([`HpaSpec`], [`Observation`]), their slices allocated in a caller-supplied [`Bump`] arena
//! (reset it between steps to reuse its memory).
//!
//! Apart from the owned model so that the data the conversion builds and its mapping onto the
//! engine's types are read (and changed) one at a time.

use bumpalo::Bump;
use hpa::input::{
    Container, ContainerUsage, MetricValues, Observation, Pod, PodSamples, ResourceRequest, Sample,
};
use hpa::quantity::Quantity;
use hpa::spec::{
    Behavior, ContainerResourceMetricSource, CrossVersionObjectReference, ExternalMetricSource,
    HpaSpec, MetricIdentifier, MetricSpec, ObjectMetricSource, PodsMetricSource,
    ResourceMetricSource, ScalingRules,
};
use hpa::time::Instant;

use super::owned::{
    OwnedIdentifier, OwnedMetric, OwnedMetricValues, OwnedPod, OwnedRef, OwnedRules, OwnedSample,
    OwnedSpec,
};
use super::{Manifest, StepView, Trace};

impl Trace {
    /// The HPA spec as written (before API defaulting), its slices allocated in `arena`. It
    /// passed [`Hpa::new`] with [`Trace::settings`] when the trace was loaded.
    ///
    /// [`Hpa::new`]: hpa::defaults::Hpa::new
    pub fn spec<'b>(&'b self, arena: &'b Bump) -> HpaSpec<'b> {
        self.spec.view(arena)
    }

    /// The number of steps.
    pub fn steps(&self) -> usize {
        self.steps.len()
    }

    /// Step `i`'s time (`at`), or `None` when the trace has no step `i`.
    pub fn step_at(&self, i: usize) -> Option<Instant> {
        self.steps.get(i).map(|step| Instant(step.at))
    }

    /// Step `i` as the engine's input, its slices allocated in `arena` (reset the arena between
    /// steps to reuse its memory), or `None` when the trace has no step `i`.
    pub fn step_view<'b>(&'b self, i: usize, arena: &'b Bump) -> Option<StepView<'b>> {
        let step = self.steps.get(i)?;
        let pods: &[Pod<'b>] =
            arena.alloc_slice_fill_iter(step.pods.iter().map(|pod| pod.view(arena)));
        let metrics: &[MetricValues<'b>] =
            arena.alloc_slice_fill_iter(step.metrics.iter().map(|m| m.view(arena)));
        Some(StepView {
            observation: Observation {
                now: Instant(step.at),
                replicas: step.replicas,
                status_replicas: step.status_replicas,
                pods,
                metrics,
            },
            applied: step.applied,
        })
    }
}

impl Manifest {
    /// The HPA spec as written (before API defaulting), its slices allocated in `arena`. It
    /// passed [`Hpa::new`] with the settings the manifest was loaded with.
    ///
    /// [`Hpa::new`]: hpa::defaults::Hpa::new
    pub fn spec<'b>(&'b self, arena: &'b Bump) -> HpaSpec<'b> {
        self.spec.view(arena)
    }
}

impl OwnedRef {
    pub(super) fn view(&self) -> CrossVersionObjectReference<'_> {
        CrossVersionObjectReference {
            kind: &self.kind,
            name: &self.name,
            api_version: &self.api_version,
        }
    }
}

impl OwnedIdentifier {
    pub(super) fn view(&self) -> MetricIdentifier<'_> {
        MetricIdentifier {
            name: &self.name,
            selector: self.selector.as_deref(),
            selector_invalid: self.selector_invalid,
        }
    }
}

impl OwnedMetric {
    pub(super) fn view(&self) -> MetricSpec<'_> {
        MetricSpec {
            type_: self.type_,
            object: self
                .object
                .as_ref()
                .map(|(described, metric, target)| ObjectMetricSource {
                    described_object: described.view(),
                    metric: metric.view(),
                    target: *target,
                }),
            pods: self.pods.as_ref().map(|(metric, target)| PodsMetricSource {
                metric: metric.view(),
                target: *target,
            }),
            resource: self
                .resource
                .as_ref()
                .map(|(name, target)| ResourceMetricSource {
                    name,
                    target: *target,
                }),
            container_resource: self.container_resource.as_ref().map(
                |(name, container, target)| ContainerResourceMetricSource {
                    name,
                    container,
                    target: *target,
                },
            ),
            external: self
                .external
                .as_ref()
                .map(|(metric, target)| ExternalMetricSource {
                    metric: metric.view(),
                    target: *target,
                }),
        }
    }
}

impl OwnedRules {
    pub(super) fn view(&self) -> ScalingRules<'_> {
        ScalingRules {
            stabilization_window_seconds: self.stabilization_window_seconds,
            select_policy: self.select_policy,
            policies: self.policies.as_deref(),
            tolerance: self.tolerance,
        }
    }
}

impl OwnedSpec {
    pub(super) fn view<'b>(&'b self, arena: &'b Bump) -> HpaSpec<'b> {
        let metrics: &[MetricSpec<'b>] =
            arena.alloc_slice_fill_iter(self.metrics.iter().map(OwnedMetric::view));
        HpaSpec {
            min_replicas: self.min_replicas,
            max_replicas: self.max_replicas,
            metrics,
            behavior: self.behavior.as_ref().map(|b| Behavior {
                scale_up: b.scale_up.as_ref().map(OwnedRules::view),
                scale_down: b.scale_down.as_ref().map(OwnedRules::view),
            }),
            scale_target_ref: self.scale_target_ref.as_ref().map(OwnedRef::view),
        }
    }
}

fn requests_view<'b>(
    requests: &'b [(String, Quantity)],
    arena: &'b Bump,
) -> &'b [ResourceRequest<'b>] {
    arena.alloc_slice_fill_iter(requests.iter().map(|(resource, quantity)| ResourceRequest {
        resource,
        quantity: *quantity,
    }))
}

impl OwnedPod {
    pub(super) fn view<'b>(&'b self, arena: &'b Bump) -> Pod<'b> {
        let containers: &[Container<'b>] =
            arena.alloc_slice_fill_iter(self.containers.iter().map(|c| Container {
                name: &c.name,
                kind: c.kind,
                requests: requests_view(&c.requests, arena),
            }));
        Pod {
            name: &self.name,
            phase: self.phase,
            ready: self.ready,
            start_time: self.start_time,
            deleted: self.deleted,
            containers,
            requests: self.requests.as_deref().map(|r| requests_view(r, arena)),
        }
    }
}

impl OwnedSample {
    pub(super) fn view<'b>(&'b self, arena: &'b Bump) -> Sample<'b> {
        Sample {
            milli: self.milli,
            timestamp: self.timestamp,
            window: self.window,
            containers: arena.alloc_slice_fill_iter(self.containers.iter().map(|(name, milli)| {
                ContainerUsage {
                    name,
                    milli: *milli,
                }
            })),
        }
    }
}

impl OwnedMetricValues {
    pub(super) fn view<'b>(&'b self, arena: &'b Bump) -> MetricValues<'b> {
        match self {
            OwnedMetricValues::Pods { per_pod, orphans } => MetricValues::Pods(PodSamples {
                per_pod: arena.alloc_slice_fill_iter(
                    per_pod.iter().map(|s| s.as_ref().map(|s| s.view(arena))),
                ),
                orphans: arena.alloc_slice_fill_iter(orphans.iter().map(|s| s.view(arena))),
            }),
            OwnedMetricValues::Object(milli) => MetricValues::Object(*milli),
            OwnedMetricValues::External(values) => MetricValues::External(values),
            OwnedMetricValues::Error(message) => MetricValues::Error(message),
        }
    }
}
