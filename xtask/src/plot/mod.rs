//! Plots of the experiments: a data model (series with their seed spread, the paper's values as
//! reference markers, nice ticks, a colour-blind-safe palette with a marker and a dash per
//! series, a legend laid out below the data) drawn by `plotters` into SVG and PNG
//! ([`render`]). Everything a reader sees is decided here, where it is tested; the renderer
//! only draws it.

pub(crate) mod render;

/// Axis scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scale {
    Linear,
    Log,
}

/// One point of a series: the value and, where a row aggregates seeds, its spread (± one
/// standard deviation, drawn as an error bar).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Point {
    pub(crate) x: f64,
    pub(crate) y: f64,
    pub(crate) spread: Option<f64>,
}

impl Point {
    /// A point without spread.
    pub(crate) fn at(x: f64, y: f64) -> Self {
        Self { x, y, spread: None }
    }

    /// A mean with its standard deviation over seeds (`None` or non-finite: no bar).
    pub(crate) fn mean_std(x: f64, mean: f64, std: Option<f64>) -> Self {
        Self {
            x,
            y: mean,
            spread: std.filter(|s| s.is_finite() && *s > 0.0),
        }
    }
}

/// One named series.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Series {
    pub(crate) name: String,
    pub(crate) points: Vec<Point>,
}

/// A value the paper reports, drawn as a black reference marker at `(x, y)` (beside series
/// `series` on a categorical axis, where the series are drawn side by side).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Reference {
    pub(crate) x: f64,
    pub(crate) y: f64,
    pub(crate) series: Option<usize>,
}

/// A plot: what to draw, independent of the backend.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Plot {
    pub(crate) title: String,
    pub(crate) x_label: String,
    pub(crate) y_label: String,
    pub(crate) x_scale: Scale,
    pub(crate) y_scale: Scale,
    /// Names of the categories at x = 0, 1, … (a categorical x axis), if any.
    pub(crate) categories: Option<Vec<String>>,
    pub(crate) series: Vec<Series>,
    /// The paper's values (legend entry `reference_label` when any).
    pub(crate) references: Vec<Reference>,
    /// What the references are ("paper's value", "required", …).
    pub(crate) reference_label: String,
    /// What the error bars show (in the legend when any point has a spread).
    pub(crate) spread_label: String,
    /// Whether a series' points are joined (false: a scatter plot; never on a categorical axis).
    pub(crate) lines: bool,
}

impl Plot {
    /// An empty plot with these labels and linear axes.
    pub(crate) fn new(title: &str, x_label: &str, y_label: &str) -> Self {
        Self {
            title: title.to_owned(),
            x_label: x_label.to_owned(),
            y_label: y_label.to_owned(),
            x_scale: Scale::Linear,
            y_scale: Scale::Linear,
            categories: None,
            series: Vec::new(),
            references: Vec::new(),
            reference_label: "paper's value".to_owned(),
            spread_label: "bars: ± 1 std over seeds".to_owned(),
            lines: true,
        }
    }

    /// Sets the axis scales.
    pub(crate) fn scales(mut self, x: Scale, y: Scale) -> Self {
        self.x_scale = x;
        self.y_scale = y;
        self
    }

    /// Adds point `p` to the series `name` (created on first use, in order of first use).
    pub(crate) fn add(&mut self, name: &str, p: Point) {
        match self.series.iter_mut().find(|s| s.name == name) {
            Some(s) => s.points.push(p),
            None => self.series.push(Series {
                name: name.to_owned(),
                points: vec![p],
            }),
        }
    }

    /// The x of category `name` on a categorical axis (appended on first use).
    pub(crate) fn category(&mut self, name: &str) -> f64 {
        let cats = self.categories.get_or_insert_with(Vec::new);
        let i = cats.iter().position(|c| c == name).unwrap_or_else(|| {
            cats.push(name.to_owned());
            cats.len() - 1
        });
        i as f64
    }

    /// The index of series `name` (created empty on first use).
    pub(crate) fn series_index(&mut self, name: &str) -> usize {
        match self.series.iter().position(|s| s.name == name) {
            Some(i) => i,
            None => {
                self.series.push(Series {
                    name: name.to_owned(),
                    points: Vec::new(),
                });
                self.series.len() - 1
            }
        }
    }

    /// Whether any point carries a spread.
    pub(crate) fn has_spread(&self) -> bool {
        self.series
            .iter()
            .flat_map(|s| &s.points)
            .any(|p| p.spread.is_some())
    }

    /// Whether `(x, y)` can be drawn on these scales.
    fn visible(&self, x: f64, y: f64) -> bool {
        x.is_finite()
            && y.is_finite()
            && (self.x_scale == Scale::Linear || x > 0.0)
            && (self.y_scale == Scale::Linear || y > 0.0)
    }

    /// The data ranges (x, y) including error bars and references, `None` without any
    /// drawable point.
    fn extent(&self) -> Option<((f64, f64), (f64, f64))> {
        let mut pts: Vec<(f64, f64)> = Vec::new();
        for p in self.series.iter().flat_map(|s| &s.points) {
            if !self.visible(p.x, p.y) {
                continue;
            }
            pts.push((p.x, p.y));
            if let Some(s) = p.spread {
                for y in [p.y - s, p.y + s] {
                    if self.visible(p.x, y) {
                        pts.push((p.x, y));
                    }
                }
            }
        }
        pts.extend(
            self.references
                .iter()
                .filter(|r| self.visible(r.x, r.y))
                .map(|r| (r.x, r.y)),
        );
        let first = *pts.first()?;
        Some(pts.iter().fold(
            ((first.0, first.0), (first.1, first.1)),
            |((x0, x1), (y0, y1)), &(x, y)| ((x0.min(x), x1.max(x)), (y0.min(y), y1.max(y))),
        ))
    }

    /// The ticks of both axes (the axes span from the first to the last tick).
    pub(crate) fn ticks(&self) -> (Vec<f64>, Vec<f64>) {
        let ((x0, x1), (y0, y1)) = self.extent().unwrap_or(((0.0, 1.0), (0.0, 1.0)));
        let x = match (&self.categories, self.x_scale) {
            (Some(c), _) => (0..c.len().max(1)).map(|i| i as f64).collect(),
            (None, Scale::Linear) => nice_ticks(x0, x1, 6),
            (None, Scale::Log) => log_ticks(x0, x1),
        };
        let y = match self.y_scale {
            Scale::Linear => nice_ticks(y0, y1, 6),
            Scale::Log => log_ticks(y0, y1),
        };
        (x, y)
    }

    /// The legend entries in order: the series, then "paper" (when there are references) and
    /// the spread note (when there are error bars).
    pub(crate) fn legend_entries(&self) -> Vec<LegendEntry> {
        let mut out: Vec<LegendEntry> = self
            .series
            .iter()
            .enumerate()
            .map(|(k, s)| LegendEntry {
                text: s.name.clone(),
                key: Key::Series(style(k)),
            })
            .collect();
        if !self.references.is_empty() {
            out.push(LegendEntry {
                text: self.reference_label.clone(),
                key: Key::Reference,
            });
        }
        if self.has_spread() {
            out.push(LegendEntry {
                text: self.spread_label.clone(),
                key: Key::Note,
            });
        }
        out
    }

    /// The canvas layout for a plot `width` pixels wide: the plot area's height and the
    /// legend's entries placed below it, each inside the canvas.
    pub(crate) fn layout(&self, width: u32) -> Layout {
        let entries = self.legend_entries();
        let placed = legend_layout(&entries, width);
        let rows = placed.iter().map(|p| p.row + 1).max().unwrap_or(0);
        let legend_h = if rows == 0 {
            0
        } else {
            LEGEND_PAD * 2 + rows * LEGEND_ROW
        };
        Layout {
            width,
            plot_height: PLOT_HEIGHT,
            height: PLOT_HEIGHT + legend_h,
            legend: placed,
        }
    }
}

/// Height of the plot area (title, axes, data) in pixels.
pub(crate) const PLOT_HEIGHT: u32 = 460;
/// Default canvas width in pixels.
pub(crate) const WIDTH: u32 = 760;
/// Legend row height and padding in pixels.
const LEGEND_ROW: u32 = 22;
const LEGEND_PAD: u32 = 8;
/// Width of a legend entry's key (line sample and marker) and the gap after an entry.
const KEY_W: u32 = 34;
const GAP_W: u32 = 18;
/// Estimated width of one character of legend text (13 px DejaVu Sans averages ≈ 7 px; 7.5
/// over-estimates, so text never runs past its slot).
const CHAR_W: f64 = 7.5;

/// What a legend entry shows before its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Key {
    Series(Style),
    Reference,
    Note,
}

/// A legend entry.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LegendEntry {
    pub(crate) text: String,
    pub(crate) key: Key,
}

/// A legend entry placed on the canvas: its row and its box `[x, x + w) × [y, y + h)` in
/// canvas pixels.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Placed {
    pub(crate) entry: LegendEntry,
    pub(crate) row: u32,
    pub(crate) x: u32,
    pub(crate) y: u32,
    pub(crate) w: u32,
    pub(crate) h: u32,
}

/// The canvas: its size, the plot area's height and the legend below it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Layout {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) plot_height: u32,
    pub(crate) legend: Vec<Placed>,
}

/// Places legend entries left to right in rows below the plot area, starting a new row when
/// an entry would cross the right margin; text longer than a row is shortened with "…".
fn legend_layout(entries: &[LegendEntry], width: u32) -> Vec<Placed> {
    let left = 16u32;
    let right = width.saturating_sub(16);
    let max_chars = (f64::from(right - left - KEY_W) / CHAR_W).floor() as usize;
    let (mut x, mut row) = (left, 0u32);
    let mut out = Vec::with_capacity(entries.len());
    for e in entries {
        let mut entry = e.clone();
        if entry.text.chars().count() > max_chars {
            entry.text = entry.text.chars().take(max_chars - 1).collect::<String>() + "…";
        }
        let w = KEY_W + (entry.text.chars().count() as f64 * CHAR_W).ceil() as u32;
        if x > left && x + w > right {
            row += 1;
            x = left;
        }
        out.push(Placed {
            entry,
            row,
            x,
            y: PLOT_HEIGHT + LEGEND_PAD + row * LEGEND_ROW,
            w,
            h: LEGEND_ROW,
        });
        x += w + GAP_W;
    }
    out
}

/// Nice ticks (1, 2, 2.5 or 5 × 10^k steps) covering `[lo, hi]` with about `target` ticks;
/// the first tick is at or below `lo`, the last at or above `hi`.
pub(crate) fn nice_ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    let (lo, hi) = if hi - lo < 1e-12 * lo.abs().max(1.0) {
        let pad = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
        (lo - pad, hi + pad)
    } else {
        (lo, hi)
    };
    let raw = (hi - lo) / target.max(2) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let first = (lo / step).floor();
    let last = (hi / step).ceil();
    ((first as i64)..=(last as i64))
        .map(|k| {
            // Round away the binary noise of k × step (0.30000000000000004 → 0.3).
            let v = k as f64 * step;
            let digits = (-step.log10().floor()).max(0.0) as i32 + 2;
            let scale = 10f64.powi(digits);
            (v * scale).round() / scale
        })
        .collect()
}

/// Decade ticks covering `[lo, hi]` (both > 0), at least two; with 1, 2 and 5 × 10^k between
/// them when the range spans at most two decades.
pub(crate) fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    // A log axis without positive data (an empty plot) spans one decade.
    let lo = if lo.is_finite() && lo > 0.0 { lo } else { 1.0 };
    let hi = if hi.is_finite() && hi >= lo {
        hi
    } else {
        lo * 10.0
    };
    let a = lo.log10().floor() as i32;
    let b = (hi.log10().ceil() as i32).max(a + 1);
    if b - a > 2 {
        return (a..=b).map(|e| 10f64.powi(e)).collect();
    }
    let mut t: Vec<f64> = (a..b)
        .flat_map(|e| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(e)))
        .collect();
    t.push(10f64.powi(b));
    // Keep the outer ticks around the data only.
    let first = t.iter().rposition(|&v| v <= lo).unwrap_or(0);
    let last = t
        .iter()
        .position(|&v| v >= hi)
        .unwrap_or(t.len() - 1)
        .max(first + 1);
    t[first..=last].to_vec()
}

/// The label of tick `v` given the step between ticks: as few decimals as the step needs.
pub(crate) fn tick_label(v: f64, step: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if !(1e-3..1e6).contains(&a) {
        let s = format!("{v:e}");
        let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let sup: String = exp
            .chars()
            .map(|c| match c {
                '-' => '⁻',
                d => "⁰¹²³⁴⁵⁶⁷⁸⁹"
                    .chars()
                    .nth(d.to_digit(10).unwrap_or(0) as usize)
                    .unwrap_or(d),
            })
            .collect();
        return if mantissa == "1" {
            format!("10{sup}")
        } else {
            format!("{mantissa}·10{sup}")
        };
    }
    let mut decimals = 0usize;
    while decimals < 12 {
        let scaled = step * 10f64.powi(decimals as i32);
        if (scaled - scaled.round()).abs() < 1e-6 * scaled.abs().max(1.0) {
            break;
        }
        decimals += 1;
    }
    format!("{v:.decimals$}")
}

/// An RGB colour.
pub(crate) type Rgb = (u8, u8, u8);

/// The Okabe–Ito palette (colour-blind safe), yellow darkened to read on white.
pub(crate) const PALETTE: [Rgb; 8] = [
    (0, 114, 178),   // blue
    (213, 94, 0),    // vermillion
    (0, 158, 115),   // bluish green
    (204, 121, 167), // reddish purple
    (230, 159, 0),   // orange
    (86, 180, 233),  // sky blue
    (160, 140, 0),   // dark yellow
    (0, 0, 0),       // black
];

/// Marker shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Marker {
    Circle,
    Square,
    Triangle,
    Diamond,
    Cross,
    Plus,
}

const MARKERS: [Marker; 6] = [
    Marker::Circle,
    Marker::Square,
    Marker::Triangle,
    Marker::Diamond,
    Marker::Cross,
    Marker::Plus,
];

/// Line dash patterns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Dash {
    Solid,
    Dashed,
    Dotted,
}

/// How series `k` is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Style {
    pub(crate) color: Rgb,
    pub(crate) marker: Marker,
    pub(crate) dash: Dash,
}

/// The style of series `k`: colours cycle over 8, markers over 6 (so the first 24 series
/// differ in colour *and* in colour–marker pair), dashes change every 8 series.
pub(crate) fn style(k: usize) -> Style {
    Style {
        color: PALETTE[k % PALETTE.len()],
        marker: MARKERS[k % MARKERS.len()],
        dash: [Dash::Solid, Dash::Dashed, Dash::Dotted][(k / PALETTE.len()) % 3],
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn log_ticks_of_an_empty_or_non_positive_range_span_one_decade() {
        assert_eq!(log_ticks(0.0, 1.0), [1.0, 2.0]);
        assert_eq!(log_ticks(f64::NAN, f64::NAN), [1.0, 2.0, 5.0, 10.0]);
    }

    use super::*;

    #[test]
    fn ticks_are_round_and_cover_the_data() {
        for (lo, hi) in [
            (0.298, 5.657),
            (0.0, 1.0),
            (0.443, 0.912),
            (-3.2, 7.9),
            (1e-4, 3e-4),
            (2708.0, 98765.0),
            (0.5, 0.5),
        ] {
            let t = nice_ticks(lo, hi, 6);
            assert!(t.len() >= 2 && t.len() <= 12, "{lo}..{hi}: {t:?}");
            assert!(t[0] <= lo && *t.last().unwrap() >= hi, "{lo}..{hi}: {t:?}");
            let step = t[1] - t[0];
            let mantissa = step / 10f64.powf(step.log10().floor());
            assert!(
                [1.0, 2.0, 2.5, 5.0, 10.0]
                    .iter()
                    .any(|m| (m - mantissa).abs() < 1e-9),
                "{lo}..{hi}: step {step}"
            );
            for w in t.windows(2) {
                assert!((w[1] - w[0] - step).abs() < 1e-9 * step.max(1.0));
            }
        }
        // The values the old plots printed become round ones.
        assert_eq!(
            nice_ticks(0.298, 5.657, 6),
            vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
        );
        assert_eq!(
            nice_ticks(0.443, 0.912, 6),
            vec![0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
        );
        assert_eq!(log_ticks(3e-4, 0.02), vec![1e-4, 1e-3, 1e-2, 1e-1]);
        assert_eq!(log_ticks(0.03, 0.4), vec![0.02, 0.05, 0.1, 0.2, 0.5]);
        assert_eq!(log_ticks(1.4, 9.0), vec![1.0, 2.0, 5.0, 10.0]);
        assert_eq!(log_ticks(1e-4, 1.0), vec![1e-4, 1e-3, 1e-2, 1e-1, 1.0]);
    }

    #[test]
    fn tick_labels_use_the_decimals_of_the_step() {
        assert_eq!(tick_label(0.5, 0.1), "0.5");
        assert_eq!(tick_label(0.75, 0.25), "0.75");
        assert_eq!(tick_label(3.0, 1.0), "3");
        assert_eq!(tick_label(2500.0, 500.0), "2500");
        assert_eq!(tick_label(0.0, 0.1), "0");
        assert_eq!(tick_label(1e-4, 1e-4), "10⁻⁴");
        assert_eq!(tick_label(1e6, 1e6), "10⁶");
        assert_eq!(tick_label(2.5e7, 1e7), "2.5·10⁷");
    }

    #[test]
    fn palette_and_markers_tell_series_apart() {
        // Colour-blind-safe palette: distinct colours, none too light to read on white.
        for (i, a) in PALETTE.iter().enumerate() {
            let lum = 0.2126 * f64::from(a.0) + 0.7152 * f64::from(a.1) + 0.0722 * f64::from(a.2);
            assert!(lum < 200.0, "colour {i} too light");
            for b in &PALETTE[i + 1..] {
                assert_ne!(a, b);
            }
        }
        // The first 24 series differ pairwise in colour–marker pair, and the first 8 in colour
        // and in marker alike (up to 6 markers).
        let styles: Vec<Style> = (0..24).map(style).collect();
        for i in 0..24 {
            for j in i + 1..24 {
                assert!(
                    (styles[i].color, styles[i].marker) != (styles[j].color, styles[j].marker),
                    "{i} and {j}"
                );
            }
        }
        for i in 0..6 {
            for j in i + 1..6 {
                assert_ne!(styles[i].color, styles[j].color);
                assert_ne!(styles[i].marker, styles[j].marker);
            }
        }
        assert_eq!(style(8).dash, Dash::Dashed);
    }

    fn twelve_series() -> Plot {
        let mut p = Plot::new("accuracy on cora (gcn)", "ε", "test accuracy");
        for name in [
            "non-private",
            "no graph (features only)",
            "Blink-hybrid (original, δ_b = 0.1)",
            "Blink-hard (original, δ_b = 0.1)",
            "EdgeRefine k=0.01",
            "EdgeRefine k=1",
            "EdgeRefine k=0.01 (reference tie-break)",
            "EdgeRefine k=1 (reference tie-break)",
            "LDPGen",
            "DPRR",
            "SymRR",
            "RR",
        ] {
            for e in [1.0, 2.0, 3.0] {
                p.add(name, Point::mean_std(e, 0.7, Some(0.02)));
            }
        }
        p.references.push(Reference {
            x: 1.0,
            y: 0.8,
            series: None,
        });
        p
    }

    #[test]
    fn legend_stays_inside_the_canvas_below_the_data() {
        let p = twelve_series();
        for width in [WIDTH, 480, 320] {
            let l = p.layout(width);
            assert_eq!(l.legend.len(), 14, "12 series, paper, the spread note");
            for e in &l.legend {
                assert!(e.x + e.w <= width - 16, "{e:?} at width {width}");
                assert!(e.y >= l.plot_height, "below the plot area");
                assert!(e.y + e.h <= l.height, "{e:?} inside the canvas");
            }
            // Entries of one row do not overlap.
            for a in &l.legend {
                for b in &l.legend {
                    if a != b && a.row == b.row {
                        assert!(a.x + a.w <= b.x || b.x + b.w <= a.x);
                    }
                }
            }
        }
        // A name longer than the canvas is shortened, not clipped.
        let mut long = Plot::new("t", "x", "y");
        long.add(&"x".repeat(200), Point::at(1.0, 1.0));
        let l = long.layout(320);
        assert!(l.legend[0].entry.text.ends_with('…'));
        assert!(l.legend[0].x + l.legend[0].w <= 304);
    }

    #[test]
    fn error_bars_and_references_widen_the_axes() {
        let p = twelve_series();
        let (_, y) = p.ticks();
        assert!(y[0] <= 0.68 && *y.last().unwrap() >= 0.8, "{y:?}");
        assert!(p.has_spread());
        let entries = p.legend_entries();
        assert_eq!(entries[12].key, Key::Reference);
        assert_eq!(entries[13].key, Key::Note);
        // A log axis drops non-positive points instead of failing.
        let mut q = Plot::new("t", "x", "y").scales(Scale::Log, Scale::Linear);
        q.add("a", Point::at(0.0, 1.0));
        q.add("a", Point::at(10.0, 2.0));
        let (x, _) = q.ticks();
        assert_eq!(x, vec![10.0, 20.0]);
    }

    #[test]
    fn categories_are_positions_in_order_of_first_use() {
        let mut p = Plot::new("t", "model", "acc");
        assert_eq!(p.category("gcn"), 0.0);
        assert_eq!(p.category("gat"), 1.0);
        assert_eq!(p.category("gcn"), 0.0);
        assert_eq!(p.ticks().0, vec![0.0, 1.0]);
    }
}
