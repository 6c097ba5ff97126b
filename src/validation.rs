//! API validation of an `autoscaling/v2` HorizontalPodAutoscaler spec (docs/spec/validation.md),
//! reported the way the Kubernetes API server reports it.
//!
//! One walk of the spec follows the order in which upstream's
//! `validateHorizontalPodAutoscalerSpec` appends its errors (`pkg/apis/autoscaling/validation`).
//! [`validate_spec_each`] passes **every** error to a visitor, like the error list `kubectl`
//! prints for a rejected object; [`validate_spec`] and [`validate_spec_with`] return the
//! **first** one (and stop the walk there). A [`ValidationError`] renders exactly like Go's
//! `field.Error.Error()`: `<field path>: <type>[: <value>][: <detail>]`, for example
//! `spec.minReplicas: Invalid value: 0: must be greater than or equal to 1` or
//! `spec.behavior.scaleUp.policies: Required value: must specify at least one Policy`.
//!
//! Validation runs after API defaulting, as in the API server: an absent `minReplicas`,
//! `metrics`, `selectPolicy` or `policies` is the (valid) default, while `policies: []` is
//! invalid. Values the typed model cannot hold (an unknown metric `type`, target `type`,
//! `selectPolicy` or policy `type` string) are passed to [`validate_spec_with`] as
//! [`Unrecognized`] entries, so that they are reported in upstream's order too; the same errors
//! are available one by one from the `ValidationError::unsupported_*` constructors.
//!
//! Where the text cannot match upstream byte for byte:
//! * a rejected quantity prints in canonical form (`-300m`); Go prints the raw
//!   `resource.Quantity{...}` struct for the `*Quantity` upstream passes;
//! * with several wrongly populated metric sources, upstream's order of their `Forbidden`
//!   errors depends on Go map order; they are reported here in the order upstream examines the
//!   sources (object, external, pods, resource, containerResource);
//! * the `apiVersion` messages of `ValidateCrossVersionObjectReference` (added upstream in
//!   1.34, source not available to this implementation) are reconstructed: a value with more
//!   than one `/` gives `schema.ParseGroupVersion`'s error, a missing group (allowed only for a
//!   `ReplicationController` scale target and for Object metrics' described objects) gives
//!   "apiVersion must specify API group".
//!
//! Nothing here allocates: paths are fixed-capacity segment lists and rejected strings are
//! copied into a fixed buffer ([`MAX_VALUE_LEN`] bytes, longer values are cut and marked).
//! Without an allocator the error cannot be boxed, so it is returned by value (a few hundred
//! bytes, once per spec); hence the `result_large_err` allowance below. The visitor form builds
//! each error on the stack and lends it to the visitor.
#![allow(clippy::result_large_err)]

use core::fmt;
use core::ops::ControlFlow;

use crate::quantity::Quantity;
use crate::spec::{
    CrossVersionObjectReference, HpaSpec, MetricIdentifier, MetricSourceType, MetricSpec,
    MetricTarget, ScalingRules,
};

/// The largest allowed scaling policy period, in seconds (`MaxPeriodSeconds`).
pub const MAX_PERIOD_SECONDS: i32 = 1800;

/// The largest allowed stabilization window, in seconds (`MaxStabilizationWindowSeconds`).
pub const MAX_STABILIZATION_WINDOW_SECONDS: i32 = 3600;

/// The most segments a [`FieldPath`] holds (the deepest HPA path has 6).
pub const MAX_PATH_DEPTH: usize = 8;

/// The most bytes of a rejected string kept in a [`BadValue`]; longer values are cut at a
/// character boundary and printed with a trailing `...`.
pub const MAX_VALUE_LEN: usize = 256;

const DNS1123_LABEL_MAX_LENGTH: usize = 63;
const DNS1123_SUBDOMAIN_MAX_LENGTH: usize = 253;
const LABEL_KEY_NAME_MAX_LENGTH: usize = 63;
const REQUESTS_PREFIX: &str = "requests.";
const HUGEPAGES_PREFIX: &str = "hugepages-";
const REQUESTS_HUGEPAGES_PREFIX: &str = "requests.hugepages-";
const DEFAULT_NAMESPACE_PREFIX: &str = "kubernetes.io/";

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

/// An enumeration whose members an Unsupported-value error lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SupportedValues {
    /// Metric source types (`metrics[].type`).
    MetricSourceTypes,
    /// `selectPolicy` values.
    SelectPolicies,
    /// Scaling policy types (`policies[].type`).
    PolicyTypes,
}

impl SupportedValues {
    /// The members, sorted as upstream's `sets.String.List()` returns them.
    pub const fn values(self) -> &'static [&'static str] {
        match self {
            SupportedValues::MetricSourceTypes => &[
                "ContainerResource",
                "External",
                "Object",
                "Pods",
                "Resource",
            ],
            SupportedValues::SelectPolicies => &["Disabled", "Max", "Min"],
            SupportedValues::PolicyTypes => &["Percent", "Pods"],
        }
    }
}

/// Which part of a qualified name (label key) a name message is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum NamePart {
    /// The whole value (no prefix in the message).
    Whole,
    /// The DNS subdomain before `/` ("prefix part ...").
    Prefix,
    /// The name after `/`, or the whole value without `/` ("name part ...").
    Name,
}

impl NamePart {
    const fn as_str(self) -> &'static str {
        match self {
            NamePart::Whole => "",
            NamePart::Prefix => "prefix part ",
            NamePart::Name => "name part ",
        }
    }
}

/// A name-format message from apimachinery's content validators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum NameRule {
    /// "must be non-empty".
    Empty,
    /// "must be no more than N characters".
    MaxLength(usize),
    /// The lowercase RFC 1123 label format message (with its examples and regex).
    Dns1123Label,
    /// The lowercase RFC 1123 subdomain format message (with its example and regex).
    Dns1123Subdomain,
    /// "must not contain dots" (a valid subdomain that is not a valid label).
    NoDots,
    /// The label-key name format message (with its examples and regex).
    LabelKeyName,
    /// The label-key message for values with more than one `/`.
    LabelKeyTooManySlashes,
}

const DNS1123_LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case \
alphanumeric characters or '-', and must start and end with an alphanumeric character \
(e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

const DNS1123_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case \
alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character \
(e.g. 'example.com', regex used for validation is \
'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const LABEL_KEY_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and \
must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or \
'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

impl fmt::Display for NameRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            NameRule::Empty => f.write_str("must be non-empty"),
            NameRule::MaxLength(n) => write!(f, "must be no more than {n} characters"),
            NameRule::Dns1123Label => f.write_str(DNS1123_LABEL_MSG),
            NameRule::Dns1123Subdomain => f.write_str(DNS1123_SUBDOMAIN_MSG),
            NameRule::NoDots => f.write_str("must not contain dots"),
            NameRule::LabelKeyName => f.write_str(LABEL_KEY_MSG),
            NameRule::LabelKeyTooManySlashes => write!(
                f,
                "a valid label key {LABEL_KEY_MSG} with an optional DNS subdomain prefix and \
                 '/' (e.g. 'example.com/MyName')"
            ),
        }
    }
}

/// The detail message of an error, rendering Kubernetes' exact text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Detail {
    /// No detail (e.g. `field.Required(path, "")`).
    None,
    /// "must be greater than or equal to N".
    GreaterThanOrEqualTo(i64),
    /// "must be greater than 0".
    GreaterThan0,
    /// "must be greater than or equal to `minReplicas`".
    GreaterThanOrEqualToMinReplicas,
    /// "must be greater than zero".
    GreaterThanZero,
    /// "must be greater than or equal to zero".
    GreaterThanOrEqualToZero,
    /// "must be less than or equal to N".
    LessThanOrEqualTo(i64),
    /// "must be greater or equal to zero" (tolerance).
    ToleranceNotNegative,
    /// "must be positive".
    MustBePositive,
    /// "must specify at least one Object or External metric to support scaling to zero replicas".
    ObjectOrExternalMetricForScaleToZero,
    /// "must specify a metric source type".
    MetricSourceTypeRequired,
    /// "supported values: ..." (the quoted members of the enumeration).
    Supported(SupportedValues),
    /// "must populate information for the given metric source".
    PopulateMetricSource,
    /// "must populate the given metric source only".
    PopulateMetricSourceOnly,
    /// "must specify a resource name".
    ResourceNameRequired,
    /// "must specify a container".
    ContainerRequired,
    /// "must specify a metric name".
    MetricNameRequired,
    /// "must specify a metric target type".
    TargetTypeRequired,
    /// "must be either Utilization, Value, or AverageValue".
    TargetTypeInvalid,
    /// "must set either a target raw value or a target utilization".
    RawValueOrUtilizationRequired,
    /// "may not set both a target raw value and a target utilization".
    RawValueAndUtilizationForbidden,
    /// "must set either a target value or averageValue" (Object).
    ObjectValueOrAverageValueRequired,
    /// "must set either a target value for metric or a per-pod target" (External).
    ExternalValueOrAverageValueRequired,
    /// "may not set both a target value for metric and a per-pod target" (External).
    ExternalValueAndAverageValueForbidden,
    /// "must specify a positive target averageValue" (Pods).
    PodsAverageValueRequired,
    /// "must specify at least one Policy".
    AtLeastOnePolicy,
    /// "may not be 'X'" (path segment names).
    MayNotBe(&'static str),
    /// "may not contain 'X'" (path segment names).
    MayNotContain(&'static str),
    /// A name-format message, with its "prefix part " / "name part " qualifier.
    Name(NamePart, NameRule),
    /// "must be a standard resource type or fully qualified".
    StandardResourceOrQualified,
    /// "must be a standard resource for containers".
    StandardContainerResource,
    /// "doesn't follow extended resource name standard".
    ExtendedResourceName,
    /// "unexpected GroupVersion string: " followed by the rejected `apiVersion`
    /// (the error of `schema.ParseGroupVersion`; [`ValidationError`] appends the value).
    UnexpectedGroupVersion,
    /// "apiVersion must specify API group".
    ApiGroupRequired,
    /// "must have at most N items" (`field.TooMany`).
    AtMostItems(usize),
}

impl Detail {
    /// Whether the detail is empty (then the error text ends after the type or value).
    pub const fn is_empty(&self) -> bool {
        matches!(self, Detail::None)
    }
}

impl fmt::Display for Detail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match *self {
            Detail::None => "",
            Detail::AtMostItems(n) => return write!(f, "must have at most {n} items"),
            Detail::GreaterThanOrEqualTo(n) => {
                return write!(f, "must be greater than or equal to {n}")
            }
            Detail::GreaterThan0 => "must be greater than 0",
            Detail::GreaterThanOrEqualToMinReplicas => {
                "must be greater than or equal to `minReplicas`"
            }
            Detail::GreaterThanZero => "must be greater than zero",
            Detail::GreaterThanOrEqualToZero => "must be greater than or equal to zero",
            Detail::LessThanOrEqualTo(n) => return write!(f, "must be less than or equal to {n}"),
            Detail::ToleranceNotNegative => "must be greater or equal to zero",
            Detail::MustBePositive => "must be positive",
            Detail::ObjectOrExternalMetricForScaleToZero => {
                "must specify at least one Object or External metric to support scaling to zero \
                 replicas"
            }
            Detail::MetricSourceTypeRequired => "must specify a metric source type",
            Detail::Supported(set) => {
                f.write_str("supported values: ")?;
                for (i, v) in set.values().iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "\"{v}\"")?;
                }
                return Ok(());
            }
            Detail::PopulateMetricSource => "must populate information for the given metric source",
            Detail::PopulateMetricSourceOnly => "must populate the given metric source only",
            Detail::ResourceNameRequired => "must specify a resource name",
            Detail::ContainerRequired => "must specify a container",
            Detail::MetricNameRequired => "must specify a metric name",
            Detail::TargetTypeRequired => "must specify a metric target type",
            Detail::TargetTypeInvalid => "must be either Utilization, Value, or AverageValue",
            Detail::RawValueOrUtilizationRequired => {
                "must set either a target raw value or a target utilization"
            }
            Detail::RawValueAndUtilizationForbidden => {
                "may not set both a target raw value and a target utilization"
            }
            Detail::ObjectValueOrAverageValueRequired => {
                "must set either a target value or averageValue"
            }
            Detail::ExternalValueOrAverageValueRequired => {
                "must set either a target value for metric or a per-pod target"
            }
            Detail::ExternalValueAndAverageValueForbidden => {
                "may not set both a target value for metric and a per-pod target"
            }
            Detail::PodsAverageValueRequired => "must specify a positive target averageValue",
            Detail::AtLeastOnePolicy => "must specify at least one Policy",
            Detail::MayNotBe(s) => return write!(f, "may not be '{s}'"),
            Detail::MayNotContain(s) => return write!(f, "may not contain '{s}'"),
            Detail::Name(part, rule) => return write!(f, "{}{rule}", part.as_str()),
            Detail::StandardResourceOrQualified => {
                "must be a standard resource type or fully qualified"
            }
            Detail::StandardContainerResource => "must be a standard resource for containers",
            Detail::ExtendedResourceName => "doesn't follow extended resource name standard",
            Detail::UnexpectedGroupVersion => "unexpected GroupVersion string: ",
            Detail::ApiGroupRequired => "apiVersion must specify API group",
        };
        f.write_str(text)
    }
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

/// A value the typed spec cannot hold, reported by [`validate_spec_with`] at its place in
/// upstream's order. The corresponding typed field is ignored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Unrecognized<'a> {
    /// `spec.metrics[metric].type` is `value` (empty or unknown).
    MetricType {
        /// Index in `spec.metrics`.
        metric: usize,
        /// The string given.
        value: &'a str,
    },
    /// `spec.metrics[metric].<source>.target.type` is `value` (empty or unknown).
    TargetType {
        /// Index in `spec.metrics`.
        metric: usize,
        /// Which source's target.
        source: MetricSourceType,
        /// The string given.
        value: &'a str,
    },
    /// `spec.behavior.<direction>.selectPolicy` is `value` (not Max, Min or Disabled).
    SelectPolicy {
        /// The direction.
        direction: Direction,
        /// The string given.
        value: &'a str,
    },
    /// `spec.behavior.<direction>.policies[policy].type` is `value` (not Pods or Percent).
    PolicyType {
        /// The direction.
        direction: Direction,
        /// Index in `policies`.
        policy: usize,
        /// The string given.
        value: &'a str,
    },
}

impl Unrecognized<'_> {
    /// The error upstream reports for this value.
    pub fn to_error(&self) -> ValidationError {
        match *self {
            Unrecognized::MetricType { metric, value } => {
                ValidationError::unsupported_metric_type(metric, value)
            }
            Unrecognized::TargetType {
                metric,
                source,
                value,
            } => ValidationError::unsupported_target_type(metric, source, value),
            Unrecognized::SelectPolicy { direction, value } => {
                ValidationError::unsupported_select_policy(direction, value)
            }
            Unrecognized::PolicyType {
                direction,
                policy,
                value,
            } => ValidationError::unsupported_policy_type(direction, policy, value),
        }
    }
}

/// Validates `spec` as the API server does after defaulting, returning the first error in
/// upstream's order. `scale_to_zero` is the `HPAScaleToZero` gate: with it `minReplicas` may be
/// 0 (which still needs an Object or External metric), without it the lower bound is 1.
pub fn validate_spec(spec: &HpaSpec<'_>, scale_to_zero: bool) -> Result<(), ValidationError> {
    validate_spec_with(spec, scale_to_zero, &[])
}

/// [`validate_spec`] for a spec in which some strings could not be mapped to the typed model:
/// each [`Unrecognized`] entry replaces the typed field at its place and is reported there,
/// so the error returned is still the first one upstream would report.
///
/// This is the first error [`validate_spec_each`] reports; the walk stops there.
pub fn validate_spec_with(
    spec: &HpaSpec<'_>,
    scale_to_zero: bool,
    unrecognized: &[Unrecognized<'_>],
) -> Result<(), ValidationError> {
    let mut sink = Sink {
        visit: None,
        first: None,
        count: 0,
    };
    // The walk breaks at the first error, which `sink.first` then holds.
    let _ = walk_spec(spec, scale_to_zero, unrecognized, &mut sink);
    match sink.first {
        Some(error) => Err(error),
        None => Ok(()),
    }
}

/// Validates `spec` like [`validate_spec_with`], but reports **every** error, in the order of
/// the API server's error list (`field.ErrorList`), to `on_error`; returns how many there were
/// (0 for a valid spec). Nothing is allocated: each error is built on the stack, passed by
/// reference and dropped.
///
/// The list is the one `kubectl` prints for a rejected object: the API server's
/// `ErrorList.ToAggregate()` and `kubectl` both drop an error whose text repeats an earlier
/// one, and the only repetition HPA validation produces (`validateMetricSpec` appends the
/// Unsupported-value error of an unknown metric `type` twice) is reported once here.
///
/// Which checks go on after an error follows upstream's `validation.go`: every check of the
/// spec runs, each appending its own errors, except where upstream itself skips one. Upstream
/// skips: the format checks of an empty `kind`, `name`, metric name, container resource name
/// or container (each is Required instead); the standard-resource check of a container
/// resource name that is not a valid label key; the in-depth checks of every populated metric
/// source after the first (they are only `Forbidden`); and, within a label key with more than
/// one `/`, everything but that one message. A missing or unknown metric `type`, or target
/// `type`, does not stop the checks of that metric or target.
///
/// ```
/// use hpa::spec::{HpaSpec, MetricSpec, MetricTarget};
/// use hpa::validation::validate_spec_each;
///
/// let metrics = [MetricSpec::resource("", MetricTarget::utilization(0))];
/// let spec = HpaSpec {
///     min_replicas: Some(0),
///     max_replicas: 0,
///     metrics: &metrics,
///     behavior: None,
///     scale_target_ref: None,
/// };
/// let mut lines = Vec::new();
/// let count = validate_spec_each(&spec, false, &[], &mut |e| lines.push(e.to_string()));
/// assert_eq!(count, 5);
/// assert_eq!(
///     lines,
///     [
///         "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
///         "spec.maxReplicas: Invalid value: 0: must be greater than 0",
///         "spec.metrics[0].resource.name: Required value: must specify a resource name",
///         "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be \
///          greater than 0",
///         "spec.metrics: Forbidden: must specify at least one Object or External metric to \
///          support scaling to zero replicas",
///     ]
/// );
/// ```
pub fn validate_spec_each(
    spec: &HpaSpec<'_>,
    scale_to_zero: bool,
    unrecognized: &[Unrecognized<'_>],
    on_error: &mut dyn FnMut(&ValidationError),
) -> usize {
    let mut sink = Sink {
        visit: Some(on_error),
        first: None,
        count: 0,
    };
    // With a visitor the walk never breaks.
    let _ = walk_spec(spec, scale_to_zero, unrecognized, &mut sink);
    sink.count
}

/// Whether the walk goes on after an error ([`ControlFlow::Break`] once the first error is
/// all the caller wants).
type Flow = ControlFlow<()>;

const GO_ON: Flow = ControlFlow::Continue(());

/// Where the walk reports its errors: to a visitor (every error), or into `first` (the walk
/// then stops).
struct Sink<'f> {
    visit: Option<&'f mut dyn FnMut(&ValidationError)>,
    first: Option<ValidationError>,
    count: usize,
}

impl Sink<'_> {
    fn report(&mut self, error: ValidationError) -> Flow {
        self.count = self.count.saturating_add(1);
        match self.visit.as_mut() {
            Some(visit) => {
                visit(&error);
                GO_ON
            }
            None => {
                self.first = Some(error);
                ControlFlow::Break(())
            }
        }
    }
}

fn metric_path(index: usize) -> FieldPath {
    FieldPath::root("spec").child("metrics").index(index)
}

fn rules_path(direction: Direction) -> FieldPath {
    FieldPath::root("spec")
        .child("behavior")
        .child(direction.field_name())
}

/// `validateHorizontalPodAutoscalerSpec`: replica bounds, `scaleTargetRef`, `metrics`,
/// `behavior`, in that order.
fn walk_spec(
    spec: &HpaSpec<'_>,
    scale_to_zero: bool,
    unrecognized: &[Unrecognized<'_>],
    sink: &mut Sink<'_>,
) -> Flow {
    let spec_path = || FieldPath::root("spec");
    let lower_bound: i32 = if scale_to_zero { 0 } else { 1 };
    // API defaulting sets an absent `minReplicas` to 1 before validation.
    let min = spec.min_replicas.unwrap_or(1);
    if min < lower_bound {
        sink.report(ValidationError::invalid(
            spec_path().child("minReplicas"),
            BadValue::Int(i64::from(min)),
            Detail::GreaterThanOrEqualTo(i64::from(lower_bound)),
        ))?;
    }
    if spec.max_replicas < 1 {
        sink.report(ValidationError::invalid(
            spec_path().child("maxReplicas"),
            BadValue::Int(i64::from(spec.max_replicas)),
            Detail::GreaterThan0,
        ))?;
    }
    if spec.max_replicas < min {
        sink.report(ValidationError::invalid(
            spec_path().child("maxReplicas"),
            BadValue::Int(i64::from(spec.max_replicas)),
            Detail::GreaterThanOrEqualToMinReplicas,
        ))?;
    }
    if let Some(target) = &spec.scale_target_ref {
        // The core API's only scalable kind may omit the API group (registry strategy).
        let allow_empty_group = target.kind == "ReplicationController";
        walk_object_reference(
            target,
            || spec_path().child("scaleTargetRef"),
            allow_empty_group,
            sink,
        )?;
    }
    walk_metrics(spec.metrics, spec.min_replicas, unrecognized, sink)?;
    if let Some(behavior) = &spec.behavior {
        walk_rules(
            behavior.scale_up.as_ref(),
            Direction::ScaleUp,
            unrecognized,
            sink,
        )?;
        walk_rules(
            behavior.scale_down.as_ref(),
            Direction::ScaleDown,
            unrecognized,
            sink,
        )?;
    }
    GO_ON
}

/// `validateMetrics`: each metric, then the scale-to-zero rule.
fn walk_metrics(
    metrics: &[MetricSpec<'_>],
    min_replicas: Option<i32>,
    unrecognized: &[Unrecognized<'_>],
    sink: &mut Sink<'_>,
) -> Flow {
    let mut has_object_or_external = false;
    for (index, metric) in metrics.iter().enumerate() {
        let unknown_type = unknown_metric_type(index, unrecognized);
        walk_metric(index, metric, unknown_type, unrecognized, sink)?;
        // Upstream looks at `type` only, valid or not; an unknown string is neither.
        if unknown_type.is_none()
            && matches!(
                metric.type_,
                Some(MetricSourceType::Object) | Some(MetricSourceType::External)
            )
        {
            has_object_or_external = true;
        }
    }
    if min_replicas == Some(0) && !has_object_or_external {
        sink.report(ValidationError::forbidden(
            FieldPath::root("spec").child("metrics"),
            Detail::ObjectOrExternalMetricForScaleToZero,
        ))?;
    }
    GO_ON
}

fn unknown_metric_type<'u>(index: usize, unrecognized: &[Unrecognized<'u>]) -> Option<&'u str> {
    unrecognized.iter().find_map(|u| match *u {
        Unrecognized::MetricType { metric, value } if metric == index => Some(value),
        _ => None,
    })
}

/// The sources of a metric in the order upstream examines them.
const SOURCE_ORDER: [MetricSourceType; 5] = [
    MetricSourceType::Object,
    MetricSourceType::External,
    MetricSourceType::Pods,
    MetricSourceType::Resource,
    MetricSourceType::ContainerResource,
];

fn source_present(metric: &MetricSpec<'_>, source: MetricSourceType) -> bool {
    match source {
        MetricSourceType::Object => metric.object.is_some(),
        MetricSourceType::Pods => metric.pods.is_some(),
        MetricSourceType::Resource => metric.resource.is_some(),
        MetricSourceType::ContainerResource => metric.container_resource.is_some(),
        MetricSourceType::External => metric.external.is_some(),
    }
}

/// `validateMetricSpec`.
fn walk_metric(
    index: usize,
    metric: &MetricSpec<'_>,
    unknown_type: Option<&str>,
    unrecognized: &[Unrecognized<'_>],
    sink: &mut Sink<'_>,
) -> Flow {
    let type_path = || metric_path(index).child("type");
    // An unrecognized string replaces the typed field; a missing type is the empty string.
    let type_ = if unknown_type.is_some() {
        None
    } else {
        metric.type_
    };
    let type_text = match (unknown_type, type_) {
        (Some(value), _) => Some(value),
        (None, None) => Some(""),
        (None, Some(_)) => None,
    };
    if let Some(value) = type_text {
        // Upstream: Required for "", then Unsupported for any string outside the enumeration,
        // "" included.
        if value.is_empty() {
            sink.report(ValidationError::required(
                type_path(),
                Detail::MetricSourceTypeRequired,
            ))?;
        }
        sink.report(ValidationError::unsupported(
            type_path(),
            value,
            SupportedValues::MetricSourceTypes,
        ))?;
    }

    // Only the first populated source (in upstream's order) is validated in depth, whether or
    // not it is the one `type` names.
    if let Some(first) = SOURCE_ORDER
        .iter()
        .copied()
        .find(|s| source_present(metric, *s))
    {
        let unknown_target = unrecognized.iter().find_map(|u| match *u {
            Unrecognized::TargetType {
                metric: m,
                source: s,
                value,
            } if m == index && s == first => Some(value),
            _ => None,
        });
        walk_source(index, metric, first, unknown_target, sink)?;
    }

    let source_path =
        |source: MetricSourceType| metric_path(index).child(source_field_name(source));
    if let Some(type_) = type_ {
        if !source_present(metric, type_) {
            sink.report(ValidationError::required(
                source_path(type_),
                Detail::PopulateMetricSource,
            ))?;
        }
    }
    // (For a type outside the enumeration upstream appends the Unsupported error once more
    // here; `ToAggregate` and kubectl drop the repetition, and so does this walk.)
    let populated = SOURCE_ORDER
        .iter()
        .filter(|s| source_present(metric, **s))
        .count();
    if populated != 1 {
        // Upstream lists them in Go map order; upstream's examination order is used here.
        for extra in SOURCE_ORDER
            .iter()
            .copied()
            .filter(|s| Some(*s) != type_ && source_present(metric, *s))
        {
            sink.report(ValidationError::forbidden(
                source_path(extra),
                Detail::PopulateMetricSourceOnly,
            ))?;
        }
    }
    GO_ON
}

/// `validateObjectSource`, `validateExternalSource`, `validatePodsSource`,
/// `validateResourceSource` or `validateContainerResourceSource` for `source`.
fn walk_source(
    index: usize,
    metric: &MetricSpec<'_>,
    source: MetricSourceType,
    unknown_target: Option<&str>,
    sink: &mut Sink<'_>,
) -> Flow {
    let path = || metric_path(index).child(source_field_name(source));
    let target_path = || path().child("target");
    match source {
        MetricSourceType::Object => {
            if let Some(src) = &metric.object {
                walk_object_reference(
                    &src.described_object,
                    || path().child("describedObject"),
                    true,
                    sink,
                )?;
                walk_metric_identifier(&src.metric, || path().child("metric"), sink)?;
                walk_target(&src.target, target_path, unknown_target, sink)?;
                if src.target.value.is_none() && src.target.average_value.is_none() {
                    sink.report(ValidationError::required(
                        target_path().child("averageValue"),
                        Detail::ObjectValueOrAverageValueRequired,
                    ))?;
                }
            }
        }
        MetricSourceType::External => {
            if let Some(src) = &metric.external {
                walk_metric_identifier(&src.metric, || path().child("metric"), sink)?;
                walk_target(&src.target, target_path, unknown_target, sink)?;
                match (&src.target.value, &src.target.average_value) {
                    (None, None) => sink.report(ValidationError::required(
                        target_path().child("averageValue"),
                        Detail::ExternalValueOrAverageValueRequired,
                    ))?,
                    (Some(_), Some(_)) => sink.report(ValidationError::forbidden(
                        target_path().child("value"),
                        Detail::ExternalValueAndAverageValueForbidden,
                    ))?,
                    _ => {}
                }
            }
        }
        MetricSourceType::Pods => {
            if let Some(src) = &metric.pods {
                walk_metric_identifier(&src.metric, || path().child("metric"), sink)?;
                walk_target(&src.target, target_path, unknown_target, sink)?;
                if src.target.average_value.is_none() {
                    sink.report(ValidationError::required(
                        target_path().child("averageValue"),
                        Detail::PodsAverageValueRequired,
                    ))?;
                }
            }
        }
        MetricSourceType::Resource => {
            if let Some(src) = &metric.resource {
                // Presence only: upstream does not check a Resource metric's name format.
                if src.name.is_empty() {
                    sink.report(ValidationError::required(
                        path().child("name"),
                        Detail::ResourceNameRequired,
                    ))?;
                }
                walk_target(&src.target, target_path, unknown_target, sink)?;
                walk_raw_or_utilization(&src.target, target_path, sink)?;
            }
        }
        MetricSourceType::ContainerResource => {
            if let Some(src) = &metric.container_resource {
                if src.name.is_empty() {
                    sink.report(ValidationError::required(
                        path().child("name"),
                        Detail::ResourceNameRequired,
                    ))?;
                } else {
                    for_each_container_resource_name_error(src.name, |detail| {
                        sink.report(ValidationError::invalid(
                            path().child("name"),
                            BadValue::name(src.name),
                            detail,
                        ))
                    })?;
                }
                if src.container.is_empty() {
                    sink.report(ValidationError::required(
                        path().child("container"),
                        Detail::ContainerRequired,
                    ))?;
                } else {
                    for_each_dns1123_label_error(src.container, |rule| {
                        sink.report(ValidationError::invalid(
                            path().child("container"),
                            BadValue::str(src.container),
                            Detail::Name(NamePart::Whole, rule),
                        ))
                    })?;
                }
                walk_target(&src.target, target_path, unknown_target, sink)?;
                walk_raw_or_utilization(&src.target, target_path, sink)?;
            }
        }
    }
    GO_ON
}

/// The Resource and ContainerResource rule: exactly one of `averageUtilization` and
/// `averageValue`.
fn walk_raw_or_utilization(
    target: &MetricTarget,
    path: impl Fn() -> FieldPath,
    sink: &mut Sink<'_>,
) -> Flow {
    match (&target.average_utilization, &target.average_value) {
        (None, None) => sink.report(ValidationError::required(
            path().child("averageUtilization"),
            Detail::RawValueOrUtilizationRequired,
        )),
        (Some(_), Some(_)) => sink.report(ValidationError::forbidden(
            path().child("averageValue"),
            Detail::RawValueAndUtilizationForbidden,
        )),
        _ => GO_ON,
    }
}

/// `validateMetricTarget`: every check runs.
fn walk_target(
    target: &MetricTarget,
    path: impl Fn() -> FieldPath,
    unknown_type: Option<&str>,
    sink: &mut Sink<'_>,
) -> Flow {
    // An unrecognized string replaces the typed field; a missing type is the empty string.
    let type_text = match (unknown_type, target.type_) {
        (Some(value), _) => Some(value),
        (None, None) => Some(""),
        (None, Some(_)) => None,
    };
    if let Some(value) = type_text {
        if value.is_empty() {
            sink.report(ValidationError::required(
                path().child("type"),
                Detail::TargetTypeRequired,
            ))?;
        }
        // "" is not one of the three types either.
        sink.report(ValidationError::invalid(
            path().child("type"),
            BadValue::str(value),
            Detail::TargetTypeInvalid,
        ))?;
    }
    if let Some(q) = &target.value {
        if q.signum() != 1 {
            sink.report(ValidationError::invalid(
                path().child("value"),
                BadValue::Quantity(*q),
                Detail::MustBePositive,
            ))?;
        }
    }
    if let Some(q) = &target.average_value {
        if q.signum() != 1 {
            sink.report(ValidationError::invalid(
                path().child("averageValue"),
                BadValue::Quantity(*q),
                Detail::MustBePositive,
            ))?;
        }
    }
    if let Some(u) = target.average_utilization {
        if u < 1 {
            sink.report(ValidationError::invalid(
                path().child("averageUtilization"),
                BadValue::Int(i64::from(u)),
                Detail::GreaterThan0,
            ))?;
        }
    }
    GO_ON
}

/// `validateMetricIdentifier`: a name, which must be a valid path segment.
fn walk_metric_identifier(
    id: &MetricIdentifier<'_>,
    path: impl Fn() -> FieldPath,
    sink: &mut Sink<'_>,
) -> Flow {
    if id.name.is_empty() {
        return sink.report(ValidationError::required(
            path().child("name"),
            Detail::MetricNameRequired,
        ));
    }
    for_each_path_segment_name_error(id.name, |detail| {
        sink.report(ValidationError::invalid(
            path().child("name"),
            BadValue::str(id.name),
            detail,
        ))
    })
}

/// `ValidateCrossVersionObjectReference`: kind and name required and valid path segments, and
/// `apiVersion` a valid group/version with a group unless `allow_empty_group`. The three are
/// checked independently.
fn walk_object_reference(
    reference: &CrossVersionObjectReference<'_>,
    path: impl Fn() -> FieldPath,
    allow_empty_group: bool,
    sink: &mut Sink<'_>,
) -> Flow {
    for (field, value) in [("kind", reference.kind), ("name", reference.name)] {
        if value.is_empty() {
            sink.report(ValidationError::required(path().child(field), Detail::None))?;
        } else {
            for_each_path_segment_name_error(value, |detail| {
                sink.report(ValidationError::invalid(
                    path().child(field),
                    BadValue::str(value),
                    detail,
                ))
            })?;
        }
    }
    let api_version = reference.api_version;
    let detail = match count_byte(api_version, b'/') {
        0 => (!allow_empty_group).then_some(Detail::ApiGroupRequired),
        1 => {
            let group = split_once_byte(api_version, b'/').map_or("", |(group, _)| group);
            (group.is_empty() && !allow_empty_group).then_some(Detail::ApiGroupRequired)
        }
        _ => Some(Detail::UnexpectedGroupVersion),
    };
    match detail {
        Some(detail) => sink.report(ValidationError::invalid(
            path().child("apiVersion"),
            BadValue::str(api_version),
            detail,
        )),
        None => GO_ON,
    }
}

/// `validateScalingRules` with `validateScalingPolicy` for each policy: every check runs.
fn walk_rules(
    rules: Option<&ScalingRules<'_>>,
    direction: Direction,
    unrecognized: &[Unrecognized<'_>],
    sink: &mut Sink<'_>,
) -> Flow {
    let Some(rules) = rules else {
        // Absent rules are completed with the defaults, which are valid.
        return GO_ON;
    };
    let path = || rules_path(direction);
    if let Some(window) = rules.stabilization_window_seconds {
        if window < 0 {
            sink.report(ValidationError::invalid(
                path().child("stabilizationWindowSeconds"),
                BadValue::Int(i64::from(window)),
                Detail::GreaterThanOrEqualToZero,
            ))?;
        }
        if window > MAX_STABILIZATION_WINDOW_SECONDS {
            sink.report(ValidationError::invalid(
                path().child("stabilizationWindowSeconds"),
                BadValue::Int(i64::from(window)),
                Detail::LessThanOrEqualTo(i64::from(MAX_STABILIZATION_WINDOW_SECONDS)),
            ))?;
        }
    }
    let unknown_select = unrecognized.iter().find_map(|u| match *u {
        Unrecognized::SelectPolicy {
            direction: d,
            value,
        } if d == direction => Some(value),
        _ => None,
    });
    if let Some(value) = unknown_select {
        sink.report(ValidationError::unsupported_select_policy(direction, value))?;
    }
    // Absent policies are completed with the defaults; `policies: []` is kept and rejected.
    if let Some(policies) = rules.policies {
        if policies.is_empty() {
            sink.report(ValidationError::required(
                path().child("policies"),
                Detail::AtLeastOnePolicy,
            ))?;
        }
        for (index, policy) in policies.iter().enumerate() {
            let policy_path = || path().child("policies").index(index);
            let unknown_type = unrecognized.iter().find_map(|u| match *u {
                Unrecognized::PolicyType {
                    direction: d,
                    policy: p,
                    value,
                } if d == direction && p == index => Some(value),
                _ => None,
            });
            if let Some(value) = unknown_type {
                sink.report(ValidationError::unsupported_policy_type(
                    direction, index, value,
                ))?;
            }
            if policy.value <= 0 {
                sink.report(ValidationError::invalid(
                    policy_path().child("value"),
                    BadValue::Int(i64::from(policy.value)),
                    Detail::GreaterThanZero,
                ))?;
            }
            if policy.period_seconds <= 0 {
                sink.report(ValidationError::invalid(
                    policy_path().child("periodSeconds"),
                    BadValue::Int(i64::from(policy.period_seconds)),
                    Detail::GreaterThanZero,
                ))?;
            }
            if policy.period_seconds > MAX_PERIOD_SECONDS {
                sink.report(ValidationError::invalid(
                    policy_path().child("periodSeconds"),
                    BadValue::Int(i64::from(policy.period_seconds)),
                    Detail::LessThanOrEqualTo(i64::from(MAX_PERIOD_SECONDS)),
                ))?;
            }
        }
    }
    if let Some(tolerance) = &rules.tolerance {
        if tolerance.signum() < 0 {
            sink.report(ValidationError::invalid(
                path().child("tolerance"),
                BadValue::Quantity(*tolerance),
                Detail::ToleranceNotNegative,
            ))?;
        }
    }
    GO_ON
}

// ---------------------------------------------------------------------------------------------
// Name formats (apimachinery `path.IsValidPathSegmentName`, `content.IsDNS1123Label`,
// `content.IsDNS1123Subdomain`, `content.IsLabelKey`; core `ValidateContainerResourceName`).
// Each passes every message upstream produces, in upstream's order, to `f`, and stops when
// `f` breaks.
// ---------------------------------------------------------------------------------------------

/// `IsValidPathSegmentName`: not `.` or `..` (one message), no `/`, no `%` (one each).
fn for_each_path_segment_name_error(name: &str, mut f: impl FnMut(Detail) -> Flow) -> Flow {
    for illegal in [".", ".."] {
        if name == illegal {
            return f(Detail::MayNotBe(illegal));
        }
    }
    for (illegal, byte) in [("/", b'/'), ("%", b'%')] {
        if has_byte(name, byte) {
            f(Detail::MayNotContain(illegal))?;
        }
    }
    GO_ON
}

/// `s` contains the ASCII byte `b`.
fn has_byte(s: &str, b: u8) -> bool {
    s.bytes().any(|c| c == b)
}

/// How often the ASCII byte `b` occurs in `s`.
fn count_byte(s: &str, b: u8) -> usize {
    s.bytes().filter(|c| *c == b).count()
}

/// `s.split_once(b)` for an ASCII byte, without core's char searcher (see `contains_str`).
fn split_once_byte(s: &str, b: u8) -> Option<(&str, &str)> {
    let at = s.bytes().position(|c| c == b)?;
    Some((s.get(..at)?, s.get(at.saturating_add(1)..)?))
}

/// `haystack` contains `needle`. A plain loop: `str::contains` with a string pattern links
/// core's two-way searcher, whose bounds checks are panic paths.
fn contains_str(haystack: &str, needle: &str) -> bool {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    (0..=h.len().saturating_sub(n.len()))
        .any(|start| h.get(start..start.saturating_add(n.len())) == Some(n))
}

const fn is_lower_alnum(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

/// Matches `[a-z0-9]([-a-z0-9]*[a-z0-9])?` (no length limit).
fn is_dns1123_label_format(s: &str) -> bool {
    let bytes = s.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(&first), Some(&last)) => {
            is_lower_alnum(first)
                && is_lower_alnum(last)
                && bytes.iter().all(|&b| is_lower_alnum(b) || b == b'-')
        }
        _ => false,
    }
}

/// Matches `label(\.label)*` (no length limit).
fn is_dns1123_subdomain_format(s: &str) -> bool {
    // A closure, not `'.'`: the char pattern links core's CharSearcher, a panic path.
    #[allow(clippy::manual_pattern_char_comparison)]
    let mut labels = s.split(|c: char| c == '.');
    labels.all(is_dns1123_label_format)
}

/// `IsDNS1123Label`: the length, then the format (naming dots when the value is a valid
/// subdomain).
fn for_each_dns1123_label_error(s: &str, mut f: impl FnMut(NameRule) -> Flow) -> Flow {
    if s.len() > DNS1123_LABEL_MAX_LENGTH {
        f(NameRule::MaxLength(DNS1123_LABEL_MAX_LENGTH))?;
    }
    if is_dns1123_label_format(s) {
        GO_ON
    } else if is_dns1123_subdomain_format(s) {
        f(NameRule::NoDots)
    } else {
        f(NameRule::Dns1123Label)
    }
}

/// `IsDNS1123Subdomain`: the length, then the format.
fn for_each_dns1123_subdomain_error(s: &str, mut f: impl FnMut(NameRule) -> Flow) -> Flow {
    if s.len() > DNS1123_SUBDOMAIN_MAX_LENGTH {
        f(NameRule::MaxLength(DNS1123_SUBDOMAIN_MAX_LENGTH))?;
    }
    if is_dns1123_subdomain_format(s) {
        GO_ON
    } else {
        f(NameRule::Dns1123Subdomain)
    }
}

/// Matches `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`.
fn is_label_key_name_format(s: &str) -> bool {
    let bytes = s.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && bytes
                    .iter()
                    .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

/// `IsLabelKey` (a.k.a. `IsQualifiedName`): `[prefix/]name`. More than one `/` is one
/// message; otherwise the prefix's messages (empty, or the subdomain's), then the name's
/// (empty or too long, then the format, which an empty name fails too).
fn for_each_label_key_error(s: &str, mut f: impl FnMut(NamePart, NameRule) -> Flow) -> Flow {
    let name = match split_once_byte(s, b'/') {
        None => s,
        Some((_, suffix)) if has_byte(suffix, b'/') => {
            return f(NamePart::Whole, NameRule::LabelKeyTooManySlashes)
        }
        Some((prefix, suffix)) => {
            if prefix.is_empty() {
                f(NamePart::Prefix, NameRule::Empty)?;
            } else {
                for_each_dns1123_subdomain_error(prefix, |rule| f(NamePart::Prefix, rule))?;
            }
            suffix
        }
    };
    if name.is_empty() {
        f(NamePart::Name, NameRule::Empty)?;
    } else if name.len() > LABEL_KEY_NAME_MAX_LENGTH {
        f(
            NamePart::Name,
            NameRule::MaxLength(LABEL_KEY_NAME_MAX_LENGTH),
        )?;
    }
    if !is_label_key_name_format(name) {
        f(NamePart::Name, NameRule::LabelKeyName)?;
    }
    GO_ON
}

/// `IsLabelKey` finds nothing wrong.
fn is_label_key(s: &str) -> bool {
    for_each_label_key_error(s, |_, _| ControlFlow::Break(())).is_continue()
}

/// `IsStandardResourceName` (core helper).
fn is_standard_resource_name(s: &str) -> bool {
    const STANDARD: [&str; 20] = [
        "cpu",
        "memory",
        "ephemeral-storage",
        "requests.cpu",
        "requests.memory",
        "requests.ephemeral-storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
        "pods",
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "storage",
        "requests.storage",
        "services.nodeports",
        "services.loadbalancers",
    ];
    STANDARD.contains(&s)
        || s.starts_with(HUGEPAGES_PREFIX)
        || s.starts_with(REQUESTS_HUGEPAGES_PREFIX)
}

/// `IsStandardContainerResourceName` (core helper).
fn is_standard_container_resource_name(s: &str) -> bool {
    matches!(s, "cpu" | "memory" | "ephemeral-storage") || s.starts_with(HUGEPAGES_PREFIX)
}

/// `IsNativeResource`: unprefixed, or in the `kubernetes.io/` namespace.
fn is_native_resource(s: &str) -> bool {
    !s.bytes().any(|b| b == b'/') || contains_str(s, DEFAULT_NAMESPACE_PREFIX)
}

/// `IsExtendedResourceName`: not native, no `requests.` prefix, and `requests.<name>` is a
/// qualified name.
fn is_extended_resource_name(s: &str) -> bool {
    if is_native_resource(s) || s.starts_with(REQUESTS_PREFIX) {
        return false;
    }
    // `requests.<s>` as a label key, without building the string: its prefix part is
    // `requests.<prefix>` ("requests" is a valid label), its name part is unchanged.
    match split_once_byte(s, b'/') {
        Some((prefix, suffix)) if !has_byte(suffix, b'/') => {
            let prefixed_len = prefix.len().saturating_add(REQUESTS_PREFIX.len());
            prefixed_len <= DNS1123_SUBDOMAIN_MAX_LENGTH
                && is_dns1123_subdomain_format(prefix)
                && is_label_key(suffix)
        }
        _ => false,
    }
}

/// `ValidateContainerResourceName` (core/v1): the label-key messages, or (for a valid label
/// key without `/`) the standard-resource message (`validateResourceName`); then the
/// container-resource message, which upstream checks either way.
fn for_each_container_resource_name_error(s: &str, mut f: impl FnMut(Detail) -> Flow) -> Flow {
    let mut label_key = true;
    for_each_label_key_error(s, |part, rule| {
        label_key = false;
        f(Detail::Name(part, rule))
    })?;
    if !has_byte(s, b'/') {
        if label_key && !is_standard_resource_name(s) {
            f(Detail::StandardResourceOrQualified)?;
        }
        if !is_standard_container_resource_name(s) {
            f(Detail::StandardContainerResource)?;
        }
    } else if !is_native_resource(s) && !is_extended_resource_name(s) {
        f(Detail::ExtendedResourceName)?;
    }
    GO_ON
}
