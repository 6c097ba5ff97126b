//! The C API's caller-owned storage (`hpa_autoscaler`, ffi/src/autoscaler.rs) under damage,
//! through the same `extern "C"` functions C calls (as ffi/tests/c/corrupt_test.c does with
//! fixed damage). An autoscaler gets a history from the input (a behavior HPA on an External
//! metric; rescales reported succeeded, failed or left pending), a copy of its storage is
//! damaged as the input says (bit flips, byte writes, zeroed and garbage-filled ranges), and
//! evaluate, rescale_succeeded, scaling_status and save run on both. On the damaged copy each
//! call either refuses with `HPA_STATUS_CORRUPT_STATE` or `HPA_STATUS_UNINITIALIZED` without
//! changing a byte of the storage (and then so do the calls after it), or returns exactly what
//! the undamaged autoscaler returns (status, decision, scaling status and snapshot bytes).
//! Then `hpa_autoscaler_restore` of the reference's snapshot, damaged as the input says (and
//! then resealed or not: its length field and CRC-32 made right), into the damaged storage: `HPA_STATUS_OK`, after which the state reads
//! and saves, or an error that leaves the storage unchanged.
//!
//! Damage never writes a chosen value over the stored fingerprint: a state whose fingerprint
//! was recomputed by its writer is a forgery, which the fingerprint does not claim to detect
//! (src/fingerprint.rs), and libFuzzer's comparison tracing would find one.
#![no_main]

use std::mem::{size_of, MaybeUninit};
use std::ptr;

use hpa_ffi::*;
use hpa_fuzz::c_api_storage::{Damage, Input};
use libfuzzer_sys::fuzz_target;

/// The bytes of `hpa_autoscaler` the state takes (ffi/src/autoscaler.rs, `FIELD_BYTES`): the
/// engine's 2,024, the marker and fingerprint, two messages; the rest of the storage is spare.
/// Damage is aimed there mostly; the exact figure only steers the fuzzer.
const STATE_BYTES: usize = 2040 + 2 * (HPA_MESSAGE_CAPACITY + 4);

/// `hpa_autoscaler_init`'s bytes that hold the stored fingerprint (after the 8-byte marker).
const FINGERPRINT: std::ops::Range<usize> = 8..16;

fn zeroed<T>() -> T {
    // SAFETY: only used for the C structs, for which all-zero bytes are valid.
    unsafe { MaybeUninit::<T>::zeroed().assume_init() }
}

fn bytes_of<T>(v: &T) -> Vec<u8> {
    // SAFETY: reading the bytes of a live value that was zeroed before it was written.
    unsafe { std::slice::from_raw_parts((v as *const T).cast::<u8>(), size_of::<T>()) }.to_vec()
}

fn storage(a: &mut hpa_autoscaler) -> &mut [u8; HPA_AUTOSCALER_SIZE] {
    // SAFETY: every byte pattern is a valid byte array.
    unsafe { &mut a._bytes }
}

fn s(text: &'static str) -> hpa_str {
    hpa_str {
        ptr: text.as_ptr().cast(),
        len: text.len(),
    }
}

/// The configuration corrupt_test.c uses: an External metric, a behavior both ways.
struct Config {
    metric: Box<hpa_metric>,
    up_policy: Box<hpa_scaling_policy>,
    down_policy: Box<hpa_scaling_policy>,
    up: Box<hpa_scaling_rules>,
    down: Box<hpa_scaling_rules>,
    behavior: Box<hpa_behavior>,
    config: hpa_config,
}

impl Config {
    fn new() -> Box<Config> {
        let mut c = Box::new(Config {
            metric: Box::new(zeroed()),
            up_policy: Box::new(hpa_scaling_policy {
                r#type: hpa_policy_type::Pods as u32,
                value: 2,
                period_seconds: 15,
            }),
            down_policy: Box::new(hpa_scaling_policy {
                r#type: hpa_policy_type::Percent as u32,
                value: 50,
                period_seconds: 60,
            }),
            up: Box::new(zeroed()),
            down: Box::new(zeroed()),
            behavior: Box::new(zeroed()),
            config: zeroed(),
        });
        c.metric.r#type = hpa_metric_source_type::External as u32;
        c.metric.name = s("queue");
        c.metric.target.r#type = hpa_metric_target_type::AverageValue as u32;
        c.metric.target.average_value_milli = 1000;
        c.up.policies = &*c.up_policy;
        c.up.policies_len = 1;
        c.down.has_stabilization_window_seconds = 1;
        c.down.stabilization_window_seconds = 30;
        c.down.policies = &*c.down_policy;
        c.down.policies_len = 1;
        c.behavior.scale_up = &*c.up;
        c.behavior.scale_down = &*c.down;
        c.config.has_min_replicas = 1;
        c.config.min_replicas = 1;
        c.config.max_replicas = 20;
        c.config.metrics = &*c.metric;
        c.config.metrics_len = 1;
        c.config.behavior = &*c.behavior;
        c
    }

    /// One evaluation; the decision is zeroed first so that its bytes compare.
    fn evaluate(
        &self,
        a: &mut hpa_autoscaler,
        now_ms: i64,
        replicas: i32,
        load: u8,
        decision: &mut hpa_decision,
    ) -> hpa_status {
        let values_milli = [i64::from(load) * 1000 * i64::from(replicas)];
        let mut values: hpa_metric_values = zeroed();
        values.kind = hpa_values_kind::External as u32;
        values.values_milli = values_milli.as_ptr();
        values.values_len = 1;
        let mut obs: hpa_observation = zeroed();
        obs.now_ms = now_ms;
        obs.replicas = replicas;
        obs.metrics = &values;
        obs.metrics_len = 1;
        *decision = zeroed();
        // SAFETY: everything points to live values; no pod and no sample: no workspace.
        unsafe { hpa_autoscaler_evaluate(a, &self.config, &obs, ptr::null_mut(), 0, decision) }
    }
}

/// What one call gave: its status and its output's bytes.
type Outcome = (hpa_status, Vec<u8>);

/// The calls, in order, on `a`. Where one refuses the storage as damaged, the storage must be
/// unchanged by it, and the calls after it must refuse the same way.
fn calls(c: &Config, a: &mut hpa_autoscaler, now_ms: i64, replicas: i32, load: u8) -> Vec<Outcome> {
    let mut out = Vec::new();
    let mut decision: Box<hpa_decision> = Box::new(zeroed());
    let mut refused = None;
    for call in 0..4 {
        let before = storage(a).to_vec();
        let outcome = match call {
            0 => {
                let status = c.evaluate(a, now_ms, replicas, load, &mut decision);
                (status, bytes_of(&*decision))
            }
            // SAFETY: initialized storage (whatever happened to it since).
            1 => (unsafe { hpa_autoscaler_rescale_succeeded(a) }, Vec::new()),
            2 => {
                let mut st: Box<hpa_scaling_status> = Box::new(zeroed());
                // SAFETY: as above; `st` is writable and apart.
                let status = unsafe { hpa_autoscaler_scaling_status(a, &mut *st) };
                (status, bytes_of(&*st))
            }
            _ => {
                let mut buffer = vec![0_u8; HPA_SNAPSHOT_MAX_BYTES];
                let mut written = 0_usize;
                // SAFETY: as above; the buffer and `written` are writable and apart.
                let status = unsafe {
                    hpa_autoscaler_save(a, now_ms, buffer.as_mut_ptr(), buffer.len(), &mut written)
                };
                buffer.truncate(written);
                (status, buffer)
            }
        };
        if matches!(
            outcome.0,
            hpa_status::CorruptState | hpa_status::Uninitialized
        ) {
            assert_eq!(storage(a)[..], before[..], "call {call} refused, yet wrote");
            if let Some(first) = refused {
                assert_eq!(outcome.0, first, "call {call} refused otherwise");
            }
            refused = Some(outcome.0);
        } else {
            assert_eq!(
                refused, None,
                "call {call} accepted what an earlier call refused"
            );
        }
        out.push(outcome);
    }
    out
}

/// Applies `d` to `bytes`; `keep` is a range no chosen value is written to.
fn damage(bytes: &mut [u8], d: &Damage, keep: std::ops::Range<usize>) {
    if bytes.is_empty() {
        return;
    }
    let n = bytes.len();
    // Three offsets of four land where the state is, the rest anywhere.
    let at = |offset: u16| {
        usize::from(offset)
            % if offset >= 0x4000 {
                n.min(STATE_BYTES)
            } else {
                n
            }
    };
    let range = |offset: u16, len: u8| at(offset)..(at(offset) + usize::from(len) + 1).min(n);
    match *d {
        Damage::Flip { offset, bit } => bytes[at(offset)] ^= 1 << (bit % 8),
        Damage::Write { offset, value } => {
            if !keep.contains(&at(offset)) {
                bytes[at(offset)] = value;
            }
        }
        Damage::Zero { offset, len } => bytes[range(offset, len)].fill(0),
        Damage::Garbage { offset, len, seed } => {
            let mut x = seed | 1;
            for b in &mut bytes[range(offset, len)] {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *b = x as u8;
            }
        }
    }
}

/// The state a snapshot holds, saved again by the core without an annex.
fn core_save(snapshot: &[u8], now_ms: i64) -> Vec<u8> {
    let mut a: hpa::Autoscaler = hpa::Autoscaler::new();
    a.restore(snapshot, hpa::Instant(now_ms))
        .unwrap_or_else(|e| panic!("the C API restored what the core refuses: {e:?}"));
    let mut buffer = vec![
        0;
        hpa::Autoscaler::<
            { hpa::autoscaler::DEFAULT_RECOMMENDATION_BYTES },
            { hpa::autoscaler::DEFAULT_EVENT_BYTES },
        >::SNAPSHOT_MAX_BYTES
    ];
    let len = a.save(hpa::Instant(now_ms), &mut buffer).expect("it saves");
    buffer.truncate(len);
    buffer
}

fuzz_target!(|input: Input| {
    let c = Config::new();
    let mut reference: Box<hpa_autoscaler> = Box::new(zeroed());
    // SAFETY: writable storage of the right size.
    let status = unsafe { hpa_autoscaler_init(&mut *reference, size_of::<hpa_autoscaler>()) };
    assert_eq!(status, hpa_status::Ok);
    let mut decision: Box<hpa_decision> = Box::new(zeroed());
    let mut now = 0_i64;
    let mut replicas = 3;
    for step in input.steps.iter().take(64) {
        now += i64::from(step.dt) * 1000;
        if let Some(r) = step.replicas {
            replicas = i32::from(r);
        }
        let status = c.evaluate(&mut reference, now, replicas, step.load, &mut decision);
        assert_eq!(status, hpa_status::Ok);
        if decision.rescale == 1 {
            // SAFETY: initialized storage.
            let status = match step.outcome {
                0 | 1 => unsafe { hpa_autoscaler_rescale_failed(&mut *reference, ptr::null(), 0) },
                2 => hpa_status::Ok,
                _ => {
                    replicas = decision.desired_replicas;
                    // SAFETY: initialized storage.
                    unsafe { hpa_autoscaler_rescale_succeeded(&mut *reference) }
                }
            };
            assert_eq!(status, hpa_status::Ok);
        }
    }
    now += i64::from(input.dt) * 1000;

    let mut work = Box::new(zeroed::<hpa_autoscaler>());
    *storage(&mut work) = *storage(&mut reference);
    let expected = calls(&c, &mut work, now, replicas, input.load);
    assert!(expected
        .iter()
        .all(|(s, _)| !matches!(s, hpa_status::CorruptState | hpa_status::Uninitialized)));

    let mut damaged = Box::new(zeroed::<hpa_autoscaler>());
    *storage(&mut damaged) = *storage(&mut reference);
    for d in input.damage.iter().take(16) {
        damage(storage(&mut damaged), d, FINGERPRINT);
    }
    let mut probe = Box::new(zeroed::<hpa_autoscaler>());
    *storage(&mut probe) = *storage(&mut damaged);
    for (call, (got, want)) in calls(&c, &mut probe, now, replicas, input.load)
        .iter()
        .zip(&expected)
        .enumerate()
    {
        if !matches!(got.0, hpa_status::CorruptState | hpa_status::Uninitialized) {
            assert_eq!(got, want, "call {call} on damaged storage it accepted");
        }
    }

    let mut snapshot = expected[3].1.clone();
    for d in input.snapshot_damage.iter().take(16) {
        damage(&mut snapshot, d, 0..0);
    }
    if let Some(len) = input.snapshot_len {
        snapshot.resize(usize::from(len) % (snapshot.len() + 64), 0);
    }
    if input.reseal {
        testkit::snapshot::reseal(&mut snapshot);
    }
    let before = storage(&mut damaged).to_vec();
    // SAFETY: writable storage of the right size; the snapshot is apart from it.
    let status = unsafe {
        hpa_autoscaler_restore(
            &mut *damaged,
            size_of::<hpa_autoscaler>(),
            snapshot.as_ptr(),
            snapshot.len(),
            input.restore_now_ms,
        )
    };
    if status == hpa_status::Ok {
        let mut st: Box<hpa_scaling_status> = Box::new(zeroed());
        // SAFETY: restored storage; `st` is writable and apart.
        assert_eq!(
            unsafe { hpa_autoscaler_scaling_status(&*damaged, &mut *st) },
            hpa_status::Ok
        );
        let mut buffer = vec![0_u8; HPA_SNAPSHOT_MAX_BYTES];
        let mut written = 0_usize;
        // SAFETY: as above.
        let saved = unsafe {
            hpa_autoscaler_save(
                &*damaged,
                input.restore_now_ms,
                buffer.as_mut_ptr(),
                buffer.len(),
                &mut written,
            )
        };
        assert_eq!(saved, hpa_status::Ok);
        // The annex may differ (a snapshot of the core's `save` has none; the C API writes its
        // messages), the state may not.
        assert_eq!(
            core_save(&buffer[..written], input.restore_now_ms),
            core_save(&snapshot, input.restore_now_ms),
            "restored, the state saves otherwise"
        );
    } else {
        assert_eq!(
            storage(&mut damaged)[..],
            before[..],
            "a refused restore ({status:?}) wrote"
        );
    }
});
