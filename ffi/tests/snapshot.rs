//! Snapshots through the `extern "C"` functions, from Rust (tests/c/snapshot_test.c does it
//! from C, with every damaged byte): random runs saved and restored at random points, on
//! clocks that restarted, ran on or jumped ahead, decide as runs that were never interrupted;
//! the core's snapshots restore, and what this library's autoscaler cannot hold is refused and
//! changes nothing; the longest messages fit `HPA_SNAPSHOT_MAX_BYTES`.

mod world;

use std::mem::size_of;
use std::ptr;

use hpa::snapshot::{RestoreError, Snapshot};
use hpa::{Autoscaler, Instant};
use hpa_ffi::*;
use testkit::Rng;
use world::{bytes, decision_fields, new_autoscaler, status_fields, zeroed, World};

fn save(a: &hpa_autoscaler, now: i64) -> Vec<u8> {
    let mut buf = vec![0; HPA_SNAPSHOT_MAX_BYTES];
    let mut len = 0;
    // SAFETY: an initialized autoscaler, a buffer of the length passed.
    let status = unsafe { hpa_autoscaler_save(a, now, buf.as_mut_ptr(), buf.len(), &mut len) };
    assert_eq!(status, hpa_status::Ok);
    buf.truncate(len);
    buf
}

fn restore(a: &mut hpa_autoscaler, snapshot: &[u8], now: i64) -> hpa_status {
    // SAFETY: writable storage of the right size, a snapshot of the length passed.
    unsafe {
        hpa_autoscaler_restore(
            a,
            size_of::<hpa_autoscaler>(),
            snapshot.as_ptr(),
            snapshot.len(),
            now,
        )
    }
}

fn evaluate(a: &mut hpa_autoscaler, w: &World, decision: &mut hpa_decision) -> hpa_status {
    let mut workspace = vec![0u8; 1 << 16];
    // SAFETY: the world's pointers are live and as long as its lengths say.
    unsafe {
        hpa_autoscaler_evaluate(
            a,
            &w.config,
            &w.obs,
            workspace.as_mut_ptr().cast(),
            workspace.len(),
            decision,
        )
    }
}

fn scaling_status(a: &hpa_autoscaler) -> Box<hpa_scaling_status> {
    let mut st: Box<hpa_scaling_status> = Box::new(zeroed());
    // SAFETY: an initialized autoscaler, a writable status.
    assert_eq!(
        unsafe { hpa_autoscaler_scaling_status(a, &mut *st) },
        hpa_status::Ok
    );
    st
}

/// A restart of `b` at a random instant before its next evaluation, restored on a random
/// clock; returns the clock's shift.
fn restart(b: &mut hpa_autoscaler, last: i64, rng: &mut Rng) -> i64 {
    let at = last + rng.below(15_000) as i64;
    let snapshot = save(b, at);
    let now = match rng.below(4) {
        0 => at,
        1 => rng.below(100_000) as i64,
        2 => at + rng.below(1 << 40) as i64,
        _ => -(rng.below(1 << 40) as i64),
    };
    let mut restored = Box::new(hpa_autoscaler {
        _bytes: [0xA5; HPA_AUTOSCALER_SIZE],
    });
    assert_eq!(restore(&mut restored, &snapshot, now), hpa_status::Ok);
    assert_eq!(
        save(&restored, now),
        snapshot,
        "saved again: the same bytes"
    );
    std::mem::swap(b, &mut restored);
    now - at
}

#[test]
fn random_runs_restored_at_random_points_decide_as_uninterrupted() {
    let mut rng = Rng::new(0x5EED_5A4E);
    let (mut decisions, mut restores, mut failures) = (0, 0, 0);
    // Under Miri, which interprets every call, one short run (docs/testing.md#miri).
    let (runs, steps) = if cfg!(miri) { (1, 3) } else { (12, 120) };
    for _run in 0..runs {
        let mut a = new_autoscaler();
        let mut b = new_autoscaler();
        let mut da: Box<hpa_decision> = Box::new(zeroed());
        let mut db: Box<hpa_decision> = Box::new(zeroed());
        let (mut t, mut shift) = (0_i64, 0_i64);
        for _step in 0..steps {
            t += 15_000 + rng.below(30_000) as i64;
            let mut w = World::new(rng.below(12) as usize, &mut rng);
            w.obs.now_ms = t;
            assert_eq!(evaluate(&mut a, &w, &mut da), hpa_status::Ok);
            w.obs.now_ms = t + shift;
            assert_eq!(evaluate(&mut b, &w, &mut db), hpa_status::Ok);
            assert_eq!(db.at_ms, da.at_ms + shift);
            db.at_ms = da.at_ms;
            assert_eq!(
                decision_fields(&db),
                decision_fields(&da),
                "decisions differ at {t}"
            );
            assert_eq!(
                da.history_overflowed, 0,
                "exact only while nothing is folded"
            );
            decisions += 1;
            if rng.below(8) == 0 {
                shift += restart(&mut b, t + shift, &mut rng);
                restores += 1;
            }
            if da.rescale == 1 {
                // Applied, failed with a message, or left unreported.
                match rng.below(5) {
                    0 => {
                        let text =
                            ["quota exceeded", "délai dépassé", "nope"][rng.below(3) as usize];
                        for x in [&mut a, &mut b] {
                            // SAFETY: an initialized autoscaler, a live text.
                            let st = unsafe {
                                hpa_autoscaler_rescale_failed(
                                    &mut **x,
                                    text.as_ptr().cast(),
                                    text.len(),
                                )
                            };
                            assert_eq!(st, hpa_status::Ok);
                        }
                        failures += 1;
                    }
                    1 => {}
                    _ => {
                        for x in [&mut a, &mut b] {
                            // SAFETY: an initialized autoscaler.
                            let st = unsafe { hpa_autoscaler_rescale_succeeded(&mut **x) };
                            assert_eq!(st, hpa_status::Ok);
                        }
                    }
                }
            }
            let (sa, mut sb) = (scaling_status(&a), scaling_status(&b));
            if sa.has_last_scale_time == 1 {
                assert_eq!(sb.last_scale_time_ms, sa.last_scale_time_ms + shift);
                sb.last_scale_time_ms = sa.last_scale_time_ms;
            }
            assert_eq!(
                status_fields(&sb),
                status_fields(&sa),
                "statuses differ at {t}"
            );
        }
    }
    println!("{decisions} decisions, {restores} restores, {failures} failed rescales");
    // The full size exercises both often; Miri's one short run only some.
    assert!(cfg!(miri) || restores > 100 && failures > 20);
}

#[test]
fn core_snapshots_restore() {
    // Every committed format version of the core, whose annex is empty: no messages.
    let v1 = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/snapshots/v1.bin"),
    )
    .unwrap();
    assert_eq!(Snapshot::parse(&v1).unwrap().annex(), b"");
    let mut a = new_autoscaler();
    assert_eq!(restore(&mut a, &v1, 0), hpa_status::Ok);
    let mut core: Autoscaler = Autoscaler::new();
    core.restore(&v1, Instant(0)).unwrap();
    let mut expected = vec![0; HPA_SNAPSHOT_MAX_BYTES];
    let len = core
        .save_with_annex(Instant(0), &[1, 0, 0, 0, 0], &mut expected)
        .unwrap();
    assert_eq!(save(&a, 0), expected[..len]);
}

#[test]
#[cfg_attr(
    miri,
    ignore = "minutes under Miri: a history larger than the rings (250 entries; .ci/miri --all)"
)]
fn what_does_not_fit_is_refused() {
    let mut a = new_autoscaler();
    // A history longer than this library's rings: valid, but it does not fit.
    let mut big: Autoscaler<4096, 608> = Autoscaler::new();
    // Under Miri (minutes for a few hundred entries) 250: still more than the rings' 1,000
    // bytes hold.
    let recommendations: Vec<(i32, Instant)> = (0..if cfg!(miri) { 250 } else { 600 })
        .map(|i| (1 + (i * 7919) % 1000, Instant(i64::from(i) * 5_000)))
        .collect();
    big.load_history(true, &recommendations, &[], &[]).unwrap();
    let mut snapshot = vec![0; 8192];
    let len = big.save(Instant(3_000_000), &mut snapshot).unwrap();
    snapshot.truncate(len);
    let before = bytes(&*a);
    assert_eq!(restore(&mut a, &snapshot, 0), hpa_status::TooLarge);
    assert_eq!(bytes(&*a), before);
    let mut error: Box<hpa_field_error> = Box::new(zeroed());
    // SAFETY: a live snapshot, a writable report.
    let status = unsafe { hpa_snapshot_check(snapshot.as_ptr(), len, 0, &mut *error) };
    assert_eq!(status, hpa_status::TooLarge);
    let message = world::c_text(&error.message);
    assert!(
        message.starts_with("snapshot: the snapshot's recommendations take "),
        "{message}"
    );
    let mut core: Autoscaler = Autoscaler::new();
    assert!(matches!(
        core.restore(&snapshot, Instant(0)),
        Err(RestoreError::DoesNotFit { .. })
    ));
}

#[test]
fn the_longest_messages_fit_the_bound() {
    let mut rng = Rng::new(7);
    // Owned, not leaked: Miri reports leaks.
    let long = "x".repeat(700);
    let long_str = hpa_str {
        ptr: long.as_ptr().cast(),
        len: long.len(),
    };
    let mut w = World::new(4, &mut rng);
    // Every metric fails with a long error: ScalingActive says so, cut to its array.
    for v in &mut w.values[..3] {
        v.kind = hpa_values_kind::Error as u32;
        v.error = long_str;
    }
    let mut a = new_autoscaler();
    let mut d: Box<hpa_decision> = Box::new(zeroed());
    assert_eq!(evaluate(&mut a, &w, &mut d), hpa_status::Ok);
    // Above maxReplicas: a rescale without evaluating the metrics, which fails with a long
    // message.
    w.obs.now_ms += 15_000;
    w.obs.replicas = w.config.max_replicas + 1;
    assert_eq!(evaluate(&mut a, &w, &mut d), hpa_status::Ok);
    assert_eq!(d.rescale, 1);
    // SAFETY: an initialized autoscaler, a live text.
    let st = unsafe { hpa_autoscaler_rescale_failed(&mut *a, long.as_ptr().cast(), long.len()) };
    assert_eq!(st, hpa_status::Ok);
    let t = w.obs.now_ms;
    let snapshot = save(&a, t);
    let annex = Snapshot::parse(&snapshot).unwrap().annex().to_vec();
    assert_eq!(
        annex.len(),
        1 + 2 * (2 + HPA_MESSAGE_CAPACITY - 1),
        "both messages full"
    );
    assert!(snapshot.len() <= HPA_SNAPSHOT_MAX_BYTES);
    // The messages come back: the same status.
    let mut b = new_autoscaler();
    assert_eq!(restore(&mut b, &snapshot, t), hpa_status::Ok);
    assert_eq!(
        status_fields(&scaling_status(&b)),
        status_fields(&scaling_status(&a))
    );
    // SAFETY: NULL outputs are refused before anything is read.
    let status = unsafe { hpa_autoscaler_save(&*a, t, ptr::null_mut(), 0, ptr::null_mut()) };
    assert_eq!(status, hpa_status::NullPointer);
}
