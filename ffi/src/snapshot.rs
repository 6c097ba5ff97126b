//! Snapshots through the C API (docs/spec/snapshot.md): the checks and conversions
//! `hpa_autoscaler_save` and `hpa_autoscaler_restore` share, and `hpa_snapshot_check`.
//!
//! The C state is the engine and two condition messages ([`Messages`]); the engine's snapshot
//! carries the messages in its annex, in the format below (docs/c-api.md, "Saving and
//! restoring"), so that a restored autoscaler shows the conditions the saved one showed.
//!
//! | bytes | field |
//! |---|---|
//! | 1 | `annex.version`: 1 |
//! | 2 | length of the ScalingActive message (`u16`, little-endian, at most 511) |
//! | n | `annex.scalingActive`: its UTF-8 bytes |
//! | 2 | length of the update-failure message |
//! | n | `annex.updateFailure` |
//!
//! An empty annex (a snapshot saved by the Rust API) restores with both messages empty.

use hpa::autoscaler::{DEFAULT_EVENT_BYTES, DEFAULT_RECOMMENDATION_BYTES};
use hpa::snapshot::{max_len, Problem, RestoreError, SaveError, Snapshot, MAX_ANNEX_BYTES};
use hpa::{Autoscaler, Instant};

use crate::api::report;
use crate::decision::Messages;
use crate::error::{hpa_field_error, Detail, Fault, Refusal};
use crate::raw;
use crate::status::hpa_status;
use crate::{HPA_MESSAGE_CAPACITY, HPA_SNAPSHOT_MAX_BYTES};

/// The annex format this library writes and reads.
const ANNEX_VERSION: u8 = 1;
/// The longest message the state keeps (its array also holds a NUL).
const MESSAGE_MAX: usize = HPA_MESSAGE_CAPACITY - 1;
/// The longest annex: the version, and each message with its length.
pub(crate) const ANNEX_MAX_BYTES: usize = 1 + 2 * (2 + MESSAGE_MAX);

const _: () = {
    assert!(ANNEX_MAX_BYTES <= MAX_ANNEX_BYTES);
    assert!(MESSAGE_MAX <= u16::MAX as usize);
    // The header's constant is a literal (cbindgen copies it): it must be the core's bound
    // for the state's engine and this annex.
    assert!(
        HPA_SNAPSHOT_MAX_BYTES
            == max_len(
                DEFAULT_RECOMMENDATION_BYTES,
                DEFAULT_EVENT_BYTES,
                ANNEX_MAX_BYTES
            )
    );
};

/// Writes the messages as an annex into `out`; returns its length.
pub(crate) fn write_annex(messages: &Messages, out: &mut [u8; ANNEX_MAX_BYTES]) -> usize {
    let mut len = 0;
    let mut put = |bytes: &[u8]| {
        let end = len + bytes.len();
        if let Some(dst) = out.get_mut(len..end) {
            dst.copy_from_slice(bytes);
            len = end;
        }
    };
    put(&[ANNEX_VERSION]);
    for message in [&messages.scaling_active, &messages.update_failure] {
        let text = message.as_str().as_bytes();
        let text = text.get(..MESSAGE_MAX).unwrap_or(text);
        put(&(text.len() as u16).to_le_bytes());
        put(text);
    }
    len
}

fn annex_error(field: &'static str, problem: Problem) -> RestoreError {
    RestoreError::Field { field, problem }
}

/// The messages an annex carries, every byte checked.
fn read_annex(annex: &[u8]) -> Result<Messages, RestoreError> {
    let mut messages = Messages::new();
    let Some((&version, mut rest)) = annex.split_first() else {
        return Ok(messages);
    };
    if version != ANNEX_VERSION {
        return Err(annex_error("annex.version", Problem::OutOfRange));
    }
    for (stored, field) in [
        (&mut messages.scaling_active, "annex.scalingActive"),
        (&mut messages.update_failure, "annex.updateFailure"),
    ] {
        let text;
        (text, rest) = message(rest, field)?;
        stored.set(&text);
    }
    if !rest.is_empty() {
        return Err(annex_error("annex", Problem::TrailingBytes));
    }
    Ok(messages)
}

/// One message of an annex, and the bytes after it.
fn message<'a>(bytes: &'a [u8], field: &'static str) -> Result<(&'a str, &'a [u8]), RestoreError> {
    let (len, rest) = bytes
        .split_first_chunk::<2>()
        .ok_or(annex_error(field, Problem::Truncated))?;
    let len = usize::from(u16::from_le_bytes(*len));
    if len > MESSAGE_MAX {
        return Err(annex_error(field, Problem::OutOfRange));
    }
    let (text, rest) = rest
        .split_at_checked(len)
        .ok_or(annex_error(field, Problem::Truncated))?;
    let text = core::str::from_utf8(text).map_err(|_| annex_error(field, Problem::Encoding))?;
    Ok((text, rest))
}

/// The status and detail of a refused restore.
fn restore_fault(e: RestoreError) -> Fault {
    let (status, field) = match e {
        RestoreError::UnsupportedVersion { .. } => (hpa_status::SnapshotVersion, "snapshot"),
        RestoreError::DoesNotFit { .. } => (hpa_status::TooLarge, "snapshot"),
        RestoreError::ClockOutOfRange => (hpa_status::OutOfRange, "now_ms"),
        RestoreError::TooShort { .. }
        | RestoreError::NotASnapshot
        | RestoreError::LengthMismatch { .. }
        | RestoreError::ChecksumMismatch { .. }
        | RestoreError::Field { .. } => (hpa_status::InvalidSnapshot, "snapshot"),
    };
    Fault::new(status, Detail::Restore(e)).at(field)
}

/// The status and detail of a refused save.
pub(crate) fn save_fault(e: SaveError) -> Fault {
    let (status, field) = match e {
        SaveError::BufferTooSmall { .. } => (hpa_status::BufferTooSmall, "capacity"),
        SaveError::TimeWentBackwards { .. } => (hpa_status::TimeWentBackwards, "now_ms"),
        SaveError::TimeOutOfRange => (hpa_status::OutOfRange, "now_ms"),
        // Neither happens at this library's capacities and annex (asserted above).
        SaveError::AnnexTooLong { .. } | SaveError::TooLarge => (hpa_status::TooLarge, "buffer"),
    };
    Fault::new(status, Detail::Save(e)).at(field)
}

/// The state `bytes` restores to at `now`: everything `hpa_autoscaler_restore` checks, for
/// it to write only after every check passed.
pub(crate) fn restored(bytes: &[u8], now: Instant) -> Result<(Autoscaler, Messages), Fault> {
    let snapshot = Snapshot::parse(bytes).map_err(restore_fault)?;
    let messages = read_annex(snapshot.annex()).map_err(restore_fault)?;
    let mut engine = Autoscaler::new();
    engine
        .restore_snapshot(&snapshot, now)
        .map_err(restore_fault)?;
    Ok((engine, messages))
}

/// Checks a snapshot as `hpa_autoscaler_restore` checks it at `now_ms` (its magic, length,
/// CRC-32, format version, every field, the history's consistency, the condition messages,
/// that it fits this library's autoscaler and that its instants stay in range at `now_ms`),
/// without an autoscaler. Returns `HPA_STATUS_OK` or the status the restore would return;
/// then, when `error_out` is not NULL, it receives what is wrong, naming the snapshot's field
/// when one is (`snapshot: checksum mismatch (stored 0x1c291ca3, computed 0x3d6e9e41): the
/// snapshot is damaged`). `*error_out` is not touched on success.
///
/// # Safety
///
/// `snapshot` must point to `length` readable bytes (it may be NULL when `length` is 0);
/// `error_out` must be NULL or point to a writable `hpa_field_error`.
#[no_mangle]
#[must_use]
pub unsafe extern "C" fn hpa_snapshot_check(
    snapshot: *const u8,
    length: usize,
    now_ms: i64,
    error_out: *mut hpa_field_error,
) -> hpa_status {
    // SAFETY: the caller's contract.
    let result = unsafe { raw::slice(snapshot, length) }
        .map_err(|f| f.at("snapshot"))
        .and_then(|bytes| restored(bytes, Instant(now_ms)));
    match result {
        Ok(_) => hpa_status::Ok,
        // SAFETY: the caller's contract.
        Err(fault) => unsafe { report(Refusal::Fault(fault), error_out) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(scaling_active: &str, update_failure: &str) -> Messages {
        let mut m = Messages::new();
        m.scaling_active.set(&scaling_active);
        m.update_failure.set(&update_failure);
        m
    }

    fn annex_of(m: &Messages) -> std::vec::Vec<u8> {
        let mut out = [0; ANNEX_MAX_BYTES];
        let len = write_annex(m, &mut out);
        out[..len].to_vec()
    }

    #[test]
    fn annex_round_trips_at_every_length() {
        let long = "é".repeat(400);
        for (a, b) in [
            ("", ""),
            ("able to compute", "quota exceeded"),
            (&long[..], &long[..]),
        ] {
            let m = messages(a, b);
            let annex = annex_of(&m);
            let back = read_annex(&annex).unwrap();
            assert_eq!(back.scaling_active.as_str(), m.scaling_active.as_str());
            assert_eq!(back.update_failure.as_str(), m.update_failure.as_str());
            assert_eq!(annex_of(&back), annex);
        }
        let full = annex_of(&messages(&long, &long));
        assert!(full.len() <= ANNEX_MAX_BYTES);
        let empty = read_annex(&[]).unwrap();
        assert_eq!(empty.scaling_active.as_str(), "");
    }

    #[test]
    fn damaged_annexes_are_refused_with_the_field() {
        let annex = annex_of(&messages("ab", "cd"));
        assert_eq!(annex, [1, 2, 0, b'a', b'b', 2, 0, b'c', b'd']);
        let refused = |bytes: &[u8]| match read_annex(bytes) {
            Err(RestoreError::Field { field, problem }) => (field, problem),
            other => panic!("{bytes:?}: {:?}", other.map(|_| ())),
        };
        assert_eq!(
            refused(&[2, 0, 0, 0, 0]),
            ("annex.version", Problem::OutOfRange)
        );
        for cut in 1..annex.len() {
            let (field, problem) = refused(&annex[..cut]);
            assert_eq!(problem, Problem::Truncated, "cut at {cut}");
            let expected = if cut < 5 {
                "annex.scalingActive"
            } else {
                "annex.updateFailure"
            };
            assert_eq!(field, expected, "cut at {cut}");
        }
        let mut padded = annex.clone();
        padded.push(0);
        assert_eq!(refused(&padded), ("annex", Problem::TrailingBytes));
        let mut long = annex.clone();
        long[1..3].copy_from_slice(&512u16.to_le_bytes());
        assert_eq!(refused(&long), ("annex.scalingActive", Problem::OutOfRange));
        let mut bad = annex.clone();
        bad[7] = 0xFF;
        assert_eq!(refused(&bad), ("annex.updateFailure", Problem::Encoding));
    }
}
