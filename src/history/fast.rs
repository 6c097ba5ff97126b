//! The hosts' fast forms of the ring walks, compiled where [`FAST_FORMS`] holds (64-bit
//! pointers): skipping a varint without decoding it, and walking to a window's first entry
//! from the newest end. Each gives the result of the plain form in [`super::codec`] and
//! [`super::ring`], which small targets compile instead (less code); the tests compare the
//! two.
//!
//! [`FAST_FORMS`]: crate::tuning::FAST_FORMS

use super::codec::{gap_from_code, take_back};

/// [`super::codec::skip_varint`] without decoding.
#[inline]
pub(super) fn skip_varint(rest: &mut &[u8]) -> bool {
    while let Some((&b, after)) = rest.split_first() {
        *rest = after;
        if b < 0x80 {
            return true;
        }
    }
    false
}

/// [`super::ring::Region::seek`] walking from the newest entry (at `back`) of `live`, for an instant `from`
/// after the oldest entry and not after the newest: the entry at `at` is not before `from`;
/// stops at the first one whose predecessor is.
pub(super) fn seek_from_newest(live: &[u8], back: i64, from: i64) -> usize {
    let mut rest = live;
    let mut at = back;
    loop {
        let _ = take_back(&mut rest);
        let Some(code) = take_back(&mut rest) else {
            return 0;
        };
        at = at.wrapping_sub_unsigned(gap_from_code(code));
        if at < from {
            return rest.len();
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use crate::history::codec::{put_varint_min, take_front};
    use testkit::Rng;

    /// Both forms of `skip_varint` move past the same bytes, and fail at the end.
    #[test]
    fn skipping_by_bytes_equals_skipping_by_decoding() {
        let mut rng = Rng::new(0x5c);
        for _ in 0..if cfg!(miri) { 100 } else { 1000 } {
            let mut bytes = [0_u8; 64];
            let mut out = bytes.iter_mut();
            let min = |rng: &mut Rng| 1 + u8::try_from(rng.below(2)).unwrap();
            while put_varint_min(&mut out, rng.next_u64() >> rng.below(64), min(&mut rng)) {}
            // The last varint may be cut short: both then fail.
            let (mut by_bytes, mut by_decoding) = (&bytes[..], &bytes[..]);
            loop {
                let skipped = skip_varint(&mut by_bytes);
                assert_eq!(skipped, take_front(&mut by_decoding).is_some());
                if !skipped {
                    break;
                }
                assert_eq!(by_bytes, by_decoding);
            }
        }
    }
}
