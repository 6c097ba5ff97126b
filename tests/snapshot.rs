//! Snapshots through whole runs (docs/spec/snapshot.md): an autoscaler saved at any point,
//! powered off for a while and restored on a clock that restarted decides exactly as one that
//! ran on (decisions compared with their instants moved by the clock's shift); the committed
//! snapshot of every format version still restores; damaged snapshots are refused whole.
//! (`src/snapshot/tests.rs` checks the fields one by one; tests/invariants.rs saves and
//! restores after every evaluation of its random sequences, on the same clock, tiny rings
//! included.)

use std::path::Path;

use hpa::history::Direction;
use hpa::snapshot::{RestoreError, Snapshot, FORMAT_VERSION};
use hpa::spec::{Behavior, PolicyType, ScalingPolicy, ScalingRules, SelectPolicy};
use hpa::{Autoscaler, Hpa, HpaSpec, Instant, MetricValues, Observation, Settings};
use testkit::snapshot::{crc32, queue_steps, QUEUE, SCALE_UP};
use testkit::Rng;

fn fresh() -> Autoscaler {
    Autoscaler::new()
}

fn rules(rng: &mut Rng) -> Option<ScalingRules<'static>> {
    if rng.chance(10) {
        return None;
    }
    let count = rng.range32(1, 3);
    let policies: Vec<ScalingPolicy> = (0..count)
        .map(|_| ScalingPolicy {
            type_: rng.pick(&[PolicyType::Pods, PolicyType::Percent]),
            value: rng.range32(1, 200),
            period_seconds: rng.pick(&[15, 60, 120, 600, 1800]),
        })
        .collect();
    Some(ScalingRules {
        stabilization_window_seconds: Some(rng.pick(&[0, 30, 300, 3600])),
        select_policy: Some(rng.pick(&[SelectPolicy::Max, SelectPolicy::Min])),
        policies: Some(Box::leak(policies.into_boxed_slice())),
        tolerance: None,
    })
}

fn spec(rng: &mut Rng) -> &'static HpaSpec<'static> {
    let behavior = rng.chance(80).then(|| Behavior {
        scale_up: rules(rng),
        scale_down: rules(rng),
    });
    Box::leak(Box::new(HpaSpec {
        min_replicas: Some(rng.range32(1, 3)),
        max_replicas: rng.range32(4, 60),
        metrics: &QUEUE,
        behavior,
        scale_target_ref: None,
    }))
}

/// One evaluation: (time, proposal in milli-units, outcome: 0 succeeded, 1 failed,
/// 2 unreported).
type Step = (i64, i64, u8);

fn steps(rng: &mut Rng, n: usize) -> Vec<Step> {
    let mut at = rng.range(-1 << 40, 1 << 40);
    (0..n)
        .map(|_| {
            // At least 15 s apart: the default rings never fold, so the grid of their summaries
            // cannot depend on the clock.
            at += rng.pick(&[15_000, 15_000, 15_100, 30_000, 61_000, 900_000]);
            let proposal = rng.range(0, 80_000);
            (at, proposal, rng.pick(&[0, 0, 0, 1, 2]))
        })
        .collect()
}

/// Runs `steps` on `a` with every instant moved by `shift`; returns one line per step (the
/// decision with `at` moved back, and the state).
fn run(
    a: &mut Autoscaler,
    hpa: &Hpa<'_>,
    steps: &[Step],
    shift: i64,
    replicas: &mut i32,
) -> Vec<String> {
    let mut lines = Vec::new();
    for &(at, proposal, outcome) in steps {
        let values = [proposal];
        let metrics = [MetricValues::External(&values)];
        let obs = Observation {
            now: Instant(at + shift),
            replicas: *replicas,
            status_replicas: *replicas,
            pods: &[],
            metrics: &metrics,
        };
        let mut d = a.evaluate(hpa, &Settings::DEFAULT, &obs).unwrap();
        assert!(!d.history_overflowed);
        d.at = Instant(d.at.0 - shift);
        lines.push(format!("{d:?}"));
        if d.rescale {
            match outcome {
                0 => {
                    assert!(a.rescale_succeeded());
                    *replicas = d.desired_replicas;
                }
                1 => assert!(a.rescale_failed()),
                _ => {}
            }
        }
        let status = a.status();
        let moved = status.last_scale_time.map(|t| Instant(t.0 - shift));
        let events: Vec<_> = [Direction::Up, Direction::Down]
            .map(|d| {
                a.history()
                    .scale_event_list(d)
                    .map(|e| e.map(|e| (e.change, e.at.0 - shift, e.outdated)))
                    .collect::<Vec<_>>()
            })
            .into();
        lines.push(format!(
            "{} {moved:?} {:?} {} {events:?}",
            status.desired_replicas,
            status.conditions,
            a.rescale_pending()
        ));
    }
    lines
}

#[test]
fn a_restored_autoscaler_decides_as_one_that_ran_on() {
    let mut rng = Rng::new(0x5AFE);
    let mut restores = 0;
    // Miri interprets each evaluation thousands of times slower: one case of 8 steps there,
    // saved and restored twice.
    let (cases, steps_per_case, restores_per_case) =
        if cfg!(miri) { (1, 8, 2) } else { (300, 120, 3) };
    for case in 0..cases {
        let spec = spec(&mut rng);
        let hpa = Hpa::new(spec, &Settings::DEFAULT).unwrap();
        let all = steps(&mut rng, steps_per_case);
        let mut replicas = rng.range32(1, 10);
        let start = replicas;
        let expected = run(&mut fresh(), &hpa, &all, 0, &mut replicas);
        for _ in 0..restores_per_case {
            // Save after step `k` (its rescale possibly unreported), some time later.
            let k = rng.range(0, all.len() as i64 - 1) as usize;
            let mut a = fresh();
            let mut replicas = start;
            let mut lines = run(&mut a, &hpa, &all[..=k], 0, &mut replicas);
            let saved_at = all[k].0 + rng.range(0, 20_000);
            let mut flash = [0_u8; Autoscaler::<1000, 608>::SNAPSHOT_MAX_BYTES];
            let len = a.save(Instant(saved_at), &mut flash).unwrap();
            // Powered off; the clock restarts anywhere.
            let now = rng.pick(&[0, 1, -5_000, 1 << 50, -(1 << 50)]);
            let mut b = fresh();
            b.restore(&flash[..len], Instant(now)).unwrap();
            let shift = now - saved_at;
            lines.extend(run(&mut b, &hpa, &all[k + 1..], shift, &mut replicas));
            assert_eq!(lines, expected, "case {case}, saved after step {k}");
            restores += 1;
        }
    }
    assert_eq!(restores, restores_per_case * cases);
}

#[test]
fn time_spent_powered_off_counts_when_the_caller_says_so() {
    // A scale-down held by a 300 s window: restored with the time off counted (`now` moved
    // back by it), the window has passed; counted as none, it still holds.
    static DOWN: [ScalingPolicy; 1] = [ScalingPolicy {
        type_: PolicyType::Percent,
        value: 100,
        period_seconds: 15,
    }];
    static SPEC: HpaSpec<'static> = HpaSpec {
        min_replicas: Some(1),
        max_replicas: 20,
        metrics: &QUEUE,
        behavior: Some(Behavior {
            scale_up: None,
            scale_down: Some(ScalingRules {
                stabilization_window_seconds: Some(300),
                select_policy: None,
                policies: Some(&DOWN),
                tolerance: None,
            }),
        }),
        scale_target_ref: None,
    };
    let hpa = Hpa::new(&SPEC, &Settings::DEFAULT).unwrap();
    let eval = |a: &mut Autoscaler, now: i64, proposal: i64| {
        let values = [proposal * 1000];
        let metrics = [MetricValues::External(&values)];
        let obs = Observation {
            now: Instant(now),
            replicas: 10,
            status_replicas: 10,
            pods: &[],
            metrics: &metrics,
        };
        let d = a.evaluate(&hpa, &Settings::DEFAULT, &obs).unwrap();
        d.desired_replicas
    };
    let mut a = fresh();
    assert_eq!(eval(&mut a, 1_000_000, 10), 10);
    let mut flash = [0_u8; 2048];
    let len = a.save(Instant(1_000_000), &mut flash).unwrap();
    // Ten minutes off; the new clock starts at 0.
    let off = 600_000;
    let mut none = fresh();
    none.restore(&flash[..len], Instant(0)).unwrap();
    assert_eq!(eval(&mut none, 15_000, 2), 10, "the window still holds");
    let mut counted = fresh();
    counted.restore(&flash[..len], Instant(-off)).unwrap();
    assert_eq!(eval(&mut counted, 15_000, 2), 2, "the window has passed");
}

/// Builds the state the fixtures hold: a behavior HPA after a burst of rescales, its last
/// rescale not yet reported.
fn fixture_state() -> (Autoscaler, i64) {
    static SPEC: HpaSpec<'static> = HpaSpec {
        min_replicas: Some(2),
        max_replicas: 40,
        metrics: &QUEUE,
        behavior: Some(Behavior {
            scale_up: Some(ScalingRules {
                stabilization_window_seconds: Some(0),
                select_policy: Some(SelectPolicy::Max),
                policies: Some(&SCALE_UP),
                tolerance: None,
            }),
            scale_down: None,
        }),
        scale_target_ref: None,
    };
    let hpa = Hpa::new(&SPEC, &Settings::DEFAULT).unwrap();
    let mut a = fresh();
    // The last step finds the target below minReplicas: a rescale it does not report.
    let at = queue_steps(
        &mut a,
        &hpa,
        0,
        &[3, 9, 30, 30, 12, 12, 5, 40, 40, 8],
        Some(1),
    );
    assert!(a.rescale_pending());
    (a, at + 5_000)
}

fn fixtures() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/snapshots")
}

/// Every committed format version restores to the state it was saved from; the current one is
/// also exactly what `save` writes today (so the format cannot change without a new version).
/// `HPA_WRITE_FIXTURES=1` writes the current version's file.
#[test]
fn every_format_version_still_restores() {
    let (state, saved_at) = fixture_state();
    let mut bytes = vec![0; Autoscaler::<1000, 608>::SNAPSHOT_MAX_BYTES];
    let len = state.save(Instant(saved_at), &mut bytes).unwrap();
    bytes.truncate(len);
    let current = fixtures().join(format!("v{FORMAT_VERSION}.bin"));
    if std::env::var_os("HPA_WRITE_FIXTURES").is_some() {
        std::fs::create_dir_all(fixtures()).unwrap();
        std::fs::write(&current, &bytes).unwrap();
    }
    // The state a snapshot of `state` restores: everything the snapshot holds (it saves back
    // to the same bytes), without what the engine keeps only to go faster (the stabilization
    // extremes, docs/spec/history.md#window-extremes), which a restore forgets.
    let mut expected = fresh();
    expected.restore(&bytes, Instant(saved_at)).unwrap();
    let mut again = vec![0; bytes.len()];
    let again_len = expected.save(Instant(saved_at), &mut again).unwrap();
    assert_eq!(
        again[..again_len],
        bytes[..],
        "a restored state saves back its snapshot"
    );
    for version in 1..=FORMAT_VERSION {
        let path = fixtures().join(format!("v{version}.bin"));
        let file = std::fs::read(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (HPA_WRITE_FIXTURES=1 writes the current version's)",
                path.display()
            )
        });
        let s = Snapshot::parse(&file).unwrap();
        assert_eq!(s.version(), version);
        let mut restored = fresh();
        restored.restore(&file, Instant(saved_at)).unwrap();
        assert_eq!(
            format!("{restored:?}"),
            format!("{expected:?}"),
            "{}",
            path.display()
        );
        if version == FORMAT_VERSION {
            assert_eq!(
                file,
                bytes,
                "{} differs from what save writes",
                path.display()
            );
        }
    }
    println!("fixture snapshot: {len} bytes");
}

#[test]
fn a_snapshot_from_a_newer_engine_is_refused_by_version() {
    let (state, saved_at) = fixture_state();
    let mut bytes = vec![0; 4096];
    let len = state.save(Instant(saved_at), &mut bytes).unwrap();
    bytes.truncate(len);
    bytes[4] = FORMAT_VERSION + 1;
    testkit::snapshot::reseal(&mut bytes);
    let mut a = fresh();
    assert_eq!(
        a.restore(&bytes, Instant(0)),
        Err(RestoreError::UnsupportedVersion {
            version: FORMAT_VERSION + 1
        })
    );
}

#[test]
fn the_checksum_is_zlibs_crc32() {
    let (state, saved_at) = fixture_state();
    let mut bytes = vec![0; 4096];
    let len = state.save(Instant(saved_at), &mut bytes).unwrap();
    let stored = u32::from_le_bytes(bytes[len - 4..len].try_into().unwrap());
    assert_eq!(stored, crc32(&bytes[..len - 4]));
    assert_eq!(
        u32::from_le_bytes(bytes[5..9].try_into().unwrap()) as usize,
        len
    );
    assert_eq!(&bytes[..5], b"HPAS\x01");
}

/// Damage of every kind, on snapshots of random runs: each single-bit flip, each truncation
/// and random byte overwrites are refused, and leave the autoscaler as it was.
#[test]
fn damaged_snapshots_are_refused_and_change_nothing() {
    let (state, saved_at) = fixture_state();
    let before = format!("{state:?}");
    let mut bytes = vec![0; 4096];
    let len = state.save(Instant(saved_at), &mut bytes).unwrap();
    let good = &bytes[..len];
    let mut target = state.clone();
    let mut refused = 0;
    let mut check = |bad: &[u8]| {
        assert!(target.restore(bad, Instant(0)).is_err(), "{bad:?}");
        assert_eq!(format!("{target:?}"), before);
        refused += 1;
    };
    // Under Miri, which interprets each restore (and the comparison of the states' texts)
    // thousands of times slower: every 37th flip and cut (a stride through the header, the
    // fields and the checksum, on every bit position) and 10 random overwrites.
    let (stride, overwrites) = if cfg!(miri) { (37, 10) } else { (1, 20_000) };
    let flips = (0..len * 8).step_by(stride);
    let cuts = (0..len).step_by(stride);
    let expected = flips.len() + cuts.len() + overwrites;
    for bit in flips {
        let mut bad = good.to_vec();
        bad[bit / 8] ^= 1 << (bit % 8);
        check(&bad);
    }
    for cut in cuts {
        check(&good[..cut]);
    }
    let mut rng = Rng::new(9);
    for _ in 0..overwrites {
        let mut bad = good.to_vec();
        for _ in 0..rng.range(1, 4) {
            let i = rng.index(len);
            let b = rng.below(256) as u8;
            bad[i] = if bad[i] == b { b ^ 0x40 } else { b };
        }
        check(&bad);
    }
    println!("{refused} damaged snapshots refused");
    assert_eq!(refused, expected);
}
