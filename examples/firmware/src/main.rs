//! Replays the bundled traces, a sample of the upstream traces (`upstream-sample.txt`) and the
//! replica calculator conformance cases on a Cortex-M0 (QEMU `microbit`, semihosting), from the
//! binary form `build.rs` stored in flash.
//!
//! Each trace is replayed twice, each time with a reboot half-way through: the state is saved
//! into a flash page, the autoscaler reset to `Autoscaler::new()` and restored from the page.
//! The first replay restores on the same clock and prints `digest <trace-name> <hex>` (the
//! same digest `hpa replay --digest` prints on the host for an uninterrupted replay); the
//! second restores on a clock that restarted and prints `digest-shifted <trace-name> <hex>`,
//! which must be the same. Then one line `snapshot <trace-name>: ...` gives the snapshot's
//! length at the reboot and after the last step. Then `stack <bytes>` lines (the deepest stack
//! one evaluation, one save and one restore used, measured by painting the stack), then
//! `conformance: N passed, M failed`, and the program exits with status 0 only when every
//! trace replayed and every case passed. No `core::fmt` is linked: numbers are printed by
//! hand, so the image has no formatting machinery and no panic path (the panic handler calls
//! an undefined symbol: a reachable panic fails the link).
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
use hpa::settings::Settings;
use hpa::time::Instant;
use hpa::{Autoscaler, Hpa, HpaSpec, Sample};

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

/// A new autoscaler's state, copied into `STATE` from flash: `Autoscaler::new()` in an
/// assignment would build it on the stack first (2 KB) and then copy it.
const NEW: Autoscaler = Autoscaler::new();

/// Stands for the flash page a firmware keeps its state in across a reboot (here in RAM: QEMU
/// need not program flash). Big enough for any snapshot of the state, though the traces' take
/// far less (`snapshot` lines).
static mut FLASH_PAGE: [u8; <Autoscaler>::SNAPSHOT_MAX_BYTES] =
    [0; <Autoscaler>::SNAPSHOT_MAX_BYTES];

/// The clock of the shifted replay after its reboot: a day and 7 ms behind the clock the state
/// was saved on, as a monotonic clock that restarted at power-on is. Not a whole number of
/// seconds, so no policy period or window boundary lines up with the saved clock's.
const CLOCK_SHIFT_MS: i64 = -86_400_007;

#[entry]
fn main() -> ! {
    let mut ok = true;
    let mut deepest = Deepest::default();
    match replay_traces(&mut deepest) {
        Some(all) => ok &= all,
        None => {
            out::line(&[b"error: the trace data does not decode"]);
            ok = false;
        }
    }
    for (bytes, what) in [
        (
            deepest.evaluation,
            &b" bytes: deepest evaluation (evaluate, rescale report, digest)"[..],
        ),
        (deepest.save, b" bytes: deepest save (Autoscaler::save)"),
        (
            deepest.restore,
            b" bytes: deepest restore (Autoscaler::restore)",
        ),
    ] {
        out::write(b"stack ");
        out::uint(bytes as u64);
        out::line(&[what]);
    }
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

/// The deepest stack each part used, measured by painting (`stack.rs`).
#[derive(Default)]
struct Deepest {
    evaluation: usize,
    save: usize,
    restore: usize,
}

/// A trace's configuration, decoded once for both of its replays.
struct Trace<'a> {
    hpa: &'a Hpa<'a>,
    settings: &'a Settings,
    scaled_to_zero: bool,
    steps: usize,
}

/// A replay that went through its reboot.
struct Replayed {
    digest: Digest,
    /// The step whose evaluation the state was saved after.
    reboot_step: usize,
    /// The snapshot's length then, and after the last step.
    saved_bytes: usize,
    end_bytes: usize,
}

/// Why a replay has no digest.
#[derive(Clone, Copy)]
enum Failure {
    Refused,
    Save,
    Restore,
}

impl Failure {
    fn text(self) -> &'static [u8] {
        match self {
            Failure::Refused => b"the engine refused a step",
            Failure::Save => b"the state was not saved",
            Failure::Restore => b"the saved state was not restored",
        }
    }
}

/// Replays every trace twice, each with a reboot half-way through: on the same clock (the
/// `digest` line, which `.ci/firmware` compares with the host's uninterrupted replay) and on
/// a shifted one (`digest-shifted`, which must be the same); `Some(false)` when a replay
/// failed. Not inlined into `main`, nor `run_cases`: their frames are not live at once.
#[inline(never)]
fn replay_traces(deepest: &mut Deepest) -> Option<bool> {
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
        let hpa = match validated(&spec, &settings) {
            Some(h) => h,
            None => {
                out::line(&[b"error ", name.as_bytes(), b": the spec does not validate"]);
                // The steps that follow cannot be skipped without decoding them: stop here.
                return Some(false);
            }
        };
        let trace = Trace {
            hpa: &hpa,
            settings: &settings,
            scaled_to_zero,
            steps,
        };
        let mut again = r.clone();
        let same_clock = replay(&mut r, &trace, 0, deepest)?;
        let shifted = replay(&mut again, &trace, CLOCK_SHIFT_MS, deepest)?;
        for (label, clock, outcome) in [
            (&b"digest "[..], &b"same"[..], &same_clock),
            (b"digest-shifted ", b"shifted", &shifted),
        ] {
            match outcome {
                Ok(t) => out::line(&[label, name.as_bytes(), b" ", &t.digest.hex()]),
                Err(f) => {
                    let (name, text) = (name.as_bytes(), f.text());
                    out::line(&[b"error ", name, b": ", text, b" (", clock, b" clock)"]);
                    all = false;
                }
            }
        }
        if let Ok(t) = &same_clock {
            out::write(b"snapshot ");
            out::write(name.as_bytes());
            out::write(b": ");
            out::uint(t.saved_bytes as u64);
            out::write(b" bytes after step ");
            out::uint(t.reboot_step as u64 + 1);
            out::write(b" of ");
            out::uint(steps as u64);
            out::write(b", ");
            out::uint(t.end_bytes as u64);
            out::line(&[b" bytes after the last"]);
        }
    }
    Some(all)
}

/// `Hpa::new` in a frame of its own, which is not live while the trace replays.
#[inline(never)]
fn validated<'a>(spec: &'a HpaSpec<'a>, settings: &Settings) -> Option<Hpa<'a>> {
    Hpa::new(spec, settings).ok()
}

/// Replays a trace's steps from `r` into the state, with a [`reboot`] after the evaluation of
/// the middle step (before its rescale report, so that a pending rescale is saved too) that
/// restores on a clock `shift` ms from the saved one; the later steps' instants move by
/// `shift` too. While no history entry is folded (docs/spec/snapshot.md#time), the decisions
/// are then those of an uninterrupted replay at instants moved by `shift`, which the digest
/// folds moved back: every shift gives the uninterrupted replay's digest. A failure is reported after the last step,
/// so that `r` always ends after the trace.
fn replay(
    r: &mut Reader,
    trace: &Trace<'_>,
    shift: i64,
    deepest: &mut Deepest,
) -> Option<Result<Replayed, Failure>> {
    // SAFETY: single-threaded firmware without interrupts; the only reference to STATE.
    let state = unsafe { &mut *core::ptr::addr_of_mut!(STATE) };
    *state = NEW;
    if trace.scaled_to_zero {
        state.status_mut().conditions.set(
            ConditionType::ScaledToZero,
            ConditionStatus::True,
            Reason::ScaledToZero,
        );
    }
    let reboot_step = trace.steps / 2;
    let mut digest = Digest::new();
    let mut failure = None;
    let mut saved_bytes = 0;
    let mut last = None;
    for step in 0..trace.steps {
        let offset = if step > reboot_step { shift } else { 0 };
        r.set_clock_offset(offset);
        let (now, accepted, used) = r.with_step(|obs, applied| {
            let mut accepted = false;
            let used = stack::measure(|| {
                // Filled in place: the decision is not copied out of the engine.
                let mut d = hpa::Decision::new();
                if state
                    .evaluate_into(trace.hpa, trace.settings, obs, &mut d)
                    .is_err()
                {
                    return;
                }
                if step == reboot_step {
                    match reboot(state, obs.now, shift, deepest) {
                        Ok(len) => saved_bytes = len,
                        Err(f) => failure = failure.or(Some(f)),
                    }
                }
                if d.rescale {
                    if applied {
                        state.rescale_succeeded();
                    } else {
                        state.rescale_failed();
                    }
                }
                d.at = Instant(d.at.millis().wrapping_sub(offset));
                digest.step(&d, &state.status());
                accepted = true;
            });
            (obs.now, accepted, used)
        })?;
        // The reboot's own frames are measured as save and restore, not as an evaluation.
        if step != reboot_step {
            deepest.evaluation = deepest.evaluation.max(used);
        }
        if !accepted {
            failure = failure.or(Some(Failure::Refused));
        }
        last = Some(now);
    }
    r.set_clock_offset(0);
    // After the last step: how large the state has grown, and that it restores.
    let end_bytes = match last {
        Some(now) => reboot(state, now, 0, deepest),
        None => Ok(0),
    };
    Some(match (failure, end_bytes) {
        (Some(f), _) | (None, Err(f)) => Err(f),
        (None, Ok(end_bytes)) => Ok(Replayed {
            digest,
            reboot_step,
            saved_bytes,
            end_bytes,
        }),
    })
}

/// Saves the state to the flash page as it is at `now`, resets the autoscaler as a reboot
/// does and restores it on the clock that runs after the reboot, `shift` ms from the saved
/// one (docs/spec/snapshot.md#time). Returns the snapshot's length.
#[inline(never)]
fn reboot(
    state: &mut Autoscaler,
    now: Instant,
    shift: i64,
    deepest: &mut Deepest,
) -> Result<usize, Failure> {
    // SAFETY: single-threaded firmware without interrupts; the only reference to FLASH_PAGE.
    let page = unsafe { &mut *core::ptr::addr_of_mut!(FLASH_PAGE) };
    let mut saved = Err(Failure::Save);
    let used = stack::measure(|| saved = state.save(now, page).map_err(|_| Failure::Save));
    deepest.save = deepest.save.max(used);
    let len = saved?;
    *state = NEW;
    let restart = Instant(now.millis().checked_add(shift).ok_or(Failure::Restore)?);
    let snapshot = page.get(..len).ok_or(Failure::Restore)?;
    let mut restored = Err(Failure::Restore);
    let used = stack::measure(|| {
        restored = state
            .restore(snapshot, restart)
            .map_err(|_| Failure::Restore)
    });
    deepest.restore = deepest.restore.max(used);
    restored.map(|()| len)
}

/// Runs every conformance case; `(passed, failed)`.
#[inline(never)]
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
