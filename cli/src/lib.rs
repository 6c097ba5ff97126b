//! Host-side library of the `hpa` tool: the trace loader (trace format v1) and the replay
//! output line, shared by the `hpa` binary and by build-time converters such as the firmware
//! in `examples/firmware`, which turns traces into its binary form with this exact loader.

// No panic path in what ships, as in the core (src/lib.rs): no unwrap, indexing or string
// slicing, arithmetic saturating, checked (refused with a message) or wrapping where its bounds
// are shown, and no cast that changes a value. Unit tests may unwrap, index and compute
// plainly.
#![deny(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::unreachable,
    clippy::todo,
    clippy::unimplemented,
    clippy::panic_in_result_fn,
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss
)]
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::string_slice,
        clippy::arithmetic_side_effects,
        clippy::cast_possible_truncation,
        clippy::cast_possible_wrap,
        clippy::cast_sign_loss
    )
)]

pub mod output;
pub mod trace;

// The loads of `hpa simulate` and `hpa tune` (CSV, Prometheus), read by the fuzz targets too.
pub mod csv_load;
pub mod prometheus_load;

// `hpa simulate`, `hpa tune`, `hpa validate`, the replay's human-readable forms (events,
// explanations) and its saved states: only the `hpa` binary uses them, so they come with its
// `cli` feature (cli/Cargo.toml), on by default. Without it the library holds the loaders above,
// which is what the fuzz targets and the firmware's build script use.
#[cfg(feature = "cli")]
pub mod explain;
#[cfg(feature = "cli")]
mod noise;
#[cfg(feature = "cli")]
pub mod plot;
#[cfg(feature = "cli")]
pub mod pod_template;
#[cfg(feature = "cli")]
pub mod recorded;
#[cfg(feature = "cli")]
pub mod simulate;
#[cfg(feature = "cli")]
pub mod simulate_cmd;
#[cfg(feature = "cli")]
pub mod state;
#[cfg(feature = "cli")]
pub mod tune;
