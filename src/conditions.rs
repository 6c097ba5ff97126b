//! HPA status conditions with their reasons (docs/spec/reconcile.md#conditions).
//!
//! The list keeps upstream's order: a condition is appended the first time it is set and
//! updated in place afterwards; a condition a reconcile does not touch keeps its value.

use heapless::Vec;

pub use crate::input::ConditionStatus;

/// The four condition types an HPA status holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ConditionType {
    /// Whether the controller can read and update the scale target.
    AbleToScale,
    /// Whether metrics give a replica count.
    ScalingActive,
    /// Whether the result was clamped by min/max or a rate limit.
    ScalingLimited,
    /// Whether the HPA itself scaled the target to zero (HPAScaleToZero).
    ScaledToZero,
}

impl ConditionType {
    /// Every condition type, in the order of their codes (`hpa::digest::type_code`).
    pub const ALL: [ConditionType; 4] = [
        ConditionType::AbleToScale,
        ConditionType::ScalingActive,
        ConditionType::ScalingLimited,
        ConditionType::ScaledToZero,
    ];

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

/// A condition reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Reason {
    /// AbleToScale True: the scale target was read.
    SucceededGetScale,
    /// AbleToScale True: a scale-down was held back by the down window.
    ScaleDownStabilized,
    /// AbleToScale True: a scale-up was held back by the up window.
    ScaleUpStabilized,
    /// AbleToScale True: stabilization changed nothing.
    ReadyForNewScale,
    /// AbleToScale True: the new replica count was applied.
    SucceededRescale,
    /// AbleToScale False: applying the new replica count failed.
    FailedUpdateScale,
    /// ScalingActive False: the target has zero replicas.
    ScalingDisabled,
    /// ScalingActive False: a Resource metric failed.
    FailedGetResourceMetric,
    /// ScalingActive False: a ContainerResource metric failed.
    FailedGetContainerResourceMetric,
    /// ScalingActive False: a Pods metric failed.
    FailedGetPodsMetric,
    /// ScalingActive False: an Object metric failed.
    FailedGetObjectMetric,
    /// ScalingActive False: an External metric failed.
    FailedGetExternalMetric,
    /// ScalingActive False: a metric has a source type the engine does not know (only in
    /// specs built with `Hpa::from_stored`; validation rejects them).
    InvalidMetricSourceType,
    /// ScalingActive True: some metric gave a replica count.
    ValidMetricFound,
    /// ScalingLimited: capped at maxReplicas.
    TooManyReplicas,
    /// ScalingLimited: raised to minReplicas.
    TooFewReplicas,
    /// ScalingLimited: capped by the scale-up rate.
    ScaleUpLimit,
    /// ScalingLimited: held by the scale-down rate.
    ScaleDownLimit,
    /// ScalingLimited False: nothing limited the result.
    DesiredWithinRange,
    /// ScaledToZero True.
    ScaledToZero,
    /// ScaledToZero False.
    NotScaledToZero,
}

impl Reason {
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
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Conditions {
    list: Vec<Condition, 4>,
}

impl Conditions {
    /// No condition set.
    pub const fn new() -> Self {
        Conditions { list: Vec::new() }
    }

    /// Sets a condition, appending it if it is not there yet.
    pub fn set(&mut self, type_: ConditionType, status: ConditionStatus, reason: Reason) {
        let c = Condition {
            type_,
            status,
            reason,
        };
        match self.list.iter_mut().find(|c| c.type_ == type_) {
            Some(existing) => *existing = c,
            // Cannot fail: there are four condition types and room for four.
            None => {
                let _ = self.list.push(c);
            }
        }
    }

    /// Removes a condition.
    pub fn remove(&mut self, type_: ConditionType) {
        // A type is listed at most once (`set` updates in place): shift the later ones down.
        // By hand: `Vec::remove` can panic and `retain`'s panic-safe algorithm is bigger.
        let Some(mut i) = self.list.iter().position(|c| c.type_ == type_) else {
            return;
        };
        while let Some(&next) = self.list.get(i.wrapping_add(1)) {
            if let Some(slot) = self.list.get_mut(i) {
                *slot = next;
            }
            i = i.wrapping_add(1);
        }
        self.list.truncate(i);
    }

    /// The condition of this type, if set.
    pub fn get(&self, type_: ConditionType) -> Option<&Condition> {
        self.list.iter().find(|c| c.type_ == type_)
    }

    /// The conditions in order.
    pub fn iter(&self) -> impl Iterator<Item = &Condition> {
        self.list.iter()
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
