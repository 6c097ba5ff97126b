//! HPA status conditions with their reasons (docs/spec/reconcile.md#conditions).
//!
//! The list keeps upstream's order: a condition is appended the first time it is set and
//! updated in place afterwards; a condition a reconcile does not touch keeps its value.

use core::fmt;

pub use crate::input::ConditionStatus;

/// The four condition types an HPA status holds. The discriminants are the digest's codes
/// (docs/spec/digest.md), which is also how [`Conditions`] stores them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u8)]
pub enum ConditionType {
    /// Whether the controller can read and update the scale target.
    AbleToScale = 1,
    /// Whether metrics give a replica count.
    ScalingActive = 2,
    /// Whether the result was clamped by min/max or a rate limit.
    ScalingLimited = 3,
    /// Whether the HPA itself scaled the target to zero (HPAScaleToZero).
    ScaledToZero = 4,
}

impl ConditionType {
    /// Every condition type, in the order of their codes (`hpa::digest::type_code`).
    pub const ALL: [ConditionType; 4] = [
        ConditionType::AbleToScale,
        ConditionType::ScalingActive,
        ConditionType::ScalingLimited,
        ConditionType::ScaledToZero,
    ];

    /// The condition type whose code (discriminant) is `code`.
    pub const fn from_code(code: u8) -> Option<ConditionType> {
        Some(match code {
            1 => ConditionType::AbleToScale,
            2 => ConditionType::ScalingActive,
            3 => ConditionType::ScalingLimited,
            4 => ConditionType::ScaledToZero,
            _ => return None,
        })
    }

    /// The API spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            ConditionType::AbleToScale => "AbleToScale",
            ConditionType::ScalingActive => "ScalingActive",
            ConditionType::ScalingLimited => "ScalingLimited",
            ConditionType::ScaledToZero => "ScaledToZero",
        }
    }
}

/// A condition reason. The discriminants are the digest's codes (docs/spec/digest.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u8)]
pub enum Reason {
    /// AbleToScale True: the scale target was read.
    SucceededGetScale = 1,
    /// AbleToScale True: a scale-down was held back by the down window.
    ScaleDownStabilized = 2,
    /// AbleToScale True: a scale-up was held back by the up window.
    ScaleUpStabilized = 3,
    /// AbleToScale True: stabilization changed nothing.
    ReadyForNewScale = 4,
    /// AbleToScale True: the new replica count was applied.
    SucceededRescale = 5,
    /// AbleToScale False: applying the new replica count failed.
    FailedUpdateScale = 6,
    /// ScalingActive False: the target has zero replicas.
    ScalingDisabled = 7,
    /// ScalingActive False: a Resource metric failed.
    FailedGetResourceMetric = 8,
    /// ScalingActive False: a ContainerResource metric failed.
    FailedGetContainerResourceMetric = 9,
    /// ScalingActive False: a Pods metric failed.
    FailedGetPodsMetric = 10,
    /// ScalingActive False: an Object metric failed.
    FailedGetObjectMetric = 11,
    /// ScalingActive False: an External metric failed.
    FailedGetExternalMetric = 12,
    /// ScalingActive False: a metric has a source type the engine does not know (only in
    /// specs built with `Hpa::from_stored`; validation rejects them).
    InvalidMetricSourceType = 13,
    /// ScalingActive True: some metric gave a replica count.
    ValidMetricFound = 14,
    /// ScalingLimited: capped at maxReplicas.
    TooManyReplicas = 15,
    /// ScalingLimited: raised to minReplicas.
    TooFewReplicas = 16,
    /// ScalingLimited: capped by the scale-up rate.
    ScaleUpLimit = 17,
    /// ScalingLimited: held by the scale-down rate.
    ScaleDownLimit = 18,
    /// ScalingLimited False: nothing limited the result.
    DesiredWithinRange = 19,
    /// ScaledToZero True.
    ScaledToZero = 20,
    /// ScaledToZero False.
    NotScaledToZero = 21,
}

impl Reason {
    /// The reason whose code (discriminant) is `code`.
    pub const fn from_code(code: u8) -> Option<Reason> {
        Some(match code {
            1 => Reason::SucceededGetScale,
            2 => Reason::ScaleDownStabilized,
            3 => Reason::ScaleUpStabilized,
            4 => Reason::ReadyForNewScale,
            5 => Reason::SucceededRescale,
            6 => Reason::FailedUpdateScale,
            7 => Reason::ScalingDisabled,
            8 => Reason::FailedGetResourceMetric,
            9 => Reason::FailedGetContainerResourceMetric,
            10 => Reason::FailedGetPodsMetric,
            11 => Reason::FailedGetObjectMetric,
            12 => Reason::FailedGetExternalMetric,
            13 => Reason::InvalidMetricSourceType,
            14 => Reason::ValidMetricFound,
            15 => Reason::TooManyReplicas,
            16 => Reason::TooFewReplicas,
            17 => Reason::ScaleUpLimit,
            18 => Reason::ScaleDownLimit,
            19 => Reason::DesiredWithinRange,
            20 => Reason::ScaledToZero,
            21 => Reason::NotScaledToZero,
            _ => return None,
        })
    }

    /// Every reason, in the order of their codes (`hpa::digest::reason_code`).
    pub const ALL: [Reason; 21] = [
        Reason::SucceededGetScale,
        Reason::ScaleDownStabilized,
        Reason::ScaleUpStabilized,
        Reason::ReadyForNewScale,
        Reason::SucceededRescale,
        Reason::FailedUpdateScale,
        Reason::ScalingDisabled,
        Reason::FailedGetResourceMetric,
        Reason::FailedGetContainerResourceMetric,
        Reason::FailedGetPodsMetric,
        Reason::FailedGetObjectMetric,
        Reason::FailedGetExternalMetric,
        Reason::InvalidMetricSourceType,
        Reason::ValidMetricFound,
        Reason::TooManyReplicas,
        Reason::TooFewReplicas,
        Reason::ScaleUpLimit,
        Reason::ScaleDownLimit,
        Reason::DesiredWithinRange,
        Reason::ScaledToZero,
        Reason::NotScaledToZero,
    ];

    /// The API spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            Reason::SucceededGetScale => "SucceededGetScale",
            Reason::ScaleDownStabilized => "ScaleDownStabilized",
            Reason::ScaleUpStabilized => "ScaleUpStabilized",
            Reason::ReadyForNewScale => "ReadyForNewScale",
            Reason::SucceededRescale => "SucceededRescale",
            Reason::FailedUpdateScale => "FailedUpdateScale",
            Reason::ScalingDisabled => "ScalingDisabled",
            Reason::FailedGetResourceMetric => "FailedGetResourceMetric",
            Reason::FailedGetContainerResourceMetric => "FailedGetContainerResourceMetric",
            Reason::FailedGetPodsMetric => "FailedGetPodsMetric",
            Reason::FailedGetObjectMetric => "FailedGetObjectMetric",
            Reason::FailedGetExternalMetric => "FailedGetExternalMetric",
            Reason::InvalidMetricSourceType => "InvalidMetricSourceType",
            Reason::ValidMetricFound => "ValidMetricFound",
            Reason::TooManyReplicas => "TooManyReplicas",
            Reason::TooFewReplicas => "TooFewReplicas",
            Reason::ScaleUpLimit => "ScaleUpLimit",
            Reason::ScaleDownLimit => "ScaleDownLimit",
            Reason::DesiredWithinRange => "DesiredWithinRange",
            Reason::ScaledToZero => "ScaledToZero",
            Reason::NotScaledToZero => "NotScaledToZero",
        }
    }

    /// Upstream's message for reasons whose message has no parameter.
    pub const fn fixed_message(self) -> Option<&'static str> {
        Some(match self {
            Reason::SucceededGetScale => "the HPA controller was able to get the target's current scale",
            Reason::ScaleDownStabilized => "recent recommendations were higher than current one, applying the highest recent recommendation",
            Reason::ScaleUpStabilized => "recent recommendations were lower than current one, applying the lowest recent recommendation",
            Reason::ReadyForNewScale => "recommended size matches current size",
            Reason::ScalingDisabled => "scaling is disabled since the replica count of the target is zero",
            Reason::TooManyReplicas => "the desired replica count is more than the maximum replica count",
            Reason::TooFewReplicas => "the desired replica count is less than the minimum replica count",
            Reason::ScaleUpLimit => "the desired replica count is increasing faster than the maximum scale rate",
            Reason::ScaleDownLimit => "the desired replica count is decreasing faster than the maximum scale rate",
            Reason::DesiredWithinRange => "the desired count is within the acceptable range",
            Reason::ScaledToZero => "the HPA controller scaled the workload to zero",
            Reason::NotScaledToZero => "the HPA controller did not scale the workload to zero",
            _ => return None,
        })
    }
}

/// One status condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Condition {
    /// Which condition.
    pub type_: ConditionType,
    /// True, False or Unknown.
    pub status: ConditionStatus,
    /// Why.
    pub reason: Reason,
}

/// The conditions of an HPA status, in upstream's order.
///
/// Plain data: each condition is stored as one word of its codes (the enums' discriminants,
/// which are the digest's codes: type, status and reason in its low three bytes), so that
/// every bit pattern of a `Conditions` is a value (the C API keeps the state in the caller's
/// memory, and checks a fingerprint instead of trusting it). The conditions fill the slots
/// from the first on; a zero word ends them; a word whose codes are not all known is skipped.
#[derive(Clone, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Conditions {
    slots: [u32; 4],
}

impl Condition {
    fn code(self) -> u32 {
        u32::from_le_bytes([self.type_ as u8, self.status as u8, self.reason as u8, 0])
    }

    fn from_code(code: u32) -> Option<Condition> {
        let [type_, status, reason, _] = code.to_le_bytes();
        Some(Condition {
            type_: ConditionType::from_code(type_)?,
            status: ConditionStatus::from_code(status)?,
            reason: Reason::from_code(reason)?,
        })
    }
}

/// Whether a stored condition word is of this type.
fn is_of(code: u32, type_: ConditionType) -> bool {
    code & 0xff == type_ as u32
}

impl Conditions {
    /// No condition set.
    pub const fn new() -> Self {
        Conditions { slots: [0; 4] }
    }

    /// Sets a condition, appending it if it is not there yet.
    pub fn set(&mut self, type_: ConditionType, status: ConditionStatus, reason: Reason) {
        let code = Condition {
            type_,
            status,
            reason,
        }
        .code();
        // Its own slot, or the first free one (there are four types and four slots).
        if let Some(slot) = self
            .slots
            .iter_mut()
            .find(|c| **c == 0 || is_of(**c, type_))
        {
            *slot = code;
        }
    }

    /// Removes a condition.
    pub fn remove(&mut self, type_: ConditionType) {
        // A type is listed at most once (`set` updates in place): shift the later ones down.
        let Some(mut i) = self.slots.iter().position(|&c| c != 0 && is_of(c, type_)) else {
            return;
        };
        while let Some(&next) = self.slots.get(i.wrapping_add(1)) {
            if let Some(slot) = self.slots.get_mut(i) {
                *slot = next;
            }
            i = i.wrapping_add(1);
        }
        if let Some(last) = self.slots.last_mut() {
            *last = 0;
        }
    }

    /// The condition of this type, if set.
    pub fn get(&self, type_: ConditionType) -> Option<Condition> {
        // The word first, decoded once.
        let code = self.slots.iter().find(|&&c| c == 0 || is_of(c, type_))?;
        Condition::from_code(*code)
    }

    /// The conditions in order.
    pub fn iter(&self) -> impl Iterator<Item = Condition> + '_ {
        self.slots
            .iter()
            .take_while(|&&c| c != 0)
            .filter_map(|&c| Condition::from_code(c))
    }

    /// Adds the stored words to `f`.
    pub(crate) fn fingerprint(&self, f: &mut crate::fingerprint::Fingerprint) {
        let [a, b, c, d] = self.slots;
        f.word(u64::from(a) << 32 | u64::from(b));
        f.word(u64::from(c) << 32 | u64::from(d));
    }
}

impl fmt::Debug for Conditions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        /// The conditions as a list.
        struct List<'a>(&'a Conditions);
        impl fmt::Debug for List<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_list().entries(self.0.iter()).finish()
            }
        }
        f.debug_struct("Conditions")
            .field("list", &List(self))
            .finish()
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for Conditions {
    fn format(&self, f: defmt::Formatter<'_>) {
        let list: heapless::Vec<Condition, 4> = self.iter().collect();
        defmt::write!(f, "{=[?]}", list.as_slice());
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::format;

    /// Upstream's order through updates and removals, and the list-shaped `Debug` output.
    #[test]
    fn order_and_debug() {
        let mut c = Conditions::new();
        c.set(
            ConditionType::ScaledToZero,
            ConditionStatus::False,
            Reason::NotScaledToZero,
        );
        c.set(
            ConditionType::AbleToScale,
            ConditionStatus::True,
            Reason::SucceededGetScale,
        );
        c.set(
            ConditionType::ScalingActive,
            ConditionStatus::True,
            Reason::ValidMetricFound,
        );
        c.set(
            ConditionType::ScaledToZero,
            ConditionStatus::True,
            Reason::ScaledToZero,
        );
        let types = |c: &Conditions| c.iter().map(|c| c.type_).collect::<std::vec::Vec<_>>();
        assert_eq!(
            types(&c),
            [
                ConditionType::ScaledToZero,
                ConditionType::AbleToScale,
                ConditionType::ScalingActive
            ]
        );
        assert_eq!(
            c.get(ConditionType::ScaledToZero).map(|c| c.reason),
            Some(Reason::ScaledToZero)
        );
        c.remove(ConditionType::ScaledToZero);
        c.remove(ConditionType::ScalingLimited);
        assert_eq!(
            types(&c),
            [ConditionType::AbleToScale, ConditionType::ScalingActive]
        );
        assert_eq!(c.get(ConditionType::ScaledToZero), None);
        c.set(
            ConditionType::ScaledToZero,
            ConditionStatus::False,
            Reason::NotScaledToZero,
        );
        c.set(
            ConditionType::ScalingLimited,
            ConditionStatus::False,
            Reason::DesiredWithinRange,
        );
        assert_eq!(c.iter().count(), 4);
        let mut d = Conditions::new();
        d.clone_from(&c);
        assert_eq!(d, c);
        c.remove(ConditionType::AbleToScale);
        assert_ne!(d, c);
        assert_eq!(
            format!("{:?}", c),
            "Conditions { list: [Condition { type_: ScalingActive, status: True, reason: \
             ValidMetricFound }, Condition { type_: ScaledToZero, status: False, reason: \
             NotScaledToZero }, Condition { type_: ScalingLimited, status: False, reason: \
             DesiredWithinRange }] }"
        );
        assert_eq!(
            format!("{:?}", Conditions::new()),
            "Conditions { list: [] }"
        );
        // Removal from the middle and from the end keeps the others in order.
        c.remove(ConditionType::ScaledToZero);
        assert_eq!(
            types(&c),
            [ConditionType::ScalingActive, ConditionType::ScalingLimited]
        );
        c.remove(ConditionType::ScalingLimited);
        assert_eq!(types(&c), [ConditionType::ScalingActive]);
        c.remove(ConditionType::ScalingActive);
        assert_eq!(c, Conditions::new());
    }
}
