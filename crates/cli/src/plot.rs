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
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Font family used for all text: the name [`register_fonts`] gives the embedded font.
const FONT: &str = "sans-serif";
/// DejaVu Sans (Bitstream Vera licence, `crates/cli/assets/DejaVuSans.LICENSE`), embedded so
/// that figures need no system font library (plotters' `ab_glyph` path: no fontconfig,
/// no freetype, nothing but the Rust toolchain to build).
static FONT_TTF: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");

/// Registers the embedded font under [`FONT`] with plotters, once per process.
///
/// Called at start-up by `main` and before every drawing (so tests that draw need no setup).
/// Returns whether the font is registered; `false` only if the embedded file were corrupt,
/// which the `embedded_font_registers` test rules out.
pub fn register_fonts() -> bool {
    static REGISTERED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *REGISTERED
        .get_or_init(|| plotters::style::register_font(FONT, FontStyle::Normal, FONT_TTF).is_ok())
}
/// Title font size in pixels.
const TITLE_SIZE: f64 = 22.0;
/// Axis-description font size in pixels.
const DESC_SIZE: f64 = 16.0;
/// Tick-label and legend font size in pixels.
const LABEL_SIZE: f64 = 14.0;
/// Longest category label drawn in full; longer ones are shortened with "…".
const MAX_LABEL_CHARS: usize = 28;
/// Width of the y-axis label area in pixels.
const Y_LABEL_AREA: u32 = 70;
/// Margin around the chart in pixels.
const MARGIN: u32 = 12;
/// Height of the plotting area (without title, legend and x labels) in pixels.
const PLOT_HEIGHT: u32 = 440;
/// Height of one legend row in pixels.
const LEGEND_ROW: u32 = 22;

/// Largest magnitude an axis reaches: plotters' tick search hangs on spans
/// that overflow to infinity, so absurd values are cut off here.
const AXIS_LIMIT: f64 = 1e300;

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
    bars(
        stem,
        title,
        y_label,
        categories,
        series,
        reference,
        false,
        &[],
    )
}

/// [`grouped_bars`] with the paper's values marked: each `(category, series, value)` of
/// `marks` is drawn as a black diamond over that bar's centre, so a reproduction's figure
/// shows its number and the paper's together (issue 9: "a marker for the paper's value").
/// Marks whose value is not finite are not drawn; the y axis includes the others.
pub fn grouped_bars_marked(
    stem: &Path,
    title: &str,
    y_label: &str,
    categories: &[String],
    series: &[(String, Vec<f64>)],
    reference: Option<f64>,
    marks: &[(usize, usize, f64)],
) -> anyhow::Result<()> {
    bars(
        stem, title, y_label, categories, series, reference, false, marks,
    )
}

/// Grouped bars of `series` (already on the axis's scale: log2 values when `log2`).
#[allow(clippy::too_many_arguments)]
fn bars(
    stem: &Path,
    title: &str,
    y_label: &str,
    categories: &[String],
    series: &[(String, Vec<f64>)],
    reference: Option<f64>,
    log2: bool,
    marks: &[(usize, usize, f64)],
) -> anyhow::Result<()> {
    let values = series
        .iter()
        .flat_map(|(_, v)| v.iter().take(categories.len()).copied());
    let reference = reference.filter(|r| r.is_finite());
    let marks: Vec<(usize, usize, f64)> = marks
        .iter()
        .copied()
        .filter(|m| m.2.is_finite() && m.0 < categories.len() && m.1 < series.len())
        .collect();
    let y_range = y_range(values.chain(reference).chain(marks.iter().map(|m| m.2)));
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
        log2,
    };
    let group_width = 0.8;
    let bar_width = group_width / bars_per_group as f64;
    let mut shapes = Vec::new();
    for (i, (_, values)) in series.iter().enumerate() {
        for (c, &v) in values.iter().take(categories.len()).enumerate() {
            if v.is_finite() {
                let x0 = c as f64 + (1.0 - group_width) / 2.0 + i as f64 * bar_width;
                shapes.push(Shape::Bar {
                    x: x0..x0 + bar_width,
                    y: 0.0..v,
                    color: color(i),
                });
            }
        }
    }
    if let Some(y) = reference {
        shapes.push(Shape::Reference { y });
    }
    for &(c, i, y) in &marks {
        let x = c as f64 + (1.0 - group_width) / 2.0 + (i as f64 + 0.5) * bar_width;
        shapes.push(Shape::Mark { x, y });
    }
    render(stem, &spec, None, &shapes)
}

/// [`grouped_bars`] on a logarithmic y axis (base 2): a bar rises from 1 to its value, so a
/// 0.5x and a 2x bar have the same length and a 12x bar does not flatten the rest. Values
/// that are not positive are not drawn; the reference line must be positive to be drawn.
pub fn grouped_bars_log(
    stem: &Path,
    title: &str,
    y_label: &str,
    categories: &[String],
    series: &[(String, Vec<f64>)],
    reference: Option<f64>,
) -> anyhow::Result<()> {
    let lg = |v: f64| if v > 0.0 { v.log2() } else { f64::NAN };
    let logged: Vec<(String, Vec<f64>)> = series
        .iter()
        .map(|(n, v)| (n.clone(), v.iter().map(|&x| lg(x)).collect()))
        .collect();
    let reference = reference.map(lg);
    bars(
        stem,
        title,
        y_label,
        categories,
        &logged,
        reference,
        true,
        &[],
    )
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
        log2: false,
    };
    let mut shapes = Vec::new();
    for (i, (_, ys)) in series.iter().enumerate() {
        let mut run = Vec::new();
        for (&x, &y) in xs.iter().zip(ys) {
            if x.is_finite() && y.is_finite() {
                run.push((x, y));
            } else if !run.is_empty() {
                shapes.push(Shape::Line {
                    points: std::mem::take(&mut run),
                    series: i,
                });
            }
        }
        if !run.is_empty() {
            shapes.push(Shape::Line {
                points: run,
                series: i,
            });
        }
    }
    render(stem, &spec, Some(ValueAxis::new(xs)), &shapes)
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
        log2: false,
    };
    let mut base = vec![0.0; categories.len()];
    let mut shapes = Vec::new();
    for (i, (_, values)) in parts.iter().enumerate() {
        for (c, &v) in values.iter().take(categories.len()).enumerate() {
            if usable(v) && v > 0.0 {
                shapes.push(Shape::Bar {
                    x: c as f64 + 0.15..c as f64 + 0.85,
                    y: base[c]..base[c] + v,
                    color: color(i),
                });
                base[c] += v;
            }
        }
    }
    render(stem, &spec, None, &shapes)
}

/// One thing drawn in data coordinates.
enum Shape {
    /// A filled, outlined bar.
    Bar {
        x: Range<f64>,
        y: Range<f64>,
        color: RGBColor,
    },
    /// A dashed horizontal reference line across the whole x range.
    Reference { y: f64 },
    /// A black diamond at a data point: the paper's value.
    Mark { x: f64, y: f64 },
    /// A polyline with markers for series `series`.
    Line {
        points: Vec<(f64, f64)>,
        series: usize,
    },
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
    /// The y values are log2 of the data: ticks are labelled with `2^y` (a log axis).
    log2: bool,
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
    let (lo, hi) = ((lo * 1.1).max(-AXIS_LIMIT), (hi * 1.1).min(AXIS_LIMIT));
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
    register_fonts();
    (FONT, size)
        .into_font()
        .box_size(text)
        .map_err(|e| anyhow::anyhow!("cannot measure text {text:?} {e:?}"))
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
        Some(c) => (c.len().min(10_000) as u32 * spec.slot_px).clamp(640, 2200),
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
        let slot = plot_width / labels.len().clamp(1, 1 << 20) as u32;
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

/// Draws the chart into `<stem>.png` and `<stem>.svg`. `x_axis` is `None`
/// for a categorical x axis (category `c` spans `c..c+1`).
fn render(
    stem: &Path,
    spec: &Spec,
    x_axis: Option<ValueAxis>,
    shapes: &[Shape],
) -> anyhow::Result<()> {
    prepare(stem)?;
    anyhow::ensure!(
        register_fonts(),
        "the embedded figure font could not be loaded"
    );
    let lay = layout(spec)?;
    let x_axis = x_axis.unwrap_or_else(|| ValueAxis::categories(lay.labels.len()));
    let png = with_ext(stem, "png");
    let svg = with_ext(stem, "svg");
    {
        let root = BitMapBackend::new(&png, (lay.width, lay.height)).into_drawing_area();
        draw(&root, spec, &lay, &x_axis, shapes)
            .with_context(|| format!("cannot draw {}", png.display()))?;
    }
    {
        let root = SVGBackend::new(&svg, (lay.width, lay.height)).into_drawing_area();
        draw(&root, spec, &lay, &x_axis, shapes)
            .with_context(|| format!("cannot draw {}", svg.display()))?;
    }
    Ok(())
}

/// Converts a plotters drawing error to `anyhow`.
fn plot_err<E: std::fmt::Display>(e: E) -> anyhow::Error {
    anyhow::anyhow!("{e}")
}

/// Draws the whole chart on one backend.
fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &Spec,
    lay: &Layout,
    x_axis: &ValueAxis,
    shapes: &[Shape],
) -> anyhow::Result<()> {
    let chart_area = frame(root, spec, lay)?;
    let mut chart = ChartBuilder::on(&chart_area)
        .margin_right(20)
        .x_label_area_size(lay.x_label_area)
        .y_label_area_size(Y_LABEL_AREA)
        .build_cartesian_2d(x_axis.clone(), spec.y_range.clone())
        .map_err(plot_err)?;
    let y_fmt = |v: &f64| {
        if spec.log2 {
            fmt_num(2f64.powf(*v))
        } else {
            fmt_num(*v)
        }
    };
    let mut mesh = chart.configure_mesh();
    mesh.light_line_style(BLACK.mix(0.04))
        .x_max_light_lines(2)
        .y_max_light_lines(2)
        .bold_line_style(BLACK.mix(0.15))
        .y_desc(spec.y_label)
        .axis_desc_style((FONT, DESC_SIZE))
        .label_style((FONT, LABEL_SIZE))
        .x_label_formatter(&|v| fmt_num(*v))
        .y_label_formatter(&y_fmt);
    if spec.categories.is_some() {
        mesh.disable_x_mesh();
    } else {
        mesh.x_desc(spec.x_label);
    }
    mesh.draw().map_err(plot_err)?;

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
        root.draw_text(label, &style, (px, py + 8))
            .map_err(plot_err)?;
        let tick = PathElement::new(vec![(px, py), (px, py + 4)], BLACK);
        root.draw(&tick).map_err(plot_err)?;
    }

    // Every value is inside the axes except beyond AXIS_LIMIT: clamp those,
    // since plotters overflows on pixels far outside the picture.
    let (xr, yr) = (x_axis.range(), spec.y_range.clone());
    let cx = |x: f64| x.clamp(xr.start, xr.end);
    let cy = |y: f64| y.clamp(yr.start, yr.end);
    let outline = BLACK.mix(0.6).stroke_width(1);
    for shape in shapes {
        match shape {
            Shape::Bar { x, y, color } => {
                let corners = [(cx(x.start), cy(y.start)), (cx(x.end), cy(y.end))];
                chart
                    .draw_series([
                        Rectangle::new(corners, color.filled()),
                        Rectangle::new(corners, outline),
                    ])
                    .map_err(plot_err)?;
            }
            Shape::Reference { y } => {
                chart
                    .draw_series(DashedLineSeries::new(
                        [(xr.start, cy(*y)), (xr.end, cy(*y))],
                        8,
                        5,
                        BLACK.mix(0.8).stroke_width(2),
                    ))
                    .map_err(plot_err)?;
            }
            Shape::Mark { x, y } => {
                let (px, py) = chart.backend_coord(&(cx(*x), cy(*y)));
                root.draw(&Polygon::new(
                    vec![(px, py - 6), (px + 5, py), (px, py + 6), (px - 5, py)],
                    BLACK.filled(),
                ))
                .map_err(plot_err)?;
            }
            Shape::Line { points, series } => {
                let c = color(*series);
                let points: Vec<(f64, f64)> = points.iter().map(|&(x, y)| (cx(x), cy(y))).collect();
                chart
                    .draw_series(LineSeries::new(points.iter().copied(), c.stroke_width(2)))
                    .map_err(plot_err)?;
                for p in &points {
                    draw_marker(root, *series, chart.backend_coord(p), c)?;
                }
            }
        }
    }
    root.present().map_err(plot_err)?;
    Ok(())
}

/// Draws series `i`'s marker (circle, square or triangle) at pixel `p` of `area`.
fn draw_marker<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    i: usize,
    p: (i32, i32),
    c: RGBColor,
) -> anyhow::Result<()> {
    let (x, y) = p;
    match i % 3 {
        0 => area.draw(&Circle::new(p, 5, c.filled())),
        1 => area.draw(&Rectangle::new(
            [(x - 4, y - 4), (x + 4, y + 4)],
            c.filled(),
        )),
        _ => area.draw(&Polygon::new(
            vec![(x, y - 6), (x - 5, y + 4), (x + 5, y + 4)],
            c.filled(),
        )),
    }
    .map_err(plot_err)
}

/// Title, legend and the remaining area for the chart itself.
fn frame<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
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
        let mut x = Y_LABEL_AREA as i32
            + (legend.dim_in_pixel().0.saturating_sub(Y_LABEL_AREA + total) / 2) as i32;
        let y = (r as u32 * LEGEND_ROW + LEGEND_ROW / 2) as i32;
        for &(i, w) in row {
            let c = color(i);
            match spec.legend_kind {
                LegendKind::Bar => {
                    legend
                        .draw(&Rectangle::new(
                            [(x + 4, y - 7), (x + 22, y + 7)],
                            c.filled(),
                        ))
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
                        .draw(&PathElement::new(
                            vec![(x, y), (x + 26, y)],
                            c.stroke_width(2),
                        ))
                        .map_err(plot_err)?;
                    draw_marker(&legend, i, (x + 13, y), c)?;
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

/// Numeric x axis; ticks at the data's x values when there are few of them,
/// or none at all for a categorical axis.
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
                if pad.is_finite() {
                    (a - pad, b + pad)
                } else {
                    (a, b)
                }
            }
            (Some(&a), _) => (a - 1.0, a + 1.0),
            _ => (0.0, 1.0),
        };
        let (lo, hi) = (lo.max(-AXIS_LIMIT), hi.min(AXIS_LIMIT));
        let ticks = (!finite.is_empty() && finite.len() <= 12).then_some(finite);
        ValueAxis { lo, hi, ticks }
    }

    /// A categorical axis `0..n` without ticks (labels are drawn by hand).
    fn categories(n: usize) -> Self {
        ValueAxis {
            lo: 0.0,
            hi: n.max(1) as f64,
            ticks: Some(Vec::new()),
        }
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
            Some(t) => t
                .iter()
                .copied()
                .filter(|t| (self.lo..=self.hi).contains(t))
                .collect(),
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
    // Far outside any picture, yet safe from overflow in plotters' arithmetic.
    let bound = (1 << 24) as f64;
    if px.is_nan() {
        0
    } else {
        px.round().clamp(-bound, bound) as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder under the system temp folder for one test (removed by
    /// the test when it passes, kept for inspection when it fails).
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "locus-plot-{}-{}-{name}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Checks that both files exist, the PNG has the PNG signature and the
    /// SVG names the title.
    fn check(stem: &Path, title: &str) {
        let png = std::fs::read(with_ext(stem, "png")).unwrap();
        assert!(png.len() > 100, "PNG too small: {} bytes", png.len());
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let svg = std::fs::read_to_string(with_ext(stem, "svg")).unwrap();
        assert!(
            svg.starts_with("<svg"),
            "not an SVG: {}",
            &svg[..svg.len().min(80)]
        );
        assert!(svg.contains(title), "SVG lacks the title {title:?}");
    }

    /// The embedded font loads and measures text: a corrupt or missing font file, or a
    /// registration under another family name, fails here (box_size returns an error).
    #[test]
    fn embedded_font_registers() {
        assert!(register_fonts());
        let (w, h) = text_size("Speedup over 1 GPU", LABEL_SIZE).unwrap();
        let (w2, _) = text_size("Speedup over 1 GPU, twice as long", LABEL_SIZE).unwrap();
        assert!(w > 50 && h > 5, "implausible text box {w}x{h}");
        assert!(w2 > w, "a longer text must be wider");
    }

    fn benchmarks(n: usize) -> Vec<String> {
        let names = [
            "backprop",
            "bfs",
            "b+tree",
            "cfd",
            "gaussian",
            "hotspot",
            "kmeans",
            "lavaMD",
            "lud",
            "nn",
            "nw",
            "pathfinder",
            "srad_v2",
            "streamcluster",
            "myocyte",
            "heartwall",
            "particlefilter",
            "leukocyte",
            "hybridsort",
            "dwt2d",
        ];
        (0..n).map(|i| names[i % names.len()].to_string()).collect()
    }

    #[test]
    fn grouped_bars_twenty_benchmarks() {
        let dir = scratch("grouped");
        let stem = dir.join("speedup");
        let cats = benchmarks(20);
        let series: Vec<(String, Vec<f64>)> = ["CGP-Only", "FTA", "CODA"]
            .iter()
            .enumerate()
            .map(|(s, name)| {
                let v = (0..20)
                    .map(|c| 0.6 + 0.05 * c as f64 + 0.3 * s as f64)
                    .collect();
                (name.to_string(), v)
            })
            .collect();
        grouped_bars(
            &stem,
            "Speedup over baseline",
            "Speedup",
            &cats,
            &series,
            Some(1.0),
        )
        .unwrap();
        check(&stem, "Speedup over baseline");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The paper's marks are drawn (one black diamond each) and widen the y axis to reach
    /// them: a mark dropped, or one off the axis, fails here.
    #[test]
    fn grouped_bars_marked_draws_each_paper_value() {
        let dir = scratch("marked");
        let cats = benchmarks(3);
        let series = vec![("REC".to_string(), vec![1.1, 1.2, 1.3])];
        let count = |stem: &Path| {
            std::fs::read_to_string(with_ext(stem, "svg"))
                .unwrap()
                .matches("<polygon")
                .count()
        };
        let plain = dir.join("plain");
        grouped_bars_marked(&plain, "Marks", "Speedup", &cats, &series, None, &[]).unwrap();
        let marked = dir.join("marked");
        let marks = [(0, 0, 1.5), (2, 0, 9.0), (1, 0, f64::NAN), (7, 0, 1.0)];
        grouped_bars_marked(&marked, "Marks", "Speedup", &cats, &series, None, &marks).unwrap();
        check(&marked, "Marks");
        // two finite, in-range marks: two more polygons than without
        assert_eq!(count(&marked), count(&plain) + 2);
        let svg = std::fs::read_to_string(with_ext(&marked, "svg")).unwrap();
        // a tick label at 8 or above: without the mark the axis would end near 1.3
        assert!(
            svg.lines()
                .any(|l| l.trim().parse::<f64>().is_ok_and(|v| v >= 8.0)),
            "the y axis must reach the mark at 9"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn lines_bandwidth_sweep() {
        let dir = scratch("lines");
        let stem = dir.join("fig.bandwidth");
        let xs = [64.0, 128.0, 256.0];
        let series = vec![
            ("FTA".to_string(), vec![1.1, 1.3, 1.4]),
            ("CODA".to_string(), vec![1.4, 1.6, 1.7]),
            ("CGP-Only".to_string(), vec![0.9, 1.0, 1.05]),
        ];
        lines(
            &stem,
            "Speedup vs remote bandwidth",
            "Remote bandwidth (GB/s)",
            "Speedup",
            &xs,
            &series,
        )
        .unwrap();
        check(&stem, "Speedup vs remote bandwidth");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn stacked_bars_local_remote() {
        let dir = scratch("stacked");
        let stem = dir.join("nested/accesses");
        let cats = benchmarks(8);
        let local: Vec<f64> = (0..8).map(|i| 0.2 + 0.1 * i as f64).collect();
        let remote: Vec<f64> = local.iter().map(|l| 1.0 - l).collect();
        let parts = vec![("Local".to_string(), local), ("Remote".to_string(), remote)];
        stacked_bars(
            &stem,
            "Local and remote accesses",
            "Fraction",
            &cats,
            &parts,
        )
        .unwrap();
        check(&stem, "Local and remote accesses");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn empty_data_gives_empty_charts() {
        let dir = scratch("empty");
        let none: Vec<(String, Vec<f64>)> = Vec::new();
        grouped_bars(&dir.join("g"), "Empty bars", "y", &[], &none, None).unwrap();
        check(&dir.join("g"), "Empty bars");
        lines(&dir.join("l"), "Empty lines", "x", "y", &[], &none).unwrap();
        check(&dir.join("l"), "Empty lines");
        stacked_bars(&dir.join("s"), "Empty stacks", "y", &[], &none).unwrap();
        check(&dir.join("s"), "Empty stacks");
        // Named series without values.
        let hollow = vec![("A".to_string(), Vec::new()), ("B".to_string(), Vec::new())];
        let cats = benchmarks(3);
        grouped_bars(
            &dir.join("g2"),
            "Hollow bars",
            "y",
            &cats,
            &hollow,
            Some(1.0),
        )
        .unwrap();
        check(&dir.join("g2"), "Hollow bars");
        lines(
            &dir.join("l2"),
            "Hollow lines",
            "x",
            "y",
            &[1.0, 2.0],
            &hollow,
        )
        .unwrap();
        check(&dir.join("l2"), "Hollow lines");
        stacked_bars(&dir.join("s2"), "Hollow stacks", "y", &cats, &hollow).unwrap();
        check(&dir.join("s2"), "Hollow stacks");
        // No title, no axis labels, unnamed series.
        let unnamed = vec![(String::new(), vec![1.0])];
        grouped_bars(&dir.join("g3"), "", "", &cats, &unnamed, None).unwrap();
        lines(&dir.join("l3"), "", "", "", &[1.0], &unnamed).unwrap();
        stacked_bars(&dir.join("s3"), "", "", &cats, &unnamed).unwrap();
        assert!(
            std::fs::metadata(with_ext(&dir.join("s3"), "png"))
                .unwrap()
                .len()
                > 0
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn nan_values_are_skipped() {
        let dir = scratch("nan");
        let cats = benchmarks(4);
        let series = vec![
            ("A".to_string(), vec![1.0, f64::NAN, 2.0, f64::INFINITY]),
            ("B".to_string(), vec![f64::NAN; 4]),
            ("C".to_string(), vec![0.5]),
        ];
        grouped_bars(
            &dir.join("g"),
            "NaN bars",
            "y",
            &cats,
            &series,
            Some(f64::NAN),
        )
        .unwrap();
        check(&dir.join("g"), "NaN bars");
        let xs = [1.0, f64::NAN, 3.0, 4.0];
        lines(&dir.join("l"), "NaN lines", "x", "y", &xs, &series).unwrap();
        check(&dir.join("l"), "NaN lines");
        let all_nan = vec![("B".to_string(), vec![f64::NAN; 4])];
        lines(
            &dir.join("l2"),
            "All NaN",
            "x",
            "y",
            &[f64::NAN; 4],
            &all_nan,
        )
        .unwrap();
        check(&dir.join("l2"), "All NaN");
        let parts = vec![
            ("Local".to_string(), vec![0.5, f64::NAN, -1.0, 0.25]),
            ("Remote".to_string(), vec![0.5, 1.0, f64::NEG_INFINITY]),
        ];
        stacked_bars(&dir.join("s"), "NaN stacks", "y", &cats, &parts).unwrap();
        check(&dir.join("s"), "NaN stacks");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn helpers() {
        assert_eq!(fmt_num(64.0), "64");
        assert_eq!(fmt_num(0.25), "0.25");
        assert_eq!(fmt_num(-0.0), "0");
        assert_eq!(fmt_num(1.1), "1.1");
        assert_eq!(y_range([1.0, 2.0, f64::NAN].into_iter()), 0.0..2.2);
        assert_eq!(y_range(std::iter::empty()), 0.0..1.0);
        assert_eq!(
            with_ext(Path::new("a/fig.3"), "png"),
            PathBuf::from("a/fig.3.png")
        );
        assert_eq!(short_label("short"), "short");
        assert_eq!(
            short_label(&"x".repeat(40)).chars().count(),
            MAX_LABEL_CHARS
        );
        assert_ne!(color(3), color(13));
    }

    #[test]
    fn extreme_values_do_not_panic() {
        let dir = scratch("extreme");
        let cats = benchmarks(2);
        let series = vec![("A".to_string(), vec![f64::MAX, -f64::MAX])];
        grouped_bars(&dir.join("g"), "Extreme", "y", &cats, &series, None).unwrap();
        lines(
            &dir.join("l"),
            "Extreme",
            "x",
            "y",
            &[-f64::MAX, f64::MAX],
            &series,
        )
        .unwrap();
        stacked_bars(&dir.join("s"), "Extreme", "y", &cats, &series).unwrap();
        check(&dir.join("s"), "Extreme");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
