//! GAT (Veličković et al. 2018), multi-head, with attention dropout and optional edge weights:
//! `α_uv = softmax_{u → v}(LeakyReLU(a_s·Wh_u + a_d·Wh_v) + ln w_uv)`,
//! `h'_v = ‖_k Σ_u α^k_uv W^k h_u` (concatenated heads) or the mean over heads.
//!
//! The softmax runs per destination over incoming edges (self-loops included, as PyG's
//! `GATConv`): a per-node maximum keeps it stable. With the fused kernels (the default, see
//! [`GraphTensors::with_fused_kernels`]) the attention logits with their softmax, and the
//! attention-weighted aggregation of all heads, are one CSR kernel each, with hand-written
//! backward passes; otherwise burn's generic ops do it (detached scatter-max, scatter-add
//! denominators, gathered and scattered `[E, heads·d_out]` messages).

use burn::module::{Module, Param};
use burn::tensor::activation::leaky_relu;
use burn::tensor::{Device, IndexingUpdateOp, Tensor, TensorData};
use rand::Rng;

use super::Init;
use crate::kernels;
use crate::tensors::{DropoutRng, GraphTensors, Input, dropout, dropout_with, scatter_add};

/// One multi-head graph attention layer.
#[derive(Module, Debug)]
pub struct GatConv {
    /// `[d_in, heads · d_out]`.
    pub weight: Param<Tensor<2>>,
    /// Source attention vectors `[heads, d_out]`.
    pub att_src: Param<Tensor<2>>,
    /// Destination attention vectors `[heads, d_out]`.
    pub att_dst: Param<Tensor<2>>,
    /// `[heads · d_out]` when concatenating, else `[d_out]`.
    pub bias: Param<Tensor<1>>,
    /// Number of heads.
    pub heads: usize,
    /// Width per head.
    pub d_out: usize,
    /// Concatenate heads (else average them).
    pub concat: bool,
    /// Dropout rate on attention coefficients.
    pub attn_dropout: f64,
    /// LeakyReLU slope (0.2).
    pub negative_slope: f64,
}

impl GatConv {
    /// A seeded layer (Glorot weights and attention vectors, zero bias, slope 0.2, no attention
    /// dropout: see [`GatConv::with_attn_dropout`]).
    pub fn new<R: Rng + ?Sized>(
        d_in: usize,
        d_out: usize,
        heads: usize,
        concat: bool,
        device: &Device,
        rng: &mut R,
    ) -> Self {
        let heads = heads.max(1);
        let width = if concat { heads * d_out } else { d_out };
        Self {
            weight: Init::Glorot.matrix([d_in, heads * d_out], None, device, rng),
            att_src: Init::Glorot.matrix([heads, d_out], Some((heads, d_out)), device, rng),
            att_dst: Init::Glorot.matrix([heads, d_out], Some((heads, d_out)), device, rng),
            bias: Init::Zeros.vector(width, d_in, device, rng),
            heads,
            d_out,
            concat,
            attn_dropout: 0.0,
            negative_slope: 0.2,
        }
    }

    /// This layer with dropout rate `p` on the attention coefficients (training only).
    pub fn with_attn_dropout(mut self, p: f64) -> Self {
        self.attn_dropout = p;
        self
    }

    /// Output width (`heads · d_out` when concatenating).
    pub fn width(&self) -> usize {
        if self.concat {
            self.heads * self.d_out
        } else {
            self.d_out
        }
    }

    /// Forward pass; attention dropout is applied when `rng` is given (training).
    ///
    /// # Complexity
    /// O(nnz(X)·heads·d_out + (E + n)·heads·d_out).
    pub fn forward(&self, x: &Input, g: &GraphTensors, rng: Option<&mut DropoutRng>) -> Tensor<2> {
        let (n, hd, c) = (g.num_nodes, self.heads, self.d_out);
        let h = x.project_with(self.weight.val(), g.fused);
        let device = h.device();
        // Constant head maps, so that everything stays 2-D (no strided 3-D broadcasts):
        // `expand[j, k] = 1` when column k belongs to head j.
        let expand_data: Vec<f32> = (0..hd * hd * c)
            .map(|i| f32::from(u8::from((i % (hd * c)) / c == i / (hd * c))))
            .collect();
        let expand = Tensor::<2>::from_data(TensorData::new(expand_data, [hd, hd * c]), &device);
        let score = |att: &Param<Tensor<2>>| {
            // Block-diagonal [heads·c, heads] matrix holding each head's attention vector.
            let block = att.val().reshape([hd * c, 1]) * expand.clone().transpose();
            h.clone().matmul(block)
        };
        let (a_s, a_d) = (score(&self.att_src), score(&self.att_dst));
        if g.fused
            && let Some(csr) = &g.csr_loop
            && let Some(alpha) = kernels::gat_attention(
                csr,
                &a_s,
                &a_d,
                g.log_weight_loop.as_ref(),
                self.negative_slope as f32,
            )
        {
            let alpha = dropout(alpha, self.attn_dropout, rng);
            if let Some(out) = kernels::spmm(csr, &alpha, &h) {
                return self.finish(out);
            }
            // Not reached: both kernels accept the same tensors.
            let msgs = h.select(0, g.src_loop.clone()) * alpha.matmul(expand);
            return self.finish(scatter_add(msgs, &g.dst_loop, n));
        }
        let mut logits = leaky_relu(
            a_s.select(0, g.src_loop.clone()) + a_d.select(0, g.dst_loop.clone()),
            self.negative_slope,
        );
        if let Some(lw) = &g.log_weight_loop {
            logits = logits + lw.clone();
        }
        let max = Tensor::<2>::full([n, hd], f32::NEG_INFINITY, (&device, logits.dtype()))
            .select_assign(
                0,
                g.dst_loop.clone(),
                logits.clone().detach(),
                IndexingUpdateOp::Max,
            )
            .detach();
        let ex = (logits - max.select(0, g.dst_loop.clone())).exp();
        let denom = scatter_add(ex.clone(), &g.dst_loop, n);
        let alpha = ex / denom.select(0, g.dst_loop.clone());
        let alpha = dropout_with(alpha, self.attn_dropout, rng, g.fused);
        let msgs = h.select(0, g.src_loop.clone()) * alpha.matmul(expand);
        self.finish(scatter_add(msgs, &g.dst_loop, n))
    }

    /// Mean over heads (unless concatenating) and bias.
    fn finish(&self, out: Tensor<2>) -> Tensor<2> {
        let (hd, c) = (self.heads, self.d_out);
        let device = out.device();
        let out = if self.concat {
            out
        } else {
            // Mean over heads: [n, heads·c] · M with M[k, j] = 1/heads when k mod c = j.
            let m: Vec<f32> = (0..hd * c * c)
                .map(|i| {
                    if (i / c) % c == i % c {
                        1.0 / hd as f32
                    } else {
                        0.0
                    }
                })
                .collect();
            out.matmul(Tensor::from_data(TensorData::new(m, [hd * c, c]), &device))
        };
        out + self.bias.val().unsqueeze_dim(0)
    }
}
