//! The paper's GNN baselines: a GIN (gnn's `homdp-gin` preset) trained on graphs whose edges are
//! perturbed by randomized response (RR) or degree-preserving randomized response (DPRR,
//! Hidano & Murakami, Algorithm 1), and tested on clean graphs.
//!
//! The perturbations work per graph. [`EdgePerturbation::RandomizedResponse`] flips every
//! unordered node pair of a graph once with probability `1/(e^ε + 1)`: ε-edge DP of each graph
//! (neighbours differ in one edge, the paper's notion). [`EdgePerturbation::DegreePreserving`]
//! randomizes each node's adjacency list on its own (Laplace-noised degree with ε1, RR with ε2,
//! then sampling the reported ones with a per-node probability) and keeps an edge if either
//! endpoint reports it; one edge lies in two lists, so its per-graph edge-level guarantee is
//! `2(ε1 + ε2)` ([`EdgePerturbation::edge_dp_eps`]), while Hidano & Murakami (and the paper)
//! state `ε1 + ε2` per adjacency list (edge LDP).

use burn::tensor::Device;
use dp_core::mechanisms::{LaplaceParams, RandomizedResponseParams};
use gnn::{
    EdgeList, GraphSplit, GraphTargets, GraphTask, ModelConfig, Monitor, TrainConfig,
    train_graph_model,
};
use graph_core::Graph;
use ndarray::Array2;
use rand::CryptoRng;

use crate::downstream::{Labels, Scores};
#[cfg(test)]
use crate::error::HomdpError;
use crate::error::{Result, invalid};

/// How the training and validation graphs of the GIN baseline are perturbed (test graphs stay
/// clean, as in the paper).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub enum EdgePerturbation {
    /// No perturbation (the non-private GIN).
    None,
    /// Randomized response on every unordered node pair, with privacy loss `eps`.
    RandomizedResponse {
        /// ε of the flip probability `1/(e^ε + 1)`.
        eps: f64,
    },
    /// Degree-preserving randomized response (Hidano & Murakami, Algorithm 1).
    DegreePreserving {
        /// ε1: Laplace noise `Lap(1/ε1)` on each node degree.
        eps1: f64,
        /// ε2: randomized response on each node's adjacency bits.
        eps2: f64,
    },
}

impl EdgePerturbation {
    /// DPRR with the paper's split of a total `eps`: `ε1 = max(0.1, sqrt(8/(n_max − 1)))`,
    /// `ε2 = eps − ε1`, where `n_max` is the largest graph of the dataset (the reference code's
    /// heuristic for molecule-sized graphs).
    ///
    /// # Errors
    /// [`crate::HomdpError::InvalidParam`] for `eps` not finite and positive, `n_max < 2`, or
    /// `eps ≤ ε1` (nothing left for the randomized response).
    ///
    /// # Example
    /// ```
    /// let p = homdp::EdgePerturbation::dprr_paper(1.0, 222)?;
    /// let homdp::EdgePerturbation::DegreePreserving { eps1, eps2 } = p else { unreachable!() };
    /// assert!((eps1 - (8.0f64 / 221.0).sqrt()).abs() < 1e-15 && (eps1 + eps2 - 1.0).abs() < 1e-15);
    /// # Ok::<(), homdp::HomdpError>(())
    /// ```
    pub fn dprr_paper(eps: f64, n_max: usize) -> Result<Self> {
        if !(eps.is_finite() && eps > 0.0) {
            return invalid("eps", eps, "must be finite and positive");
        }
        if n_max < 2 {
            return invalid("n_max", n_max as f64, "needs graphs with at least 2 nodes");
        }
        let eps1 = (8.0 / (n_max - 1) as f64).sqrt().max(0.1);
        if eps <= eps1 {
            return invalid("eps", eps, "must exceed the degree budget eps1");
        }
        Ok(Self::DegreePreserving {
            eps1,
            eps2: eps - eps1,
        })
    }

    /// Upper bound on the per-graph edge-level ε of the perturbation (neighbouring graphs
    /// differ in one edge): ε for RR (each pair is randomized once), `2(ε1 + ε2)` for DPRR (an
    /// edge is in two adjacency lists and two degrees); `None` without perturbation.
    ///
    /// # Privacy
    /// Pure ε-DP, with each mechanism's implemented ε (dp-core's `pure_dp`, rounded up);
    /// infinite for parameters that dp-core refuses (such a perturbation cannot be applied).
    pub fn edge_dp_eps(&self) -> Option<f64> {
        let rr = |eps: f64| {
            RandomizedResponseParams::new(eps)
                .check()
                .map_or(f64::INFINITY, |m| m.pure_dp().eps())
        };
        match *self {
            Self::None => None,
            Self::RandomizedResponse { eps } => Some(rr(eps)),
            Self::DegreePreserving { eps1, eps2 } => {
                let lap = LaplaceParams::new(1.0 / eps1)
                    .check()
                    .map_or(f64::INFINITY, |m| m.pure_dp().eps());
                Some((2.0 * (lap + rr(eps2))).next_up())
            }
        }
    }

    /// Perturbs one graph (same nodes, new edge set).
    ///
    /// # Errors
    /// [`crate::HomdpError::Dp`] when an ε is not finite and positive (dp-core's check).
    ///
    /// # Privacy
    /// See [`EdgePerturbation::edge_dp_eps`]; the randomness comes from `rng` (a CSPRNG).
    ///
    /// # Complexity
    /// O(n²) for a graph on n nodes (every node pair is randomized).
    ///
    /// # Example
    /// ```
    /// use graph_core::Graph;
    /// let g = Graph::from_edges(4, &[(0, 1), (1, 2), (2, 3)])?;
    /// let rr = homdp::EdgePerturbation::RandomizedResponse { eps: 50.0 };
    /// let h = rr.apply(&g, &mut dp_core::rng::seeded_rng(1))?;
    /// assert_eq!(h.num_edges(), 3); // ε = 50: no pair flips (with overwhelming probability)
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn apply<R: CryptoRng + ?Sized>(&self, g: &Graph, rng: &mut R) -> Result<Graph> {
        let n = g.num_nodes();
        match *self {
            Self::None => Ok(g.clone()),
            Self::RandomizedResponse { eps } => {
                let rr = RandomizedResponseParams::new(eps).check()?;
                let mut edges = Vec::new();
                for u in 0..n as u32 {
                    for v in u + 1..n as u32 {
                        if rr.release_bit(g.has_edge(u, v), rng)? {
                            edges.push((u, v));
                        }
                    }
                }
                Ok(Graph::from_edges(n, &edges)?)
            }
            Self::DegreePreserving { eps1, eps2 } => {
                let rr = RandomizedResponseParams::new(eps2).check()?;
                let lap = LaplaceParams::new(1.0 / eps1).check()?;
                let p = rr.keep_prob();
                // Row i of `keep` holds the pairs {i, j} that node i reports.
                let mut keep = vec![false; n * n];
                for i in 0..n {
                    let d = lap.release(g.degree(i as u32) as f64, rng);
                    let denom = d * (2.0 * p - 1.0) + (n as f64 - 1.0) * (1.0 - p);
                    let q = if denom > 0.0 {
                        (d / denom).clamp(0.0, 1.0)
                    } else {
                        0.0
                    };
                    for j in 0..n {
                        if i != j
                            && rr.release_bit(g.has_edge(i as u32, j as u32), rng)?
                            && bernoulli(q, rng)
                        {
                            keep[i * n + j] = true;
                        }
                    }
                }
                let mut edges = Vec::new();
                for i in 0..n {
                    for j in i + 1..n {
                        if keep[i * n + j] || keep[j * n + i] {
                            edges.push((i as u32, j as u32));
                        }
                    }
                }
                Ok(Graph::from_edges(n, &edges)?)
            }
        }
    }
}

/// `true` with probability `q ∈ [0, 1]` (one 64-bit draw).
fn bernoulli<R: CryptoRng + ?Sized>(q: f64, rng: &mut R) -> bool {
    if q >= 1.0 {
        return true;
    }
    // q·2^64 < 2^64 here, so the cast does not saturate.
    rng.next_u64() < (q * 2f64.powi(64)) as u64
}

/// Node features of the GIN baseline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum BaselineFeatures {
    /// One constant feature per node (the paper: "remove node features to allow for fair
    /// comparison" with the structure-only embeddings).
    Ones,
    /// One-hot node labels (atom types of the molecule sets) over the values present.
    NodeLabels,
}

/// Training settings of the GIN baseline (the reference: `homdp-gin`, Adam lr 1e-3, batch 64,
/// 100 epochs, the test score of the best validation epoch).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct GinBaselineConfig {
    /// Node features.
    pub features: BaselineFeatures,
    /// Maximum epochs.
    pub max_epochs: usize,
    /// Early stopping after this many epochs without a better validation loss (`None`: run
    /// all epochs, keep the best).
    pub patience: Option<usize>,
    /// Mini-batch size.
    pub batch_size: usize,
    /// Adam learning rate.
    pub lr: f64,
    /// Seed of initialisation and batch order.
    pub seed: u64,
    /// Regression only: train on targets standardised with the mean and standard deviation of
    /// the training graphs' targets, and report the RMSE of the un-standardised predictions
    /// (`mean + std · output`). Class targets ignore it.
    pub standardize_targets: bool,
}

impl GinBaselineConfig {
    /// The reference protocol: all-ones features, 100 epochs without early stopping, batch 64,
    /// lr 1e-3, seed 0, raw regression targets.
    pub fn paper() -> Self {
        Self {
            features: BaselineFeatures::Ones,
            max_epochs: 100,
            patience: None,
            batch_size: 64,
            lr: 1e-3,
            seed: 0,
            standardize_targets: false,
        }
    }
}

/// Result of [`gin_baseline`].
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BaselineOutcome {
    /// Test scores (ROC-AUC and accuracy for two classes, RMSE for regression).
    pub scores: Scores,
    /// Upper bound on the per-graph edge-level ε ([`EdgePerturbation::edge_dp_eps`]).
    pub eps: Option<f64>,
    /// Epoch whose weights were kept (best validation loss).
    pub best_epoch: usize,
    /// Epochs run.
    pub epochs: usize,
    /// Mean number of edges of the perturbed training graphs divided by that of the clean ones.
    pub edge_ratio: f64,
    /// `[mean, std]` of the training targets used to standardise regression targets
    /// ([`GinBaselineConfig::standardize_targets`]); `None` when targets were not standardised.
    pub target_standardization: Option<[f64; 2]>,
}

/// Trains the paper's GIN baseline: the graphs of `split.train` and `split.val` are perturbed
/// by `perturbation` (each once), the GIN is trained on the perturbed training graphs with the
/// best weights chosen on the perturbed validation graphs (validation loss), and scored on the
/// clean graphs of `split.test`.
///
/// # Arguments
/// * `graphs`, `node_labels` (one label per node and graph; needed for
///   [`BaselineFeatures::NodeLabels`]), `labels` (one target per graph);
/// * `split` — indices into `graphs`; graphs in none of the parts are not used;
/// * `rng` — the perturbation's randomness (a CSPRNG; seeded for experiments).
///
/// # Errors
/// [`crate::HomdpError::InvalidParam`] for targets or node labels that do not fit the graphs,
/// an empty part of the split, an index out of range, or regression targets that cannot be
/// standardised ([`GinBaselineConfig::standardize_targets`]: a non-finite or constant training
/// target); [`crate::HomdpError::Dp`] for a bad ε; [`crate::HomdpError::Gnn`] when training
/// fails.
///
/// # Privacy
/// Only the training and validation graphs are perturbed and their release is
/// [`EdgePerturbation::edge_dp_eps`]-edge DP per graph; the model never sees a clean training
/// graph. Targets and node labels are not protected (as in the paper).
///
/// # Complexity
/// O(Σ n²) for the perturbation plus the GIN's training (O(epochs·Σ(n + m)·300²)).
pub fn gin_baseline<R: CryptoRng + ?Sized>(
    graphs: &[Graph],
    node_labels: Option<&[Vec<i64>]>,
    labels: &Labels,
    split: &GraphSplit,
    perturbation: &EdgePerturbation,
    cfg: &GinBaselineConfig,
    rng: &mut R,
) -> Result<BaselineOutcome> {
    if labels.len() != graphs.len() {
        return invalid("labels", labels.len() as f64, "need one target per graph");
    }
    if split.train.is_empty() || split.val.is_empty() || split.test.is_empty() {
        return invalid("split", 0.0, "train, validation and test must be non-empty");
    }
    let used: Vec<usize> = split
        .train
        .iter()
        .chain(&split.val)
        .chain(&split.test)
        .copied()
        .collect();
    if let Some(&i) = used.iter().find(|&&i| i >= graphs.len()) {
        return invalid("split", i as f64, "index out of range");
    }
    let feats = node_features(graphs, node_labels, cfg.features, &used)?;
    let n_private = split.train.len() + split.val.len();
    let (mut clean_edges, mut noisy_edges) = (0usize, 0usize);
    let mut edge_lists = Vec::with_capacity(used.len());
    for (k, &i) in used.iter().enumerate() {
        let g = if k < n_private {
            let h = perturbation.apply(&graphs[i], rng)?;
            if k < split.train.len() {
                clean_edges += graphs[i].num_edges();
                noisy_edges += h.num_edges();
            }
            h
        } else {
            graphs[i].clone()
        };
        edge_lists.push(EdgeList::from_graph(&g));
    }
    let mut target_standardization = None;
    let targets = match labels {
        Labels::Class(y) => {
            let y: Vec<u32> = used.iter().map(|&i| y[i] as u32).collect();
            let num_classes = y.iter().max().map_or(2, |&m| m as usize + 1).max(2);
            GraphTargets::Class {
                labels: y,
                num_classes,
            }
        }
        Labels::Real(y) => {
            let (mean, std) = if cfg.standardize_targets {
                let [mean, std] = standardization(split.train.iter().map(|&i| y[i]))?;
                target_standardization = Some([mean, std]);
                (mean, std)
            } else {
                (0.0, 1.0)
            };
            GraphTargets::Real(used.iter().map(|&i| ((y[i] - mean) / std) as f32).collect())
        }
    };
    let task = GraphTask::new(edge_lists, feats, targets)?;
    let (a, b) = (split.train.len(), n_private);
    let local = GraphSplit {
        train: (0..a).collect(),
        val: (a..b).collect(),
        test: (b..used.len()).collect(),
    };
    let model = ModelConfig::by_name("homdp-gin", task.num_features(), task.num_outputs())?;
    let train = TrainConfig::new()
        .with_lr(cfg.lr)
        .with_weight_decay(0.0)
        .with_max_epochs(cfg.max_epochs)
        .with_patience(cfg.patience)
        .with_monitor(Monitor::ValLoss)
        .with_batch_size(cfg.batch_size)
        .with_seed(cfg.seed);
    let res = train_graph_model(&task, &local, &model, &train, &Device::flex())?;
    let finite = |v: f64| v.is_finite().then_some(v);
    let scores = match labels {
        Labels::Class(_) => Scores {
            roc_auc: finite(res.test_auc),
            accuracy: finite(res.test_acc),
            rmse: None,
        },
        // Un-standardising is affine (`mean + std · output`, likewise for the truth), so the
        // RMSE of the un-standardised predictions is `std` times gnn's RMSE on the standardised
        // scale.
        Labels::Real(_) => Scores {
            rmse: finite(res.test_rmse * target_standardization.map_or(1.0, |[_, s]| s)),
            ..Scores::default()
        },
    };
    Ok(BaselineOutcome {
        scores,
        eps: perturbation.edge_dp_eps(),
        best_epoch: res.best_epoch,
        epochs: res.epochs,
        edge_ratio: noisy_edges as f64 / clean_edges.max(1) as f64,
        target_standardization,
    })
}

/// `[mean, std]` (population standard deviation) of regression targets.
///
/// # Errors
/// [`crate::HomdpError::InvalidParam`] for a non-finite target, or a standard deviation that is 0
/// (a constant target cannot be standardised) or not finite.
fn standardization(y: impl Iterator<Item = f64>) -> Result<[f64; 2]> {
    let y: Vec<f64> = y.collect();
    if let Some(&v) = y.iter().find(|v| !v.is_finite()) {
        return invalid("targets", v, "regression targets must be finite");
    }
    let n = y.len().max(1) as f64;
    let mean = y.iter().sum::<f64>() / n;
    let std = (y.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n).sqrt();
    if std <= 0.0 || !std.is_finite() {
        return invalid(
            "targets",
            std,
            "training targets are constant: cannot standardise",
        );
    }
    Ok([mean, std])
}

/// Feature matrices of the graphs at `used`, in that order.
fn node_features(
    graphs: &[Graph],
    node_labels: Option<&[Vec<i64>]>,
    features: BaselineFeatures,
    used: &[usize],
) -> Result<Vec<Array2<f32>>> {
    match features {
        BaselineFeatures::Ones => Ok(used
            .iter()
            .map(|&i| Array2::ones((graphs[i].num_nodes(), 1)))
            .collect()),
        BaselineFeatures::NodeLabels => {
            let Some(nl) = node_labels else {
                return invalid("node_labels", 0.0, "NodeLabels features need node labels");
            };
            if nl.len() != graphs.len()
                || nl.iter().zip(graphs).any(|(l, g)| l.len() != g.num_nodes())
            {
                return invalid("node_labels", nl.len() as f64, "need one label per node");
            }
            let mut values: Vec<i64> = nl.iter().flatten().copied().collect();
            values.sort_unstable();
            values.dedup();
            Ok(used
                .iter()
                .map(|&i| {
                    let mut x = Array2::zeros((nl[i].len(), values.len().max(1)));
                    for (u, v) in nl[i].iter().enumerate() {
                        let c = values.binary_search(v).expect("value is in its own set");
                        x[[u, c]] = 1.0;
                    }
                    x
                })
                .collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dp_core::rng::seeded_rng;
    use rand::SeedableRng;

    fn er(n: usize, p: f64, seed: u64) -> Graph {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        graph_core::generate::erdos_renyi(n, p, &mut rng).expect("valid parameters")
    }

    #[test]
    fn rr_flips_pairs_at_the_rate_of_eps() -> Result<()> {
        // 40 nodes, 780 pairs per graph, 20 graphs: 15,600 pairs.
        let eps = 1.0;
        let flip = 1.0 / (1.0f64.exp() + 1.0); // 0.2689
        let rr = EdgePerturbation::RandomizedResponse { eps };
        let mut rng = seeded_rng(5);
        let (mut flips, mut pairs) = (0usize, 0usize);
        for s in 0..20 {
            let g = er(40, 0.1, s);
            let h = rr.apply(&g, &mut rng)?;
            assert_eq!(h.num_nodes(), 40);
            for u in 0..40u32 {
                for v in u + 1..40 {
                    pairs += 1;
                    flips += usize::from(g.has_edge(u, v) != h.has_edge(u, v));
                }
            }
        }
        let rate = flips as f64 / pairs as f64;
        // Binomial std: sqrt(0.27·0.73/15600) = 0.0036; band of 5 std.
        assert!((rate - flip).abs() < 0.018, "{rate}");
        let bound = rr.edge_dp_eps().expect("private");
        assert!((1.0..1.0 + 1e-9).contains(&bound), "{bound}");
        Ok(())
    }

    #[test]
    fn dprr_roughly_preserves_the_number_of_edges() -> Result<()> {
        // RR alone at ε2 ≈ 0.8 on a sparse graph multiplies its edges; DPRR keeps the count
        // near the original (each list keeps about d_i reported ones; OR-ing two lists at most
        // doubles it).
        let g = er(120, 0.05, 3);
        let m = g.num_edges() as f64;
        let dprr = EdgePerturbation::dprr_paper(1.0, 120)?;
        let rr = EdgePerturbation::RandomizedResponse { eps: 1.0 };
        let (mut m_dprr, mut m_rr) = (0.0, 0.0);
        let mut rng = seeded_rng(9);
        for _ in 0..5 {
            m_dprr += dprr.apply(&g, &mut rng)?.num_edges() as f64 / 5.0;
            m_rr += rr.apply(&g, &mut rng)?.num_edges() as f64 / 5.0;
        }
        assert!(m_dprr > 0.8 * m && m_dprr < 2.2 * m, "{m_dprr} vs {m}");
        assert!(m_rr > 5.0 * m, "{m_rr} vs {m}");
        let eps = dprr.edge_dp_eps().expect("private");
        assert!((2.0..2.0 + 1e-9).contains(&eps), "{eps}");
        Ok(())
    }

    #[test]
    fn bad_parameters_are_errors() {
        assert!(matches!(
            EdgePerturbation::dprr_paper(0.1, 222),
            Err(HomdpError::InvalidParam { name: "eps", .. })
        ));
        assert!(EdgePerturbation::dprr_paper(1.0, 1).is_err());
        assert!(EdgePerturbation::dprr_paper(f64::NAN, 50).is_err());
        let g = er(5, 0.5, 1);
        let bad = EdgePerturbation::RandomizedResponse { eps: -1.0 };
        assert!(matches!(
            bad.apply(&g, &mut seeded_rng(1)),
            Err(HomdpError::Dp(_))
        ));
    }

    /// Two classes a GIN tells apart from structure alone: sparse vs dense G(n, p).
    fn two_classes(count: usize) -> (Vec<Graph>, Labels) {
        let graphs = (0..count)
            .map(|i| er(16, if i % 2 == 0 { 0.1 } else { 0.5 }, i as u64))
            .collect();
        let y = (0..count).map(|i| i % 2).collect();
        (graphs, Labels::Class(y))
    }

    #[test]
    fn gin_separates_clean_classes_and_reports_the_guarantee() -> Result<()> {
        let (graphs, labels) = two_classes(80);
        let split = GraphSplit {
            train: (0..48).collect(),
            val: (48..60).collect(),
            test: (60..80).collect(),
        };
        let cfg = GinBaselineConfig {
            max_epochs: 15,
            patience: Some(8),
            batch_size: 16,
            ..GinBaselineConfig::paper()
        };
        let out = gin_baseline(
            &graphs,
            None,
            &labels,
            &split,
            &EdgePerturbation::None,
            &cfg,
            &mut seeded_rng(2),
        )?;
        assert!(out.scores.roc_auc.expect("binary") > 0.9, "{out:?}");
        assert_eq!(out.eps, None);
        assert_eq!(out.edge_ratio, 1.0);
        // RR at ε = 1 turns sparse and dense graphs alike into G(16, ≈ 0.3–0.5): the edge
        // count of the training graphs grows, the guarantee is reported.
        let rr = gin_baseline(
            &graphs,
            None,
            &labels,
            &split,
            &EdgePerturbation::RandomizedResponse { eps: 1.0 },
            &cfg,
            &mut seeded_rng(2),
        )?;
        assert!(
            rr.eps.is_some_and(|e| (1.0..1.0 + 1e-9).contains(&e)),
            "{rr:?}"
        );
        assert!(rr.edge_ratio > 1.2, "{rr:?}");
        Ok(())
    }

    /// Regression: the target is an affine function of the edge density of G(16, p), shifted
    /// far from 0 (as Lipophilicity's unnormalised targets are, on a smaller scale).
    fn regression(count: usize, scale: f64, offset: f64) -> (Vec<Graph>, Labels) {
        let ps: Vec<f64> = (0..count)
            .map(|i| 0.05 + 0.25 * (i % 9) as f64 / 8.0)
            .collect();
        let graphs: Vec<Graph> = ps
            .iter()
            .enumerate()
            .map(|(i, &p)| er(16, p, 100 + i as u64))
            .collect();
        let y = graphs
            .iter()
            .map(|g| offset + scale * g.num_edges() as f64 / 120.0)
            .collect();
        (graphs, Labels::Real(y))
    }

    #[test]
    fn standardised_regression_targets_train_and_rmse_is_in_target_units() -> Result<()> {
        let split = GraphSplit {
            train: (0..54).collect(),
            val: (54..63).collect(),
            test: (63..90).collect(),
        };
        let cfg = GinBaselineConfig {
            max_epochs: 30,
            patience: Some(10),
            batch_size: 16,
            standardize_targets: true,
            ..GinBaselineConfig::paper()
        };
        let none = EdgePerturbation::None;
        let (graphs, labels) = regression(90, 10.0, 500.0);
        let Labels::Real(y) = &labels else {
            unreachable!("regression targets")
        };
        let test: Vec<f64> = split.test.iter().map(|&i| y[i]).collect();
        let mean = test.iter().sum::<f64>() / test.len() as f64;
        let sd = (test.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / test.len() as f64).sqrt();
        let z = gin_baseline(
            &graphs,
            None,
            &labels,
            &split,
            &none,
            &cfg,
            &mut seeded_rng(3),
        )?;
        let rmse = z.scores.rmse.expect("regression");
        // Predicting the test mean would give `sd`; the GIN reads the density off the degrees.
        assert!(rmse < 0.5 * sd, "rmse {rmse} vs sd {sd}");
        let [m, s] = z.target_standardization.expect("standardised");
        assert!((m - 500.0).abs() < 10.0 && s > 0.5, "{m} {s}");
        // Affine targets give the same standardised problem: the RMSE scales with them.
        let (_, scaled) = regression(90, 30.0, -40.0);
        let z3 = gin_baseline(
            &graphs,
            None,
            &scaled,
            &split,
            &none,
            &cfg,
            &mut seeded_rng(3),
        )?;
        let r3 = z3.scores.rmse.expect("regression");
        assert!((r3 / rmse - 3.0).abs() < 3e-3, "{r3} vs 3 x {rmse}");
        // The raw targets (mean 500) are far out of reach of 30 epochs at lr 1e-3.
        let raw = GinBaselineConfig {
            standardize_targets: false,
            ..cfg
        };
        let r = gin_baseline(
            &graphs,
            None,
            &labels,
            &split,
            &none,
            &raw,
            &mut seeded_rng(3),
        )?;
        assert_eq!(r.target_standardization, None);
        assert!(r.scores.rmse.expect("regression") > 10.0 * rmse, "{r:?}");
        // Constant training targets cannot be standardised.
        let flat = Labels::Real(vec![1.5; 90]);
        assert!(matches!(
            gin_baseline(
                &graphs,
                None,
                &flat,
                &split,
                &none,
                &cfg,
                &mut seeded_rng(3)
            ),
            Err(HomdpError::InvalidParam {
                name: "targets",
                ..
            })
        ));
        Ok(())
    }

    #[test]
    fn gin_input_checks() {
        let (graphs, labels) = two_classes(10);
        let split = GraphSplit {
            train: vec![0, 1, 2],
            val: vec![3],
            test: vec![],
        };
        let cfg = GinBaselineConfig::paper();
        let none = EdgePerturbation::None;
        let run = |split: &GraphSplit| {
            gin_baseline(
                &graphs,
                None,
                &labels,
                split,
                &none,
                &cfg,
                &mut seeded_rng(1),
            )
        };
        assert!(run(&split).is_err());
        let split = GraphSplit {
            train: vec![0, 1, 2],
            val: vec![3],
            test: vec![99],
        };
        assert!(run(&split).is_err());
        let split = GraphSplit {
            train: vec![0, 1, 2],
            val: vec![3],
            test: vec![4],
        };
        let labelled = GinBaselineConfig {
            features: BaselineFeatures::NodeLabels,
            ..cfg
        };
        assert!(matches!(
            gin_baseline(
                &graphs,
                None,
                &labels,
                &split,
                &none,
                &labelled,
                &mut seeded_rng(1)
            ),
            Err(HomdpError::InvalidParam {
                name: "node_labels",
                ..
            })
        ));
    }
}
