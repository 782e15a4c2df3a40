//! A small SVG line/scatter plot writer (no font or system dependency).

use std::fmt::Write;

/// One named series of `(x, y)` points.
pub(crate) struct Series {
    pub(crate) name: String,
    pub(crate) points: Vec<(f64, f64)>,
}

/// Axis scale.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scale {
    Linear,
    Log,
}

const W: f64 = 720.0;
const H: f64 = 440.0;
/// Margins: left, right (legend), top (title), bottom.
const L: f64 = 70.0;
const R: f64 = 170.0;
const T: f64 = 40.0;
const B: f64 = 55.0;
const COLORS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// `v` on an axis of scale `s` (log10 for a log axis).
fn tf(v: f64, s: Scale) -> f64 {
    if s == Scale::Log {
        v.max(1e-300).log10()
    } else {
        v
    }
}

/// The inverse of [`tf`].
fn untf(v: f64, s: Scale) -> f64 {
    if s == Scale::Log { 10f64.powf(v) } else { v }
}

/// The plot area: axis scales and the data range in axis units.
struct Frame {
    x_scale: Scale,
    y_scale: Scale,
    x0: f64,
    x1: f64,
    y0: f64,
    y1: f64,
}

impl Frame {
    /// The range of the points drawable on these scales (finite, positive on a log axis);
    /// `[0, 1]` without any, at least 1 wide.
    fn new(x_scale: Scale, y_scale: Scale, series: &[Series]) -> Self {
        let mut f = Self {
            x_scale,
            y_scale,
            x0: f64::INFINITY,
            x1: f64::NEG_INFINITY,
            y0: f64::INFINITY,
            y1: f64::NEG_INFINITY,
        };
        for &(x, y) in series.iter().flat_map(|s| s.points.iter()) {
            if f.visible(x, y) {
                let (x, y) = (tf(x, x_scale), tf(y, y_scale));
                f.x0 = f.x0.min(x);
                f.x1 = f.x1.max(x);
                f.y0 = f.y0.min(y);
                f.y1 = f.y1.max(y);
            }
        }
        if !f.x0.is_finite() {
            (f.x0, f.x1, f.y0, f.y1) = (0.0, 1.0, 0.0, 1.0);
        }
        if f.x1 - f.x0 < 1e-12 {
            f.x1 = f.x0 + 1.0;
        }
        if f.y1 - f.y0 < 1e-12 {
            f.y1 = f.y0 + 1.0;
        }
        f
    }

    fn visible(&self, x: f64, y: f64) -> bool {
        x.is_finite()
            && y.is_finite()
            && (self.x_scale == Scale::Linear || x > 0.0)
            && (self.y_scale == Scale::Linear || y > 0.0)
    }

    fn px(&self, x: f64) -> f64 {
        L + (tf(x, self.x_scale) - self.x0) / (self.x1 - self.x0) * (W - L - R)
    }

    fn py(&self, y: f64) -> f64 {
        H - B - (tf(y, self.y_scale) - self.y0) / (self.y1 - self.y0) * (H - T - B)
    }

    /// Five ticks per axis with their values.
    fn ticks(&self, s: &mut String) {
        for i in 0..=4 {
            let fx = self.x0 + (self.x1 - self.x0) * f64::from(i) / 4.0;
            let fy = self.y0 + (self.y1 - self.y0) * f64::from(i) / 4.0;
            let (vx, vy) = (untf(fx, self.x_scale), untf(fy, self.y_scale));
            let _ = write!(
                s,
                r#"<text x="{:.1}" y="{}" text-anchor="middle">{}</text><text x="{}" y="{:.1}" text-anchor="end">{}</text>"#,
                self.px(vx),
                H - B + 16.0,
                tick(vx),
                L - 6.0,
                self.py(vy) + 4.0,
                tick(vy)
            );
        }
    }

    /// Series `k`: its line, markers and legend entry.
    fn series(&self, s: &mut String, k: usize, se: &Series) {
        let c = COLORS[k % COLORS.len()];
        let valid: Vec<_> = se
            .points
            .iter()
            .filter(|(x, y)| self.visible(*x, *y))
            .collect();
        let path: Vec<String> = valid
            .iter()
            .map(|&&(x, y)| format!("{:.1},{:.1}", self.px(x), self.py(y)))
            .collect();
        if path.len() > 1 {
            let _ = write!(
                s,
                r#"<polyline fill="none" stroke="{c}" stroke-width="1.5" points="{}"/>"#,
                path.join(" ")
            );
        }
        for &&(x, y) in &valid {
            let _ = write!(
                s,
                r#"<circle cx="{:.1}" cy="{:.1}" r="2.5" fill="{c}"/>"#,
                self.px(x),
                self.py(y)
            );
        }
        let ly = T + 14.0 + 18.0 * k as f64;
        let _ = write!(
            s,
            r#"<rect x="{}" y="{}" width="12" height="3" fill="{c}"/><text x="{}" y="{}">{}</text>"#,
            W - R + 12.0,
            ly - 4.0,
            W - R + 30.0,
            ly,
            esc(&se.name)
        );
    }
}

/// A line plot with markers, legend and labelled axes, as SVG text.
pub(crate) fn line_plot(
    title: &str,
    x_label: &str,
    y_label: &str,
    x_scale: Scale,
    y_scale: Scale,
    series: &[Series],
) -> String {
    let frame = Frame::new(x_scale, y_scale, series);
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12"><rect width="100%" height="100%" fill="white"/><text x="{}" y="22" font-size="15" text-anchor="middle">{}</text>"#,
        (W - R + L) / 2.0,
        esc(title)
    );
    let _ = write!(
        s,
        r#"<line x1="{L}" y1="{}" x2="{}" y2="{}" stroke="black"/><line x1="{L}" y1="{T}" x2="{L}" y2="{}" stroke="black"/>"#,
        H - B,
        W - R,
        H - B,
        H - B
    );
    frame.ticks(&mut s);
    let _ = write!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">{}</text><text transform="translate(16,{}) rotate(-90)" text-anchor="middle">{}</text>"#,
        (W - R + L) / 2.0,
        H - 12.0,
        esc(x_label),
        (H - B + T) / 2.0,
        esc(y_label)
    );
    for (k, se) in series.iter().enumerate() {
        frame.series(&mut s, k, se);
    }
    s.push_str("</svg>\n");
    s
}

fn tick(v: f64) -> String {
    let a = v.abs();
    if a != 0.0 && !(1e-3..1e5).contains(&a) {
        format!("{v:.1e}")
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_owned()
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn svg_has_series_and_escapes() {
        let svg = line_plot(
            "a<b",
            "x",
            "y",
            Scale::Log,
            Scale::Linear,
            &[Series {
                name: "s1".into(),
                points: vec![(1.0, 2.0), (10.0, 3.0), (0.0, 1.0)],
            }],
        );
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert!(svg.contains("a&lt;b") && svg.contains("s1"));
        assert_eq!(
            svg.matches("<circle").count(),
            2,
            "x = 0 is dropped on a log axis"
        );
    }
}
