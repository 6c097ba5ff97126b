//! Cost probe: the host benchmark's scenario (`benches/evaluate.rs`; its data in
//! `benches/scenario/data.rs`, which this includes) on the Cortex-M0, for a QEMU plugin to count
//! (checks/qemu-insn, run by `.ci/footprint`).
//!
//! A CPU utilization HPA with a behavior and pods of one template, warmed up as the benchmark
//! does: 240 evaluations 15 s apart with alternating load, reporting each rescale, so the
//! recommendation history is full and the event history holds rescales. Then one more
//! evaluation is measured. First an empty region, `markers-0`, the markers' own cost; then at
//! 10 and 100 pods:
//!
//! * `shared-<n>`: the warm-up through a [`SharedAutoscaler`] (the batch of samples stored with
//!   `update`, evaluate, last decision, rescale report, each one critical section), for the
//!   longest stretch with interrupts masked;
//! * `evaluate-<n>`: exactly one `Autoscaler::evaluate` on a copy of the warmed-up state (the
//!   benchmark's timed call);
//! * `shared-evaluate-<n>`: the same evaluation through the [`SharedAutoscaler`] (the
//!   samples' update, then `SharedAutoscaler::evaluate`), interrupts masked throughout;
//! * `checks-floor-<n>`: the benchmark's per-pod checks floor (`scenario::checks_floor`) on the
//!   same pods and samples, what the engine's cost per pod compares with.
//!
//! Before each region the probe prints `cost <name>`; the region is the code between the calls
//! of the marker functions `hpa_cost_begin` and `hpa_cost_end`, whose addresses the plugin
//! takes, and the plugin prints its figures when the end marker runs. Everything else
//! (copying the state, filling the samples) happens outside the regions.
#![no_std]
#![no_main]

#[path = "../out.rs"]
mod out;
#[path = "../../../../benches/scenario/data.rs"]
mod scenario;

use core::hint::black_box;
use core::panic::PanicInfo;

use cortex_m_rt::entry;
use cortex_m_semihosting::debug::{self, EXIT_FAILURE, EXIT_SUCCESS};
use hpa::input::Sample;
use hpa::shared::{Observe, SharedAutoscaler};
use hpa::{Autoscaler, Hpa, Instant, MetricValues, Observation, Pod, PodSamples, Settings};
use scenario::{checks_floor, sample, spec, usage, warm_up_load, MEASURED_LOAD, PERIOD_MS, POD};
use scenario::{REQUESTS, WARM_UP_STEPS};

/// Prints and fails the run (the link-time proof that the engine and `SharedAutoscaler` have no
/// panic path is checks/no-panic's).
#[panic_handler]
fn panic(_: &PanicInfo) -> ! {
    out::line(&[b"panic"]);
    debug::exit(EXIT_FAILURE);
    #[allow(clippy::empty_loop)]
    loop {}
}

const MAX_PODS: usize = 100;

/// In flash: the pods do not change.
static PODS: [Pod<'static>; MAX_PODS] = [POD; MAX_PODS];

/// The measured copy of the warmed-up state (`.bss`).
static mut STATE: Autoscaler = Autoscaler::new();

/// A fresh state to reset to, in flash (assigning `Autoscaler::new()` would build it on the
/// stack first).
static FRESH: Autoscaler = Autoscaler::new();

/// What the main loop maintains for the shared autoscaler: each pod's latest CPU usage and when
/// it was sampled, and how many pods run. The samples are built when the autoscaler observes
/// them: kept whole, they would take 3.2 KB more of the 16 KB of RAM.
struct Inputs {
    usage_milli: [i64; MAX_PODS],
    sampled_at: i64,
    pods: usize,
}

impl Observe for Inputs {
    fn observe<T>(&self, now: Instant, evaluate: impl FnOnce(&Observation<'_>) -> T) -> T {
        let mut samples = [None; MAX_PODS];
        for (s, &milli) in samples.iter_mut().zip(&self.usage_milli).take(self.pods) {
            *s = Some(sample(milli, self.sampled_at));
        }
        observe(now, samples.get(..self.pods).unwrap_or(&samples), evaluate)
    }
}

static SHARED: SharedAutoscaler<Inputs> = SharedAutoscaler::new(Inputs {
    usage_milli: [0; MAX_PODS],
    sampled_at: 0,
    pods: 0,
});

/// Region markers for the plugin. Each holds a different instruction sequence with a side
/// effect, so the compiler neither drops the calls nor merges the two functions into one
/// address.
#[inline(never)]
#[no_mangle]
pub extern "C" fn hpa_cost_begin() {
    // SAFETY: no operands, no effect on memory or flags.
    unsafe { core::arch::asm!("nop", options(nomem, nostack, preserves_flags)) }
}

#[inline(never)]
#[no_mangle]
pub extern "C" fn hpa_cost_end() {
    // SAFETY: as above.
    unsafe { core::arch::asm!("nop", "nop", options(nomem, nostack, preserves_flags)) }
}

/// Runs `f` as the region `name` (name and figures on one line each, the plugin's after the
/// probe's).
fn region<T>(name: &[u8], pods: usize, f: impl FnOnce() -> T) -> T {
    out::write(b"cost ");
    out::write(name);
    out::write(b"-");
    out::uint(pods as u64);
    out::write(b"\n");
    hpa_cost_begin();
    let result = f();
    hpa_cost_end();
    result
}

/// Calls `evaluate` with the observation at `now` of as many pods as there are `samples`.
fn observe<T>(
    now: Instant,
    samples: &[Option<Sample<'_>>],
    evaluate: impl FnOnce(&Observation<'_>) -> T,
) -> T {
    let pods = PODS.get(..samples.len()).unwrap_or(&PODS);
    let metrics = [MetricValues::Pods(PodSamples {
        per_pod: samples,
        orphans: &[],
    })];
    evaluate(&Observation {
        now,
        replicas: pods.len() as i32,
        status_replicas: pods.len() as i32,
        pods,
        metrics: &metrics,
    })
}

/// The main loop's batch update: every pod's usage under `load`, sampled at `t`. False if the
/// shared state was in use (never here: no call is made from inside another).
fn update_samples(pods: usize, t: i64, load: i64) -> bool {
    SHARED
        .update(|inputs| {
            for (i, u) in inputs.usage_milli.iter_mut().enumerate().take(pods) {
                *u = usage(i, load);
            }
            inputs.sampled_at = t;
            inputs.pods = pods;
        })
        .is_ok()
}

/// The benchmark's warm-up through the shared autoscaler, from a fresh state; returns the
/// time of the next evaluation (`None` if a call found the shared state in use).
fn warm_up(hpa: &Hpa<'_>, settings: &Settings, pods: usize) -> Option<i64> {
    SHARED.with_autoscaler(|a| a.clone_from(&FRESH)).ok()?;
    let mut t = 0;
    for step in 0..WARM_UP_STEPS {
        if !update_samples(pods, t, warm_up_load(step)) {
            return None;
        }
        if SHARED.evaluate(hpa, settings, Instant(t)).is_ok()
            && SHARED.last_decision().ok()?.is_some_and(|d| d.rescale)
        {
            SHARED.rescale_succeeded().ok()?;
        }
        t += PERIOD_MS;
    }
    Some(t)
}

/// One evaluation of the copy in `STATE` at `now`, as the benchmark times it.
#[inline(never)]
fn evaluate_copy(hpa: &Hpa<'_>, settings: &Settings, pods: usize, now: i64) -> Option<i32> {
    // SAFETY: single-threaded, no interrupt handler uses it; the only reference to STATE.
    let state = unsafe { &mut *core::ptr::addr_of_mut!(STATE) };
    let samples = measured_samples(pods, now);
    let samples = samples.get(..pods).unwrap_or(&samples);
    observe(Instant(now), samples, |obs| {
        region(b"evaluate", pods, || {
            state
                .evaluate(hpa, settings, black_box(obs))
                .map(|d| d.desired_replicas)
                .ok()
        })
    })
}

/// The measured evaluation's samples at `now` for `pods` pods.
fn measured_samples(pods: usize, now: i64) -> [Option<Sample<'static>>; MAX_PODS] {
    let mut samples = [None; MAX_PODS];
    for (i, s) in samples.iter_mut().enumerate().take(pods) {
        *s = Some(sample(usage(i, MEASURED_LOAD), now));
    }
    samples
}

/// The per-pod checks floor on the measured evaluation's pods and samples; whether it found
/// every pod ready, as the engine does.
#[inline(never)]
fn checks_floor_region(settings: &Settings, pods: usize, now: i64) -> bool {
    let samples = measured_samples(pods, now);
    let samples = samples.get(..pods).unwrap_or(&samples);
    let list = PODS.get(..pods).unwrap_or(&PODS);
    let init_cutoff = now - settings.cpu_initialization_period.as_millis();
    let request = REQUESTS.first().map_or(0, |r| r.quantity.milli_value());
    let (_, _, ready) = region(b"checks-floor", pods, || {
        black_box(checks_floor(
            black_box(list),
            black_box(samples),
            black_box(init_cutoff),
            black_box(request),
        ))
    });
    ready as usize == pods
}

#[entry]
fn main() -> ! {
    let spec = spec();
    let settings = Settings::DEFAULT;
    let Ok(hpa) = Hpa::new(&spec, &settings) else {
        out::line(&[b"invalid spec"]);
        debug::exit(EXIT_FAILURE);
        #[allow(clippy::empty_loop)]
        loop {}
    };
    // The markers' own cost, which .ci/footprint subtracts from the other regions.
    region(b"markers", 0, || ());
    let mut failed = false;
    for pods in [10, MAX_PODS] {
        let Some(now) = region(b"shared", pods, || warm_up(&hpa, &settings, pods)) else {
            failed = true;
            continue;
        };
        // SAFETY: as in `evaluate_copy`.
        let state = unsafe { &mut *core::ptr::addr_of_mut!(STATE) };
        failed |= SHARED.with_autoscaler(|a| state.clone_from(a)).is_err();
        let plain = evaluate_copy(&hpa, &settings, pods, now);
        let shared = region(b"shared-evaluate", pods, || {
            if update_samples(pods, now, MEASURED_LOAD) {
                SHARED.evaluate(&hpa, &settings, Instant(now)).ok()
            } else {
                None
            }
        });
        // Both paths must decide alike, or the figures would not be of the same evaluation.
        failed |= plain.is_none() || plain != shared.map(|d| d.desired_replicas);
        failed |= !checks_floor_region(&settings, pods, now);
    }
    if failed {
        out::line(&[b"the shared and the plain evaluation differ, or the floor missed a pod"]);
        debug::exit(EXIT_FAILURE);
    } else {
        debug::exit(EXIT_SUCCESS);
    }
    #[allow(clippy::empty_loop)]
    loop {}
}
