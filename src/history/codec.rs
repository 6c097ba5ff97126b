//! The byte codes of the rings' entries (module docs, "Encoding"): varints, the gap code
//! around the sync period, zigzag values and the scale-event code with its list slot.

use super::fast;
use crate::tuning::FAST_FORMS;

/// The sync period gaps are coded around (the controller's default).
pub(super) const PERIOD_MS: u64 = 15_000;

/// [`PERIOD_MS`] for the 32-bit arithmetic of the short codes.
const PERIOD_MS_I32: i32 = PERIOD_MS as i32;

/// Gaps and codes below this are short (see [`gap_code`]).
const SHORT: u32 = 2 * PERIOD_MS as u32;

/// Gaps near the sync period get the short codes: a gap below `2 * PERIOD_MS` is coded as
/// the zigzag of `gap - PERIOD_MS` (codes below 30000), a longer gap as itself. A bijection
/// on `u64`. The short codes in 32 bits: 64-bit arithmetic is several instructions an
/// operation on a 32-bit target.
pub(super) fn gap_code(gap: u64) -> u64 {
    match u32::try_from(gap) {
        // Cannot overflow: `gap` is below 2 * PERIOD_MS.
        Ok(short) if short < SHORT => zigzag(short.cast_signed().wrapping_sub(PERIOD_MS_I32)),
        _ => gap,
    }
}

/// The inverse of [`gap_code`].
pub(super) fn gap_from_code(code: u64) -> u64 {
    match u32::try_from(code) {
        // Cannot overflow: the result is below 2 * PERIOD_MS, and not negative.
        Ok(short) if short < SHORT => u64::from(
            unzigzag32(short)
                .wrapping_add(PERIOD_MS_I32)
                .cast_unsigned(),
        ),
        _ => code,
    }
}

/// Small magnitudes of either sign get small codes: 0, -1, 1, -2, ... become 0, 1, 2, 3, ...
pub(super) fn zigzag(v: i32) -> u64 {
    let bits = v.cast_unsigned();
    let sign = if v < 0 { u32::MAX } else { 0 };
    u64::from(bits.wrapping_shl(1) ^ sign)
}

/// The inverse of [`zigzag`] (codes come from it: they fit 32 bits, so the low 32 bits are
/// the code; no compare of the high word).
pub(super) fn unzigzag(code: u64) -> i32 {
    unzigzag32(code as u32)
}

/// [`unzigzag`] of a code known to fit 32 bits.
#[inline(always)]
pub(super) fn unzigzag32(code: u32) -> i32 {
    (code.wrapping_shr(1) ^ (code & 1).wrapping_neg()).cast_signed()
}

/// The bytes `v` takes as a varint of at least `min` bytes, as [`put_varint_min`] writes it.
#[cfg(test)]
fn written_len(v: u64, min: u8) -> usize {
    let mut bytes = [0; super::MAX_ENTRY_BYTES];
    let mut out = bytes.iter_mut();
    assert!(put_varint_min(&mut out, v, min));
    super::MAX_ENTRY_BYTES.saturating_sub(out.len())
}

/// The bytes `v` takes as a varint, as written.
#[cfg(test)]
pub(super) fn varint_len(v: u64) -> usize {
    written_len(v, 1)
}

/// The bytes a gap code takes as written: its varint, but at least two bytes, so that the
/// usual gaps all have the same length (see the module docs).
#[cfg(test)]
pub(super) fn gap_len(code: u64) -> usize {
    written_len(code, 2)
}

/// Writes a gap code as a varint of at least two bytes: a one-byte code gets a zero second
/// byte (a longer form of the same LEB128 number, which every decoder here reads).
#[cfg(test)]
fn put_gap(out: &mut core::slice::IterMut<'_, u8>, code: u64) {
    assert!(put_varint_min(out, code, 2));
}

/// Writes `v` as a varint into the next bytes of `out`.
#[cfg(test)]
fn put_varint(out: &mut core::slice::IterMut<'_, u8>, v: u64) {
    assert!(put_varint_min(out, v, 1));
}

/// Writes `v` as a varint of at least `min` bytes (zero high groups as needed) into the next
/// bytes of `out`; false if they ran out. One routine for gaps and values.
pub(super) fn put_varint_min(
    out: &mut core::slice::IterMut<'_, u8>,
    mut v: u64,
    mut min: u8,
) -> bool {
    for slot in out {
        let low = u8::try_from(v & 0x7f).unwrap_or(0);
        v = v.wrapping_shr(7);
        min = min.saturating_sub(1);
        let more = v != 0 || min > 0;
        *slot = if more { low | 0x80 } else { low };
        if !more {
            return true;
        }
    }
    false
}

/// Moves past the varint at the start of `rest`; false at the end. On small targets the
/// decoder does it (one routine less); hosts skip without decoding ([`fast::skip_varint`]).
#[inline]
pub(super) fn skip_varint(rest: &mut &[u8]) -> bool {
    if FAST_FORMS {
        fast::skip_varint(rest)
    } else {
        take_front(rest).is_some()
    }
}

/// Decodes the varint at the start of `rest` and moves past it.
#[inline]
pub(super) fn take_front(rest: &mut &[u8]) -> Option<u64> {
    let (&first, after) = rest.split_first()?;
    if first < 0x80 {
        *rest = after;
        return Some(u64::from(first));
    }
    take_front_long(rest)
}

/// [`take_front`] past its first byte.
fn take_front_long(rest: &mut &[u8]) -> Option<u64> {
    let end = rest.iter().position(|&b| b < 0x80)?;
    let (varint, after) = rest.split_at_checked(end.saturating_add(1))?;
    *rest = after;
    Some(varint_value(varint))
}

/// Decodes the varint at the end of `rest` and moves before it: its last byte is the one with
/// the high bit clear, its earlier bytes are the ones before it with the high bit set.
pub(super) fn take_back(rest: &mut &[u8]) -> Option<u64> {
    let (_, before) = rest.split_last()?;
    let start = before
        .iter()
        .rposition(|&b| b < 0x80)
        .map_or(0, |i| i.saturating_add(1));
    let (before, varint) = rest.split_at_checked(start)?;
    *rest = before;
    Some(varint_value(varint))
}

/// The value of the varint `varint`, from its last byte on: shifts by a constant, which a
/// 32-bit target does inline (a variable 64-bit shift is a call).
fn varint_value(varint: &[u8]) -> u64 {
    // At most 10 bytes: the first group shifted in ends at bit 63.
    varint
        .iter()
        .rev()
        .fold(0, |v, &b| v.wrapping_shl(7) | u64::from(b & 0x7f))
}

/// Bits of a scale event's code that hold its list slot (see [`event_code`]).
pub(super) const SLOT_BITS: u32 = 7;

/// The value code of a scale event: its change zigzag-coded, above its list slot (below
/// `1 << SLOT_BITS`). One varint, as a recommendation's value: the ring code is shared, and an
/// event of a change below 64 in a slot below 128 takes two bytes, as with the slot apart.
pub(super) fn event_code(change: i32, slot: u32) -> u64 {
    zigzag(change).wrapping_shl(SLOT_BITS) | u64::from(slot)
}

/// The change of a scale event's code (0 for an overwritten event).
pub(super) fn event_change(code: u64) -> i32 {
    unzigzag(code.wrapping_shr(SLOT_BITS))
}

/// The list slot of a scale event's code.
pub(super) fn event_slot(code: u64) -> u32 {
    (code & ((1 << SLOT_BITS) - 1)) as u32
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use crate::history::GUARANTEED_REPLICAS;

    #[test]
    fn codes_are_bijections_and_short_near_the_period() {
        // Under Miri, which interprets each step thousands of times slower: every 97th gap,
        // and the short codes of the gaps within 500 ms of the period (onto 0..1000) instead
        // of all 30,000.
        let stride = if cfg!(miri) { 97 } else { 1 };
        let gaps = (0..70_000).step_by(stride);
        for gap in gaps.chain([u64::MAX, u64::MAX - 1, 1 << 21, (1 << 21) - 1]) {
            assert_eq!(gap_from_code(gap_code(gap)), gap, "{gap}");
        }
        let (first, end) = if cfg!(miri) {
            (14_500, 15_500)
        } else {
            (0, 30_000)
        };
        let codes: std::collections::BTreeSet<u64> = (first..end).map(gap_code).collect();
        assert_eq!(codes, (0..end - first).collect());
        assert_eq!(gap_len(gap_code(15_000)), 2);
        assert_eq!(gap_len(gap_code(6_808)), 2);
        assert_eq!(gap_len(gap_code(6_807)), 3);
        assert_eq!(gap_len(gap_code(23_191)), 2);
        assert_eq!(gap_len(gap_code(23_192)), 3);
        assert_eq!(gap_len(gap_code((1 << 21) - 1)), 3);
        assert_eq!(gap_len(gap_code(1 << 21)), 4);
        assert_eq!(gap_len(gap_code(u64::MAX)), 10);
        for v in [0, 1, -1, 63, -64, 64, 8191, -8191, 8192, i32::MAX, i32::MIN] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
        assert_eq!(varint_len(zigzag(63)), 1);
        assert_eq!(varint_len(zigzag(64)), 2);
        assert_eq!(varint_len(zigzag(GUARANTEED_REPLICAS)), 2);
        assert_eq!(varint_len(zigzag(-GUARANTEED_REPLICAS)), 2);
        assert_eq!(varint_len(zigzag(GUARANTEED_REPLICAS + 1)), 3);
        assert_eq!(varint_len(zigzag(i32::MIN)), 5);
        // Both directions decode what was written.
        let mut bytes = [0; 2 * crate::history::MAX_ENTRY_BYTES];
        let mut out = bytes.iter_mut();
        put_varint(&mut out, u64::MAX);
        put_gap(&mut out, 5);
        put_varint(&mut out, 300);
        let written = &bytes[..varint_len(u64::MAX) + gap_len(5) + varint_len(300)];
        let (mut forward, mut backward) = (written, written);
        for v in [u64::MAX, 5, 300] {
            assert_eq!(take_front(&mut forward), Some(v));
        }
        for v in [300, 5, u64::MAX] {
            assert_eq!(take_back(&mut backward), Some(v));
        }
        assert!(forward.is_empty() && backward.is_empty());
    }
}
