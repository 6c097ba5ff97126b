//! `hpa_autoscaler_configure` and `hpa_autoscaler_evaluate_configured`: evaluations under the
//! configuration an autoscaler keeps decide as evaluations passed it, damage to the kept
//! configuration is refused, and a refused configuration changes nothing. (The replays of
//! tests/replay.rs run every other step this way, over every kind of configuration.)

mod world;

use std::ptr;

use hpa_ffi::*;
use testkit::Rng;
use world::{bytes, c_text, decision_fields, new_autoscaler, zeroed, World};

const ROUNDS: i64 = if cfg!(miri) { 3 } else { 300 };

/// Evaluates `w` under the configuration `a` keeps.
fn evaluate_configured(a: &mut hpa_autoscaler, w: &World, d: &mut hpa_decision) -> hpa_status {
    // SAFETY: initialized storage, a valid observation and a writable decision.
    unsafe { hpa_autoscaler_evaluate_configured(a, &w.obs, d) }
}

/// Evaluates `w`, its configuration passed.
fn evaluate(a: &mut hpa_autoscaler, w: &World, d: &mut hpa_decision) -> hpa_status {
    // SAFETY: as above, and a valid configuration.
    unsafe { hpa_autoscaler_evaluate(a, &w.config, &w.obs, ptr::null_mut(), 0, d) }
}

fn configure(a: &mut hpa_autoscaler, config: &hpa_config, e: &mut hpa_field_error) -> hpa_status {
    // SAFETY: initialized storage, a readable configuration, a writable report.
    unsafe { hpa_autoscaler_configure(a, config, e) }
}

/// A world of `pods` pods (from `seed`) and an autoscaler configured with its configuration.
fn configured(seed: u64, pods: usize) -> (Box<World>, Box<hpa_autoscaler>, Box<hpa_field_error>) {
    let w = World::new(pods, &mut Rng::new(seed));
    let mut a = new_autoscaler();
    let mut error: Box<hpa_field_error> = Box::new(zeroed());
    assert_eq!(configure(&mut a, &w.config, &mut error), hpa_status::Ok);
    (w, a, error)
}

#[test]
fn configured_evaluations_decide_as_evaluations_passed_the_configuration() {
    let mut rng = Rng::new(7);
    let (mut kept, mut passed) = (new_autoscaler(), new_autoscaler());
    let (mut d1, mut d2): (Box<hpa_decision>, Box<hpa_decision>) =
        (Box::new(zeroed()), Box::new(zeroed()));
    let mut error: Box<hpa_field_error> = Box::new(zeroed());
    let mut w = World::new(5, &mut rng);
    assert_eq!(configure(&mut kept, &w.config, &mut error), hpa_status::Ok);
    let mut changed = false;
    for round in 0..ROUNDS {
        let n = rng.below(12) as usize;
        let mut next = World::new(n, &mut rng);
        // Now and then another spec: fewer metrics, no behavior, a minimum; and then back.
        if rng.below(8) == 0 {
            changed = true;
            next.config.metrics_len = 1 + rng.below(3) as usize;
            next.obs.metrics_len = next.config.metrics_len;
            if rng.below(2) == 0 {
                next.config.behavior = ptr::null();
            }
            next.config.has_min_replicas = 1;
            next.config.min_replicas = 1 + rng.below(3) as i32;
            assert_eq!(
                configure(&mut kept, &next.config, &mut error),
                hpa_status::Ok
            );
        } else if changed {
            changed = false;
            assert_eq!(
                configure(&mut kept, &next.config, &mut error),
                hpa_status::Ok
            );
        }
        w = next;
        w.obs.now_ms = 60_000 + round * 15_000;
        assert_eq!(evaluate_configured(&mut kept, &w, &mut d1), hpa_status::Ok);
        assert_eq!(evaluate(&mut passed, &w, &mut d2), hpa_status::Ok);
        assert_eq!(decision_fields(&d1), decision_fields(&d2), "round {round}");
        if d1.rescale == 1 {
            // SAFETY: initialized storage.
            unsafe {
                assert_eq!(hpa_autoscaler_rescale_succeeded(&mut *kept), hpa_status::Ok);
                assert_eq!(
                    hpa_autoscaler_rescale_succeeded(&mut *passed),
                    hpa_status::Ok
                );
            }
        }
    }
}

#[test]
fn an_autoscaler_without_a_configuration_is_refused() {
    let mut rng = Rng::new(1);
    let w = World::new(3, &mut rng);
    let mut a = new_autoscaler();
    let mut d: Box<hpa_decision> = Box::new(zeroed());
    let before = decision_fields(&d);
    assert_eq!(
        evaluate_configured(&mut a, &w, &mut d),
        hpa_status::NotConfigured
    );
    assert_eq!(decision_fields(&d), before);
    // A snapshot holds no configuration: the restored autoscaler needs one again.
    let mut error: Box<hpa_field_error> = Box::new(zeroed());
    assert_eq!(configure(&mut a, &w.config, &mut error), hpa_status::Ok);
    assert_eq!(evaluate_configured(&mut a, &w, &mut d), hpa_status::Ok);
    let mut buffer = vec![0u8; HPA_SNAPSHOT_MAX_BYTES];
    let mut len = 0;
    // SAFETY: initialized storage, a buffer of its length, writable outputs.
    unsafe {
        assert_eq!(
            hpa_autoscaler_save(&*a, 60_000, buffer.as_mut_ptr(), buffer.len(), &mut len),
            hpa_status::Ok
        );
        assert_eq!(
            hpa_autoscaler_restore(&mut *a, HPA_AUTOSCALER_SIZE, buffer.as_ptr(), len, 60_000),
            hpa_status::Ok
        );
    }
    assert_eq!(
        evaluate_configured(&mut a, &w, &mut d),
        hpa_status::NotConfigured
    );
}

#[test]
fn a_refused_configuration_changes_nothing() {
    let (mut w, mut a, mut error) = configured(2, 3);
    let state = bytes(&*a);
    // Invalid: Kubernetes' message, the kept configuration unchanged.
    w.config.max_replicas = 0;
    assert_eq!(
        configure(&mut a, &w.config, &mut error),
        hpa_status::InvalidSpec
    );
    assert_eq!(error.status, hpa_status::InvalidSpec as u32);
    assert_eq!(bytes(&*a), state);
    w.config.max_replicas = 30;
    // Strings beyond what the autoscaler holds.
    let long = "m".repeat(3000);
    w.metrics[1].name = hpa_str {
        ptr: long.as_ptr().cast(),
        len: long.len(),
    };
    assert_eq!(
        configure(&mut a, &w.config, &mut error),
        hpa_status::TooLarge
    );
    assert_eq!(bytes(&*a), state);
    // A configuration inside the autoscaler's storage (past the state, zeroed).
    let storage: *mut hpa_autoscaler = &mut *a;
    let inside = storage.cast::<u8>().wrapping_add(8000).cast::<hpa_config>();
    // SAFETY: initialized storage; the configuration's bytes are readable, inside it.
    let status = unsafe { hpa_autoscaler_configure(storage, inside, ptr::null_mut()) };
    assert_eq!(status, hpa_status::Overlap);
    assert_eq!(bytes(&*a), state);
    // An error output inside the autoscaler, for an invalid configuration: refused, and the
    // error not written over the state.
    w.config.max_replicas = 0;
    let error_inside = storage
        .cast::<u8>()
        .wrapping_add(64)
        .cast::<hpa_field_error>();
    // SAFETY: initialized storage; the error output is writable memory (inside it).
    let status = unsafe { hpa_autoscaler_configure(storage, &w.config, error_inside) };
    assert_eq!(status, hpa_status::Overlap);
    assert_eq!(bytes(&*a), state);
    w.config.max_replicas = 30;
    // NULLs.
    // SAFETY: NULL pointers are refused before anything is read.
    unsafe {
        assert_eq!(
            hpa_autoscaler_configure(&mut *a, ptr::null(), ptr::null_mut()),
            hpa_status::NullPointer
        );
        assert_eq!(
            hpa_autoscaler_configure(ptr::null_mut(), &w.config, ptr::null_mut()),
            hpa_status::NullPointer
        );
    }
    assert_eq!(bytes(&*a), state);
}

/// Any single damaged byte of a configured autoscaler's storage is refused
/// (`HPA_STATUS_CORRUPT_STATE`, or `HPA_STATUS_UNINITIALIZED` on the marker), or, where it hit
/// bytes not in use, changes no decision.
#[test]
fn damage_to_a_configured_autoscaler_is_refused() {
    let (mut w, mut a, _) = configured(3, 4);
    let mut d: Box<hpa_decision> = Box::new(zeroed());
    for step in 0..20 {
        w.obs.now_ms = 60_000 + step * 15_000;
        assert_eq!(evaluate_configured(&mut a, &w, &mut d), hpa_status::Ok);
        if d.rescale == 1 {
            // SAFETY: initialized storage.
            assert_eq!(
                unsafe { hpa_autoscaler_rescale_succeeded(&mut *a) },
                hpa_status::Ok
            );
        }
    }
    w.obs.now_ms += 15_000;
    let mut reference = Box::new(zeroed::<hpa_autoscaler>());
    // SAFETY: two distinct storages.
    unsafe { ptr::copy_nonoverlapping(&*a, &mut *reference, 1) };
    assert_eq!(
        evaluate_configured(&mut reference, &w, &mut d),
        hpa_status::Ok
    );
    let expected = decision_fields(&d);
    let (mut refused, mut unused) = (0, 0);
    let stride = if cfg!(miri) { 97 } else { 1 };
    for offset in (0..HPA_AUTOSCALER_SIZE).step_by(stride) {
        let mut damaged = Box::new(zeroed::<hpa_autoscaler>());
        // SAFETY: two distinct storages; the offset is inside the copy.
        unsafe {
            ptr::copy_nonoverlapping(&*a, &mut *damaged, 1);
            *(&mut *damaged as *mut hpa_autoscaler)
                .cast::<u8>()
                .add(offset) ^= 0x24;
        }
        match evaluate_configured(&mut damaged, &w, &mut d) {
            hpa_status::CorruptState | hpa_status::Uninitialized => refused += 1,
            hpa_status::Ok => {
                assert_eq!(decision_fields(&d), expected, "byte {offset}");
                unused += 1;
            }
            other => panic!("byte {offset}: {other:?}"),
        }
    }
    println!("{refused} damaged bytes refused, {unused} not in use");
    assert!(refused > 0);
}

/// `text` as an array of `capacity` bytes holds it: whole when it fits with its NUL, else cut
/// at a character boundary to leave room for `...`.
fn cut(text: &str, capacity: usize) -> String {
    if text.len() < capacity {
        return text.to_string();
    }
    let mut end = capacity - 1 - 3;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &text[..end])
}

#[test]
fn metric_names_of_any_length_are_written_whole_or_cut_in_every_text() {
    // The name goes into the metric's result, the rescale reason and the ScalingActive
    // message, each cut to its own array: short names are formatted once and copied, names
    // longer than a message are formatted into each text.
    let lens: &[usize] = if cfg!(miri) {
        &[1, 300, 600]
    } else {
        &[
            1, 200, 238, 239, 240, 255, 256, 300, 420, 421, 422, 490, 511, 512, 600, 1500,
        ]
    };
    for &len in lens {
        for letter in ["q", "\u{e9}"] {
            let metric: String = letter.repeat((len / letter.len()).max(1));
            let mut w = World::new(3, &mut Rng::new(len as u64));
            // The External metric alone, far above its target: it scales up.
            w.metrics.swap(0, 2);
            w.values.swap(0, 2);
            w.metrics[0].name = hpa_str {
                ptr: metric.as_ptr().cast(),
                len: metric.len(),
            };
            w.config.metrics_len = 1;
            w.obs.metrics_len = 1;
            let name = format!("external metric {metric}(<nil>)");
            let mut a = new_autoscaler();
            let mut error: Box<hpa_field_error> = Box::new(zeroed());
            let status = configure(&mut a, &w.config, &mut error);
            assert_eq!(status, hpa_status::Ok, "{len} {}", c_text(&error.message));
            let mut passed = new_autoscaler();
            for kept in [true, false] {
                let mut d: Box<hpa_decision> = Box::new(zeroed());
                let status = if kept {
                    evaluate_configured(&mut a, &w, &mut d)
                } else {
                    evaluate(&mut passed, &w, &mut d)
                };
                assert_eq!(status, hpa_status::Ok, "{len}");
                assert_eq!(d.rescale_reason, hpa_rescale_reason::AboveTarget as u32);
                assert_eq!(
                    c_text(&d.reason),
                    cut(&format!("{name} above target"), HPA_MESSAGE_CAPACITY),
                    "{len} {letter}"
                );
                assert_eq!(
                    c_text(&d.metrics[0].name),
                    cut(&name, HPA_NAME_CAPACITY),
                    "{len} {letter}"
                );
                let active = &d.conditions[1];
                assert_eq!(active.r#type, hpa_condition_type::ScalingActive as u32);
                assert_eq!(
                    c_text(&active.message),
                    cut(
                        &format!(
                            "the HPA was able to successfully calculate a replica count from \
                             {name}"
                        ),
                        HPA_MESSAGE_CAPACITY
                    ),
                    "{len} {letter}"
                );
            }
        }
    }
}

#[test]
fn names_kept_or_not_for_want_of_room_read_the_same() {
    // `hpa_autoscaler_configure` keeps each metric's name for the messages after the
    // configuration's strings, where it fits: a first name that fits, then one the strings
    // before it leave no room for, then one longer than a message.
    for (first, second) in [(10, 20), (480, 1400), (480, 300), (30, 1000)] {
        let queue = "q".repeat(first);
        let qps = "p".repeat(second);
        let mut w = World::new(4, &mut Rng::new(first as u64));
        w.metrics.swap(0, 2);
        w.values.swap(0, 2);
        w.metrics[0].name = hpa_str {
            ptr: queue.as_ptr().cast(),
            len: queue.len(),
        };
        w.metrics[1].name = hpa_str {
            ptr: qps.as_ptr().cast(),
            len: qps.len(),
        };
        w.config.metrics_len = 2;
        w.obs.metrics_len = 2;
        let mut a = new_autoscaler();
        let mut error: Box<hpa_field_error> = Box::new(zeroed());
        assert_eq!(configure(&mut a, &w.config, &mut error), hpa_status::Ok);
        let mut passed = new_autoscaler();
        for step in 0..3 {
            w.obs.now_ms = 60_000 + 15_000 * step;
            w.series[0] = 40_000 + 30_000 * step;
            let (mut d1, mut d2): (Box<hpa_decision>, Box<hpa_decision>) =
                (Box::new(zeroed()), Box::new(zeroed()));
            assert_eq!(evaluate_configured(&mut a, &w, &mut d1), hpa_status::Ok);
            assert_eq!(evaluate(&mut passed, &w, &mut d2), hpa_status::Ok);
            assert_eq!(
                decision_fields(&d1),
                decision_fields(&d2),
                "{first} {second}"
            );
            assert_eq!(d1.metrics_len, 2);
            assert!(c_text(&d1.metrics[0].name).starts_with("external metric qqq"));
            assert!(c_text(&d1.metrics[1].name).starts_with("pods metric ppp"));
        }
    }
}
