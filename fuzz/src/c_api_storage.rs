//! The input of the `c_api_storage` target (see its module docs).

use arbitrary::Arbitrary;

use crate::encode_fields;
use crate::seed::{variant, Encode};

#[derive(Arbitrary, Debug, Clone)]
pub struct Step {
    /// Seconds after the previous evaluation.
    pub dt: u8,
    /// The queue length per replica, in units.
    pub load: u8,
    /// 0 or 1: failed, 2: unreported, otherwise succeeded.
    pub outcome: u8,
    /// Overrides the replica count the closed loop gives (the target changed outside).
    pub replicas: Option<u8>,
}

#[derive(Arbitrary, Debug, Clone)]
pub enum Damage {
    Flip { offset: u16, bit: u8 },
    Write { offset: u16, value: u8 },
    Zero { offset: u16, len: u8 },
    Garbage { offset: u16, len: u8, seed: u64 },
}

#[derive(Arbitrary, Debug, Clone)]
pub struct Input {
    pub steps: Vec<Step>,
    pub damage: Vec<Damage>,
    /// The calls' evaluation: seconds after the last step, and its load.
    pub dt: u8,
    pub load: u8,
    /// The snapshot restored: the reference's own save (of the calls' instant), damaged by
    /// `snapshot_damage`, cut to `snapshot_len` bytes when set, then resealed when `reseal`.
    pub snapshot_damage: Vec<Damage>,
    pub snapshot_len: Option<u16>,
    pub reseal: bool,
    pub restore_now_ms: i64,
}

impl Encode for Damage {
    fn encode(&self, out: &mut Vec<u8>) {
        match *self {
            Damage::Flip { offset, bit } => {
                variant(out, 0, 4);
                (offset, bit).encode(out);
            }
            Damage::Write { offset, value } => {
                variant(out, 1, 4);
                (offset, value).encode(out);
            }
            Damage::Zero { offset, len } => {
                variant(out, 2, 4);
                (offset, len).encode(out);
            }
            Damage::Garbage { offset, len, seed } => {
                variant(out, 3, 4);
                (offset, len, seed).encode(out);
            }
        }
    }
}

encode_fields!(Step {
    dt,
    load,
    outcome,
    replicas
});
encode_fields!(Input {
    steps,
    damage,
    dt,
    load,
    snapshot_damage,
    snapshot_len,
    reseal,
    restore_now_ms
});
