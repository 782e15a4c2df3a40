//! The GIN baseline (feature `gin-baselines`): HOMDP's GIN trained on perturbed graphs.

use burn::tensor::Device;
use gnn::{
    EdgeList, GraphSplit, GraphTargets, GraphTask, ModelConfig, Monitor, Pooling, TrainConfig,
    train_graph_model,
};
use graph_core::Graph;
use ndarray::Array2;
use rand::CryptoRng;

use super::EdgePerturbation;
use crate::downstream::{Labels, Scores};
use crate::error::{Result, invalid};

/// The paper's GIN: 5 GIN layers of width 300 with learnable ε, mean pooling, a linear head,
/// no dropout.
///
/// # Example
/// ```
/// let cfg = homdp::gin_model(1, 2);
/// assert_eq!((cfg.num_layers, cfg.d_hidden), (5, 300));
/// assert!(cfg.is_graph_level());
/// ```
pub fn gin_model(d_input: usize, d_output: usize) -> ModelConfig {
    ModelConfig::gin(d_input, 300, d_output)
        .with_num_layers(5)
        .with_dropout(0.0)
        .with_pooling(Some(Pooling::Mean))
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

/// Training settings of the GIN baseline (the reference: [`gin_model`], Adam lr 1e-3, batch 64,
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

/// The graphs a GIN baseline learns from.
#[derive(Clone, Copy, Debug)]
pub struct GinData<'a> {
    /// The graphs.
    pub graphs: &'a [Graph],
    /// One label per node and graph; needed for [`BaselineFeatures::NodeLabels`].
    pub node_labels: Option<&'a [Vec<i64>]>,
    /// One target per graph.
    pub labels: &'a Labels,
}

/// Trains the paper's GIN baseline: the graphs of `split.train` and `split.val` are perturbed
/// by `perturbation` (each once), the GIN is trained on the perturbed training graphs with the
/// best weights chosen on the perturbed validation graphs (validation loss), and scored on the
/// clean graphs of `split.test`.
///
/// # Arguments
/// * `data` — the graphs, their node labels and targets ([`GinData`]);
/// * `split` — indices into `data.graphs`; graphs in none of the parts are not used;
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
    data: GinData<'_>,
    split: &GraphSplit,
    perturbation: &EdgePerturbation,
    cfg: &GinBaselineConfig,
    rng: &mut R,
) -> Result<BaselineOutcome> {
    let GinData {
        graphs,
        node_labels,
        labels,
    } = data;
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
    let model = gin_model(task.num_features(), task.num_outputs());
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
    use crate::error::HomdpError;
    use dp_core::rng::seeded_rng;
    use rand::SeedableRng;

    fn er(n: usize, p: f64, seed: u64) -> Graph {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        graph_core::generate::erdos_renyi(n, p, &mut rng).expect("valid parameters")
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
            GinData {
                graphs: &graphs,
                node_labels: None,
                labels: &labels,
            },
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
            GinData {
                graphs: &graphs,
                node_labels: None,
                labels: &labels,
            },
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
            GinData {
                graphs: &graphs,
                node_labels: None,
                labels: &labels,
            },
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
            GinData {
                graphs: &graphs,
                node_labels: None,
                labels: &scaled,
            },
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
            GinData {
                graphs: &graphs,
                node_labels: None,
                labels: &labels,
            },
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
                GinData {
                    graphs: &graphs,
                    node_labels: None,
                    labels: &flat,
                },
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
                GinData {
                    graphs: &graphs,
                    node_labels: None,
                    labels: &labels,
                },
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
                GinData {
                    graphs: &graphs,
                    node_labels: None,
                    labels: &labels,
                },
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
