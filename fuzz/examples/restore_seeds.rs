//! Writes the `restore` target's seed corpus: snapshots of varied states (new, legacy and
//! behavior HPAs, rescales reported succeeded, failed and pending, folded rings at tiny
//! capacities, an annex), one file each, into the folder given (default `seeds/restore`).
//!
//! `cargo run --example restore_seeds` (from `fuzz/`); the output is deterministic.

use std::path::PathBuf;

use hpa::autoscaler::{DEFAULT_EVENT_BYTES as E0, DEFAULT_RECOMMENDATION_BYTES as R0};
use hpa::snapshot::{max_len, MAX_ANNEX_BYTES};
use hpa::{Autoscaler, Hpa, HpaSpec, Instant, Settings};
use testkit::snapshot::{queue_steps, BEHAVIOR, QUEUE};

fn spec(behavior: bool) -> HpaSpec<'static> {
    HpaSpec {
        min_replicas: Some(1),
        max_replicas: 40,
        metrics: &QUEUE,
        behavior: behavior.then_some(BEHAVIOR),
        scale_target_ref: None,
    }
}

/// Runs `loads` (queue length per step, 15 s apart from `start`), reporting every rescale as
/// succeeded but every fourth (failed) and the last (left pending).
fn run<const R: usize, const E: usize>(
    behavior: bool,
    start: i64,
    loads: &[i64],
) -> (Autoscaler<R, E>, i64) {
    let spec = spec(behavior);
    let hpa = Hpa::new(&spec, &Settings::DEFAULT).expect("a valid spec");
    let mut a = Autoscaler::new();
    let now = queue_steps(&mut a, &hpa, start, loads, None);
    (a, now)
}

fn save<const R: usize, const E: usize>(a: &Autoscaler<R, E>, now: i64, annex: &[u8]) -> Vec<u8> {
    let mut buffer = vec![0; max_len(R, E, MAX_ANNEX_BYTES)];
    let len = a
        .save_with_annex(Instant(now), annex, &mut buffer)
        .expect("saves");
    buffer.truncate(len);
    buffer
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .map_or_else(|| PathBuf::from("seeds/restore"), PathBuf::from);
    std::fs::create_dir_all(&dir).expect("the seed folder");
    let wave: Vec<i64> = (0..60).map(|i| 2 + (i % 20 - 10_i64).abs() * 3).collect();
    let burst = [3, 9, 30, 30, 12, 12, 5, 40, 40, 8];
    let mut seeds: Vec<(&str, Vec<u8>)> = Vec::new();
    seeds.push(("new", save(&Autoscaler::<8, 6>::new(), 5, &[])));
    let (a, now) = run::<8, 6>(false, 0, &burst[..1]);
    seeds.push(("one-evaluation", save(&a, now + 1, &[])));
    let (a, now) = run::<R0, E0>(false, -(1 << 40), &burst);
    seeds.push(("legacy-burst", save(&a, now + 5_000, &[])));
    let (a, now) = run::<R0, E0>(true, 0, &burst);
    seeds.push(("behavior-burst-pending", save(&a, now + 5_000, &[])));
    seeds.push(("behavior-burst-annex", save(&a, now, b"caller data")));
    let (a, now) = run::<R0, E0>(true, 1 << 50, &wave);
    seeds.push(("behavior-wave", save(&a, now, &[])));
    let (a, now) = run::<8, 6>(true, 0, &wave);
    seeds.push(("behavior-wave-folded-8-6", save(&a, now + 30_000, &[])));
    let (a, now) = run::<64, 24>(true, -1, &wave);
    seeds.push(("behavior-wave-folded-64-24", save(&a, now, &[])));
    let (a, now) = run::<8, 6>(false, 7, &wave);
    seeds.push(("legacy-wave-folded-8-6", save(&a, now, &[])));
    for (name, bytes) in &seeds {
        std::fs::write(dir.join(name), bytes).expect("a seed file");
        println!("{name}: {} bytes", bytes.len());
    }
}
