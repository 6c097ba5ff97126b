//! Test code written once for every place that needs it: the hpa tests (`tests/`,
//! `ffi/tests/`) and the firmware's build script (`examples/firmware/build.rs`, its own
//! workspace, host side).
//!
//! * [`Rng`]: the deterministic generator of the randomized tests.
//! * [`conformance`]: the upstream-derived vectors (`tests/conformance/`) read into the
//!   engine's inputs, shared by `tests/conformance.rs` and the firmware, which encodes the same
//!   cases for the target.

pub mod conformance;
mod rng;

pub use rng::Rng;
