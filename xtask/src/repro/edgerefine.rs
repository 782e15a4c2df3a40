//! `cargo xtask repro edgerefine`: node-classification accuracy of GNNs trained on graphs
//! released under local edge-DP, over ε, per dataset and model, next to the non-private graph
//! and the features-only model; the structure of each release (density, true-edge precision
//! and recall) and its publish time; PUBI; the reconstruction attack; MUTAG graph
//! classification on per-graph releases; and Blink on Cora under its own 50/25/25 protocol.
//!
//! Every release is drawn once per (dataset, method, ε, seed) and shared by the three models.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use edgerefine::TieBreak;
use edgerefine::attack::{AttackParams, grand_attack, release_rae};
use edgerefine::baselines::{BlinkParams, BlinkVariant};
use edgerefine::eval::{
    GraphModel, Method, NodeModel, Released, TrainPlan, blink_posterior, release,
    release_graph_set, release_many, structure, train_graph_release, train_on_release,
};
use edgerefine::metrics::stability;
use edgerefine::paper::{DENSE_EDGES, DatasetPlan, Plan, VERY_DENSE_EDGES};
use gnn::Monitor;
use graph_core::registry::{Dataset, data_dir};
use graph_core::{GraphDataset, NodeDataset, Registry};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{Ctx, Effort};
use crate::output::{Table, write};
use crate::plot::{Scale, Series, line_plot};

type DsPlan = DatasetPlan;

fn mean_std(v: &[f64]) -> (f64, f64) {
    graph_core::mean_std(v).unwrap_or((f64::NAN, f64::NAN))
}

fn num(x: f64) -> serde_json::Value {
    if x.is_finite() { json!(x) } else { json!(null) }
}

/// The parts `--parts` can select.
const PARTS: [&str; 7] = ["blink", "mutag", "rae", "cora", "acm", "dblp", "amap"];

/// Which parts run: `--parts blink,mutag,rae,cora,…` (empty: all). With `--resume`, a part
/// whose output (a table, or a dataset's cache file under `<out>/edgerefine/cache/` written by
/// an identical plan) already exists is not recomputed: the long `--full` grid can run as
/// several processes and be assembled by a last run. The node grid is cached per (dataset, ε or
/// the ε-free rows, seed) chunk under `<out>/edgerefine/cache/<dataset>/`, so an interrupted
/// run loses at most one chunk. With `--budget-min m`, no new chunk starts after `m` minutes:
/// the tables are written with what has run and a note naming the chunks left for a later
/// `--resume` run.
struct Parts {
    only: Option<Vec<String>>,
    resume: bool,
    budget: Option<std::time::Duration>,
    start: Instant,
}

impl Parts {
    /// The selection of `--parts`, `--resume` and `--budget-min`; unknown parts and budgets
    /// that are not a number of minutes ≥ 0 are errors naming them.
    fn new(select: &super::Select) -> Result<Self> {
        let mut only = Vec::new();
        for x in &select.parts {
            let x = x.trim().to_ascii_lowercase();
            if !PARTS.contains(&x.as_str()) {
                bail!(
                    "--parts: unknown edgerefine part `{x}` (known: {})",
                    PARTS.join(", ")
                );
            }
            only.push(x);
        }
        let budget = match select.budget_min {
            None => None,
            Some(m) if m.is_finite() && m >= 0.0 => {
                Some(std::time::Duration::from_secs_f64(m * 60.0))
            }
            Some(m) => bail!("--budget-min must be a number of minutes ≥ 0, got {m}"),
        };
        Ok(Self {
            only: (!only.is_empty()).then_some(only),
            resume: select.resume,
            budget,
            start: Instant::now(),
        })
    }

    /// Whether the time budget (`--budget-min`) is spent.
    fn over_budget(&self) -> bool {
        self.budget.is_some_and(|b| self.start.elapsed() >= b)
    }

    fn wants(&self, part: &str) -> bool {
        self.only
            .as_ref()
            .is_none_or(|v| v.iter().any(|x| x == part))
    }

    /// Whether the table `stem` must be computed.
    fn table(&self, part: &str, dir: &Path, stem: &str) -> bool {
        self.wants(part) && !(self.resume && dir.join(format!("{stem}.json")).exists())
    }
}

pub(crate) fn run(ctx: &Ctx) -> Result<()> {
    let start = Instant::now();
    let dir = ctx.out.join("edgerefine");
    let p = match ctx.effort {
        Effort::Quick => Plan::quick(),
        Effort::Full => Plan::full(),
    };
    let parts = Parts::new(&ctx.select)?;
    // The small acceptance tables first, the long node-classification grid last (it writes its
    // tables after every dataset).
    if parts.table("blink", &dir, "blink_cora") {
        blink_protocol_table(ctx, &p, &dir)?;
    }
    if parts.table("mutag", &dir, "mutag") {
        mutag_table(ctx, &p, &dir)?;
    }
    if parts.table("rae", &dir, "rae") {
        rae_table(ctx, &p, &dir)?;
    }
    node_tables(ctx, &p, &dir, &parts)?;
    eprintln!(
        "repro edgerefine: {:.0} s in all",
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Per-release statistics summed over seeds.
#[derive(Clone, Default, Serialize, Deserialize)]
struct RelAcc {
    n: usize,
    edges: f64,
    #[serde(with = "nan_as_null")]
    density: f64,
    #[serde(with = "nan_as_null")]
    precision: f64,
    #[serde(with = "nan_as_null")]
    recall: f64,
    publish_s: f64,
}

/// Per-(model, method, ε) training results.
#[derive(Clone, Default, Serialize, Deserialize)]
struct TrainAcc {
    runs: Vec<f64>,
    train_s: f64,
    epochs: usize,
    cap: usize,
}

impl RelAcc {
    fn merge(&mut self, o: &Self) {
        self.n += o.n;
        self.edges += o.edges;
        self.density += o.density;
        self.precision += o.precision;
        self.recall += o.recall;
        self.publish_s += o.publish_s;
    }
}

impl TrainAcc {
    fn merge(&mut self, o: &Self) {
        self.runs.extend_from_slice(&o.runs);
        self.train_s += o.train_s;
        self.epochs += o.epochs;
        self.cap = o.cap;
    }
}

/// Serde for an `f64` that may be NaN (JSON has no NaN: written as `null`, read back as NaN).
mod nan_as_null {
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
        if x.is_finite() {
            s.serialize_f64(*x)
        } else {
            s.serialize_none()
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
    }
}

/// The results of one chunk of a dataset's grid — the ε-free rows or one ε, for one seed —
/// as cached under `<out>/edgerefine/cache/<dataset>/`: release statistics per method index and
/// training results per (model index, method index).
#[derive(Default, Serialize, Deserialize)]
struct Chunk {
    fingerprint: String,
    releases: Vec<(usize, RelAcc)>,
    trains: Vec<(usize, usize, TrainAcc)>,
    seconds: f64,
}

/// Key of a cell: (method index, ε index or None for the ε-free rows).
type Cell = (usize, Option<usize>);

fn node_tables(ctx: &Ctx, p: &Plan, dir: &Path, parts: &Parts) -> Result<()> {
    let data = data_dir();
    // The plots below are written before the first table.
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
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
            "max_epochs",
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
    acc.meta.insert(
        "grid".into(),
        json!(
            p.datasets
                .iter()
                .map(|d| json!({"dataset": d.name, "eps": d.eps, "max_epochs": d.max_epochs, "patience": d.patience}))
                .collect::<Vec<_>>()
        ),
    );
    acc.notes.push("E (the true edge count) is treated as public, as in the paper; k = 0.01 is the authors' default (K = 1% of E), k = 1 releases as many edges as the true graph.".into());
    acc.notes.push("`no graph (features only)` trains the same GNN without edges: with K = 1% of E, EdgeRefine's accuracy comes mostly from the features. `precision` is the share of released edges that are true edges.".into());
    acc.notes.push("The reference tie-break is the authors' row-major order (it releases stars on the first nodes); the default orders ties by Jaccard, then a seeded order.".into());
    acc.notes.push("Blink rows are the original Blink of Zhu et al. (CCS 2023) — the variant (hard / hybrid / soft) is in the method name — with δ_b = 0.1 fixed (the Blink paper tunes δ_b on validation; see blink_cora for that protocol); not the Blink variant inside the EdgeRefine artifact. RR, Blink, LDPGen and DPRR let both endpoints report a pair, so their whole-release edge DP is 2ε (SymRR and EdgeRefine: ε).".into());
    acc.notes.push(format!(
        "Deviations from the paper's protocol (≤ 700 epochs, patience 100), forced by compute on 2 cores: epoch cap / patience {} (measured on an idle machine: at the paper's protocol the three models take 200–700 epochs on AMAP, ≈ 50 s per release and seed, ≈ 3.4 h for AMAP's 245 releases; one GAT epoch on AMAP's true graph 93 ms); releases with more than {DENSE_EDGES} edges ≤ {} epochs and more than {VERY_DENSE_EDGES} edges ≤ {} epochs (no early stop before; the `max_epochs` column says which cap applied). The ε grid per dataset is in `grid`.",
        p.datasets
            .iter()
            .map(|d| format!("{} ≤ {} / {}", d.name, d.max_epochs, d.patience))
            .collect::<Vec<_>>()
            .join(", "),
        p.dense_epochs,
        p.very_dense_epochs
    ));
    if p.dense_methods.is_empty() {
        acc.notes.push(
            "--quick leaves out the dense releases (SymRR, RR, Blink-soft); --full includes them."
                .into(),
        );
    } else {
        acc.notes.push(format!(
            "The dense releases (SymRR, RR, Blink-soft: 10⁵–10⁷ edges, e.g. RR on AMAP ≈ 2·q·n²/2 edges) run only at ε ∈ {:?}, their sparsest point: training three models on millions of edges at every ε does not fit the compute budget. Blink-soft drops pairs with posterior ≤ 1e-3 (the baseline's default floor 1e-6 keeps ≈ all n²/2 pairs: 2.3 M on Cora at ε = 3.5).",
            p.dense_eps
        ));
    }
    let mut rel_t = Table::new(
        "Releases: size, density, true-edge precision and recall, publish time (client + server; mean over seeds)",
        &[
            "dataset",
            "method",
            "eps",
            "edges",
            "density",
            "precision",
            "recall",
            "publish_s",
        ],
    );
    rel_t.meta = ctx.meta();
    rel_t.meta.insert("seeds".into(), json!(p.seeds));
    let mut pubi = Table::new(
        "Privacy–utility balance over the ε grid (per-ε mean accuracies against the non-private accuracy)",
        &[
            "dataset", "model", "method", "eps_grid", "variance", "cv", "aur", "mcf", "pubi",
        ],
    );
    pubi.meta = ctx.meta();
    pubi.notes.push("PUBI = AUR × MCF over the ε grid the method ran on (the dense baselines: only their ε, so their variance/MCF are not comparable).".into());

    let fixed = [Method::Origin, Method::NoGraph];
    let mut all: Vec<Method> = fixed.to_vec();
    all.extend(p.methods.iter().copied());
    all.extend(p.dense_methods.iter().copied());
    for dp in &p.datasets {
        let name = &dp.name;
        if !parts.wants(name) {
            continue;
        }
        let spec = Registry::embedded().get(name)?;
        if !spec.is_installed(&data) {
            acc.notes.push(format!("{name} is not installed: skipped"));
            continue;
        }
        // The ε this dataset runs: its grid plus the dense methods' ε.
        let mut eps_all: Vec<f64> = dp.eps.clone();
        if !p.dense_methods.is_empty() {
            eps_all.extend(p.dense_eps.iter().filter(|e| !dp.eps.contains(e)));
        }
        eps_all.sort_by(f64::total_cmp);
        let Dataset::Nodes(ds) = spec.load(&data)? else {
            continue;
        };
        let t0 = Instant::now();
        let mut rels: BTreeMap<Cell, RelAcc> = BTreeMap::new();
        let mut trains: BTreeMap<(usize, Cell), TrainAcc> = BTreeMap::new();
        let (mut cached, mut skipped) = (0usize, Vec::new());
        // Per model: (runs that reached the `max_epochs` cap, runs under that cap).
        let mut at_cap = vec![(0usize, 0usize); p.models.len()];
        // Chunks: the ε-free rows, then each ε; one seed each.
        let chunks: Vec<Option<usize>> = std::iter::once(None)
            .chain((0..eps_all.len()).map(Some))
            .collect();
        for &ei in &chunks {
            // The methods of this chunk, with their index in `all`.
            let ms: Vec<(usize, Method)> = match ei {
                None => fixed.iter().copied().enumerate().collect(),
                Some(e) => {
                    let eps = eps_all[e];
                    let mut ms = Vec::new();
                    if dp.eps.contains(&eps) {
                        ms.extend(
                            p.methods
                                .iter()
                                .enumerate()
                                .map(|(i, &m)| (fixed.len() + i, m)),
                        );
                    }
                    if p.dense_eps.contains(&eps) {
                        ms.extend(
                            p.dense_methods
                                .iter()
                                .enumerate()
                                .map(|(i, &m)| (fixed.len() + p.methods.len() + i, m)),
                        );
                    }
                    ms
                }
            };
            let eps = ei.map(|e| eps_all[e]);
            for &seed in &p.seeds {
                let fingerprint = format!(
                    "{name} eps {eps:?} seed {seed} epochs {} patience {} models {:?} methods {:?} dense {} {} {DENSE_EDGES} {VERY_DENSE_EDGES}",
                    dp.max_epochs,
                    dp.patience,
                    // The models' former preset names: committed caches stay valid.
                    p.models
                        .iter()
                        .map(|m| format!("edgerefine-{}", m.name()))
                        .collect::<Vec<_>>(),
                    ms.iter().map(|x| x.1.label()).collect::<Vec<_>>(),
                    p.dense_epochs,
                    p.very_dense_epochs
                );
                let label = eps.map_or("fixed".to_string(), |e| format!("eps{e}"));
                let cache_dir = dir.join("cache").join(name);
                let file = format!("{label}-seed{seed}.json");
                let hit = if parts.resume {
                    read_chunk(&cache_dir.join(&file)).filter(|c| c.fingerprint == fingerprint)
                } else {
                    None
                };
                let chunk = match hit {
                    Some(c) => {
                        cached += 1;
                        c
                    }
                    None if parts.over_budget() => {
                        skipped.push(format!("{label} seed {seed}"));
                        continue;
                    }
                    None => {
                        let c = run_chunk(&ds, p, dp, &ms, eps, seed, fingerprint)?;
                        std::fs::create_dir_all(&cache_dir)?;
                        write(&cache_dir, &file, serde_json::to_string(&c)?.as_bytes())?;
                        c
                    }
                };
                for (mi, r) in &chunk.releases {
                    rels.entry((*mi, ei)).or_default().merge(r);
                }
                for (model_i, mi, t) in &chunk.trains {
                    trains.entry((*model_i, (*mi, ei))).or_default().merge(t);
                    // One run per chunk entry: did it run to the dataset's own epoch cap?
                    if t.cap == dp.max_epochs {
                        let c = &mut at_cap[*model_i];
                        c.1 += 1;
                        c.0 += usize::from(t.epochs >= t.cap);
                    }
                }
            }
            if let Some(e) = eps {
                eprintln!(
                    "{name} eps={e}: done at {:.0} s",
                    t0.elapsed().as_secs_f64()
                );
            }
        }
        if cached > 0 {
            acc.notes.push(format!(
                "{name}: {cached} of {} (ε, seed) chunks taken from cache/{name}/ (computed by an earlier run of the same plan; --resume).",
                chunks.len() * p.seeds.len()
            ));
        }
        acc.notes.push(at_cap_note(name, dp, &p.models, &at_cap));
        if !skipped.is_empty() {
            acc.notes.push(format!(
                "{name}: not run yet (--budget-min reached; rerun with --resume to continue): {}. Cells with fewer runs than seeds lack these.",
                skipped.join(", ")
            ));
        }
        // Tables for this dataset.
        for (&(mi, ei), a) in &rels {
            let k = a.n as f64;
            rel_t.push(vec![
                json!(name),
                json!(all[mi].label()),
                ei.map_or(json!("-"), |e| json!(eps_all[e])),
                json!(a.edges / k),
                num(a.density / k),
                num(a.precision / k),
                num(a.recall / k),
                json!(a.publish_s / k),
            ]);
        }
        for (model_i, model) in p.models.iter().enumerate() {
            let origin = trains
                .get(&(model_i, (0, None)))
                .map_or(f64::NAN, |t| mean_std(&t.runs).0);
            let mut series = Vec::new();
            for (mi, m) in all.iter().enumerate() {
                let mut pts = Vec::new();
                let cells: Vec<Option<usize>> = if mi < fixed.len() {
                    vec![None]
                } else {
                    (0..eps_all.len()).map(Some).collect()
                };
                for ei in cells {
                    let Some(t) = trains.get(&(model_i, (mi, ei))) else {
                        continue;
                    };
                    let r = &rels[&(mi, ei)];
                    let k = r.n as f64;
                    let (mean, std) = mean_std(&t.runs);
                    acc.push(vec![
                        json!(name),
                        json!(model.name()),
                        json!(m.label()),
                        ei.map_or(json!("-"), |e| json!(eps_all[e])),
                        num(mean),
                        num(std),
                        json!(t.runs),
                        json!(t.cap),
                        json!(r.edges / k),
                        num(r.density / k),
                        num(r.precision / k),
                        num(r.recall / k),
                        json!(r.publish_s / k),
                        json!(t.train_s / t.runs.len() as f64),
                    ]);
                    match ei {
                        Some(e) => pts.push((eps_all[e], mean)),
                        None => pts = eps_all.iter().map(|&e| (e, mean)).collect(),
                    }
                }
                if pts.is_empty() {
                    continue;
                }
                if mi >= fixed.len() && origin.is_finite() {
                    let means: Vec<f64> = pts.iter().map(|x| x.1).collect();
                    let st = stability(&means, origin)?;
                    pubi.push(vec![
                        json!(name),
                        json!(model.name()),
                        json!(m.label()),
                        json!(pts.iter().map(|x| x.0).collect::<Vec<_>>()),
                        json!(st.variance),
                        json!(st.cv),
                        json!(st.aur),
                        json!(st.mcf),
                        json!(st.pubi),
                    ]);
                }
                series.push(Series {
                    name: m.label(),
                    points: pts,
                });
            }
            write(
                dir,
                &format!("accuracy_{name}_{}.svg", model.name()),
                line_plot(
                    &format!("{name}, {}: accuracy against ε", model.name()),
                    "ε",
                    "test accuracy",
                    Scale::Linear,
                    Scale::Linear,
                    &series,
                )
                .as_bytes(),
            )?;
        }
        eprintln!("{name}: {:.0} s", t0.elapsed().as_secs_f64());
        // Written after every dataset so that a long run leaves its finished datasets behind.
        acc.write(dir, "accuracy")?;
        rel_t.write(dir, "releases")?;
        pubi.write(dir, "pubi")?;
    }
    acc.write(dir, "accuracy")?;
    rel_t.write(dir, "releases")?;
    pubi.write(dir, "pubi")?;
    println!("{}\n{}", acc.markdown(), pubi.markdown());
    Ok(())
}

/// A cached chunk, or `None` (with a warning when the file exists but cannot be read).
fn read_chunk(path: &Path) -> Option<Chunk> {
    let bytes = std::fs::read(path).ok()?;
    match serde_json::from_slice(&bytes) {
        Ok(c) => Some(c),
        Err(e) => {
            eprintln!("{}: unreadable ({e}): recomputing", path.display());
            None
        }
    }
}

/// The note on how many runs of each model reached the dataset's epoch cap without an early stop
/// (their validation accuracy still improved within the last `patience` epochs, so a longer
/// protocol would have trained them further).
fn at_cap_note(name: &str, dp: &DsPlan, models: &[NodeModel], at_cap: &[(usize, usize)]) -> String {
    let counts: Vec<String> = models
        .iter()
        .zip(at_cap)
        .map(|(m, (hit, n))| format!("{} {hit}/{n}", m.name()))
        .collect();
    format!(
        "{name}: runs that reached the {}-epoch cap without an early stop (validation accuracy still improving within the last {} epochs; the paper's ≤ 700 / 100 would train them longer): {}.",
        dp.max_epochs,
        dp.patience,
        counts.join(", ")
    )
}

/// Runs one chunk of a dataset's grid: releases every method of `ms` at `eps` (`None`: the
/// ε-free rows) with `seed` and trains every model of the plan on each release.
fn run_chunk(
    ds: &NodeDataset,
    p: &Plan,
    dp: &DsPlan,
    ms: &[(usize, Method)],
    eps: Option<f64>,
    seed: u64,
    fingerprint: String,
) -> Result<Chunk> {
    let t0 = Instant::now();
    let methods: Vec<Method> = ms.iter().map(|x| x.1).collect();
    let released = match eps {
        Some(e) => release_many(ds.graph(), &methods, e, seed)?,
        None => methods
            .iter()
            .map(|&m| release(ds.graph(), m, 1.0, seed))
            .collect::<edgerefine::Result<Vec<_>>>()?,
    };
    let mut chunk = Chunk {
        fingerprint,
        ..Chunk::default()
    };
    for (&(mi, _), r) in ms.iter().zip(&released) {
        let s = structure(ds.graph(), &r.graph);
        chunk.releases.push((
            mi,
            RelAcc {
                n: 1,
                edges: s.edges as f64,
                density: s.density,
                precision: s.precision,
                recall: s.recall,
                publish_s: r.publish_s,
            },
        ));
        let mut trains = BTreeMap::new();
        train_models(ds, p, dp, r, seed, (mi, None), &mut trains)?;
        chunk
            .trains
            .extend(trains.into_iter().map(|((model_i, _), t)| (model_i, mi, t)));
    }
    chunk.seconds = t0.elapsed().as_secs_f64();
    Ok(chunk)
}

/// Trains every model of the plan on one release and records the scores under `cell`.
fn train_models(
    ds: &NodeDataset,
    p: &Plan,
    dp: &DsPlan,
    r: &Released,
    seed: u64,
    cell: Cell,
    trains: &mut BTreeMap<(usize, Cell), TrainAcc>,
) -> Result<()> {
    let (cap, patience, dense) = p.epochs_for(dp, r.graph.num_edges());
    for (model_i, model) in p.models.iter().enumerate() {
        let plan = TrainPlan::edgerefine(*model, seed).with_epochs(cap, Some(patience));
        let t = Instant::now();
        let score = train_on_release(ds, &r.graph, r.weights.as_deref(), &plan)
            .with_context(|| format!("training {} on {}", model.name(), ds.name()))?;
        if dense {
            eprintln!(
                "  dense release ({} edges): {} {:.1} s",
                r.graph.num_edges(),
                model.name(),
                t.elapsed().as_secs_f64()
            );
        }
        let a = trains.entry((model_i, cell)).or_default();
        a.runs.push(score.test_acc);
        a.train_s += score.train_s;
        a.epochs += score.epochs;
        a.cap = cap;
    }
    Ok(())
}

/// Reconstruction attack on the k = 1 EdgeRefine release: RAE of the GRAND-style attacker
/// (degree, common-neighbour, triangle and degree-completion steps; unknown pairs count as 2)
/// and of the attacker who takes the release itself as the adjacency.
fn rae_table(ctx: &Ctx, p: &Plan, dir: &Path) -> Result<()> {
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
    for dp in &p.datasets {
        let name = dp.name;
        let spec = Registry::embedded().get(name)?;
        if !spec.is_installed(&data) {
            continue;
        }
        let Dataset::Nodes(ds) = spec.load(&data)? else {
            continue;
        };
        for &eps in &dp.eps {
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

/// MUTAG graph classification: every graph released independently (k = 1 for EdgeRefine:
/// as many edges as the graph has), graph-level GIN trained on the released collection.
fn mutag_table(ctx: &Ctx, p: &Plan, dir: &Path) -> Result<()> {
    let data = data_dir();
    let mut t = Table::new(
        "MUTAG graph classification on per-graph releases (GIN, mean ± std over seeds)",
        &[
            "method",
            "eps",
            "acc_mean",
            "acc_std",
            "runs",
            "edges",
            "precision",
            "recall",
            "publish_s",
            "train_s",
        ],
    );
    t.meta = ctx.meta();
    t.meta.insert("seeds".into(), json!(p.seeds));
    t.meta.insert("model".into(), json!("edgerefine-graph-gin (3 GIN layers, hidden 64, mean pool), one-hot atom types, 80/10/10 per seed, Adam lr 0.005, wd 5e-4, batch 32, ≤ 150 epochs, patience 20"));
    t.notes.push("Each of the 188 graphs is released on its own at ε (parallel composition over disjoint graphs); EdgeRefine uses k = 1 and each graph's own edge count as E (public, as in the paper). `edges` is the total over the collection (true: 7,442 / 2 = 3,721 undirected edges). Blink-hard uses δ_b = 0.1.".into());
    let spec = Registry::embedded().get("MUTAG")?;
    if !spec.is_installed(&data) {
        t.notes.push("MUTAG is not installed: skipped".into());
        t.write(dir, "mutag")?;
        return Ok(());
    }
    let Dataset::Graphs(ds) = spec.load(&data)? else {
        anyhow::bail!("MUTAG is not a graph dataset");
    };
    let model = GraphModel::Gin;
    let t0 = Instant::now();
    let mut series = Vec::new();
    for &m in &p.mutag_methods {
        let grid: Vec<Option<f64>> = if m.is_private() {
            p.mutag_eps.iter().copied().map(Some).collect()
        } else {
            vec![None]
        };
        let mut pts = Vec::new();
        for eps in grid {
            let mut runs = Vec::new();
            let (mut edges, mut prec, mut rec, mut publish, mut train) = (0.0, 0.0, 0.0, 0.0, 0.0);
            for &seed in &p.seeds {
                let (rel, s): (GraphDataset, _) =
                    release_graph_set(&ds, m, eps.unwrap_or(1.0), seed)?;
                let score = train_graph_release(&rel, model, seed)?;
                runs.push(score.test_acc);
                edges += s.edges as f64;
                prec += s.precision;
                rec += s.recall;
                publish += s.publish_s;
                train += score.train_s;
            }
            let k = p.seeds.len() as f64;
            let (mean, std) = mean_std(&runs);
            eprintln!(
                "MUTAG {} eps={eps:?}: {mean:.3} ± {std:.3} ({:.0} s)",
                m.label(),
                t0.elapsed().as_secs_f64()
            );
            t.push(vec![
                json!(m.label()),
                eps.map_or(json!("-"), |e| json!(e)),
                json!(mean),
                json!(std),
                json!(runs),
                json!(edges / k),
                num(prec / k),
                num(rec / k),
                json!(publish / k),
                json!(train / k),
            ]);
            match eps {
                Some(e) => pts.push((e, mean)),
                None => pts = p.mutag_eps.iter().map(|&e| (e, mean)).collect(),
            }
        }
        series.push(Series {
            name: m.label(),
            points: pts,
        });
    }
    t.write(dir, "mutag")?;
    write(
        dir,
        "mutag.svg",
        line_plot(
            "MUTAG (GIN): accuracy against ε",
            "ε",
            "test accuracy",
            Scale::Linear,
            Scale::Linear,
            &series,
        )
        .as_bytes(),
    )?;
    println!("{}", t.markdown());
    Ok(())
}

/// One hyper-parameter setting of Blink's grid.
#[derive(Clone, Copy, Debug)]
struct Hp {
    delta: f64,
    lr: f64,
    wd: f64,
    dropout: f64,
}

/// Blink on Cora under its own protocol, next to its published numbers.
fn blink_protocol_table(ctx: &Ctx, p: &Plan, dir: &Path) -> Result<()> {
    let data = data_dir();
    let b = &p.blink;
    let mut t = Table::new(
        "Blink on Cora under Blink's protocol (50/25/25, GCN 16 hidden, 300 epochs, test accuracy at the lowest validation loss; hyper-parameters chosen on validation)",
        &[
            "method",
            "eps",
            "acc_mean",
            "acc_std",
            "runs",
            "published",
            "diff_points",
            "within_3_points",
            "delta_b",
            "lr",
            "weight_decay",
            "dropout",
            "val_loss",
            "edges",
            "precision",
        ],
    );
    t.meta = ctx.meta();
    t.meta.insert("seeds".into(), json!(p.seeds));
    t.meta.insert(
        "grid".into(),
        json!({
            "delta_b": b.deltas, "lr": b.lrs, "weight_decay": b.wds, "dropout": b.dropouts,
        }),
    );
    t.notes.push("Protocol of the Blink artifact (zhxchd/Blink_GNN): GCN 2 layers × 16 hidden (no input dropout), Adam, 300 epochs, test accuracy of the epoch with the lowest validation loss; δ_b, lr, weight decay and dropout chosen by the lowest validation loss on seed 0 (release and split of seed 0), then 5 seeds with fresh releases and splits. Published (Blink paper, Cora, GCN): hard 71.2 / 71.2 / 71.0, hybrid 70.4 / 70.4 / 70.0 at ε = 1 / 2 / 3, non-private 86.8, MLP 71.0.".into());
    t.notes.push("Deviations: Blink's grid has δ_b ∈ {0.1, 0.4, 0.7, 1.0} and dropout ∈ {0, 0.1, 0.01, 0.001}; δ_b = 1 (no budget left for the adjacency) is not a valid BlinkParams here and dropout 0.01 / 0.001 are left out (indistinguishable from 0). Blink uses Planetoid Cora; ours is the registry's Cora (same 2,708 nodes, 5,278 edges, binary features). `features only` is the same GCN without edges (Blink's MLP row is an MLP).".into());
    let spec = Registry::embedded().get("cora")?;
    if !spec.is_installed(&data) {
        t.notes.push("cora is not installed: skipped".into());
        t.write(dir, "blink_cora")?;
        return Ok(());
    }
    let Dataset::Nodes(ds) = spec.load(&data)? else {
        anyhow::bail!("cora is not a node dataset");
    };
    let g = ds.graph();
    let t0 = Instant::now();
    let plan = |seed: u64, hp: &Hp| TrainPlan {
        split: (0.5, 0.25),
        lr: hp.lr,
        weight_decay: hp.wd,
        monitor: Monitor::ValLoss,
        dropout: Some(hp.dropout),
        ..TrainPlan::edgerefine(NodeModel::Gcn, seed).with_epochs(b.epochs, None)
    };
    let grid = |deltas: &[f64]| -> Vec<Hp> {
        let mut v = Vec::new();
        for &delta in deltas {
            for &lr in &b.lrs {
                for &wd in &b.wds {
                    for &dropout in &b.dropouts {
                        v.push(Hp {
                            delta,
                            lr,
                            wd,
                            dropout,
                        });
                    }
                }
            }
        }
        v
    };
    // Non-private and features-only rows (no δ_b).
    for (label, published, empty) in [
        ("non-private", 0.868, false),
        ("no graph (features only)", 0.710, true),
    ] {
        let graph = if empty {
            graph_core::Graph::empty(g.num_nodes())?
        } else {
            g.clone()
        };
        let mut best: Option<(f64, Hp)> = None;
        for hp in grid(&[f64::NAN]) {
            let s = train_on_release(&ds, &graph, None, &plan(p.seeds[0], &hp))?;
            if best.is_none_or(|(l, _)| s.val_loss < l) {
                best = Some((s.val_loss, hp));
            }
        }
        let (val_loss, hp) = best.context("empty grid")?;
        let mut runs = Vec::new();
        for &seed in &p.seeds {
            runs.push(train_on_release(&ds, &graph, None, &plan(seed, &hp))?.test_acc);
        }
        let (mean, std) = mean_std(&runs);
        eprintln!(
            "blink protocol {label}: {mean:.3} ± {std:.3} ({:.0} s)",
            t0.elapsed().as_secs_f64()
        );
        t.push(vec![
            json!(label),
            json!("-"),
            json!(mean),
            json!(std),
            json!(runs),
            json!(published),
            json!(100.0 * (mean - published)),
            json!((100.0 * (mean - published)).abs() <= 3.0),
            json!(null),
            json!(hp.lr),
            json!(hp.wd),
            json!(hp.dropout),
            json!(val_loss),
            json!(graph.num_edges()),
            json!(null),
        ]);
    }
    for &v in &b.variants {
        for &eps in &b.eps {
            let published = blink_published(v, eps);
            // Tuning on seed 0: one release per δ_b, the training grid on it.
            let mut best: Option<(f64, Hp)> = None;
            for &delta in &b.deltas {
                let params = BlinkParams {
                    delta,
                    ..BlinkParams::new(eps)
                };
                let r = blink_posterior(g, &params, p.seeds[0])?.0.release(v)?;
                for hp in grid(&[delta]) {
                    let s = train_on_release(
                        &ds,
                        &r.graph,
                        r.weights.as_deref(),
                        &plan(p.seeds[0], &hp),
                    )?;
                    if best.is_none_or(|(l, _)| s.val_loss < l) {
                        best = Some((s.val_loss, hp));
                    }
                }
            }
            let (val_loss, hp) = best.context("empty grid")?;
            let params = BlinkParams {
                delta: hp.delta,
                ..BlinkParams::new(eps)
            };
            let (mut runs, mut edges, mut prec) = (Vec::new(), 0.0, 0.0);
            for &seed in &p.seeds {
                let r = blink_posterior(g, &params, seed)?.0.release(v)?;
                let s = structure(g, &r.graph);
                edges += s.edges as f64;
                prec += if s.precision.is_finite() {
                    s.precision
                } else {
                    0.0
                };
                runs.push(
                    train_on_release(&ds, &r.graph, r.weights.as_deref(), &plan(seed, &hp))?
                        .test_acc,
                );
            }
            let k = p.seeds.len() as f64;
            let (mean, std) = mean_std(&runs);
            let label = Method::Blink(v).label().replace("δ_b = 0.1", "δ_b tuned");
            eprintln!(
                "blink protocol {label} eps={eps}: {mean:.3} ± {std:.3} (δ_b {}, lr {}, wd {}, do {}; {:.0} s)",
                hp.delta,
                hp.lr,
                hp.wd,
                hp.dropout,
                t0.elapsed().as_secs_f64()
            );
            t.push(vec![
                json!(label),
                json!(eps),
                json!(mean),
                json!(std),
                json!(runs),
                num(published),
                num(100.0 * (mean - published)),
                if published.is_finite() {
                    json!((100.0 * (mean - published)).abs() <= 3.0)
                } else {
                    json!(null)
                },
                json!(hp.delta),
                json!(hp.lr),
                json!(hp.wd),
                json!(hp.dropout),
                json!(val_loss),
                json!(edges / k),
                json!(prec / k),
            ]);
        }
    }
    t.write(dir, "blink_cora")?;
    println!("{}", t.markdown());
    Ok(())
}

/// Blink's published Cora GCN accuracy (Zhu et al., CCS 2023) for a variant at ε ∈ {1, 2, 3}
/// (NaN elsewhere).
fn blink_published(v: BlinkVariant, eps: f64) -> f64 {
    let idx = [1.0, 2.0, 3.0].iter().position(|&e| e == eps);
    match (v, idx) {
        (BlinkVariant::Hard, Some(i)) => [0.712, 0.712, 0.710][i],
        (BlinkVariant::Hybrid, Some(i)) => [0.704, 0.704, 0.700][i],
        _ => f64::NAN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_cap_note_counts_runs_per_model() {
        let dp = DsPlan {
            name: "amap",
            eps: vec![1.0],
            max_epochs: 300,
            patience: 50,
        };
        let note = at_cap_note(
            "amap",
            &dp,
            &[NodeModel::Gcn, NodeModel::Gat],
            &[(155, 270), (0, 270)],
        );
        assert!(
            note.starts_with("amap: runs that reached the 300-epoch cap"),
            "{note}"
        );
        assert!(note.contains("last 50 epochs"), "{note}");
        assert!(note.ends_with(": gcn 155/270, gat 0/270."), "{note}");
    }

    #[test]
    fn chunk_round_trips_nan_statistics_through_json() {
        let rel = RelAcc {
            n: 1,
            edges: 0.0,
            density: 0.0,
            precision: f64::NAN,
            recall: 0.25,
            publish_s: 1.5,
        };
        let c = Chunk {
            fingerprint: "cora eps None seed 0".into(),
            releases: vec![(1, rel)],
            trains: vec![(
                0,
                1,
                TrainAcc {
                    runs: vec![0.75],
                    train_s: 2.0,
                    epochs: 120,
                    cap: 300,
                },
            )],
            seconds: 3.0,
        };
        let text = serde_json::to_string(&c).unwrap();
        assert!(text.contains("\"precision\":null"), "{text}");
        let back: Chunk = serde_json::from_str(&text).unwrap();
        assert_eq!(back.fingerprint, c.fingerprint);
        let r = &back.releases[0].1;
        assert!(r.precision.is_nan());
        assert_eq!((r.n, r.recall, r.publish_s), (1, 0.25, 1.5));
        assert_eq!(back.trains[0].2.runs, vec![0.75]);
    }

    #[test]
    fn merging_chunks_sums_statistics_and_collects_runs() {
        let one = |acc: f64, edges: f64| {
            (
                RelAcc {
                    n: 1,
                    edges,
                    density: edges / 100.0,
                    precision: 0.5,
                    recall: 0.1,
                    publish_s: 1.0,
                },
                TrainAcc {
                    runs: vec![acc],
                    train_s: 2.0,
                    epochs: 10,
                    cap: 300,
                },
            )
        };
        let (mut r, mut t) = (RelAcc::default(), TrainAcc::default());
        for (a, e) in [(0.7, 10.0), (0.8, 30.0)] {
            let (ra, ta) = one(a, e);
            r.merge(&ra);
            t.merge(&ta);
        }
        assert_eq!(r.n, 2);
        assert_eq!(r.edges / r.n as f64, 20.0);
        assert_eq!(t.runs, vec![0.7, 0.8]);
        assert_eq!((t.train_s, t.epochs, t.cap), (4.0, 20, 300));
    }
}
