//! The paper's protocols as library code, so that a table of the paper can be run on one's own
//! data and machine (`cargo xtask repro edgerefine` and `repro gnn` are thin drivers of this
//! module: they load the datasets, cache chunks on disk and write the rows as tables).
//!
//! - [`rae`]: the reconstruction attack on the k = 1 release, one row per ε;
//! - `gnn_table` (feature `train`): EdgeRefine's GNN models on the clean Cora and MUTAG
//!   graphs, against the accuracies they must reach;
//! - `Plan` (feature `train`): the accuracy-over-ε grid (datasets, models, methods, ε,
//!   seeds), the MUTAG table, Blink's own protocol and the epoch caps by release size;
//! - `node` (feature `train`): the accuracy-over-ε grid of one dataset, run in resumable
//!   (ε, seed) chunks and accumulated into the accuracy, releases and PUBI rows;
//! - `blink` (feature `train`): Blink on Cora under Blink's own validation-based protocol;
//! - `mutag` (feature `train`): MUTAG graph classification on per-graph releases;
//! - `calibrations` (feature `train`): the artifact's other calibrations (isotonic, beta,
//!   temperature, Adamic–Adar, …) against the paper's, against the features-only model;
//! - `claims` (feature `train`): the paper's headline claims against both Blinks;
//! - `edge_count` (feature `train`): the cost of not knowing `E`, supplied against estimated;
//! - `k_sweep` (feature `train`): the release at k from 0.001 to 1 and under other
//!   calibrations, against the features-only model;
//! - `speed` (feature `train`): publish and training time of every method's release beside
//!   EdgeRefine's, from the node grid.

#[cfg(feature = "train")]
pub mod blink;
#[cfg(feature = "train")]
pub mod calibrations;
#[cfg(feature = "train")]
pub mod claims;
#[cfg(feature = "train")]
pub mod edge_count;
#[cfg(feature = "train")]
pub mod gnn_table;
#[cfg(feature = "train")]
pub mod k_sweep;
#[cfg(feature = "train")]
pub mod mutag;
#[cfg(feature = "train")]
pub mod node;
#[cfg(feature = "train")]
mod plan;
pub mod rae;
#[cfg(feature = "train")]
pub mod speed;

#[cfg(feature = "train")]
pub use plan::{
    BlinkProtocol, Calibration, CalibrationTable, DENSE_EDGES, DatasetPlan, DenseCaps, KSweep,
    Plan, TRAIN_EDGE_LIMIT, VERY_DENSE_EDGES, methods,
};

use serde::Serialize;

/// One line of a plot: a method's mean test accuracy against ε.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Curve {
    /// The method's label ([`crate::eval::Method::label`]).
    pub method: String,
    /// `(ε, mean accuracy)`, by increasing ε.
    pub points: Vec<(f64, f64)>,
}

impl Curve {
    /// The curve of one method from its cells `(ε, mean)` in grid order: a cell without ε (a
    /// method that does not depend on ε) is drawn as a flat line over `grid`.
    ///
    /// # Example
    /// ```
    /// use edgerefine::paper::Curve;
    /// let flat = Curve::new("non-private", [(None, 0.8)], &[1.0, 2.0]);
    /// assert_eq!(flat.points, vec![(1.0, 0.8), (2.0, 0.8)]);
    /// let c = Curve::new("SymRR", [(Some(1.0), 0.5), (Some(2.0), 0.6)], &[1.0, 2.0]);
    /// assert_eq!(c.points, vec![(1.0, 0.5), (2.0, 0.6)]);
    /// ```
    pub fn new(
        method: impl Into<String>,
        cells: impl IntoIterator<Item = (Option<f64>, f64)>,
        grid: &[f64],
    ) -> Self {
        let mut points = Vec::new();
        for (eps, mean) in cells {
            match eps {
                Some(e) => points.push((e, mean)),
                None => points = grid.iter().map(|&e| (e, mean)).collect(),
            }
        }
        Self {
            method: method.into(),
            points,
        }
    }
}

/// A method's test accuracy over seeds, at one ε or without ε: the leading columns of the
/// accuracy tables ([`node::AccuracyRow`], [`mutag::MutagRow`], [`blink::BlinkRow`] flatten it).
#[cfg(feature = "train")]
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct MethodScores {
    /// [`crate::eval::Method::label`].
    pub method: String,
    /// ε (`-` for a method that does not depend on ε).
    #[serde(serialize_with = "eps_or_dash")]
    pub eps: Option<f64>,
    /// Mean test accuracy (NaN without runs).
    pub acc_mean: f64,
    /// Sample standard deviation of the test accuracy (0 for one run, NaN without runs).
    pub acc_std: f64,
    /// Test accuracy per seed.
    pub runs: Vec<f64>,
}

#[cfg(feature = "train")]
impl MethodScores {
    /// The scores of `runs` (one test accuracy per seed).
    ///
    /// # Example
    /// ```
    /// let s = edgerefine::paper::MethodScores::new("SymRR".into(), Some(1.0), vec![0.5, 0.7]);
    /// assert!((s.acc_mean - 0.6).abs() < 1e-12 && (s.acc_std - 0.02f64.sqrt()).abs() < 1e-12);
    /// ```
    pub fn new(method: String, eps: Option<f64>, runs: Vec<f64>) -> Self {
        let (acc_mean, acc_std) = mean_std(&runs);
        Self {
            method,
            eps,
            acc_mean,
            acc_std,
            runs,
        }
    }
}

/// What a release adds to the features alone, paired by seed, and what it releases: the columns
/// that the k sweep ([`k_sweep::KSweepRow`]) and the calibration table
/// ([`calibrations::CalibrationRow`]) share, flattened in place.
#[cfg(feature = "train")]
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct ReleaseGain {
    /// The calibration of the server's similarity.
    pub calibration: String,
    /// Mean test accuracy of the same model without edges (same seeds and splits).
    pub features_only: f64,
    /// Mean over seeds of (accuracy on the release − accuracy without edges), paired by seed.
    pub gain: f64,
    /// Standard error of `gain` over seeds (0 for one seed).
    pub gain_se: f64,
    /// Whether the release helps: `gain − 2·gain_se > 0` over at least two seeds (one seed has
    /// no standard error, so it never counts as helping).
    pub helps: bool,
    /// Mean released edges.
    pub released_edges: f64,
    /// Mean true-edge precision of the release (NaN when nothing is released).
    pub precision: f64,
}

#[cfg(feature = "train")]
impl ReleaseGain {
    /// The gain of the accuracies `runs` over `features_only` (one per seed, paired), with the
    /// sums over those seeds of the released edges and their precision.
    fn new(
        calibration: String,
        runs: &[f64],
        features_only: &[f64],
        (released, precision): (f64, f64),
    ) -> Self {
        let n = runs.len() as f64;
        let diffs: Vec<f64> = runs.iter().zip(features_only).map(|(a, b)| a - b).collect();
        let (gain, sd) = mean_std(&diffs);
        let gain_se = if diffs.len() > 1 { sd / n.sqrt() } else { 0.0 };
        Self {
            calibration,
            features_only: mean_std(features_only).0,
            gain,
            gain_se,
            helps: diffs.len() > 1 && gain - 2.0 * gain_se > 0.0,
            released_edges: released / n,
            precision: precision / n,
        }
    }
}

/// Mean and sample standard deviation, NaN for no values.
#[cfg(feature = "train")]
fn mean_std(v: &[f64]) -> (f64, f64) {
    graph_core::mean_std(v).unwrap_or((f64::NAN, f64::NAN))
}

/// The `eps` cell of a row: the number, or `-` for a row that does not depend on ε.
#[cfg(feature = "train")]
fn eps_or_dash<S: serde::Serializer>(eps: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match eps {
        Some(e) => s.serialize_f64(*e),
        None => s.serialize_str("-"),
    }
}

/// The error for a protocol run without seeds.
#[cfg(feature = "train")]
fn no_seeds() -> crate::EdgeRefineError {
    crate::EdgeRefineError::InvalidParam {
        name: "seeds",
        value: 0.0,
        reason: "at least one seed is needed",
    }
}
