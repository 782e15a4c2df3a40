//! The homdp experiment (`cargo xtask repro homdp`): the paper's main table (private and
//! non-private downstream scores with re-identification rates), Q1 (SBM: cycle vs tree
//! densities over ρ), Q2 (HIV: pattern treewidth 1/2/3) and the privacy–utility curve over ρ,
//! each under both sensitivity bounds (the corrected component-aware bound and the paper's
//! Theorem 4.5 formula); the molecule classification sets (and Q2) also with noisy test rows
//! beside the paper's clean ones. `--only` selects datasets, `--tables` tables. The
//! science lives in the `homdp` crate; this file only wires datasets, seeds and tables.

use std::path::Path;
use std::time::Instant;

use ::homdp::downstream::Labels;
use ::homdp::paper::{
    BASELINE_EPS, BOUNDS, DELTA, DatasetSetting, Metric, Prepared, q1_sbm, settings,
};
use ::homdp::{
    BaselineFeatures, EdgePerturbation, EvalData, GinBaselineConfig, Outcome, Pattern,
    PatternSampler, Protocol, SensitivityBound, Split, clean_features, evaluate, gin_baseline,
};
use anyhow::{Context, Result, bail};
use graph_core::registry::{Dataset, data_dir};
use graph_core::{Graph, Registry};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::{ChaCha8Rng, ChaCha20Rng};
use serde_json::{Value, json};

use super::{Ctx, Effort};
use crate::cli::HomdpTable;
use crate::output::{Table, write};
use crate::plot::{Scale, Series, line_plot};

/// RR / DPRR cells of the datasets without GNN baselines in the paper.
const NOT_RUN: &str = "not run (the paper reports none)";
type Setting = DatasetSetting;

/// Effort-dependent sizes.
struct Sizes {
    /// Repetitions (pattern sets and noise draws) of the main table and Q1.
    reps: usize,
    /// Repetitions of Q2 and of the privacy-utility curve.
    side_reps: usize,
    max_train: usize,
    max_test: usize,
    sbm_per_class: usize,
    curve_rhos: Vec<f64>,
    q1_rhos: Vec<f64>,
    /// Q2: seeded subsample of this many HIV graphs (80 / 20 from the scaffold split's train /
    /// test sides); `None`: all of HIV.
    q2_graphs: Option<usize>,
    /// GIN baselines: training / validation / test graphs (seeded subsamples of the scaffold
    /// split's parts), epochs, patience, repetitions.
    gin: GinSizes,
}

#[derive(Clone, Copy)]
struct GinSizes {
    train: usize,
    val: usize,
    test: usize,
    epochs: usize,
    patience: usize,
    reps: usize,
}

fn sizes(effort: Effort) -> Sizes {
    match effort {
        Effort::Quick => Sizes {
            reps: 1,
            side_reps: 1,
            max_train: 1000,
            max_test: 250,
            sbm_per_class: 40,
            curve_rhos: vec![1e-4, 1e-2, 1.0],
            q1_rhos: vec![1e-3, 1e-2, 1.0],
            q2_graphs: Some(2000),
            gin: GinSizes {
                train: 200,
                val: 80,
                test: 250,
                epochs: 6,
                patience: 3,
                reps: 1,
            },
        },
        Effort::Full => Sizes {
            reps: 3,
            side_reps: 1,
            max_train: usize::MAX,
            max_test: usize::MAX,
            sbm_per_class: 100,
            curve_rhos: vec![1e-4, 1e-3, 1e-2, 1e-1, 1.0],
            q1_rhos: vec![1e-4, 1e-3, 1e-2, 1e-1, 1.0],
            q2_graphs: None,
            gin: GinSizes {
                train: 1000,
                val: 250,
                test: 1000,
                epochs: 12,
                patience: 4,
                reps: 1,
            },
        },
    }
}

/// Loads (or generates) a dataset; `None` when it is not installed.
fn prepare(name: &str, sz: &Sizes, seed: u64) -> Result<Option<Prepared>> {
    let (graphs, labels, split) = if name == "SBM" {
        let (g, l) = q1_sbm(sz.sbm_per_class, seed)?;
        let s = Split::holdout(g.len(), 0.2, seed)?;
        (g, l, s)
    } else {
        let spec = Registry::embedded().get(name)?;
        if !spec.is_installed(&data_dir()) {
            return Ok(None);
        }
        let Dataset::Graphs(ds) = spec.load(&data_dir())? else {
            bail!("{name} is not a graph collection");
        };
        let s = Split::of_dataset(&ds, seed)?;
        (ds.graphs().to_vec(), Labels::from_targets(ds.targets()), s)
    };
    Ok(Some(Prepared::subsample(
        graphs,
        labels,
        split,
        sz.max_train,
        sz.max_test,
        seed,
    )))
}

/// Mean and sample standard deviation (0 for one value), ignoring NaN (missing runs).
fn mean_std(v: &[f64]) -> (f64, f64) {
    let v: Vec<f64> = v.iter().copied().filter(|x| !x.is_nan()).collect();
    graph_core::mean_std(&v).unwrap_or((f64::NAN, f64::NAN))
}

fn num(x: f64) -> Value {
    if x.is_finite() { json!(x) } else { Value::Null }
}

/// Runs of one configuration over repetitions: metric, accuracy, top-1, top-10, ε, clipped.
#[derive(Default)]
struct Agg {
    metric: Vec<f64>,
    acc: Vec<f64>,
    top1: Vec<f64>,
    top10: Vec<f64>,
    eps: f64,
    clipped: usize,
    secs: f64,
    /// Seconds spent computing the clean densities (all repetitions).
    count_secs: f64,
}

impl Agg {
    fn add(&mut self, o: &Outcome, m: Metric) {
        self.metric.push(m.of(o));
        self.acc.push(o.scores.accuracy.unwrap_or(f64::NAN));
        self.top1.push(o.attack_top1.unwrap_or(f64::NAN));
        self.top10.push(o.attack_top10.unwrap_or(f64::NAN));
        self.eps = o.guarantee.map_or(f64::INFINITY, |g| g.eps());
        self.clipped = self.clipped.max(o.clipped);
        self.secs += o.seconds.iter().sum::<f64>();
    }
}

/// Seeds: patterns for repetition `rep` of experiment `tag`, and the noise / model seeds.
fn rep_seed(ctx: &Ctx, tag: u64, rep: usize) -> u64 {
    ctx.seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(tag.wrapping_mul(1_000_003))
        .wrapping_add(rep as u64)
}

/// Evaluates `patterns(rep)` on `p` at every `(ρ, bound)` in `grid` (ρ = None: non-private,
/// run once) over `reps` repetitions, with clean test rows (the paper's protocol); returns one
/// aggregate per grid entry.
#[allow(clippy::too_many_arguments)] // an experiment driver: every argument is one knob
fn sweep(
    ctx: &Ctx,
    tag: u64,
    p: &Prepared,
    setting: &Setting,
    reps: usize,
    patterns: &dyn Fn(&mut ChaCha8Rng) -> Result<Vec<Pattern>>,
    grid: &[(Option<f64>, SensitivityBound)],
    attack: bool,
) -> Result<Vec<Agg>> {
    let points: Vec<Point> = grid
        .iter()
        .map(|&(rho, bound)| Point {
            rho,
            bound,
            noisy_test: false,
        })
        .collect();
    sweep_points(ctx, tag, p, setting, reps, patterns, &points, attack)
}

/// One evaluation of a sweep: ρ (`None`: non-private), the sensitivity bound, and whether the
/// test rows are released with noise too (`false`: the paper's clean test rows).
#[derive(Clone, Copy)]
struct Point {
    rho: Option<f64>,
    bound: SensitivityBound,
    noisy_test: bool,
}

/// [`sweep`] over [`Point`]s. Every point of a repetition draws the same noise (the generator is
/// reseeded per point), so points that differ only in `noisy_test` share one release: the
/// model is trained on the same noisy training rows, and the attack (which depends on the
/// release only) runs once and is reported for both.
#[allow(clippy::too_many_arguments)] // an experiment driver: every argument is one knob
fn sweep_points(
    ctx: &Ctx,
    tag: u64,
    p: &Prepared,
    setting: &Setting,
    reps: usize,
    patterns: &dyn Fn(&mut ChaCha8Rng) -> Result<Vec<Pattern>>,
    grid: &[Point],
    attack: bool,
) -> Result<Vec<Agg>> {
    let mut aggs: Vec<Agg> = grid.iter().map(|_| Agg::default()).collect();
    let model = p.scaled(setting.model);
    for rep in 0..reps {
        let seed = rep_seed(ctx, tag, rep);
        let pats = patterns(&mut ChaCha8Rng::seed_from_u64(seed))?;
        let count_start = Instant::now();
        let clean = clean_features(&pats, &p.graphs, setting.append_num_nodes)?;
        let count_secs = count_start.elapsed().as_secs_f64();
        for a in &mut aggs {
            a.count_secs += count_secs;
        }
        let mut outcomes: Vec<Outcome> = Vec::with_capacity(grid.len());
        for &Point {
            rho,
            bound,
            noisy_test,
        } in grid
        {
            // An earlier point with the same release already ran the attack.
            let same_release = outcomes
                .iter()
                .zip(grid)
                .find(|(_, q)| q.rho == rho && q.bound == bound)
                .map(|(o, _)| (o.attack_top1, o.attack_top10));
            let proto = Protocol {
                degree_bound: setting.degree_bound,
                bound,
                clip: true,
                append_num_nodes: setting.append_num_nodes,
                noisy_test,
                delta: DELTA,
                model,
                attack: attack && same_release.is_none(),
                attack_num_nodes: false,
            };
            let mut noise = ChaCha20Rng::seed_from_u64(seed ^ 0x004e_4f49_5345);
            let mut o = evaluate(
                &EvalData {
                    patterns: &pats,
                    graphs: &p.graphs,
                    labels: &p.labels,
                    split: &p.split,
                    clean: clean.view(),
                },
                rho,
                &proto,
                &mut noise,
                seed,
            )?;
            if let Some((top1, top10)) = same_release {
                (o.attack_top1, o.attack_top10) = (top1, top10);
            }
            aggs[outcomes.len()].add(&o, setting.metric);
            outcomes.push(o);
        }
    }
    Ok(aggs)
}

/// GIN baselines of one dataset: test scores of GIN on RR and on DPRR graphs per repetition.
struct Baselines {
    rr: Vec<f64>,
    dprr: Vec<f64>,
    /// ε1 of DPRR (ε2 = ε − ε1).
    eps1: f64,
    /// Graphs used: training, validation, test.
    sizes: [usize; 3],
    /// Mean edge ratio (perturbed / clean training graphs) of RR and DPRR.
    edge_ratio: [f64; 2],
    /// Epochs run and best epoch (1-based) of RR and DPRR, per repetition.
    epochs: [Vec<(usize, usize)>; 2],
    /// Training mean and std of standardised regression targets (last repetition).
    target_standardization: Option<[f64; 2]>,
    /// Wall-clock seconds of all repetitions of both baselines.
    seconds: f64,
    /// Regression: test RMSE of the constant prediction `mean of the training targets` (the
    /// score of a model that learns nothing from the graphs).
    constant_rmse: Option<f64>,
}

/// The paper's RR / DPRR baselines on dataset `name` (`None` when it is not installed): GIN
/// trained on perturbed training and validation graphs (seeded subsamples of the scaffold
/// split), scored on clean test graphs.
fn gin_baselines(
    ctx: &Ctx,
    tag: u64,
    name: &str,
    metric: Metric,
    g: GinSizes,
) -> Result<Option<Baselines>> {
    let spec = Registry::embedded().get(name)?;
    if !spec.is_installed(&data_dir()) {
        return Ok(None);
    }
    let Dataset::Graphs(ds) = spec.load(&data_dir())? else {
        bail!("{name} is not a graph collection");
    };
    let part = |p: &str| -> Result<Vec<usize>> {
        Ok(ds
            .split(p)
            .with_context(|| format!("{name} has no {p} split"))?
            .to_vec())
    };
    let mut rng = ChaCha8Rng::seed_from_u64(ctx.seed ^ 0x0047_494e);
    let mut pick = |v: Vec<usize>, m: usize| {
        let mut v = v;
        if v.len() > m {
            v.shuffle(&mut rng);
            v.truncate(m);
        }
        v.sort_unstable();
        v
    };
    let split = gnn::GraphSplit {
        train: pick(part("train")?, g.train),
        val: pick(part("valid")?, g.val),
        test: pick(part("test")?, g.test),
    };
    let labels = Labels::from_targets(ds.targets());
    let n_max = ds.graphs().iter().map(Graph::num_nodes).max().unwrap_or(0);
    let dprr = EdgePerturbation::dprr_paper(BASELINE_EPS, n_max)?;
    let EdgePerturbation::DegreePreserving { eps1, .. } = dprr else {
        unreachable!("dprr_paper gives DPRR")
    };
    let rr = EdgePerturbation::RandomizedResponse { eps: BASELINE_EPS };
    let mut out = Baselines {
        rr: Vec::new(),
        dprr: Vec::new(),
        eps1,
        sizes: [split.train.len(), split.val.len(), split.test.len()],
        edge_ratio: [0.0; 2],
        epochs: [Vec::new(), Vec::new()],
        target_standardization: None,
        seconds: 0.0,
        constant_rmse: match &labels {
            Labels::Real(y) => {
                let mean =
                    split.train.iter().map(|&i| y[i]).sum::<f64>() / split.train.len() as f64;
                let mse = split
                    .test
                    .iter()
                    .map(|&i| (y[i] - mean).powi(2))
                    .sum::<f64>()
                    / split.test.len() as f64;
                Some(mse.sqrt())
            }
            Labels::Class(_) => None,
        },
    };
    let start = Instant::now();
    for rep in 0..g.reps {
        let seed = rep_seed(ctx, tag, rep);
        let cfg = GinBaselineConfig {
            features: BaselineFeatures::Ones,
            max_epochs: g.epochs,
            patience: Some(g.patience),
            seed,
            standardize_targets: true,
            ..GinBaselineConfig::paper()
        };
        for (k, p) in [rr, dprr].iter().enumerate() {
            let mut noise = ChaCha20Rng::seed_from_u64(seed ^ (0x5252 + k as u64));
            let o = gin_baseline(
                ds.graphs(),
                ds.node_labels(),
                &labels,
                &split,
                p,
                &cfg,
                &mut noise,
            )?;
            out.edge_ratio[k] += o.edge_ratio / g.reps as f64;
            out.epochs[k].push((o.epochs, o.best_epoch + 1));
            out.target_standardization = o.target_standardization;
            if k == 0 {
                out.rr.push(metric.of_scores(&o.scores));
            } else {
                out.dprr.push(metric.of_scores(&o.scores));
            }
        }
    }
    out.seconds = start.elapsed().as_secs_f64();
    Ok(Some(out))
}

fn forests(d: usize) -> impl Fn(&mut ChaCha8Rng) -> Result<Vec<Pattern>> {
    move |rng| Ok(PatternSampler::forests().sample_many(d, rng))
}

/// Which datasets run: `--only BBBP,BACE` (dataset names, case-insensitive; empty: all). A
/// dataset keeps its tag (and so its seeds) whether or not others run; Q1 runs only with SBM,
/// Q2 only with HIV; the main table and the curve rerun the selected datasets and keep the
/// other datasets' rows from the earlier table in the output directory ([`Kept`]).
struct Only(Option<Vec<String>>);

impl Only {
    /// The selection of `--only`; an unknown dataset name is an error naming it.
    fn new(names: &[String], known: &[&str]) -> Result<Self> {
        if names.is_empty() {
            return Ok(Self(None));
        }
        let mut v = Vec::new();
        for n in names {
            let n = n.trim().to_ascii_lowercase();
            if !known.iter().any(|k| k.to_ascii_lowercase() == n) {
                bail!(
                    "--only: unknown homdp dataset `{n}` (known: {})",
                    known.join(", ")
                );
            }
            v.push(n);
        }
        Ok(Self(Some(v)))
    }

    fn wants(&self, name: &str) -> bool {
        self.0
            .as_ref()
            .is_none_or(|o| o.iter().any(|x| *x == name.to_ascii_lowercase()))
    }
}

fn base_meta(ctx: &Ctx, sz: &Sizes) -> serde_json::Map<String, Value> {
    let mut m = ctx.meta();
    m.insert("delta".into(), json!(DELTA));
    m.insert("beta".into(), json!("rho/5"));
    m.insert("repetitions".into(), json!(sz.reps));
    m.insert("protocol".into(), json!("noise on training rows, clean test rows; attack: all graphs' noisy vectors against the clean index"));
    m
}

pub(crate) fn run(ctx: &Ctx) -> Result<()> {
    let dir = ctx.out.join("homdp");
    let sz = sizes(ctx.effort);
    let settings = settings();
    let names: Vec<&str> = settings.iter().map(|s| s.name).collect();
    let only = Only::new(&ctx.select.only, &names)?;
    let tables = Tables::new(&ctx.select.tables);
    let d = 50;

    // 1. The paper's table.
    let columns = [
        "dataset",
        "model",
        "metric",
        "bound",
        "test_rows",
        "rho",
        "eps",
        "value",
        "std",
        "accuracy",
        "attack_top1",
        "attack_top10",
        "paper_value",
        "paper_attack_top1",
        "clipped",
        "graphs",
        "rr",
        "dprr",
        "paper_rr",
        "paper_dprr",
    ];
    let mut t = Table::new(
        "Main table: downstream score and re-identification at rho = 0.01 (both bounds) and rho = inf; test rows clean (the paper's protocol) or noisy",
        &columns,
    );
    t.meta = base_meta(ctx, &sz);
    t.meta.insert("protocol".into(), json!("noise on training rows; test rows clean (test_rows = clean, the paper's protocol) or noisy (test_rows = noisy); attack: all graphs' noisy vectors against the clean index"));
    t.meta.insert(
        "patterns".into(),
        json!(format!("{d} forests (paper law); SBM: C3, C4")),
    );
    // Rows of the earlier table for the datasets --only leaves out.
    let kept = if tables.main && only.0.is_some() {
        Kept::load(
            ctx,
            &dir,
            "main",
            &t.columns,
            &only,
            &settings,
            &|c: &str| (c == "test_rows").then(|| json!("clean")),
        )?
    } else {
        Kept::default()
    };
    let mut prepared = Vec::new();
    let mut baseline_notes: Vec<String> = Vec::new();
    let mut rep_notes: Vec<String> = Vec::new();
    for (tag, s) in settings.iter().enumerate() {
        if !only.wants(s.name) {
            t.rows.extend(kept.rows_of(s.name));
            prepared.push(None);
            continue;
        }
        let start = Instant::now();
        let Some(p) = prepare(s.name, &sz, ctx.seed)? else {
            t.push(vec![
                json!(s.name),
                json!(s.model.name()),
                json!(s.metric.name()),
                json!("-"),
                json!("-"),
                json!("-"),
                Value::Null,
                json!("not installed"),
                Value::Null,
                Value::Null,
                Value::Null,
                Value::Null,
                num(s.paper[0]),
                num(s.paper[1]),
                Value::Null,
                Value::Null,
                json!("not installed"),
                json!("not installed"),
                num(s.paper_baselines[0]),
                num(s.paper_baselines[1]),
            ]);
            prepared.push(None);
            continue;
        };
        if !tables.main {
            prepared.push(Some(p));
            continue;
        }
        let cycles = |_: &mut ChaCha8Rng| Ok(vec![Pattern::cycle(3)?, Pattern::cycle(4)?]);
        let pats: &dyn Fn(&mut ChaCha8Rng) -> Result<Vec<Pattern>> = if s.name == "SBM" {
            &cycles
        } else {
            &forests(d)
        };
        let point = |rho, bound, noisy_test| Point {
            rho,
            bound,
            noisy_test,
        };
        let mut grid = vec![
            point(Some(0.01), SensitivityBound::ComponentAware, false),
            point(Some(0.01), SensitivityBound::PaperTheorem45, false),
            point(None, SensitivityBound::ComponentAware, false),
        ];
        if s.noisy_test_rows {
            grid.push(point(Some(0.01), SensitivityBound::ComponentAware, true));
            grid.push(point(Some(0.01), SensitivityBound::PaperTheorem45, true));
        }
        let aggs = sweep_points(ctx, tag as u64, &p, s, sz.reps, pats, &grid, true)?;
        let baseline = if s.paper_baselines[0].is_nan() {
            None
        } else {
            let b = gin_baselines(ctx, 400 + tag as u64, s.name, s.metric, sz.gin)?;
            if let Some(b) = &b {
                let standardised = b.target_standardization.map_or(String::new(), |[m, sd]| {
                    format!(" Regression targets standardised with the training mean {m:.3} and std {sd:.3} (RMSE of the un-standardised predictions).")
                }) + &b.constant_rmse.map_or(String::new(), |r| {
                    format!(" For reference, predicting the training mean for every test graph gives RMSE {r:.3}.")
                });
                baseline_notes.push(format!(
                    "{}: GIN on {} / {} / {} train / validation / test graphs, {} repetition(s), {:.0} s for both baselines; DPRR eps1 = {:.4}, eps2 = {:.4}; edges of the perturbed training graphs / clean: RR {:.2}, DPRR {:.2}; epochs run (best) RR {:?}, DPRR {:?}.{standardised}",
                    s.name, b.sizes[0], b.sizes[1], b.sizes[2], b.rr.len(), b.seconds, b.eps1, BASELINE_EPS - b.eps1, b.edge_ratio[0], b.edge_ratio[1], b.epochs[0], b.epochs[1]
                ));
            }
            b
        };
        let cell = |v: Option<&Vec<f64>>| match v {
            Some(v) => num(mean_std(v).0),
            None if s.paper_baselines[0].is_nan() => json!(NOT_RUN),
            None => json!("not installed"),
        };
        let (rr_cell, dprr_cell) = (
            cell(baseline.as_ref().map(|b| &b.rr)),
            cell(baseline.as_ref().map(|b| &b.dprr)),
        );
        let per_rep = |a: &Agg| {
            a.metric
                .iter()
                .map(|v| format!("{v:.3}"))
                .collect::<Vec<_>>()
                .join(" / ")
        };
        let mut note = format!(
            "{}: per repetition, rho = 0.01 components {}; paper {}; rho = inf {}",
            s.name,
            per_rep(&aggs[0]),
            per_rep(&aggs[1]),
            per_rep(&aggs[2])
        );
        if s.noisy_test_rows {
            note += &format!(
                "; noisy test rows: components {}, paper {}",
                per_rep(&aggs[3]),
                per_rep(&aggs[4])
            );
        }
        rep_notes.push(note + ".");
        for (pt, a) in grid.iter().zip(&aggs) {
            let (m, sd) = mean_std(&a.metric);
            let private = pt.rho.is_some();
            t.push(vec![
                json!(s.name),
                json!(p.scaled(s.model).name()),
                json!(s.metric.name()),
                json!(if private { bound_name(pt.bound) } else { "-" }),
                json!(if pt.noisy_test { "noisy" } else { "clean" }),
                if private { json!(0.01) } else { json!("inf") },
                num(a.eps),
                num(m),
                num(sd),
                num(mean_std(&a.acc).0),
                num(mean_std(&a.top1).0),
                num(mean_std(&a.top10).0),
                num(if private { s.paper[0] } else { s.paper[2] }),
                num(if private { s.paper[1] } else { s.paper[3] }),
                json!(a.clipped),
                json!(p.graphs.len()),
                rr_cell.clone(),
                dprr_cell.clone(),
                num(s.paper_baselines[0]),
                num(s.paper_baselines[1]),
            ]);
        }
        println!(
            "homdp main table: {} done in {:.1} s",
            s.name,
            start.elapsed().as_secs_f64()
        );
        prepared.push(Some(p));
    }
    if tables.main {
        write_main(ctx, &dir, &sz, &only, t, &kept, baseline_notes, rep_notes)?;
    }

    // 2. Q1: SBM, cycles vs trees over rho.
    let sbm = settings
        .iter()
        .position(|s| s.name == "SBM")
        .expect("SBM is a setting");
    if let Some(p) = prepared[sbm].as_ref().filter(|_| tables.q1) {
        let s = &settings[sbm];
        let mut q = Table::new(
            "Q1: SBM accuracy, cycle densities (C3, C4) vs tree densities (50 forests), over rho",
            &[
                "patterns",
                "bound",
                "rho",
                "eps",
                "accuracy",
                "std",
                "attack_top1",
            ],
        );
        q.meta = base_meta(ctx, &sz);
        let mut grid: Vec<(Option<f64>, SensitivityBound)> = Vec::new();
        for &r in &sz.q1_rhos {
            for (b, _) in BOUNDS {
                grid.push((Some(r), b));
            }
        }
        grid.push((None, SensitivityBound::ComponentAware));
        let cycles = |_: &mut ChaCha8Rng| Ok(vec![Pattern::cycle(3)?, Pattern::cycle(4)?]);
        let mut series = Vec::new();
        for (name, tag, pats) in [
            (
                "cycles C3+C4",
                100u64,
                &cycles as &dyn Fn(&mut ChaCha8Rng) -> Result<Vec<Pattern>>,
            ),
            ("forests (50)", 101, &forests(d)),
        ] {
            let aggs = sweep(ctx, tag, p, s, sz.reps, pats, &grid, true)?;
            for (bi, (b, bname)) in BOUNDS.iter().enumerate() {
                let pts = grid
                    .iter()
                    .zip(&aggs)
                    .filter(|((r, bb), _)| r.is_some() && bb == b)
                    .map(|((r, _), a)| (r.expect("private"), mean_std(&a.metric).0))
                    .collect();
                series.push(Series {
                    name: format!("{name}, {bname}"),
                    points: pts,
                });
                let _ = bi;
            }
            for ((r, b), a) in grid.iter().zip(&aggs) {
                let (m, sd) = mean_std(&a.metric);
                q.push(vec![
                    json!(name),
                    json!(if r.is_some() { bound_name(*b) } else { "-" }),
                    r.map_or(json!("inf"), |r| json!(r)),
                    num(a.eps),
                    num(m),
                    num(sd),
                    num(mean_std(&a.top1).0),
                ]);
            }
        }
        q.notes.push("Paper: cycle densities reach accuracy 0.86 at rho = 0.01 and 1.0 at rho >= 1; tree densities of these SBMs are (in expectation) equal across classes (expected degree is the same), so trees stay near chance.".into());
        q.notes
            .push("For single cycles (connected) both bounds coincide.".into());
        q.write(&dir, "q1_sbm")?;
        write(
            &dir,
            "q1_sbm.svg",
            line_plot(
                "Q1: SBM accuracy vs rho",
                "rho",
                "accuracy",
                Scale::Log,
                Scale::Linear,
                &series,
            )
            .as_bytes(),
        )?;
    }

    // 3. Q2: HIV, treewidth 1/2/3 at rho = 0.01.
    let hiv = settings
        .iter()
        .position(|s| s.name == "HIV")
        .expect("HIV is a setting");
    let mut q2 = Table::new(
        "Q2: HIV ROC-AUC by pattern treewidth at rho = 0.01 (both bounds, clean or noisy test rows) and rho = inf",
        &[
            "treewidth",
            "bound",
            "test_rows",
            "rho",
            "eps",
            "roc_auc",
            "std",
            "attack_top1",
            "graphs",
            "seconds",
            "count_seconds",
        ],
    );
    q2.meta = base_meta(ctx, &sz);
    q2.meta.insert("protocol".into(), json!("noise on training rows; test rows clean (test_rows = clean, the paper's protocol) or noisy (test_rows = noisy); attack: all graphs' noisy vectors against the clean index"));
    q2.meta.insert("repetitions".into(), json!(sz.side_reps));
    if tables.q2 && only.wants("HIV") && prepared[hiv].is_some() {
        let q2_start = Instant::now();
        let q2_sz = match sz.q2_graphs {
            Some(g) => Sizes {
                max_train: g * 4 / 5,
                max_test: g / 5,
                ..sizes(ctx.effort)
            },
            None => Sizes {
                max_train: usize::MAX,
                max_test: usize::MAX,
                ..sizes(ctx.effort)
            },
        };
        let p = prepare("HIV", &q2_sz, ctx.seed)?.expect("installed");
        let s = &settings[hiv];
        let point = |rho, bound, noisy_test| Point {
            rho,
            bound,
            noisy_test,
        };
        let grid = [
            point(Some(0.01), SensitivityBound::ComponentAware, false),
            point(Some(0.01), SensitivityBound::PaperTheorem45, false),
            point(None, SensitivityBound::ComponentAware, false),
            point(Some(0.01), SensitivityBound::ComponentAware, true),
            point(Some(0.01), SensitivityBound::PaperTheorem45, true),
        ];
        let mut series: Vec<Series> = [
            "components",
            "paper",
            "non-private",
            "components, noisy test rows",
            "paper, noisy test rows",
        ]
        .iter()
        .map(|n| Series {
            name: (*n).to_owned(),
            points: Vec::new(),
        })
        .collect();
        let mut walls = Vec::new();
        let mut shapes = Vec::new();
        for tw in 1..=3usize {
            let tw_start = Instant::now();
            let sampler = if tw == 1 {
                PatternSampler::forests()
            } else {
                PatternSampler::partial_ktrees(tw)?
            };
            let pats = move |rng: &mut ChaCha8Rng| Ok(sampler.sample_many(d, rng));
            // The first repetition's patterns: how many are forests, how many hold a triangle.
            let first = pats(&mut ChaCha8Rng::seed_from_u64(rep_seed(
                ctx,
                200 + tw as u64,
                0,
            )))?;
            shapes.push((
                first.iter().filter(|f| f.is_forest()).count(),
                first.iter().filter(|f| has_triangle(f)).count(),
            ));
            let aggs = sweep_points(
                ctx,
                200 + tw as u64,
                &p,
                s,
                sz.side_reps,
                &pats,
                &grid,
                true,
            )?;
            for (k, (pt, a)) in grid.iter().zip(&aggs).enumerate() {
                let (m, sd) = mean_std(&a.metric);
                series[k].points.push((tw as f64, m));
                let private = pt.rho.is_some();
                q2.push(vec![
                    json!(tw),
                    json!(if private { bound_name(pt.bound) } else { "-" }),
                    json!(if pt.noisy_test { "noisy" } else { "clean" }),
                    if private { json!(0.01) } else { json!("inf") },
                    num(a.eps),
                    num(m),
                    num(sd),
                    num(mean_std(&a.top1).0),
                    json!(p.graphs.len()),
                    json!(a.secs),
                    json!(a.count_secs),
                ]);
            }
            walls.push(tw_start.elapsed().as_secs_f64());
        }
        let Labels::Class(y) = &p.labels else {
            bail!("HIV has class labels")
        };
        let positives = |v: &[usize]| v.iter().filter(|&&i| y[i] == 1).count();
        let size = match sz.q2_graphs {
            Some(_) => format!(
                "a seeded subsample of {} HIV graphs (scaffold split sides kept, {} train / {} test)",
                p.graphs.len(),
                p.split.train.len(),
                p.split.test.len()
            ),
            None => format!(
                "all {} HIV graphs (scaffold split: {} train / {} test)",
                p.graphs.len(),
                p.split.train.len(),
                p.split.test.len()
            ),
        };
        q2.notes.push(format!(
            "Paper: ROC-AUC about 0.70 / 0.55 / 0.50 for treewidth 1 / 2 / 3. Here {size}, {} / {} positives in train / test (no class-balanced sampling), {}; test_rows as in the main table (the `noisy` rows share the release of the `clean` rows of the same bound). Treewidth 1 = the paper's forests; 2, 3 = partial k-trees with the same size law (a k-tree grown from a (k+1)-clique, each edge kept w.p. 0.9). Pattern seeds differ from the main table's (treewidth 1 here is another draw of 50 forests). {} repetition(s).",
            positives(&p.split.train),
            positives(&p.split.test),
            match sz.q2_graphs {
                Some(_) => format!(
                    "{} (the main table's k = 1000 scaled by the training share)",
                    p.scaled(s.model).name()
                ),
                None => format!("{}, as the main table's HIV rows", s.model.name()),
            },
            sz.side_reps
        ));
        let triangle = Pattern::cycle(3)?;
        let with_triangle = p
            .graphs
            .iter()
            .map(|g| ::homdp::hom_count(&triangle, g).map(|c| c > 0))
            .collect::<std::result::Result<Vec<bool>, _>>()?
            .into_iter()
            .filter(|&t| t)
            .count();
        q2.notes.push(format!(
            "Patterns of the first repetition, treewidth 1 / 2 / 3: forests {}; holding a triangle {} (of {d}). A pattern with a triangle has density 0 in every triangle-free graph, and {with_triangle} of the {} HIV graphs ({:.1} %) have a triangle, so those columns are almost constant (the non-private attack finds fewer graphs with treewidth 2 / 3).",
            shapes.iter().map(|s| s.0.to_string()).collect::<Vec<_>>().join(" / "),
            shapes.iter().map(|s| s.1.to_string()).collect::<Vec<_>>().join(" / "),
            p.graphs.len(),
            100.0 * with_triangle as f64 / p.graphs.len() as f64
        ));
        q2.notes.push(format!(
            "Cost: `count_seconds` = densities of the 50 patterns in all {} graphs (homdp's sparse tree-decomposition counter for treewidth 2 / 3, the forest DP for forests; rayon over the cores available), `seconds` = release + k-NN + attack of that row (a `noisy` row reuses the attack of its `clean` row). Wall time per treewidth (counting and the five rows): {}; Q2 in all {:.0} s (shared 2-core machine). For scale (a one-off measurement on one core, not from this run): the dense-table counter (homdp::Method::TreeDecomposition, n^4 entries per table) took about 3 ms (treewidth 2) and 85 ms (treewidth 3) per HIV graph for 50 patterns, an hour for all of HIV at treewidth 3 and limited to graphs of at most 64 nodes, which is why Q2 used to run on 500 graphs; the sparse counter takes about 0.2 ms for either.",
            p.graphs.len(),
            walls.iter().map(|w| format!("{w:.0} s")).collect::<Vec<_>>().join(" / "),
            q2_start.elapsed().as_secs_f64()
        ));
        q2.write(&dir, "q2_treewidth")?;
        write(
            &dir,
            "q2_treewidth.svg",
            line_plot(
                "Q2: HIV ROC-AUC vs pattern treewidth (rho = 0.01)",
                "treewidth",
                "ROC-AUC",
                Scale::Linear,
                Scale::Linear,
                &series,
            )
            .as_bytes(),
        )?;
        println!("homdp Q2 done in {:.1} s", q2_start.elapsed().as_secs_f64());
    } else if tables.q2 && only.wants("HIV") {
        q2.notes.push("HIV is not installed: Q2 skipped.".into());
        q2.write(&dir, "q2_treewidth")?;
    }

    // 4. Privacy–utility curve.
    if tables.curve {
        curve(ctx, &dir, &sz, &only, &settings, &prepared, d)?;
    }

    // The directory's README: every table present, in order.
    let mut md = String::from("# homdp: private homomorphism-density embeddings\n\n");
    for stem in ["main", "q1_sbm", "q2_treewidth", "curve"] {
        if let Ok(text) = std::fs::read_to_string(dir.join(format!("{stem}.md"))) {
            md += &text;
        }
    }
    write(&dir, "README.md", md.as_bytes())?;
    println!("{md}");
    Ok(())
}

/// The privacy–utility curve (`curve.{csv,json,md,svg}`): every selected dataset over ρ, both
/// bounds; with `--only`, the other datasets' rows are kept from the earlier table.
fn curve(
    ctx: &Ctx,
    dir: &Path,
    sz: &Sizes,
    only: &Only,
    settings: &[Setting],
    prepared: &[Option<Prepared>],
    d: usize,
) -> Result<()> {
    let mut c = Table::new(
        "Privacy-utility curve: score and top-1 re-identification over rho, both bounds",
        &[
            "dataset",
            "metric",
            "bound",
            "rho",
            "eps",
            "value",
            "std",
            "attack_top1",
            "attack_top10",
        ],
    );
    c.meta = base_meta(ctx, sz);
    c.meta.insert("repetitions".into(), json!(sz.side_reps));
    c.meta.insert("rhos".into(), json!(sz.curve_rhos));
    let kept = if only.0.is_some() {
        Kept::load(ctx, dir, "curve", &c.columns, only, settings, &|_: &str| {
            None
        })?
    } else {
        Kept::default()
    };
    for (tag, (s, p)) in settings.iter().zip(prepared).enumerate() {
        if !only.wants(s.name) {
            c.rows.extend(kept.rows_of(s.name));
            continue;
        }
        let Some(p) = p else {
            c.push(vec![
                json!(s.name),
                json!(s.metric.name()),
                json!("-"),
                json!("-"),
                Value::Null,
                json!("not installed"),
                Value::Null,
                Value::Null,
                Value::Null,
            ]);
            continue;
        };
        let mut grid = Vec::new();
        for &r in &sz.curve_rhos {
            for (b, _) in BOUNDS {
                grid.push((Some(r), b));
            }
        }
        let cycles = |_: &mut ChaCha8Rng| Ok(vec![Pattern::cycle(3)?, Pattern::cycle(4)?]);
        let pats: &dyn Fn(&mut ChaCha8Rng) -> Result<Vec<Pattern>> = if s.name == "SBM" {
            &cycles
        } else {
            &forests(d)
        };
        let aggs = sweep(ctx, 300 + tag as u64, p, s, sz.side_reps, pats, &grid, true)?;
        for ((r, b), a) in grid.iter().zip(&aggs) {
            let (m, sd) = mean_std(&a.metric);
            c.push(vec![
                json!(s.name),
                json!(s.metric.name()),
                json!(bound_name(*b)),
                json!(r.expect("private")),
                num(a.eps),
                num(m),
                num(sd),
                num(mean_std(&a.top1).0),
                num(mean_std(&a.top10).0),
            ]);
        }
    }
    c.notes
        .push("eps at delta = 1e-6 with beta = rho/5 and d = 50 (SBM: d = 2).".into());
    if let Some(o) = &only.0 {
        c.notes.push(format!(
            "--only {}: only these datasets were run (each with its usual seeds).{}",
            o.join(","),
            kept.note()
        ));
    }
    c.write(dir, "curve")?;
    // One series per (dataset, bound), from the rows (the kept ones included).
    let mut series: Vec<Series> = Vec::new();
    for r in &c.rows {
        let (Some(ds), Some(b), Some(rho), Some(v)) =
            (r[0].as_str(), r[2].as_str(), r[3].as_f64(), r[5].as_f64())
        else {
            continue;
        };
        let name = format!("{ds} ({b})");
        match series.iter_mut().find(|s| s.name == name) {
            Some(s) => s.points.push((rho, v)),
            None => series.push(Series {
                name,
                points: vec![(rho, v)],
            }),
        }
    }
    write(
        dir,
        "curve.svg",
        line_plot(
            "Privacy-utility: score vs rho",
            "rho",
            "ROC-AUC / RMSE / accuracy",
            Scale::Log,
            Scale::Linear,
            &series,
        )
        .as_bytes(),
    )?;
    Ok(())
}

/// Writes the main table (`main.{csv,json,md,svg}`) with its notes.
#[allow(clippy::too_many_arguments)] // the pieces the main loop gathered
fn write_main(
    ctx: &Ctx,
    dir: &Path,
    sz: &Sizes,
    only: &Only,
    mut t: Table,
    kept: &Kept,
    baseline_notes: Vec<String>,
    rep_notes: Vec<String>,
) -> Result<()> {
    t.notes.push("bound `components`: the corrected component-aware sensitivity 2e(F)/n^2 (Delta/n)^(m-c-1) (default); `paper`: the paper's Theorem 4.5 formula as the reference code applies it (under-estimates the noise for disconnected patterns); rho = inf: no noise.".into());
    t.notes.push("test_rows `clean`: the paper's protocol (noise on the training rows only, the model scored on the clean test rows); `noisy`: the test rows are released with the same noise law (homdp::Protocol::noisy_test), for HIV, BACE and BBBP. The two rows of one bound share the release (same patterns and noise draws, so the same training rows and attack figures) and differ only in the test rows.".into());
    t.notes.push("Degree bounds Delta: HIV 10, BACE/BBBP/Lipophilicity 6, REDDIT-BINARY none (Delta = n), SBM 133 (the paper's 132.47 rounded up). Graphs above Delta are clipped (count in `clipped`).".into());
    t.notes.push("Splits: the scaffold train/test files of the molecule sets (valid unused); REDDIT-BINARY and SBM 80/20 with the run seed. REDDIT-BINARY appends |V(G)| (public). SBM uses the cycle densities C3, C4.".into());
    t.notes.push("BBBP: homdp's random forest as scikit-learn's RandomForestClassifier(n_estimators=200, min_samples_split=10): Gini CART trees grown to purity on bootstrap samples, floor(sqrt(d)) = 7 features drawn per split, leaf class shares averaged over the trees; Lipophilicity: linear epsilon-SVR (dual coordinate descent).".into());
    if let Some(o) = &only.0 {
        t.notes.push(format!(
            "--only {}: only these datasets were run (each with its usual seeds).{}",
            o.join(","),
            kept.note()
        ));
    }
    if ctx.effort == Effort::Full {
        t.notes.push(format!("--full: all graphs, {} repetitions (fresh pattern set and noise each; the reference code averages three pattern-set runs); Q2 ({}) and the privacy-utility curve use {} repetition(s).", sz.reps, sz.q2_graphs.map_or("all HIV graphs".to_owned(), |g| format!("{g} HIV graphs")), sz.side_reps));
    }
    if ctx.effort == Effort::Quick {
        t.notes.push(format!("--quick: at most {} training and {} test graphs per dataset (seeded subsample; k of k-NN scaled by the training share), {} SBM graphs per class, {} repetition(s). The attack runs over the subsample.", sz.max_train, sz.max_test, sz.sbm_per_class, sz.reps));
    }
    t.notes.push(format!("rr / dprr: the paper's GNN baselines at eps = {BASELINE_EPS}, the same value on each row of a dataset: GIN (gnn `homdp-gin`: 5 layers, hidden 300, mean pool; all-ones node features, as the reference code, which drops the atom features for a structure-only comparison) trained on graphs perturbed by randomized response (RR: each unordered node pair of a graph flipped once w.p. 1/(1+e^eps); per-graph edge-level eps-DP, the paper's notion) or degree-preserving RR (DPRR, Hidano & Murakami: eps1 = max(0.1, sqrt(8/(n_max-1))) for Laplace degrees, eps2 = eps - eps1 for RR, per-node sampling; eps per adjacency list as in the paper, <= 2 eps per-graph edge-level since an edge lies in two lists); training and validation graphs perturbed, test graphs clean. Adam lr 1e-3, batch 64, no weight decay, at most {} epochs, best weights by the perturbed validation loss with patience {} (reference: 100 epochs, best validation ROC-AUC / RMSE, L1 loss for Lipophilicity where gnn uses MSE, 3 seeds); Lipophilicity's targets are standardised with the training graphs' mean and std (homdp::GinBaselineConfig::standardize_targets; the reference trains on the raw targets) and the RMSE is that of the un-standardised predictions, in the targets' units; seeded subsamples of the scaffold split (at most {} train / {} validation / {} test graphs) to fit 2 CPU cores. REDDIT-BINARY / SBM: {NOT_RUN}.", sz.gin.epochs, sz.gin.patience, sz.gin.train, sz.gin.val, sz.gin.test));
    t.notes.extend(baseline_notes);
    t.notes.extend(rep_notes);
    t.notes.extend(kept.notes.iter().cloned());
    t.notes.push("BACE private, clean test rows (k = 120; the figures in this note come from a one-off diagnostic of seed 42's pattern draws, not from this run): sigma_G shrinks fast with |V(G)| (Delta = 6), so after scaling on the noisy training rows the k nearest training rows of every clean test row are the least noisy, largest molecules (about 97 % of the neighbours lie in the largest quartile of training graphs, n >= 39, over seed 42's pattern draws). The score then hinges on a few hundred large molecules and is bimodal over pattern draws (about 0.35 or 0.70; 11 draws of this seed: mean 0.47); the paper's 0.652 lies in the upper mode. The `noisy` test-row rows of this table measure the other protocol on the same draws.".into());
    t.notes.push("Attack: each graph's released vector is matched against the clean vectors of all graphs on the density columns only (REDDIT-BINARY's public |V(G)| column is left out, as in the reference code, which attacks before appending it; homdp::Protocol::attack_num_nodes includes it).".into());
    t.notes.push("Scaling: the scaler (REDDIT-BINARY: PCA(5), then the scaler, the reference's order) is fitted on the noisy training rows and applied to the test rows (clean, as the reference code does, or noisy).".into());
    t.write(dir, "main")?;
    // Plot: per dataset, the clean-test-row protocol at x = 0 (components), 1 (paper), 2 (rho = inf).
    let col = |name: &str| {
        t.columns
            .iter()
            .position(|c| c == name)
            .expect("a main-table column")
    };
    let (c_ds, c_bound, c_rows, c_value) =
        (col("dataset"), col("bound"), col("test_rows"), col("value"));
    let mut series: Vec<Series> = Vec::new();
    for r in &t.rows {
        let x = match (r[c_bound].as_str(), r[c_rows].as_str()) {
            (Some("components"), Some("clean")) => 0.0,
            (Some("paper"), Some("clean")) => 1.0,
            (Some("-"), Some("clean")) => 2.0,
            _ => continue,
        };
        let Some(y) = r[c_value].as_f64() else {
            continue;
        };
        let name = r[c_ds].as_str().unwrap_or("?").to_owned();
        match series.iter_mut().find(|s| s.name == name) {
            Some(s) => s.points.push((x, y)),
            None => series.push(Series {
                name,
                points: vec![(x, y)],
            }),
        }
    }
    write(dir, "main.svg", line_plot("Score per dataset (clean test rows): 0 = rho 0.01 components bound, 1 = rho 0.01 paper bound, 2 = non-private", "setting", "ROC-AUC / RMSE / accuracy", Scale::Linear, Scale::Linear, &series).as_bytes())?;
    Ok(())
}

/// Rows of an earlier table in the output directory for the datasets that `--only` leaves
/// out, so that a partial rerun keeps them (with the notes that name them).
#[derive(Default)]
struct Kept {
    /// `(dataset, row)` laid out on the new table's columns.
    rows: Vec<(String, Vec<Value>)>,
    /// Per-dataset notes of the earlier table (`"<kept dataset>: per repetition …"` and
    /// `"<kept dataset>: GIN on …"`).
    notes: Vec<String>,
    /// What the table note says about the kept rows.
    origin: Option<String>,
}

impl Kept {
    /// Loads `<dir>/<stem>.json` when it exists and was written with this run's effort and seed;
    /// columns it lacks are filled by `fill` (or null).
    fn load(
        ctx: &Ctx,
        dir: &Path,
        stem: &str,
        columns: &[String],
        only: &Only,
        settings: &[Setting],
        fill: &dyn Fn(&str) -> Option<Value>,
    ) -> Result<Self> {
        let path = dir.join(format!("{stem}.json"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            return Ok(Self {
                origin: Some(format!(
                    " No earlier {stem}.json in the output directory: the other datasets have no rows."
                )),
                ..Self::default()
            });
        };
        let old: Value =
            serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
        let meta = &old["meta"];
        let (effort, seed) = (meta["effort"].clone(), meta["seed"].clone());
        let now = ctx.meta();
        if Some(&effort) != now.get("effort") || Some(&seed) != now.get("seed") {
            return Ok(Self {
                origin: Some(format!(
                    " The earlier {stem}.json (effort {effort}, seed {seed}) does not match this run: its rows were not kept."
                )),
                ..Self::default()
            });
        }
        let left_out: Vec<&str> = settings
            .iter()
            .map(|s| s.name)
            .filter(|n| !only.wants(n))
            .collect();
        let mut rows = Vec::new();
        for r in old["rows"].as_array().into_iter().flatten() {
            let Some(name) = r["dataset"].as_str() else {
                continue;
            };
            if !left_out.contains(&name) {
                continue;
            }
            let row = columns
                .iter()
                .map(|c| match r.get(c) {
                    Some(v) => v.clone(),
                    None => fill(c).unwrap_or(Value::Null),
                })
                .collect();
            rows.push((name.to_owned(), row));
        }
        let notes = old["notes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|n| {
                left_out.iter().any(|d| {
                    n.starts_with(&format!("{d}: per repetition"))
                        || n.starts_with(&format!("{d}: GIN on"))
                })
            })
            .map(str::to_owned)
            .collect();
        let mut names: Vec<&str> = rows.iter().map(|(n, _)| n.as_str()).collect();
        names.dedup();
        Ok(Self {
            origin: Some(format!(
                " The rows of {} are kept from the earlier run in this directory (git revision {}, same effort and seed).",
                if names.is_empty() {
                    "no other dataset".to_owned()
                } else {
                    names.join(", ")
                },
                meta["git_revision"].as_str().unwrap_or("unknown")
            )),
            rows,
            notes,
        })
    }

    fn rows_of(&self, name: &str) -> Vec<Vec<Value>> {
        self.rows
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, r)| r.clone())
            .collect()
    }

    fn note(&self) -> String {
        self.origin.clone().unwrap_or_default()
    }
}

/// Which tables run: `--tables main,q2` (empty: all). A table that does not run is not
/// rewritten; the directory's `README.md` is rebuilt from the Markdown of every table present.
struct Tables {
    main: bool,
    q1: bool,
    q2: bool,
    curve: bool,
}

impl Tables {
    fn new(v: &[HomdpTable]) -> Self {
        let all = v.is_empty();
        Self {
            main: all || v.contains(&HomdpTable::Main),
            q1: all || v.contains(&HomdpTable::Q1),
            q2: all || v.contains(&HomdpTable::Q2),
            curve: all || v.contains(&HomdpTable::Curve),
        }
    }
}

fn has_triangle(f: &Pattern) -> bool {
    f.edges()
        .any(|(u, v)| f.neighbor_mask(u) & f.neighbor_mask(v) != 0)
}

fn bound_name(b: SensitivityBound) -> &'static str {
    match b {
        SensitivityBound::ComponentAware => "components",
        SensitivityBound::PaperTheorem45 => "paper",
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(seed: u64, out: &Path) -> Ctx {
        Ctx {
            effort: Effort::Full,
            seed,
            out: out.to_path_buf(),
            revision: "test".into(),
            select: Default::default(),
        }
    }

    #[test]
    fn partial_reruns_keep_the_other_datasets_rows() -> Result<()> {
        let dir = tempfile::tempdir()?;
        // An earlier table without the `test_rows` column, as written before it existed.
        let mut old = Table::new("T", &["dataset", "bound", "value"]);
        old.meta = ctx(42, dir.path()).meta();
        old.push(vec![json!("HIV"), json!("paper"), json!(0.7)]);
        old.push(vec![json!("SBM"), json!("paper"), json!(0.9)]);
        old.push(vec![json!("SBM"), json!("-"), json!(1.0)]);
        old.notes = vec![
            "SBM: per repetition, 0.9 / 0.9.".into(),
            "HIV: per repetition, 0.7.".into(),
            "SBM: some general note.".into(),
        ];
        old.write(dir.path(), "main")?;
        let columns: Vec<String> = ["dataset", "bound", "test_rows", "value"]
            .iter()
            .map(|c| (*c).to_owned())
            .collect();
        let only = Only(Some(vec!["hiv".into()]));
        let fill = |c: &str| (c == "test_rows").then(|| json!("clean"));
        let kept = Kept::load(
            &ctx(42, dir.path()),
            dir.path(),
            "main",
            &columns,
            &only,
            &settings(),
            &fill,
        )?;
        assert!(kept.rows_of("HIV").is_empty());
        assert_eq!(
            kept.rows_of("SBM"),
            vec![
                vec![json!("SBM"), json!("paper"), json!("clean"), json!(0.9)],
                vec![json!("SBM"), json!("-"), json!("clean"), json!(1.0)],
            ]
        );
        assert_eq!(
            kept.notes,
            vec!["SBM: per repetition, 0.9 / 0.9.".to_owned()]
        );
        assert!(
            kept.note().contains("rows of SBM are kept"),
            "{}",
            kept.note()
        );
        // Another seed: nothing is kept, and the note says why.
        let other = Kept::load(
            &ctx(7, dir.path()),
            dir.path(),
            "main",
            &columns,
            &only,
            &settings(),
            &fill,
        )?;
        assert!(other.rows.is_empty() && other.note().contains("not kept"));
        // No earlier table.
        let none = Kept::load(
            &ctx(42, dir.path()),
            dir.path(),
            "curve",
            &columns,
            &only,
            &settings(),
            &fill,
        )?;
        assert!(none.rows.is_empty() && none.note().contains("No earlier curve.json"));
        Ok(())
    }

    #[test]
    fn table_and_dataset_selection() -> Result<()> {
        let all = Tables::new(&[]);
        assert!(all.main && all.q1 && all.q2 && all.curve);
        let some = Tables::new(&[HomdpTable::Main, HomdpTable::Q2]);
        assert!(some.main && !some.q1 && some.q2 && !some.curve);
        let only = Only::new(&["bbbp".into(), " BACE".into()], &["BBBP", "BACE", "HIV"])?;
        assert!(only.wants("BBBP") && only.wants("bace") && !only.wants("HIV"));
        assert!(Only::new(&[], &["HIV"])?.wants("HIV"));
        let e = Only::new(&["ZINC".into()], &["HIV"])
            .err()
            .expect("unknown name");
        assert!(e.to_string().contains("`zinc`"), "{e}");
        Ok(())
    }

    #[test]
    fn triangles_in_patterns() -> Result<()> {
        assert!(has_triangle(&Pattern::complete(3)?));
        assert!(!has_triangle(&Pattern::cycle(4)?));
        let diamond = Pattern::new(4, &[(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)])?;
        assert!(has_triangle(&diamond));
        Ok(())
    }
}
