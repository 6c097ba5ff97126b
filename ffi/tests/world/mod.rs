//! A valid configuration and observation built from Rust through the C structs, shared by the
//! tests that call the `extern "C"` functions directly (robustness.rs, snapshot.rs).
#![allow(dead_code)]

use std::ffi::c_char;
use std::mem::MaybeUninit;

use hpa_ffi::*;
use testkit::Rng;

/// An `hpa_str` of a static text.
pub fn s(text: &'static str) -> hpa_str {
    hpa_str {
        ptr: text.as_ptr().cast::<c_char>(),
        len: text.len(),
    }
}

/// A valid world: a CPU metric, a Pods metric and an External metric, `n` pods. Every array
/// has one spare element so that a length one too long still reads inside the allocation.
pub struct World {
    pub metrics: Vec<hpa_metric>,
    pub policies: Vec<hpa_scaling_policy>,
    // One-element vectors rather than boxes: the pointers the config holds are the vectors'
    // own (`as_ptr`), which stay valid when a test writes an element (a pointer made from a
    // box's reference would not, under Rust's aliasing rules, which Miri checks).
    pub up: Vec<hpa_scaling_rules>,
    pub behavior: Vec<hpa_behavior>,
    pub settings: Vec<hpa_settings>,
    pub config: hpa_config,
    pub requests: Vec<hpa_resource_request>,
    pub containers: Vec<hpa_container>,
    pub pods: Vec<hpa_pod>,
    pub cpu: Vec<hpa_sample>,
    pub qps: Vec<hpa_sample>,
    pub series: Vec<i64>,
    pub values: Vec<hpa_metric_values>,
    pub obs: hpa_observation,
}

/// A new autoscaler in its own storage.
pub fn new_autoscaler() -> Box<hpa_autoscaler> {
    let mut a: Box<hpa_autoscaler> = Box::new(zeroed());
    // SAFETY: writable storage of the right size.
    let status = unsafe { hpa_autoscaler_init(&mut *a, std::mem::size_of::<hpa_autoscaler>()) };
    assert_eq!(status, hpa_status::Ok);
    a
}

/// A zeroed value of a C struct.
pub fn zeroed<T>() -> T {
    // SAFETY: only used for the C structs here, for which all-zero bytes are valid.
    unsafe { MaybeUninit::<T>::zeroed().assume_init() }
}

impl World {
    pub fn new(n: usize, rng: &mut Rng) -> Box<World> {
        let mut w = Box::new(World {
            metrics: vec![zeroed(); 4],
            policies: vec![
                hpa_scaling_policy {
                    r#type: hpa_policy_type::Pods as u32,
                    value: 4,
                    period_seconds: 15,
                };
                2
            ],
            up: vec![zeroed()],
            behavior: vec![zeroed()],
            settings: vec![zeroed()],
            config: zeroed(),
            requests: vec![
                hpa_resource_request {
                    resource: s("cpu"),
                    milli: 500,
                };
                2
            ],
            containers: vec![zeroed(); 2],
            pods: vec![zeroed(); n + 1],
            cpu: vec![zeroed(); n + 1],
            qps: vec![zeroed(); n + 1],
            series: vec![40_000, 2_000],
            values: vec![zeroed(); 4],
            obs: zeroed(),
        });
        w.metrics[0].r#type = hpa_metric_source_type::Resource as u32;
        w.metrics[0].name = s("cpu");
        w.metrics[0].target.r#type = hpa_metric_target_type::Utilization as u32;
        w.metrics[0].target.average_utilization = 60;
        w.metrics[1].r#type = hpa_metric_source_type::Pods as u32;
        w.metrics[1].name = s("qps");
        w.metrics[1].target.r#type = hpa_metric_target_type::AverageValue as u32;
        w.metrics[1].target.average_value_milli = 10_000;
        w.metrics[2].r#type = hpa_metric_source_type::External as u32;
        w.metrics[2].name = s("queue");
        w.metrics[2].target.r#type = hpa_metric_target_type::Value as u32;
        w.metrics[2].target.value_milli = 20_000;
        w.up[0].policies = w.policies.as_ptr();
        w.up[0].policies_len = 1;
        w.behavior[0].scale_up = w.up.as_ptr();
        // SAFETY: a valid pointer to writable settings.
        assert_eq!(
            unsafe { hpa_settings_default(w.settings.as_mut_ptr()) },
            hpa_status::Ok
        );
        w.config.max_replicas = 30;
        w.config.metrics = w.metrics.as_ptr();
        w.config.metrics_len = 3;
        w.config.behavior = w.behavior.as_ptr();
        w.config.settings = w.settings.as_ptr();
        w.containers[0].name = s("app");
        w.containers[0].requests = w.requests.as_ptr();
        w.containers[0].requests_len = 1;
        for i in 0..n {
            let p = &mut w.pods[i];
            p.name = s("pod");
            p.ready = hpa_ready::True as u32;
            p.has_start_time = 1;
            p.start_time_ms = -600_000;
            p.containers = w.containers.as_ptr();
            p.containers_len = 1;
            w.cpu[i].present = u32::from(rng.below(8) != 0);
            w.cpu[i].milli = 100 + rng.below(800) as i64;
            w.qps[i].present = 1;
            w.qps[i].milli = rng.below(30_000) as i64;
        }
        w.values[0].kind = hpa_values_kind::Samples as u32;
        w.values[0].samples = w.cpu.as_ptr();
        w.values[0].samples_len = n;
        w.values[1].kind = hpa_values_kind::Samples as u32;
        w.values[1].samples = w.qps.as_ptr();
        w.values[1].samples_len = n;
        w.values[2].kind = hpa_values_kind::External as u32;
        w.values[2].values_milli = w.series.as_ptr();
        w.values[2].values_len = 1;
        w.obs.now_ms = 60_000;
        w.obs.replicas = n.max(1) as i32;
        w.obs.pods = w.pods.as_ptr();
        w.obs.pods_len = n;
        w.obs.metrics = w.values.as_ptr();
        w.obs.metrics_len = 3;
        w
    }
}

/// The bytes of a value without padding (an autoscaler: its state is padding-free, asserted
/// in ffi/src/autoscaler.rs, and the rest of its storage is the caller's), to compare.
pub fn bytes<T>(v: &T) -> Vec<u8> {
    // SAFETY: reading the bytes of a live value.
    unsafe { std::slice::from_raw_parts((v as *const T).cast::<u8>(), std::mem::size_of::<T>()) }
        .to_vec()
}

/// A decision's fields as numbers (texts a number per byte), to compare decisions without
/// reading the struct's padding: what a caller reads, as the library writes it (each text up
/// to its NUL, the first `metrics_len` metrics and `conditions_len` conditions; it leaves the
/// rest as it was). The destructuring lists every field: a new one fails to compile here until
/// it is compared too.
pub fn decision_fields(d: &hpa_decision) -> Vec<i64> {
    let hpa_decision {
        at_ms,
        current_replicas,
        desired_replicas,
        rescale,
        rescale_reason,
        has_proposal,
        proposal,
        has_stabilized,
        stabilized,
        limited_by,
        history_overflowed,
        invalid_metrics,
        metrics_len,
        conditions_len,
        reason,
        metrics_error,
        metrics,
        conditions,
    } = d;
    let mut v = vec![
        *at_ms,
        (*current_replicas).into(),
        (*desired_replicas).into(),
        (*rescale).into(),
        (*rescale_reason).into(),
        (*has_proposal).into(),
        (*proposal).into(),
        (*has_stabilized).into(),
        (*stabilized).into(),
        (*limited_by).into(),
        (*history_overflowed).into(),
        (*invalid_metrics).into(),
        *metrics_len as i64,
        *conditions_len as i64,
    ];
    text(&mut v, reason);
    text(&mut v, metrics_error);
    for m in metrics.iter().take(*metrics_len) {
        let hpa_metric_result {
            outcome,
            source,
            replicas,
            within_tolerance,
            reading,
            has_current_average_utilization,
            current_average_utilization,
            has_current_average_value,
            has_current_value,
            current_average_value_milli,
            current_value_milli,
            current_average_value_text,
            current_value_text,
            error_reason,
            name,
            error,
        } = m;
        v.extend([
            (*outcome).into(),
            (*source).into(),
            (*replicas).into(),
            (*within_tolerance).into(),
            (*reading).into(),
            (*has_current_average_utilization).into(),
            (*current_average_utilization).into(),
            (*has_current_average_value).into(),
            (*has_current_value).into(),
            *current_average_value_milli,
            *current_value_milli,
            (*error_reason).into(),
        ]);
        text(&mut v, current_average_value_text);
        text(&mut v, current_value_text);
        text(&mut v, name);
        text(&mut v, error);
    }
    conditions_fields(&mut v, conditions, *conditions_len);
    v
}

/// A scaling status's fields as numbers, as [`decision_fields`].
pub fn status_fields(s: &hpa_scaling_status) -> Vec<i64> {
    let hpa_scaling_status {
        desired_replicas,
        has_last_scale_time,
        last_scale_time_ms,
        rescale_pending,
        conditions_len,
        conditions,
    } = s;
    let mut v = vec![
        (*desired_replicas).into(),
        (*has_last_scale_time).into(),
        *last_scale_time_ms,
        (*rescale_pending).into(),
        *conditions_len as i64,
    ];
    conditions_fields(&mut v, conditions, *conditions_len);
    v
}

/// A text's bytes up to its NUL (all of them if it has none).
fn text(v: &mut Vec<i64>, t: &[c_char]) {
    v.extend(t.iter().take_while(|&&c| c != 0).map(|&c| i64::from(c)));
    v.push(0);
}

fn conditions_fields(v: &mut Vec<i64>, conditions: &[hpa_condition], len: usize) {
    for c in conditions.iter().take(len) {
        let hpa_condition {
            r#type,
            status,
            reason,
            message,
        } = c;
        v.extend::<[i64; 3]>([(*r#type).into(), (*status).into(), (*reason).into()]);
        text(v, message);
    }
}

/// A C text of an output struct, up to its NUL (the library writes UTF-8).
pub fn c_text(chars: &[c_char]) -> String {
    let bytes: Vec<u8> = chars
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8(bytes).expect("UTF-8")
}
