//! Snapshot bytes as the tests forge them (docs/spec/snapshot.md#layout): the checksum computed
//! independently of the engine, and a mutated snapshot resealed so that its mutation reaches the
//! checks behind the length field and the checksum.

/// CRC-32/ISO-HDLC (zlib's `crc32`), bit by bit: written here rather than taken from the engine,
/// so that a test of the engine's checksum compares two implementations.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0_u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xEDB8_8320 & mask);
        }
    }
    !crc
}

/// Rewrites the length field and the checksum of `bytes` to match them (left alone when
/// shorter than a header and a checksum, 13 bytes).
pub fn reseal(bytes: &mut [u8]) {
    if bytes.len() < 13 {
        return;
    }
    let len = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
    bytes[5..9].copy_from_slice(&len.to_le_bytes());
    let body = bytes.len() - 4;
    let crc = crc32(&bytes[..body]);
    bytes[body..].copy_from_slice(&crc.to_le_bytes());
}

#[cfg(test)]
mod tests {
    #[test]
    fn crc_check_value() {
        assert_eq!(super::crc32(b"123456789"), 0xCBF4_3926);
    }
}
