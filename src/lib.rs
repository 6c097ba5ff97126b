//! # hpa: the Kubernetes HorizontalPodAutoscaler's decisions, in a few kilobytes
//!
//! A `no_std`, allocation-free, panic-free engine that makes exactly the decisions the
//! Kubernetes HorizontalPodAutoscaler controller (`autoscaling/v2`) makes, with integer
//! arithmetic only.
//!
//! The flow of one evaluation: an [`HpaSpec`] is defaulted and validated into an [`Hpa`]
//! ([`defaults`], [`validation`]); [`Autoscaler::evaluate`] takes an [`Observation`] (pods,
//! samples, metric values, time) and runs the reconcile ([`autoscaler`]): each metric's
//! proposal and the multi-metric rule ([`metrics`], with pod grouping inside), normalization with
//! the history rings ([`normalize`], [`history`]) and the conditions ([`conditions`]). The
//! caller applies the [`Decision`] and reports the outcome with
//! [`Autoscaler::rescale_succeeded`] or [`Autoscaler::rescale_failed`]. The specification,
//! one file per module, is in `docs/spec` (index: docs/spec/README.md#files); the source
//! layout in `docs/architecture.md` maps each part of the algorithm to its module.
#![no_std]
#![deny(missing_docs)]
#![deny(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::unreachable,
    clippy::todo,
    clippy::unimplemented,
    clippy::panic_in_result_fn,
    clippy::float_arithmetic,
    clippy::arithmetic_side_effects
)]
// Unit tests may index, unwrap and compute plainly: the lints above guard what ships (the
// non-test build, which `cargo clippy --all-targets` checks too), not the tests' own code.
#![cfg_attr(
    test,
    allow(
        clippy::arithmetic_side_effects,
        clippy::unwrap_used,
        clippy::indexing_slicing
    )
)]

// The modules in their layers, lowest first (tests/layers.rs checks that a module uses only
// those below it; docs/architecture.md#layers explains them). Users name the public ones; the
// others are the engine's internals, and what of them users need is re-exported.

// Foundations: the speed-or-size choice, time, arithmetic, fingerprints.
mod arith;
pub mod fingerprint;
pub mod time;
mod tuning;
// Values: quantities, tolerances read from them, controller settings.
pub mod quantity;
pub mod settings;
mod tolerance;
// Inputs: the spec and one evaluation's observation; the status vocabulary.
pub mod conditions;
pub mod input;
pub mod spec;
// Configuration: API validation and defaulting.
pub mod defaults;
pub mod validation;
// Per-metric proposals (pod grouping and the calculators inside) and their combination.
mod calculator;
pub mod metrics;
mod pods;
// Normalization and its history.
pub mod history;
pub mod normalize;
// The reconcile, and what is built on its decisions.
pub mod autoscaler;
pub mod digest;
#[cfg(feature = "critical-section")]
pub mod shared;
pub mod snapshot;

/// The README's examples, compiled and run as doctests (they show both arithmetic modes).
#[cfg(all(doctest, feature = "exact"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The guides in `docs/`, so that any Rust block in them is compiled and run as a doctest too.
#[cfg(doctest)]
pub mod docs_doctests {
    #[doc = include_str!("../docs/architecture.md")]
    pub struct Architecture;
    #[doc = include_str!("../docs/c-api.md")]
    pub struct CApi;
    #[doc = include_str!("../docs/firmware.md")]
    pub struct Firmware;
    #[doc = include_str!("../docs/parity.md")]
    pub struct Parity;
    #[doc = include_str!("../docs/performance.md")]
    pub struct Performance;
    #[doc = include_str!("../docs/simulate.md")]
    pub struct Simulate;
}

pub use arith::binary64::F64;
pub use arith::Tolerance;
pub use autoscaler::{
    Autoscaler, Decision, DecisionSummary, EvaluateError, LimitedBy, RescaleReason, Status,
    StatusMut,
};
pub use defaults::Hpa;
pub use input::{MetricValues, Observation, Pod, PodSamples, Sample};
pub use pods::{is_pod_level_resource, pod_request, RequestError};
pub use quantity::Quantity;
pub use settings::{Arithmetic, Settings};
pub use spec::HpaSpec;
pub use time::{Duration, Instant};
