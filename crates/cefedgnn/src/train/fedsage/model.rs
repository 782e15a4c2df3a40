//! NeighGen's networks (burn modules): the GCN encoder and classifier with the row-normalised
//! propagation Â = D̃⁻¹(A + I) ([`Propagation`]), dGen and fGen; and the mending of a graph by
//! generated neighbours ([`mend_adjacency`]).

use burn::module::Module;
use burn::tensor::activation::{relu, tanh};
use burn::tensor::{Device, IndexingUpdateOp, Int, Tensor, TensorData};
use gnn::Input;
use gnn::layers::Linear;
use gnn::tensors::{DropoutRng, dropout};
use rand::Rng;

use super::NeighGenConfig;

/// Â = D̃⁻¹(A + I) of one graph (d̃ = degree + 1) as gather/scatter indices: row v of ÂH is
/// Σ_{u ∈ N(v) ∪ {v}} h_u / d̃_v.
pub(crate) struct Propagation {
    src: Tensor<1, Int>,
    dst: Tensor<1, Int>,
    weight: Tensor<2>,
    n: usize,
}

impl Propagation {
    /// The propagation of the graph with sorted neighbour lists `adj`.
    ///
    /// # Complexity
    /// O(n + m).
    pub(crate) fn new(adj: &[Vec<u32>], device: &Device) -> Self {
        let n = adj.len();
        let e: usize = adj.iter().map(|l| l.len() + 1).sum();
        let (mut src, mut dst, mut w) = (
            Vec::with_capacity(e),
            Vec::with_capacity(e),
            Vec::with_capacity(e),
        );
        for (v, nbrs) in adj.iter().enumerate() {
            let inv = 1.0 / (nbrs.len() + 1) as f32;
            for u in std::iter::once(v as u32).chain(nbrs.iter().copied()) {
                src.push(i64::from(u));
                dst.push(v as i64);
                w.push(inv);
            }
        }
        Self {
            src: Tensor::from_data(TensorData::new(src, [e]), device),
            dst: Tensor::from_data(TensorData::new(dst, [e]), device),
            weight: Tensor::from_data(TensorData::new(w, [e, 1]), device),
            n,
        }
    }

    /// ÂH for `h: [n, c]`.
    fn apply(&self, h: Tensor<2>) -> Tensor<2> {
        let c = h.dims()[1];
        let msgs = h.select(0, self.src.clone()) * self.weight.clone();
        Tensor::zeros([self.n, c], (&msgs.device(), msgs.dtype())).select_assign(
            0,
            self.dst.clone(),
            msgs,
            IndexingUpdateOp::Add,
        )
    }
}

/// One GCN layer of the authors' form: Â X W + b.
fn gcn(lin: &Linear, x: Tensor<2>, p: &Propagation) -> Tensor<2> {
    lin.add_bias(p.apply(lin.project(&Input::Dense(x))))
}

/// Two GCN layers, ReLU and dropout between them; the output is not activated.
#[derive(Module, Debug)]
pub(crate) struct Gcn2 {
    first: Linear,
    second: Linear,
}

impl Gcn2 {
    fn new<R: Rng + ?Sized>(dims: [usize; 3], device: &Device, rng: &mut R) -> Self {
        Self {
            first: Linear::new(dims[0], dims[1], true, device, rng),
            second: Linear::new(dims[1], dims[2], true, device, rng),
        }
    }

    /// Â·dropout(ReLU(Â X W1 + b1))·W2 + b2.
    pub(crate) fn forward(
        &self,
        x: Tensor<2>,
        p: &Propagation,
        rate: f64,
        drop: Option<&mut DropoutRng>,
    ) -> Tensor<2> {
        let h = dropout(relu(gcn(&self.first, x, p)), rate, drop);
        gcn(&self.second, h, p)
    }
}

/// fGen: u ↦ tanh(L3(dropout(ReLU(L2(ReLU(L1 u)))))), `[n, latent] → [n, K·d]`.
#[derive(Module, Debug)]
pub(crate) struct FGen {
    first: Linear,
    second: Linear,
    out: Linear,
}

impl FGen {
    fn forward(&self, u: Tensor<2>, rate: f64, drop: Option<&mut DropoutRng>) -> Tensor<2> {
        let h = relu(self.first.forward(&Input::Dense(u)));
        let h = dropout(relu(self.second.forward(&Input::Dense(h))), rate, drop);
        tanh(self.out.forward(&Input::Dense(h)))
    }
}

/// NeighGen: encoder, dGen, fGen and the internal classifier.
#[derive(Module, Debug)]
pub(crate) struct NeighGen {
    encoder: Gcn2,
    dgen: Linear,
    /// The part trained in the federated phase.
    pub(crate) fgen: FGen,
    /// Classifies the mended impaired graph.
    pub(crate) classifier: Gcn2,
}

/// NeighGen's outputs on one graph of n nodes.
pub(crate) struct Generated {
    /// ñ, `[n, 1]`.
    pub(crate) count: Tensor<2>,
    /// Generated rows, `[n·K, d]` (row v·K + p = g_{v,p}).
    pub(crate) features: Tensor<2>,
}

impl NeighGen {
    /// A seeded NeighGen for `d` features and `classes` classes.
    pub(crate) fn new<R: Rng + ?Sized>(
        d: usize,
        classes: usize,
        cfg: &NeighGenConfig,
        device: &Device,
        rng: &mut R,
    ) -> Self {
        let [h1, h2] = cfg.fgen_hidden;
        Self {
            encoder: Gcn2::new([d, cfg.encoder_hidden, cfg.latent], device, rng),
            dgen: Linear::new(cfg.latent, 1, true, device, rng),
            fgen: FGen {
                first: Linear::new(cfg.latent, h1, true, device, rng),
                second: Linear::new(h1, h2, true, device, rng),
                out: Linear::new(h2, cfg.max_generated * d, true, device, rng),
            },
            classifier: Gcn2::new([d, cfg.classifier_hidden, classes], device, rng),
        }
    }

    /// The latent z = ReLU(encoder) `[n, latent]` of the graph of `p` with features `x`.
    pub(crate) fn encode(
        &self,
        x: Tensor<2>,
        p: &Propagation,
        rate: f64,
        drop: Option<&mut DropoutRng>,
    ) -> Tensor<2> {
        relu(self.encoder.forward(x, p, rate, drop))
    }

    /// ñ and g on the graph of `p` with features `x: [n, d]` and fGen noise `noise:
    /// [n, latent]` (dropout `rate` when `drop` is given): z = ReLU(encoder), ñ = ReLU(dGen z),
    /// g = fGen(z + noise).
    pub(crate) fn generate(
        &self,
        x: Tensor<2>,
        p: &Propagation,
        noise: Tensor<2>,
        rate: f64,
        mut drop: Option<&mut DropoutRng>,
    ) -> Generated {
        let [n, d] = x.dims();
        let z = self.encode(x, p, rate, drop.as_deref_mut());
        let count = relu(self.dgen.forward(&Input::Dense(z.clone())));
        let g = self.fgen.forward(z + noise, rate, drop);
        let k = g.dims()[1] / d.max(1);
        Generated {
            count,
            features: g.reshape([n * k, d]),
        }
    }
}

/// The graph `adj` with `attach[v]` new nodes joined to node v, numbered after the n nodes in
/// node order; returns its neighbour lists and, per new node, its generated row v·K + p.
///
/// # Complexity
/// O(n + m + Σ attach).
pub(crate) fn mend_adjacency(
    adj: &[Vec<u32>],
    attach: &[usize],
    k: usize,
) -> (Vec<Vec<u32>>, Vec<i64>) {
    let n = adj.len();
    let mut out = adj.to_vec();
    let mut rows = Vec::new();
    for (v, &m) in attach.iter().enumerate() {
        for p in 0..m {
            let id = (n + rows.len()) as u32;
            out[v].push(id);
            out.push(vec![v as u32]);
            rows.push((v * k + p) as i64);
        }
    }
    (out, rows)
}
