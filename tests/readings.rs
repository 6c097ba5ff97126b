//! Readings upstream's arithmetic takes as they are (docs/parity.md): the engine keeps that
//! arithmetic in `kubernetes` mode and says so with `hpa::metrics::reading`. An External
//! AverageValue series whose running sum leaves [0, MaxInt64] (a negative entry, or an int64
//! overflow) is taken as MaxInt64 by upstream's guard; a negative Object value, External entry,
//! pod sample or request is computed with as it is.

use hpa::input::{
    ConditionStatus, Container, ContainerKind, PodPhase, ReadyCondition, ResourceRequest,
};
use hpa::metrics::{reading, MetricOutcome, Reading};
use hpa::spec::{CrossVersionObjectReference, MetricIdentifier, MetricSpec, MetricTarget};
use hpa::{Autoscaler, Duration, Hpa, HpaSpec, Instant, MetricValues, Observation, Pod};
use hpa::{PodSamples, Quantity, Sample, Settings};

fn hpa(metrics: &'static [MetricSpec<'static>]) -> Hpa<'static> {
    let spec = Box::leak(Box::new(HpaSpec {
        min_replicas: Some(1),
        max_replicas: 100,
        metrics,
        behavior: None,
        scale_target_ref: None,
    }));
    Hpa::new(spec, &Settings::DEFAULT).unwrap()
}

static REQUESTS: [ResourceRequest<'static>; 1] = [ResourceRequest {
    resource: "cpu",
    quantity: Quantity::from_milli(500),
}];
static CONTAINERS: [Container<'static>; 1] = [Container {
    name: "app",
    kind: ContainerKind::Regular,
    requests: &REQUESTS,
}];
static NEGATIVE_REQUESTS: [ResourceRequest<'static>; 1] = [ResourceRequest {
    resource: "cpu",
    quantity: Quantity::from_milli(-500),
}];
static NEGATIVE_CONTAINERS: [Container<'static>; 1] = [Container {
    name: "app",
    kind: ContainerKind::Regular,
    requests: &NEGATIVE_REQUESTS,
}];

/// A pod ready for an hour, or deleted (ignored by the calculators).
fn pod(containers: &'static [Container<'static>], deleted: bool) -> Pod<'static> {
    Pod {
        name: "web",
        phase: PodPhase::Running,
        ready: Some(ReadyCondition {
            status: ConditionStatus::True,
            last_transition: Some(Instant(-3_600_000)),
        }),
        start_time: Some(Instant(-3_600_000)),
        deleted,
        containers,
        requests: None,
    }
}

fn sample(milli: i64) -> Option<Sample<'static>> {
    Some(Sample {
        milli,
        timestamp: Instant(0),
        window: Duration::from_secs(60),
        containers: &[],
    })
}

/// Each metric's reading and proposal after one evaluation with 4 replicas.
fn readings(
    hpa: &Hpa<'static>,
    pods: &'static [Pod<'static>],
    values: &'static [MetricValues<'static>],
) -> Vec<(Reading, i32)> {
    let obs = Observation {
        now: Instant(0),
        replicas: 4,
        status_replicas: 4,
        pods,
        metrics: values,
    };
    let d = Autoscaler::<1000, 608>::new()
        .evaluate(hpa, &Settings::DEFAULT, &obs)
        .unwrap();
    d.metrics
        .iter()
        .zip(values)
        .map(|(m, v)| match m {
            MetricOutcome::Proposal(p) => {
                (reading(p.spec, v, &obs, &Settings::DEFAULT), p.replicas)
            }
            MetricOutcome::Error(e) => panic!("{e}"),
        })
        .collect()
}

fn leak<T>(v: Vec<T>) -> &'static [T] {
    Vec::leak(v)
}

#[test]
fn external_and_object_readings() {
    static METRICS: [MetricSpec<'static>; 3] = [
        MetricSpec::external(
            MetricIdentifier::named("queue"),
            MetricTarget::average_value(Quantity::from_milli(1000)),
        ),
        MetricSpec::external(
            MetricIdentifier::named("backlog"),
            MetricTarget::value(Quantity::from_milli(1000)),
        ),
        MetricSpec::object(
            CrossVersionObjectReference {
                kind: "Service",
                name: "front",
                api_version: "v1",
            },
            MetricIdentifier::named("rps"),
            MetricTarget::value(Quantity::from_milli(10_000)),
        ),
    ];
    let hpa = hpa(&METRICS);
    let pods = leak(vec![pod(&CONTAINERS, false)]);
    let series = |v: Vec<i64>| MetricValues::External(leak(v));
    let cases = [
        // Plain readings.
        (
            [
                series(vec![2000, 2000]),
                series(vec![1000]),
                MetricValues::Object(10_000),
            ],
            [
                (Reading::Plain, 4),
                (Reading::Plain, 4),
                (Reading::Plain, 4),
            ],
        ),
        // A negative entry: upstream's per-pod guard takes the sum as MaxInt64; the value
        // target sums it (1 - 5 = -4 against 1: ceil(-4 × 1 ready pod)); a negative Object
        // value proposes ceil(-0.5 × 1) = 0.
        (
            [
                series(vec![2000, -5000]),
                series(vec![1000, -5000]),
                MetricValues::Object(-5000),
            ],
            [
                (Reading::TreatedAsOverflow, i32::MAX),
                (Reading::Negative, -4),
                (Reading::Negative, 0),
            ],
        ),
        // A sum beyond int64: the guard again; a negative entry with a positive total.
        (
            [
                series(vec![i64::MAX, 1]),
                series(vec![3000, -1000]),
                MetricValues::Object(10_000),
            ],
            [
                (Reading::TreatedAsOverflow, i32::MAX),
                (Reading::Negative, 2),
                (Reading::Plain, 4),
            ],
        ),
    ];
    for (values, expected) in cases {
        assert_eq!(readings(&hpa, pods, leak(values.to_vec())), expected);
    }
}

#[test]
fn pod_readings() {
    static METRICS: [MetricSpec<'static>; 2] = [
        MetricSpec::resource("cpu", MetricTarget::utilization(50)),
        MetricSpec::pods(
            MetricIdentifier::named("qps"),
            MetricTarget::average_value(Quantity::from_milli(1000)),
        ),
    ];
    let hpa = hpa(&METRICS);
    let run = |pods: Vec<Pod<'static>>, cpu: Vec<Option<Sample<'static>>>, qps| {
        let n = pods.len();
        let qps: Vec<Option<Sample<'static>>> = qps;
        assert_eq!((cpu.len(), qps.len()), (n, n));
        let values = vec![
            MetricValues::Pods(PodSamples {
                per_pod: leak(cpu),
                orphans: &[],
            }),
            MetricValues::Pods(PodSamples {
                per_pod: leak(qps),
                orphans: &[],
            }),
        ];
        readings(&hpa, leak(pods), leak(values))
    };
    let ready = || pod(&CONTAINERS, false);
    // Plain: 250m of 500m (50 %) and 1 per pod.
    let plain = run(
        vec![ready(), ready()],
        vec![sample(250), sample(250)],
        vec![sample(1000), sample(1000)],
    );
    assert_eq!(plain, [(Reading::Plain, 4), (Reading::Plain, 4)]);
    // A negative sample of a ready pod.
    let negative = run(
        vec![ready(), ready()],
        vec![sample(250), sample(-250)],
        vec![sample(1000), sample(-3000)],
    );
    assert_eq!(kinds(&negative), [Reading::Negative, Reading::Negative]);
    // A negative request: upstream divides by the requests' sum as it is.
    let request = run(
        vec![ready(), pod(&NEGATIVE_CONTAINERS, false), ready()],
        vec![sample(250), sample(250), sample(250)],
        vec![sample(1000), sample(1000), sample(1000)],
    );
    assert_eq!(kinds(&request), [Reading::Negative, Reading::Plain]);
    // A deleted pod is ignored: its negative sample and request count for nothing.
    let ignored = run(
        vec![ready(), pod(&NEGATIVE_CONTAINERS, true)],
        vec![sample(250), sample(-250)],
        vec![sample(1000), sample(-1000)],
    );
    assert_eq!(kinds(&ignored), [Reading::Plain, Reading::Plain]);
}

/// The readings alone.
fn kinds(outcomes: &[(Reading, i32)]) -> Vec<Reading> {
    outcomes.iter().map(|(r, _)| *r).collect()
}
