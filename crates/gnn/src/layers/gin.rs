//! GIN (Xu et al. 2019): `h'_v = MLP((1 + ε) h_v + Σ_{u → v} w_uv h_u)` with a two-layer MLP
//! `Linear → ReLU → Linear` and a learnable (or fixed) `ε`.

use burn::module::{Module, Param};
use burn::tensor::activation::relu;
use burn::tensor::{Device, Tensor, TensorData};
use rand::Rng;

use super::Linear;
use crate::tensors::{GraphTensors, Input, scatter_add};

/// One GIN layer. The MLP's first linear map is applied before the sum (`(ΣX)W = Σ(XW)`), so
/// aggregation runs in the hidden width.
#[derive(Module, Debug)]
pub struct GinConv {
    /// First MLP layer `d_in → d_hidden`.
    pub lin1: Linear,
    /// Second MLP layer `d_hidden → d_out`.
    pub lin2: Linear,
    /// `ε`, shape `[1]`.
    pub eps: Param<Tensor<1>>,
}

impl GinConv {
    /// A seeded layer; `ε` starts at 0 and is trained when `train_eps`.
    pub fn new<R: Rng + ?Sized>(
        d_in: usize,
        d_hidden: usize,
        d_out: usize,
        train_eps: bool,
        device: &Device,
        rng: &mut R,
    ) -> Self {
        let eps = Param::from_data(TensorData::new(vec![0.0f32], [1]), device);
        Self {
            lin1: Linear::new(d_in, d_hidden, true, device, rng),
            lin2: Linear::new(d_hidden, d_out, true, device, rng),
            eps: if train_eps {
                eps
            } else {
                eps.set_require_grad(false)
            },
        }
    }

    /// Forward pass over `[n, d_in]` features.
    ///
    /// # Complexity
    /// O(nnz(X)·d_hidden + E·d_hidden + n·d_hidden·d_out).
    pub fn forward(&self, x: &Input, g: &GraphTensors) -> Tensor<2> {
        let h = self.lin1.project(x);
        if let Some(dense) = &g.dense {
            let agg =
                h.clone() * (self.eps.val() + 1.0).unsqueeze_dim(0) + dense.sum.clone().matmul(h);
            let z = relu(self.lin1.add_bias(agg));
            return self.lin2.forward(&Input::Dense(z));
        }
        let mut msgs = h.clone().select(0, g.src.clone());
        if let Some(w) = &g.weight {
            msgs = msgs * w.clone();
        }
        let agg =
            h * (self.eps.val() + 1.0).unsqueeze_dim(0) + scatter_add(msgs, &g.dst, g.num_nodes);
        let z = relu(self.lin1.add_bias(agg));
        self.lin2.forward(&Input::Dense(z))
    }
}
