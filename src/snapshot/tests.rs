//! The format's checks, one by one: each refused snapshot names what is wrong, and changes
//! nothing. (tests/snapshot.rs drives whole evaluations through saves and restores.)

extern crate std;
use std::format;
use std::vec;
use std::vec::Vec;

use super::*;
use crate::history::{Direction, ScaleEvent};

type Small = Autoscaler<64, 48>;

/// A state with every part set: recommendations, events of both lists with an outdated one,
/// conditions and a last scale time (no pending rescale: that needs an evaluation, which
/// tests/snapshot.rs does).
fn busy() -> Autoscaler {
    let mut a: Autoscaler = Autoscaler::new();
    let recs: Vec<(i32, Instant)> = (0..40)
        .map(|i| (3 + i % 5, Instant(i64::from(i) * 15_000)))
        .collect();
    let ev = |change, s: i64, outdated| {
        Some(ScaleEvent {
            change,
            at: Instant(s * 1000),
            outdated,
        })
    };
    a.load_history(
        true,
        &recs,
        &[ev(2, 100, true), None, ev(1, 500, false)],
        &[ev(1, 300, false)],
    )
    .unwrap();
    let mut status = a.status_mut();
    let c = &mut status.conditions;
    c.set(
        ConditionType::AbleToScale,
        ConditionStatus::True,
        Reason::SucceededRescale,
    );
    c.set(
        ConditionType::ScalingLimited,
        ConditionStatus::False,
        Reason::DesiredWithinRange,
    );
    status.desired_replicas = 7;
    status.last_scale_time = Some(Instant(500_000));
    drop(status);
    a
}

fn save<const R: usize, const E: usize>(a: &Autoscaler<R, E>, now: i64) -> Vec<u8> {
    let mut buf = vec![0; Autoscaler::<R, E>::SNAPSHOT_MAX_BYTES];
    let len = a.save(Instant(now), &mut buf).unwrap();
    buf.truncate(len);
    buf
}

/// Recomputes the length field and the CRC after an edit.
fn seal(mut bytes: Vec<u8>) -> Vec<u8> {
    testkit::snapshot::reseal(&mut bytes);
    bytes
}

fn state<const R: usize, const E: usize>(a: &Autoscaler<R, E>) -> std::string::String {
    format!("{a:?}")
}

#[test]
fn a_round_trip_restores_the_same_state_and_the_same_bytes() {
    let a = busy();
    let bytes = save(&a, 600_000);
    assert!(bytes.len() < 200, "{} bytes", bytes.len());
    let mut b: Autoscaler = Autoscaler::new();
    b.restore(&bytes, Instant(600_000)).unwrap();
    assert_eq!(state(&b), state(&a));
    assert_eq!(save(&b, 600_000), bytes);
    // Into smaller rings that still hold it.
    let mut small: Small = Autoscaler::new();
    let err = small.restore(&bytes, Instant(600_000));
    assert!(
        matches!(
            err,
            Err(RestoreError::DoesNotFit {
                ring: "recommendations",
                ..
            })
        ),
        "{err:?}"
    );
    assert_eq!(state(&small), state(&Small::new()));
}

#[test]
fn a_new_autoscaler_round_trips() {
    let a: Autoscaler = Autoscaler::new();
    let bytes = save(&a, 5);
    // docs/spec/snapshot.md#size
    assert_eq!(bytes.len(), 24);
    assert_eq!(Autoscaler::<1000, 608>::SNAPSHOT_MAX_BYTES, 458 + 1608);
    let mut b: Autoscaler = busy();
    b.restore(&bytes, Instant(-7)).unwrap();
    assert_eq!(state(&b), state(&a));
    assert_eq!(save(&b, 9), bytes);
}

#[test]
fn instants_move_with_the_new_clock() {
    let a = busy();
    // Saved 100 s after the newest entry; restored on a clock that restarted at 0.
    let bytes = save(&a, 685_000);
    let mut b: Autoscaler = Autoscaler::new();
    b.restore(&bytes, Instant(1_000)).unwrap();
    let shift = 1_000 - 685_000;
    let moved: Vec<(i32, Instant)> = a
        .history()
        .recommendations()
        .map(|(r, at)| (r, Instant(at.0 + shift)))
        .collect();
    assert_eq!(b.history().recommendations().collect::<Vec<_>>(), moved);
    assert_eq!(b.status().last_scale_time, Some(Instant(500_000 + shift)));
    let up: Vec<_> = b.history().scale_event_list(Direction::Up).collect();
    assert_eq!(up[2].map(|e| e.at), Some(Instant(500_000 + shift)));
    assert_eq!(up[0].map(|e| e.outdated), Some(true));
    // The next evaluation may be at the restore's `now`, not before the saved evaluation.
    assert_eq!(b.last_evaluation.millis(), 585_000 + shift);
    // A clock so low that instants would leave i64 is refused.
    let mut c: Autoscaler = Autoscaler::new();
    assert_eq!(
        c.restore(&bytes, Instant(i64::MIN + 5)),
        Err(RestoreError::ClockOutOfRange)
    );
    assert_eq!(state(&c), state(&Autoscaler::<1000, 608>::new()));
}

#[test]
fn saving_refuses_what_it_cannot_write_and_writes_nothing() {
    let a = busy();
    let len = save(&a, 600_000).len();
    let mut short = vec![0xAA; len - 1];
    assert_eq!(
        a.save(Instant(600_000), &mut short),
        Err(SaveError::BufferTooSmall {
            needed: len,
            capacity: len - 1
        })
    );
    assert!(short.iter().all(|&b| b == 0xAA));
    let mut buf = vec![0; 4096];
    assert_eq!(
        a.save(Instant(1), &mut buf),
        Err(SaveError::TimeWentBackwards {
            last: 585_000,
            now: 1
        })
    );
    let annex = vec![1; MAX_ANNEX_BYTES + 1];
    assert!(matches!(
        a.save_with_annex(Instant(600_000), &annex, &mut buf),
        Err(SaveError::AnnexTooLong { .. })
    ));
    assert!(buf.iter().all(|&b| b == 0));
    // The annex comes back.
    let n = a
        .save_with_annex(Instant(600_000), b"messages", &mut buf)
        .unwrap();
    let s = Snapshot::parse(&buf[..n]).unwrap();
    assert_eq!(s.annex(), b"messages");
    assert_eq!(
        (s.version(), s.len(), s.evaluated()),
        (FORMAT_VERSION, n, true)
    );
    assert!(n <= max_len(1000, 608, 8));
}

#[test]
fn every_damage_is_refused_and_changes_nothing() {
    let a = busy();
    let good = save(&a, 600_000);
    let fresh = state(&Autoscaler::<1000, 608>::new());
    let refused = |bytes: &[u8]| -> RestoreError {
        let mut b: Autoscaler = Autoscaler::new();
        let err = b.restore(bytes, Instant(0)).unwrap_err();
        assert_eq!(state(&b), fresh, "{err:?}");
        err
    };
    // Under Miri, which interprets a restore (and the comparison of the states' texts)
    // thousands of times slower, every 101st flip and cut: a stride through the header, the
    // fields and the checksum, on every bit position (101 is odd).
    let stride = if cfg!(miri) { 101 } else { 1 };
    for bit in (0..good.len() * 8).step_by(stride) {
        let mut bad = good.clone();
        bad[bit / 8] ^= 1 << (bit % 8);
        refused(&bad);
    }
    for len in (0..good.len()).step_by(stride) {
        refused(&good[..len]);
    }
    let mut longer = good.clone();
    longer.push(0);
    assert!(matches!(
        refused(&longer),
        RestoreError::LengthMismatch { .. }
    ));
    assert_eq!(refused(&good[..8]), RestoreError::TooShort { len: 8 });
    let mut magic = good.clone();
    magic[0] = b'X';
    assert_eq!(refused(&magic), RestoreError::NotASnapshot);
    let mut bit = good.clone();
    bit[20] ^= 4;
    assert!(matches!(
        refused(&bit),
        RestoreError::ChecksumMismatch { .. }
    ));
    for version in [0, FORMAT_VERSION + 1, 255] {
        let mut v = good.clone();
        v[4] = version;
        assert_eq!(
            refused(&seal(v)),
            RestoreError::UnsupportedVersion { version }
        );
    }
}

/// The body's fields, checked one by one in snapshots with a correct checksum.
#[test]
fn each_field_is_checked() {
    let a = busy();
    let good = save(&a, 600_000);
    let field = |bytes: Vec<u8>| {
        let mut b: Autoscaler = Autoscaler::new();
        b.restore(&seal(bytes), Instant(0))
    };
    // Body: flags at 9, then sinceEvaluation (15000: 2 bytes), desiredReplicas, ...
    let mut flags = good.clone();
    flags[9] |= 1 << 6;
    assert_eq!(
        field(flags),
        Err(RestoreError::field("flags", Problem::OutOfRange))
    );
    let mut unseeded = good.clone();
    unseeded[9] &= !(SEEDED as u8);
    assert_eq!(
        field(unseeded),
        Err(RestoreError::field("flags", Problem::Inconsistent))
    );
    // A non-canonical varint: sinceEvaluation 15000 written in three bytes.
    let mut long = good.clone();
    long.splice(10..12, [0x98, 0xf5, 0x80, 0x00]);
    assert_eq!(
        field(long),
        Err(RestoreError::field("sinceEvaluation", Problem::Encoding))
    );
    let mut trailing = good.clone();
    trailing.insert(trailing.len() - 4, 0);
    assert_eq!(
        field(trailing),
        Err(RestoreError::field("annex", Problem::TrailingBytes))
    );
    let mut cut = good.clone();
    cut.truncate(15);
    cut.extend([0; 4]);
    assert!(matches!(
        field(cut),
        Err(RestoreError::Field {
            problem: Problem::Truncated,
            ..
        })
    ));
    // Conditions: count at 14 (after flags, since, desired 7 and lastScaleTime -85000).
    let at = 9 + 1 + 2 + 1 + 3;
    assert_eq!(good[at], 2, "{good:?}");
    let mut dup = good.clone();
    dup[at + 4] = dup[at + 1];
    assert_eq!(
        field(dup),
        Err(RestoreError::field(
            "status.conditions.type",
            Problem::Duplicate
        ))
    );
    let mut reason = good.clone();
    reason[at + 3] = 22;
    assert_eq!(
        field(reason),
        Err(RestoreError::field(
            "status.conditions.reason",
            Problem::OutOfRange
        ))
    );
    let mut status = good.clone();
    status[at + 2] = 0;
    assert_eq!(
        field(status),
        Err(RestoreError::field(
            "status.conditions.status",
            Problem::OutOfRange
        ))
    );
    let mut count = good.clone();
    count[at] = 5;
    assert_eq!(
        field(count),
        Err(RestoreError::field(
            "status.conditions",
            Problem::OutOfRange
        ))
    );
}

#[test]
fn rings_are_checked_entry_by_entry() {
    let a = busy();
    let good = save(&a, 600_000);
    let parsed = Snapshot::parse(&good).unwrap();
    let live = parsed.history.recommendations.live;
    let start = good.windows(live.len()).position(|w| w == live).unwrap();
    let field = |bytes: Vec<u8>| Snapshot::parse(&seal(bytes)).unwrap_err();
    // A gap of one byte (the second entry's gap: its second byte gets the high bit cleared
    // and the first loses its own).
    let mut gap = good.clone();
    gap[start + 1] &= 0x7f;
    assert!(matches!(
        field(gap),
        RestoreError::Field {
            field: "recommendations",
            ..
        }
    ));
    // Events: an event in a slot beyond its list's length, or in one another event holds.
    let events = parsed.history.events.live;
    let e = good
        .windows(events.len())
        .position(|w| w == events)
        .unwrap();
    let mut slot = good.clone();
    slot[e] = (slot[e] & !0x7f) | 5;
    assert_eq!(
        field(slot),
        RestoreError::field("scaleEvents", Problem::Inconsistent)
    );
}
