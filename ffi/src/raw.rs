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
/// from a string literal; `{ s, strlen(s) }` from a NUL-terminated string.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hpa_str {
    /// The first byte (need not be NUL-terminated).
    pub ptr: *const c_char,
    /// The number of bytes.
    pub len: usize,
}

/// A reference from a pointer that must not be NULL.
///
/// # Safety
///
/// When `p` is not NULL it must point to a live `T` for `'a`.
pub(crate) unsafe fn reference<'a, T>(p: *const T) -> Result<&'a T, Fault> {
    if p.is_null() {
        return Err(Fault::new(hpa_status::NullPointer, Detail::Null));
    }
    if !p.is_aligned() {
        return Err(Fault::new(
            hpa_status::Misaligned,
            Detail::Misaligned(align_of::<T>()),
        ));
    }
    // SAFETY: not NULL, aligned, and live by the caller's contract.
    Ok(unsafe { &*p })
}

/// An optional reference: NULL is `None`.
///
/// # Safety
///
/// As [`reference`].
pub(crate) unsafe fn optional<'a, T>(p: *const T) -> Result<Option<&'a T>, Fault> {
    if p.is_null() {
        Ok(None)
    } else {
        // SAFETY: forwarded contract.
        unsafe { reference(p) }.map(Some)
    }
}

/// A slice from a pointer and a length; any pointer (NULL included) is fine for length 0.
///
/// # Safety
///
/// When `len > 0` and `p` is not NULL, `p` must point to `len` live `T`s for `'a`.
pub(crate) unsafe fn slice<'a, T>(p: *const T, len: usize) -> Result<&'a [T], Fault> {
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
    let fits = len
        .checked_mul(size_of::<T>())
        .is_some_and(|bytes| isize::try_from(bytes).is_ok());
    if !fits {
        return Err(Fault::new(hpa_status::TooLarge, Detail::Overflow));
    }
    // SAFETY: not NULL, aligned, size within isize, and live by the caller's contract.
    Ok(unsafe { core::slice::from_raw_parts(p, len) })
}

/// A string from an `hpa_str`.
///
/// # Safety
///
/// When `s.len > 0` and `s.ptr` is not NULL, `s.ptr` must point to `s.len` live bytes for
/// `'a`.
pub(crate) unsafe fn string<'a>(s: hpa_str) -> Result<&'a str, Fault> {
    // SAFETY: forwarded contract (bytes have alignment 1).
    let bytes = unsafe { slice(s.ptr.cast::<u8>(), s.len) }?;
    core::str::from_utf8(bytes).map_err(|_| Fault::new(hpa_status::InvalidUtf8, Detail::Utf8))
}

/// An optional string: a NULL `ptr` (with length 0) is `None`; a non-NULL `ptr` with length 0
/// is the empty string.
///
/// # Safety
///
/// As [`string`].
pub(crate) unsafe fn optional_string<'a>(s: hpa_str) -> Result<Option<&'a str>, Fault> {
    if s.ptr.is_null() && s.len == 0 {
        Ok(None)
    } else {
        // SAFETY: forwarded contract.
        unsafe { string(s) }.map(Some)
    }
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
