//! The cluster a verdict assumes: a Kubernetes release (`--kubernetes-version`, 1.23 to the
//! newest the engine follows) and its feature gates (`--feature-gates NAME=BOOL,...`), as data
//! (docs/kubernetes-versions.md).
//!
//! A release decides which API versions are served, which fields exist, which checks the API
//! server makes and each gate's default; the gates decide the engine's [`Settings`] and the
//! validation's lower bound for `minReplicas`. What the tables say is applied to a spec before
//! and after the newest release's validation ([`Cluster::prepare_spec`],
//! [`Cluster::adjust_errors`]), so the core keeps one set of rules.

use std::fmt;

use hpa::settings::{ControllerRelease, Settings};

use super::raw::RawSpec;
use super::versions::ApiVersion;
use super::TraceError;

/// The oldest release followed: the first that serves `autoscaling/v2`.
pub const OLDEST_MINOR: u8 = 23;
/// The newest release followed: the upstream snapshot of docs/spec/README.md (1.37).
pub const NEWEST_MINOR: u8 = 37;

/// A feature gate's maturity from a release on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// Off by default, may be turned on.
    Alpha,
    /// On by default, may be turned off.
    Beta,
    /// On and locked.
    Ga,
}

/// One gate's history: `(first release, stage)` in order, and the release that removed it.
struct GateHistory {
    gate: Gate,
    stages: &'static [(u8, Stage)],
    removed: Option<u8>,
}

/// The feature gates of the HPA controller and its API.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gate {
    /// `minReplicas: 0` and scaling from zero (KEP-2021).
    HpaScaleToZero,
    /// `behavior.*.tolerance` (KEP-4951, kubernetes/kubernetes#130797).
    HpaConfigurableTolerance,
    /// ContainerResource metrics (KEP-1610).
    HpaContainerMetrics,
    /// Pod-level requests (KEP-2837).
    PodLevelResources,
    /// Immediate reconcile on a spec change; decides nothing the engine computes.
    HpaGeneration,
    /// Faster selector overlap detection; decides nothing the engine computes.
    HpaOptimizedSelectorStore,
    /// Sidecars: init containers with `restartPolicy: Always` (KEP-753), whose requests the
    /// controller counts from 1.29 (kubernetes/kubernetes#120001).
    SidecarContainers,
}

impl Gate {
    /// Its name on the command line, as Kubernetes spells it.
    pub fn name(self) -> &'static str {
        match self {
            Gate::HpaScaleToZero => "HPAScaleToZero",
            Gate::HpaConfigurableTolerance => "HPAConfigurableTolerance",
            Gate::HpaContainerMetrics => "HPAContainerMetrics",
            Gate::PodLevelResources => "PodLevelResources",
            Gate::HpaGeneration => "HPAGeneration",
            Gate::HpaOptimizedSelectorStore => "HPAOptimizedSelectorStore",
            Gate::SidecarContainers => "SidecarContainers",
        }
    }
}

/// Each gate's stages, from `pkg/features/kube_features.go` (versioned specs) and the gate
/// pages of kubernetes/website.
const GATES: [GateHistory; 7] = [
    GateHistory {
        gate: Gate::HpaScaleToZero,
        stages: &[(16, Stage::Alpha), (37, Stage::Beta)],
        removed: None,
    },
    GateHistory {
        gate: Gate::HpaConfigurableTolerance,
        stages: &[(33, Stage::Alpha), (35, Stage::Beta)],
        removed: None,
    },
    GateHistory {
        gate: Gate::HpaContainerMetrics,
        stages: &[(20, Stage::Alpha), (27, Stage::Beta), (30, Stage::Ga)],
        removed: Some(32),
    },
    GateHistory {
        gate: Gate::PodLevelResources,
        stages: &[(32, Stage::Alpha), (34, Stage::Beta)],
        removed: None,
    },
    GateHistory {
        gate: Gate::HpaGeneration,
        stages: &[(37, Stage::Beta)],
        removed: None,
    },
    GateHistory {
        gate: Gate::HpaOptimizedSelectorStore,
        stages: &[(37, Stage::Beta)],
        removed: None,
    },
    // Its GA entry plans the removal for 1.36; the versioned specs read still list it, so it
    // stays settable (locked to true) here.
    GateHistory {
        gate: Gate::SidecarContainers,
        stages: &[(28, Stage::Alpha), (29, Stage::Beta), (33, Stage::Ga)],
        removed: None,
    },
];

/// What a gate is in one release.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GateState {
    /// Not added yet (the feature does not exist: off).
    Absent { added: u8 },
    /// Settable or locked, with its default.
    Present(Stage),
    /// Removed after graduating (the feature is always on).
    Removed { removed: u8 },
}

impl GateHistory {
    fn state(&self, minor: u8) -> GateState {
        if let Some(removed) = self.removed.filter(|r| minor >= *r) {
            return GateState::Removed { removed };
        }
        match self.stages.iter().rev().find(|(since, _)| *since <= minor) {
            Some((_, stage)) => GateState::Present(*stage),
            None => GateState::Absent {
                added: self.stages.first().map_or(u8::MAX, |(since, _)| *since),
            },
        }
    }
}

/// What `gate` is in release 1.`minor` (absent when it has no history).
fn state(gate: Gate, minor: u8) -> GateState {
    GATES
        .iter()
        .find(|g| g.gate == gate)
        .map_or(GateState::Absent { added: u8::MAX }, |g| g.state(minor))
}

/// The release first without an API version, when it is one the manifests may name.
fn removed_in(api: ApiVersion) -> Option<u8> {
    match api {
        ApiVersion::V2beta1 => Some(25),
        ApiVersion::V2beta2 => Some(26),
        ApiVersion::V1 | ApiVersion::V2 => None,
    }
}

/// The first release with `behavior.*.tolerance` (kubernetes/kubernetes#130797).
const TOLERANCE_FIELD_SINCE: u8 = 33;
/// The first release that validates the `apiVersion` of `scaleTargetRef` and of an Object
/// metric's `describedObject` (kubernetes/kubernetes#132537).
const API_VERSION_CHECK_SINCE: u8 = 34;

/// A Kubernetes release and its feature gates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cluster {
    minor: u8,
    /// The gates set on the command line (each once, the last setting kept).
    set: Vec<(Gate, bool)>,
}

impl Default for Cluster {
    fn default() -> Self {
        Cluster::NEWEST
    }
}

impl Cluster {
    /// The newest release followed, with its default gates.
    pub const NEWEST: Cluster = Cluster {
        minor: NEWEST_MINOR,
        set: Vec::new(),
    };

    /// The cluster of `--kubernetes-version` (default: the newest) and `--feature-gates`.
    ///
    /// # Errors
    ///
    /// A malformed or unsupported version, a malformed gate list, a gate unknown in that release
    /// (Kubernetes' `unrecognized feature gate: X`, with when it was added or removed), or a
    /// locked gate set against its value.
    pub fn new(version: Option<&str>, gates: Option<&str>) -> Result<Cluster, String> {
        let minor = match version {
            None => NEWEST_MINOR,
            Some(text) => parse_version(text)?,
        };
        let mut cluster = Cluster {
            minor,
            set: Vec::new(),
        };
        for (name, value) in parse_gate_list(gates.unwrap_or(""))? {
            cluster.set_gate(name, value)?;
        }
        Ok(cluster)
    }

    /// The minor version (`37` for 1.37).
    pub fn minor(&self) -> u8 {
        self.minor
    }

    fn set_gate(&mut self, name: &str, value: bool) -> Result<(), String> {
        let Some(history) = GATES.iter().find(|g| g.gate.name() == name) else {
            let known: Vec<&str> = GATES.iter().map(|g| g.gate.name()).collect();
            return Err(format!(
                "unrecognized feature gate: {name} (the feature gates known here, those that change an HPA's verdicts, are {})",
                known.join(", ")
            ));
        };
        match history.state(self.minor) {
            GateState::Absent { added } => Err(format!(
                "unrecognized feature gate: {name} (added in Kubernetes 1.{added}; this is 1.{})",
                self.minor
            )),
            GateState::Removed { removed } => Err(format!(
                "unrecognized feature gate: {name} (removed in Kubernetes 1.{removed}, the \
                 feature always on since; this is 1.{})",
                self.minor
            )),
            GateState::Present(Stage::Ga) if !value => Err(format!(
                "cannot set feature gate {name} to false, feature is locked to true"
            )),
            GateState::Present(_) => {
                self.set_value(history.gate, value);
                Ok(())
            }
        }
    }

    /// Whether the feature of `gate` is on: as set, else the release's default; a feature
    /// whose gate was removed after graduating is on, one not added yet is off.
    pub fn enabled(&self, gate: Gate) -> bool {
        if let Some(value) = self.value_set(gate) {
            return value;
        }
        match state(gate, self.minor) {
            GateState::Absent { .. } | GateState::Present(Stage::Alpha) => false,
            GateState::Present(_) | GateState::Removed { .. } => true,
        }
    }

    /// `base` with this cluster's gates (HPAScaleToZero and HPAConfigurableTolerance) and its
    /// release's controller (docs/spec/releases.md).
    pub fn settings(&self, base: Settings) -> Settings {
        Settings {
            scale_to_zero: self.enabled(Gate::HpaScaleToZero),
            configurable_tolerance: self.enabled(Gate::HpaConfigurableTolerance),
            controller: ControllerRelease::kubernetes(self.minor),
            ..base
        }
    }

    /// This cluster with HPAScaleToZero as a trace's `controller.scaleToZero` records it.
    ///
    /// # Errors
    ///
    /// `--feature-gates` set the gate to the other value.
    pub(super) fn with_recorded_scale_to_zero(&self, on: bool) -> Result<Cluster, String> {
        let gate = Gate::HpaScaleToZero;
        if self.value_set(gate).is_some_and(|set| set != on) {
            return Err(format!(
                "the trace records scaleToZero: {on}, --feature-gates sets HPAScaleToZero={}",
                !on
            ));
        }
        if on && matches!(state(gate, self.minor), GateState::Absent { .. }) {
            return Err(format!(
                "HPAScaleToZero does not exist in Kubernetes 1.{}",
                self.minor
            ));
        }
        let mut cluster = self.clone();
        cluster.set_value(gate, on);
        Ok(cluster)
    }

    fn value_set(&self, gate: Gate) -> Option<bool> {
        self.set.iter().find(|(g, _)| *g == gate).map(|(_, v)| *v)
    }

    fn set_value(&mut self, gate: Gate, value: bool) {
        self.set.retain(|(g, _)| *g != gate);
        self.set.push((gate, value));
    }

    /// Why this release refuses `api`, and the fix; `None` when it serves it.
    pub(super) fn refuses(&self, api: ApiVersion) -> Option<String> {
        let removed = removed_in(api).filter(|r| self.minor >= *r)?;
        let fix = match api {
            ApiVersion::V2beta2 => "; the fields are the same",
            _ => {
                " and move each metric's target and name: targetAverageUtilization, \
                 targetAverageValue and targetValue become target.averageUtilization, \
                 target.averageValue and target.value (with target.type Utilization, AverageValue \
                 or Value), metricName becomes metric.name, selector and metricSelector become \
                 metric.selector, and an Object metric's target becomes describedObject"
            }
        };
        Some(format!(
            "{api} HorizontalPodAutoscaler is no longer served since Kubernetes 1.{removed}; \
             change apiVersion to autoscaling/v2{fix}"
        ))
    }

    /// What the release's API server does to a spec before validating it: a field it does not
    /// have is an unknown field (`behavior.*.tolerance` before 1.33); a field of a disabled
    /// gate is dropped, as the registry strategies drop it (`tolerance` with
    /// HPAConfigurableTolerance off, `containerResource` with HPAContainerMetrics off). Returns
    /// the notes of what was dropped.
    ///
    /// # Errors
    ///
    /// The unknown field, under `prefix`.
    pub(super) fn prepare_spec(
        &self,
        spec: &mut RawSpec,
        prefix: &str,
    ) -> Result<Vec<String>, TraceError> {
        let mut notes = Vec::new();
        if let Some(behavior) = &mut spec.behavior {
            for (direction, rules) in [
                ("scaleUp", &mut behavior.scale_up),
                ("scaleDown", &mut behavior.scale_down),
            ] {
                let Some(rules) = rules.as_mut().filter(|r| r.tolerance.is_some()) else {
                    continue;
                };
                let path = format!("{prefix}spec.behavior.{direction}.tolerance");
                if self.minor < TOLERANCE_FIELD_SINCE {
                    return Err(TraceError::new(
                        path,
                        format!(
                            "unknown field \"tolerance\": Kubernetes 1.{} has no per-direction \
                             tolerance (added in 1.{TOLERANCE_FIELD_SINCE})",
                            self.minor
                        ),
                    ));
                }
                if !self.enabled(Gate::HpaConfigurableTolerance) {
                    rules.tolerance = None;
                    notes.push(format!(
                        "{path} dropped: the HPAConfigurableTolerance feature gate is off"
                    ));
                }
            }
        }
        if !self.enabled(Gate::HpaContainerMetrics) {
            for (i, metric) in spec.metrics.iter_mut().flatten().enumerate() {
                if metric.container_resource.take().is_some() {
                    notes.push(format!(
                        "{prefix}spec.metrics[{i}].containerResource dropped: the \
                         HPAContainerMetrics feature gate is off"
                    ));
                }
            }
        }
        Ok(notes)
    }

    /// A spec converted from an older API version before 1.33, whose tolerance annotations
    /// were then plain annotations: the conversion gives no tolerance.
    pub(super) fn drop_converted_tolerances(&self, spec: Option<&mut RawSpec>) {
        if self.minor >= TOLERANCE_FIELD_SINCE {
            return;
        }
        let behavior = spec.and_then(|s| s.behavior.as_mut());
        for rules in behavior
            .into_iter()
            .flat_map(|b| [b.scale_up.as_mut(), b.scale_down.as_mut()])
            .flatten()
        {
            rules.tolerance = None;
        }
    }

    /// The newest release's validation errors as this release reports them: without the
    /// `apiVersion` checks of object references before 1.34, and with the gate named in the
    /// message of a missing ContainerResource source when HPAContainerMetrics is off.
    pub(super) fn adjust_errors(&self, errors: &mut Vec<TraceError>) {
        if !self.checks_api_versions() {
            errors.retain(|e| {
                !(e.path.ends_with("scaleTargetRef.apiVersion")
                    || e.path.ends_with("describedObject.apiVersion"))
            });
        }
        if !self.enabled(Gate::HpaContainerMetrics) {
            for e in errors.iter_mut() {
                if e.path.ends_with(".containerResource") && e.message.starts_with("Required value")
                {
                    e.message
                        .push_str(" (only allowed when HPAContainerMetrics feature is enabled)");
                }
            }
        }
    }

    /// Whether the release validates the `apiVersion` of object references (1.34 on).
    pub(super) fn checks_api_versions(&self) -> bool {
        self.minor >= API_VERSION_CHECK_SINCE
    }

    /// Whether the release's defaults are unchanged by `--feature-gates`.
    fn defaults_only(&self) -> bool {
        self.set.is_empty()
    }
}

/// `Kubernetes 1.33, feature gates HPAConfigurableTolerance=false, HPAScaleToZero=true (set),
/// ...`: every gate of the release with its value.
impl fmt::Display for Cluster {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Kubernetes 1.{}", self.minor)?;
        let mut first = true;
        for history in &GATES {
            if !matches!(history.state(self.minor), GateState::Present(_)) {
                continue;
            }
            f.write_str(if first { ", feature gates " } else { ", " })?;
            first = false;
            let gate = history.gate;
            write!(f, "{}={}", gate.name(), self.enabled(gate))?;
            if self.value_set(gate).is_some() {
                f.write_str(" (set)")?;
            }
        }
        if self.defaults_only() {
            f.write_str(" (its defaults)")?;
        }
        Ok(())
    }
}

/// `1.32` or `v1.32`.
fn parse_version(text: &str) -> Result<u8, String> {
    let bad = || format!("invalid Kubernetes version {text:?}: expected MAJOR.MINOR, such as 1.32");
    let trimmed = text.trim();
    let bare = trimmed.strip_prefix('v').unwrap_or(trimmed);
    let (major, minor) = bare.split_once('.').ok_or_else(bad)?;
    let digits = |s: &str| !s.is_empty() && s.len() <= 3 && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(major) || !digits(minor) {
        return Err(bad());
    }
    let (major, minor): (u16, u16) = (
        major.parse().map_err(|_| bad())?,
        minor.parse().map_err(|_| bad())?,
    );
    match u8::try_from(minor) {
        Ok(minor) if major == 1 && (OLDEST_MINOR..=NEWEST_MINOR).contains(&minor) => Ok(minor),
        _ => Err(format!(
            "Kubernetes {major}.{minor} is not supported: the releases followed are \
             1.{OLDEST_MINOR} to 1.{NEWEST_MINOR}"
        )),
    }
}

/// `NAME=BOOL,...` as kube-controller-manager parses `--feature-gates`: entries separated by
/// commas, blanks trimmed, empty entries skipped, values as Go's `strconv.ParseBool`.
fn parse_gate_list(text: &str) -> Result<Vec<(&str, bool)>, String> {
    let mut gates = Vec::new();
    for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let Some((name, value)) = entry.split_once('=') else {
            return Err(format!("missing bool value for {entry}"));
        };
        let (name, value) = (name.trim(), value.trim());
        let on = match value {
            "1" | "t" | "T" | "true" | "TRUE" | "True" => true,
            "0" | "f" | "F" | "false" | "FALSE" | "False" => false,
            _ => {
                return Err(format!(
                    "invalid value of {name}={value}, err: strconv.ParseBool: parsing {value:?}: \
                     invalid syntax"
                ))
            }
        };
        gates.push((name, on));
    }
    Ok(gates)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_per_release() {
        let at = |v: &str| Cluster::new(Some(v), None).unwrap();
        assert_eq!(Cluster::new(None, None).unwrap(), Cluster::NEWEST);
        let newest = Cluster::NEWEST;
        assert_eq!(newest.settings(Settings::DEFAULT), Settings::DEFAULT);
        let controller = |v: &str| at(v).settings(Settings::DEFAULT).controller;
        assert_eq!(controller("1.30"), ControllerRelease::kubernetes(30));
        assert_eq!(controller("1.37"), ControllerRelease::NEWEST);
        assert!(!at("1.36").enabled(Gate::HpaScaleToZero));
        assert!(at("v1.37").enabled(Gate::HpaScaleToZero));
        assert!(!at("1.32").enabled(Gate::HpaConfigurableTolerance));
        assert!(!at("1.34").enabled(Gate::HpaConfigurableTolerance));
        assert!(at("1.35").enabled(Gate::HpaConfigurableTolerance));
        assert!(!at("1.26").enabled(Gate::HpaContainerMetrics));
        assert!(at("1.27").enabled(Gate::HpaContainerMetrics));
        assert!(at("1.32").enabled(Gate::HpaContainerMetrics));
        assert!(!at("1.33").enabled(Gate::PodLevelResources));
        assert!(at("1.34").enabled(Gate::PodLevelResources));
        assert!(!at("1.27").enabled(Gate::SidecarContainers));
        assert!(!at("1.28").enabled(Gate::SidecarContainers));
        assert!(at("1.29").enabled(Gate::SidecarContainers));
        assert_eq!(
            at("1.33").to_string(),
            "Kubernetes 1.33, feature gates HPAScaleToZero=false, \
             HPAConfigurableTolerance=false, PodLevelResources=false, SidecarContainers=true \
             (its defaults)"
        );
        assert_eq!(
            at("1.23").to_string(),
            "Kubernetes 1.23, feature gates HPAScaleToZero=false, HPAContainerMetrics=false \
             (its defaults)"
        );
    }

    #[test]
    fn gates_set() {
        let c = Cluster::new(Some("1.30"), Some(" HPAScaleToZero=true,, ")).unwrap();
        assert!(c.enabled(Gate::HpaScaleToZero));
        assert_eq!(
            c.to_string(),
            "Kubernetes 1.30, feature gates HPAScaleToZero=true (set), HPAContainerMetrics=true, \
             SidecarContainers=true"
        );
        let c = Cluster::new(None, Some("HPAConfigurableTolerance=f,HPAScaleToZero=0")).unwrap();
        assert!(!c.settings(Settings::DEFAULT).configurable_tolerance);
        assert!(!c.settings(Settings::DEFAULT).scale_to_zero);
        // Setting a locked gate to its value is allowed, as upstream.
        assert!(Cluster::new(Some("1.30"), Some("HPAContainerMetrics=true")).is_ok());
    }

    #[test]
    fn refusals() {
        let err = |v: Option<&str>, g: &str| Cluster::new(v, Some(g)).unwrap_err();
        assert_eq!(
            err(None, "Foo=true"),
            "unrecognized feature gate: Foo (the feature gates known here, those that change an \
             HPA's verdicts, are HPAScaleToZero, HPAConfigurableTolerance, HPAContainerMetrics, \
             PodLevelResources, HPAGeneration, HPAOptimizedSelectorStore, SidecarContainers)"
        );
        assert_eq!(
            err(Some("1.32"), "HPAConfigurableTolerance=true"),
            "unrecognized feature gate: HPAConfigurableTolerance (added in Kubernetes 1.33; \
             this is 1.32)"
        );
        assert_eq!(
            err(None, "HPAContainerMetrics=true"),
            "unrecognized feature gate: HPAContainerMetrics (removed in Kubernetes 1.32, the \
             feature always on since; this is 1.37)"
        );
        assert_eq!(
            err(Some("1.31"), "HPAContainerMetrics=false"),
            "cannot set feature gate HPAContainerMetrics to false, feature is locked to true"
        );
        assert_eq!(
            err(None, "HPAScaleToZero"),
            "missing bool value for HPAScaleToZero"
        );
        assert_eq!(
            err(None, "HPAScaleToZero=yes"),
            "invalid value of HPAScaleToZero=yes, err: strconv.ParseBool: parsing \"yes\": \
             invalid syntax"
        );
        let version = |v: &str| Cluster::new(Some(v), None).unwrap_err();
        assert_eq!(
            version("1.22"),
            "Kubernetes 1.22 is not supported: the releases followed are 1.23 to 1.37"
        );
        assert_eq!(
            version("2.0"),
            "Kubernetes 2.0 is not supported: the releases followed are 1.23 to 1.37"
        );
        for bad in ["1", "1.x", "1.30.2", "", "1.-3", "one.two"] {
            assert!(
                version(bad).starts_with("invalid Kubernetes version"),
                "{bad}"
            );
        }
    }

    #[test]
    fn served_api_versions() {
        let at = |v: &str| Cluster::new(Some(v), None).unwrap();
        assert!(at("1.24").refuses(ApiVersion::V2beta1).is_none());
        assert!(at("1.25")
            .refuses(ApiVersion::V2beta1)
            .unwrap()
            .contains("no longer served since Kubernetes 1.25"));
        assert!(at("1.25").refuses(ApiVersion::V2beta2).is_none());
        assert!(at("1.26").refuses(ApiVersion::V2beta2).is_some());
        assert!(at("1.23").refuses(ApiVersion::V1).is_none());
    }
}
