//! One evaluation of a CPU utilization HPA with a behavior and full history, against a
//! baseline that only sums the same samples and two floors: the Ready pods' sum alone, and
//! every per-pod check the CPU grouping needs. Run: `cargo bench -p hpa --bench evaluate`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use hpa::input::{ConditionStatus, PodPhase};
use hpa::Settings;
use hpa::{Autoscaler, Hpa, Instant, Observation, Pod, Sample};

mod scenario;
use scenario::{
    checks_floor, observed, pods, pods_distinct, samples, spec, timed, warmed_up, Layout,
};
use scenario::{MEASURED_LOAD, REQUESTS};

/// A loose floor, hand-written: read the pod's phase, deletion and Ready status and add the
/// sample of each running, ready pod. No requests, no readiness timing, no missing-pod
/// handling, no history: a lower bound for the engine, not a rival (see [`checks_floor`], in the
/// scenario shared with the Cortex-M0 cost probe, for the checks the CPU grouping cannot skip).
fn floor(pods: &[Pod<'_>], samples: &[Option<Sample<'_>>]) -> (i64, u32) {
    let mut sum = 0_i64;
    let mut ready = 0_u32;
    for (pod, sample) in pods.iter().zip(samples) {
        let counts = pod.phase == PodPhase::Running
            && !pod.deleted
            && pod.ready.is_some_and(|r| r.status == ConditionStatus::True);
        if let (true, Some(sample)) = (counts, sample) {
            sum += sample.milli;
            ready += 1;
        }
    }
    (sum, ready)
}

fn bench(c: &mut Criterion) {
    let settings = Settings::DEFAULT;
    let spec = spec();
    let hpa = Hpa::new(&spec, &settings).expect("valid spec");
    let mut group = c.benchmark_group("evaluate");
    for n in [10_usize, 100, 1_000, 10_000] {
        let pods = pods(n, Layout::SharedTemplate);
        let distinct = pods_distinct(n);
        let (state, now) = warmed_up(&hpa, &settings, &pods);
        let s = samples(n, now, MEASURED_LOAD);
        observed(&pods, &s, now, |obs| {
            group.bench_with_input(BenchmarkId::new("sum_samples_baseline", n), &n, |b, _| {
                b.iter(|| {
                    let total: i64 = black_box(&s).iter().flatten().map(|x| x.milli).sum();
                    black_box(total)
                })
            });
            group.bench_with_input(BenchmarkId::new("per_pod_floor", n), &n, |b, _| {
                b.iter(|| black_box(floor(black_box(&pods), black_box(&s))))
            });
            let init_cutoff = now - settings.cpu_initialization_period.as_millis();
            let request = REQUESTS[0].quantity.milli_value();
            group.bench_with_input(BenchmarkId::new("per_pod_checks_floor", n), &n, |b, _| {
                b.iter(|| {
                    black_box(checks_floor(
                        black_box(&pods),
                        black_box(&s),
                        black_box(init_cutoff),
                        black_box(request),
                    ))
                })
            });
            let obs_distinct = Observation {
                pods: &distinct,
                ..*obs
            };
            group.bench_with_input(BenchmarkId::new("engine_distinct_pods", n), &n, |b, _| {
                b.iter_custom(|iters| timed(iters, &state, &hpa, &settings, &obs_distinct))
            });
            group.bench_with_input(BenchmarkId::new("engine", n), &n, |b, _| {
                b.iter_custom(|iters| timed(iters, &state, &hpa, &settings, obs))
            });
        });
    }
    group.finish();

    // What the C API adds to each call for its storage check (docs/performance.md#storage-check):
    // the fingerprint of the state after an hour of operation (full 3600 s history), computed
    // once to check it on entry and once more to store it after a call that changed the state.
    // Snapshots: a save and a restore of the same state.
    let pods = pods(10, Layout::SharedTemplate);
    let (state, now) = warmed_up(&hpa, &settings, &pods);
    let mut group = c.benchmark_group("state");
    group.bench_function("fingerprint_full_history", |b| {
        b.iter(|| black_box(black_box(&state).fingerprint()))
    });
    let mut buffer = vec![0_u8; Autoscaler::<1000, 608>::SNAPSHOT_MAX_BYTES];
    let len = state.save(Instant(now), &mut buffer).expect("save");
    group.bench_function("save_full_history", |b| {
        b.iter(|| black_box(black_box(&state).save(Instant(now), &mut buffer)))
    });
    let snapshot = buffer[..len].to_vec();
    let mut restored: Autoscaler = Autoscaler::new();
    group.bench_function("restore_full_history", |b| {
        b.iter(|| black_box(restored.restore(black_box(&snapshot), Instant(now))))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
