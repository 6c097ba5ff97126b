//! `hpa tune --plot FILE.svg`: every setting simulated as a point, pod-hours across and time
//! above target up, so the trade-off reads left to right: the Pareto front joined by a line,
//! the `--max-above` limit dashed, the input manifest and the chosen setting marked. Points
//! that break a constraint are grey. As `hpa simulate`'s plot, the SVG names a font family and
//! holds no timestamp: the same run gives the same file.

use plotters::prelude::*;

use crate::simulate::Summary;

use super::search::{Objective, Tried};

const WIDTH: u32 = 1000;
const HEIGHT: u32 = 640;
const FONT: &str = "sans-serif";
const FEASIBLE: RGBColor = RGBColor(31, 119, 180);
const INFEASIBLE: RGBColor = RGBColor(170, 170, 170);
const INPUT: RGBColor = RGBColor(214, 39, 40);
const CHOSEN: RGBColor = RGBColor(44, 160, 44);

/// What the picture shows.
pub struct Picture<'a> {
    /// Every setting simulated.
    pub tried: &'a Tried,
    /// The indices of the front, sorted by pod-hours.
    pub front: &'a [usize],
    /// The constraints.
    pub objective: &'a Objective,
    /// The input manifest's summary.
    pub input: &'a Summary,
    /// The chosen setting's index.
    pub chosen: usize,
    /// The title.
    pub title: String,
}

fn xy(s: &Summary) -> (f64, f64) {
    (
        s.pod_ms as f64 / 3_600_000.0,
        s.above_ms as f64 * 100.0 / s.duration_ms.max(1) as f64,
    )
}

fn err(e: impl std::fmt::Display) -> String {
    format!("cannot draw the plot: {e}")
}

/// The SVG text.
///
/// # Errors
///
/// Plotters failed to draw (not expected of an SVG in memory).
pub fn render(picture: &Picture<'_>) -> Result<String, String> {
    // Runs stopped early (`--prune`) have partial figures: left out.
    let summaries: Vec<&Summary> = picture
        .tried
        .summaries
        .iter()
        .filter(|s| s.stopped_at.is_none())
        .collect();
    let all: Vec<(f64, f64)> = summaries
        .iter()
        .copied()
        .chain(std::iter::once(picture.input))
        .map(xy)
        .collect();
    let limit = picture.objective.max_above_milli_percent as f64 / 1000.0;
    let (mut x0, mut x1, mut y1) = (f64::MAX, f64::MIN, limit);
    for (x, y) in &all {
        x0 = x0.min(*x);
        x1 = x1.max(*x);
        y1 = y1.max(*y);
    }
    let pad = ((x1 - x0) * 0.05).max(x1.abs() * 0.001).max(0.5);
    let (x0, x1) = ((x0 - pad).max(0.0), x1 + pad);
    let y1 = (y1 * 1.08).max(1.0);

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(&picture.title, (FONT, 18))
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(x0..x1, 0f64..y1)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("pod-hours (fewer is cheaper)")
            .y_desc("time above target (% of the load)")
            .x_label_formatter(&|x| crate::explain::decimal(*x, 1))
            .y_label_formatter(&|y| crate::explain::decimal(*y, 1))
            .light_line_style(RGBColor(240, 240, 240))
            .bold_line_style(RGBColor(215, 215, 215))
            .label_style((FONT, 12))
            .axis_desc_style((FONT, 13))
            .draw()
            .map_err(err)?;
        let feasible = |s: &&&Summary| picture.objective.feasible(s);
        chart
            .draw_series(
                summaries
                    .iter()
                    .filter(|s| !feasible(s))
                    .map(|s| Circle::new(xy(s), 3, INFEASIBLE.filled())),
            )
            .map_err(err)?
            .label("setting breaking a constraint")
            .legend(|(x, y)| Circle::new((x, y), 3, INFEASIBLE.filled()));
        chart
            .draw_series(
                summaries
                    .iter()
                    .filter(feasible)
                    .map(|s| Circle::new(xy(s), 3, FEASIBLE.mix(0.6).filled())),
            )
            .map_err(err)?
            .label("setting meeting the constraints")
            .legend(|(x, y)| Circle::new((x, y), 3, FEASIBLE.mix(0.6).filled()));
        let front: Vec<(f64, f64)> = picture
            .front
            .iter()
            .filter_map(|&i| picture.tried.summaries.get(i))
            .map(xy)
            .collect();
        chart
            .draw_series(LineSeries::new(
                front.iter().copied(),
                BLACK.mix(0.5).stroke_width(1),
            ))
            .map_err(err)?;
        chart
            .draw_series(
                front
                    .iter()
                    .map(|p| Circle::new(*p, 4, BLACK.stroke_width(1))),
            )
            .map_err(err)?
            .label("Pareto front (also in under-provisioning and reversals)")
            .legend(|(x, y)| Circle::new((x, y), 4, BLACK.stroke_width(1)));
        chart
            .draw_series(DashedLineSeries::new(
                [(x0, limit), (x1, limit)],
                6,
                4,
                INPUT.mix(0.7).stroke_width(1),
            ))
            .map_err(err)?
            .label(format!(
                "--max-above {} %",
                crate::explain::decimal(limit, 3)
            ))
            .legend(|(x, y)| {
                PathElement::new(vec![(x, y), (x.saturating_add(16), y)], INPUT.mix(0.7))
            });
        // Plotters composes elements with `+`.
        #[allow(clippy::arithmetic_side_effects)]
        let marker = |at: (f64, f64), color: RGBColor, name: &str| {
            EmptyElement::at(at)
                + Cross::new((0, 0), 7, color.stroke_width(3))
                + Text::new(
                    name.to_owned(),
                    (10, -16),
                    (FONT, 14).into_font().color(&color),
                )
        };
        chart
            .draw_series(std::iter::once(marker(
                xy(picture.input),
                INPUT,
                "input manifest",
            )))
            .map_err(err)?
            .label("the input manifest")
            .legend(|(x, y)| Cross::new((x, y), 5, INPUT.stroke_width(3)));
        if let Some(chosen) = picture.tried.summaries.get(picture.chosen) {
            chart
                .draw_series(std::iter::once(marker(xy(chosen), CHOSEN, "chosen")))
                .map_err(err)?
                .label("the chosen setting")
                .legend(|(x, y)| Cross::new((x, y), 5, CHOSEN.stroke_width(3)));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.9))
            .border_style(RGBColor(200, 200, 200))
            .label_font((FONT, 12))
            .draw()
            .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}
