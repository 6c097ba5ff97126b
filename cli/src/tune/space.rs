//! The search space of `hpa tune`: which `behavior` settings (and optionally `minReplicas` and
//! `maxReplicas`) it tries, each parameter a list of values.
//!
//! Per direction (`scaleUp`, `scaleDown`) the settings are a stabilization window, at most one
//! `Percent` and one `Pods` policy, each with its period (a value of 0 leaves that policy out;
//! both left out keeps Kubernetes' default policies), a `selectPolicy`, and a tolerance when the
//! HPAConfigurableTolerance gate is on. A `--space` file names some parameters, each as a list
//! or a `{min, max, step}` range; the others keep their default values ([`Space::new`]).
//!
//! A point of the space is its coordinates, one index per parameter. Coordinates that cannot
//! matter (a policy's period when the policy is left out, `selectPolicy` between fewer than two
//! policies) are set to 0 by [`Space::canonical`], so one manifest is one point.

use std::fmt::Write as _;

use hpa::spec::SelectPolicy;

use crate::simulate_cmd::parse_number_ms;
use crate::trace::source::check_nesting;
use crate::trace::Format;

/// Scaling direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// `scaleUp`.
    Up,
    /// `scaleDown`.
    Down,
}

impl Direction {
    /// The manifest's key.
    pub fn key(self) -> &'static str {
        match self {
            Direction::Up => "scaleUp",
            Direction::Down => "scaleDown",
        }
    }
}

/// One parameter of the space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// `stabilizationWindowSeconds`.
    Window(Direction),
    /// The value of the `Percent` policy (0: none).
    Percent(Direction),
    /// Its `periodSeconds`.
    PercentPeriod(Direction),
    /// The value of the `Pods` policy (0: none).
    Pods(Direction),
    /// Its `periodSeconds`.
    PodsPeriod(Direction),
    /// `selectPolicy`: 0 Max, 1 Min, 2 Disabled.
    Select(Direction),
    /// `tolerance` in thousandths.
    Tolerance(Direction),
    /// `spec.minReplicas`.
    MinReplicas,
    /// `spec.maxReplicas`.
    MaxReplicas,
}

/// A key of a direction in a space file: its name, parameter and bounds.
type RuleKey = (&'static str, fn(Direction) -> Param, i64, i64);

/// The keys of a direction in a space file.
const RULE_KEYS: [RuleKey; 7] = [
    ("stabilizationWindowSeconds", Param::Window, 0, 3600),
    ("percent", Param::Percent, 0, 100_000),
    ("percentPeriodSeconds", Param::PercentPeriod, 1, 1800),
    ("pods", Param::Pods, 0, 100_000),
    ("podsPeriodSeconds", Param::PodsPeriod, 1, 1800),
    ("selectPolicy", Param::Select, 0, 2),
    ("tolerance", Param::Tolerance, 0, 1_000_000),
];

/// The most values one parameter may take.
const MAX_VALUES: usize = 10_000;

/// One parameter and its values, in the order given.
#[derive(Clone, Debug)]
pub struct Dimension {
    /// Which parameter.
    pub param: Param,
    /// Its values (seconds, percent, pods, replicas, a select policy's number, thousandths).
    pub values: Vec<i64>,
}

/// The rules of one direction at a point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rules {
    /// `stabilizationWindowSeconds`.
    pub window: i64,
    /// `Percent` policy `(value, periodSeconds)`, if any.
    pub percent: Option<(i64, i64)>,
    /// `Pods` policy `(value, periodSeconds)`, if any.
    pub pods: Option<(i64, i64)>,
    /// `selectPolicy`.
    pub select: SelectPolicy,
    /// `tolerance` in thousandths, if set.
    pub tolerance: Option<i64>,
}

/// The settings at a point of the space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    /// `behavior.scaleUp`.
    pub up: Rules,
    /// `behavior.scaleDown`.
    pub down: Rules,
    /// `spec.minReplicas`, when searched.
    pub min: Option<i64>,
    /// `spec.maxReplicas`, when searched.
    pub max: Option<i64>,
}

/// The space: its dimensions, and the input's replica range (for points that search one end
/// of it only).
#[derive(Clone, Debug)]
pub struct Space {
    /// The parameters, in a fixed order.
    pub dims: Vec<Dimension>,
    input_min: i64,
    input_max: i64,
}

/// A point: one index per dimension.
pub type Point = Vec<u16>;

fn defaults(param: Param) -> Vec<i64> {
    match param {
        Param::Window(Direction::Up) => vec![0, 15, 30, 60, 120, 180, 300],
        Param::Window(Direction::Down) => vec![0, 60, 120, 180, 300, 450, 600],
        Param::Percent(Direction::Up) => vec![0, 10, 25, 50, 100, 200],
        Param::Percent(Direction::Down) => vec![0, 5, 10, 25, 50, 100],
        Param::Pods(_) => vec![0, 1, 2, 4, 8],
        Param::PercentPeriod(_) | Param::PodsPeriod(_) => vec![15, 30, 60, 120, 300],
        Param::Select(_) => vec![0, 1],
        Param::Tolerance(_) => vec![50, 100, 150, 200],
        Param::MinReplicas | Param::MaxReplicas => Vec::new(),
    }
}

fn select_policy(value: i64) -> SelectPolicy {
    match value {
        1 => SelectPolicy::Min,
        2 => SelectPolicy::Disabled,
        _ => SelectPolicy::Max,
    }
}

impl Space {
    /// The space of a `--space` file's text (`None`: the defaults) for an HPA of replicas
    /// `input_min..=input_max`; `tolerance` says whether the HPAConfigurableTolerance gate is
    /// on. `name` names the file in errors.
    ///
    /// # Errors
    ///
    /// The key at fault in the file and why.
    pub fn new(
        file: Option<(&str, &str)>,
        tolerance: bool,
        input_min: i64,
        input_max: i64,
    ) -> Result<Space, String> {
        let mut dims = Vec::new();
        for direction in [Direction::Up, Direction::Down] {
            for (_, param, _, _) in RULE_KEYS {
                let param = param(direction);
                if matches!(param, Param::Tolerance(_)) && !tolerance {
                    continue;
                }
                dims.push(Dimension {
                    param,
                    values: defaults(param),
                });
            }
        }
        let mut space = Space {
            dims,
            input_min,
            input_max,
        };
        if let Some((name, text)) = file {
            space
                .read(text, tolerance)
                .map_err(|e| format!("--space {name}: {e}"))?;
        }
        Ok(space)
    }

    fn set(&mut self, param: Param, values: Vec<i64>) {
        match self.dims.iter_mut().find(|d| d.param == param) {
            Some(dim) => dim.values = values,
            None => self.dims.push(Dimension { param, values }),
        }
    }

    fn read(&mut self, text: &str, tolerance: bool) -> Result<(), String> {
        // JSON is YAML here: the one nesting check covers both.
        check_nesting(text, Format::Yaml).map_err(|e| e.to_string())?;
        let value: serde_norway::Value =
            serde_norway::from_str(text).map_err(|e| format!("not YAML or JSON: {e}"))?;
        let serde_norway::Value::Mapping(top) = value else {
            return Err(
                "expected a mapping with scaleUp, scaleDown, minReplicas or maxReplicas".to_owned(),
            );
        };
        for (key, value) in &top {
            let key = key_text(key)?;
            match key.as_str() {
                "scaleUp" | "scaleDown" => {
                    let direction = if key == "scaleUp" {
                        Direction::Up
                    } else {
                        Direction::Down
                    };
                    let serde_norway::Value::Mapping(rules) = value else {
                        return Err(format!("{key}: expected a mapping of parameters"));
                    };
                    for (name, values) in rules {
                        let name = key_text(name)?;
                        let Some((_, param, low, high)) =
                            RULE_KEYS.iter().find(|(k, ..)| *k == name)
                        else {
                            return Err(format!(
                                "{key}.{name}: unknown parameter (known: {})",
                                RULE_KEYS.map(|(k, ..)| k).join(", ")
                            ));
                        };
                        let param = param(direction);
                        let path = format!("{key}.{name}");
                        if matches!(param, Param::Tolerance(_)) && !tolerance {
                            return Err(format!(
                                "{path}: the HPAConfigurableTolerance feature gate is off for \
                                 this cluster (pass --kubernetes-version 1.33 or newer, or \
                                 --feature-gates HPAConfigurableTolerance=true)"
                            ));
                        }
                        let values = parse_values(&path, values, param, *low, *high)?;
                        self.set(param, values);
                    }
                }
                "minReplicas" | "maxReplicas" => {
                    let (param, low) = if key == "minReplicas" {
                        (Param::MinReplicas, 0)
                    } else {
                        (Param::MaxReplicas, 1)
                    };
                    let values = parse_values(&key, value, param, low, i64::from(i32::MAX))?;
                    self.set(param, values);
                }
                _ => {
                    return Err(format!(
                        "{key}: unknown key (known: scaleUp, scaleDown, minReplicas, maxReplicas)"
                    ))
                }
            }
        }
        let lowest_min = self
            .values(Param::MinReplicas)
            .iter()
            .min()
            .copied()
            .unwrap_or(self.input_min);
        let highest_max = self
            .values(Param::MaxReplicas)
            .iter()
            .max()
            .copied()
            .unwrap_or(self.input_max);
        if lowest_min > highest_max {
            return Err(format!(
                "minReplicas: every value exceeds maxReplicas (at most {highest_max}): no point \
                 is valid"
            ));
        }
        Ok(())
    }

    fn values(&self, param: Param) -> &[i64] {
        self.dims
            .iter()
            .find(|d| d.param == param)
            .map_or(&[][..], |d| d.values.as_slice())
    }

    /// The number of points (coordinates, before [`Space::canonical`] merges some), saturated.
    pub fn size(&self) -> u128 {
        self.dims.iter().fold(1u128, |n, d| {
            n.saturating_mul(u128::try_from(d.values.len()).unwrap_or(u128::MAX))
        })
    }

    fn value(&self, point: &[u16], param: Param) -> Option<i64> {
        let (dim, index) = self
            .dims
            .iter()
            .zip(point)
            .find(|(d, _)| d.param == param)?;
        dim.values.get(usize::from(*index)).copied()
    }

    /// The settings at `point`.
    pub fn setting(&self, point: &[u16]) -> Setting {
        let rules = |direction| {
            let value = |param: fn(Direction) -> Param| self.value(point, param(direction));
            let policy = |amount: fn(Direction) -> Param, period| {
                value(amount)
                    .filter(|v| *v > 0)
                    .map(|v| (v, value(period).unwrap_or(15)))
            };
            Rules {
                window: value(Param::Window).unwrap_or(0),
                percent: policy(Param::Percent, Param::PercentPeriod),
                pods: policy(Param::Pods, Param::PodsPeriod),
                select: select_policy(value(Param::Select).unwrap_or(0)),
                tolerance: value(Param::Tolerance),
            }
        };
        Setting {
            up: rules(Direction::Up),
            down: rules(Direction::Down),
            min: self.value(point, Param::MinReplicas),
            max: self.value(point, Param::MaxReplicas),
        }
    }

    /// Whether `point` is a valid HPA: `minReplicas <= maxReplicas`.
    pub fn valid(&self, point: &[u16]) -> bool {
        let setting = self.setting(point);
        setting.min.unwrap_or(self.input_min) <= setting.max.unwrap_or(self.input_max)
    }

    /// `point` with the coordinates that cannot matter set to 0 (see the module documentation).
    pub fn canonical(&self, point: &[u16]) -> Point {
        let setting = self.setting(point);
        let rules = |d: Direction| {
            if d == Direction::Up {
                &setting.up
            } else {
                &setting.down
            }
        };
        self.dims
            .iter()
            .zip(point)
            .map(|(dim, &index)| {
                let matters = match dim.param {
                    Param::PercentPeriod(d) => rules(d).percent.is_some(),
                    Param::PodsPeriod(d) => rules(d).pods.is_some(),
                    // Between two policies, or between Kubernetes' defaults (two policies up,
                    // one down); Disabled always matters.
                    Param::Select(d) => {
                        let r = rules(d);
                        let count = usize::from(r.percent.is_some())
                            .saturating_add(usize::from(r.pods.is_some()));
                        count == 2
                            || (count == 0 && d == Direction::Up)
                            || r.select == SelectPolicy::Disabled
                    }
                    _ => true,
                };
                if matters {
                    index
                } else {
                    // The first value that is not Disabled, which a point that does not
                    // disable scaling may stand for.
                    let first = dim
                        .values
                        .iter()
                        .position(|v| !(matches!(dim.param, Param::Select(_)) && *v == 2));
                    first.and_then(|i| u16::try_from(i).ok()).unwrap_or(0)
                }
            })
            .collect()
    }

    /// The settings at `point` in a few words, for tables.
    pub fn describe(&self, point: &[u16]) -> String {
        let setting = self.setting(point);
        let mut out = String::new();
        for (name, rules, direction) in [
            ("up", &setting.up, Direction::Up),
            ("down", &setting.down, Direction::Down),
        ] {
            if !out.is_empty() {
                out.push_str("; ");
            }
            let _ = write!(out, "{name} {}s", rules.window);
            out.push_str(&policies_text(rules, direction));
            if let Some(t) = rules.tolerance {
                let _ = write!(out, " tol {}", milli_text(t));
            }
        }
        if let Some(min) = setting.min {
            let _ = write!(out, "; min {min}");
        }
        if let Some(max) = setting.max {
            let _ = write!(out, "; max {max}");
        }
        out
    }
}

/// `[10%/60s 4/15s Max]`, `[default Max]` (Kubernetes' policies: two up, one down) or
/// `[Disabled]`.
fn policies_text(rules: &Rules, direction: Direction) -> String {
    if rules.select == SelectPolicy::Disabled {
        return " [Disabled]".to_owned();
    }
    let mut parts = Vec::new();
    if let Some((v, p)) = rules.percent {
        parts.push(format!("{v}%/{p}s"));
    }
    if let Some((v, p)) = rules.pods {
        parts.push(format!("{v}/{p}s"));
    }
    let count = parts.len();
    if count == 0 {
        parts.push("default".to_owned());
    }
    if count == 2 || (count == 0 && direction == Direction::Up) {
        parts.push(rules.select.as_str().to_owned());
    }
    format!(" [{}]", parts.join(" "))
}

/// Thousandths as a decimal: `50` is `0.05`.
pub fn milli_text(milli: i64) -> String {
    let whole = milli.div_euclid(1000);
    let frac = milli.rem_euclid(1000);
    if frac == 0 {
        return whole.to_string();
    }
    let digits = format!("{frac:03}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

fn key_text(key: &serde_norway::Value) -> Result<String, String> {
    match key {
        serde_norway::Value::String(s) => Ok(s.clone()),
        other => Err(format!("expected a text key, got {}", scalar_text(other))),
    }
}

fn scalar_text(value: &serde_norway::Value) -> String {
    match value {
        serde_norway::Value::Null => "nothing".to_owned(),
        serde_norway::Value::Bool(b) => b.to_string(),
        serde_norway::Value::Number(n) => n.to_string(),
        serde_norway::Value::String(s) => format!("{s:?}"),
        serde_norway::Value::Sequence(_) => "a list".to_owned(),
        serde_norway::Value::Mapping(_) => "a mapping".to_owned(),
        serde_norway::Value::Tagged(_) => "a tagged value".to_owned(),
    }
}

/// One value of `param`: an integer, a decimal tolerance, or a select policy's name.
fn parse_value(path: &str, value: &serde_norway::Value, param: Param) -> Result<i64, String> {
    let bad = |what: &str| format!("{path}: expected {what}, got {}", scalar_text(value));
    match param {
        Param::Select(_) => match value.as_str() {
            Some("Max") => Ok(0),
            Some("Min") => Ok(1),
            Some("Disabled") => Ok(2),
            _ => Err(bad("Max, Min or Disabled")),
        },
        Param::Tolerance(_) => {
            let text = match value {
                serde_norway::Value::Number(n) => n.to_string(),
                serde_norway::Value::String(s) => s.clone(),
                _ => return Err(bad("a decimal such as 0.05")),
            };
            parse_number_ms(&text)
                .ok_or_else(|| bad("a decimal with at most 3 decimals, such as 0.05"))
        }
        _ => value.as_i64().ok_or_else(|| bad("an integer")),
    }
}

/// A parameter's values: a list, or `{min, max, step}`; each within `[low, high]`.
fn parse_values(
    path: &str,
    value: &serde_norway::Value,
    param: Param,
    low: i64,
    high: i64,
) -> Result<Vec<i64>, String> {
    let values = match value {
        serde_norway::Value::Sequence(items) => {
            let mut values = Vec::new();
            for (i, item) in items.iter().enumerate() {
                values.push(parse_value(&format!("{path}[{i}]"), item, param)?);
            }
            values
        }
        serde_norway::Value::Mapping(range) => {
            let mut bounds = [None; 3];
            for (key, v) in range {
                let key = key_text(key)?;
                let slot = match key.as_str() {
                    "min" => bounds.get_mut(0),
                    "max" => bounds.get_mut(1),
                    "step" => bounds.get_mut(2),
                    _ => {
                        return Err(format!(
                            "{path}.{key}: unknown key (a range is {{min, max, step}})"
                        ))
                    }
                };
                if let Some(slot) = slot {
                    *slot = Some(parse_value(&format!("{path}.{key}"), v, param)?);
                }
            }
            let [Some(min), Some(max), Some(step)] = bounds else {
                return Err(format!("{path}: a range needs min, max and step"));
            };
            if step <= 0 {
                return Err(format!("{path}.step: must be positive"));
            }
            if max < min {
                return Err(format!("{path}: max ({max}) is below min ({min})"));
            }
            let count = max
                .saturating_sub(min)
                .checked_div(step)
                .unwrap_or(0)
                .saturating_add(1);
            if usize::try_from(count).map_or(true, |c| c > MAX_VALUES) {
                return Err(format!(
                    "{path}: the range has {count} values; at most {MAX_VALUES}"
                ));
            }
            (0..count)
                .map(|k| min.saturating_add(k.saturating_mul(step)))
                .collect()
        }
        other => {
            return Err(format!(
                "{path}: expected a list of values or {{min, max, step}}, got {}",
                scalar_text(other)
            ))
        }
    };
    if values.is_empty() {
        return Err(format!("{path}: no values"));
    }
    if values.len() > MAX_VALUES {
        return Err(format!(
            "{path}: {} values; at most {MAX_VALUES}",
            values.len()
        ));
    }
    let show = |v: i64| match param {
        Param::Tolerance(_) => milli_text(v),
        _ => v.to_string(),
    };
    if let Some(v) = values.iter().find(|v| !(low..=high).contains(*v)) {
        return Err(format!(
            "{path}: {} is out of range [{}, {}]",
            show(*v),
            show(low),
            show(high)
        ));
    }
    let mut seen = values.clone();
    seen.sort_unstable();
    seen.dedup();
    if seen.len() != values.len() {
        return Err(format!("{path}: a value is repeated"));
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_lists_and_errors() {
        let space = Space::new(
            Some((
                "s.yaml",
                "scaleDown:\n  stabilizationWindowSeconds: {min: 0, max: 600, step: 60}\n  \
                 tolerance: [0.05, '0.1']\nmaxReplicas: [10, 20]\n",
            )),
            true,
            1,
            10,
        )
        .unwrap();
        let window = space.values(Param::Window(Direction::Down));
        assert_eq!(window.len(), 11);
        assert_eq!(space.values(Param::Tolerance(Direction::Down)), [50, 100]);
        assert_eq!(space.values(Param::MaxReplicas), [10, 20]);
        let err = |text: &str| Space::new(Some(("s.yaml", text)), false, 1, 10).unwrap_err();
        assert_eq!(
            err("scaleUp: {window: [1]}"),
            "--space s.yaml: scaleUp.window: unknown parameter (known: \
             stabilizationWindowSeconds, percent, percentPeriodSeconds, pods, \
             podsPeriodSeconds, selectPolicy, tolerance)"
        );
        assert!(err("scaleUp: {tolerance: [0.1]}").contains("HPAConfigurableTolerance"));
        assert_eq!(
            err("scaleUp: {percentPeriodSeconds: [0]}"),
            "--space s.yaml: scaleUp.percentPeriodSeconds: 0 is out of range [1, 1800]"
        );
        assert_eq!(
            err("scaleUp: {selectPolicy: [Most]}"),
            "--space s.yaml: scaleUp.selectPolicy[0]: expected Max, Min or Disabled, got \"Most\""
        );
        assert_eq!(
            err("scaleUp: {pods: {min: 4, max: 1}}"),
            "--space s.yaml: scaleUp.pods: a range needs min, max and step"
        );
    }

    #[test]
    fn canonical_points_merge_what_cannot_matter() {
        let space = Space::new(None, false, 1, 10).unwrap();
        let n = space.dims.len();
        // Every policy left out: periods do not matter; up keeps selectPolicy (defaults).
        let mut point = vec![1u16; n];
        for (dim, index) in space.dims.iter().zip(point.iter_mut()) {
            if matches!(dim.param, Param::Percent(_) | Param::Pods(_)) {
                *index = 0;
            }
        }
        let canonical = space.canonical(&point);
        for (dim, index) in space.dims.iter().zip(&canonical) {
            let expected = match dim.param {
                Param::Percent(_) | Param::Pods(_) => 0,
                Param::PercentPeriod(_) | Param::PodsPeriod(_) => 0,
                Param::Select(Direction::Down) => 0,
                _ => 1,
            };
            assert_eq!(*index, expected, "{:?}", dim.param);
        }
        assert_eq!(
            space.describe(&canonical),
            "up 15s [default Min]; down 60s [default]"
        );
        assert_eq!(milli_text(50), "0.05");
        assert_eq!(milli_text(1500), "1.5");
    }
}
