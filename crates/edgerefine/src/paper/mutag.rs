//! MUTAG graph classification on per-graph releases (feature `train`): every graph of the
//! collection released on its own ([`release_graph_set`]; EdgeRefine with each graph's own edge
//! count as `E`), each graph-level model of the plan (the paper: GCN, GAT and GIN) trained on
//! the released collection with EdgeRefine's MUTAG protocol ([`crate::eval::mutag_protocol`]),
//! mean ± std over seeds. Every release is drawn once per (method, ε, seed) and shared by the
//! models.

use dp_core::params::Epsilon;
use graph_core::GraphDataset;
use serde::Serialize;

use super::{Curve, MethodScores, Plan, no_seeds};
use crate::error::Result;
use crate::eval::{GraphModel, Method, release_graph_set, train_graph_release};

/// One row: a model and a method at one ε (or without ε), over seeds.
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct MutagRow {
    /// [`GraphModel::name`].
    pub model: String,
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
    /// How far below the same model's non-private accuracy, in % of it (filled by [`table`];
    /// NaN for the non-private row and when it did not run).
    pub below_non_private_pct: f64,
    /// The paper's figure for `below_non_private_pct` (≈ 5 % for EdgeRefine, k = 1), NaN for
    /// the other methods.
    pub paper_value: f64,
}

/// The paper's MUTAG claim: EdgeRefine (k = 1) is ≈ 5 % below the non-private accuracy.
pub(crate) const PAPER_BELOW_NON_PRIVATE_PCT: f64 = 5.0;

/// The rows of `method` at `eps` (`None`: a method without privacy, released at ε = 1, unused)
/// on the graph collection `ds`, one per model of `models` (in that order): one per-graph
/// release per seed, shared by the models, and one training run per model and seed.
///
/// # Errors
/// No seeds or no models; release and training errors (a collection without node labels or
/// class targets).
pub fn rows(
    ds: &GraphDataset,
    method: Method,
    eps: Option<f64>,
    models: &[GraphModel],
    seeds: &[u64],
) -> Result<Vec<MutagRow>> {
    if seeds.is_empty() {
        return Err(no_seeds());
    }
    if models.is_empty() {
        return Err(crate::EdgeRefineError::InvalidParam {
            name: "models",
            value: 0.0,
            reason: "at least one model is needed",
        });
    }
    let mut runs = vec![Vec::with_capacity(seeds.len()); models.len()];
    let mut train = vec![0.0; models.len()];
    let (mut edges, mut prec, mut rec, mut publish) = (0.0, 0.0, 0.0, 0.0);
    for &seed in seeds {
        // Without ε (the non-private methods) ε is not used.
        let eps = Epsilon::new(eps.unwrap_or(1.0))?;
        let (rel, s) = release_graph_set(ds, method, eps, seed)?;
        for (i, &model) in models.iter().enumerate() {
            let score = train_graph_release(&rel, model, seed)?;
            runs[i].push(score.test_acc);
            train[i] += score.train_s;
        }
        edges += s.edges as f64;
        prec += s.precision;
        rec += s.recall;
        publish += s.publish_s;
    }
    let k = seeds.len() as f64;
    Ok(models
        .iter()
        .zip(runs)
        .zip(train)
        .map(|((model, runs), train)| MutagRow {
            model: model.name().into(),
            scores: MethodScores::new(method.label(), eps, runs),
            edges: edges / k,
            precision: prec / k,
            recall: rec / k,
            publish_s: publish / k,
            train_s: train / k,
            below_non_private_pct: f64::NAN,
            paper_value: match method {
                Method::EdgeRefine { k: 1.0, .. } => PAPER_BELOW_NON_PRIVATE_PCT,
                _ => f64::NAN,
            },
        })
        .collect())
}

/// The row of `method` at `eps` for one model (see [`rows`]).
///
/// # Errors
/// As [`rows`].
pub fn row(
    ds: &GraphDataset,
    method: Method,
    eps: Option<f64>,
    model: GraphModel,
    seeds: &[u64],
) -> Result<MutagRow> {
    let mut r = rows(ds, method, eps, &[model], seeds)?;
    Ok(r.remove(0))
}

/// The table on `ds`: every method of `plan.mutag_methods`, the private ones at every ε of
/// `plan.mutag_eps`, with `plan.seeds`, each trained with every model of `plan.mutag_models`
/// (rows by method, ε, then model); `on_row` sees each row as it is done (progress).
///
/// # Errors
/// As [`rows`].
pub fn table(
    ds: &GraphDataset,
    plan: &Plan,
    mut on_row: impl FnMut(&MutagRow),
) -> Result<Vec<MutagRow>> {
    let mut out = Vec::new();
    for &m in &plan.mutag_methods {
        let grid: Vec<Option<f64>> = if m.is_private() {
            plan.mutag_eps.iter().copied().map(Some).collect()
        } else {
            vec![None]
        };
        for eps in grid {
            for r in self::rows(ds, m, eps, &plan.mutag_models, &plan.seeds)? {
                on_row(&r);
                out.push(r);
            }
        }
    }
    let origin = Method::Origin.label();
    let reference: Vec<(String, f64)> = out
        .iter()
        .filter(|r| r.scores.method == origin)
        .map(|r| (r.model.clone(), r.scores.acc_mean))
        .collect();
    for r in out.iter_mut().filter(|r| r.scores.method != origin) {
        if let Some((_, a)) = reference.iter().find(|(m, _)| *m == r.model) {
            r.below_non_private_pct = (1.0 - r.scores.acc_mean / a) * 100.0;
        }
    }
    Ok(out)
}

/// The plot of one model's rows of `rows` (`model`: [`GraphModel::name`]): one curve per
/// method (in the order of the rows), the methods without ε flat over `grid`.
///
/// # Example
/// ```
/// use edgerefine::paper::{MethodScores, mutag::{MutagRow, curves}};
/// let row = |method: &str, eps, acc: f64| MutagRow {
///     model: "graph-gin".into(),
///     scores: MethodScores::new(method.into(), eps, vec![acc]),
///     ..MutagRow::default()
/// };
/// let rows = [row("non-private", None, 0.85), row("SymRR", Some(1.0), 0.7), row("SymRR", Some(3.0), 0.8)];
/// let c = curves(&rows, "graph-gin", &[1.0, 3.0]);
/// assert_eq!(c.len(), 2);
/// assert_eq!(c[0].points, vec![(1.0, 0.85), (3.0, 0.85)]);
/// assert_eq!(c[1].points, vec![(1.0, 0.7), (3.0, 0.8)]);
/// assert!(curves(&rows, "graph-gcn", &[1.0, 3.0]).is_empty());
/// ```
pub fn curves(rows: &[MutagRow], model: &str, grid: &[f64]) -> Vec<Curve> {
    let rows: Vec<&MutagRow> = rows.iter().filter(|r| r.model == model).collect();
    let mut methods: Vec<&str> = Vec::new();
    for r in &rows {
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
