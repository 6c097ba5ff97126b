//! Output structs with padding (`hpa_settings`, `hpa_resolved_config` and what they hold),
//! written field by field over zeroed storage. Writing the whole struct as one value would be
//! a typed copy, which leaves the padding bytes uninitialized: the C caller would find stack
//! garbage there, and a byte-wise copy or comparison of the struct would read it.
//! ffi/tests/outputs.rs checks that every byte of every output is written.

use crate::config::{hpa_decimal, hpa_settings};
use crate::error::Fault;
use crate::raw;
use crate::resolve::{hpa_resolved_config, hpa_resolved_rules};

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
pub(crate) unsafe fn write_out<T: Fields>(out: *mut T, value: &T) -> Result<(), Fault> {
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
