//! Semihosting output without `core::fmt`: bytes to the host's stdout, numbers by hand.

use cortex_m_semihosting::hio;

/// Writes bytes to the host's standard output (dropped if semihosting is unavailable).
pub fn write(bytes: &[u8]) {
    if let Ok(mut stdout) = hio::hstdout() {
        let _ = stdout.write_all(bytes);
    }
}

/// Writes the parts and a newline.
pub fn line(parts: &[&[u8]]) {
    for p in parts {
        write(p);
    }
    write(b"\n");
}

/// Writes `v` in decimal.
pub fn uint(mut v: u64) {
    let mut buf = [0u8; 20];
    let mut start = buf.len();
    loop {
        start -= 1;
        if let Some(slot) = buf.get_mut(start) {
            *slot = b'0' + (v % 10) as u8;
        }
        v /= 10;
        if v == 0 || start == 0 {
            break;
        }
    }
    write(buf.get(start..).unwrap_or(&[]));
}
