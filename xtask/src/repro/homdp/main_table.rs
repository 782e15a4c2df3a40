//! The homdp main table: every dataset at ρ = 0.01 and ∞ with its controls and the GIN
//! baselines, the other datasets' rows kept from an earlier table.

use std::path::Path;
use std::time::Instant;

use ::homdp::paper::{self, BASELINE_EPS, Baselines, MainRow, PATTERNS, Prepared, RowKind};
use anyhow::{Context, Result};
use serde_json::{Value, json};

use crate::output::Table;
use crate::repro::gin_cache::GinFiles;
use crate::repro::runner::Runner;
use crate::repro::{Ctx, Effort};

use super::{
    BOTH_TEST_ROWS, Kept, NOT_RUN, Only, Setting, Sizes, Tables, base_meta, load, prepare,
};

/// The per-dataset notes of the main table: the GIN baselines' and the per-repetition scores.
#[derive(Default)]
struct MainNotes {
    baselines: Vec<String>,
    reps: Vec<String>,
}

/// The main table (written when it is selected); returns every dataset prepared for the other
/// tables (`None`: not selected or not installed).
pub(super) fn main_table(
    ctx: &Ctx,
    dir: &Path,
    sz: &Sizes,
    only: &Only,
    tables: &Tables,
    settings: &[Setting],
) -> Result<Vec<Option<Prepared>>> {
    let mut t = Table::typed::<MainRow>(
        "Main table: downstream score and re-identification at rho = 0.01 (both bounds) and rho = inf; test rows clean (the paper's protocol) or noisy",
    )?;
    t.meta = base_meta(ctx, sz);
    t.meta.insert("protocol".into(), json!(BOTH_TEST_ROWS));
    t.meta.insert(
        "patterns".into(),
        json!(format!("{PATTERNS} forests (paper law); SBM: C3, C4")),
    );
    // Rows of the earlier table for the datasets --only leaves out.
    let kept = if tables.main && only.0.is_some() {
        Kept::load(
            ctx,
            &dir.join("main"),
            &t.columns,
            only,
            settings,
            &kept_main_cell,
        )?
    } else {
        Kept::default()
    };
    let mut prepared = Vec::new();
    let mut notes = MainNotes::default();
    let limits = (sz.paper.max_train, sz.paper.max_test);
    for (index, s) in settings.iter().enumerate() {
        if !only.wants(s.name) {
            t.rows.extend(kept.rows_of(s.name));
            prepared.push(None);
            continue;
        }
        let start = Instant::now();
        let Some(p) = prepare(s.name, &sz.paper, limits, ctx.seed)? else {
            t.push_row(&MainRow::not_installed(s))?;
            prepared.push(None);
            continue;
        };
        if tables.main {
            for r in dataset_rows(ctx, sz, index, s, &p, &mut notes)? {
                t.push_row(&r)?;
            }
            println!(
                "homdp main table: {} done in {:.1} s",
                s.name,
                start.elapsed().as_secs_f64()
            );
        }
        prepared.push(Some(p));
    }
    if tables.main {
        write_main(ctx, sz, only, t, &kept, notes)?;
    }
    Ok(prepared)
}

/// The cell of a main-table column that an earlier table (written before the column existed)
/// lacks: its rows were all the embedding's, with clean test rows and no GIN epochs.
fn kept_main_cell(c: &str) -> Option<Value> {
    match c {
        "test_rows" => Some(json!("clean")),
        "kind" => Some(json!("embedding")),
        "stop_epochs" | "best_epochs" => Some(json!("-")),
        _ => None,
    }
}

/// The main table's rows of one dataset (the GIN baselines run where the paper has them).
fn dataset_rows(
    ctx: &Ctx,
    sz: &Sizes,
    index: usize,
    s: &Setting,
    p: &Prepared,
    notes: &mut MainNotes,
) -> Result<Vec<MainRow>> {
    let baselines = if s.paper_baselines[0].is_nan() {
        None
    } else {
        let runner = Runner::new(ctx)?;
        let mut cache = GinFiles::new(&runner);
        let b = load(s.name)?
            .map(|ds| {
                paper::gin_baselines_cached(&ds, s.metric, &sz.gin, ctx.seed, index, &mut cache)
            })
            .transpose()?;
        if let Some(b) = &b {
            let mut note = baseline_note(s, b);
            let [out, reference] = cache.taken;
            if out + reference > 0 {
                note += &format!(
                    " {} of its {} trainings taken from the GIN cache (--resume: {out} from {}, {reference} from the committed reference's; recorded by an earlier run of the same plan, with their recorded times).",
                    out + reference,
                    b.rr.len() + b.dprr.len(),
                    "--out's cache/gin/"
                );
            }
            if b.left > 0 {
                note += &format!(
                    " {} of its trainings were left to another --shard or a later --resume run (--budget-min): its rows average the {} run or cached here.",
                    b.left,
                    b.rr.len() + b.dprr.len()
                );
            }
            notes.baselines.push(note);
        }
        b
    };
    let table = paper::main_table(p, s, index, &sz.paper, ctx.seed, baselines.as_ref())?;
    let per_rep = |k: usize| {
        table.per_repetition[k]
            .iter()
            .map(|v| format!("{v:.3}"))
            .collect::<Vec<_>>()
            .join(" / ")
    };
    let mut note = format!(
        "{}: per repetition, rho = 0.01 components {}; paper {}; rho = inf {}",
        s.name,
        per_rep(0),
        per_rep(1),
        per_rep(2)
    );
    if s.noisy_test_rows {
        note += &format!(
            "; noisy test rows: components {}, paper {}",
            per_rep(3),
            per_rep(4)
        );
    }
    // The controls follow the embedding's rows (main grid, then the private-Δ row).
    let first_control = table
        .rows
        .iter()
        .position(|r| r.kind == RowKind::NodesOnly)
        .context("the controls' rows")?;
    note += &format!(
        "; controls: |V(G)| alone {}, without |V(G)| rho = 0.01 {}, rho = inf {}",
        per_rep(first_control),
        per_rep(first_control + 1),
        per_rep(first_control + 2)
    );
    notes.reps.push(note + ".");
    Ok(table.rows)
}

/// The note on one dataset's GIN baselines.
fn baseline_note(s: &Setting, b: &Baselines) -> String {
    let standardised = b.target_standardization.map_or(String::new(), |[m, sd]| {
        format!(" Regression targets standardised with the training mean {m:.3} and std {sd:.3} (RMSE of the un-standardised predictions).")
    }) + &b.constant_rmse.map_or(String::new(), |r| {
        format!(" For reference, predicting the training mean for every test graph gives RMSE {r:.3}.")
    });
    let epochs: usize = b.epochs.iter().flatten().map(|e| e.0).sum();
    let at_cap = b
        .epochs
        .iter()
        .flatten()
        .filter(|e| e.0 >= b.epoch_cap)
        .count();
    format!(
        "{}: GIN on {} / {} / {} train / validation / test graphs, {} repetition(s), {:.0} s for both baselines ({:.1} s per epoch; {at_cap} of {} trainings stopped at the {}-epoch cap); DPRR eps1 = {:.4}, eps2 = {:.4}; edges of the perturbed training graphs / clean: RR {:.2}, DPRR {:.2}; epochs run (best) RR {:?}, DPRR {:?}.{standardised}",
        s.name,
        b.sizes[0],
        b.sizes[1],
        b.sizes[2],
        b.rr.len(),
        b.seconds,
        b.seconds / epochs.max(1) as f64,
        b.rr.len() + b.dprr.len(),
        b.epoch_cap,
        b.eps1,
        BASELINE_EPS.get() - b.eps1.get(),
        b.edge_ratio[0],
        b.edge_ratio[1],
        b.epochs[0],
        b.epochs[1]
    )
}

/// Writes the main table (`main.{csv,json,md,svg}`) with its notes.
fn write_main(
    ctx: &Ctx,
    sz: &Sizes,
    only: &Only,
    mut t: Table,
    kept: &Kept,
    notes: MainNotes,
) -> Result<()> {
    t.notes.push("bound `components`: the corrected component-aware sensitivity 2e(F)/n^2 (Delta/n)^(m-c-1) (default); `paper`: the paper's Theorem 4.5 formula as the reference code applies it (under-estimates the noise for disconnected patterns); rho = inf: no noise.".into());
    t.notes.push("test_rows `clean`: the paper's protocol (noise on the training rows only, the model scored on the clean test rows); `noisy`: the test rows are released with the same noise law (homdp::Protocol::noisy_test), for HIV, BACE and BBBP; SBM's `noisy` rows are the reference code's SBM protocol as a whole (train_on_sbm: noisy rows on both sides of the split and a k-NN on the unscaled densities, `k-NN (k=5, unscaled)`), its `clean` rows ours (clean test rows, scaled features). The two rows of one bound share the release (same patterns and noise draws, so the same training rows and attack figures) and differ only in the test rows.".into());
    t.notes.push("Degree bounds Delta (`degree`): HIV 10, BACE/BBBP/Lipophilicity 6, REDDIT-BINARY, REDDIT-MULTI-5K and github_stargazers none (Delta = n), SBM 133 (the paper's 132.47 rounded up). Graphs above Delta are clipped (count in `clipped`).".into());
    let (rho_release, rho_degree) = ::homdp::paper::PRIVATE_DEGREE_RHOS;
    t.notes.push(format!("`degree` = `private …` (last row of each dataset): no public bound is used; Delta is estimated privately (homdp::estimate_degree_bound: exponential mechanism over a public grid of candidate bounds, utility -|#graphs with max degree <= b - N| minus ceil(N/200) per grid step, a public prior under which one step up (about 12 % larger Delta) is worth 0.5 % of the graphs left above it; sensitivity 1 under one edge flip), rho_Delta = {rho_degree} zCDP, the release at rho = {rho_release}: together ({rho_release}*2 + 4*50*({rho_release}/5)^2 + {rho_degree}, 125)-tCDP, no more than the rho = 0.01 rows (eps in the row, dp-core composition). Graphs above the estimate are clipped by homdp::clip_stable (an edge is kept when each endpoint lists the other among its first Delta neighbours by id; one flipped input edge moves at most 3 clipped edges), so the noise is 3x the bounded-degree sensitivity at the estimate for graphs on more than Delta + 1 nodes and the guarantee holds for the raw graphs. The cell lists the estimate of each repetition; `clipped` counts the graphs above it (the bias clipping introduces is in `value` against the public-bound rows). The paper mentions private estimation of Delta but gives no mechanism; this one is ours."));
    t.notes.push("Splits: the scaffold train/test files of the molecule sets (valid unused); REDDIT-BINARY, SBM, REDDIT-MULTI-5K and github_stargazers 80/20 with the run seed (the reference stratifies REDDIT-MULTI-5K's split by class; ours is not stratified). The social collections append |V(G)| (public). REDDIT-MULTI-5K: PCA(5), scaling, random forest (200 trees, min split 10), accuracy over its 5 classes; github_stargazers: scaling, random forest (50 trees, min split 10), ROC-AUC — the reference code's models; the paper prints no figure for either, and neither is in the dataset mirror (installed from the TUDataset zips, checked by their published counts). SBM uses the cycle densities C3, C4.".into());
    t.notes.push("BBBP: homdp's random forest as scikit-learn's RandomForestClassifier(n_estimators=200, min_samples_split=10): Gini CART trees grown to purity on bootstrap samples, floor(sqrt(d)) = 7 features drawn per split, leaf class shares averaged over the trees; Lipophilicity: linear epsilon-SVR (dual coordinate descent).".into());
    if let Some(o) = &only.0 {
        t.notes.push(format!(
            "--only {}: only these datasets were run (each with its usual seeds).{}",
            o.join(","),
            kept.note()
        ));
    }
    if ctx.effort == Effort::Full {
        t.notes.push(format!("--full: all graphs, {} repetitions (fresh pattern set and noise each; the reference code averages three pattern-set runs); Q2 ({}) and the privacy-utility curve use {} repetition(s).", sz.paper.reps, sz.paper.q2_graphs.map_or("all HIV graphs".to_owned(), |g| format!("{g} HIV graphs")), sz.paper.side_reps));
    }
    if ctx.effort == Effort::Quick {
        t.notes.push(format!("--quick: at most {} training and {} test graphs per dataset (seeded subsample; k of k-NN scaled by the training share), {} SBM graphs per class, {} repetition(s). The attack runs over the subsample.", sz.paper.max_train, sz.paper.max_test, sz.paper.sbm_per_class, sz.paper.reps));
    }
    t.notes.push(format!("rr / dprr: the paper's GNN baselines at eps = {BASELINE_EPS}, the same value on each row of a dataset: GIN (gnn `homdp-gin`: 5 layers, hidden 300, mean pool; all-ones node features, as the reference code, which drops the atom features for a structure-only comparison) trained on graphs perturbed by randomized response (RR: each unordered node pair of a graph flipped once w.p. 1/(1+e^eps); per-graph edge-level eps-DP, the paper's notion) or degree-preserving RR (DPRR, Hidano & Murakami: eps1 = max(0.1, sqrt(8/(n_max-1))) for Laplace degrees, eps2 = eps - eps1 for RR, per-node sampling; eps per adjacency list as in the paper, <= 2 eps per-graph edge-level since an edge lies in two lists); training and validation graphs perturbed, test graphs clean. Adam lr 1e-3, batch 64, no weight decay, at most {} epochs (the reference's 100 in --full), best weights by the perturbed validation loss, stopped after {} epochs without improvement (reference: 100 epochs, best validation ROC-AUC / RMSE, L1 loss for Lipophilicity where gnn uses MSE), {} seed(s); Lipophilicity's targets are standardised with the training graphs' mean and std (homdp::GinBaselineConfig::standardize_targets; the reference trains on the raw targets) and the RMSE is that of the un-standardised predictions, in the targets' units; {}. The `gin-rr` / `gin-dprr` rows carry the mean and std over the seeds, the epoch each seed stopped at (`stop_epochs`), the epoch whose weights it kept (`best_epochs`) and the cap (`epoch_cap`); the `rr` / `dprr` cells of the embedding rows repeat their means. Lipophilicity's `train-mean` row is the RMSE of predicting the training targets' mean for every test graph: a GIN row above it learnt nothing from the graphs. REDDIT-BINARY / SBM / REDDIT-MULTI-5K / github_stargazers: {NOT_RUN}.", sz.gin.epochs, sz.gin.patience, sz.gin.reps, if sz.gin.train == usize::MAX { "every graph of the scaffold split (HIV: all 32,901 training graphs, hours per training on 2 cores; each finished training is recorded under cache/gin/, so an interrupted run resumes with --resume)".to_string() } else { format!("seeded subsamples of the scaffold split (at most {} train / {} validation / {} test graphs)", sz.gin.train, sz.gin.val, sz.gin.test) }));
    t.notes.push("Controls (`kind`): `nodes-only` is the same downstream model on |V(G)| alone (one column; PCA(5) becomes PCA(1)); the node set is public under edge-level DP, so the column is released exactly (`rho` = public, eps = 0). `without-nodes` are the densities without the |V(G)| column at rho = 0.01 (component-aware bound, clean test rows) and rho = inf, on the main rows' patterns and noise draws; for the datasets that append no |V(G)| column (the molecule sets and SBM) they are the `embedding` rows themselves (the same runs, repeated so that every dataset has both controls). A `nodes-only` score at or above the private `embedding` row means the private utility can come from |V(G)| alone (it also reaches the densities through the noise scale, which shrinks with |V(G)|).".into());
    t.notes.extend(notes.baselines);
    t.notes.extend(notes.reps);
    t.notes.extend(kept.notes.iter().cloned());
    t.notes.push("BACE private, clean test rows (k = 120; the figures in this note come from a one-off diagnostic of seed 42's pattern draws, not from this run): sigma_G shrinks fast with |V(G)| (Delta = 6), so after scaling on the noisy training rows the k nearest training rows of every clean test row are the least noisy, largest molecules (about 97 % of the neighbours lie in the largest quartile of training graphs, n >= 39, over seed 42's pattern draws). The score then hinges on a few hundred large molecules and is bimodal over pattern draws (about 0.35 or 0.70; 11 draws of this seed: mean 0.47); the paper's 0.652 lies in the upper mode. The `noisy` test-row rows of this table measure the other protocol on the same draws.".into());
    t.notes.push("Attack: each graph's released vector is matched against the clean vectors of all graphs on the density columns only (the social collections' public |V(G)| column is left out, as in the reference code, which attacks before appending it; homdp::Protocol::attack_num_nodes includes it). `paper_attack_top10` is the paper's \"attack success\" (its main table, OGBG sets: ε = 1 .003 / .027 / .025 / .011, ε = ∞ .955 / .990 / 1.0 / .992 for HIV / BACE / BBBP / Lipophilicity); the paper does not name the metric, and its figures match our top-10 rate, not top-1. `paper_attack_top1` is the top-1 figure of our design notes (HOMDP.md).".into());
    t.notes.push("Scaling: the scaler (REDDIT-BINARY and REDDIT-MULTI-5K: PCA(5), then the scaler, the reference's order) is fitted on the noisy training rows and applied to the test rows (clean, as the reference code does, or noisy).".into());
    t.write(&ctx.out.join("homdp"), "main")?;
    Ok(())
}
