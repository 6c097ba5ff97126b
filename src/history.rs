//! Recommendation and scale-event history in fixed-capacity ring buffers.
//!
//! Upstream keeps two unbounded lists per HPA and reuses "old" slots in place; only the
//! timestamps and values of the entries decide anything. Here each list is a time-ordered
//! ring (`heapless::Deque`) that drops entries no valid spec can ever look at again
//! (recommendations older than the longest possible window, scale events older than the
//! longest possible policy period, 1800 s). While a ring has room, every decision equals the
//! one upstream's lists give.
//!
//! When a ring is full, its oldest entry is folded into a summary instead of being lost.
//! Summaries come in up to [`GENERATIONS`] generations, each covering at most 1/15 of the
//! retention span (240 s of recommendations, 120 s of events at the defaults):
//! recommendations keep their minimum and maximum with the newest folded timestamp, events
//! their sums. A folded entry therefore stays visible at most one generation span longer
//! than upstream's would, which only ever holds the replica count back (more stabilization,
//! smaller scale-up and scale-down budgets): the conservative choice. When a new generation
//! is needed and all are in use, the oldest one is provably older than the whole retention
//! span and is dropped. Every result that a summary influenced is reported as `overflowed`.
//!
//! Timestamps are stored as `u32` millisecond offsets from a moving epoch, halving the state.

use heapless::Deque;

use crate::time::{Duration, Instant};

/// Longest span a stored offset may cover before the epoch moves (2^31 ms, about 24.8 days).
const REBASE_SPAN: i64 = 1 << 31;

/// The longest policy period Kubernetes accepts; older events never count again.
pub(crate) const EVENT_RETENTION: Duration = Duration::from_secs(1800);

/// The longest behavior stabilization window Kubernetes accepts.
pub(crate) const BEHAVIOR_WINDOW_LIMIT: Duration = Duration::from_secs(3600);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Recommendation {
    replicas: i32,
    at: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ScaleEvent {
    /// Positive for a scale-up (new − old), negative for a scale-down (−(old − new)).
    change: i32,
    at: u32,
}

/// How many summary generations each ring keeps.
pub const GENERATIONS: usize = 16;

/// What one generation of folded (evicted) recommendations still contributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RecommendationSummary {
    low: i32,
    high: i32,
    /// Oldest and newest folded timestamps.
    first: u32,
    at: u32,
}

/// What one generation of folded scale events still contributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct EventSummary {
    added: i32,
    deleted: i32,
    first: u32,
    at: u32,
}

/// The span one generation may cover: 1/(GENERATIONS - 1) of the retention, so that when all
/// generations are in use the oldest ends before `now - retention` (each later one starts at
/// least one span after the previous one's start).
fn generation_span(retention: Duration) -> u32 {
    // Rounded up: GENERATIONS - 1 spans then cover at least the whole retention.
    let millis = u64::try_from(retention.as_millis()).unwrap_or(0);
    const SPANS: u64 = GENERATIONS as u64 - 1;
    let span = millis.div_ceil(SPANS);
    u32::try_from(span.max(1)).unwrap_or(u32::MAX)
}

/// Replica changes counted for one policy period.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct PeriodChanges {
    pub added: i32,
    pub deleted: i32,
    pub overflowed: bool,
}

/// Which limit a period count is for, so that folded events are counted conservatively.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LimitDirection {
    Up,
    Down,
}

/// The bounds a stabilization found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stabilized {
    pub replicas: i32,
    pub overflowed: bool,
    /// `replicas` is `current` clamped into `[low, high]` (for explanations).
    pub low: i32,
    pub high: i32,
}

/// An entry stamped with an offset from the history's epoch.
trait Stamped: Copy {
    /// The entry with its offsets moved back by `shift`, `None` when it would fall before the
    /// new epoch (older than 2^31 ms: beyond every window and period).
    fn rebased(self, shift: u32) -> Option<Self>;
}

impl Stamped for Recommendation {
    fn rebased(self, shift: u32) -> Option<Self> {
        Some(Recommendation {
            at: self.at.checked_sub(shift)?,
            ..self
        })
    }
}

impl Stamped for ScaleEvent {
    fn rebased(self, shift: u32) -> Option<Self> {
        Some(ScaleEvent {
            at: self.at.checked_sub(shift)?,
            ..self
        })
    }
}

impl Stamped for RecommendationSummary {
    fn rebased(self, shift: u32) -> Option<Self> {
        Some(RecommendationSummary {
            at: self.at.checked_sub(shift)?,
            first: self.first.saturating_sub(shift),
            ..self
        })
    }
}

impl Stamped for EventSummary {
    fn rebased(self, shift: u32) -> Option<Self> {
        Some(EventSummary {
            at: self.at.checked_sub(shift)?,
            first: self.first.saturating_sub(shift),
            ..self
        })
    }
}

/// Shifts every entry of `ring` in place, in order, dropping those before the new epoch.
fn rebase_ring<T: Stamped, const N: usize>(ring: &mut Deque<T, N>, shift: u32) {
    for _ in 0..ring.len() {
        if let Some(entry) = ring.pop_front() {
            if let Some(kept) = entry.rebased(shift) {
                // Cannot fail: an entry was just taken out.
                let _ = ring.push_back(kept);
            }
        }
    }
}

/// A cutoff `now - window` as bounds on offsets (see `History::cutoff`).
#[derive(Clone, Copy)]
struct Cutoff {
    /// Offsets strictly after the cutoff are at least this (2^32: none).
    after: u64,
    /// Offsets strictly before the cutoff are below this.
    before: u64,
}

impl Cutoff {
    /// Strictly after the cutoff.
    fn after(self, at: u32) -> bool {
        u64::from(at) >= self.after
    }

    /// Strictly before the cutoff.
    fn before(self, at: u32) -> bool {
        u64::from(at) < self.before
    }

    /// The lowest offset strictly after the cutoff, `None` when no offset is.
    fn first_after(self) -> Option<u32> {
        u32::try_from(self.after).ok()
    }

    /// The lowest offset not before the cutoff, `None` when every offset is before it.
    fn first_not_before(self) -> Option<u32> {
        u32::try_from(self.before).ok()
    }
}

/// Both histories of one HPA. `R` recommendations, `E` scale events.
#[derive(Clone, Debug)]
pub struct History<const R: usize, const E: usize> {
    /// `now` of the last recorded instant; offsets count from `epoch`.
    epoch: i64,
    last: Option<i64>,
    /// Upstream has no list yet (a new HPA): the first evaluation seeds `(current, now)`.
    seeded: bool,
    recommendations: Deque<Recommendation, R>,
    folded_recommendations: Deque<RecommendationSummary, GENERATIONS>,
    events: Deque<ScaleEvent, E>,
    folded_events: Deque<EventSummary, GENERATIONS>,
}

impl<const R: usize, const E: usize> Default for History<R, E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const R: usize, const E: usize> History<R, E> {
    /// An empty, unseeded history.
    pub const fn new() -> Self {
        History {
            epoch: 0,
            last: None,
            seeded: false,
            recommendations: Deque::new(),
            folded_recommendations: Deque::new(),
            events: Deque::new(),
            folded_events: Deque::new(),
        }
    }

    /// The last instant the history has seen.
    pub(crate) fn last_instant(&self) -> Option<Instant> {
        self.last.map(Instant)
    }

    /// Moves the epoch so that `now` has an offset; drops what becomes unrepresentable (older
    /// than 2^31 ms, far beyond every window and period). `now` must not precede `last`.
    fn advance(&mut self, now: Instant) -> u32 {
        let now = now.millis();
        match self.last {
            None => {
                self.epoch = now;
            }
            Some(_) => {
                let span = i128::from(now).saturating_sub(i128::from(self.epoch));
                if span > i128::from(u32::MAX) {
                    let new_epoch = now.saturating_sub(REBASE_SPAN);
                    self.rebase(new_epoch);
                }
            }
        }
        self.last = Some(self.last.map_or(now, |l| l.max(now)));
        self.offset(Instant(now)).unwrap_or(u32::MAX)
    }

    /// Moves the epoch forward to `new_epoch`. Each ring is shifted in place (each entry goes
    /// round the ring once, in order): a second ring on the stack would cost its whole
    /// capacity (2.9 KB at the default capacities) in the frame. Cold: it runs about once in
    /// 25 days.
    #[cold]
    #[inline(never)]
    fn rebase(&mut self, new_epoch: i64) {
        let shift = i128::from(new_epoch).saturating_sub(i128::from(self.epoch));
        let shift = u32::try_from(shift.max(0)).unwrap_or(u32::MAX);
        rebase_ring(&mut self.recommendations, shift);
        rebase_ring(&mut self.events, shift);
        rebase_ring(&mut self.folded_recommendations, shift);
        rebase_ring(&mut self.folded_events, shift);
        self.epoch = new_epoch;
    }

    /// Offset of `t` from the epoch, `None` if it lies before the epoch.
    fn offset(&self, t: Instant) -> Option<u32> {
        let d = i128::from(t.millis()).saturating_sub(i128::from(self.epoch));
        u32::try_from(d).ok()
    }

    fn instant(&self, at: u32) -> Instant {
        Instant(self.epoch.saturating_add(i64::from(at)))
    }

    /// The cutoff `now - window` as a bound on offsets: entries strictly after the cutoff
    /// (inside a behavior window or policy period) have `at >= after`; entries strictly
    /// before it have `at < before`. Computed once per scan, so that each entry costs one
    /// integer comparison. Exactly the comparisons of `Instant` on `epoch + at` (saturating).
    fn cutoff(&self, now: Instant, window: Duration) -> Cutoff {
        let cutoff = i128::from(now.millis()).saturating_sub(i128::from(window.as_millis()));
        let max = i128::from(i64::MAX);
        let from_epoch = cutoff.saturating_sub(i128::from(self.epoch));
        let bound = |v: i128| u64::try_from(v.clamp(0, 1 << 32)).unwrap_or(0);
        Cutoff {
            // `min(epoch + at, MAX) > cutoff` never holds from MAX up.
            after: if cutoff >= max {
                1 << 32
            } else {
                bound(from_epoch.saturating_add(1))
            },
            // `min(epoch + at, MAX) < cutoff` always holds above MAX.
            before: if cutoff > max {
                1 << 32
            } else {
                bound(from_epoch)
            },
        }
    }

    /// Appends a recommendation, dropping entries older than `retention` and folding the
    /// oldest one into the summary when the ring is full.
    fn push_recommendation(&mut self, replicas: i32, now: Instant, retention: Duration) {
        let at = self.advance(now);
        self.seeded = true;
        let cutoff = self.cutoff(now, retention);
        while let Some(front) = self.recommendations.front().copied() {
            if cutoff.before(front.at) {
                self.recommendations.pop_front();
            } else {
                break;
            }
        }
        while let Some(g) = self.folded_recommendations.front().copied() {
            if cutoff.before(g.at) {
                self.folded_recommendations.pop_front();
            } else {
                break;
            }
        }
        if self.recommendations.is_full() {
            if let Some(old) = self.recommendations.pop_front() {
                self.fold_recommendation(old, generation_span(retention));
            }
        }
        // Cannot fail: a slot was freed above when the ring was full (and R > 0).
        let _ = self
            .recommendations
            .push_back(Recommendation { replicas, at });
    }

    /// Adds an evicted recommendation to the newest generation, or starts a new one when the
    /// newest already spans a generation.
    fn fold_recommendation(&mut self, old: Recommendation, span: u32) {
        if let Some(g) = self.folded_recommendations.back_mut() {
            if old.at.saturating_sub(g.first) < span {
                g.low = g.low.min(old.replicas);
                g.high = g.high.max(old.replicas);
                g.at = g.at.max(old.at);
                return;
            }
        }
        if self.folded_recommendations.is_full() {
            // Older than the whole retention span (see `generation_span`): never counted.
            self.folded_recommendations.pop_front();
        }
        let _ = self
            .folded_recommendations
            .push_back(RecommendationSummary {
                low: old.replicas,
                high: old.replicas,
                first: old.at,
                at: old.at,
            });
    }

    /// Seeds `(current, now)` if upstream would have no list yet.
    pub(crate) fn seed(&mut self, current: i32, now: Instant, retention: Duration) {
        if !self.seeded {
            self.push_recommendation(current, now, retention);
        }
    }

    /// Legacy stabilization (spec 12.1): the maximum of `desired` and every recommendation
    /// not before `now - window`; then records `desired`.
    ///
    /// When folded recommendations fall in the window, upstream's maximum lies somewhere
    /// between the ring's maximum and the summary's `high`; the result is then `current`
    /// clamped into that range, which never moves further than upstream (a stale high value
    /// must not scale the target up) and is reported as overflowed.
    pub(crate) fn stabilize_legacy(
        &mut self,
        desired: i32,
        current: i32,
        now: Instant,
        window: Duration,
        retention: Duration,
    ) -> Stabilized {
        let cutoff = self.cutoff(now, window);
        let mut low = desired;
        if let Some(from) = cutoff.first_not_before() {
            let (a, b) = self.recommendations.as_slices();
            for half in [a, b] {
                low = half
                    .iter()
                    .fold(low, |m, r| if r.at >= from { m.max(r.replicas) } else { m });
            }
        }
        let mut high = low;
        for g in self.folded_recommendations.iter() {
            if !cutoff.before(g.at) {
                high = high.max(g.high);
            }
        }
        self.push_recommendation(desired, now, retention);
        Stabilized {
            replicas: current.max(low).min(high),
            overflowed: high != low,
            low,
            high,
        }
    }

    /// Behavior stabilization (spec 13.1): `current` clamped into
    /// `[min over the up window, max over the down window]` (both including `desired`); then
    /// records `desired`.
    pub(crate) fn stabilize_behavior(
        &mut self,
        desired: i32,
        current: i32,
        now: Instant,
        up_window: Duration,
        down_window: Duration,
        retention: Duration,
    ) -> Stabilized {
        let (up_cutoff, down_cutoff) = (self.cutoff(now, up_window), self.cutoff(now, down_window));
        let mut up = desired;
        let mut down = desired;
        // The ring's two contiguous halves, one branch-free (vectorizable) loop per bound.
        let (a, b) = self.recommendations.as_slices();
        for half in [a, b] {
            if let Some(from) = up_cutoff.first_after() {
                up = half
                    .iter()
                    .fold(up, |m, r| if r.at >= from { m.min(r.replicas) } else { m });
            }
            if let Some(from) = down_cutoff.first_after() {
                down = half.iter().fold(
                    down,
                    |m, r| if r.at >= from { m.max(r.replicas) } else { m },
                );
            }
        }
        let (exact_up, exact_down) = (up, down);
        for g in self.folded_recommendations.iter() {
            if up_cutoff.after(g.at) {
                up = up.min(g.low);
            }
            if down_cutoff.after(g.at) {
                down = down.max(g.high);
            }
        }
        let stabilize = |low: i32, high: i32| current.max(low).min(high);
        let replicas = stabilize(up, down);
        let overflowed = replicas != stabilize(exact_up, exact_down);
        self.push_recommendation(desired, now, retention);
        Stabilized {
            replicas,
            overflowed,
            low: up,
            high: down,
        }
    }

    /// Records a successful rescale from `old` to `new` replicas.
    pub(crate) fn record_scale_event(&mut self, old: i32, new: i32, now: Instant) {
        let change = i128::from(new).saturating_sub(i128::from(old));
        let change = crate::arith::clamp_i32(change);
        if change == 0 {
            return;
        }
        let at = self.advance(now);
        let cutoff = self.cutoff(now, EVENT_RETENTION);
        while let Some(front) = self.events.front().copied() {
            if cutoff.before(front.at) {
                self.events.pop_front();
            } else {
                break;
            }
        }
        while let Some(g) = self.folded_events.front().copied() {
            if cutoff.before(g.at) {
                self.folded_events.pop_front();
            } else {
                break;
            }
        }
        if self.events.is_full() {
            if let Some(old) = self.events.pop_front() {
                self.fold_event(old);
            }
        }
        let _ = self.events.push_back(ScaleEvent { change, at });
    }

    /// Adds an evicted scale event to the newest generation, or starts a new one.
    fn fold_event(&mut self, old: ScaleEvent) {
        let (added, deleted) = if old.change > 0 {
            (old.change, 0)
        } else {
            (0, old.change.saturating_neg())
        };
        if let Some(g) = self.folded_events.back_mut() {
            if old.at.saturating_sub(g.first) < generation_span(EVENT_RETENTION) {
                g.added = g.added.saturating_add(added);
                g.deleted = g.deleted.saturating_add(deleted);
                g.at = g.at.max(old.at);
                return;
            }
        }
        if self.folded_events.is_full() {
            self.folded_events.pop_front();
        }
        let _ = self.folded_events.push_back(EventSummary {
            added,
            deleted,
            first: old.at,
            at: old.at,
        });
    }

    /// Replicas added and deleted by events strictly after `now - period` (spec 13.3).
    pub(crate) fn changes_in_period(
        &self,
        now: Instant,
        period: Duration,
        direction: LimitDirection,
    ) -> PeriodChanges {
        let cutoff = self.cutoff(now, period);
        let mut added: i64 = 0;
        let mut deleted: i64 = 0;
        for e in self.events.iter() {
            if cutoff.after(e.at) {
                if e.change > 0 {
                    added = added.saturating_add(i64::from(e.change));
                } else {
                    deleted = deleted.saturating_add(i64::from(e.change).saturating_neg());
                }
            }
        }
        let mut overflowed = false;
        for g in self.folded_events.iter() {
            if cutoff.after(g.at) {
                // Count folded events only where they shrink this direction's budget. Either
                // way upstream may count them differently (folded events of the other
                // direction would widen it), so the decision is reported.
                overflowed = true;
                match direction {
                    LimitDirection::Up => added = added.saturating_add(i64::from(g.added)),
                    LimitDirection::Down => deleted = deleted.saturating_add(i64::from(g.deleted)),
                }
            }
        }
        PeriodChanges {
            added: crate::arith::clamp_i32(i128::from(added)),
            deleted: crate::arith::clamp_i32(i128::from(deleted)),
            overflowed,
        }
    }

    /// Loads upstream history (conformance tests and migrations): recommendations and scale
    /// events (positive changes) as `(value, instant)`, each list in time order. `seeded` says whether upstream had
    /// a list. Entries beyond the capacity are folded as usual.
    pub fn load(
        &mut self,
        seeded: bool,
        recommendations: &[(i32, Instant)],
        scale_up_events: &[(i32, Instant)],
        scale_down_events: &[(i32, Instant)],
    ) {
        *self = History::new();
        // Pick an epoch at or before every loaded instant.
        let earliest = recommendations
            .iter()
            .chain(scale_up_events)
            .chain(scale_down_events)
            .map(|(_, t)| t.millis())
            .min();
        if let Some(e) = earliest {
            self.epoch = e;
            self.last = Some(e);
        }
        let keep_all = Duration(i64::MAX);
        for &(replicas, at) in recommendations {
            self.push_recommendation(replicas, at, keep_all);
        }
        // Counting looks at timestamps only, so the two lists need not be interleaved.
        for &(change, at) in scale_up_events {
            self.record_scale_event(0, change, at);
        }
        for &(change, at) in scale_down_events {
            self.record_scale_event(change, 0, at);
        }
        self.seeded = seeded || !recommendations.is_empty();
    }

    /// Number of stored recommendations (excluding folded ones).
    pub fn recommendation_count(&self) -> usize {
        self.recommendations.len()
    }

    /// The stored recommendations as `(replicas, instant)`, oldest first.
    pub fn recommendations(&self) -> impl Iterator<Item = (i32, Instant)> + '_ {
        self.recommendations
            .iter()
            .map(|r| (r.replicas, self.instant(r.at)))
    }

    /// The stored scale events as `(signed change, instant)`, oldest first.
    pub fn scale_events(&self) -> impl Iterator<Item = (i32, Instant)> + '_ {
        self.events.iter().map(|e| (e.change, self.instant(e.at)))
    }
}
