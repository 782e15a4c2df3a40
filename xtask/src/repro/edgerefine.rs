//! `cargo xtask repro edgerefine`: node-classification accuracy of GNNs trained on graphs
//! released under local edge-DP, over ε, per dataset and model, next to the non-private graph
//! and the features-only model; plus the structure of each release (density, true-edge
//! precision and recall) and publish/training times.

use anyhow::Result;
use edgerefine::TieBreak;
use edgerefine::attack::{AttackParams, grand_attack, release_rae};
use edgerefine::baselines::BlinkVariant;
use edgerefine::eval::{Method, TrainPlan, release, structure, train_on_release};
use edgerefine::metrics::stability;
use graph_core::registry::{Dataset, data_dir};
use graph_core::{NodeDataset, Registry};
use serde_json::json;

use super::{Ctx, Effort};
use crate::output::{Table, write};
use crate::plot::{Scale, Series, line_plot};

struct Plan {
    datasets: Vec<&'static str>,
    models: Vec<&'static str>,
    eps: Vec<f64>,
    seeds: Vec<u64>,
    max_epochs: usize,
    patience: usize,
}

fn plan(effort: Effort) -> Plan {
    match effort {
        Effort::Quick => Plan {
            datasets: vec!["cora"],
            models: vec!["edgerefine-gcn"],
            eps: vec![1.0, 2.0, 3.0],
            seeds: vec![0, 1],
            max_epochs: 200,
            patience: 50,
        },
        Effort::Full => Plan {
            datasets: vec!["cora", "acm", "dblp", "amap"],
            models: vec!["edgerefine-gcn", "edgerefine-gat", "edgerefine-gin"],
            eps: vec![0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5],
            seeds: vec![0, 1, 2, 3, 4],
            max_epochs: 700,
            patience: 100,
        },
    }
}

fn mean_std(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let var = if v.len() > 1 {
        v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    (m, var.sqrt())
}

pub(crate) fn run(ctx: &Ctx) -> Result<()> {
    let dir = ctx.out.join("edgerefine");
    let p = plan(ctx.effort);
    let data = data_dir();
    let mut methods = vec![
        Method::EdgeRefine {
            k: 0.01,
            tie_break: TieBreak::Reference,
        },
        Method::EdgeRefine {
            k: 0.01,
            tie_break: TieBreak::Default,
        },
        Method::EdgeRefine {
            k: 1.0,
            tie_break: TieBreak::Default,
        },
        Method::Blink(BlinkVariant::Hard),
        Method::Blink(BlinkVariant::Hybrid),
        Method::Dprr,
        Method::LdpGen,
    ];
    if ctx.effort == Effort::Full {
        // Dense releases (hundreds of thousands to millions of edges): slow to train on.
        methods.extend([Method::SymRr, Method::Rr, Method::Blink(BlinkVariant::Soft)]);
    }
    let mut acc = Table::new(
        "Node classification accuracy on released graphs (mean ± std over seeds)",
        &[
            "dataset",
            "model",
            "method",
            "eps",
            "acc_mean",
            "acc_std",
            "runs",
            "edges",
            "density",
            "precision",
            "recall",
            "publish_s",
            "train_s",
        ],
    );
    acc.meta = ctx.meta();
    acc.meta.insert("seeds".into(), json!(p.seeds));
    acc.meta
        .insert("split".into(), json!("60/20/20 random per seed"));
    acc.meta.insert("max_epochs".into(), json!(p.max_epochs));
    acc.meta.insert("patience".into(), json!(p.patience));
    acc.notes.push("E (the true edge count) is treated as public, as in the paper; k = 0.01 is the authors' default (K = 1% of E), k = 1 releases as many edges as the true graph.".into());
    acc.notes.push("`no graph (features only)` trains the same GNN without edges: with K = 1% of E, EdgeRefine's accuracy comes mostly from the features.".into());
    acc.notes.push("The reference tie-break is the authors' row-major order (it releases stars on the first nodes); the default orders ties by Jaccard, then a seeded order.".into());
    acc.notes.push("Blink is the original of Zhu et al. (CCS 2023) with δ_b = 0.1 (our default: the paper tunes it per dataset), not the variant inside the EdgeRefine artifact. RR, Blink, LDPGen and DPRR let both endpoints report a pair, so their whole-release edge DP is 2ε (SymRR and EdgeRefine: ε).".into());
    if ctx.effort == Effort::Quick {
        acc.notes.push(
            "--quick leaves out the dense releases (SymRR, RR, Blink-soft); --full includes them."
                .into(),
        );
    }
    let mut pubi = Table::new(
        "Privacy–utility balance over the ε grid (per-ε mean accuracies against the non-private accuracy)",
        &[
            "dataset", "model", "method", "variance", "cv", "aur", "mcf", "pubi",
        ],
    );
    pubi.meta = ctx.meta();
    let mut series: Vec<Series> = Vec::new();
    for name in &p.datasets {
        let spec = Registry::embedded().get(name)?;
        if !spec.is_installed(&data) {
            acc.notes.push(format!("{name} is not installed: skipped"));
            continue;
        }
        let Dataset::Nodes(ds) = spec.load(&data)? else {
            continue;
        };
        for model in &p.models {
            // Non-private and features-only rows (independent of ε).
            let mut origin = 0.0;
            for m in [Method::Origin, Method::NoGraph] {
                let row = evaluate(&ds, model, m, 1.0, &p)?;
                if m == Method::Origin {
                    origin = row.mean;
                }
                push_row(&mut acc, name, model, m, None, &row);
                series.push(Series {
                    name: format!("{name} {} {}", short(model), m.label()),
                    points: p.eps.iter().map(|&e| (e, row.mean)).collect(),
                });
            }
            for &m in &methods {
                let mut pts = Vec::new();
                for &eps in &p.eps {
                    let row = evaluate(&ds, model, m, eps, &p)?;
                    push_row(&mut acc, name, model, m, Some(eps), &row);
                    pts.push((eps, row.mean));
                }
                let means: Vec<f64> = pts.iter().map(|x| x.1).collect();
                let st = stability(&means, origin)?;
                pubi.push(vec![
                    json!(name),
                    json!(short(model)),
                    json!(m.label()),
                    json!(st.variance),
                    json!(st.cv),
                    json!(st.aur),
                    json!(st.mcf),
                    json!(st.pubi),
                ]);
                series.push(Series {
                    name: format!("{name} {} {}", short(model), m.label()),
                    points: pts,
                });
            }
        }
    }
    acc.write(&dir, "accuracy")?;
    pubi.write(&dir, "pubi")?;
    rae_table(ctx, &p, &dir)?;
    write(
        &dir,
        "accuracy.svg",
        line_plot(
            "Accuracy against ε (local edge-DP)",
            "ε",
            "test accuracy",
            Scale::Linear,
            Scale::Linear,
            &series,
        )
        .as_bytes(),
    )?;
    println!("{}\n{}", acc.markdown(), pubi.markdown());
    Ok(())
}

/// Reconstruction attack on the k = 1 EdgeRefine release: RAE of the GRAND-style attacker
/// (degree, common-neighbour, triangle and degree-completion steps; unknown pairs count as 2)
/// and of the attacker who takes the release itself as the adjacency.
fn rae_table(ctx: &Ctx, p: &Plan, dir: &std::path::Path) -> Result<()> {
    let data = data_dir();
    let mut t = Table::new(
        "Reconstruction attack on the k = 1 release (RAE = ‖A* − A‖²_F / ‖A‖²_F)",
        &[
            "dataset",
            "eps",
            "rae_grand",
            "decided_pairs",
            "rae_release_as_guess",
            "release_precision",
        ],
    );
    t.meta = ctx.meta();
    t.notes.push("The GRAND-style attacker implements the degree, common-neighbour and triangle steps plus degree completion (no spectral step); on sparse graphs it decides few pairs, so its RAE is large. `rae_release_as_guess` = 2·(1 − precision) when |release| = |E|: the number comparable to the paper's ≈ 1.96.".into());
    for name in &p.datasets {
        let spec = Registry::embedded().get(name)?;
        if !spec.is_installed(&data) {
            continue;
        }
        let Dataset::Nodes(ds) = spec.load(&data)? else {
            continue;
        };
        for &eps in &p.eps {
            let rel = release(
                ds.graph(),
                Method::EdgeRefine {
                    k: 1.0,
                    tie_break: TieBreak::Default,
                },
                eps,
                p.seeds[0],
            )?;
            let rec = grand_attack(&rel.graph, &AttackParams { max_rounds: 20 })?;
            let (ones, zeros, _) = rec.known();
            let s = structure(ds.graph(), &rel.graph);
            t.push(vec![
                json!(name),
                json!(eps),
                json!(rec.rae(ds.graph())?),
                json!(ones + zeros),
                json!(release_rae(&rel.graph, ds.graph())?),
                json!(s.precision),
            ]);
        }
    }
    t.write(dir, "rae")?;
    println!("{}", t.markdown());
    Ok(())
}

fn short(model: &str) -> &str {
    model.trim_start_matches("edgerefine-")
}

struct Row {
    mean: f64,
    std: f64,
    runs: Vec<f64>,
    edges: f64,
    density: f64,
    precision: f64,
    recall: f64,
    publish_s: f64,
    train_s: f64,
}

fn evaluate(ds: &NodeDataset, model: &str, m: Method, eps: f64, p: &Plan) -> Result<Row> {
    let mut runs = Vec::new();
    let (mut edges, mut density, mut prec, mut rec, mut publish, mut train) =
        (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    for &seed in &p.seeds {
        let rel = release(ds.graph(), m, eps, seed)?;
        let s = structure(ds.graph(), &rel.graph);
        let plan = TrainPlan {
            model,
            split: (0.6, 0.2),
            max_epochs: p.max_epochs,
            patience: p.patience,
            seed,
        };
        let score = train_on_release(ds, &rel.graph, rel.weights.as_deref(), &plan)?;
        runs.push(score.test_acc);
        edges += s.edges as f64;
        density += s.density;
        prec += s.precision;
        rec += s.recall;
        publish += rel.publish_s;
        train += score.train_s;
    }
    let k = p.seeds.len() as f64;
    let (mean, std) = mean_std(&runs);
    eprintln!(
        "{} {model} {} eps={eps}: {mean:.3} ± {std:.3}",
        ds.name(),
        m.label()
    );
    Ok(Row {
        mean,
        std,
        runs,
        edges: edges / k,
        density: density / k,
        precision: prec / k,
        recall: rec / k,
        publish_s: publish / k,
        train_s: train / k,
    })
}

fn push_row(t: &mut Table, dataset: &str, model: &str, m: Method, eps: Option<f64>, r: &Row) {
    let num = |x: f64| if x.is_finite() { json!(x) } else { json!(null) };
    t.push(vec![
        json!(dataset),
        json!(short(model)),
        json!(m.label()),
        eps.map_or(json!("-"), |e| json!(e)),
        json!(r.mean),
        json!(r.std),
        json!(r.runs),
        json!(r.edges),
        num(r.density),
        num(r.precision),
        num(r.recall),
        json!(r.publish_s),
        json!(r.train_s),
    ]);
}
