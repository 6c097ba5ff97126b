//! Makes a mutated snapshot's length field and CRC-32 match its bytes
//! (docs/spec/snapshot.md#layout), so that the fuzzer's mutations reach the checks behind them
//! instead of stopping at the checksum. Shared by the `restore` and `c_api_storage` targets.

/// Rewrites the length field and the checksum of `bytes` (left alone when shorter than a
/// header and a checksum).
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

/// CRC-32/ISO-HDLC (zlib's), bit by bit: snapshots are short.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0_u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}
