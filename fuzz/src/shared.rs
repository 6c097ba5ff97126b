//! The input of the `shared` target: calls on a `SharedAutoscaler`, some of them made again
//! from inside another call, where they must find the state in use.

use arbitrary::Arbitrary;

use crate::encode_fields;
use crate::seed::{variant, Encode};

/// A call made from inside a closure of another call (or from the observation).
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq)]
pub enum Nested {
    Update,
    WithAutoscaler,
    Evaluate,
    LastDecision,
    RescalePending,
    RescaleSucceeded,
    RescaleFailed,
    StatusDesiredReplicas,
}

/// One call of the main loop or the timer.
#[derive(Arbitrary, Debug, Clone)]
pub enum Call {
    /// New inputs: the queue length (milli-units) and, when given, the replica count applied.
    Update {
        load: u32,
        replicas: Option<u16>,
        nested: Option<Nested>,
    },
    /// An evaluation `dt_ms` after the previous instant (negative: time going backwards), with
    /// `nested` made from inside the observation.
    Evaluate {
        dt_ms: i32,
        nested: Option<Nested>,
    },
    WithAutoscaler {
        nested: Option<Nested>,
    },
    LastDecision,
    RescalePending,
    RescaleSucceeded,
    RescaleFailed,
    StatusDesiredReplicas,
}

#[derive(Arbitrary, Debug, Clone)]
pub struct Input {
    /// A behavior with policies of both types, or the legacy path.
    pub behavior: bool,
    /// `maxReplicas` is 1 more than this modulo 200.
    pub max: u16,
    pub calls: Vec<Call>,
}

impl Encode for Nested {
    fn encode(&self, out: &mut Vec<u8>) {
        variant(out, *self as u32, 8);
    }
}

impl Encode for Call {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Call::Update {
                load,
                replicas,
                nested,
            } => {
                variant(out, 0, 8);
                (*load, *replicas, *nested).encode(out);
            }
            Call::Evaluate { dt_ms, nested } => {
                variant(out, 1, 8);
                (*dt_ms, *nested).encode(out);
            }
            Call::WithAutoscaler { nested } => {
                variant(out, 2, 8);
                nested.encode(out);
            }
            Call::LastDecision => variant(out, 3, 8),
            Call::RescalePending => variant(out, 4, 8),
            Call::RescaleSucceeded => variant(out, 5, 8),
            Call::RescaleFailed => variant(out, 6, 8),
            Call::StatusDesiredReplicas => variant(out, 7, 8),
        }
    }
}

encode_fields!(Input {
    behavior,
    max,
    calls
});
