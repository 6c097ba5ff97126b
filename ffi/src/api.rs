//! Configuration and observation checks, settings defaults, and the library version.

use core::ffi::c_char;

use hpa::Settings;

use crate::config::{self, hpa_config, hpa_settings};
use crate::error::{hpa_field_error, Refusal};
use crate::observation::{self, hpa_observation, PodNames};
use crate::out::{write_padded, write_value};
use crate::raw::{self, Outputs};
use crate::status::hpa_status;
use crate::HPA_VERSION_NUMBER;

/// Writes kube-controller-manager's default settings to `*settings_out`: tolerance 0.1,
/// downscale stabilization 5 min, CPU initialization period 5 min, initial readiness delay
/// 30 s, the HPAScaleToZero and HPAConfigurableTolerance gates on, Kubernetes arithmetic,
/// legacy scale-up factor 2 and floor 4. Start from these, then change what you need.
///
/// # Safety
///
/// `settings_out` must point to a writable `hpa_settings`.
#[no_mangle]
#[must_use]
pub unsafe extern "C" fn hpa_settings_default(settings_out: *mut hpa_settings) -> hpa_status {
    let settings = config::settings_value(&Settings::DEFAULT);
    // SAFETY: the caller's contract; `write_padded` checks NULL and alignment, and zero bytes
    // are an `hpa_settings`.
    match unsafe { write_padded(settings_out, &settings) } {
        Ok(()) => hpa_status::Ok,
        Err(f) => f.status,
    }
}

/// Writes a refusal to an optional report and returns its status.
///
/// # Safety
///
/// `error_out` must be NULL or point to a writable `hpa_field_error`.
pub(crate) unsafe fn report(refusal: Refusal, error_out: *mut hpa_field_error) -> hpa_status {
    if !error_out.is_null() && error_out.is_aligned() {
        // SAFETY: not NULL, aligned, writable by the caller's contract; all-zero bytes are a
        // valid `hpa_field_error`.
        let out = unsafe {
            core::ptr::write_bytes(error_out, 0, 1);
            &mut *error_out
        };
        refusal.write_to(out);
    }
    refusal.status()
}

/// Checks a configuration as `hpa_autoscaler_evaluate` does: every pointer, string, flag and
/// enumeration value, the controller settings, then Kubernetes' API defaulting and
/// validation of the spec. Returns `HPA_STATUS_OK`, or the status evaluation would return;
/// then, when `error_out` is not NULL, it receives the field and the message (for
/// `HPA_STATUS_INVALID_SPEC` the Kubernetes API server's: `spec.minReplicas: Invalid value:
/// 0: must be greater than or equal to 1`). `*error_out` is not touched on success.
///
/// # Safety
///
/// `config` and everything it points to must be readable for the duration of the call, with
/// every array at least as long as its length member says; `error_out` must be NULL or point
/// to a writable `hpa_field_error`.
#[no_mangle]
#[must_use]
pub unsafe extern "C" fn hpa_config_validate(
    config: *const hpa_config,
    error_out: *mut hpa_field_error,
) -> hpa_status {
    // SAFETY: the caller's contract.
    let result = unsafe { validate(config) };
    match result {
        Ok(()) => hpa_status::Ok,
        // SAFETY: the caller's contract.
        Err(refusal) => unsafe { report(refusal, error_out) },
    }
}

/// # Safety
///
/// As [`hpa_config_validate`].
unsafe fn validate(config: *const hpa_config) -> Result<(), Refusal> {
    // SAFETY: the caller's contract.
    let cfg = unsafe { raw::reference(config) }.map_err(|f| f.at("config"))?;
    let mut converted = config::Config::empty();
    // SAFETY: the caller's contract.
    unsafe { config::convert(cfg, &mut converted, &Outputs::NONE) }?;
    converted.validate()?;
    Ok(())
}

/// Checks an observation against a configuration as `hpa_autoscaler_evaluate` does (every
/// pointer, string, flag and enumeration value; one `hpa_metric_values` per metric, of a kind
/// the metric's source uses; one sample per pod; replica counts not negative) and writes the
/// workspace size an evaluation of it needs to `*workspace_size_out`: 0, since the evaluation
/// reads the observation in place (older versions needed one). The configuration is checked
/// first, as by `hpa_config_validate`. It checks every pod's name, which an evaluation checks
/// only when a message may name a pod (`hpa_pod.name`).
///
/// On error, `*workspace_size_out` is not touched and `error_out`, when not NULL, receives the
/// field at fault (`observation.pods[3].containers[0].name: is not valid UTF-8`). Whether
/// time goes backwards depends on the autoscaler and is checked by the evaluation only.
///
/// # Safety
///
/// `config`, `observation` and everything they point to must be readable for the duration of
/// the call, with every array at least as long as its length member says;
/// `workspace_size_out` must point to a writable `size_t`; `error_out` must be NULL or point to
/// a writable `hpa_field_error`.
#[no_mangle]
#[must_use]
pub unsafe extern "C" fn hpa_observation_check(
    config: *const hpa_config,
    observation: *const hpa_observation,
    workspace_size_out: *mut usize,
    error_out: *mut hpa_field_error,
) -> hpa_status {
    // SAFETY: the caller's contract.
    let result = unsafe { check(config, observation, workspace_size_out) };
    match result {
        Ok(()) => hpa_status::Ok,
        // SAFETY: the caller's contract.
        Err(refusal) => unsafe { report(refusal, error_out) },
    }
}

/// # Safety
///
/// As [`hpa_observation_check`].
unsafe fn check(
    config: *const hpa_config,
    observation: *const hpa_observation,
    workspace_size_out: *mut usize,
) -> Result<(), Refusal> {
    // SAFETY: only checks NULL and alignment.
    unsafe { raw::reference(workspace_size_out.cast_const()) }
        .map_err(|f| f.at("workspace_size_out"))?;
    // SAFETY: the caller's contract.
    let cfg = unsafe { raw::reference(config) }.map_err(|f| f.at("config"))?;
    // SAFETY: the caller's contract.
    let obs = unsafe { raw::reference(observation) }.map_err(|f| f.at("observation"))?;
    let mut converted = config::Config::empty();
    // SAFETY: the caller's contract.
    unsafe { config::convert(cfg, &mut converted, &Outputs::NONE) }?;
    let hpa = converted.validate()?;
    // SAFETY: the caller's contract.
    unsafe { observation::check(&Outputs::NONE, obs, hpa.metrics(), PodNames::Every) }?;
    // The evaluation reads the observation in place: it needs no workspace.
    // SAFETY: checked above.
    unsafe { write_value(workspace_size_out, 0) }.map_err(Refusal::from)
}

/// The library's version, `"MAJOR.MINOR.PATCH"` (static, NUL-terminated): compare with
/// `HPA_VERSION_STRING` to catch a header that does not match the linked library.
#[no_mangle]
pub extern "C" fn hpa_version() -> *const c_char {
    crate::VERSION_CSTR.as_ptr()
}

/// The library's version as `HPA_VERSION_NUMBER` encodes it:
/// `(MAJOR << 16) | (MINOR << 8) | PATCH`.
#[no_mangle]
pub extern "C" fn hpa_version_number() -> u32 {
    HPA_VERSION_NUMBER
}
