//! One evaluation's inputs as C passes them, and their conversion into the core's views.
//!
//! The core reads pods and samples as slices of its own structs, which C cannot lay out. The
//! conversion writes them into a workspace the caller provides (no heap): one pass measures
//! the bytes needed (`hpa_observation_check`), the same code with a real arena fills them
//! (`hpa_autoscaler_evaluate`). Consecutive pods that share a container array (pods of one
//! template) share one converted copy, which also lets the engine reuse their request sum.

use core::mem::{align_of, size_of, MaybeUninit};

use hpa::input::{Container, ContainerUsage, ReadyCondition, ResourceRequest};
use hpa::spec::MetricSourceType;
use hpa::{Duration, Instant, MetricValues, Observation, Pod, PodSamples, Quantity, Sample};

use crate::enums::{self, hpa_values_kind};
use crate::error::{Detail, Fault};
use crate::raw::{self, hpa_str, Outputs};
use crate::status::hpa_status;
use crate::{HPA_DEFAULT_SAMPLE_WINDOW_MS, HPA_MAX_METRICS, HPA_WORKSPACE_ELEMENT_SIZE};

/// A resource request, e.g. `cpu: 500m` is `{ HPA_STR("cpu"), 500 }`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hpa_resource_request {
    /// The resource name.
    pub resource: hpa_str,
    /// The requested amount in milli-units.
    pub milli: i64,
}

/// One container of a pod, with its requests.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hpa_container {
    /// The container name.
    pub name: hpa_str,
    /// An `hpa_container_kind` (0: a regular container).
    pub kind: u32,
    /// `resources.requests`.
    pub requests: *const hpa_resource_request,
    /// The number of requests.
    pub requests_len: usize,
}

/// A pod the HPA selects. A zeroed pod is `Running` with no Ready condition (unready for
/// CPU metrics): set `ready` for real pods.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hpa_pod {
    /// The pod name (used in messages).
    pub name: hpa_str,
    /// An `hpa_pod_phase` (0: Running).
    pub phase: u32,
    /// An `hpa_ready`: the pod's Ready condition (0: it has none).
    pub ready: u32,
    /// 1 when `ready_transition_ms` is set (otherwise the transition time is unset, earlier
    /// than any time).
    pub has_ready_transition: u32,
    /// 1 when `start_time_ms` is set.
    pub has_start_time: u32,
    /// The Ready condition's `lastTransitionTime`, on the caller's millisecond clock.
    pub ready_transition_ms: i64,
    /// `status.startTime`, on the caller's millisecond clock.
    pub start_time_ms: i64,
    /// 1 when the pod has a deletion timestamp (it is then ignored).
    pub deleted: u32,
    /// The containers (regular and init, in spec order). Consecutive pods may share one
    /// array.
    pub containers: *const hpa_container,
    /// The number of containers.
    pub containers_len: usize,
    /// Pod-level `resources.requests` (PodLevelResources), or NULL when the pod has none.
    pub pod_requests: *const hpa_resource_request,
    /// The number of pod-level requests.
    pub pod_requests_len: usize,
}

/// One container's usage within a sample (read by ContainerResource metrics).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hpa_container_usage {
    /// The container name.
    pub name: hpa_str,
    /// Its usage in milli-units.
    pub milli: i64,
}

/// One pod's metric sample.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hpa_sample {
    /// 1 when the pod has a sample; 0 when the metrics API returned none for it (a "missing"
    /// pod). Orphan samples must have 1.
    pub present: u32,
    /// 1 when `timestamp_ms` is set (otherwise the sample is taken at the observation's
    /// `now_ms`).
    pub has_timestamp: u32,
    /// 1 when `window_ms` is set (otherwise `HPA_DEFAULT_SAMPLE_WINDOW_MS`).
    pub has_window: u32,
    /// The pod's value in milli-units (Resource metrics: the sum of its containers' usage,
    /// e.g. 250 for a quarter of a CPU core).
    pub milli: i64,
    /// When the sample was taken, on the caller's millisecond clock.
    pub timestamp_ms: i64,
    /// The window the sample averages over, in milliseconds.
    pub window_ms: i64,
    /// Per-container usage, for ContainerResource metrics (may be empty otherwise). A sample
    /// that lacks the metric's container is a pod without a sample, as upstream's: `present`
    /// need not be cleared for it.
    pub containers: *const hpa_container_usage,
    /// The number of container usages.
    pub containers_len: usize,
}

/// The values fetched for one metric, in the order of `hpa_config.metrics`.
///
/// `kind` says which members are read: `samples` (one per pod, index-aligned with
/// `hpa_observation.pods`) and `orphans` (samples of pods that are not in the list) for
/// Resource, ContainerResource and Pods metrics; `value_milli` for Object metrics;
/// `values_milli` (the series values an adapter returned) for External metrics; `error`
/// (the adapter's message) when fetching failed, for any metric.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hpa_metric_values {
    /// An `hpa_values_kind`.
    pub kind: u32,
    /// Per-pod samples: exactly `hpa_observation.pods_len` entries.
    pub samples: *const hpa_sample,
    /// The number of per-pod samples.
    pub samples_len: usize,
    /// Samples of pods that are not in the pod list (upstream counts them in averages).
    pub orphans: *const hpa_sample,
    /// The number of orphan samples.
    pub orphans_len: usize,
    /// The Object metric's value in milli-units.
    pub value_milli: i64,
    /// The External metric's series values in milli-units.
    pub values_milli: *const i64,
    /// The number of series values (0 is upstream's "no metrics returned" error).
    pub values_len: usize,
    /// The fetch error message.
    pub error: hpa_str,
}

/// What the caller observed for one evaluation.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hpa_observation {
    /// The evaluation time on the caller's monotonic millisecond clock; it must not go
    /// backwards from one evaluation to the next.
    pub now_ms: i64,
    /// The scale target's current replica count (`spec.replicas`), at least 0.
    pub replicas: i32,
    /// 1 when `status_replicas` is set (otherwise it equals `replicas`).
    pub has_status_replicas: u32,
    /// The scale target's `status.replicas`, at least 0.
    pub status_replicas: i32,
    /// The pods the HPA's selector matches.
    pub pods: *const hpa_pod,
    /// The number of pods.
    pub pods_len: usize,
    /// One entry per metric of the configuration (after defaulting: 1 when the
    /// configuration lists no metric).
    pub metrics: *const hpa_metric_values,
    /// The number of entries.
    pub metrics_len: usize,
}

/// Where converted arrays go: a measuring pass counts bytes, a filling pass writes them.
pub(crate) trait Arena<'w> {
    /// Room for `n` values of `T`: `Some` when filling, `None` when measuring.
    fn alloc<T>(&mut self, n: usize) -> Result<Option<&'w mut [MaybeUninit<T>]>, Fault>;

    /// What the call writes while the conversion reads its inputs (the workspace among
    /// them, when filling): every input read must be apart from it.
    fn outputs(&self) -> &Outputs;
}

/// The alignment of every allocation, enough for every converted type.
pub(crate) const ARENA_ALIGN: usize = 16;

const _: () = {
    assert!(align_of::<Pod<'static>>() <= ARENA_ALIGN);
    assert!(align_of::<Container<'static>>() <= ARENA_ALIGN);
    assert!(align_of::<ResourceRequest<'static>>() <= ARENA_ALIGN);
    assert!(align_of::<Option<Sample<'static>>>() <= ARENA_ALIGN);
    assert!(align_of::<Sample<'static>>() <= ARENA_ALIGN);
    assert!(align_of::<ContainerUsage<'static>>() <= ARENA_ALIGN);
    // `HPA_WORKSPACE_BYTES` bounds each converted element (plus its share of padding).
    assert!(size_of::<Pod<'static>>() + ARENA_ALIGN <= HPA_WORKSPACE_ELEMENT_SIZE);
    assert!(size_of::<Container<'static>>() + ARENA_ALIGN <= HPA_WORKSPACE_ELEMENT_SIZE);
    assert!(size_of::<ResourceRequest<'static>>() + ARENA_ALIGN <= HPA_WORKSPACE_ELEMENT_SIZE);
    assert!(size_of::<Option<Sample<'static>>>() + ARENA_ALIGN <= HPA_WORKSPACE_ELEMENT_SIZE);
    assert!(size_of::<Sample<'static>>() + ARENA_ALIGN <= HPA_WORKSPACE_ELEMENT_SIZE);
    assert!(size_of::<ContainerUsage<'static>>() + ARENA_ALIGN <= HPA_WORKSPACE_ELEMENT_SIZE);
};

/// Bytes an allocation of `n` values of `T` takes, padded to [`ARENA_ALIGN`].
fn padded_bytes<T>(n: usize) -> Option<usize> {
    n.checked_mul(size_of::<T>())?
        .checked_add(ARENA_ALIGN - 1)
        .map(|b| b & !(ARENA_ALIGN - 1))
}

fn overflow() -> Fault {
    Fault::new(hpa_status::TooLarge, Detail::Overflow)
}

/// The measuring pass: sums the padded sizes.
#[derive(Default)]
pub(crate) struct Measure {
    bytes: usize,
}

impl Measure {
    /// The workspace size the filling pass needs (0 when it allocates nothing; otherwise the
    /// sum plus room to align the workspace's start).
    pub(crate) fn needed(&self) -> Result<usize, Fault> {
        if self.bytes == 0 {
            Ok(0)
        } else {
            self.bytes.checked_add(ARENA_ALIGN - 1).ok_or_else(overflow)
        }
    }
}

impl<'w> Arena<'w> for Measure {
    fn alloc<T>(&mut self, n: usize) -> Result<Option<&'w mut [MaybeUninit<T>]>, Fault> {
        let b = padded_bytes::<T>(n).ok_or_else(overflow)?;
        self.bytes = self.bytes.checked_add(b).ok_or_else(overflow)?;
        Ok(None)
    }

    fn outputs(&self) -> &Outputs {
        &Outputs::NONE
    }
}

/// The filling pass: a bump allocator over the caller's workspace.
pub(crate) struct Bump<'w> {
    next: *mut u8,
    remaining: usize,
    outputs: Outputs,
    _workspace: core::marker::PhantomData<&'w mut [u8]>,
}

impl<'w> Bump<'w> {
    /// An arena over `len` bytes at `base`, for a call that writes `outputs` (the workspace
    /// among them).
    ///
    /// # Safety
    ///
    /// When `len > 0`, `base` must be valid for writes of `len` bytes for `'w`, and nothing
    /// else may access them during `'w`.
    pub(crate) unsafe fn new(base: *mut u8, len: usize, outputs: Outputs) -> Bump<'w> {
        let empty = Bump {
            next: base,
            remaining: 0,
            outputs,
            _workspace: core::marker::PhantomData,
        };
        if base.is_null() {
            return empty;
        }
        let misalignment = (base as usize) % ARENA_ALIGN;
        let skip = (ARENA_ALIGN - misalignment) % ARENA_ALIGN;
        if skip > len {
            return empty;
        }
        Bump {
            // SAFETY: `skip <= len`, inside the workspace.
            next: unsafe { base.add(skip) },
            remaining: len - skip,
            ..empty
        }
    }
}

impl<'w> Arena<'w> for Bump<'w> {
    fn alloc<T>(&mut self, n: usize) -> Result<Option<&'w mut [MaybeUninit<T>]>, Fault> {
        if n == 0 {
            return Ok(Some(&mut []));
        }
        let bytes = padded_bytes::<T>(n).ok_or_else(overflow)?;
        if bytes > self.remaining {
            return Err(Fault::new(
                hpa_status::BufferTooSmall,
                Detail::Buffer(self.remaining, bytes),
            ));
        }
        let start = self.next;
        // SAFETY: `bytes <= remaining`: the new position stays inside the workspace.
        self.next = unsafe { self.next.add(bytes) };
        self.remaining -= bytes;
        // SAFETY: `start` is aligned to ARENA_ALIGN >= align_of::<T>() (asserted above for
        // every converted type), the `n * size_of::<T>()` bytes after it are inside the
        // workspace, exclusively ours for 'w, and MaybeUninit needs no initialization.
        Ok(Some(unsafe {
            core::slice::from_raw_parts_mut(start.cast::<MaybeUninit<T>>(), n)
        }))
    }

    fn outputs(&self) -> &Outputs {
        &self.outputs
    }
}

/// Converts each element of `src` into a slice from the arena (empty when measuring: the
/// values are still computed, so that they are checked).
fn convert_slice<'a, A: Arena<'a>, S, T>(
    arena: &mut A,
    src: &'a [S],
    mut convert: impl FnMut(&mut A, usize, &'a S) -> Result<T, Fault>,
) -> Result<&'a [T], Fault> {
    match arena.alloc::<T>(src.len())? {
        None => {
            for (i, s) in src.iter().enumerate() {
                convert(arena, i, s)?;
            }
            Ok(&[])
        }
        Some(memory) => {
            for (i, (slot, s)) in memory.iter_mut().zip(src).enumerate() {
                slot.write(convert(arena, i, s)?);
            }
            let (ptr, len) = (memory.as_ptr().cast::<T>(), memory.len());
            // SAFETY: every element was written above (`memory` has `src.len()` elements);
            // the memory stays borrowed for 'a.
            Ok(unsafe { core::slice::from_raw_parts(ptr, len) })
        }
    }
}

/// The converted observation: views into the caller's data and the workspace.
pub(crate) struct Views<'a> {
    now: Instant,
    replicas: i32,
    status_replicas: i32,
    pods: &'a [Pod<'a>],
    metrics: [MetricValues<'a>; HPA_MAX_METRICS],
    metrics_len: usize,
    /// The bitwise or of every sample, container usage and request value: negative when
    /// one of them is.
    signs: i64,
}

impl<'a> Views<'a> {
    /// The observation as the core takes it.
    pub(crate) fn observation(&self) -> Observation<'_> {
        Observation {
            now: self.now,
            replicas: self.replicas,
            status_replicas: self.status_replicas,
            pods: self.pods,
            metrics: self.metrics.get(..self.metrics_len).unwrap_or(&[]),
        }
    }

    /// Whether no sample, container usage or request is negative: then every pod-based
    /// metric's [`hpa::metrics::Reading`] is `Plain` (it is `Negative` only when one of those
    /// values is), which spares its second walk over the pods.
    pub(crate) fn pod_values_not_negative(&self) -> bool {
        self.signs >= 0
    }
}

fn non_negative(v: i32, field: &'static str) -> Result<i32, Fault> {
    if v < 0 {
        Err(Fault::new(
            hpa_status::OutOfRange,
            Detail::Range(i64::from(v), "must not be negative"),
        )
        .at(field))
    } else {
        Ok(v)
    }
}

/// # Safety
///
/// `requests` must point to `len` live requests (when `len > 0` and not NULL), whose strings
/// are live, for 'a.
unsafe fn requests<'a, A: Arena<'a>>(
    arena: &mut A,
    (ptr, len): (*const hpa_resource_request, usize),
    name: &'static str,
    signs: &mut i64,
) -> Result<&'a [ResourceRequest<'a>], Fault> {
    // SAFETY: the caller's contract.
    let list = unsafe { arena.outputs().slice(ptr, len) }.map_err(|f| f.at(name))?;
    convert_slice(arena, list, |arena, i, r| {
        *signs |= r.milli;
        Ok(ResourceRequest {
            // SAFETY: the caller's contract.
            resource: unsafe { arena.outputs().string(r.resource) }
                .map_err(|f| f.at("resource").at_index(name, i))?,
            quantity: Quantity::from_milli(r.milli),
        })
    })
}

/// # Safety
///
/// As [`requests`], for the containers and their requests.
unsafe fn containers<'a, A: Arena<'a>>(
    arena: &mut A,
    (ptr, len): (*const hpa_container, usize),
    signs: &mut i64,
) -> Result<&'a [Container<'a>], Fault> {
    // SAFETY: the caller's contract.
    let list = unsafe { arena.outputs().slice(ptr, len) }.map_err(|f| f.at("containers"))?;
    convert_slice(arena, list, |arena, i, c| {
        let at = |f: Fault| f.at_index("containers", i);
        Ok(Container {
            // SAFETY: the caller's contract.
            name: unsafe { arena.outputs().string(c.name) }.map_err(|f| at(f.at("name")))?,
            kind: raw::known(c.kind, enums::container_kind).map_err(|f| at(f.at("kind")))?,
            // SAFETY: the caller's contract.
            requests: unsafe { requests(arena, (c.requests, c.requests_len), "requests", signs) }
                .map_err(at)?,
        })
    })
}

/// The previous pod's array and its conversion, reused by the next pod when it points to the
/// same array.
struct Shared<'a, C, R: 'a> {
    source: Option<(*const C, usize)>,
    converted: R,
    _lifetime: core::marker::PhantomData<&'a ()>,
}

/// # Safety
///
/// Every pointer reachable from `pods` must be live for 'a.
unsafe fn pods<'a, A: Arena<'a>>(
    arena: &mut A,
    list: &'a [hpa_pod],
    signs: &mut i64,
) -> Result<&'a [Pod<'a>], Fault> {
    let mut shared_containers: Shared<'a, hpa_container, &'a [Container<'a>]> = Shared {
        source: None,
        converted: &[],
        _lifetime: core::marker::PhantomData,
    };
    let mut shared_requests: Shared<'a, hpa_resource_request, Option<&'a [ResourceRequest<'a>]>> =
        Shared {
            source: None,
            converted: None,
            _lifetime: core::marker::PhantomData,
        };
    convert_slice(arena, list, |arena, i, p| {
        let at = |f: Fault| f.at_index("pods", i);
        let status = raw::known(p.ready, enums::ready).map_err(|f| at(f.at("ready")))?;
        let transition = raw::when(p.has_ready_transition, Instant(p.ready_transition_ms))
            .map_err(|f| at(f.at("has_ready_transition")))?;
        let key = (p.containers, p.containers_len);
        if shared_containers.source != Some(key) {
            // SAFETY: the caller's contract.
            shared_containers.converted = unsafe { containers(arena, key, signs) }.map_err(at)?;
            shared_containers.source = Some(key);
        }
        let key = (p.pod_requests, p.pod_requests_len);
        if shared_requests.source != Some(key) {
            shared_requests.converted = if p.pod_requests.is_null() && p.pod_requests_len == 0 {
                None
            } else {
                // SAFETY: the caller's contract.
                Some(unsafe { requests(arena, key, "pod_requests", signs) }.map_err(at)?)
            };
            shared_requests.source = Some(key);
        }
        Ok(Pod {
            // SAFETY: the caller's contract.
            name: unsafe { arena.outputs().string(p.name) }.map_err(|f| at(f.at("name")))?,
            phase: raw::known(p.phase, enums::pod_phase).map_err(|f| at(f.at("phase")))?,
            ready: status.map(|status| ReadyCondition {
                status,
                last_transition: transition,
            }),
            start_time: raw::when(p.has_start_time, Instant(p.start_time_ms))
                .map_err(|f| at(f.at("has_start_time")))?,
            deleted: raw::flag(p.deleted).map_err(|f| at(f.at("deleted")))?,
            containers: shared_containers.converted,
            requests: shared_requests.converted,
        })
    })
}

/// # Safety
///
/// The sample's container usages and their names must be live for 'a when read.
unsafe fn sample<'a, A: Arena<'a>>(
    arena: &mut A,
    s: &'a hpa_sample,
    (now, with_containers): (Instant, bool),
    signs: &mut i64,
) -> Result<Sample<'a>, Fault> {
    *signs |= s.milli;
    let window = match raw::when(s.has_window, s.window_ms).map_err(|f| f.at("has_window"))? {
        Some(ms) if ms < 0 => {
            return Err(Fault::new(
                hpa_status::OutOfRange,
                Detail::Range(ms, "must not be negative"),
            )
            .at("window_ms"))
        }
        Some(ms) => Duration::from_millis(ms),
        None => Duration::from_millis(HPA_DEFAULT_SAMPLE_WINDOW_MS),
    };
    let containers = if with_containers {
        // SAFETY: the caller's contract.
        let list = unsafe { arena.outputs().slice(s.containers, s.containers_len) }
            .map_err(|f| f.at("containers"))?;
        convert_slice(arena, list, |arena, i, c| {
            *signs |= c.milli;
            Ok(ContainerUsage {
                // SAFETY: the caller's contract.
                name: unsafe { arena.outputs().string(c.name) }
                    .map_err(|f| f.at("name").at_index("containers", i))?,
                milli: c.milli,
            })
        })?
    } else {
        &[]
    };
    Ok(Sample {
        milli: s.milli,
        timestamp: raw::when(s.has_timestamp, Instant(s.timestamp_ms))
            .map_err(|f| f.at("has_timestamp"))?
            .unwrap_or(now),
        window,
        containers,
    })
}

fn source_name(source: Option<MetricSourceType>) -> &'static str {
    match source {
        Some(MetricSourceType::Resource) => "Resource",
        Some(MetricSourceType::ContainerResource) => "ContainerResource",
        Some(MetricSourceType::Pods) => "Pods",
        Some(MetricSourceType::Object) => "Object",
        Some(MetricSourceType::External) => "External",
        None => "typeless",
    }
}

/// # Safety
///
/// Every pointer reachable from `v` must be live for 'a.
unsafe fn metric_values<'a, A: Arena<'a>>(
    arena: &mut A,
    v: &'a hpa_metric_values,
    (source, pods_len, now): (Option<MetricSourceType>, usize, Instant),
    signs: &mut i64,
) -> Result<MetricValues<'a>, Fault> {
    let kind = raw::known(v.kind, enums::values_kind).map_err(|f| f.at("kind"))?;
    let fits = match kind {
        hpa_values_kind::Error => true,
        hpa_values_kind::Samples => matches!(
            source,
            Some(MetricSourceType::Resource)
                | Some(MetricSourceType::ContainerResource)
                | Some(MetricSourceType::Pods)
        ),
        hpa_values_kind::Object => source == Some(MetricSourceType::Object),
        hpa_values_kind::External => source == Some(MetricSourceType::External),
    };
    if !fits {
        let kind_name = match kind {
            hpa_values_kind::Samples => "per-pod sample",
            hpa_values_kind::Object => "Object",
            hpa_values_kind::External => "External",
            hpa_values_kind::Error => "error",
        };
        return Err(Fault::new(
            hpa_status::WrongValuesKind,
            Detail::ValuesKind(kind_name, source_name(source)),
        )
        .at("kind"));
    }
    Ok(match kind {
        hpa_values_kind::Samples => {
            if v.samples_len != pods_len {
                return Err(Fault::new(
                    hpa_status::LengthMismatch,
                    Detail::Length {
                        got: v.samples_len,
                        want: pods_len,
                        of: "one per pod",
                    },
                )
                .at("samples_len"));
            }
            let with_containers = source == Some(MetricSourceType::ContainerResource);
            // SAFETY: the caller's contract.
            let list = unsafe { arena.outputs().slice(v.samples, v.samples_len) }
                .map_err(|f| f.at("samples"))?;
            let per_pod = convert_slice(arena, list, |arena, i, s| {
                let at = |f: Fault| f.at_index("samples", i);
                if raw::flag(s.present).map_err(|f| at(f.at("present")))? {
                    // SAFETY: the caller's contract.
                    unsafe { sample(arena, s, (now, with_containers), signs) }
                        .map(Some)
                        .map_err(at)
                } else {
                    Ok(None)
                }
            })?;
            // SAFETY: the caller's contract.
            let list = unsafe { arena.outputs().slice(v.orphans, v.orphans_len) }
                .map_err(|f| f.at("orphans"))?;
            let orphans = convert_slice(arena, list, |arena, i, s| {
                let at = |f: Fault| f.at_index("orphans", i);
                if s.present != 1 {
                    return Err(at(Fault::new(
                        hpa_status::InvalidFlag,
                        Detail::Range(i64::from(s.present), "must be 1 for an orphan sample"),
                    )
                    .at("present")));
                }
                // SAFETY: the caller's contract.
                unsafe { sample(arena, s, (now, with_containers), signs) }.map_err(at)
            })?;
            MetricValues::Pods(PodSamples { per_pod, orphans })
        }
        hpa_values_kind::Object => MetricValues::Object(v.value_milli),
        hpa_values_kind::External => {
            // SAFETY: the caller's contract.
            let values = unsafe { arena.outputs().slice(v.values_milli, v.values_len) };
            MetricValues::External(values.map_err(|f| f.at("values_milli"))?)
        }
        hpa_values_kind::Error => {
            // SAFETY: the caller's contract.
            let text = unsafe { arena.outputs().string(v.error) };
            MetricValues::Error(text.map_err(|f| f.at("error"))?)
        }
    })
}

/// Converts an observation for metrics of the given (defaulted) source types, refusing an
/// input array that overlaps what the call writes (`arena.outputs()`).
///
/// # Safety
///
/// Every pointer reachable from `obs` must point to live data of the stated length for 'a.
pub(crate) unsafe fn convert<'a, A: Arena<'a>>(
    arena: &mut A,
    obs: &'a hpa_observation,
    sources: &[Option<MetricSourceType>],
) -> Result<Views<'a>, Fault> {
    let at = |f: Fault| f.at("observation");
    let replicas = non_negative(obs.replicas, "replicas").map_err(at)?;
    let status_replicas = match raw::when(obs.has_status_replicas, obs.status_replicas)
        .map_err(|f| at(f.at("has_status_replicas")))?
    {
        Some(v) => non_negative(v, "status_replicas").map_err(at)?,
        None => replicas,
    };
    // SAFETY: the caller's contract.
    let pod_list =
        unsafe { arena.outputs().slice(obs.pods, obs.pods_len) }.map_err(|f| at(f.at("pods")))?;
    // SAFETY: the caller's contract.
    let values = unsafe { arena.outputs().slice(obs.metrics, obs.metrics_len) }
        .map_err(|f| at(f.at("metrics")))?;
    if values.len() != sources.len() {
        return Err(at(Fault::new(
            hpa_status::LengthMismatch,
            Detail::Length {
                got: values.len(),
                want: sources.len(),
                of: "one per metric of the configuration",
            },
        )
        .at("metrics_len")));
    }
    let now = Instant(obs.now_ms);
    let mut signs = 0;
    // SAFETY: the caller's contract.
    let converted_pods = unsafe { pods(arena, pod_list, &mut signs) }.map_err(at)?;
    let mut metrics = [MetricValues::Object(0); HPA_MAX_METRICS];
    for (i, ((slot, v), source)) in metrics.iter_mut().zip(values).zip(sources).enumerate() {
        // SAFETY: the caller's contract.
        *slot = unsafe { metric_values(arena, v, (*source, pod_list.len(), now), &mut signs) }
            .map_err(|f| at(f.at_index("metrics", i)))?;
    }
    Ok(Views {
        now,
        replicas,
        status_replicas,
        pods: converted_pods,
        metrics,
        metrics_len: values.len().min(HPA_MAX_METRICS),
        signs,
    })
}
