//! Drawing a [`Plot`] with `plotters`: the SVG backend (text as `<text>` elements, no font
//! needed) and the bitmap backend for PNG (glyphs from a TrueType font found on the system,
//! DejaVu Sans by default; without one the PNG is skipped and the caller says so).
//!
//! Every position comes from the plot's data model ([`Plot::ticks`], [`Plot::layout`]): the
//! renderer maps data to pixels and draws axes, grid, error bars, series, references and the
//! legend with plotters' elements.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{Result, anyhow};
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{Dash, Key, Layout, Marker, Plot, Rgb, Scale, WIDTH, style, tick_label};

/// Margins of the data area inside the plot area: left (y tick labels and label), right, top
/// (title), bottom (x tick labels and label).
const LEFT: i32 = 78;
const RIGHT: i32 = 24;
const TOP: i32 = 48;
const BOTTOM: i32 = 58;

/// `v` on an axis of scale `s` (log10 for a log axis).
fn tf(v: f64, s: Scale) -> f64 {
    match s {
        Scale::Linear => v,
        Scale::Log => v.log10(),
    }
}

/// The mapping from data to pixels of one plot.
struct Frame {
    x: (f64, f64),
    y: (f64, f64),
    xs: Scale,
    ys: Scale,
    area: (i32, i32, i32, i32),
}

impl Frame {
    fn new(plot: &Plot, xt: &[f64], yt: &[f64], width: u32, plot_height: u32) -> Self {
        let span = |t: &[f64], s| {
            let a = tf(t[0], s);
            let b = tf(*t.last().expect("at least one tick"), s);
            if b > a { (a, b) } else { (a - 0.5, a + 0.5) }
        };
        let mut x = span(xt, plot.x_scale);
        if plot.categories.is_some() {
            x = (x.0 - 0.5, x.1 + 0.5);
        }
        Self {
            x,
            y: span(yt, plot.y_scale),
            xs: plot.x_scale,
            ys: plot.y_scale,
            area: (LEFT, TOP, width as i32 - RIGHT, plot_height as i32 - BOTTOM),
        }
    }

    fn px(&self, x: f64) -> i32 {
        let (l, _, r, _) = self.area;
        let t = (tf(x, self.xs) - self.x.0) / (self.x.1 - self.x.0);
        l + (t * f64::from(r - l)).round() as i32
    }

    fn py(&self, y: f64) -> i32 {
        let (_, t, _, b) = self.area;
        let u = (tf(y, self.ys) - self.y.0) / (self.y.1 - self.y.0);
        b - (u * f64::from(b - t)).round() as i32
    }

    /// Whether the pixel lies in the data area (with a small slack for markers on the edge).
    fn inside(&self, (x, y): (i32, i32)) -> bool {
        let (l, t, r, b) = self.area;
        (l - 1..=r + 1).contains(&x) && (t - 1..=b + 1).contains(&y)
    }
}

fn rgb(c: Rgb) -> RGBColor {
    RGBColor(c.0, c.1, c.2)
}

fn font(size: u32) -> TextStyle<'static> {
    ("sans-serif", size).into_font().color(&BLACK)
}

/// Draws `plot` on `root` (a canvas of `layout`'s size).
fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    plot: &Plot,
    layout: &Layout,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("drawing a plot: {e}");
    root.fill(&WHITE).map_err(err)?;
    let (xt, yt) = plot.ticks();
    let f = Frame::new(plot, &xt, &yt, layout.width, layout.plot_height);
    let (l, t, r, b) = f.area;
    let grid = RGBColor(225, 225, 225);
    let axis = RGBColor(90, 90, 90);

    // Title and axis labels.
    root.draw(&Text::new(
        plot.title.clone(),
        ((l + r) / 2, 14),
        font(16).pos(Pos::new(HPos::Center, VPos::Top)),
    ))
    .map_err(err)?;
    root.draw(&Text::new(
        plot.x_label.clone(),
        ((l + r) / 2, layout.plot_height as i32 - 14),
        font(14).pos(Pos::new(HPos::Center, VPos::Bottom)),
    ))
    .map_err(err)?;
    root.draw(&Text::new(
        plot.y_label.clone(),
        (16, (t + b) / 2),
        font(14)
            .transform(FontTransform::Rotate270)
            .pos(Pos::new(HPos::Center, VPos::Top)),
    ))
    .map_err(err)?;

    // Grid and ticks.
    let ystep = if yt.len() > 1 { yt[1] - yt[0] } else { 1.0 };
    for &v in &yt {
        let y = f.py(v);
        root.draw(&PathElement::new(vec![(l, y), (r, y)], grid))
            .map_err(err)?;
        let label = match plot.y_scale {
            Scale::Linear => tick_label(v, ystep),
            Scale::Log => tick_label(v, v),
        };
        root.draw(&Text::new(
            label,
            (l - 8, y),
            font(13).pos(Pos::new(HPos::Right, VPos::Center)),
        ))
        .map_err(err)?;
    }
    let xstep = if xt.len() > 1 { xt[1] - xt[0] } else { 1.0 };
    for &v in &xt {
        let x = f.px(v);
        root.draw(&PathElement::new(vec![(x, t), (x, b)], grid))
            .map_err(err)?;
        let label = match (&plot.categories, plot.x_scale) {
            (Some(c), _) => c.get(v.round() as usize).cloned().unwrap_or_default(),
            (None, Scale::Linear) => tick_label(v, xstep),
            (None, Scale::Log) => tick_label(v, v),
        };
        root.draw(&Text::new(
            label,
            (x, b + 8),
            font(13).pos(Pos::new(HPos::Center, VPos::Top)),
        ))
        .map_err(err)?;
    }
    root.draw(&PathElement::new(
        vec![(l, t), (l, b), (r, b)],
        axis.stroke_width(1),
    ))
    .map_err(err)?;

    // Series: line, error bars, markers. On a categorical axis the series of one category
    // are dodged side by side and not joined.
    let n = plot.series.len().max(1);
    for (k, s) in plot.series.iter().enumerate() {
        let st = style(k);
        let color = rgb(st.color);
        let dodge = dodge(plot, k, n);
        let pts: Vec<PixelPoint> = s
            .points
            .iter()
            .filter(|p| plot.visible(p.x, p.y))
            .map(|p| {
                let x = f.px(p.x + dodge);
                let bar = p.spread.map(|sd| {
                    let lo = if plot.visible(p.x, p.y - sd) {
                        f.py(p.y - sd)
                    } else {
                        b
                    };
                    (lo, f.py(p.y + sd))
                });
                (x, f.py(p.y), bar)
            })
            .filter(|&(x, y, _)| f.inside((x, y)))
            .collect();
        if plot.lines && plot.categories.is_none() && pts.len() > 1 {
            let line: Vec<(i32, i32)> = pts.iter().map(|&(x, y, _)| (x, y)).collect();
            dashed(root, line, st.dash, color.stroke_width(2)).map_err(err)?;
        }
        for &(x, _, bar) in &pts {
            if let Some((lo, hi)) = bar {
                let (lo, hi) = (lo.min(b), hi.max(t));
                let bs = color.stroke_width(1);
                root.draw(&PathElement::new(vec![(x, lo), (x, hi)], bs))
                    .map_err(err)?;
                root.draw(&PathElement::new(vec![(x - 4, lo), (x + 4, lo)], bs))
                    .map_err(err)?;
                root.draw(&PathElement::new(vec![(x - 4, hi), (x + 4, hi)], bs))
                    .map_err(err)?;
            }
        }
        for &(x, y, _) in &pts {
            marker(root, st.marker, (x, y), color).map_err(err)?;
        }
    }
    for rf in &plot.references {
        if plot.visible(rf.x, rf.y) {
            let d = rf.series.map_or(0.0, |k| dodge(plot, k, n));
            let c = (f.px(rf.x + d), f.py(rf.y));
            if f.inside(c) {
                reference(root, c).map_err(err)?;
            }
        }
    }

    // Legend below the plot area.
    for p in &layout.legend {
        let cy = (p.y + p.h / 2) as i32;
        let x = p.x as i32;
        match p.entry.key {
            Key::Series(st) => {
                let color = rgb(st.color);
                dashed(
                    root,
                    vec![(x + 2, cy), (x + 28, cy)],
                    st.dash,
                    color.stroke_width(2),
                )
                .map_err(err)?;
                marker(root, st.marker, (x + 15, cy), color).map_err(err)?;
            }
            Key::Reference => reference(root, (x + 15, cy)).map_err(err)?,
            Key::Note => {
                let s = BLACK.stroke_width(1);
                root.draw(&PathElement::new(
                    vec![(x + 15, cy - 7), (x + 15, cy + 7)],
                    s,
                ))
                .map_err(err)?;
                root.draw(&PathElement::new(
                    vec![(x + 11, cy - 7), (x + 19, cy - 7)],
                    s,
                ))
                .map_err(err)?;
                root.draw(&PathElement::new(
                    vec![(x + 11, cy + 7), (x + 19, cy + 7)],
                    s,
                ))
                .map_err(err)?;
            }
        }
        root.draw(&Text::new(
            p.entry.text.clone(),
            (x + 34, cy),
            font(13).pos(Pos::new(HPos::Left, VPos::Center)),
        ))
        .map_err(err)?;
    }
    root.present().map_err(err)
}

/// A point in pixels with its error bar's pixel ends, if any.
type PixelPoint = (i32, i32, Option<(i32, i32)>);

/// The horizontal offset of series `k` of `n` on a categorical axis (side by side), 0 otherwise.
fn dodge(plot: &Plot, k: usize, n: usize) -> f64 {
    if plot.categories.is_some() {
        (k as f64 - (n as f64 - 1.0) / 2.0) * (0.7 / n as f64)
    } else {
        0.0
    }
}

/// A polyline with the dash pattern `dash`.
fn dashed<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    pts: Vec<(i32, i32)>,
    dash: Dash,
    style: ShapeStyle,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    match dash {
        Dash::Solid => root.draw(&PathElement::new(pts, style)),
        Dash::Dashed => root.draw(&DashedPathElement::new(pts, 8, 5, style)),
        Dash::Dotted => root.draw(&DashedPathElement::new(pts, 2, 4, style)),
    }
}

/// A series marker centred at `c`.
fn marker<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    m: Marker,
    (x, y): (i32, i32),
    color: RGBColor,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let fill = color.filled();
    match m {
        Marker::Circle => root.draw(&Circle::new((x, y), 4, fill)),
        Marker::Square => root.draw(&Rectangle::new([(x - 4, y - 4), (x + 4, y + 4)], fill)),
        Marker::Triangle => root.draw(&TriangleMarker::new((x, y), 6, fill)),
        Marker::Diamond => root.draw(&Polygon::new(
            vec![(x, y - 6), (x + 5, y), (x, y + 6), (x - 5, y)],
            fill,
        )),
        Marker::Cross => root.draw(&Cross::new((x, y), 4, color.stroke_width(2))),
        Marker::Plus => {
            let s = color.stroke_width(2);
            root.draw(&PathElement::new(vec![(x - 5, y), (x + 5, y)], s))?;
            root.draw(&PathElement::new(vec![(x, y - 5), (x, y + 5)], s))
        }
    }
}

/// The paper's value: a black ring with a dot, unlike every series marker.
fn reference<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    (x, y): (i32, i32),
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.draw(&Circle::new((x, y), 7, BLACK.stroke_width(2)))?;
    root.draw(&Circle::new((x, y), 2, BLACK.filled()))
}

/// `plot` as SVG text.
///
/// # Errors
/// When plotters fails to draw.
pub(crate) fn svg(plot: &Plot) -> Result<String> {
    let layout = plot.layout(WIDTH);
    let mut s = String::new();
    {
        let root =
            SVGBackend::with_string(&mut s, (layout.width, layout.height)).into_drawing_area();
        draw(&root, plot, &layout)?;
    }
    Ok(s)
}

/// Where the PNG's font comes from: `DPGRAPH_PLOT_FONT`, else the usual places of DejaVu Sans
/// and Liberation Sans.
fn font_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("DPGRAPH_PLOT_FONT") {
        return Some(PathBuf::from(p));
    }
    [
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/TTF/DejaVuSans.ttf",
        "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
        "/Library/Fonts/Arial.ttf",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|p| p.exists())
}

/// Registers the PNG font once; `Err` names why there is none.
fn png_font() -> Result<(), String> {
    static FONT: OnceLock<Result<(), String>> = OnceLock::new();
    FONT.get_or_init(|| {
        let path = font_path().ok_or("no TrueType font found (set DPGRAPH_PLOT_FONT)")?;
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        plotters::style::register_font("sans-serif", FontStyle::Normal, bytes)
            .map_err(|_| format!("{}: not a usable TrueType font", path.display()))
    })
    .clone()
}

/// Writes `plot` as a PNG at `path` (atomically: a temporary file, then rename). Returns
/// `Ok(false)` without writing when no font is available for the text.
///
/// # Errors
/// When plotters fails to draw or the file cannot be written.
pub(crate) fn png(plot: &Plot, path: &Path) -> Result<bool> {
    if let Err(why) = png_font() {
        eprintln!("note: PNG plots skipped: {why}");
        return Ok(false);
    }
    let layout = plot.layout(WIDTH);
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| anyhow!("bad plot path {}", path.display()))?;
    let tmp = dir.join(format!(".tmp-{}-{name}", std::process::id()));
    {
        let root = BitMapBackend::new(&tmp, (layout.width, layout.height)).into_drawing_area();
        draw(&root, plot, &layout)?;
    }
    std::fs::rename(&tmp, path)?;
    Ok(true)
}
