//! The engine reads a pod's name only to name the pod in an error (`PodView::name`'s
//! contract): a caller may leave other names unchecked, and the C API does (it checks the names
//! of an evaluation only when a Resource metric's request is missing from a pod's template or a
//! ContainerResource metric is configured). Random pods, samples and metrics of every source
//! but ContainerResource, over several evaluations of one autoscaler, with a pod view that
//! counts the reads of its name.

use std::cell::Cell;

use hpa::input::{
    ConditionStatus, Container, ContainerKind, ObservationOf, PodPhase, PodView, ReadyCondition,
    ResourceRequest,
};
use hpa::spec::{CrossVersionObjectReference, MetricIdentifier, MetricSpec, MetricTarget};
use hpa::{pod_request, Autoscaler, Duration, HpaSpec, Instant, MetricValues, PodSamples};
use hpa::{Hpa, Pod, Quantity, Sample, Settings};
use testkit::Rng;

thread_local! {
    static NAME_READS: Cell<u64> = const { Cell::new(0) };
}

/// A pod whose name's reads are counted.
#[derive(Clone, Copy)]
struct Counted<'a>(Pod<'a>);

impl<'a> PodView<'a> for Counted<'a> {
    type Container = Container<'a>;
    type Request = ResourceRequest<'a>;
    fn name(&self) -> &'a str {
        NAME_READS.with(|n| n.set(n.get() + 1));
        self.0.name
    }
    fn phase(&self) -> PodPhase {
        self.0.phase
    }
    fn ready(&self) -> Option<ReadyCondition> {
        self.0.ready
    }
    fn start_time(&self) -> Option<Instant> {
        self.0.start_time
    }
    fn deleted(&self) -> bool {
        self.0.deleted
    }
    fn containers(&self) -> &'a [Container<'a>] {
        self.0.containers
    }
    fn requests(&self) -> Option<&'a [ResourceRequest<'a>]> {
        self.0.requests
    }
}

const fn request(resource: &'static str, milli: i64) -> ResourceRequest<'static> {
    ResourceRequest {
        resource,
        quantity: Quantity::from_milli(milli),
    }
}

static CPU_AND_MEMORY: [ResourceRequest<'static>; 2] =
    [request("cpu", 500), request("memory", 256_000)];
static CPU: [ResourceRequest<'static>; 1] = [request("cpu", 250)];
static MEMORY: [ResourceRequest<'static>; 1] = [request("memory", 128_000)];

/// Pod templates: containers and pod-level requests. The last two lack a request for cpu or
/// memory; the fourth has no container (it requests 0: no error).
static TEMPLATES: [(&[Container<'static>], Option<&[ResourceRequest<'static>]>); 6] = [
    (
        &[Container {
            name: "app",
            kind: ContainerKind::Regular,
            requests: &CPU_AND_MEMORY,
        }],
        None,
    ),
    (
        &[
            Container {
                name: "setup",
                kind: ContainerKind::Init,
                requests: &CPU_AND_MEMORY,
            },
            Container {
                name: "app",
                kind: ContainerKind::Regular,
                requests: &CPU_AND_MEMORY,
            },
            Container {
                name: "proxy",
                kind: ContainerKind::RestartableInit,
                requests: &CPU_AND_MEMORY,
            },
        ],
        None,
    ),
    (
        &[Container {
            name: "app",
            kind: ContainerKind::Regular,
            requests: &[],
        }],
        Some(&CPU_AND_MEMORY),
    ),
    (&[], None),
    (
        &[Container {
            name: "app",
            kind: ContainerKind::Regular,
            requests: &CPU,
        }],
        None,
    ),
    (
        &[Container {
            name: "app",
            kind: ContainerKind::Regular,
            requests: &MEMORY,
        }],
        None,
    ),
];

const NAMES: [&str; 8] = ["a", "b", "c", "d", "e", "f", "g", "h"];

fn random_pod(rng: &mut Rng, now: i64, templates: usize) -> Pod<'static> {
    let (containers, requests) = TEMPLATES[rng.index(templates)];
    Pod {
        name: NAMES[rng.index(NAMES.len())],
        phase: rng.pick(&[
            PodPhase::Running,
            PodPhase::Running,
            PodPhase::Running,
            PodPhase::Pending,
            PodPhase::Failed,
            PodPhase::Succeeded,
            PodPhase::Unknown,
        ]),
        ready: rng.chance(90).then(|| ReadyCondition {
            status: rng.pick(&[
                ConditionStatus::True,
                ConditionStatus::True,
                ConditionStatus::False,
                ConditionStatus::Unknown,
            ]),
            last_transition: rng.chance(90).then(|| Instant(now - rng.range(0, 900_000))),
        }),
        start_time: rng
            .chance(95)
            .then(|| Instant(now - rng.range(0, 1_200_000))),
        deleted: rng.chance(5),
        containers,
        requests,
    }
}

fn random_metric(rng: &mut Rng) -> MetricSpec<'static> {
    let id = MetricIdentifier {
        name: "requests",
        selector: None,
        selector_invalid: false,
    };
    let object = CrossVersionObjectReference {
        kind: "Service",
        name: "front",
        api_version: "v1",
    };
    let quantity = Quantity::from_milli(rng.range(1, 2_000));
    match rng.below(7) {
        0 => MetricSpec::resource("cpu", MetricTarget::utilization(rng.range32(1, 150))),
        1 => MetricSpec::resource("memory", MetricTarget::utilization(rng.range32(1, 150))),
        2 => MetricSpec::resource("cpu", MetricTarget::average_value(quantity)),
        3 => MetricSpec::pods(id, MetricTarget::average_value(quantity)),
        4 => MetricSpec::object(object, id, MetricTarget::value(quantity)),
        5 => MetricSpec::object(object, id, MetricTarget::average_value(quantity)),
        _ => MetricSpec::external(id, MetricTarget::average_value(quantity)),
    }
}

/// Whether some pod's template lacks a Resource metric's request.
fn request_missing(pods: &[Pod<'_>], metrics: &[MetricSpec<'_>]) -> bool {
    metrics
        .iter()
        .filter_map(|m| m.resource)
        .any(|r| pods.iter().any(|p| pod_request(p, None, r.name).is_err()))
}

#[test]
fn the_engine_reads_pod_names_only_for_their_errors() {
    let settings = Settings::DEFAULT;
    let mut rng = Rng::new(2026);
    let (mut clean, mut named) = (0, 0);
    for round in 0..400 {
        // Most rounds use the templates that have every request; the rest may lack one.
        let templates = if round % 4 == 3 { 6 } else { 4 };
        let metrics: Vec<MetricSpec<'static>> = (0..1 + rng.index(3))
            .map(|_| random_metric(&mut rng))
            .collect();
        let spec = HpaSpec {
            min_replicas: Some(rng.range32(0, 3)),
            max_replicas: 50,
            metrics: &metrics,
            behavior: None,
            scale_target_ref: None,
        };
        let gated = Settings {
            scale_to_zero: true,
            ..settings
        };
        let settings = if rng.bool() { gated } else { settings };
        let Ok(hpa) = Hpa::new(&spec, &settings) else {
            continue; // minReplicas 0 without the gate, or without an Object/External metric
        };
        let mut autoscaler: Autoscaler = Autoscaler::new();
        let mut now = 0;
        for _ in 0..6 {
            now += rng.range(1_000, 60_000);
            let n = rng.index(9);
            let pods: Vec<Pod<'static>> = (0..n)
                .map(|_| random_pod(&mut rng, now, templates))
                .collect();
            let sample = |rng: &mut Rng| Sample {
                milli: rng.range(-5, 3_000),
                timestamp: Instant(now - rng.range(0, 30_000)),
                window: Duration::from_secs(rng.range(15, 90)),
                containers: &[],
            };
            let per_pod: Vec<Vec<Option<Sample<'static>>>> = metrics
                .iter()
                .map(|_| {
                    (0..n)
                        .map(|_| rng.chance(85).then(|| sample(&mut rng)))
                        .collect()
                })
                .collect();
            let orphans: Vec<Sample<'static>> =
                (0..rng.index(2)).map(|_| sample(&mut rng)).collect();
            let series: Vec<i64> = (0..1 + rng.index(3)).map(|_| rng.range(0, 5_000)).collect();
            let values: Vec<MetricValues<'_>> = metrics
                .iter()
                .zip(&per_pod)
                .map(|(m, per_pod)| match (m.object, m.external) {
                    (Some(_), _) => MetricValues::Object(rng.range(0, 5_000)),
                    (_, Some(_)) => MetricValues::External(&series),
                    _ if rng.chance(3) => MetricValues::Error("adapter unavailable"),
                    _ => MetricValues::Pods(PodSamples {
                        per_pod,
                        orphans: &orphans,
                    }),
                })
                .collect();
            let counted: Vec<Counted<'static>> = pods.iter().copied().map(Counted).collect();
            let replicas = rng.range32(0, 10);
            let obs = ObservationOf {
                now: Instant(now),
                replicas,
                status_replicas: replicas,
                pods: &counted,
                metrics: &values,
            };
            NAME_READS.with(|r| r.set(0));
            let decision = autoscaler
                .evaluate(&hpa, &settings, &obs)
                .expect("evaluates");
            let reads = NAME_READS.with(Cell::get);
            if request_missing(&pods, &metrics) {
                named += u64::from(reads > 0);
            } else {
                assert_eq!(reads, 0, "round {round}: {decision:?}");
                clean += 1;
            }
            if decision.rescale {
                assert!(autoscaler.rescale_succeeded());
            }
        }
    }
    // The rounds covered both cases, and the count sees a read name.
    assert!(
        clean > 1_000,
        "{clean} evaluations without a missing request"
    );
    assert!(named > 20, "{named} evaluations read a pod's name");
}
