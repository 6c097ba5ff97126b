//! The configuration an autoscaler keeps (`hpa_autoscaler_configure`): converted and
//! validated once, then held in the autoscaler's storage as plain integers and bytes, and
//! read back by each `hpa_autoscaler_evaluate_configured` without converting or validating
//! the caller's `hpa_config` again.
//!
//! It holds no pointer (its strings are copied into [`TEXT_CAPACITY`] bytes and named by
//! offset and length), so the storage may still be copied with `memcpy`; and any bytes are a
//! value: reading it back checks every enumeration code and string (UTF-8, in bounds), so
//! damage the storage check misses (probability about 2^-64) still cannot make the library
//! misbehave. The storage check keeps a digest of its bytes in use ([`crate::seal`]).

use core::fmt;
use core::mem::{size_of, MaybeUninit};

use hpa::metrics::MetricName;
use hpa::spec::{
    Behavior, ContainerResourceMetricSource, CrossVersionObjectReference, ExternalMetricSource,
    HpaSpec, MetricIdentifier, MetricSourceType, MetricSpec, ObjectMetricSource, PodsMetricSource,
    PolicyType, ResourceMetricSource, ScalingPolicy, ScalingRules,
};
use hpa::{Hpa, Settings};

use crate::config::{
    self, hpa_config, hpa_decimal, hpa_metric, hpa_metric_target, hpa_scaling_rules, hpa_settings,
    Config, Rules,
};
use crate::enums;
use crate::error::{Detail, Fault};
use crate::raw;
use crate::status::hpa_status;
use crate::text::Text;
use crate::{HPA_MAX_METRICS, HPA_MAX_POLICIES, HPA_MESSAGE_CAPACITY};

/// Bytes of the stored configuration's strings (metric names, containers, selectors, the
/// described objects' references) together.
pub(crate) const TEXT_CAPACITY: usize = 2048;

/// A string of the stored configuration: `text[at..at + len]`.
#[repr(C)]
#[derive(Clone, Copy)]
struct Span {
    at: u32,
    len: u32,
}

/// One metric: its C codes and target as `hpa_metric` gives them, its strings as spans.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct StoredMetric {
    source: u32,
    selector_invalid: u32,
    has_selector: u32,
    target_type: u32,
    target_fields: u32,
    average_utilization: i32,
    value_milli: i64,
    average_value_milli: i64,
    name: Span,
    container: Span,
    selector: Span,
    kind: Span,
    object_name: Span,
    api_version: Span,
    /// The metric's name as messages show it ([`MetricName`]), formatted once here rather than
    /// by each evaluation; empty when it did not fit (each evaluation then formats it).
    display: Span,
}

/// One direction of a behavior, as `hpa_scaling_rules` gives it.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct StoredRules {
    present: u32,
    has_window: u32,
    window: i32,
    select_policy: u32,
    has_policies: u32,
    policies_len: u32,
    has_tolerance: u32,
    tolerance_exponent: i32,
    tolerance_mantissa: i64,
    /// `hpa_policy_type`, value, period in seconds.
    policies: [[i32; 3]; HPA_MAX_POLICIES],
}

/// The controller settings as `hpa_settings` gives them (zero: the defaults).
#[repr(C)]
#[derive(Clone, Copy)]
struct StoredSettings {
    tolerance_mantissa: i64,
    tolerance_exponent: i32,
    scale_to_zero: u32,
    downscale_stabilization_window_ms: i64,
    cpu_initialization_period_ms: i64,
    initial_readiness_delay_ms: i64,
    configurable_tolerance: u32,
    arithmetic: u32,
    legacy_scale_up_factor: i32,
    legacy_scale_up_minimum: i32,
    explicit_zeros: u32,
    reserved: u32,
}

/// The configuration kept in an autoscaler: plain integers and bytes without padding
/// (asserted below), every bit pattern a value.
#[repr(C)]
pub(crate) struct StoredConfig {
    /// 1 after `hpa_autoscaler_configure`; anything else is no configuration.
    configured: u32,
    has_min_replicas: u32,
    min_replicas: i32,
    max_replicas: i32,
    metrics_len: u32,
    text_len: u32,
    has_behavior: u32,
    /// 1 when the settings are the controller's defaults (the common case), which then need
    /// no conversion and `settings` is not in use.
    default_settings: u32,
    settings: StoredSettings,
    up: StoredRules,
    down: StoredRules,
    metrics: [StoredMetric; HPA_MAX_METRICS],
    text: [u8; TEXT_CAPACITY],
}

/// Bytes of the header, before the settings.
const HEADER_BYTES: usize = 8 * 4;
/// Bytes before the rules: the header and the settings.
const SETTINGS_END: usize = HEADER_BYTES + size_of::<StoredSettings>();
/// Bytes of a direction's fields before its policies.
const RULES_HEADER_BYTES: usize = 8 * 4 + 8;

const _: () = {
    assert!(size_of::<Span>() == 8);
    assert!(size_of::<StoredMetric>() == 6 * 4 + 2 * 8 + 7 * 8);
    assert!(size_of::<StoredRules>() == RULES_HEADER_BYTES + HPA_MAX_POLICIES * 12);
    assert!(size_of::<StoredSettings>() == 4 * 8 + 8 * 4);
    assert!(
        size_of::<StoredConfig>()
            == SETTINGS_END
                + 2 * size_of::<StoredRules>()
                + HPA_MAX_METRICS * size_of::<StoredMetric>()
                + TEXT_CAPACITY
    );
    assert!(TEXT_CAPACITY <= u32::MAX as usize);
};

impl StoredConfig {
    /// No configuration.
    pub(crate) fn none() -> StoredConfig {
        // SAFETY: plain integers and byte arrays, for which all-zero bytes are a value.
        unsafe { core::mem::zeroed() }
    }

    /// Whether `hpa_autoscaler_configure` stored a configuration.
    pub(crate) fn is_configured(&self) -> bool {
        self.configured == 1
    }

    /// The runs of bytes in use, for the storage check's digest: the header, the settings
    /// unless they are the defaults, each direction's presence or fields and policies, the
    /// metrics and the strings (bounded, whatever the lengths hold).
    pub(crate) fn used<'s>(&self, all: &'s [u8], at: usize) -> [&'s [u8]; 6] {
        let run = |from: usize, len: usize| all.get(at + from..at + from + len).unwrap_or(&[]);
        let rules = |r: &StoredRules, offset: usize| match r.present {
            1 => {
                let policies = (r.policies_len as usize).min(HPA_MAX_POLICIES);
                run(offset, RULES_HEADER_BYTES + 12 * policies)
            }
            _ => run(offset, 4),
        };
        let settings = match self.default_settings {
            1 => 0,
            _ => size_of::<StoredSettings>(),
        };
        let up = SETTINGS_END;
        let down = up + size_of::<StoredRules>();
        let metrics = down + size_of::<StoredRules>();
        let text = metrics + HPA_MAX_METRICS * size_of::<StoredMetric>();
        [
            run(0, HEADER_BYTES),
            run(HEADER_BYTES, settings),
            rules(&self.up, up),
            rules(&self.down, down),
            run(
                metrics,
                (self.metrics_len as usize).min(HPA_MAX_METRICS) * size_of::<StoredMetric>(),
            ),
            run(text, (self.text_len as usize).min(TEXT_CAPACITY)),
        ]
    }
}

/// Copies strings into the stored configuration's text.
struct Writer<'t> {
    /// `None`: the strings are only measured.
    text: Option<&'t mut [u8; TEXT_CAPACITY]>,
    len: usize,
}

impl Writer<'_> {
    fn push(&mut self, s: &str) -> Result<Span, Fault> {
        let end = self.len + s.len();
        if end > TEXT_CAPACITY {
            return Err(Fault::new(
                hpa_status::TooLarge,
                Detail::TooMany(end, TEXT_CAPACITY),
            ));
        }
        if let Some(slot) = self.text.as_mut().and_then(|t| t.get_mut(self.len..end)) {
            slot.copy_from_slice(s.as_bytes());
        }
        let span = Span {
            at: self.len as u32,
            len: s.len() as u32,
        };
        self.len = end;
        Ok(span)
    }
}

/// A direction as given (`hpa_scaling_rules`) and converted, or zeros for none.
fn store_rules(rules: Option<(&hpa_scaling_rules, &Rules)>) -> StoredRules {
    let mut out: StoredRules = StoredRules {
        present: 0,
        has_window: 0,
        window: 0,
        select_policy: 0,
        has_policies: 0,
        policies_len: 0,
        has_tolerance: 0,
        tolerance_exponent: 0,
        tolerance_mantissa: 0,
        policies: [[0; 3]; HPA_MAX_POLICIES],
    };
    let Some((c, r)) = rules else {
        return out;
    };
    out.present = 1;
    if let Some(w) = r.window {
        (out.has_window, out.window) = (1, w);
    }
    if let Some(s) = r.select {
        out.select_policy = enums::select_policy_value(s) as u32;
    }
    if let Some((policies, len)) = &r.policies {
        out.has_policies = 1;
        out.policies_len = *len as u32;
        for (slot, p) in out.policies.iter_mut().zip(policies.iter().take(*len)) {
            *slot = [
                enums::policy_type_value(p.type_) as i32,
                p.value,
                p.period_seconds,
            ];
        }
    }
    if r.tolerance.is_some() {
        out.has_tolerance = 1;
        out.tolerance_mantissa = c.tolerance.mantissa;
        out.tolerance_exponent = c.tolerance.exponent;
    }
    out
}

fn store_settings(s: Option<&hpa_settings>) -> StoredSettings {
    let z = hpa_settings {
        tolerance: hpa_decimal {
            mantissa: 0,
            exponent: 0,
        },
        downscale_stabilization_window_ms: 0,
        cpu_initialization_period_ms: 0,
        initial_readiness_delay_ms: 0,
        scale_to_zero: 0,
        configurable_tolerance: 0,
        arithmetic: 0,
        legacy_scale_up_factor: 0,
        legacy_scale_up_minimum: 0,
        explicit_zeros: 0,
    };
    let s = s.unwrap_or(&z);
    StoredSettings {
        tolerance_mantissa: s.tolerance.mantissa,
        tolerance_exponent: s.tolerance.exponent,
        scale_to_zero: s.scale_to_zero,
        downscale_stabilization_window_ms: s.downscale_stabilization_window_ms,
        cpu_initialization_period_ms: s.cpu_initialization_period_ms,
        initial_readiness_delay_ms: s.initial_readiness_delay_ms,
        configurable_tolerance: s.configurable_tolerance,
        arithmetic: s.arithmetic,
        legacy_scale_up_factor: s.legacy_scale_up_factor,
        legacy_scale_up_minimum: s.legacy_scale_up_minimum,
        explicit_zeros: s.explicit_zeros,
        reserved: 0,
    }
}

fn store_metric(
    c: &hpa_metric,
    m: &MetricSpec<'_>,
    text: &mut Writer<'_>,
) -> Result<StoredMetric, Fault> {
    let mut out = StoredMetric {
        source: c.r#type,
        selector_invalid: 0,
        has_selector: 0,
        target_type: c.target.r#type,
        target_fields: c.target.fields,
        average_utilization: c.target.average_utilization,
        value_milli: c.target.value_milli,
        average_value_milli: c.target.average_value_milli,
        name: Span { at: 0, len: 0 },
        container: Span { at: 0, len: 0 },
        selector: Span { at: 0, len: 0 },
        kind: Span { at: 0, len: 0 },
        object_name: Span { at: 0, len: 0 },
        api_version: Span { at: 0, len: 0 },
        display: Span { at: 0, len: 0 },
    };
    let mut identifier = |out: &mut StoredMetric, id: &MetricIdentifier<'_>| {
        out.name = text.push(id.name)?;
        out.selector_invalid = u32::from(id.selector_invalid);
        if let Some(s) = id.selector {
            out.has_selector = 1;
            out.selector = text.push(s)?;
        }
        Ok::<_, Fault>(())
    };
    if let Some(r) = &m.resource {
        out.name = text.push(r.name)?;
    } else if let Some(r) = &m.container_resource {
        out.name = text.push(r.name)?;
        out.container = text.push(r.container)?;
    } else if let Some(p) = &m.pods {
        identifier(&mut out, &p.metric)?;
    } else if let Some(e) = &m.external {
        identifier(&mut out, &e.metric)?;
    } else if let Some(o) = &m.object {
        identifier(&mut out, &o.metric)?;
        out.kind = text.push(o.described_object.kind)?;
        out.object_name = text.push(o.described_object.name)?;
        out.api_version = text.push(o.described_object.api_version)?;
    }
    Ok(out)
}

/// Writes `cfg`, converted into `converted` and validated, into `out` as the autoscaler keeps
/// it; on error (strings beyond [`TEXT_CAPACITY`]) `out` is unchanged.
///
/// # Safety
///
/// `converted` must be what `config::convert` made of `cfg` in this call, with the same
/// contract: every pointer it followed is live.
pub(crate) unsafe fn store(
    cfg: &hpa_config,
    converted: &Config<'_>,
    out: &mut StoredConfig,
) -> Result<(), Fault> {
    // SAFETY: `convert` read this array (the caller's contract).
    let c_metrics = unsafe { raw::slice(cfg.metrics, converted.metrics_len) }?;
    let specs = converted
        .metrics
        .get(..converted.metrics_len)
        .unwrap_or(&[]);
    // The strings are measured first: past that nothing fails, and `out` is written in place
    // (a copy staged on the stack would add its 3 KiB to the call's stack).
    let mut measure = Writer { text: None, len: 0 };
    for (i, (c, m)) in c_metrics.iter().zip(specs).enumerate() {
        store_metric(c, m, &mut measure).map_err(|f| f.at_index("metrics", i).at("config"))?;
    }
    out.configured = 1;
    out.has_min_replicas = u32::from(converted.min_replicas.is_some());
    out.min_replicas = converted.min_replicas.unwrap_or(0);
    out.max_replicas = converted.max_replicas;
    out.has_behavior = 0;
    out.default_settings = u32::from(converted.settings == Settings::DEFAULT);
    out.settings = store_settings(if out.default_settings == 1 {
        None
    } else {
        // SAFETY: `convert` read it through the same pointer (the caller's contract).
        unsafe { cfg.settings.as_ref() }
    });
    let (mut up, mut down) = (None, None);
    if let Some((r_up, r_down)) = &converted.behavior {
        out.has_behavior = 1;
        // SAFETY: as above: `convert` read the behavior and its directions.
        let b = unsafe { cfg.behavior.as_ref() };
        // SAFETY: as above.
        up = b
            .and_then(|b| unsafe { b.scale_up.as_ref() })
            .zip(r_up.as_ref());
        // SAFETY: as above.
        down = b
            .and_then(|b| unsafe { b.scale_down.as_ref() })
            .zip(r_down.as_ref());
    }
    out.up = store_rules(up);
    out.down = store_rules(down);
    let mut text = Writer {
        text: Some(&mut out.text),
        len: 0,
    };
    for ((slot, c), m) in out.metrics.iter_mut().zip(c_metrics).zip(specs) {
        // Measured above: it fits.
        if let Ok(metric) = store_metric(c, m, &mut text) {
            *slot = metric;
        }
    }
    // The metrics' names as messages show them, after the strings, each where it fits whole
    // (in the room left, and shorter than a message: `decision::Names` keeps the same ones).
    let mut end = text.len;
    for (slot, m) in out.metrics.iter_mut().zip(specs) {
        let room = out.text.get_mut(end..).unwrap_or(&mut []);
        let room_len = room.len().min(HPA_MESSAGE_CAPACITY);
        let mut t = Text::new(room.get_mut(..room_len).unwrap_or(&mut []));
        let _ = fmt::write(&mut t, format_args!("{}", MetricName(m)));
        if let Some(name) = t.finish_whole().filter(|n| !n.is_empty()) {
            slot.display = Span {
                at: end as u32,
                len: name.len() as u32,
            };
            end += name.len();
        }
    }
    out.text_len = end as u32;
    out.metrics_len = converted.metrics_len as u32;
    Ok(())
}

/// Stored bytes that do not read back: damage the storage check missed.
fn corrupt() -> Fault {
    Fault::new(hpa_status::CorruptState, Detail::Corrupt)
}

/// A stored configuration read back: what an evaluation runs.
pub(crate) struct Loaded<'a> {
    metrics: [MaybeUninit<MetricSpec<'a>>; HPA_MAX_METRICS],
    metrics_len: usize,
    up: [ScalingPolicy; HPA_MAX_POLICIES],
    down: [ScalingPolicy; HPA_MAX_POLICIES],
    /// The controller settings.
    pub(crate) settings: Settings,
    /// Each metric's name as messages show it, when it was kept.
    pub(crate) names: [Option<&'a str>; HPA_MAX_METRICS],
}

/// A direction read back, its policies into `policies`.
fn load_rules<'p>(
    r: &StoredRules,
    policies: &'p mut [ScalingPolicy; HPA_MAX_POLICIES],
) -> Result<Option<ScalingRules<'p>>, Fault> {
    if r.present != 1 {
        return Ok(None);
    }
    let len = r.policies_len as usize;
    let list = policies.get_mut(..len).ok_or_else(corrupt)?;
    for (slot, &[kind, value, period]) in list.iter_mut().zip(&r.policies) {
        let kind = enums::policy_type(kind as u32).flatten();
        *slot = ScalingPolicy {
            type_: kind.ok_or_else(corrupt)?,
            value,
            period_seconds: period,
        };
    }
    let tolerance = if r.has_tolerance == 1 {
        Some(
            config::decimal_quantity(hpa_decimal {
                mantissa: r.tolerance_mantissa,
                exponent: r.tolerance_exponent,
            })
            .map_err(|_| corrupt())?,
        )
    } else {
        None
    };
    Ok(Some(ScalingRules {
        stabilization_window_seconds: (r.has_window == 1).then_some(r.window),
        select_policy: enums::select_policy(r.select_policy).ok_or_else(corrupt)?,
        policies: (r.has_policies == 1).then_some(&*list),
        tolerance,
    }))
}

impl StoredConfig {
    /// The string at `s`.
    fn text(&self, s: Span) -> Result<&str, Fault> {
        let bytes = self
            .text
            .get(s.at as usize..(s.at as usize).saturating_add(s.len as usize))
            .ok_or_else(corrupt)?;
        raw::utf8(bytes).map_err(|_| corrupt())
    }

    /// The metric `m` read back into `slot`, in place: built in a local and then moved, the
    /// 448-byte spec went through several copies.
    fn metric<'a>(
        &'a self,
        m: &StoredMetric,
        slot: &mut MaybeUninit<MetricSpec<'a>>,
    ) -> Result<(), Fault> {
        let target = config::target(&hpa_metric_target {
            r#type: m.target_type,
            fields: m.target_fields,
            value_milli: m.value_milli,
            average_value_milli: m.average_value_milli,
            average_utilization: m.average_utilization,
        })
        .map_err(|_| corrupt())?;
        let source = enums::metric_source_type(m.source)
            .flatten()
            .ok_or_else(corrupt)?;
        let identifier = || -> Result<MetricIdentifier<'_>, Fault> {
            Ok(MetricIdentifier {
                name: self.text(m.name)?,
                selector: match m.has_selector {
                    1 => Some(self.text(m.selector)?),
                    _ => None,
                },
                selector_invalid: m.selector_invalid == 1,
            })
        };
        let spec = slot.write(MetricSpec {
            type_: Some(source),
            ..MetricSpec::default()
        });
        match source {
            MetricSourceType::Resource => {
                spec.resource = Some(ResourceMetricSource {
                    name: self.text(m.name)?,
                    target,
                })
            }
            MetricSourceType::ContainerResource => {
                spec.container_resource = Some(ContainerResourceMetricSource {
                    name: self.text(m.name)?,
                    container: self.text(m.container)?,
                    target,
                })
            }
            MetricSourceType::Pods => {
                spec.pods = Some(PodsMetricSource {
                    metric: identifier()?,
                    target,
                })
            }
            MetricSourceType::Object => {
                spec.object = Some(ObjectMetricSource {
                    described_object: CrossVersionObjectReference {
                        kind: self.text(m.kind)?,
                        name: self.text(m.object_name)?,
                        api_version: self.text(m.api_version)?,
                    },
                    metric: identifier()?,
                    target,
                })
            }
            MetricSourceType::External => {
                spec.external = Some(ExternalMetricSource {
                    metric: identifier()?,
                    target,
                })
            }
        }
        Ok(())
    }

    /// The configuration read back into `out` (its metrics, policies and settings); then
    /// [`Loaded::hpa`] is the validated HPA.
    pub(crate) fn load<'a>(&'a self, out: &mut Loaded<'a>) -> Result<(), Fault> {
        out.settings = if self.default_settings == 1 {
            Settings::DEFAULT
        } else {
            self.settings()?
        };
        let len = self.metrics_len as usize;
        let stored = self.metrics.get(..len).ok_or_else(corrupt)?;
        out.metrics_len = 0;
        for ((slot, name), m) in out.metrics.iter_mut().zip(&mut out.names).zip(stored) {
            self.metric(m, slot)?;
            *name = match m.display.len {
                0 => None,
                _ => Some(self.text(m.display)?),
            };
            out.metrics_len += 1;
        }
        Ok(())
    }

    /// The settings read back, when they are not the defaults.
    fn settings(&self) -> Result<Settings, Fault> {
        let s = &self.settings;
        config::settings(&hpa_settings {
            tolerance: hpa_decimal {
                mantissa: s.tolerance_mantissa,
                exponent: s.tolerance_exponent,
            },
            downscale_stabilization_window_ms: s.downscale_stabilization_window_ms,
            cpu_initialization_period_ms: s.cpu_initialization_period_ms,
            initial_readiness_delay_ms: s.initial_readiness_delay_ms,
            scale_to_zero: s.scale_to_zero,
            configurable_tolerance: s.configurable_tolerance,
            arithmetic: s.arithmetic,
            legacy_scale_up_factor: s.legacy_scale_up_factor,
            legacy_scale_up_minimum: s.legacy_scale_up_minimum,
            explicit_zeros: s.explicit_zeros,
        })
        .map_err(|_| corrupt())
    }
}

impl<'a> Loaded<'a> {
    /// Nothing read yet.
    pub(crate) fn new() -> Loaded<'a> {
        let policy = ScalingPolicy {
            type_: PolicyType::Pods,
            value: 0,
            period_seconds: 0,
        };
        Loaded {
            metrics: [const { MaybeUninit::uninit() }; HPA_MAX_METRICS],
            metrics_len: 0,
            up: [policy; HPA_MAX_POLICIES],
            down: [policy; HPA_MAX_POLICIES],
            settings: Settings::DEFAULT,
            names: [None; HPA_MAX_METRICS],
        }
    }

    /// The validated HPA of `stored` (read into `self` by [`StoredConfig::load`]): API
    /// defaulting only, since `hpa_autoscaler_configure` validated it.
    pub(crate) fn hpa<'s>(&'s mut self, stored: &'a StoredConfig) -> Result<Hpa<'s>, Fault> {
        let behavior = if stored.has_behavior == 1 {
            let up = load_rules(&stored.up, &mut self.up)?;
            let down = load_rules(&stored.down, &mut self.down)?;
            Some(Behavior {
                scale_up: up,
                scale_down: down,
            })
        } else {
            None
        };
        let metrics = {
            let len = self.metrics_len.min(HPA_MAX_METRICS);
            // SAFETY: `load` wrote the first `metrics_len` entries (and counts only those), and
            // `MaybeUninit<T>` has `T`'s layout.
            unsafe { core::slice::from_raw_parts(self.metrics.as_ptr().cast(), len) }
        };
        let spec = HpaSpec {
            min_replicas: (stored.has_min_replicas == 1).then_some(stored.min_replicas),
            max_replicas: stored.max_replicas,
            metrics,
            behavior,
            scale_target_ref: None,
        };
        Ok(Hpa::from_stored(&spec))
    }
}
