//! The error a validation reports: its field path, type, rejected value and detail, rendered
//! like Go's `field.Error`.

use core::fmt;

use super::{Detail, SupportedValues, MAX_PATH_DEPTH, MAX_VALUE_LEN};
use crate::quantity::Quantity;
use crate::spec::MetricSourceType;

/// Kubernetes field error types (`field.ErrorType`), as far as HPA validation uses them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ErrorType {
    /// `FieldValueRequired`: a required value is missing ("Required value").
    Required,
    /// `FieldValueInvalid`: a malformed or out-of-range value ("Invalid value").
    Invalid,
    /// `FieldValueNotSupported`: a value outside an enumeration ("Unsupported value").
    Unsupported,
    /// `FieldValueForbidden`: a value not permitted here ("Forbidden").
    Forbidden,
    /// `FieldValueTooLong`: a value that is too long ("Too long").
    TooLong,
    /// `FieldValueTooMany`: a list with too many items ("Too many").
    TooMany,
}

impl ErrorType {
    /// The canonical text (`ErrorType.String()`), e.g. `"Invalid value"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorType::Required => "Required value",
            ErrorType::Invalid => "Invalid value",
            ErrorType::Unsupported => "Unsupported value",
            ErrorType::Forbidden => "Forbidden",
            ErrorType::TooLong => "Too long",
            ErrorType::TooMany => "Too many",
        }
    }

    /// Whether the error text omits the rejected value (as `field.Error.ErrorBody` does).
    const fn omits_value(self) -> bool {
        matches!(
            self,
            ErrorType::Required | ErrorType::Forbidden | ErrorType::TooLong
        )
    }
}

impl fmt::Display for ErrorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One element of a [`FieldPath`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Segment {
    /// A field name, e.g. `metrics`.
    Name(&'static str),
    /// A list index, e.g. `[2]`.
    Index(usize),
}

/// A field path such as `spec.metrics[2].resource.target.averageUtilization`, held without
/// allocation. It renders like Go's `field.Path.String()`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct FieldPath {
    segments: heapless::Vec<Segment, MAX_PATH_DEPTH>,
}

impl FieldPath {
    /// A path with one field name, e.g. `FieldPath::root("spec")`.
    pub fn root(name: &'static str) -> FieldPath {
        FieldPath::default().child(name)
    }

    /// This path extended by a field name. Segments beyond [`MAX_PATH_DEPTH`] are dropped
    /// (no HPA path comes close).
    #[must_use]
    pub fn child(mut self, name: &'static str) -> FieldPath {
        // Capacity is far above the deepest HPA path; a full path stays as it is.
        let _ = self.segments.push(Segment::Name(name));
        self
    }

    /// This path extended by a list index.
    #[must_use]
    pub fn index(mut self, index: usize) -> FieldPath {
        let _ = self.segments.push(Segment::Index(index));
        self
    }

    /// The segments, outermost first.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.segments.iter().enumerate() {
            match *segment {
                Segment::Name(name) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    f.write_str(name)?;
                }
                Segment::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

/// A copy of a rejected string, at most [`MAX_VALUE_LEN`] bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ValueText {
    text: heapless::String<MAX_VALUE_LEN>,
    truncated: bool,
}

impl ValueText {
    /// Copies `value`, cutting it at a character boundary if it exceeds [`MAX_VALUE_LEN`].
    pub fn new(value: &str) -> ValueText {
        let mut out = ValueText::default();
        for c in value.chars() {
            if out.text.push(c).is_err() {
                out.truncated = true;
                break;
            }
        }
        out
    }

    /// The kept text.
    pub fn as_str(&self) -> &str {
        self.text.as_str()
    }

    /// Whether the original value was longer than what is kept.
    pub const fn is_truncated(&self) -> bool {
        self.truncated
    }
}

/// The rejected value of an error, printed as `field.Error` prints it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum BadValue {
    /// No value (Required and Forbidden errors, whose text never shows one).
    None,
    /// An integer, printed bare (`-1`).
    Int(i64),
    /// A string, printed quoted like Go's `%q` (`"Foo"`).
    Str(ValueText),
    /// A string-like value with a `String()` method (e.g. `core.ResourceName`), printed bare.
    Name(ValueText),
    /// A quantity, printed in its canonical form (`-300m`).
    ///
    /// Upstream passes a `*resource.Quantity` here, which Go renders as the raw struct
    /// (`resource.Quantity{i:resource.int64Amount{...}, ...}`); the canonical string is printed
    /// instead, as the most useful stable rendering.
    Quantity(Quantity),
}

impl BadValue {
    /// A quoted string value.
    pub fn str(value: &str) -> BadValue {
        BadValue::Str(ValueText::new(value))
    }

    /// A bare string value.
    pub fn name(value: &str) -> BadValue {
        BadValue::Name(ValueText::new(value))
    }
}

impl fmt::Display for BadValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadValue::None => f.write_str("null"),
            BadValue::Int(v) => write!(f, "{v}"),
            BadValue::Str(v) => {
                f.write_str("\"")?;
                write_go_quoted_body(f, v.as_str())?;
                if v.is_truncated() {
                    f.write_str("...")?;
                }
                f.write_str("\"")
            }
            BadValue::Name(v) => {
                f.write_str(v.as_str())?;
                if v.is_truncated() {
                    f.write_str("...")?;
                }
                Ok(())
            }
            BadValue::Quantity(q) => write!(f, "{q}"),
        }
    }
}

/// Writes `s` escaped as Go's `strconv.Quote` does (without the surrounding quotes).
fn write_go_quoted_body(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    for c in s.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\u{07}' => f.write_str("\\a")?,
            '\u{08}' => f.write_str("\\b")?,
            '\u{0c}' => f.write_str("\\f")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            '\u{0b}' => f.write_str("\\v")?,
            c if c < ' ' || c == '\u{7f}' => write!(f, "\\x{:02x}", u32::from(c))?,
            c if c.is_control() => write!(f, "\\u{:04x}", u32::from(c))?,
            c => write!(f, "{c}")?,
        }
    }
    Ok(())
}

/// A scaling direction of `spec.behavior`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Direction {
    /// `scaleUp`.
    ScaleUp,
    /// `scaleDown`.
    ScaleDown,
}

impl Direction {
    /// The field name (`scaleUp` / `scaleDown`).
    pub const fn field_name(self) -> &'static str {
        match self {
            Direction::ScaleUp => "scaleUp",
            Direction::ScaleDown => "scaleDown",
        }
    }
}

/// The field name of a metric source (`metrics[].<field>`).
pub const fn source_field_name(source: MetricSourceType) -> &'static str {
    match source {
        MetricSourceType::Object => "object",
        MetricSourceType::Pods => "pods",
        MetricSourceType::Resource => "resource",
        MetricSourceType::ContainerResource => "containerResource",
        MetricSourceType::External => "external",
    }
}

/// A validation error: field, type, rejected value and detail message.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ValidationError {
    /// The field the error is about.
    pub field: FieldPath,
    /// The error type.
    pub kind: ErrorType,
    /// The rejected value ([`BadValue::None`] for Required and Forbidden errors).
    pub value: BadValue,
    /// The detail message.
    pub detail: Detail,
}

impl ValidationError {
    /// An error from its parts.
    pub const fn new(field: FieldPath, kind: ErrorType, value: BadValue, detail: Detail) -> Self {
        ValidationError {
            field,
            kind,
            value,
            detail,
        }
    }

    /// `field.Required(field, detail)`.
    pub const fn required(field: FieldPath, detail: Detail) -> Self {
        ValidationError::new(field, ErrorType::Required, BadValue::None, detail)
    }

    /// `field.Invalid(field, value, detail)`.
    pub const fn invalid(field: FieldPath, value: BadValue, detail: Detail) -> Self {
        ValidationError::new(field, ErrorType::Invalid, value, detail)
    }

    /// `field.Forbidden(field, detail)`.
    pub const fn forbidden(field: FieldPath, detail: Detail) -> Self {
        ValidationError::new(field, ErrorType::Forbidden, BadValue::None, detail)
    }

    /// `field.NotSupported(field, value, members)`.
    pub fn unsupported(field: FieldPath, value: &str, members: SupportedValues) -> Self {
        ValidationError::new(
            field,
            ErrorType::Unsupported,
            BadValue::str(value),
            Detail::Supported(members),
        )
    }

    /// The error for `spec.metrics[index].type` holding a string that is not a metric source
    /// type: Unsupported value (or Required value when `value` is empty).
    pub fn unsupported_metric_type(index: usize, value: &str) -> Self {
        let field = metric_path(index).child("type");
        if value.is_empty() {
            ValidationError::required(field, Detail::MetricSourceTypeRequired)
        } else {
            ValidationError::unsupported(field, value, SupportedValues::MetricSourceTypes)
        }
    }

    /// The error for `spec.metrics[metric].<source>.target.type` holding a string that is not
    /// a target type: Invalid value (or Required value when `value` is empty).
    pub fn unsupported_target_type(metric: usize, source: MetricSourceType, value: &str) -> Self {
        let field = metric_path(metric)
            .child(source_field_name(source))
            .child("target")
            .child("type");
        if value.is_empty() {
            ValidationError::required(field, Detail::TargetTypeRequired)
        } else {
            ValidationError::invalid(field, BadValue::str(value), Detail::TargetTypeInvalid)
        }
    }

    /// The error for `spec.behavior.<direction>.selectPolicy` holding a string other than
    /// `Max`, `Min` or `Disabled` (the empty string included).
    pub fn unsupported_select_policy(direction: Direction, value: &str) -> Self {
        let field = rules_path(direction).child("selectPolicy");
        ValidationError::unsupported(field, value, SupportedValues::SelectPolicies)
    }

    /// The error for `spec.behavior.<direction>.policies[policy].type` holding a string other
    /// than `Pods` or `Percent` (the empty string included).
    pub fn unsupported_policy_type(direction: Direction, policy: usize, value: &str) -> Self {
        let field = rules_path(direction)
            .child("policies")
            .index(policy)
            .child("type");
        ValidationError::unsupported(field, value, SupportedValues::PolicyTypes)
    }
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.kind)?;
        if !self.kind.omits_value() {
            write!(f, ": {}", self.value)?;
        }
        if !self.detail.is_empty() {
            write!(f, ": {}", self.detail)?;
            if self.detail == Detail::UnexpectedGroupVersion {
                if let BadValue::Str(v) | BadValue::Name(v) = &self.value {
                    f.write_str(v.as_str())?;
                }
            }
        }
        Ok(())
    }
}

pub(super) fn metric_path(index: usize) -> FieldPath {
    FieldPath::root("spec").child("metrics").index(index)
}

pub(super) fn rules_path(direction: Direction) -> FieldPath {
    FieldPath::root("spec")
        .child("behavior")
        .child(direction.field_name())
}
