//! `hpa replay --restore-state/--save-state`: a replay that starts from a saved autoscaler and
//! saves the one it leaves, as a binary snapshot (docs/spec/snapshot.md).
//!
//! A trace split at any step and replayed in two runs, the first with `--save-state FILE`, the
//! second with `--restore-state FILE --restore-at T` (`T` the first run's last step's time),
//! prints the lines of the whole trace (`cli/tests/state.rs`).

use std::io::Read;
use std::path::Path;

use hpa::snapshot::{RestoreError, SaveError, FORMAT_VERSION};
use hpa::time::Instant;
use hpa::Autoscaler;

use crate::simulate_cmd::write_atomically;
use crate::trace::Trace;

/// The largest state file read. A snapshot of the default autoscaler takes at most about 4 KiB
/// (with a C annex), so anything much longer is not one; the limit keeps a wrong file name
/// (a log, a device) from being read whole.
pub const MAX_STATE_FILE_BYTES: u64 = 1 << 20;

/// `--restore-state FILE [--restore-at MS]`.
#[derive(Clone, Copy, Debug)]
pub struct Restore<'p> {
    /// The snapshot file.
    pub path: &'p Path,
    /// Where the snapshot's save moment is placed on the trace's clock (`--restore-at`).
    pub at: Option<i64>,
}

impl Restore<'_> {
    /// The instant the save is placed at: `--restore-at`, else the trace's first step's time
    /// (as if the device rebooted just before it: the time between counts as none,
    /// docs/spec/snapshot.md#time), else 0 for a trace without steps.
    pub fn instant(&self, trace: &Trace) -> Instant {
        match self.at {
            Some(at) => Instant(at),
            None => trace.step_at(0).unwrap_or(Instant(0)),
        }
    }
}

/// Reads the state file at `path`, refusing one longer than [`MAX_STATE_FILE_BYTES`] before
/// reading it whole (also a pipe, whose length is not known in advance).
///
/// # Errors
///
/// The file cannot be read, or is too long.
pub fn read(path: &Path) -> Result<Vec<u8>, String> {
    let cannot = |e: std::io::Error| format!("--restore-state {}: {e}", path.display());
    let too_long = || {
        format!(
            "--restore-state {}: longer than {MAX_STATE_FILE_BYTES} bytes, so not a snapshot",
            path.display()
        )
    };
    let file = std::fs::File::open(path).map_err(cannot)?;
    if file.metadata().map_err(cannot)?.len() > MAX_STATE_FILE_BYTES {
        return Err(too_long());
    }
    let mut bytes = Vec::new();
    file.take(MAX_STATE_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > MAX_STATE_FILE_BYTES {
        return Err(too_long());
    }
    Ok(bytes)
}

/// The autoscaler a replay of `trace` starts from: a new one ([`Trace::new_autoscaler`]), or
/// the one `restore` names, its save placed at [`Restore::instant`].
///
/// # Errors
///
/// The file cannot be read or is not a snapshot this engine restores (the core's
/// [`RestoreError`], after the file name); the trace seeds the ScaledToZero condition too; or
/// the restore time puts the last saved evaluation after the first step.
pub fn start(trace: &Trace, restore: Option<Restore<'_>>) -> Result<Autoscaler, String> {
    let Some(restore) = restore else {
        return Ok(trace.new_autoscaler());
    };
    let file = restore.path.display();
    if trace.scaled_to_zero {
        return Err(format!(
            "--restore-state {file}: the trace's hpa.status holds a ScaledToZero condition \
             with status True, which seeds a new autoscaler, and the snapshot holds the whole \
             status: remove that condition from the trace, or replay without --restore-state"
        ));
    }
    let bytes = read(restore.path)?;
    let at = restore.instant(trace);
    let mut autoscaler: Autoscaler = Autoscaler::new();
    autoscaler.restore(&bytes, at).map_err(|e| match e {
        RestoreError::UnsupportedVersion { version } if version > FORMAT_VERSION => {
            format!("--restore-state {file}: {e}; a newer hpa wrote it, restore it with that one")
        }
        _ => format!("--restore-state {file}: {e}"),
    })?;
    if let Some(first) = trace.step_at(0) {
        check_first_step(&autoscaler, at, first)?;
    }
    Ok(autoscaler)
}

/// Refuses a restore time that puts the restored last evaluation after the first step, which the
/// engine would refuse as time going backwards, with the latest `--restore-at` that works.
fn check_first_step(autoscaler: &Autoscaler, at: Instant, first: Instant) -> Result<(), String> {
    // A save is refused exactly when an evaluation at the same instant would be.
    let mut probe = vec![0; <Autoscaler>::SNAPSHOT_MAX_BYTES];
    match autoscaler.save(first, &mut probe) {
        Err(SaveError::TimeWentBackwards { last, now }) => {
            // The snapshot was saved `at - last` ms after its last evaluation.
            let latest = now.saturating_add(at.millis().saturating_sub(last));
            Err(format!(
                "--restore-at {} places the snapshot's last evaluation at {last} ms, after \
                 steps[0].at ({now} ms): pass --restore-at {latest} or earlier, or leave it out \
                 (the first step's time)",
                at.millis()
            ))
        }
        _ => Ok(()),
    }
}

/// The instant `--save-state` saves at: the last step's time (the last evaluation), else the
/// restore time, else 0 (a trace without steps).
pub fn save_at(trace: &Trace, restore: Option<Restore<'_>>) -> Instant {
    let last = trace.steps().checked_sub(1).and_then(|i| trace.step_at(i));
    last.or_else(|| restore.map(|r| r.instant(trace)))
        .unwrap_or(Instant(0))
}

/// Saves `autoscaler` as it is at `now` into `path`, through a temporary file renamed into place.
///
/// # Errors
///
/// The engine refused the save (an instant too far from the last evaluation), or the file could
/// not be written.
pub fn save(path: &Path, autoscaler: &Autoscaler, now: Instant) -> Result<(), String> {
    let mut buffer = vec![0; <Autoscaler>::SNAPSHOT_MAX_BYTES];
    let written = match autoscaler.save(now, &mut buffer) {
        Ok(len) => {
            write_atomically(path, buffer.get(..len).unwrap_or(&[])).map_err(|e| e.to_string())
        }
        Err(e) => Err(e.to_string()),
    };
    written.map_err(|e| format!("--save-state {}: {e}", path.display()))
}
