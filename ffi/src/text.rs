//! Text written into the fixed `char` arrays of the output structs.
//!
//! Every text the library writes is UTF-8 and NUL-terminated. A text longer than its array is
//! cut at a character boundary and ends with `...`, so a message never overflows and never
//! ends in half a character.

use core::ffi::c_char;
use core::fmt;
use core::mem::MaybeUninit;

/// What a cut text ends with.
const ELLIPSIS: &[u8] = b"...";

/// A `fmt::Write` sink over a byte buffer that keeps room for the terminating NUL. The buffer
/// need not be initialized: a text writes its bytes and the NUL, and reads only bytes it wrote,
/// so an output array is written without clearing it first.
pub(crate) struct Text<'b> {
    buf: &'b mut [MaybeUninit<u8>],
    len: usize,
    truncated: bool,
}

impl<'b> Text<'b> {
    /// A sink writing from the start of `buf` (which must hold at least the NUL).
    pub(crate) fn new(buf: &'b mut [u8]) -> Text<'b> {
        // SAFETY: `MaybeUninit<u8>` has `u8`'s layout, and a `Text` writes only initialized
        // bytes, so `buf` stays initialized.
        Text::uninit(unsafe { &mut *(core::ptr::from_mut(buf) as *mut [MaybeUninit<u8>]) })
    }

    /// A sink over memory that may not hold values yet.
    pub(crate) fn uninit(buf: &'b mut [MaybeUninit<u8>]) -> Text<'b> {
        Text {
            buf,
            len: 0,
            truncated: false,
        }
    }

    /// A sink over a `char` array of an output struct.
    pub(crate) fn over(array: &'b mut [c_char]) -> Text<'b> {
        Text::over_uninit(as_uninit(array))
    }

    /// A sink over a `char` array of an output struct, which may not be initialized.
    pub(crate) fn over_uninit(array: &'b mut [MaybeUninit<c_char>]) -> Text<'b> {
        // SAFETY: `c_char` is `i8` or `u8`: same size, alignment and validity as `u8`.
        let bytes = unsafe {
            core::slice::from_raw_parts_mut(
                array.as_mut_ptr().cast::<MaybeUninit<u8>>(),
                array.len(),
            )
        };
        Text::uninit(bytes)
    }

    /// Bytes available for text (the last byte is the NUL).
    fn usable(&self) -> usize {
        self.buf.len().saturating_sub(1)
    }

    /// Appends a string, cutting it if it does not fit.
    pub(crate) fn push(&mut self, s: &str) {
        if self.truncated {
            return;
        }
        let avail = self.usable().saturating_sub(self.len);
        if let Some(dst) = self.buf.get_mut(self.len..).filter(|_| s.len() <= avail) {
            // The common case, the whole string: one copy. `dst` holds at least `avail` bytes.
            // SAFETY: `dst` holds at least `s.len()` bytes, `MaybeUninit<u8>` has `u8`'s
            // layout, and a string cannot overlap the buffer borrowed mutably.
            unsafe {
                core::ptr::copy_nonoverlapping(s.as_ptr(), dst.as_mut_ptr().cast::<u8>(), s.len());
            }
            self.len = self.len.saturating_add(s.len());
            return;
        }
        let take = if s.len() <= avail {
            s.len()
        } else {
            self.truncated = true;
            floor_char_boundary(s, avail)
        };
        let end = self.len.saturating_add(take);
        if let (Some(dst), Some(src)) = (self.buf.get_mut(self.len..end), s.as_bytes().get(..take))
        {
            // One copy rather than a byte loop: the messages and names run to a hundred bytes.
            // SAFETY: both ranges hold `take` bytes (`end - len`), `MaybeUninit<u8>` has
            // `u8`'s layout, and a string cannot overlap the buffer borrowed mutably.
            unsafe {
                core::ptr::copy_nonoverlapping(
                    src.as_ptr(),
                    dst.as_mut_ptr().cast::<u8>(),
                    src.len().min(dst.len()),
                );
            }
            self.len = end;
        }
    }

    /// Whether the written byte at `i` continues a character (reads only written bytes).
    fn continues_char(&self, i: usize) -> bool {
        // SAFETY: bytes below `self.len` were written by `push`.
        i < self.len
            && self
                .buf
                .get(i)
                .is_some_and(|b| unsafe { b.assume_init() } & 0xC0 == 0x80)
    }

    /// Terminates the text (with `...` if it was cut) and returns its length without the NUL.
    pub(crate) fn finish(mut self) -> usize {
        self.terminate()
    }

    /// What [`Text::finish`] does, leaving the `Text` to the caller.
    fn terminate(&mut self) -> usize {
        if self.truncated {
            let mut len = self.len.min(self.usable().saturating_sub(ELLIPSIS.len()));
            while len > 0 && self.continues_char(len) {
                len = len.saturating_sub(1);
            }
            for (d, b) in self.buf.iter_mut().skip(len).zip(ELLIPSIS) {
                d.write(*b);
            }
            self.len = len.saturating_add(ELLIPSIS.len()).min(self.usable());
        }
        if let Some(nul) = self.buf.get_mut(self.len) {
            nul.write(0);
        }
        self.len
    }

    /// Terminates the text and returns it, or `None` when it was cut (and then ends in `...`).
    pub(crate) fn finish_whole(mut self) -> Option<&'b str> {
        let len = self.terminate();
        if self.truncated {
            return None;
        }
        let buf: &'b [MaybeUninit<u8>] = self.buf;
        // SAFETY: the first `len` bytes were written by `push`, which copies whole strings
        // when the text is not cut: they are initialized, and the concatenation of the pushed
        // `&str`s, hence UTF-8.
        Some(unsafe { written_str(buf.get(..len).unwrap_or(&[])) })
    }

    /// The text written so far.
    #[cfg(test)]
    pub(crate) fn as_str(&self) -> &str {
        let written = self.buf.get(..self.len).unwrap_or(&[]);
        // SAFETY: bytes below `self.len` were written by `push`.
        let bytes = unsafe { &*(core::ptr::from_ref(written) as *const [u8]) };
        core::str::from_utf8(bytes).unwrap_or("")
    }
}

impl fmt::Write for Text<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.push(s);
        Ok(())
    }
}

/// The largest index `<= max` that is a character boundary of `s`.
fn floor_char_boundary(s: &str, max: usize) -> usize {
    let mut i = max.min(s.len());
    while i > 0 && !s.is_char_boundary(i) {
        i = i.saturating_sub(1);
    }
    i
}

/// Writes `value`'s `Display` text into a `char` array (cut with `...` if too long).
pub(crate) fn write_display(array: &mut [c_char], value: &dyn fmt::Display) -> usize {
    write_display_uninit(as_uninit(array), value)
}

/// Writes `value`'s `Display` text into a `char` array that may not be initialized: only the
/// text and its NUL are written.
pub(crate) fn write_display_uninit(
    array: &mut [MaybeUninit<c_char>],
    value: &dyn fmt::Display,
) -> usize {
    let mut t = Text::over_uninit(array);
    let _ = fmt::write(&mut t, format_args!("{value}"));
    t.finish()
}

/// Writes `s` into a `char` array that may not be initialized (cut with `...` if too long).
pub(crate) fn write_str_uninit(array: &mut [MaybeUninit<c_char>], s: &str) -> usize {
    let mut t = Text::over_uninit(array);
    t.push(s);
    t.finish()
}

/// Writes the concatenation of `pieces` into a `char` array that may not be initialized (cut
/// with `...` if too long), as `write_display_uninit` would write the same text.
pub(crate) fn write_pieces_uninit(array: &mut [MaybeUninit<c_char>], pieces: &[&str]) -> usize {
    let mut t = Text::over_uninit(array);
    for piece in pieces {
        t.push(piece);
    }
    t.finish()
}

/// The most bytes [`i32_decimal`] writes (`-2147483648`).
pub(crate) const I32_DECIMAL_BYTES: usize = 11;

/// `n` in decimal, as its `Display` writes it, without `core::fmt`: written at the end of `buf`
/// and returned.
pub(crate) fn i32_decimal(n: i32, buf: &mut [u8; I32_DECIMAL_BYTES]) -> &str {
    let at = decimal_before(buf, I32_DECIMAL_BYTES, u64::from(n.unsigned_abs()), n < 0);
    // ASCII digits and sign.
    crate::raw::utf8(buf.get(at..).unwrap_or(&[])).unwrap_or("")
}

/// Writes `m`'s decimal digits, after a `-` when `negative`, so that they end just before
/// `buf[end]`; returns where they start. `buf[..end]` must have room for them.
pub(crate) fn decimal_before(buf: &mut [u8], end: usize, mut m: u64, negative: bool) -> usize {
    let mut at = end;
    loop {
        at = at.saturating_sub(1);
        if let Some(d) = buf.get_mut(at) {
            *d = b'0' + (m % 10) as u8;
        }
        m /= 10;
        if m == 0 {
            break;
        }
    }
    if negative {
        at = at.saturating_sub(1);
        if let Some(d) = buf.get_mut(at) {
            *d = b'-';
        }
    }
    at
}

/// Bytes a [`Text`] wrote, as the text they are.
///
/// # Safety
///
/// `bytes` must be initialized and UTF-8 (a text [`Text::finish_whole`] returned).
pub(crate) unsafe fn written_str(bytes: &[MaybeUninit<u8>]) -> &str {
    // SAFETY: `MaybeUninit<u8>` has `u8`'s layout; initialized UTF-8 by the caller's contract.
    unsafe { core::str::from_utf8_unchecked(&*(core::ptr::from_ref(bytes) as *const [u8])) }
}

/// An initialized `char` array as one a [`Text`] writes to.
fn as_uninit(array: &mut [c_char]) -> &mut [MaybeUninit<c_char>] {
    // SAFETY: same layout; the array is only handed to a `Text`, which writes initialized
    // bytes, so it stays initialized.
    unsafe { &mut *(core::ptr::from_mut(array) as *mut [MaybeUninit<c_char>]) }
}

/// A fixed-capacity string kept inside the autoscaler state (messages the status shows later).
/// Plain data without padding (for `N` a multiple of 4), as the whole state: any bytes are a
/// value, a `len` beyond `N` or bytes that are not UTF-8 read as an empty text.
#[derive(Clone, Copy)]
#[repr(C)]
pub(crate) struct Stored<const N: usize> {
    bytes: [u8; N],
    pub(crate) len: u32,
}

impl<const N: usize> Stored<N> {
    /// Empty.
    pub(crate) const fn new() -> Self {
        Stored {
            bytes: [0; N],
            len: 0,
        }
    }

    /// Replaces the text with `value`'s `Display` text (cut with `...` if too long).
    pub(crate) fn set(&mut self, value: &dyn fmt::Display) {
        let mut t = Text::new(&mut self.bytes);
        let _ = fmt::write(&mut t, format_args!("{value}"));
        self.len = u32::try_from(t.finish()).unwrap_or(0);
    }

    /// Replaces the text with the concatenation of `pieces` (cut with `...` if too long), as
    /// [`Stored::set`] would store the same text.
    pub(crate) fn set_pieces(&mut self, pieces: &[&str]) {
        let mut t = Text::new(&mut self.bytes);
        for piece in pieces {
            t.push(piece);
        }
        self.len = u32::try_from(t.finish()).unwrap_or(0);
    }

    /// The text.
    pub(crate) fn as_str(&self) -> &str {
        core::str::from_utf8(self.used()).unwrap_or("")
    }

    /// The bytes in use.
    pub(crate) fn used(&self) -> &[u8] {
        let len = usize::try_from(self.len).unwrap_or(usize::MAX);
        self.bytes.get(..len).unwrap_or(&[])
    }
}

impl<const N: usize> fmt::Display for Stored<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use core::fmt::Write as _;

    #[test]
    fn fits_and_terminates() {
        let mut buf = [0xAAu8; 8];
        let mut t = Text::new(&mut buf);
        t.push("abc");
        assert_eq!(t.as_str(), "abc");
        assert_eq!(t.finish(), 3);
        assert_eq!(&buf[..4], b"abc\0");
    }

    #[test]
    fn cuts_at_char_boundary_with_ellipsis() {
        let mut buf = [0u8; 8];
        let mut t = Text::new(&mut buf);
        let _ = write!(t, "ab{}", "\u{e9}".repeat(4));
        let n = t.finish();
        assert!(n <= 7);
        let s = core::str::from_utf8(&buf[..n]).unwrap();
        assert!(s.ends_with("..."), "{s}");
        assert_eq!(buf[n], 0);
        assert_eq!(s, "ab\u{e9}...");
    }

    #[test]
    fn exact_fit_is_not_cut() {
        let mut buf = [0u8; 4];
        let mut t = Text::new(&mut buf);
        t.push("abc");
        assert_eq!(t.finish(), 3);
        assert_eq!(&buf, b"abc\0");
    }

    #[test]
    fn i32_decimal_is_displays_text() {
        use std::string::ToString;
        let mut values = std::vec![0, 1, -1, 9, 10, -10, i32::MAX, i32::MIN, i32::MIN + 1];
        let mut p: i32 = 1;
        while let Some(q) = p.checked_mul(10) {
            values.extend([p, p - 1, -p, 1 - p, q - 1]);
            p = q;
        }
        let mut buf = [0; I32_DECIMAL_BYTES];
        for v in values {
            assert_eq!(i32_decimal(v, &mut buf), v.to_string(), "{v}");
        }
    }

    #[test]
    fn whole_texts_and_pieces() {
        let mut buf = [MaybeUninit::uninit(); 8];
        let mut t = Text::uninit(&mut buf);
        t.push("ab");
        t.push("c\u{e9}");
        assert_eq!(t.finish_whole(), Some("abc\u{e9}"));
        let mut t = Text::uninit(&mut buf);
        t.push("abcdefgh");
        assert_eq!(t.finish_whole(), None);
        let mut out = [MaybeUninit::<c_char>::uninit(); 8];
        for pieces in [
            &["ab", "cd"][..],
            &["abc", "\u{e9}\u{e9}", "x"],
            &["", "abcdefgh"],
        ] {
            let mut whole = [0 as c_char; 8];
            let n = write_display(&mut whole, &pieces.concat());
            assert_eq!(write_pieces_uninit(&mut out, pieces), n, "{pieces:?}");
            for (o, w) in out.iter().zip(&whole).take(n + 1) {
                // SAFETY: the first `n` bytes and the NUL were written.
                assert_eq!(unsafe { o.assume_init() }, *w, "{pieces:?}");
            }
        }
    }

    #[test]
    fn tiny_buffers() {
        let mut buf = [0u8; 1];
        let mut t = Text::new(&mut buf);
        t.push("abc");
        assert_eq!(t.finish(), 0);
        assert_eq!(buf[0], 0);
        let mut buf = [0u8; 3];
        let mut t = Text::new(&mut buf);
        t.push("abcdef");
        let n = t.finish();
        assert_eq!(buf[n], 0);
        assert!(n <= 2);
    }
}
