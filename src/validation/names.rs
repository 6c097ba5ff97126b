//! Name formats (apimachinery `path.IsValidPathSegmentName`, `content.IsDNS1123Label`,
//! `content.IsDNS1123Subdomain`, `content.IsLabelKey`; core `ValidateContainerResourceName`).
//! Each passes every message upstream produces, in upstream's order, to `f`, and stops when
//! `f` breaks.

use core::ops::ControlFlow;

use super::{Detail, Flow, NamePart, NameRule, GO_ON};

const DNS1123_LABEL_MAX_LENGTH: usize = 63;
const DNS1123_SUBDOMAIN_MAX_LENGTH: usize = 253;
const LABEL_KEY_NAME_MAX_LENGTH: usize = 63;
const REQUESTS_PREFIX: &str = "requests.";
const HUGEPAGES_PREFIX: &str = "hugepages-";
const REQUESTS_HUGEPAGES_PREFIX: &str = "requests.hugepages-";
const DEFAULT_NAMESPACE_PREFIX: &str = "kubernetes.io/";

/// `IsValidPathSegmentName`: not `.` or `..` (one message), no `/`, no `%` (one each).
pub(super) fn for_each_path_segment_name_error(
    name: &str,
    mut f: impl FnMut(Detail) -> Flow,
) -> Flow {
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
pub(super) fn count_byte(s: &str, b: u8) -> usize {
    s.bytes().filter(|c| *c == b).count()
}

/// `s.split_once(b)` for an ASCII byte, without core's char searcher (see `contains_str`).
pub(super) fn split_once_byte(s: &str, b: u8) -> Option<(&str, &str)> {
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
pub(super) fn for_each_dns1123_label_error(s: &str, mut f: impl FnMut(NameRule) -> Flow) -> Flow {
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
pub(super) fn for_each_container_resource_name_error(
    s: &str,
    mut f: impl FnMut(Detail) -> Flow,
) -> Flow {
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
