//! Graph neural networks for dpgraph, on Burn (flex CPU backend + autodiff).
//!
//! - [`layers`]: GCN, GraphSAGE-mean, GAT (multi-head, attention dropout, edge weights), GIN
//!   (learnable ε), GINE (GIN with edge features) and dense layers on index-based message passing (`select` gathers source
//!   rows, `select_assign(.., IndexingUpdateOp::Add)` scatter-adds into destinations), plus mean
//!   and sum pooling over block-diagonally packed batches. On the flex backend, GCN and GAT
//!   aggregation, GAT's edge softmax, sparse-feature projections, ELU and dropout run as fused
//!   CSR/elementwise kernels with hand-written backward passes (same results up to f32
//!   rounding; [`GraphTensors::with_fused_kernels`] switches them off).
//! - [`model`]: the [`Gnn`] module and burn-style configs ([`GcnConfig`], [`GatConfig`], …);
//!   [`ModelConfig::by_name`] gives the papers' models (EdgeRefine, HOMDP).
//! - [`data`]: validated host-side inputs ([`NodeTask`], [`GraphBatch`], [`GraphTask`]) from
//!   graph-core types or raw edge lists; [`tensors`]: their device form ([`GraphInput`]).
//! - [`train`]: full-batch node classification, mini-batch graph classification/regression,
//!   Adam with weight decay, early stopping with best-weight restoration.
//! - [`metrics`]: accuracy, macro-F1, binary F1, ROC-AUC, RMSE.
//! - [`repro`]: the accuracy tables of the acceptance protocol (Cora, MUTAG).
//!
//! # Architecture invariants
//! - `gnn` depends on `graph-core` only; it knows nothing about privacy.
//! - Message passing never builds a dense `n × n` adjacency.
//! - All randomness (initialisation, dropout, batch order) comes from an RNG seeded by the
//!   caller, never from burn's global generator: same seed → same numbers, whatever else runs
//!   in the process.
//! - Bad input is rejected with a typed [`Error`] before training starts.
//!
//! # Example
//! ```
//! use gnn::{GcnConfig, GraphInput, ModelConfig, NodeTask, TrainConfig, train_node_classifier};
//! use graph_core::{NodeSplit, generate::ContextualSbm};
//! use rand::SeedableRng;
//! let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
//! let ds = ContextualSbm { n: 300, classes: 3, p_in: 0.08, p_out: 0.005, dim: 16, mu: 1.5 }
//!     .sample(&mut rng)?;
//! let task = NodeTask::from_dataset(&ds)?.with_split(NodeSplit::random(300, 0.6, 0.2, &mut rng)?)?;
//! let device = burn::tensor::Device::flex();
//! let cfg = ModelConfig::Gcn(GcnConfig::new(16, 16, 3).with_dropout(0.5));
//! let out = train_node_classifier(&task, &cfg, &TrainConfig::new().with_max_epochs(40), &device)?;
//! assert!(out.test_acc > 0.85, "{}", out.test_acc);
//! // Node embeddings of every layer, e.g. to exchange them between clients.
//! let emb = out.model.embeddings(&GraphInput::from_node_task(&task, &device))?;
//! assert_eq!(emb[0].dims(), [300, 16]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod data;
mod error;
mod kernels;
pub mod layers;
pub mod metrics;
pub mod model;
pub mod repro;
pub mod tensors;
pub mod train;

pub use data::{EdgeList, GraphBatch, GraphTargets, GraphTask, NodeFeatures, NodeTask};
pub use error::{Error, Result};
pub use layers::Pooling;
pub use model::{
    Activation, GatConfig, GcnConfig, GinConfig, GineConfig, Gnn, MlpConfig, ModelConfig,
    SageConfig,
};
pub use tensors::{GraphInput, GraphTensors, Input};
pub use train::{
    GraphResult, GraphSplit, Monitor, NodeResult, TrainConfig, predict_nodes, train_graph_model,
    train_node_classifier,
};
