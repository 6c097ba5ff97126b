//! Every `extern "C"` function of the C API (crate `hpa-ffi`) on arbitrary arguments, as a C
//! caller could pass them within the header's contract: enumerations and flags of any
//! `uint32_t` value, NULL and misaligned pointers, lengths shorter than the arrays, invalid
//! UTF-8, NaN and infinities, outputs overlapping the autoscaler or each other, storage sizes
//! too small, damaged snapshots, time going backwards, any call order. Built with
//! AddressSanitizer (.ci/fuzz), so a read or write outside the caller's storage fails.
//!
//! Checked: no call panics (the library has no panic path: a panic aborts the process); every
//! status is one `hpa_status_str` names, and every `*_str` function gives a text, never NULL;
//! a refused call writes none of its outputs (they are
//! filled with a pattern before each call and compared after) and leaves the autoscaler's bytes
//! as they were; an evaluation refuses with the status `hpa_config_validate` gives for an
//! invalid configuration, and with `hpa_observation_check`'s for a valid configuration: for
//! the observation, or for it with every pod's name valid (an evaluation checks the names
//! only when its engine may read one, `hpa_pod.name`).
#![no_main]

use std::ffi::{c_char, CStr};
use std::mem::size_of;
use std::ptr;

use hpa_ffi::*;
use hpa_fuzz::c_api::*;
use libfuzzer_sys::fuzz_target;

/// Storage with room around it: outputs are placed at its start (valid), one byte in
/// (misaligned), or nowhere (NULL).
struct Slot(Vec<u64>);

impl Slot {
    fn new(bytes: usize) -> Slot {
        Slot(vec![0xA5A5_A5A5_A5A5_A5A5; bytes / 8 + 2])
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: plain integers read as bytes.
        unsafe { std::slice::from_raw_parts(self.0.as_ptr().cast(), self.0.len() * 8) }
    }

    fn at<T>(&mut self, out: Out, autoscaler: *mut hpa_autoscaler) -> *mut T {
        let base = self.0.as_mut_ptr().cast::<u8>();
        match out {
            Out::Valid => base.cast(),
            Out::Null => ptr::null_mut(),
            Out::Misaligned => base.wrapping_add(1).cast(),
            Out::Overlap => autoscaler.cast(),
        }
    }
}

fn text(t: &Text) -> hpa_str {
    hpa_str {
        ptr: if t.null {
            ptr::null()
        } else {
            t.bytes.as_ptr().cast::<c_char>()
        },
        len: t.bytes.len(),
    }
}

fn decimal((mantissa, exponent): (i64, i32)) -> hpa_decimal {
    hpa_decimal { mantissa, exponent }
}

fn zeroed<T>() -> T {
    // SAFETY: only used for the C structs, for which all-zero bytes are valid.
    unsafe { std::mem::MaybeUninit::<T>::zeroed().assume_init() }
}

/// The C structs an input describes, and the arrays they point into.
struct World {
    metrics: Vec<hpa_metric>,
    policies: [Vec<hpa_scaling_policy>; 2],
    rules: [Box<hpa_scaling_rules>; 2],
    behavior: Box<hpa_behavior>,
    settings: Box<hpa_settings>,
    config: Box<hpa_config>,
    requests: Vec<hpa_resource_request>,
    containers: Vec<hpa_container>,
    pods: Vec<hpa_pod>,
    samples: Vec<Vec<hpa_sample>>,
    values: Vec<hpa_metric_values>,
    observation: Box<hpa_observation>,
}

fn short(len: usize, by: u8) -> usize {
    len.saturating_sub(usize::from(by % 4))
}

fn world(input: &Input) -> Box<World> {
    let c = &input.config;
    let o = &input.observation;
    let mut w = Box::new(World {
        metrics: c.metrics.iter().take(9).map(|_| zeroed()).collect(),
        policies: [Vec::new(), Vec::new()],
        rules: [Box::new(zeroed()), Box::new(zeroed())],
        behavior: Box::new(zeroed()),
        settings: Box::new(zeroed()),
        config: Box::new(zeroed()),
        requests: Vec::new(),
        containers: Vec::new(),
        pods: Vec::new(),
        samples: Vec::new(),
        values: Vec::new(),
        observation: Box::new(zeroed()),
    });
    for (m, i) in w.metrics.iter_mut().zip(&c.metrics) {
        m.r#type = i.r#type;
        m.name = text(&i.name);
        m.selector_invalid = i.selector_invalid;
        m.target.r#type = i.target_type;
        m.target.fields = i.fields;
        m.target.value_milli = i.value;
        m.target.average_value_milli = i.average_value;
        m.target.average_utilization = i.utilization;
    }
    for (k, rules) in [&c.up, &c.down].into_iter().enumerate() {
        let Some(r) = rules else { continue };
        w.policies[k] = r
            .policies
            .iter()
            .take(18)
            .map(|&(r#type, value, period_seconds)| hpa_scaling_policy {
                r#type,
                value,
                period_seconds,
            })
            .collect();
        let out = &mut w.rules[k];
        out.has_stabilization_window_seconds = r.has_window;
        out.stabilization_window_seconds = r.window;
        out.select_policy = r.select;
        out.policies = if w.policies[k].is_empty() {
            ptr::null()
        } else {
            w.policies[k].as_ptr()
        };
        out.policies_len = short(w.policies[k].len(), r.short);
        out.has_tolerance = r.has_tolerance;
        out.tolerance = decimal(r.tolerance);
    }
    if c.up.is_some() || c.down.is_some() {
        w.behavior.scale_up = if c.up.is_some() {
            &*w.rules[0]
        } else {
            ptr::null()
        };
        w.behavior.scale_down = if c.down.is_some() {
            &*w.rules[1]
        } else {
            ptr::null()
        };
        w.config.behavior = &*w.behavior;
    }
    if let Some(s) = &c.settings {
        w.settings.tolerance = decimal(s.tolerance);
        w.settings.downscale_stabilization_window_ms = s.windows_ms.0;
        w.settings.cpu_initialization_period_ms = s.windows_ms.1;
        w.settings.initial_readiness_delay_ms = s.windows_ms.2;
        w.settings.scale_to_zero = s.scale_to_zero;
        w.settings.configurable_tolerance = s.configurable_tolerance;
        w.settings.arithmetic = s.arithmetic;
        w.settings.legacy_scale_up_factor = s.legacy.0;
        w.settings.legacy_scale_up_minimum = s.legacy.1;
        w.config.settings = &*w.settings;
    }
    w.config.has_min_replicas = c.has_min;
    w.config.min_replicas = c.min;
    w.config.max_replicas = c.max;
    w.config.metrics = if c.misaligned_metrics {
        w.metrics.as_ptr().cast::<u8>().wrapping_add(4).cast()
    } else {
        w.metrics.as_ptr()
    };
    w.config.metrics_len = short(w.metrics.len(), c.short);
    if c.misaligned_metrics {
        // Nothing is read through a misaligned pointer; a length of 0 would make it valid.
        w.config.metrics_len = w.config.metrics_len.max(1);
    }

    // Pods, one container each; all arrays are complete before pointers into them are taken.
    let pods: Vec<&PodIn> = o.pods.iter().take(12).collect();
    w.requests = pods
        .iter()
        .map(|p| hpa_resource_request {
            resource: hpa_str {
                ptr: c"cpu".as_ptr(),
                len: 3,
            },
            milli: p.request_milli,
        })
        .collect();
    for (i, p) in pods.iter().enumerate() {
        let mut container: hpa_container = zeroed();
        container.name = hpa_str {
            ptr: c"app".as_ptr(),
            len: 3,
        };
        container.kind = p.container_kind;
        container.requests = &w.requests[i];
        container.requests_len = 1;
        w.containers.push(container);
    }
    for (i, p) in pods.iter().enumerate() {
        let mut pod: hpa_pod = zeroed();
        pod.name = text(&p.name);
        pod.phase = p.phase;
        pod.ready = p.ready;
        pod.deleted = p.deleted;
        if let Some(t) = p.start {
            pod.has_start_time = 1;
            pod.start_time_ms = t;
        }
        pod.containers = &w.containers[i];
        pod.containers_len = 1;
        w.pods.push(pod);
    }
    let values: Vec<&ValuesIn> = o.values.iter().take(9).collect();
    for v in &values {
        w.samples.push(
            v.samples
                .iter()
                .take(13)
                .map(|s| {
                    let mut sample: hpa_sample = zeroed();
                    sample.present = s.present;
                    sample.milli = s.milli;
                    if let Some(window) = s.window_ms {
                        sample.has_window = 1;
                        sample.window_ms = window;
                    }
                    sample
                })
                .collect(),
        );
    }
    for (k, v) in values.iter().enumerate() {
        let mut out: hpa_metric_values = zeroed();
        out.kind = v.kind;
        out.samples = w.samples[k].as_ptr();
        out.samples_len = short(w.samples[k].len(), v.short);
        out.value_milli = v.values.first().copied().unwrap_or(0);
        out.values_milli = v.values.as_ptr();
        out.values_len = short(v.values.len(), v.short);
        w.values.push(out);
    }
    w.observation.now_ms = o.now_ms;
    w.observation.replicas = o.replicas;
    if let Some(s) = o.status_replicas {
        w.observation.has_status_replicas = 1;
        w.observation.status_replicas = s;
    }
    w.observation.pods = w.pods.as_ptr();
    w.observation.pods_len = short(w.pods.len(), o.short);
    w.observation.metrics = w.values.as_ptr();
    w.observation.metrics_len = short(w.values.len(), o.short);
    w
}

/// Checks a status and, when it is not `Ok`, that the outputs and the autoscaler are as before.
fn check(status: hpa_status, before: &[&[u8]], after: &[&[u8]], call: &Call) {
    // SAFETY: `hpa_status_str` returns a static NUL-terminated text for every value.
    let name = unsafe { CStr::from_ptr(hpa_status_str(status as u32)) };
    assert!(!name.is_empty(), "{call:?}: {status:?}");
    if status != hpa_status::Ok {
        for (b, a) in before.iter().zip(after) {
            assert!(
                b == a,
                "{call:?} refused with {status:?} but wrote an output"
            );
        }
    }
}

fuzz_target!(|input: Input| {
    let w = world(&input);
    let mut storage = Slot::new(HPA_AUTOSCALER_SIZE + 16);
    let a: *mut hpa_autoscaler = storage.0.as_mut_ptr().cast();
    let mut last_snapshot: Vec<u8> = Vec::new();
    // Functions without an autoscaler have nothing of theirs to overlap: `Out::Overlap` is
    // NULL for them (writing a refusal into the autoscaler would be the caller's doing).
    let none: *mut hpa_autoscaler = ptr::null_mut();
    // SAFETY (whole target): every non-NULL pointer passed points to live storage at least as
    // long as the call reads or writes through it (outputs are `Slot`s sized for their type,
    // arrays are at least as long as their declared lengths), as the header requires.
    unsafe {
        let _ = hpa_autoscaler_init(a, HPA_AUTOSCALER_SIZE);
        for call in input.calls.iter().take(24) {
            let state = storage.bytes().to_vec();
            match call {
                Call::Init { size_short, at } => {
                    let size = HPA_AUTOSCALER_SIZE - usize::from(*size_short % 16);
                    let p = match at {
                        Out::Misaligned => a.cast::<u8>().wrapping_add(4).cast(),
                        Out::Null => ptr::null_mut(),
                        _ => a,
                    };
                    let status = hpa_autoscaler_init(p, size);
                    check(status, &[&state], &[storage.bytes()], call);
                }
                Call::Evaluate {
                    workspace,
                    workspace_at,
                    decision,
                } => {
                    let mut ws = Slot::new(usize::from(*workspace));
                    let mut out = Slot::new(size_of::<hpa_decision>());
                    let out_before = out.bytes().to_vec();
                    let ws_len = usize::from(*workspace);
                    let ws_ptr = match workspace_at {
                        Out::Overlap if ws_len > HPA_AUTOSCALER_SIZE => ptr::null_mut(),
                        other => ws.at::<u8>(*other, a),
                    };
                    let d = out.at::<hpa_decision>(*decision, a);
                    let status = hpa_autoscaler_evaluate(
                        a,
                        &*w.config,
                        &*w.observation,
                        ws_ptr.cast(),
                        ws_len,
                        d,
                    );
                    check(
                        status,
                        &[&state, &out_before],
                        &[storage.bytes(), out.bytes()],
                        call,
                    );
                    if status != hpa_status::Ok
                        && *decision == Out::Valid
                        && *workspace_at == Out::Valid
                    {
                        let validated = hpa_config_validate(&*w.config, ptr::null_mut());
                        let mut size = 0;
                        let checked = hpa_observation_check(
                            &*w.config,
                            &*w.observation,
                            &mut size,
                            ptr::null_mut(),
                        );
                        // The same pods with valid names: an evaluation that does not read
                        // the names does not check them.
                        let named: Vec<hpa_pod> = w
                            .pods
                            .iter()
                            .map(|p| hpa_pod {
                                name: hpa_str {
                                    ptr: c"web".as_ptr(),
                                    len: 3,
                                },
                                ..*p
                            })
                            .collect();
                        let valid_names = hpa_observation {
                            pods: named.as_ptr(),
                            ..*w.observation
                        };
                        let checked_valid_names = hpa_observation_check(
                            &*w.config,
                            &valid_names,
                            &mut size,
                            ptr::null_mut(),
                        );
                        // The storage is checked first; the workspace's size and the time
                        // only by the evaluation.
                        let storage_fault =
                            matches!(status, hpa_status::Uninitialized | hpa_status::CorruptState);
                        let evaluation_only = matches!(
                            status,
                            hpa_status::TimeWentBackwards | hpa_status::BufferTooSmall
                        );
                        if validated != hpa_status::Ok {
                            assert!(
                                storage_fault || status == validated,
                                "evaluate {status:?}, validate {validated:?}"
                            );
                        } else if !storage_fault && !evaluation_only {
                            assert!(
                                status == checked || status == checked_valid_names,
                                "evaluate {status:?} and check disagree: {checked:?}, \
                                 {checked_valid_names:?} with valid pod names"
                            );
                        }
                    }
                }
                Call::RescaleSucceeded => {
                    let status = hpa_autoscaler_rescale_succeeded(a);
                    check(status, &[&state], &[storage.bytes()], call);
                }
                Call::RescaleFailed { message } => {
                    let m = text(message);
                    let status = hpa_autoscaler_rescale_failed(a, m.ptr, m.len);
                    check(status, &[&state], &[storage.bytes()], call);
                }
                Call::RestoreScaledToZero => {
                    let status = hpa_autoscaler_restore_scaled_to_zero(a);
                    check(status, &[&state], &[storage.bytes()], call);
                }
                Call::ScalingStatus { out } => {
                    let mut slot = Slot::new(size_of::<hpa_scaling_status>());
                    let before = slot.bytes().to_vec();
                    let status = hpa_autoscaler_scaling_status(a, slot.at(*out, a));
                    check(
                        status,
                        &[&state, &before],
                        &[storage.bytes(), slot.bytes()],
                        call,
                    );
                }
                Call::Save {
                    later_ms,
                    capacity,
                    buffer,
                    written,
                } => {
                    let capacity = usize::from(*capacity) % (HPA_SNAPSHOT_MAX_BYTES + 1);
                    let mut buf = Slot::new(capacity);
                    let mut len = Slot::new(8);
                    let (b0, l0) = (buf.bytes().to_vec(), len.bytes().to_vec());
                    let now = w.observation.now_ms.saturating_add(*later_ms);
                    let bp = match buffer {
                        Out::Overlap if capacity > HPA_AUTOSCALER_SIZE => ptr::null_mut(),
                        other => buf.at::<u8>(*other, a),
                    };
                    let status =
                        hpa_autoscaler_save(a, now, bp, capacity, len.at::<usize>(*written, a));
                    check(
                        status,
                        &[&state, &b0, &l0],
                        &[storage.bytes(), buf.bytes(), len.bytes()],
                        call,
                    );
                    if status == hpa_status::Ok && *buffer == Out::Valid && *written == Out::Valid {
                        let n = len.0[0] as usize;
                        assert!(n <= capacity);
                        last_snapshot = buf.bytes()[..n].to_vec();
                    }
                }
                Call::Restore {
                    cut,
                    flip,
                    now_ms,
                    size_short,
                } => {
                    let mut snapshot = last_snapshot.clone();
                    snapshot.truncate(usize::from(*cut));
                    if let Some((at, bit)) = flip {
                        if !snapshot.is_empty() {
                            let i = usize::from(*at) % snapshot.len();
                            snapshot[i] ^= 1 << (bit % 8);
                        }
                    }
                    let size = HPA_AUTOSCALER_SIZE - usize::from(*size_short % 16);
                    let status =
                        hpa_autoscaler_restore(a, size, snapshot.as_ptr(), snapshot.len(), *now_ms);
                    check(status, &[&state], &[storage.bytes()], call);
                }
                Call::SnapshotCheck { cut, now_ms, error } => {
                    let n = usize::from(*cut).min(last_snapshot.len());
                    let mut slot = Slot::new(size_of::<hpa_field_error>());
                    let _ = hpa_snapshot_check(
                        last_snapshot.as_ptr(),
                        n,
                        *now_ms,
                        slot.at(*error, none),
                    );
                }
                Call::SettingsDefault { out } => {
                    let mut slot = Slot::new(size_of::<hpa_settings>());
                    let before = slot.bytes().to_vec();
                    let status = hpa_settings_default(slot.at(*out, none));
                    check(
                        status,
                        &[&state, &before],
                        &[storage.bytes(), slot.bytes()],
                        call,
                    );
                }
                Call::Configure { error } => {
                    // The field error is written on a refusal: only the autoscaler must stay.
                    let mut e = Slot::new(size_of::<hpa_field_error>());
                    let status = hpa_autoscaler_configure(a, &*w.config, e.at(*error, a));
                    check(status, &[&state], &[storage.bytes()], call);
                    if *error == Out::Valid && status == hpa_status::InvalidSpec {
                        let validated = hpa_config_validate(&*w.config, ptr::null_mut());
                        assert_eq!(status, validated, "configure and validate disagree");
                    }
                }
                Call::EvaluateConfigured { decision } => {
                    let mut out = Slot::new(size_of::<hpa_decision>());
                    let out_before = out.bytes().to_vec();
                    let status = hpa_autoscaler_evaluate_configured(
                        a,
                        &*w.observation,
                        out.at::<hpa_decision>(*decision, a),
                    );
                    check(
                        status,
                        &[&state, &out_before],
                        &[storage.bytes(), out.bytes()],
                        call,
                    );
                }
                Call::Validate { error } => {
                    let mut slot = Slot::new(size_of::<hpa_field_error>());
                    let status = hpa_config_validate(&*w.config, slot.at(*error, none));
                    check(status, &[&state], &[storage.bytes()], call);
                }
                Call::Resolve { out, error } => {
                    let mut slot = Slot::new(size_of::<hpa_resolved_config>());
                    let mut e = Slot::new(size_of::<hpa_field_error>());
                    let before = slot.bytes().to_vec();
                    let status =
                        hpa_config_resolve(&*w.config, slot.at(*out, none), e.at(*error, none));
                    check(
                        status,
                        &[&state, &before],
                        &[storage.bytes(), slot.bytes()],
                        call,
                    );
                }
                Call::ObservationCheck { size, error } => {
                    let mut slot = Slot::new(8);
                    let mut e = Slot::new(size_of::<hpa_field_error>());
                    let before = slot.bytes().to_vec();
                    let status = hpa_observation_check(
                        &*w.config,
                        &*w.observation,
                        slot.at(*size, none),
                        e.at(*error, none),
                    );
                    check(
                        status,
                        &[&state, &before],
                        &[storage.bytes(), slot.bytes()],
                        call,
                    );
                }
                Call::QuantityParse { text: t, out } => {
                    let mut slot = Slot::new(8);
                    let before = slot.bytes().to_vec();
                    let s = text(t);
                    let status = hpa_quantity_parse(s.ptr, s.len, slot.at(*out, none));
                    check(
                        status,
                        &[&state, &before],
                        &[storage.bytes(), slot.bytes()],
                        call,
                    );
                }
                Call::QuantityWrite {
                    milli,
                    format,
                    capacity,
                    buffer,
                    len,
                } => {
                    let capacity = usize::from(*capacity) % (HPA_QUANTITY_TEXT_CAPACITY + 1);
                    let mut buf = Slot::new(capacity);
                    let mut n = Slot::new(8);
                    let (b0, n0) = (buf.bytes().to_vec(), n.bytes().to_vec());
                    let status = hpa_quantity_write(
                        *milli,
                        *format,
                        buf.at(*buffer, none),
                        capacity,
                        n.at(*len, none),
                    );
                    check(
                        status,
                        &[&state, &b0, &n0],
                        &[storage.bytes(), buf.bytes(), n.bytes()],
                        call,
                    );
                }
                Call::MilliFromDouble { bits, out } => {
                    let mut slot = Slot::new(8);
                    let before = slot.bytes().to_vec();
                    let status = hpa_milli_from_double(f64::from_bits(*bits), slot.at(*out, none));
                    check(
                        status,
                        &[&state, &before],
                        &[storage.bytes(), slot.bytes()],
                        call,
                    );
                }
                Call::Strings { code } => {
                    // Never NULL, whatever the number: a name or an "unknown ..." text.
                    for s in [
                        hpa_status_str(*code),
                        hpa_status_name(*code),
                        hpa_version(),
                        hpa_reason_str(*code),
                        hpa_condition_type_str(*code),
                        hpa_condition_status_str(*code),
                        hpa_limited_by_str(*code),
                        hpa_reading_str(*code),
                    ] {
                        assert!(!s.is_null());
                        assert!(!CStr::from_ptr(s).is_empty());
                    }
                    let _ = (
                        hpa_version_number(),
                        hpa_autoscaler_size(),
                        hpa_autoscaler_align(),
                    );
                }
            }
        }
    }
});
