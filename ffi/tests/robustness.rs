//! The error model under fire, from Rust through the same `extern "C"` functions C calls:
//! thousands of configurations and observations with one field broken at random (unknown enum
//! values, flags other than 0/1, NULL and misaligned pointers, shorter or longer arrays,
//! invalid UTF-8, negative counts, time going backwards). Every call must return a status;
//! a refused evaluation must leave the autoscaler and the decision byte for byte unchanged;
//! `hpa_config_validate` and `hpa_observation_check` must refuse with the status the
//! evaluation refuses with. Also: an evaluation needs no workspace.

mod world;

use std::ptr;

use hpa_ffi::*;
use testkit::Rng;
use world::{bytes, decision_fields, new_autoscaler, s, zeroed, World};

const BAD_UTF8: &[u8] = b"\xC3(";

/// A string of [`BAD_UTF8`].
fn bad_utf8() -> hpa_str {
    hpa_str {
        ptr: BAD_UTF8.as_ptr().cast(),
        len: BAD_UTF8.len(),
    }
}

/// Random worlds per test: 4 under Miri, which interprets every call (a few seconds each;
/// docs/testing.md#miri).
const ROUNDS: i64 = if cfg!(miri) { 4 } else { 4000 };

/// An invalid pod name where no pod lacks the cpu request: the engine reads no name, so the
/// evaluation does not check them (`hpa_observation_check` does).
const UNREAD_POD_NAME: &str = "pod name utf-8, unread";

/// An evaluation of `w` without a workspace.
///
/// # Safety
///
/// `w`'s pointers must point into live buffers at least as long as the lengths it gives.
unsafe fn evaluate(
    autoscaler: &mut hpa_autoscaler,
    w: &World,
    decision: &mut hpa_decision,
) -> hpa_status {
    // SAFETY: the caller's contract; the autoscaler and the decision are distinct boxes.
    unsafe { hpa_autoscaler_evaluate(autoscaler, &w.config, &w.obs, ptr::null_mut(), 0, decision) }
}

/// A value at or above `first`, the first value an enumeration (or a flag) does not define: its
/// next few values, the largest, or any between.
fn invalid(rng: &mut Rng, first: u32) -> u32 {
    match rng.below(3) {
        0 => first + rng.below(10) as u32,
        1 => u32::MAX,
        _ => first + (rng.next_u64() as u32) % (u32::MAX - first),
    }
}

impl World {
    /// Breaks one field; returns its name.
    fn break_one(&mut self, rng: &mut Rng) -> &'static str {
        // A flag other than 0 and 1.
        let garbage = |rng: &mut Rng| invalid(rng, 2);
        let n = self.obs.pods_len;
        let i = if n == 0 {
            0
        } else {
            rng.below(n as u64) as usize
        };
        match rng.below(30) {
            0 => {
                self.metrics[rng.below(3) as usize].r#type =
                    invalid(rng, hpa_metric_source_type::External as u32 + 1);
                "metric type"
            }
            1 => {
                self.metrics[0].target.r#type =
                    invalid(rng, hpa_metric_target_type::AverageValue as u32 + 1);
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
                self.metrics[1].name = bad_utf8();
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
                self.up[0].select_policy = invalid(rng, hpa_select_policy::Disabled as u32 + 1);
                "select policy"
            }
            10 => {
                self.policies[0].r#type = invalid(rng, hpa_policy_type::Percent as u32 + 1);
                "policy type"
            }
            11 => {
                self.settings[0].arithmetic = invalid(rng, hpa_arithmetic::Exact as u32 + 1);
                "arithmetic"
            }
            12 => {
                self.settings[0].tolerance.mantissa = -1 - rng.below(100) as i64;
                "negative tolerance"
            }
            13 => {
                self.settings[0].cpu_initialization_period_ms = -1;
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
                    invalid(rng, hpa_values_kind::Error as u32 + 1)
                } else {
                    hpa_values_kind::Object as u32
                };
                "values kind"
            }
            18 if n > 0 => {
                self.pods[i].phase = invalid(rng, hpa_pod_phase::Unknown as u32 + 1);
                "phase"
            }
            19 if n > 0 => {
                self.pods[i].ready = invalid(rng, hpa_ready::Unknown as u32 + 1);
                "ready"
            }
            20 if n > 0 => {
                self.pods[i].deleted = garbage(rng);
                "deleted flag"
            }
            21 if n > 0 => {
                self.pods[i].name = bad_utf8();
                if rng.below(2) == 0 {
                    // The engine may then name a pod in an error: every name is checked.
                    self.containers[0].requests_len = 0;
                    "pod name utf-8, a request missing"
                } else {
                    UNREAD_POD_NAME
                }
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
                self.containers[0].kind = invalid(rng, hpa_container_kind::Init as u32 + 1);
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

#[test]
fn broken_inputs_are_refused_and_change_nothing() {
    let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
    let mut autoscaler: Box<hpa_autoscaler> = Box::new(zeroed());
    let mut decision: Box<hpa_decision> = Box::new(zeroed());
    let mut workspace = vec![0u8; 1 << 16];
    let (mut refused, mut unread_names) = (0, 0);
    // SAFETY (whole test): every pointer passed is NULL, misaligned by construction, or points
    // into live buffers at least as long as the lengths passed (one spare element each).
    unsafe {
        assert_eq!(
            hpa_autoscaler_init(&mut *autoscaler, std::mem::size_of::<hpa_autoscaler>()),
            hpa_status::Ok
        );
        for round in 0..ROUNDS {
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
            let decision_before = decision_fields(&decision);
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
                if what == UNREAD_POD_NAME {
                    // Checked by `hpa_observation_check`, not by an evaluation that does not
                    // read it.
                    assert_eq!(checked, hpa_status::InvalidUtf8, "{what}");
                    unread_names += 1;
                } else {
                    assert_eq!(checked, hpa_status::Ok, "{what}");
                }
                continue;
            }
            refused += 1;
            assert_eq!(
                bytes(&*autoscaler),
                state_before,
                "{what}: the state changed"
            );
            assert_eq!(
                decision_fields(&decision),
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
    // Nearly every broken input is refused (a few breakages are harmless).
    assert!(refused > ROUNDS * 3 / 4 || cfg!(miri) && refused > 0);
    println!("{unread_names} invalid pod names unread and accepted");
    assert!(unread_names > 0 || cfg!(miri));
}

/// The evaluation reads the observation in place: `hpa_observation_check` reports a workspace
/// of 0 bytes, and an evaluation without one (NULL, 0) decides as one with a workspace, pods
/// sharing their container arrays or not.
#[test]
fn no_workspace_is_needed() {
    let mut rng = Rng::new(42);
    let mut autoscaler: Box<hpa_autoscaler> = Box::new(zeroed());
    let mut decision: Box<hpa_decision> = Box::new(zeroed());
    // SAFETY: as above.
    unsafe {
        assert_eq!(
            hpa_autoscaler_init(&mut *autoscaler, std::mem::size_of::<hpa_autoscaler>()),
            hpa_status::Ok
        );
        for round in 0..(ROUNDS + 7) / 8 {
            let n = rng.below(40) as usize;
            let mut w = World::new(n, &mut rng);
            w.obs.now_ms = 60_000 + round * 15_000;
            // Some pods get their own container array (no sharing).
            if n > 1 {
                let k = 1 + rng.below(n as u64 - 1) as usize;
                w.pods[k].containers = w.containers.as_ptr().wrapping_add(1);
                w.containers[1] = w.containers[0];
            }
            let mut needed = usize::MAX;
            assert_eq!(
                hpa_observation_check(&w.config, &w.obs, &mut needed, ptr::null_mut()),
                hpa_status::Ok
            );
            assert_eq!(needed, 0);
            let status = evaluate(&mut autoscaler, &w, &mut decision);
            assert_eq!(status, hpa_status::Ok, "{n} pods");
            if decision.rescale == 1 {
                assert_eq!(
                    hpa_autoscaler_rescale_succeeded(&mut *autoscaler),
                    hpa_status::Ok
                );
            }
        }
    }
}

/// An evaluation whose workspace holds any array it reads, or whose decision holds a string
/// it reads, is refused with `HPA_STATUS_OVERLAP`, the autoscaler and the decision unchanged
/// (writing an output would change the inputs under the call).
#[test]
fn outputs_over_any_input_are_refused() {
    /// A copy of `src` inside the workspace, at the middle.
    unsafe fn place<T>(workspace: &mut [u64], src: *const T, n: usize) -> *mut T {
        let p = workspace
            .as_mut_ptr()
            .wrapping_add(workspace.len() / 2)
            .cast::<T>();
        // SAFETY: `n` values fit in the workspace's second half (the cases below are small).
        unsafe { p.copy_from_nonoverlapping(src, n) };
        p
    }
    let mut rng = Rng::new(11);
    let mut autoscaler = new_autoscaler();
    let mut decision: Box<hpa_decision> = Box::new(zeroed());
    let mut workspace = vec![0u64; 1 << 13];
    // SAFETY (whole test): every pointer passed points into live buffers at least as long as
    // the lengths passed.
    unsafe {
        for case in 0..15 {
            let mut w = World::new(5, &mut rng);
            w.obs.now_ms = 60_000 + case * 15_000;
            let ws = &mut workspace[..];
            match case {
                0 => w.obs.pods = place(ws, w.obs.pods, 5),
                1 => w.values[0].samples = place(ws, w.values[0].samples, 5),
                2 => w.values[1].samples = place(ws, w.values[1].samples, 5),
                3 => w.values[2].values_milli = place(ws, w.values[2].values_milli, 1),
                4 => w.obs.metrics = place(ws, w.obs.metrics, 3),
                5 => {
                    let p = place(ws, w.containers.as_ptr(), 1);
                    for pod in &mut w.pods {
                        pod.containers = p;
                    }
                }
                6 => w.containers[0].requests = place(ws, w.containers[0].requests, 1),
                7 => w.config.metrics = place(ws, w.config.metrics, 3),
                8 => w.up[0].policies = place(ws, w.up[0].policies, 1),
                9 => w.behavior[0].scale_up = place(ws, w.behavior[0].scale_up, 1),
                10 => w.config.behavior = place(ws, w.config.behavior, 1),
                11 => w.config.settings = place(ws, w.config.settings, 1),
                12 => {
                    // A pod's name is read (and checked) when the engine may name a pod in an
                    // error: here a container lacks the cpu request.
                    w.pods[4].name.ptr = place(ws, w.pods[4].name.ptr, 3);
                    w.containers[0].requests_len = 0;
                }
                13 => w.metrics[1].name.ptr = place(ws, w.metrics[1].name.ptr, 3),
                _ => {}
            }
            let decision_out: *mut hpa_decision = &mut *decision;
            if case == 14 {
                // A pod's name inside the decision.
                let reason = ptr::addr_of_mut!((*decision_out).reason).cast::<u8>();
                reason.copy_from_nonoverlapping(b"pod".as_ptr(), 3);
                w.pods[0].name.ptr = reason.cast();
                w.containers[0].requests_len = 0;
            }
            let state_before = bytes(&*autoscaler);
            let decision_before = decision_fields(&*decision_out);
            let status = hpa_autoscaler_evaluate(
                &mut *autoscaler,
                &w.config,
                &w.obs,
                workspace.as_mut_ptr().cast(),
                workspace.len() * 8,
                decision_out,
            );
            assert_eq!(status, hpa_status::Overlap, "case {case}");
            assert_eq!(bytes(&*autoscaler), state_before, "case {case}");
            assert_eq!(
                decision_fields(&*decision_out),
                decision_before,
                "case {case}"
            );
        }
    }
}

/// With a ContainerResource metric the engine may name any pod (a sample without the
/// container, a container the pod lacks), so an evaluation checks every pod's name, as
/// `hpa_observation_check` does, even where every template has the request.
#[test]
fn container_resource_metrics_check_every_pod_name() {
    let mut rng = Rng::new(31);
    let mut autoscaler = new_autoscaler();
    let mut decision: Box<hpa_decision> = Box::new(zeroed());
    // SAFETY (whole test): every pointer passed points into live buffers at least as long as
    // the lengths passed.
    unsafe {
        let mut w = World::new(4, &mut rng);
        w.obs.now_ms = 60_000;
        w.metrics[0].r#type = hpa_metric_source_type::ContainerResource as u32;
        w.metrics[0].container = s("app");
        let mut size = usize::MAX;
        assert_eq!(
            hpa_observation_check(&w.config, &w.obs, &mut size, ptr::null_mut()),
            hpa_status::Ok
        );
        w.pods[2].name = bad_utf8();
        let state_before = bytes(&*autoscaler);
        let status = evaluate(&mut autoscaler, &w, &mut decision);
        assert_eq!(status, hpa_status::InvalidUtf8);
        assert_eq!(bytes(&*autoscaler), state_before);
        assert_eq!(
            hpa_observation_check(&w.config, &w.obs, &mut size, ptr::null_mut()),
            hpa_status::InvalidUtf8
        );
        // The same pods as a Resource metric's: the names are not read, nor checked.
        w.metrics[0].r#type = hpa_metric_source_type::Resource as u32;
        w.metrics[0].container = hpa_str {
            ptr: ptr::null(),
            len: 0,
        };
        let status = evaluate(&mut autoscaler, &w, &mut decision);
        assert_eq!(status, hpa_status::Ok);
    }
}

/// A pod's name that the engine does not read is not checked by an evaluation: the name may be
/// NULL with a length, not UTF-8, or inside what the call writes, and the decision and the
/// autoscaler are those of the same pods with valid names. (The engine reads a name only to
/// name the pod in an error: tests/pod_names.rs in the core.)
#[test]
fn unread_pod_names_change_nothing() {
    let mut rng = Rng::new(29);
    let (mut plain, mut odd) = (new_autoscaler(), new_autoscaler());
    let (mut plain_decision, mut odd_decision): (Box<hpa_decision>, Box<hpa_decision>) =
        (Box::new(zeroed()), Box::new(zeroed()));
    let mut workspace = vec![0u64; 1 << 10];
    // SAFETY (whole test): every pointer passed points into live buffers at least as long as
    // the lengths passed, but the NULL names with a length, which must not be read.
    unsafe {
        for round in 0..if cfg!(miri) { 3 } else { 200 } {
            let n = 1 + rng.below(8) as usize;
            let mut w = World::new(n, &mut rng);
            w.obs.now_ms = 60_000 + round * 15_000;
            let status = evaluate(&mut plain, &w, &mut plain_decision);
            assert_eq!(status, hpa_status::Ok);
            let decision_out: *mut hpa_decision = &mut *odd_decision;
            for (k, pod) in w.pods.iter_mut().enumerate() {
                pod.name = match (k + round as usize) % 4 {
                    0 => bad_utf8(),
                    1 => hpa_str {
                        ptr: ptr::null(),
                        len: 7,
                    },
                    2 => hpa_str {
                        ptr: workspace.as_ptr().cast(),
                        len: 8,
                    },
                    _ => hpa_str {
                        ptr: ptr::addr_of!((*decision_out).reason).cast(),
                        len: 4,
                    },
                };
            }
            let status = hpa_autoscaler_evaluate(
                &mut *odd,
                &w.config,
                &w.obs,
                workspace.as_mut_ptr().cast(),
                workspace.len() * 8,
                decision_out,
            );
            assert_eq!(status, hpa_status::Ok, "round {round}");
            assert_eq!(
                decision_fields(&odd_decision),
                decision_fields(&plain_decision),
                "round {round}"
            );
            assert_eq!(bytes(&*odd), bytes(&*plain), "round {round}");
            if plain_decision.rescale == 1 {
                assert_eq!(
                    hpa_autoscaler_rescale_succeeded(&mut *plain),
                    hpa_status::Ok
                );
                assert_eq!(hpa_autoscaler_rescale_succeeded(&mut *odd), hpa_status::Ok);
            }
        }
    }
}
