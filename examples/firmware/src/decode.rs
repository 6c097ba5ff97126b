//! The firmware's compact binary form of traces and conformance cases, written by `build.rs`
//! and read here without allocation and without any panic path.
//!
//! # Layout
//!
//! Integers are LEB128 varints: unsigned ones as they are, signed ones zigzag-encoded
//! (`(v << 1) ^ (v >> 127)`), up to 128 bits (`src/varint.rs`, shared with `build.rs`). A flag or a code is one byte. An optional value is
//! a flag followed by the value when the flag is 1. A string is `(offset, length)` into
//! `strings.bin`, where every distinct string is stored once (UTF-8). A quantity is its
//! mantissa (signed), exponent (signed) and format code (0 DecimalExponent, 1 BinarySI,
//! 2 DecimalSI), as `Quantity::parts` returns them. A tolerance is its decimal mantissa
//! (unsigned) and exponent (signed). Durations and instants are signed milliseconds.
//!
//! * Settings: tolerance, downscale window, CPU initialization period, readiness delay,
//!   scale-to-zero flag, configurable-tolerance flag, arithmetic (0 kubernetes, 1 exact),
//!   legacy scale-up factor and minimum.
//! * Spec: optional minReplicas, maxReplicas, metric count and metrics (type code, then each
//!   source field as an optional group), optional behavior (two optional rule groups: optional
//!   window, select-policy code, optional policy list, optional tolerance quantity), optional
//!   scaleTargetRef.
//! * Observation (pods and metric values), as pools read in this order: requests (every
//!   container's requests in pod order, then the pod-level requests), container usages of
//!   every sample, external values, containers (name, kind, request count), pods (name,
//!   phase, ready condition, start time, deleted, container count, optional pod-level request
//!   count), samples (value, timestamp, window, usage count), then one entry per metric:
//!   `0` pod samples (slot count, one presence flag per pod, orphan count), `1` object value,
//!   `2` external (value count), `3` fetch error (message). Each count consumes the next
//!   entries of its pool.
//! * `traces.bin`: trace count, then per trace: name, ScaledToZero seed flag, settings, spec,
//!   step count, steps (at, replicas, statusReplicas, applied flag, observation).
//! * `cases.bin`: case count, the case names, then per case a kind byte and its body (see
//!   `main.rs`, `run_case`).

use cortex_m_semihosting as _;
use heapless::Vec;
use hpa::input::{
    ConditionStatus, Container, ContainerKind, ContainerUsage, MetricValues, Observation, Pod,
    PodPhase, PodSamples, ReadyCondition, ResourceRequest, Sample,
};
use hpa::quantity::{Format, Quantity};
use hpa::settings::{Arithmetic, Settings};
use hpa::spec::{
    Behavior, ContainerResourceMetricSource, CrossVersionObjectReference, ExternalMetricSource,
    HpaSpec, MetricIdentifier, MetricSourceType, MetricSpec, MetricTarget, MetricTargetType,
    ObjectMetricSource, PodsMetricSource, PolicyType, ResourceMetricSource, ScalingPolicy,
    ScalingRules, SelectPolicy,
};
use hpa::time::{Duration, Instant};
use hpa::Tolerance;

use crate::varint;

include!(concat!(env!("OUT_DIR"), "/capacity.rs"));

/// Every string of the data, once.
pub static STRINGS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/strings.bin"));
/// The bundled traces.
pub static TRACES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/traces.bin"));
/// The replica calculator conformance cases.
pub static CASES_DATA: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/cases.bin"));

/// A cursor over one of the blobs. Every read returns `None` past the end or on a malformed
/// value; the caller reports a decode error. A clone reads the same data again from where the
/// original was.
#[derive(Clone)]
pub struct Reader {
    data: &'static [u8],
    pos: usize,
    /// Added to every instant read: the offset of a clock that restarted (see `main.rs`,
    /// `reboot`), 0 otherwise.
    clock_offset: i64,
}

impl Reader {
    /// A reader at the start of `data`.
    pub const fn new(data: &'static [u8]) -> Reader {
        Reader {
            data,
            pos: 0,
            clock_offset: 0,
        }
    }

    /// Moves every instant read from now on by `offset` milliseconds.
    pub fn set_clock_offset(&mut self, offset: i64) {
        self.clock_offset = offset;
    }

    /// One byte.
    pub fn u8(&mut self) -> Option<u8> {
        let b = *self.data.get(self.pos)?;
        self.pos = self.pos.checked_add(1)?;
        Some(b)
    }

    /// A flag (0 or 1).
    pub fn flag(&mut self) -> Option<bool> {
        match self.u8()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }

    fn uv(&mut self) -> Option<u128> {
        varint::read(|| self.u8())
    }

    fn sv(&mut self) -> Option<i128> {
        Some(varint::unzigzag(self.uv()?))
    }

    /// A count.
    pub fn usize(&mut self) -> Option<usize> {
        usize::try_from(self.uv()?).ok()
    }

    /// A signed 64-bit integer.
    pub fn i64(&mut self) -> Option<i64> {
        i64::try_from(self.sv()?).ok()
    }

    /// A signed 32-bit integer.
    pub fn i32(&mut self) -> Option<i32> {
        i32::try_from(self.sv()?).ok()
    }

    fn u64(&mut self) -> Option<u64> {
        u64::try_from(self.uv()?).ok()
    }

    /// A string from `strings.bin`.
    pub fn str(&mut self) -> Option<&'static str> {
        let off = self.usize()?;
        let len = self.usize()?;
        let bytes = STRINGS.get(off..off.checked_add(len)?)?;
        core::str::from_utf8(bytes).ok()
    }

    /// An optional string.
    pub fn opt_str(&mut self) -> Option<Option<&'static str>> {
        Some(if self.flag()? {
            Some(self.str()?)
        } else {
            None
        })
    }

    fn opt_i32(&mut self) -> Option<Option<i32>> {
        Some(if self.flag()? {
            Some(self.i32()?)
        } else {
            None
        })
    }

    /// An optional signed 64-bit integer.
    pub fn opt_i64(&mut self) -> Option<Option<i64>> {
        Some(if self.flag()? {
            Some(self.i64()?)
        } else {
            None
        })
    }

    /// An instant, moved by the clock offset.
    pub fn instant(&mut self) -> Option<Instant> {
        Some(Instant(self.i64()?.checked_add(self.clock_offset)?))
    }

    fn opt_instant(&mut self) -> Option<Option<Instant>> {
        Some(if self.flag()? {
            Some(self.instant()?)
        } else {
            None
        })
    }

    /// A duration.
    pub fn duration(&mut self) -> Option<Duration> {
        Some(Duration(self.i64()?))
    }

    fn quantity(&mut self) -> Option<Quantity> {
        let mantissa = self.sv()?;
        let exponent = self.i32()?;
        let format = match self.u8()? {
            0 => Format::DecimalExponent,
            1 => Format::BinarySI,
            2 => Format::DecimalSI,
            _ => return None,
        };
        Some(Quantity::from_parts(mantissa, exponent, format))
    }

    fn opt_quantity(&mut self) -> Option<Option<Quantity>> {
        Some(if self.flag()? {
            Some(self.quantity()?)
        } else {
            None
        })
    }

    /// A tolerance (decimal mantissa and exponent; its float64 is computed on the target).
    pub fn tolerance(&mut self) -> Option<Tolerance> {
        let mantissa = self.u64()?;
        let exp10 = self.i32()?;
        Tolerance::from_decimal(mantissa, exp10)
    }

    /// Controller settings.
    pub fn settings(&mut self) -> Option<Settings> {
        Some(Settings {
            tolerance: self.tolerance()?,
            downscale_stabilization_window: self.duration()?,
            cpu_initialization_period: self.duration()?,
            initial_readiness_delay: self.duration()?,
            scale_to_zero: self.flag()?,
            configurable_tolerance: self.flag()?,
            arithmetic: match self.u8()? {
                0 => Arithmetic::Kubernetes,
                1 => Arithmetic::Exact,
                _ => return None,
            },
            legacy_scale_up_factor: self.i32()?,
            legacy_scale_up_minimum: self.i32()?,
        })
    }

    fn object_ref(&mut self) -> Option<CrossVersionObjectReference<'static>> {
        Some(CrossVersionObjectReference {
            kind: self.str()?,
            name: self.str()?,
            api_version: self.str()?,
        })
    }

    fn identifier(&mut self) -> Option<MetricIdentifier<'static>> {
        Some(MetricIdentifier {
            name: self.str()?,
            selector: self.opt_str()?,
            selector_invalid: self.flag()?,
        })
    }

    fn target(&mut self) -> Option<MetricTarget> {
        Some(MetricTarget {
            type_: match self.u8()? {
                0 => None,
                1 => Some(MetricTargetType::Utilization),
                2 => Some(MetricTargetType::Value),
                3 => Some(MetricTargetType::AverageValue),
                _ => return None,
            },
            value: self.opt_quantity()?,
            average_value: self.opt_quantity()?,
            average_utilization: self.opt_i32()?,
        })
    }

    /// One metric of a spec.
    pub fn metric_spec(&mut self) -> Option<MetricSpec<'static>> {
        let type_ = match self.u8()? {
            0 => None,
            1 => Some(MetricSourceType::Object),
            2 => Some(MetricSourceType::Pods),
            3 => Some(MetricSourceType::Resource),
            4 => Some(MetricSourceType::ContainerResource),
            5 => Some(MetricSourceType::External),
            _ => return None,
        };
        let object = if self.flag()? {
            Some(ObjectMetricSource {
                described_object: self.object_ref()?,
                metric: self.identifier()?,
                target: self.target()?,
            })
        } else {
            None
        };
        let pods = if self.flag()? {
            Some(PodsMetricSource {
                metric: self.identifier()?,
                target: self.target()?,
            })
        } else {
            None
        };
        let resource = if self.flag()? {
            Some(ResourceMetricSource {
                name: self.str()?,
                target: self.target()?,
            })
        } else {
            None
        };
        let container_resource = if self.flag()? {
            Some(ContainerResourceMetricSource {
                name: self.str()?,
                container: self.str()?,
                target: self.target()?,
            })
        } else {
            None
        };
        let external = if self.flag()? {
            Some(ExternalMetricSource {
                metric: self.identifier()?,
                target: self.target()?,
            })
        } else {
            None
        };
        Some(MetricSpec {
            type_,
            object,
            pods,
            resource,
            container_resource,
            external,
        })
    }

    fn rules(
        &mut self,
        policies: &mut Vec<ScalingPolicy, MAX_POLICIES>,
    ) -> Option<Option<RulesShape>> {
        if !self.flag()? {
            return Some(None);
        }
        let window = self.opt_i32()?;
        let select = match self.u8()? {
            0 => None,
            1 => Some(SelectPolicy::Max),
            2 => Some(SelectPolicy::Min),
            3 => Some(SelectPolicy::Disabled),
            _ => return None,
        };
        let has_policies = self.flag()?;
        if has_policies {
            for _ in 0..self.usize()? {
                let type_ = match self.u8()? {
                    0 => PolicyType::Pods,
                    1 => PolicyType::Percent,
                    _ => return None,
                };
                policies
                    .push(ScalingPolicy {
                        type_,
                        value: self.i32()?,
                        period_seconds: self.i32()?,
                    })
                    .ok()?;
            }
        }
        Some(Some(RulesShape {
            window,
            select,
            has_policies,
            tolerance: self.opt_quantity()?,
        }))
    }

    /// A spec, into `pools`; build the borrowed [`HpaSpec`] with [`SpecPools::spec`].
    pub fn spec(&mut self, pools: &mut SpecPools) -> Option<()> {
        pools.min = self.opt_i32()?;
        pools.max = self.i32()?;
        pools.metrics.clear();
        pools.up.clear();
        pools.down.clear();
        for _ in 0..self.usize()? {
            let m = self.metric_spec()?;
            pools.metrics.push(m).ok()?;
        }
        pools.behavior = if self.flag()? {
            Some((self.rules(&mut pools.up)?, self.rules(&mut pools.down)?))
        } else {
            None
        };
        pools.target = if self.flag()? {
            Some(self.object_ref()?)
        } else {
            None
        };
        Some(())
    }
}

/// The shape of one direction's rules; the policies sit in a pool.
#[derive(Clone, Copy)]
pub struct RulesShape {
    window: Option<i32>,
    select: Option<SelectPolicy>,
    has_policies: bool,
    tolerance: Option<Quantity>,
}

impl RulesShape {
    fn build(self, policies: &[ScalingPolicy]) -> ScalingRules<'_> {
        ScalingRules {
            stabilization_window_seconds: self.window,
            select_policy: self.select,
            policies: if self.has_policies {
                Some(policies)
            } else {
                None
            },
            tolerance: self.tolerance,
        }
    }
}

/// Storage for one decoded spec.
pub struct SpecPools {
    min: Option<i32>,
    max: i32,
    metrics: Vec<MetricSpec<'static>, MAX_METRICS>,
    up: Vec<ScalingPolicy, MAX_POLICIES>,
    down: Vec<ScalingPolicy, MAX_POLICIES>,
    behavior: Option<(Option<RulesShape>, Option<RulesShape>)>,
    target: Option<CrossVersionObjectReference<'static>>,
}

impl SpecPools {
    /// Empty storage.
    pub const fn new() -> SpecPools {
        SpecPools {
            min: None,
            max: 0,
            metrics: Vec::new(),
            up: Vec::new(),
            down: Vec::new(),
            behavior: None,
            target: None,
        }
    }

    /// The decoded spec, borrowing this storage.
    pub fn spec(&self) -> HpaSpec<'_> {
        HpaSpec {
            min_replicas: self.min,
            max_replicas: self.max,
            metrics: &self.metrics,
            behavior: self.behavior.map(|(up, down)| Behavior {
                scale_up: up.map(|r| r.build(&self.up)),
                scale_down: down.map(|r| r.build(&self.down)),
            }),
            scale_target_ref: self.target,
        }
    }
}

/// A pod before its slices are attached.
#[derive(Clone, Copy)]
struct RawPod {
    name: &'static str,
    phase: PodPhase,
    ready: Option<ReadyCondition>,
    start_time: Option<Instant>,
    deleted: bool,
    containers: usize,
    requests: Option<usize>,
}

#[derive(Clone, Copy)]
struct RawSample {
    milli: i64,
    timestamp: Instant,
    window: Duration,
    usages: usize,
}

#[derive(Clone, Copy)]
enum RawValues {
    Pods { slots: usize, orphans: usize },
    Object(i64),
    External(usize),
    Error(&'static str),
}

/// Takes the next `n` entries of a pool.
fn take<'p, T>(pool: &'p [T], cursor: &mut usize, n: usize) -> Option<&'p [T]> {
    let end = cursor.checked_add(n)?;
    let slice = pool.get(*cursor..end)?;
    *cursor = end;
    Some(slice)
}

/// Pod phase from its code.
pub fn phase(code: u8) -> Option<PodPhase> {
    Some(match code {
        0 => PodPhase::Pending,
        1 => PodPhase::Running,
        2 => PodPhase::Succeeded,
        3 => PodPhase::Failed,
        4 => PodPhase::Unknown,
        _ => return None,
    })
}

impl Reader {
    fn raw_pod(&mut self) -> Option<RawPod> {
        let name = self.str()?;
        let phase = phase(self.u8()?)?;
        let ready = if self.flag()? {
            let status = match self.u8()? {
                0 => ConditionStatus::True,
                1 => ConditionStatus::False,
                2 => ConditionStatus::Unknown,
                _ => return None,
            };
            Some(ReadyCondition {
                status,
                last_transition: self.opt_instant()?,
            })
        } else {
            None
        };
        Some(RawPod {
            name,
            phase,
            ready,
            start_time: self.opt_instant()?,
            deleted: self.flag()?,
            containers: self.usize()?,
            requests: if self.flag()? {
                Some(self.usize()?)
            } else {
                None
            },
        })
    }

    /// A pod without containers (group_pods cases).
    pub fn bare_pod(&mut self) -> Option<Pod<'static>> {
        let raw = self.raw_pod()?;
        Some(Pod {
            name: raw.name,
            phase: raw.phase,
            ready: raw.ready,
            start_time: raw.start_time,
            deleted: raw.deleted,
            containers: &[],
            requests: None,
        })
    }

    /// Decodes an observation's pods and metric values and calls `f` with them.
    pub fn with_pods_and_values<T>(
        &mut self,
        f: impl FnOnce(&[Pod<'_>], &[MetricValues<'_>]) -> T,
    ) -> Option<T> {
        // Leaf pools.
        let mut requests: Vec<ResourceRequest<'static>, MAX_REQUESTS> = Vec::new();
        for _ in 0..self.usize()? {
            let r = ResourceRequest {
                resource: self.str()?,
                quantity: self.quantity()?,
            };
            requests.push(r).ok()?;
        }
        let mut usages: Vec<ContainerUsage<'static>, MAX_USAGES> = Vec::new();
        for _ in 0..self.usize()? {
            let u = ContainerUsage {
                name: self.str()?,
                milli: self.i64()?,
            };
            usages.push(u).ok()?;
        }
        let mut external: Vec<i64, MAX_EXTERNAL> = Vec::new();
        for _ in 0..self.usize()? {
            let v = self.i64()?;
            external.push(v).ok()?;
        }
        // Containers.
        let mut request_cursor = 0;
        let mut containers: Vec<Container<'_>, MAX_CONTAINERS> = Vec::new();
        for _ in 0..self.usize()? {
            let name = self.str()?;
            let kind = match self.u8()? {
                0 => ContainerKind::Regular,
                1 => ContainerKind::RestartableInit,
                2 => ContainerKind::Init,
                _ => return None,
            };
            let n = self.usize()?;
            let c = Container {
                name,
                kind,
                requests: take(&requests, &mut request_cursor, n)?,
            };
            containers.push(c).ok()?;
        }
        // Pods.
        let mut raw_pods: Vec<RawPod, MAX_PODS> = Vec::new();
        for _ in 0..self.usize()? {
            let p = self.raw_pod()?;
            raw_pods.push(p).ok()?;
        }
        let mut container_cursor = 0;
        let mut pods: Vec<Pod<'_>, MAX_PODS> = Vec::new();
        for raw in &raw_pods {
            let pod_containers = take(&containers, &mut container_cursor, raw.containers)?;
            let pod_requests = match raw.requests {
                Some(n) => Some(take(&requests, &mut request_cursor, n)?),
                None => None,
            };
            let p = Pod {
                name: raw.name,
                phase: raw.phase,
                ready: raw.ready,
                start_time: raw.start_time,
                deleted: raw.deleted,
                containers: pod_containers,
                requests: pod_requests,
            };
            pods.push(p).ok()?;
        }
        // Samples.
        let mut raw_samples: Vec<RawSample, MAX_SAMPLES> = Vec::new();
        for _ in 0..self.usize()? {
            let s = RawSample {
                milli: self.i64()?,
                timestamp: self.instant()?,
                window: self.duration()?,
                usages: self.usize()?,
            };
            raw_samples.push(s).ok()?;
        }
        let mut usage_cursor = 0;
        let mut samples: Vec<Sample<'_>, MAX_SAMPLES> = Vec::new();
        for raw in &raw_samples {
            let s = Sample {
                milli: raw.milli,
                timestamp: raw.timestamp,
                window: raw.window,
                containers: take(&usages, &mut usage_cursor, raw.usages)?,
            };
            samples.push(s).ok()?;
        }
        // Metric values: first their shapes and the per-pod slots, then the slices.
        let mut sample_cursor = 0;
        let mut slots: Vec<Option<Sample<'_>>, MAX_SLOTS> = Vec::new();
        let mut shapes: Vec<(RawValues, usize), MAX_METRICS> = Vec::new();
        for _ in 0..self.usize()? {
            let shape = match self.u8()? {
                0 => {
                    let n = self.usize()?;
                    for _ in 0..n {
                        let slot = if self.flag()? {
                            Some(*take(&samples, &mut sample_cursor, 1)?.first()?)
                        } else {
                            None
                        };
                        slots.push(slot).ok()?;
                    }
                    let orphans = self.usize()?;
                    let start = sample_cursor;
                    take(&samples, &mut sample_cursor, orphans)?;
                    (RawValues::Pods { slots: n, orphans }, start)
                }
                1 => (RawValues::Object(self.i64()?), 0),
                2 => (RawValues::External(self.usize()?), 0),
                3 => (RawValues::Error(self.str()?), 0),
                _ => return None,
            };
            shapes.push(shape).ok()?;
        }
        let mut slot_cursor = 0;
        let mut external_cursor = 0;
        let mut values: Vec<MetricValues<'_>, MAX_METRICS> = Vec::new();
        for &(shape, orphan_start) in &shapes {
            let v = match shape {
                RawValues::Pods { slots: n, orphans } => {
                    let mut orphan_cursor = orphan_start;
                    MetricValues::Pods(PodSamples {
                        per_pod: take(&slots, &mut slot_cursor, n)?,
                        orphans: take(&samples, &mut orphan_cursor, orphans)?,
                    })
                }
                RawValues::Object(v) => MetricValues::Object(v),
                RawValues::External(n) => {
                    MetricValues::External(take(&external, &mut external_cursor, n)?)
                }
                RawValues::Error(msg) => MetricValues::Error(msg),
            };
            values.push(v).ok()?;
        }
        Some(f(&pods, &values))
    }

    /// Decodes a trace step's observation and calls `f` with it and the step's `applied`.
    pub fn with_step<T>(&mut self, f: impl FnOnce(&Observation<'_>, bool) -> T) -> Option<T> {
        let now = self.instant()?;
        let replicas = self.i32()?;
        let status_replicas = self.i32()?;
        let applied = self.flag()?;
        self.with_pods_and_values(|pods, metrics| {
            let obs = Observation {
                now,
                replicas,
                status_replicas,
                pods,
                metrics,
            };
            f(&obs, applied)
        })
    }
}
