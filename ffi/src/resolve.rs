//! `hpa_config_resolve`: the configuration after Kubernetes' API defaulting, as the engine
//! runs it.

use hpa::defaults::ResolvedRules;
use hpa::Tolerance;

use crate::config::{self, hpa_config, hpa_decimal, hpa_scaling_policy, hpa_settings};
use crate::enums::{self};
use crate::error::{hpa_field_error, Refusal};
use crate::out::write_padded;
use crate::raw::{self, Outputs};
use crate::status::hpa_status;
use crate::HPA_MAX_POLICIES;

/// One direction of a behavior after defaulting.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hpa_resolved_rules {
    /// The stabilization window in seconds; for scale-down without one, the controller's
    /// `downscale_stabilization_window_ms` in whole seconds.
    pub stabilization_window_seconds: i32,
    /// An `hpa_select_policy` (never unset).
    pub select_policy: u32,
    /// The tolerance this direction uses: the behavior's when set (and the
    /// HPAConfigurableTolerance gate is on), else the controller's.
    pub tolerance: hpa_decimal,
    /// The number of entries of `policies`.
    pub policies_len: usize,
    /// The policies (the defaults when the spec gives none).
    pub policies: [hpa_scaling_policy; HPA_MAX_POLICIES],
}

/// A configuration after Kubernetes' API defaulting: what `hpa_autoscaler_evaluate` runs.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hpa_resolved_config {
    /// `minReplicas` (1 when unset).
    pub min_replicas: i32,
    /// `maxReplicas`.
    pub max_replicas: i32,
    /// The number of metrics (1 when the spec lists none).
    pub metrics_len: usize,
    /// 1 when the spec lists no metric and Kubernetes' default applies: `cpu` at 80 %
    /// average utilization.
    pub default_metric: u32,
    /// 1 when the spec has a behavior; 0 selects the legacy normalization (the rules below
    /// then describe the legacy rules' window and tolerance only, without policies).
    pub has_behavior: u32,
    /// `behavior.scaleUp` after defaulting.
    pub scale_up: hpa_resolved_rules,
    /// `behavior.scaleDown` after defaulting.
    pub scale_down: hpa_resolved_rules,
    /// The controller settings in effect.
    pub settings: hpa_settings,
}

fn decimal(t: &Tolerance) -> hpa_decimal {
    let (mantissa, exponent) = t.decimal();
    hpa_decimal {
        mantissa: i64::try_from(mantissa).unwrap_or(i64::MAX),
        exponent,
    }
}

fn rules(r: Option<&ResolvedRules<'_>>, window: i32, tolerance: &Tolerance) -> hpa_resolved_rules {
    let mut out = hpa_resolved_rules {
        stabilization_window_seconds: window,
        select_policy: enums::hpa_select_policy::Max as u32,
        tolerance: decimal(tolerance),
        policies_len: 0,
        policies: [hpa_scaling_policy {
            r#type: 0,
            value: 0,
            period_seconds: 0,
        }; HPA_MAX_POLICIES],
    };
    if let Some(r) = r {
        out.stabilization_window_seconds = r.stabilization_window_seconds.unwrap_or(window);
        out.select_policy = enums::select_policy_value(r.select_policy) as u32;
        for (slot, p) in out.policies.iter_mut().zip(r.policies) {
            *slot = hpa_scaling_policy {
                r#type: enums::policy_type_value(p.type_) as u32,
                value: p.value,
                period_seconds: p.period_seconds,
            };
            out.policies_len += 1;
        }
    }
    out
}

/// Applies Kubernetes' API defaulting to a valid configuration and writes the result to
/// `*resolved_out`: `minReplicas`, the default metric, both behavior directions with their
/// windows, select policies, policies and tolerances, and the settings in effect. The
/// configuration is checked as `hpa_config_validate` checks it; on error `*resolved_out` is
/// not touched and `error_out`, when not NULL, receives the field and message.
///
/// # Safety
///
/// As `hpa_config_validate`; `resolved_out` must point to a writable `hpa_resolved_config`.
#[no_mangle]
#[must_use]
pub unsafe extern "C" fn hpa_config_resolve(
    config: *const hpa_config,
    resolved_out: *mut hpa_resolved_config,
    error_out: *mut hpa_field_error,
) -> hpa_status {
    // SAFETY: the caller's contract.
    let result = unsafe { resolve(config, resolved_out) };
    match result {
        Ok(()) => hpa_status::Ok,
        // SAFETY: the caller's contract.
        Err(refusal) => unsafe { crate::api::report(refusal, error_out) },
    }
}

/// # Safety
///
/// As [`hpa_config_resolve`].
unsafe fn resolve(
    config: *const hpa_config,
    resolved_out: *mut hpa_resolved_config,
) -> Result<(), Refusal> {
    // SAFETY: only checks NULL and alignment.
    unsafe { raw::reference(resolved_out.cast_const()) }.map_err(|f| f.at("resolved_out"))?;
    // SAFETY: the caller's contract.
    let cfg = unsafe { raw::reference(config) }.map_err(|f| f.at("config"))?;
    let mut converted = config::Config::empty();
    // SAFETY: the caller's contract.
    unsafe { config::convert(cfg, &mut converted, &Outputs::NONE) }?;
    let hpa = converted.validate()?;
    let settings = &converted.settings;
    let tolerances = hpa::autoscaler::tolerances(&hpa, settings);
    let down_window =
        i32::try_from(settings.downscale_stabilization_window.whole_secs()).unwrap_or(i32::MAX);
    let behavior = hpa.behavior();
    let resolved = hpa_resolved_config {
        min_replicas: hpa.min_replicas(),
        max_replicas: hpa.max_replicas(),
        metrics_len: hpa.metrics().len(),
        default_metric: u32::from(converted.spec().metrics.is_empty()),
        has_behavior: u32::from(behavior.is_some()),
        scale_up: rules(behavior.map(|b| &b.scale_up), 0, &tolerances.up),
        scale_down: rules(
            behavior.map(|b| &b.scale_down),
            down_window,
            &tolerances.down,
        ),
        settings: config::settings_value(settings),
    };
    // SAFETY: checked above; zero bytes are an `hpa_resolved_config`.
    unsafe { write_padded(resolved_out, &resolved) }.map_err(Refusal::from)
}
