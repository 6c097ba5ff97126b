//! The search of `hpa tune`: which points of the space it simulates, in which order, and which
//! it chooses.
//!
//! - **Grid**: a space of at most `budget` points is tried whole.
//! - Otherwise **random sampling then local refinement**: 60 % of the budget goes to distinct
//!   points drawn uniformly (seeded splitmix64), the rest to rounds that try the unseen
//!   neighbours (one parameter one value up or down) of the best four points so far (feasible
//!   first, see [`Objective::rank`]); a round that finds no unseen neighbour draws random
//!   points instead. A round's points depend only on the results before it, so a run is the
//!   same whatever the number of threads that simulate each round.
//!
//! Limits: random sampling covers a large space thinly, and refinement climbs to a local
//! optimum only: a better setting two steps away across a worse one is found by chance only.

use std::collections::HashSet;

use crate::noise::splitmix64;
use crate::simulate::{Limits, Summary};

use super::space::{Point, Space};

/// The share of the budget sampled at random before refining, in percent.
const RANDOM_PERCENT: usize = 60;
/// How many of the best points each refinement round explores around.
const REFINE_AROUND: usize = 4;
/// The most points a refinement round simulates.
const ROUND: usize = 32;
/// Draws per random point wanted before a space is taken as exhausted.
const ATTEMPTS: usize = 50;

/// Milliseconds in a day.
const DAY_MS: i128 = 86_400_000;

/// Minimise pod-hours subject to these constraints.
#[derive(Clone, Copy, Debug)]
pub struct Objective {
    /// The most time above target, in thousandths of a percent of the run.
    pub max_above_milli_percent: i64,
    /// The most direction reversals a day.
    pub max_reversals_per_day: u64,
}

/// Which constraint a summary breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Breaks {
    /// Time above target over the limit.
    pub above: bool,
    /// Too many reversals a day.
    pub reversals: bool,
}

impl Objective {
    /// The constraints `summary` breaks.
    pub fn breaks(&self, s: &Summary) -> Breaks {
        let duration = i128::from(s.duration_ms.max(1));
        let above = i128::from(s.above_ms).saturating_mul(100_000)
            > i128::from(self.max_above_milli_percent).saturating_mul(duration);
        let reversals = i128::try_from(s.reversals)
            .unwrap_or(i128::MAX)
            .saturating_mul(DAY_MS)
            > i128::from(self.max_reversals_per_day).saturating_mul(duration);
        Breaks { above, reversals }
    }

    /// The limits of a run of `duration_ms` past which it breaks a constraint.
    pub fn limits(&self, duration_ms: i64) -> Limits {
        let duration = i128::from(duration_ms.max(0));
        let above = i128::from(self.max_above_milli_percent).saturating_mul(duration) / 100_000;
        let reversals = i128::from(self.max_reversals_per_day).saturating_mul(duration) / DAY_MS;
        Limits {
            above_ms: i64::try_from(above).unwrap_or(i64::MAX),
            reversals: usize::try_from(reversals).unwrap_or(usize::MAX),
        }
    }

    /// Whether `summary` meets every constraint.
    pub fn feasible(&self, s: &Summary) -> bool {
        self.breaks(s)
            == Breaks {
                above: false,
                reversals: false,
            }
    }

    /// How far `summary` is from meeting the constraints: the excess of each over its limit,
    /// as a fraction of the limit (0 when feasible). A run stopped early (`--prune`) counts at
    /// the rates it had when it stopped, so that the one stopped latest ranks closest.
    pub fn violation(&self, s: &Summary) -> f64 {
        let duration = s.stopped_at.unwrap_or(s.duration_ms).max(1) as f64;
        let above = s.above_ms as f64 * 100.0 / duration;
        let above_limit = self.max_above_milli_percent as f64 / 1000.0;
        let per_day = s.reversals as f64 * 86_400_000.0 / duration;
        let reversals_limit = self.max_reversals_per_day as f64;
        (above - above_limit).max(0.0) / above_limit.max(0.1)
            + (per_day - reversals_limit).max(0.0) / reversals_limit.max(1.0)
    }

    /// The indices of `results` best first: the feasible by pod-hours (then time above target,
    /// under-provisioning, reversals), then the others by [`Objective::violation`]; ties by
    /// index.
    pub fn rank(&self, results: &[Summary]) -> Vec<usize> {
        let mut order: Vec<usize> = (0..results.len()).collect();
        let key = |i: usize| {
            results.get(i).map(|s| {
                (
                    !self.feasible(s),
                    self.violation(s),
                    s.pod_ms,
                    s.above_ms,
                    s.under_pod_ms,
                    s.reversals,
                )
            })
        };
        order.sort_by(|&a, &b| match (key(a), key(b)) {
            (Some(x), Some(y)) => {
                x.0.cmp(&y.0)
                    .then(x.1.total_cmp(&y.1))
                    .then(x.2.cmp(&y.2))
                    .then(x.3.cmp(&y.3))
                    .then(x.4.cmp(&y.4))
                    .then(x.5.cmp(&y.5))
                    .then(a.cmp(&b))
            }
            _ => a.cmp(&b),
        });
        order
    }
}

/// How the points were chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Method {
    /// Whether the whole space was tried.
    pub grid: bool,
    /// Points drawn at random.
    pub random: usize,
    /// Points tried as neighbours of the best.
    pub refined: usize,
}

/// What a search tried: the points in the order simulated, with their summaries.
pub struct Tried {
    /// The points.
    pub points: Vec<Point>,
    /// Their summaries.
    pub summaries: Vec<Summary>,
    /// How they were chosen.
    pub method: Method,
}

/// The search state: what was tried, the generator, and the space.
struct Search<'a> {
    space: &'a Space,
    seen: HashSet<Point>,
    rng: u64,
    tried: Tried,
}

impl Search<'_> {
    /// Adds `point` (canonical) to `batch` if valid and unseen.
    fn offer(&mut self, point: &[u16], batch: &mut Vec<Point>) -> bool {
        let point = self.space.canonical(point);
        if !self.space.valid(&point) || self.seen.contains(&point) {
            return false;
        }
        self.seen.insert(point.clone());
        batch.push(point);
        true
    }

    /// Up to `count` unseen random points.
    fn random(&mut self, count: usize) -> Vec<Point> {
        let mut batch = Vec::new();
        let mut attempts = count.saturating_mul(ATTEMPTS);
        while batch.len() < count && attempts > 0 {
            attempts = attempts.saturating_sub(1);
            let point: Point = self
                .space
                .dims
                .iter()
                .map(|d| {
                    let len = u64::try_from(d.values.len()).unwrap_or(1).max(1);
                    u16::try_from(splitmix64(&mut self.rng).checked_rem(len).unwrap_or(0))
                        .unwrap_or(0)
                })
                .collect();
            self.offer(&point, &mut batch);
        }
        batch
    }

    /// Up to `count` unseen neighbours of the best points.
    fn neighbours(&mut self, objective: &Objective, count: usize) -> Vec<Point> {
        let order = objective.rank(&self.tried.summaries);
        let best: Vec<Point> = order
            .iter()
            .take(REFINE_AROUND)
            .filter_map(|&i| self.tried.points.get(i).cloned())
            .collect();
        let mut batch = Vec::new();
        for point in &best {
            for (d, dim) in self.space.dims.iter().enumerate() {
                let Some(&index) = point.get(d) else { continue };
                let last = u16::try_from(dim.values.len().saturating_sub(1)).unwrap_or(0);
                for moved in [
                    index.checked_sub(1),
                    index.checked_add(1).filter(|i| *i <= last),
                ]
                .into_iter()
                .flatten()
                {
                    if batch.len() >= count {
                        return batch;
                    }
                    let mut next = point.clone();
                    if let Some(slot) = next.get_mut(d) {
                        *slot = moved;
                    }
                    self.offer(&next, &mut batch);
                }
            }
        }
        batch
    }

    fn record(&mut self, batch: Vec<Point>, summaries: Vec<Summary>) {
        self.tried.points.extend(batch);
        self.tried.summaries.extend(summaries);
    }
}

/// Every point of `space` in order, if there are at most `budget`.
fn grid(space: &Space, budget: usize) -> Option<Vec<Point>> {
    if space.size() > u128::try_from(budget).unwrap_or(u128::MAX) {
        return None;
    }
    let mut all = Vec::new();
    let mut seen = HashSet::new();
    let mut point: Point = vec![0; space.dims.len()];
    loop {
        let canonical = space.canonical(&point);
        if space.valid(&canonical) && seen.insert(canonical.clone()) {
            all.push(canonical);
        }
        // The next point, the last dimension fastest.
        let mut carried = true;
        for (index, dim) in point.iter_mut().zip(&space.dims).rev() {
            let next = index.saturating_add(1);
            if usize::from(next) < dim.values.len() {
                *index = next;
                carried = false;
                break;
            }
            *index = 0;
        }
        if carried {
            return Some(all);
        }
    }
}

/// Simulates a batch of points: their summaries in order.
pub type Evaluate<'a> = dyn FnMut(&[Point]) -> Result<Vec<Summary>, String> + 'a;

/// Searches `space` with at most `budget` simulations; `evaluate` simulates a batch of points
/// and returns their summaries in order.
///
/// # Errors
///
/// The first error of `evaluate`.
pub fn search(
    space: &Space,
    budget: usize,
    seed: u64,
    objective: &Objective,
    evaluate: &mut Evaluate<'_>,
) -> Result<Tried, String> {
    let mut search = Search {
        space,
        seen: HashSet::new(),
        rng: seed,
        tried: Tried {
            points: Vec::new(),
            summaries: Vec::new(),
            method: Method::default(),
        },
    };
    if let Some(all) = grid(space, budget) {
        let summaries = evaluate(&all)?;
        search.tried.method = Method {
            grid: true,
            random: 0,
            refined: 0,
        };
        search.record(all, summaries);
        return Ok(search.tried);
    }
    let first = budget.saturating_mul(RANDOM_PERCENT) / 100;
    let batch = search.random(first.max(1).min(budget));
    search.tried.method.random = batch.len();
    let summaries = evaluate(&batch)?;
    search.record(batch, summaries);
    while search.tried.points.len() < budget {
        let room = budget.saturating_sub(search.tried.points.len()).min(ROUND);
        let mut batch = search.neighbours(objective, room);
        let refined = batch.len();
        if batch.is_empty() {
            batch = search.random(room);
            if batch.is_empty() {
                break;
            }
        }
        search.tried.method.refined = search.tried.method.refined.saturating_add(refined);
        search.tried.method.random = search
            .tried
            .method
            .random
            .saturating_add(batch.len().saturating_sub(refined));
        let summaries = evaluate(&batch)?;
        search.record(batch, summaries);
    }
    Ok(search.tried)
}

/// The indices of the Pareto front of `summaries` (no other point is at least as good in
/// pod-hours, time above target, under-provisioned pod-seconds and reversals and better in
/// one), sorted by pod-hours, then the others, then index; of equal summaries the first only.
/// Runs stopped early are left out: their figures are partial.
pub fn pareto(summaries: &[Summary]) -> Vec<usize> {
    let key = |s: &Summary| {
        (
            s.pod_ms,
            i128::from(s.above_ms),
            s.under_pod_ms,
            s.reversals,
        )
    };
    let dominates = |a: &Summary, b: &Summary| {
        let (x, y) = (key(a), key(b));
        x.0 <= y.0 && x.1 <= y.1 && x.2 <= y.2 && x.3 <= y.3 && x != y
    };
    let mut front: Vec<usize> = Vec::new();
    for (i, s) in summaries.iter().enumerate() {
        if s.stopped_at.is_some() {
            continue;
        }
        let dominated = summaries
            .iter()
            .filter(|o| o.stopped_at.is_none())
            .any(|o| dominates(o, s));
        let repeated = summaries.iter().take(i).any(|o| key(o) == key(s));
        if !dominated && !repeated {
            front.push(i);
        }
    }
    front.sort_by_key(|&i| summaries.get(i).map(|s| (key(s), i)));
    front
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(pod_ms: i128, above_ms: i64, reversals: usize) -> Summary {
        Summary {
            duration_ms: 86_400_000,
            pod_ms,
            above_ms,
            reversals,
            ..Summary::default()
        }
    }

    #[test]
    fn constraints_and_ranking() {
        let objective = Objective {
            max_above_milli_percent: 5000,
            max_reversals_per_day: 2,
        };
        // 5 % of a day is 4,320,000 ms.
        let ok = summary(100, 4_320_000, 2);
        assert!(objective.feasible(&ok));
        let high = summary(50, 4_320_001, 0);
        assert_eq!(
            objective.breaks(&high),
            Breaks {
                above: true,
                reversals: false
            }
        );
        assert_eq!(
            objective.limits(86_400_000),
            Limits {
                above_ms: 4_320_000,
                reversals: 2
            }
        );
        // Stopped early: at the rates it had then.
        let stopped = Summary {
            stopped_at: Some(43_200_000),
            ..summary(10, 4_320_001, 0)
        };
        assert!((objective.violation(&stopped) - 1.0).abs() < 1e-6);
        let flapping = summary(60, 0, 3);
        assert!(!objective.feasible(&flapping));
        let cheaper = summary(90, 0, 0);
        assert_eq!(
            objective.rank(&[ok.clone(), high, flapping, cheaper]),
            [3, 0, 1, 2]
        );
    }

    #[test]
    fn pareto_front() {
        let points = [
            summary(100, 10, 0),
            summary(90, 20, 0),
            summary(95, 20, 0), // dominated by 1
            summary(90, 20, 0), // equal to 1
            summary(80, 30, 5),
        ];
        assert_eq!(pareto(&points), [4, 1, 0]);
    }

    #[test]
    fn small_spaces_are_tried_whole() {
        let space = Space::new(
            Some((
                "s.yaml",
                "scaleUp: {stabilizationWindowSeconds: [0, 60], percent: [100], pods: [0], \
                 selectPolicy: [Max], percentPeriodSeconds: [15], podsPeriodSeconds: [15]}\n\
                 scaleDown: {stabilizationWindowSeconds: [0, 300, 600], percent: [10], \
                 pods: [0], selectPolicy: [Max, Min], percentPeriodSeconds: [60], \
                 podsPeriodSeconds: [15]}\n",
            )),
            false,
            1,
            10,
        )
        .unwrap();
        let objective = Objective {
            max_above_milli_percent: 5000,
            max_reversals_per_day: 2,
        };
        let mut calls = 0;
        let tried = search(&space, 12, 1, &objective, &mut |batch| {
            calls += 1;
            Ok(batch.iter().map(|_| summary(1, 0, 0)).collect())
        })
        .unwrap();
        // 12 coordinates, 6 settings: selectPolicy does not matter with one policy.
        assert_eq!(tried.points.len(), 6);
        assert!(tried.method.grid);
        assert_eq!(calls, 1);
    }
}
