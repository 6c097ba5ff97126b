//! The snapshot's byte coding (docs/spec/snapshot.md, "Coding"): LEB128 varints, zigzag for
//! signed values, fixed little-endian header fields and the CRC-32.

use crc::{Crc, NoTable, Table, CRC_32_ISO_HDLC};

use super::{Problem, RestoreError};
use crate::tuning::FAST_FORMS;

/// CRC-32/ISO-HDLC (zlib's `crc32`) with a 1 KiB table, for hosts.
const CRC_TABLE: Crc<u32, Table<1>> = Crc::<u32, Table<1>>::new(&CRC_32_ISO_HDLC);
/// The same checksum bit by bit: no table in a firmware's flash.
const CRC_BITWISE: Crc<u32, NoTable> = Crc::<u32, NoTable>::new(&CRC_32_ISO_HDLC);

/// The CRC-32 of `bytes`.
pub(super) fn crc32(bytes: &[u8]) -> u32 {
    if FAST_FORMS {
        CRC_TABLE.checksum(bytes)
    } else {
        CRC_BITWISE.checksum(bytes)
    }
}

/// Zigzag: 0, -1, 1, -2, ... become 0, 1, 2, 3, ...
pub(super) fn zigzag(v: i64) -> u64 {
    (v.cast_unsigned() << 1) ^ (v >> 63).cast_unsigned()
}

/// The inverse of [`zigzag`].
pub(super) fn unzigzag(code: u64) -> i64 {
    (code >> 1).cast_signed() ^ (code & 1).cast_signed().wrapping_neg()
}

/// The bytes `v` takes as a varint.
pub(super) const fn varint_len(v: u64) -> usize {
    let bits = 64_u32.saturating_sub(v.leading_zeros());
    if bits == 0 {
        1
    } else {
        bits.div_ceil(7) as usize
    }
}

/// Writes a snapshot, or only counts its bytes (`out` empty: the first of the two passes of
/// a save, which learns the length before writing anything).
pub(super) struct Writer<'b> {
    out: &'b mut [u8],
    pub(super) len: usize,
}

impl<'b> Writer<'b> {
    /// A writer into `out` (which must be long enough: the counting pass said so), or a
    /// counter when `out` is empty.
    pub(super) fn new(out: &'b mut [u8]) -> Self {
        Writer { out, len: 0 }
    }

    /// The length of the buffer written into (0 when counting).
    pub(super) fn capacity(&self) -> usize {
        self.out.len()
    }

    pub(super) fn byte(&mut self, b: u8) {
        if let Some(slot) = self.out.get_mut(self.len) {
            *slot = b;
        }
        self.len = self.len.saturating_add(1);
    }

    pub(super) fn bytes(&mut self, bs: &[u8]) {
        let end = self.len.saturating_add(bs.len());
        if let Some(dst) = self.out.get_mut(self.len..end) {
            // Byte by byte: `end` saturates, so the lengths are not provably equal, and
            // `copy_from_slice` would link its length-mismatch panic.
            for (d, s) in dst.iter_mut().zip(bs) {
                *d = *s;
            }
        }
        self.len = end;
    }

    pub(super) fn u(&mut self, mut v: u64) {
        loop {
            let low = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                self.byte(low);
                return;
            }
            self.byte(low | 0x80);
        }
    }

    pub(super) fn s(&mut self, v: i64) {
        self.u(zigzag(v));
    }
}

/// Reads the body of a snapshot whose length and checksum were checked.
pub(super) struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(super) fn new(body: &'a [u8]) -> Self {
        Reader { rest: body }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    pub(super) fn bytes(&mut self, n: u64, field: &'static str) -> Result<&'a [u8], RestoreError> {
        let n = usize::try_from(n).map_err(|_| RestoreError::field(field, Problem::Truncated))?;
        let (taken, rest) = self
            .rest
            .split_at_checked(n)
            .ok_or(RestoreError::field(field, Problem::Truncated))?;
        self.rest = rest;
        Ok(taken)
    }

    pub(super) fn byte(&mut self, field: &'static str) -> Result<u8, RestoreError> {
        let (&b, rest) = self
            .rest
            .split_first()
            .ok_or(RestoreError::field(field, Problem::Truncated))?;
        self.rest = rest;
        Ok(b)
    }

    /// A varint written with as few bytes as its value needs (the only form a save writes:
    /// one state has one snapshot).
    pub(super) fn u(&mut self, field: &'static str) -> Result<u64, RestoreError> {
        let mut v = 0_u64;
        for i in 0..10_u32 {
            let b = self.byte(field)?;
            let group = u64::from(b & 0x7f);
            if i == 9 && b > 1 {
                return Err(RestoreError::field(field, Problem::Encoding));
            }
            v |= group << 7_u32.saturating_mul(i);
            if b < 0x80 {
                // A zero last byte after the first is a longer form than needed.
                if i > 0 && b == 0 {
                    return Err(RestoreError::field(field, Problem::Encoding));
                }
                return Ok(v);
            }
        }
        Err(RestoreError::field(field, Problem::Encoding))
    }

    /// A varint at most `max`.
    pub(super) fn u_max(&mut self, max: u64, field: &'static str) -> Result<u64, RestoreError> {
        let v = self.u(field)?;
        if v > max {
            return Err(RestoreError::field(field, Problem::OutOfRange));
        }
        Ok(v)
    }

    pub(super) fn s(&mut self, field: &'static str) -> Result<i64, RestoreError> {
        self.u(field).map(unzigzag)
    }

    /// A signed value in `min..=max`.
    pub(super) fn s_in(
        &mut self,
        min: i64,
        max: i64,
        field: &'static str,
    ) -> Result<i64, RestoreError> {
        let v = self.s(field)?;
        if v < min || v > max {
            return Err(RestoreError::field(field, Problem::OutOfRange));
        }
        Ok(v)
    }

    /// An `i32`.
    pub(super) fn i32(&mut self, field: &'static str) -> Result<i32, RestoreError> {
        let v = self.s(field)?;
        i32::try_from(v).map_err(|_| RestoreError::field(field, Problem::OutOfRange))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_only_the_shortest_form_reads() {
        let mut rng = crate::arith::test_rng(7);
        for _ in 0..if cfg!(miri) { 100 } else { 10_000 } {
            let v = rng() >> (rng() % 64);
            let mut buf = [0_u8; 10];
            let mut w = Writer::new(&mut buf);
            w.u(v);
            assert_eq!(w.len, varint_len(v));
            let len = w.len;
            let mut r = Reader::new(&buf[..len]);
            assert_eq!(r.u("v"), Ok(v));
            assert!(r.is_empty());
            let s = v.cast_signed();
            assert_eq!(unzigzag(zigzag(s)), s);
        }
        // 0x80 0x00 is a two-byte zero: refused. Eleven bytes, or a tenth byte above 1, too.
        for bad in [
            &[0x80, 0x00][..],
            &[0xff; 11],
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02],
        ] {
            assert!(Reader::new(bad).u("v").is_err(), "{bad:?}");
        }
        assert_eq!(
            Reader::new(&[0x80]).u("v"),
            Err(RestoreError::field("v", Problem::Truncated))
        );
        assert_eq!(
            Reader::new(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]).u("v"),
            Ok(u64::MAX)
        );
    }

    #[test]
    fn crc_is_zlibs() {
        // The check value of CRC-32/ISO-HDLC.
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        assert_eq!(CRC_BITWISE.checksum(b"123456789"), 0xcbf4_3926);
    }
}
