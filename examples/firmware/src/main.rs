//! Replays the bundled traces, a sample of the upstream traces (`upstream-sample.txt`) and the
//! replica calculator conformance cases on a Cortex-M0 (QEMU `microbit`, semihosting), from the
//! binary form `build.rs` stored in flash.
//!
//! Prints one line `digest <trace-name> <hex>` per trace (the same digest `hpa replay --digest`
//! prints on the host), `stack <bytes>` (the deepest stack one evaluation used, measured by
//! painting the stack), then `conformance: N passed, M failed`, and exits with status 0 only
//! when every trace replayed and every case passed. No `core::fmt` is linked: numbers are
//! printed by hand, so the image has no formatting machinery and no panic path (the panic
//! handler calls an undefined symbol: a reachable panic fails the link).
#![no_std]
#![no_main]

mod decode;
mod out;
mod stack;
mod varint;

use core::panic::PanicInfo;

use cortex_m_rt::entry;
use cortex_m_semihosting::debug::{self, EXIT_FAILURE, EXIT_SUCCESS};
use hpa::conditions::{ConditionStatus, ConditionType, Reason};
use hpa::digest::{error_kind, Digest};
use hpa::metrics::{
    evaluate_metric, group_pod, pod_request, CalcContext, MetricOutcome, PodGroup, Readiness,
    RequestError, Tolerances,
};
use hpa::{Autoscaler, Hpa, Sample};

use decode::{Reader, SpecPools, CASES_DATA, TRACES};

extern "C" {
    fn hpa_firmware_panic_path_is_reachable() -> !;
}

#[panic_handler]
fn panic(_: &PanicInfo) -> ! {
    // SAFETY: never defined; referencing it turns a reachable panic into a link error.
    unsafe { hpa_firmware_panic_path_is_reachable() }
}

/// The HPA state, in static RAM.
static mut STATE: Autoscaler = Autoscaler::new();

#[entry]
fn main() -> ! {
    let mut ok = true;
    let mut deepest = 0;
    match replay_traces(&mut deepest) {
        Some(all) => ok &= all,
        None => {
            out::line(&[b"error: the trace data does not decode"]);
            ok = false;
        }
    }
    out::write(b"stack ");
    out::uint(deepest as u64);
    out::line(&[b" bytes: deepest evaluation (evaluate, rescale report, digest)"]);
    match run_cases() {
        Some((passed, failed)) => {
            out::write(b"conformance: ");
            out::uint(passed);
            out::write(b" passed, ");
            out::uint(failed);
            out::line(&[b" failed"]);
            ok &= failed == 0;
        }
        None => {
            out::line(&[b"error: the conformance data does not decode"]);
            ok = false;
        }
    }
    debug::exit(if ok { EXIT_SUCCESS } else { EXIT_FAILURE });
    #[allow(clippy::empty_loop)]
    loop {}
}

/// Replays every trace; `Some(false)` when a trace was refused by the engine.
fn replay_traces(deepest: &mut usize) -> Option<bool> {
    // SAFETY: single-threaded firmware without interrupts; the only reference to STATE.
    let state = unsafe { &mut *core::ptr::addr_of_mut!(STATE) };
    let mut r = Reader::new(TRACES);
    let mut all = true;
    let mut pools = SpecPools::new();
    for _ in 0..r.usize()? {
        let name = r.str()?;
        let scaled_to_zero = r.flag()?;
        let settings = r.settings()?;
        r.spec(&mut pools)?;
        let spec = pools.spec();
        let steps = r.usize()?;
        let hpa = match Hpa::new(&spec, &settings) {
            Ok(h) => h,
            Err(_) => {
                out::line(&[b"error ", name.as_bytes(), b": the spec does not validate"]);
                // The steps that follow cannot be skipped without decoding them: stop here.
                return Some(false);
            }
        };
        *state = Autoscaler::new();
        if scaled_to_zero {
            state.status_mut().conditions.set(
                ConditionType::ScaledToZero,
                ConditionStatus::True,
                Reason::ScaledToZero,
            );
        }
        let mut digest = Digest::new();
        let mut refused = false;
        for _ in 0..steps {
            let done = r.with_step(|obs, applied| {
                let mut accepted = false;
                let used = stack::measure(|| {
                    // Filled in place: the decision is not copied out of the engine.
                    let mut d = hpa::Decision::new();
                    if state.evaluate_into(&hpa, &settings, obs, &mut d).is_ok() {
                        if d.rescale {
                            if applied {
                                state.rescale_succeeded();
                            } else {
                                state.rescale_failed();
                            }
                        }
                        digest.step(&d, &state.status());
                        accepted = true;
                    }
                });
                *deepest = (*deepest).max(used);
                accepted
            })?;
            refused |= !done;
        }
        if refused {
            out::line(&[b"error ", name.as_bytes(), b": the engine refused a step"]);
            all = false;
        } else {
            out::line(&[b"digest ", name.as_bytes(), b" ", &digest.hex()]);
        }
    }
    Some(all)
}

/// Runs every conformance case; `(passed, failed)`.
fn run_cases() -> Option<(u64, u64)> {
    let mut r = Reader::new(CASES_DATA);
    let n = r.usize()?;
    let mut names: heapless::Vec<&'static str, { decode::CASES }> = heapless::Vec::new();
    for _ in 0..n {
        let name = r.str()?;
        names.push(name).ok()?;
    }
    let (mut passed, mut failed) = (0, 0);
    for name in &names {
        if run_case(&mut r)? {
            passed += 1;
        } else {
            failed += 1;
            out::line(&[b"FAIL ", name.as_bytes()]);
        }
    }
    Some((passed, failed))
}

/// One case: kind 0 `evaluate_metric` (`cases`), 1 `group_pods`, 2 `calculate_requests`.
fn run_case(r: &mut Reader) -> Option<bool> {
    match r.u8()? {
        0 => {
            let settings = r.settings()?;
            let tolerances = Tolerances {
                down: r.tolerance()?,
                up: r.tolerance()?,
            };
            let current = r.i32()?;
            let now = r.instant()?;
            let spec = r.metric_spec()?;
            let outcome = r.with_pods_and_values(|pods, values| {
                let obs = hpa::Observation {
                    now,
                    replicas: current,
                    status_replicas: current,
                    pods,
                    metrics: values,
                };
                let ctx = CalcContext {
                    obs: &obs,
                    settings: &settings,
                    tolerances,
                    current,
                };
                let outcome = values.first().map(|v| evaluate_metric(&ctx, &spec, v));
                // What the expectation is compared with: (error kind) or the proposal.
                match outcome {
                    Some(MetricOutcome::Proposal(p)) => Some(Ok((
                        p.replicas,
                        p.average_utilization,
                        p.value,
                        p.average_value,
                    ))),
                    Some(MetricOutcome::Error(e)) => Some(Err(error_kind(&e))),
                    None => None,
                }
            })??;
            Some(match r.u8()? {
                1 => {
                    let want = r.u8()?;
                    outcome == Err(want)
                }
                0 => {
                    let replicas = r.opt_i64()?;
                    let utilization = r.opt_i64()?;
                    let raw_is_value = r.flag()?;
                    let raw = r.opt_i64()?;
                    match outcome {
                        Ok((rep, util, value, average)) => {
                            replicas == Some(i64::from(rep))
                                && utilization == util.map(i64::from)
                                && raw == if raw_is_value { value } else { average }
                        }
                        Err(_) => false,
                    }
                }
                _ => return None,
            })
        }
        1 => {
            let rules = Readiness {
                cpu: r.flag()?,
                cpu_initialization_period: r.duration()?,
                initial_readiness_delay: r.duration()?,
                now: r.instant()?,
            };
            let want_ready = r.i64()?;
            let mut ready = 0_i64;
            let mut ok = true;
            for _ in 0..r.usize()? {
                let pod = r.bare_pod()?;
                let sample = if r.flag()? {
                    Some(Sample {
                        milli: r.i64()?,
                        timestamp: r.instant()?,
                        window: r.duration()?,
                        containers: &[],
                    })
                } else {
                    None
                };
                let want = r.u8()?;
                let group = match group_pod(&pod, sample.as_ref(), &rules) {
                    PodGroup::Ready => 0,
                    PodGroup::Unready => 1,
                    PodGroup::Missing => 2,
                    PodGroup::Ignored => 3,
                };
                ready += i64::from(group == 0);
                ok &= group == want;
            }
            let names_listed = r.flag()?;
            Some(ok && names_listed && ready == want_ready)
        }
        2 => {
            let resource = r.str()?;
            let container = r.opt_str()?;
            // (first error kind, or every pod's request) computed inside the pools' scope.
            let mut got: heapless::Vec<i64, { decode::MAX_PODS }> = heapless::Vec::new();
            let (error, n_pods) = r.with_pods_and_values(|pods, _| {
                for pod in pods {
                    match pod_request(pod, container, resource) {
                        Ok(v) => {
                            if got.push(v).is_err() {
                                return (Some(0), pods.len());
                            }
                        }
                        Err(e) => return (Some(request_kind(&e)), pods.len()),
                    }
                }
                (None, pods.len())
            })?;
            Some(match r.u8()? {
                1 => {
                    let want = r.u8()?;
                    error == Some(want)
                }
                0 => {
                    let names_match = r.flag()?;
                    let mut ok = names_match && error.is_none();
                    for i in 0..n_pods {
                        ok &= r.opt_i64()? == got.get(i).copied();
                    }
                    ok
                }
                _ => return None,
            })
        }
        _ => None,
    }
}

/// The digest's kind code of a request error.
fn request_kind(e: &RequestError<'_>) -> u8 {
    match e {
        RequestError::MissingRequest { .. } => 32,
        RequestError::ContainerNotFound { .. } => 33,
        RequestError::MissingPodLevelRequest { .. } => 34,
    }
}
