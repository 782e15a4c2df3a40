//! The plots of each experiment, drawn from its tables as written to disk (`<stem>.json`): the
//! same code draws a fresh run's plots and redraws the committed reference results
//! (`cargo xtask report --dir results`) without rerunning anything.

use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{Map, Value};

use crate::cli::Experiment;
use crate::plot::{Plot, Point, Reference, Scale, render};

/// A table row as read back from JSON.
type Row = Map<String, Value>;

/// The rows of `<dir>/<stem>.json`, `None` when the table was not written.
fn rows(dir: &Path, stem: &str) -> Result<Option<Vec<Row>>> {
    let path = dir.join(format!("{stem}.json"));
    if !path.exists() {
        return Ok(None);
    }
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let v: Value =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    let rows = v
        .get("rows")
        .and_then(Value::as_array)
        .with_context(|| format!("{}: no rows", path.display()))?;
    Ok(Some(
        rows.iter().filter_map(|r| r.as_object().cloned()).collect(),
    ))
}

/// A number of a row (a JSON number, or a string holding one, e.g. ε written as "0.5").
fn num(r: &Row, k: &str) -> Option<f64> {
    match r.get(k)? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

/// A string of a row.
fn text(r: &Row, k: &str) -> String {
    match r.get(k) {
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => String::new(),
    }
}

/// Writes `plot` as `<stem>.svg` and `<stem>.png`; returns the file names written.
fn emit(dir: &Path, stem: &str, plot: &Plot) -> Result<Vec<String>> {
    crate::output::write(dir, &format!("{stem}.svg"), render::svg(plot)?.as_bytes())?;
    let mut out = vec![format!("{stem}.svg")];
    if render::png(plot, &dir.join(format!("{stem}.png")))? {
        out.push(format!("{stem}.png"));
    }
    Ok(out)
}

/// Draws the plots of `experiment` from its tables in `dir`; returns the files written.
///
/// # Errors
/// When a table cannot be read or a plot cannot be written.
pub(crate) fn draw(experiment: Experiment, dir: &Path) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for (stem, plot) in plots(experiment, dir)? {
        out.extend(emit(dir, &stem, &plot)?);
    }
    Ok(out)
}

/// The plots of `experiment` with their file stems.
fn plots(experiment: Experiment, dir: &Path) -> Result<Vec<(String, Plot)>> {
    let mut out = Vec::new();
    match experiment {
        Experiment::Foundation => {
            if let Some(r) = rows(dir, "datasets")? {
                out.push(("datasets".into(), datasets(&r)));
            }
            if let Some(r) = rows(dir, "generators")? {
                out.push(("generators".into(), generators(&r)));
            }
            if let Some(r) = rows(dir, "partitions")? {
                out.push(("partitions".into(), partitions(&r)));
            }
        }
        Experiment::Gnn => {
            if let Some(r) = rows(dir, "accuracy")? {
                out.push(("accuracy".into(), gnn(&r)));
            }
        }
        Experiment::Homdp => {
            if let Some(r) = rows(dir, "main")? {
                out.push(("main".into(), homdp_main(&r)));
            }
            if let Some(r) = rows(dir, "curve")? {
                out.push(("curve".into(), homdp_curve(&r)));
            }
            if let Some(r) = rows(dir, "q1_sbm")? {
                out.push(("q1_sbm".into(), homdp_q1(&r)));
            }
            if let Some(r) = rows(dir, "q2_treewidth")? {
                out.push(("q2_treewidth".into(), homdp_q2(&r)));
            }
        }
        Experiment::Edgerefine => {
            if let Some(r) = rows(dir, "accuracy")? {
                out.extend(edgerefine_accuracy(&r));
            }
            if let Some(r) = rows(dir, "mutag")? {
                out.extend(edgerefine_mutag(&r));
            }
            if let Some(r) = rows(dir, "k_sweep")? {
                out.extend(edgerefine_k_sweep(&r, "k_sweep_"));
            }
            if let Some(r) = rows(dir, "k_sweep_models")? {
                for (model, g) in group_by(&r, "model") {
                    out.extend(edgerefine_k_sweep(&g, &format!("k_sweep_{model}_")));
                }
            }
            if let Some(r) = rows(dir, "blink_cora")? {
                out.push(("blink_cora".into(), blink(&r)));
            }
        }
        Experiment::Cefedgnn => {
            if let Some(r) = rows(dir, "local_steps")? {
                out.push(("f1_over_k".into(), cefedgnn_k(&r)));
            }
            if let Some(r) = rows(dir, "privacy")? {
                out.push(("eps_over_sigma0".into(), cefedgnn_eps(&r)));
                out.push(("f1_over_sigma0".into(), cefedgnn_f1_sigma(&r)));
            }
            if let Some(r) = rows(dir, "clip")? {
                out.push(("f1_over_clip".into(), cefedgnn_clip(&r)));
            }
            if let Some(r) = rows(dir, "convergence")? {
                out.push(("grad_over_t".into(), cefedgnn_convergence(&r)));
            }
            if let Some(r) = rows(dir, "methods")?
                && r.iter().any(|x| num(x, "cross_edge_share").is_some())
            {
                out.push(("f1_over_cross_share".into(), cefedgnn_cross(&r)));
            }
        }
    }
    Ok(out)
}

fn datasets(rows: &[Row]) -> Plot {
    let mut p = Plot::new(
        "Installed datasets: size",
        "nodes (all graphs of a collection)",
        "edges",
    )
    .scales(Scale::Log, Scale::Log);
    p.lines = false;
    for r in rows {
        if let (Some(n), Some(m)) = (num(r, "nodes"), num(r, "edges")) {
            p.add(&text(r, "task"), Point::at(n, m));
        }
    }
    p
}

fn generators(rows: &[Row]) -> Plot {
    let mut p = Plot::new(
        "Generated graphs: edges against their expectation",
        "generator",
        "edges",
    );
    p.reference_label = "expected edges".into();
    for r in rows {
        let x = p.category(&text(r, "generator"));
        if let Some(m) = num(r, "edges") {
            p.add("measured edges", Point::at(x, m));
        }
        if let Some(e) = num(r, "expected_edges") {
            p.references.push(Reference {
                x,
                y: e,
                series: Some(0),
            });
        }
    }
    p.y_scale = Scale::Log;
    p
}

fn partitions(rows: &[Row]) -> Plot {
    let mut p = Plot::new(
        "Partitions: share of edges crossing parts",
        "partition",
        "cross-part share of edges",
    );
    for r in rows {
        let x = p.category(&text(r, "partition"));
        if let Some(s) = num(r, "cross_share") {
            p.add("cross-part share", Point::at(x, s));
        }
    }
    p
}

/// The threshold of a `required` cell such as ">= 0.865".
fn required(cell: &str) -> Option<f64> {
    cell.trim_start_matches(['>', '=', ' ']).trim().parse().ok()
}

fn gnn(rows: &[Row]) -> Plot {
    let mut p = Plot::new(
        "GNNs on clean data: test accuracy (mean over seeds)",
        "model",
        "test accuracy",
    );
    p.reference_label = "required accuracy".into();
    for r in rows {
        let x = p.category(&text(r, "model"));
        let k = p.series_index(&text(r, "dataset"));
        if let Some(m) = num(r, "mean") {
            p.add(&text(r, "dataset"), Point::mean_std(x, m, num(r, "std")));
        }
        if let Some(v) = required(&text(r, "required")) {
            p.references.push(Reference {
                x,
                y: v,
                series: Some(k),
            });
        }
    }
    p
}

fn homdp_main(rows: &[Row]) -> Plot {
    let mut p = Plot::new(
        "homdp: score per dataset (clean test rows)",
        "dataset",
        "ROC-AUC (RMSE for Lipophilicity, accuracy for REDDIT)",
    );
    for r in rows {
        // The embedding's rows and the |V(G)|-only control (a table from before the `kind`
        // column holds the embedding's rows only).
        let kind = text(r, "kind");
        if text(r, "test_rows") != "clean"
            || !["", "embedding", "nodes-only"].contains(&kind.as_str())
        {
            continue;
        }
        let name = match (kind.as_str(), text(r, "bound").as_str()) {
            ("nodes-only", _) => "|V(G)| alone (control, public)",
            (_, "components") => "ρ = 0.01, component-aware bound",
            (_, "paper") => "ρ = 0.01, the paper's bound (Thm 4.5)",
            _ => "non-private",
        };
        let x = p.category(&text(r, "dataset"));
        let k = p.series_index(name);
        if let Some(v) = num(r, "value") {
            p.add(name, Point::mean_std(x, v, num(r, "std")));
        }
        // The paper's value once per dataset and setting (the paper has one ρ = 0.01 number).
        if let Some(v) = num(r, "paper_value")
            && text(r, "bound") != "paper"
            && kind != "nodes-only"
        {
            p.references.push(Reference {
                x,
                y: v,
                series: Some(k),
            });
        }
    }
    p
}

/// Adds to `p` one point per row: series `name(row)`, x and y from the columns `x` and `y`,
/// the spread from the column `std` when there is one (rows missing x or y are left out).
fn fill(p: &mut Plot, rows: &[Row], name: impl Fn(&Row) -> String, x: &str, y: &str) {
    for r in rows {
        if let (Some(a), Some(b)) = (num(r, x), num(r, y)) {
            p.add(&name(r), Point::mean_std(a, b, num(r, "std")));
        }
    }
}

fn homdp_curve(rows: &[Row]) -> Plot {
    let mut p = Plot::new(
        "homdp: privacy–utility curve",
        "ρ (zCDP per graph)",
        "ROC-AUC (RMSE for Lipophilicity)",
    )
    .scales(Scale::Log, Scale::Linear);
    let name = |r: &Row| format!("{} ({} bound)", text(r, "dataset"), text(r, "bound"));
    fill(&mut p, rows, name, "rho", "value");
    p
}

fn homdp_q1(rows: &[Row]) -> Plot {
    let mut p = Plot::new(
        "homdp Q1: SBM accuracy, cycles against trees",
        "ρ (zCDP per graph)",
        "test accuracy",
    )
    .scales(Scale::Log, Scale::Linear);
    let name = |r: &Row| format!("{} ({} bound)", text(r, "patterns"), text(r, "bound"));
    fill(&mut p, rows, name, "rho", "accuracy");
    p
}

fn homdp_q2(rows: &[Row]) -> Plot {
    let mut p = Plot::new(
        "homdp Q2: HIV ROC-AUC against pattern treewidth (ρ = 0.01)",
        "treewidth of the patterns",
        "ROC-AUC",
    );
    // One series per pattern block (a table from before the `patterns` column has the
    // paper's law only), bound and test rows.
    let name = |r: &Row| {
        let block = match text(r, "patterns").as_str() {
            "" | "paper-law" => String::new(),
            b => format!("{b}, "),
        };
        format!(
            "{block}{} bound, {} test rows",
            text(r, "bound"),
            text(r, "test_rows")
        )
    };
    fill(&mut p, rows, name, "treewidth", "roc_auc");
    p
}

/// Accuracy over ε of the methods of `rows` (methods without ε drawn flat across the ε range).
fn over_eps(rows: &[Row], title: &str) -> Plot {
    let mut p = Plot::new(
        title,
        "ε (edge local DP)",
        "test accuracy (mean over seeds)",
    );
    let eps: Vec<f64> = rows.iter().filter_map(|r| num(r, "eps")).collect();
    let lo = eps.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = eps.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    for r in rows {
        let (method, Some(m)) = (text(r, "method"), num(r, "acc_mean")) else {
            continue;
        };
        let sd = num(r, "acc_std");
        match num(r, "eps") {
            Some(e) => p.add(&method, Point::mean_std(e, m, sd)),
            None if lo.is_finite() => {
                p.add(&method, Point::mean_std(lo, m, sd));
                p.add(&method, Point::mean_std(hi, m, sd));
            }
            None => {}
        }
    }
    for s in &mut p.series {
        s.points.sort_by(|a, b| a.x.total_cmp(&b.x));
    }
    p
}

fn edgerefine_accuracy(rows: &[Row]) -> Vec<(String, Plot)> {
    let mut groups: Vec<((String, String), Vec<Row>)> = Vec::new();
    for r in rows {
        let key = (text(r, "dataset"), text(r, "model"));
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, g)) => g.push(r.clone()),
            None => groups.push((key, vec![r.clone()])),
        }
    }
    groups
        .into_iter()
        .map(|((ds, model), g)| {
            let title = format!(
                "EdgeRefine protocol on {ds} ({}): test accuracy over ε",
                model.to_uppercase()
            );
            (format!("accuracy_{ds}_{model}"), over_eps(&g, &title))
        })
        .collect()
}

/// Rows grouped by the text of `column`, groups in first-appearance order.
fn group_by(rows: &[Row], column: &str) -> Vec<(String, Vec<Row>)> {
    let mut groups: Vec<(String, Vec<Row>)> = Vec::new();
    for r in rows {
        let key = text(r, column);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, g)) => g.push(r.clone()),
            None => groups.push((key, vec![r.clone()])),
        }
    }
    groups
}

/// One plot per MUTAG model (`mutag_<model>`).
fn edgerefine_mutag(rows: &[Row]) -> Vec<(String, Plot)> {
    group_by(rows, "model")
        .into_iter()
        .map(|(model, g)| {
            // Tables written before MUTAG ran several models have no `model` column (GIN).
            let (stem, model) = if model.is_empty() {
                ("mutag".to_string(), "GIN".to_string())
            } else {
                (format!("mutag_{model}"), model)
            };
            let title = format!("EdgeRefine protocol on MUTAG ({model}): test accuracy over ε");
            (stem, over_eps(&g, &title))
        })
        .collect()
}

/// One plot per k-sweep dataset (`<prefix><dataset>`): accuracy over k per ε (the default
/// calibration), beside the features-only accuracy.
fn edgerefine_k_sweep(rows: &[Row], prefix: &str) -> Vec<(String, Plot)> {
    group_by(rows, "dataset")
        .into_iter()
        .map(|(ds, g)| {
            let model = g.first().map(|r| text(r, "model")).unwrap_or_default();
            let mut p = Plot::new(
                &format!(
                    "EdgeRefine on {ds} ({model}): accuracy over the sampling rate k (B = 10)"
                ),
                "k (K = ⌊k·E⌋ released edges)",
                "test accuracy (mean over seeds)",
            )
            .scales(Scale::Log, Scale::Linear);
            for r in g.iter().filter(|r| text(r, "calibration") == "B=10") {
                let (Some(k), Some(e), Some(m)) = (num(r, "k"), num(r, "eps"), num(r, "acc_mean"))
                else {
                    continue;
                };
                p.add(
                    &format!("ε = {e}"),
                    Point::mean_std(k, m, num(r, "acc_std")),
                );
                if let Some(f) = num(r, "features_only") {
                    p.add("features only", Point::at(k, f));
                }
            }
            for s in &mut p.series {
                s.points.sort_by(|a, b| a.x.total_cmp(&b.x));
                s.points.dedup_by(|a, b| a.x == b.x);
            }
            (format!("{prefix}{ds}"), p)
        })
        .collect()
}

fn blink(rows: &[Row]) -> Plot {
    let mut p = over_eps(
        rows,
        "Blink's own protocol on Cora (GCN) against its published numbers",
    );
    for r in rows {
        let Some(v) = num(r, "published") else {
            continue;
        };
        let k = p.series_index(&text(r, "method"));
        let x = num(r, "eps").unwrap_or_else(|| p.series[k].points.first().map_or(0.0, |q| q.x));
        p.references.push(Reference {
            x,
            y: v,
            series: Some(k),
        });
    }
    p
}

fn cefedgnn_k(rows: &[Row]) -> Plot {
    let mut p = Plot::new(
        "F1 over the local steps K, per setting and method",
        "K (local steps between exchanges)",
        "test F1 (mean over clients and seeds)",
    )
    .scales(Scale::Log, Scale::Linear);
    // One series per setting and method (tables before the K sweep had no method column).
    let series = |r: &Row| {
        let m = text(r, "method");
        if m.is_empty() {
            text(r, "setting")
        } else {
            format!("{} {m}", text(r, "setting"))
        }
    };
    fill(&mut p, rows, series, "K", "f1_mean");
    p
}

/// CE-FedGNN's test F1 over the clip norm C, one series per setting and held quantity.
fn cefedgnn_clip(rows: &[Row]) -> Plot {
    let mut p = Plot::new(
        "CE-FedGNN: F1 over the clip norm C (held: the noise σ, or σ₀)",
        "C (clip norm of released rows)",
        "test F1 (mean over clients and seeds)",
    )
    .scales(Scale::Log, Scale::Linear);
    fill(
        &mut p,
        rows,
        |r| format!("{} held {}", text(r, "setting"), text(r, "held")),
        "clip",
        "f1_mean",
    );
    p
}

/// The convergence theorem's quantity over T on log-log axes, one series per setting (the
/// theorem: a slope of at most −1/2).
fn cefedgnn_convergence(rows: &[Row]) -> Plot {
    let mut p = Plot::new(
        "CE-FedGNN: mean squared gradient norm of the global objective over T (theorem: slope ≤ −1/2)",
        "T (local steps per client; η, γ, β ∝ T^-1/2, K ∝ T^1/4)",
        "mean over round starts of ‖∇F(W)‖² (mean over seeds)",
    )
    .scales(Scale::Log, Scale::Log);
    fill(
        &mut p,
        rows,
        |r| text(r, "setting"),
        "T",
        "grad_norm_sq_avg",
    );
    p
}

/// Test F1 against the share of edges that cross clients, one series per method, one point per
/// citation setting (where sharing could help: the more edges cross, the more it could bring).
fn cefedgnn_cross(rows: &[Row]) -> Plot {
    let mut p = Plot::new(
        "F1 against the share of edges crossing clients, per method (citation settings)",
        "cross-client share of edges",
        "test macro-F1 (mean over clients and seeds)",
    );
    p.lines = false;
    for r in rows {
        if text(r, "setting").starts_with("aml") {
            continue;
        }
        if let (Some(x), Some(y)) = (num(r, "cross_edge_share"), num(r, "f1_mean")) {
            p.add(&text(r, "method"), Point::at(x, y));
        }
    }
    p
}

/// CE-FedGNN's test F1 over σ₀, one series per setting (at which noise sharing still pays).
fn cefedgnn_f1_sigma(rows: &[Row]) -> Plot {
    let mut p = Plot::new(
        "CE-FedGNN: test F1 over σ₀, per setting",
        "σ₀ (noise of the embedding release)",
        "test F1 (mean over clients and seeds)",
    );
    fill(&mut p, rows, |r| text(r, "setting"), "sigma0", "f1_mean");
    p
}

fn cefedgnn_eps(rows: &[Row]) -> Plot {
    let mut p = Plot::new(
        "CE-FedGNN: ε(p) of the boundary releases over σ₀",
        "σ₀ (noise of the embedding release)",
        "ε(p) at δ = 1e-5",
    )
    .scales(Scale::Linear, Scale::Log);
    for r in rows {
        let Some(s) = num(r, "sigma0") else { continue };
        let setting = text(r, "setting");
        if let Some(e) = num(r, "eps_p_rdp") {
            p.add(&format!("{setting} (RDP)"), Point::at(s, e));
        }
        if let Some(e) = num(r, "eps_p_closed_form") {
            p.add(&format!("{setting} (closed form)"), Point::at(s, e));
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn row(v: Value) -> Row {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn edgerefine_rows_become_series_with_spread_and_flat_baselines() {
        let rows = vec![
            row(
                json!({"dataset": "cora", "model": "gcn", "method": "non-private", "eps": "-", "acc_mean": 0.88, "acc_std": 0.01}),
            ),
            row(
                json!({"dataset": "cora", "model": "gcn", "method": "EdgeRefine k=1", "eps": "2.0", "acc_mean": 0.8, "acc_std": 0.02}),
            ),
            row(
                json!({"dataset": "cora", "model": "gcn", "method": "EdgeRefine k=1", "eps": "1.0", "acc_mean": 0.7, "acc_std": 0.03}),
            ),
            row(
                json!({"dataset": "acm", "model": "gat", "method": "EdgeRefine k=1", "eps": "1.0", "acc_mean": 0.6, "acc_std": null}),
            ),
        ];
        let plots = edgerefine_accuracy(&rows);
        assert_eq!(plots.len(), 2);
        let (stem, p) = &plots[0];
        assert_eq!(stem, "accuracy_cora_gcn");
        assert_eq!(p.series[0].name, "non-private");
        assert_eq!(
            p.series[0].points,
            vec![
                Point::mean_std(1.0, 0.88, Some(0.01)),
                Point::mean_std(2.0, 0.88, Some(0.01))
            ]
        );
        // Sorted by ε, spread kept.
        assert_eq!(p.series[1].points[0], Point::mean_std(1.0, 0.7, Some(0.03)));
        assert_eq!(plots[1].1.series[0].points[0].spread, None);
    }

    #[test]
    fn mutag_plots_one_per_model_and_the_old_table_keeps_its_name() {
        let r = |model: Option<&str>, method: &str, eps: &str, acc: f64| {
            let mut v = json!({"method": method, "eps": eps, "acc_mean": acc, "acc_std": 0.01});
            if let Some(m) = model {
                v["model"] = json!(m);
            }
            row(v)
        };
        let new = vec![
            r(Some("graph-gin"), "SymRR", "1.0", 0.7),
            r(Some("graph-gcn"), "SymRR", "1.0", 0.6),
        ];
        let stems: Vec<String> = edgerefine_mutag(&new).into_iter().map(|x| x.0).collect();
        assert_eq!(stems, ["mutag_graph-gin", "mutag_graph-gcn"]);
        let old = vec![r(None, "SymRR", "1.0", 0.7)];
        let plots = edgerefine_mutag(&old);
        assert_eq!(plots.len(), 1);
        assert_eq!(plots[0].0, "mutag");
        assert!(plots[0].1.title.contains("(GIN)"), "{}", plots[0].1.title);
    }

    #[test]
    fn edgerefine_k_sweep_plots_accuracy_over_k_beside_features_only() {
        let r = |cal: &str, eps: f64, k: f64, acc: f64| {
            row(
                json!({"dataset": "cora", "calibration": cal, "eps": eps, "k": k, "acc_mean": acc, "acc_std": 0.01, "features_only": 0.75}),
            )
        };
        let rows = vec![
            r("B=10", 1.0, 1.0, 0.4),
            r("B=10", 1.0, 0.01, 0.74),
            r("B=10 reference", 1.0, 0.01, 0.73),
        ];
        let plots = edgerefine_k_sweep(&rows, "k_sweep_");
        assert_eq!(plots.len(), 1);
        let (stem, p) = &plots[0];
        assert_eq!(stem, "k_sweep_cora");
        let names: Vec<&str> = p.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["ε = 1", "features only"]);
        let xs: Vec<f64> = p.series[0].points.iter().map(|q| q.x).collect();
        assert_eq!(xs, [0.01, 1.0], "sorted by k, the variant left out");
        assert_eq!(p.series[1].points.len(), 2, "one features-only point per k");
    }

    #[test]
    fn paper_values_become_references_beside_their_series() {
        let rows = vec![
            row(
                json!({"dataset": "HIV", "bound": "components", "test_rows": "clean", "value": 0.71, "std": 0.002, "paper_value": 0.692}),
            ),
            row(
                json!({"dataset": "HIV", "bound": "paper", "test_rows": "clean", "value": 0.72, "std": 0.001, "paper_value": 0.692}),
            ),
            row(
                json!({"dataset": "HIV", "bound": "-", "test_rows": "clean", "value": 0.75, "std": 0.005, "paper_value": 0.745}),
            ),
            row(
                json!({"dataset": "HIV", "bound": "components", "test_rows": "noisy", "value": 0.7, "std": 0.003, "paper_value": 0.692}),
            ),
        ];
        let p = homdp_main(&rows);
        assert_eq!(p.series.len(), 3, "noisy test rows are not drawn");
        // The |V(G)|-only control is a series of its own; the other controls and the GIN rows
        // are not drawn.
        let mut more = rows.clone();
        for kind in ["nodes-only", "without-nodes", "gin-rr"] {
            more.push(row(
                json!({"dataset": "HIV", "kind": kind, "bound": "-", "test_rows": "clean", "value": 0.6, "std": 0.0}),
            ));
        }
        let q = homdp_main(&more);
        assert_eq!(q.series.len(), 4);
        assert_eq!(q.series[3].name, "|V(G)| alone (control, public)");
        assert_eq!(q.references.len(), 2);
        assert_eq!(p.categories, Some(vec!["HIV".to_string()]));
        assert_eq!(
            p.references,
            vec![
                Reference {
                    x: 0.0,
                    y: 0.692,
                    series: Some(0)
                },
                Reference {
                    x: 0.0,
                    y: 0.745,
                    series: Some(2)
                },
            ]
        );
        assert_eq!(required(">= 0.865"), Some(0.865));
    }

    #[test]
    fn committed_results_draw_without_error() {
        let root = crate::project_root().join("results");
        for e in Experiment::ALL {
            let plots = plots(e, &root.join(e.name())).unwrap();
            assert!(!plots.is_empty(), "{e:?}");
            for (stem, p) in plots {
                assert!(!p.series.is_empty(), "{e:?}/{stem} has data");
                let svg = render::svg(&p).unwrap();
                assert!(
                    svg.starts_with("<svg") && svg.contains("</svg>"),
                    "{e:?}/{stem}"
                );
            }
        }
    }
}
