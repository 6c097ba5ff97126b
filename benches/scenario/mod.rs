//! The benchmarks' scenario, shared by `benches/evaluate.rs` and `ffi/benches/c_path.rs`: a
//! CPU utilization HPA with a behavior (a 3600 s scale-down window), `n` ready pods, and an
//! autoscaler after an hour of 15 s evaluations with rescales (a full history).
#![allow(dead_code)]

use std::hint::black_box;

use hpa::input::{Container, ResourceRequest};
use hpa::Settings;
use hpa::{Autoscaler, Hpa, Instant, MetricValues, Observation, Pod, PodSamples, Sample};

mod data;
pub use data::*;

/// How the caller lays out the pods' container specs.
#[derive(Clone, Copy)]
pub enum Layout {
    /// Every pod points at one container list (one pod template), as C and firmware callers
    /// build them.
    SharedTemplate,
    /// Every pod has its own container and request slices, as `hpa replay` builds them.
    Distinct,
}

/// `n` pods like [`POD`], sharing its container list or each with copies of it.
pub fn pods(n: usize, layout: Layout) -> Vec<Pod<'static>> {
    (0..n)
        .map(|_| Pod {
            containers: match layout {
                Layout::SharedTemplate => &CONTAINERS,
                Layout::Distinct => {
                    let requests: &'static [ResourceRequest<'static>] =
                        Box::leak(Box::new(REQUESTS));
                    Box::leak(Box::new([Container {
                        requests,
                        ..CONTAINERS[0]
                    }]))
                }
            },
            ..POD
        })
        .collect()
}

pub fn pods_distinct(n: usize) -> Vec<Pod<'static>> {
    pods(n, Layout::Distinct)
}

/// Every pod's sample under `load` at `at` ([`usage`], [`sample`]).
pub fn samples(n: usize, at: i64, load: i64) -> Vec<Option<Sample<'static>>> {
    (0..n).map(|i| Some(sample(usage(i, load), at))).collect()
}

/// `f` of the observation of `pods` with the Pods metric values `samples` at `now` (every pod
/// running, as many replicas as pods).
pub fn observed<T>(
    pods: &[Pod<'_>],
    samples: &[Option<Sample<'_>>],
    now: i64,
    f: impl FnOnce(&Observation<'_>) -> T,
) -> T {
    let metrics = [MetricValues::Pods(PodSamples {
        per_pod: samples,
        orphans: &[],
    })];
    f(&Observation {
        now: Instant(now),
        replicas: pods.len() as i32,
        status_replicas: pods.len() as i32,
        pods,
        metrics: &metrics,
    })
}

/// An autoscaler whose recommendation ring is full (one entry per period over the 3600 s
/// window) and whose event ring holds rescales, as after an hour of operation.
pub fn warmed_up(hpa: &Hpa<'_>, settings: &Settings, pods: &[Pod<'_>]) -> (Autoscaler, i64) {
    let mut autoscaler = Autoscaler::new();
    let mut t = 0;
    for step in 0..WARM_UP_STEPS {
        let s = samples(pods.len(), t, warm_up_load(step));
        observed(pods, &s, t, |obs| {
            if let Ok(d) = autoscaler.evaluate(hpa, settings, obs) {
                if d.rescale {
                    autoscaler.rescale_succeeded();
                }
            }
        });
        t += PERIOD_MS;
    }
    (autoscaler, t)
}

/// States evaluated between two clock reads: a clock read costs tens of nanoseconds, as much
/// as a short evaluation, and eight states stay in the L1 cache with the inputs.
pub const BATCH: usize = 8;

/// `iters` evaluations, each from the same warmed-up state: the states are restored (in place,
/// outside the timed region) before each batch of [`BATCH`] evaluations, so that inputs and
/// state stay in the cache as the baseline's samples do; only the evaluations are timed.
pub fn timed(
    iters: u64,
    state: &Autoscaler,
    hpa: &Hpa<'_>,
    settings: &Settings,
    obs: &Observation<'_>,
) -> std::time::Duration {
    timed_batches(iters, state, |a| {
        let desired = a
            .evaluate(hpa, settings, black_box(obs))
            .map(|d| d.desired_replicas);
        black_box(desired.ok());
    })
}

/// `iters` runs of `run`, each on a copy of `state` restored outside the timed region, in
/// batches of [`BATCH`] between two clock reads.
pub fn timed_batches<S: Clone>(
    iters: u64,
    state: &S,
    mut run: impl FnMut(&mut S),
) -> std::time::Duration {
    let mut batch: Vec<S> = vec![state.clone(); BATCH];
    let mut total = std::time::Duration::ZERO;
    let mut left = iters;
    while left > 0 {
        let n = left.min(BATCH as u64) as usize;
        for s in &mut batch[..n] {
            s.clone_from(state);
        }
        let start = std::time::Instant::now();
        for s in &mut batch[..n] {
            run(s);
        }
        total += start.elapsed();
        left -= n as u64;
    }
    total
}
