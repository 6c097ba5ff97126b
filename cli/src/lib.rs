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

// `hpa simulate`, `hpa tune`, `hpa validate`, the replay's human-readable forms (events, explanations) and
// its saved states.
pub mod csv_load;
pub mod explain;
mod noise;
pub mod plot;
pub mod pod_template;
pub mod prometheus_load;
pub mod recorded;
pub mod simulate;
pub mod simulate_cmd;
pub mod state;
pub mod tune;
