//! Test code written once for every place that needs it: the hpa tests (`tests/`,
//! `ffi/tests/`), the fuzz targets (`fuzz/`, its own workspace) and the firmware's build script
//! (`examples/firmware/build.rs`, its own workspace, host side).
//!
//! * [`Rng`]: the deterministic generator of the randomized tests.
//! * [`model`] and [`invariants`]: owned models of an evaluation sequence and the properties
//!   every decision keeps, shared by `tests/invariants.rs` and `fuzz/fuzz_targets/evaluate.rs`.
//! * [`conformance`]: the upstream-derived vectors (`tests/conformance/`) read into the
//!   engine's inputs, shared by `tests/conformance.rs` and the firmware, which encodes the same
//!   cases for the target.
//! * [`capacity`]: a small autoscaler against a reference that never folds on one closed loop
//!   (the "conservative when full" promise), shared by `tests/history_capacity.rs`,
//!   `tests/long_run.rs` and the `evaluate` fuzz target.
//! * [`pods`]: ready pods requesting 1 CPU, samples, and one metric's proposal over them,
//!   shared by `tests/exact_mode.rs` and `tests/older_controllers.rs`.
//! * [`snapshot`]: an independent CRC-32 and the resealing of forged snapshots, shared by the
//!   snapshot tests of the core, the CLI and the fuzz targets.

pub mod capacity;
pub mod conformance;
pub mod invariants;
pub mod model;
pub mod pods;
mod rng;
pub mod snapshot;

pub use rng::Rng;
