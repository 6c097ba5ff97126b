//! Writes the seed corpora of the targets with structured inputs (`evaluate`, `c_api`,
//! `c_api_storage`, `shared`, `load_history`)
//! into `seeds/<target>/` (or under the folder given): inputs built as values and encoded as
//! the bytes `arbitrary` decodes them from (`hpa_fuzz::seed`), each checked by decoding it
//! again.
//!
//! `cargo run --example seeds` (from `fuzz/`); the output is deterministic.

use std::fmt::Debug;
use std::path::{Path, PathBuf};

use arbitrary::{Arbitrary, Unstructured};
use hpa_ffi::{
    hpa_container_kind, hpa_metric_source_type as source, hpa_metric_target_type as target,
    hpa_pod_phase, hpa_policy_type, hpa_ready, hpa_select_policy, hpa_values_kind,
    HPA_TARGET_FIELD_AVERAGE_UTILIZATION, HPA_TARGET_FIELD_AVERAGE_VALUE,
};
use hpa_fuzz::c_api::{self as c, ConfigIn, MetricIn, ObservationIn, Out, PodIn, RulesIn};
use hpa_fuzz::c_api::{SampleIn, Text, ValuesIn};
use hpa_fuzz::c_api_storage::{self as storage, Damage};
use hpa_fuzz::evaluate::{self as ev, ContainerInput, LongRun, Metric, PodInput, Policy, Q};
use hpa_fuzz::evaluate::{Rules, SampleInput, SettingsInput, Source, TargetType, ValuesInput};
use hpa_fuzz::load_history::{self, Event, Step};
use hpa_fuzz::seed::{bytes, Encode};
use hpa_fuzz::shared::{self, Call, Nested};

/// Writes `input` as `dir/target/name`, after checking that it decodes back to itself.
fn write<T>(dir: &Path, target: &str, name: &str, input: &T)
where
    T: Encode + Debug + for<'a> Arbitrary<'a>,
{
    let data = bytes(input);
    let decoded = T::arbitrary_take_rest(Unstructured::new(&data)).expect("decodes");
    assert_eq!(
        format!("{decoded:?}"),
        format!("{input:?}"),
        "{target}/{name} does not decode to itself"
    );
    let folder = dir.join(target);
    std::fs::create_dir_all(&folder).expect("the seed folder");
    std::fs::write(folder.join(name), &data).expect("a seed file");
    println!("{target}/{name}: {} bytes", data.len());
}

fn shared_seeds(dir: &Path) {
    let update = |load: u32, replicas: Option<u16>, nested| Call::Update {
        load,
        replicas,
        nested,
    };
    let evaluate = |dt_ms, nested| Call::Evaluate { dt_ms, nested };
    // A main loop that applies every decision: a wave of load, 15 s apart.
    let mut wave = Vec::new();
    for i in 0..40_u32 {
        let load = 1000 * (2 + (i % 20).abs_diff(10) * 3);
        wave.push(update(load, None, None));
        wave.push(evaluate(15_000, None));
        wave.push(Call::LastDecision);
        wave.push(Call::RescalePending);
        if i % 4 == 3 {
            wave.push(Call::RescaleFailed);
        } else {
            wave.push(update(
                load,
                Some(u16::try_from(load / 1000).unwrap()),
                None,
            ));
            wave.push(Call::RescaleSucceeded);
        }
        wave.push(Call::StatusDesiredReplicas);
    }
    for behavior in [false, true] {
        let name = if behavior {
            "behavior-wave"
        } else {
            "legacy-wave"
        };
        let calls = wave.clone();
        write(
            dir,
            "shared",
            name,
            &shared::Input {
                behavior,
                max: 40,
                calls,
            },
        );
    }
    // Every call nested in every place that can nest one.
    let all = [
        Nested::Update,
        Nested::WithAutoscaler,
        Nested::Evaluate,
        Nested::LastDecision,
        Nested::RescalePending,
        Nested::RescaleSucceeded,
        Nested::RescaleFailed,
        Nested::StatusDesiredReplicas,
    ];
    let mut calls = vec![update(9_000, Some(2), None)];
    for n in all {
        calls.push(update(9_000, None, Some(n)));
        calls.push(evaluate(15_000, Some(n)));
        calls.push(Call::WithAutoscaler { nested: Some(n) });
        calls.push(Call::RescaleSucceeded);
    }
    write(
        dir,
        "shared",
        "nested",
        &shared::Input {
            behavior: true,
            max: 10,
            calls,
        },
    );
    // Time going backwards, a refused evaluation, then on.
    let calls = vec![
        evaluate(15_000, None),
        evaluate(-1, Some(Nested::Evaluate)),
        Call::LastDecision,
        evaluate(30_000, None),
        Call::RescaleSucceeded,
    ];
    write(
        dir,
        "shared",
        "backwards",
        &shared::Input {
            behavior: false,
            max: 5,
            calls,
        },
    );
}

fn load_history_seeds(dir: &Path) {
    let event = |change, age_s, outdated| {
        Some(Event {
            change,
            age_s,
            outdated,
        })
    };
    let steps = |loads: &[u16]| -> Vec<Step> {
        loads
            .iter()
            .enumerate()
            .map(|(i, &load)| Step {
                dt_s: 15,
                load,
                replicas: None,
                succeeded: i % 5 != 4,
            })
            .collect()
    };
    let falling: Vec<u16> = (0..20).map(|i| 60 - 3 * i).collect();
    // A full minute of recommendations every 15 s, beyond the small rings' capacity.
    let recommendations: Vec<(u16, u16)> = (0..40).map(|i| (10 + (i * 7) % 30, 15 * i)).collect();
    for behavior in 0..4_u8 {
        write(
            dir,
            "load_history",
            &format!("full-rings-behavior-{behavior}"),
            &load_history::Input {
                behavior,
                max: 99,
                seeded: true,
                recommendations: recommendations.clone(),
                scale_up: vec![event(4, 30, false), event(8, 90, false), None],
                scale_down: vec![event(3, 2000, true), event(5, 40, false)],
                steps: steps(&falling),
            },
        );
    }
    // Many events, some outdated, no recommendation list (not seeded).
    let ups = (0..30)
        .map(|i| event(1 + i % 4, 20 * (30 - i as u16), i < 5))
        .collect();
    write(
        dir,
        "load_history",
        "many-events",
        &load_history::Input {
            behavior: 2,
            max: 300,
            seeded: false,
            recommendations: vec![],
            scale_up: ups,
            scale_down: vec![],
            steps: steps(&[200, 250, 300, 10]),
        },
    );
    // Refused: a change that is not positive, an outdated event newer than a current one.
    for (name, up, down) in [
        (
            "refused-change",
            vec![event(2, 10, false), event(0, 5, false)],
            vec![],
        ),
        (
            "refused-outdated",
            vec![],
            vec![event(2, 100, false), event(1, 50, true)],
        ),
    ] {
        write(
            dir,
            "load_history",
            name,
            &load_history::Input {
                behavior: 1,
                max: 20,
                seeded: true,
                recommendations: vec![(3, 10), (4, 5)],
                scale_up: up,
                scale_down: down,
                steps: steps(&[5]),
            },
        );
    }
}

const NO_SETTINGS: SettingsInput = SettingsInput {
    exact: false,
    tolerance: None,
    downscale_window_ms: None,
    cpu_initialization_s: None,
    readiness_delay_s: None,
    scale_to_zero: false,
    configurable_tolerance: false,
    legacy_factor: None,
    legacy_minimum: None,
};

/// A metric of `source` named by index (`evaluate`'s tables: resource 0 is cpu, name 0 rps and
/// 1 queue_length) with one target field set.
fn metric(source: Source, name: u8, type_: TargetType, q: Q) -> Metric {
    let (value, average_value, average_utilization) = match (type_, q) {
        (TargetType::Utilization, Q::Units(u)) => (None, None, Some(i32::from(u))),
        (TargetType::Value, q) => (Some(q), None, None),
        (_, q) => (None, Some(q), None),
    };
    Metric {
        source,
        resource: 0,
        container: 0,
        name,
        selector: false,
        selector_invalid: false,
        target: ev::Target {
            type_,
            value,
            average_value,
            average_utilization,
        },
        extra_field: false,
    }
}

/// A running, ready pod (started 10 minutes before) whose container `app` requests 1 CPU.
fn pod() -> PodInput {
    PodInput {
        phase: 0,
        ready: Some((0, Some(-600_000))),
        start_offset_ms: Some(-600_000),
        deleted: false,
        containers: vec![ContainerInput {
            name: 0,
            kind: 0,
            requests: vec![(0, Q::Milli(1000))],
        }],
        requests: None,
    }
}

fn samples(milli: &[i64]) -> ValuesInput {
    ValuesInput::Pods {
        per_pod: milli
            .iter()
            .map(|&milli| {
                Some(SampleInput {
                    milli,
                    age_ms: 1000,
                    window_s: 60,
                    containers: vec![],
                })
            })
            .collect(),
        orphans: vec![],
    }
}

/// Four metric sources (CPU utilization, a Pods average, an Object value, an External
/// average), and steps 15 s apart with `pods` pods under a load that rises and falls.
fn four_sources(pods: usize) -> (Vec<Metric>, Vec<ev::Step>) {
    let metrics = vec![
        metric(Source::Resource, 0, TargetType::Utilization, Q::Units(60)),
        metric(Source::Pods, 0, TargetType::AverageValue, Q::Units(10)),
        metric(Source::Object, 1, TargetType::Value, Q::Units(50)),
        metric(
            Source::External,
            1,
            TargetType::AverageValue,
            Q::Milli(5_000),
        ),
    ];
    let steps = [300_i64, 900, 1500, 700, 200, 100]
        .iter()
        .enumerate()
        .map(|(i, &cpu)| ev::Step {
            dt: 15_000,
            replicas: (i == 0).then_some(i32::try_from(pods).unwrap()),
            status_replicas: None,
            pods: (0..pods).map(|_| pod()).collect(),
            values: vec![
                samples(&vec![cpu; pods]),
                samples(&vec![cpu * 10; pods]),
                ValuesInput::Object(cpu * 60),
                ValuesInput::External(vec![cpu * 20, cpu * 5]),
            ],
            extra_value: false,
            outcome: if i % 3 == 2 { 0 } else { 2 },
            repeat: 3,
        })
        .collect();
    (metrics, steps)
}

fn direction_rules(window: i32, select: u8, policies: &[(bool, i32, i32)]) -> Rules {
    Rules {
        window: Some(window),
        select: Some(select),
        policies: Some(
            policies
                .iter()
                .map(|&(percent, value, period_seconds)| Policy {
                    percent,
                    value,
                    period_seconds,
                })
                .collect(),
        ),
        tolerance: None,
    }
}

fn evaluate_seeds(dir: &Path) {
    let behavior = || {
        Some((
            Some(direction_rules(0, 0, &[(true, 100, 15), (false, 4, 60)])),
            Some(Rules {
                tolerance: Some(Q::Milli(50)),
                ..direction_rules(300, 1, &[(true, 10, 60)])
            }),
        ))
    };
    let input = |behavior, settings, steps, long| ev::Input {
        min: Some(1),
        max: 40,
        metrics: four_sources(4).0,
        behavior,
        settings,
        scaled_to_zero: false,
        start: 1 << 40,
        clone_at: 5,
        steps,
        long,
    };
    let steps = || four_sources(4).1;
    write(
        dir,
        "evaluate",
        "four-sources-legacy",
        &input(None, NO_SETTINGS, steps(), None),
    );
    let tolerant = SettingsInput {
        configurable_tolerance: true,
        ..NO_SETTINGS
    };
    write(
        dir,
        "evaluate",
        "four-sources-behavior",
        &input(behavior(), tolerant, steps(), None),
    );
    let exact = SettingsInput {
        exact: true,
        ..NO_SETTINGS
    };
    write(
        dir,
        "evaluate",
        "four-sources-behavior-exact",
        &input(behavior(), exact, steps(), None),
    );
    // Beyond what the default rings guarantee: 600 evaluations 2 s apart, loads up to 20,000
    // replicas' worth.
    let long = |seed| LongRun {
        evaluations: 400,
        period_ms: 1000,
        high: 20_000,
        set_percent: 5,
        seed,
    };
    let mut full = input(behavior(), NO_SETTINGS, steps(), Some(long(7)));
    full.max = 30_000;
    write(dir, "evaluate", "full-rings-behavior", &full);
    full.behavior = None;
    full.long = Some(long(11));
    write(dir, "evaluate", "full-rings-legacy", &full);
    // Scale to zero on an Object metric, from zero and back.
    let object = vec![metric(Source::Object, 1, TargetType::Value, Q::Units(50))];
    let zero_steps = [0_i64, 0, 120_000, 300_000, 0, 0]
        .iter()
        .map(|&load| ev::Step {
            dt: 60_000,
            replicas: None,
            status_replicas: None,
            pods: vec![],
            values: vec![ValuesInput::Object(load)],
            extra_value: false,
            outcome: 2,
            repeat: 2,
        })
        .collect();
    write(
        dir,
        "evaluate",
        "scale-to-zero",
        &ev::Input {
            min: Some(0),
            max: 10,
            metrics: object,
            behavior: None,
            settings: SettingsInput {
                scale_to_zero: true,
                ..NO_SETTINGS
            },
            scaled_to_zero: true,
            start: 0,
            clone_at: 3,
            steps: zero_steps,
            long: None,
        },
    );
}

fn text(s: &str) -> Text {
    Text {
        bytes: s.as_bytes().to_vec(),
        null: false,
    }
}

fn c_api_seeds(dir: &Path) {
    let cpu = MetricIn {
        r#type: source::Resource as u32,
        name: text("cpu"),
        selector_invalid: 0,
        target_type: target::Utilization as u32,
        fields: HPA_TARGET_FIELD_AVERAGE_UTILIZATION,
        value: 0,
        average_value: 0,
        utilization: 60,
    };
    let queue = MetricIn {
        r#type: source::External as u32,
        name: text("queue_length"),
        target_type: target::AverageValue as u32,
        fields: HPA_TARGET_FIELD_AVERAGE_VALUE,
        average_value: 5_000,
        utilization: 0,
        ..cpu
    };
    let direction_rules =
        |window, select: hpa_select_policy, policies: Vec<(u32, i32, i32)>| RulesIn {
            has_window: 1,
            window,
            select: select as u32,
            policies,
            short: 0,
            has_tolerance: 0,
            tolerance: (0, 0),
        };
    let (pods, percent) = (
        hpa_policy_type::Pods as u32,
        hpa_policy_type::Percent as u32,
    );
    let config = |behavior: bool| ConfigIn {
        has_min: 1,
        min: 1,
        max: 20,
        metrics: vec![cpu.clone(), queue.clone()],
        short: 0,
        misaligned_metrics: false,
        up: behavior.then(|| {
            direction_rules(
                0,
                hpa_select_policy::Max,
                vec![(pods, 4, 60), (percent, 100, 15)],
            )
        }),
        down: behavior
            .then(|| direction_rules(300, hpa_select_policy::Min, vec![(percent, 10, 60)])),
        settings: None,
    };
    let pod = |name: &str| PodIn {
        name: text(name),
        phase: hpa_pod_phase::Running as u32,
        ready: hpa_ready::True as u32,
        deleted: 0,
        start: Some(-600_000),
        request_milli: 1000,
        container_kind: hpa_container_kind::Regular as u32,
    };
    let sample = |milli| SampleIn {
        present: 1,
        milli,
        window_ms: Some(60_000),
    };
    let observation = ObservationIn {
        now_ms: 900_000,
        replicas: 3,
        status_replicas: None,
        pods: vec![pod("a"), pod("b"), pod("c")],
        values: vec![
            ValuesIn {
                kind: hpa_values_kind::Samples as u32,
                samples: vec![sample(900), sample(1200), sample(700)],
                values: vec![],
                short: 0,
            },
            ValuesIn {
                kind: hpa_values_kind::External as u32,
                samples: vec![],
                values: vec![40_000, 2_000],
                short: 0,
            },
        ],
        short: 0,
    };
    // A snapshot saved a period later, and restored.
    let save = c::Call::Save {
        later_ms: 15_000,
        capacity: 4096,
        buffer: Out::Valid,
        written: Out::Valid,
    };
    let restore = c::Call::Restore {
        cut: 0,
        flip: None,
        now_ms: 930_000,
        size_short: 0,
    };
    let evaluate = c::Call::Evaluate {
        workspace: 16_384,
        workspace_at: Out::Valid,
        decision: Out::Valid,
    };
    let calls = vec![
        c::Call::Init {
            size_short: 0,
            at: Out::Valid,
        },
        c::Call::Validate { error: Out::Valid },
        c::Call::ObservationCheck {
            size: Out::Valid,
            error: Out::Valid,
        },
        evaluate.clone(),
        c::Call::RescaleSucceeded,
        c::Call::ScalingStatus { out: Out::Valid },
        save.clone(),
        restore.clone(),
        evaluate.clone(),
        c::Call::RescaleFailed {
            message: text("the scale subresource refused"),
        },
        c::Call::SnapshotCheck {
            cut: 0,
            now_ms: 930_000,
            error: Out::Valid,
        },
        c::Call::Resolve {
            out: Out::Valid,
            error: Out::Valid,
        },
    ];
    // The configuration kept in the autoscaler, evaluations under it, and after a restore (which
    // leaves none) configured again.
    let configured = vec![
        c::Call::Configure { error: Out::Valid },
        c::Call::EvaluateConfigured {
            decision: Out::Valid,
        },
        c::Call::RescaleSucceeded,
        save.clone(),
        restore.clone(),
        c::Call::EvaluateConfigured {
            decision: Out::Valid,
        },
        c::Call::Configure { error: Out::Valid },
        c::Call::EvaluateConfigured {
            decision: Out::Valid,
        },
    ];
    write(
        dir,
        "c_api",
        "configured-evaluations",
        &c::Input {
            config: config(true),
            observation: observation.clone(),
            calls: configured,
        },
    );
    for behavior in [false, true] {
        let name = if behavior {
            "behavior-evaluations"
        } else {
            "legacy-evaluations"
        };
        write(
            dir,
            "c_api",
            name,
            &c::Input {
                config: config(behavior),
                observation: observation.clone(),
                calls: calls.clone(),
            },
        );
    }
    let values = vec![
        c::Call::QuantityParse {
            text: text("1.5Gi"),
            out: Out::Valid,
        },
        c::Call::QuantityWrite {
            milli: 62_500_000,
            format: 1,
            capacity: 64,
            buffer: Out::Valid,
            len: Out::Valid,
        },
        c::Call::MilliFromDouble {
            bits: 0.25_f64.to_bits(),
            out: Out::Valid,
        },
        c::Call::SettingsDefault { out: Out::Valid },
        c::Call::Strings { code: 3 },
    ];
    write(
        dir,
        "c_api",
        "values-and-texts",
        &c::Input {
            config: config(false),
            observation,
            calls: values,
        },
    );
}

fn c_api_storage_seeds(dir: &Path) {
    // 64 steps 15 s apart: a wave of load, every fourth rescale failed, one left pending.
    let steps: Vec<storage::Step> = (0..64_u8)
        .map(|i| storage::Step {
            dt: 15,
            load: 2 + (i % 20).abs_diff(10) * 12,
            outcome: match i % 8 {
                3 => 0,
                6 => 2,
                _ => 3,
            },
            replicas: (i == 40).then_some(1),
        })
        .collect();
    let input = |damage: Vec<Damage>, snapshot_damage: Vec<Damage>, reseal| storage::Input {
        steps: steps.clone(),
        damage,
        dt: 15,
        load: 40,
        snapshot_damage,
        snapshot_len: None,
        reseal,
        restore_now_ms: 1 << 30,
    };
    write(
        dir,
        "c_api_storage",
        "undamaged",
        &input(vec![], vec![], false),
    );
    let flips = (0..8).map(|k| Damage::Flip {
        offset: 40 + 97 * k,
        bit: 3,
    });
    write(
        dir,
        "c_api_storage",
        "bit-flips",
        &input(flips.collect(), vec![], false),
    );
    let ranges = vec![
        Damage::Zero {
            offset: 600,
            len: 200,
        },
        Damage::Garbage {
            offset: 1200,
            len: 100,
            seed: 7,
        },
        Damage::Write {
            offset: 20,
            value: 0xFF,
        },
    ];
    let snapshot = vec![Damage::Write {
        offset: 30,
        value: 1,
    }];
    write(
        dir,
        "c_api_storage",
        "ranges-resealed-snapshot",
        &input(ranges, snapshot, true),
    );
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .map_or_else(|| PathBuf::from("seeds"), PathBuf::from);
    evaluate_seeds(&dir);
    c_api_seeds(&dir);
    c_api_storage_seeds(&dir);
    shared_seeds(&dir);
    load_history_seeds(&dir);
}
