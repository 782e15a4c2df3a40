//! The paper's main table on one dataset ([`main_table`]): the downstream score and the
//! re-identification rates at ρ = 0.01 under both sensitivity bounds and at ρ = ∞, with clean
//! test rows (the paper's protocol) and, for the molecule classification sets, noisy ones; the
//! controls that could overturn the embedding's scores ([`Control`]: `|V(G)|` alone, the
//! densities without the `|V(G)|` column); the GIN baselines ([`Baselines`]) and, for
//! regression, the training mean as rows of their own ([`RowKind`]).

use dp_core::params::EpsilonBound;
use graph_core::Graph;
use ndarray::{Array2, Axis};
use serde::Serialize;

use super::cells::{Rho, Score};
use super::protocol::{MAIN_RHO, PRIVATE_DEGREE_RHOS, PatternSet, SeedStream, Sizes, rep_seeds};
use super::sweep::{Point, Repetitions, Runs, mean, mean_std, sweep};
use super::{BASELINE_EPS, DatasetSetting, Prepared};
use crate::degree::PrivateDegree;
use crate::downstream::{Downstream, fit_evaluate};
use crate::error::Result;
use crate::evaluate::clean_features;
use crate::pattern::Pattern;
use crate::sensitivity::SensitivityBound;

/// What a row of the main table measures (its `kind` column).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RowKind {
    /// The homomorphism-density embedding under the paper's protocol (with the public
    /// `|V(G)|` column where the setting appends it).
    #[default]
    Embedding,
    /// Control: `|V(G)|` alone as the only feature, with the same downstream model
    /// ([`Control::NodesOnly`]).
    NodesOnly,
    /// Control: the densities without the `|V(G)|` column, private and non-private
    /// ([`Control::WithoutNodes`]).
    WithoutNodes,
    /// GIN trained on randomized-response graphs.
    GinRr,
    /// GIN trained on degree-preserving RR graphs.
    GinDprr,
    /// Reference (regression): the training targets' mean predicted for every test graph.
    TrainMean,
}

/// The controls of the main table: feature sets that could explain the embedding's score
/// without the densities' structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Control {
    /// `|V(G)|` alone, one column. Under edge-level DP the node set is public, so the column
    /// is released exactly (ε = 0).
    NodesOnly,
    /// The homomorphism densities without the `|V(G)|` column (for the datasets that do not
    /// append it, the embedding's own features).
    WithoutNodes,
}

impl Control {
    /// The clean feature matrix of this control: one column of node counts
    /// ([`Control::NodesOnly`]), or the densities of `patterns` alone
    /// ([`Control::WithoutNodes`], `patterns.len()` columns).
    ///
    /// # Errors
    /// As [`clean_features`].
    ///
    /// # Example
    /// ```
    /// use homdp::Pattern;
    /// use homdp::paper::Control;
    /// let graphs = [graph_core::Graph::from_edges(4, &[(0, 1)])?];
    /// let p = [Pattern::path(2)?];
    /// assert_eq!(Control::NodesOnly.features(&p, &graphs)?[[0, 0]], 4.0);
    /// assert_eq!(Control::WithoutNodes.features(&p, &graphs)?.ncols(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Complexity
    /// `NodesOnly`: O(#graphs); `WithoutNodes`: as [`clean_features`].
    pub fn features(self, patterns: &[Pattern], graphs: &[Graph]) -> Result<Array2<f64>> {
        match self {
            Self::NodesOnly => Ok(Array2::from_shape_fn((graphs.len(), 1), |(i, _)| {
                graphs[i].num_nodes() as f64
            })),
            Self::WithoutNodes => clean_features(patterns, graphs, false),
        }
    }

    /// The setting this control is evaluated under: `s` without the `|V(G)|` column
    /// ([`Control::WithoutNodes`]), or unchanged.
    pub fn setting(self, s: &DatasetSetting) -> DatasetSetting {
        match self {
            Self::WithoutNodes => DatasetSetting {
                append_num_nodes: false,
                ..*s
            },
            Self::NodesOnly => *s,
        }
    }
}

/// `model` fitted on `columns` feature columns: a PCA keeps at most `columns` components
/// (PCA(5) on the one column of [`Control::NodesOnly`] is PCA(1)); other models unchanged.
pub fn model_for_columns(model: Downstream, columns: usize) -> Downstream {
    match model {
        Downstream::PcaKnn { components, k } => Downstream::PcaKnn {
            components: components.min(columns),
            k,
        },
        Downstream::PcaRandomForest {
            components,
            trees,
            min_split,
        } => Downstream::PcaRandomForest {
            components: components.min(columns),
            trees,
            min_split,
        },
        m => m,
    }
}

/// The [`Control::NodesOnly`] runs on `p`: the dataset's downstream model (scaled as the
/// embedding's, [`model_for_columns`]) trained on the training graphs' `|V(G)|` and scored on
/// the test graphs', once per repetition of `reps` (the model seeded as the embedding's in
/// that repetition; k-NN and the SVR are deterministic, so their repetitions agree).
///
/// # Errors
/// As [`fit_evaluate`].
///
/// # Privacy
/// `|V(G)|` is public under edge-level DP: `eps` = 0.
///
/// # Complexity
/// `reps.reps` model fits on one column.
pub fn nodes_only_runs(p: &Prepared, s: &DatasetSetting, reps: Repetitions) -> Result<Runs> {
    let x = Control::NodesOnly.features(&[], &p.graphs)?;
    let model = model_for_columns(p.scaled(s.model), 1);
    let (x_train, x_test) = (
        x.select(Axis(0), &p.split.train),
        x.select(Axis(0), &p.split.test),
    );
    let (y_train, y_test) = (
        p.labels.select(&p.split.train),
        p.labels.select(&p.split.test),
    );
    let mut runs = Runs {
        eps: Some(EpsilonBound::ZERO),
        ..Runs::default()
    };
    for rep in 0..reps.reps {
        let seeds = rep_seeds(reps.seed, reps.stream, rep);
        let scores = fit_evaluate(
            &model,
            x_train.view(),
            &y_train,
            x_test.view(),
            &y_test,
            seeds.root(),
        )?;
        runs.metric.push(s.metric.of_scores(&scores));
        runs.accuracy.push(scores.accuracy.unwrap_or(f64::NAN));
        runs.top1.push(f64::NAN);
        runs.top10.push(f64::NAN);
        runs.sigma.push(0.0);
    }
    Ok(runs)
}

/// One row of the main table.
#[derive(Debug, Clone, Serialize, Default)]
pub struct MainRow {
    /// The dataset.
    pub dataset: String,
    /// What the row measures: the embedding, a control or a baseline.
    pub kind: RowKind,
    /// The downstream model (k of k-NN scaled to a subsample, [`Prepared::scaled`]).
    pub model: String,
    /// The metric's name ([`super::Metric::name`]).
    pub metric: String,
    /// `components`, `paper` or `-` (non-private, or not run).
    pub bound: String,
    /// The degree bound Δ: `public D`, `none` (Δ = n) or `private D̂₁ D̂₂ …` (estimated per
    /// repetition, [`PRIVATE_DEGREE_RHOS`]); `-` when not run.
    pub degree: String,
    /// `clean` (the paper's protocol) or `noisy` test rows; `-` when not run.
    pub test_rows: String,
    /// ρ of the release.
    pub rho: Rho,
    /// ε at δ = [`super::DELTA`] (empty for the non-private row).
    pub eps: Option<EpsilonBound>,
    /// Mean of the metric over the repetitions.
    pub value: Score,
    /// Its sample standard deviation.
    pub std: f64,
    /// Mean accuracy (classification).
    pub accuracy: f64,
    /// Mean top-1 re-identification rate.
    pub attack_top1: f64,
    /// Mean top-10 re-identification rate.
    pub attack_top10: f64,
    /// The paper's value of this row (private or non-private).
    pub paper_value: f64,
    /// The top-1 rate of this row in our design notes' table (`HOMDP.md`;
    /// [`DatasetSetting::paper`]).
    pub paper_attack_top1: f64,
    /// The paper's "attack success" of this row, which matches the top-10 rate
    /// ([`DatasetSetting::paper_attack`]; NaN where the paper reports none).
    pub paper_attack_top10: f64,
    /// Graphs clipped to Δ (most in one repetition).
    pub clipped: Option<usize>,
    /// Graphs evaluated (training and test rows).
    pub graphs: Option<usize>,
    /// Mean score of GIN on RR graphs.
    pub rr: Score,
    /// Mean score of GIN on DPRR graphs.
    pub dprr: Score,
    /// The paper's GIN on RR.
    pub paper_rr: f64,
    /// The paper's GIN on DPRR.
    pub paper_dprr: f64,
    /// GIN rows: the epoch at which each repetition stopped (epochs run), space-separated;
    /// `-` elsewhere.
    pub stop_epochs: String,
    /// GIN rows: the epoch whose weights each repetition kept (best validation loss, 1-based);
    /// `-` elsewhere.
    pub best_epochs: String,
    /// GIN rows: the epoch cap.
    pub epoch_cap: Option<usize>,
}

impl MainRow {
    /// The row of a dataset that is not installed (the paper's numbers only).
    pub fn not_installed(s: &DatasetSetting) -> Self {
        Self {
            dataset: s.name.to_owned(),
            model: s.model.name(),
            metric: s.metric.name().to_owned(),
            bound: "-".into(),
            degree: "-".into(),
            test_rows: "-".into(),
            rho: Rho::NotRun,
            eps: None,
            value: Score::NotInstalled,
            std: f64::NAN,
            accuracy: f64::NAN,
            attack_top1: f64::NAN,
            attack_top10: f64::NAN,
            paper_value: s.paper[0],
            paper_attack_top1: s.paper[1],
            paper_attack_top10: s.paper_attack[0],
            clipped: None,
            graphs: None,
            rr: Score::NotInstalled,
            dprr: Score::NotInstalled,
            paper_rr: s.paper_baselines[0],
            paper_dprr: s.paper_baselines[1],
            stop_epochs: "-".into(),
            best_epochs: "-".into(),
            ..Self::default()
        }
    }
}

/// The paper's GIN baselines on one dataset: test scores of GIN trained on RR and on DPRR
/// graphs, per repetition (`gin_baselines` with the feature `gin-baselines`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Baselines {
    /// GIN on RR graphs, per repetition.
    pub rr: Vec<f64>,
    /// GIN on DPRR graphs, per repetition.
    pub dprr: Vec<f64>,
    /// ε1 of DPRR (ε2 = ε − ε1).
    pub eps1: dp_core::params::Epsilon,
    /// Graphs used: training, validation, test.
    pub sizes: [usize; 3],
    /// Mean edge ratio (perturbed / clean training graphs) of RR and DPRR.
    pub edge_ratio: [f64; 2],
    /// Epochs run and best epoch (1-based) of RR and DPRR, per repetition.
    pub epochs: [Vec<(usize, usize)>; 2],
    /// The epoch cap of the training.
    pub epoch_cap: usize,
    /// Training mean and std of standardised regression targets (last repetition).
    pub target_standardization: Option<[f64; 2]>,
    /// Wall-clock seconds of all repetitions of both baselines (the sum of the trainings'
    /// recorded times, those taken from a cache included).
    pub seconds: f64,
    /// Regression: test RMSE of the constant prediction `mean of the training targets` (the
    /// score of a model that learns nothing from the graphs).
    pub constant_rmse: Option<f64>,
    /// Trainings left out: another process's share of the grid, or over the time budget
    /// ([`super::GinCache::runs_here`]); the rows average the others.
    pub left: usize,
}

/// The main table's rows of one dataset, with the metric of each repetition.
#[derive(Debug, Clone, Serialize, Default)]
pub struct MainTable {
    /// The rows, in the order of [`main_grid`], then [`private_degree_point`].
    pub rows: Vec<MainRow>,
    /// The metric of each repetition, one list per row.
    pub per_repetition: Vec<Vec<f64>>,
}

/// The main table's points: ρ = 0.01 under the component-aware and the paper's bound, ρ = ∞,
/// then (with `noisy_test_rows`) ρ = 0.01 under both bounds with noisy test rows. The main
/// table adds [`private_degree_point`] last.
pub fn main_grid(noisy_test_rows: bool) -> Vec<Point> {
    let components = Point::private(MAIN_RHO, SensitivityBound::ComponentAware);
    let paper = Point::private(MAIN_RHO, SensitivityBound::PaperTheorem45);
    let mut grid = vec![components, paper, Point::non_private()];
    if noisy_test_rows {
        grid.extend([components.noisy(), paper.noisy()]);
    }
    grid
}

/// The main table's private-Δ point ([`PRIVATE_DEGREE_RHOS`]: Δ estimated with ρ_Δ, q = 1,
/// component-aware bound, clean test rows), which spends no more than the first row.
///
/// # Errors
/// None for the built-in ρ_Δ (a [`PrivateDegree`] is validated).
pub fn private_degree_point() -> Result<Point> {
    let (rho, rho_degree) = PRIVATE_DEGREE_RHOS;
    Ok(Point::private(rho, SensitivityBound::ComponentAware)
        .with_private_degree(PrivateDegree::new(rho_degree, 1.0)?))
}

/// Runs the main table on the prepared dataset `p` with its setting `s`: [`main_grid`] over
/// `sizes.reps` repetitions of [`SeedStream::Main`]`(index)` (`index`: the dataset's position
/// in [`super::settings`], which fixes its seeds) with [`PatternSet::of`] `s`, in a run
/// seeded with `seed`; then the controls ([`Control`]: `|V(G)|` alone, and the densities
/// without the `|V(G)|` column at ρ = [`MAIN_RHO`] (component-aware bound) and ρ = ∞, on the
/// same repetitions, patterns and noise draws); then, with `baselines`, the GIN rows and (for
/// regression) the training mean. `baselines` also fills the `rr` / `dprr` cells of the
/// embedding rows (`None`: not run, because the paper reports none or the dataset is not
/// installed).
///
/// # Errors
/// As [`sweep`] and [`nodes_only_runs`].
///
/// # Privacy
/// As [`sweep`]: each row is one release at its ρ, with its ε in the row; the `|V(G)|`-only
/// row releases public data (ε = 0).
///
/// # Complexity
/// `sizes.reps` density computations and `sizes.reps · |main_grid|` evaluations, plus the
/// controls' (for datasets that append `|V(G)|`, another `2 · sizes.reps` evaluations).
pub fn main_table(
    p: &Prepared,
    s: &DatasetSetting,
    index: usize,
    sizes: &Sizes,
    seed: u64,
    baselines: Option<&Baselines>,
) -> Result<MainTable> {
    let mut grid = main_grid(s.noisy_test_rows);
    grid.push(private_degree_point()?);
    let reps = Repetitions::new(seed, SeedStream::Main(index), sizes.reps);
    let mut runs = sweep(p, s, PatternSet::of(s), reps, &grid)?;
    let cell = |v: Option<&Vec<f64>>| match v {
        Some(v) => Score::Value(mean(v)),
        None if s.paper_baselines[0].is_nan() => Score::NotReported,
        None => Score::NotInstalled,
    };
    let (rr, dprr) = (
        cell(baselines.map(|b| &b.rr)),
        cell(baselines.map(|b| &b.dprr)),
    );
    let mut rows: Vec<MainRow> = grid
        .iter()
        .zip(&runs)
        .map(|(pt, a)| main_row(p, s, pt, a, rr, dprr))
        .collect();
    // Controls. Without an appended |V(G)| column the densities are the embedding's own
    // features: the same runs (grid points 0 and 2), not a second computation.
    let nodes = nodes_only_runs(p, s, reps)?;
    let controls = [
        Point::private(MAIN_RHO, SensitivityBound::ComponentAware),
        Point::non_private(),
    ];
    let without = if s.append_num_nodes {
        let w = Control::WithoutNodes.setting(s);
        sweep(p, &w, PatternSet::of(&w), reps, &controls)?
    } else {
        vec![runs[0].clone(), runs[2].clone()]
    };
    let mut nodes_row = main_row(p, s, &Point::non_private(), &nodes, rr, dprr);
    nodes_row.model = model_for_columns(p.scaled(s.model), 1).name();
    rows.push(MainRow {
        kind: RowKind::NodesOnly,
        degree: "-".into(),
        rho: Rho::Public,
        attack_top1: f64::NAN,
        attack_top10: f64::NAN,
        ..control(nodes_row)
    });
    runs.push(nodes);
    for (pt, a) in controls.iter().zip(without) {
        rows.push(MainRow {
            kind: RowKind::WithoutNodes,
            ..control(main_row(p, s, pt, &a, rr, dprr))
        });
        runs.push(a);
    }
    let mut per_repetition: Vec<Vec<f64>> = runs.into_iter().map(|a| a.metric).collect();
    if let Some(b) = baselines {
        for (row, v) in baseline_rows(s, b) {
            rows.push(row);
            per_repetition.push(v);
        }
    }
    Ok(MainTable {
        rows,
        per_repetition,
    })
}

/// A control row: no paper value, no GIN cells.
fn control(row: MainRow) -> MainRow {
    MainRow {
        paper_value: f64::NAN,
        paper_attack_top1: f64::NAN,
        paper_attack_top10: f64::NAN,
        rr: Score::NotReported,
        dprr: Score::NotReported,
        ..row
    }
}

/// The GIN rows (RR, DPRR) of `b` and, for regression, the training-mean row, each with its
/// per-repetition values.
fn baseline_rows(s: &DatasetSetting, b: &Baselines) -> Vec<(MainRow, Vec<f64>)> {
    let base = |kind, values: &[f64]| {
        let (value, std) = mean_std(values);
        MainRow {
            dataset: s.name.to_owned(),
            kind,
            model: "GIN (5 layers, width 300, mean pool; all-ones node features)".into(),
            metric: s.metric.name().to_owned(),
            bound: "-".into(),
            degree: "-".into(),
            test_rows: "clean".into(),
            rho: Rho::NotRun,
            eps: Some(BASELINE_EPS.into()),
            value: Score::Value(value),
            std,
            accuracy: f64::NAN,
            attack_top1: f64::NAN,
            attack_top10: f64::NAN,
            paper_value: f64::NAN,
            paper_attack_top1: f64::NAN,
            paper_attack_top10: f64::NAN,
            clipped: None,
            graphs: Some(b.sizes.iter().sum()),
            rr: Score::NotReported,
            dprr: Score::NotReported,
            paper_rr: f64::NAN,
            paper_dprr: f64::NAN,
            stop_epochs: "-".into(),
            best_epochs: "-".into(),
            epoch_cap: None,
        }
    };
    let join = |v: &[(usize, usize)], f: fn(&(usize, usize)) -> usize| {
        v.iter()
            .map(|e| f(e).to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut out = Vec::new();
    for (k, (kind, values, paper)) in [
        (RowKind::GinRr, &b.rr, s.paper_baselines[0]),
        (RowKind::GinDprr, &b.dprr, s.paper_baselines[1]),
    ]
    .into_iter()
    .enumerate()
    {
        let row = MainRow {
            paper_value: paper,
            stop_epochs: join(&b.epochs[k], |e| e.0),
            best_epochs: join(&b.epochs[k], |e| e.1),
            epoch_cap: Some(b.epoch_cap),
            ..base(kind, values)
        };
        out.push((row, values.clone()));
    }
    if let Some(r) = b.constant_rmse {
        let row = MainRow {
            model: "the training targets' mean for every test graph".into(),
            eps: None,
            graphs: Some(b.sizes[0] + b.sizes[2]),
            ..base(RowKind::TrainMean, &[r])
        };
        out.push((row, vec![r]));
    }
    out
}

fn main_row(
    p: &Prepared,
    s: &DatasetSetting,
    pt: &Point,
    a: &Runs,
    rr: Score,
    dprr: Score,
) -> MainRow {
    let (m, sd) = a.score();
    let private = pt.rho.is_some();
    MainRow {
        dataset: s.name.to_owned(),
        kind: RowKind::Embedding,
        model: p.scaled(s.model_for(pt.noisy_test)).name(),
        metric: s.metric.name().to_owned(),
        bound: pt.bound_name().to_owned(),
        degree: degree_cell(s, pt, a),
        test_rows: pt.test_rows().to_owned(),
        rho: pt.rho.into(),
        eps: a.eps,
        value: Score::Value(m),
        std: sd,
        accuracy: mean(&a.accuracy),
        attack_top1: mean(&a.top1),
        attack_top10: mean(&a.top10),
        paper_value: if private { s.paper[0] } else { s.paper[2] },
        paper_attack_top1: if private { s.paper[1] } else { s.paper[3] },
        paper_attack_top10: if private {
            s.paper_attack[0]
        } else {
            s.paper_attack[1]
        },
        clipped: Some(a.clipped),
        graphs: Some(p.graphs.len()),
        rr,
        dprr,
        paper_rr: s.paper_baselines[0],
        paper_dprr: s.paper_baselines[1],
        stop_epochs: "-".into(),
        best_epochs: "-".into(),
        epoch_cap: None,
    }
}

/// The `degree` cell of a row (see [`MainRow::degree`]).
fn degree_cell(s: &DatasetSetting, pt: &Point, a: &Runs) -> String {
    if pt.private_degree.is_some() {
        let d: Vec<String> = a.degree_bounds.iter().map(ToString::to_string).collect();
        format!("private {}", d.join(" "))
    } else {
        s.degree_bound
            .map_or_else(|| "none".to_owned(), |d| format!("public {d}"))
    }
}
