//! What the caller observed for one evaluation: the scale target, the selected pods and the
//! metric values. Everything is borrowed; the engine copies nothing.
//!
//! Pod samples are index-aligned with the pod list (`samples[i]` belongs to `pods[i]`), so
//! joining them costs nothing; samples for names that match no listed pod are passed apart as
//! `orphans` (upstream keeps them in its averages).
//!
//! The engine reads pods and samples through views ([`PodView`], [`SampleSlot`],
//! [`SampleView`]): the core's own structs implement them, and so can a caller's (the C API
//! reads the C structs in place). [`ObservationOf`] takes the types of pods, per-pod sample
//! slots and samples as parameters; [`Observation`] is the one of the core's structs.

use core::fmt::Debug;

use crate::quantity::Quantity;
use crate::time::{Duration, Instant};

/// One evaluation's inputs, with the pods and samples of the core's own structs.
pub type Observation<'a> = ObservationOf<'a, Pod<'a>, Option<Sample<'a>>, Sample<'a>>;

/// One evaluation's inputs, with pods `P`, per-pod sample slots `T` and samples `O`.
// The element types are parameters, not a layout's associated types: those would make the
// struct invariant in `'a`, and callers shorten an observation's lifetime.
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ObservationOf<'a, P, T, O> {
    /// The evaluation time on the caller's monotonic clock.
    pub now: Instant,
    /// The scale target's `spec.replicas` ("current replicas").
    pub replicas: i32,
    /// The scale target's `status.replicas`.
    pub status_replicas: i32,
    /// The pods the HPA's selector matches.
    pub pods: &'a [P],
    /// One entry per `spec.metrics[i]`, in the same order.
    pub metrics: &'a [MetricValuesOf<'a, T, O>],
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

/// Per-pod samples of one Resource, ContainerResource or Pods metric, of the core's structs.
pub type PodSamples<'a> = PodSamplesOf<'a, Option<Sample<'a>>, Sample<'a>>;

/// Per-pod samples of one Resource, ContainerResource or Pods metric: slots `T`, samples `O`.
#[derive(PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PodSamplesOf<'a, T, O> {
    /// `per_pod[i]` is the sample of `Observation::pods[i]`, `None` when the metrics API
    /// returned none. Its length must equal the pod count.
    pub per_pod: &'a [T],
    /// Samples for pod names that match no listed pod (distinct names).
    pub orphans: &'a [O],
}

/// The values fetched for one metric, with samples of the core's structs.
pub type MetricValues<'a> = MetricValuesOf<'a, Option<Sample<'a>>, Sample<'a>>;

/// The values fetched for one metric, with per-pod sample slots `T` and samples `O`.
#[derive(PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MetricValuesOf<'a, T, O> {
    /// Resource, ContainerResource and Pods metrics.
    Pods(PodSamplesOf<'a, T, O>),
    /// An Object metric's value in milli-units.
    Object(i64),
    /// An External metric's series values in milli-units (empty is an error upstream).
    External(&'a [i64]),
    /// Fetching failed with this adapter message.
    Error(&'a str),
}

/// The types of one layout of pods and samples, as one name for the engine's generic code:
/// the tuple of pod, per-pod sample slot and sample types.
pub trait PodSource<'a> {
    /// A pod.
    type Pod: PodView<'a> + 'a;
    /// A pod's slot for one metric: its sample, or none.
    type Slot: SampleSlot<'a, Sample = Self::Sample> + 'a;
    /// A sample (orphan samples are these).
    type Sample: SampleView<'a> + 'a;
}

impl<'a, P, T, O> PodSource<'a> for (P, T, O)
where
    P: PodView<'a> + 'a,
    T: SampleSlot<'a, Sample = O> + 'a,
    O: SampleView<'a> + 'a,
{
    type Pod = P;
    type Slot = T;
    type Sample = O;
}

/// The core's own layout: [`Pod`], `Option<`[`Sample`]`>` and [`Sample`].
pub type Native<'a> = (Pod<'a>, Option<Sample<'a>>, Sample<'a>);

/// [`ObservationOf`] of a layout.
pub type ObservationIn<'a, S> = ObservationOf<
    'a,
    <S as PodSource<'a>>::Pod,
    <S as PodSource<'a>>::Slot,
    <S as PodSource<'a>>::Sample,
>;

/// [`MetricValuesOf`] of a layout.
pub type MetricValuesIn<'a, S> =
    MetricValuesOf<'a, <S as PodSource<'a>>::Slot, <S as PodSource<'a>>::Sample>;

/// [`PodSamplesOf`] of a layout.
pub type PodSamplesIn<'a, S> =
    PodSamplesOf<'a, <S as PodSource<'a>>::Slot, <S as PodSource<'a>>::Sample>;

// By hand, not derived: `Clone` and `Copy` without bounds (the fields are references), and
// `Debug` printing the core's names, as the derives did before the types were generic.
impl<P, T, O> Clone for ObservationOf<'_, P, T, O> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P, T, O> Copy for ObservationOf<'_, P, T, O> {}
impl<P: Debug, T: Debug, O: Debug> Debug for ObservationOf<'_, P, T, O> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Observation")
            .field("now", &self.now)
            .field("replicas", &self.replicas)
            .field("status_replicas", &self.status_replicas)
            .field("pods", &self.pods)
            .field("metrics", &self.metrics)
            .finish()
    }
}
impl<T, O> Clone for PodSamplesOf<'_, T, O> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, O> Copy for PodSamplesOf<'_, T, O> {}
impl<T: Debug, O: Debug> Debug for PodSamplesOf<'_, T, O> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PodSamples")
            .field("per_pod", &self.per_pod)
            .field("orphans", &self.orphans)
            .finish()
    }
}
impl<T, O> Clone for MetricValuesOf<'_, T, O> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, O> Copy for MetricValuesOf<'_, T, O> {}
impl<T: Debug, O: Debug> Debug for MetricValuesOf<'_, T, O> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            MetricValuesOf::Pods(s) => f.debug_tuple("Pods").field(s).finish(),
            MetricValuesOf::Object(v) => f.debug_tuple("Object").field(v).finish(),
            MetricValuesOf::External(vs) => f.debug_tuple("External").field(vs).finish(),
            MetricValuesOf::Error(m) => f.debug_tuple("Error").field(m).finish(),
        }
    }
}

/// What the engine reads of a pod: the fields of [`Pod`].
pub trait PodView<'a> {
    /// Its containers.
    type Container: ContainerView<'a, Request = Self::Request> + 'a;
    /// Its requests.
    type Request: RequestView<'a> + 'a;
    /// [`Pod::name`]. The engine reads it only to name the pod in an error: a
    /// [`RequestError`](crate::RequestError) (a pod whose containers or pod-level requests
    /// lack a Resource or ContainerResource metric's request, or its container), or a
    /// ContainerResource metric's sample without the container (`ContainerNotInMetrics`, of
    /// the `older-controllers` feature).
    /// A caller may leave the names of other pods unchecked (the C API does).
    fn name(&self) -> &'a str;
    /// [`Pod::phase`].
    fn phase(&self) -> PodPhase;
    /// [`Pod::ready`].
    fn ready(&self) -> Option<ReadyCondition>;
    /// [`Pod::start_time`].
    fn start_time(&self) -> Option<Instant>;
    /// [`Pod::deleted`].
    fn deleted(&self) -> bool;
    /// [`Pod::containers`]. The engine takes pods with the same slice (not an equal one) as
    /// pods of one template.
    fn containers(&self) -> &'a [Self::Container];
    /// [`Pod::requests`].
    fn requests(&self) -> Option<&'a [Self::Request]>;

    /// How many pods of the observation's pod slice, this one first, are alike: `n` says that
    /// each of the `n - 1` pods after this one returns what this one returns from every
    /// method above but [`name`](PodView::name), [`start_time`](PodView::start_time) and
    /// the `last_transition` of [`ready`](PodView::ready) (the same
    /// [`containers`](PodView::containers) and [`requests`](PodView::requests) slices
    /// included), and that each of the `n` pods has a start time, none before the previous
    /// pod's (pods of one template scaled up over time, oldest first, as a simulated pool
    /// holds them). 1 (the default) and 0 say nothing; a count past the end of the slice
    /// means up to its end.
    ///
    /// The declaration only saves work: on 64-bit hosts the pass over the pods counts such a
    /// run of ready pods by its first pod, a search of its start times and its samples,
    /// without reading each pod (docs/spec/pods.md#alike-pods). The decision is the one the
    /// pods' own methods give when the declaration is true; a false one gives the decision
    /// for the pods as declared (no panic, no undefined behaviour); [`alike_declarations_hold`]
    /// checks declarations, for a caller's tests.
    #[inline(always)]
    fn alike(&self) -> usize {
        1
    }
}

/// What the engine reads of a container: the fields of [`Container`].
pub trait ContainerView<'a> {
    /// Its requests.
    type Request: RequestView<'a> + 'a;
    /// [`Container::name`].
    fn name(&self) -> &'a str;
    /// [`Container::kind`].
    fn kind(&self) -> ContainerKind;
    /// [`Container::requests`].
    fn requests(&self) -> &'a [Self::Request];
}

/// What the engine reads of a resource request: the fields of [`ResourceRequest`].
pub trait RequestView<'a> {
    /// How the request holds its amount.
    type Amount: Amount;
    /// [`ResourceRequest::resource`].
    fn resource(&self) -> &'a str;
    /// [`ResourceRequest::quantity`].
    fn quantity(&self) -> Quantity;
    /// The amount, by reference (the engine finds a request, then reads its amount).
    fn amount(&self) -> &Self::Amount;
}

/// A requested amount: a [`Quantity`], or a caller's representation of one.
pub trait Amount {
    /// [`Quantity::milli_value`].
    fn milli_value(&self) -> i64;
    /// [`Quantity::nano_value`].
    fn nano_value(&self) -> i128;
}

impl Amount for Quantity {
    #[inline(always)]
    fn milli_value(&self) -> i64 {
        Quantity::milli_value(self)
    }
    #[inline(always)]
    fn nano_value(&self) -> i128 {
        Quantity::nano_value(self)
    }
}

/// A pod's slot for one metric: `Option<`[`Sample`]`>`.
pub trait SampleSlot<'a> {
    /// Its sample.
    type Sample: SampleView<'a>;
    /// The sample, or `None` when the metrics API returned none.
    fn sample(&self) -> Option<&Self::Sample>;
}

/// What the engine reads of a sample: the fields of [`Sample`].
pub trait SampleView<'a> {
    /// Its container usages.
    type Usage: UsageView<'a> + 'a;
    /// [`Sample::milli`].
    fn milli(&self) -> i64;
    /// [`Sample::timestamp`], where `now` is the evaluation time (a caller's layout may
    /// leave it unset for "taken now").
    fn timestamp(&self, now: Instant) -> Instant;
    /// [`Sample::window`].
    fn window(&self) -> Duration;
    /// [`Sample::containers`]. The engine reads them only for a metric that names a
    /// container (ContainerResource): a layout may leave them unchecked for other metrics.
    fn containers(&self) -> &'a [Self::Usage];
}

/// What the engine reads of a container's usage: the fields of [`ContainerUsage`].
pub trait UsageView<'a> {
    /// [`ContainerUsage::name`].
    fn name(&self) -> &'a str;
    /// [`ContainerUsage::milli`].
    fn milli(&self) -> i64;
}

// The core's structs read as themselves: every method is a field access.
impl<'a> PodView<'a> for Pod<'a> {
    type Container = Container<'a>;
    type Request = ResourceRequest<'a>;
    #[inline(always)]
    fn name(&self) -> &'a str {
        self.name
    }
    #[inline(always)]
    fn phase(&self) -> PodPhase {
        self.phase
    }
    #[inline(always)]
    fn ready(&self) -> Option<ReadyCondition> {
        self.ready
    }
    #[inline(always)]
    fn start_time(&self) -> Option<Instant> {
        self.start_time
    }
    #[inline(always)]
    fn deleted(&self) -> bool {
        self.deleted
    }
    #[inline(always)]
    fn containers(&self) -> &'a [Container<'a>] {
        self.containers
    }
    #[inline(always)]
    fn requests(&self) -> Option<&'a [ResourceRequest<'a>]> {
        self.requests
    }
}

impl<'a> ContainerView<'a> for Container<'a> {
    type Request = ResourceRequest<'a>;
    #[inline(always)]
    fn name(&self) -> &'a str {
        self.name
    }
    #[inline(always)]
    fn kind(&self) -> ContainerKind {
        self.kind
    }
    #[inline(always)]
    fn requests(&self) -> &'a [ResourceRequest<'a>] {
        self.requests
    }
}

impl<'a> RequestView<'a> for ResourceRequest<'a> {
    type Amount = Quantity;
    #[inline(always)]
    fn resource(&self) -> &'a str {
        self.resource
    }
    #[inline(always)]
    fn quantity(&self) -> Quantity {
        self.quantity
    }
    #[inline(always)]
    fn amount(&self) -> &Quantity {
        &self.quantity
    }
}

impl<'a> SampleSlot<'a> for Option<Sample<'a>> {
    type Sample = Sample<'a>;
    #[inline(always)]
    fn sample(&self) -> Option<&Sample<'a>> {
        self.as_ref()
    }
}

impl<'a> SampleView<'a> for Sample<'a> {
    type Usage = ContainerUsage<'a>;
    #[inline(always)]
    fn milli(&self) -> i64 {
        self.milli
    }
    #[inline(always)]
    fn timestamp(&self, _: Instant) -> Instant {
        self.timestamp
    }
    #[inline(always)]
    fn window(&self) -> Duration {
        self.window
    }
    #[inline(always)]
    fn containers(&self) -> &'a [ContainerUsage<'a>] {
        self.containers
    }
}

impl<'a> UsageView<'a> for ContainerUsage<'a> {
    #[inline(always)]
    fn name(&self) -> &'a str {
        self.name
    }
    #[inline(always)]
    fn milli(&self) -> i64 {
        self.milli
    }
}

/// Whether every pod's [`PodView::alike`] declaration in `pods` holds: each declared run lies
/// within a stretch of pods that, pair by pair, have the same phase, deletion, Ready status,
/// container and pod-level request slices, and start times, present and not decreasing
/// (docs/spec/pods.md#alike-pods). For callers that declare runs, to check them in their
/// tests; the engine trusts declarations and does not call it.
pub fn alike_declarations_hold<'a, P: PodView<'a>>(pods: &[P]) -> bool {
    // `end`: one past the last pod alike, pair by pair, with every pod from `i` on.
    let mut end = pods.len();
    for (i, pod) in pods.iter().enumerate().rev() {
        let after = i.saturating_add(1);
        if pods.get(after).is_some_and(|next| !alike_pair(pod, next)) {
            end = after;
        }
        if pod.alike() > 1 && i.saturating_add(pod.alike()).min(pods.len()) > end {
            return false;
        }
    }
    true
}

/// `b` may follow `a` in a run of alike pods ([`PodView::alike`]).
pub(crate) fn alike_pair<'a, P: PodView<'a>>(a: &P, b: &P) -> bool {
    a.phase() == b.phase()
        && a.deleted() == b.deleted()
        && a.ready().map(|r| r.status) == b.ready().map(|r| r.status)
        && same_slices(a, b)
        && matches!((a.start_time(), b.start_time()), (Some(x), Some(y)) if x <= y)
}

/// `b` has `a`'s container slice and pod-level request slice (the same ones, not equal ones):
/// everything its request depends on. Inlined, so that the pass's run loops call nothing.
#[inline(always)]
pub(crate) fn same_slices<'a, P: PodView<'a>>(a: &P, b: &P) -> bool {
    core::ptr::eq(a.containers(), b.containers()) && same_pod_level(a.requests(), b.requests())
}

/// The same pod-level request slice (or none on both sides).
pub(crate) fn same_pod_level<R>(a: Option<&[R]>, b: Option<&[R]>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => core::ptr::eq(a, b),
        _ => false,
    }
}
