//! Errors with the field they are about: C-level problems (a NULL array, an unknown enum
//! value) and Kubernetes validation errors, reported through `hpa_field_error`.

use core::ffi::c_char;
use core::fmt;

use hpa::snapshot::{RestoreError, SaveError};
use hpa::validation::ValidationError;

use crate::enums::{field_error_type_value, hpa_field_error_type};
use crate::status::hpa_status;
use crate::text::{write_display, Text};
use crate::{HPA_FIELD_CAPACITY, HPA_MESSAGE_CAPACITY};

/// Which field a call refused, and why: written by `hpa_config_validate`,
/// `hpa_autoscaler_configure` and `hpa_observation_check` when they return an error.
///
/// For a Kubernetes validation error (`HPA_STATUS_INVALID_SPEC`), `field` is the API field path
/// (`spec.metrics[0].resource.target.averageUtilization`), `type` the field error type and
/// `message` exactly what the Kubernetes API server says
/// (`spec.maxReplicas: Invalid value: 0: must be greater than 0`). For any other status,
/// `field` is the path of the C struct member (`observation.pods[2].containers[0].name`),
/// `type` is `HPA_FIELD_ERROR_TYPE_NONE` and `message` says what is wrong with it. Texts are
/// NUL-terminated UTF-8, cut with `...` when longer than their arrays.
#[repr(C)]
pub struct hpa_field_error {
    /// The status the call returned (an `hpa_status`).
    pub status: u32,
    /// The Kubernetes field error type (an `hpa_field_error_type`), or
    /// `HPA_FIELD_ERROR_TYPE_NONE`.
    pub r#type: u32,
    /// The field's path.
    pub field: [c_char; HPA_FIELD_CAPACITY],
    /// The whole message, starting with the field's path.
    pub message: [c_char; HPA_MESSAGE_CAPACITY],
}

/// One element of a field path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Segment {
    name: &'static str,
    index: Option<usize>,
}

/// The most path segments kept (the deepest C path has 5).
const MAX_SEGMENTS: usize = 6;

/// A field path, built from the leaf outwards as an error propagates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Loc {
    /// Leaf first.
    segments: [Segment; MAX_SEGMENTS],
    len: usize,
}

impl Loc {
    const EMPTY: Loc = Loc {
        segments: [Segment {
            name: "",
            index: None,
        }; MAX_SEGMENTS],
        len: 0,
    };

    fn push(&mut self, segment: Segment) {
        if let Some(slot) = self.segments.get_mut(self.len) {
            *slot = segment;
            self.len = self.len.saturating_add(1);
        }
    }
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let used = self.segments.get(..self.len).unwrap_or(&[]);
        for (i, s) in used.iter().rev().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            f.write_str(s.name)?;
            if let Some(index) = s.index {
                write!(f, "[{index}]")?;
            }
        }
        Ok(())
    }
}

/// What is wrong with a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Detail {
    /// A required pointer is NULL.
    Null,
    /// An array pointer is NULL with a non-zero length.
    NullArray(usize),
    /// A pointer is not aligned.
    Misaligned(usize),
    /// Storage never initialized.
    Uninitialized,
    /// Storage whose digests do not match.
    Corrupt,
    /// Invalid UTF-8.
    Utf8,
    /// Unknown enum value.
    Enum(u32),
    /// A flag that is neither 0 nor 1.
    Flag(u32),
    /// A number out of its range, with the rule.
    Range(i64, &'static str),
    /// A list longer than the library supports.
    TooMany(usize, usize),
    /// A size computation overflowed.
    Overflow,
    /// An array whose length differs from another's.
    Length {
        /// The array's length.
        got: usize,
        /// The length it must have.
        want: usize,
        /// What sets `want`.
        of: &'static str,
    },
    /// Metric values of the wrong kind for the metric's source.
    ValuesKind(&'static str, &'static str),
    /// A controller setting out of range.
    Setting(&'static str),
    /// A buffer too small.
    Buffer(usize, usize),
    /// The output overlaps an input.
    Overlap(&'static str),
    /// A quantity text Kubernetes rejects.
    Quantity,
    /// A snapshot that cannot be restored, and why.
    Restore(RestoreError),
    /// A state that cannot be saved, and why.
    Save(SaveError),
}

impl fmt::Display for Detail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Detail::Null => f.write_str("must not be NULL"),
            Detail::NullArray(len) => write!(f, "is NULL but its length is {len}"),
            Detail::Misaligned(align) => write!(f, "is not aligned to {align} bytes"),
            Detail::Uninitialized => f.write_str("was not initialized by hpa_autoscaler_init"),
            Detail::Corrupt => f.write_str(
                "was changed outside the library since its last call (fingerprint mismatch)",
            ),
            Detail::Utf8 => f.write_str("is not valid UTF-8"),
            Detail::Enum(v) => write!(f, "holds the unknown value {v}"),
            Detail::Flag(v) => write!(f, "must be 0 or 1, not {v}"),
            Detail::Range(v, rule) => write!(f, "{v} {rule}"),
            Detail::TooMany(len, max) => {
                write!(f, "has {len} entries; this library supports at most {max}")
            }
            Detail::Overflow => f.write_str("is too large: the workspace size overflows"),
            Detail::Length { got, want, of } => {
                write!(f, "has {got} entries but must have {want} ({of})")
            }
            Detail::ValuesKind(kind, source) => {
                write!(f, "holds {kind} values, which a {source} metric cannot use")
            }
            Detail::Setting(rule) => f.write_str(rule),
            Detail::Buffer(got, want) => write!(f, "has {got} bytes but needs {want}"),
            Detail::Overlap(what) => write!(f, "overlaps {what}"),
            Detail::Quantity => f.write_str("is not a valid quantity"),
            Detail::Restore(e) => write!(f, "{e}"),
            Detail::Save(e) => write!(f, "{e}"),
        }
    }
}

/// A refused call: the status, and the field with what is wrong with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fault {
    pub(crate) status: hpa_status,
    pub(crate) detail: Detail,
    loc: Loc,
}

impl Fault {
    /// A fault about the innermost field, whose name is added with [`Fault::at`].
    pub(crate) const fn new(status: hpa_status, detail: Detail) -> Fault {
        Fault {
            status,
            detail,
            loc: Loc::EMPTY,
        }
    }

    /// The fault one level up: the field is `name`.
    pub(crate) fn at(mut self, name: &'static str) -> Fault {
        self.loc.push(Segment { name, index: None });
        self
    }

    /// The fault one level up: the field is `name[index]`.
    pub(crate) fn at_index(mut self, name: &'static str, index: usize) -> Fault {
        self.loc.push(Segment {
            name,
            index: Some(index),
        });
        self
    }
}

/// Why a configuration or observation was refused.
// Returned by value once per refused call: no allocator to box the validation error.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Refusal {
    /// A C-level problem.
    Fault(Fault),
    /// Kubernetes' validation failed.
    Invalid(ValidationError),
}

impl From<Fault> for Refusal {
    fn from(f: Fault) -> Refusal {
        Refusal::Fault(f)
    }
}

impl Refusal {
    /// The status the call returns.
    pub(crate) fn status(&self) -> hpa_status {
        match self {
            Refusal::Fault(f) => f.status,
            Refusal::Invalid(_) => hpa_status::InvalidSpec,
        }
    }

    /// Fills a field error report.
    pub(crate) fn write_to(&self, out: &mut hpa_field_error) {
        out.status = self.status() as u32;
        match self {
            Refusal::Fault(f) => {
                out.r#type = hpa_field_error_type::None as u32;
                write_display(&mut out.field, &f.loc);
                let mut t = Text::over(&mut out.message);
                let _ = fmt::write(&mut t, format_args!("{}: {}", f.loc, f.detail));
                t.finish();
            }
            Refusal::Invalid(e) => {
                out.r#type = field_error_type_value(e.kind) as u32;
                write_display(&mut out.field, &e.field);
                write_display(&mut out.message, e);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::ToString;

    #[test]
    fn paths_render_root_first() {
        let f = Fault::new(hpa_status::InvalidUtf8, Detail::Utf8)
            .at("name")
            .at_index("containers", 1)
            .at_index("pods", 3)
            .at("observation");
        assert_eq!(f.loc.to_string(), "observation.pods[3].containers[1].name");
    }
}
