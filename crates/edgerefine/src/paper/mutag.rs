//! MUTAG graph classification on per-graph releases (feature `train`): every graph of the
//! collection released on its own ([`release_graph_set`]; EdgeRefine with each graph's own edge
//! count as `E`), the graph-level GIN trained on the released collection with EdgeRefine's
//! MUTAG protocol ([`crate::eval::mutag_protocol`]), mean ± std over seeds.

use graph_core::GraphDataset;
use serde::Serialize;

use super::{Curve, MethodScores, Plan, no_seeds};
use crate::error::Result;
use crate::eval::{GraphModel, Method, release_graph_set, train_graph_release};

/// The model of the table.
pub const MODEL: GraphModel = GraphModel::Gin;

/// One row: a method at one ε (or without ε), over seeds.
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct MutagRow {
    /// The method, its ε and its test accuracy over seeds (the columns `method`, `eps`,
    /// `acc_mean`, `acc_std`, `runs`).
    #[serde(flatten)]
    pub scores: MethodScores,
    /// Mean released edges over the collection.
    pub edges: f64,
    /// Mean true-edge precision.
    pub precision: f64,
    /// Mean true-edge recall.
    pub recall: f64,
    /// Mean publish seconds of the collection.
    pub publish_s: f64,
    /// Mean training seconds.
    pub train_s: f64,
}

/// The row of `method` at `eps` (`None`: a method without privacy, released at ε = 1, unused)
/// on the graph collection `ds`: one per-graph release and one training run per seed.
///
/// # Errors
/// No seeds; release and training errors (a collection without node labels or class targets).
pub fn row(ds: &GraphDataset, method: Method, eps: Option<f64>, seeds: &[u64]) -> Result<MutagRow> {
    if seeds.is_empty() {
        return Err(no_seeds());
    }
    let mut runs = Vec::with_capacity(seeds.len());
    let (mut edges, mut prec, mut rec, mut publish, mut train) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for &seed in seeds {
        let (rel, s) = release_graph_set(ds, method, eps.unwrap_or(1.0), seed)?;
        let score = train_graph_release(&rel, MODEL, seed)?;
        runs.push(score.test_acc);
        edges += s.edges as f64;
        prec += s.precision;
        rec += s.recall;
        publish += s.publish_s;
        train += score.train_s;
    }
    let k = seeds.len() as f64;
    Ok(MutagRow {
        scores: MethodScores::new(method.label(), eps, runs),
        edges: edges / k,
        precision: prec / k,
        recall: rec / k,
        publish_s: publish / k,
        train_s: train / k,
    })
}

/// The table on `ds`: every method of `plan.mutag_methods`, the private ones at every ε of
/// `plan.mutag_eps`, with `plan.seeds`; `on_row` sees each row as it is done (progress).
///
/// # Errors
/// As [`row`].
pub fn table(
    ds: &GraphDataset,
    plan: &Plan,
    mut on_row: impl FnMut(&MutagRow),
) -> Result<Vec<MutagRow>> {
    let mut rows = Vec::new();
    for &m in &plan.mutag_methods {
        let grid: Vec<Option<f64>> = if m.is_private() {
            plan.mutag_eps.iter().copied().map(Some).collect()
        } else {
            vec![None]
        };
        for eps in grid {
            rows.push(row(ds, m, eps, &plan.seeds)?);
            on_row(&rows[rows.len() - 1]);
        }
    }
    Ok(rows)
}

/// The plot of `rows`: one curve per method (in the order of the rows), the methods without ε
/// flat over `grid`.
///
/// # Example
/// ```
/// use edgerefine::paper::{MethodScores, mutag::{MutagRow, curves}};
/// let row = |method: &str, eps, acc: f64| MutagRow {
///     scores: MethodScores::new(method.into(), eps, vec![acc]),
///     ..MutagRow::default()
/// };
/// let rows = [row("non-private", None, 0.85), row("SymRR", Some(1.0), 0.7), row("SymRR", Some(3.0), 0.8)];
/// let c = curves(&rows, &[1.0, 3.0]);
/// assert_eq!(c.len(), 2);
/// assert_eq!(c[0].points, vec![(1.0, 0.85), (3.0, 0.85)]);
/// assert_eq!(c[1].points, vec![(1.0, 0.7), (3.0, 0.8)]);
/// ```
pub fn curves(rows: &[MutagRow], grid: &[f64]) -> Vec<Curve> {
    let mut methods: Vec<&str> = Vec::new();
    for r in rows {
        if !methods.contains(&r.scores.method.as_str()) {
            methods.push(&r.scores.method);
        }
    }
    methods
        .into_iter()
        .map(|m| {
            let cells = rows
                .iter()
                .filter(|r| r.scores.method == m)
                .map(|r| (r.scores.eps, r.scores.acc_mean));
            Curve::new(m, cells, grid)
        })
        .collect()
}
