//! One evaluation of a CPU utilization HPA with a behavior and full history, against a
//! baseline that only sums the same samples and two floors: the Ready pods' sum alone, and
//! every per-pod check the CPU grouping needs. Run: `cargo bench -p hpa --bench evaluate`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use hpa::input::ResourceRequest;
use hpa::input::{ConditionStatus, Container, ContainerKind, PodPhase, ReadyCondition};
use hpa::spec::{Behavior, MetricSpec, MetricTarget, ScalingRules};
use hpa::{Autoscaler, Duration, Hpa, HpaSpec, Instant, MetricValues, Observation, Pod};
use hpa::{PodSamples, Quantity, Sample, Settings};

const PERIOD_MS: i64 = 15_000;

static REQUESTS: [ResourceRequest<'static>; 1] = [ResourceRequest {
    resource: "cpu",
    quantity: Quantity::from_milli(500),
}];
static CONTAINERS: [Container<'static>; 1] = [Container {
    name: "app",
    kind: ContainerKind::Regular,
    requests: &REQUESTS,
}];
static METRICS: [MetricSpec<'static>; 1] =
    [MetricSpec::resource("cpu", MetricTarget::utilization(60))];

/// How the caller lays out the pods' container specs.
#[derive(Clone, Copy)]
enum Layout {
    /// Every pod points at one container list (one pod template), as C and firmware callers
    /// build them.
    SharedTemplate,
    /// Every pod has its own container and request slices, as `hpa replay` builds them.
    Distinct,
}

fn pods(n: usize, layout: Layout) -> Vec<Pod<'static>> {
    (0..n)
        .map(|_| Pod {
            name: "worker",
            phase: PodPhase::Running,
            ready: Some(ReadyCondition {
                status: ConditionStatus::True,
                last_transition: Some(Instant(-3_600_000)),
            }),
            start_time: Some(Instant(-3_700_000)),
            deleted: false,
            containers: match layout {
                Layout::SharedTemplate => &CONTAINERS,
                Layout::Distinct => {
                    let requests: &'static [ResourceRequest<'static>] =
                        Box::leak(Box::new([ResourceRequest {
                            resource: "cpu",
                            quantity: Quantity::from_milli(500),
                        }]));
                    Box::leak(Box::new([Container {
                        name: "app",
                        kind: ContainerKind::Regular,
                        requests,
                    }]))
                }
            },
            requests: None,
        })
        .collect()
}

fn pods_distinct(n: usize) -> Vec<Pod<'static>> {
    pods(n, Layout::Distinct)
}

fn samples(n: usize, at: i64, milli: i64) -> Vec<Option<Sample<'static>>> {
    (0..n)
        .map(|i| {
            Some(Sample {
                milli: milli + (i as i64 % 7),
                timestamp: Instant(at),
                window: Duration::from_secs(60),
                containers: &[],
            })
        })
        .collect()
}

fn spec() -> HpaSpec<'static> {
    HpaSpec {
        min_replicas: Some(1),
        max_replicas: 100_000,
        metrics: &METRICS,
        behavior: Some(Behavior {
            scale_up: None,
            scale_down: Some(ScalingRules {
                stabilization_window_seconds: Some(3600),
                ..ScalingRules::default()
            }),
        }),
        scale_target_ref: None,
    }
}

/// A loose floor, hand-written: read the pod's phase, deletion and Ready status and add the
/// sample of each running, ready pod. No requests, no readiness timing, no missing-pod
/// handling, no history: a lower bound for the engine, not a rival (see [`checks_floor`] for
/// the checks the CPU grouping cannot skip).
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

/// Every per-pod check the CPU utilization grouping needs for the common pod, hand-written
/// for a run of such pods: a sample, not deleted, neither Pending nor Failed, Ready `True`,
/// started before the initialization cutoff, and the first pod's container and pod-level
/// request slices (so that its request counts for every pod); sums samples and requests.
/// No unready or missing pods, no history, no arithmetic beyond the sums: what any
/// evaluation of these inputs must do per pod, at the least.
fn checks_floor(
    pods: &[Pod<'_>],
    samples: &[Option<Sample<'_>>],
    init_cutoff: i64,
    request: i64,
) -> (i64, i64, u32) {
    let (mut values, mut requests, mut ready) = (0_i64, 0_i64, 0_u32);
    let Some(first) = pods.first() else {
        return (0, 0, 0);
    };
    for (pod, sample) in pods.iter().zip(samples) {
        let Some(sample) = sample else { break };
        let plain = !pod.deleted
            && pod.phase != PodPhase::Failed
            && pod.phase != PodPhase::Pending
            && pod.ready.is_some_and(|r| r.status == ConditionStatus::True)
            && pod.start_time.is_some_and(|start| start.0 <= init_cutoff)
            && std::ptr::eq(pod.containers, first.containers)
            && pod.requests.map(<[_]>::as_ptr) == first.requests.map(<[_]>::as_ptr);
        if !plain {
            break;
        }
        values += sample.milli;
        requests += request;
        ready += 1;
    }
    (values, requests, ready)
}

/// An autoscaler whose recommendation ring is full (one entry per period over the 3600 s
/// window) and whose event ring holds rescales, as after an hour of operation.
fn warmed_up(hpa: &Hpa<'_>, settings: &Settings, pods: &[Pod<'_>]) -> (Autoscaler, i64) {
    let mut autoscaler = Autoscaler::new();
    let mut t = 0;
    for step in 0..240 {
        // Alternating load so that the history holds varied values and rescales.
        let usage = if step % 2 == 0 { 420 } else { 240 };
        let s = samples(pods.len(), t, usage);
        let metrics = [MetricValues::Pods(PodSamples {
            per_pod: &s,
            orphans: &[],
        })];
        let obs = Observation {
            now: Instant(t),
            replicas: pods.len() as i32,
            status_replicas: pods.len() as i32,
            pods,
            metrics: &metrics,
        };
        if let Ok(d) = autoscaler.evaluate(hpa, settings, &obs) {
            if d.rescale {
                autoscaler.rescale_succeeded();
            }
        }
        t += PERIOD_MS;
    }
    (autoscaler, t)
}

/// States evaluated between two clock reads: a clock read costs tens of nanoseconds, as much
/// as a short evaluation, and eight states (16 KiB) stay in the L1 cache with the inputs.
const BATCH: usize = 8;

/// `iters` evaluations, each from the same warmed-up state: the states are restored (in place,
/// outside the timed region) before each batch of [`BATCH`] evaluations, so that inputs and
/// state stay in the cache as the baseline's samples do; only the evaluations are timed.
fn timed(
    iters: u64,
    state: &Autoscaler,
    hpa: &Hpa<'_>,
    settings: &Settings,
    obs: &Observation<'_>,
) -> std::time::Duration {
    let mut batch: Vec<Autoscaler> = vec![state.clone(); BATCH];
    let mut total = std::time::Duration::ZERO;
    let mut left = iters;
    while left > 0 {
        let n = left.min(BATCH as u64) as usize;
        for a in &mut batch[..n] {
            a.clone_from(state);
        }
        let start = std::time::Instant::now();
        for a in &mut batch[..n] {
            let desired = a
                .evaluate(hpa, settings, black_box(obs))
                .map(|d| d.desired_replicas);
            black_box(desired.ok());
        }
        total += start.elapsed();
        left -= n as u64;
    }
    total
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
        let s = samples(n, now, 330);
        let metrics = [MetricValues::Pods(PodSamples {
            per_pod: &s,
            orphans: &[],
        })];
        let obs = Observation {
            now: Instant(now),
            replicas: n as i32,
            status_replicas: n as i32,
            pods: &pods,
            metrics: &metrics,
        };
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
            ..obs
        };
        group.bench_with_input(BenchmarkId::new("engine_distinct_pods", n), &n, |b, _| {
            b.iter_custom(|iters| timed(iters, &state, &hpa, &settings, &obs_distinct))
        });
        group.bench_with_input(BenchmarkId::new("engine", n), &n, |b, _| {
            b.iter_custom(|iters| timed(iters, &state, &hpa, &settings, &obs))
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
