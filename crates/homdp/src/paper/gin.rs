//! The paper's RR / DPRR baselines on one dataset ([`gin_baselines`], feature
//! `gin-baselines`): GIN trained on perturbed training and validation graphs (seeded subsamples
//! of the scaffold split, [`GinSizes`]), scored on clean test graphs.

use std::time::Instant;

use dp_core::rng::Seeds;
use graph_core::{Graph, GraphDataset, GraphError};
use rand::seq::SliceRandom;
use serde::Serialize;

use super::main_table::Baselines;
use super::protocol::{SeedStream, rep_seed};
use super::{BASELINE_EPS, Metric};
use crate::baselines::{
    BaselineFeatures, EdgePerturbation, GinBaselineConfig, GinData, gin_baseline,
};
use crate::downstream::Labels;
use crate::error::Result;

/// The GIN baselines' sizes: training / validation / test graphs (seeded subsamples of the
/// scaffold split's parts), epochs, patience, repetitions.
///
/// # Example
/// ```
/// use homdp::paper::GinSizes;
/// assert_eq!(GinSizes::quick().train, 200);
/// // --full: every graph of the split, the reference's 100 epochs as the cap, 3 seeds.
/// let full = GinSizes::full();
/// assert_eq!((full.train, full.epochs, full.reps), (usize::MAX, 100, 3));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct GinSizes {
    /// At most this many training graphs.
    pub train: usize,
    /// At most this many validation graphs.
    pub val: usize,
    /// At most this many test graphs.
    pub test: usize,
    /// At most this many epochs.
    pub epochs: usize,
    /// Early-stopping patience (epochs).
    pub patience: usize,
    /// Repetitions.
    pub reps: usize,
}

impl GinSizes {
    /// `--quick`: 200 / 80 / 250 graphs, 6 epochs.
    pub fn quick() -> Self {
        Self {
            train: 200,
            val: 80,
            test: 250,
            epochs: 6,
            patience: 3,
            reps: 1,
        }
    }

    /// `--full`, the authors' protocol: every graph of the scaffold split, at most 100 epochs
    /// (the reference's count) with early stopping on the validation loss after 10 epochs
    /// without improvement, 3 seeds.
    pub fn full() -> Self {
        Self {
            train: usize::MAX,
            val: usize::MAX,
            test: usize::MAX,
            epochs: 100,
            patience: 10,
            reps: 3,
        }
    }

    /// These sizes with at most `train` training graphs (a dataset whose full training set
    /// does not fit the run's budget; the table says so).
    pub fn with_max_train(self, train: usize) -> Self {
        Self { train, ..self }
    }
}

/// Runs the paper's RR and DPRR baselines (ε = [`BASELINE_EPS`]) on `ds`: GIN
/// ([`GinBaselineConfig::paper`] with all-ones features, standardised regression targets,
/// `sizes`' epochs and patience) trained on graphs perturbed by randomized response and by
/// degree-preserving RR, scored with `metric` on the clean test graphs; repetition `r` is
/// seeded with [`rep_seed`]`(seed, SeedStream::Gin(index), r)` (`index`: the dataset's
/// position in [`super::settings`]).
///
/// # Errors
/// [`crate::HomdpError::Graph`] when `ds` lacks a `train`, `valid` or `test` split; as
/// [`EdgePerturbation::dprr_paper`] and [`gin_baseline`].
///
/// # Privacy
/// As [`gin_baseline`]: the training and validation graphs are released ε-edge DP per graph
/// (RR) or per adjacency list (DPRR); test graphs and targets are not protected.
///
/// # Complexity
/// `2 · sizes.reps` GIN trainings (see [`gin_baseline`]).
pub fn gin_baselines(
    ds: &GraphDataset,
    metric: Metric,
    sizes: &GinSizes,
    seed: u64,
    index: usize,
) -> Result<Baselines> {
    let part = |p: &str| -> Result<Vec<usize>> {
        Ok(ds
            .split(p)
            .ok_or_else(|| GraphError::Shape(format!("{} has no {p} split", ds.name())))?
            .to_vec())
    };
    let mut rng = Seeds::new(seed).chacha8("homdp/gin-split", index as u64);
    let mut pick = |mut v: Vec<usize>, m: usize| {
        if v.len() > m {
            v.shuffle(&mut rng);
            v.truncate(m);
        }
        v.sort_unstable();
        v
    };
    let split = gnn::GraphSplit {
        train: pick(part("train")?, sizes.train),
        val: pick(part("valid")?, sizes.val),
        test: pick(part("test")?, sizes.test),
    };
    let labels = Labels::from_targets(ds.targets());
    let n_max = ds.graphs().iter().map(Graph::num_nodes).max().unwrap_or(0);
    let dprr = EdgePerturbation::dprr_paper(BASELINE_EPS, n_max)?;
    let EdgePerturbation::DegreePreserving { eps1, .. } = dprr else {
        unreachable!("dprr_paper gives DPRR")
    };
    let rr = EdgePerturbation::RandomizedResponse { eps: BASELINE_EPS };
    let mut out = Baselines {
        eps1,
        sizes: [split.train.len(), split.val.len(), split.test.len()],
        constant_rmse: constant_rmse(&labels, &split),
        epoch_cap: sizes.epochs,
        ..Baselines::default()
    };
    let start = Instant::now();
    for rep in 0..sizes.reps {
        let seed = rep_seed(seed, SeedStream::Gin(index), rep);
        let cfg = GinBaselineConfig {
            features: BaselineFeatures::Ones,
            max_epochs: sizes.epochs,
            patience: Some(sizes.patience),
            seed,
            standardize_targets: true,
            ..GinBaselineConfig::paper()
        };
        for (k, p) in [rr, dprr].iter().enumerate() {
            let mut noise = Seeds::new(seed).chacha20("homdp/gin-baseline-noise", k as u64);
            let o = gin_baseline(
                GinData {
                    graphs: ds.graphs(),
                    node_labels: ds.node_labels(),
                    labels: &labels,
                },
                &split,
                p,
                &cfg,
                &mut noise,
            )?;
            out.edge_ratio[k] += o.edge_ratio / sizes.reps as f64;
            out.epochs[k].push((o.epochs, o.best_epoch + 1));
            out.target_standardization = o.target_standardization;
            let scores = if k == 0 { &mut out.rr } else { &mut out.dprr };
            scores.push(metric.of_scores(&o.scores));
        }
    }
    out.seconds = start.elapsed().as_secs_f64();
    Ok(out)
}

/// Regression: the test RMSE of predicting the training targets' mean for every test graph.
fn constant_rmse(labels: &Labels, split: &gnn::GraphSplit) -> Option<f64> {
    let Labels::Real(y) = labels else {
        return None;
    };
    let mean = split.train.iter().map(|&i| y[i]).sum::<f64>() / split.train.len() as f64;
    let mse = split
        .test
        .iter()
        .map(|&i| (y[i] - mean).powi(2))
        .sum::<f64>()
        / split.test.len() as f64;
    Some(mse.sqrt())
}
