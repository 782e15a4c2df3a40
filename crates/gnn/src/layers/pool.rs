//! Graph-level readout over a block-diagonally packed batch: mean or sum of node rows per graph.

use burn::tensor::Tensor;
use serde::{Deserialize, Serialize};

use crate::tensors::{PoolIndex, scatter_add};

/// Readout of node embeddings into one row per graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Pooling {
    /// Mean over the graph's nodes (0 for an empty graph).
    Mean,
    /// Sum over the graph's nodes.
    Sum,
}

/// Pools `[n, d]` node rows into `[G, d]` graph rows.
pub fn pool(h: Tensor<2>, index: &PoolIndex, pooling: Pooling) -> Tensor<2> {
    let s = scatter_add(h, &index.node_graph, index.num_graphs);
    match pooling {
        Pooling::Sum => s,
        Pooling::Mean => s * index.inv_count.clone(),
    }
}
