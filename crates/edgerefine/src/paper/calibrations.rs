//! The artifact's calibration variants (feature `train`): the authors' code offers five
//! calibrations of the Jaccard similarity and an Adamic–Adar score besides the paper's quantile
//! bins (`exp_method_variant_comparison.py`, DBLP, ε = 1, GAT, k = 0.01, one seed). Each is run
//! here on the same noisy graph per (ε, seed), beside our default server (B = 10, ties by
//! Jaccard then a seeded order), trained with each model and compared seed by seed with the
//! same model without edges.

use dp_core::params::Epsilon;
use graph_core::{Graph, NodeDataset};
use serde::Serialize;

use super::{CalibrationTable, DatasetPlan, MethodScores, Plan, ReleaseGain, no_seeds};
use crate::error::{EdgeRefineError, Result};
use crate::eval::{NodeModel, TrainPlan, structure, train_on_release};
use crate::{
    ArtifactCalibration, CalibratedParams, RefineParams, perturb, refine, refine_calibrated,
};

/// The label of our default server in the table's `calibration` column.
pub const OURS: &str = "ours: histogram B=10, default tie-break";

/// One row: one calibration at one ε on one dataset with one model, over seeds.
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct CalibrationRow {
    /// The dataset.
    pub dataset: String,
    /// The model's name.
    pub model: String,
    /// `EdgeRefine k=… (<calibration>)`, ε and the test accuracy over seeds.
    #[serde(flatten)]
    pub scores: MethodScores,
    /// The calibration ([`ArtifactCalibration::name`], or [`OURS`]), the gain over the features
    /// alone and what the release holds.
    #[serde(flatten)]
    pub release: ReleaseGain,
    /// Mean number of distinct calibrated probabilities (ties beyond them go by index).
    pub levels: f64,
    /// What the calibration fitted on the first seed.
    pub fitted: String,
    /// Runs that trained up to the epoch cap without an early stop.
    pub at_cap: usize,
    /// Mean seconds of the server (all pairs, fit and selection).
    pub refine_s: f64,
}

/// A release and what is reported of it, before training.
struct Refined {
    graph: Graph,
    levels: usize,
    fitted: String,
    seconds: f64,
}

/// The release of one calibration (`None`: our default server) of `noisy`.
fn release(
    noisy: &Graph,
    table: &CalibrationTable,
    eps: f64,
    true_edges: u64,
    cal: Option<ArtifactCalibration>,
    seed: u64,
) -> Result<Refined> {
    Ok(match cal {
        Some(calibration) => {
            let r = refine_calibrated(
                noisy,
                &CalibratedParams {
                    k: table.k,
                    seed,
                    ..CalibratedParams::new(Epsilon::new(eps)?, true_edges, calibration)
                },
            )?;
            Refined {
                graph: r.graph,
                levels: r.levels,
                fitted: r.fitted,
                seconds: r.seconds,
            }
        }
        None => {
            let t = std::time::Instant::now();
            let r = refine(
                noisy,
                &RefineParams {
                    k: table.k,
                    seed,
                    ..RefineParams::new(Epsilon::new(eps)?, true_edges)
                },
            )?;
            let mut levels = r.bin_probability.clone();
            levels.sort_unstable_by(f64::total_cmp);
            levels.dedup();
            Refined {
                graph: r.graph,
                levels: levels.len(),
                fitted: format!("{} bins", r.bin_probability.len()),
                seconds: t.elapsed().as_secs_f64(),
            }
        }
    })
}

/// The rows of dataset `ds` (named `dp.name`, trained with `dp`'s epoch budget): per ε and
/// model, our default server first, then each calibration of `table`; `on_row` sees each row as
/// it is done (progress).
///
/// # Errors
/// No seeds; invalid ε or k; a beta fit that does not exist; release and training errors.
///
/// # Privacy
/// Each release is ε-edge LDP (the client's randomized response); every calibration is
/// post-processing of the same noisy graph.
///
/// # Complexity
/// Per (ε, seed): one randomized response, one all-pairs refine per calibration (n² memory)
/// and one training run per (calibration, model).
pub fn rows(
    ds: &NodeDataset,
    dp: &DatasetPlan,
    table: &CalibrationTable,
    mut on_row: impl FnMut(&CalibrationRow),
) -> Result<Vec<CalibrationRow>> {
    if table.seeds.is_empty() {
        return Err(no_seeds());
    }
    let g = ds.graph();
    let train = |rel: &Graph, model: NodeModel, seed: u64| {
        let plan = TrainPlan::edgerefine(model, seed).with_epochs(dp.max_epochs, Some(dp.patience));
        train_on_release(ds, rel, None, &plan)
    };
    let empty = Graph::empty(g.num_nodes())?;
    let mut features_only = vec![Vec::new(); table.models.len()];
    for (fo, &model) in features_only.iter_mut().zip(&table.models) {
        for &seed in &table.seeds {
            fo.push(train(&empty, model, seed)?.test_acc);
        }
    }
    let cals: Vec<Option<ArtifactCalibration>> = std::iter::once(None)
        .chain(table.calibrations.iter().copied().map(Some))
        .collect();
    let mut out = Vec::new();
    for &eps in &table.eps {
        // acc[model][calibration]
        let mut acc = vec![vec![Acc::default(); cals.len()]; table.models.len()];
        for &seed in &table.seeds {
            let noisy = perturb(g, Epsilon::new(eps)?, &mut dp_core::rng::seeded_rng(seed))?;
            for (ci, &cal) in cals.iter().enumerate() {
                let r = release(&noisy, table, eps, g.num_edges() as u64, cal, seed)?;
                let precision = structure(g, &r.graph).precision;
                for (mi, &model) in table.models.iter().enumerate() {
                    let score = train(&r.graph, model, seed)?;
                    let a = &mut acc[mi][ci];
                    a.runs.push(score.test_acc);
                    a.released += r.graph.num_edges() as f64;
                    a.precision += precision;
                    a.levels += r.levels as f64;
                    a.refine_s += r.seconds;
                    a.at_cap += usize::from(score.epochs >= dp.max_epochs);
                    if a.fitted.is_empty() {
                        a.fitted.clone_from(&r.fitted);
                    }
                }
            }
        }
        for (mi, &model) in table.models.iter().enumerate() {
            for (ci, &cal) in cals.iter().enumerate() {
                let a = std::mem::take(&mut acc[mi][ci]);
                let row = a.row(dp.name, model, (eps, table.k, cal), &features_only[mi]);
                on_row(&row);
                out.push(row);
            }
        }
    }
    Ok(out)
}

/// The table of every dataset of `plan.calibrations` that `load` finds (`None`: not installed,
/// no rows), each with its plan's epoch budget.
///
/// # Errors
/// A dataset that is not one of the plan's node datasets; errors of `load` and of [`rows`].
pub fn table<E: From<EdgeRefineError>>(
    plan: &Plan,
    mut load: impl FnMut(&str) -> std::result::Result<Option<NodeDataset>, E>,
    mut on_row: impl FnMut(&CalibrationRow),
) -> std::result::Result<Vec<CalibrationRow>, E> {
    let mut out = Vec::new();
    for &name in &plan.calibrations.datasets {
        let dp = plan
            .datasets
            .iter()
            .find(|d| d.name == name)
            .ok_or_else(|| EdgeRefineError::UnknownName {
                what: "calibration-table dataset (its epoch budget comes from the plan's node datasets)",
                name: name.into(),
                known: "the plan's node datasets",
            })?;
        if let Some(ds) = load(name)? {
            out.extend(rows(&ds, dp, &plan.calibrations, &mut on_row)?);
        }
    }
    Ok(out)
}

/// Sums over seeds of one cell.
#[derive(Clone, Default)]
struct Acc {
    runs: Vec<f64>,
    released: f64,
    precision: f64,
    levels: f64,
    refine_s: f64,
    at_cap: usize,
    fitted: String,
}

impl Acc {
    fn row(
        self,
        dataset: &str,
        model: NodeModel,
        (eps, k, cal): (f64, f64, Option<ArtifactCalibration>),
        features_only: &[f64],
    ) -> CalibrationRow {
        let n = self.runs.len() as f64;
        let calibration = cal.map_or(OURS.to_string(), |c| c.name().to_string());
        let method = match cal {
            Some(c) => format!("EdgeRefine k={k} ({}, artifact's selection)", c.name()),
            None => format!("EdgeRefine k={k}"),
        };
        CalibrationRow {
            dataset: dataset.into(),
            model: model.name().into(),
            release: ReleaseGain::new(
                calibration,
                &self.runs,
                features_only,
                (self.released, self.precision),
            ),
            scores: MethodScores::new(method, Some(eps), self.runs),
            levels: self.levels / n,
            fitted: self.fitted,
            at_cap: self.at_cap,
            refine_s: self.refine_s / n,
        }
    }
}
