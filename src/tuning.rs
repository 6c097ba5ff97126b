//! The one place where the engine chooses between speed and code size.
//!
//! The rules are written once, in their plain form, in the modules that implement the
//! specification. Some hot loops also have a faster form that costs code: reading history
//! entries a run at a time, walking a window from its newest end, comparing pods' request
//! slices by content. Hosts (64-bit pointers) take the fast forms; small targets (Cortex-M,
//! 32-bit RISC-V) take the compact ones, which keep the engine within the firmware's code
//! budget (`examples/firmware/budget`, checked by `.ci/footprint`). Both forms give the same
//! results; the tests run the fast forms on the host and the firmware replays the compact ones
//! to the host's digests.

/// Whether the fast forms are compiled: on targets with 64-bit pointers.
///
/// Attributes cannot read a constant, so `#[cfg_attr(target_pointer_width = "64", ...)]` on
/// a function states the same choice; each such attribute names this constant in a comment.
pub(crate) const FAST_FORMS: bool = cfg!(target_pointer_width = "64");
