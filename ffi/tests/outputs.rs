//! Every byte the library writes into caller storage is initialized: each output struct and
//! buffer is filled twice, once with zeros and once with `0xA5`, before the call, and both
//! results must be equal byte for byte (a byte the call left alone keeps the fill). Under Miri
//! the same reads also fail on any byte the call wrote uninitialized (padding copied from a
//! Rust value): the C caller would see stack garbage there, and a saved copy would vary.
//! Decisions and statuses are written in place, only what a caller reads (each text up to its
//! NUL, the entries up to their counts; docs/c-api.md#decisions): there, what a caller reads
//! must be equal over either fill, and Miri still reads every byte.
//! The autoscaler's own storage starts uninitialized: the library reads only what it wrote.

mod world;

use std::mem::{size_of, MaybeUninit};
use std::ptr;

use hpa_ffi::*;
use testkit::Rng;
use world::{decision_fields, s, status_fields, World};

/// `T`'s storage filled with `fill`, then written by `call`; its bytes after the call, and
/// what `read` takes from it.
fn written_read<T, R>(
    fill: u8,
    call: &mut impl FnMut(*mut T) -> hpa_status,
    read: impl Fn(&T) -> R,
) -> (hpa_status, Vec<u8>, R) {
    let mut out = MaybeUninit::<T>::uninit();
    // SAFETY: `size_of::<T>()` writable bytes.
    unsafe { ptr::write_bytes(out.as_mut_ptr().cast::<u8>(), fill, size_of::<T>()) };
    let status = call(out.as_mut_ptr());
    // SAFETY: every byte was filled above; Miri reports the ones `call` left uninitialized.
    let bytes = unsafe { std::slice::from_raw_parts(out.as_ptr().cast::<u8>(), size_of::<T>()) };
    // SAFETY: every byte is initialized (filled, then written), and the output structs are
    // integers and arrays of them: any bytes are a value.
    let value = read(unsafe { &*out.as_ptr() });
    (status, bytes.to_vec(), value)
}

/// [`written_read`] without the reading.
fn written<T>(fill: u8, call: &mut impl FnMut(*mut T) -> hpa_status) -> (hpa_status, Vec<u8>) {
    let (status, bytes, ()) = written_read(fill, call, |_| ());
    (status, bytes)
}

/// Asserts that `call` returns `expected` and writes what `read` takes alike over either
/// fill (an output written in place: the rest keeps the fill).
fn written_alike<T>(
    name: &str,
    expected: hpa_status,
    read: impl Fn(&T) -> Vec<i64>,
    mut call: impl FnMut(*mut T) -> hpa_status,
) {
    let (status, _, zeros) = written_read(0x00, &mut call, &read);
    assert_eq!(status, expected, "{name}");
    let (status, _, pattern) = written_read(0xA5, &mut call, &read);
    assert_eq!(status, expected, "{name}");
    assert_eq!(
        zeros, pattern,
        "{name}: what a caller reads differs with the fill"
    );
}

/// Asserts that `call` returns `expected` and writes the same bytes over either fill.
fn fully_written<T>(name: &str, expected: hpa_status, mut call: impl FnMut(*mut T) -> hpa_status) {
    let (status, zeros) = written(0x00, &mut call);
    assert_eq!(status, expected, "{name}");
    let (status, pattern) = written(0xA5, &mut call);
    assert_eq!(status, expected, "{name}");
    let left: Vec<usize> = (0..zeros.len())
        .filter(|&i| zeros[i] != pattern[i])
        .collect();
    assert!(left.is_empty(), "{name}: bytes {left:?} not written");
}

#[test]
fn every_output_is_written_in_full() {
    let mut rng = Rng::new(7);
    let mut w = World::new(4, &mut rng);
    let mut storage = Box::new(MaybeUninit::<hpa_autoscaler>::uninit());
    let a = storage.as_mut_ptr();
    let mut workspace = vec![0u8; 1 << 14];
    // SAFETY (whole test): every pointer points to live storage of the size its call expects;
    // the autoscaler's storage is uninitialized until `hpa_autoscaler_init` writes it.
    unsafe {
        assert_eq!(
            hpa_autoscaler_init(a, size_of::<hpa_autoscaler>()),
            hpa_status::Ok
        );
        // Two evaluations, a rescale between them: conditions, messages and metrics filled.
        for now in [60_000, 75_000] {
            w.obs.now_ms = now;
            let ws = workspace.as_mut_ptr().cast();
            let ws_len = workspace.len();
            written_alike(
                "hpa_autoscaler_evaluate",
                hpa_status::Ok,
                decision_fields,
                |out| hpa_autoscaler_evaluate(a, &w.config, &w.obs, ws, ws_len, out),
            );
            // The evaluation just written replaces the pending rescale, as before.
            let _ = hpa_autoscaler_rescale_succeeded(a);
        }
        written_alike(
            "hpa_autoscaler_scaling_status",
            hpa_status::Ok,
            status_fields,
            |out| hpa_autoscaler_scaling_status(a, out),
        );
        let mut snapshot = [0u8; HPA_SNAPSHOT_MAX_BYTES];
        let mut len = 0;
        fully_written("hpa_autoscaler_save written", hpa_status::Ok, |out| {
            hpa_autoscaler_save(a, 75_000, snapshot.as_mut_ptr(), snapshot.len(), out)
        });
        // The snapshot's bytes, up to the length written.
        assert_eq!(
            hpa_autoscaler_save(a, 75_000, snapshot.as_mut_ptr(), snapshot.len(), &mut len),
            hpa_status::Ok
        );
        let saved = snapshot[..len].to_vec();
        let mut buffer = [0u8; HPA_SNAPSHOT_MAX_BYTES];
        fully_written::<[u8; HPA_SNAPSHOT_MAX_BYTES]>(
            "hpa_autoscaler_save",
            hpa_status::Ok,
            |out| {
                let mut n = 0;
                let status = hpa_autoscaler_save(a, 75_000, out.cast(), len, &mut n);
                // Beyond `len` the caller's bytes stay: make them equal for the comparison.
                ptr::write_bytes(out.cast::<u8>().add(len), 0, HPA_SNAPSHOT_MAX_BYTES - len);
                status
            },
        );
        // A restore into other uninitialized storage decides as the original.
        let mut other = Box::new(MaybeUninit::<hpa_autoscaler>::uninit());
        let b = other.as_mut_ptr();
        assert_eq!(
            hpa_autoscaler_restore(b, size_of::<hpa_autoscaler>(), saved.as_ptr(), len, 75_000),
            hpa_status::Ok
        );
        assert_eq!(
            hpa_autoscaler_save(b, 75_000, buffer.as_mut_ptr(), buffer.len(), &mut len),
            hpa_status::Ok
        );
        assert_eq!(buffer[..len], saved[..]);
        fully_written("hpa_snapshot_check", hpa_status::InvalidSnapshot, |out| {
            hpa_snapshot_check(saved.as_ptr(), 3, 75_000, out)
        });

        fully_written("hpa_settings_default", hpa_status::Ok, |out| {
            hpa_settings_default(out)
        });
        fully_written("hpa_config_resolve", hpa_status::Ok, |out| {
            hpa_config_resolve(&w.config, out, ptr::null_mut())
        });
        fully_written("hpa_observation_check size", hpa_status::Ok, |out| {
            hpa_observation_check(&w.config, &w.obs, out, ptr::null_mut())
        });
        w.config.max_replicas = 0;
        fully_written("hpa_config_validate", hpa_status::InvalidSpec, |out| {
            hpa_config_validate(&w.config, out)
        });
        fully_written("hpa_config_resolve error", hpa_status::InvalidSpec, |out| {
            let mut resolved = MaybeUninit::<hpa_resolved_config>::uninit();
            hpa_config_resolve(&w.config, resolved.as_mut_ptr(), out)
        });
        w.config.max_replicas = 30;
        w.obs.replicas = -1;
        fully_written(
            "hpa_observation_check error",
            hpa_status::OutOfRange,
            |out| {
                let mut size = 0;
                hpa_observation_check(&w.config, &w.obs, &mut size, out)
            },
        );

        let text = s("1.5Gi");
        fully_written("hpa_quantity_parse", hpa_status::Ok, |out| {
            hpa_quantity_parse(text.ptr, text.len, out)
        });
        let mut text_out = [0 as std::ffi::c_char; HPA_QUANTITY_TEXT_CAPACITY];
        fully_written("hpa_quantity_write len", hpa_status::Ok, |out| {
            hpa_quantity_write(
                1_500,
                hpa_quantity_format::DecimalSi as u32,
                text_out.as_mut_ptr(),
                text_out.len(),
                out,
            )
        });
        fully_written("hpa_milli_from_double", hpa_status::Ok, |out| {
            hpa_milli_from_double(0.25, out)
        });
    }
}
