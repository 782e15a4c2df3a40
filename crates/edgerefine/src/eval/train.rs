//! Training GNNs on releases (feature `train`): EdgeRefine's models ([`NodeModel`],
//! [`GraphModel`]) and protocols ([`TrainPlan::edgerefine`], [`train_graph_release`]).

use std::time::Instant;

use burn::tensor::Device;
use gnn::{
    EdgeList, GraphSplit, GraphTask, ModelConfig, Monitor, NodeFeatures, NodeTask, Pooling,
    TrainConfig, train_graph_model, train_node_classifier,
};
use graph_core::{Graph, GraphDataset, NodeDataset, NodeSplit};
use rand::SeedableRng;
use serde::{Deserialize, Serialize};

use crate::error::{EdgeRefineError, Result};

/// EdgeRefine's node-classification models (the authors' PyG models on Cora-like data).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeModel {
    /// GCN: 2 layers, hidden 16, dropout 0.6.
    Gcn,
    /// GAT: 8 heads × 16, then 1 head; dropout 0.6, attention dropout 0.6, ELU.
    Gat,
    /// GIN: MLP(in→32→32) → MLP(32→32→C), learnable ε, dropout 0.5.
    Gin,
    /// MLP (ignores the graph): 2 layers, hidden 64, dropout 0.5.
    Mlp,
}

impl NodeModel {
    /// Every model, in the order of the paper's tables.
    pub const ALL: [Self; 4] = [Self::Gcn, Self::Gat, Self::Gin, Self::Mlp];

    /// The gnn configuration for `d_input` features and `d_output` classes.
    ///
    /// # Example
    /// ```
    /// use edgerefine::eval::NodeModel;
    /// let cfg = NodeModel::Gat.config(1433, 7);
    /// assert_eq!((cfg.d_hidden, cfg.dropout), (16, 0.6));
    /// ```
    pub fn config(self, d_input: usize, d_output: usize) -> ModelConfig {
        let (i, o) = (d_input, d_output);
        match self {
            Self::Gcn => ModelConfig::gcn(i, 16, o).with_dropout(0.6),
            Self::Gat => ModelConfig::gat(i, 16, o),
            Self::Gin => ModelConfig::gin(i, 32, o).with_dropout(0.5),
            Self::Mlp => ModelConfig::mlp(i, 64, o).with_dropout(0.5),
        }
    }

    /// The name in tables and on command lines (`gcn`, `gat`, `gin`, `mlp`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Gcn => "gcn",
            Self::Gat => "gat",
            Self::Gin => "gin",
            Self::Mlp => "mlp",
        }
    }
}

impl std::str::FromStr for NodeModel {
    type Err = EdgeRefineError;

    /// Parses [`NodeModel::name`] (case-insensitive).
    fn from_str(s: &str) -> Result<Self> {
        Self::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| EdgeRefineError::UnknownName {
                what: "model",
                name: s.to_string(),
                known: "gcn, gat, gin, mlp",
            })
    }
}

/// EdgeRefine's graph-classification models (MUTAG): 3 layers, mean pooling, a linear head,
/// no dropout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GraphModel {
    /// GCN, hidden 64.
    Gcn,
    /// GAT, 4 heads × 32.
    Gat,
    /// GIN, hidden 64, learnable ε.
    Gin,
}

impl GraphModel {
    /// The gnn configuration for `d_input` features and `d_output` classes.
    ///
    /// # Example
    /// ```
    /// use edgerefine::eval::GraphModel;
    /// let cfg = GraphModel::Gin.config(7, 2);
    /// assert!(cfg.is_graph_level() && cfg.num_layers == 3);
    /// ```
    pub fn config(self, d_input: usize, d_output: usize) -> ModelConfig {
        let (i, o) = (d_input, d_output);
        let base = match self {
            Self::Gcn => ModelConfig::gcn(i, 64, o),
            Self::Gat => ModelConfig::gat_with(
                i,
                32,
                o,
                gnn::GatHeads::new().with_heads(4).with_attn_dropout(0.0),
            ),
            Self::Gin => ModelConfig::gin(i, 64, o),
        };
        base.with_num_layers(3)
            .with_dropout(0.0)
            .with_pooling(Some(Pooling::Mean))
    }

    /// The name in tables (`graph-gcn`, `graph-gat`, `graph-gin`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Gcn => "graph-gcn",
            Self::Gat => "graph-gat",
            Self::Gin => "graph-gin",
        }
    }
}

/// How to train on a release.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrainPlan {
    /// The model (EdgeRefine's preset of its architecture).
    pub model: NodeModel,
    /// Train and validation fractions (the rest is test), drawn per seed.
    pub split: (f64, f64),
    /// Epoch cap.
    pub max_epochs: usize,
    /// Early-stopping patience (None: run all epochs, keep the best-validation weights).
    pub patience: Option<usize>,
    /// Seed of the split, the initialisation and dropout.
    pub seed: u64,
    /// Adam learning rate.
    pub lr: f64,
    /// Weight decay.
    pub weight_decay: f64,
    /// Which validation score selects the weights and stops early.
    pub monitor: Monitor,
    /// Overrides the preset's dropout between layers and sets input dropout to 0 (the PyG
    /// models of Blink); None keeps the preset.
    pub dropout: Option<f64>,
}

impl TrainPlan {
    /// The EdgeRefine protocol for `model`: 60/20/20 split, Adam lr 0.005, weight decay 1e-5,
    /// ≤ 700 epochs, patience 100 on validation accuracy, the preset's dropout.
    pub fn edgerefine(model: NodeModel, seed: u64) -> Self {
        Self {
            model,
            split: (0.6, 0.2),
            max_epochs: 700,
            patience: Some(100),
            seed,
            lr: 0.005,
            weight_decay: 1e-5,
            monitor: Monitor::ValAccuracy,
            dropout: None,
        }
    }

    /// The same plan with an epoch cap and patience.
    pub fn with_epochs(self, max_epochs: usize, patience: Option<usize>) -> Self {
        Self {
            max_epochs,
            patience,
            ..self
        }
    }
}

/// One training run's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RunScore {
    /// Test accuracy of the best-validation weights.
    pub test_acc: f64,
    /// Validation accuracy of the same weights.
    pub val_acc: f64,
    /// Validation loss of the same weights (the epoch's logged loss).
    pub val_loss: f64,
    /// Training wall time in seconds.
    pub train_s: f64,
    /// Epochs run.
    pub epochs: usize,
}

/// The control every accuracy is read against: the test accuracy of always predicting the
/// most frequent class of the training nodes, on the split [`train_on_release`] draws for
/// `seed` and `split` (train, validation shares). A model at this score learnt nothing from the
/// graph or the features.
///
/// # Errors
/// An invalid split; a dataset without training or test nodes.
///
/// # Example
/// ```
/// use edgerefine::eval::majority_rate;
/// use graph_core::generate::ContextualSbm;
/// use rand::SeedableRng;
/// let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
/// let ds = ContextualSbm { n: 200, classes: 4, p_in: 0.05, p_out: 0.01, dim: 4, mu: 1.0 }
///     .sample(&mut rng)?;
/// let rate = majority_rate(&ds, (0.6, 0.2), 0)?;
/// assert!((0.1..0.5).contains(&rate), "about one class in four: {rate}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn majority_rate(ds: &NodeDataset, split: (f64, f64), seed: u64) -> Result<f64> {
    let n = ds.graph().num_nodes();
    let split = NodeSplit::random(
        n,
        split.0,
        split.1,
        &mut rand_chacha::ChaCha8Rng::seed_from_u64(seed),
    )?;
    let labels = ds.labels();
    let mut count = vec![0usize; ds.num_classes().max(1)];
    for v in (0..n).filter(|&v| split.train[v]) {
        if let Some(c) = count.get_mut(labels[v] as usize) {
            *c += 1;
        }
    }
    let test: Vec<usize> = (0..n).filter(|&v| split.test[v]).collect();
    if count.iter().all(|&c| c == 0) || test.is_empty() {
        return Err(EdgeRefineError::Train(
            "the split has no training or no test nodes".into(),
        ));
    }
    let top = (0..count.len()).max_by_key(|&c| (count[c], std::cmp::Reverse(c)));
    let top = top.unwrap_or(0) as u32;
    let hits = test.iter().filter(|&&v| labels[v] == top).count();
    Ok(hits as f64 / test.len() as f64)
}

/// Trains `plan.model` on `released` (with optional edge weights aligned with
/// `released.edges()`) and the dataset's features and labels, on a seeded split, with the
/// optimiser and early stopping of `plan` ([`TrainPlan::edgerefine`]: the EdgeRefine protocol).
///
/// # Errors
/// Shape mismatches between the release and the dataset; training errors.
///
/// # Complexity
/// O(epochs · (m + n) · width) for the model's width.
pub fn train_on_release(
    ds: &NodeDataset,
    released: &Graph,
    weights: Option<&[f32]>,
    plan: &TrainPlan,
) -> Result<RunScore> {
    let TrainPlan {
        model,
        split,
        max_epochs,
        patience,
        seed,
        lr,
        weight_decay,
        monitor,
        dropout,
    } = *plan;
    if released.num_nodes() != ds.graph().num_nodes() {
        return Err(EdgeRefineError::NodeCountMismatch {
            expected: ds.graph().num_nodes(),
            got: released.num_nodes(),
        });
    }
    let split = NodeSplit::random(
        ds.graph().num_nodes(),
        split.0,
        split.1,
        &mut rand_chacha::ChaCha8Rng::seed_from_u64(seed),
    )?;
    let task = NodeTask::from_dataset(ds)
        .and_then(|t| t.with_split(split))
        .and_then(|t| {
            let edges = EdgeList::from_graph(released);
            let edges = match weights {
                Some(w) => edges.with_weights(csr_weights(released, w)?)?,
                None => edges,
            };
            t.with_edges(edges)
        })?;
    let cfg = model.config(task.num_features(), task.num_classes());
    let cfg = match dropout {
        Some(d) => cfg.with_dropout(d).with_input_dropout(Some(0.0)),
        None => cfg,
    };
    let train = TrainConfig::new()
        .with_lr(lr)
        .with_weight_decay(weight_decay)
        .with_max_epochs(max_epochs)
        .with_patience(patience)
        .with_monitor(monitor)
        .with_seed(seed);
    let start = Instant::now();
    let out = train_node_classifier(&task, &cfg, &train, &Device::flex())?;
    Ok(RunScore {
        test_acc: out.test_acc,
        val_acc: out.val_acc,
        val_loss: best_val_loss(&out.history, out.best_epoch),
        train_s: start.elapsed().as_secs_f64(),
        epochs: out.epochs,
    })
}

/// EdgeRefine's graph-classification training (MUTAG): Adam lr 0.005, weight decay 5e-4,
/// batch 32, ≤ 150 epochs, patience 20 on validation accuracy, seeded by `seed`.
pub fn mutag_protocol(seed: u64) -> TrainConfig {
    TrainConfig::new()
        .with_lr(0.005)
        .with_weight_decay(5e-4)
        .with_batch_size(32)
        .with_max_epochs(150)
        .with_patience(Some(20))
        .with_seed(seed)
}

/// Trains the graph-level `model` on the graphs of `ds` with
/// one-hot node labels as features, EdgeRefine's MUTAG protocol: 80/10/10 split drawn from
/// `seed`, Adam lr 0.005, weight decay 5e-4, batch 32, ≤ 150 epochs, patience 20 on
/// validation accuracy.
///
/// # Errors
/// A dataset without node labels or class targets; training errors.
///
/// # Complexity
/// O(epochs · Σ (n_g + m_g) · width).
pub fn train_graph_release(ds: &GraphDataset, model: GraphModel, seed: u64) -> Result<RunScore> {
    let task = GraphTask::from_dataset(ds, NodeFeatures::OneHotLabels)?;
    let cfg = model.config(task.num_features(), task.num_outputs());
    let split = GraphSplit::random(
        task.len(),
        0.8,
        0.1,
        &mut rand_chacha::ChaCha8Rng::seed_from_u64(seed),
    )?;
    let train = mutag_protocol(seed);
    let start = Instant::now();
    let out = train_graph_model(&task, &split, &cfg, &train, &Device::flex())?;
    Ok(RunScore {
        test_acc: out.test_acc,
        val_acc: out.val_acc,
        val_loss: best_val_loss(&out.history, out.best_epoch),
        train_s: start.elapsed().as_secs_f64(),
        epochs: out.epochs,
    })
}

/// The logged validation loss of the selected epoch (NaN when it was not logged).
fn best_val_loss(history: &[gnn::train::EpochLog], best_epoch: usize) -> f64 {
    history.get(best_epoch).map_or(f64::NAN, |e| e.val_loss)
}

/// Weights aligned with `graph.edges()` (u < v) spread to both directions in CSR order.
fn csr_weights(graph: &Graph, w: &[f32]) -> gnn::Result<Vec<f32>> {
    if w.len() != graph.num_edges() {
        return Err(gnn::Error::Shape {
            what: "release edge weights",
            expected: graph.num_edges(),
            got: w.len(),
        });
    }
    let n = graph.num_nodes();
    // Index of the first edge (u, ·) with u < · in `edges()` order.
    let mut start = vec![0usize; n + 1];
    for u in 0..n {
        let row = graph.neighbors(u as u32);
        let above = row.len() - row.partition_point(|&v| v <= u as u32);
        start[u + 1] = start[u] + above;
    }
    let idx = |a: u32, b: u32| {
        let row = graph.neighbors(a);
        let first_above = row.partition_point(|&v| v <= a);
        start[a as usize] + row.partition_point(|&v| v < b) - first_above
    };
    let mut out = Vec::with_capacity(2 * w.len());
    for u in 0..n as u32 {
        for &v in graph.neighbors(u) {
            out.push(w[if u < v { idx(u, v) } else { idx(v, u) }]);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use graph_core::generate::ContextualSbm;

    #[test]
    fn blink_protocol_plan_selects_by_validation_loss() {
        let ds = ContextualSbm {
            n: 200,
            classes: 2,
            p_in: 0.06,
            p_out: 0.005,
            dim: 8,
            mu: 0.8,
        }
        .sample(&mut dp_core::rng::seeded_rng(6))
        .unwrap();
        let p = TrainPlan {
            split: (0.5, 0.25),
            lr: 0.01,
            weight_decay: 0.0,
            monitor: Monitor::ValLoss,
            dropout: Some(0.0),
            ..TrainPlan::edgerefine(NodeModel::Gcn, 2).with_epochs(40, None)
        };
        let s = train_on_release(&ds, ds.graph(), None, &p).unwrap();
        assert_eq!(s.epochs, 40, "no early stopping without patience");
        assert!(s.val_loss.is_finite() && s.val_loss > 0.0);
        assert!(s.test_acc > 0.7, "{}", s.test_acc);
    }

    #[test]
    fn weights_follow_their_edges_in_csr_order() {
        let g = Graph::from_edges(4, &[(0, 1), (0, 3), (1, 2), (2, 3)]).unwrap();
        // edges() order: (0,1) (0,3) (1,2) (2,3)
        let w = csr_weights(&g, &[1.0, 2.0, 3.0, 4.0]).unwrap();
        // CSR: 0:[1,3] 1:[0,2] 2:[1,3] 3:[0,2]
        assert_eq!(w, vec![1.0, 2.0, 1.0, 3.0, 3.0, 4.0, 2.0, 4.0]);
        assert!(csr_weights(&g, &[1.0]).is_err());
    }

    #[test]
    fn model_names_parse_and_unknown_names_are_errors() {
        for m in NodeModel::ALL {
            assert_eq!(m.name().parse::<NodeModel>().unwrap(), m);
        }
        assert_eq!("GAT".parse::<NodeModel>().unwrap(), NodeModel::Gat);
        let e = "transformer".parse::<NodeModel>().unwrap_err();
        assert!(e.to_string().contains("transformer"), "{e}");
    }
}
