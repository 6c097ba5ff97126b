//! The input of the `evaluate` target (see its module docs).

use arbitrary::Arbitrary;

use crate::encode_fields;
use crate::seed::{variant, Encode};

#[derive(Arbitrary, Debug)]
pub enum Q {
    Milli(i64),
    Units(i16),
    Text(String),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum TargetType {
    Utilization,
    Value,
    AverageValue,
    Unset,
}

#[derive(Arbitrary, Debug)]
pub struct Target {
    pub type_: TargetType,
    pub value: Option<Q>,
    pub average_value: Option<Q>,
    pub average_utilization: Option<i32>,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Source {
    Resource,
    ContainerResource,
    Pods,
    Object,
    External,
    Unset,
}

#[derive(Arbitrary, Debug)]
pub struct Metric {
    pub source: Source,
    pub resource: u8,
    pub container: u8,
    pub name: u8,
    pub selector: bool,
    pub selector_invalid: bool,
    pub target: Target,
    /// Also populate a source field that does not match the type (invalid).
    pub extra_field: bool,
}

#[derive(Arbitrary, Debug)]
pub struct Policy {
    pub percent: bool,
    pub value: i32,
    pub period_seconds: i32,
}

#[derive(Arbitrary, Debug)]
pub struct Rules {
    pub window: Option<i32>,
    pub select: Option<u8>,
    pub policies: Option<Vec<Policy>>,
    pub tolerance: Option<Q>,
}

#[derive(Arbitrary, Debug)]
pub struct SettingsInput {
    pub exact: bool,
    pub tolerance: Option<(u16, i8)>,
    pub downscale_window_ms: Option<u32>,
    pub cpu_initialization_s: Option<u16>,
    pub readiness_delay_s: Option<u16>,
    pub scale_to_zero: bool,
    pub configurable_tolerance: bool,
    pub legacy_factor: Option<u8>,
    pub legacy_minimum: Option<u8>,
}

#[derive(Arbitrary, Debug)]
pub struct ContainerInput {
    pub name: u8,
    pub kind: u8,
    pub requests: Vec<(u8, Q)>,
}

#[derive(Arbitrary, Debug)]
pub struct PodInput {
    pub phase: u8,
    pub ready: Option<(u8, Option<i32>)>,
    pub start_offset_ms: Option<i32>,
    pub deleted: bool,
    pub containers: Vec<ContainerInput>,
    pub requests: Option<Vec<(u8, Q)>>,
}

#[derive(Arbitrary, Debug)]
pub struct SampleInput {
    pub milli: i64,
    pub age_ms: i32,
    pub window_s: u8,
    pub containers: Vec<(u8, i64)>,
}

#[derive(Arbitrary, Debug)]
pub enum ValuesInput {
    Pods {
        per_pod: Vec<Option<SampleInput>>,
        orphans: Vec<SampleInput>,
    },
    Object(i64),
    External(Vec<i64>),
    Error,
}

#[derive(Arbitrary, Debug)]
pub struct Step {
    /// Milliseconds after the previous step (negative: time going backwards).
    pub dt: i64,
    pub replicas: Option<i32>,
    pub status_replicas: Option<i32>,
    pub pods: Vec<PodInput>,
    pub values: Vec<ValuesInput>,
    /// Pass one metric value too many (a malformed observation).
    pub extra_value: bool,
    pub outcome: u8,
    /// Repeat this step (`repeat % 8` more times, `dt` apart, closed loop): long sequences
    /// from short inputs.
    pub repeat: u8,
}

#[derive(Arbitrary, Debug)]
pub struct Input {
    pub min: Option<i32>,
    pub max: i32,
    pub metrics: Vec<Metric>,
    pub behavior: Option<(Option<Rules>, Option<Rules>)>,
    pub settings: SettingsInput,
    pub scaled_to_zero: bool,
    pub start: i64,
    pub clone_at: u8,
    pub steps: Vec<Step>,
    pub long: Option<LongRun>,
}

/// A long closed loop on one External metric (`testkit::capacity`), the input's bounds,
/// behavior and settings.
#[derive(Arbitrary, Debug)]
pub struct LongRun {
    /// 200 to 2,000 evaluations.
    pub evaluations: u16,
    /// 1 to 30 s between evaluations.
    pub period_ms: u16,
    /// The highest load, in replicas: up to 30,000, beyond the 8,191 the rings guarantee.
    pub high: u16,
    /// How often someone else sets the replica count, in percent.
    pub set_percent: u8,
    pub seed: u64,
}

impl Encode for Q {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Q::Milli(m) => {
                variant(out, 0, 3);
                m.encode(out);
            }
            Q::Units(u) => {
                variant(out, 1, 3);
                u.encode(out);
            }
            Q::Text(_) => panic!("texts are not encoded (hpa_fuzz::seed)"),
        }
    }
}

impl Encode for TargetType {
    fn encode(&self, out: &mut Vec<u8>) {
        variant(out, *self as u32, 4);
    }
}

impl Encode for Source {
    fn encode(&self, out: &mut Vec<u8>) {
        variant(out, *self as u32, 6);
    }
}

impl Encode for ValuesInput {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            ValuesInput::Pods { per_pod, orphans } => {
                variant(out, 0, 4);
                per_pod.encode(out);
                orphans.encode(out);
            }
            ValuesInput::Object(x) => {
                variant(out, 1, 4);
                x.encode(out);
            }
            ValuesInput::External(xs) => {
                variant(out, 2, 4);
                xs.encode(out);
            }
            ValuesInput::Error => variant(out, 3, 4),
        }
    }
}

encode_fields!(Target {
    type_,
    value,
    average_value,
    average_utilization
});
encode_fields!(Metric {
    source,
    resource,
    container,
    name,
    selector,
    selector_invalid,
    target,
    extra_field
});
encode_fields!(Policy {
    percent,
    value,
    period_seconds
});
encode_fields!(Rules {
    window,
    select,
    policies,
    tolerance
});
encode_fields!(SettingsInput {
    exact,
    tolerance,
    downscale_window_ms,
    cpu_initialization_s,
    readiness_delay_s,
    scale_to_zero,
    configurable_tolerance,
    legacy_factor,
    legacy_minimum
});
encode_fields!(ContainerInput {
    name,
    kind,
    requests
});
encode_fields!(PodInput {
    phase,
    ready,
    start_offset_ms,
    deleted,
    containers,
    requests
});
encode_fields!(SampleInput {
    milli,
    age_ms,
    window_s,
    containers
});
encode_fields!(Step {
    dt,
    replicas,
    status_replicas,
    pods,
    values,
    extra_value,
    outcome,
    repeat
});
encode_fields!(Input {
    min,
    max,
    metrics,
    behavior,
    settings,
    scaled_to_zero,
    start,
    clone_at,
    steps,
    long
});
encode_fields!(LongRun {
    evaluations,
    period_ms,
    high,
    set_percent,
    seed
});
