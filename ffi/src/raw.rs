//! Reading what C passes: pointers, arrays, strings and flags, checked before use.
//!
//! Every pointer is checked for NULL and alignment before a reference is made from it, and
//! every array length for overflow, so a bad argument becomes a status instead of undefined
//! behaviour. What cannot be checked (that a non-NULL pointer points to live memory of the
//! stated length) is the caller's contract, documented on each function.

use core::ffi::c_char;
use core::mem::{align_of, size_of};

use crate::error::{Detail, Fault};
use crate::status::hpa_status;

/// A string borrowed from the caller: `len` bytes of UTF-8 at `ptr`, no NUL needed.
///
/// `ptr` may be NULL when `len` is 0 (the empty string). The bytes must stay valid and
/// unchanged for the duration of the call they are passed to. `HPA_STR("literal")` builds one
/// from a string literal (`HPA_STR_INIT` in a static initializer); `{ s, strlen(s) }` from a
/// NUL-terminated string.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hpa_str {
    /// The first byte (need not be NUL-terminated).
    pub ptr: *const c_char,
    /// The number of bytes.
    pub len: usize,
}

/// Memory a call writes while it reads its inputs (an evaluation's workspace, decision and
/// autoscaler). An input array inside it would change under the call, pointers in it
/// included, so every input is checked against it before it is read: that an input read
/// earlier was apart makes every pointer read from it the caller's own.
#[derive(Clone, Copy)]
pub(crate) struct Outputs {
    ranges: [((*const u8, usize), &'static str); 3],
    /// The addresses from the lowest output's start to the highest one's end: most inputs
    /// lie outside, and need no more comparisons.
    span: (usize, usize),
}

impl Outputs {
    /// A call that writes nothing while it reads (the checks and validations).
    pub(crate) const NONE: Outputs = Outputs {
        ranges: [((core::ptr::null(), 0), ""); 3],
        span: (0, 0),
    };

    /// The ranges (start, bytes) a call writes, each with its argument's name.
    pub(crate) fn new(ranges: [((*const u8, usize), &'static str); 3]) -> Outputs {
        let (mut low, mut high) = (usize::MAX, 0);
        for ((start, len), _) in ranges {
            if len > 0 {
                low = low.min(start as usize);
                high = high.max((start as usize).saturating_add(len));
            }
        }
        Outputs {
            ranges,
            span: (low, high),
        }
    }

    /// A call that writes one range while it reads.
    pub(crate) fn only(range: (*const u8, usize), name: &'static str) -> Outputs {
        let none = ((core::ptr::null(), 0), "");
        Outputs::new([(range, name), none, none])
    }

    /// Refuses `bytes` bytes at `p` that overlap an output.
    #[inline]
    fn apart(&self, p: *const u8, bytes: usize) -> Result<(), Fault> {
        let start = p as usize;
        if start >= self.span.1 || start.saturating_add(bytes) <= self.span.0 {
            return Ok(());
        }
        // By reference: a copy of the ranges for each input was most of a string's check.
        for &((output, len), name) in &self.ranges {
            if overlaps(p, bytes, output, len) {
                return Err(Fault::new(hpa_status::Overlap, Detail::Overlap(name)));
            }
        }
        Ok(())
    }

    /// A reference from a pointer that must not be NULL.
    ///
    /// # Safety
    ///
    /// When `p` is not NULL it must point to a live `T` for `'a`.
    pub(crate) unsafe fn reference<'a, T>(&self, p: *const T) -> Result<&'a T, Fault> {
        if p.is_null() {
            return Err(Fault::new(hpa_status::NullPointer, Detail::Null));
        }
        if !p.is_aligned() {
            return Err(Fault::new(
                hpa_status::Misaligned,
                Detail::Misaligned(align_of::<T>()),
            ));
        }
        self.apart(p.cast(), size_of::<T>())?;
        // SAFETY: not NULL, aligned, apart from what the call writes, and live by the caller's
        // contract.
        Ok(unsafe { &*p })
    }

    /// An optional reference: NULL is `None`.
    ///
    /// # Safety
    ///
    /// As [`Outputs::reference`].
    pub(crate) unsafe fn optional<'a, T>(&self, p: *const T) -> Result<Option<&'a T>, Fault> {
        if p.is_null() {
            Ok(None)
        } else {
            // SAFETY: forwarded contract.
            unsafe { self.reference(p) }.map(Some)
        }
    }

    /// A slice from a pointer and a length; any pointer (NULL included) is fine for length 0.
    ///
    /// # Safety
    ///
    /// When `len > 0` and `p` is not NULL, `p` must point to `len` live `T`s for `'a`.
    pub(crate) unsafe fn slice<'a, T>(&self, p: *const T, len: usize) -> Result<&'a [T], Fault> {
        if len == 0 {
            return Ok(&[]);
        }
        if p.is_null() {
            return Err(Fault::new(hpa_status::NullPointer, Detail::NullArray(len)));
        }
        if !p.is_aligned() {
            return Err(Fault::new(
                hpa_status::Misaligned,
                Detail::Misaligned(align_of::<T>()),
            ));
        }
        let Some(bytes) = len
            .checked_mul(size_of::<T>())
            .filter(|bytes| isize::try_from(*bytes).is_ok())
        else {
            return Err(Fault::new(hpa_status::TooLarge, Detail::Overflow));
        };
        self.apart(p.cast(), bytes)?;
        // SAFETY: not NULL, aligned, size within isize, apart from what the call writes, and
        // live by the caller's contract.
        Ok(unsafe { core::slice::from_raw_parts(p, len) })
    }

    /// A string from an `hpa_str`.
    ///
    /// # Safety
    ///
    /// When `s.len > 0` and `s.ptr` is not NULL, `s.ptr` must point to `s.len` live bytes for
    /// `'a`.
    #[inline]
    pub(crate) unsafe fn string<'a>(&self, s: hpa_str) -> Result<&'a str, Fault> {
        // SAFETY: forwarded contract (bytes have alignment 1).
        let bytes = unsafe { self.slice(s.ptr.cast::<u8>(), s.len) }?;
        utf8(bytes)
    }

    /// Whether [`Outputs::string`] accepts `s`, decided in a few instructions for the common
    /// string (up to 16 bytes, ASCII, apart from the outputs): `false` leaves it to `string`,
    /// which says why. For a pod's name, checked for every pod of every call.
    ///
    /// # Safety
    ///
    /// As [`Outputs::string`].
    #[inline(always)]
    pub(crate) unsafe fn plain_string(&self, s: hpa_str) -> bool {
        if s.len == 0 {
            return true;
        }
        let start = s.ptr as usize;
        if s.ptr.is_null() || s.len > 16 || start.checked_add(s.len).is_none() {
            return false;
        }
        if self.apart(s.ptr.cast(), s.len).is_err() {
            return false;
        }
        // SAFETY: not NULL, at most 16 bytes without overflow, apart from what the call writes,
        // and live by the caller's contract (bytes have alignment 1).
        ascii(unsafe { core::slice::from_raw_parts(s.ptr.cast::<u8>(), s.len) })
    }

    /// An optional string: a NULL `ptr` (with length 0) is `None`; a non-NULL `ptr` with
    /// length 0 is the empty string.
    ///
    /// # Safety
    ///
    /// As [`Outputs::string`].
    pub(crate) unsafe fn optional_string<'a>(&self, s: hpa_str) -> Result<Option<&'a str>, Fault> {
        if s.ptr.is_null() && s.len == 0 {
            Ok(None)
        } else {
            // SAFETY: forwarded contract.
            unsafe { self.string(s) }.map(Some)
        }
    }
}

/// `bytes` as text, or `HPA_STATUS_INVALID_UTF8`. Names are short and almost always ASCII:
/// [`ascii`] settles those in a few instructions, where `from_utf8`'s set-up cost more than
/// the rest of a pod's check.
#[inline]
pub(crate) fn utf8(bytes: &[u8]) -> Result<&str, Fault> {
    if ascii(bytes) {
        // SAFETY: ASCII is UTF-8.
        return Ok(unsafe { core::str::from_utf8_unchecked(bytes) });
    }
    core::str::from_utf8(bytes).map_err(|_| Fault::new(hpa_status::InvalidUtf8, Detail::Utf8))
}

/// Whether `bytes` are ASCII, in two overlapping word reads for up to 16 bytes (a pod's name
/// is checked for every pod of every call: a byte loop was a quarter of a 1,000-pod call).
#[inline]
fn ascii(bytes: &[u8]) -> bool {
    const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
    if bytes.len() > 16 {
        return bytes.is_ascii();
    }
    let bits = match (bytes.first_chunk::<8>(), bytes.last_chunk::<8>()) {
        (Some(first), Some(last)) => u64::from_ne_bytes(*first) | u64::from_ne_bytes(*last),
        _ => match (bytes.first_chunk::<4>(), bytes.last_chunk::<4>()) {
            (Some(first), Some(last)) => {
                u64::from(u32::from_ne_bytes(*first) | u32::from_ne_bytes(*last))
            }
            _ => bytes.iter().fold(0, |bits, &b| bits | u64::from(b)),
        },
    };
    bits & HIGH_BITS == 0
}

/// A reference from a pointer that must not be NULL.
///
/// # Safety
///
/// When `p` is not NULL it must point to a live `T` for `'a`.
pub(crate) unsafe fn reference<'a, T>(p: *const T) -> Result<&'a T, Fault> {
    // SAFETY: forwarded contract.
    unsafe { Outputs::NONE.reference(p) }
}

/// A slice from a pointer and a length; any pointer (NULL included) is fine for length 0.
///
/// # Safety
///
/// When `len > 0` and `p` is not NULL, `p` must point to `len` live `T`s for `'a`.
pub(crate) unsafe fn slice<'a, T>(p: *const T, len: usize) -> Result<&'a [T], Fault> {
    // SAFETY: forwarded contract.
    unsafe { Outputs::NONE.slice(p, len) }
}

/// A string from an `hpa_str`.
///
/// # Safety
///
/// When `s.len > 0` and `s.ptr` is not NULL, `s.ptr` must point to `s.len` live bytes for
/// `'a`.
pub(crate) unsafe fn string<'a>(s: hpa_str) -> Result<&'a str, Fault> {
    // SAFETY: forwarded contract.
    unsafe { Outputs::NONE.string(s) }
}

/// A flag: 0 or 1.
pub(crate) fn flag(v: u32) -> Result<bool, Fault> {
    match v {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(Fault::new(hpa_status::InvalidFlag, Detail::Flag(v))),
    }
}

/// An optional value guarded by a `has_` flag.
pub(crate) fn when<T>(has: u32, value: T) -> Result<Option<T>, Fault> {
    Ok(flag(has)?.then_some(value))
}

/// An enumeration value, or `HPA_STATUS_INVALID_ENUM`.
pub(crate) fn known<T>(v: u32, convert: fn(u32) -> Option<T>) -> Result<T, Fault> {
    convert(v).ok_or(Fault::new(hpa_status::InvalidEnum, Detail::Enum(v)))
}

/// Whether two byte ranges overlap.
pub(crate) fn overlaps(a: *const u8, a_len: usize, b: *const u8, b_len: usize) -> bool {
    let (a, b) = (a as usize, b as usize);
    a_len > 0 && b_len > 0 && a < b.saturating_add(b_len) && b < a.saturating_add(a_len)
}

#[cfg(test)]
mod tests {
    /// [`super::ascii`] agrees with `is_ascii` at every length around its word reads, with a
    /// non-ASCII byte at every position.
    #[test]
    fn ascii_reads_every_byte() {
        for len in 0..=20 {
            let mut bytes = [b'a'; 20];
            assert!(super::ascii(&bytes[..len]), "{len}");
            for at in 0..len {
                bytes[at] = 0xC3;
                assert!(!super::ascii(&bytes[..len]), "{len} {at}");
                bytes[at] = b'a';
            }
        }
    }
}
