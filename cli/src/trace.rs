//! Traces for `hpa replay` (trace format v1, `shared/spec/trace-format.md`).
//!
//! A trace is read in two passes, and the whole document is checked before anything is
//! replayed:
//!
//! 1. **Parsing** into a private raw model with serde. Every struct takes a map only (not
//!    serde's positional sequence form) and denies unknown fields (inside `hpa` too, with the
//!    `autoscaling/v2` schema), serde's derive rejects duplicate
//!    fields and the [`StrictMap`] type rejects duplicate keys in maps (`samples`, `requests`,
//!    `containers`, `matchLabels`); the untyped parts of `metadata` and `status` are walked by
//!    [`AnyValue`], which rejects duplicate keys too. Integer fields take integers only
//!    (`15000.0` is an error; JSON has no NaN or Infinity). Quantities and the controller's
//!    numbers keep their exact decimal text: JSON numbers through serde_json's
//!    `arbitrary_precision`, YAML scalars through their own text. `serde_path_to_error` names
//!    the failing field.
//! 2. **Conversion** into the engine's types with the format's checks (quantities, step order,
//!    replica ranges, pod and container names, one metric entry per spec metric with the shape
//!    its type needs, controller durations and tolerance), then the API server's validation of
//!    the spec through [`Hpa::new`], reported under `hpa.`. Enum strings the typed spec cannot
//!    hold (an unknown metric type, an empty `selectPolicy`, ...) are handed to
//!    [`validate_spec_each`], so the errors are the ones upstream would report, in its order; a
//!    trace reports the first of them.
//!
//! The engine borrows everything it reads, so a [`Trace`] keeps an owned model and builds the
//! borrowed views ([`HpaSpec`](hpa::spec::HpaSpec), [`Observation`]) in a caller-supplied [`Bump`] arena.
//!
//! The document format is chosen by the file name: `.yaml` and `.yml` (any case) are YAML,
//! everything else is JSON (see [`Format::from_path`]).

mod owned;
mod raw;
mod replay;
mod strict;
mod view;

#[cfg(test)]
mod test_support;

// `cli/src/selector.rs` is a child of this module so that `main.rs` only declares `trace`.
#[path = "selector.rs"]
mod selector;

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::Path;

use bumpalo::Bump;
use hpa::defaults::Hpa;
use hpa::input::{ConditionStatus, ContainerKind, Observation, PodPhase, ReadyCondition};
use hpa::quantity::Quantity;
use hpa::settings::{Arithmetic, Settings};
use hpa::spec::{
    MetricSourceType, MetricTarget, MetricTargetType, PolicyType, ScalingPolicy, SelectPolicy,
};
use hpa::time::{Duration, Instant};
use hpa::tolerance::Tolerance;
use hpa::validation::{
    source_field_name, validate_spec_each, Direction, Unrecognized, ValidationError,
};

use self::owned::{
    OwnedBehavior, OwnedContainer, OwnedIdentifier, OwnedMetric, OwnedMetricValues, OwnedPod,
    OwnedRef, OwnedRules, OwnedSample, OwnedSpec, OwnedStep,
};
use self::raw::{
    RawArithmetic, RawConditionStatus, RawController, RawHpa, RawIdentifier, RawMetricSpec,
    RawMetricValues, RawObjectRef, RawPhase, RawPod, RawRules, RawSample, RawSpec, RawStep,
    RawTarget, RawTrace,
};
use self::selector::{LabelSelector, Requirement};
use self::strict::{parse_json, parse_yaml, QuantityText, StrictMap};

// ---------------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------------

/// Why a trace was rejected: the field at fault and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// Field path such as `steps[3].pods[0].phase` or `hpa.spec.metrics[0].type`; empty when
    /// the error concerns the document as a whole (unreadable file, malformed JSON at the top).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl TraceError {
    fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        TraceError {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for TraceError {}

/// The syntax of a trace document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// JSON.
    Json,
    /// YAML 1.2 with the same structure as the JSON document.
    Yaml,
}

impl Format {
    /// YAML for file names ending in `.yaml` or `.yml` (any case), JSON otherwise.
    pub fn from_path(path: &Path) -> Format {
        let is_yaml = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"));
        if is_yaml {
            Format::Yaml
        } else {
            Format::Json
        }
    }
}

/// A checked trace: controller settings, the HPA spec and the steps, ready to replay.
#[derive(Clone, Debug)]
pub struct Trace {
    /// The controller settings (`controller` block, defaults are kube-controller-manager's).
    pub settings: Settings,
    /// Whether `hpa.status.conditions` holds `ScaledToZero` with status `True` (the seed of
    /// that flag).
    pub scaled_to_zero: bool,
    /// `hpa.metadata.name`, or `""`.
    #[allow(dead_code)] // For callers that label their output; `hpa replay` does not.
    pub name: String,
    spec: OwnedSpec,
    steps: Vec<OwnedStep>,
}

/// One step of a trace, borrowed from the [`Trace`] and an arena.
#[derive(Clone, Copy, Debug)]
pub struct StepView<'b> {
    /// What the engine evaluates (its `now` is the step's `at`, in trace milliseconds).
    pub observation: Observation<'b>,
    /// `applied`: whether setting the new replica count succeeds.
    pub applied: bool,
}

/// Reads and checks the trace at `path` (YAML or JSON by its extension, see
/// [`Format::from_path`]).
///
/// # Errors
///
/// A [`TraceError`] naming the first field at fault, or the file when it cannot be read.
pub fn load(path: &Path) -> Result<Trace, TraceError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| TraceError::new("", format!("cannot read {}: {e}", path.display())))?;
    parse(&text, Format::from_path(path))
}

/// Parses and checks a trace document.
///
/// # Errors
///
/// A [`TraceError`] naming the first field at fault.
pub fn parse(text: &str, format: Format) -> Result<Trace, TraceError> {
    let raw = match format {
        Format::Json => parse_json(text)?,
        Format::Yaml => parse_yaml(text)?,
    };
    convert(raw)
}

/// A checked standalone HorizontalPodAutoscaler manifest (`hpa validate`, `hpa simulate`): the
/// trace's `hpa` object in a file of its own, parsed as strictly (unknown fields, duplicate
/// keys) and validated as the API server would. Error paths have no `hpa.` prefix
/// (`spec.minReplicas`, as `kubectl apply` reports them). Unlike in a trace, `metadata.name` and
/// `spec.scaleTargetRef` are required, as for any object sent to the API server.
#[derive(Clone, Debug)]
pub struct Manifest {
    /// `metadata.name` (empty when only `generateName` is set).
    pub name: String,
    spec: OwnedSpec,
}

/// Reads and checks the manifest at `path` (YAML or JSON by its extension, see
/// [`Format::from_path`]); `settings.scale_to_zero` is the HPAScaleToZero gate of validation.
///
/// # Errors
///
/// A [`TraceError`] naming the first field at fault, or the file when it cannot be read.
pub fn load_manifest(path: &Path, settings: &Settings) -> Result<Manifest, TraceError> {
    load_manifest_all(path, settings).map_err(first_error)
}

/// [`load_manifest`] reporting every error: all of the API server's validation errors of the
/// spec, in its order (as `kubectl apply` prints them). A document that cannot be read, parsed or converted has one error, as do a
/// wrong `apiVersion` or `kind` and a missing `metadata.name` (which `kubectl apply` refuses
/// before sending anything).
///
/// # Errors
///
/// Every [`TraceError`], in order; never an empty list.
pub fn load_manifest_all(path: &Path, settings: &Settings) -> Result<Manifest, Vec<TraceError>> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        vec![TraceError::new(
            "",
            format!("cannot read {}: {e}", path.display()),
        )]
    })?;
    parse_manifest_all(&text, Format::from_path(path), settings)
}

/// Parses and checks a manifest document (see [`Manifest`]).
///
/// # Errors
///
/// A [`TraceError`] naming the first field at fault.
pub fn parse_manifest(
    text: &str,
    format: Format,
    settings: &Settings,
) -> Result<Manifest, TraceError> {
    parse_manifest_all(text, format, settings).map_err(first_error)
}

/// [`parse_manifest`] reporting every error (see [`load_manifest_all`]).
///
/// # Errors
///
/// Every [`TraceError`], in order; never an empty list.
pub fn parse_manifest_all(
    text: &str,
    format: Format,
    settings: &Settings,
) -> Result<Manifest, Vec<TraceError>> {
    let raw: RawHpa = match format {
        Format::Json => parse_json(text),
        Format::Yaml => parse_yaml(text),
    }
    .map_err(|e| vec![e])?;
    check_type_meta(&raw, "").map_err(|e| vec![e])?;
    let metadata = raw.metadata;
    let has_generate_name = metadata.as_ref().is_some_and(|m| m.generate_name.is_some());
    let name = metadata.and_then(|m| m.name).unwrap_or_default();
    if name.is_empty() && !has_generate_name {
        return Err(vec![TraceError::new(
            "metadata.name",
            "Required value: name or generateName is required",
        )]);
    }
    let mut raw_spec = raw.spec.unwrap_or_default();
    // Required by the API: an absent reference is validated as an empty one.
    raw_spec
        .scale_target_ref
        .get_or_insert_with(RawObjectRef::default);
    let spec = checked_spec_all(raw_spec, settings, "")?;
    Ok(Manifest { name, spec })
}

/// The first of a list of errors that is never empty.
fn first_error(errors: Vec<TraceError>) -> TraceError {
    errors
        .into_iter()
        .next()
        .unwrap_or_else(|| TraceError::new("", "invalid manifest"))
}

// ---------------------------------------------------------------------------------------------
// Pass 2: conversion and checks
// ---------------------------------------------------------------------------------------------

/// Upstream's `field.NotSupported` message (for `apiVersion` and `kind`).
fn not_supported(value: &str, supported: &[&str]) -> String {
    let quoted: Vec<String> = supported.iter().map(|s| format!("{s:?}")).collect();
    format!(
        "Unsupported value: {value:?}: supported values: {}",
        quoted.join(", ")
    )
}

/// `apiVersion` and `kind`, when present, name an autoscaling/v2 HorizontalPodAutoscaler.
fn check_type_meta(hpa: &RawHpa, prefix: &str) -> Result<(), TraceError> {
    if let Some(api_version) = hpa.api_version.as_deref() {
        if api_version != "autoscaling/v2" {
            return Err(TraceError::new(
                format!("{prefix}apiVersion"),
                not_supported(api_version, &["autoscaling/v2"]),
            ));
        }
    }
    if let Some(kind) = hpa.kind.as_deref() {
        if kind != "HorizontalPodAutoscaler" {
            return Err(TraceError::new(
                format!("{prefix}kind"),
                not_supported(kind, &["HorizontalPodAutoscaler"]),
            ));
        }
    }
    Ok(())
}

fn convert(raw: RawTrace) -> Result<Trace, TraceError> {
    let settings = convert_controller(raw.controller.unwrap_or_default())?;
    let hpa = raw.hpa;
    check_type_meta(&hpa, TRACE_PREFIX)?;
    let name = hpa.metadata.and_then(|m| m.name).unwrap_or_default();
    let scaled_to_zero = hpa
        .status
        .and_then(|s| s.conditions)
        .unwrap_or_default()
        .iter()
        .any(|c| c.type_.as_deref() == Some("ScaledToZero") && c.status.as_deref() == Some("True"));

    let spec = checked_spec(hpa.spec.unwrap_or_default(), &settings, TRACE_PREFIX)?;
    // After API defaulting an empty `metrics` is one cpu Resource metric.
    let metric_types: Vec<MetricSourceType> = if spec.metrics.is_empty() {
        vec![MetricSourceType::Resource]
    } else {
        spec.metrics
            .iter()
            .enumerate()
            .map(|(i, m)| {
                m.type_.ok_or_else(|| {
                    TraceError::new(
                        format!("hpa.spec.metrics[{i}].type"),
                        "Required value: must specify a metric source type",
                    )
                })
            })
            .collect::<Result<_, _>>()?
    };

    let mut steps = Vec::with_capacity(raw.steps.len());
    let mut previous_at: Option<i64> = None;
    for (i, step) in raw.steps.into_iter().enumerate() {
        if let Some(previous) = previous_at.filter(|previous| step.at < *previous) {
            return Err(TraceError::new(
                format!("steps[{i}].at"),
                format!(
                    "steps must be in non-decreasing `at` order: {} is earlier than the \
                     previous step's {previous}",
                    step.at
                ),
            ));
        }
        previous_at = Some(step.at);
        steps.push(convert_step(
            i,
            step,
            &metric_types,
            spec.metrics.is_empty(),
        )?);
    }
    Ok(Trace {
        settings,
        scaled_to_zero,
        name,
        spec,
        steps,
    })
}

/// Field paths of the HPA inside a trace start with `hpa.`; a standalone manifest's have no
/// prefix (`spec.minReplicas`, as the API server reports them).
const TRACE_PREFIX: &str = "hpa.";

/// A validation error under `prefix` (its text is `<field>: <detail>`).
fn validation_error(e: &ValidationError, prefix: &str) -> TraceError {
    let field = e.field.to_string();
    let text = e.to_string();
    let message = text
        .strip_prefix(&format!("{field}: "))
        .unwrap_or(&text)
        .to_owned();
    TraceError::new(format!("{prefix}{field}"), message)
}

// --- controller ------------------------------------------------------------------------------

/// A decimal number read from its text: `(-1)^negative × digits × 10^exp10`, with `digits`
/// free of leading and trailing zeros (empty for zero).
#[derive(Debug, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    digits: String,
    exp10: i64,
}

impl Decimal {
    /// `[+-]? (d+ (. d*)? | . d+) ([eE] [+-]? d+)?` (JSON numbers and YAML 1.2 floats).
    fn parse(text: &str) -> Option<Decimal> {
        let (negative, rest) = match text.as_bytes().first() {
            Some(b'-') => (true, &text[1..]),
            Some(b'+') => (false, &text[1..]),
            _ => (false, text),
        };
        let (mantissa, exponent) = match rest.find(['e', 'E']) {
            Some(at) => (&rest[..at], Some(&rest[at + 1..])),
            None => (rest, None),
        };
        let (int_part, frac_part) = match mantissa.split_once('.') {
            Some((int_part, frac_part)) => (int_part, frac_part),
            None => (mantissa, ""),
        };
        let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if int_part.is_empty() && frac_part.is_empty()
            || !all_digits(int_part)
            || !all_digits(frac_part)
        {
            return None;
        }
        let mut exp10: i64 = match exponent {
            None => 0,
            Some(e) => {
                let (negative_exp, digits) = match e.as_bytes().first() {
                    Some(b'-') => (true, &e[1..]),
                    Some(b'+') => (false, &e[1..]),
                    _ => (false, e),
                };
                if digits.is_empty() || !all_digits(digits) {
                    return None;
                }
                // Saturates far beyond any meaningful exponent.
                let magnitude = digits.bytes().fold(0i64, |acc, b| {
                    acc.saturating_mul(10).saturating_add(i64::from(b - b'0'))
                });
                if negative_exp {
                    -magnitude
                } else {
                    magnitude
                }
            }
        };
        let mut digits: String = int_part.chars().chain(frac_part.chars()).collect();
        exp10 = exp10.saturating_sub(i64::try_from(frac_part.len()).unwrap_or(i64::MAX));
        let trimmed_start = digits.trim_start_matches('0').len();
        digits.drain(..digits.len() - trimmed_start);
        let trimmed_end = digits.trim_end_matches('0').len();
        let trailing = digits.len() - trimmed_end;
        digits.truncate(trimmed_end);
        exp10 = exp10.saturating_add(i64::try_from(trailing).unwrap_or(i64::MAX));
        if digits.is_empty() {
            exp10 = 0;
        }
        Some(Decimal {
            negative,
            digits,
            exp10,
        })
    }

    fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }
}

/// Parses a non-negative controller number, naming `path` in errors.
fn non_negative_decimal(path: &str, text: &str) -> Result<Decimal, TraceError> {
    let decimal = Decimal::parse(text)
        .ok_or_else(|| TraceError::new(path, format!("invalid number {text:?}")))?;
    if decimal.negative && !decimal.is_zero() {
        return Err(TraceError::new(
            path,
            format!("must not be negative, got {text}"),
        ));
    }
    Ok(decimal)
}

/// `controller.tolerance`: the exact decimal and its nearest float64.
fn tolerance(path: &str, text: &str) -> Result<Tolerance, TraceError> {
    let decimal = non_negative_decimal(path, text)?;
    if decimal.is_zero() {
        return Tolerance::from_decimal(0, 0)
            .ok_or_else(|| TraceError::new(path, format!("{text} is beyond float64's range")));
    }
    if decimal.digits.len() > 19 {
        return Err(TraceError::new(
            path,
            format!("{text} has more than 19 significant digits"),
        ));
    }
    let mantissa: u64 = decimal
        .digits
        .parse()
        .map_err(|_| TraceError::new(path, format!("invalid number {text:?}")))?;
    let exp10 = i32::try_from(decimal.exp10).map_err(|_| {
        if decimal.exp10 > 0 {
            TraceError::new(path, format!("{text} is beyond float64's range"))
        } else {
            TraceError::new(
                path,
                format!("{text} is too small: its exponent is out of range"),
            )
        }
    })?;
    Tolerance::from_decimal(mantissa, exp10)
        .ok_or_else(|| TraceError::new(path, format!("{text} is beyond float64's range")))
}

/// A controller duration in seconds, converted to milliseconds exactly.
fn duration_seconds(path: &str, text: &str) -> Result<Duration, TraceError> {
    let decimal = non_negative_decimal(path, text)?;
    if decimal.is_zero() {
        return Ok(Duration::ZERO);
    }
    let ms_exp = decimal.exp10.saturating_add(3);
    if ms_exp < 0 {
        return Err(TraceError::new(
            path,
            format!("{text} seconds is not a whole number of milliseconds"),
        ));
    }
    let too_large = || {
        TraceError::new(
            path,
            format!("{text} seconds is too large (at most {} ms)", i64::MAX),
        )
    };
    let mantissa: i64 = decimal.digits.parse().map_err(|_| too_large())?;
    let scale = u32::try_from(ms_exp)
        .ok()
        .and_then(|e| 10i64.checked_pow(e))
        .ok_or_else(too_large)?;
    mantissa
        .checked_mul(scale)
        .map(Duration::from_millis)
        .ok_or_else(too_large)
}

fn convert_controller(raw: RawController) -> Result<Settings, TraceError> {
    let mut settings = Settings::DEFAULT;
    if let Some(text) = &raw.tolerance {
        settings.tolerance = tolerance("controller.tolerance", &text.0)?;
    }
    if let Some(text) = &raw.downscale_stabilization_window_seconds {
        settings.downscale_stabilization_window =
            duration_seconds("controller.downscaleStabilizationWindowSeconds", &text.0)?;
    }
    if let Some(text) = &raw.cpu_initialization_period_seconds {
        settings.cpu_initialization_period =
            duration_seconds("controller.cpuInitializationPeriodSeconds", &text.0)?;
    }
    if let Some(text) = &raw.initial_readiness_delay_seconds {
        settings.initial_readiness_delay =
            duration_seconds("controller.initialReadinessDelaySeconds", &text.0)?;
    }
    if let Some(on) = raw.scale_to_zero {
        settings.scale_to_zero = on;
    }
    if let Some(arithmetic) = raw.arithmetic {
        settings.arithmetic = match arithmetic {
            RawArithmetic::Kubernetes => Arithmetic::Kubernetes,
            RawArithmetic::Exact => Arithmetic::Exact,
        };
    }
    Ok(settings)
}

// --- hpa.spec --------------------------------------------------------------------------------

fn quantity(path: &str, text: &QuantityText) -> Result<Quantity, TraceError> {
    Quantity::parse(&text.0)
        .map_err(|e| TraceError::new(path, format!("invalid quantity {:?}: {e}", text.0)))
}

fn convert_ref(raw: RawObjectRef) -> OwnedRef {
    OwnedRef {
        kind: raw.kind.unwrap_or_default(),
        name: raw.name.unwrap_or_default(),
        api_version: raw.api_version.unwrap_or_default(),
    }
}

fn convert_identifier(raw: Option<RawIdentifier>) -> OwnedIdentifier {
    let raw = raw.unwrap_or_default();
    let selector = raw.selector.map(|s| LabelSelector {
        match_labels: s.match_labels.unwrap_or_default().0,
        match_expressions: s
            .match_expressions
            .unwrap_or_default()
            .into_iter()
            .map(|r| Requirement {
                key: r.key.unwrap_or_default(),
                operator: r.operator.unwrap_or_default(),
                values: r.values.unwrap_or_default(),
            })
            .collect(),
    });
    OwnedIdentifier {
        name: raw.name.unwrap_or_default(),
        selector_invalid: selector.as_ref().is_some_and(|s| !s.converts()),
        selector: selector.as_ref().map(LabelSelector::render),
    }
}

/// A string of the spec that the typed model cannot hold (owned form of [`Unrecognized`]).
#[derive(Debug)]
enum OwnedUnrecognized {
    MetricType {
        metric: usize,
        value: String,
    },
    TargetType {
        metric: usize,
        source: MetricSourceType,
        value: String,
    },
    SelectPolicy {
        direction: Direction,
        value: String,
    },
    PolicyType {
        direction: Direction,
        policy: usize,
        value: String,
    },
}

impl OwnedUnrecognized {
    fn view(&self) -> Unrecognized<'_> {
        match self {
            OwnedUnrecognized::MetricType { metric, value } => Unrecognized::MetricType {
                metric: *metric,
                value,
            },
            OwnedUnrecognized::TargetType {
                metric,
                source,
                value,
            } => Unrecognized::TargetType {
                metric: *metric,
                source: *source,
                value,
            },
            OwnedUnrecognized::SelectPolicy { direction, value } => Unrecognized::SelectPolicy {
                direction: *direction,
                value,
            },
            OwnedUnrecognized::PolicyType {
                direction,
                policy,
                value,
            } => Unrecognized::PolicyType {
                direction: *direction,
                policy: *policy,
                value,
            },
        }
    }
}

/// Converts `hpa.spec`, collecting the enum strings the typed model cannot hold; validation
/// reports them at their place in upstream's order.
struct SpecConverter {
    unrecognized: Vec<OwnedUnrecognized>,
    /// Prefix of the field paths in errors ([`TRACE_PREFIX`] or empty).
    prefix: &'static str,
}

impl SpecConverter {
    fn target(
        &mut self,
        metric: usize,
        source: MetricSourceType,
        raw: Option<RawTarget>,
    ) -> Result<MetricTarget, TraceError> {
        let path = format!(
            "{}spec.metrics[{metric}].{}.target",
            self.prefix,
            source_field_name(source)
        );
        let raw = raw.unwrap_or_default();
        let type_ = match raw.type_.as_deref() {
            None | Some("") => None,
            Some("Utilization") => Some(MetricTargetType::Utilization),
            Some("Value") => Some(MetricTargetType::Value),
            Some("AverageValue") => Some(MetricTargetType::AverageValue),
            Some(other) => {
                self.unrecognized.push(OwnedUnrecognized::TargetType {
                    metric,
                    source,
                    value: other.to_owned(),
                });
                None
            }
        };
        Ok(MetricTarget {
            type_,
            value: raw
                .value
                .as_ref()
                .map(|q| quantity(&format!("{path}.value"), q))
                .transpose()?,
            average_value: raw
                .average_value
                .as_ref()
                .map(|q| quantity(&format!("{path}.averageValue"), q))
                .transpose()?,
            average_utilization: raw.average_utilization,
        })
    }

    fn metric(&mut self, index: usize, raw: RawMetricSpec) -> Result<OwnedMetric, TraceError> {
        let type_ = match raw.type_.as_deref() {
            None | Some("") => None,
            Some("Object") => Some(MetricSourceType::Object),
            Some("Pods") => Some(MetricSourceType::Pods),
            Some("Resource") => Some(MetricSourceType::Resource),
            Some("ContainerResource") => Some(MetricSourceType::ContainerResource),
            Some("External") => Some(MetricSourceType::External),
            Some(other) => {
                self.unrecognized.push(OwnedUnrecognized::MetricType {
                    metric: index,
                    value: other.to_owned(),
                });
                None
            }
        };
        let object = match raw.object {
            Some(o) => Some((
                convert_ref(o.described_object.unwrap_or_default()),
                convert_identifier(o.metric),
                self.target(index, MetricSourceType::Object, o.target)?,
            )),
            None => None,
        };
        let pods = match raw.pods {
            Some(p) => Some((
                convert_identifier(p.metric),
                self.target(index, MetricSourceType::Pods, p.target)?,
            )),
            None => None,
        };
        let resource = match raw.resource {
            Some(r) => Some((
                r.name.unwrap_or_default(),
                self.target(index, MetricSourceType::Resource, r.target)?,
            )),
            None => None,
        };
        let container_resource = match raw.container_resource {
            Some(r) => Some((
                r.name.unwrap_or_default(),
                r.container.unwrap_or_default(),
                self.target(index, MetricSourceType::ContainerResource, r.target)?,
            )),
            None => None,
        };
        let external = match raw.external {
            Some(e) => Some((
                convert_identifier(e.metric),
                self.target(index, MetricSourceType::External, e.target)?,
            )),
            None => None,
        };
        Ok(OwnedMetric {
            type_,
            object,
            pods,
            resource,
            container_resource,
            external,
        })
    }

    fn rules(&mut self, direction: Direction, raw: RawRules) -> Result<OwnedRules, TraceError> {
        let select_policy = match raw.select_policy.as_deref() {
            None => None,
            Some("Max") => Some(SelectPolicy::Max),
            Some("Min") => Some(SelectPolicy::Min),
            Some("Disabled") => Some(SelectPolicy::Disabled),
            Some(other) => {
                self.unrecognized.push(OwnedUnrecognized::SelectPolicy {
                    direction,
                    value: other.to_owned(),
                });
                None
            }
        };
        let policies = raw.policies.map(|policies| {
            policies
                .into_iter()
                .enumerate()
                .map(|(policy, p)| {
                    let type_ = match p.type_.as_deref().unwrap_or("") {
                        "Pods" => PolicyType::Pods,
                        "Percent" => PolicyType::Percent,
                        other => {
                            self.unrecognized.push(OwnedUnrecognized::PolicyType {
                                direction,
                                policy,
                                value: other.to_owned(),
                            });
                            // A placeholder: validation reports the string at this place.
                            PolicyType::Pods
                        }
                    };
                    ScalingPolicy {
                        type_,
                        // Go decodes absent integers as 0, which validation rejects.
                        value: p.value.unwrap_or(0),
                        period_seconds: p.period_seconds.unwrap_or(0),
                    }
                })
                .collect()
        });
        let path = format!(
            "{}spec.behavior.{}.tolerance",
            self.prefix,
            direction.field_name()
        );
        Ok(OwnedRules {
            stabilization_window_seconds: raw.stabilization_window_seconds,
            select_policy,
            policies,
            tolerance: raw
                .tolerance
                .as_ref()
                .map(|q| quantity(&path, q))
                .transpose()?,
        })
    }

    fn spec(&mut self, raw: RawSpec) -> Result<OwnedSpec, TraceError> {
        let metrics = raw
            .metrics
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .map(|(i, m)| self.metric(i, m))
            .collect::<Result<Vec<_>, _>>()?;
        let behavior = match raw.behavior {
            None => None,
            Some(b) => Some(OwnedBehavior {
                scale_up: b
                    .scale_up
                    .map(|r| self.rules(Direction::ScaleUp, r))
                    .transpose()?,
                scale_down: b
                    .scale_down
                    .map(|r| self.rules(Direction::ScaleDown, r))
                    .transpose()?,
            }),
        };
        Ok(OwnedSpec {
            min_replicas: raw.min_replicas,
            // Go decodes an absent `maxReplicas` as 0, which validation rejects.
            max_replicas: raw.max_replicas.unwrap_or(0),
            metrics,
            behavior,
            scale_target_ref: raw.scale_target_ref.map(convert_ref),
        })
    }
}

/// Converts and validates `hpa.spec` as the API server would (after defaulting); error paths
/// start with `prefix`. The error is the first one [`checked_spec_all`] lists.
fn checked_spec(
    raw: RawSpec,
    settings: &Settings,
    prefix: &'static str,
) -> Result<OwnedSpec, TraceError> {
    checked_spec_all(raw, settings, prefix).map_err(first_error)
}

/// [`checked_spec`] with every error: a conversion error alone, or the API server's
/// validation errors in its order ([`validate_spec_each`]); for a spec without any, an
/// unrecognized string that validation did not reach, or else the engine's limit on the
/// number of metrics ([`Hpa::new`]).
fn checked_spec_all(
    raw: RawSpec,
    settings: &Settings,
    prefix: &'static str,
) -> Result<OwnedSpec, Vec<TraceError>> {
    let mut converter = SpecConverter {
        unrecognized: Vec::new(),
        prefix,
    };
    let spec = converter.spec(raw).map_err(|e| vec![e])?;
    let arena = Bump::new();
    let view = spec.view(&arena);
    let unrecognized: Vec<Unrecognized<'_>> = converter
        .unrecognized
        .iter()
        .map(OwnedUnrecognized::view)
        .collect();
    let mut errors = Vec::new();
    validate_spec_each(&view, settings.scale_to_zero, &unrecognized, &mut |e| {
        errors.push(validation_error(e, prefix));
    });
    if errors.is_empty() {
        // Validation reports every unrecognized string it reaches; one it does not reach is
        // still a value the engine cannot run with.
        if let Some(first) = unrecognized.first() {
            errors.push(validation_error(&first.to_error(), prefix));
        }
    }
    if errors.is_empty() {
        // The engine's own limit on the number of metrics, which `Hpa::new` checks once the
        // spec passes validation.
        if let Err(e) = Hpa::new(&view, settings) {
            errors.push(validation_error(&e, prefix));
        }
    }
    if errors.is_empty() {
        Ok(spec)
    } else {
        Err(errors)
    }
}

// --- steps -----------------------------------------------------------------------------------

/// A replica count in `[0, 2^31 - 1]`.
fn replica_count(path: String, value: i64) -> Result<i32, TraceError> {
    i32::try_from(value)
        .ok()
        .filter(|v| *v >= 0)
        .ok_or_else(|| {
            TraceError::new(
                path,
                format!("must be between 0 and {}, got {value}", i32::MAX),
            )
        })
}

fn convert_requests(
    path: &str,
    raw: StrictMap<QuantityText>,
) -> Result<Vec<(String, Quantity)>, TraceError> {
    raw.0
        .into_iter()
        .map(|(resource, text)| {
            let q = quantity(&format!("{path}.{resource}"), &text)?;
            Ok((resource, q))
        })
        .collect()
}

fn convert_pod(path: &str, raw: RawPod) -> Result<OwnedPod, TraceError> {
    let mut names = HashSet::new();
    let mut containers = Vec::new();
    for (k, c) in raw.containers.unwrap_or_default().into_iter().enumerate() {
        let cpath = format!("{path}.containers[{k}]");
        if !names.insert(c.name.clone()) {
            return Err(TraceError::new(
                format!("{cpath}.name"),
                format!("duplicate container name {:?}", c.name),
            ));
        }
        containers.push(OwnedContainer {
            kind: if c.restartable_init.unwrap_or(false) {
                ContainerKind::RestartableInit
            } else {
                ContainerKind::Regular
            },
            requests: convert_requests(
                &format!("{cpath}.requests"),
                c.requests.unwrap_or_default(),
            )?,
            name: c.name,
        });
    }
    let requests = raw
        .requests
        .map(|r| convert_requests(&format!("{path}.requests"), r))
        .transpose()?;
    let phase = match raw.phase.unwrap_or(RawPhase::Running) {
        RawPhase::Pending => PodPhase::Pending,
        RawPhase::Running => PodPhase::Running,
        RawPhase::Succeeded => PodPhase::Succeeded,
        RawPhase::Failed => PodPhase::Failed,
        RawPhase::Unknown => PodPhase::Unknown,
    };
    let ready = raw.ready.map(|status| ReadyCondition {
        status: match status {
            RawConditionStatus::True => ConditionStatus::True,
            RawConditionStatus::False => ConditionStatus::False,
            RawConditionStatus::Unknown => ConditionStatus::Unknown,
        },
        last_transition: raw.ready_transition_time.map(Instant),
    });
    Ok(OwnedPod {
        name: raw.name,
        phase,
        ready,
        start_time: raw.start_time.map(Instant),
        deleted: raw.deleted.unwrap_or(false),
        containers,
        requests,
    })
}

/// Which of a metric entry's fields are set.
fn entry_fields(raw: &RawMetricValues) -> Vec<&'static str> {
    let mut fields = Vec::new();
    if raw.samples.is_some() {
        fields.push("samples");
    }
    if raw.value.is_some() {
        fields.push("value");
    }
    if raw.values.is_some() {
        fields.push("values");
    }
    if raw.error.is_some() {
        fields.push("error");
    }
    fields
}

/// One pod's sample, or `None` when the pod has no sample for the metric (trace format rule 7,
/// algorithm spec §9): a Resource sample with neither `value` nor any container usage is a pod
/// whose metrics list no containers, which upstream's resource metrics client gives no sample.
/// A ContainerResource sample is kept as it is, whatever containers it lists: the engine reads
/// the named container in it, and a pod whose sample lacks that container is missing, as
/// upstream since PR #127193 (the sample still counts as the metrics API having answered, so
/// that a metric no pod has the container for fails with upstream's "did not receive metrics
/// for targeted pods", not "no metrics returned").
fn convert_sample(
    path: &str,
    raw: RawSample,
    type_: MetricSourceType,
    at: i64,
) -> Result<Option<OwnedSample>, TraceError> {
    let window = match raw.window {
        None => 60_000,
        Some(w) if w < 0 => {
            return Err(TraceError::new(
                format!("{path}.window"),
                format!("must not be negative, got {w}"),
            ))
        }
        Some(w) => w,
    };
    let containers = raw
        .containers
        .unwrap_or_default()
        .0
        .into_iter()
        .map(|(name, text)| {
            let q = quantity(&format!("{path}.containers.{name}"), &text)?;
            Ok((name, q.milli_value()))
        })
        .collect::<Result<Vec<_>, TraceError>>()?;
    let milli = match &raw.value {
        Some(text) => quantity(&format!("{path}.value"), text)?.milli_value(),
        None if type_ == MetricSourceType::Pods => {
            return Err(TraceError::new(
                format!("{path}.value"),
                "required: a Pods metric sample needs `value`",
            ))
        }
        None if containers.is_empty() && type_ == MetricSourceType::Resource => return Ok(None),
        // Upstream sums the containers' milli-values; saturate instead of wrapping.
        None => containers
            .iter()
            .fold(0i64, |sum, (_, milli)| sum.saturating_add(*milli)),
    };
    Ok(Some(OwnedSample {
        milli,
        timestamp: Instant(raw.timestamp.unwrap_or(at)),
        window: Duration::from_millis(window),
        containers,
    }))
}

fn convert_metric_values(
    path: &str,
    raw: RawMetricValues,
    type_: MetricSourceType,
    spec_metric: &str,
    pod_index: &HashMap<&str, usize>,
    at: i64,
) -> Result<OwnedMetricValues, TraceError> {
    let fields = entry_fields(&raw);
    let expected = match type_ {
        MetricSourceType::Resource
        | MetricSourceType::ContainerResource
        | MetricSourceType::Pods => "samples",
        MetricSourceType::Object => "value",
        MetricSourceType::External => "values",
    };
    match fields.as_slice() {
        [] => {
            return Err(TraceError::new(
                path,
                format!(
                    "empty entry: {spec_metric} (a {} metric) needs `{expected}` or `error`",
                    type_.as_str()
                ),
            ))
        }
        [one] if *one == expected || *one == "error" => {}
        [one] => {
            return Err(TraceError::new(
                path,
                format!(
                    "{spec_metric} is a {} metric: its entry needs `{expected}` or `error`, \
                     not `{one}`",
                    type_.as_str()
                ),
            ))
        }
        several => {
            return Err(TraceError::new(
                path,
                format!(
                    "an entry holds exactly one of `samples`, `value`, `values` or `error`, \
                     found `{}`",
                    several.join("`, `")
                ),
            ))
        }
    }
    if let Some(message) = raw.error {
        return Ok(OwnedMetricValues::Error(message));
    }
    if let Some(samples) = raw.samples {
        let mut per_pod = vec![None; pod_index.len()];
        let mut orphans = Vec::new();
        for (name, sample) in samples.0 {
            let Some(sample) =
                convert_sample(&format!("{path}.samples.{name}"), sample, type_, at)?
            else {
                continue;
            };
            match pod_index.get(name.as_str()) {
                Some(&i) => per_pod[i] = Some(sample),
                None => orphans.push((name, sample)),
            }
        }
        orphans.sort_by(|a, b| a.0.cmp(&b.0));
        return Ok(OwnedMetricValues::Pods {
            per_pod,
            orphans: orphans.into_iter().map(|(_, s)| s).collect(),
        });
    }
    if let Some(text) = raw.value {
        return Ok(OwnedMetricValues::Object(
            quantity(&format!("{path}.value"), &text)?.milli_value(),
        ));
    }
    let values = raw
        .values
        .unwrap_or_default()
        .iter()
        .enumerate()
        .map(|(k, text)| Ok(quantity(&format!("{path}.values[{k}]"), text)?.milli_value()))
        .collect::<Result<Vec<_>, TraceError>>()?;
    Ok(OwnedMetricValues::External(values))
}

fn convert_step(
    i: usize,
    raw: RawStep,
    metric_types: &[MetricSourceType],
    default_metric: bool,
) -> Result<OwnedStep, TraceError> {
    let path = format!("steps[{i}]");
    let replicas = replica_count(format!("{path}.replicas"), raw.replicas)?;
    let status_replicas = match raw.status_replicas {
        Some(v) => replica_count(format!("{path}.statusReplicas"), v)?,
        None => replicas,
    };
    let mut pods = Vec::new();
    for (j, pod) in raw.pods.unwrap_or_default().into_iter().enumerate() {
        pods.push(convert_pod(&format!("{path}.pods[{j}]"), pod)?);
    }
    let mut pod_index = HashMap::with_capacity(pods.len());
    for (j, pod) in pods.iter().enumerate() {
        if pod_index.insert(pod.name.as_str(), j).is_some() {
            return Err(TraceError::new(
                format!("{path}.pods[{j}].name"),
                format!("duplicate pod name {:?}", pod.name),
            ));
        }
    }
    let raw_metrics = raw.metrics.unwrap_or_default();
    if raw_metrics.len() != metric_types.len() {
        let what = if default_metric {
            "one entry for the default cpu metric (hpa.spec.metrics is empty)".to_owned()
        } else {
            format!(
                "{} entries, one per hpa.spec.metrics[i] in the same order",
                metric_types.len()
            )
        };
        return Err(TraceError::new(
            format!("{path}.metrics"),
            format!("expected {what}, found {}", raw_metrics.len()),
        ));
    }
    let metrics = raw_metrics
        .into_iter()
        .zip(metric_types)
        .enumerate()
        .map(|(j, (entry, type_))| {
            let spec_metric = if default_metric {
                "the default cpu metric".to_owned()
            } else {
                format!("hpa.spec.metrics[{j}]")
            };
            convert_metric_values(
                &format!("{path}.metrics[{j}]"),
                entry,
                *type_,
                &spec_metric,
                &pod_index,
                raw.at,
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(OwnedStep {
        at: raw.at,
        replicas,
        status_replicas,
        applied: raw.applied.unwrap_or(true),
        pods,
        metrics,
    })
}

#[cfg(test)]
mod tests {
    use hpa::input::{ContainerUsage, MetricValues, PodSamples, Sample};

    use super::test_support::{assert_error, base_with, json, yaml, BASE};
    use super::*;

    /// The document example of the format, completed into a valid trace.
    const EXAMPLE_JSON: &str = r#"{
  "hpa": { "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
           "metadata": { "name": "worker", "namespace": "default", "labels": { "app": "worker" },
                         "annotations": {}, "uid": "1234", "resourceVersion": "7",
                         "generation": 2, "creationTimestamp": "2024-01-01T00:00:00Z" },
           "spec": {
             "scaleTargetRef": { "apiVersion": "apps/v1", "kind": "Deployment", "name": "worker" },
             "minReplicas": 1, "maxReplicas": 10,
             "metrics": [
               { "type": "Resource",
                 "resource": { "name": "cpu", "target": { "type": "Utilization", "averageUtilization": 50 } } },
               { "type": "Object",
                 "object": { "describedObject": { "apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "name": "main" },
                             "metric": { "name": "requests-per-second" },
                             "target": { "type": "Value", "value": "10k" } } },
               { "type": "External",
                 "external": { "metric": { "name": "queue_messages",
                                           "selector": { "matchLabels": { "queue": "jobs", "env": "prod" } } },
                               "target": { "type": "AverageValue", "averageValue": 30 } } },
               { "type": "Pods",
                 "pods": { "metric": { "name": "packets-per-second" },
                           "target": { "type": "AverageValue", "averageValue": "1k" } } }
             ],
             "behavior": {
               "scaleUp": { "selectPolicy": "Max", "tolerance": "0.05" },
               "scaleDown": { "stabilizationWindowSeconds": 300,
                              "policies": [ { "type": "Percent", "value": 100, "periodSeconds": 15 } ] }
             },
             "syncPeriodSeconds": 15
           },
           "status": { "currentReplicas": 3, "desiredReplicas": 3,
                       "conditions": [ { "type": "ScaledToZero", "status": "True", "reason": "ScaledToZero",
                                         "lastTransitionTime": "2024-01-01T00:00:00Z" } ] } },
  "controller": {
    "tolerance": 0.1,
    "downscaleStabilizationWindowSeconds": 300,
    "cpuInitializationPeriodSeconds": 300,
    "initialReadinessDelaySeconds": 30,
    "scaleToZero": true,
    "arithmetic": "kubernetes"
  },
  "steps": [
    {
      "at": 15000,
      "replicas": 3,
      "statusReplicas": 3,
      "pods": [
        { "name": "worker-0", "phase": "Running", "ready": "True",
          "readyTransitionTime": -50000, "startTime": -60000, "deleted": false,
          "containers": [ { "name": "app", "requests": { "cpu": "500m", "memory": "256Mi" } },
                          { "name": "sidecar", "requests": { "cpu": "100m" }, "restartableInit": true } ] }
      ],
      "metrics": [
        { "samples": { "worker-0": { "value": "420m", "timestamp": 14000, "window": 60000,
                                     "containers": { "app": "400m", "sidecar": "20m" } } } },
        { "value": "80" },
        { "values": [ "30", "50" ] },
        { "error": "custom metrics adapter unavailable" }
      ],
      "applied": true
    },
    {
      "at": 15000,
      "replicas": 2,
      "pods": [ { "name": "b" }, { "name": "a", "phase": "Pending", "ready": "False", "deleted": true,
                  "requests": { "cpu": 1 } } ],
      "metrics": [
        { "samples": { "zz": { "value": 0.1 }, "a": { "containers": { "c": "1", "d": "250m" } },
                       "orphan": { "value": "1m" } } },
        { "error": "boom" },
        { "values": [] },
        { "samples": {} }
      ],
      "applied": false
    }
  ]
}"#;

    /// The same trace in YAML.
    const EXAMPLE_YAML: &str = r#"
hpa:
  apiVersion: autoscaling/v2
  kind: HorizontalPodAutoscaler
  metadata:
    name: worker
    namespace: default
    labels: {app: worker}
    annotations: {}
    uid: "1234"
    resourceVersion: "7"
    generation: 2
    creationTimestamp: "2024-01-01T00:00:00Z"
  spec:
    scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: worker}
    minReplicas: 1
    maxReplicas: 10
    metrics:
    - type: Resource
      resource:
        name: cpu
        target: {type: Utilization, averageUtilization: 50}
    - type: Object
      object:
        describedObject: {apiVersion: networking.k8s.io/v1, kind: Ingress, name: main}
        metric: {name: requests-per-second}
        target: {type: Value, value: 10k}
    - type: External
      external:
        metric:
          name: queue_messages
          selector:
            matchLabels: {queue: jobs, env: prod}
        target: {type: AverageValue, averageValue: 30}
    - type: Pods
      pods:
        metric: {name: packets-per-second}
        target: {type: AverageValue, averageValue: 1k}
    behavior:
      scaleUp: {selectPolicy: Max, tolerance: "0.05"}
      scaleDown:
        stabilizationWindowSeconds: 300
        policies:
        - {type: Percent, value: 100, periodSeconds: 15}
    syncPeriodSeconds: 15
  status:
    currentReplicas: 3
    desiredReplicas: 3
    conditions:
    - type: ScaledToZero
      status: "True"
      reason: ScaledToZero
      lastTransitionTime: "2024-01-01T00:00:00Z"
controller:
  tolerance: 0.1
  downscaleStabilizationWindowSeconds: 300
  cpuInitializationPeriodSeconds: 300
  initialReadinessDelaySeconds: 30
  scaleToZero: true
  arithmetic: kubernetes
steps:
- at: 15000
  replicas: 3
  statusReplicas: 3
  pods:
  - name: worker-0
    phase: Running
    ready: "True"
    readyTransitionTime: -50000
    startTime: -60000
    deleted: false
    containers:
    - {name: app, requests: {cpu: 500m, memory: 256Mi}}
    - {name: sidecar, requests: {cpu: 100m}, restartableInit: true}
  metrics:
  - samples:
      worker-0:
        value: 420m
        timestamp: 14000
        window: 60000
        containers: {app: 400m, sidecar: 20m}
  - value: "80"
  - values: ["30", "50"]
  - error: custom metrics adapter unavailable
  applied: true
- at: 15000
  replicas: 2
  pods:
  - name: b
  - {name: a, phase: Pending, ready: "False", deleted: true, requests: {cpu: 1}}
  metrics:
  - samples:
      zz: {value: 0.1}
      a: {containers: {c: "1", d: 250m}}
      orphan: {value: 1m}
  - error: boom
  - values: []
  - samples: {}
  applied: false
"#;

    #[test]
    fn base_is_valid() {
        let trace = json(BASE).unwrap();
        assert_eq!(trace.name, "w");
        assert_eq!(trace.steps(), 1);
        assert!(!trace.scaled_to_zero);
        assert_eq!(trace.settings, Settings::DEFAULT);
    }

    fn check_example(trace: &Trace) {
        assert_eq!(trace.name, "worker");
        assert!(trace.scaled_to_zero);
        assert_eq!(trace.settings, Settings::DEFAULT);
        assert_eq!(trace.steps(), 2);

        let arena = Bump::new();
        let spec = trace.spec(&arena);
        assert_eq!(spec.min_replicas, Some(1));
        assert_eq!(spec.max_replicas, 10);
        assert_eq!(spec.metrics.len(), 4);
        let external = spec.metrics[2].external.unwrap();
        assert_eq!(external.metric.name, "queue_messages");
        assert_eq!(
            external.metric.selector,
            Some(
                "&LabelSelector{MatchLabels:map[string]string{env: prod,queue: jobs,},\
                 MatchExpressions:[]LabelSelectorRequirement{},}"
            )
        );
        assert!(!external.metric.selector_invalid);
        assert_eq!(external.target.average_value.unwrap().milli_value(), 30_000);
        let object = spec.metrics[1].object.unwrap();
        assert_eq!(object.described_object.kind, "Ingress");
        assert_eq!(object.target.value.unwrap().milli_value(), 10_000_000);
        let behavior = spec.behavior.unwrap();
        let up = behavior.scale_up.unwrap();
        assert_eq!(up.select_policy, Some(SelectPolicy::Max));
        assert_eq!(up.tolerance.unwrap().milli_value(), 50);
        assert_eq!(up.policies, None);
        let down = behavior.scale_down.unwrap();
        assert_eq!(
            down.policies,
            Some(
                &[ScalingPolicy {
                    type_: PolicyType::Percent,
                    value: 100,
                    period_seconds: 15
                }][..]
            )
        );
        assert_eq!(spec.scale_target_ref.unwrap().name, "worker");
        assert!(Hpa::new(&spec, &trace.settings).is_ok());

        let step = trace.step_view(0, &arena);
        assert!(step.applied);
        let obs = step.observation;
        assert_eq!(obs.now, Instant(15_000));
        assert_eq!((obs.replicas, obs.status_replicas), (3, 3));
        let pod = obs.pods[0];
        assert_eq!(pod.name, "worker-0");
        assert_eq!(pod.phase, PodPhase::Running);
        assert_eq!(
            pod.ready,
            Some(ReadyCondition {
                status: ConditionStatus::True,
                last_transition: Some(Instant(-50_000)),
            })
        );
        assert_eq!(pod.start_time, Some(Instant(-60_000)));
        assert!(!pod.deleted);
        assert_eq!(pod.requests, None);
        assert_eq!(pod.containers.len(), 2);
        assert_eq!(pod.containers[0].kind, ContainerKind::Regular);
        assert_eq!(pod.containers[1].kind, ContainerKind::RestartableInit);
        assert_eq!(pod.containers[0].requests[0].resource, "cpu");
        assert_eq!(pod.containers[0].requests[0].quantity.milli_value(), 500);
        assert_eq!(pod.containers[0].requests[1].resource, "memory");
        assert_eq!(
            pod.containers[0].requests[1].quantity.milli_value(),
            256 * 1024 * 1024 * 1000
        );
        let MetricValues::Pods(samples) = obs.metrics[0] else {
            panic!("expected samples");
        };
        assert_eq!(samples.orphans, &[]);
        assert_eq!(
            samples.per_pod,
            &[Some(Sample {
                milli: 420,
                timestamp: Instant(14_000),
                window: Duration(60_000),
                containers: &[
                    ContainerUsage {
                        name: "app",
                        milli: 400
                    },
                    ContainerUsage {
                        name: "sidecar",
                        milli: 20
                    }
                ],
            })]
        );
        assert_eq!(obs.metrics[1], MetricValues::Object(80_000));
        assert_eq!(obs.metrics[2], MetricValues::External(&[30_000, 50_000]));
        assert_eq!(
            obs.metrics[3],
            MetricValues::Error("custom metrics adapter unavailable")
        );

        let step = trace.step_view(1, &arena);
        assert!(!step.applied);
        let obs = step.observation;
        assert_eq!((obs.replicas, obs.status_replicas), (2, 2));
        assert_eq!(obs.pods[0].phase, PodPhase::Running);
        assert_eq!(obs.pods[0].ready, None);
        assert_eq!(obs.pods[1].phase, PodPhase::Pending);
        assert!(obs.pods[1].deleted);
        assert_eq!(
            obs.pods[1].ready,
            Some(ReadyCondition {
                status: ConditionStatus::False,
                last_transition: None,
            })
        );
        assert_eq!(
            obs.pods[1].requests.unwrap()[0].quantity.milli_value(),
            1000
        );
        let MetricValues::Pods(samples) = obs.metrics[0] else {
            panic!("expected samples");
        };
        // `b` has no sample; `a` sums its containers; orphans sorted by name.
        assert_eq!(samples.per_pod[0], None);
        let a = samples.per_pod[1].unwrap();
        assert_eq!(a.milli, 1250);
        assert_eq!(a.timestamp, Instant(15_000));
        assert_eq!(a.window, Duration(60_000));
        let orphans: Vec<i64> = samples.orphans.iter().map(|s| s.milli).collect();
        assert_eq!(orphans, [1, 100]);
        assert_eq!(obs.metrics[1], MetricValues::Error("boom"));
        assert_eq!(obs.metrics[2], MetricValues::External(&[]));
        assert_eq!(
            obs.metrics[3],
            MetricValues::Pods(PodSamples {
                per_pod: &[None, None],
                orphans: &[],
            })
        );
    }

    #[test]
    fn document_example_json() {
        check_example(&json(EXAMPLE_JSON).unwrap());
    }

    #[test]
    fn document_example_yaml() {
        let from_yaml = yaml(EXAMPLE_YAML).unwrap();
        check_example(&from_yaml);
        let from_json = json(EXAMPLE_JSON).unwrap();
        let (a, b) = (Bump::new(), Bump::new());
        assert_eq!(
            format!("{:?}", from_yaml.spec(&a)),
            format!("{:?}", from_json.spec(&b))
        );
        for i in 0..from_json.steps() {
            assert_eq!(
                format!("{:?}", from_yaml.step_view(i, &a)),
                format!("{:?}", from_json.step_view(i, &b))
            );
        }
    }

    #[test]
    fn load_picks_the_format_by_extension() {
        let dir = std::env::temp_dir().join(format!("hpa-trace-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let yaml_path = dir.join("trace.YML");
        std::fs::write(&yaml_path, EXAMPLE_YAML).unwrap();
        let json_path = dir.join("trace.json");
        std::fs::write(&json_path, EXAMPLE_JSON).unwrap();
        check_example(&load(&yaml_path).unwrap());
        check_example(&load(&json_path).unwrap());
        let missing = load(&dir.join("missing.json")).unwrap_err();
        assert_eq!(missing.path, "");
        assert!(missing.message.starts_with("cannot read "));
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(Format::from_path(Path::new("a.yaml")), Format::Yaml);
        assert_eq!(Format::from_path(Path::new("a.trace")), Format::Json);
    }

    #[test]
    fn steps_in_order() {
        let step = r#"{"at": 5, "replicas": 1, "pods": [], "metrics": [{"error": "x"}]}"#;
        let text =
            base_with(r#""at": 0"#, r#""at": 10"#).replacen("]}]}", &format!("]}}, {step}]}}"), 1);
        assert_error(
            json(&text),
            "steps[1].at",
            "steps must be in non-decreasing `at` order: 5 is earlier than the previous step's 10",
        );
        // Equal times are fine.
        let equal = text.replacen(r#""at": 10"#, r#""at": 5"#, 1);
        assert_eq!(json(&equal).unwrap().steps(), 2);
    }

    #[test]
    fn replica_ranges() {
        assert_error(
            json(&base_with(r#""replicas": 1"#, r#""replicas": -1"#)),
            "steps[0].replicas",
            "must be between 0 and 2147483647, got -1",
        );
        assert_error(
            json(&base_with(
                r#""replicas": 1"#,
                r#""replicas": 1, "statusReplicas": 2147483648"#,
            )),
            "steps[0].statusReplicas",
            "must be between 0 and 2147483647, got 2147483648",
        );
    }

    #[test]
    fn duplicate_names() {
        assert_error(
            json(&base_with(
                r#"[{"name": "p0"}]"#,
                r#"[{"name": "p0"}, {"name": "p0"}]"#,
            )),
            "steps[0].pods[1].name",
            "duplicate pod name \"p0\"",
        );
        assert_error(
            json(&base_with(
                r#"{"name": "p0"}"#,
                r#"{"name": "p0", "containers": [{"name": "c"}, {"name": "c"}]}"#,
            )),
            "steps[0].pods[0].containers[1].name",
            "duplicate container name \"c\"",
        );
    }

    #[test]
    fn metric_entries() {
        assert_error(
            json(&base_with(
                r#""metrics": [{"samples""#,
                r#""metrics": [{"error": "x"}, {"samples""#,
            )),
            "steps[0].metrics",
            "expected 1 entries, one per hpa.spec.metrics[i] in the same order, found 2",
        );
        assert_error(
            json(&base_with(
                r#",
            "metrics": [{"samples": {"p0": {"value": "100m"}}}]"#,
                "",
            )),
            "steps[0].metrics",
            "expected 1 entries",
        );
        assert_error(
            json(&base_with(
                r#"{"samples": {"p0": {"value": "100m"}}}"#,
                r#"{"value": "1"}"#,
            )),
            "steps[0].metrics[0]",
            "hpa.spec.metrics[0] is a Resource metric: its entry needs `samples` or `error`, \
             not `value`",
        );
        assert_error(
            json(&base_with(
                r#"{"samples": {"p0": {"value": "100m"}}}"#,
                r#"{}"#,
            )),
            "steps[0].metrics[0]",
            "empty entry",
        );
        assert_error(
            json(&base_with(r#"{"samples""#, r#"{"error": "x", "samples""#)),
            "steps[0].metrics[0]",
            "an entry holds exactly one of",
        );
        // An empty `spec.metrics` is the default cpu metric.
        let default_metric = base_with(r#""metrics": [{"type""#, r#""metrics": [], "x": [{"type""#)
            .replacen(
                r#", "x": [{"type": "Resource",
    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}]"#,
                "",
                1,
            );
        assert!(json(&default_metric).is_ok(), "{default_metric}");
    }

    /// The samples of the only step's first metric.
    fn first_samples(trace: &Trace) -> (Vec<Option<OwnedSample>>, Vec<OwnedSample>) {
        match &trace.steps[0].metrics[0] {
            OwnedMetricValues::Pods { per_pod, orphans } => (per_pod.clone(), orphans.clone()),
            other => panic!("expected samples, got {other:?}"),
        }
    }

    #[test]
    fn samples() {
        // A Resource sample with neither `value` nor container usage: a pod whose metrics
        // list no containers, which upstream gives no sample (algorithm spec §9).
        for empty in [r#"{"timestamp": 3}"#, r#"{"containers": {}}"#] {
            let trace = json(&base_with(r#"{"value": "100m"}"#, empty)).unwrap();
            let (per_pod, orphans) = first_samples(&trace);
            assert!(per_pod[0].is_none() && orphans.is_empty(), "{empty}");
        }
        let orphan = base_with(
            r#""p0": {"value": "100m"}"#,
            r#""p0": {"value": "100m"}, "gone": {"containers": {}}"#,
        );
        let (per_pod, orphans) = first_samples(&json(&orphan).unwrap());
        assert!(per_pod[0].is_some() && orphans.is_empty());
        assert_error(
            json(&base_with(
                r#"{"value": "100m"}"#,
                r#"{"value": "1", "window": -1}"#,
            )),
            "steps[0].metrics[0].samples.p0.window",
            "must not be negative, got -1",
        );
        let pods_metric = base_with(
            r#"{"type": "Resource",
    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}"#,
            r#"{"type": "Pods", "pods": {"metric": {"name": "qps"},
    "target": {"type": "AverageValue", "averageValue": "1"}}}"#,
        );
        assert!(json(&pods_metric).is_ok());
        for no_value in [r#"{"containers": {"c": "1"}}"#, r#"{"containers": {}}"#] {
            assert_error(
                json(&pods_metric.replacen(r#"{"value": "100m"}"#, no_value, 1)),
                "steps[0].metrics[0].samples.p0.value",
                "required: a Pods metric sample needs `value`",
            );
        }
    }

    #[test]
    fn quantities() {
        assert_error(
            json(&base_with(r#""100m""#, r#""1.2.3""#)),
            "steps[0].metrics[0].samples.p0.value",
            "invalid quantity \"1.2.3\": quantities must match the regular expression",
        );
        assert_error(
            json(&base_with(r#""100m""#, r#""""#)),
            "steps[0].metrics[0].samples.p0.value",
            "invalid quantity \"\"",
        );
        assert_error(
            json(&base_with(r#""100m""#, "true")),
            "steps[0].metrics[0].samples.p0.value",
            "invalid type: boolean `true`, expected a quantity",
        );
        assert_error(
            json(&base_with(
                r#""averageUtilization": 50"#,
                r#""averageUtilization": 50, "averageValue": "x""#,
            )),
            "hpa.spec.metrics[0].resource.target.averageValue",
            "invalid quantity \"x\"",
        );
        // JSON numbers are read from their decimal text, rounding up to milli-units.
        let exact = |value: &str| {
            let trace = json(&base_with(r#""100m""#, value)).unwrap();
            let arena = Bump::new();
            let MetricValues::Pods(s) = trace.step_view(0, &arena).observation.metrics[0] else {
                panic!("expected samples")
            };
            s.per_pod[0].unwrap().milli
        };
        assert_eq!(exact("0.1"), 100);
        assert_eq!(exact("0.0001"), 1);
        assert_eq!(exact("1e3"), 1_000_000);
        assert_eq!(exact("-0"), 0);
        assert_eq!(exact("100000000000000000000000"), i64::MAX);
        assert_eq!(exact("\" 250m \""), 250);
    }

    #[test]
    fn controller_block() {
        let with = |controller: &str| {
            json(&base_with(
                r#""steps""#,
                &format!(r#""controller": {controller}, "steps""#),
            ))
        };
        assert_error(
            with(r#"{"downscaleStabilizationWindowSeconds": -1}"#),
            "controller.downscaleStabilizationWindowSeconds",
            "must not be negative, got -1",
        );
        assert_error(
            with(r#"{"initialReadinessDelaySeconds": 0.0005}"#),
            "controller.initialReadinessDelaySeconds",
            "0.0005 seconds is not a whole number of milliseconds",
        );
        assert_error(
            with(r#"{"cpuInitializationPeriodSeconds": 1e17}"#),
            "controller.cpuInitializationPeriodSeconds",
            // serde_json spells the exponent's sign out.
            "1e+17 seconds is too large (at most 9223372036854775807 ms)",
        );
        assert_error(
            with(r#"{"cpuInitializationPeriodSeconds": "300"}"#),
            "controller.cpuInitializationPeriodSeconds",
            "invalid type: string \"300\", expected a number",
        );
        assert_error(
            with(r#"{"tolerance": 1e400}"#),
            "controller.tolerance",
            "1e+400 is beyond float64's range",
        );
        assert_error(
            with(r#"{"tolerance": -0.1}"#),
            "controller.tolerance",
            "must not be negative, got -0.1",
        );
        assert_error(
            with(r#"{"tolerance": 0.12345678901234567891}"#),
            "controller.tolerance",
            "0.12345678901234567891 has more than 19 significant digits",
        );
        assert_error(
            with(r#"{"arithmetic": "float"}"#),
            "controller.arithmetic",
            "unknown variant `float`, expected `kubernetes` or `exact`",
        );
        let trace = with(
            r#"{"tolerance": 0.25000, "downscaleStabilizationWindowSeconds": 1.5,
                "cpuInitializationPeriodSeconds": 0, "initialReadinessDelaySeconds": 2e1,
                "scaleToZero": false, "arithmetic": "exact"}"#,
        )
        .unwrap();
        assert_eq!(trace.settings.tolerance.decimal(), (25, -2));
        assert_eq!(
            trace.settings.tolerance,
            Tolerance::from_decimal(25, -2).unwrap()
        );
        assert_eq!(
            trace.settings.downscale_stabilization_window,
            Duration(1500)
        );
        assert_eq!(trace.settings.cpu_initialization_period, Duration(0));
        assert_eq!(trace.settings.initial_readiness_delay, Duration(20_000));
        assert!(!trace.settings.scale_to_zero);
        assert_eq!(trace.settings.arithmetic, Arithmetic::Exact);
        let tiny = with(r#"{"tolerance": 1e-5}"#).unwrap();
        assert_eq!(tiny.settings.tolerance.decimal(), (1, -5));
        let yaml_trace = yaml(
            "hpa: {spec: {maxReplicas: 1}}\ncontroller: {tolerance: 0.30000000000000001, \
             downscaleStabilizationWindowSeconds: 0.25}\nsteps: []\n",
        )
        .unwrap();
        assert_eq!(
            yaml_trace.settings.tolerance.decimal(),
            (30_000_000_000_000_001, -17)
        );
        assert_eq!(
            yaml_trace.settings.downscale_stabilization_window,
            Duration(250)
        );
    }

    #[test]
    fn decimal_text() {
        let d = |t: &str| Decimal::parse(t).map(|d| (d.negative, d.digits, d.exp10));
        assert_eq!(d("0.1"), Some((false, "1".into(), -1)));
        assert_eq!(d("-120.500e2"), Some((true, "1205".into(), 1)));
        assert_eq!(d("+.5"), Some((false, "5".into(), -1)));
        assert_eq!(d("1."), Some((false, "1".into(), 0)));
        assert_eq!(d("000"), Some((false, String::new(), 0)));
        assert_eq!(d("1E+3"), Some((false, "1".into(), 3)));
        for bad in [
            "", ".", "-", "e3", "1e", "1.2.3", "0x10", "1_000", " 1", "inf",
        ] {
            assert_eq!(d(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn api_validation() {
        let with_controller = |text: String, controller: &str| {
            text.replacen(
                r#""steps""#,
                &format!(r#""controller": {controller}, "steps""#),
                1,
            )
        };
        assert_error(
            json(&with_controller(
                base_with(
                    r#""maxReplicas": 10"#,
                    r#""minReplicas": 0, "maxReplicas": 10"#,
                ),
                r#"{"scaleToZero": false}"#,
            )),
            "hpa.spec.minReplicas",
            "Invalid value: 0: must be greater than or equal to 1",
        );
        let behavior = |rules: &str| {
            json(&base_with(
                r#""maxReplicas": 10"#,
                &format!(r#""maxReplicas": 10, "behavior": {rules}"#),
            ))
        };
        assert_error(
            behavior(r#"{"scaleUp": {"policies": []}}"#),
            "hpa.spec.behavior.scaleUp.policies",
            "Required value: must specify at least one Policy",
        );
        assert!(behavior(r#"{"scaleUp": {"policies": null}}"#).is_ok());
        assert_error(
            behavior(r#"{"scaleDown": {"selectPolicy": ""}}"#),
            "hpa.spec.behavior.scaleDown.selectPolicy",
            r#"Unsupported value: "": supported values: "Disabled", "Max", "Min""#,
        );
        assert_error(
            behavior(r#"{"scaleDown": {"policies": [{"value": 1, "periodSeconds": 1}]}}"#),
            "hpa.spec.behavior.scaleDown.policies[0].type",
            r#"Unsupported value: "": supported values: "Percent", "Pods""#,
        );
        assert!(behavior(r#"{"scaleDown": {"policies": [{"type": "Percent", "value": 400, "periodSeconds": 1}]}}"#).is_ok());
        assert_error(
            json(&base_with(r#""type": "Resource""#, r#""type": "Foo""#)),
            "hpa.spec.metrics[0].type",
            r#"Unsupported value: "Foo": supported values: "ContainerResource", "External", "Object", "Pods", "Resource""#,
        );
        assert_error(
            json(&base_with(
                r#""type": "Utilization""#,
                r#""type": "Percent""#,
            )),
            "hpa.spec.metrics[0].resource.target.type",
            r#"Invalid value: "Percent": must be either Utilization, Value, or AverageValue"#,
        );
        // Upstream's order: minReplicas is reported before a later unknown metric type.
        assert_error(
            json(&with_controller(
                base_with(r#""type": "Resource""#, r#""type": "Foo""#).replacen(
                    r#""maxReplicas": 10"#,
                    r#""minReplicas": 0, "maxReplicas": 10"#,
                    1,
                ),
                r#"{"scaleToZero": false}"#,
            )),
            "hpa.spec.minReplicas",
            "Invalid value: 0",
        );
        assert_error(
            json(&base_with(
                r#"{"metadata""#,
                r#"{"apiVersion": "autoscaling/v1", "metadata""#,
            )),
            "hpa.apiVersion",
            r#"Unsupported value: "autoscaling/v1": supported values: "autoscaling/v2""#,
        );
        assert_error(
            json(&base_with(
                r#"{"metadata""#,
                r#"{"kind": "Deployment", "metadata""#,
            )),
            "hpa.kind",
            r#"Unsupported value: "Deployment""#,
        );
    }

    #[test]
    fn metric_selectors() {
        let selector = |sel: &str| {
            let text = base_with(
                r#"{"type": "Resource",
    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}"#,
                &format!(
                    r#"{{"type": "Pods", "pods": {{"metric": {{"name": "qps", "selector": {sel}}},
    "target": {{"type": "AverageValue", "averageValue": "1"}}}}}}"#
                ),
            );
            let trace = json(&text).unwrap();
            let arena = Bump::new();
            let id = trace.spec(&arena).metrics[0].pods.unwrap().metric;
            (id.selector.map(str::to_owned), id.selector_invalid)
        };
        assert_eq!(selector("null"), (None, false));
        assert_eq!(
            selector("{}"),
            (
                Some(
                    "&LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{},}"
                        .to_owned()
                ),
                false
            )
        );
        assert_eq!(
            selector(r#"{"matchExpressions": [{"key": "k", "operator": "In", "values": ["a", "b"]}]}"#),
            (
                Some(
                    "&LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:k,Operator:In,Values:[a b],},},}"
                        .to_owned()
                ),
                false
            )
        );
        assert!(
            selector(r#"{"matchExpressions": [{"key": "k", "operator": "Gt", "values": ["1"]}]}"#)
                .1
        );
        assert!(selector(r#"{"matchExpressions": [{"key": "k", "operator": "In"}]}"#).1);
        assert!(selector(r#"{"matchLabels": {"k": "bad value"}}"#).1);
    }

    #[test]
    fn error_display() {
        let e = TraceError::new("steps[0].at", "boom");
        assert_eq!(e.to_string(), "steps[0].at: boom");
        assert_eq!(TraceError::new("", "boom").to_string(), "boom");
    }
}
