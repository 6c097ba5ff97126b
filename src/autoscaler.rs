//! One HPA's controller state and its reconcile (docs/spec/reconcile.md).

use core::fmt;

use heapless::Vec;

use crate::arith::Tolerances;
use crate::calculator::CalcContext;
use crate::conditions::{ConditionStatus, ConditionType, Conditions, Reason};
use crate::defaults::Hpa;
use crate::fingerprint::Fingerprint;
use crate::history::{History, LoadError, ScaleEvent};
use crate::input::{ObservationIn, ObservationOf, PodSource, PodView, SampleSlot, SampleView};
use crate::metrics::{
    self, InvalidMetricsError, MetricFailure, MetricName, MetricOutcome, MAX_METRICS,
};
use crate::normalize::{self, Bounds, NormalizationDetail};
use crate::settings::{Arithmetic, Settings};
use crate::time::{Instant, ZeroIsMin};

pub use crate::history::{DEFAULT_EVENT_BYTES, DEFAULT_RECOMMENDATION_BYTES};

/// The HPA status fields the engine maintains.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Status {
    /// `status.desiredReplicas` (0 for a new HPA).
    pub desired_replicas: i32,
    /// `status.lastScaleTime`.
    pub last_scale_time: Option<Instant>,
    /// `status.conditions`.
    pub conditions: Conditions,
}

/// A rescale the caller has been asked to apply, kept until its outcome is reported.
///
/// Plain data, as the whole [`Autoscaler`]: bytes, not `bool`/`Option`, for flags. (A field
/// with invalid bit patterns would also give `Option<PendingRescale>` a niche whose `None` is
/// not zero, and one non-zero byte moves a `static` [`Autoscaler::new()`] from `.bss` into
/// `.data`, costing its whole size in flash.)
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub(crate) struct PendingRescale {
    pub(crate) at: Instant,
    pub(crate) from: i32,
    pub(crate) to: i32,
    /// HPAs with a behavior record a scale event: the longest policy period of the change's
    /// direction in seconds (upstream marks that direction's older events outdated when it
    /// stores the event, docs/spec/history.md#scale-events; never negative); -1 without a behavior
    /// (no event).
    pub(crate) event_period_seconds: i32,
    /// [`SCALED_TO_ZERO_UNSET`], [`SCALED_TO_ZERO_FALSE`] or [`SCALED_TO_ZERO_TRUE`].
    pub(crate) scaled_to_zero: u8,
    /// Non-zero while the rescale awaits its outcome.
    pub(crate) awaited: u8,
    reserved: [u8; 2],
}

impl fmt::Debug for PendingRescale {
    /// As an `Option`: the fields of a rescale no longer awaited are left as they were (one
    /// store instead of a whole struct's), and mean nothing.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.awaited == 0 {
            return f.write_str("None");
        }
        f.debug_struct("Some")
            .field("from", &self.from)
            .field("to", &self.to)
            .field("at", &self.at)
            .field("event_period_seconds", &self.event_period_seconds)
            .field("scaled_to_zero", &self.scaled_to_zero)
            .finish()
    }
}

impl PendingRescale {
    /// None awaited: all zero.
    pub(crate) const NONE: PendingRescale = PendingRescale {
        at: Instant(0),
        from: 0,
        to: 0,
        event_period_seconds: 0,
        scaled_to_zero: 0,
        awaited: 0,
        reserved: [0; 2],
    };

    /// An awaited rescale.
    pub(crate) const fn new(
        from: i32,
        to: i32,
        at: Instant,
        event_period_seconds: i32,
        scaled_to_zero: u8,
    ) -> PendingRescale {
        PendingRescale {
            at,
            from,
            to,
            event_period_seconds,
            scaled_to_zero,
            awaited: 1,
            reserved: [0; 2],
        }
    }
}

/// [`Status`] as the autoscaler keeps it: plain data.
#[derive(Clone, Debug)]
#[repr(C)]
pub(crate) struct StoredStatus {
    pub(crate) desired_replicas: i32,
    /// Non-zero when `last_scale_time` is set.
    has_last_scale_time: u32,
    last_scale_time: Instant,
    pub(crate) conditions: Conditions,
}

impl StoredStatus {
    const NEW: StoredStatus = StoredStatus {
        desired_replicas: 0,
        has_last_scale_time: 0,
        last_scale_time: Instant(0),
        conditions: Conditions::new(),
    };

    pub(crate) fn get(&self) -> Status {
        Status {
            desired_replicas: self.desired_replicas,
            last_scale_time: (self.has_last_scale_time != 0).then_some(self.last_scale_time),
            conditions: self.conditions.clone(),
        }
    }

    pub(crate) fn set(&mut self, status: &Status) {
        self.desired_replicas = status.desired_replicas;
        self.set_last_scale_time(status.last_scale_time);
        self.conditions.clone_from(&status.conditions);
    }

    fn set_last_scale_time(&mut self, at: Option<Instant>) {
        self.has_last_scale_time = u32::from(at.is_some());
        self.last_scale_time = at.unwrap_or(Instant(0));
    }
}

/// The autoscaler's status, to change in place: written back when dropped
/// ([`Autoscaler::status_mut`]).
pub struct StatusMut<'a> {
    stored: &'a mut StoredStatus,
    status: Status,
}

impl core::ops::Deref for StatusMut<'_> {
    type Target = Status;

    fn deref(&self) -> &Status {
        &self.status
    }
}

impl core::ops::DerefMut for StatusMut<'_> {
    fn deref_mut(&mut self) -> &mut Status {
        &mut self.status
    }
}

impl Drop for StatusMut<'_> {
    fn drop(&mut self) {
        self.stored.set(&self.status);
    }
}

/// The rescale removes the ScaledToZero condition (HPAScaleToZero off).
const SCALED_TO_ZERO_UNSET: u8 = 0;
/// The rescale sets ScaledToZero False/NotScaledToZero.
const SCALED_TO_ZERO_FALSE: u8 = 1;
/// The rescale sets ScaledToZero True/ScaledToZero.
const SCALED_TO_ZERO_TRUE: u8 = 2;

/// The state of one HorizontalPodAutoscaler: its recommendation and scale-event history and
/// its status. `R` and `E` are the history capacities in bytes (see [`History`] and the
/// capacity guarantee in [`crate::history`]).
///
/// Use: [`Autoscaler::evaluate`] once per sync period; when the decision says `rescale`,
/// apply it and report the outcome with [`Autoscaler::rescale_succeeded`] or
/// [`Autoscaler::rescale_failed`]. The state holds no reference and no clock.
///
/// The state is plain data: `repr(C)` structs of integers and byte arrays without padding, so
/// that every bit pattern is a value, and every byte is written. The C API keeps it in the
/// caller's memory, where it may be damaged; it checks a [`Autoscaler::fingerprint`] before
/// each use instead of trusting the bytes, and reading damaged bytes can never be undefined
/// behaviour. (For snapshots that survive reboots, see [`crate::snapshot`].)
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Autoscaler<
    const R: usize = DEFAULT_RECOMMENDATION_BYTES,
    const E: usize = DEFAULT_EVENT_BYTES,
> {
    pub(crate) history: History<R, E>,
    pub(crate) status: StoredStatus,
    pub(crate) pending: PendingRescale,
    /// The latest evaluation time (or newest loaded history instant), `i64::MIN` before any
    /// (no time is earlier): time must not go backwards. Not an `Option`: that would take 16
    /// bytes.
    pub(crate) last_evaluation: ZeroIsMin,
}

/// Why the replica count is what it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LimitedBy {
    /// Nothing held the metrics' proposal back.
    Nothing,
    /// The usage ratio was inside the tolerance band.
    Tolerance,
    /// A stabilization window held the count.
    Stabilization,
    /// A scaling policy (or the legacy 2x/+4 rule) limited the rate.
    RatePolicy,
    /// Raised to `minReplicas`.
    MinReplicas,
    /// Capped at `maxReplicas`.
    MaxReplicas,
    /// Invalid metrics: no decision (all failed, or some failed and the rest scale down).
    InvalidMetrics,
    /// The target has zero replicas and the HPA did not scale it there.
    ScalingDisabled,
}

/// Why the engine asks for a new replica count (upstream's rescale reason).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RescaleReason<'a> {
    /// No change.
    None,
    /// `<metric> above target`.
    AboveTarget(MetricName<'a>),
    /// `All metrics below target`.
    AllBelowTarget,
    /// `Current number of replicas above Spec.MaxReplicas`.
    AboveMaxReplicas,
    /// `Current number of replicas below Spec.MinReplicas`.
    BelowMinReplicas,
}

impl fmt::Display for RescaleReason<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RescaleReason::None => Ok(()),
            RescaleReason::AboveTarget(name) => write!(f, "{name} above target"),
            RescaleReason::AllBelowTarget => f.write_str("All metrics below target"),
            RescaleReason::AboveMaxReplicas => {
                f.write_str("Current number of replicas above Spec.MaxReplicas")
            }
            RescaleReason::BelowMinReplicas => {
                f.write_str("Current number of replicas below Spec.MinReplicas")
            }
        }
    }
}

/// The result of one evaluation.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Decision<'a> {
    /// The evaluation time.
    pub at: Instant,
    /// The target's current `spec.replicas`.
    pub current_replicas: i32,
    /// The replica count to set when `rescale`; otherwise what `status.desiredReplicas`
    /// shows (the current count, or the previous value when metrics failed).
    pub desired_replicas: i32,
    /// Whether the caller should change the replica count.
    pub rescale: bool,
    /// Why.
    pub reason: RescaleReason<'a>,
    /// Each metric's proposal or error, in spec order (empty when no metric was evaluated).
    pub metrics: Vec<MetricOutcome<'a>, MAX_METRICS>,
    /// Upstream's aggregated error when some metric was invalid.
    pub metrics_error: Option<InvalidMetricsError<'a>>,
    /// The combined proposal of the metrics before normalization (None when not evaluated).
    pub proposal: Option<i32>,
    /// After stabilization, before limits (None when normalization did not run).
    pub stabilized: Option<i32>,
    /// How normalization shaped the result: the stabilization bounds and the rate limit with
    /// its policy and period-start replicas (None when normalization did not run). For
    /// explanations; it is a copy of values normalization computes anyway.
    pub normalization: Option<NormalizationDetail>,
    /// The main rule that shaped the result.
    pub limited_by: LimitedBy,
    /// A history ring was full and its conservative summary influenced the result.
    pub history_overflowed: bool,
    /// The status conditions after this evaluation (AbleToScale changes again once the
    /// rescale is reported).
    pub conditions: Conditions,
}

/// An owned copy of a [`Decision`]'s outcome (no borrowed spec or observation inside), to
/// keep, log or hand to another context: see [`Decision::summary`] and `hpa::shared`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DecisionSummary {
    /// The evaluation time.
    pub at: Instant,
    /// The target's current `spec.replicas`.
    pub current_replicas: i32,
    /// The replica count to set when `rescale`.
    pub desired_replicas: i32,
    /// Whether the caller should change the replica count.
    pub rescale: bool,
    /// The combined proposal of the metrics before normalization.
    pub proposal: Option<i32>,
    /// Each metric's proposal in spec order, `None` for a metric that failed.
    pub metric_replicas: Vec<Option<i32>, MAX_METRICS>,
    /// The main rule that shaped the result.
    pub limited_by: LimitedBy,
    /// A history ring was full and its summary influenced the result.
    pub history_overflowed: bool,
    /// The status conditions after the evaluation.
    pub conditions: Conditions,
}

impl Decision<'_> {
    /// An empty decision, for [`Autoscaler::evaluate_into`] to fill (`const`, so that a
    /// firmware can keep one in a `static`).
    pub const fn new() -> Self {
        Decision {
            at: Instant(0),
            current_replicas: 0,
            desired_replicas: 0,
            rescale: false,
            reason: RescaleReason::None,
            metrics: Vec::new(),
            metrics_error: None,
            proposal: None,
            stabilized: None,
            normalization: None,
            limited_by: LimitedBy::Nothing,
            history_overflowed: false,
            conditions: Conditions::new(),
        }
    }

    /// The decision's outcome without its borrowed parts.
    pub fn summary(&self) -> DecisionSummary {
        let mut metric_replicas = Vec::new();
        for m in &self.metrics {
            let replicas = match m {
                MetricOutcome::Proposal(p) => Some(p.replicas),
                MetricOutcome::Error(_) => None,
            };
            // Cannot fail: both hold at most MAX_METRICS entries.
            let _ = metric_replicas.push(replicas);
        }
        DecisionSummary {
            at: self.at,
            current_replicas: self.current_replicas,
            desired_replicas: self.desired_replicas,
            rescale: self.rescale,
            proposal: self.proposal,
            metric_replicas,
            limited_by: self.limited_by,
            history_overflowed: self.history_overflowed,
            conditions: self.conditions.clone(),
        }
    }
}

/// Input the engine refuses; nothing is changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum EvaluateError {
    /// `now` is earlier than a previous evaluation's.
    TimeWentBackwards {
        /// The latest time seen.
        last: i64,
        /// The rejected time.
        now: i64,
    },
    /// The observation has a different number of metric entries than the spec.
    MetricCountMismatch {
        /// Metrics in the spec.
        expected: usize,
        /// Entries in the observation.
        got: usize,
    },
    /// The spec lists more metrics than [`MAX_METRICS`].
    TooManyMetrics {
        /// Metrics in the spec.
        count: usize,
    },
    /// `replicas` or `status_replicas` is negative.
    NegativeReplicas,
    /// `Settings::arithmetic` is `Exact` but the engine was built without the `exact` cargo
    /// feature (on by default).
    ExactArithmeticUnavailable,
}

impl fmt::Display for EvaluateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvaluateError::TimeWentBackwards { last, now } => write!(
                f,
                "evaluation time {now} ms is earlier than the previous one ({last} ms)"
            ),
            EvaluateError::MetricCountMismatch { expected, got } => write!(
                f,
                "the observation has {got} metric entries but the spec lists {expected} metrics"
            ),
            EvaluateError::TooManyMetrics { count } => write!(
                f,
                "the spec lists {count} metrics; this engine supports at most {MAX_METRICS}"
            ),
            EvaluateError::NegativeReplicas => f.write_str("replica counts must not be negative"),
            EvaluateError::ExactArithmeticUnavailable => f.write_str(
                "exact arithmetic was not built into this engine (cargo feature `exact`)",
            ),
        }
    }
}

impl Default for Decision<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const R: usize, const E: usize> Default for Autoscaler<R, E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const R: usize, const E: usize> Autoscaler<R, E> {
    /// A new HPA: no history, no conditions, `desiredReplicas` 0.
    pub const fn new() -> Self {
        Autoscaler {
            history: History::new(),
            status: StoredStatus::NEW,
            pending: PendingRescale::NONE,
            last_evaluation: ZeroIsMin::MIN,
        }
    }

    /// The status after the last evaluation and rescale report.
    pub fn status(&self) -> Status {
        self.status.get()
    }

    /// The status to change in place, e.g. to restore a stored HPA's conditions (a
    /// `ScaledToZero` True condition makes the engine scale from zero); the changes are kept
    /// when the returned guard is dropped.
    pub fn status_mut(&mut self) -> StatusMut<'_> {
        StatusMut {
            status: self.status.get(),
            stored: &mut self.status,
        }
    }

    /// Replaces the status.
    pub fn set_status(&mut self, status: &Status) {
        self.status.set(status);
    }

    /// A 64-bit fingerprint of the state ([`crate::fingerprint`]): every field, and of the
    /// history rings only the bytes in use. The C API stores it beside the state in the
    /// caller's memory and checks it before every use.
    pub fn fingerprint(&self) -> u64 {
        let mut f = Fingerprint::new();
        self.fingerprint_into(&mut f);
        f.finish()
    }

    /// Adds the state to `f` (see [`Autoscaler::fingerprint`]), for a caller that
    /// fingerprints more than the autoscaler.
    pub fn fingerprint_into(&self, f: &mut Fingerprint) {
        self.history.fingerprint(f);
        let s = &self.status;
        f.word(
            u64::from(s.desired_replicas.cast_unsigned()) << 32 | u64::from(s.has_last_scale_time),
        );
        f.int(s.last_scale_time.0);
        s.conditions.fingerprint(f);
        let p = &self.pending;
        f.int(p.at.0);
        f.word(u64::from(p.from.cast_unsigned()) << 32 | u64::from(p.to.cast_unsigned()));
        f.word(
            u64::from(p.event_period_seconds.cast_unsigned()) << 32
                | u64::from(u32::from_le_bytes([
                    p.scaled_to_zero,
                    p.awaited,
                    p.reserved[0],
                    p.reserved[1],
                ])),
        );
        f.int(self.last_evaluation.millis());
    }

    /// Takes the rescale awaiting its outcome, if any.
    fn take_pending(&mut self) -> Option<PendingRescale> {
        let p = self.pending();
        self.pending.awaited = 0;
        p
    }

    /// The rescale awaiting its outcome.
    pub(crate) fn pending(&self) -> Option<PendingRescale> {
        (self.pending.awaited != 0).then_some(self.pending)
    }

    /// The history.
    pub fn history(&self) -> &History<R, E> {
        &self.history
    }

    /// Loads a controller's history (see [`History::load`]): the next evaluation must not be
    /// earlier than its newest instant.
    ///
    /// # Errors
    ///
    /// As [`History::load`]; nothing is changed then.
    pub fn load_history(
        &mut self,
        seeded: bool,
        recommendations: &[(i32, Instant)],
        scale_up_events: &[Option<ScaleEvent>],
        scale_down_events: &[Option<ScaleEvent>],
    ) -> Result<(), LoadError> {
        self.history
            .load(seeded, recommendations, scale_up_events, scale_down_events)?;
        let events = scale_up_events.iter().chain(scale_down_events).flatten();
        let instants = recommendations.iter().map(|&(_, at)| at);
        if let Some(newest) = instants.chain(events.map(|e| e.at)).max() {
            self.last_evaluation = self.last_evaluation.max(ZeroIsMin::new(newest.millis()));
        }
        Ok(())
    }

    /// One reconcile: decides the replica count for `obs` under `hpa` and `settings`.
    ///
    /// A rescale that was decided earlier and never reported is forgotten (no scale event
    /// is recorded for it). A thin wrapper of [`Autoscaler::evaluate_into`], which fills a
    /// decision the caller holds instead of returning one (a [`Decision`] is a few hundred
    /// bytes: firmware keeps one and avoids the copy).
    // On hosts, inlined into the caller, where the decision is its local: out of line, it was
    // filled in this function's frame and copied out whole (712 bytes, 85 of a 10-pod
    // evaluation's 2,590 instructions). Not on small targets: there, inlined, it made
    // `SharedAutoscaler`'s interrupt-masked stretch longer (24,240 to 24,767 instructions at
    // 100 pods on a Cortex-M0), which firmware minds more than the copy.
    #[cfg_attr(target_pointer_width = "64", inline(always))]
    pub fn evaluate<'a, P, T, O>(
        &mut self,
        hpa: &Hpa<'a>,
        settings: &Settings,
        obs: &ObservationOf<'a, P, T, O>,
    ) -> Result<Decision<'a>, EvaluateError>
    where
        P: PodView<'a> + 'a,
        T: SampleSlot<'a, Sample = O> + 'a,
        O: SampleView<'a> + 'a,
    {
        let mut decision = Decision::new();
        self.evaluate_into(hpa, settings, obs, &mut decision)?;
        Ok(decision)
    }

    /// [`Autoscaler::evaluate`] into `decision`, which is overwritten whole (its previous
    /// content does not matter). On error neither the state nor `decision` is changed.
    pub fn evaluate_into<'a, P, T, O>(
        &mut self,
        hpa: &Hpa<'a>,
        settings: &Settings,
        obs: &ObservationOf<'a, P, T, O>,
        decision: &mut Decision<'a>,
    ) -> Result<(), EvaluateError>
    where
        P: PodView<'a> + 'a,
        T: SampleSlot<'a, Sample = O> + 'a,
        O: SampleView<'a> + 'a,
    {
        let specs = hpa.metrics();
        if specs.len() > MAX_METRICS {
            return Err(EvaluateError::TooManyMetrics { count: specs.len() });
        }
        if obs.metrics.len() != specs.len() {
            return Err(EvaluateError::MetricCountMismatch {
                expected: specs.len(),
                got: obs.metrics.len(),
            });
        }
        if obs.replicas < 0 || obs.status_replicas < 0 {
            return Err(EvaluateError::NegativeReplicas);
        }
        if !cfg!(feature = "exact") && settings.arithmetic == Arithmetic::Exact {
            return Err(EvaluateError::ExactArithmeticUnavailable);
        }
        let last = self.last_evaluation.millis();
        if obs.now.millis() < last {
            return Err(EvaluateError::TimeWentBackwards {
                last,
                now: obs.now.millis(),
            });
        }
        self.pending.awaited = 0;
        self.last_evaluation = ZeroIsMin::new(obs.now.millis());

        let now = obs.now;
        let current = obs.replicas;
        // Field by field: a struct literal would be built on the stack and copied.
        decision.at = now;
        decision.current_replicas = current;
        decision.desired_replicas = current;
        decision.rescale = false;
        decision.reason = RescaleReason::None;
        decision.metrics.clear();
        decision.metrics_error = None;
        decision.proposal = None;
        decision.stabilized = None;
        decision.normalization = None;
        decision.limited_by = LimitedBy::Nothing;
        decision.history_overflowed = false;
        // Asked once: both the reconcile (scale from zero) and the rescale (to zero) need it.
        let object_or_external = hpa.has_object_or_external_metric();
        let desired = self.reconcile::<(P, T, O)>(hpa, settings, obs, decision, object_or_external);
        if let Some(desired) = desired {
            decision.rescale = desired != current;
            decision.desired_replicas = desired;
            if decision.rescale {
                let gate = settings.scale_to_zero;
                let min = hpa.min_replicas();
                let rules = hpa.behavior().map(|b| {
                    if desired > current {
                        &b.scale_up
                    } else {
                        &b.scale_down
                    }
                });
                self.pending = PendingRescale::new(
                    current,
                    desired,
                    now,
                    rules.map_or(-1, |r| r.longest_period_seconds()),
                    if !gate {
                        SCALED_TO_ZERO_UNSET
                    } else if current > 0 && desired == 0 && min == 0 && object_or_external {
                        SCALED_TO_ZERO_TRUE
                    } else {
                        SCALED_TO_ZERO_FALSE
                    },
                );
            } else {
                self.status.desired_replicas = current;
            }
        }
        decision.conditions.clone_from(&self.status.conditions);
        Ok(())
    }

    /// The reconcile proper: fills `decision` and returns the desired replica count, or
    /// `None` when no decision was made (scaling disabled, invalid metrics; `decision` then
    /// holds what `status.desiredReplicas` shows).
    fn reconcile<'a, S: PodSource<'a>>(
        &mut self,
        hpa: &Hpa<'a>,
        settings: &Settings,
        obs: &ObservationIn<'a, S>,
        decision: &mut Decision<'a>,
        object_or_external: bool,
    ) -> Option<i32> {
        let now = obs.now;
        let current = obs.replicas;
        let conditions = &mut self.status.conditions;
        conditions.set(
            ConditionType::AbleToScale,
            ConditionStatus::True,
            Reason::SucceededGetScale,
        );
        let retention = normalize::recommendation_retention(settings);
        self.history.seed(current, now, retention);

        let min = hpa.min_replicas();
        let max = hpa.max_replicas();
        let gate = settings.scale_to_zero;
        let scaled_to_zero = gate
            && conditions
                .get(ConditionType::ScaledToZero)
                .is_some_and(|c| c.status == ConditionStatus::True);
        let from_zero = scaled_to_zero && object_or_external;

        if current == 0 && !((min != 0 && scaled_to_zero) || from_zero) {
            conditions.set(
                ConditionType::ScalingActive,
                ConditionStatus::False,
                Reason::ScalingDisabled,
            );
            if !gate {
                conditions.remove(ConditionType::ScaledToZero);
            }
            decision.limited_by = LimitedBy::ScalingDisabled;
            self.status.desired_replicas = 0;
            decision.desired_replicas = 0;
            return None;
        }

        if current != 0 && current > max {
            decision.reason = RescaleReason::AboveMaxReplicas;
            decision.limited_by = LimitedBy::MaxReplicas;
            return Some(max);
        }
        if current != 0 && current < min {
            decision.reason = RescaleReason::BelowMinReplicas;
            decision.limited_by = LimitedBy::MinReplicas;
            return Some(min);
        }

        // Metrics.
        let ctx = CalcContext {
            obs,
            settings,
            tolerances: tolerances(hpa, settings),
            current,
        };
        let specs = hpa.metrics();
        for (spec, values) in specs.iter().zip(obs.metrics.iter()) {
            // Cannot fail: `specs.len() <= MAX_METRICS` was checked. A placeholder is pushed
            // and overwritten in place: no 56-byte temporary and copy per metric.
            if decision
                .metrics
                .push(metrics::fail(spec, MetricFailure::InvalidSource))
                .is_ok()
            {
                if let Some(slot) = decision.metrics.last_mut() {
                    metrics::evaluate_metric_into::<S>(slot, &ctx, spec, values);
                }
            }
        }
        let combined = metrics::tally(&decision.metrics, current);
        decision.metrics_error = combined.first_error.map(|first| InvalidMetricsError {
            invalid: combined.invalid,
            total: specs.len(),
            first: *first,
        });
        if combined.failed {
            if let Some(first) = combined.first_error {
                conditions.set(
                    ConditionType::ScalingActive,
                    ConditionStatus::False,
                    first.reason(),
                );
            }
            decision.limited_by = LimitedBy::InvalidMetrics;
            decision.desired_replicas = self.status.desired_replicas;
            return None;
        }
        conditions.set(
            ConditionType::ScalingActive,
            ConditionStatus::True,
            Reason::ValidMetricFound,
        );
        decision.proposal = Some(combined.replicas);

        let mut proposed = 0;
        let mut winner = None;
        if combined.replicas > proposed {
            proposed = combined.replicas;
            winner = combined.winner.map(|(_, p)| p);
        }
        decision.reason = if proposed > current {
            match winner {
                Some(p) => RescaleReason::AboveTarget(p.name()),
                None => RescaleReason::None,
            }
        } else if proposed < current {
            RescaleReason::AllBelowTarget
        } else {
            RescaleReason::None
        };
        let within_tolerance = winner.is_some_and(|p| p.within_tolerance);

        let bounds = Bounds {
            current,
            min,
            max,
            now,
        };
        let normalized = normalize::normalize(
            &mut self.history,
            settings,
            hpa.behavior(),
            conditions,
            bounds,
            proposed,
            retention,
        );
        let mut result = normalized.replicas;
        decision.stabilized = Some(normalized.stabilized);
        decision.normalization = Some(normalized.detail);
        decision.history_overflowed = normalized.overflowed;
        decision.limited_by = if result != normalized.stabilized {
            match normalized.limit {
                Reason::TooFewReplicas => LimitedBy::MinReplicas,
                Reason::TooManyReplicas => LimitedBy::MaxReplicas,
                _ => LimitedBy::RatePolicy,
            }
        } else if normalized.stabilized != proposed {
            LimitedBy::Stabilization
        } else if result == current && within_tolerance {
            LimitedBy::Tolerance
        } else {
            LimitedBy::Nothing
        };
        if current == 0 && min != 0 && scaled_to_zero && result < min {
            result = min;
            decision.limited_by = LimitedBy::MinReplicas;
            if decision.reason == RescaleReason::None {
                decision.reason = RescaleReason::BelowMinReplicas;
            }
        }
        Some(result)
    }

    /// Whether a decided rescale awaits its outcome.
    pub fn rescale_pending(&self) -> bool {
        self.pending.awaited != 0
    }

    /// The caller applied the decided replica count: records the scale event (HPAs with a
    /// behavior), and updates `desiredReplicas`, `lastScaleTime` and the conditions. Returns
    /// false when no rescale was pending.
    pub fn rescale_succeeded(&mut self) -> bool {
        let Some(p) = self.take_pending() else {
            return false;
        };
        let conditions = &mut self.status.conditions;
        conditions.set(
            ConditionType::AbleToScale,
            ConditionStatus::True,
            Reason::SucceededRescale,
        );
        if p.event_period_seconds >= 0 {
            self.history
                .record_scale_event(p.from, p.to, p.at, p.event_period_seconds);
        }
        match p.scaled_to_zero {
            SCALED_TO_ZERO_TRUE => conditions.set(
                ConditionType::ScaledToZero,
                ConditionStatus::True,
                Reason::ScaledToZero,
            ),
            SCALED_TO_ZERO_FALSE => conditions.set(
                ConditionType::ScaledToZero,
                ConditionStatus::False,
                Reason::NotScaledToZero,
            ),
            _ => conditions.remove(ConditionType::ScaledToZero),
        }
        self.status.desired_replicas = p.to;
        self.status.set_last_scale_time(Some(p.at));
        true
    }

    /// Applying the decided replica count failed: AbleToScale becomes False/FailedUpdateScale,
    /// `desiredReplicas` keeps its previous value and no scale event is recorded. Returns
    /// false when no rescale was pending.
    pub fn rescale_failed(&mut self) -> bool {
        if self.take_pending().is_none() {
            return false;
        }
        self.status.conditions.set(
            ConditionType::AbleToScale,
            ConditionStatus::False,
            Reason::FailedUpdateScale,
        );
        true
    }
}

/// `tolerancesForHpa` (docs/spec/calculator.md#tolerances): the controller's tolerance, replaced
/// per direction by the behavior's when HPAConfigurableTolerance is on.
///
/// Not inlined: called, it writes into the reconcile's `CalcContext` directly; inlined, the
/// tolerances were built in a temporary and copied (three memcpy calls: 24 bytes more code
/// and 24 more stack on a Cortex-M0).
#[inline(never)]
pub fn tolerances(hpa: &Hpa<'_>, settings: &Settings) -> Tolerances {
    // References first, one copy per direction at the end: a `Tolerance` is 24 bytes.
    let mut down = &settings.tolerance;
    let mut up = &settings.tolerance;
    if let (Some(b), true) = (hpa.behavior(), settings.configurable_tolerance) {
        if let Some(t) = &b.scale_down.tolerance {
            down = t;
        }
        if let Some(t) = &b.scale_up.tolerance {
            up = t;
        }
    }
    Tolerances {
        down: *down,
        up: *up,
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    /// Reports the state's size (docs/performance.md, "State size") and keeps it within 2 KiB.
    #[test]
    fn state_size() {
        let default = core::mem::size_of::<Autoscaler>();
        let small = core::mem::size_of::<Autoscaler<128, 64>>();
        std::println!(
            "size_of::<Autoscaler>() = {default} bytes; Autoscaler<128, 64> = {small} bytes"
        );
        assert!(default <= 2048, "{default}");
        // The rings' bytes, two generation arrays of 16-byte summaries, and at most 184 bytes:
        // ring positions (48), the scale-event lists' lengths and cutoffs (24), the kept
        // stabilization extremes (24), the status, the pending rescale and the last evaluation
        // time.
        let summaries = 2 * crate::history::GENERATIONS * 16;
        assert!(default <= DEFAULT_RECOMMENDATION_BYTES + DEFAULT_EVENT_BYTES + summaries + 184);
        assert!(small <= 128 + 64 + summaries + 184, "{small}");
    }
}
