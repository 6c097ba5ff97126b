//! The input of the `c_api` target (see its module docs).

use arbitrary::Arbitrary;

use crate::encode_fields;
use crate::seed::{variant, Encode};

/// Where an output pointer points (`Overlap`: the autoscaler's storage, for the functions
/// that take one).
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq)]
pub enum Out {
    Valid,
    Null,
    /// One byte into valid storage.
    Misaligned,
    /// Into the autoscaler's storage.
    Overlap,
}

#[derive(Arbitrary, Debug, Clone)]
pub struct Text {
    pub bytes: Vec<u8>,
    /// A NULL pointer (with the length kept).
    pub null: bool,
}

#[derive(Arbitrary, Debug, Clone)]
pub struct MetricIn {
    pub r#type: u32,
    pub name: Text,
    pub selector_invalid: u32,
    pub target_type: u32,
    pub fields: u32,
    pub value: i64,
    pub average_value: i64,
    pub utilization: i32,
}

#[derive(Arbitrary, Debug, Clone)]
pub struct RulesIn {
    pub has_window: u32,
    pub window: i32,
    pub select: u32,
    pub policies: Vec<(u32, i32, i32)>,
    /// The declared length is the array's minus this (never more than the array).
    pub short: u8,
    pub has_tolerance: u32,
    pub tolerance: (i64, i32),
}

#[derive(Arbitrary, Debug, Clone)]
pub struct SettingsIn {
    pub tolerance: (i64, i32),
    pub windows_ms: (i64, i64, i64),
    pub scale_to_zero: u32,
    pub configurable_tolerance: u32,
    pub arithmetic: u32,
    pub legacy: (i32, i32),
}

#[derive(Arbitrary, Debug, Clone)]
pub struct ConfigIn {
    pub has_min: u32,
    pub min: i32,
    pub max: i32,
    pub metrics: Vec<MetricIn>,
    pub short: u8,
    pub misaligned_metrics: bool,
    pub up: Option<RulesIn>,
    pub down: Option<RulesIn>,
    pub settings: Option<SettingsIn>,
}

#[derive(Arbitrary, Debug, Clone)]
pub struct PodIn {
    pub name: Text,
    pub phase: u32,
    pub ready: u32,
    pub deleted: u32,
    pub start: Option<i64>,
    pub request_milli: i64,
    pub container_kind: u32,
}

#[derive(Arbitrary, Debug, Clone)]
pub struct SampleIn {
    pub present: u32,
    pub milli: i64,
    pub window_ms: Option<i64>,
}

#[derive(Arbitrary, Debug, Clone)]
pub struct ValuesIn {
    pub kind: u32,
    pub samples: Vec<SampleIn>,
    pub values: Vec<i64>,
    pub short: u8,
}

#[derive(Arbitrary, Debug, Clone)]
pub struct ObservationIn {
    pub now_ms: i64,
    pub replicas: i32,
    pub status_replicas: Option<i32>,
    pub pods: Vec<PodIn>,
    pub values: Vec<ValuesIn>,
    pub short: u8,
}

#[derive(Arbitrary, Debug, Clone)]
pub enum Call {
    Init {
        size_short: u16,
        at: Out,
    },
    Evaluate {
        workspace: u16,
        workspace_at: Out,
        decision: Out,
    },
    RescaleSucceeded,
    RescaleFailed {
        message: Text,
    },
    RestoreScaledToZero,
    ScalingStatus {
        out: Out,
    },
    Save {
        later_ms: i64,
        capacity: u16,
        buffer: Out,
        written: Out,
    },
    Restore {
        cut: u16,
        flip: Option<(u16, u8)>,
        now_ms: i64,
        size_short: u16,
    },
    SnapshotCheck {
        cut: u16,
        now_ms: i64,
        error: Out,
    },
    SettingsDefault {
        out: Out,
    },
    Validate {
        error: Out,
    },
    Resolve {
        out: Out,
        error: Out,
    },
    ObservationCheck {
        size: Out,
        error: Out,
    },
    QuantityParse {
        text: Text,
        out: Out,
    },
    QuantityWrite {
        milli: i64,
        format: u32,
        capacity: u8,
        buffer: Out,
        len: Out,
    },
    MilliFromDouble {
        bits: u64,
        out: Out,
    },
    Strings {
        code: u32,
    },
    Configure {
        error: Out,
    },
    EvaluateConfigured {
        decision: Out,
    },
}

#[derive(Arbitrary, Debug, Clone)]
pub struct Input {
    pub config: ConfigIn,
    pub observation: ObservationIn,
    pub calls: Vec<Call>,
}

impl Encode for Out {
    fn encode(&self, out: &mut Vec<u8>) {
        variant(out, *self as u32, 4);
    }
}

impl Encode for Call {
    fn encode(&self, out: &mut Vec<u8>) {
        let mut v = |index| variant(out, index, 19);
        match self {
            Call::Init { size_short, at } => {
                v(0);
                (*size_short, *at).encode(out);
            }
            Call::Evaluate {
                workspace,
                workspace_at,
                decision,
            } => {
                v(1);
                (*workspace, *workspace_at, *decision).encode(out);
            }
            Call::RescaleSucceeded => v(2),
            Call::RescaleFailed { message } => {
                v(3);
                message.encode(out);
            }
            Call::RestoreScaledToZero => v(4),
            Call::ScalingStatus { out: o } => {
                v(5);
                o.encode(out);
            }
            Call::Save {
                later_ms,
                capacity,
                buffer,
                written,
            } => {
                v(6);
                (*later_ms, *capacity, (*buffer, *written)).encode(out);
            }
            Call::Restore {
                cut,
                flip,
                now_ms,
                size_short,
            } => {
                v(7);
                (*cut, *flip, (*now_ms, *size_short)).encode(out);
            }
            Call::SnapshotCheck { cut, now_ms, error } => {
                v(8);
                (*cut, *now_ms, *error).encode(out);
            }
            Call::SettingsDefault { out: o } => {
                v(9);
                o.encode(out);
            }
            Call::Validate { error } => {
                v(10);
                error.encode(out);
            }
            Call::Resolve { out: o, error } => {
                v(11);
                (*o, *error).encode(out);
            }
            Call::ObservationCheck { size, error } => {
                v(12);
                (*size, *error).encode(out);
            }
            Call::QuantityParse { text, out: o } => {
                v(13);
                text.encode(out);
                o.encode(out);
            }
            Call::QuantityWrite {
                milli,
                format,
                capacity,
                buffer,
                len,
            } => {
                v(14);
                (*milli, *format, (*capacity, *buffer, *len)).encode(out);
            }
            Call::MilliFromDouble { bits, out: o } => {
                v(15);
                (*bits, *o).encode(out);
            }
            Call::Strings { code } => {
                v(16);
                code.encode(out);
            }
            Call::Configure { error } => {
                v(17);
                error.encode(out);
            }
            Call::EvaluateConfigured { decision } => {
                v(18);
                decision.encode(out);
            }
        }
    }
}

encode_fields!(Text { bytes, null });
encode_fields!(MetricIn {
    r#type,
    name,
    selector_invalid,
    target_type,
    fields,
    value,
    average_value,
    utilization
});
encode_fields!(RulesIn {
    has_window,
    window,
    select,
    policies,
    short,
    has_tolerance,
    tolerance
});
encode_fields!(SettingsIn {
    tolerance,
    windows_ms,
    scale_to_zero,
    configurable_tolerance,
    arithmetic,
    legacy
});
encode_fields!(ConfigIn {
    has_min,
    min,
    max,
    metrics,
    short,
    misaligned_metrics,
    up,
    down,
    settings
});
encode_fields!(PodIn {
    name,
    phase,
    ready,
    deleted,
    start,
    request_milli,
    container_kind
});
encode_fields!(SampleIn {
    present,
    milli,
    window_ms
});
encode_fields!(ValuesIn {
    kind,
    samples,
    values,
    short
});
encode_fields!(ObservationIn {
    now_ms,
    replicas,
    status_replicas,
    pods,
    values,
    short
});
encode_fields!(Input {
    config,
    observation,
    calls
});
