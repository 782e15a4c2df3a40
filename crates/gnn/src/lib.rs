#![doc = include_str!("../README.md")]

pub mod data;
mod error;
mod kernels;
pub mod layers;
pub mod metrics;
pub mod model;
pub mod tensors;
pub mod train;

pub use data::{EdgeList, GraphBatch, GraphTargets, GraphTask, NodeFeatures, NodeTask};
pub use error::{Error, Result};
pub use layers::{PnaSettings, Pooling};
pub use model::{Activation, Architecture, GatHeads, Gnn, ModelConfig};
pub use tensors::{Aggregation, GraphInput, GraphTensors, Input};
pub use train::{
    GraphResult, GraphSplit, Monitor, NodeResult, TrainConfig, predict_nodes, train_graph_model,
    train_node_classifier,
};
