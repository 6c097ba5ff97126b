//! Snapshots: an autoscaler's whole state as a few hundred bytes that survive a reboot or an
//! upgrade (docs/spec/snapshot.md).
//!
//! Upstream keeps its recommendations and scale events in the controller's memory only, so a
//! restart forgets the stabilization windows and the policy periods. Here
//! [`Autoscaler::save`] writes the state into a caller's buffer and [`Autoscaler::restore`]
//! reads it back, checking every byte first (a CRC-32, the format version, every field's range
//! and the history rings' consistency): anything else is refused with a specific
//! [`RestoreError`], and the autoscaler is then unchanged.
//!
//! # Time
//!
//! Instants are stored relative to the last evaluation, and the save's `now` says how long
//! before the save that was. A restore takes `now` on the clock that runs after it (a
//! monotonic clock usually restarts at a reboot) and places the save at that instant: the
//! time the device spent powered off counts as none, the history is as fresh as when it was
//! saved, which only holds the replica count back (the windows and periods still cover the
//! recommendations and rescales made before the save). A caller that knows how long it was off
//! (a real-time clock, a network time) and wants that time to count passes `now` minus that
//! time instead.
//!
//! ```
//! use hpa::{Autoscaler, Instant};
//!
//! let autoscaler: Autoscaler = Autoscaler::new();
//! let mut flash = [0_u8; <Autoscaler>::SNAPSHOT_MAX_BYTES];
//! let len = autoscaler.save(Instant(60_000), &mut flash).unwrap();
//!
//! // After the reboot the clock starts again at 0.
//! let mut restored: Autoscaler = Autoscaler::new();
//! restored.restore(&flash[..len], Instant(0)).unwrap();
//! ```

mod error;
mod wire;

pub use error::{Problem, RestoreError, SaveError};

use crate::autoscaler::{Autoscaler, PendingRescale, Status};
use crate::conditions::{ConditionStatus, ConditionType, Conditions, Reason};
use crate::digest::{reason_code, status_code, type_code};
use crate::history::{
    check_parts, FoldedParts, HistoryParts, PartsError, RingParts, Summary, GENERATIONS,
};
use crate::time::{Instant, ZeroIsMin};
use wire::{crc32, varint_len, Reader, Writer};

/// The first four bytes of every snapshot.
pub const MAGIC: [u8; 4] = *b"HPAS";

/// The format version this engine writes. [`Autoscaler::restore`] reads this one and every
/// earlier one.
pub const FORMAT_VERSION: u8 = 1;

/// The most bytes of caller data a snapshot carries ([`Autoscaler::save_with_annex`]).
pub const MAX_ANNEX_BYTES: usize = 2048;

/// Magic, version and length.
const HEADER_BYTES: usize = 9;
/// The CRC-32 at the end.
const CRC_BYTES: usize = 4;

/// The largest snapshot of an autoscaler with history capacities `recommendation_bytes` and
/// `event_bytes` (`Autoscaler<R, E>`) that carries `annex_bytes` of caller data: a buffer this
/// long always suffices.
pub const fn max_len(recommendation_bytes: usize, event_bytes: usize, annex_bytes: usize) -> usize {
    // Each field at its longest: a varint of a u64 is 10 bytes, of an i32 (zigzag) 5.
    const SUMMARIES: usize = 1 + GENERATIONS * (10 + 5 + 5);
    const FIXED: usize = HEADER_BYTES
        + 1 // flags
        + 10 // since the evaluation
        + 5 + 10 // desiredReplicas, lastScaleTime
        + 1 + 3 * 4 // conditions
        + 5 + 5 + 10 + 2 + 1 // pending rescale
        + 2 * (5 + 10) // ring lengths and fronts
        + 2 * SUMMARIES
        + 2 * 5 + 2 * 10 // list lengths and cutoffs
        + CRC_BYTES;
    FIXED
        .saturating_add(recommendation_bytes)
        .saturating_add(event_bytes)
        .saturating_add(varint_len(annex_bytes as u64))
        .saturating_add(annex_bytes)
}

/// Flag bits (docs/spec/snapshot.md, "Body").
const EVALUATED: u64 = 1;
const SEEDED: u64 = 1 << 1;
const PENDING: u64 = 1 << 2;
const LAST_SCALE_TIME: u64 = 1 << 3;
const UP_CUTOFF: u64 = 1 << 4;
const DOWN_CUTOFF: u64 = 1 << 5;
const KNOWN_FLAGS: u64 = (1 << 6) - 1;

/// `decoded`, or an out-of-range error of `field`.
fn known<T>(decoded: Option<T>, field: &'static str) -> Result<T, RestoreError> {
    decoded.ok_or(RestoreError::field(field, Problem::OutOfRange))
}

/// A snapshot whose every byte was checked ([`Snapshot::parse`]), ready to restore. Instants
/// are still relative to the saved evaluation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot<'a> {
    version: u8,
    len: usize,
    /// How long before the save the last evaluation was (`None`: never evaluated).
    since_evaluation: Option<u64>,
    desired_replicas: i32,
    last_scale_time: Option<i64>,
    conditions: Conditions,
    /// Its `at` relative, as the other instants.
    pending: Option<PendingRescale>,
    /// Instants relative to the last evaluation (or the save, without one).
    history: HistoryParts<'a>,
    annex: &'a [u8],
    /// The newest entry of each ring, relative (`check_parts` walked them once).
    newest: [Option<i64>; 2],
}

impl<'a> Snapshot<'a> {
    /// Checks `bytes` (docs/spec/snapshot.md, "Checks"): the magic, the length, the CRC-32, the
    /// version, every field and the history's consistency.
    ///
    /// # Errors
    ///
    /// The first check that failed, as a [`RestoreError`].
    pub fn parse(bytes: &'a [u8]) -> Result<Snapshot<'a>, RestoreError> {
        let too_short = RestoreError::TooShort { len: bytes.len() };
        let (header, rest) = bytes.split_at_checked(HEADER_BYTES).ok_or(too_short)?;
        let Some((magic, version_and_len)) = header.split_first_chunk::<4>() else {
            return Err(too_short);
        };
        if *magic != MAGIC {
            return Err(RestoreError::NotASnapshot);
        }
        let Some((&version, stated)) = version_and_len.split_first() else {
            return Err(too_short);
        };
        let stated = stated
            .first_chunk::<4>()
            .map_or(0, |b| u32::from_le_bytes(*b));
        if usize::try_from(stated).ok() != Some(bytes.len()) {
            return Err(RestoreError::LengthMismatch {
                stated,
                actual: bytes.len(),
            });
        }
        let Some((body, stored)) = rest.split_last_chunk::<CRC_BYTES>() else {
            return Err(too_short);
        };
        let covered = bytes
            .get(..bytes.len().saturating_sub(CRC_BYTES))
            .unwrap_or(&[]);
        let (stored, computed) = (u32::from_le_bytes(*stored), crc32(covered));
        if stored != computed {
            return Err(RestoreError::ChecksumMismatch { stored, computed });
        }
        if version == 0 || version > FORMAT_VERSION {
            return Err(RestoreError::UnsupportedVersion { version });
        }
        let mut s = read_v1(&mut Reader::new(body))?;
        s.version = version;
        s.len = bytes.len();
        Ok(s)
    }

    /// The format version it was written in.
    pub fn version(&self) -> u8 {
        self.version
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it is empty (never: a snapshot has a header).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The caller data saved with it ([`Autoscaler::save_with_annex`]).
    pub fn annex(&self) -> &'a [u8] {
        self.annex
    }

    /// Whether the saved autoscaler had been evaluated (or had loaded a history).
    pub fn evaluated(&self) -> bool {
        self.since_evaluation.is_some()
    }
}

/// Reads a version 1 body (docs/spec/snapshot.md, "Body").
fn read_v1<'a>(r: &mut Reader<'a>) -> Result<Snapshot<'a>, RestoreError> {
    let flags = r.u("flags")?;
    if flags & !KNOWN_FLAGS != 0 {
        return Err(RestoreError::field("flags", Problem::OutOfRange));
    }
    let has = |bit: u64| flags & bit != 0;
    let since = r.u_max(i64::MAX.unsigned_abs(), "sinceEvaluation")?;
    if !has(EVALUATED) && since != 0 {
        return Err(RestoreError::field("flags", Problem::Inconsistent));
    }
    let since_evaluation = has(EVALUATED).then_some(since);
    let desired_replicas = r.i32("status.desiredReplicas")?;
    let last_scale_time = match has(LAST_SCALE_TIME) {
        true => Some(r.s("status.lastScaleTime")?),
        false => None,
    };
    let mut conditions = Conditions::new();
    let count = r.u_max(ConditionType::ALL.len() as u64, "status.conditions")?;
    for _ in 0..count {
        let field = "status.conditions.type";
        let type_ = known(ConditionType::from_code(r.byte(field)?), field)?;
        let field = "status.conditions.status";
        let status = known(ConditionStatus::from_code(r.byte(field)?), field)?;
        let field = "status.conditions.reason";
        let reason = known(Reason::from_code(r.byte(field)?), field)?;
        if conditions.get(type_).is_some() {
            return Err(RestoreError::field(
                "status.conditions.type",
                Problem::Duplicate,
            ));
        }
        conditions.set(type_, status, reason);
    }
    let pending = match has(PENDING) {
        false => None,
        true => Some(PendingRescale::new(
            replicas(r, "pending.from")?,
            replicas(r, "pending.to")?,
            Instant(r.s("pending.at")?),
            i32::try_from(r.s_in(-1, 1800, "pending.eventPeriodSeconds")?).unwrap_or(-1),
            r.byte("pending.scaledToZero")?,
        )),
    };
    if pending.is_some_and(|p| p.scaled_to_zero > 2) {
        return Err(RestoreError::field(
            "pending.scaledToZero",
            Problem::OutOfRange,
        ));
    }
    let recommendations = ring(r, "recommendations")?;
    let folded_recommendations = summaries(r, "recommendationSummaries")?;
    let events = ring(r, "scaleEvents")?;
    let folded_events = summaries(r, "scaleEventSummaries")?;
    let list_len = [
        list_len(r, "scaleUpEvents.length")?,
        list_len(r, "scaleDownEvents.length")?,
    ];
    let cutoff = |r: &mut Reader<'a>, bit, field| match has(bit) {
        true => r.s(field).map(Some),
        false => Ok(None),
    };
    let outdated_before = [
        cutoff(r, UP_CUTOFF, "scaleUpEvents.outdatedBefore")?,
        cutoff(r, DOWN_CUTOFF, "scaleDownEvents.outdatedBefore")?,
    ];
    let annex_len = r.u_max(MAX_ANNEX_BYTES as u64, "annex")?;
    let annex = r.bytes(annex_len, "annex")?;
    if !r.is_empty() {
        return Err(RestoreError::field("annex", Problem::TrailingBytes));
    }
    let history = HistoryParts {
        recommendations,
        events,
        folded_recommendations,
        folded_events,
        list_len,
        outdated_before,
        seeded: has(SEEDED),
    };
    // Relative instants: the rings' entries are not after the reference instant.
    let newest = check_parts(&history, usize::MAX, usize::MAX).map_err(parts_error)?;
    if newest.iter().flatten().any(|&at| at > 0) {
        return Err(RestoreError::field(
            "recommendations",
            Problem::Inconsistent,
        ));
    }
    Ok(Snapshot {
        version: FORMAT_VERSION,
        len: 0,
        since_evaluation,
        desired_replicas,
        last_scale_time,
        conditions,
        pending,
        history,
        annex,
        newest,
    })
}

/// A replica count: `0..=i32::MAX`.
fn replicas(r: &mut Reader<'_>, field: &'static str) -> Result<i32, RestoreError> {
    let v = r.u_max(i32::MAX.unsigned_abs().into(), field)?;
    Ok(i32::try_from(v).unwrap_or(0))
}

fn list_len(r: &mut Reader<'_>, field: &'static str) -> Result<u32, RestoreError> {
    let v = r.u_max(u32::MAX.into(), field)?;
    Ok(u32::try_from(v).unwrap_or(0))
}

fn ring<'a>(r: &mut Reader<'a>, field: &'static str) -> Result<RingParts<'a>, RestoreError> {
    let len = r.u_max(u32::MAX.into(), field)?;
    let front = if len == 0 { 0 } else { r.s(field)? };
    let live = r.bytes(len, field)?;
    Ok(RingParts { front, live })
}

fn summaries(r: &mut Reader<'_>, field: &'static str) -> Result<FoldedParts, RestoreError> {
    let mut parts = FoldedParts::EMPTY;
    let count = r.u_max(GENERATIONS as u64, field)?;
    parts.len = u8::try_from(count).unwrap_or(0);
    for slot in parts.slots.iter_mut().take(usize::from(parts.len)) {
        *slot = Summary {
            at: r.s(field)?,
            a: r.i32(field)?,
            b: r.i32(field)?,
        };
    }
    Ok(parts)
}

fn parts_error(e: PartsError) -> RestoreError {
    let ring = |events: bool| {
        if events {
            "scaleEvents"
        } else {
            "recommendations"
        }
    };
    match e {
        PartsError::Encoding { events, .. } => RestoreError::field(ring(events), Problem::Encoding),
        PartsError::Value { events, .. } => RestoreError::field(ring(events), Problem::OutOfRange),
        PartsError::Time { events } => RestoreError::field(ring(events), Problem::OutOfRange),
        PartsError::Slot { .. } => RestoreError::field("scaleEvents", Problem::Inconsistent),
        PartsError::Capacity {
            events,
            needed,
            capacity,
        } => RestoreError::DoesNotFit {
            ring: ring(events),
            needed,
            capacity,
        },
        PartsError::Summary { events, .. } => RestoreError::field(
            if events {
                "scaleEventSummaries"
            } else {
                "recommendationSummaries"
            },
            Problem::Inconsistent,
        ),
        PartsError::Unseeded => RestoreError::field("flags", Problem::Inconsistent),
    }
}

/// Moves every instant of `parts` by `shift` (checked: an instant that leaves `i64` refuses
/// the restore).
fn shifted<'a>(parts: &HistoryParts<'a>, shift: i64) -> Option<HistoryParts<'a>> {
    let mut p = *parts;
    let at = |t: i64| t.checked_add(shift);
    for ring in [&mut p.recommendations, &mut p.events] {
        if !ring.live.is_empty() {
            ring.front = at(ring.front)?;
        }
    }
    for folded in [&mut p.folded_recommendations, &mut p.folded_events] {
        let len = usize::from(folded.len);
        for s in folded.slots.iter_mut().take(len) {
            s.at = at(s.at)?;
        }
    }
    for cutoff in p.outdated_before.iter_mut().flatten() {
        *cutoff = at(*cutoff)?;
    }
    Some(p)
}

impl<const R: usize, const E: usize> Autoscaler<R, E> {
    /// The largest snapshot this autoscaler type writes without an annex.
    pub const SNAPSHOT_MAX_BYTES: usize = max_len(R, E, 0);

    /// Writes the state into `buffer` (docs/spec/snapshot.md) as it is at `now`, which must
    /// not be earlier than the last evaluation, and returns the snapshot's length. See
    /// [`Autoscaler::restore`].
    ///
    /// # Errors
    ///
    /// [`SaveError`]; `buffer` is then unchanged.
    pub fn save(&self, now: Instant, buffer: &mut [u8]) -> Result<usize, SaveError> {
        self.save_with_annex(now, &[], buffer)
    }

    /// [`Autoscaler::save`], with up to [`MAX_ANNEX_BYTES`] of the caller's own data, which
    /// the snapshot's checksum covers and [`Snapshot::annex`] gives back.
    ///
    /// # Errors
    ///
    /// [`SaveError`]; `buffer` is then unchanged.
    pub fn save_with_annex(
        &self,
        now: Instant,
        annex: &[u8],
        buffer: &mut [u8],
    ) -> Result<usize, SaveError> {
        if annex.len() > MAX_ANNEX_BYTES {
            return Err(SaveError::AnnexTooLong {
                len: annex.len(),
                max: MAX_ANNEX_BYTES,
            });
        }
        let last = self.last_evaluation.millis();
        let evaluated = last != i64::MIN;
        if evaluated && now.millis() < last {
            return Err(SaveError::TimeWentBackwards {
                last,
                now: now.millis(),
            });
        }
        let reference = if evaluated { last } else { now.millis() };
        // First count, then write: nothing is written unless it all fits.
        let mut counter = Writer::new(&mut []);
        self.write(&mut counter, now.millis(), reference, annex)?;
        let needed = counter.len;
        let Some(out) = buffer.get_mut(..needed) else {
            return Err(SaveError::BufferTooSmall {
                needed,
                capacity: buffer.len(),
            });
        };
        let mut w = Writer::new(out);
        self.write(&mut w, now.millis(), reference, annex)?;
        let crc = crc32(out.get(..needed.saturating_sub(CRC_BYTES)).unwrap_or(&[]));
        if let Some(tail) = out.get_mut(needed.saturating_sub(CRC_BYTES)..) {
            // Not `copy_from_slice`: its length-mismatch panic would be linked.
            for (d, s) in tail.iter_mut().zip(crc.to_le_bytes()) {
                *d = s;
            }
        }
        Ok(needed)
    }

    /// One pass of a save: the whole snapshot but the CRC's value (its bytes are counted).
    fn write(
        &self,
        w: &mut Writer<'_>,
        now: i64,
        reference: i64,
        annex: &[u8],
    ) -> Result<(), SaveError> {
        let rel = |t: i64| t.checked_sub(reference).ok_or(SaveError::TimeOutOfRange);
        let history = self.history.parts();
        let status = self.status.get();
        let mut flags = 0;
        for (set, bit) in [
            (self.last_evaluation.millis() != i64::MIN, EVALUATED),
            (history.seeded, SEEDED),
            (self.pending().is_some(), PENDING),
            (status.last_scale_time.is_some(), LAST_SCALE_TIME),
            (history.outdated_before[0].is_some(), UP_CUTOFF),
            (history.outdated_before[1].is_some(), DOWN_CUTOFF),
        ] {
            if set {
                flags |= bit;
            }
        }
        w.bytes(&MAGIC);
        w.byte(FORMAT_VERSION);
        // The length, known in the writing pass (the counting pass counts 4 bytes).
        let total = u32::try_from(w.capacity()).map_err(|_| SaveError::TooLarge)?;
        w.bytes(&total.to_le_bytes());
        w.u(flags);
        w.u(now.abs_diff(reference));
        w.s(status.desired_replicas.into());
        if let Some(t) = status.last_scale_time {
            w.s(rel(t.millis())?);
        }
        let count = status.conditions.iter().count();
        w.u(count as u64);
        for c in status.conditions.iter() {
            w.byte(type_code(c.type_));
            w.byte(status_code(c.status));
            w.byte(reason_code(c.reason));
        }
        if let Some(p) = self.pending() {
            w.u(p.from.unsigned_abs().into());
            w.u(p.to.unsigned_abs().into());
            w.s(rel(p.at.millis())?);
            w.s(p.event_period_seconds.into());
            w.byte(p.scaled_to_zero);
        }
        for (ring, folded) in [
            (&history.recommendations, &history.folded_recommendations),
            (&history.events, &history.folded_events),
        ] {
            w.u(ring.live.len() as u64);
            if !ring.live.is_empty() {
                w.s(rel(ring.front)?);
            }
            w.bytes(ring.live);
            w.u(folded.used().len() as u64);
            for s in folded.used() {
                w.s(rel(s.at)?);
                w.s(s.a.into());
                w.s(s.b.into());
            }
        }
        for len in history.list_len {
            w.u(len.into());
        }
        for cutoff in history.outdated_before.into_iter().flatten() {
            w.s(rel(cutoff)?);
        }
        w.u(annex.len() as u64);
        w.bytes(annex);
        w.bytes(&[0; CRC_BYTES]);
        Ok(())
    }

    /// Restores a state saved by [`Autoscaler::save`] (by this or any earlier format version).
    /// `now` is the instant, on the caller's clock from now on, that stands for the moment of
    /// the save (see the module docs, "Time"): the next evaluation must not be earlier.
    ///
    /// # Errors
    ///
    /// [`RestoreError`]; the autoscaler is then unchanged.
    pub fn restore(&mut self, snapshot: &[u8], now: Instant) -> Result<(), RestoreError> {
        self.restore_snapshot(&Snapshot::parse(snapshot)?, now)
    }

    /// [`Autoscaler::restore`] of a snapshot already parsed (to read its annex first).
    ///
    /// # Errors
    ///
    /// [`RestoreError::ClockOutOfRange`] or [`RestoreError::DoesNotFit`]; the autoscaler is
    /// then unchanged.
    pub fn restore_snapshot(
        &mut self,
        snapshot: &Snapshot<'_>,
        now: Instant,
    ) -> Result<(), RestoreError> {
        let since = snapshot.since_evaluation.unwrap_or(0);
        let reference = i64::try_from(since)
            .ok()
            .and_then(|since| now.millis().checked_sub(since))
            .ok_or(RestoreError::ClockOutOfRange)?;
        let history = shifted(&snapshot.history, reference).ok_or(RestoreError::ClockOutOfRange)?;
        let last_scale_time = match snapshot.last_scale_time {
            Some(t) => Some(Instant(
                t.checked_add(reference)
                    .ok_or(RestoreError::ClockOutOfRange)?,
            )),
            None => None,
        };
        let pending = match snapshot.pending {
            Some(mut p) => {
                p.at = Instant(
                    p.at.0
                        .checked_add(reference)
                        .ok_or(RestoreError::ClockOutOfRange)?,
                );
                p
            }
            None => PendingRescale::NONE,
        };
        let mut newest = snapshot.newest;
        for at in newest.iter_mut().flatten() {
            *at = at
                .checked_add(reference)
                .ok_or(RestoreError::ClockOutOfRange)?;
        }
        self.history
            .set_parts(&history, newest)
            .map_err(parts_error)?;
        self.status.set(&Status {
            desired_replicas: snapshot.desired_replicas,
            last_scale_time,
            conditions: snapshot.conditions.clone(),
        });
        self.pending = pending;
        self.last_evaluation = match snapshot.since_evaluation {
            Some(_) => ZeroIsMin::new(reference),
            None => ZeroIsMin::MIN,
        };
        Ok(())
    }
}

#[cfg(test)]
mod tests;
