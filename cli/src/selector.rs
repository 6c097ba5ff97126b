//! Metric label selectors (`metrics[].*.metric.selector`): how upstream prints them and whether
//! upstream can convert them.
//!
//! The engine never matches labels; it only needs two facts about a selector, both taken from
//! Kubernetes' own code:
//!
//! - the text Go's `fmt.Sprintf("%+v", selector)` prints for a `*metav1.LabelSelector`, which
//!   is the gogo-protobuf generated `String()` method (`staging/src/k8s.io/apimachinery/pkg/apis/
//!   meta/v1/generated.pb.go`): `&LabelSelector{MatchLabels:map[string]string{k: v,},
//!   MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:k,Operator:In,
//!   Values:[a b],},},}` with the label keys sorted bytewise;
//! - whether `metav1.LabelSelectorAsSelector` fails (an unknown operator, `In`/`NotIn` without
//!   values, `Exists`/`DoesNotExist` with values, a key that is not a qualified name, a value that
//!   is not a valid label value). Upstream then fails that metric on every evaluation.

use std::fmt::Write as _;

/// One `matchExpressions` entry, as written in the manifest (absent strings are empty).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Requirement {
    /// `key`.
    pub key: String,
    /// `operator` (not checked here: an unknown operator makes the selector unconvertible).
    pub operator: String,
    /// `values`.
    pub values: Vec<String>,
}

/// A `metav1.LabelSelector`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LabelSelector {
    /// `matchLabels`, in any order (distinct keys).
    pub match_labels: Vec<(String, String)>,
    /// `matchExpressions`, in manifest order.
    pub match_expressions: Vec<Requirement>,
}

impl LabelSelector {
    /// What Go's `%+v` prints for a pointer to this selector (its generated `String()`).
    pub fn render(&self) -> String {
        let mut labels: Vec<&(String, String)> = self.match_labels.iter().collect();
        labels.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        let mut out = String::from("&LabelSelector{MatchLabels:map[string]string{");
        for (key, value) in labels {
            // Writing to a String cannot fail.
            let _ = write!(out, "{key}: {value},");
        }
        out.push_str("},MatchExpressions:[]LabelSelectorRequirement{");
        for req in &self.match_expressions {
            // `strings.Replace(f.String(), "&", "", 1)`: the element loses its leading `&`.
            let _ = write!(
                out,
                "LabelSelectorRequirement{{Key:{},Operator:{},Values:[{}],}},",
                req.key,
                req.operator,
                req.values.join(" ")
            );
        }
        out.push_str("},}");
        out
    }

    /// Whether `metav1.LabelSelectorAsSelector` converts this selector without error.
    pub fn converts(&self) -> bool {
        let labels_ok = self
            .match_labels
            .iter()
            .all(|(key, value)| is_qualified_name(key) && is_valid_label_value(value));
        labels_ok && self.match_expressions.iter().all(requirement_converts)
    }
}

/// `labels.NewRequirement` for one expression, after the operator mapping of
/// `LabelSelectorAsSelector`.
fn requirement_converts(req: &Requirement) -> bool {
    let values_ok = match req.operator.as_str() {
        "In" | "NotIn" => !req.values.is_empty(),
        "Exists" | "DoesNotExist" => req.values.is_empty(),
        _ => return false,
    };
    values_ok && is_qualified_name(&req.key) && req.values.iter().all(|v| is_valid_label_value(v))
}

/// `validation.IsQualifiedName`: an optional DNS-1123 subdomain prefix and `/`, then a name of
/// at most 63 characters matching `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`.
pub fn is_qualified_name(value: &str) -> bool {
    let mut parts = value.split('/');
    let (first, second, rest) = (parts.next(), parts.next(), parts.next());
    let name = match (first, second, rest) {
        (Some(name), None, None) => name,
        (Some(prefix), Some(name), None) => {
            if !is_dns1123_subdomain(prefix) {
                return false;
            }
            name
        }
        _ => return false,
    };
    !name.is_empty() && name.len() <= 63 && matches_qualified_name(name)
}

/// `validation.IsValidLabelValue`: empty, or at most 63 characters matching the qualified-name
/// pattern.
pub fn is_valid_label_value(value: &str) -> bool {
    value.is_empty() || (value.len() <= 63 && matches_qualified_name(value))
}

/// `^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`.
fn matches_qualified_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    match bytes {
        [] => false,
        [only] => only.is_ascii_alphanumeric(),
        [first, middle @ .., last] => {
            first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && middle
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        }
    }
}

/// `validation.IsDNS1123Subdomain`: at most 253 characters, dot-separated labels matching
/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`.
fn is_dns1123_subdomain(value: &str) -> bool {
    value.len() <= 253 && value.split('.').all(is_dns1123_label_pattern)
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?` (no length limit: the subdomain pattern has none per label).
fn is_dns1123_label_pattern(label: &str) -> bool {
    let lower_alnum = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    match label.as_bytes() {
        [] => false,
        [only] => lower_alnum(only),
        [first, middle @ .., last] => {
            lower_alnum(first)
                && lower_alnum(last)
                && middle.iter().all(|b| lower_alnum(b) || *b == b'-')
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(key: &str, operator: &str, values: &[&str]) -> Requirement {
        Requirement {
            key: key.to_owned(),
            operator: operator.to_owned(),
            values: values.iter().map(|v| (*v).to_owned()).collect(),
        }
    }

    #[test]
    fn renders_like_the_generated_string_method() {
        let empty = LabelSelector::default();
        assert_eq!(
            empty.render(),
            "&LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{},}"
        );
        let sel = LabelSelector {
            match_labels: vec![
                ("zone".into(), "b".into()),
                ("app".into(), "web".into()),
                ("Z".into(), "x".into()),
            ],
            match_expressions: vec![req("tier", "In", &["a", "b"]), req("x", "Exists", &[])],
        };
        assert_eq!(
            sel.render(),
            "&LabelSelector{MatchLabels:map[string]string{Z: x,app: web,zone: b,},\
             MatchExpressions:[]LabelSelectorRequirement{\
             LabelSelectorRequirement{Key:tier,Operator:In,Values:[a b],},\
             LabelSelectorRequirement{Key:x,Operator:Exists,Values:[],},},}"
        );
        assert!(sel.converts());
    }

    #[test]
    fn conversion_failures() {
        let with = |r: Requirement| LabelSelector {
            match_labels: vec![],
            match_expressions: vec![r],
        };
        assert!(!with(req("a", "Equals", &["x"])).converts());
        assert!(!with(req("a", "In", &[])).converts());
        assert!(!with(req("a", "NotIn", &[])).converts());
        assert!(!with(req("a", "Exists", &["x"])).converts());
        assert!(!with(req("a", "DoesNotExist", &["x"])).converts());
        assert!(!with(req("-a", "Exists", &[])).converts());
        assert!(!with(req("a", "In", &["bad value"])).converts());
        assert!(with(req("example.com/a_b.c", "NotIn", &["", "v-1"])).converts());
        let labels = |k: &str, v: &str| LabelSelector {
            match_labels: vec![(k.into(), v.into())],
            match_expressions: vec![],
        };
        assert!(labels("app", "").converts());
        assert!(!labels("", "x").converts());
        assert!(!labels("a/b/c", "x").converts());
        assert!(!labels("/b", "x").converts());
        assert!(!labels("Example.com/b", "x").converts());
        assert!(!labels("app", "x-").converts());
        assert!(!labels(&"a".repeat(64), "x").converts());
        assert!(labels(&"a".repeat(63), &"b".repeat(63)).converts());
        assert!(!labels("app", &"b".repeat(64)).converts());
    }
}
