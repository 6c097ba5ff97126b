//! The caller's pods and samples as the engine reads them: the C structs, in place, through
//! the core's views (`hpa::input::PodView` and the others).
//!
//! Each wrapper is the C struct itself (`repr(transparent)`) and exists only behind a
//! reference that [`checked_pods`] or [`checked_samples`] made after the observation's checks
//! (`crate::observation::check`) passed: every array it points to is not NULL (or empty),
//! aligned, apart from what the call writes and live for `'a` (the caller's contract), every
//! string is UTF-8 and every enumeration value and flag is known. The views' methods rely on
//! that, so they read without checking again. Pods' names are the exception: an evaluation
//! checks them only when the engine may read one (`crate::observation::PodNames`), so
//! [`PodIn`]'s `name` checks again what it can.

use core::marker::PhantomData;

use hpa::input::ObservationOf;
use hpa::input::{
    Amount, ConditionStatus, ContainerKind, ContainerView, PodPhase, PodView, ReadyCondition,
    RequestView, SampleSlot, SampleView, UsageView,
};
use hpa::{Duration, Instant, Quantity};

use crate::observation::{
    hpa_container, hpa_container_usage, hpa_pod, hpa_resource_request, hpa_sample,
};
use crate::raw::hpa_str;
use crate::HPA_DEFAULT_SAMPLE_WINDOW_MS;

/// An observation of the caller's pods and samples, read in place.
pub(crate) type CObservation<'a> = ObservationOf<'a, PodIn<'a>, SampleIn<'a>, SampleIn<'a>>;

/// A checked `hpa_pod`.
#[repr(transparent)]
#[derive(Debug)]
pub(crate) struct PodIn<'a>(hpa_pod, PhantomData<&'a ()>);

/// A checked `hpa_container`.
#[repr(transparent)]
#[derive(Debug)]
pub(crate) struct ContainerIn<'a>(hpa_container, PhantomData<&'a ()>);

/// A checked `hpa_resource_request`.
#[repr(transparent)]
#[derive(Debug)]
pub(crate) struct RequestIn<'a>(hpa_resource_request, PhantomData<&'a ()>);

/// A checked `hpa_sample` (a per-pod slot, or an orphan sample, whose `present` is 1).
#[repr(transparent)]
#[derive(Debug)]
pub(crate) struct SampleIn<'a>(hpa_sample, PhantomData<&'a ()>);

/// A checked `hpa_container_usage` (of a ContainerResource metric's sample).
#[repr(transparent)]
#[derive(Debug)]
pub(crate) struct UsageIn<'a>(hpa_container_usage, PhantomData<&'a ()>);

/// `pods` read through the views.
///
/// # Safety
///
/// `crate::observation::check` must have checked every pod of `pods` (and what it points to)
/// for this call, against what the call writes.
pub(crate) unsafe fn checked_pods<'a>(pods: &'a [hpa_pod]) -> &'a [PodIn<'a>] {
    // SAFETY: `PodIn` is `repr(transparent)` over `hpa_pod` (the marker is zero-sized), so the
    // slices have one layout; the caller's contract gives the wrappers' invariant.
    unsafe { core::slice::from_raw_parts(pods.as_ptr().cast::<PodIn<'a>>(), pods.len()) }
}

/// `samples` read through the views.
///
/// # Safety
///
/// `crate::observation::check` must have checked every sample of `samples` (and, for a
/// ContainerResource metric, what it points to) for this call, against what the call writes.
pub(crate) unsafe fn checked_samples<'a>(samples: &'a [hpa_sample]) -> &'a [SampleIn<'a>] {
    // SAFETY: as in `checked_pods`.
    unsafe { core::slice::from_raw_parts(samples.as_ptr().cast::<SampleIn<'a>>(), samples.len()) }
}

/// A pod's template (containers and pod-level requests) read as a pod: a pod view without a
/// name, phase or readiness, for a request (`hpa::pod_request`, which reads the template only).
pub(crate) struct TemplateIn<'a> {
    containers: &'a [ContainerIn<'a>],
    requests: Option<&'a [RequestIn<'a>]>,
}

/// The template of `pod`.
///
/// # Safety
///
/// `crate::observation::check` must have checked the pod's containers and pod-level requests
/// (and what they point to) for this call, against what the call writes.
pub(crate) unsafe fn checked_template<'a>(pod: &'a hpa_pod) -> TemplateIn<'a> {
    // SAFETY: the caller's contract gives the wrappers' invariant for these arrays.
    let view = unsafe { &*core::ptr::from_ref(pod).cast::<PodIn<'a>>() };
    TemplateIn {
        containers: view.containers(),
        requests: PodView::requests(view),
    }
}

impl<'a> PodView<'a> for TemplateIn<'a> {
    type Container = ContainerIn<'a>;
    type Request = RequestIn<'a>;

    fn name(&self) -> &'a str {
        ""
    }

    fn phase(&self) -> PodPhase {
        PodPhase::Running
    }

    fn ready(&self) -> Option<ReadyCondition> {
        None
    }

    fn start_time(&self) -> Option<Instant> {
        None
    }

    fn deleted(&self) -> bool {
        false
    }

    fn containers(&self) -> &'a [ContainerIn<'a>] {
        self.containers
    }

    fn requests(&self) -> Option<&'a [RequestIn<'a>]> {
        self.requests
    }
}

/// The checked array at `p` of `len` `C`s, as `W`s.
///
/// # Safety
///
/// The array must have been checked (see the module's invariant), and `W` must be a
/// `repr(transparent)` wrapper of `C`.
unsafe fn array<'a, C, W>(p: *const C, len: usize) -> &'a [W] {
    if len == 0 {
        return &[];
    }
    // SAFETY: checked: not NULL, aligned, live for 'a; `W` has `C`'s layout.
    unsafe { core::slice::from_raw_parts(p.cast::<W>(), len) }
}

/// A checked string.
///
/// # Safety
///
/// As [`array`]: checked, and UTF-8.
unsafe fn text<'a>(s: hpa_str) -> &'a str {
    // SAFETY: checked: live bytes for 'a (or none), UTF-8.
    unsafe { core::str::from_utf8_unchecked(array::<u8, u8>(s.ptr.cast(), s.len)) }
}

impl<'a> PodView<'a> for PodIn<'a> {
    type Container = ContainerIn<'a>;
    type Request = RequestIn<'a>;

    // The engine reads a name only to name the pod in an error, and the observation's check
    // then checked every name. Should it read another, the name is checked again (NULL,
    // length, UTF-8) and empty when it fails; that it lies apart from what the call writes
    // rests on the engine's contract (`hpa::input::PodView::name`, tested by
    // tests/pod_names.rs).
    #[cold]
    fn name(&self) -> &'a str {
        // SAFETY: the bytes are live for 'a by the caller's contract.
        unsafe { crate::raw::string(self.0.name) }.unwrap_or("")
    }

    #[inline]
    fn phase(&self) -> PodPhase {
        // Checked: one of the five codes.
        match self.0.phase {
            0 => PodPhase::Running,
            1 => PodPhase::Pending,
            2 => PodPhase::Succeeded,
            3 => PodPhase::Failed,
            _ => PodPhase::Unknown,
        }
    }

    #[inline]
    fn ready(&self) -> Option<ReadyCondition> {
        let status = match self.0.ready {
            0 => return None,
            1 => ConditionStatus::True,
            2 => ConditionStatus::False,
            _ => ConditionStatus::Unknown,
        };
        Some(ReadyCondition {
            status,
            last_transition: (self.0.has_ready_transition != 0)
                .then_some(Instant(self.0.ready_transition_ms)),
        })
    }

    #[inline]
    fn start_time(&self) -> Option<Instant> {
        (self.0.has_start_time != 0).then_some(Instant(self.0.start_time_ms))
    }

    #[inline]
    fn deleted(&self) -> bool {
        self.0.deleted != 0
    }

    #[inline]
    fn containers(&self) -> &'a [ContainerIn<'a>] {
        // SAFETY: a checked pod's containers (the module's invariant).
        unsafe { array(self.0.containers, self.0.containers_len) }
    }

    #[inline]
    fn requests(&self) -> Option<&'a [RequestIn<'a>]> {
        let (p, len) = (self.0.pod_requests, self.0.pod_requests_len);
        if p.is_null() && len == 0 {
            return None;
        }
        // SAFETY: a checked pod's pod-level requests (the module's invariant).
        Some(unsafe { array(p, len) })
    }
}

impl<'a> ContainerView<'a> for ContainerIn<'a> {
    type Request = RequestIn<'a>;

    fn name(&self) -> &'a str {
        // SAFETY: a checked container's name (the module's invariant).
        unsafe { text(self.0.name) }
    }

    fn kind(&self) -> ContainerKind {
        // Checked: one of the three codes.
        match self.0.kind {
            0 => ContainerKind::Regular,
            1 => ContainerKind::RestartableInit,
            _ => ContainerKind::Init,
        }
    }

    fn requests(&self) -> &'a [RequestIn<'a>] {
        // SAFETY: a checked container's requests (the module's invariant).
        unsafe { array(self.0.requests, self.0.requests_len) }
    }
}

impl<'a> RequestView<'a> for RequestIn<'a> {
    type Amount = Milli;

    fn resource(&self) -> &'a str {
        // SAFETY: a checked request's resource name (the module's invariant).
        unsafe { text(self.0.resource) }
    }

    fn quantity(&self) -> Quantity {
        Quantity::from_milli(self.0.milli)
    }

    fn amount(&self) -> &Milli {
        Milli::of(&self.0.milli)
    }
}

/// A request's amount in milli-units, as `hpa_resource_request.milli` holds it.
#[repr(transparent)]
pub(crate) struct Milli(i64);

impl Milli {
    fn of(milli: &i64) -> &Milli {
        // SAFETY: `Milli` is `repr(transparent)` over `i64`: the same layout and validity.
        unsafe { &*core::ptr::from_ref(milli).cast::<Milli>() }
    }
}

impl Amount for Milli {
    fn milli_value(&self) -> i64 {
        Quantity::from_milli(self.0).milli_value()
    }

    fn nano_value(&self) -> i128 {
        Quantity::from_milli(self.0).nano_value()
    }
}

impl<'a> SampleSlot<'a> for SampleIn<'a> {
    type Sample = SampleIn<'a>;

    #[inline]
    fn sample(&self) -> Option<&SampleIn<'a>> {
        (self.0.present != 0).then_some(self)
    }
}

impl<'a> SampleView<'a> for SampleIn<'a> {
    type Usage = UsageIn<'a>;

    #[inline]
    fn milli(&self) -> i64 {
        self.0.milli
    }

    #[inline]
    fn timestamp(&self, now: Instant) -> Instant {
        if self.0.has_timestamp != 0 {
            Instant(self.0.timestamp_ms)
        } else {
            now
        }
    }

    #[inline]
    fn window(&self) -> Duration {
        Duration::from_millis(if self.0.has_window != 0 {
            self.0.window_ms
        } else {
            HPA_DEFAULT_SAMPLE_WINDOW_MS
        })
    }

    fn containers(&self) -> &'a [UsageIn<'a>] {
        // SAFETY: the engine reads a sample's container usages only for a ContainerResource
        // metric (`SampleView::containers`), whose samples' usages the checks covered (the
        // module's invariant).
        unsafe { array(self.0.containers, self.0.containers_len) }
    }
}

impl<'a> UsageView<'a> for UsageIn<'a> {
    fn name(&self) -> &'a str {
        // SAFETY: a checked container usage's name (the module's invariant).
        unsafe { text(self.0.name) }
    }

    fn milli(&self) -> i64 {
        self.0.milli
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pod's name read without the observation's check of names (which an evaluation
    /// skips when the engine reads none) is checked again: NULL with a length and invalid
    /// UTF-8 read as empty, never as bytes.
    #[test]
    fn an_unchecked_pod_name_is_checked_when_read() {
        let reads_as = |ptr: *const u8, len: usize, expected: &str| {
            // SAFETY: a plain C struct: zeroed is a valid value.
            let mut pod: hpa_pod = unsafe { core::mem::zeroed() };
            pod.name = hpa_str {
                ptr: ptr.cast(),
                len,
            };
            let pods = [pod];
            // SAFETY: the pod has no arrays; its name is what the test is about.
            let view = unsafe { checked_pods(&pods) };
            assert_eq!(view.first().map(PodView::name), Some(expected));
        };
        let bad = b"w\xC3(";
        reads_as(b"web-0".as_ptr(), 5, "web-0");
        reads_as(core::ptr::null(), 7, "");
        reads_as(bad.as_ptr(), bad.len(), "");
        reads_as(core::ptr::null(), 0, "");
    }
}
