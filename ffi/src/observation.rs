//! One evaluation's inputs as C passes them, and their checks.
//!
//! The engine reads the caller's pods and samples in place, through the core's views
//! (`crate::view`): nothing is converted, and an evaluation needs no workspace. One pass
//! checks everything the engine will read first (pointers, lengths, flags, enumerations,
//! UTF-8, overlaps with what the call writes), so that a refused call changes nothing. Pods'
//! names are checked only when the engine may read them ([`PodNames`]): it reads one only to
//! name the pod in an error. Only the metric values (at most `HPA_MAX_METRICS`) are
//! converted, into an array on the stack.

use hpa::input::MetricValuesOf;
use hpa::spec::{MetricSourceType, MetricSpec};
use hpa::Instant;

use crate::enums::{self, hpa_pod_phase, hpa_ready, hpa_values_kind};
use crate::error::{Detail, Fault};
use crate::raw::{self, hpa_str, Outputs};
use crate::status::hpa_status;
use crate::view::{checked_pods, checked_samples, checked_template, CObservation, PodIn, SampleIn};
use crate::HPA_MAX_METRICS;

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
    /// The pod name, used in messages. An evaluation reads it only when a message may name
    /// the pod, and checks every pod's name then: when a pod's containers lack a Resource
    /// metric's request, or a ContainerResource metric is configured. Otherwise it is not
    /// read (it may be anything); `hpa_observation_check` checks every name.
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

/// The values of one metric as the engine reads them.
type CMetricValues<'a> = MetricValuesOf<'a, SampleIn<'a>, SampleIn<'a>>;

/// The checked observation: the caller's arrays, read in place.
pub(crate) struct Views<'a> {
    now: Instant,
    replicas: i32,
    status_replicas: i32,
    pods: &'a [PodIn<'a>],
    metrics: [CMetricValues<'a>; HPA_MAX_METRICS],
    metrics_len: usize,
    /// The bitwise or of every sample, container usage and request value: negative when
    /// one of them is.
    signs: i64,
}

impl<'a> Views<'a> {
    /// The observation as the core takes it.
    pub(crate) fn observation(&self) -> CObservation<'_> {
        CObservation {
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

/// Checks a list of requests.
///
/// # Safety
///
/// `requests` must point to `len` live requests (when `len > 0` and not NULL), whose strings
/// are live, for the call.
unsafe fn requests(
    outputs: &Outputs,
    (ptr, len): (*const hpa_resource_request, usize),
    name: &'static str,
    signs: &mut i64,
) -> Result<(), Fault> {
    // SAFETY: the caller's contract.
    let list = unsafe { outputs.slice(ptr, len) }.map_err(|f| f.at(name))?;
    for (i, r) in list.iter().enumerate() {
        *signs |= r.milli;
        // SAFETY: the caller's contract.
        unsafe { outputs.string(r.resource) }.map_err(|f| f.at("resource").at_index(name, i))?;
    }
    Ok(())
}

/// Checks a pod's containers.
///
/// # Safety
///
/// As [`requests`], for the containers and their requests.
unsafe fn containers(
    outputs: &Outputs,
    (ptr, len): (*const hpa_container, usize),
    signs: &mut i64,
) -> Result<(), Fault> {
    // SAFETY: the caller's contract.
    let list = unsafe { outputs.slice(ptr, len) }.map_err(|f| f.at("containers"))?;
    for (i, c) in list.iter().enumerate() {
        let at = |f: Fault| f.at_index("containers", i);
        // SAFETY: the caller's contract.
        unsafe { outputs.string(c.name) }.map_err(|f| at(f.at("name")))?;
        raw::known(c.kind, enums::container_kind).map_err(|f| at(f.at("kind")))?;
        // SAFETY: the caller's contract.
        unsafe { requests(outputs, (c.requests, c.requests_len), "requests", signs) }
            .map_err(at)?;
    }
    Ok(())
}

/// The arrays a pod shares with the previous one when it is of the same template: its
/// containers and its pod-level requests (pointer and length of each).
type Template = (
    *const hpa_container,
    usize,
    *const hpa_resource_request,
    usize,
);

fn template_of(p: &hpa_pod) -> Template {
    (
        p.containers,
        p.containers_len,
        p.pod_requests,
        p.pod_requests_len,
    )
}

/// Checks one pod, in the order of its fields' faults (the first one found is reported), its
/// name only `with_name`. `shared` is the previous pod's template: the same arrays again
/// (pods of one template) were checked with it.
///
/// # Safety
///
/// Every pointer reachable from `p` must be live for the call.
unsafe fn pod(
    outputs: &Outputs,
    p: &hpa_pod,
    shared: &mut Option<Template>,
    signs: &mut i64,
    with_name: bool,
) -> Result<(), Fault> {
    raw::known(p.ready, enums::ready).map_err(|f| f.at("ready"))?;
    raw::flag(p.has_ready_transition).map_err(|f| f.at("has_ready_transition"))?;
    let (previous_containers, previous_requests) = match *shared {
        Some((c, c_len, r, r_len)) => (Some((c, c_len)), Some((r, r_len))),
        None => (None, None),
    };
    let key = (p.containers, p.containers_len);
    if previous_containers != Some(key) {
        // SAFETY: the caller's contract.
        unsafe { containers(outputs, key, signs) }?;
    }
    let requests_key = (p.pod_requests, p.pod_requests_len);
    if previous_requests != Some(requests_key)
        && !(p.pod_requests.is_null() && p.pod_requests_len == 0)
    {
        // SAFETY: the caller's contract.
        unsafe { requests(outputs, requests_key, "pod_requests", signs) }?;
    }
    *shared = Some(template_of(p));
    if with_name {
        // SAFETY: the caller's contract.
        unsafe { outputs.string(p.name) }.map_err(|f| f.at("name"))?;
    }
    raw::known(p.phase, enums::pod_phase).map_err(|f| f.at("phase"))?;
    raw::flag(p.has_start_time).map_err(|f| f.at("has_start_time"))?;
    raw::flag(p.deleted).map_err(|f| f.at("deleted"))?;
    Ok(())
}

/// Whether `p`'s enumerations and flags are in range.
#[inline(always)]
fn in_range(p: &hpa_pod) -> bool {
    p.ready <= hpa_ready::Unknown as u32
        && p.phase <= hpa_pod_phase::Unknown as u32
        && (p.has_ready_transition | p.has_start_time | p.deleted) <= 1
}

/// Whether `p`'s enumerations and flags are in range and its template is `shared`: then only
/// its name is left to check.
#[inline(always)]
fn plain(p: &hpa_pod, shared: Option<Template>) -> bool {
    in_range(p) && shared == Some(template_of(p))
}

/// Checks the pods, names included.
///
/// # Safety
///
/// Every pointer reachable from `list` must be live for the call.
unsafe fn pods(outputs: &Outputs, list: &[hpa_pod], signs: &mut i64) -> Result<(), Fault> {
    let mut shared = None;
    for (i, p) in list.iter().enumerate() {
        // The common pod (enumerations and flags in range, the previous pod's arrays) has
        // only its name left to check; any other takes every check, in field order, so that
        // the fault reported is the same.
        let plain = plain(p, shared);
        // SAFETY: the caller's contract.
        if plain && unsafe { outputs.plain_string(p.name) } {
            continue;
        }
        let checked = if plain {
            // SAFETY: the caller's contract.
            unsafe { outputs.string(p.name) }
                .map(drop)
                .map_err(|f| f.at("name"))
        } else {
            // SAFETY: the caller's contract.
            unsafe { pod(outputs, p, &mut shared, signs, true) }
        };
        checked.map_err(|f| f.at_index("pods", i))?;
    }
    Ok(())
}

/// Checks the pods but their names, for an evaluation whose engine reads no pod's name: true
/// when every pod passes and every pod's template has a request for each of `resources` (the
/// Resource metrics': the engine reads a pod's name only to name it in an error, and without
/// ContainerResource metrics the only such errors are a missing request,
/// `hpa::input::PodView::name`). False otherwise: the caller then checks every pod with its
/// name ([`pods`]), which finds the fault, or the names the engine may read.
///
/// # Safety
///
/// As [`pods`].
unsafe fn pods_but_names(
    outputs: &Outputs,
    list: &[hpa_pod],
    signs: &mut i64,
    resources: &[&str],
) -> bool {
    let mut shared = None;
    let mut i = 0;
    while let Some(p) = list.get(i) {
        let before = shared;
        // SAFETY: the caller's contract.
        if unsafe { pod(outputs, p, &mut shared, signs, false) }.is_err() {
            return false;
        }
        if before != shared {
            // SAFETY: `pod` checked this pod's containers and pod-level requests for this call,
            // against `outputs`.
            let template = unsafe { checked_template(p) };
            if resources
                .iter()
                .any(|r| hpa::pod_request(&template, None, r).is_err())
            {
                return false;
            }
        }
        i += 1;
        i += list
            .get(i..)
            .map_or(0, |rest| plain_pods(rest, template_of(p)));
    }
    true
}

/// The number of leading pods of `list` whose enumerations and flags are in range and whose
/// template is `template` ([`plain`]): a loop of its own, with the template in registers.
#[inline(never)]
fn plain_pods(list: &[hpa_pod], template: Template) -> usize {
    list.iter()
        .position(|p| !(in_range(p) && template_of(p) == template))
        .unwrap_or(list.len())
}

/// Checks one sample (`present`, for a per-pod slot, is checked by the caller), with its
/// container usages when `with_containers` (ContainerResource metrics).
///
/// # Safety
///
/// The sample's container usages and their names must be live for the call when
/// `with_containers`.
unsafe fn sample(
    outputs: &Outputs,
    s: &hpa_sample,
    with_containers: bool,
    signs: &mut i64,
) -> Result<(), Fault> {
    *signs |= s.milli;
    match raw::when(s.has_window, s.window_ms).map_err(|f| f.at("has_window"))? {
        Some(ms) if ms < 0 => {
            return Err(Fault::new(
                hpa_status::OutOfRange,
                Detail::Range(ms, "must not be negative"),
            )
            .at("window_ms"))
        }
        _ => {}
    }
    if with_containers {
        // SAFETY: the caller's contract.
        let list = unsafe { outputs.slice(s.containers, s.containers_len) }
            .map_err(|f| f.at("containers"))?;
        for (i, c) in list.iter().enumerate() {
            *signs |= c.milli;
            // SAFETY: the caller's contract.
            unsafe { outputs.string(c.name) }
                .map_err(|f| f.at("name").at_index("containers", i))?;
        }
    }
    raw::flag(s.has_timestamp).map_err(|f| f.at("has_timestamp"))?;
    Ok(())
}

/// The number of leading samples that need no more checks than flags in range and a window,
/// when set, not negative (those of a metric without container usages); their values are
/// added to `signs`. A loop of its own, with its state in registers.
#[inline(never)]
fn plain_samples(samples: &[hpa_sample], signs: &mut i64) -> usize {
    let mut values = 0;
    let plain = samples.iter().position(|s| {
        if (s.present | s.has_window | s.has_timestamp) > 1
            || (s.has_window != 0 && s.window_ms < 0)
        {
            return true;
        }
        // Its value counts when it is present (`present` is 0 or 1 here).
        values |= s.milli & i64::from(s.present).wrapping_neg();
        false
    });
    *signs |= values;
    plain.unwrap_or(samples.len())
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
unsafe fn metric_values<'a>(
    outputs: &Outputs,
    v: &'a hpa_metric_values,
    (source, pods_len): (Option<MetricSourceType>, usize),
    signs: &mut i64,
) -> Result<CMetricValues<'a>, Fault> {
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
            let per_pod =
                unsafe { outputs.slice(v.samples, v.samples_len) }.map_err(|f| f.at("samples"))?;
            let mut i = 0;
            while let Some(rest) = per_pod.get(i..) {
                // The common samples (flags in range, no window or one not negative, no usages
                // to check) need no more; any other takes every check, in field order.
                i += if with_containers {
                    0
                } else {
                    plain_samples(rest, signs)
                };
                let Some(s) = per_pod.get(i) else { break };
                let at = |f: Fault| f.at_index("samples", i);
                if raw::flag(s.present).map_err(|f| at(f.at("present")))? {
                    // SAFETY: the caller's contract.
                    unsafe { sample(outputs, s, with_containers, signs) }.map_err(at)?;
                }
                i += 1;
            }
            // SAFETY: the caller's contract.
            let orphans =
                unsafe { outputs.slice(v.orphans, v.orphans_len) }.map_err(|f| f.at("orphans"))?;
            for (i, s) in orphans.iter().enumerate() {
                let at = |f: Fault| f.at_index("orphans", i);
                if s.present != 1 {
                    return Err(at(Fault::new(
                        hpa_status::InvalidFlag,
                        Detail::Range(i64::from(s.present), "must be 1 for an orphan sample"),
                    )
                    .at("present")));
                }
                // SAFETY: the caller's contract.
                unsafe { sample(outputs, s, with_containers, signs) }.map_err(at)?;
            }
            // SAFETY: every sample was checked above, for this call and against `outputs`
            // (the usages of a ContainerResource metric's samples included).
            let (per_pod, orphans) =
                unsafe { (checked_samples(per_pod), checked_samples(orphans)) };
            MetricValuesOf::Pods(hpa::input::PodSamplesOf { per_pod, orphans })
        }
        hpa_values_kind::Object => MetricValuesOf::Object(v.value_milli),
        hpa_values_kind::External => {
            // SAFETY: the caller's contract.
            let values = unsafe { outputs.slice(v.values_milli, v.values_len) };
            MetricValuesOf::External(values.map_err(|f| f.at("values_milli"))?)
        }
        hpa_values_kind::Error => {
            // SAFETY: the caller's contract.
            let text = unsafe { outputs.string(v.error) };
            MetricValuesOf::Error(text.map_err(|f| f.at("error"))?)
        }
    })
}

/// Which pods' names an observation's check covers.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum PodNames {
    /// Every pod's name (`hpa_observation_check`).
    Every,
    /// Those the engine may read (an evaluation): every pod's name when a ContainerResource
    /// metric is configured or a pod's template lacks a Resource metric's request (the engine
    /// may then name a pod in an error, `hpa::input::PodView::name`), none otherwise. When a
    /// pod's check fails the pods are checked again with their names, so that the pod fault
    /// reported is the one `Every` finds.
    Read,
}

/// Checks an observation for the given (defaulted) metrics, refusing an input array that
/// overlaps what the call writes (`outputs`), and gives it as the engine reads it.
///
/// # Safety
///
/// Every pointer reachable from `obs` must point to live data of the stated length for 'a,
/// unchanged during 'a.
pub(crate) unsafe fn check<'a>(
    outputs: &Outputs,
    obs: &'a hpa_observation,
    metrics: &[MetricSpec<'_>],
    names: PodNames,
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
        unsafe { outputs.slice(obs.pods, obs.pods_len) }.map_err(|f| at(f.at("pods")))?;
    // SAFETY: the caller's contract.
    let values =
        unsafe { outputs.slice(obs.metrics, obs.metrics_len) }.map_err(|f| at(f.at("metrics")))?;
    let mut sources = [None; HPA_MAX_METRICS];
    // The resources of the Resource metrics, whose requests the engine computes.
    let mut resources = [""; HPA_MAX_METRICS];
    let (mut resources_len, mut container_resource) = (0, false);
    for (source, m) in sources.iter_mut().zip(metrics) {
        *source = m.type_;
        match (m.type_, m.resource) {
            (Some(MetricSourceType::Resource), Some(r)) => {
                if let Some(slot) = resources.get_mut(resources_len) {
                    *slot = r.name;
                    resources_len += 1;
                }
            }
            (Some(MetricSourceType::ContainerResource), _) => container_resource = true,
            _ => {}
        }
    }
    let sources = sources
        .get(..metrics.len().min(HPA_MAX_METRICS))
        .unwrap_or(&[]);
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
    let mut signs = 0;
    let names_unread = names == PodNames::Read
        && !container_resource
        // SAFETY: the caller's contract.
        && unsafe {
            pods_but_names(
                outputs,
                pod_list,
                &mut signs,
                resources.get(..resources_len).unwrap_or(&[]),
            )
        };
    if !names_unread {
        // SAFETY: the caller's contract.
        unsafe { pods(outputs, pod_list, &mut signs) }.map_err(at)?;
    }
    let mut metrics = [MetricValuesOf::Object(0); HPA_MAX_METRICS];
    for (i, ((slot, v), source)) in metrics.iter_mut().zip(values).zip(sources).enumerate() {
        // SAFETY: the caller's contract.
        *slot = unsafe { metric_values(outputs, v, (*source, pod_list.len()), &mut signs) }
            .map_err(|f| at(f.at_index("metrics", i)))?;
    }
    Ok(Views {
        now: Instant(obs.now_ms),
        replicas,
        status_replicas,
        // SAFETY: every pod was checked above, for this call and against `outputs`.
        pods: unsafe { checked_pods(pod_list) },
        metrics,
        metrics_len: values.len().min(HPA_MAX_METRICS),
        signs,
    })
}
