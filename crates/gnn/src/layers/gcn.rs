//! GCN (Kipf & Welling 2017): `H' = D̂^{-1/2} (A + I) D̂^{-1/2} H W + b`, with optional edge
//! weights in `A` and degrees `D̂` of `A + I`.

use burn::module::{Module, Param};
use burn::tensor::{Device, Tensor};
use rand::Rng;

use super::Init;
use crate::kernels;
use crate::tensors::{GraphTensors, Input, scatter_add};

/// One GCN layer (PyG `GCNConv` with `add_self_loops`, `normalize`; Glorot weights, zero bias).
#[derive(Module, Debug)]
pub struct GcnConv {
    /// `[d_in, d_out]`.
    pub weight: Param<Tensor<2>>,
    /// `[d_out]`.
    pub bias: Param<Tensor<1>>,
}

impl GcnConv {
    /// A seeded layer.
    pub fn new<R: Rng + ?Sized>(d_in: usize, d_out: usize, device: &Device, rng: &mut R) -> Self {
        Self {
            weight: Init::Glorot.matrix([d_in, d_out], None, device, rng),
            bias: Init::Zeros.vector(d_out, d_in, device, rng),
        }
    }

    /// Forward pass over `[n, d_in]` features.
    ///
    /// # Complexity
    /// O(nnz(X)·d_out + (E + n)·d_out); O(nnz(X)·d_out + n²·d_out) with the dense product
    /// ([`crate::tensors::Aggregation`]).
    pub fn forward(&self, x: &Input, g: &GraphTensors) -> Tensor<2> {
        let h = x.project_with(self.weight.val(), g.fused);
        if let Some(dense) = &g.dense {
            return dense.gcn.clone().matmul(h) + self.bias.val().unsqueeze_dim(0);
        }
        if g.fused
            && let Some(csr) = &g.csr_loop
            && let Some(out) = if g.gcn_symmetric {
                kernels::spmm_symmetric(csr, &g.gcn_norm, &h)
            } else {
                kernels::spmm(csr, &g.gcn_norm, &h)
            }
        {
            return out + self.bias.val().unsqueeze_dim(0);
        }
        let msgs = h.select(0, g.src_loop.clone()) * g.gcn_norm.clone();
        scatter_add(msgs, &g.dst_loop, g.num_nodes) + self.bias.val().unsqueeze_dim(0)
    }
}
