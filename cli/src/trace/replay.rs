//! The replay loop `hpa replay` runs: one autoscaler, its ScaledToZero flag seeded from the
//! trace, evaluating every step's view and told the outcome of each rescale.
//!
//! Apart from the views because it drives the engine (its status and the rescale protocol)
//! where the views only map data; the JSON lines, the digest and the text timeline are all
//! printed from this one loop.

use bumpalo::Bump;
use hpa::conditions::{ConditionType, Reason};
use hpa::defaults::Hpa;
use hpa::input::ConditionStatus;
use hpa::{Autoscaler, Decision, Status};

use super::{StepView, Trace};

impl Trace {
    /// Replays every step through a new autoscaler, as `hpa replay` does: seeds the
    /// ScaledToZero flag, evaluates each step, reports the rescale outcome (`applied`), then
    /// calls `on_step` with the step, its decision, the HPA and the status after the report.
    ///
    /// # Errors
    ///
    /// The engine refused a step (`steps[i]: ...`), or `on_step` failed.
    pub fn replay(
        &self,
        mut on_step: impl FnMut(
            usize,
            &StepView<'_>,
            &Decision<'_>,
            &Hpa<'_>,
            &Status,
        ) -> Result<(), String>,
    ) -> Result<(), String> {
        let spec_arena = Bump::new();
        let spec = self.spec(&spec_arena);
        let hpa = Hpa::new(&spec, &self.settings).map_err(|e| format!("hpa.{e}"))?;
        let mut autoscaler: Autoscaler = Autoscaler::new();
        if self.scaled_to_zero {
            autoscaler.status_mut().conditions.set(
                ConditionType::ScaledToZero,
                ConditionStatus::True,
                Reason::ScaledToZero,
            );
        }
        let mut arena = Bump::new();
        for i in 0..self.steps() {
            arena.reset();
            let step = self.step_view(i, &arena);
            let decision = autoscaler
                .evaluate(&hpa, &self.settings, &step.observation)
                .map_err(|e| format!("steps[{i}]: {e}"))?;
            if decision.rescale {
                if step.applied {
                    autoscaler.rescale_succeeded();
                } else {
                    autoscaler.rescale_failed();
                }
            }
            on_step(i, &step, &decision, &hpa, autoscaler.status())?;
        }
        Ok(())
    }
}
