//! A 64-bit digest of a sequence of decisions, to compare replays across machines.
//!
//! `hpa replay --digest TRACE` on a host and the Cortex-M0 firmware in `examples/firmware`
//! fold the same decisions through this module and print the same hex string, so one line
//! per trace proves that the embedded target decides bit for bit like the host.
//!
//! # Canonical encoding (version 1)
//!
//! The digest is FNV-1a (64-bit: offset basis `0xcbf29ce484222325`, prime `0x100000001b3`)
//! over a byte stream. The stream starts with the version byte `0x01`; each step then appends,
//! after the caller reported the rescale outcome (if any), all integers little-endian:
//!
//! | field | bytes |
//! |---|---|
//! | `at` (ms) | i64 |
//! | `replicas` (the step's current replicas) | i32 |
//! | `desiredReplicas`: `status.desired_replicas` after the rescale report | i32 |
//! | `rescale` | u8, 0 or 1 |
//! | number of conditions, then per condition in status order: type, status, reason codes | u8, then 3 × u8 |
//! | number of metric outcomes, then per metric (spec order) | u8, then below |
//!
//! A metric proposal is the tag `0x00`, its replicas (i32), then its current values, each
//! as a presence byte (0 or 1) followed by the value when present: average utilization (i32),
//! average value in milli-units (i64), value in milli-units (i64). A metric error is the tag
//! `0x01` and one error-kind byte (see [`error_kind`]); the message text is not digested.
//!
//! The codes are fixed here, not derived from the enums' declaration order: condition types
//! `AbleToScale` 1, `ScalingActive` 2, `ScalingLimited` 3, `ScaledToZero` 4; statuses `True` 1,
//! `False` 2, `Unknown` 3; reasons in the order [`Reason`] documents them, from
//! `SucceededGetScale` 1 to `NotScaledToZero` 21 (see [`reason_code`]).
//!
//! The hex form ([`hex`]) is 16 lowercase digits, most significant first.

use crate::autoscaler::{Decision, Status};
use crate::calculator::CalcError;
use crate::conditions::{ConditionStatus, ConditionType, Reason};
use crate::metrics::{MetricError, MetricFailure, MetricOutcome};
use crate::pods::RequestError;

/// FNV-1a 64-bit offset basis.
const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
/// FNV-1a 64-bit prime.
const PRIME: u64 = 0x0000_0100_0000_01b3;
/// The encoding version, the first byte of every stream.
pub const VERSION: u8 = 1;

/// The running digest of a replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Digest {
    state: u64,
    steps: u32,
}

impl Default for Digest {
    fn default() -> Self {
        Self::new()
    }
}

impl Digest {
    /// An empty replay (the version byte already folded in).
    pub const fn new() -> Digest {
        Digest {
            state: (OFFSET_BASIS ^ VERSION as u64).wrapping_mul(PRIME),
            steps: 0,
        }
    }

    fn byte(&mut self, b: u8) {
        self.state = (self.state ^ u64::from(b)).wrapping_mul(PRIME);
    }

    fn bytes(&mut self, bs: &[u8]) {
        for &b in bs {
            self.byte(b);
        }
    }

    fn i32(&mut self, v: i32) {
        self.bytes(&v.to_le_bytes());
    }

    fn i64(&mut self, v: i64) {
        self.bytes(&v.to_le_bytes());
    }

    fn flag(&mut self, v: bool) {
        self.byte(u8::from(v));
    }

    fn count(&mut self, n: usize) {
        self.byte(u8::try_from(n).unwrap_or(u8::MAX));
    }

    /// Folds one step in: the decision, and the status after its rescale (if any) was
    /// reported with [`crate::Autoscaler::rescale_succeeded`] or
    /// [`crate::Autoscaler::rescale_failed`].
    pub fn step(&mut self, decision: &Decision<'_>, status: &Status) {
        self.i64(decision.at.millis());
        self.i32(decision.current_replicas);
        self.i32(status.desired_replicas);
        self.flag(decision.rescale);
        self.count(status.conditions.iter().count());
        for c in status.conditions.iter() {
            self.byte(type_code(c.type_));
            self.byte(status_code(c.status));
            self.byte(reason_code(c.reason));
        }
        self.count(decision.metrics.len());
        for outcome in &decision.metrics {
            match outcome {
                MetricOutcome::Proposal(p) => {
                    self.byte(0);
                    self.i32(p.replicas);
                    self.flag(p.average_utilization.is_some());
                    if let Some(v) = p.average_utilization {
                        self.i32(v);
                    }
                    self.flag(p.average_value.is_some());
                    if let Some(v) = p.average_value {
                        self.i64(v);
                    }
                    self.flag(p.value.is_some());
                    if let Some(v) = p.value {
                        self.i64(v);
                    }
                }
                MetricOutcome::Error(e) => {
                    self.byte(1);
                    self.byte(error_kind(e));
                }
            }
        }
        self.steps = self.steps.saturating_add(1);
    }

    /// The number of steps folded in.
    pub const fn steps(&self) -> u32 {
        self.steps
    }

    /// The digest value.
    pub const fn value(&self) -> u64 {
        self.state
    }

    /// The digest as 16 lowercase hex digits.
    pub fn hex(&self) -> [u8; 16] {
        hex(self.state)
    }
}

/// `value` as 16 lowercase hex digits, most significant first (ASCII).
pub fn hex(value: u64) -> [u8; 16] {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = [0u8; 16];
    let mut v = value;
    for slot in out.iter_mut() {
        v = v.rotate_left(4);
        *slot = DIGITS.get((v & 0xf) as usize).copied().unwrap_or(b'0');
    }
    out
}

/// The digest code of a condition type.
pub const fn type_code(t: ConditionType) -> u8 {
    // The discriminants are the codes (src/conditions.rs).
    t as u8
}

/// The digest code of a condition status.
pub const fn status_code(s: ConditionStatus) -> u8 {
    // The discriminants are the codes (src/conditions.rs).
    s as u8
}

/// The digest code of a condition reason.
pub const fn reason_code(r: Reason) -> u8 {
    // The discriminants are the codes (src/conditions.rs).
    r as u8
}

/// The digest code of a metric error's kind:
///
/// | kind | code |
/// |---|---|
/// | invalid source (no usable target) | 1 |
/// | invalid label selector | 2 |
/// | values of the wrong shape | 3 |
/// | fetch failed (adapter message) | 16 |
/// | no resource metrics | 17 |
/// | no external metrics | 18 |
/// | no custom metrics | 19 |
/// | no pods | 20 |
/// | no ready pod metrics | 21 |
/// | no matching requests | 22 |
/// | ready pods: no pods | 23 |
/// | sample count mismatch | 24 |
/// | container not in metrics (`older-controllers`) | 25 |
/// | request: missing request | 32 |
/// | request: container not found | 33 |
/// | request: missing pod-level request | 34 |
pub const fn error_kind(e: &MetricError<'_>) -> u8 {
    match e.failure {
        MetricFailure::InvalidSource => 1,
        MetricFailure::InvalidSelector => 2,
        MetricFailure::WrongValues => 3,
        MetricFailure::Calc(c) => match c {
            CalcError::Fetch(_) => 16,
            CalcError::NoResourceMetrics => 17,
            CalcError::NoExternalMetrics => 18,
            CalcError::NoCustomMetrics => 19,
            CalcError::NoPods => 20,
            CalcError::NoReadyPodMetrics => 21,
            CalcError::NoMatchingRequests => 22,
            CalcError::ReadyPodsNoPods => 23,
            CalcError::SampleCountMismatch { .. } => 24,
            #[cfg(feature = "older-controllers")]
            CalcError::ContainerNotInMetrics { .. } => 25,
            CalcError::Request(r) => match r {
                RequestError::MissingRequest { .. } => 32,
                RequestError::ContainerNotFound { .. } => 33,
                RequestError::MissingPodLevelRequest { .. } => 34,
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_reference_and_hex() {
        // FNV-1a 64 of the single byte 0x01 (published test vector style check).
        let d = Digest::new();
        let mut expected = OFFSET_BASIS;
        expected ^= 1;
        expected = expected.wrapping_mul(PRIME);
        assert_eq!(d.value(), expected);
        assert_eq!(&hex(0x0123_4567_89ab_cdef), b"0123456789abcdef");
        assert_eq!(&hex(0), b"0000000000000000");
    }

    /// The `ALL` lists are in code order (snapshots decode codes through them).
    #[test]
    fn codes_count_from_one_in_the_all_lists() {
        for (i, t) in ConditionType::ALL.into_iter().enumerate() {
            assert_eq!(usize::from(type_code(t)), i + 1);
        }
        for (i, s) in ConditionStatus::ALL.into_iter().enumerate() {
            assert_eq!(usize::from(status_code(s)), i + 1);
        }
        for (i, r) in Reason::ALL.into_iter().enumerate() {
            assert_eq!(usize::from(reason_code(r)), i + 1);
        }
    }
}
