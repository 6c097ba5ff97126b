//! The integer coding of the firmware's data (docs/spec/firmware-data.md): LEB128 varints,
//! signed values zigzag-encoded, up to 128 bits. One definition for both sides: `build.rs`
//! writes with it (`#[path]`), `decode.rs` reads with it, without allocation or a panic path.
//!
//! The core's history rings (`src/history.rs`) code their entries with varints of their own:
//! a different format (gaps coded around the sync period, a slot carried in the change) in a
//! crate that cannot depend on this example, so that copy stays separate.

// Each side uses its half: `build.rs` writes, `decode.rs` reads.
#![allow(dead_code)]

/// Writes `v` as a LEB128 varint, byte by byte.
pub fn write(mut v: u128, mut push: impl FnMut(u8)) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            push(b);
            return;
        }
        push(b | 0x80);
    }
}

/// Reads a LEB128 varint from `next`; `None` when `next` runs out or the value exceeds 128
/// bits.
pub fn read(mut next: impl FnMut() -> Option<u8>) -> Option<u128> {
    let mut v: u128 = 0;
    let mut shift: u32 = 0;
    loop {
        let b = next()?;
        if shift >= 128 {
            return None;
        }
        v |= u128::from(b & 0x7f).checked_shl(shift)?;
        if b & 0x80 == 0 {
            return Some(v);
        }
        shift = shift.checked_add(7)?;
    }
}

/// Zigzag: small magnitudes of either sign take few bytes.
pub fn zigzag(v: i128) -> u128 {
    ((v << 1) ^ (v >> 127)) as u128
}

/// The inverse of [`zigzag`].
pub fn unzigzag(u: u128) -> i128 {
    let magnitude = (u >> 1) as i128;
    if u & 1 == 1 {
        !magnitude
    } else {
        magnitude
    }
}
