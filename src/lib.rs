//! # hpa: the Kubernetes HorizontalPodAutoscaler's decisions, in a few kilobytes
//!
//! A `no_std`, allocation-free, panic-free engine that makes exactly the decisions the
//! Kubernetes HorizontalPodAutoscaler controller (`autoscaling/v2`) makes, with integer
//! arithmetic only.
//!
//! The flow of one evaluation: an [`HpaSpec`] is defaulted and validated into an [`Hpa`]
//! ([`defaults`], [`validation`]); [`Autoscaler::evaluate`] takes an [`Observation`] (pods,
//! samples, metric values, time) and runs the reconcile ([`autoscaler`]): each metric's
//! proposal ([`metrics`], [`calculator`], [`pods`]), the multi-metric rule, normalization with
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

pub mod arith;
pub mod autoscaler;
pub mod calculator;
pub mod conditions;
pub mod defaults;
pub mod digest;
pub mod history;
pub mod input;
pub mod metrics;
pub mod normalize;
pub mod pods;
pub mod quantity;
pub mod settings;
#[cfg(feature = "critical-section")]
pub mod shared;
pub mod spec;
pub mod time;
pub mod tolerance;
mod tuning;
pub mod validation;

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

pub use autoscaler::{
    Autoscaler, Decision, DecisionSummary, EvaluateError, LimitedBy, RescaleReason, Status,
};
pub use defaults::Hpa;
pub use input::{MetricValues, Observation, Pod, PodSamples, Sample};
pub use quantity::Quantity;
pub use settings::{Arithmetic, Settings};
pub use spec::HpaSpec;
pub use time::{Duration, Instant};
pub use tolerance::Tolerance;
