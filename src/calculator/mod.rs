//! Replica proposals per metric source and target type (docs/spec/calculator.md).
//!
//! Each function mirrors one upstream replica-calculator entry point. Pod-based calculators
//! make one pass over the pods and allocate nothing: sums replace upstream's per-pod map,
//! and upstream's second pass over the pods is arithmetic on the sums the pass keeps.
//!
//! - `proposal`: the calculators, one per source and target type, and their proposal rules;
//! - `pass`: the pass over the pods, as the specification states it;
//! - `fast`: the pass's fast form on hosts (`crate::tuning::FAST_FORMS`);
//! - `ratio`: the ratio of a pass's sums to the target, and the percentages;
//! - `reading`: whether a reading was one upstream takes as it is.

mod fast;
mod pass;
mod proposal;
mod ratio;
mod reading;

pub(crate) use proposal::{pod_metric, usage_metric};
pub use reading::Reading;
pub(crate) use reading::{pod_reading, usage_reading};

use crate::arith::Tolerances;
use crate::input::{ObservationOf, Pod, PodSource, Sample, SampleView, UsageView};
use crate::pods::{Readiness, RequestError};
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
    /// A sample has no usage of the ContainerResource metric's container: an error of the
    /// releases before the newest (docs/spec/releases.md#missing-container).
    #[cfg(feature = "older-controllers")]
    ContainerNotInMetrics {
        /// The metric's container.
        container: &'a str,
        /// The pod of the sample; `None` for a sample of a pod that is not listed.
        pod: Option<&'a str>,
    },
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

/// Everything a calculator needs besides its metric's own values, for pods `P`, per-pod sample
/// slots `T` and samples `O` (the core's own structs by default).
#[derive(Debug)]
pub struct CalcContext<'o, 'a, P = Pod<'a>, T = Option<Sample<'a>>, O = Sample<'a>> {
    /// The observation (pods, replica counts, time).
    pub obs: &'o ObservationOf<'a, P, T, O>,
    /// Controller settings (readiness periods, arithmetic mode).
    pub settings: &'o Settings,
    /// The HPA's tolerances.
    pub tolerances: Tolerances,
    /// `scale.spec.replicas`.
    pub current: i32,
}

/// [`CalcContext`] of a layout.
pub(crate) type Ctx<'o, 'a, S> = CalcContext<
    'o,
    'a,
    <S as PodSource<'a>>::Pod,
    <S as PodSource<'a>>::Slot,
    <S as PodSource<'a>>::Sample,
>;

// By hand: derives would ask `Copy` of the element types, which the context only borrows.
impl<P, T, O> Clone for CalcContext<'_, '_, P, T, O> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P, T, O> Copy for CalcContext<'_, '_, P, T, O> {}

impl<P, T, O> CalcContext<'_, '_, P, T, O> {
    pub(crate) fn readiness(&self, cpu: bool) -> Readiness {
        readiness(self.obs, self.settings, cpu)
    }
}

/// The readiness rules of an evaluation (the cpu rules for a `cpu` metric).
pub(crate) fn readiness<P, T, O>(
    obs: &ObservationOf<'_, P, T, O>,
    settings: &Settings,
    cpu: bool,
) -> Readiness {
    Readiness {
        cpu,
        cpu_initialization_period: settings.cpu_initialization_period,
        initial_readiness_delay: settings.initial_readiness_delay,
        now: obs.now,
    }
}

/// A sample's value for this metric: the named container's usage, or the pod's.
pub(crate) fn sample_value<'a, S: SampleView<'a>>(
    sample: &S,
    container: Option<&str>,
) -> Option<i64> {
    match container {
        None => Some(sample.milli()),
        Some(name) => sample
            .containers()
            .iter()
            .find(|c| crate::pods::same(c.name(), name))
            .map(|c| c.milli()),
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
