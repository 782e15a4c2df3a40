//! Speed as the paper claims it (feature `train`): publish time (client + server) and
//! training time of every method's release beside EdgeRefine's, per dataset and model, from the
//! node grid's accuracy rows (the same releases and runs, no extra work). The paper claims
//! 3–4 orders of magnitude less training time than LDPGen.

use serde::Serialize;

use super::node::AccuracyRow;

/// One row: a method's mean times over the ε grid on one dataset and model, against the
/// reference method's.
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct SpeedRow {
    /// Dataset name.
    pub dataset: String,
    /// Model name.
    pub model: String,
    /// Method label.
    pub method: String,
    /// Cells (ε values) averaged.
    pub cells: usize,
    /// Mean released edges.
    pub edges: f64,
    /// Mean publish seconds (client + server) per release.
    pub publish_s: f64,
    /// Mean training seconds per run.
    pub train_s: f64,
    /// Training seconds per 10⁶ released edges (tells the release's size from the training's
    /// speed; NaN for empty releases).
    pub train_s_per_m_edges: f64,
    /// `publish_s` over the reference method's.
    pub publish_vs_reference: f64,
    /// `train_s` over the reference method's.
    pub train_vs_reference: f64,
}

/// The speed rows of `accuracy` (rows of one or several datasets): per (dataset, model,
/// private method) the means over its ε cells, with ratios against `reference` (a method
/// label, e.g. EdgeRefine at k = 0.01) on the same dataset and model (NaN where the reference
/// has no row). Rows in first-appearance order.
///
/// # Example
/// ```
/// use edgerefine::paper::{MethodScores, node::AccuracyRow, speed::rows};
/// let row = |m: &str, eps, publish_s, train_s| AccuracyRow {
///     dataset: "cora".into(),
///     model: "gcn".into(),
///     scores: MethodScores::new(m.into(), eps, vec![0.7]),
///     edges: 100.0,
///     publish_s,
///     train_s,
///     ..AccuracyRow::default()
/// };
/// let acc = [
///     row("non-private", None, 0.0, 1.0),
///     row("A", Some(1.0), 1.0, 2.0),
///     row("A", Some(2.0), 3.0, 2.0),
///     row("B", Some(1.0), 4.0, 20.0),
/// ];
/// let r = rows(&acc, "A");
/// assert_eq!(r.len(), 2, "the ε-free rows are left out");
/// assert_eq!((r[0].publish_s, r[0].train_s, r[0].cells), (2.0, 2.0, 2));
/// assert_eq!((r[1].publish_vs_reference, r[1].train_vs_reference), (2.0, 10.0));
/// ```
pub fn rows(accuracy: &[AccuracyRow], reference: &str) -> Vec<SpeedRow> {
    let mut out: Vec<SpeedRow> = Vec::new();
    for a in accuracy.iter().filter(|a| a.scores.eps.is_some()) {
        let i = match out.iter().position(|r| {
            r.dataset == a.dataset && r.model == a.model && r.method == a.scores.method
        }) {
            Some(i) => i,
            None => {
                out.push(SpeedRow {
                    dataset: a.dataset.clone(),
                    model: a.model.clone(),
                    method: a.scores.method.clone(),
                    ..SpeedRow::default()
                });
                out.len() - 1
            }
        };
        let r = &mut out[i];
        r.cells += 1;
        r.edges += a.edges;
        r.publish_s += a.publish_s;
        r.train_s += a.train_s;
    }
    for r in &mut out {
        let n = r.cells as f64;
        r.edges /= n;
        r.publish_s /= n;
        r.train_s /= n;
        r.train_s_per_m_edges = if r.edges > 0.0 {
            r.train_s / r.edges * 1e6
        } else {
            f64::NAN
        };
    }
    let refs: Vec<(String, String, f64, f64)> = out
        .iter()
        .filter(|r| r.method == reference)
        .map(|r| (r.dataset.clone(), r.model.clone(), r.publish_s, r.train_s))
        .collect();
    for r in &mut out {
        let found = refs
            .iter()
            .find(|x| x.0 == r.dataset && x.1 == r.model)
            .map(|x| (x.2, x.3));
        let (p, t) = found.unwrap_or((f64::NAN, f64::NAN));
        r.publish_vs_reference = r.publish_s / p;
        r.train_vs_reference = r.train_s / t;
    }
    out
}
