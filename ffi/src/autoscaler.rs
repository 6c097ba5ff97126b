//! `hpa_autoscaler`: one HPA's controller state in storage the caller owns.

use core::ffi::{c_char, c_void};
use core::mem::{align_of, size_of};

use hpa::conditions::{ConditionStatus, ConditionType, Reason};
use hpa::{Autoscaler, EvaluateError, Hpa, Instant, Settings};

use crate::config::{self, hpa_config};
use crate::decision::{self, hpa_decision, hpa_scaling_status, Messages};
use crate::error::{hpa_field_error, Detail, Fault, Refusal};
use crate::observation::{self, hpa_observation, PodNames};
use crate::out::{field, uninit};
use crate::raw::{self, hpa_str, Outputs};
use crate::seal::{self, layout, Seal, EVENT_CAPACITY, RECOMMENDATION_CAPACITY, SEAL_BYTES};
use crate::snapshot;
use crate::status::hpa_status;
use crate::stored::{self, Loaded, StoredConfig};
use crate::{
    HPA_AUTOSCALER_ALIGN, HPA_AUTOSCALER_SIZE, HPA_MAX_METRICS, HPA_MESSAGE_CAPACITY,
    HPA_VERSION_NUMBER,
};

/// Storage for one autoscaler, owned by the caller (static, on the stack, in a struct or an
/// array): `HPA_AUTOSCALER_SIZE` bytes aligned to `HPA_AUTOSCALER_ALIGN`. Treat it as opaque.
///
/// `hpa_autoscaler_init` makes it an autoscaler; there is nothing to free. Other functions
/// refuse storage that was not initialized (`HPA_STATUS_UNINITIALIZED`): it starts with a
/// 64-bit marker, so zeroed or garbage bytes are refused, as is a state written by another
/// version of the library. Storage changed by anything but this library since its last call
/// (a stray write, a bit flip) is refused with `HPA_STATUS_CORRUPT_STATE`: each call checks
/// 64-bit digests of the state's parts (its fixed fields, the messages and the history's bytes
/// in use, the history in blocks, the configuration `hpa_autoscaler_configure` kept) before
/// reading it, and an evaluation stores again only those of the parts it changed. A change of
/// any single 64-bit word of the bytes in use is always refused, other damage but with a
/// probability of about 2^-64; bytes not in use are not looked at (damage there changes no
/// result). No bytes can make the library misbehave (the state is plain integers and bytes,
/// every bit pattern a value). The state holds no pointer (a kept configuration holds copies
/// of its strings): while no call is running it may be copied with `memcpy` (the copy is an
/// independent autoscaler with the same history). To keep it across reboots and library
/// upgrades, save a snapshot (`hpa_autoscaler_save`) rather than these bytes. One autoscaler
/// must not be used by two threads at once: use one per thread, or lock around every call.
#[repr(C)]
pub union hpa_autoscaler {
    /// The bytes (private).
    pub _bytes: [u8; HPA_AUTOSCALER_SIZE],
    /// Forces the alignment (private).
    pub _align: u64,
}

/// What `hpa_autoscaler` holds: plain data (`repr(C)` structs of integers and byte arrays
/// with no padding, asserted below), so that any initialized bytes are a `State` and reading
/// damaged storage is never undefined behaviour; `check` tells whether they are the bytes this
/// library wrote.
#[repr(C)]
pub(crate) struct State {
    magic: u64,
    pub(crate) engine: Autoscaler,
    pub(crate) messages: Messages,
    /// The configuration `hpa_autoscaler_configure` stored, if any.
    pub(crate) config: StoredConfig,
    /// The digests of the state's parts as of the end of the last call that changed it
    /// ([`crate::seal`]).
    seal: Seal,
}

impl State {
    /// Makes the storage at `p` the state of `engine` and `messages`, without a configuration,
    /// its digests stored. Field by field in place: a whole `State` built on the stack first
    /// and copied took `hpa_autoscaler_restore` past the documented stack (ffi/tests/c/
    /// stack_test.c), depending on what the compiler inlined.
    ///
    /// # Safety
    ///
    /// `p` must be aligned and valid for writes of a `State`, and not used elsewhere during
    /// the call.
    pub(crate) unsafe fn write_sealed(p: *mut State, engine: Autoscaler, messages: Messages) {
        // SAFETY: the caller's contract; every field is written before the state is read
        // (`State` has no padding: every byte is then initialized).
        unsafe {
            (&raw mut (*p).magic).write(MAGIC);
            (&raw mut (*p).engine).write(engine);
            (&raw mut (*p).messages).write(messages);
            (&raw mut (*p).config).write(StoredConfig::none());
            (&raw mut (*p).seal).write(Seal::NONE);
            let seal = Seal::of(&*p);
            (&raw mut (*p).seal).write(seal);
        }
    }
}

/// Marks initialized storage; it changes with the library version and the state's size, so
/// storage written by another build is refused instead of misread.
const MAGIC: u64 = 0x6870_615F_0000_0000
    ^ ((HPA_VERSION_NUMBER as u64) << 16)
    ^ (size_of::<State>() as u64 & 0xFFFF);

/// The sizes of every field of the state, leaf by leaf: equal to `size_of::<State>()` only if
/// no struct inside has padding (bytes a Rust copy may leave uninitialized, which the
/// digests could not read). Each line is one struct of the core or of this crate.
const FIELD_BYTES: usize = 8 // magic
    + layout::RING_HEADER + RECOMMENDATION_CAPACITY // recommendation ring: region, bytes
    + layout::RING_HEADER + EVENT_CAPACITY // scale-event ring
    + 2 * layout::FOLDED // summary generations: slots, len, reserved
    + (2 * 4 + 2 * 8) // scale-event lists: lengths, cutoffs
    + 2 * (4 + 4 + 4) // stabilization extremes: first instant, holder, value
    + (1 + 7) // history: seeded, reserved
    + (4 + 4 + 8 + 4 * 4) // status: desired, has last scale time, time, conditions
    + (8 + 4 + 4 + 4 + 1 + 1 + 2) // pending rescale
    + 8 // last evaluation
    + 2 * (HPA_MESSAGE_CAPACITY + 4) // messages
    + size_of::<StoredConfig>() // stored configuration (no padding: asserted in stored.rs)
    + SEAL_BYTES; // digests

const _: () = {
    assert!(size_of::<State>() == FIELD_BYTES);
    assert!(layout::MESSAGES - layout::RECOMMENDATION_HEADER == size_of::<Autoscaler>());
    assert!(layout::REST < layout::MESSAGES);
    assert!(size_of::<State>() <= HPA_AUTOSCALER_SIZE);
    assert!(align_of::<State>() <= HPA_AUTOSCALER_ALIGN);
    assert!(size_of::<hpa_autoscaler>() == HPA_AUTOSCALER_SIZE);
    assert!(align_of::<hpa_autoscaler>() == HPA_AUTOSCALER_ALIGN);
};

/// The library's `HPA_AUTOSCALER_SIZE`: compare with the header's at start-up to catch a
/// header that does not match the linked library.
#[no_mangle]
pub extern "C" fn hpa_autoscaler_size() -> usize {
    HPA_AUTOSCALER_SIZE
}

/// The library's `HPA_AUTOSCALER_ALIGN`.
#[no_mangle]
pub extern "C" fn hpa_autoscaler_align() -> usize {
    HPA_AUTOSCALER_ALIGN
}

/// Storage that `init` or `restore` may make an autoscaler: not NULL, aligned, and as large as
/// the library's `hpa_autoscaler` (`storage_size` is what the caller's header says).
fn writable_storage(p: *mut hpa_autoscaler, storage_size: usize) -> Result<(), Fault> {
    storage_check(p)?;
    if storage_size < HPA_AUTOSCALER_SIZE {
        return Err(Fault::new(
            hpa_status::BufferTooSmall,
            Detail::Buffer(storage_size, HPA_AUTOSCALER_SIZE),
        ));
    }
    Ok(())
}

fn storage_check(p: *const hpa_autoscaler) -> Result<(), Fault> {
    if p.is_null() {
        return Err(Fault::new(hpa_status::NullPointer, Detail::Null));
    }
    if !p.is_aligned() {
        return Err(Fault::new(
            hpa_status::Misaligned,
            Detail::Misaligned(HPA_AUTOSCALER_ALIGN),
        ));
    }
    Ok(())
}

/// The state in initialized storage, after its marker and its digests were checked.
///
/// # Safety
///
/// `p` must be NULL or point to `HPA_AUTOSCALER_SIZE` initialized bytes valid for reads for
/// `'a` (storage `hpa_autoscaler_init` or `hpa_autoscaler_restore` wrote, whatever happened
/// to it since).
unsafe fn state<'a>(p: *const hpa_autoscaler) -> Result<&'a State, Fault> {
    storage_check(p)?;
    // SAFETY: not NULL and aligned; the first 8 bytes are readable by the caller's contract.
    let magic = unsafe { p.cast::<u64>().read() };
    if magic != MAGIC {
        return Err(Fault::new(hpa_status::Uninitialized, Detail::Uninitialized));
    }
    // SAFETY: size and alignment fit (asserted above) and the bytes are initialized (the
    // caller's contract); every bit pattern is a `State` (plain integers, no padding), so even
    // damaged bytes make a valid value. Whether they are this library's is checked next.
    let state = unsafe { &*p.cast::<State>() };
    if !seal::holds(&state.seal, state) {
        return Err(Fault::new(hpa_status::CorruptState, Detail::Corrupt));
    }
    Ok(state)
}

/// The state in initialized storage, mutable; its digests are stored again when the guard is
/// dropped, after the call changed it: all of them, or after [`StateMut::evaluating`] those of
/// what an evaluation changes.
pub(crate) struct StateMut<'a>(&'a mut State, Option<seal::Before>);

impl StateMut<'_> {
    /// The call is an evaluation: only the digests of what it changes are stored again.
    fn evaluating(&mut self) {
        self.1 = Some(seal::Before::of(self.0));
    }
}

impl core::ops::Deref for StateMut<'_> {
    type Target = State;

    fn deref(&self) -> &State {
        self.0
    }
}

impl core::ops::DerefMut for StateMut<'_> {
    fn deref_mut(&mut self) -> &mut State {
        self.0
    }
}

impl Drop for StateMut<'_> {
    fn drop(&mut self) {
        self.0.seal = match &self.1 {
            None => Seal::of(self.0),
            Some(before) => {
                let mut seal = self.0.seal;
                seal::after_evaluation(&mut seal, self.0, before);
                seal
            }
        };
    }
}

/// The state in initialized storage, mutable (see [`StateMut`]).
///
/// # Safety
///
/// As [`state`], and the storage must be valid for writes and not used elsewhere during `'a`.
unsafe fn state_mut<'a>(p: *mut hpa_autoscaler) -> Result<StateMut<'a>, Fault> {
    // SAFETY: forwarded contract.
    unsafe { state(p) }?;
    // SAFETY: checked by `state`; exclusive by the caller's contract.
    Ok(StateMut(unsafe { &mut *p.cast::<State>() }, None))
}

fn status_of(r: Result<(), Fault>) -> hpa_status {
    match r {
        Ok(()) => hpa_status::Ok,
        Err(f) => f.status,
    }
}

/// Makes `storage` a new autoscaler: no history, no conditions, `desiredReplicas` 0, as a newly
/// created HPA. Calling it again resets the autoscaler. Nothing needs freeing afterwards.
///
/// `storage_size` is `sizeof(hpa_autoscaler)` as the caller's header defines it; a value
/// below the library's `HPA_AUTOSCALER_SIZE` (a header from another version) gives
/// `HPA_STATUS_BUFFER_TOO_SMALL` and writes nothing.
///
/// # Safety
///
/// `storage` must point to `storage_size` writable bytes that no other thread uses during the
/// call.
#[no_mangle]
#[must_use]
pub unsafe extern "C" fn hpa_autoscaler_init(
    storage: *mut hpa_autoscaler,
    storage_size: usize,
) -> hpa_status {
    status_of((|| {
        writable_storage(storage, storage_size)?;
        // SAFETY: not NULL, aligned, and large enough for a `State` (asserted at compile
        // time) by the caller's contract, which also keeps other threads away.
        unsafe { State::write_sealed(storage.cast(), Autoscaler::new(), Messages::new()) };
        Ok(())
    })())
}

fn evaluate_error(e: EvaluateError) -> Fault {
    match e {
        EvaluateError::TimeWentBackwards { now, .. } => Fault::new(
            hpa_status::TimeWentBackwards,
            Detail::Range(now, "is earlier than the previous evaluation"),
        )
        .at("now_ms")
        .at("observation"),
        EvaluateError::MetricCountMismatch { expected, got } => Fault::new(
            hpa_status::LengthMismatch,
            Detail::Length {
                got,
                want: expected,
                of: "one per metric of the configuration",
            },
        ),
        EvaluateError::TooManyMetrics { count } => Fault::new(
            hpa_status::InvalidSpec,
            Detail::TooMany(count, HPA_MAX_METRICS),
        ),
        EvaluateError::NegativeReplicas => Fault::new(
            hpa_status::OutOfRange,
            Detail::Range(-1, "must not be negative"),
        ),
        // Only when the core is built without its `exact` feature (libhpa enables it).
        EvaluateError::ExactArithmeticUnavailable => Fault::new(
            hpa_status::InvalidSettings,
            Detail::Setting("exact arithmetic is not built into this library"),
        )
        .at("arithmetic")
        .at("settings"),
    }
}

fn byte_range<T>(p: *const T, len: usize) -> (*const u8, usize) {
    (p.cast::<u8>(), len)
}

/// Refuses an output that overlaps one of the inputs.
fn no_overlap(
    output: (*const u8, usize),
    output_name: &'static str,
    inputs: &[((*const u8, usize), &'static str)],
) -> Result<(), Fault> {
    for ((p, len), name) in inputs {
        if raw::overlaps(output.0, output.1, *p, *len) {
            return Err(Fault::new(hpa_status::Overlap, Detail::Overlap(name)).at(output_name));
        }
    }
    Ok(())
}

/// One evaluation (one sync period of the Kubernetes controller): decides the replica count
/// for `observation` under `config` and writes the decision to `*decision_out`.
///
/// The configuration is validated as the Kubernetes API server validates an HPA
/// (`HPA_STATUS_INVALID_SPEC`; `hpa_config_validate` gives the field and message), and the
/// observation is checked as `hpa_observation_check` checks it (use that function to learn the
/// field at fault), but for the pods' names: those are checked only when a message may name a
/// pod (`hpa_pod.name`), and not read otherwise. The evaluation reads the observation in place
/// and needs no workspace: pass NULL and 0 for `workspace` and `workspace_size`
/// (`hpa_observation_check` gives 0).
/// A workspace of any size, as callers of older versions pass, is accepted and left unused;
/// like every output, it must not overlap an input.
///
/// On success, when the decision says `rescale`, apply `desired_replicas` and report the
/// outcome with `hpa_autoscaler_rescale_succeeded` or `hpa_autoscaler_rescale_failed` (a
/// rescale left unreported is forgotten by the next evaluation). On any error, the autoscaler
/// and `*decision_out` are unchanged; `HPA_STATUS_TIME_WENT_BACKWARDS` when `now_ms` is earlier
/// than a previous evaluation's.
///
/// # Safety
///
/// `autoscaler` must be storage initialized by `hpa_autoscaler_init`, not used by another
/// thread during the call. `config` and `observation` and everything they point to must be
/// readable for the duration of the call, with every array at least as long as its length
/// member says. `workspace` must point to `workspace_size` writable bytes. `decision_out` must
/// point to a writable `hpa_decision`. The outputs (`*decision_out`, the workspace, the
/// autoscaler) must not overlap any input: an input array (pods, samples, strings...) that
/// overlaps one is refused with `HPA_STATUS_OVERLAP`.
#[no_mangle]
#[must_use]
pub unsafe extern "C" fn hpa_autoscaler_evaluate(
    autoscaler: *mut hpa_autoscaler,
    config: *const hpa_config,
    observation: *const hpa_observation,
    workspace: *mut c_void,
    workspace_size: usize,
    decision_out: *mut hpa_decision,
) -> hpa_status {
    // SAFETY: the caller's contract, forwarded.
    match unsafe {
        evaluate(
            autoscaler,
            config,
            observation,
            workspace,
            workspace_size,
            decision_out,
        )
    } {
        Ok(()) => hpa_status::Ok,
        Err(status) => status,
    }
}

/// # Safety
///
/// As [`hpa_autoscaler_evaluate`].
unsafe fn evaluate(
    autoscaler: *mut hpa_autoscaler,
    config: *const hpa_config,
    observation: *const hpa_observation,
    workspace: *mut c_void,
    workspace_size: usize,
    decision_out: *mut hpa_decision,
) -> Result<(), hpa_status> {
    let fault = |f: Fault| f.status;
    // SAFETY: the caller's contract.
    let mut state = unsafe { state_mut(autoscaler) }.map_err(fault)?;
    state.evaluating();
    // SAFETY: the caller's contract.
    let cfg = unsafe { raw::reference(config) }.map_err(fault)?;
    // SAFETY: the caller's contract.
    let obs = unsafe { raw::reference(observation) }.map_err(fault)?;
    // SAFETY: only checks NULL and alignment; nothing is read.
    unsafe { raw::reference(decision_out.cast_const()) }.map_err(fault)?;
    if workspace.is_null() && workspace_size > 0 {
        return Err(hpa_status::NullPointer);
    }
    let storage = byte_range(autoscaler.cast_const(), HPA_AUTOSCALER_SIZE);
    let scratch = byte_range(workspace.cast_const(), workspace_size);
    let inputs = [
        (byte_range(config, size_of::<hpa_config>()), "config"),
        (
            byte_range(observation, size_of::<hpa_observation>()),
            "observation",
        ),
    ];
    no_overlap(scratch, "workspace", &inputs).map_err(fault)?;
    no_overlap(scratch, "workspace", &[(storage, "autoscaler")]).map_err(fault)?;
    no_overlap(
        byte_range(decision_out.cast_const(), size_of::<hpa_decision>()),
        "decision_out",
        &[
            inputs[0],
            inputs[1],
            (storage, "autoscaler"),
            (scratch, "workspace"),
        ],
    )
    .map_err(fault)?;

    // Every array the conversions read is checked against what this call writes.
    let outputs = Outputs::new([
        (scratch, "workspace"),
        (
            byte_range(decision_out.cast_const(), size_of::<hpa_decision>()),
            "decision_out",
        ),
        (storage, "autoscaler"),
    ]);
    let mut converted = config::Config::empty();
    // SAFETY: the caller's contract.
    unsafe { config::convert(cfg, &mut converted, &outputs) }.map_err(|r| r.status())?;
    let hpa = converted.validate().map_err(|r| r.status())?;
    let state: &mut State = &mut state;
    // SAFETY: the caller's contract; `outputs` hold what the call writes.
    unsafe {
        decide(
            (&mut state.engine, &mut state.messages),
            (&hpa, &converted.settings),
            (obs, &[]),
            &outputs,
            decision_out,
        )
    }
}

/// The evaluation proper, once the storage, the configuration and the outputs were checked:
/// checks the observation, runs the engine and writes the decision.
///
/// # Safety
///
/// `obs` as `hpa_autoscaler_evaluate` requires; `decision_out` not NULL, aligned, writable and
/// apart from every input and from the state; `outputs` every range the call writes.
unsafe fn decide(
    (engine, messages): (&mut Autoscaler, &mut Messages),
    (hpa, settings): (&Hpa<'_>, &Settings),
    (obs, known): (&hpa_observation, &[Option<&str>]),
    outputs: &Outputs,
    decision_out: *mut hpa_decision,
) -> Result<(), hpa_status> {
    // SAFETY: the caller's contract.
    let views = unsafe { observation::check(outputs, obs, hpa.metrics(), PodNames::Read) }
        .map_err(|f| f.status)?;
    let observation = views.observation();
    let decision = engine
        .evaluate(hpa, settings, &observation)
        .map_err(|e| evaluate_error(e).status)?;
    let mut names = decision::Names::new(hpa.metrics(), known);
    messages.after_evaluation(&decision, &mut names);
    // SAFETY: `decision_out` is not NULL, aligned, writable by the caller's contract, and
    // overlaps no input nor the state.
    let out = unsafe { uninit(decision_out) };
    decision::write_decision(
        out,
        &decision,
        (&observation, settings, views.pod_values_not_negative()),
        (messages, &mut names),
        engine.status().desired_replicas,
    );
    Ok(())
}

/// Validates `config` as `hpa_config_validate` does and keeps it in the autoscaler, converted,
/// for `hpa_autoscaler_evaluate_configured`: the configuration is then not read, converted
/// nor validated again by each evaluation. The autoscaler copies what it needs (its strings
/// too, at most 2,048 bytes of them together: `HPA_STATUS_TOO_LARGE` beyond), so `config`
/// need not outlive the call. Call it again when the HPA's spec changes: the history is kept,
/// as the controller keeps it when an HPA object is edited. `hpa_autoscaler_init` and
/// `hpa_autoscaler_restore` leave an autoscaler without a configuration (a snapshot holds
/// none).
///
/// On error the autoscaler is unchanged (it keeps the configuration it had) and `error_out`,
/// when not NULL, receives the field and the message, as from `hpa_config_validate`;
/// `*error_out` is not touched on success.
///
/// # Safety
///
/// `autoscaler` must be storage initialized by `hpa_autoscaler_init`, not used by another
/// thread during the call; `config` and everything it points to must be readable for the
/// duration of the call, with every array at least as long as its length member says, and
/// apart from the autoscaler (`HPA_STATUS_OVERLAP`); `error_out` must be NULL or point to a
/// writable `hpa_field_error`, apart from the autoscaler too (`HPA_STATUS_OVERLAP`, and
/// nothing written: the error would damage the autoscaler).
#[no_mangle]
#[must_use]
pub unsafe extern "C" fn hpa_autoscaler_configure(
    autoscaler: *mut hpa_autoscaler,
    config: *const hpa_config,
    error_out: *mut hpa_field_error,
) -> hpa_status {
    if !error_out.is_null() {
        let storage = byte_range(autoscaler.cast_const(), HPA_AUTOSCALER_SIZE);
        let error = byte_range(error_out.cast_const(), size_of::<hpa_field_error>());
        if let Err(fault) = no_overlap(error, "error_out", &[(storage, "autoscaler")]) {
            // SAFETY: no output is written (NULL).
            return unsafe { crate::api::report(fault.into(), core::ptr::null_mut()) };
        }
    }
    // SAFETY: the caller's contract, forwarded.
    match unsafe { configure(autoscaler, config) } {
        Ok(()) => hpa_status::Ok,
        // SAFETY: the caller's contract.
        Err(refusal) => unsafe { crate::api::report(refusal, error_out) },
    }
}

/// # Safety
///
/// As [`hpa_autoscaler_configure`].
unsafe fn configure(
    autoscaler: *mut hpa_autoscaler,
    config: *const hpa_config,
) -> Result<(), Refusal> {
    // SAFETY: the caller's contract.
    let mut state = unsafe { state_mut(autoscaler) }?;
    // SAFETY: the caller's contract.
    let cfg = unsafe { raw::reference(config) }.map_err(|f| f.at("config"))?;
    let storage = byte_range(autoscaler.cast_const(), HPA_AUTOSCALER_SIZE);
    let outputs = Outputs::only(storage, "autoscaler");
    no_overlap(
        storage,
        "autoscaler",
        &[(byte_range(config, size_of::<hpa_config>()), "config")],
    )?;
    let mut converted = config::Config::empty();
    // SAFETY: the caller's contract.
    unsafe { config::convert(cfg, &mut converted, &outputs) }?;
    converted.validate()?;
    // SAFETY: converted from `cfg` just above.
    unsafe { stored::store(cfg, &converted, &mut state.config) }?;
    Ok(())
}

/// One evaluation under the configuration `hpa_autoscaler_configure` stored: as
/// `hpa_autoscaler_evaluate`, without the configuration (it was validated once) nor a
/// workspace. `HPA_STATUS_NOT_CONFIGURED` when the autoscaler holds no configuration.
///
/// # Safety
///
/// `autoscaler` must be storage initialized by `hpa_autoscaler_init`, not used by another
/// thread during the call. `observation` and everything it points to must be readable for the
/// duration of the call, with every array at least as long as its length member says.
/// `decision_out` must point to a writable `hpa_decision`. The outputs (`*decision_out`, the
/// autoscaler) must not overlap any input: an input array that overlaps one is refused with
/// `HPA_STATUS_OVERLAP`.
#[no_mangle]
#[must_use]
pub unsafe extern "C" fn hpa_autoscaler_evaluate_configured(
    autoscaler: *mut hpa_autoscaler,
    observation: *const hpa_observation,
    decision_out: *mut hpa_decision,
) -> hpa_status {
    // SAFETY: the caller's contract, forwarded.
    match unsafe { evaluate_configured(autoscaler, observation, decision_out) } {
        Ok(()) => hpa_status::Ok,
        Err(status) => status,
    }
}

/// # Safety
///
/// As [`hpa_autoscaler_evaluate_configured`].
unsafe fn evaluate_configured(
    autoscaler: *mut hpa_autoscaler,
    observation: *const hpa_observation,
    decision_out: *mut hpa_decision,
) -> Result<(), hpa_status> {
    let fault = |f: Fault| f.status;
    // SAFETY: the caller's contract.
    let mut guard = unsafe { state_mut(autoscaler) }.map_err(fault)?;
    // SAFETY: the caller's contract.
    let obs = unsafe { raw::reference(observation) }.map_err(fault)?;
    // SAFETY: only checks NULL and alignment; nothing is read.
    unsafe { raw::reference(decision_out.cast_const()) }.map_err(fault)?;
    if !guard.config.is_configured() {
        return Err(hpa_status::NotConfigured);
    }
    let storage = byte_range(autoscaler.cast_const(), HPA_AUTOSCALER_SIZE);
    let written = byte_range(decision_out.cast_const(), size_of::<hpa_decision>());
    no_overlap(
        written,
        "decision_out",
        &[
            (
                byte_range(observation, size_of::<hpa_observation>()),
                "observation",
            ),
            (storage, "autoscaler"),
        ],
    )
    .map_err(fault)?;
    // Every array the observation's checks read is checked against what this call writes.
    let outputs = Outputs::new([
        (written, "decision_out"),
        (storage, "autoscaler"),
        ((core::ptr::null(), 0), ""),
    ]);
    guard.evaluating();
    let state: &mut State = &mut guard;
    let mut loaded = Loaded::new();
    state.config.load(&mut loaded).map_err(fault)?;
    let settings = loaded.settings;
    let names = loaded.names;
    let hpa = loaded.hpa(&state.config).map_err(fault)?;
    // SAFETY: the caller's contract; `outputs` hold what the call writes.
    unsafe {
        decide(
            (&mut state.engine, &mut state.messages),
            (&hpa, &settings),
            (obs, &names),
            &outputs,
            decision_out,
        )
    }
}

/// Reports that the caller applied the decided replica count: records the scale event (HPAs
/// with a behavior), sets `desiredReplicas` and `lastScaleTime`, and the conditions
/// (AbleToScale True/SucceededRescale; ScaledToZero when the HPAScaleToZero gate is on).
/// Returns `HPA_STATUS_NO_PENDING_RESCALE` (changing nothing) when the last evaluation did not
/// ask for a rescale or its outcome was already reported.
///
/// # Safety
///
/// `autoscaler` must be storage initialized by `hpa_autoscaler_init`, not used by another
/// thread during the call.
#[no_mangle]
#[must_use]
pub unsafe extern "C" fn hpa_autoscaler_rescale_succeeded(
    autoscaler: *mut hpa_autoscaler,
) -> hpa_status {
    status_of((|| {
        // SAFETY: the caller's contract.
        let mut state = unsafe { state_mut(autoscaler) }?;
        if state.engine.rescale_succeeded() {
            Ok(())
        } else {
            Err(Fault::new(hpa_status::NoPendingRescale, Detail::Null))
        }
    })())
}

/// Reports that applying the decided replica count failed, with the error's text (used in
/// the AbleToScale condition's message): AbleToScale becomes False/FailedUpdateScale,
/// `desiredReplicas` keeps its previous value and no scale event is recorded. Returns
/// `HPA_STATUS_NO_PENDING_RESCALE` (changing nothing) when no rescale awaits its outcome.
///
/// # Safety
///
/// `autoscaler` as for `hpa_autoscaler_rescale_succeeded`; `message` must point to
/// `message_len` readable bytes of UTF-8 (it may be NULL when `message_len` is 0).
#[no_mangle]
#[must_use]
pub unsafe extern "C" fn hpa_autoscaler_rescale_failed(
    autoscaler: *mut hpa_autoscaler,
    message: *const c_char,
    message_len: usize,
) -> hpa_status {
    status_of((|| {
        // SAFETY: the caller's contract.
        let mut state = unsafe { state_mut(autoscaler) }?;
        // SAFETY: the caller's contract.
        let text = unsafe {
            raw::string(hpa_str {
                ptr: message,
                len: message_len,
            })
        }?;
        if !state.engine.rescale_pending() {
            return Err(Fault::new(hpa_status::NoPendingRescale, Detail::Null));
        }
        state.messages.update_failure.set(&text);
        state.engine.rescale_failed();
        Ok(())
    })())
}

/// Restores the `ScaledToZero` condition (True) of an HPA that had scaled its target to zero
/// before this autoscaler was created, e.g. after a restart: with the HPAScaleToZero gate on,
/// the next evaluations may then scale up from zero replicas.
///
/// # Safety
///
/// As `hpa_autoscaler_rescale_succeeded`.
#[no_mangle]
#[must_use]
pub unsafe extern "C" fn hpa_autoscaler_restore_scaled_to_zero(
    autoscaler: *mut hpa_autoscaler,
) -> hpa_status {
    status_of((|| {
        // SAFETY: the caller's contract.
        let mut state = unsafe { state_mut(autoscaler) }?;
        state.engine.status_mut().conditions.set(
            ConditionType::ScaledToZero,
            ConditionStatus::True,
            Reason::ScaledToZero,
        );
        Ok(())
    })())
}

/// Writes the HPA's status (desired replicas, last scale time, whether a rescale is pending,
/// the conditions with their messages) to `*status_out`. After a rescale is reported, this
/// is what `hpa replay` prints for the step.
///
/// # Safety
///
/// `autoscaler` must be storage initialized by `hpa_autoscaler_init`, not written by another
/// thread during the call; `status_out` must point to a writable `hpa_scaling_status` that
/// does not overlap the autoscaler.
#[no_mangle]
#[must_use]
pub unsafe extern "C" fn hpa_autoscaler_scaling_status(
    autoscaler: *const hpa_autoscaler,
    status_out: *mut hpa_scaling_status,
) -> hpa_status {
    status_of((|| {
        // SAFETY: the caller's contract.
        let state = unsafe { state(autoscaler) }?;
        // SAFETY: only checks NULL and alignment.
        unsafe { raw::reference(status_out.cast_const()) }?;
        no_overlap(
            byte_range(status_out.cast_const(), size_of::<hpa_scaling_status>()),
            "status_out",
            &[(byte_range(autoscaler, HPA_AUTOSCALER_SIZE), "autoscaler")],
        )?;
        let status = state.engine.status();
        // Written in place (`field!`): not NULL, aligned, writable by the caller's contract
        // and apart from the state.
        let p = status_out;
        field!(p, desired_replicas).write(status.desired_replicas);
        field!(p, has_last_scale_time).write(u32::from(status.last_scale_time.is_some()));
        field!(p, last_scale_time_ms).write(status.last_scale_time.map_or(0, |t| t.millis()));
        field!(p, rescale_pending).write(u32::from(state.engine.rescale_pending()));
        let conditions = decision::write_conditions(
            field!(p, conditions),
            &status.conditions,
            &state.messages,
            status.desired_replicas,
        );
        field!(p, conditions_len).write(conditions);
        Ok(())
    })())
}

/// Saves the autoscaler's whole state as it is at `now_ms` (its history, status, pending
/// rescale and condition messages) into `buffer` as a snapshot: a few hundred bytes to keep
/// across a reboot, in flash or a file, and give to `hpa_autoscaler_restore`. Its format is
/// versioned and checksummed and does not depend on the build: every later version of the
/// library restores it (docs/spec/snapshot.md).
///
/// `now_ms` is the current time on the evaluations' clock, not earlier than the last
/// evaluation (`HPA_STATUS_TIME_WENT_BACKWARDS`): the snapshot records how long before the
/// save that evaluation was. On success `*written` receives the snapshot's length;
/// `HPA_SNAPSHOT_MAX_BYTES` bytes always suffice. A `capacity` below the length gives
/// `HPA_STATUS_BUFFER_TOO_SMALL`, and then, as on every error, nothing is written: neither
/// `buffer` nor `*written`. `buffer` must not overlap the autoscaler (`HPA_STATUS_OVERLAP`).
///
/// # Safety
///
/// `autoscaler` must be storage initialized by `hpa_autoscaler_init` (or
/// `hpa_autoscaler_restore`), not written by another thread during the call; `buffer` must
/// point to `capacity` writable bytes and `written` to a writable `size_t`.
#[no_mangle]
#[must_use]
pub unsafe extern "C" fn hpa_autoscaler_save(
    autoscaler: *const hpa_autoscaler,
    now_ms: i64,
    buffer: *mut u8,
    capacity: usize,
    written: *mut usize,
) -> hpa_status {
    status_of((|| {
        // SAFETY: the caller's contract.
        let state = unsafe { state(autoscaler) }?;
        // SAFETY: only checks NULL and alignment.
        unsafe { raw::reference(written.cast_const()) }.map_err(|f| f.at("written"))?;
        if buffer.is_null() {
            return Err(Fault::new(hpa_status::NullPointer, Detail::Null).at("buffer"));
        }
        if isize::try_from(capacity).is_err() {
            return Err(Fault::new(hpa_status::TooLarge, Detail::Overflow).at("capacity"));
        }
        let storage = (byte_range(autoscaler, HPA_AUTOSCALER_SIZE), "autoscaler");
        let out = (buffer.cast_const(), capacity);
        no_overlap(out, "buffer", &[storage])?;
        no_overlap(
            byte_range(written.cast_const(), size_of::<usize>()),
            "written",
            &[storage, (out, "buffer")],
        )?;
        let mut annex = [0; snapshot::ANNEX_MAX_BYTES];
        let annex_len = snapshot::write_annex(&state.messages, &mut annex);
        // SAFETY: not NULL, `capacity` writable bytes by the caller's contract (within isize),
        // apart from the state and `written`.
        let buffer = unsafe { core::slice::from_raw_parts_mut(buffer, capacity) };
        let len = state
            .engine
            .save_with_annex(
                Instant(now_ms),
                annex.get(..annex_len).unwrap_or(&[]),
                buffer,
            )
            .map_err(snapshot::save_fault)?;
        // SAFETY: not NULL, aligned, writable by the caller's contract, apart from the rest.
        unsafe { written.write(len) };
        Ok(())
    })())
}

/// Makes `storage` the autoscaler a snapshot of `hpa_autoscaler_save` holds, as `init` makes
/// it a new one: whatever `storage` held before (nothing, garbage, another autoscaler) is
/// replaced. Snapshots of this and every earlier version of the library are restored.
///
/// `now_ms` is the instant, on the clock the evaluations use from now on, that stands for
/// the moment of the save; the next evaluation must not be earlier. Pass the current time
/// and the time between the save and the restore (a device powered off, a restart) counts
/// as none: the stabilization windows and policy periods resume where they were. To let a
/// known time off count (a real-time clock says how long), pass the current time minus it.
///
/// Every byte is checked before anything is written; on any error `storage` is unchanged.
/// `HPA_STATUS_INVALID_SNAPSHOT`: damaged, truncated, padded or inconsistent (not what a
/// save wrote); `HPA_STATUS_SNAPSHOT_VERSION`: a format version this library does not read;
/// `HPA_STATUS_TOO_LARGE`: a history longer than this library's autoscaler holds;
/// `HPA_STATUS_OUT_OF_RANGE`: `now_ms` so far from the saved instants that they leave the
/// `int64_t` range. `hpa_snapshot_check` tells what is wrong. A `storage_size` below the
/// library's `HPA_AUTOSCALER_SIZE` gives `HPA_STATUS_BUFFER_TOO_SMALL`; a snapshot inside
/// `storage`, `HPA_STATUS_OVERLAP`.
///
/// # Safety
///
/// `storage` must point to `storage_size` writable bytes that no other thread uses during the
/// call; `snapshot` must point to `length` readable bytes (it may be NULL when `length` is 0).
#[no_mangle]
#[must_use]
pub unsafe extern "C" fn hpa_autoscaler_restore(
    storage: *mut hpa_autoscaler,
    storage_size: usize,
    snapshot: *const u8,
    length: usize,
    now_ms: i64,
) -> hpa_status {
    status_of((|| {
        writable_storage(storage, storage_size)?;
        let outputs = Outputs::only(
            byte_range(storage.cast_const(), HPA_AUTOSCALER_SIZE),
            "autoscaler",
        );
        // SAFETY: the caller's contract.
        let bytes = unsafe { outputs.slice(snapshot, length) }.map_err(|f| f.at("snapshot"))?;
        let (engine, messages) = snapshot::restored(bytes, Instant(now_ms))?;
        // SAFETY: not NULL, aligned, and large enough for a `State` (asserted at compile
        // time) by the caller's contract, which also keeps other threads away; the snapshot
        // is apart from it (checked by `outputs.slice`) and was read whole above.
        unsafe { State::write_sealed(storage.cast(), engine, messages) };
        Ok(())
    })())
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use hpa::fingerprint::Fingerprint;

    /// Reports the state's size (docs/c-api.md and `HPA_AUTOSCALER_SIZE`'s docs quote it).
    #[test]
    fn state_size() {
        let size = size_of::<State>();
        std::println!("size_of::<State>() = {size} of HPA_AUTOSCALER_SIZE = {HPA_AUTOSCALER_SIZE}");
        assert!(size <= HPA_AUTOSCALER_SIZE);
    }

    fn zeroed<T>() -> T {
        // SAFETY: only used for the C structs, for which all zeros is a value.
        unsafe { core::mem::zeroed() }
    }

    /// An autoscaler after 80 evaluations of an External metric under a behavior with
    /// rescales, as `tests/c/corrupt_test.c` makes it: both rings hold entries.
    fn with_history() -> State {
        let mut metric: crate::hpa_metric = zeroed();
        metric.r#type = crate::hpa_metric_source_type::External as u32;
        metric.name = hpa_str {
            ptr: c"queue".as_ptr(),
            len: 5,
        };
        metric.target.r#type = crate::hpa_metric_target_type::AverageValue as u32;
        metric.target.average_value_milli = 1000;
        let up_policy = crate::hpa_scaling_policy {
            r#type: crate::hpa_policy_type::Pods as u32,
            value: 2,
            period_seconds: 15,
        };
        let down_policy = crate::hpa_scaling_policy {
            r#type: crate::hpa_policy_type::Percent as u32,
            value: 50,
            period_seconds: 60,
        };
        let mut up: crate::hpa_scaling_rules = zeroed();
        up.policies = &up_policy;
        up.policies_len = 1;
        let mut down: crate::hpa_scaling_rules = zeroed();
        down.has_stabilization_window_seconds = 1;
        down.stabilization_window_seconds = 30;
        down.policies = &down_policy;
        down.policies_len = 1;
        let mut behavior: crate::hpa_behavior = zeroed();
        behavior.scale_up = &up;
        behavior.scale_down = &down;
        let mut config: hpa_config = zeroed();
        config.has_min_replicas = 1;
        config.min_replicas = 1;
        config.max_replicas = 20;
        config.metrics = &metric;
        config.metrics_len = 1;
        config.behavior = &behavior;
        let mut storage: hpa_autoscaler = zeroed();
        // SAFETY: writable storage of the right size.
        let status = unsafe { hpa_autoscaler_init(&mut storage, HPA_AUTOSCALER_SIZE) };
        assert_eq!(status, hpa_status::Ok);
        let mut replicas = 3;
        for step in 0..80_i64 {
            let load = 1000
                * (2 + if step % 40 < 20 {
                    step % 40
                } else {
                    40 - step % 40
                } / 2);
            let value = load * i64::from(replicas);
            let mut values: crate::hpa_metric_values = zeroed();
            values.kind = crate::hpa_values_kind::External as u32;
            values.values_milli = &value;
            values.values_len = 1;
            let mut obs: hpa_observation = zeroed();
            obs.now_ms = 15_000 * (step + 1);
            obs.replicas = replicas;
            obs.metrics = &values;
            obs.metrics_len = 1;
            let mut decision =
                std::boxed::Box::new(core::mem::MaybeUninit::<hpa_decision>::uninit());
            // SAFETY: valid inputs and outputs.
            let status = unsafe {
                hpa_autoscaler_evaluate(
                    &mut storage,
                    &config,
                    &obs,
                    core::ptr::null_mut(),
                    0,
                    decision.as_mut_ptr(),
                )
            };
            assert_eq!(status, hpa_status::Ok);
            // SAFETY: written by the successful call.
            let d = unsafe { decision.assume_init_ref() };
            if d.rescale != 0 && step < 79 {
                // SAFETY: initialized storage.
                let status = unsafe { hpa_autoscaler_rescale_succeeded(&mut storage) };
                assert_eq!(status, hpa_status::Ok);
                replicas = d.desired_replicas;
            }
        }
        // SAFETY: initialized by the calls above; `State` is plain data.
        unsafe { core::ptr::from_ref(&storage).cast::<State>().read() }
    }

    /// The engine's own fingerprint of `state`'s engine part.
    fn engine_fingerprint(state: &State) -> u64 {
        let mut f = Fingerprint::new();
        state.engine.fingerprint_into(&mut f);
        f.finish()
    }

    /// The state's digests, of runs of its bytes, notice a change of every byte the engine's
    /// field-by-field fingerprint notices, and of the rings exactly those (the bytes in use):
    /// the layout the runs assume is the engine's.
    #[test]
    fn digests_cover_what_the_engine_fingerprints() {
        let reference = with_history();
        // SAFETY: plain data: the state's bytes.
        let all = unsafe {
            core::slice::from_raw_parts(
                core::ptr::from_ref(&reference).cast::<u8>(),
                size_of::<State>(),
            )
        };
        assert!(
            !seal::live(all, layout::RECOMMENDATION_HEADER, RECOMMENDATION_CAPACITY).is_empty()
        );
        assert!(!seal::live(all, layout::EVENT_HEADER, EVENT_CAPACITY).is_empty());
        let (ours, theirs) = (Seal::of(&reference), engine_fingerprint(&reference));
        let mut noticed = 0;
        // Under Miri every 29th byte (each part's bytes still come up): a flip of each of the
        // state's 3 KB took ten minutes there.
        let stride = if cfg!(miri) { 29 } else { 1 };
        for offset in (layout::RECOMMENDATION_HEADER..layout::MESSAGES).step_by(stride) {
            // SAFETY: plain data: any bytes are a `State`.
            let mut damaged: State = unsafe { core::ptr::from_ref(&reference).read() };
            // SAFETY: as above; within the state's bytes.
            unsafe { *core::ptr::from_mut(&mut damaged).cast::<u8>().add(offset) ^= 0x10 };
            let engine_noticed = engine_fingerprint(&damaged) != theirs;
            let we_noticed = Seal::of(&damaged) != ours;
            let in_ring = (layout::RECOMMENDATION_BYTES..layout::EVENT_HEADER).contains(&offset)
                || (layout::EVENT_BYTES..layout::REST).contains(&offset);
            // Nothing is folded: every summary slot is free (`summary_slots_in_use_only`).
            let in_free_slot = [layout::REST, layout::REST + layout::FOLDED]
                .iter()
                .any(|&folded| (folded..folded + layout::SLOTS).contains(&offset));
            if in_free_slot {
                assert!(!we_noticed, "free summary slot byte at {offset}");
            } else if in_ring {
                assert_eq!(we_noticed, engine_noticed, "ring byte at {offset}");
            } else {
                assert!(we_noticed || !engine_noticed, "byte at {offset}");
            }
            noticed += usize::from(we_noticed);
        }
        std::println!("{noticed} bytes noticed");
    }

    /// Of the summaries of folded entries, the digests cover the count and the slots the
    /// engine reads: `slots[..count]`, or every slot when the count is beyond their number.
    #[test]
    fn summary_slots_in_use_only() {
        let reference = with_history();
        for counts in [[0_u8, 0], [3, 1], [8, 200], [9, 255]] {
            // SAFETY: plain data: any bytes are a `State`.
            let mut counted: State = unsafe { core::ptr::from_ref(&reference).read() };
            let at = |folded: usize| folded + layout::SLOTS;
            for (folded, count) in [layout::REST, layout::REST + layout::FOLDED]
                .iter()
                .zip(counts)
            {
                // SAFETY: within the state's bytes.
                unsafe {
                    *core::ptr::from_mut(&mut counted)
                        .cast::<u8>()
                        .add(at(*folded)) = count
                };
            }
            let ours = Seal::of(&counted);
            for (folded, count) in [layout::REST, layout::REST + layout::FOLDED]
                .iter()
                .zip(counts)
            {
                let used = usize::from(count).min(layout::GENERATIONS) * layout::SLOT;
                for offset in (*folded..at(*folded) + 8).step_by(if cfg!(miri) { 7 } else { 1 }) {
                    // SAFETY: as above.
                    let mut damaged: State = unsafe { core::ptr::from_ref(&counted).read() };
                    // SAFETY: as above.
                    unsafe { *core::ptr::from_mut(&mut damaged).cast::<u8>().add(offset) ^= 0x10 };
                    let in_use = offset < folded + used || offset >= at(*folded);
                    assert_eq!(Seal::of(&damaged) != ours, in_use, "{counts:?} {offset}");
                }
            }
        }
    }
}
