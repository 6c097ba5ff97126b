//! Pod grouping (algorithm spec section 7) and requests (section 8).

use crate::input::{ConditionStatus, Container, ContainerKind, Pod, PodPhase, ResourceRequest};
use crate::input::{ReadyCondition, Sample};
use crate::quantity::Quantity;
use crate::time::{Duration, Instant};

/// Which group a pod falls into for a pod-based metric (upstream `groupPods`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PodGroup {
    /// Counted: its sample is used as is.
    Ready,
    /// Pending, or (cpu only) not ready / still initializing: its sample is dropped, and it
    /// counts as 0 on a scale-up.
    Unready,
    /// No sample: filled in on the second pass.
    Missing,
    /// Deleted or Failed: its sample is dropped and never filled in.
    Ignored,
}

/// The readiness rules `groupPods` applies.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Readiness {
    /// Whether the cpu-only readiness rules apply (Resource/ContainerResource on `cpu`).
    pub cpu: bool,
    /// The controller's CPU initialization period (`Settings::cpu_initialization_period`).
    pub cpu_initialization_period: Duration,
    /// The controller's initial readiness delay (`Settings::initial_readiness_delay`).
    pub initial_readiness_delay: Duration,
    /// The evaluation time.
    pub now: Instant,
}

/// Groups one pod (spec section 7). `sample` is the pod's sample for this metric, if any.
pub fn group_pod(pod: &Pod<'_>, sample: Option<&Sample<'_>>, rules: &Readiness) -> PodGroup {
    group(pod, sample, &Grouping::new(rules))
}

/// [`Readiness`] with the initialization cutoff computed once per evaluation, so that the
/// common pod (started long ago, Ready) costs a few compares.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Grouping {
    cpu: bool,
    /// Every pod is still initializing: `now - period` lies below every instant.
    all_initializing: bool,
    /// A pod that started after `now - period` (saturating) is still initializing.
    init_cutoff: i64,
    initial_readiness_delay: Duration,
}

impl Grouping {
    pub(crate) fn new(rules: &Readiness) -> Self {
        // `now < start + period` exactly is `start > now - period` exactly; below the i64
        // range (period > 0) every start is after it, above it (period < 0, saturated to
        // i64::MAX) none is.
        let period = rules.cpu_initialization_period.0;
        let (init_cutoff, all_initializing) = match rules.now.0.checked_sub(period) {
            Some(t) => (t, false),
            None => (i64::MAX, period > 0),
        };
        Grouping {
            cpu: rules.cpu,
            all_initializing,
            init_cutoff,
            initial_readiness_delay: rules.initial_readiness_delay,
        }
    }

    /// The pod started less than the initialization period before now.
    #[inline(always)]
    fn initializing(&self, start: Instant) -> bool {
        start.0 > self.init_cutoff || self.all_initializing
    }
}

/// [`group_pod`] with the cutoff precomputed.
#[inline(always)]
pub(crate) fn group(pod: &Pod<'_>, sample: Option<&Sample<'_>>, rules: &Grouping) -> PodGroup {
    if pod.deleted || pod.phase == PodPhase::Failed {
        return PodGroup::Ignored;
    }
    if pod.phase == PodPhase::Pending {
        return PodGroup::Unready;
    }
    let Some(sample) = sample else {
        return PodGroup::Missing;
    };
    if rules.cpu {
        // The common pod: Ready, started before the initialization period. Inline on 64-bit
        // targets only: elsewhere the call below decides the same at a smaller code size.
        if let (
            Some(ReadyCondition {
                status: ConditionStatus::True,
                ..
            }),
            Some(start),
        ) = (pod.ready, pod.start_time)
        {
            if cfg!(target_pointer_width = "64") && !rules.initializing(start) {
                return PodGroup::Ready;
            }
        }
        if cpu_unready(pod, sample, rules) {
            return PodGroup::Unready;
        }
    }
    PodGroup::Ready
}

/// The cpu readiness rule: unready while initializing unless a full window was collected
/// since the pod became ready, and afterwards only if it never became ready.
#[inline(never)]
fn cpu_unready(pod: &Pod<'_>, sample: &Sample<'_>, rules: &Grouping) -> bool {
    let (Some(ready), Some(start)) = (pod.ready, pod.start_time) else {
        return true;
    };
    let ReadyCondition {
        status,
        last_transition,
    } = ready;
    // Still within the initialization period: `start + period` is after `now`.
    if rules.initializing(start) {
        // An unset transition time lies before any time: its window ended long ago.
        status == ConditionStatus::False
            || last_transition.is_some_and(|t| sample.timestamp.is_before_offset(t, sample.window))
    } else {
        status == ConditionStatus::False
            // It never became ready: `start + delay` is after the transition.
            && last_transition.is_none_or(|t| t.is_before_offset(start, rules.initial_readiness_delay))
    }
}

/// Why a pod's request could not be computed (these fail the whole metric).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RequestError<'a> {
    /// `missing request for <resource> in container <container> of Pod <pod>`.
    MissingRequest {
        /// Resource name.
        resource: &'a str,
        /// Container name.
        container: &'a str,
        /// Pod name.
        pod: &'a str,
    },
    /// `container <container> not found in Pod <pod>`.
    ContainerNotFound {
        /// Container name.
        container: &'a str,
        /// Pod name.
        pod: &'a str,
    },
    /// `missing pod-level request for <resource> in Pod <pod>`.
    MissingPodLevelRequest {
        /// Resource name.
        resource: &'a str,
        /// Pod name.
        pod: &'a str,
    },
}

impl core::fmt::Display for RequestError<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            RequestError::MissingRequest {
                resource,
                container,
                pod,
            } => write!(
                f,
                "missing request for {resource} in container {container} of Pod {pod}"
            ),
            RequestError::ContainerNotFound { container, pod } => {
                write!(f, "container {container} not found in Pod {pod}")
            }
            RequestError::MissingPodLevelRequest { resource, pod } => {
                write!(f, "missing pod-level request for {resource} in Pod {pod}")
            }
        }
    }
}

fn find_request(requests: &[ResourceRequest<'_>], resource: &str) -> Option<Quantity> {
    requests
        .iter()
        .find(|r| same(r.resource, resource))
        .map(|r| r.quantity)
}

/// Resources a pod-level request may set (PodLevelResources).
fn is_pod_level_resource(resource: &str) -> bool {
    same(resource, "cpu") || same(resource, "memory") || resource.starts_with("hugepages-")
}

/// A pod's request for `resource` in milli-units (spec section 8). `container` is the
/// ContainerResource container, or `None` for Resource metrics. Pod-level requests
/// (`Pod::requests`) are used as with the PodLevelResources gate on; pass a pod without them
/// to model the gate off.
///
/// # Errors
///
/// [`RequestError`] when a counted container lacks the request, the named container does not
/// exist, or neither pod-level nor container requests name the resource.
pub fn pod_request<'a>(
    pod: &Pod<'a>,
    container: Option<&'a str>,
    resource: &'a str,
) -> Result<i64, RequestError<'a>> {
    match (pod.requests, container) {
        (Some(pod_level), None) if pod_level.iter().any(|r| is_pod_level_resource(r.resource)) => {
            pod_level_request(pod, pod_level, resource)
        }
        _ => container_requests(pod, container, resource),
    }
}

/// `resourcehelpers.PodRequests` for one resource: the pod-level value for cpu, memory and
/// hugepages when set, else the containers aggregated exactly and rounded once.
fn pod_level_request<'a>(
    pod: &Pod<'a>,
    pod_level: &[ResourceRequest<'a>],
    resource: &'a str,
) -> Result<i64, RequestError<'a>> {
    if is_pod_level_resource(resource) {
        if let Some(q) = find_request(pod_level, resource) {
            return Ok(q.milli_value());
        }
    }
    match aggregate_container_requests(pod.containers, resource) {
        Some(nano) => Ok(nano_to_milli(nano)),
        None => Err(RequestError::MissingPodLevelRequest {
            resource,
            pod: pod.name,
        }),
    }
}

/// Sum of regular containers and sidecars, against the largest init-time footprint (a plain
/// init container plus the sidecars started before it), in exact nano-units. `None` when no
/// container requests the resource.
#[inline(never)]
fn aggregate_container_requests(containers: &[Container<'_>], resource: &str) -> Option<i128> {
    let mut any = false;
    // Σ of regular containers and sidecars, and whether there was one.
    let mut total: i128 = 0;
    let mut counted = false;
    let mut sidecars: i128 = 0;
    // The largest init-time footprint; i128::MIN (below or equal to any footprint) for none.
    let mut init_peak = i128::MIN;
    for c in containers {
        let Some(q) = find_request(c.requests, resource) else {
            continue;
        };
        let v = q.nano_value();
        any = true;
        let footprint = match c.kind {
            ContainerKind::Regular => {
                total = saturating_add(total, v);
                counted = true;
                continue;
            }
            ContainerKind::RestartableInit => {
                total = saturating_add(total, v);
                counted = true;
                sidecars = saturating_add(sidecars, v);
                sidecars
            }
            ContainerKind::Init => saturating_add(v, sidecars),
        };
        init_peak = init_peak.max(footprint);
    }
    // Without an init-time footprint, max(total, i128::MIN) is the total.
    any.then_some(if counted {
        total.max(init_peak)
    } else {
        init_peak
    })
}

/// `a + b` saturating, as one call (each inlined 128-bit saturating addition is about a
/// hundred bytes of code on a Cortex-M0).
#[inline(never)]
fn saturating_add(a: i128, b: i128) -> i128 {
    a.saturating_add(b)
}

/// `MilliValue()` of an exact nano-unit amount: rounds up, negatives away from zero.
fn nano_to_milli(nano: i128) -> i64 {
    let (q, r) = crate::arith::div_small(nano.unsigned_abs(), 1_000_000);
    let magnitude = u64::try_from(q.saturating_add(u128::from(r != 0))).unwrap_or(u64::MAX);
    if nano < 0 {
        0_i64.checked_sub_unsigned(magnitude).unwrap_or(i64::MIN)
    } else {
        i64::try_from(magnitude).unwrap_or(i64::MAX)
    }
}

/// `calculatePodRequestsFromContainers`: regular containers then sidecars, each counted
/// container must request the resource; with a container name only that one counts.
fn container_requests<'a>(
    pod: &Pod<'a>,
    container: Option<&'a str>,
    resource: &'a str,
) -> Result<i64, RequestError<'a>> {
    let counted = |c: &&Container<'a>| c.kind != ContainerKind::Init;
    if let Some(name) = container {
        // Container names are unique in a pod, so the first match is upstream's.
        let Some(c) = pod
            .containers
            .iter()
            .filter(counted)
            .find(|c| same(c.name, name))
        else {
            return Err(RequestError::ContainerNotFound {
                container: name,
                pod: pod.name,
            });
        };
        return match find_request(c.requests, resource) {
            Some(q) => Ok(q.milli_value()),
            None => Err(RequestError::MissingRequest {
                resource,
                container: c.name,
                pod: pod.name,
            }),
        };
    }
    // One pass in any order; only an error needs upstream's order (regular, then sidecars).
    let mut sum = crate::arith::Sum::default();
    for c in pod.containers.iter().filter(counted) {
        match find_request(c.requests, resource) {
            Some(q) => sum.push(q.milli_value()),
            None => return Err(first_missing_request(pod, resource)),
        }
    }
    Ok(sum.clamped())
}

/// The container upstream names when some counted container lacks the request.
fn first_missing_request<'a>(pod: &Pod<'a>, resource: &'a str) -> RequestError<'a> {
    let in_order = pod
        .containers
        .iter()
        .filter(|c| c.kind == ContainerKind::Regular)
        .chain(
            pod.containers
                .iter()
                .filter(|c| c.kind == ContainerKind::RestartableInit),
        );
    let container = in_order
        .filter(|c| find_request(c.requests, resource).is_none())
        .map(|c| c.name)
        .next()
        .unwrap_or("");
    RequestError::MissingRequest {
        resource,
        container,
        pod: pod.name,
    }
}

/// String equality as an inlined byte loop: resource and container names are short, and a
/// `memcmp` call per pod dominated the evaluation time.
#[inline]
pub(crate) fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| x == y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::ReadyCondition;

    fn req(resource: &'static str, milli: i64) -> ResourceRequest<'static> {
        ResourceRequest {
            resource,
            quantity: Quantity::from_milli(milli),
        }
    }

    fn pod<'a>(
        containers: &'a [Container<'a>],
        requests: Option<&'a [ResourceRequest<'a>]>,
    ) -> Pod<'a> {
        Pod {
            name: "p",
            phase: PodPhase::Running,
            ready: Some(ReadyCondition {
                status: ConditionStatus::True,
                last_transition: None,
            }),
            start_time: Some(Instant(0)),
            deleted: false,
            containers,
            requests,
        }
    }

    #[test]
    fn sidecars_count_and_plain_init_containers_do_not() {
        let r1 = [req("cpu", 300)];
        let r2 = [req("cpu", 100)];
        let r3 = [req("cpu", 5000)];
        let cs = [
            Container {
                name: "app",
                kind: ContainerKind::Regular,
                requests: &r1,
            },
            Container {
                name: "init",
                kind: ContainerKind::Init,
                requests: &r3,
            },
            Container {
                name: "side",
                kind: ContainerKind::RestartableInit,
                requests: &r2,
            },
        ];
        let p = pod(&cs, None);
        assert_eq!(pod_request(&p, None, "cpu"), Ok(400));
        assert_eq!(pod_request(&p, Some("side"), "cpu"), Ok(100));
        assert_eq!(
            pod_request(&p, Some("nope"), "cpu"),
            Err(RequestError::ContainerNotFound {
                container: "nope",
                pod: "p"
            })
        );
        assert_eq!(
            pod_request(&p, None, "memory"),
            Err(RequestError::MissingRequest {
                resource: "memory",
                container: "app",
                pod: "p"
            })
        );
    }

    #[test]
    fn pod_level_requests_and_exact_aggregation() {
        let a = [ResourceRequest {
            resource: "cpu",
            quantity: Quantity::parse("0.2995").unwrap_or(Quantity::from_milli(0)),
        }];
        let b = [ResourceRequest {
            resource: "cpu",
            quantity: Quantity::parse("0.0495").unwrap_or(Quantity::from_milli(0)),
        }];
        let cs = [
            Container {
                name: "a",
                kind: ContainerKind::Regular,
                requests: &a,
            },
            Container {
                name: "b",
                kind: ContainerKind::Regular,
                requests: &b,
            },
        ];
        let pod_level = [req("memory", 1000)];
        let p = pod(&cs, Some(&pod_level));
        // cpu is not in the pod-level map: containers aggregate exactly, rounded once.
        assert_eq!(pod_request(&p, None, "cpu"), Ok(349));
        assert_eq!(pod_request(&p, None, "memory"), Ok(1000));
        assert_eq!(
            pod_request(&p, None, "nvidia.com/gpu"),
            Err(RequestError::MissingPodLevelRequest {
                resource: "nvidia.com/gpu",
                pod: "p"
            })
        );
        // A named container takes precedence over pod-level requests.
        assert_eq!(pod_request(&p, Some("a"), "cpu"), Ok(300));
    }

    #[test]
    fn init_container_peak_wins_when_larger() {
        let big = [req("cpu", 2000)];
        let small = [req("cpu", 100)];
        let cs = [
            Container {
                name: "s1",
                kind: ContainerKind::RestartableInit,
                requests: &small,
            },
            Container {
                name: "i",
                kind: ContainerKind::Init,
                requests: &big,
            },
            Container {
                name: "app",
                kind: ContainerKind::Regular,
                requests: &small,
            },
        ];
        let pod_level = [req("memory", 1)];
        let p = pod(&cs, Some(&pod_level));
        assert_eq!(pod_request(&p, None, "cpu"), Ok(2100));
    }

    #[test]
    fn initialization_cutoff_matches_is_before_offset() {
        let edges = [
            i64::MIN,
            i64::MIN + 1,
            i64::MIN / 2,
            -60_000,
            -1,
            0,
            1,
            60_000,
            i64::MAX / 2,
            i64::MAX - 1,
            i64::MAX,
        ];
        for now in edges {
            for period in edges {
                let rules = Readiness {
                    cpu: true,
                    cpu_initialization_period: Duration(period),
                    initial_readiness_delay: Duration(0),
                    now: Instant(now),
                };
                let g = Grouping::new(&rules);
                for start in edges {
                    assert_eq!(
                        g.initializing(Instant(start)),
                        Instant(now).is_before_offset(Instant(start), Duration(period)),
                        "now {now} period {period} start {start}"
                    );
                }
            }
        }
    }
}
