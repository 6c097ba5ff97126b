//! `Snapshot::parse` and `Autoscaler::restore` on arbitrary bytes (docs/spec/snapshot.md), at
//! the default ring capacities and at tiny ones. Never panics, and:
//!
//! * a refused restore leaves the autoscaler exactly as it was (its `Debug`, every byte);
//! * `restore` refuses whatever `Snapshot::parse` refuses, with the same error;
//! * an accepted snapshot saves again, at the `now` it was restored at, to exactly the same
//!   bytes (annex included), whatever `now` that was; and those bytes restore to an equal state.
//!
//! Mutated snapshots almost never keep their CRC-32, so each input is tried twice: as it is,
//! and with its length field and checksum made right, which lets the fuzzer reach the field
//! and consistency checks behind them. The seeds (`seeds/restore/`) are real snapshots;
//! `cargo run --example restore_seeds` writes them.
#![no_main]

use hpa::snapshot::{max_len, Snapshot, FORMAT_VERSION, MAX_ANNEX_BYTES};
use hpa::{Autoscaler, Instant};
use libfuzzer_sys::fuzz_target;

use testkit::invariants::state;

/// Restore instants: the ordinary ones, and ones next to the ends of `i64`, where the shift of
/// every saved instant may leave the range (`ClockOutOfRange`).
const NOWS: [i64; 5] = [
    0,
    1_000_000_007,
    -86_400_000,
    i64::MAX - 1_000,
    i64::MIN + 1_000,
];

fn saved<const R: usize, const E: usize>(a: &Autoscaler<R, E>, now: i64, annex: &[u8]) -> Vec<u8> {
    let mut buffer = vec![0; max_len(R, E, MAX_ANNEX_BYTES)];
    let len = a
        .save_with_annex(Instant(now), annex, &mut buffer)
        .unwrap_or_else(|e| panic!("a restored state does not save at {now}: {e:?}"));
    buffer.truncate(len);
    buffer
}

/// Restores `bytes` into `a` (whatever it held) at every instant of [`NOWS`].
fn check<const R: usize, const E: usize>(a: &mut Autoscaler<R, E>, bytes: &[u8]) {
    let parsed = Snapshot::parse(bytes);
    for now in NOWS {
        let before = format!("{a:?}");
        match a.restore(bytes, Instant(now)) {
            Err(e) => {
                assert_eq!(
                    format!("{a:?}"),
                    before,
                    "the refused restore ({e:?}) changed it"
                );
                if let Err(p) = &parsed {
                    assert_eq!(&e, p, "restore and parse refuse differently");
                }
            }
            Ok(()) => {
                let snapshot = parsed
                    .as_ref()
                    .unwrap_or_else(|e| panic!("restore accepted what parse refuses: {e:?}"));
                let again = saved(a, now, snapshot.annex());
                if snapshot.version() == FORMAT_VERSION {
                    assert_eq!(again, bytes, "saved again at {now}, the bytes differ");
                }
                let mut twin: Autoscaler<R, E> = Autoscaler::new();
                twin.restore(&again, Instant(now))
                    .unwrap_or_else(|e| panic!("its own save is refused: {e:?}"));
                assert_eq!(state(&twin), state(a), "restored from its save, it differs");
                assert_eq!(saved(&twin, now, snapshot.annex()), again);
            }
        }
    }
}

/// An autoscaler that is not new, so that a restore that wrote anything would show.
fn used<const R: usize, const E: usize>() -> Autoscaler<R, E> {
    let mut a = Autoscaler::new();
    a.status_mut().conditions.set(
        hpa::conditions::ConditionType::ScaledToZero,
        hpa::input::ConditionStatus::True,
        hpa::conditions::Reason::ScaledToZero,
    );
    a
}

fn run<const R: usize, const E: usize>(data: &[u8]) {
    // One autoscaler for every try: after an accepted restore it holds that state, which the
    // next refused restore must keep.
    let mut a: Autoscaler<R, E> = used();
    check(&mut a, data);
    if data.len() >= 13 {
        let mut fixed = data.to_vec();
        testkit::snapshot::reseal(&mut fixed);
        check(&mut a, &fixed);
    }
}

fuzz_target!(|data: &[u8]| {
    run::<
        { hpa::autoscaler::DEFAULT_RECOMMENDATION_BYTES },
        { hpa::autoscaler::DEFAULT_EVENT_BYTES },
    >(data);
    run::<8, 6>(data);
    run::<64, 24>(data);
});
