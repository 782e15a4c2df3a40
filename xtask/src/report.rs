//! The report page of a run: `<out>/index.html`, one self-contained file (inline CSS, plots
//! embedded as data URIs, no script, nothing fetched) with, per experiment, its plots, its
//! tables with their parameters and notes, and its comparison with the committed reference and
//! the papers (`comparison.json` of the run, when there is one).

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use base64::Engine as _;
use serde_json::{Map, Value};

use crate::cli::Experiment;

/// The experiments in page order: the folder names of [`Experiment::ALL`].
pub(crate) fn experiments() -> impl Iterator<Item = &'static str> {
    Experiment::ALL.into_iter().map(Experiment::name)
}

/// HTML-escapes `s`.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A table cell: numbers to 4 significant digits, lists shortened, null as "–".
fn cell(v: &Value) -> String {
    match v {
        Value::Null => "–".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.to_string(),
            (None, Some(f)) => {
                let a = f.abs();
                if a != 0.0 && !(1e-3..1e6).contains(&a) {
                    format!("{f:.3e}")
                } else {
                    let s = format!("{f:.4}");
                    s.trim_end_matches('0').trim_end_matches('.').to_owned()
                }
            }
            _ => n.to_string(),
        },
        Value::String(s) => s.clone(),
        Value::Array(a) => {
            let parts: Vec<String> = a.iter().take(8).map(cell).collect();
            let more = if a.len() > 8 { ", …" } else { "" };
            format!("[{}{more}]", parts.join(", "))
        }
        Value::Object(_) => v.to_string(),
    }
}

/// The columns of a table in the order of its CSV header (the JSON rows are maps), else the
/// keys of its first row.
fn columns(dir: &Path, stem: &str, rows: &[Value]) -> Vec<String> {
    let csv = dir.join(format!("{stem}.csv"));
    if let Ok(text) = std::fs::read_to_string(&csv)
        && let Some(line) = text.lines().find(|l| !l.starts_with('#'))
    {
        return line
            .split(',')
            .map(|c| c.trim_matches('"').to_owned())
            .collect();
    }
    rows.first()
        .and_then(Value::as_object)
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

/// The run's parameters: `<out>/run.json` when the run wrote one, else what the tables'
/// metadata say.
fn run_info(out: &Path) -> Map<String, Value> {
    std::fs::read_to_string(out.join("run.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .and_then(|v| v.as_object().cloned())
        .unwrap_or_default()
}

/// A key–value list.
fn dl(s: &mut String, m: &Map<String, Value>) {
    s.push_str("<dl class=\"meta\">");
    for (k, v) in m {
        let _ = write!(s, "<dt>{}</dt><dd>{}</dd>", esc(k), esc(&cell(v)));
    }
    s.push_str("</dl>\n");
}

/// The comparison entries of `experiment` from the run's `comparison.json`.
fn comparison(s: &mut String, cmp: Option<&Value>, experiment: &str) {
    let Some(entries) = cmp.and_then(|c| c.get("entries")).and_then(Value::as_array) else {
        s.push_str(
            "<p class=\"note\">No comparison: this is the committed reference itself (a run's page \
             compares every number with it and with the papers' values).</p>\n",
        );
        return;
    };
    let mine: Vec<&Value> = entries
        .iter()
        .filter(|e| {
            e.get("table")
                .and_then(Value::as_str)
                .is_some_and(|t| t.starts_with(&format!("{experiment}/")))
        })
        .collect();
    let count = |v: &str| mine.iter().filter(|e| e["verdict"] == v).count();
    let _ = writeln!(
        s,
        "<p class=\"cmp\">Against the committed reference: <b class=\"agree\">{} agree</b>, \
         <b class=\"differ\">{} differ</b>, {} shown only (another effort or seed). Tolerance \
         per number: max(0.02, 2 × the larger seed std).</p>",
        count("agree"),
        count("differ"),
        count("informational")
    );
    if mine.is_empty() {
        return;
    }
    s.push_str("<details><summary>every compared number</summary><table><thead><tr><th>table</th><th>row</th><th>column</th><th>run</th><th>reference</th><th>paper</th><th>tolerance</th><th>verdict</th></tr></thead><tbody>\n");
    for e in mine {
        let verdict = e["verdict"].as_str().unwrap_or("");
        let _ = writeln!(
            s,
            "<tr class=\"{verdict}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{verdict}</td></tr>",
            esc(&cell(&e["table"])),
            esc(&cell(&e["key"])),
            esc(&cell(&e["column"])),
            cell(&e["run"]),
            cell(&e["reference"]),
            esc(&cell(&e["paper"])),
            cell(&e["tolerance"]),
        );
    }
    s.push_str("</tbody></table></details>\n");
}

/// One experiment's section.
fn section(s: &mut String, out: &Path, experiment: &str, cmp: Option<&Value>) -> Result<()> {
    let dir = out.join(experiment);
    let _ = writeln!(s, "<section id=\"{experiment}\"><h2>{experiment}</h2>");
    comparison(s, cmp, experiment);
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    files.sort();
    let plots: Vec<&String> = files.iter().filter(|f| f.ends_with(".svg")).collect();
    if !plots.is_empty() {
        s.push_str("<div class=\"plots\">\n");
        for f in plots {
            let bytes = std::fs::read(dir.join(f))?;
            let _ = writeln!(
                s,
                "<figure><img alt=\"{}\" src=\"data:image/svg+xml;base64,{}\"><figcaption>{}</figcaption></figure>",
                esc(f),
                base64::engine::general_purpose::STANDARD.encode(&bytes),
                esc(f)
            );
        }
        s.push_str("</div>\n");
    }
    for f in files.iter().filter(|f| f.ends_with(".json")) {
        let stem = f.trim_end_matches(".json");
        let text = std::fs::read_to_string(dir.join(f))?;
        let Ok(v) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        let Some(rows) = v.get("rows").and_then(Value::as_array) else {
            continue;
        };
        let title = v.get("title").and_then(Value::as_str).unwrap_or(stem);
        let _ = writeln!(
            s,
            "<h3 id=\"{experiment}-{stem}\">{} <span class=\"file\">{stem}.csv</span></h3>",
            esc(title)
        );
        if let Some(m) = v.get("meta").and_then(Value::as_object) {
            dl(s, m);
        }
        let cols = columns(&dir, stem, rows);
        s.push_str("<div class=\"scroll\"><table><thead><tr>");
        for c in &cols {
            let _ = write!(s, "<th>{}</th>", esc(c));
        }
        s.push_str("</tr></thead><tbody>\n");
        for r in rows {
            s.push_str("<tr>");
            for c in &cols {
                let _ = write!(
                    s,
                    "<td>{}</td>",
                    esc(&cell(r.get(c).unwrap_or(&Value::Null)))
                );
            }
            s.push_str("</tr>\n");
        }
        s.push_str("</tbody></table></div>\n");
        if let Some(notes) = v.get("notes").and_then(Value::as_array)
            && !notes.is_empty()
        {
            s.push_str("<ul class=\"notes\">");
            for n in notes {
                let _ = write!(s, "<li>{}</li>", esc(n.as_str().unwrap_or("")));
            }
            s.push_str("</ul>\n");
        }
    }
    s.push_str("</section>\n");
    Ok(())
}

const CSS: &str = "body{font-family:sans-serif;max-width:1200px;margin:1em auto;padding:0 1em;color:#222}\
h2{border-bottom:2px solid #0072b2;padding-bottom:.2em;margin-top:2em}h3{margin-top:1.6em}\
.file{font-weight:normal;color:#777;font-size:.8em}\
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}th,td{border:1px solid #ccc;padding:2px 6px;text-align:right}\
th{background:#f3f3f3;position:sticky;top:0}td:first-child,th:first-child{text-align:left}\
.scroll{max-height:420px;overflow:auto}.plots{display:flex;flex-wrap:wrap;gap:12px}\
figure{margin:0;border:1px solid #ddd;padding:4px}figure img{max-width:560px;height:auto;display:block}\
figcaption{font-size:.8em;color:#555}dl.meta{display:grid;grid-template-columns:max-content auto;gap:0 1em;font-size:.85em}\
dt{color:#555}dd{margin:0}.agree{color:#009e73}.differ{color:#d55e00}tr.differ td{background:#fdece2}\
.note{color:#555}nav a{margin-right:1em}";

/// Writes `<out>/index.html` for the experiments present in `out`; returns its path.
///
/// # Errors
/// When a folder or table of `out` cannot be read, or the page cannot be written.
pub(crate) fn write(out: &Path) -> Result<std::path::PathBuf> {
    let present: Vec<&str> = experiments().filter(|e| out.join(e).is_dir()).collect();
    let cmp: Option<Value> = std::fs::read_to_string(out.join("comparison.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    let mut s = String::new();
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>dpgraph: results</title>\
         <style>{CSS}</style></head><body>\n<h1>dpgraph: results of a run</h1>\n"
    );
    let mut info = run_info(out);
    if info.is_empty() {
        info.insert(
            "run".into(),
            "committed reference results (parameters per table below; wall time not recorded)"
                .into(),
        );
    }
    dl(&mut s, &info);
    s.push_str("<nav>");
    for e in &present {
        let _ = write!(s, "<a href=\"#{e}\">{e}</a>");
    }
    s.push_str("</nav>\n");
    for e in &present {
        section(&mut s, out, e, cmp.as_ref())?;
    }
    s.push_str("</body></html>\n");
    crate::output::write(out, "index.html", s.as_bytes())?;
    Ok(out.join("index.html"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_short_and_escaped() {
        assert_eq!(cell(&serde_json::json!(0.123456)), "0.1235");
        assert_eq!(cell(&serde_json::json!(3)), "3");
        assert_eq!(cell(&serde_json::json!(1.5e-7)), "1.500e-7");
        assert_eq!(cell(&Value::Null), "–");
        assert_eq!(esc("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }

    #[test]
    fn page_has_every_table_and_plot_and_fetches_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let exp = dir.path().join("gnn");
        std::fs::create_dir_all(&exp).unwrap();
        let table = serde_json::json!({
            "title": "GNN <accuracy>",
            "meta": {"seed": 42, "effort": "quick"},
            "notes": ["a note"],
            "rows": [{"model": "gcn", "mean": 0.88}, {"model": "gat", "mean": 0.87}],
        });
        std::fs::write(exp.join("accuracy.json"), table.to_string()).unwrap();
        std::fs::write(exp.join("accuracy.csv"), "model,mean\ngcn,0.88\ngat,0.87\n").unwrap();
        crate::figures::draw(Experiment::Gnn, &exp).ok();
        std::fs::write(
            exp.join("x.svg"),
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"/>",
        )
        .unwrap();
        let page = std::fs::read_to_string(write(dir.path()).unwrap()).unwrap();
        assert!(page.contains("GNN &lt;accuracy&gt;"));
        assert_eq!(page.matches("<tr><td>").count(), 2, "both rows");
        assert!(page.contains("data:image/svg+xml;base64,"));
        assert!(page.contains("a note") && page.contains("committed reference itself"));
        for forbidden in ["http://", "https://", "<script", "<link"] {
            let outside_svg_ns = page.replace("http://www.w3.org/2000/svg", "");
            assert!(!outside_svg_ns.contains(forbidden), "{forbidden}");
        }
    }
}
