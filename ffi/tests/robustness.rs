//! The error model under fire, from Rust through the same `extern "C"` functions C calls:
//! thousands of configurations and observations with one field broken at random (unknown enum
//! values, flags other than 0/1, NULL and misaligned pointers, shorter or longer arrays,
//! invalid UTF-8, negative counts, time going backwards). Every call must return a status;
//! a refused evaluation must leave the autoscaler and the decision byte for byte unchanged;
//! `hpa_config_validate` and `hpa_observation_check` must refuse with the status the
//! evaluation refuses with. Also: the workspace size `hpa_observation_check` reports is exact.

use std::ffi::c_char;
use std::mem::MaybeUninit;
use std::ptr;

use hpa_ffi::*;
use testkit::Rng;

fn s(text: &'static str) -> hpa_str {
    hpa_str {
        ptr: text.as_ptr().cast::<c_char>(),
        len: text.len(),
    }
}

const BAD_UTF8: &[u8] = b"\xC3(";

/// A valid world: a CPU metric, a Pods metric and an External metric, `n` pods. Every array
/// has one spare element so that a length one too long still reads inside the allocation.
struct World {
    metrics: Vec<hpa_metric>,
    policies: Vec<hpa_scaling_policy>,
    up: Box<hpa_scaling_rules>,
    behavior: Box<hpa_behavior>,
    settings: Box<hpa_settings>,
    config: hpa_config,
    requests: Vec<hpa_resource_request>,
    containers: Vec<hpa_container>,
    pods: Vec<hpa_pod>,
    cpu: Vec<hpa_sample>,
    qps: Vec<hpa_sample>,
    series: Vec<i64>,
    values: Vec<hpa_metric_values>,
    obs: hpa_observation,
}

fn zeroed<T>() -> T {
    // SAFETY: only used for the C structs here, for which all-zero bytes are valid.
    unsafe { MaybeUninit::<T>::zeroed().assume_init() }
}

impl World {
    fn new(n: usize, rng: &mut Rng) -> Box<World> {
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
            up: Box::new(zeroed()),
            behavior: Box::new(zeroed()),
            settings: Box::new(zeroed()),
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
        w.up.policies = w.policies.as_ptr();
        w.up.policies_len = 1;
        w.behavior.scale_up = &*w.up;
        // SAFETY: a valid pointer to writable settings.
        assert_eq!(
            unsafe { hpa_settings_default(&mut *w.settings) },
            hpa_status::Ok
        );
        w.config.max_replicas = 30;
        w.config.metrics = w.metrics.as_ptr();
        w.config.metrics_len = 3;
        w.config.behavior = &*w.behavior;
        w.config.settings = &*w.settings;
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

    /// Breaks one field; returns its name.
    fn break_one(&mut self, rng: &mut Rng) -> &'static str {
        let garbage = |rng: &mut Rng| match rng.below(3) {
            0 => 2 + rng.below(10) as u32,
            1 => u32::MAX,
            _ => rng.next_u64() as u32 | 0x100,
        };
        let n = self.obs.pods_len;
        let i = if n == 0 {
            0
        } else {
            rng.below(n as u64) as usize
        };
        match rng.below(30) {
            0 => {
                self.metrics[rng.below(3) as usize].r#type = garbage(rng) + 10;
                "metric type"
            }
            1 => {
                self.metrics[0].target.r#type = garbage(rng) + 10;
                "target type"
            }
            2 => {
                self.metrics[1].target.fields = 8 << rng.below(20);
                "target fields"
            }
            3 => {
                self.metrics[2].selector_invalid = garbage(rng);
                "selector flag"
            }
            4 => {
                self.metrics[1].name = hpa_str {
                    ptr: BAD_UTF8.as_ptr().cast(),
                    len: BAD_UTF8.len(),
                };
                "metric name utf-8"
            }
            5 => {
                self.metrics[0].name.ptr = ptr::null();
                "metric name NULL"
            }
            6 => {
                self.config.metrics = ptr::null();
                "metrics NULL"
            }
            7 => {
                self.config.metrics = self.metrics.as_ptr().cast::<u8>().wrapping_add(4).cast();
                "metrics misaligned"
            }
            8 => {
                self.config.has_min_replicas = garbage(rng);
                "min flag"
            }
            9 => {
                self.up.select_policy = garbage(rng) + 3;
                "select policy"
            }
            10 => {
                self.policies[0].r#type = garbage(rng) + 2;
                "policy type"
            }
            11 => {
                self.settings.arithmetic = garbage(rng) + 2;
                "arithmetic"
            }
            12 => {
                self.settings.tolerance.mantissa = -1 - rng.below(100) as i64;
                "negative tolerance"
            }
            13 => {
                self.settings.cpu_initialization_period_ms = -1;
                "negative period"
            }
            14 => {
                self.obs.replicas = -1 - rng.below(5) as i32;
                "negative replicas"
            }
            15 => {
                self.obs.metrics_len = if rng.below(2) == 0 { 2 } else { 4 };
                "metrics_len"
            }
            16 => {
                let k = rng.below(2) as usize;
                self.values[k].samples_len = if n == 0 {
                    1
                } else {
                    n - 1 + 2 * rng.below(2) as usize
                };
                "samples_len"
            }
            17 => {
                self.values[rng.below(3) as usize].kind = if rng.below(2) == 0 {
                    garbage(rng) + 4
                } else {
                    hpa_values_kind::Object as u32
                };
                "values kind"
            }
            18 if n > 0 => {
                self.pods[i].phase = garbage(rng) + 4;
                "phase"
            }
            19 if n > 0 => {
                self.pods[i].ready = garbage(rng) + 3;
                "ready"
            }
            20 if n > 0 => {
                self.pods[i].deleted = garbage(rng);
                "deleted flag"
            }
            21 if n > 0 => {
                self.pods[i].name = hpa_str {
                    ptr: BAD_UTF8.as_ptr().cast(),
                    len: BAD_UTF8.len(),
                };
                "pod name utf-8"
            }
            22 if n > 0 => {
                self.pods[i].containers = ptr::null();
                "containers NULL"
            }
            23 if n > 0 => {
                self.cpu[i].present = garbage(rng);
                "present flag"
            }
            24 if n > 0 => {
                self.qps[i].has_window = 1;
                self.qps[i].window_ms = -1;
                "negative window"
            }
            25 => {
                self.containers[0].kind = garbage(rng) + 2;
                "container kind"
            }
            26 => {
                self.requests[0].resource.ptr = ptr::null();
                "request NULL"
            }
            27 => {
                self.obs.pods = self.pods.as_ptr().cast::<u8>().wrapping_add(1).cast();
                self.obs.pods_len = n.max(1);
                "pods misaligned"
            }
            28 => {
                self.values[2].values_milli = ptr::null();
                "series NULL"
            }
            _ => {
                self.config.max_replicas = 0;
                "max replicas 0"
            }
        }
    }
}

fn bytes<T>(v: &T) -> Vec<u8> {
    // SAFETY: reading the bytes of a live value.
    unsafe { std::slice::from_raw_parts((v as *const T).cast::<u8>(), std::mem::size_of::<T>()) }
        .to_vec()
}

#[test]
fn broken_inputs_are_refused_and_change_nothing() {
    let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
    let mut autoscaler: Box<hpa_autoscaler> = Box::new(zeroed());
    let mut decision: Box<hpa_decision> = Box::new(zeroed());
    let mut workspace = vec![0u8; 1 << 16];
    let mut refused = 0;
    // SAFETY (whole test): every pointer passed is NULL, misaligned by construction, or points
    // into live buffers at least as long as the lengths passed (one spare element each).
    unsafe {
        assert_eq!(
            hpa_autoscaler_init(&mut *autoscaler, std::mem::size_of::<hpa_autoscaler>()),
            hpa_status::Ok
        );
        for round in 0..4000 {
            let n = rng.below(12) as usize;
            let mut w = World::new(n, &mut rng);
            // The valid world evaluates.
            let now = 60_000 + round * 15_000;
            w.obs.now_ms = now;
            let mut needed = 0;
            assert_eq!(
                hpa_observation_check(&w.config, &w.obs, &mut needed, ptr::null_mut()),
                hpa_status::Ok
            );
            let status = hpa_autoscaler_evaluate(
                &mut *autoscaler,
                &w.config,
                &w.obs,
                workspace.as_mut_ptr().cast(),
                workspace.len(),
                &mut *decision,
            );
            assert_eq!(status, hpa_status::Ok);
            if decision.rescale == 1 {
                let report = if rng.below(4) == 0 {
                    hpa_autoscaler_rescale_failed(&mut *autoscaler, "nope".as_ptr().cast(), 4)
                } else {
                    hpa_autoscaler_rescale_succeeded(&mut *autoscaler)
                };
                assert_eq!(report, hpa_status::Ok);
            }
            // One field broken, or time going backwards.
            let what = if rng.below(20) == 0 {
                w.obs.now_ms = now - 1 - rng.below(100_000) as i64;
                "time backwards"
            } else {
                w.break_one(&mut rng)
            };
            let state_before = bytes(&*autoscaler);
            let decision_before = bytes(&*decision);
            let status = hpa_autoscaler_evaluate(
                &mut *autoscaler,
                &w.config,
                &w.obs,
                workspace.as_mut_ptr().cast(),
                workspace.len(),
                &mut *decision,
            );
            let mut error: Box<hpa_field_error> = Box::new(zeroed());
            let validated = hpa_config_validate(&w.config, &mut *error);
            let mut size = usize::MAX;
            let checked = hpa_observation_check(&w.config, &w.obs, &mut size, ptr::null_mut());
            if status == hpa_status::Ok {
                // Some breakages are harmless (e.g. max replicas 0 with a metric failing
                // anyway is not: it is refused). A valid result must be consistent.
                assert_eq!(validated, hpa_status::Ok, "{what}");
                assert_eq!(checked, hpa_status::Ok, "{what}");
                continue;
            }
            refused += 1;
            assert_eq!(
                bytes(&*autoscaler),
                state_before,
                "{what}: the state changed"
            );
            assert_eq!(
                bytes(&*decision),
                decision_before,
                "{what}: the decision changed"
            );
            if status == hpa_status::TimeWentBackwards {
                assert_eq!(what, "time backwards");
                assert_eq!(checked, hpa_status::Ok);
                continue;
            }
            if validated != hpa_status::Ok {
                assert_eq!(validated, status, "{what}: validate and evaluate disagree");
                assert_eq!(error.status, status as u32);
                assert!(error.message[0] != 0, "{what}: no message");
            } else {
                assert_eq!(checked, status, "{what}: check and evaluate disagree");
                assert_eq!(size, usize::MAX, "{what}: output written on error");
            }
        }
    }
    println!("{refused} broken inputs refused, state and outputs unchanged");
    assert!(refused > 3000);
}

#[test]
fn the_reported_workspace_size_is_exact() {
    let mut rng = Rng::new(42);
    let mut autoscaler: Box<hpa_autoscaler> = Box::new(zeroed());
    let mut decision: Box<hpa_decision> = Box::new(zeroed());
    let mut workspace = vec![0u8; 1 << 16];
    // SAFETY: as above.
    unsafe {
        assert_eq!(
            hpa_autoscaler_init(&mut *autoscaler, std::mem::size_of::<hpa_autoscaler>()),
            hpa_status::Ok
        );
        for round in 0..500 {
            let n = rng.below(40) as usize;
            let mut w = World::new(n, &mut rng);
            w.obs.now_ms = 60_000 + round * 15_000;
            // Some pods get their own container array (no sharing).
            if n > 1 {
                let k = 1 + rng.below(n as u64 - 1) as usize;
                w.pods[k].containers = w.containers.as_ptr().wrapping_add(1);
                w.containers[1] = w.containers[0];
            }
            let mut needed = 0;
            assert_eq!(
                hpa_observation_check(&w.config, &w.obs, &mut needed, ptr::null_mut()),
                hpa_status::Ok
            );
            assert!(
                needed <= 16 + 128 * (4 * n + 4),
                "the documented bound holds"
            );
            let offset = rng.below(16) as usize;
            let base = workspace.as_mut_ptr().wrapping_add(offset);
            let aligned = workspace
                .as_mut_ptr()
                .wrapping_add(16 - (workspace.as_ptr() as usize % 16) % 16);
            if needed >= 16 {
                let status = hpa_autoscaler_evaluate(
                    &mut *autoscaler,
                    &w.config,
                    &w.obs,
                    aligned.cast(),
                    needed - 16,
                    &mut *decision,
                );
                assert_eq!(status, hpa_status::BufferTooSmall);
            }
            let status = hpa_autoscaler_evaluate(
                &mut *autoscaler,
                &w.config,
                &w.obs,
                base.cast(),
                needed,
                &mut *decision,
            );
            assert_eq!(
                status,
                hpa_status::Ok,
                "{n} pods, {needed} bytes at offset {offset}"
            );
            if decision.rescale == 1 {
                assert_eq!(
                    hpa_autoscaler_rescale_succeeded(&mut *autoscaler),
                    hpa_status::Ok
                );
            }
        }
    }
}
