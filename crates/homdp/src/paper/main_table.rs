//! The paper's main table on one dataset ([`main_table`]): the downstream score and the
//! re-identification rates at ρ = 0.01 under both sensitivity bounds and at ρ = ∞, with clean
//! test rows (the paper's protocol) and, for the molecule classification sets, noisy ones; the
//! GIN baselines' scores ([`Baselines`]) beside them.

use serde::Serialize;

use super::cells::{Rho, Score};
use super::protocol::{MAIN_RHO, PRIVATE_DEGREE_RHOS, PatternSet, SeedStream, Sizes};
use super::sweep::{Point, Repetitions, Runs, mean, sweep};
use super::{DatasetSetting, Prepared};
use crate::degree::PrivateDegree;
use crate::error::Result;
use crate::sensitivity::SensitivityBound;

/// One row of the main table.
#[derive(Debug, Clone, Serialize, Default)]
pub struct MainRow {
    /// The dataset.
    pub dataset: String,
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
    pub eps: f64,
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
            eps: f64::NAN,
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
        }
    }
}

/// The paper's GIN baselines on one dataset: test scores of GIN trained on RR and on DPRR
/// graphs, per repetition (`gin_baselines` with the feature `gin-baselines`).
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct Baselines {
    /// GIN on RR graphs, per repetition.
    pub rr: Vec<f64>,
    /// GIN on DPRR graphs, per repetition.
    pub dprr: Vec<f64>,
    /// ε1 of DPRR (ε2 = ε − ε1).
    pub eps1: f64,
    /// Graphs used: training, validation, test.
    pub sizes: [usize; 3],
    /// Mean edge ratio (perturbed / clean training graphs) of RR and DPRR.
    pub edge_ratio: [f64; 2],
    /// Epochs run and best epoch (1-based) of RR and DPRR, per repetition.
    pub epochs: [Vec<(usize, usize)>; 2],
    /// Training mean and std of standardised regression targets (last repetition).
    pub target_standardization: Option<[f64; 2]>,
    /// Wall-clock seconds of all repetitions of both baselines.
    pub seconds: f64,
    /// Regression: test RMSE of the constant prediction `mean of the training targets` (the
    /// score of a model that learns nothing from the graphs).
    pub constant_rmse: Option<f64>,
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
/// seeded with `seed`. `baselines` fills the `rr` / `dprr` cells (`None`: not run, because the
/// paper reports none or the dataset is not installed).
///
/// # Errors
/// As [`sweep`].
///
/// # Privacy
/// As [`sweep`]: each row is one release at its ρ, with its ε in the row.
///
/// # Complexity
/// `sizes.reps` density computations and `sizes.reps · |main_grid|` evaluations.
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
    let runs = sweep(p, s, PatternSet::of(s), reps, &grid)?;
    let cell = |v: Option<&Vec<f64>>| match v {
        Some(v) => Score::Value(mean(v)),
        None if s.paper_baselines[0].is_nan() => Score::NotReported,
        None => Score::NotInstalled,
    };
    let (rr, dprr) = (
        cell(baselines.map(|b| &b.rr)),
        cell(baselines.map(|b| &b.dprr)),
    );
    let rows = grid
        .iter()
        .zip(&runs)
        .map(|(pt, a)| main_row(p, s, pt, a, rr, dprr))
        .collect();
    Ok(MainTable {
        rows,
        per_repetition: runs.into_iter().map(|a| a.metric).collect(),
    })
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
