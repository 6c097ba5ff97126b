//! The detail messages of the errors, in Kubernetes' exact text.

use core::fmt;

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
    /// (the error of `schema.ParseGroupVersion`;
    /// [`ValidationError`](super::ValidationError) appends the value).
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
