//! The paper's RR / DPRR baselines on one dataset ([`gin_baselines`], feature
//! `gin-baselines`): GIN trained on perturbed training and validation graphs (seeded subsamples
//! of the scaffold split, [`GinSizes`]), scored on clean test graphs.

use std::time::Instant;

use dp_core::rng::Seeds;
use graph_core::{Graph, GraphDataset, GraphError};
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

use super::main_table::Baselines;
use super::protocol::{SeedStream, rep_seed};
use super::{BASELINE_EPS, Metric};
use crate::baselines::{
    BaselineFeatures, EdgePerturbation, GinBaselineConfig, GinData, gin_baseline,
};
use crate::downstream::Labels;
use crate::error::{HomdpError, Result};

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

/// One finished GIN training of [`gin_baselines_cached`]: what the main table keeps of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GinTraining {
    /// The test score in the dataset's metric.
    pub score: f64,
    /// Epochs run.
    pub epochs: usize,
    /// Epoch whose weights were kept (0-based, best validation loss).
    pub best_epoch: usize,
    /// Mean edge count of the perturbed training graphs over that of the clean ones.
    pub edge_ratio: f64,
    /// Training mean and std of standardised regression targets.
    pub target_standardization: Option<[f64; 2]>,
    /// Wall-clock seconds of the training (perturbation included).
    pub seconds: f64,
}

/// Which GIN training a [`GinCache`] entry is: the dataset, the baseline (`"rr"` or `"dprr"`)
/// and the repetition name the file an entry lives in; `fingerprint` holds everything the
/// training depends on (seed, sizes, split, ε, metric), so an entry of another plan is never
/// taken for this one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GinKey {
    /// The dataset's name.
    pub dataset: String,
    /// `"rr"` or `"dprr"`.
    pub baseline: &'static str,
    /// The repetition.
    pub rep: usize,
    /// Everything else the training depends on.
    pub fingerprint: String,
}

/// Keeps finished GIN trainings between runs, so that an interrupted run of
/// [`gin_baselines_cached`] resumes with the trainings it has not finished (HIV's six
/// trainings on all 32,901 training graphs take hours each on 2 cores).
pub trait GinCache {
    /// The training `key` names, when an earlier run with the same fingerprint finished it.
    fn get(&mut self, key: &GinKey) -> Option<GinTraining>;

    /// Records a finished training.
    ///
    /// # Errors
    /// The record cannot be written.
    fn put(&mut self, key: &GinKey, training: &GinTraining) -> std::io::Result<()>;

    /// Whether this process runs the training `key` names, which [`GinCache::get`] did not
    /// hold, at `position` in its dataset's grid (repetition × baseline); `false` leaves it out
    /// of the result (another process's share of the grid, or a spent time budget) and counts
    /// it in [`Baselines::left`]. By default every training runs.
    fn runs_here(&mut self, key: &GinKey, position: usize) -> bool {
        let _ = (key, position);
        true
    }
}

/// No cache: every training runs.
impl GinCache for () {
    fn get(&mut self, _: &GinKey) -> Option<GinTraining> {
        None
    }

    fn put(&mut self, _: &GinKey, _: &GinTraining) -> std::io::Result<()> {
        Ok(())
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
    gin_baselines_cached(ds, metric, sizes, seed, index, &mut ())
}

/// [`gin_baselines`], taking each training that `cache` holds from it and recording each
/// training it runs there as soon as it finishes. Every training draws its noise and
/// initialisation from its own seed, so the result is the same whichever trainings came from
/// the cache; [`Baselines::seconds`] sums the trainings' recorded times.
///
/// # Errors
/// As [`gin_baselines`]; [`crate::HomdpError::Cache`] when `cache` cannot record a training.
///
/// # Privacy
/// As [`gin_baselines`].
///
/// # Complexity
/// `2 · sizes.reps` GIN trainings less those in `cache`.
pub fn gin_baselines_cached(
    ds: &GraphDataset,
    metric: Metric,
    sizes: &GinSizes,
    seed: u64,
    index: usize,
    cache: &mut dyn GinCache,
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
    let rr = EdgePerturbation::RandomizedResponse {
        eps: BASELINE_EPS.get(),
    };
    let mut out = Baselines {
        eps1: dp_core::params::Epsilon::new(eps1)?,
        sizes: [split.train.len(), split.val.len(), split.test.len()],
        constant_rmse: constant_rmse(&labels, &split),
        epoch_cap: sizes.epochs,
        rr: Vec::new(),
        dprr: Vec::new(),
        edge_ratio: [0.0; 2],
        epochs: [Vec::new(), Vec::new()],
        target_standardization: None,
        seconds: 0.0,
        left: 0,
    };
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
            let baseline = ["rr", "dprr"][k];
            let key = GinKey {
                dataset: ds.name().to_string(),
                baseline,
                rep,
                fingerprint: format!(
                    "{} {baseline} rep {rep} seed {seed} eps {BASELINE_EPS} {p:?} sizes {sizes:?} graphs {:?} metric {metric:?} {cfg:?}",
                    ds.name(),
                    out.sizes,
                ),
            };
            let t = match cache.get(&key) {
                Some(t) => t,
                None if !cache.runs_here(&key, 2 * rep + k) => {
                    out.left += 1;
                    continue;
                }
                None => {
                    let start = Instant::now();
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
                    let t = GinTraining {
                        score: metric.of_scores(&o.scores),
                        epochs: o.epochs,
                        best_epoch: o.best_epoch,
                        edge_ratio: o.edge_ratio,
                        target_standardization: o.target_standardization,
                        seconds: start.elapsed().as_secs_f64(),
                    };
                    cache.put(&key, &t).map_err(HomdpError::Cache)?;
                    t
                }
            };
            out.edge_ratio[k] += t.edge_ratio / sizes.reps as f64;
            out.epochs[k].push((t.epochs, t.best_epoch + 1));
            out.target_standardization = t.target_standardization;
            out.seconds += t.seconds;
            let scores = if k == 0 { &mut out.rr } else { &mut out.dprr };
            scores.push(t.score);
        }
    }
    // The edge ratios were averaged over every repetition; over the ones run where some were
    // left out.
    if out.left > 0 {
        for (k, done) in [out.rr.len(), out.dprr.len()].into_iter().enumerate() {
            out.edge_ratio[k] = if done == 0 {
                f64::NAN
            } else {
                out.edge_ratio[k] * sizes.reps as f64 / done as f64
            };
        }
    }
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

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use graph_core::Targets;

    use super::*;

    /// Paths (class 0) and cycles (class 1) of 20–24 nodes (DPRR needs ε1 < ε, so n_max > 9),
    /// split 12 / 6 / 6.
    fn toy() -> GraphDataset {
        let graphs: Vec<Graph> = (0..24)
            .map(|i| {
                let n = 20 + (i / 2) % 5;
                let mut edges: Vec<(u32, u32)> = (0..n as u32 - 1).map(|u| (u, u + 1)).collect();
                if i % 2 == 1 {
                    edges.push((n as u32 - 1, 0));
                }
                Graph::from_edges(n, &edges).unwrap()
            })
            .collect();
        let raw: Vec<i64> = (0..24).map(|i| i % 2).collect();
        GraphDataset::new("toy", graphs, Targets::from_raw_classes(&raw))
            .unwrap()
            .with_split("train", (0..12).collect())
            .unwrap()
            .with_split("valid", (12..18).collect())
            .unwrap()
            .with_split("test", (18..24).collect())
            .unwrap()
    }

    fn sizes() -> GinSizes {
        GinSizes {
            epochs: 2,
            patience: 1,
            reps: 2,
            ..GinSizes::quick()
        }
    }

    #[derive(Default)]
    struct Memory {
        entries: HashMap<(String, &'static str, usize), (String, GinTraining)>,
        gets: usize,
        puts: usize,
    }

    impl GinCache for Memory {
        fn get(&mut self, key: &GinKey) -> Option<GinTraining> {
            self.gets += 1;
            let (fp, t) = self
                .entries
                .get(&(key.dataset.clone(), key.baseline, key.rep))?;
            (fp == &key.fingerprint).then(|| t.clone())
        }

        fn put(&mut self, key: &GinKey, t: &GinTraining) -> std::io::Result<()> {
            self.puts += 1;
            self.entries.insert(
                (key.dataset.clone(), key.baseline, key.rep),
                (key.fingerprint.clone(), t.clone()),
            );
            Ok(())
        }
    }

    /// A cache that runs only the trainings at positions `parity` modulo 2: one of two shards.
    struct Shard<'a> {
        inner: &'a mut Memory,
        parity: usize,
    }

    impl GinCache for Shard<'_> {
        fn get(&mut self, key: &GinKey) -> Option<GinTraining> {
            self.inner.get(key)
        }

        fn put(&mut self, key: &GinKey, t: &GinTraining) -> std::io::Result<()> {
            self.inner.put(key, t)
        }

        fn runs_here(&mut self, _: &GinKey, position: usize) -> bool {
            position % 2 == self.parity
        }
    }

    struct Full;

    impl GinCache for Full {
        fn get(&mut self, _: &GinKey) -> Option<GinTraining> {
            None
        }

        fn put(&mut self, _: &GinKey, _: &GinTraining) -> std::io::Result<()> {
            Err(std::io::Error::other("disk full"))
        }
    }

    #[test]
    fn a_cached_run_resumes_with_the_trainings_it_lacks_and_gives_the_same_table() {
        let ds = toy();
        let mut cache = Memory::default();
        let first = gin_baselines_cached(&ds, Metric::Auc, &sizes(), 5, 0, &mut cache).unwrap();
        assert_eq!((cache.puts, first.rr.len(), first.dprr.len()), (4, 2, 2));
        // Every training from the cache: nothing runs, the same table (times included).
        let again = gin_baselines_cached(&ds, Metric::Auc, &sizes(), 5, 0, &mut cache).unwrap();
        assert_eq!(cache.puts, 4);
        assert_eq!(format!("{again:?}"), format!("{first:?}"));
        // One training lost (an interrupted run): only it runs, to the same score.
        cache.entries.remove(&("toy".into(), "dprr", 1));
        let resumed = gin_baselines_cached(&ds, Metric::Auc, &sizes(), 5, 0, &mut cache).unwrap();
        assert_eq!(cache.puts, 5);
        assert_eq!(
            (resumed.rr.clone(), resumed.dprr.clone()),
            (first.rr.clone(), first.dprr.clone())
        );
        assert_eq!(resumed.epochs, first.epochs);
        // Another seed is another plan: its fingerprints differ, so all four run.
        gin_baselines_cached(&ds, Metric::Auc, &sizes(), 6, 0, &mut cache).unwrap();
        assert_eq!(cache.puts, 9);
        // Without a cache, the same scores as the cached run.
        let plain = gin_baselines(&ds, Metric::Auc, &sizes(), 5, 0).unwrap();
        assert_eq!((plain.rr, plain.dprr), (first.rr, first.dprr));
    }

    /// Two shards share the grid: each runs its positions and leaves the others out; after
    /// both, every training is cached and the table is the one a single process makes.
    #[test]
    fn shards_split_the_trainings_and_together_give_the_whole_table() {
        let ds = toy();
        let whole = gin_baselines(&ds, Metric::Auc, &sizes(), 5, 0).unwrap();
        let mut memory = Memory::default();
        let mut shard = Shard {
            inner: &mut memory,
            parity: 0,
        };
        let half = gin_baselines_cached(&ds, Metric::Auc, &sizes(), 5, 0, &mut shard).unwrap();
        // Positions 2·rep + k: shard 0 runs RR (k = 0) of both repetitions.
        assert_eq!((half.rr.len(), half.dprr.len(), half.left), (2, 0, 2));
        assert!(half.edge_ratio[1].is_nan() && half.edge_ratio[0] == whole.edge_ratio[0]);
        let mut shard = Shard {
            inner: &mut memory,
            parity: 1,
        };
        let other = gin_baselines_cached(&ds, Metric::Auc, &sizes(), 5, 0, &mut shard).unwrap();
        assert_eq!((other.rr.len(), other.dprr.len(), other.left), (2, 2, 0));
        assert_eq!(memory.puts, 4, "each training ran once, in one shard");
        assert_eq!((other.rr, other.dprr), (whole.rr, whole.dprr));
        assert_eq!(other.edge_ratio, whole.edge_ratio);
    }

    #[test]
    fn a_cache_that_cannot_record_is_an_error() {
        let err = gin_baselines_cached(&toy(), Metric::Auc, &sizes(), 5, 0, &mut Full).unwrap_err();
        assert!(matches!(err, HomdpError::Cache(_)), "{err}");
        assert!(err.to_string().contains("disk full") || format!("{err:?}").contains("disk full"));
    }
}
