//! The k sweep and the calibration variants (feature `train`): EdgeRefine's release at sampling
//! rates `k` from 0.001 to 1 (`K = ⌊k·E⌋` edges) and under other calibrations (the number of
//! quantile bins `B`, the authors' tie-break), each trained with one model and compared, seed
//! by seed, with the same model trained without edges — where does the release start to help
//! over the features alone, and at what ε?
//!
//! Per (ε, seed) one noisy graph is drawn (exactly as [`crate::eval::release`] draws it for
//! EdgeRefine) and refined at every k and calibration, so rows at one ε differ only by the
//! server's choices.

use dp_core::params::Epsilon;
use graph_core::{Graph, NodeDataset};
use serde::Serialize;

use super::{Calibration, DatasetPlan, KSweep, MethodScores, Plan, ReleaseGain, no_seeds};
use crate::error::{EdgeRefineError, Result};
use crate::eval::{EdgeCount, Method, TrainPlan, structure, train_on_release};
use crate::{RefineParams, perturb, refine};

/// One row: EdgeRefine at one (ε, k, calibration) on one dataset, over seeds, against the
/// features-only model.
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct KSweepRow {
    /// The dataset ([`DatasetPlan::name`]).
    pub dataset: String,
    /// The model's name ([`crate::eval::NodeModel::name`]).
    pub model: String,
    /// The method (EdgeRefine at k with the calibration's tie-break), its ε and its test
    /// accuracy over seeds (the columns `method`, `eps`, `acc_mean`, `acc_std`, `runs`).
    #[serde(flatten)]
    pub scores: MethodScores,
    /// The sampling rate k.
    pub k: f64,
    /// The calibration ([`Calibration::label`]), the gain over the features alone and what the
    /// release holds.
    #[serde(flatten)]
    pub release: ReleaseGain,
    /// Runs that trained up to the epoch cap without an early stop.
    pub at_cap: usize,
    /// Mean training seconds.
    pub train_s: f64,
}

/// The rows of dataset `ds` (named `dp.name`, trained with `dp`'s epoch budget) under
/// `sweep`: every ε of the sweep, the default calibration at every k and each variant at the
/// rates of `variant_ks`, rows by ε, calibration (default first), then k; `on_row` sees each
/// row as it is done (progress).
///
/// # Errors
/// No seeds; invalid ε or k; release and training errors.
///
/// # Privacy
/// Each release is ε-edge LDP (the client's randomized response); every k and calibration is
/// post-processing of the same noisy graph.
///
/// # Complexity
/// Per (ε, seed): one randomized response, one all-pairs refine per (k, calibration) and one
/// training run each.
pub fn rows(
    ds: &NodeDataset,
    dp: &DatasetPlan,
    sweep: &KSweep,
    mut on_row: impl FnMut(&KSweepRow),
) -> Result<Vec<KSweepRow>> {
    if sweep.seeds.is_empty() {
        return Err(no_seeds());
    }
    let g = ds.graph();
    let train = |rel: &Graph, seed: u64| {
        let plan =
            TrainPlan::edgerefine(sweep.model, seed).with_epochs(dp.max_epochs, Some(dp.patience));
        train_on_release(ds, rel, None, &plan)
    };
    let empty = Graph::empty(g.num_nodes())?;
    let mut features_only = Vec::with_capacity(sweep.seeds.len());
    for &seed in &sweep.seeds {
        features_only.push(train(&empty, seed)?.test_acc);
    }
    let cells = cells(sweep);
    let mut out = Vec::new();
    for &eps in &sweep.eps {
        let mut acc: Vec<Acc> = vec![Acc::default(); cells.len()];
        for &seed in &sweep.seeds {
            let noisy = perturb(g, Epsilon::new(eps)?, &mut dp_core::rng::seeded_rng(seed))?;
            for (a, &(cal, k)) in acc.iter_mut().zip(&cells) {
                let params = RefineParams {
                    eps: Epsilon::new(eps)?,
                    k,
                    true_edges: g.num_edges() as u64,
                    bins: cal.bins,
                    tie_break: cal.tie_break,
                    seed,
                };
                let rel = refine(&noisy, &params)?.graph;
                let score = train(&rel, seed)?;
                a.runs.push(score.test_acc);
                a.released += rel.num_edges() as f64;
                a.precision += structure(g, &rel).precision;
                a.train_s += score.train_s;
                a.at_cap += usize::from(score.epochs >= dp.max_epochs);
            }
        }
        for (a, &(cal, k)) in acc.into_iter().zip(&cells) {
            let row = a.row(dp.name, sweep, (eps, k, cal), &features_only);
            on_row(&row);
            out.push(row);
        }
    }
    Ok(out)
}

/// The sweep `sweep` (`plan.k_sweep` or one of `plan.model_k_sweeps`) of every dataset of it
/// that `load` finds (`None`: not installed, no rows), each with `plan`'s epoch budget. `load`'s error type is the caller's (it only needs
/// to take this crate's errors).
///
/// # Errors
/// A sweep dataset that is not one of the plan's node datasets (its epoch budget is unknown);
/// errors of `load` and of [`rows`].
pub fn table<E: From<EdgeRefineError>>(
    plan: &Plan,
    sweep: &KSweep,
    mut load: impl FnMut(&str) -> std::result::Result<Option<NodeDataset>, E>,
    mut on_row: impl FnMut(&KSweepRow),
) -> std::result::Result<Vec<KSweepRow>, E> {
    let mut out = Vec::new();
    for &name in &sweep.datasets {
        let dp = plan
            .datasets
            .iter()
            .find(|d| d.name == name)
            .ok_or_else(|| EdgeRefineError::UnknownName {
                what: "k-sweep dataset (its epoch budget comes from the plan's node datasets)",
                name: name.into(),
                known: "the plan's node datasets",
            })?;
        if let Some(ds) = load(name)? {
            out.extend(rows(&ds, dp, sweep, &mut on_row)?);
        }
    }
    Ok(out)
}

/// The (calibration, k) cells at every ε: the default calibration at every k, then each variant
/// at the rates of `variant_ks`.
///
/// # Example
/// ```
/// use edgerefine::paper::{Calibration, Plan, k_sweep::cells};
/// let s = Plan::quick().k_sweep;
/// let c = cells(&s);
/// assert_eq!(c.len(), s.ks.len() + s.variants.len() * s.variant_ks.len());
/// assert!(c[..s.ks.len()].iter().all(|x| x.0 == Calibration::DEFAULT));
/// ```
pub fn cells(sweep: &KSweep) -> Vec<(Calibration, f64)> {
    let mut c: Vec<(Calibration, f64)> = sweep
        .ks
        .iter()
        .map(|&k| (Calibration::DEFAULT, k))
        .collect();
    for &v in &sweep.variants {
        c.extend(sweep.variant_ks.iter().map(|&k| (v, k)));
    }
    c
}

/// Sums over seeds of one cell.
#[derive(Clone, Default)]
struct Acc {
    runs: Vec<f64>,
    released: f64,
    precision: f64,
    train_s: f64,
    at_cap: usize,
}

impl Acc {
    /// The row of the cell `(ε, k, calibration)`.
    fn row(
        self,
        dataset: &str,
        sweep: &KSweep,
        (eps, k, cal): (f64, f64, Calibration),
        features_only: &[f64],
    ) -> KSweepRow {
        let n = self.runs.len() as f64;
        let label = Method::EdgeRefine {
            k,
            tie_break: cal.tie_break,
            edge_count: EdgeCount::Supplied,
        }
        .label();
        KSweepRow {
            dataset: dataset.into(),
            model: sweep.model.name().into(),
            release: ReleaseGain::new(
                cal.label(),
                &self.runs,
                features_only,
                (self.released, self.precision),
            ),
            scores: MethodScores::new(label, Some(eps), self.runs),
            k,
            at_cap: self.at_cap,
            train_s: self.train_s / n,
        }
    }
}
