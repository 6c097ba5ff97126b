//! Why a save or a restore was refused.

use core::fmt;

/// Why [`Autoscaler::save`](crate::Autoscaler::save) wrote nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SaveError {
    /// The buffer is shorter than the snapshot.
    BufferTooSmall {
        /// The snapshot's length.
        needed: usize,
        /// The buffer's length.
        capacity: usize,
    },
    /// `now` is earlier than the last evaluation.
    TimeWentBackwards {
        /// The last evaluation's time.
        last: i64,
        /// The rejected time.
        now: i64,
    },
    /// An instant of the state is further from the last evaluation than `i64` milliseconds
    /// reach.
    TimeOutOfRange,
    /// The annex is longer than [`MAX_ANNEX_BYTES`](super::MAX_ANNEX_BYTES).
    AnnexTooLong {
        /// Its length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// The snapshot would be longer than 4 GiB (history capacities that large).
    TooLarge,
}

/// What is wrong with a field of a snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Problem {
    /// The snapshot ends inside it.
    Truncated,
    /// Not written as a save writes it (a varint longer than needed or than 10 bytes, a ring
    /// entry coded otherwise than the ring encoding).
    Encoding,
    /// Its value is outside the field's range.
    OutOfRange,
    /// A value that must be unique (a condition type) appears twice.
    Duplicate,
    /// It contradicts another field (docs/spec/snapshot.md, "Consistency").
    Inconsistent,
    /// Bytes follow the last field.
    TrailingBytes,
}

/// Why [`Autoscaler::restore`](crate::Autoscaler::restore) refused a snapshot; the autoscaler
/// is then unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RestoreError {
    /// Shorter than a header and a checksum.
    TooShort {
        /// Its length.
        len: usize,
    },
    /// It does not start with [`MAGIC`](super::MAGIC).
    NotASnapshot,
    /// Its length field does not match its length: truncated, or followed by other bytes.
    LengthMismatch {
        /// The length its header states.
        stated: u32,
        /// Its actual length.
        actual: usize,
    },
    /// Its CRC-32 does not match its bytes: it was damaged.
    ChecksumMismatch {
        /// The checksum it carries.
        stored: u32,
        /// The checksum of its bytes.
        computed: u32,
    },
    /// A format version this engine does not know (0, or written by a newer engine).
    UnsupportedVersion {
        /// The version.
        version: u8,
    },
    /// A field is wrong.
    Field {
        /// The field, named as docs/spec/snapshot.md names it.
        field: &'static str,
        /// What is wrong with it.
        problem: Problem,
    },
    /// A history ring holds more bytes than this autoscaler's capacity.
    DoesNotFit {
        /// `recommendations` or `scaleEvents`.
        ring: &'static str,
        /// The bytes it holds.
        needed: usize,
        /// The capacity (`R` or `E`).
        capacity: usize,
    },
    /// `now` is so far from zero that a restored instant would leave `i64` milliseconds.
    ClockOutOfRange,
}

impl RestoreError {
    pub(super) const fn field(field: &'static str, problem: Problem) -> RestoreError {
        RestoreError::Field { field, problem }
    }
}

impl fmt::Display for SaveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SaveError::BufferTooSmall { needed, capacity } => write!(
                f,
                "the snapshot takes {needed} bytes but the buffer has {capacity}"
            ),
            SaveError::TimeWentBackwards { last, now } => write!(
                f,
                "save time {now} ms is earlier than the last evaluation ({last} ms)"
            ),
            SaveError::TimeOutOfRange => {
                f.write_str("an instant of the state is too far from the last evaluation")
            }
            SaveError::AnnexTooLong { len, max } => {
                write!(f, "the annex has {len} bytes; at most {max} are allowed")
            }
            SaveError::TooLarge => f.write_str("the snapshot would be longer than 4 GiB"),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Problem::Truncated => "the snapshot ends inside it",
            Problem::Encoding => "not encoded as a save encodes it",
            Problem::OutOfRange => "out of range",
            Problem::Duplicate => "duplicate",
            Problem::Inconsistent => "inconsistent with the rest of the state",
            Problem::TrailingBytes => "followed by unexpected bytes",
        })
    }
}

impl fmt::Display for RestoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RestoreError::TooShort { len } => {
                write!(f, "{len} bytes are too few for a snapshot")
            }
            RestoreError::NotASnapshot => f.write_str("not a snapshot (no \"HPAS\" magic)"),
            RestoreError::LengthMismatch { stated, actual } => write!(
                f,
                "the snapshot states {stated} bytes but has {actual}: truncated or padded"
            ),
            RestoreError::ChecksumMismatch { stored, computed } => write!(
                f,
                "checksum mismatch (stored {stored:#010x}, computed {computed:#010x}): the snapshot is damaged"
            ),
            RestoreError::UnsupportedVersion { version } => write!(
                f,
                "snapshot format version {version} is not supported (this engine reads 1 to {})",
                super::FORMAT_VERSION
            ),
            RestoreError::Field { field, problem } => {
                write!(f, "snapshot field `{field}`: {problem}")
            }
            RestoreError::DoesNotFit {
                ring,
                needed,
                capacity,
            } => write!(
                f,
                "the snapshot's {ring} take {needed} bytes; this autoscaler holds {capacity}"
            ),
            RestoreError::ClockOutOfRange => {
                f.write_str("restored instants would leave the i64 millisecond range at this now")
            }
        }
    }
}
