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
    /// The release whose controller decides (the newest by default).
    #[cfg(feature = "older-controllers")]
    pub controller: ControllerRelease,
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
        #[cfg(feature = "older-controllers")]
        controller: ControllerRelease::NEWEST,
    };
}

impl Default for Settings {
    fn default() -> Self {
        Settings::DEFAULT
    }
}

/// A Kubernetes release whose controller the engine reproduces: the rules that changed
/// between 1.23 and the newest release followed, each from the release that changed it
/// (docs/spec/releases.md#rules). Validation, defaults and feature gates are the caller's
/// ([`Settings::scale_to_zero`], [`Settings::configurable_tolerance`]).
#[cfg(feature = "older-controllers")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ControllerRelease {
    minor: u8,
}

#[cfg(feature = "older-controllers")]
impl ControllerRelease {
    /// The newest release followed (1.37 with the later changes of docs/spec/README.md#upstream):
    /// every rule as the rest of the specification states it.
    pub const NEWEST: ControllerRelease = ControllerRelease { minor: 37 };

    /// The controller of Kubernetes 1.`minor`. A release after the newest decides as the newest;
    /// one before 1.23 as 1.23 (the rules modelled changed after it).
    pub const fn kubernetes(minor: u8) -> ControllerRelease {
        let minor = if minor > Self::NEWEST.minor {
            Self::NEWEST.minor
        } else if minor < 23 {
            23
        } else {
            minor
        };
        ControllerRelease { minor }
    }

    /// The minor version (`30` for Kubernetes 1.30).
    pub const fn minor(self) -> u8 {
        self.minor
    }

    /// Before 1.33 the tolerance test is `|1 − ratio| ≤ tolerance`, with the controller flag
    /// (docs/spec/releases.md#tolerance-test).
    pub(crate) const fn distance_tolerance(self) -> bool {
        self.minor < 33
    }

    /// Before 1.26 a missing pod counts at 100 % of its request on a utilization scale-down
    /// (docs/spec/releases.md#missing-pod-fill).
    pub(crate) const fn missing_pods_at_request(self) -> bool {
        self.minor < 26
    }

    /// Before 1.28 an average-value or Pods target fills its missing pods in with 0 whenever
    /// the first ratio is not below 1, so also at exactly 1
    /// (docs/spec/releases.md#plain-missing-at-one).
    pub(crate) const fn plain_missing_unless_below(self) -> bool {
        self.minor < 28
    }

    /// Before 1.25 a policy's period start counts the events of its own direction only
    /// (docs/spec/releases.md#period-start).
    pub(crate) const fn one_direction_period_start(self) -> bool {
        self.minor < 25
    }

    /// Before the newest, a pod whose metrics lack a ContainerResource metric's container
    /// fails the metric (docs/spec/releases.md#missing-container).
    pub(crate) const fn missing_container_fails(self) -> bool {
        self.minor < Self::NEWEST.minor
    }
}

#[cfg(feature = "older-controllers")]
impl Default for ControllerRelease {
    fn default() -> Self {
        ControllerRelease::NEWEST
    }
}
