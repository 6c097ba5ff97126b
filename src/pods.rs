//! Pod grouping (docs/spec/pods.md#grouping) and requests (docs/spec/pods.md#requests).

use crate::input::{Amount, ReadyCondition, RequestView, Sample, SampleView};
use crate::input::{ConditionStatus, ContainerKind, ContainerView, Pod, PodPhase, PodView};
use crate::time::{Duration, Instant};
use crate::tuning::FAST_FORMS;

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

/// Groups one pod (docs/spec/pods.md#grouping); `sample` is its sample for this metric, if any.
pub fn group_pod(pod: &Pod<'_>, sample: Option<&Sample<'_>>, rules: &Readiness) -> PodGroup {
    group(pod, sample, &Grouping::new(rules))
}

/// [`Readiness`] with the initialization cutoff computed once per evaluation, so that the
/// common pod (started long ago, Ready) costs a few compares.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Grouping {
    cpu: bool,
    /// The evaluation time (a caller's sample may leave its timestamp to it).
    now: Instant,
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
            now: rules.now,
            all_initializing,
            init_cutoff,
            initial_readiness_delay: rules.initial_readiness_delay,
        }
    }

    /// The cutoff of [`plainly_ready`]: `Some(None)` without the cpu rule, `Some(Some(t))`
    /// with it (a pod started at or before `t` is no longer initializing), `None` when
    /// every pod is still initializing.
    pub(crate) fn settled_by(&self) -> Option<Option<i64>> {
        match (self.cpu, self.all_initializing) {
            (false, _) => Some(None),
            (true, false) => Some(Some(self.init_cutoff)),
            (true, true) => None,
        }
    }

    /// The pod started less than the initialization period before now.
    fn initializing(&self, start: Instant) -> bool {
        start.0 > self.init_cutoff || self.all_initializing
    }
}

/// [`group_pod`] with the cutoff precomputed.
// Inlined: 12 bytes less code and 16 less stack on a Cortex-M0.
#[inline(always)]
pub(crate) fn group<'a, P: PodView<'a>, S: SampleView<'a>>(
    pod: &P,
    sample: Option<&S>,
    rules: &Grouping,
) -> PodGroup {
    if pod.deleted() || pod.phase() == PodPhase::Failed {
        return PodGroup::Ignored;
    }
    if pod.phase() == PodPhase::Pending {
        return PodGroup::Unready;
    }
    let Some(sample) = sample else {
        return PodGroup::Missing;
    };
    if rules.cpu {
        // The common pod: Ready, started before the initialization period. Decided here on
        // hosts only: elsewhere the call below decides the same at a smaller code size.
        if FAST_FORMS && !rules.all_initializing && ready_since(pod, rules.init_cutoff) {
            return PodGroup::Ready;
        }
        if cpu_unready(pod, sample, rules) {
            return PodGroup::Unready;
        }
    }
    PodGroup::Ready
}

/// A pod that [`group`] puts in [`PodGroup::Ready`] by its first checks when it has a
/// sample: not deleted, neither Pending nor Failed and, with `settled_by` (the cpu rule,
/// from [`Grouping::settled_by`]), Ready and started at or before it (`false` leaves the
/// decision to [`group`]).
pub(crate) fn plainly_ready<'a, P: PodView<'a>>(pod: &P, settled_by: Option<i64>) -> bool {
    !pod.deleted()
        && pod.phase() != PodPhase::Failed
        && pod.phase() != PodPhase::Pending
        && settled_by.is_none_or(|cutoff| ready_since(pod, cutoff))
}

/// Ready, and started at or before `cutoff`: past the initialization period when `cutoff`
/// is the [`Grouping`]'s, which the cpu rule counts as ready without looking further.
fn ready_since<'a, P: PodView<'a>>(pod: &P, cutoff: i64) -> bool {
    matches!(
        pod.ready(),
        Some(ReadyCondition {
            status: ConditionStatus::True,
            ..
        })
    ) && pod.start_time().is_some_and(|start| start.0 <= cutoff)
}

/// The cpu readiness rule: unready while initializing unless a full window was collected
/// since the pod became ready, and afterwards only if it never became ready.
// Out of line on hosts (`crate::tuning::FAST_FORMS`), where it keeps the per-pod loop small;
// inlined elsewhere: 44 bytes less code on a Cortex-M0 (24 more stack).
#[cfg_attr(target_pointer_width = "64", inline(never))]
fn cpu_unready<'a, P: PodView<'a>, S: SampleView<'a>>(
    pod: &P,
    sample: &S,
    rules: &Grouping,
) -> bool {
    let (Some(ready), Some(start)) = (pod.ready(), pod.start_time()) else {
        return true;
    };
    let ReadyCondition {
        status,
        last_transition,
    } = ready;
    let not_ready = status == ConditionStatus::False;
    // Still within the initialization period (`start + period` is after `now`): unready if
    // not ready, or if its sample's window began before the pod became ready. Afterwards:
    // unready only if not ready and it never became ready (`start + delay` is after the
    // transition). Both time tests are `a < b + d`: one call.
    let initializing = rules.initializing(start);
    if initializing == not_ready {
        return not_ready;
    }
    // An unset transition time lies before any time: a window after it, no readiness after
    // the start.
    let Some(t) = last_transition else {
        return !initializing;
    };
    let (a, b, d) = if initializing {
        (sample.timestamp(rules.now), t, sample.window())
    } else {
        (t, start, rules.initial_readiness_delay)
    };
    a.is_before_offset(b, d)
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

/// The request for `resource`, by reference: a pointer returned in a register (a
/// returned `Option<Quantity>` went through memory and was copied again for the call that
/// reads it, on a Cortex-M0).
fn find_request<'r, 'a, R: RequestView<'a>>(
    requests: &'r [R],
    resource: &str,
) -> Option<&'r R::Amount> {
    requests
        .iter()
        .find(|r| same(r.resource(), resource))
        .map(|r| r.amount())
}

/// Whether a pod may request `resource` itself (PodLevelResources: cpu, memory and
/// `hugepages-<size>`, docs/spec/pods.md#pod-level-requests): [`pod_request`] uses a pod's
/// pod-level requests only when one of them names such a resource, and only for such a
/// resource.
pub fn is_pod_level_resource(resource: &str) -> bool {
    settable_by_pod(resource)
}

/// [`is_pod_level_resource`], private to the engine's path: its code on a Cortex-M0 stays as
/// it was before the public one existed.
fn settable_by_pod(resource: &str) -> bool {
    same(resource, "cpu") || same(resource, "memory") || starts_with(resource, "hugepages-")
}

/// A pod's request for `resource` in milli-units (docs/spec/pods.md#requests), as the engine
/// computes it for a pod of any [`PodView`]. `container` is the ContainerResource container,
/// or `None` for Resource metrics. Pod-level requests (`Pod::requests`) are used as with the
/// PodLevelResources gate on; pass a pod without them to model the gate off.
///
/// It reads the pod's containers and pod-level requests only, and its name only for the
/// error: pods with the same containers and requests get the same request, or the same
/// error but for the name.
///
/// # Errors
///
/// [`RequestError`] when a counted container lacks the request, the named container does not
/// exist, or neither pod-level nor container requests name the resource.
#[inline(always)]
pub fn pod_request<'a, P: PodView<'a>>(
    pod: &P,
    container: Option<&'a str>,
    resource: &'a str,
) -> Result<i64, RequestError<'a>> {
    request_of(pod, container, resource)
}

/// [`pod_request`] of any [`PodView`].
// Out of line on hosts (`crate::tuning::FAST_FORMS`): the per-pod loop reuses the last
// request, and the rare call keeps the loop's registers free.
#[cfg_attr(target_pointer_width = "64", inline(never))]
pub(crate) fn request_of<'r, 'a: 'r, P: PodView<'a>>(
    pod: &P,
    container: Option<&'r str>,
    resource: &'r str,
) -> Result<i64, RequestError<'r>> {
    match (pod.requests(), container) {
        (Some(pod_level), None) if pod_level.iter().any(|r| settable_by_pod(r.resource())) => {
            pod_level_request(pod, pod_level, resource)
        }
        _ => container_requests(pod, container, resource),
    }
}

/// `resourcehelpers.PodRequests` for one resource: the pod-level value for cpu, memory and
/// hugepages when set, else the containers aggregated exactly and rounded once.
fn pod_level_request<'r, 'a: 'r, P: PodView<'a>>(
    pod: &P,
    pod_level: &[P::Request],
    resource: &'r str,
) -> Result<i64, RequestError<'r>> {
    if settable_by_pod(resource) {
        if let Some(q) = find_request(pod_level, resource) {
            return Ok(q.milli_value());
        }
    }
    match aggregate_container_requests(pod.containers(), resource) {
        Some(milli) => Ok(milli),
        None => Err(RequestError::MissingPodLevelRequest {
            resource,
            pod: pod.name(),
        }),
    }
}

/// Sum of regular containers and sidecars, against the largest init-time footprint (a plain
/// init container plus the sidecars started before it), in exact nano-units rounded once to
/// milli-units. `None` when no container requests the resource.
///
/// The CLI's `aggregate` (cli/src/pod_template.rs) is the same rule (upstream's
/// `AggregateContainerRequests`) for the API server's defaulting of a pod's own requests: it
/// must give the Quantity stored in the pod, exact and in `Quantity.Add`'s format, and refuse
/// what does not fit, where the controller reads only this `MilliValue`, saturating. A shared
/// form would carry a format and an error through the engine's path, whose Cortex-M0 code has
/// no room for them.
// Inlined into its one caller: out of line it took 72 bytes less stack on a Cortex-M0 for 96
// bytes more code, and the code budget is the scarcer (the stack stays under its own).
fn aggregate_container_requests<'a, C: ContainerView<'a>>(
    containers: &[C],
    resource: &str,
) -> Option<i64> {
    let (mut any, mut counted) = (false, false);
    // Σ of regular containers and sidecars (`counted`: there was one), Σ of the sidecars so
    // far, and the largest init-time footprint (i128::MIN, below any footprint, for none).
    let (mut total, mut sidecars, mut peak) = (0_i128, 0_i128, i128::MIN);
    for c in containers {
        let Some(q) = find_request(c.requests(), resource) else {
            continue;
        };
        let mut v = q.nano_value();
        any = true;
        if c.kind() == ContainerKind::Init {
            add_to(&mut v, sidecars);
            raise(&mut peak, v);
            continue;
        }
        add_to(&mut total, v);
        counted = true;
        if c.kind() == ContainerKind::RestartableInit {
            add_to(&mut sidecars, v);
            raise(&mut peak, sidecars);
        }
    }
    if counted {
        raise(&mut peak, total);
    }
    any.then(|| nano_to_milli(peak))
}

/// `*acc += v` saturating, as one call (inlined, the 128-bit saturating additions cost 40
/// bytes more code on a Cortex-M0; in place, the sum is not copied in and out).
#[inline(never)]
fn add_to(acc: &mut i128, v: i128) {
    *acc = acc.saturating_add(v);
}

/// `*peak = max(*peak, v)`, as one call (36 bytes less code on a Cortex-M0).
#[inline(never)]
fn raise(peak: &mut i128, v: i128) {
    if v > *peak {
        *peak = v;
    }
}

/// `MilliValue()` of an exact nano-unit amount: rounds up, negatives away from zero.
fn nano_to_milli(nano: i128) -> i64 {
    let (q, r) = crate::arith::div_small(nano.unsigned_abs(), 1_000_000);
    // The quotient is below 2^108: adding 1 cannot overflow.
    crate::arith::signed(nano < 0, q.wrapping_add(u128::from(r != 0)))
}

/// `calculatePodRequestsFromContainers`: regular containers then sidecars, each counted
/// container must request the resource; with a container name only that one counts.
fn container_requests<'r, 'a: 'r, P: PodView<'a>>(
    pod: &P,
    container: Option<&'r str>,
    resource: &'r str,
) -> Result<i64, RequestError<'r>> {
    let mut sum = crate::arith::Sum::default();
    let mut found = false;
    // Upstream's order, regular containers then sidecars, names the first container that
    // lacks the request. Two rounds of one loop: iterating an array of the two kinds kept
    // the array in memory (52 bytes more code on a Cortex-M0).
    let mut kind = ContainerKind::Regular;
    loop {
        for c in pod.containers() {
            let counted = match container {
                // Container names are unique in a pod, so the first counted one of that name
                // (in list order, on the first round) is upstream's.
                Some(name) => {
                    !found
                        && kind == ContainerKind::Regular
                        && c.kind() != ContainerKind::Init
                        && same(c.name(), name)
                }
                None => c.kind() == kind,
            };
            if !counted {
                continue;
            }
            found = true;
            match find_request(c.requests(), resource) {
                Some(q) => sum.push(q.milli_value()),
                None => {
                    return Err(RequestError::MissingRequest {
                        resource,
                        container: c.name(),
                        pod: pod.name(),
                    })
                }
            }
        }
        if kind == ContainerKind::RestartableInit {
            break;
        }
        kind = ContainerKind::RestartableInit;
    }
    match container {
        Some(name) if !found => Err(RequestError::ContainerNotFound {
            container: name,
            pod: pod.name(),
        }),
        _ => Ok(crate::arith::clamp_sum(sum)),
    }
}

/// String equality as a byte loop: resource and container names are short, and a
/// `memcmp` call per pod dominated the evaluation time.
pub(crate) fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && starts_with(a, b)
}

/// `a.starts_with(prefix)` as a byte loop, the one of [`same`] (`str::starts_with` links
/// `memcmp` on a Cortex-M0, for this one call).
fn starts_with(a: &str, prefix: &str) -> bool {
    a.len() >= prefix.len() && a.bytes().zip(prefix.bytes()).all(|(x, y)| x == y)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::input::{Container, ReadyCondition, ResourceRequest};
    use crate::quantity::Quantity;

    fn req(resource: &'static str, milli: i64) -> ResourceRequest<'static> {
        ResourceRequest {
            resource,
            quantity: Quantity::from_milli(milli),
        }
    }

    /// A Running pod, Ready, started at 0.
    pub(crate) fn pod<'a>(
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
    fn resources_a_pod_may_request_itself() {
        for resource in ["cpu", "memory", "hugepages-2Mi", "hugepages-1Gi"] {
            assert!(is_pod_level_resource(resource), "{resource}");
        }
        for resource in [
            "nvidia.com/gpu",
            "ephemeral-storage",
            "cpus",
            "hugepages",
            "",
        ] {
            assert!(!is_pod_level_resource(resource), "{resource}");
        }
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
