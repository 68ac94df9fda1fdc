//! Figures for `locus repro`: grouped bar charts, stacked bar charts and line
//! charts, each written as `<stem>.png` and `<stem>.svg`.
//!
//! The charts are drawn with `plotters`. Non-finite values (NaN, ±∞) are
//! skipped, missing values (a series shorter than the category list) are
//! skipped, and empty inputs give an empty chart with axes, so no input makes
//! these functions panic.

use std::ops::Range;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Font family used for all text (resolved through the system's fonts).
const FONT: &str = "sans-serif";
/// Title font size in pixels.
const TITLE_SIZE: f64 = 22.0;
/// Axis-description font size in pixels.
const DESC_SIZE: f64 = 16.0;
/// Tick-label and legend font size in pixels.
const LABEL_SIZE: f64 = 14.0;
/// Longest category label drawn in full; longer ones are shortened with "…".
const MAX_LABEL_CHARS: usize = 28;
/// Width of the y-axis label area in pixels.
const Y_LABEL_AREA: u32 = 80;
/// Margin around the chart in pixels.
const MARGIN: u32 = 12;
/// Height of the plotting area (without title, legend and x labels) in pixels.
const PLOT_HEIGHT: u32 = 440;
/// Height of one legend row in pixels.
const LEGEND_ROW: u32 = 22;

/// Distinct series colours (Tableau 10); later series get generated hues.
const PALETTE: [RGBColor; 10] = [
    RGBColor(0x4E, 0x79, 0xA7),
    RGBColor(0xF2, 0x8E, 0x2B),
    RGBColor(0xE1, 0x57, 0x59),
    RGBColor(0x76, 0xB7, 0xB2),
    RGBColor(0x59, 0xA1, 0x4F),
    RGBColor(0xED, 0xC9, 0x48),
    RGBColor(0xB0, 0x7A, 0xA1),
    RGBColor(0xFF, 0x9D, 0xA7),
    RGBColor(0x9C, 0x75, 0x5F),
    RGBColor(0xBA, 0xB0, 0xAC),
];

/// A grouped bar chart: one group per category (x labels, e.g. benchmark
/// names), one bar per series in each group (e.g. "CGP-Only", "FTA", "CODA"),
/// and an optional horizontal reference line (e.g. y = 1.0 for speedups).
///
/// `series[i].1[c]` is the height of series `i`'s bar in category `c`; NaN or
/// infinite values and values past the end of a series are not drawn. Writes
/// `<stem>.png` and `<stem>.svg`, creating the parent folder if needed.
pub fn grouped_bars(
    stem: &Path,
    title: &str,
    y_label: &str,
    categories: &[String],
    series: &[(String, Vec<f64>)],
    reference: Option<f64>,
) -> anyhow::Result<()> {
    let values = series.iter().flat_map(|(_, v)| v.iter().take(categories.len()).copied());
    let y_range = y_range(values.chain(reference));
    let names: Vec<&str> = series.iter().map(|(n, _)| n.as_str()).collect();
    let bars_per_group = series.len().max(1);
    let spec = Spec {
        title,
        x_label: "",
        y_label,
        legend: &names,
        legend_kind: LegendKind::Bar,
        categories: Some(categories),
        slot_px: (16 * bars_per_group as u32 + 14).max(40),
        y_range,
    };
    render(stem, &spec, |chart, _| {
        let group_width = 0.8;
        let bar_width = group_width / bars_per_group as f64;
        for (i, (_, values)) in series.iter().enumerate() {
            let color = color(i);
            let bars = values
                .iter()
                .take(categories.len())
                .enumerate()
                .filter(|(_, v)| v.is_finite())
                .map(|(c, &v)| {
                    let x0 = c as f64 + (1.0 - group_width) / 2.0 + i as f64 * bar_width;
                    bar(x0, x0 + bar_width, 0.0, v, color)
                });
            chart.draw_series(bars.flatten())?;
        }
        if let Some(r) = reference.filter(|r| r.is_finite()) {
            let x_end = categories.len().max(1) as f64;
            chart.draw_series(DashedLineSeries::new(
                [(0.0, r), (x_end, r)],
                8,
                5,
                BLACK.mix(0.8).stroke_width(2),
            ))?;
        }
        Ok(())
    })
}

/// A line chart with points: shared x values, one line per series (e.g.
/// speedup against remote bandwidth 64/128/256).
///
/// `series[i].1[j]` is series `i`'s value at `xs[j]`; points whose x or y is
/// not finite are skipped and break the line. When there are at most twelve
/// distinct x values, the x ticks are exactly those values. Writes
/// `<stem>.png` and `<stem>.svg`, creating the parent folder if needed.
pub fn lines(
    stem: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    xs: &[f64],
    series: &[(String, Vec<f64>)],
) -> anyhow::Result<()> {
    let values = series.iter().flat_map(|(_, v)| {
        v.iter()
            .zip(xs)
            .filter(|(_, x)| x.is_finite())
            .map(|(y, _)| *y)
    });
    let y_range = y_range(values);
    let names: Vec<&str> = series.iter().map(|(n, _)| n.as_str()).collect();
    let spec = Spec {
        title,
        x_label,
        y_label,
        legend: &names,
        legend_kind: LegendKind::Line,
        categories: None,
        slot_px: 0,
        y_range,
    };
    let x_axis = ValueAxis::new(xs);
    render_lines(stem, &spec, x_axis, |chart| {
        for (i, (_, ys)) in series.iter().enumerate() {
            let color = color(i);
            let mut runs: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
            for (&x, &y) in xs.iter().zip(ys) {
                if x.is_finite() && y.is_finite() {
                    runs.last_mut().expect("runs is never empty").push((x, y));
                } else if runs.last().is_some_and(|r| !r.is_empty()) {
                    runs.push(Vec::new());
                }
            }
            for run in runs.iter().filter(|r| !r.is_empty()) {
                chart.draw_series(LineSeries::new(run.iter().copied(), color.stroke_width(2)))?;
                draw_markers(chart, i, run, color)?;
            }
        }
        Ok(())
    })
}

/// Stacked bars (e.g. local against remote accesses per benchmark,
/// normalised): categories on x, each stack built from `parts` in order,
/// bottom first.
///
/// `parts[i].1[c]` is the size of part `i` in category `c`; NaN, infinite and
/// negative values and values past the end of a part are not drawn. Writes
/// `<stem>.png` and `<stem>.svg`, creating the parent folder if needed.
pub fn stacked_bars(
    stem: &Path,
    title: &str,
    y_label: &str,
    categories: &[String],
    parts: &[(String, Vec<f64>)],
) -> anyhow::Result<()> {
    let usable = |v: f64| v.is_finite() && v >= 0.0;
    let totals: Vec<f64> = (0..categories.len())
        .map(|c| {
            parts
                .iter()
                .filter_map(|(_, v)| v.get(c).copied())
                .filter(|&v| usable(v))
                .sum()
        })
        .collect();
    let y_range = y_range(totals.iter().copied());
    let names: Vec<&str> = parts.iter().map(|(n, _)| n.as_str()).collect();
    let spec = Spec {
        title,
        x_label: "",
        y_label,
        legend: &names,
        legend_kind: LegendKind::Bar,
        categories: Some(categories),
        slot_px: 40,
        y_range,
    };
    render(stem, &spec, |chart, _| {
        let mut base = vec![0.0; categories.len()];
        for (i, (_, values)) in parts.iter().enumerate() {
            let color = color(i);
            let mut rects = Vec::new();
            for (c, &v) in values.iter().take(categories.len()).enumerate() {
                if usable(v) && v > 0.0 {
                    rects.extend(bar(c as f64 + 0.15, c as f64 + 0.85, base[c], base[c] + v, color));
                    base[c] += v;
                }
            }
            chart.draw_series(rects)?;
        }
        Ok(())
    })
}

/// What a chart needs besides its data-drawing closure.
struct Spec<'a> {
    title: &'a str,
    x_label: &'a str,
    y_label: &'a str,
    legend: &'a [&'a str],
    legend_kind: LegendKind,
    /// Category labels for a categorical x axis; `None` for a numeric one.
    categories: Option<&'a [String]>,
    /// Pixels wanted per category (categorical charts only).
    slot_px: u32,
    y_range: Range<f64>,
}

/// How the legend's swatches look.
#[derive(Clone, Copy)]
enum LegendKind {
    Bar,
    Line,
}

/// Pixel layout decided before any backend exists, so PNG and SVG match.
struct Layout {
    width: u32,
    height: u32,
    legend_rows: Vec<Vec<(usize, u32)>>,
    x_label_area: u32,
    rotate_labels: bool,
    labels: Vec<String>,
}

/// A bar from `x0` to `x1` between `y0` and `y1`, filled with an outline.
fn bar(x0: f64, x1: f64, y0: f64, y1: f64, color: RGBColor) -> [Rectangle<(f64, f64)>; 2] {
    [
        Rectangle::new([(x0, y0), (x1, y1)], color.filled()),
        Rectangle::new([(x0, y0), (x1, y1)], BLACK.mix(0.6).stroke_width(1)),
    ]
}

/// Colour of series `i`.
fn color(i: usize) -> RGBColor {
    if let Some(&c) = PALETTE.get(i) {
        return c;
    }
    // Golden-ratio hue steps keep generated colours apart.
    let hue = (i as f64 * 0.618_033_988_75).fract();
    let (r, g, b) = HSLColor(hue, 0.65, 0.45).rgb();
    RGBColor(r, g, b)
}

/// The y range: from 0 (or 1.1 × the minimum if negative) to 1.1 × the
/// maximum of the finite values, or 0..1 when there are none.
fn y_range(values: impl Iterator<Item = f64>) -> Range<f64> {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((0.0_f64, 0.0_f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let (lo, hi) = (lo * 1.1, hi * 1.1);
    if hi - lo > f64::EPSILON * hi.abs().max(1.0) {
        lo..hi
    } else {
        lo..lo + 1.0
    }
}

/// Formats an axis value without trailing zeros ("64", "0.25", "1.1").
fn fmt_num(v: f64) -> String {
    if !v.is_finite() {
        return String::new();
    }
    if v != 0.0 && (v.abs() >= 1e7 || v.abs() < 1e-3) {
        return format!("{v:.2e}");
    }
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

/// Shortens a category label to at most [`MAX_LABEL_CHARS`] characters.
fn short_label(s: &str) -> String {
    if s.chars().count() <= MAX_LABEL_CHARS {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(MAX_LABEL_CHARS - 1).collect();
        t.push('…');
        t
    }
}

/// Width and height of `text` in the given font size.
fn text_size(text: &str, size: f64) -> anyhow::Result<(u32, u32)> {
    if text.is_empty() {
        return Ok((0, 0));
    }
    (FONT, size)
        .into_font()
        .box_size(text)
        .map_err(|e| anyhow::anyhow!("cannot measure text {text:?} (is a font installed?): {e:?}"))
}

/// Decides the picture size, legend rows and x-label placement.
fn layout(spec: &Spec) -> anyhow::Result<Layout> {
    let labels: Vec<String> = spec
        .categories
        .unwrap_or(&[])
        .iter()
        .map(|s| short_label(s))
        .collect();
    let plot_width = match spec.categories {
        Some(c) => (c.len() as u32 * spec.slot_px).clamp(640, 2200),
        None => 720,
    };
    let width = plot_width + Y_LABEL_AREA + 2 * MARGIN + 10;

    let (x_label_area, rotate_labels) = if spec.categories.is_some() {
        let mut widest = 0;
        let mut tallest = 0;
        for l in &labels {
            let (w, h) = text_size(l, LABEL_SIZE)?;
            widest = widest.max(w);
            tallest = tallest.max(h);
        }
        let slot = plot_width / labels.len().max(1) as u32;
        if widest + 6 > slot {
            (widest + 16, true)
        } else {
            (tallest + 16, false)
        }
    } else {
        let (_, h) = text_size("0123456789", LABEL_SIZE)?;
        let (_, dh) = text_size(spec.x_label, DESC_SIZE)?;
        (h + dh + 24, false)
    };

    // Legend items flow left to right, wrapping to new rows.
    let mut legend_rows: Vec<Vec<(usize, u32)>> = Vec::new();
    let mut row_width = u32::MAX;
    let avail = width - 2 * MARGIN - Y_LABEL_AREA;
    for (i, name) in spec.legend.iter().enumerate() {
        let item = 30 + text_size(name, LABEL_SIZE)?.0 + 18;
        if row_width.saturating_add(item) > avail {
            legend_rows.push(Vec::new());
            row_width = 0;
        }
        if let Some(row) = legend_rows.last_mut() {
            row.push((i, item));
        }
        row_width += item;
    }

    let title_h = text_size(spec.title, TITLE_SIZE)?.1 + 16;
    let legend_h = legend_rows.len() as u32 * LEGEND_ROW + 6;
    let height = title_h + legend_h + PLOT_HEIGHT + x_label_area + 2 * MARGIN;
    Ok(Layout {
        width,
        height,
        legend_rows,
        x_label_area,
        rotate_labels,
        labels,
    })
}

/// `<stem>.<ext>`, keeping any dots already in the stem.
fn with_ext(stem: &Path, ext: &str) -> PathBuf {
    let mut s = stem.as_os_str().to_owned();
    s.push(".");
    s.push(ext);
    PathBuf::from(s)
}

/// Creates the parent folder of `stem` when it has one.
fn prepare(stem: &Path) -> anyhow::Result<()> {
    if let Some(dir) = stem.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create folder {}", dir.display()))?;
    }
    Ok(())
}

/// A chart over a categorical x axis (`0..n`, category `c` spans `c..c+1`).
type CatChart<'a, 'b, DB> = ChartContext<'a, DB, Cartesian2d<CategoryAxis, RangedCoordf64>>;

/// Draws a categorical chart into PNG and SVG; `draw` adds the data.
fn render<F>(stem: &Path, spec: &Spec, draw: F) -> anyhow::Result<()>
where
    F: Fn(&mut CatChart<'_, '_, BitMapBackend<'_>>, ()) -> DrawResult
        + Fn(&mut CatChart<'_, '_, SVGBackend<'_>>, ()) -> DrawResult,
{
    prepare(stem)?;
    let lay = layout(spec)?;
    let png = with_ext(stem, "png");
    let svg = with_ext(stem, "svg");
    {
        let root = BitMapBackend::new(&png, (lay.width, lay.height)).into_drawing_area();
        draw_categorical(&root, spec, &lay, &draw)
            .with_context(|| format!("cannot draw {}", png.display()))?;
    }
    {
        let root = SVGBackend::new(&svg, (lay.width, lay.height)).into_drawing_area();
        draw_categorical(&root, spec, &lay, &draw)
            .with_context(|| format!("cannot draw {}", svg.display()))?;
    }
    Ok(())
}

/// Result of the data-drawing closures: any plotting error, boxed.
type DrawResult = Result<(), Box<dyn std::error::Error + Send + Sync>>;

/// Converts a boxed drawing error to `anyhow`.
fn boxed(e: Box<dyn std::error::Error + Send + Sync>) -> anyhow::Error {
    anyhow::anyhow!("{e}")
}

/// Converts a plotters drawing error to `anyhow`.
fn plot_err<E: std::fmt::Display>(e: E) -> anyhow::Error {
    anyhow::anyhow!("{e}")
}

/// Title, legend and the remaining area for the chart itself.
fn frame<'r, DB: DrawingBackend>(
    root: &'r DrawingArea<DB, Shift>,
    spec: &Spec,
    lay: &Layout,
) -> anyhow::Result<DrawingArea<DB, Shift>> {
    root.fill(&WHITE).map_err(plot_err)?;
    let area = root.margin(MARGIN, MARGIN, MARGIN, MARGIN);
    let body = area
        .titled(spec.title, (FONT, TITLE_SIZE).into_font().color(&BLACK))
        .map_err(plot_err)?;
    let legend_h = lay.legend_rows.len() as u32 * LEGEND_ROW + 6;
    let (legend, chart_area) = body.split_vertically(legend_h);
    let legend_style = TextStyle::from((FONT, LABEL_SIZE).into_font())
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    for (r, row) in lay.legend_rows.iter().enumerate() {
        let total: u32 = row.iter().map(|(_, w)| w).sum();
        let mut x = Y_LABEL_AREA as i32 + (legend.dim_in_pixel().0.saturating_sub(Y_LABEL_AREA + total) / 2) as i32;
        let y = (r as u32 * LEGEND_ROW + LEGEND_ROW / 2) as i32;
        for &(i, w) in row {
            let c = color(i);
            match spec.legend_kind {
                LegendKind::Bar => {
                    legend
                        .draw(&Rectangle::new([(x + 4, y - 7), (x + 22, y + 7)], c.filled()))
                        .map_err(plot_err)?;
                    legend
                        .draw(&Rectangle::new(
                            [(x + 4, y - 7), (x + 22, y + 7)],
                            BLACK.mix(0.6).stroke_width(1),
                        ))
                        .map_err(plot_err)?;
                }
                LegendKind::Line => {
                    legend
                        .draw(&PathElement::new(vec![(x, y), (x + 26, y)], c.stroke_width(2)))
                        .map_err(plot_err)?;
                    draw_marker_px(&legend, i, (x + 13, y), c)?;
                }
            }
            legend
                .draw_text(spec.legend[i], &legend_style, (x + 30, y))
                .map_err(plot_err)?;
            x += w as i32;
        }
    }
    Ok(chart_area)
}

/// Draws a categorical chart (bars) on one backend.
fn draw_categorical<DB: DrawingBackend, F>(
    root: &DrawingArea<DB, Shift>,
    spec: &Spec,
    lay: &Layout,
    draw: &F,
) -> anyhow::Result<()>
where
    F: Fn(&mut CatChart<'_, '_, DB>, ()) -> DrawResult,
{
    let chart_area = frame(root, spec, lay)?;
    let n = lay.labels.len();
    let mut chart = ChartBuilder::on(&chart_area)
        .margin_right(10)
        .x_label_area_size(lay.x_label_area)
        .y_label_area_size(Y_LABEL_AREA)
        .build_cartesian_2d(CategoryAxis { n }, spec.y_range.clone())
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(BLACK.mix(0.05))
        .bold_line_style(BLACK.mix(0.15))
        .y_desc(spec.y_label)
        .axis_desc_style((FONT, DESC_SIZE))
        .label_style((FONT, LABEL_SIZE))
        .y_label_formatter(&|v| fmt_num(*v))
        .x_label_formatter(&|_| String::new())
        .draw()
        .map_err(plot_err)?;

    // Category labels, centred under their groups; rotated when crowded.
    let style = TextStyle::from((FONT, LABEL_SIZE).into_font()).color(&BLACK);
    let style = if lay.rotate_labels {
        style
            .transform(FontTransform::Rotate270)
            .pos(Pos::new(HPos::Right, VPos::Center))
    } else {
        style.pos(Pos::new(HPos::Center, VPos::Top))
    };
    let y0 = spec.y_range.start;
    for (c, label) in lay.labels.iter().enumerate() {
        let (px, py) = chart.backend_coord(&(c as f64 + 0.5, y0));
        root.draw_text(label, &style, (px, py + 8)).map_err(plot_err)?;
        let tick = PathElement::new(vec![(px, py), (px, py + 4)], BLACK);
        root.draw(&tick).map_err(plot_err)?;
    }

    draw(&mut chart, ()).map_err(boxed)?;
    root.present().map_err(plot_err)?;
    Ok(())
}

/// A chart over a numeric x axis.
type NumChart<'a, 'b, DB> = ChartContext<'a, DB, Cartesian2d<ValueAxis, RangedCoordf64>>;

/// Draws a numeric-x chart (lines) into PNG and SVG; `draw` adds the data.
fn render_lines<F>(stem: &Path, spec: &Spec, x_axis: ValueAxis, draw: F) -> anyhow::Result<()>
where
    F: Fn(&mut NumChart<'_, '_, BitMapBackend<'_>>) -> DrawResult
        + Fn(&mut NumChart<'_, '_, SVGBackend<'_>>) -> DrawResult,
{
    prepare(stem)?;
    let lay = layout(spec)?;
    let png = with_ext(stem, "png");
    let svg = with_ext(stem, "svg");
    {
        let root = BitMapBackend::new(&png, (lay.width, lay.height)).into_drawing_area();
        draw_numeric(&root, spec, &lay, x_axis.clone(), &draw)
            .with_context(|| format!("cannot draw {}", png.display()))?;
    }
    {
        let root = SVGBackend::new(&svg, (lay.width, lay.height)).into_drawing_area();
        draw_numeric(&root, spec, &lay, x_axis, &draw)
            .with_context(|| format!("cannot draw {}", svg.display()))?;
    }
    Ok(())
}

/// Draws a numeric-x chart on one backend.
fn draw_numeric<DB: DrawingBackend, F>(
    root: &DrawingArea<DB, Shift>,
    spec: &Spec,
    lay: &Layout,
    x_axis: ValueAxis,
    draw: &F,
) -> anyhow::Result<()>
where
    F: Fn(&mut NumChart<'_, '_, DB>) -> DrawResult,
{
    let chart_area = frame(root, spec, lay)?;
    let mut chart = ChartBuilder::on(&chart_area)
        .margin_right(20)
        .x_label_area_size(lay.x_label_area)
        .y_label_area_size(Y_LABEL_AREA)
        .build_cartesian_2d(x_axis, spec.y_range.clone())
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .light_line_style(BLACK.mix(0.05))
        .bold_line_style(BLACK.mix(0.15))
        .x_desc(spec.x_label)
        .y_desc(spec.y_label)
        .axis_desc_style((FONT, DESC_SIZE))
        .label_style((FONT, LABEL_SIZE))
        .x_label_formatter(&|v| fmt_num(*v))
        .y_label_formatter(&|v| fmt_num(*v))
        .draw()
        .map_err(plot_err)?;
    draw(&mut chart).map_err(boxed)?;
    root.present().map_err(plot_err)?;
    Ok(())
}

/// Draws series `i`'s markers at the data points of `run`.
fn draw_markers<DB: DrawingBackend>(
    chart: &mut NumChart<'_, '_, DB>,
    i: usize,
    run: &[(f64, f64)],
    c: RGBColor,
) -> DrawResult {
    let area = chart.plotting_area();
    for &p in run {
        let px = area.map_coordinate(&p);
        let (ox, oy) = area.get_base_pixel();
        draw_marker_px(area.strip_coord_spec().borrow_root(), i, (px.0 - ox, px.1 - oy), c)
            .map_err(|e| -> Box<dyn std::error::Error + Send + Sync> { e.into() })?;
        let _ = (ox, oy);
    }
    Ok(())
}

/// Draws series `i`'s marker (circle, square or triangle) at pixel `p` of `area`.
fn draw_marker_px<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    i: usize,
    p: (i32, i32),
    c: RGBColor,
) -> anyhow::Result<()> {
    let (x, y) = p;
    match i % 3 {
        0 => area.draw(&Circle::new(p, 5, c.filled())),
        1 => area.draw(&Rectangle::new([(x - 4, y - 4), (x + 4, y + 4)], c.filled())),
        _ => area.draw(&Polygon::new(vec![(x, y - 6), (x - 5, y + 4), (x + 5, y + 4)], c.filled())),
    }
    .map_err(plot_err)
}

/// Categorical x axis: `0..n` with no key points (labels are drawn by hand).
#[derive(Clone)]
struct CategoryAxis {
    n: usize,
}

impl Ranged for CategoryAxis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        linear(*value, 0.0, self.n.max(1) as f64, limit)
    }

    fn key_points<Hint: KeyPointHint>(&self, _hint: Hint) -> Vec<f64> {
        Vec::new()
    }

    fn range(&self) -> Range<f64> {
        0.0..self.n.max(1) as f64
    }
}

/// Numeric x axis; ticks at the data's x values when there are few of them.
#[derive(Clone)]
struct ValueAxis {
    lo: f64,
    hi: f64,
    ticks: Option<Vec<f64>>,
}

impl ValueAxis {
    /// An axis covering the finite values of `xs` with 5 % padding each side.
    fn new(xs: &[f64]) -> Self {
        let mut finite: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
        finite.sort_by(f64::total_cmp);
        finite.dedup();
        let (lo, hi) = match (finite.first(), finite.last()) {
            (Some(&a), Some(&b)) if b > a => {
                let pad = (b - a) * 0.05;
                (a - pad, b + pad)
            }
            (Some(&a), _) => (a - 1.0, a + 1.0),
            _ => (0.0, 1.0),
        };
        let ticks = (!finite.is_empty() && finite.len() <= 12).then_some(finite);
        ValueAxis { lo, hi, ticks }
    }
}

impl Ranged for ValueAxis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        linear(*value, self.lo, self.hi, limit)
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        match &self.ticks {
            Some(t) => t.clone(),
            None => RangedCoordf64::from(self.lo..self.hi).key_points(hint),
        }
    }

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }
}

/// Maps `v` from `lo..hi` linearly onto the pixel interval `limit`.
fn linear(v: f64, lo: f64, hi: f64, limit: (i32, i32)) -> i32 {
    let span = hi - lo;
    let t = if span > 0.0 { (v - lo) / span } else { 0.0 };
    let px = limit.0 as f64 + t * (limit.1 - limit.0) as f64;
    px.round().clamp(i32::MIN as f64, i32::MAX as f64) as i32
}
