//! The node grid of `repro edgerefine`: its (dataset, ε, seed) chunks through the run's
//! [`Runner`](crate::repro::runner::Runner) and the accuracy, releases, PUBI, speed and claims
//! tables made from them.

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result};
use edgerefine::eval::NodeModel;
use edgerefine::paper::node::{
    AccuracyRow, AtCap, Chunk, NodeAcc, NodeGrid, NodeRows, PubiRow, ReleaseRow,
};
use edgerefine::paper::{DENSE_EDGES, DatasetPlan, Plan, VERY_DENSE_EDGES, claims, speed};
use graph_core::NodeDataset;
use serde_json::json;

use crate::output::Table;
use crate::repro::Ctx;
use crate::repro::runner::{Decision, Source};

use super::{Parts, chunk_rel, node_dataset};

/// The method the speed table's ratios are against: EdgeRefine as the paper runs it.
const SPEED_REFERENCE: &str = "EdgeRefine k=0.01";

/// The accuracy, releases, PUBI and speed tables of the node grid, filled dataset by dataset.
struct NodeTables {
    accuracy: Table,
    releases: Table,
    pubi: Table,
    /// The accuracy rows so far (the speed and claims tables are made from them).
    rows: Vec<AccuracyRow>,
    /// The PUBI rows so far.
    pubi_rows: Vec<PubiRow>,
    speed: Table,
    claims: Table,
}

impl NodeTables {
    /// The empty tables with their metadata and notes.
    fn new(ctx: &Ctx, p: &Plan) -> Result<Self> {
        let mut acc = Table::typed::<AccuracyRow>(
            "Node classification accuracy on released graphs (mean ± std over seeds)",
        )?;
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
        acc.notes.push("`no graph (features only)` trains the same GNN without edges: with K = 1% of E, EdgeRefine's accuracy comes mostly from the features. `precision` is the share of released edges that are true edges. `majority_rate` is the control every accuracy is read against: the test accuracy of always predicting the training split's most frequent class (mean over the seeds' splits); a cell at or near it learnt nothing (on Cora, SymRR and RR at ε = 0.5 score 29.8 ± 2.2 with every model, trained to an early stop: their releases, 38 % and 61 % dense, carry no label signal).".into());
        acc.notes.push("The reference tie-break is the authors' row-major order (it releases stars on the first nodes); the default orders ties by Jaccard, then a seeded order.".into());
        acc.notes.push("Blink rows: `Blink-… (original, δ_b = 0.1)` is the original Blink of Zhu et al. (CCS 2023) with δ_b fixed (the Blink paper tunes δ_b on validation; see blink_cora for that protocol); `Blink-… (EdgeRefine artifact's variant)` is the variant inside the EdgeRefine artifact (ε_d = 0.1, one symmetric report counted twice in the posterior) — the baseline the paper's +17.8 % / +19.7 % and its Blink PUBI figures are measured against. RR, the original Blink, LDPGen and DPRR let both endpoints report a pair, so their whole-release edge DP is 2ε (SymRR and EdgeRefine: ε).".into());
        let paper_protocol = p
            .datasets
            .iter()
            .all(|d| d.max_epochs == 700 && d.patience == 100);
        if paper_protocol {
            acc.notes.push("Training follows the paper's protocol: ≤ 700 epochs, early stop on validation accuracy with patience 100. `at_cap` counts the runs of a cell that trained up to their cap without an early stop.".into());
        } else {
            acc.notes.push(format!(
                "Deviation from the paper's protocol (≤ 700 epochs, patience 100), to keep this effort short: epoch cap / patience {}. `at_cap` counts the runs of a cell that trained up to their cap without an early stop.",
                p.datasets
                    .iter()
                    .map(|d| format!("{} ≤ {} / {}", d.name, d.max_epochs, d.patience))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if p.dense_methods.is_empty() {
            acc.notes.push(
                "--quick leaves out the dense releases (SymRR, RR, Blink-soft); --full includes them."
                    .into(),
            );
        } else {
            let blink_soft = "Blink-soft drops pairs with posterior ≤ 1e-3 (the baseline's default floor 1e-6 keeps ≈ all n²/2 pairs: 2.3 M on Cora at ε = 3.5).";
            acc.notes.push(match p.dense_caps {
                Some(c) => format!(
                    "Deviation for the dense releases (SymRR, RR, Blink-soft: 10⁵–10⁷ edges, e.g. RR on AMAP ≈ 2·q·n²/2 edges), forced by compute on 2 cores: releases with more than {DENSE_EDGES} edges train for {} epochs and more than {VERY_DENSE_EDGES} edges for {} epochs, without early stop (every such run counts in `at_cap`; the `max_epochs` column says which cap applied). They run at ε ∈ {:?}. {blink_soft}",
                    c.dense_epochs, c.very_dense_epochs, p.dense_eps
                ),
                None => format!(
                    "The dense releases (SymRR, RR, Blink-soft: 10⁵–10⁷ edges, e.g. RR on AMAP ≈ 2·q·n²/2 edges) train under the same protocol as every release (≤ {} epochs, patience {}; no caps): GCN and GIN aggregate a release with at least {:.0} % of the n² pairs as edges with one dense n × n matrix product (gnn::Aggregation; on Cora's nodes at 27 % density, GCN 3.4× and GIN 14× faster per epoch than the sparse product: `cargo bench -p gnn --bench aggregation`), GAT with its sparse kernel. They run at ε ∈ {:?}. {blink_soft}",
                    p.datasets.first().map_or(0, |d| d.max_epochs),
                    p.datasets.first().map_or(0, |d| d.patience),
                    gnn::tensors::DENSE_MIN_DENSITY * 100.0,
                    p.dense_eps
                ),
            });
            if let Some(l) = p.train_edge_limit {
                acc.notes.push(format!("Releases with more than {l} edges are not trained on at all: they are in the releases table and counted per dataset below."));
            }
        }
        let mut releases = Table::typed::<ReleaseRow>(
            "Releases: size, density, true-edge precision and recall, publish time (client + server; mean over seeds)",
        )?;
        releases.meta = ctx.meta();
        releases.meta.insert("seeds".into(), json!(p.seeds));
        let mut pubi = Table::typed::<PubiRow>(
            "Privacy–utility balance over the ε grid (per-ε mean accuracies against the non-private accuracy)",
        )?;
        pubi.meta = ctx.meta();
        pubi.notes.push("PUBI = AUR × MCF over the ε grid the method ran on (the dense baselines: only their ε, so their variance/MCF are not comparable).".into());
        let mut speed = Table::typed::<speed::SpeedRow>(
            "Speed: publish time (client + server) and training time per release, means over the ε grid, against EdgeRefine k = 0.01",
        )?;
        speed.meta = ctx.meta();
        speed.notes.push(format!("From the accuracy table's releases and runs (no extra work): `publish_vs_reference` and `train_vs_reference` are ratios to `{SPEED_REFERENCE}` on the same dataset and model. The paper claims 3–4 orders of magnitude less training time than LDPGen: compare LDPGen's `train_vs_reference`. Training time follows the release's size (`train_s_per_m_edges`) and the epochs early stopping allows; publish time is measured in one process on 2 cores (release build), the client's randomized response included."));
        let mut claims = Table::typed::<claims::ClaimRow>(
            "The paper's claims recomputed against the EdgeRefine artifact's Blink and the original Blink",
        )?;
        claims.meta = ctx.meta();
        claims.notes.push(format!("Accuracy claims at ε = {} (the paper: +17.8 % on ACM with GAT, +19.7 % on Cora with GCN, read as relative gains; `gain_points` is the absolute difference), and mean PUBI over the datasets and models run (the paper: EdgeRefine .9386, Blink-hybrid .7101, Blink-hard .6902). The paper's Blink figures are the artifact's variant; the rows against the original Blink carry the same paper figure to show what the comparison becomes. `EdgeRefine k=0.01 (reference tie-break)` is the paper's EdgeRefine; `EdgeRefine k=0.01` ours. A claim whose cells were not run (a dataset, model or ε outside this effort) has no row.", claims::CLAIM_EPS));
        Ok(Self {
            accuracy: acc,
            releases,
            pubi,
            rows: Vec::new(),
            pubi_rows: Vec::new(),
            speed,
            claims,
        })
    }

    /// Appends one dataset's rows and writes its accuracy plots.
    fn push(&mut self, rows: &NodeRows) -> Result<()> {
        for r in &rows.releases {
            self.releases.push_row(r)?;
        }
        for r in &rows.accuracy {
            self.accuracy.push_row(r)?;
        }
        self.rows.extend(rows.accuracy.iter().cloned());
        for r in &rows.pubi {
            self.pubi.push_row(r)?;
        }
        self.pubi_rows.extend(rows.pubi.iter().cloned());
        Ok(())
    }

    fn write(&mut self, dir: &Path) -> Result<()> {
        self.accuracy.write(dir, "accuracy")?;
        self.releases.write(dir, "releases")?;
        self.pubi.write(dir, "pubi")?;
        self.speed.rows.clear();
        for r in speed::rows(&self.rows, SPEED_REFERENCE) {
            self.speed.push_row(&r)?;
        }
        self.speed.write(dir, "speed")?;
        self.claims.rows.clear();
        for r in claims::rows(&self.rows, &self.pubi_rows) {
            self.claims.push_row(&r)?;
        }
        self.claims.write(dir, "claims")
    }
}

pub(super) fn node_tables(ctx: &Ctx, p: &Plan, dir: &Path, parts: &Parts) -> Result<()> {
    // With no dataset selected (e.g. `--tables mutag`), the node tables of an earlier run in
    // --out are left as they are rather than rewritten empty.
    if !p.datasets.iter().any(|d| parts.wants_dataset(d.name)) {
        return Ok(());
    }
    // The plots below are written before the first table.
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut tables = NodeTables::new(ctx, p)?;
    // `--full`'s chunks made before the dense training path: with --resume, their other
    // methods are kept and only the dense ones run again (`NodeGrid::rerun_dense`).
    let before = (*p == Plan::full()).then(Plan::full_before_dense_path);
    for dp in &p.datasets {
        let name = dp.name;
        if !parts.wants_dataset(name) {
            continue;
        }
        let Some(ds) = node_dataset(name)? else {
            tables
                .accuracy
                .notes
                .push(format!("{name} is not installed: skipped"));
            continue;
        };
        let t0 = Instant::now();
        let grid = NodeGrid::new(p, dp);
        let earlier = before.as_ref().map(|b| NodeGrid::new(b, dp));
        let acc = run_grid(
            &grid,
            earlier.as_ref(),
            &ds,
            parts,
            &mut tables.accuracy.notes,
        )?;
        let mut rows = grid.rows(&acc)?;
        let majority = grid.majority_rate(&ds)?;
        for r in &mut rows.accuracy {
            r.majority_rate = majority;
        }
        tables.push(&rows)?;
        eprintln!("{name}: {:.0} s", t0.elapsed().as_secs_f64());
        // Written after every dataset so that a long run leaves its finished datasets behind.
        tables.write(dir)?;
    }
    tables.write(dir)?;
    println!("{}\n{}", tables.accuracy.markdown(), tables.pubi.markdown());
    Ok(())
}

/// Runs (or, with `--resume`, reads back from the cache) every chunk of a dataset's grid that
/// the time budget allows, accumulated; the notes say what came from the cache, what is left
/// and how many runs reached the epoch cap. With --resume, a chunk cached only under `earlier`
/// (the same grid before the dense training path) keeps its other methods and runs the dense
/// ones again.
fn run_grid(
    grid: &NodeGrid<'_>,
    earlier: Option<&NodeGrid<'_>>,
    ds: &NodeDataset,
    parts: &Parts<'_>,
    notes: &mut Vec<String>,
) -> Result<NodeAcc> {
    let (p, dp) = (grid.plan(), grid.dataset());
    let name = dp.name;
    let t0 = Instant::now();
    let mut acc = NodeAcc::new(grid);
    let (mut cached, mut from_reference, mut dense_rerun) = (0usize, 0usize, 0usize);
    let (mut skipped, mut other_shard) = (Vec::new(), Vec::new());
    let mut position = 0usize;
    // (method and ε, releases) above the training edge limit: measured, not trained on.
    let mut untrained: Vec<(String, usize)> = Vec::new();
    for slot in grid.slots() {
        let label = grid.label(slot);
        for &seed in &p.seeds {
            let at = position;
            position += 1;
            let rel = chunk_rel(grid, slot, seed);
            let chunk = match parts.runner.decide(&rel, &grid.fingerprint(slot, seed), at) {
                Decision::Cached(c, source) => {
                    match source {
                        Source::Out => cached += 1,
                        Source::Reference => from_reference += 1,
                    }
                    c
                }
                Decision::Elsewhere => {
                    other_shard.push(format!("{label} seed {seed}"));
                    continue;
                }
                Decision::OverBudget => {
                    skipped.push(format!("{label} seed {seed}"));
                    continue;
                }
                Decision::Run => {
                    let old = earlier.and_then(|e| {
                        parts
                            .runner
                            .cached::<Chunk>(&rel, &e.fingerprint(slot, seed))
                    });
                    let c = match old {
                        Some((old, _)) => {
                            dense_rerun += 1;
                            grid.rerun_dense(ds, slot, seed, &old)
                        }
                        None => grid.run_chunk(ds, slot, seed),
                    }
                    .with_context(|| format!("{name} {label} seed {seed}"))?;
                    report_dense(p, &c);
                    parts.runner.record(&rel, &c)?;
                    c
                }
            };
            if let Some(limit) = p.train_edge_limit {
                for (mi, r) in &chunk.releases {
                    if r.edges > limit as f64 {
                        let cell = format!(
                            "{} {label}",
                            grid.methods().get(*mi).map_or("?".into(), |m| m.label())
                        );
                        match untrained.iter_mut().find(|(c, _)| *c == cell) {
                            Some((_, n)) => *n += 1,
                            None => untrained.push((cell, 1)),
                        }
                    }
                }
            }
            acc.add(slot, &chunk);
        }
        if let Some(e) = grid.eps_of(slot) {
            eprintln!(
                "{name} eps={e}: done at {:.0} s",
                t0.elapsed().as_secs_f64()
            );
        }
    }
    if cached > 0 {
        notes.push(format!(
            "{name}: {cached} of {} (ε, seed) chunks taken from cache/{name}/ (computed by an earlier run of the same plan; --resume).",
            grid.num_chunks()
        ));
    }
    if from_reference > 0 {
        notes.push(format!(
            "{name}: {from_reference} of {} (ε, seed) chunks taken from the committed reference's cache ({}/cache/{name}/, made by the same plan; --resume) and copied into cache/{name}/.",
            grid.num_chunks(),
            parts.runner.reference_label()
        ));
    }
    if dense_rerun > 0 {
        notes.push(format!(
            "{name}: {dense_rerun} of {} (ε, seed) chunks made from the cached chunks of the plan before the dense training path (caps of 20 / 3 epochs, no training above 4·10⁶ edges): the dense methods (SymRR, RR, Blink-soft) and every other release above {DENSE_EDGES} edges (trained under those caps) released and trained again under this plan, the other methods' runs kept as computed.",
            grid.num_chunks()
        ));
    }
    notes.push(at_cap_note(name, dp, &p.models, acc.at_cap()));
    if !untrained.is_empty() {
        notes.push(format!(
            "{name}: releases above the training edge limit of {} edges, in the releases table but not trained on (no accuracy row): {}.",
            p.train_edge_limit.unwrap_or(0),
            untrained
                .iter()
                .map(|(c, n)| format!("{c} ({n} seeds)"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !skipped.is_empty() {
        notes.push(format!(
            "{name}: not run yet (--budget-min reached; rerun with --resume to continue): {}. Cells with fewer runs than seeds lack these.",
            skipped.join(", ")
        ));
    }
    if !other_shard.is_empty() {
        notes.push(format!(
            "{name}: left to the other --shard processes (not in cache/{name}/ when this one read it; a last --resume run assembles the complete tables): {}. Cells with fewer runs than seeds lack these.",
            other_shard.join(", ")
        ));
    }
    Ok(acc)
}

/// Progress: the training time of each model on the dense releases of a chunk.
fn report_dense(p: &Plan, c: &Chunk) {
    for (mi, r) in &c.releases {
        if r.edges <= DENSE_EDGES as f64 {
            continue;
        }
        for (model_i, _, t) in c.trains.iter().filter(|t| t.1 == *mi) {
            eprintln!(
                "  dense release ({} edges): {} {:.1} s",
                r.edges,
                p.models[*model_i].name(),
                t.train_s
            );
        }
    }
}

/// The note on how many runs of each model reached the dataset's epoch cap without an early stop
/// (their validation accuracy still improved within the last `patience` epochs, so a longer
/// protocol would have trained them further).
pub(super) fn at_cap_note(
    name: &str,
    dp: &DatasetPlan,
    models: &[NodeModel],
    at_cap: &[AtCap],
) -> String {
    let counts: Vec<String> = models
        .iter()
        .zip(at_cap)
        .map(|(m, c)| format!("{} {}/{}", m.name(), c.reached, c.runs))
        .collect();
    let longer = if dp.max_epochs < 700 {
        "; the paper's ≤ 700 / 100 would train them longer"
    } else {
        ""
    };
    format!(
        "{name}: runs under the dataset's own budget that reached the {}-epoch cap without an early stop (validation accuracy still improving within the last {} epochs{longer}): {}.",
        dp.max_epochs,
        dp.patience,
        counts.join(", ")
    )
}
