//! GINE (Hu et al. 2020, "Strategies for Pre-training GNNs"; PyG `GINEConv`): GIN with edge
//! features, `h'_v = MLP((1 + ε) h_v + Σ_{u → v} w_uv ReLU(h_u + W_e e_uv + b_e))`, with a
//! two-layer MLP `Linear → ReLU → Linear` and a learnable (or fixed) `ε`.

use burn::module::{Module, Param};
use burn::tensor::activation::relu;
use burn::tensor::{Device, Tensor, TensorData};
use rand::Rng;

use super::Linear;
use crate::tensors::{GraphTensors, Input, scatter_add};

/// One GINE layer: edge features `e_uv` (width `d_edge`) are projected to the input width and
/// added to the source row before the ReLU of every message.
#[derive(Module, Debug)]
pub struct GineConv {
    /// Edge projection `d_edge → d_in`.
    pub edge: Linear,
    /// First MLP layer `d_in → d_hidden`.
    pub lin1: Linear,
    /// Second MLP layer `d_hidden → d_out`.
    pub lin2: Linear,
    /// `ε`, shape `[1]`.
    pub eps: Param<Tensor<1>>,
    /// Width of the edge features.
    pub d_edge: usize,
}

impl GineConv {
    /// A seeded layer; `ε` starts at 0 and is trained (see [`GineConv::with_train_eps`]).
    pub fn new<R: Rng + ?Sized>(
        d_in: usize,
        d_edge: usize,
        d_hidden: usize,
        d_out: usize,
        device: &Device,
        rng: &mut R,
    ) -> Self {
        Self {
            edge: Linear::new(d_edge, d_in, true, device, rng),
            lin1: Linear::new(d_in, d_hidden, true, device, rng),
            lin2: Linear::new(d_hidden, d_out, true, device, rng),
            eps: Param::from_data(TensorData::new(vec![0.0f32], [1]), device),
            d_edge,
        }
    }

    /// This layer with `ε` trained (`true`, the default) or fixed at its value.
    pub fn with_train_eps(mut self, train: bool) -> Self {
        self.eps = self.eps.set_require_grad(train);
        self
    }

    /// Forward pass over `[n, d_in]` features and the graph's `[E, d_edge]` edge features.
    /// A graph without edge features contributes messages `ReLU(h_u + b_e)` (all-zero edge
    /// features); [`crate::Gnn::layer_forward`] rejects that case before calling this.
    ///
    /// # Complexity
    /// O(nnz(X)·d_in + E·(d_edge + 1)·d_in + n·d_in·d_hidden + n·d_hidden·d_out).
    pub fn forward(&self, x: &Input, g: &GraphTensors) -> Tensor<2> {
        let h = x.to_dense();
        let src = h.clone().select(0, g.src.clone());
        let e = match &g.edge_attr {
            Some(attr) => self.edge.forward(&Input::Dense(attr.clone())),
            None => match &self.edge.bias {
                Some(b) => b.val().unsqueeze_dim::<2>(0).repeat_dim(0, g.num_edges),
                None => src.zeros_like(),
            },
        };
        let mut msgs = relu(src + e);
        if let Some(w) = &g.weight {
            msgs = msgs * w.clone();
        }
        let agg =
            h * (self.eps.val() + 1.0).unsqueeze_dim(0) + scatter_add(msgs, &g.dst, g.num_nodes);
        let z = relu(self.lin1.forward(&Input::Dense(agg)));
        self.lin2.forward(&Input::Dense(z))
    }
}
