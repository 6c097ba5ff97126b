//! Writing what C reads back, in place: an output struct is written field by field, only what
//! the caller reads (the texts up to their NUL, the entries up to their count), without
//! clearing it first. A decision is about 10 KB of which an evaluation uses a few hundred
//! bytes; clearing all of it cost more than the evaluation itself.
//!
//! The caller's memory need not be initialized (a C local), so it is never viewed as a value
//! of its type: fields are projected from raw pointers as `MaybeUninit`.

use core::mem::MaybeUninit;

/// Memory at `p` as a value to write, which need not be initialized yet.
///
/// # Safety
///
/// `p` must be aligned, valid for writes for `'a`, and not used otherwise during `'a`.
pub(crate) unsafe fn uninit<'a, T>(p: *mut T) -> &'a mut MaybeUninit<T> {
    // SAFETY: `MaybeUninit<T>` has `T`'s layout; the rest is the caller's contract.
    unsafe { &mut *p.cast::<MaybeUninit<T>>() }
}

/// The elements of an array being written.
pub(crate) fn elements<T, const N: usize>(
    array: &mut MaybeUninit<[T; N]>,
) -> &mut [MaybeUninit<T>; N] {
    // SAFETY: `[MaybeUninit<T>; N]` has the layout of `MaybeUninit<[T; N]>`, and borrows it.
    unsafe { &mut *array.as_mut_ptr().cast::<[MaybeUninit<T>; N]>() }
}

/// The field `$field` of the output struct `$p: *mut S` points to, as `&mut MaybeUninit<F>`.
/// Fields are projected from one raw pointer, not from a reference to the whole struct, so
/// that references to different fields may be used together.
macro_rules! field {
    ($p:expr, $field:ident) => {{
        let p = $p;
        // SAFETY: `p` points to an output struct the call may write (aligned, writable, used
        // by nothing else meanwhile): its field is too, and apart from the other fields.
        unsafe { $crate::out::uninit(&raw mut (*p).$field) }
    }};
}
pub(crate) use field;
