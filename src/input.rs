//! What the caller observed for one evaluation: the scale target, the selected pods and the
//! metric values. Everything is borrowed; the engine copies nothing.
//!
//! Pod samples are index-aligned with the pod list (`samples[i]` belongs to `pods[i]`), so
//! joining them costs nothing; samples for names that match no listed pod are passed apart as
//! `orphans` (upstream keeps them in its averages).

use crate::quantity::Quantity;
use crate::time::{Duration, Instant};

/// One evaluation's inputs.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Observation<'a> {
    /// The evaluation time on the caller's monotonic clock.
    pub now: Instant,
    /// The scale target's `spec.replicas` ("current replicas").
    pub replicas: i32,
    /// The scale target's `status.replicas`.
    pub status_replicas: i32,
    /// The pods the HPA's selector matches.
    pub pods: &'a [Pod<'a>],
    /// One entry per `spec.metrics[i]`, in the same order.
    pub metrics: &'a [MetricValues<'a>],
}

/// A pod's phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PodPhase {
    /// `Pending`.
    Pending,
    /// `Running`.
    #[default]
    Running,
    /// `Succeeded`.
    Succeeded,
    /// `Failed`.
    Failed,
    /// `Unknown`.
    Unknown,
}

/// Status of a pod or HPA condition. The discriminants are the digest's codes
/// (docs/spec/digest.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u8)]
pub enum ConditionStatus {
    /// `True`.
    True = 1,
    /// `False`.
    False = 2,
    /// `Unknown`.
    Unknown = 3,
}

impl ConditionStatus {
    /// The status whose code (discriminant) is `code`.
    pub const fn from_code(code: u8) -> Option<ConditionStatus> {
        Some(match code {
            1 => ConditionStatus::True,
            2 => ConditionStatus::False,
            3 => ConditionStatus::Unknown,
            _ => return None,
        })
    }

    /// Every status, in the order of their codes (`hpa::digest::status_code`).
    pub const ALL: [ConditionStatus; 3] = [
        ConditionStatus::True,
        ConditionStatus::False,
        ConditionStatus::Unknown,
    ];

    /// The API spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            ConditionStatus::True => "True",
            ConditionStatus::False => "False",
            ConditionStatus::Unknown => "Unknown",
        }
    }
}

/// A pod's `Ready` condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ReadyCondition {
    /// Its status.
    pub status: ConditionStatus,
    /// `lastTransitionTime`; `None` when unset (earlier than any time).
    pub last_transition: Option<Instant>,
}

/// What kind of container a container is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ContainerKind {
    /// A regular container (`spec.containers`).
    #[default]
    Regular,
    /// A sidecar: an init container with `restartPolicy: Always`.
    RestartableInit,
    /// A plain init container (ignored by the per-container request sum).
    Init,
}

/// A resource request such as `cpu: 500m`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ResourceRequest<'a> {
    /// Resource name.
    pub resource: &'a str,
    /// Requested amount.
    pub quantity: Quantity,
}

/// One container of a pod, with its requests.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Container<'a> {
    /// Container name.
    pub name: &'a str,
    /// Regular, sidecar or plain init container. Init containers keep their spec order
    /// relative to each other.
    pub kind: ContainerKind,
    /// `resources.requests`.
    pub requests: &'a [ResourceRequest<'a>],
}

/// A pod selected by the HPA.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Pod<'a> {
    /// Pod name (used in messages).
    pub name: &'a str,
    /// Phase.
    pub phase: PodPhase,
    /// The `Ready` condition, if the pod has one.
    pub ready: Option<ReadyCondition>,
    /// `status.startTime`, if set.
    pub start_time: Option<Instant>,
    /// The pod has a deletion timestamp.
    pub deleted: bool,
    /// Containers (regular and init, in spec order).
    pub containers: &'a [Container<'a>],
    /// Pod-level `resources.requests` (PodLevelResources), if the pod has them.
    pub requests: Option<&'a [ResourceRequest<'a>]>,
}

/// Usage of one container.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ContainerUsage<'a> {
    /// Container name.
    pub name: &'a str,
    /// Usage in milli-units.
    pub milli: i64,
}

/// One pod's metric sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Sample<'a> {
    /// The pod's value in milli-units (Resource: the sum of its containers' usage).
    pub milli: i64,
    /// When the sample was taken.
    pub timestamp: Instant,
    /// The window it averages over (metrics API `window`, 60 s by default).
    pub window: Duration,
    /// Per-container usage (ContainerResource metrics read the named container here).
    pub containers: &'a [ContainerUsage<'a>],
}

/// Per-pod samples of one Resource, ContainerResource or Pods metric.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PodSamples<'a> {
    /// `per_pod[i]` is the sample of `Observation::pods[i]`, `None` when the metrics API
    /// returned none. Its length must equal the pod count.
    pub per_pod: &'a [Option<Sample<'a>>],
    /// Samples for pod names that match no listed pod (distinct names).
    pub orphans: &'a [Sample<'a>],
}

/// The values fetched for one metric.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MetricValues<'a> {
    /// Resource, ContainerResource and Pods metrics.
    Pods(PodSamples<'a>),
    /// An Object metric's value in milli-units.
    Object(i64),
    /// An External metric's series values in milli-units (empty is an error upstream).
    External(&'a [i64]),
    /// Fetching failed with this adapter message.
    Error(&'a str),
}
