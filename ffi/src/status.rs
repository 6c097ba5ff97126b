//! The status every fallible function returns, and its message.

use core::ffi::{c_char, CStr};

/// What a call did: `HPA_STATUS_OK`, or why it refused to act.
///
/// A function that returns anything but `HPA_STATUS_OK` has written no output and changed no
/// state. The numbers are stable: a code keeps its number forever and a retired number is
/// never reused. They are grouped by origin: 1000s for arguments the caller got wrong, 2000s
/// for configurations, 3000s for the autoscaler's state, 4000s for quantity texts.
/// `hpa_status_str` gives a one-line message for each.
// Retired numbers (never reuse): none yet.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum hpa_status {
    /// Success.
    Ok = 0,
    /// A required pointer is NULL, or an array pointer is NULL while its length is not 0.
    NullPointer = 1000,
    /// A pointer is not aligned for the type it points to.
    Misaligned = 1001,
    /// The autoscaler storage was not initialized by `hpa_autoscaler_init` (or was
    /// overwritten, or comes from another build of the library).
    Uninitialized = 1002,
    /// A buffer (autoscaler storage, workspace, text buffer) is smaller than needed.
    BufferTooSmall = 1003,
    /// An output buffer overlaps an input.
    Overlap = 1004,
    /// Array lengths disagree: per-pod samples and pods, or metric values and the spec's
    /// metrics.
    LengthMismatch = 1005,
    /// An enumeration field or argument holds a value the library does not know.
    InvalidEnum = 1006,
    /// A flag field holds a value other than 0 or 1.
    InvalidFlag = 1007,
    /// A string is not valid UTF-8.
    InvalidUtf8 = 1008,
    /// A number is outside its allowed range (a negative replica count, a double that is NaN
    /// or infinite).
    OutOfRange = 1009,
    /// A list is longer than this library supports (`HPA_MAX_POLICIES` policies per
    /// direction; a snapshot's history longer than this library's autoscaler holds), or a size
    /// computation overflowed.
    TooLarge = 1010,
    /// The HPA spec fails Kubernetes' API validation (`hpa_config_validate` tells the field
    /// and Kubernetes' message).
    InvalidSpec = 2000,
    /// A controller setting is out of range (a negative duration or tolerance).
    InvalidSettings = 2001,
    /// The evaluation time is earlier than a previous evaluation's.
    TimeWentBackwards = 3000,
    /// A metric's values are of a kind its source cannot use (e.g. an Object value for a
    /// Resource metric).
    WrongValuesKind = 3001,
    /// A rescale outcome was reported but no rescale is pending.
    NoPendingRescale = 3002,
    /// The autoscaler storage was changed since this library last wrote it (a stray write, a
    /// bit flip): a digest of its bytes in use does not match. Nothing was read from it;
    /// restore a saved snapshot or initialize it again.
    CorruptState = 3003,
    /// A snapshot is damaged, truncated, padded or inconsistent: not what
    /// `hpa_autoscaler_save` wrote (`hpa_snapshot_check` tells what is wrong).
    InvalidSnapshot = 3004,
    /// A snapshot's format version is one this library does not read (written by a newer
    /// library).
    SnapshotVersion = 3005,
    /// `hpa_autoscaler_evaluate_configured` was called on an autoscaler that holds no
    /// configuration: call `hpa_autoscaler_configure` first (again after `init` or `restore`).
    NotConfigured = 3006,
    /// A quantity text is empty or does not match Kubernetes' quantity syntax.
    QuantityFormat = 4000,
    /// A quantity text has an unknown suffix.
    QuantitySuffix = 4001,
    /// A quantity's decimal exponent does not fit in 32 bits.
    QuantityExponent = 4002,
}

impl hpa_status {
    /// The message `hpa_status_str` returns.
    pub const fn message(self) -> &'static CStr {
        match self {
            hpa_status::Ok => c"success",
            hpa_status::NullPointer => c"a required pointer is NULL",
            hpa_status::Misaligned => c"a pointer is not aligned for its type",
            hpa_status::Uninitialized => {
                c"the autoscaler storage was not initialized by hpa_autoscaler_init"
            }
            hpa_status::BufferTooSmall => c"a buffer is smaller than needed",
            hpa_status::Overlap => c"an output buffer overlaps an input",
            hpa_status::LengthMismatch => c"array lengths disagree",
            hpa_status::InvalidEnum => c"an enumeration value is unknown",
            hpa_status::InvalidFlag => c"a flag is neither 0 nor 1",
            hpa_status::InvalidUtf8 => c"a string is not valid UTF-8",
            hpa_status::OutOfRange => c"a number is out of range",
            hpa_status::TooLarge => c"a list is longer than this library supports",
            hpa_status::InvalidSpec => c"the HPA spec fails Kubernetes validation",
            hpa_status::InvalidSettings => c"a controller setting is out of range",
            hpa_status::TimeWentBackwards => {
                c"the evaluation time is earlier than a previous evaluation's"
            }
            hpa_status::WrongValuesKind => c"a metric's values do not fit its source type",
            hpa_status::NoPendingRescale => c"no rescale is pending",
            hpa_status::CorruptState => {
                c"the autoscaler storage was changed outside the library (fingerprint mismatch)"
            }
            hpa_status::InvalidSnapshot => c"the snapshot is damaged, truncated or inconsistent",
            hpa_status::SnapshotVersion => {
                c"the snapshot's format version is not supported by this library"
            }
            hpa_status::NotConfigured => c"the autoscaler holds no configuration",
            hpa_status::QuantityFormat => {
                c"quantities must match the regular expression \
                 '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
            }
            hpa_status::QuantitySuffix => c"unable to parse quantity's suffix",
            hpa_status::QuantityExponent => {
                c"unable to parse quantity's suffix: the decimal exponent must fit in a 32-bit \
                 signed integer"
            }
        }
    }

    /// The enumerator's name in `hpa.h`, which `hpa_status_name` returns.
    pub const fn name(self) -> &'static CStr {
        match self {
            hpa_status::Ok => c"HPA_STATUS_OK",
            hpa_status::NullPointer => c"HPA_STATUS_NULL_POINTER",
            hpa_status::Misaligned => c"HPA_STATUS_MISALIGNED",
            hpa_status::Uninitialized => c"HPA_STATUS_UNINITIALIZED",
            hpa_status::BufferTooSmall => c"HPA_STATUS_BUFFER_TOO_SMALL",
            hpa_status::Overlap => c"HPA_STATUS_OVERLAP",
            hpa_status::LengthMismatch => c"HPA_STATUS_LENGTH_MISMATCH",
            hpa_status::InvalidEnum => c"HPA_STATUS_INVALID_ENUM",
            hpa_status::InvalidFlag => c"HPA_STATUS_INVALID_FLAG",
            hpa_status::InvalidUtf8 => c"HPA_STATUS_INVALID_UTF8",
            hpa_status::OutOfRange => c"HPA_STATUS_OUT_OF_RANGE",
            hpa_status::TooLarge => c"HPA_STATUS_TOO_LARGE",
            hpa_status::InvalidSpec => c"HPA_STATUS_INVALID_SPEC",
            hpa_status::InvalidSettings => c"HPA_STATUS_INVALID_SETTINGS",
            hpa_status::TimeWentBackwards => c"HPA_STATUS_TIME_WENT_BACKWARDS",
            hpa_status::WrongValuesKind => c"HPA_STATUS_WRONG_VALUES_KIND",
            hpa_status::NoPendingRescale => c"HPA_STATUS_NO_PENDING_RESCALE",
            hpa_status::CorruptState => c"HPA_STATUS_CORRUPT_STATE",
            hpa_status::InvalidSnapshot => c"HPA_STATUS_INVALID_SNAPSHOT",
            hpa_status::SnapshotVersion => c"HPA_STATUS_SNAPSHOT_VERSION",
            hpa_status::NotConfigured => c"HPA_STATUS_NOT_CONFIGURED",
            hpa_status::QuantityFormat => c"HPA_STATUS_QUANTITY_FORMAT",
            hpa_status::QuantitySuffix => c"HPA_STATUS_QUANTITY_SUFFIX",
            hpa_status::QuantityExponent => c"HPA_STATUS_QUANTITY_EXPONENT",
        }
    }

    /// The status with this number, if any (the numbers are written once, in the enum).
    pub fn from_u32(value: u32) -> Option<hpa_status> {
        crate::enums::status(value)
    }
}

/// Every status, in numeric order.
#[cfg(test)]
pub const ALL_STATUSES: [hpa_status; 24] = [
    hpa_status::Ok,
    hpa_status::NullPointer,
    hpa_status::Misaligned,
    hpa_status::Uninitialized,
    hpa_status::BufferTooSmall,
    hpa_status::Overlap,
    hpa_status::LengthMismatch,
    hpa_status::InvalidEnum,
    hpa_status::InvalidFlag,
    hpa_status::InvalidUtf8,
    hpa_status::OutOfRange,
    hpa_status::TooLarge,
    hpa_status::InvalidSpec,
    hpa_status::InvalidSettings,
    hpa_status::TimeWentBackwards,
    hpa_status::WrongValuesKind,
    hpa_status::NoPendingRescale,
    hpa_status::CorruptState,
    hpa_status::InvalidSnapshot,
    hpa_status::SnapshotVersion,
    hpa_status::NotConfigured,
    hpa_status::QuantityFormat,
    hpa_status::QuantitySuffix,
    hpa_status::QuantityExponent,
];

/// A static, NUL-terminated message for a status number, e.g. `"a required pointer is NULL"`
/// for `HPA_STATUS_NULL_POINTER`; `"unknown status"` for a number that is no status. The
/// pointer is never NULL and stays valid for the life of the program.
#[no_mangle]
pub extern "C" fn hpa_status_str(status: u32) -> *const c_char {
    match hpa_status::from_u32(status) {
        Some(s) => s.message().as_ptr(),
        None => c"unknown status".as_ptr(),
    }
}

/// The name of a status number's enumerator, e.g. `"HPA_STATUS_NULL_POINTER"` for 1000;
/// `"unknown hpa_status"` for a number that is no status. The pointer is never NULL and stays
/// valid for the life of the program.
#[no_mangle]
pub extern "C" fn hpa_status_name(status: u32) -> *const c_char {
    match hpa_status::from_u32(status) {
        Some(s) => s.name().as_ptr(),
        None => c"unknown hpa_status".as_ptr(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_round_trip_and_messages_are_distinct() {
        for (i, s) in ALL_STATUSES.iter().enumerate() {
            assert_eq!(hpa_status::from_u32(*s as u32), Some(*s));
            for t in ALL_STATUSES.iter().take(i) {
                assert_ne!(s.message(), t.message());
                assert_ne!(s.name(), t.name());
                assert!((*t as u32) < (*s as u32), "in numeric order");
            }
        }
        assert_eq!(hpa_status::from_u32(1), None);
        assert_eq!(hpa_status::from_u32(u32::MAX), None);
    }
}
