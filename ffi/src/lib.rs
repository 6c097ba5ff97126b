//! # hpa-ffi: the C ABI of the hpa engine
//!
//! A thin layer over the `hpa` core that holds all of the project's `unsafe` code. The C
//! header `include/hpa.h` is generated from this crate by a pinned cbindgen
//! (`ffi/cbindgen.toml`); `ffi/libhpa` links it into `libhpa.a` and `libhpa.so`.
//!
//! Rules the whole API follows (the header repeats them):
//!
//! * **No allocation.** The caller owns the storage of every object: `hpa_autoscaler`
//!   (`HPA_AUTOSCALER_SIZE` bytes), the decision and status structs. An evaluation reads the
//!   observation in place (no workspace). The library keeps no global state.
//! * **Status codes.** Every fallible function returns an `hpa_status` (stable numbers,
//!   `hpa_status_str` for a message) and writes its outputs only on success. NULL or
//!   misaligned pointers, storage that was never initialized, lengths that disagree, unknown
//!   enumeration values, invalid UTF-8, out-of-range numbers and time going backwards are
//!   refused with a status and change nothing.
//! * **Enumerations cross as `uint32_t`**, validated on the way in.
//! * **Borrowed inputs.** Configurations and observations point to the caller's memory,
//!   which must stay valid for the duration of each call and is never kept.
//! * **Threads.** Functions that take an `hpa_autoscaler` must not run concurrently on the
//!   same autoscaler (one per thread, or lock around calls); all other functions are
//!   reentrant.
#![no_std]
#![deny(missing_docs, unsafe_op_in_unsafe_fn)]
#![deny(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::unreachable,
    clippy::todo,
    clippy::unimplemented,
    clippy::float_arithmetic,
    clippy::undocumented_unsafe_blocks,
    clippy::missing_safety_doc
)]
// C naming: the exported types are `hpa_<name>`, as the header spells them.
#![allow(non_camel_case_types)]
// Errors carry their field path and Kubernetes' validation error inline (a few hundred
// bytes): without an allocator they cannot be boxed, and they only travel on the error path.
#![allow(clippy::result_large_err)]
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic,
        clippy::float_arithmetic
    )
)]

#[cfg(test)]
extern crate std;

mod api;
mod autoscaler;
mod config;
mod decision;
mod enums;
mod error;
mod observation;
mod out;
mod quantity;
mod raw;
mod resolve;
mod seal;
mod snapshot;
mod status;
mod stored;
mod text;
mod view;

use core::ffi::CStr;

pub use api::{
    hpa_config_validate, hpa_observation_check, hpa_settings_default, hpa_version,
    hpa_version_number,
};
pub use autoscaler::{
    hpa_autoscaler, hpa_autoscaler_align, hpa_autoscaler_configure, hpa_autoscaler_evaluate,
    hpa_autoscaler_evaluate_configured, hpa_autoscaler_init, hpa_autoscaler_rescale_failed,
    hpa_autoscaler_rescale_succeeded, hpa_autoscaler_restore,
    hpa_autoscaler_restore_scaled_to_zero, hpa_autoscaler_save, hpa_autoscaler_scaling_status,
    hpa_autoscaler_size,
};
pub use config::{
    hpa_behavior, hpa_config, hpa_decimal, hpa_metric, hpa_metric_target, hpa_object_ref,
    hpa_scaling_policy, hpa_scaling_rules, hpa_settings, HPA_SETTING_CONFIGURABLE_TOLERANCE,
    HPA_SETTING_CPU_INITIALIZATION_PERIOD, HPA_SETTING_DOWNSCALE_STABILIZATION_WINDOW,
    HPA_SETTING_INITIAL_READINESS_DELAY, HPA_SETTING_LEGACY_SCALE_UP_MINIMUM,
    HPA_SETTING_SCALE_TO_ZERO, HPA_SETTING_TOLERANCE,
};
pub use decision::{hpa_condition, hpa_decision, hpa_metric_result, hpa_scaling_status};
pub use enums::{
    hpa_arithmetic, hpa_condition_status, hpa_condition_status_str, hpa_condition_type,
    hpa_condition_type_str, hpa_container_kind, hpa_field_error_type, hpa_limited_by,
    hpa_limited_by_str, hpa_metric_outcome, hpa_metric_source_type, hpa_metric_target_type,
    hpa_pod_phase, hpa_policy_type, hpa_quantity_format, hpa_reading, hpa_reading_str, hpa_ready,
    hpa_reason, hpa_reason_str, hpa_rescale_reason, hpa_select_policy, hpa_values_kind,
    HPA_TARGET_FIELD_AVERAGE_UTILIZATION, HPA_TARGET_FIELD_AVERAGE_VALUE, HPA_TARGET_FIELD_VALUE,
};
pub use error::hpa_field_error;
pub use observation::{
    hpa_container, hpa_container_usage, hpa_metric_values, hpa_observation, hpa_pod,
    hpa_resource_request, hpa_sample,
};
pub use quantity::{hpa_milli_from_double, hpa_quantity_parse, hpa_quantity_write};
pub use raw::hpa_str;
pub use resolve::{hpa_config_resolve, hpa_resolved_config, hpa_resolved_rules};
pub use snapshot::hpa_snapshot_check;
pub use status::{hpa_status, hpa_status_name, hpa_status_str};

/// The library's major version (`Cargo.toml`).
pub const HPA_VERSION_MAJOR: u32 = 0;
/// The library's minor version.
pub const HPA_VERSION_MINOR: u32 = 1;
/// The library's patch version.
pub const HPA_VERSION_PATCH: u32 = 0;
/// The version as one number: `(MAJOR << 16) | (MINOR << 8) | PATCH`.
pub const HPA_VERSION_NUMBER: u32 =
    (HPA_VERSION_MAJOR << 16) | (HPA_VERSION_MINOR << 8) | HPA_VERSION_PATCH;
/// The version as text with its NUL, for `hpa_version` (the header's `HPA_VERSION_STRING`,
/// written in `ffi/cbindgen.toml` and tested against Cargo.toml).
const VERSION_CSTR: &CStr = c"0.1.0";

// The version constants (which cbindgen copies into the header as literals) must match
// Cargo.toml: a release that bumps the version without them does not compile.
const _: () = {
    /// Parses a decimal version component at compile time.
    const fn parse_component(s: &str) -> u32 {
        let bytes = s.as_bytes();
        let mut value: u32 = 0;
        let mut i = 0;
        while i < bytes.len() {
            #[allow(clippy::indexing_slicing)]
            let digit = bytes[i];
            value = value * 10 + (digit - b'0') as u32;
            i += 1;
        }
        value
    }

    /// Whether two strings are equal, at compile time.
    const fn str_eq(a: &str, b: &str) -> bool {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        let mut i = 0;
        while i < a.len() {
            #[allow(clippy::indexing_slicing)]
            if a[i] != b[i] {
                return false;
            }
            i += 1;
        }
        true
    }

    assert!(HPA_VERSION_MAJOR == parse_component(env!("CARGO_PKG_VERSION_MAJOR")));
    assert!(HPA_VERSION_MINOR == parse_component(env!("CARGO_PKG_VERSION_MINOR")));
    assert!(HPA_VERSION_PATCH == parse_component(env!("CARGO_PKG_VERSION_PATCH")));
    assert!(str_eq(
        env!("CARGO_PKG_VERSION"),
        match VERSION_CSTR.to_str() {
            Ok(s) => s,
            Err(_) => "",
        }
    ));
};

/// Bytes of an `hpa_autoscaler`. Part of the ABI: it only ever grows, with headroom kept for
/// that (the state takes about 6.3 KiB today: the engine's history rings and status, two
/// condition messages, a kept configuration (3.2 KiB, 2 KiB of it its strings) and the
/// digests of the storage check).
pub const HPA_AUTOSCALER_SIZE: usize = 8192;
/// Alignment of an `hpa_autoscaler`.
pub const HPA_AUTOSCALER_ALIGN: usize = 8;
/// Bytes that always hold a snapshot `hpa_autoscaler_save` writes: every field at its
/// longest, the history rings full and both condition messages at their longest. Real
/// snapshots are much shorter: 29 bytes for a new autoscaler, a few hundred with a history.
pub const HPA_SNAPSHOT_MAX_BYTES: usize = 3094;

/// The most metrics a configuration may list (`hpa_decision.metrics` holds one result each).
pub const HPA_MAX_METRICS: usize = 8;
const _: () = assert!(HPA_MAX_METRICS == hpa::metrics::MAX_METRICS);
/// The most scaling policies per behavior direction this library accepts (Kubernetes sets
/// no limit; real HPAs use one to three).
pub const HPA_MAX_POLICIES: usize = 16;
/// The number of condition types, and the capacity of condition arrays.
pub const HPA_MAX_CONDITIONS: usize = 4;

/// Bytes of every message array (with its NUL); longer messages are cut and end with `...`.
pub const HPA_MESSAGE_CAPACITY: usize = 512;
/// Bytes of every metric-name array (with its NUL).
pub const HPA_NAME_CAPACITY: usize = 256;
/// Bytes of a field-path array (with its NUL).
pub const HPA_FIELD_CAPACITY: usize = 128;
/// Bytes that always hold a quantity's canonical text and its NUL.
pub const HPA_QUANTITY_TEXT_CAPACITY: usize = 32;

/// The window a sample averages over when `hpa_sample.has_window` is 0 (the metrics API's
/// default).
pub const HPA_DEFAULT_SAMPLE_WINDOW_MS: i64 = 60_000;

/// Workspace bytes older versions needed per converted element (see `HPA_WORKSPACE_BYTES`);
/// an evaluation now needs no workspace.
pub const HPA_WORKSPACE_ELEMENT_SIZE: usize = 128;
