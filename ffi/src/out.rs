//! Writing what C reads back, each output in the way that suits it:
//!
//! * a plain value without padding (a size, a milli-value): [`write_value`];
//! * a small struct with padding (`hpa_settings`, `hpa_resolved_config` and what they hold):
//!   [`write_padded`], over zeroed storage, field by field ([`Fields`]). Writing the whole
//!   struct as one value would be a typed copy, which leaves the padding bytes uninitialized:
//!   the C caller would find stack garbage there, and a byte-wise copy or comparison of the
//!   struct would read it;
//! * a decision or a status: in place, member by member ([`field!`], [`uninit`],
//!   [`elements`]), only what the caller reads (the texts up to their NUL, the entries up to
//!   their count), without clearing it first. A decision is about 10 KB of which an evaluation
//!   uses a few hundred bytes; clearing all of it cost more than the evaluation itself. The
//!   caller's memory need not be initialized (a C local), so it is never viewed as a value of
//!   its type: fields are projected from raw pointers as `MaybeUninit`.
//!
//! ffi/tests/outputs.rs checks every output: over two different fills, the bytes written (the
//! first two ways) or what a caller reads (the third) must be equal.

use core::mem::MaybeUninit;

use crate::config::{hpa_decimal, hpa_settings};
use crate::error::Fault;
use crate::raw;
use crate::resolve::{hpa_resolved_config, hpa_resolved_rules};

/// Writes `value`, a type without padding, through `out` after checking the pointer.
///
/// # Safety
///
/// `out` must be NULL or valid for a write of `T`.
pub(crate) unsafe fn write_value<T>(out: *mut T, value: T) -> Result<(), Fault> {
    // SAFETY: checks NULL and alignment; the caller's contract for validity.
    unsafe { raw::reference(out.cast_const()) }?;
    // SAFETY: not NULL, aligned, valid by the caller's contract.
    unsafe { out.write(value) };
    Ok(())
}

/// Memory at `p` as a value to write, which need not be initialized yet.
///
/// # Safety
///
/// `p` must be aligned, valid for writes for `'a`, and not used otherwise during `'a`.
pub(crate) unsafe fn uninit<'a, T>(p: *mut T) -> &'a mut MaybeUninit<T> {
    // SAFETY: `MaybeUninit<T>` has `T`'s layout; the rest is the caller's contract.
    unsafe { &mut *p.cast::<MaybeUninit<T>>() }
}

/// The elements of an array being written.
pub(crate) fn elements<T, const N: usize>(
    array: &mut MaybeUninit<[T; N]>,
) -> &mut [MaybeUninit<T>; N] {
    // SAFETY: `[MaybeUninit<T>; N]` has the layout of `MaybeUninit<[T; N]>`, and borrows it.
    unsafe { &mut *array.as_mut_ptr().cast::<[MaybeUninit<T>; N]>() }
}

/// The field `$field` of the output struct `$p: *mut S` points to, as `&mut MaybeUninit<F>`.
/// Fields are projected from one raw pointer, not from a reference to the whole struct, so
/// that references to different fields may be used together.
macro_rules! field {
    ($p:expr, $field:ident) => {{
        let p = $p;
        // SAFETY: `p` points to an output struct the call may write (aligned, writable, used
        // by nothing else meanwhile): its field is too, and apart from the other fields.
        unsafe { $crate::out::uninit(&raw mut (*p).$field) }
    }};
}
pub(crate) use field;

/// A struct that copies itself field by field (each impl destructures `self`, so a new field
/// does not compile until it is copied too).
pub(crate) trait Fields {
    /// Copies every field of `self` into `out`, leaving `out`'s padding as it was.
    fn store(&self, out: &mut Self);
}

/// Writes `value` through `out` after checking the pointer, every byte initialized (padding
/// zero).
///
/// # Safety
///
/// `out` must be NULL or valid for a write of `T`, and all-zero bytes must be a valid `T`.
pub(crate) unsafe fn write_padded<T: Fields>(out: *mut T, value: &T) -> Result<(), Fault> {
    // SAFETY: checks NULL and alignment; the caller's contract for validity.
    unsafe { raw::reference(out.cast_const()) }?;
    // SAFETY: not NULL, aligned, valid for writes by the caller's contract; zero bytes are a
    // `T` by the caller's contract.
    let out = unsafe {
        core::ptr::write_bytes(out, 0, 1);
        &mut *out
    };
    value.store(out);
    Ok(())
}

impl Fields for hpa_decimal {
    fn store(&self, out: &mut Self) {
        let hpa_decimal { mantissa, exponent } = *self;
        out.mantissa = mantissa;
        out.exponent = exponent;
    }
}

impl Fields for hpa_settings {
    fn store(&self, out: &mut Self) {
        let hpa_settings {
            tolerance,
            downscale_stabilization_window_ms,
            cpu_initialization_period_ms,
            initial_readiness_delay_ms,
            scale_to_zero,
            configurable_tolerance,
            arithmetic,
            legacy_scale_up_factor,
            legacy_scale_up_minimum,
            explicit_zeros,
        } = self;
        tolerance.store(&mut out.tolerance);
        out.downscale_stabilization_window_ms = *downscale_stabilization_window_ms;
        out.cpu_initialization_period_ms = *cpu_initialization_period_ms;
        out.initial_readiness_delay_ms = *initial_readiness_delay_ms;
        out.scale_to_zero = *scale_to_zero;
        out.configurable_tolerance = *configurable_tolerance;
        out.arithmetic = *arithmetic;
        out.legacy_scale_up_factor = *legacy_scale_up_factor;
        out.legacy_scale_up_minimum = *legacy_scale_up_minimum;
        out.explicit_zeros = *explicit_zeros;
    }
}

impl Fields for hpa_resolved_rules {
    fn store(&self, out: &mut Self) {
        let hpa_resolved_rules {
            stabilization_window_seconds,
            select_policy,
            tolerance,
            policies_len,
            policies,
        } = self;
        out.stabilization_window_seconds = *stabilization_window_seconds;
        out.select_policy = *select_policy;
        tolerance.store(&mut out.tolerance);
        out.policies_len = *policies_len;
        // `hpa_scaling_policy` has no padding: the array copies whole.
        out.policies = *policies;
    }
}

impl Fields for hpa_resolved_config {
    fn store(&self, out: &mut Self) {
        let hpa_resolved_config {
            min_replicas,
            max_replicas,
            metrics_len,
            default_metric,
            has_behavior,
            scale_up,
            scale_down,
            settings,
        } = self;
        out.min_replicas = *min_replicas;
        out.max_replicas = *max_replicas;
        out.metrics_len = *metrics_len;
        out.default_metric = *default_metric;
        out.has_behavior = *has_behavior;
        scale_up.store(&mut out.scale_up);
        scale_down.store(&mut out.scale_down);
        settings.store(&mut out.settings);
    }
}
