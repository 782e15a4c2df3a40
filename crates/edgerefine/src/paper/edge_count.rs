//! The cost of not knowing `E` (feature `train`): EdgeRefine with the true edge count supplied
//! (the paper's protocol, which treats `E` as public) beside the same noisy graph refined with
//! `E` estimated from the noisy graph alone ([`crate::estimate_edges`], post-processing: no
//! extra privacy cost), as a server that does not know `E` must. Per ε, one row per edge count,
//! GNN test accuracy over seeds and the estimate's error.

use dp_core::params::Epsilon;
use graph_core::NodeDataset;
use serde::Serialize;

use super::{DatasetPlan, MethodScores, no_seeds};
use crate::error::Result;
use crate::eval::{EdgeCount, Method, NodeModel, TrainPlan, structure, train_on_release};
use crate::{RefineParams, TieBreak, estimate_edges, perturb, refine};

/// The sampling rate of the table: the authors' default (`K = 1%` of `E`).
pub(crate) const K: f64 = 0.01;

/// One row: EdgeRefine at one ε with `E` supplied or estimated, over seeds.
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct EdgeCountRow {
    /// The dataset ([`DatasetPlan::name`]).
    pub dataset: String,
    /// The method (its label says which `E`), its ε and the test accuracy over seeds (the
    /// columns `method`, `eps`, `acc_mean`, `acc_std`, `runs`).
    #[serde(flatten)]
    pub scores: MethodScores,
    /// The true edge count `E`.
    pub true_edges: u64,
    /// Mean over seeds of the `E` the server used.
    pub edges_used: f64,
    /// Mean over seeds of `|E used − E| / E` (0 when supplied).
    pub edges_rel_error: f64,
    /// Mean released edges.
    pub released_edges: f64,
    /// Mean true-edge precision of the release.
    pub precision: f64,
    /// Mean training seconds.
    pub train_s: f64,
}

/// The two rows (supplied, estimated) of every ε of `dp` on `ds`, with `model` trained on each
/// release with the dataset's epoch budget, one noisy graph per seed shared by both rows (so the
/// rows differ only by `E`).
///
/// Each supplied release equals [`crate::eval::release`] of EdgeRefine `k = 0.01` with
/// [`EdgeCount::Supplied`], and each estimated one that with [`EdgeCount::Estimated`], for the
/// same ε and seed.
///
/// # Errors
/// No seeds; release and training errors.
///
/// # Privacy
/// Each release is ε-edge LDP (the client's randomized response); the estimate of `E` is
/// post-processing of the same output.
pub fn rows(
    ds: &NodeDataset,
    dp: &DatasetPlan,
    model: NodeModel,
    seeds: &[u64],
) -> Result<Vec<EdgeCountRow>> {
    if seeds.is_empty() {
        return Err(no_seeds());
    }
    let g = ds.graph();
    let e_true = g.num_edges() as u64;
    let mut out = Vec::with_capacity(2 * dp.eps.len());
    for &eps in &dp.eps {
        let mut acc = [Acc::default(), Acc::default()];
        for &seed in seeds {
            let mut rng = dp_core::rng::seeded_rng(seed);
            let noisy = perturb(g, Epsilon::new(eps)?, &mut rng)?;
            let est = estimate_edges(
                noisy.num_nodes(),
                Epsilon::new(eps)?,
                noisy.num_edges() as u64,
            )?;
            for (a, e_used) in acc.iter_mut().zip([e_true, est.edges]) {
                let params = RefineParams {
                    eps: Epsilon::new(eps)?,
                    k: K,
                    true_edges: e_used,
                    bins: 10,
                    tie_break: TieBreak::Default,
                    seed,
                };
                let rel = refine(&noisy, &params)?.graph;
                let plan = TrainPlan::edgerefine(model, seed)
                    .with_epochs(dp.max_epochs, Some(dp.patience));
                let score = train_on_release(ds, &rel, None, &plan)?;
                a.runs.push(score.test_acc);
                a.edges_used += e_used as f64;
                a.rel_error += e_used.abs_diff(e_true) as f64 / e_true.max(1) as f64;
                a.released += rel.num_edges() as f64;
                a.precision += structure(g, &rel).precision;
                a.train_s += score.train_s;
            }
        }
        let n = seeds.len() as f64;
        for (a, edge_count) in acc
            .into_iter()
            .zip([EdgeCount::Supplied, EdgeCount::Estimated])
        {
            let label = Method::EdgeRefine {
                k: K,
                tie_break: TieBreak::Default,
                edge_count,
            }
            .label();
            out.push(EdgeCountRow {
                dataset: dp.name.into(),
                scores: MethodScores::new(label, Some(eps), a.runs),
                true_edges: e_true,
                edges_used: a.edges_used / n,
                edges_rel_error: a.rel_error / n,
                released_edges: a.released / n,
                precision: a.precision / n,
                train_s: a.train_s / n,
            });
        }
    }
    Ok(out)
}

/// Sums over seeds of one row.
#[derive(Default)]
struct Acc {
    runs: Vec<f64>,
    edges_used: f64,
    rel_error: f64,
    released: f64,
    precision: f64,
    train_s: f64,
}
