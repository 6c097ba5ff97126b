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
//! state. A method called from inside another one's closure on the same autoscaler (from the
//! `f` of [`SharedAutoscaler::update`] or [`SharedAutoscaler::with_autoscaler`], or from your
//! [`Observe::observe`]) finds the state in use: it does nothing and returns [`InUse`] (the
//! critical section excludes every other context, so only such a call can meet it). [`SharedAutoscaler::evaluate`] holds it for a whole evaluation (interrupts stay
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
//! AUTOSCALER
//!     .update(|inputs| {
//!         inputs.usage_milli[0] = Some(450);
//!         inputs.usage_milli[1] = Some(450);
//!         inputs.sampled_at = Instant(14_000);
//!     })
//!     .expect("not called from inside another call");
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
//! if let Ok(Some(d)) = AUTOSCALER.last_decision() {
//!     if d.rescale {
//!         let _ = AUTOSCALER.update(|inputs| inputs.replicas = d.desired_replicas);
//!         let _ = AUTOSCALER.rescale_succeeded();
//!     }
//! }
//! assert_eq!(AUTOSCALER.status_desired_replicas(), Ok(3));
//! ```

use core::cell::{Ref, RefCell, RefMut};
use core::fmt;

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

/// The shared state was in use: a [`SharedAutoscaler`] method was called from inside another
/// one's closure on the same autoscaler. Nothing was done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct InUse;

impl fmt::Display for InUse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the shared autoscaler is in use by the call this one was made from")
    }
}

/// Why [`SharedAutoscaler::evaluate`] did not evaluate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SharedEvaluateError {
    /// Called from inside another call on the same autoscaler.
    InUse,
    /// The engine refused the input ([`Autoscaler::evaluate`]).
    Evaluate(EvaluateError),
}

impl From<InUse> for SharedEvaluateError {
    fn from(_: InUse) -> Self {
        SharedEvaluateError::InUse
    }
}

impl From<EvaluateError> for SharedEvaluateError {
    fn from(e: EvaluateError) -> Self {
        SharedEvaluateError::Evaluate(e)
    }
}

impl fmt::Display for SharedEvaluateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SharedEvaluateError::InUse => fmt::Display::fmt(&InUse, f),
            SharedEvaluateError::Evaluate(e) => fmt::Display::fmt(e, f),
        }
    }
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

    /// The state, borrowed inside critical section `cs`: `InUse` when a call up the stack holds
    /// it (a `RefCell` borrow that would panic there).
    fn state_mut<'cs>(
        &'cs self,
        cs: critical_section::CriticalSection<'cs>,
    ) -> Result<RefMut<'cs, State<I, R, E>>, InUse> {
        self.state.borrow(cs).try_borrow_mut().map_err(|_| InUse)
    }

    /// The state for reading, as [`Self::state_mut`].
    fn state<'cs>(
        &'cs self,
        cs: critical_section::CriticalSection<'cs>,
    ) -> Result<Ref<'cs, State<I, R, E>>, InUse> {
        self.state.borrow(cs).try_borrow().map_err(|_| InUse)
    }

    /// Runs `f` on the inputs inside a critical section (keep it short: interrupts wait).
    ///
    /// # Errors
    ///
    /// [`InUse`] when called from inside another call on this autoscaler (`f` does not run).
    pub fn update<T>(&self, f: impl FnOnce(&mut I) -> T) -> Result<T, InUse> {
        critical_section::with(|cs| Ok(f(&mut self.state_mut(cs)?.inputs)))
    }

    /// Runs `f` on the HPA state inside a critical section, e.g. to restore conditions or
    /// history.
    ///
    /// # Errors
    ///
    /// [`InUse`] when called from inside another call on this autoscaler (`f` does not run).
    pub fn with_autoscaler<T>(
        &self,
        f: impl FnOnce(&mut Autoscaler<R, E>) -> T,
    ) -> Result<T, InUse> {
        critical_section::with(|cs| Ok(f(&mut self.state_mut(cs)?.autoscaler)))
    }

    /// Evaluates the HPA at `now` on the current inputs and keeps the decision as the last
    /// one. A rescale decided earlier and not reported yet is forgotten, as with
    /// [`Autoscaler::evaluate`].
    ///
    /// # Errors
    ///
    /// [`SharedEvaluateError::Evaluate`] when the engine refuses the input (nothing changes
    /// then, and the last decision stays); [`SharedEvaluateError::InUse`] when called from
    /// inside another call on this autoscaler.
    pub fn evaluate(
        &self,
        hpa: &Hpa<'_>,
        settings: &Settings,
        now: Instant,
    ) -> Result<DecisionSummary, SharedEvaluateError>
    where
        I: Observe,
    {
        critical_section::with(|cs| {
            let mut guard = self.state_mut(cs)?;
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
    ///
    /// # Errors
    ///
    /// [`InUse`] when called from inside another call on this autoscaler.
    pub fn last_decision(&self) -> Result<Option<DecisionSummary>, InUse> {
        critical_section::with(|cs| Ok(self.state(cs)?.last.clone()))
    }

    /// Whether a decided rescale awaits its outcome.
    ///
    /// # Errors
    ///
    /// [`InUse`] when called from inside another call on this autoscaler.
    pub fn rescale_pending(&self) -> Result<bool, InUse> {
        critical_section::with(|cs| Ok(self.state(cs)?.autoscaler.rescale_pending()))
    }

    /// The decided replica count was applied ([`Autoscaler::rescale_succeeded`]).
    ///
    /// # Errors
    ///
    /// [`InUse`] when called from inside another call on this autoscaler.
    pub fn rescale_succeeded(&self) -> Result<bool, InUse> {
        critical_section::with(|cs| Ok(self.state_mut(cs)?.autoscaler.rescale_succeeded()))
    }

    /// Applying it failed ([`Autoscaler::rescale_failed`]).
    ///
    /// # Errors
    ///
    /// [`InUse`] when called from inside another call on this autoscaler.
    pub fn rescale_failed(&self) -> Result<bool, InUse> {
        critical_section::with(|cs| Ok(self.state_mut(cs)?.autoscaler.rescale_failed()))
    }

    /// `status.desiredReplicas` after the last evaluation and rescale report.
    ///
    /// # Errors
    ///
    /// [`InUse`] when called from inside another call on this autoscaler.
    pub fn status_desired_replicas(&self) -> Result<i32, InUse> {
        critical_section::with(|cs| Ok(self.state(cs)?.autoscaler.status().desired_replicas))
    }
}
