//! GraphSAGE with mean aggregation (Hamilton et al. 2017):
//! `h'_v = W_1 h_v + W_2 mean_{u → v} h_u + b` (PyG `SAGEConv`, `root_weight=True`).

use burn::module::Module;
use burn::tensor::{Device, Tensor};
use rand::Rng;

use super::Linear;
use crate::tensors::{GraphTensors, Input, scatter_add};

/// One GraphSAGE-mean layer. Nodes without incoming edges aggregate to zero.
#[derive(Module, Debug)]
pub struct SageConv {
    /// Root transform `W_1` (with the bias).
    pub root: Linear,
    /// Neighbour transform `W_2`.
    pub neigh: Linear,
}

impl SageConv {
    /// A seeded layer.
    pub fn new<R: Rng + ?Sized>(d_in: usize, d_out: usize, device: &Device, rng: &mut R) -> Self {
        Self {
            neigh: Linear::new(d_in, d_out, false, device, rng),
            root: Linear::new(d_in, d_out, true, device, rng),
        }
    }

    /// Forward pass over `[n, d_in]` features.
    ///
    /// # Complexity
    /// O(nnz(X)·d_out + E·d_out).
    pub fn forward(&self, x: &Input, g: &GraphTensors) -> Tensor<2> {
        let hn = self.neigh.project(x);
        let msgs = hn.select(0, g.src.clone()) * g.mean_norm.clone();
        self.root.forward(x) + scatter_add(msgs, &g.dst, g.num_nodes)
    }
}
