//! Blink under its own protocol (feature `train`), next to its published Cora numbers: the
//! protocol of the Blink artifact (`zhxchd/Blink_GNN`) — 50/25/25 split, GCN 2 layers × 16
//! hidden without input dropout, Adam, [`BlinkProtocol::epochs`] epochs without early stopping,
//! the test accuracy of the epoch with the lowest validation loss — with δ_b, learning rate,
//! weight decay and dropout chosen by the lowest validation loss on the first seed (its release
//! and split), then every seed with fresh releases and splits.

use dp_core::params::Epsilon;
use graph_core::{Graph, NodeDataset};
use serde::Serialize;

use super::{BlinkProtocol, MethodScores, Plan, no_seeds};
use crate::baselines::{BlinkParams, BlinkVariant};
use crate::error::{EdgeRefineError, Result};
use crate::eval::{Method, NodeModel, TrainPlan, blink_posterior, structure, train_on_release};

/// One hyper-parameter setting of Blink's grid.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Hp {
    /// Blink's δ_b (share of the budget for the degree vector; `delta` in the tables, not a DP
    /// δ); NaN where no release is drawn.
    #[serde(rename = "delta")]
    pub degree_share: f64,
    /// Adam learning rate.
    pub lr: f64,
    /// Weight decay.
    pub weight_decay: f64,
    /// Dropout between the layers.
    pub dropout: f64,
}

/// The settings of the protocol's grid for the given δ_b, δ_b-major.
pub fn grid(b: &BlinkProtocol, deltas: &[f64]) -> Vec<Hp> {
    let mut v = Vec::new();
    for &delta in deltas {
        for &lr in &b.lrs {
            for &weight_decay in &b.wds {
                for &dropout in &b.dropouts {
                    v.push(Hp {
                        degree_share: delta,
                        lr,
                        weight_decay,
                        dropout,
                    });
                }
            }
        }
    }
    v
}

/// The training plan of one setting: Blink's split, optimiser, dropout and epochs, the weights
/// of the lowest validation loss.
pub fn train_plan(b: &BlinkProtocol, seed: u64, hp: &Hp) -> TrainPlan {
    TrainPlan {
        split: (0.5, 0.25),
        lr: hp.lr,
        weight_decay: hp.weight_decay,
        monitor: gnn::Monitor::ValLoss,
        dropout: Some(hp.dropout),
        ..TrainPlan::edgerefine(NodeModel::Gcn, seed).with_epochs(b.epochs, None)
    }
}

/// The setting with the lowest validation loss (the first of equal ones; a NaN loss never wins
/// over a number), with its loss; `None` for no settings.
///
/// # Example
/// ```
/// use edgerefine::paper::blink::{Hp, best};
/// let hp = |lr| Hp { lr, ..Hp::default() };
/// let (loss, h) = best([(0.9, hp(0.1)), (f64::NAN, hp(0.2)), (0.4, hp(0.3)), (0.4, hp(0.4))])
///     .unwrap();
/// assert_eq!((loss, h.lr), (0.4, 0.3));
/// ```
pub fn best(scored: impl IntoIterator<Item = (f64, Hp)>) -> Option<(f64, Hp)> {
    let mut best: Option<(f64, Hp)> = None;
    for (loss, hp) in scored {
        let better = match best {
            None => true,
            Some((l, _)) => loss < l || (l.is_nan() && !loss.is_nan()),
        };
        if better {
            best = Some((loss, hp));
        }
    }
    best
}

/// Blink's published Cora GCN accuracy (Zhu et al., CCS 2023): non-private 0.868, the MLP
/// (our features-only row) 0.710, hard and hybrid at ε ∈ {1, 2, 3}; `None` elsewhere.
///
/// # Example
/// ```
/// use edgerefine::baselines::BlinkVariant;
/// use edgerefine::eval::Method;
/// use edgerefine::paper::blink::published;
/// assert_eq!(published(Method::Blink(BlinkVariant::Hybrid), Some(3.0)), Some(0.700));
/// assert_eq!(published(Method::Blink(BlinkVariant::Hard), Some(0.5)), None);
/// assert_eq!(published(Method::Origin, None), Some(0.868));
/// ```
pub fn published(method: Method, eps: Option<f64>) -> Option<f64> {
    let idx = eps.and_then(|eps| [1.0, 2.0, 3.0].iter().position(|&e| e == eps));
    match (method, idx) {
        (Method::Origin, _) => Some(0.868),
        (Method::NoGraph, _) => Some(0.710),
        (Method::Blink(BlinkVariant::Hard), Some(i)) => Some([0.712, 0.712, 0.710][i]),
        (Method::Blink(BlinkVariant::Hybrid), Some(i)) => Some([0.704, 0.704, 0.700][i]),
        _ => None,
    }
}

/// Released edges in a [`BlinkRow`]: the exact count of a fixed graph, or a mean over seeds.
/// Serialised as the bare number (an integer for [`Edges::Exact`]), as the table always wrote it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Edges {
    /// The edge count of a graph that is not released (the non-private rows).
    Exact(usize),
    /// The mean edge count of the releases over seeds.
    Mean(f64),
}

impl Default for Edges {
    fn default() -> Self {
        Self::Exact(0)
    }
}

impl Edges {
    /// The count as a number.
    pub fn value(self) -> f64 {
        match self {
            Self::Exact(m) => m as f64,
            Self::Mean(m) => m,
        }
    }
}

/// One row of the table: a method (at one ε), its selected setting and its accuracy over seeds
/// next to the published number.
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct BlinkRow {
    /// The method ([`Method::label`], `δ_b tuned` for Blink), its ε and its test accuracy over
    /// seeds (the columns `method`, `eps`, `acc_mean`, `acc_std`, `runs`).
    #[serde(flatten)]
    pub scores: MethodScores,
    /// The published accuracy ([`published`]).
    pub published: Option<f64>,
    /// 100 × (mean − published).
    pub diff_points: Option<f64>,
    /// Whether the mean is within 3 points of the published number.
    pub within_3_points: Option<bool>,
    /// The selected δ_b (Blink only).
    pub delta_b: Option<f64>,
    /// The selected learning rate.
    pub lr: f64,
    /// The selected weight decay.
    pub weight_decay: f64,
    /// The selected dropout.
    pub dropout: f64,
    /// The validation loss of the selected setting on the first seed.
    pub val_loss: f64,
    /// Released edges: the graph's count for the non-private rows, the mean over seeds otherwise.
    pub edges: Edges,
    /// Mean true-edge precision (an empty release counts 0; Blink only).
    pub precision: Option<f64>,
}

impl BlinkRow {
    fn new(method: String, eps: Option<f64>, runs: Vec<f64>, published: Option<f64>) -> Self {
        let scores = MethodScores::new(method, eps, runs);
        let diff_points = published.map(|p| 100.0 * (scores.acc_mean - p));
        Self {
            scores,
            published,
            diff_points,
            within_3_points: diff_points.map(|d| d.abs() <= 3.0),
            ..Self::default()
        }
    }

    fn with_hp(self, val_loss: f64, hp: &Hp) -> Self {
        Self {
            lr: hp.lr,
            weight_decay: hp.weight_decay,
            dropout: hp.dropout,
            val_loss,
            ..self
        }
    }
}

fn empty_grid() -> EdgeRefineError {
    EdgeRefineError::InvalidParam {
        name: "blink grid",
        value: 0.0,
        reason: "at least one learning rate, weight decay, dropout and δ_b are needed",
    }
}

/// The row of a method without privacy, [`Method::Origin`] (the true graph) or
/// [`Method::NoGraph`] (the same GCN without edges), on `ds` with `plan.seeds` and
/// `plan.blink`'s training grid.
///
/// # Errors
/// Another method, no seeds, an empty grid; training errors.
pub fn reference_row(ds: &NodeDataset, plan: &Plan, method: Method) -> Result<BlinkRow> {
    let b = &plan.blink;
    let seed0 = *plan.seeds.first().ok_or_else(no_seeds)?;
    let graph = match method {
        Method::Origin => ds.graph().clone(),
        Method::NoGraph => Graph::empty(ds.graph().num_nodes())?,
        _ => {
            return Err(EdgeRefineError::UnknownName {
                what: "reference method of the Blink protocol",
                name: method.label(),
                known: "non-private, no graph (features only)",
            });
        }
    };
    let mut scored = Vec::new();
    for hp in grid(b, &[f64::NAN]) {
        let s = train_on_release(ds, &graph, None, &train_plan(b, seed0, &hp))?;
        scored.push((s.val_loss, hp));
    }
    let (val_loss, hp) = best(scored).ok_or_else(empty_grid)?;
    let mut runs = Vec::with_capacity(plan.seeds.len());
    for &seed in &plan.seeds {
        runs.push(train_on_release(ds, &graph, None, &train_plan(b, seed, &hp))?.test_acc);
    }
    Ok(BlinkRow {
        edges: Edges::Exact(graph.num_edges()),
        ..BlinkRow::new(method.label(), None, runs, published(method, None)).with_hp(val_loss, &hp)
    })
}

/// The row of Blink variant `v` at `eps` on `ds`: on the first seed, one release per δ_b of
/// `plan.blink` and the training grid on each; the setting of the lowest validation loss, then
/// a fresh release and split per seed.
///
/// # Errors
/// No seeds, an empty grid, invalid ε or δ_b; training errors.
pub fn variant_row(
    ds: &NodeDataset,
    plan: &Plan,
    v: BlinkVariant,
    eps: Epsilon,
) -> Result<BlinkRow> {
    let b = &plan.blink;
    let g = ds.graph();
    let seed0 = *plan.seeds.first().ok_or_else(no_seeds)?;
    let params = |degree_share| BlinkParams {
        degree_share,
        ..BlinkParams::new(eps)
    };
    let mut scored = Vec::new();
    for &delta in &b.deltas {
        let r = blink_posterior(g, &params(delta), seed0)?.0.release(v)?;
        for hp in grid(b, &[delta]) {
            let s = train_on_release(
                ds,
                &r.graph,
                r.weights.as_deref(),
                &train_plan(b, seed0, &hp),
            )?;
            scored.push((s.val_loss, hp));
        }
    }
    let (val_loss, hp) = best(scored).ok_or_else(empty_grid)?;
    let (mut runs, mut edges, mut prec) = (Vec::new(), 0.0, 0.0);
    for &seed in &plan.seeds {
        let r = blink_posterior(g, &params(hp.degree_share), seed)?
            .0
            .release(v)?;
        let s = structure(g, &r.graph);
        edges += s.edges as f64;
        if s.precision.is_finite() {
            prec += s.precision;
        }
        runs.push(
            train_on_release(
                ds,
                &r.graph,
                r.weights.as_deref(),
                &train_plan(b, seed, &hp),
            )?
            .test_acc,
        );
    }
    let k = plan.seeds.len() as f64;
    let method = Method::Blink(v);
    let label = method.label().replace("δ_b = 0.1", "δ_b tuned");
    Ok(BlinkRow {
        delta_b: Some(hp.degree_share),
        edges: Edges::Mean(edges / k),
        precision: Some(prec / k),
        ..BlinkRow::new(
            label,
            Some(eps.get()),
            runs,
            published(method, Some(eps.get())),
        )
        .with_hp(val_loss, &hp)
    })
}

/// The whole table on Cora-like `ds`: the non-private and features-only rows, then every
/// variant of `plan.blink` at every ε; `on_row` sees each row as it is done (progress).
///
/// # Errors
/// As [`reference_row`] and [`variant_row`].
pub fn table(
    ds: &NodeDataset,
    plan: &Plan,
    mut on_row: impl FnMut(&BlinkRow),
) -> Result<Vec<BlinkRow>> {
    let mut rows = Vec::new();
    for m in [Method::Origin, Method::NoGraph] {
        rows.push(reference_row(ds, plan, m)?);
        on_row(&rows[rows.len() - 1]);
    }
    for &v in &plan.blink.variants {
        for &eps in &plan.blink.eps {
            rows.push(variant_row(ds, plan, v, Epsilon::new(eps)?)?);
            on_row(&rows[rows.len() - 1]);
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_is_delta_major_and_complete() {
        let b = Plan::full().blink;
        let g = grid(&b, &b.deltas);
        assert_eq!(
            g.len(),
            b.deltas.len() * b.lrs.len() * b.wds.len() * b.dropouts.len()
        );
        let per_delta = g.len() / b.deltas.len();
        assert!(g[..per_delta].iter().all(|h| h.degree_share == b.deltas[0]));
        assert_eq!(g[per_delta].degree_share, b.deltas[1]);
        let p = train_plan(&b, 3, &g[1]);
        assert_eq!((p.split, p.patience, p.seed), ((0.5, 0.25), None, 3));
        assert_eq!(
            (p.lr, p.weight_decay, p.dropout),
            (g[1].lr, g[1].weight_decay, Some(g[1].dropout))
        );
    }

    #[test]
    fn selection_picks_the_lowest_validation_loss() {
        let b = Plan::full().blink;
        let g = grid(&b, &b.deltas);
        // A made-up loss with its minimum at one setting in the middle of the grid.
        let target = g[g.len() / 2 + 1];
        let loss = |h: &Hp| {
            (h.degree_share - target.degree_share).abs()
                + (h.lr - target.lr).abs()
                + (h.weight_decay - target.weight_decay).abs() * 100.0
                + (h.dropout - target.dropout).abs()
                + 0.3
        };
        let (l, h) = best(g.iter().map(|h| (loss(h), *h))).unwrap();
        assert_eq!((l, h), (0.3, target));
        // A NaN first does not block the numbers after it.
        let (l, _) = best([(f64::NAN, g[0]), (0.5, g[1]), (0.7, g[2])]).unwrap();
        assert_eq!(l, 0.5);
        assert!(best(std::iter::empty()).is_none());
    }

    #[test]
    fn rows_compare_with_the_published_numbers() {
        let r = BlinkRow::new("x".into(), Some(1.0), vec![0.70, 0.72], Some(0.712));
        assert!((r.diff_points.unwrap() + 0.2).abs() < 1e-9);
        assert_eq!(r.within_3_points, Some(true));
        let far = BlinkRow::new("x".into(), Some(1.0), vec![0.6], Some(0.712));
        assert_eq!(far.within_3_points, Some(false));
        let none = BlinkRow::new("x".into(), Some(0.5), vec![0.6], None);
        assert_eq!((none.diff_points, none.within_3_points), (None, None));
        assert_eq!(
            published(Method::Blink(BlinkVariant::Soft), Some(1.0)),
            None
        );
        assert_eq!(
            published(Method::Blink(BlinkVariant::Hard), Some(2.0)),
            Some(0.712)
        );
    }
}
