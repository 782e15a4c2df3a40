//! Evaluation metrics of issue 6: density and true-edge precision/recall of a release, and the
//! stability indices over an ε grid (variance, CV, AUR, MCF, PUBI) as `shared/design/EDGEREFINE.md`
//! defines them.

use graph_core::Graph;

use crate::error::{EdgeRefineError, Result};

/// Edge density of a release, `m / (n(n−1)/2)` (0 below two nodes).
pub fn release_density(release: &Graph) -> f64 {
    release.density()
}

/// How many released edges are true edges.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EdgeRecovery {
    /// Released edges that are edges of the true graph.
    pub true_positives: u64,
    /// Released edges.
    pub released: u64,
    /// Edges of the true graph.
    pub true_edges: u64,
    /// `true_positives / released` (0 for an empty release).
    pub precision: f64,
    /// `true_positives / true_edges` (0 for a true graph without edges).
    pub recall: f64,
}

/// True-edge precision and recall of a release against the true graph.
///
/// # Errors
/// [`EdgeRefineError::NodeCountMismatch`] when the node counts differ.
///
/// # Complexity
/// O(m_release · log d_max).
///
/// # Example
/// ```
/// use graph_core::Graph;
/// let truth = Graph::from_edges(4, &[(0, 1), (1, 2), (2, 3)])?;
/// let release = Graph::from_edges(4, &[(0, 1), (0, 3)])?;
/// let r = edgerefine::metrics::edge_precision_recall(&release, &truth)?;
/// assert_eq!((r.precision, r.recall), (0.5, 1.0 / 3.0));
/// # Ok::<(), edgerefine::EdgeRefineError>(())
/// ```
pub fn edge_precision_recall(release: &Graph, truth: &Graph) -> Result<EdgeRecovery> {
    if release.num_nodes() != truth.num_nodes() {
        return Err(EdgeRefineError::NodeCountMismatch {
            expected: truth.num_nodes(),
            got: release.num_nodes(),
        });
    }
    let tp = release
        .edges()
        .filter(|&(u, v)| truth.has_edge(u, v))
        .count() as u64;
    let released = release.num_edges() as u64;
    let true_edges = truth.num_edges() as u64;
    let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    Ok(EdgeRecovery {
        true_positives: tp,
        released,
        true_edges,
        precision: ratio(tp, released),
        recall: ratio(tp, true_edges),
    })
}

/// Stability of accuracy over an ε grid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stability {
    /// Population variance of the per-ε mean accuracies `a_1..a_T`.
    pub variance: f64,
    /// Coefficient of variation, population std / mean.
    pub cv: f64,
    /// Accuracy utility ratio, `mean_t(a_t / A_o)`.
    pub aur: f64,
    /// Monotonic consistency factor, `1 − mean_t max(0, a_t − a_{t+1}) / A_o` over the `T − 1`
    /// consecutive pairs (1 when `T = 1`).
    pub mcf: f64,
    /// Privacy–utility balance index, `AUR × MCF`.
    pub pubi: f64,
}

/// Variance, CV, AUR, MCF and PUBI of per-ε mean accuracies (ordered by increasing ε) against
/// the non-private ("origin") accuracy `A_o`.
///
/// # Errors
/// [`EdgeRefineError::InvalidParam`] for an empty grid, a non-finite accuracy, a zero mean, or
/// `A_o` not finite and positive.
///
/// # Example
/// ```
/// let s = edgerefine::metrics::stability(&[0.6, 0.8], 0.8)?;
/// assert!((s.aur - 0.875).abs() < 1e-12);
/// assert_eq!(s.mcf, 1.0);
/// assert!((s.variance - 0.01).abs() < 1e-12);
/// # Ok::<(), edgerefine::EdgeRefineError>(())
/// ```
pub fn stability(accuracies: &[f64], origin: f64) -> Result<Stability> {
    if accuracies.is_empty() {
        return Err(EdgeRefineError::InvalidParam {
            name: "accuracies",
            value: 0.0,
            reason: "need at least one accuracy",
        });
    }
    if let Some(&a) = accuracies.iter().find(|a| !a.is_finite()) {
        return Err(EdgeRefineError::InvalidParam {
            name: "accuracy",
            value: a,
            reason: "must be finite",
        });
    }
    if !(origin.is_finite() && origin > 0.0) {
        return Err(EdgeRefineError::InvalidParam {
            name: "origin",
            value: origin,
            reason: "origin accuracy must be finite and > 0",
        });
    }
    let t = accuracies.len() as f64;
    let mean = accuracies.iter().sum::<f64>() / t;
    if mean == 0.0 {
        return Err(EdgeRefineError::InvalidParam {
            name: "accuracies",
            value: 0.0,
            reason: "mean accuracy is 0: CV undefined",
        });
    }
    let variance = accuracies
        .iter()
        .map(|a| (a - mean) * (a - mean))
        .sum::<f64>()
        / t;
    let aur = accuracies.iter().map(|a| a / origin).sum::<f64>() / t;
    let drops: Vec<f64> = accuracies
        .windows(2)
        .map(|w| (w[0] - w[1]).max(0.0))
        .collect();
    let mcf = if drops.is_empty() {
        1.0
    } else {
        1.0 - drops.iter().sum::<f64>() / drops.len() as f64 / origin
    };
    Ok(Stability {
        variance,
        cv: variance.sqrt() / mean,
        aur,
        mcf,
        pubi: aur * mcf,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stability_by_hand() {
        // a = (0.70, 0.80, 0.75, 0.85), A_o = 0.90.
        // mean 0.775; deviations ±0.075, ±0.025 → variance (2·0.005625 + 2·0.000625)/4 = 0.003125.
        // AUR = 0.775 / 0.9 = 0.86111…; drops (0, 0.05, 0) → MCF = 1 − (0.05/3)/0.9 = 0.98148…
        let s = stability(&[0.70, 0.80, 0.75, 0.85], 0.90).unwrap();
        assert!((s.variance - 0.003125).abs() < 1e-12);
        assert!((s.cv - 0.003125f64.sqrt() / 0.775).abs() < 1e-12);
        assert!((s.aur - 0.775 / 0.9).abs() < 1e-12);
        assert!((s.mcf - (1.0 - 0.05 / 3.0 / 0.9)).abs() < 1e-12);
        assert!((s.pubi - s.aur * s.mcf).abs() < 1e-15);
        assert!((s.pubi - 0.845_164_609_053_497_9).abs() < 1e-12);
    }

    #[test]
    fn stability_edge_cases() {
        let one = stability(&[0.5], 1.0).unwrap();
        assert_eq!(
            (one.variance, one.cv, one.mcf, one.aur),
            (0.0, 0.0, 1.0, 0.5)
        );
        for (acc, origin) in [
            (vec![], 0.9),
            (vec![0.5, f64::NAN], 0.9),
            (vec![0.5], 0.0),
            (vec![0.5], f64::NAN),
            (vec![0.0, 0.0], 0.9),
        ] {
            assert!(matches!(
                stability(&acc, origin),
                Err(EdgeRefineError::InvalidParam { .. })
            ));
        }
    }

    #[test]
    fn precision_recall_and_density() {
        let truth = Graph::from_edges(5, &[(0, 1), (1, 2), (2, 3), (3, 4)]).unwrap();
        let release = Graph::from_edges(5, &[(0, 1), (2, 3), (0, 4)]).unwrap();
        let r = edge_precision_recall(&release, &truth).unwrap();
        assert_eq!(r.true_positives, 2);
        assert!((r.precision - 2.0 / 3.0).abs() < 1e-12);
        assert!((r.recall - 0.5).abs() < 1e-12);
        assert!((release_density(&release) - 0.3).abs() < 1e-12);
        let empty = Graph::empty(5).unwrap();
        let e = edge_precision_recall(&empty, &truth).unwrap();
        assert_eq!((e.precision, e.recall), (0.0, 0.0));
        assert!(matches!(
            edge_precision_recall(&Graph::empty(4).unwrap(), &truth),
            Err(EdgeRefineError::NodeCountMismatch {
                expected: 5,
                got: 4
            })
        ));
    }
}
