//! Controller settings: the kube-controller-manager flags that shape every decision.

pub use crate::arith::Arithmetic;
use crate::arith::Tolerance;
use crate::time::Duration;

/// Controller-wide settings (defaults are kube-controller-manager's).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Settings {
    /// `--horizontal-pod-autoscaler-tolerance` (0.1): both directions unless the HPA's
    /// behavior overrides one.
    pub tolerance: Tolerance,
    /// `--horizontal-pod-autoscaler-downscale-stabilization` (5 min): the legacy window, and
    /// the default scale-down window of a behavior (truncated to whole seconds there).
    pub downscale_stabilization_window: Duration,
    /// `--horizontal-pod-autoscaler-cpu-initialization-period` (5 min).
    pub cpu_initialization_period: Duration,
    /// `--horizontal-pod-autoscaler-initial-readiness-delay` (30 s).
    pub initial_readiness_delay: Duration,
    /// The `HPAScaleToZero` feature gate (beta, on).
    pub scale_to_zero: bool,
    /// The `HPAConfigurableTolerance` feature gate (beta, on): honour per-direction
    /// tolerances in `behavior`.
    pub configurable_tolerance: bool,
    /// Arithmetic mode.
    pub arithmetic: Arithmetic,
    /// Legacy (no behavior) scale-up rate: at most `factor × current` replicas (upstream's
    /// package variable `scaleUpLimitFactor`, 2; its unit tests use 8).
    pub legacy_scale_up_factor: i32,
    /// Legacy scale-up floor: at least this many replicas may always be reached
    /// (`scaleUpLimitMinimum`, 4).
    pub legacy_scale_up_minimum: i32,
}

impl Settings {
    /// kube-controller-manager's defaults.
    pub const DEFAULT: Settings = Settings {
        tolerance: Tolerance::DEFAULT,
        downscale_stabilization_window: Duration::from_secs(300),
        cpu_initialization_period: Duration::from_secs(300),
        initial_readiness_delay: Duration::from_secs(30),
        scale_to_zero: true,
        configurable_tolerance: true,
        arithmetic: Arithmetic::Kubernetes,
        legacy_scale_up_factor: 2,
        legacy_scale_up_minimum: 4,
    };
}

impl Default for Settings {
    fn default() -> Self {
        Settings::DEFAULT
    }
}
