//! The C API's cost beside the engine's, in one run: `hpa_autoscaler_evaluate` on the C
//! structs against `Autoscaler::evaluate` on the same inputs, the benchmark scenario of
//! `benches/evaluate.rs` (a CPU utilization HPA with a 3600 s scale-down window, `n` ready pods
//! of one template, a full hour of history). Both start each evaluation from the same
//! warmed-up state, restored outside the timed region. Run:
//! `cargo bench -p hpa-ffi --bench c_path`.

use std::hint::black_box;
use std::mem::MaybeUninit;

use criterion::{criterion_group, BenchmarkId, Criterion};
use hpa::{Hpa, Settings};
use hpa_ffi::*;

#[path = "../../benches/scenario/mod.rs"]
mod scenario;
use scenario::{observed, pods, samples, spec, timed, timed_batches, usage, warm_up_load};
use scenario::{warmed_up, Layout, MEASURED_LOAD, PERIOD_MS, WARM_UP_STEPS};

#[path = "../tests/world/mod.rs"]
mod world;
use world::{s, zeroed};

/// The scenario through the C structs: what a C caller builds once and updates each period.
struct CWorld {
    metric: Box<hpa_metric>,
    down: Box<hpa_scaling_rules>,
    behavior: Box<hpa_behavior>,
    settings: Box<hpa_settings>,
    config: hpa_config,
    request: Box<hpa_resource_request>,
    container: Box<hpa_container>,
    pods: Vec<hpa_pod>,
    samples: Vec<hpa_sample>,
    values: Box<hpa_metric_values>,
    obs: hpa_observation,
    workspace: Vec<u8>,
}

impl CWorld {
    fn new(n: usize) -> Box<CWorld> {
        let mut w = Box::new(CWorld {
            metric: Box::new(zeroed()),
            down: Box::new(zeroed()),
            behavior: Box::new(zeroed()),
            settings: Box::new(zeroed()),
            config: zeroed(),
            request: Box::new(hpa_resource_request {
                resource: s("cpu"),
                milli: 500,
            }),
            container: Box::new(zeroed()),
            pods: vec![zeroed(); n],
            samples: vec![zeroed(); n],
            values: Box::new(zeroed()),
            obs: zeroed(),
            workspace: Vec::new(),
        });
        w.metric.r#type = hpa_metric_source_type::Resource as u32;
        w.metric.name = s("cpu");
        w.metric.target.r#type = hpa_metric_target_type::Utilization as u32;
        w.metric.target.average_utilization = 60;
        w.down.has_stabilization_window_seconds = 1;
        w.down.stabilization_window_seconds = 3600;
        w.behavior.scale_down = &*w.down;
        // SAFETY: a valid pointer to writable settings.
        assert_eq!(
            unsafe { hpa_settings_default(&mut *w.settings) },
            hpa_status::Ok
        );
        w.config.has_min_replicas = 1;
        w.config.min_replicas = 1;
        w.config.max_replicas = 100_000;
        w.config.metrics = &*w.metric;
        w.config.metrics_len = 1;
        w.config.behavior = &*w.behavior;
        w.config.settings = &*w.settings;
        w.container.name = s("app");
        w.container.requests = &*w.request;
        w.container.requests_len = 1;
        let container: *const hpa_container = &*w.container;
        for p in &mut w.pods {
            p.name = s("worker");
            p.ready = hpa_ready::True as u32;
            p.has_ready_transition = 1;
            p.ready_transition_ms = -3_600_000;
            p.has_start_time = 1;
            p.start_time_ms = -3_700_000;
            p.containers = container;
            p.containers_len = 1;
        }
        w.values.kind = hpa_values_kind::Samples as u32;
        w.values.samples = w.samples.as_ptr();
        w.values.samples_len = n;
        w.obs.replicas = n as i32;
        w.obs.pods = w.pods.as_ptr();
        w.obs.pods_len = n;
        w.obs.metrics = &*w.values;
        w.obs.metrics_len = 1;
        w
    }

    /// The samples of `scenario::samples` under `load` at `now`.
    fn observe(&mut self, now: i64, load: i64) {
        for (i, sample) in self.samples.iter_mut().enumerate() {
            *sample = hpa_sample {
                present: 1,
                has_timestamp: 1,
                has_window: 1,
                milli: usage(i, load),
                timestamp_ms: now,
                window_ms: 60_000,
                containers: std::ptr::null(),
                containers_len: 0,
            };
        }
        self.obs.now_ms = now;
        let mut size = 0;
        // SAFETY: valid inputs and a writable size.
        let status = unsafe {
            hpa_observation_check(&self.config, &self.obs, &mut size, std::ptr::null_mut())
        };
        assert_eq!(status, hpa_status::Ok);
        self.workspace.resize(size, 0);
    }

    /// One evaluation of the observation by `autoscaler` under the configuration it keeps
    /// (`hpa_autoscaler_configure`): `(desired replicas, rescale)`. The decision is not zeroed
    /// first, as a C caller's local `hpa_decision` is not.
    fn evaluate(&mut self, autoscaler: &mut hpa_autoscaler) -> (i32, bool) {
        let mut decision = MaybeUninit::<hpa_decision>::uninit();
        // SAFETY: initialized and configured storage, valid inputs.
        let status = unsafe {
            hpa_autoscaler_evaluate_configured(autoscaler, &self.obs, decision.as_mut_ptr())
        };
        assert_eq!(status, hpa_status::Ok);
        // SAFETY: written by the successful call.
        let d = unsafe { &*decision.as_ptr() };
        (d.desired_replicas, d.rescale != 0)
    }

    /// As [`CWorld::evaluate`], the configuration passed, converted and validated again:
    /// `hpa_autoscaler_evaluate`.
    fn evaluate_with_config(&mut self, autoscaler: &mut hpa_autoscaler) -> (i32, bool) {
        let mut decision = MaybeUninit::<hpa_decision>::uninit();
        // SAFETY: initialized storage, valid inputs, a workspace of the size checked.
        let status = unsafe {
            hpa_autoscaler_evaluate(
                autoscaler,
                &self.config,
                &self.obs,
                self.workspace.as_mut_ptr().cast(),
                self.workspace.len(),
                decision.as_mut_ptr(),
            )
        };
        assert_eq!(status, hpa_status::Ok);
        // SAFETY: written by the successful call.
        let d = unsafe { &*decision.as_ptr() };
        (d.desired_replicas, d.rescale != 0)
    }
}

/// An `hpa_autoscaler` in its own storage, copied byte for byte (as a C caller may copy it).
struct Storage(Box<hpa_autoscaler>);

impl Clone for Storage {
    fn clone(&self) -> Storage {
        let mut copy = Storage(Box::new(zeroed()));
        copy.clone_from(self);
        copy
    }

    fn clone_from(&mut self, source: &Storage) {
        // SAFETY: two distinct, initialized storages of one type.
        unsafe { std::ptr::copy_nonoverlapping(&*source.0, &mut *self.0, 1) };
    }
}

/// [`scenario::warmed_up`] through the C API.
fn c_warmed_up(w: &mut CWorld) -> (Storage, i64) {
    let mut a: Box<hpa_autoscaler> = Box::new(zeroed());
    // SAFETY: writable storage of the right size.
    let status = unsafe { hpa_autoscaler_init(&mut *a, size_of::<hpa_autoscaler>()) };
    assert_eq!(status, hpa_status::Ok);
    // SAFETY: initialized storage, a valid configuration, no error report.
    let status = unsafe { hpa_autoscaler_configure(&mut *a, &w.config, std::ptr::null_mut()) };
    assert_eq!(status, hpa_status::Ok);
    let mut t = 0;
    for step in 0..WARM_UP_STEPS {
        w.observe(t, warm_up_load(step));
        if w.evaluate(&mut a).1 {
            // SAFETY: initialized storage.
            let status = unsafe { hpa_autoscaler_rescale_succeeded(&mut *a) };
            assert_eq!(status, hpa_status::Ok);
        }
        t += PERIOD_MS;
    }
    (Storage(a), t)
}

fn bench(c: &mut Criterion) {
    let settings = Settings::DEFAULT;
    let spec = spec();
    let hpa = Hpa::new(&spec, &settings).expect("valid spec");
    let mut group = c.benchmark_group("c_path");
    for n in [10_usize, 100, 1_000] {
        let pods = pods(n, Layout::SharedTemplate);
        let (state, now) = warmed_up(&hpa, &settings, &pods);
        let s = samples(n, now, MEASURED_LOAD);
        let mut world = CWorld::new(n);
        let (c_state, c_now) = c_warmed_up(&mut world);
        assert_eq!(c_now, now);
        world.observe(now, MEASURED_LOAD);
        observed(&pods, &s, now, |obs| {
            // The same decision both ways.
            let engine = state
                .clone()
                .evaluate(&hpa, &settings, obs)
                .expect("evaluates");
            let mut copy = c_state.clone();
            assert_eq!(world.evaluate(&mut copy.0).0, engine.desired_replicas);
            let mut copy = c_state.clone();
            assert_eq!(
                world.evaluate_with_config(&mut copy.0).0,
                engine.desired_replicas
            );
            group.bench_with_input(BenchmarkId::new("engine", n), &n, |b, _| {
                b.iter_custom(|iters| timed(iters, &state, &hpa, &settings, obs))
            });
        });
        group.bench_with_input(BenchmarkId::new("c_api", n), &n, |b, _| {
            b.iter_custom(|iters| {
                timed_batches(iters, &c_state, |a| {
                    black_box(world.evaluate(&mut a.0));
                })
            })
        });
        group.bench_with_input(BenchmarkId::new("c_api_with_config", n), &n, |b, _| {
            b.iter_custom(|iters| {
                timed_batches(iters, &c_state, |a| {
                    black_box(world.evaluate_with_config(&mut a.0));
                })
            })
        });
    }
    group.finish();
}

/// Evaluations each counting run makes, from copies of one state.
const COUNTED: usize = 20;

/// [`COUNTED`] engine evaluations of the scenario at `n` pods, for callgrind to count
/// (`ffi/benches/count-instructions`).
#[inline(never)]
fn count_engine(n: usize) {
    let settings = Settings::DEFAULT;
    let spec = spec();
    let hpa = Hpa::new(&spec, &settings).expect("valid spec");
    let pods = pods(n, Layout::SharedTemplate);
    let (state, now) = warmed_up(&hpa, &settings, &pods);
    let s = samples(n, now, MEASURED_LOAD);
    let mut states = vec![state; COUNTED];
    observed(&pods, &s, now, |obs| {
        counted_engine(&mut states, &hpa, &settings, obs)
    });
}

#[inline(never)]
fn counted_engine(
    states: &mut [hpa::Autoscaler],
    hpa: &Hpa<'_>,
    settings: &Settings,
    obs: &hpa::Observation<'_>,
) {
    for a in states {
        black_box(
            a.evaluate(hpa, settings, black_box(obs))
                .map(|d| d.desired_replicas)
                .ok(),
        );
    }
}

/// [`COUNTED`] C API evaluations of the scenario at `n` pods, for callgrind to count: under
/// the configuration the autoscaler keeps, or with it passed to each call (`with_config`).
#[inline(never)]
fn count_c_api(n: usize, with_config: bool) {
    let mut world = CWorld::new(n);
    let (state, now) = c_warmed_up(&mut world);
    world.observe(now, MEASURED_LOAD);
    let mut states = vec![state; COUNTED];
    if with_config {
        counted_c_api_with_config(&mut world, &mut states);
    } else {
        counted_c_api(&mut world, &mut states);
    }
}

#[inline(never)]
fn counted_c_api(world: &mut CWorld, states: &mut [Storage]) {
    for a in states {
        black_box(world.evaluate(&mut a.0));
    }
}

#[inline(never)]
fn counted_c_api_with_config(world: &mut CWorld, states: &mut [Storage]) {
    for a in states {
        black_box(world.evaluate_with_config(&mut a.0));
    }
}

criterion_group!(benches, bench);

/// Criterion's benchmarks; with `HPA_COUNT=engine|c_api|c_api_with_config` and
/// `HPA_COUNT_PODS=N` instead, only [`COUNTED`] evaluations one way, whose instructions
/// `ffi/benches/count-instructions` counts with callgrind (`counted_engine`, `counted_c_api`,
/// `counted_c_api_with_config`): timings move with the machine's load, instruction counts do
/// not.
fn main() {
    if let (Ok(way), Ok(n)) = (std::env::var("HPA_COUNT"), std::env::var("HPA_COUNT_PODS")) {
        let n = n.parse().expect("HPA_COUNT_PODS is a pod count");
        match way.as_str() {
            "engine" => count_engine(n),
            "c_api" => count_c_api(n, false),
            "c_api_with_config" => count_c_api(n, true),
            other => panic!("HPA_COUNT is engine, c_api or c_api_with_config, not {other}"),
        }
        return;
    }
    benches();
    criterion::Criterion::default()
        .configure_from_args()
        .final_summary();
}
