//! An autoscaler shared between an interrupt and the main loop (feature `critical-section`).
//!
//! Firmware typically evaluates on a timer interrupt (every sync period) while the main loop
//! receives the pods' samples and acts on the decisions. [`SharedAutoscaler`] keeps the HPA
//! state, the caller's inputs and the last decision behind one
//! [`critical_section::Mutex`], so that both contexts can use it from a `static`:
//!
//! * the main loop updates the inputs with [`SharedAutoscaler::update`] (short work inside a
//!   critical section), reads the outcome with [`SharedAutoscaler::last_decision`], applies a
//!   rescale and reports it with [`SharedAutoscaler::rescale_succeeded`] or
//!   [`SharedAutoscaler::rescale_failed`];
//! * the timer interrupt calls [`SharedAutoscaler::evaluate`], which builds the
//!   [`Observation`] from the inputs (your [`Observe`] implementation) and runs
//!   [`Autoscaler::evaluate`].
//!
//! Every method runs inside one critical section, so no context ever sees a half-updated
//! state. [`SharedAutoscaler::evaluate`] holds it for a whole evaluation (interrupts stay
//! masked that long on a single-core MCU): keep the pod count small on slow cores, or let the
//! interrupt only set a flag and evaluate from the main loop. The library only uses the
//! `critical-section` API: the firmware chooses the implementation (for example `cortex-m`
//! with feature `critical-section-single-core`, an RTOS, or `critical-section/std` on a host).
//!
//! # Example
//!
//! ```
//! use hpa::input::{ConditionStatus, Container, ContainerKind, PodPhase, ReadyCondition};
//! use hpa::input::ResourceRequest;
//! use hpa::shared::{Observe, SharedAutoscaler};
//! use hpa::spec::{MetricSpec, MetricTarget};
//! use hpa::{Duration, Hpa, HpaSpec, Instant, MetricValues, Observation, Pod, PodSamples};
//! use hpa::{Quantity, Sample, Settings};
//!
//! const PODS: usize = 4;
//! static REQUESTS: [ResourceRequest<'static>; 1] =
//!     [ResourceRequest { resource: "cpu", quantity: Quantity::from_milli(500) }];
//! static CONTAINERS: [Container<'static>; 1] =
//!     [Container { name: "app", kind: ContainerKind::Regular, requests: &REQUESTS }];
//! static METRICS: [MetricSpec<'static>; 1] =
//!     [MetricSpec::resource("cpu", MetricTarget::utilization(60))];
//!
//! /// What the main loop maintains: the workers' CPU usage, and how many run.
//! struct Inputs {
//!     usage_milli: [Option<i64>; PODS],
//!     sampled_at: Instant,
//!     replicas: i32,
//! }
//!
//! impl Observe for Inputs {
//!     fn observe<T>(&self, now: Instant, evaluate: impl FnOnce(&Observation<'_>) -> T) -> T {
//!         let pod = Pod {
//!             name: "worker",
//!             phase: PodPhase::Running,
//!             ready: Some(ReadyCondition {
//!                 status: ConditionStatus::True,
//!                 last_transition: Some(Instant(-600_000)),
//!             }),
//!             start_time: Some(Instant(-600_000)),
//!             deleted: false,
//!             containers: &CONTAINERS,
//!             requests: None,
//!         };
//!         let running = usize::try_from(self.replicas).unwrap_or(0).min(PODS);
//!         let pods = [pod; PODS];
//!         let samples = self.usage_milli.map(|u| {
//!             u.map(|milli| Sample {
//!                 milli,
//!                 timestamp: self.sampled_at,
//!                 window: Duration::from_secs(60),
//!                 containers: &[],
//!             })
//!         });
//!         let values = [MetricValues::Pods(PodSamples {
//!             per_pod: &samples[..running],
//!             orphans: &[],
//!         })];
//!         evaluate(&Observation {
//!             now,
//!             replicas: self.replicas,
//!             status_replicas: self.replicas,
//!             pods: &pods[..running],
//!             metrics: &values,
//!         })
//!     }
//! }
//!
//! static AUTOSCALER: SharedAutoscaler<Inputs> = SharedAutoscaler::new(Inputs {
//!     usage_milli: [None; PODS],
//!     sampled_at: Instant(0),
//!     replicas: 2,
//! });
//!
//! // Main loop: a new sample arrived for worker 1 (and one for worker 0).
//! AUTOSCALER.update(|inputs| {
//!     inputs.usage_milli[0] = Some(450);
//!     inputs.usage_milli[1] = Some(450);
//!     inputs.sampled_at = Instant(14_000);
//! });
//!
//! // Timer interrupt, every 15 s: evaluate (the spec and settings live in flash).
//! let spec = HpaSpec {
//!     min_replicas: Some(1),
//!     max_replicas: 4,
//!     metrics: &METRICS,
//!     behavior: None,
//!     scale_target_ref: None,
//! };
//! let settings = Settings::DEFAULT;
//! let hpa = Hpa::new(&spec, &settings).expect("a valid spec");
//! let decision = AUTOSCALER.evaluate(&hpa, &settings, Instant(15_000)).expect("valid input");
//! assert_eq!(decision.desired_replicas, 3); // 90 % of the request against a 60 % target
//!
//! // Main loop: act on the last decision and report the outcome.
//! if let Some(d) = AUTOSCALER.last_decision() {
//!     if d.rescale {
//!         AUTOSCALER.update(|inputs| inputs.replicas = d.desired_replicas);
//!         AUTOSCALER.rescale_succeeded();
//!     }
//! }
//! assert_eq!(AUTOSCALER.status_desired_replicas(), 3);
//! ```

use core::cell::RefCell;

use critical_section::Mutex;

use crate::autoscaler::{
    Autoscaler, DecisionSummary, EvaluateError, DEFAULT_EVENT_BYTES, DEFAULT_RECOMMENDATION_BYTES,
};
use crate::defaults::Hpa;
use crate::input::Observation;
use crate::settings::Settings;
use crate::time::Instant;

/// Builds one evaluation's [`Observation`] from the caller's inputs.
///
/// The observation borrows the inputs (and whatever local arrays the implementation builds),
/// so it is handed to `evaluate` instead of being returned.
pub trait Observe {
    /// Calls `evaluate` with the observation at `now`, and returns what it returns.
    fn observe<T>(&self, now: Instant, evaluate: impl FnOnce(&Observation<'_>) -> T) -> T;
}

struct State<I, const R: usize, const E: usize> {
    autoscaler: Autoscaler<R, E>,
    inputs: I,
    last: Option<DecisionSummary>,
}

/// An [`Autoscaler`], the caller's inputs `I` and the last decision, shared between
/// contexts through a critical section (see the [module docs](self)).
pub struct SharedAutoscaler<
    I,
    const R: usize = DEFAULT_RECOMMENDATION_BYTES,
    const E: usize = DEFAULT_EVENT_BYTES,
> {
    state: Mutex<RefCell<State<I, R, E>>>,
}

impl<I, const R: usize, const E: usize> SharedAutoscaler<I, R, E> {
    /// A new HPA state with these initial inputs (usable in a `static`).
    pub const fn new(inputs: I) -> Self {
        SharedAutoscaler {
            state: Mutex::new(RefCell::new(State {
                autoscaler: Autoscaler::new(),
                inputs,
                last: None,
            })),
        }
    }

    /// Runs `f` on the inputs inside a critical section (keep it short: interrupts wait).
    pub fn update<T>(&self, f: impl FnOnce(&mut I) -> T) -> T {
        critical_section::with(|cs| f(&mut self.state.borrow_ref_mut(cs).inputs))
    }

    /// Runs `f` on the HPA state inside a critical section, e.g. to restore conditions or
    /// history.
    pub fn with_autoscaler<T>(&self, f: impl FnOnce(&mut Autoscaler<R, E>) -> T) -> T {
        critical_section::with(|cs| f(&mut self.state.borrow_ref_mut(cs).autoscaler))
    }

    /// Evaluates the HPA at `now` on the current inputs and keeps the decision as the last
    /// one. A rescale decided earlier and not reported yet is forgotten, as with
    /// [`Autoscaler::evaluate`].
    ///
    /// # Errors
    ///
    /// [`EvaluateError`] when the engine refuses the input (nothing changes then, and the last
    /// decision stays).
    pub fn evaluate(
        &self,
        hpa: &Hpa<'_>,
        settings: &Settings,
        now: Instant,
    ) -> Result<DecisionSummary, EvaluateError>
    where
        I: Observe,
    {
        critical_section::with(|cs| {
            let mut guard = self.state.borrow_ref_mut(cs);
            let state = &mut *guard;
            let autoscaler = &mut state.autoscaler;
            let summary = state.inputs.observe(now, |obs| {
                autoscaler.evaluate(hpa, settings, obs).map(|d| d.summary())
            })?;
            state.last = Some(summary.clone());
            Ok(summary)
        })
    }

    /// The last decision, if any evaluation succeeded yet.
    pub fn last_decision(&self) -> Option<DecisionSummary> {
        critical_section::with(|cs| self.state.borrow_ref(cs).last.clone())
    }

    /// Whether a decided rescale awaits its outcome.
    pub fn rescale_pending(&self) -> bool {
        critical_section::with(|cs| self.state.borrow_ref(cs).autoscaler.rescale_pending())
    }

    /// The decided replica count was applied ([`Autoscaler::rescale_succeeded`]).
    pub fn rescale_succeeded(&self) -> bool {
        critical_section::with(|cs| self.state.borrow_ref_mut(cs).autoscaler.rescale_succeeded())
    }

    /// Applying it failed ([`Autoscaler::rescale_failed`]).
    pub fn rescale_failed(&self) -> bool {
        critical_section::with(|cs| self.state.borrow_ref_mut(cs).autoscaler.rescale_failed())
    }

    /// `status.desiredReplicas` after the last evaluation and rescale report.
    pub fn status_desired_replicas(&self) -> i32 {
        critical_section::with(|cs| {
            self.state
                .borrow_ref(cs)
                .autoscaler
                .status()
                .desired_replicas
        })
    }
}
