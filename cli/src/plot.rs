//! `hpa simulate --plot FILE.svg`: one picture of a run, or of two runs side by side.
//!
//! Panels, top to bottom, on one time axis:
//!
//! 1. **Demand**: each load column the runs read, in its own unit.
//! 2. **Pods**: per run, the desired replicas (thick), the ready pods (thin) and the pods
//!    needed at target (dashed: demand divided by what one pod takes at target). Where the
//!    ready line sits under the dashed one, the pool is under-provisioned. With a recording
//!    (`--replicas`), the recorded replica counts too (grey), over the time it covers.
//! 3. **One panel per metric**: the value the HPA measured (utilization in percent of the
//!    request, or the average/value in the metric's unit) and its target (dashed).
//!
//! Legend entries wrap onto further lines rather than run past the picture's edge; a metric
//! name too long for its caption or axis is shortened there (`…`) and given whole in its
//! legend.
//!
//! Long series are thinned to about a thousand buckets, keeping each bucket's first, lowest,
//! highest and last point, so spikes stay visible and the file stays small. The SVG has no
//! embedded font and no timestamp: the same run gives the same file.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::csv_load::Load;
use crate::recorded::Recorded;
use crate::simulate::{Clock, Run};

const WIDTH: u32 = 1200;
const TITLE_HEIGHT: u32 = 50;
const DEMAND_HEIGHT: u32 = 220;
const PODS_HEIGHT: u32 = 320;
const METRIC_HEIGHT: u32 = 230;
const LEGEND_WIDTH: u32 = 250;
const BUCKETS: usize = 1000;
const FONT: &str = "sans-serif";
/// The characters of 12 px text that fit the legend beside a line sample, and a note (the
/// legend is 250 px wide, a character about 6.5 px).
const LEGEND_CHARS: usize = 31;
const NOTE_CHARS: usize = 37;
/// The characters of a metric's name that fit a panel's caption (15 px, with its ": measured
/// by the HPA vs target"), and its axis description (12 px along the panel's height).
const CAPTION_NAME_CHARS: usize = 80;
/// The characters of the 13 px subtitle that fit a line across the picture (about 7 px a
/// character), and the height each further line adds to the title.
const SUBTITLE_CHARS: usize = 165;
const SUBTITLE_LINE_HEIGHT: u32 = 16;
const AXIS_CHARS: usize = 34;

/// Run colours: blue and orange (distinguishable with the common colour-vision deficiencies).
const RUN_COLORS: [RGBColor; 4] = [
    RGBColor(31, 119, 180),
    RGBColor(230, 120, 20),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
];
const DEMAND_COLORS: [RGBColor; 4] = [
    RGBColor(60, 60, 60),
    RGBColor(140, 86, 75),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
];

type Points = Vec<(f64, f64)>;

/// A legend entry: text, colour, line width (0: a note, text only), dashed.
struct Legend(String, RGBAColor, u32, bool);

/// Thins sorted points to about [`BUCKETS`] buckets of first, lowest, highest, last.
fn thin(points: Points) -> Points {
    if points.len() <= 4 * BUCKETS {
        return points;
    }
    let (Some(&(x0, _)), Some(&(x1, _))) = (points.first(), points.last()) else {
        return points;
    };
    let width = (x1 - x0).max(f64::MIN_POSITIVE) / BUCKETS as f64;
    let bucket = |p: &(f64, f64)| ((p.0 - x0) / width).floor();
    let mut out = Vec::with_capacity(4 * BUCKETS + 4);
    for slice in points.chunk_by(|a, b| bucket(b) <= bucket(a)) {
        let Some(&(_, first)) = slice.first() else {
            continue;
        };
        let (mut lo, mut hi) = ((0, first), (0, first));
        for (i, p) in slice.iter().enumerate() {
            if p.1 < lo.1 {
                lo = (i, p.1);
            }
            if p.1 > hi.1 {
                hi = (i, p.1);
            }
        }
        let mut keep = vec![0, lo.0, hi.0, slice.len().saturating_sub(1)];
        keep.sort_unstable();
        keep.dedup();
        out.extend(keep.into_iter().filter_map(|i| slice.get(i).copied()));
    }
    out
}

/// A step function: `values[k]` holds from `xs[k]` to `xs[k + 1]` (the last to `end`).
fn steps(xs: &[f64], values: impl Iterator<Item = f64>, end: f64) -> Points {
    let mut out: Points = Vec::new();
    let mut last: Option<f64> = None;
    for (x, v) in xs.iter().zip(values) {
        match last {
            Some(l) if l == v => {}
            Some(l) => {
                out.push((*x, l));
                out.push((*x, v));
            }
            None => out.push((*x, v)),
        }
        last = Some(v);
    }
    if let Some(l) = last {
        out.push((end, l));
    }
    thin(out)
}

/// A line broken where values are missing.
fn segments(xs: &[f64], values: &[Option<f64>]) -> Vec<Points> {
    let mut out = Vec::new();
    let mut current: Points = Vec::new();
    for (x, v) in xs.iter().zip(values) {
        match v {
            Some(v) => current.push((*x, *v)),
            None if !current.is_empty() => out.push(thin(std::mem::take(&mut current))),
            None => {}
        }
    }
    if !current.is_empty() {
        out.push(thin(current));
    }
    out
}

fn top(values: impl Iterator<Item = f64>) -> f64 {
    let m = values.fold(0.0f64, |a, b| if b.is_finite() { a.max(b) } else { a });
    if m <= 0.0 {
        1.0
    } else {
        m * 1.12
    }
}

fn err<E: std::fmt::Display>(e: E) -> String {
    format!("cannot draw the plot: {e}")
}

/// A run's letter in legends when several runs share the picture.
fn tag(runs: &[Run], i: usize) -> String {
    match runs.get(i) {
        Some(run) if runs.len() > 1 => format!("{} ", run.plan.label),
        _ => String::new(),
    }
}

/// Colour `i` of a palette, which repeats.
fn nth_color(palette: &[RGBColor], i: usize) -> RGBColor {
    i.checked_rem(palette.len())
        .and_then(|i| palette.get(i))
        .copied()
        .unwrap_or(BLACK)
}

/// Renders the runs as an SVG document.
///
/// # Errors
///
/// A message when plotters fails (it does not in practice: the backend writes to a string).
pub fn render(
    runs: &[Run],
    clock: &Clock,
    load: &Load,
    demand: &[Vec<i64>],
    recorded: Option<&Recorded>,
    subtitle: &str,
) -> Result<String, String> {
    // Metric panels: one per (metric key, unit) across the runs, in order of appearance.
    let mut panels: Vec<(String, &'static str)> = Vec::new();
    for run in runs {
        for m in &run.plan.metrics {
            if !panels.iter().any(|(k, u)| *k == m.key && *u == m.unit) {
                panels.push((m.key.clone(), m.unit));
            }
        }
    }
    let mut columns: Vec<usize> = runs
        .iter()
        .flat_map(|r| r.plan.metrics.iter().map(|m| m.column))
        .collect();
    columns.sort_unstable();
    columns.dedup();

    // The subtitle (the pool's and the controller's settings) wraps rather than running
    // off the picture; the title grows by a line for each further line.
    let subtitle_lines = wrap(subtitle, SUBTITLE_CHARS);
    let title_height =
        TITLE_HEIGHT.saturating_add(SUBTITLE_LINE_HEIGHT.saturating_mul(
            u32::try_from(subtitle_lines.len().saturating_sub(1)).unwrap_or(u32::MAX),
        ));
    let height = title_height
        .saturating_add(DEMAND_HEIGHT + PODS_HEIGHT)
        .saturating_add(METRIC_HEIGHT.saturating_mul(u32::try_from(panels.len()).unwrap_or(1)));
    let hours = clock.duration >= 3 * 3_600_000;
    let (scale, unit) = if hours {
        (3_600_000.0, "h")
    } else {
        (60_000.0, "min")
    };
    let xs: Vec<f64> = clock.times.iter().map(|t| *t as f64 / scale).collect();
    let end = clock.duration as f64 / scale;
    let x_desc = format!("time since the start of the load ({unit})");

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (title_area, rest) = root.split_vertically(title_height);
        let names: Vec<String> = runs.iter().map(|r| r.plan.label.clone()).collect();
        title_area
            .draw(&Text::new(
                format!("hpa simulate: {} on {}", names.join(" vs "), load.name),
                (12, 8),
                (FONT, 20).into_font().color(&BLACK),
            ))
            .map_err(err)?;
        for (line, y) in subtitle_lines
            .into_iter()
            .zip((32_i32..).step_by(SUBTITLE_LINE_HEIGHT as usize))
        {
            title_area
                .draw(&Text::new(
                    line,
                    (12, y),
                    (FONT, 13).into_font().color(&RGBColor(90, 90, 90)),
                ))
                .map_err(err)?;
        }
        let (demand_area, rest) = rest.split_vertically(DEMAND_HEIGHT);
        let (pods_area, metric_area) = rest.split_vertically(PODS_HEIGHT);

        // Demand.
        let demand_points: Vec<(String, Points)> = columns
            .iter()
            .filter_map(|&c| Some((c, demand.get(c)?, load.columns.get(c)?)))
            .map(|(c, series, column)| {
                let points = xs
                    .iter()
                    .zip(series)
                    .map(|(x, d)| (*x, *d as f64 / 1000.0))
                    .chain(std::iter::once((
                        end,
                        series.last().map_or(0.0, |d| *d as f64 / 1000.0),
                    )))
                    .collect();
                let unit = runs
                    .iter()
                    .flat_map(|r| r.plan.metrics.iter())
                    .find(|m| m.column == c)
                    .map_or("", |m| m.demand_unit);
                let name = if unit.is_empty() {
                    column.clone()
                } else {
                    format!("{column} ({unit})")
                };
                (name, thin(points))
            })
            .collect();
        let y_max = top(demand_points
            .iter()
            .flat_map(|(_, p)| p.iter().map(|q| q.1)));
        panel(
            &demand_area,
            "Demand (the load)",
            end,
            y_max,
            &x_desc,
            "demand",
            |chart| {
                let mut legend = Vec::new();
                for (i, (name, points)) in demand_points.iter().enumerate() {
                    let color = nth_color(&DEMAND_COLORS, i);
                    chart
                        .draw_series(LineSeries::new(
                            points.iter().copied(),
                            color.stroke_width(2),
                        ))
                        .map_err(err)?;
                    legend.push(Legend(name.clone(), color.to_rgba(), 2, false));
                }
                Ok(legend)
            },
        )?;

        // Pods.
        let pod_series: Vec<(Points, Points, Points)> = runs
            .iter()
            .map(|r| {
                let desired = steps(&xs, r.replicas.iter().map(|v| f64::from(*v)), end);
                let ready = steps(&xs, r.ready.iter().map(|v| f64::from(*v)), end);
                let needed = thin(
                    xs.iter()
                        .zip(&r.needed)
                        .map(|(x, n)| (*x, *n))
                        .chain(std::iter::once((
                            end,
                            r.needed.last().copied().unwrap_or(0.0),
                        )))
                        .collect(),
                );
                (desired, ready, needed)
            })
            .collect();
        // The recording on the plot's time axis, over the run.
        let recorded_points = recorded.map(|rec| {
            let in_run: Vec<(f64, f64)> = rec
                .times
                .iter()
                .zip(&rec.replicas)
                .map(|(t, r)| {
                    (
                        (t.saturating_sub(clock.origin)) as f64 / scale,
                        f64::from(*r),
                    )
                })
                .filter(|(x, _)| (0.0..=end).contains(x))
                .collect();
            let last_x = in_run.last().map_or(0.0, |p| p.0);
            let (xs, values): (Vec<f64>, Vec<f64>) = in_run.into_iter().unzip();
            steps(&xs, values.into_iter(), last_x)
        });
        let y_max = top(pod_series
            .iter()
            .flat_map(|(d, r, n)| d.iter().chain(r).chain(n).map(|p| p.1))
            .chain(recorded_points.iter().flatten().map(|p| p.1)));
        panel(
            &pods_area,
            "Pods: desired replicas, ready pods, pods needed at target",
            end,
            y_max,
            &x_desc,
            "pods",
            |chart| {
                let mut legend = Vec::new();
                // One "needed" line when every run needs the same (same targets).
                let shared_need = runs
                    .iter()
                    .zip(runs.iter().skip(1))
                    .all(|(a, b)| a.needed == b.needed);
                for (i, (desired, ready, needed)) in pod_series.iter().enumerate() {
                    let color = nth_color(&RUN_COLORS, i);
                    let t = tag(runs, i);
                    if !shared_need || i == 0 {
                        let (need_color, label) = if shared_need {
                            (BLACK.to_rgba(), "pods needed at target".to_owned())
                        } else {
                            (color.to_rgba(), format!("{t}pods needed at target"))
                        };
                        chart
                            .draw_series(DashedLineSeries::new(
                                needed.iter().copied(),
                                6,
                                4,
                                need_color.stroke_width(1),
                            ))
                            .map_err(err)?;
                        legend.push(Legend(label, need_color, 1, true));
                    }
                    let light = color.mix(0.5);
                    chart
                        .draw_series(LineSeries::new(
                            ready.iter().copied(),
                            light.stroke_width(1),
                        ))
                        .map_err(err)?;
                    legend.push(Legend(format!("{t}ready pods"), light, 1, false));
                    chart
                        .draw_series(LineSeries::new(
                            desired.iter().copied(),
                            color.stroke_width(2),
                        ))
                        .map_err(err)?;
                    legend.push(Legend(
                        format!("{t}desired replicas"),
                        color.to_rgba(),
                        2,
                        false,
                    ));
                }
                if let Some(points) = &recorded_points {
                    let grey = RGBColor(120, 120, 120).to_rgba();
                    chart
                        .draw_series(LineSeries::new(
                            points.iter().copied(),
                            grey.stroke_width(2),
                        ))
                        .map_err(err)?;
                    legend.push(Legend("recorded replicas".to_owned(), grey, 2, false));
                }
                // The runs' key numbers, so that the picture tells the outcome too.
                legend.push(Legend(String::new(), BLACK.to_rgba(), 0, false));
                for (i, run) in runs.iter().enumerate() {
                    let color = nth_color(&RUN_COLORS, i).to_rgba();
                    let s = &run.summary;
                    let hours = s.pod_ms as f64 / 3_600_000.0;
                    let above = s.above_ms as f64 * 100.0 / s.duration_ms.max(1) as f64;
                    legend.push(Legend(
                        format!(
                            "{}: {} pod-hours, {} % above target,",
                            run.plan.label,
                            crate::explain::decimal(hours, 1),
                            crate::explain::decimal(above, 1)
                        ),
                        color,
                        0,
                        false,
                    ));
                    legend.push(Legend(
                        format!(
                            "    {} scale events, {} reversals",
                            s.scale_ups.saturating_add(s.scale_downs),
                            s.reversals
                        ),
                        color,
                        0,
                        false,
                    ));
                }
                Ok(legend)
            },
        )?;

        // Metrics.
        let areas = metric_area.split_evenly((panels.len().max(1), 1));
        for ((key, unit), area) in panels.iter().zip(areas.iter()) {
            let mut lines: Vec<(usize, String, Vec<Points>, f64)> = Vec::new();
            for (i, run) in runs.iter().enumerate() {
                for (metric, current) in run.plan.metrics.iter().zip(&run.current) {
                    if metric.key == *key && metric.unit == *unit {
                        lines.push((
                            i,
                            metric.title.clone(),
                            segments(&xs, current),
                            metric.target,
                        ));
                    }
                }
            }
            let y_max = top(lines.iter().flat_map(|(_, _, segs, target)| {
                segs.iter()
                    .flat_map(|s| s.iter().map(|p| p.1))
                    .chain(std::iter::once(*target))
            }));
            let name = lines.first().map(|l| l.1.clone()).unwrap_or_default();
            let y_desc = if unit.is_empty() {
                key.clone()
            } else {
                format!("{key} ({unit} of request)")
            };
            // Names too long for the caption or the axis are shortened there and given whole
            // in the legend.
            let caption_name = shorten(&name, CAPTION_NAME_CHARS);
            let axis = shorten(&y_desc, AXIS_CHARS);
            panel(
                area,
                &format!("{caption_name}: measured by the HPA vs target"),
                end,
                y_max,
                &x_desc,
                &axis,
                |chart| {
                    let mut legend = Vec::new();
                    if caption_name != name || axis != y_desc {
                        legend.push(Legend(name.clone(), BLACK.to_rgba(), 0, false));
                        legend.push(Legend(String::new(), BLACK.to_rgba(), 0, false));
                    }
                    for (i, _, segs, target) in &lines {
                        let color = nth_color(&RUN_COLORS, *i);
                        let t = tag(runs, *i);
                        let target_text = crate::explain::decimal(*target, 3);
                        for seg in segs {
                            chart
                                .draw_series(LineSeries::new(
                                    seg.iter().copied(),
                                    color.mix(0.8).stroke_width(1),
                                ))
                                .map_err(err)?;
                        }
                        legend.push(Legend(format!("{t}measured"), color.mix(0.8), 1, false));
                        chart
                            .draw_series(DashedLineSeries::new(
                                [(0.0, *target), (end, *target)],
                                8,
                                5,
                                color.stroke_width(2),
                            ))
                            .map_err(err)?;
                        legend.push(Legend(
                            format!("{t}target {target_text}{unit}"),
                            color.to_rgba(),
                            2,
                            true,
                        ));
                    }
                    Ok(legend)
                },
            )?;
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

type Chart<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// One panel: caption, axes, mesh, the series `draw` adds, and its legend on the right.
#[allow(clippy::too_many_arguments)]
fn panel<'b>(
    area: &DrawingArea<SVGBackend<'b>, Shift>,
    caption: &str,
    x_max: f64,
    y_max: f64,
    x_desc: &str,
    y_desc: &str,
    draw: impl FnOnce(&mut Chart<'_, 'b>) -> Result<Vec<Legend>, String>,
) -> Result<(), String> {
    let (chart_area, legend_area) = area.split_horizontally(WIDTH - LEGEND_WIDTH);
    let mut chart = ChartBuilder::on(&chart_area)
        .caption(caption, (FONT, 15))
        .margin_left(10)
        .margin_right(10)
        .margin_top(4)
        .margin_bottom(4)
        .x_label_area_size(34)
        .y_label_area_size(64)
        .build_cartesian_2d(0f64..x_max, 0f64..y_max)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_labels(13)
        .y_labels(6)
        .x_label_formatter(&|x| crate::explain::decimal(*x, 2))
        .y_label_formatter(&|y| crate::explain::decimal(*y, 2))
        .light_line_style(RGBColor(240, 240, 240))
        .bold_line_style(RGBColor(215, 215, 215))
        .label_style((FONT, 12))
        .axis_desc_style((FONT, 12))
        .draw()
        .map_err(err)?;
    let legend = draw(&mut chart)?;
    // Entries 20 px apart; a long one wraps onto lines 15 px apart.
    let mut y = 34i32;
    for Legend(text, color, width, dashed) in &legend {
        let style = color.stroke_width(*width);
        let (x, chars, text_color) = if *width == 0 {
            (4, NOTE_CHARS, *color)
        } else {
            (44, LEGEND_CHARS, BLACK.to_rgba())
        };
        let lines = wrap(text, chars);
        for (i, line) in lines.iter().enumerate() {
            let line_y = y.saturating_add(i32::try_from(i).unwrap_or(0).saturating_mul(15));
            legend_area
                .draw(&Text::new(
                    line.clone(),
                    (x, line_y.saturating_sub(7)),
                    (FONT, 12).into_font().color(&text_color),
                ))
                .map_err(err)?;
        }
        let swatch_y = y;
        let extra = i32::try_from(lines.len().saturating_sub(1)).unwrap_or(0);
        y = y
            .saturating_add(20)
            .saturating_add(extra.saturating_mul(15));
        if *width == 0 {
            continue;
        }
        let y = swatch_y;
        if *dashed {
            for x in [4i32, 16, 28] {
                legend_area
                    .draw(&PathElement::new(
                        vec![(x, y), (x.saturating_add(7), y)],
                        style,
                    ))
                    .map_err(err)?;
            }
        } else {
            legend_area
                .draw(&PathElement::new(vec![(4, y), (35, y)], style))
                .map_err(err)?;
        }
    }
    Ok(())
}

/// `text` cut to `max` characters, the last an ellipsis, when it is longer.
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// `text` in lines of at most `max` characters, broken at spaces (a word longer than a line
/// broken within it); the text itself when it fits.
fn wrap(text: &str, max: usize) -> Vec<String> {
    let max = max.max(1);
    if text.chars().count() <= max {
        return vec![text.to_owned()];
    }
    let mut lines = Vec::new();
    let (mut line, mut used) = (String::new(), 0usize);
    for (i, word) in text.split(' ').enumerate() {
        if i > 0 {
            if used > 0 && used.saturating_add(1).saturating_add(word.chars().count()) > max {
                lines.push(std::mem::take(&mut line));
                used = 0;
            } else {
                line.push(' ');
                used = used.saturating_add(1);
            }
        }
        for c in word.chars() {
            if used >= max {
                lines.push(std::mem::take(&mut line));
                used = 0;
            }
            line.push(c);
            used = used.saturating_add(1);
        }
    }
    lines.push(line);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_points_only_at_changes() {
        let xs = [0.0, 1.0, 2.0, 3.0];
        let points = steps(&xs, [2.0, 2.0, 5.0, 5.0].into_iter(), 4.0);
        assert_eq!(points, [(0.0, 2.0), (2.0, 2.0), (2.0, 5.0), (4.0, 5.0)]);
    }

    #[test]
    fn thinning_keeps_extremes() {
        let mut points: Points = (0..100_000).map(|i| (i as f64, 1.0)).collect();
        points[54_321].1 = 50.0;
        let thin = thin(points);
        assert!(thin.len() <= 4 * BUCKETS + 4, "{}", thin.len());
        assert!(thin.contains(&(54_321.0, 50.0)));
        assert_eq!(thin.first(), Some(&(0.0, 1.0)));
        assert_eq!(thin.last(), Some(&(99_999.0, 1.0)));
    }

    #[test]
    fn long_texts_wrap_or_shorten() {
        assert_eq!(wrap("ready pods", 31), ["ready pods"]);
        assert_eq!(
            wrap("    12 scale events", 10),
            ["    12", "scale", "events"]
        );
        assert_eq!(
            wrap("web-tuned: 351 pod-hours, 10.3 % above target,", 37),
            ["web-tuned: 351 pod-hours, 10.3 %", "above target,"]
        );
        assert_eq!(wrap("abcdefghij xy", 4), ["abcd", "efgh", "ij", "xy"]);
        assert_eq!(shorten("short", 5), "short");
        assert_eq!(shorten("a_very_long_metric_name", 10), "a_very_lo…");
    }

    #[test]
    fn gaps_split_lines() {
        let xs = [0.0, 1.0, 2.0, 3.0];
        let segs = segments(&xs, &[Some(1.0), None, Some(2.0), Some(3.0)]);
        assert_eq!(segs, vec![vec![(0.0, 1.0)], vec![(2.0, 2.0), (3.0, 3.0)]]);
    }
}
