//! Test code written once for every place that needs it: the hpa tests (`tests/`) and the
//! firmware's build script (`examples/firmware/build.rs`, its own workspace, host side).
//!
//! * [`conformance`]: the upstream-derived vectors (`tests/conformance/`) read into the
//!   engine's inputs, shared by `tests/conformance.rs` and the firmware, which encodes the same
//!   cases for the target.

pub mod conformance;
