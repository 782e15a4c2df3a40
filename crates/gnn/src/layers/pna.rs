//! PNA, Principal Neighbourhood Aggregation (Corso et al. 2020, "Principal Neighbourhood
//! Aggregation for Graph Nets", arXiv 2004.05718), as PyG's `PNAConv` with aggregators mean,
//! min, max and std, scalers identity, amplification and attenuation, no input division, one
//! pre- and one post-layer per tower.
//!
//! The equations are in [`PnaConv`]'s documentation.

use burn::config::Config;
use burn::module::Module;
use burn::tensor::activation::relu;
use burn::tensor::{Device, IndexingUpdateOp, Int, Tensor};
use rand::Rng;

use super::Linear;
use crate::error::{Error, Result, check_positive};
use crate::tensors::{GraphTensors, Input, scatter_add};

/// Added under the square root of the std aggregator (PyG `PNAConv`).
const STD_EPS: f32 = 1e-5;
/// Number of aggregators (mean, min, max, std) times scalers (identity, amplification,
/// attenuation).
const AGGREGATES: usize = 12;

/// `δ = (1/|V|) Σ_v ln(d_v + 1)` over the given in-degrees `d_v` (normally those of the training
/// nodes; nodes without incoming edges add `ln 1 = 0`). This is PyG's `avg_deg['log']` computed
/// from the in-degree histogram.
///
/// # Errors
/// [`Error::Empty`] for an empty slice; [`Error::InvalidParam`] (`delta`) when every degree is 0,
/// since `δ = 0` would make the amplification scaler divide by zero.
///
/// # Complexity
/// O(|in_degrees|).
///
/// # Example
/// ```
/// let delta = gnn::layers::avg_log_degree(&[0, 1, 3])?;
/// assert!((delta - (2f64.ln() + 4f64.ln()) / 3.0).abs() < 1e-12);
/// assert!(gnn::layers::avg_log_degree(&[]).is_err());
/// # Ok::<(), gnn::Error>(())
/// ```
pub fn avg_log_degree(in_degrees: &[usize]) -> Result<f64> {
    if in_degrees.is_empty() {
        return Err(Error::Empty("in-degrees for PNA's average log-degree"));
    }
    let sum: f64 = in_degrees.iter().map(|&d| (d as f64 + 1.0).ln()).sum();
    if sum == 0.0 {
        return Err(Error::InvalidParam {
            name: "delta",
            value: "0".into(),
            reason: "no node has an incoming edge, so amplification would divide by zero",
        });
    }
    Ok(sum / in_degrees.len() as f64)
}

/// PNA's own settings: towers, the degree statistic `δ` and the edge-feature width. Build with
/// [`PnaSettings::new`] and the `with_*` setters; serialisable (burn `Config`).
///
/// # Example
/// ```
/// use gnn::PnaSettings;
/// let s = PnaSettings::new(1.2).with_towers(5).with_d_edge(Some(20));
/// assert_eq!((s.towers, s.d_edge, s.delta), (5, Some(20), 1.2));
/// assert_eq!(PnaSettings::new(1.2).towers, 1);
/// ```
#[derive(Config, Debug, PartialEq, Copy)]
pub struct PnaSettings {
    /// `δ`, the average `ln(in-degree + 1)` over the training nodes, e.g. from
    /// [`avg_log_degree`]; fixed (not trained). Must be finite and positive.
    pub delta: f64,
    /// Towers `T`; each layer's output width must be a multiple of it.
    #[config(default = 1)]
    pub towers: usize,
    /// Edge-feature width (None: the layers ignore edge features). Inputs then need edge
    /// features of this width ([`crate::EdgeList::with_edge_features`]).
    #[config(default = "None")]
    pub d_edge: Option<usize>,
}

/// One PNA layer (PyG `PNAConv` with `aggregators = [mean, min, max, std]`,
/// `scalers = [identity, amplification, attenuation]`, `divide_input = False`,
/// `pre_layers = post_layers = 1`).
///
/// For a node `i` with in-degree `d_i` and tower `t = 1..T`:
///
/// 1. message `j → i`: `m_ij = W_pre^t [x_i ‖ x_j ‖ W_e e_ij + b_e] + b_pre^t` (`3F → F`;
///    the edge block only when the layer has edge features, `2F → F` otherwise);
/// 2. aggregates over the incoming messages: mean `μ`, min, max and
///    `σ = sqrt(ReLU(mean(m²) − μ²) + 1e-5)`; an empty neighbourhood gives 0 for mean, min and
///    max and `sqrt(1e-5)` for std;
/// 3. scalers with `d = max(d_i, 1)`: identity, amplification `ln(d + 1)/δ`, attenuation
///    `δ/ln(d + 1)`, where `δ` is the average `ln(in-degree + 1)` over the training nodes
///    ([`avg_log_degree`]);
/// 4. tower output `W_post^t [x_i ‖ a_i] + b_post^t` (`13F → F'/T`), where `a_i` holds the 12
///    scaled aggregates in PyG's order: scaler-major (identity, amplification, attenuation),
///    then aggregator (mean, min, max, std), each `F` wide;
/// 5. the `T` tower outputs concatenated, then a final linear map `F' → F'`.
///
/// Edge weights of the graph are ignored (PyG's `PNAConv` takes none). The first matrix
/// product of every tower's pre- and post-layer is split by input block, so node features are
/// projected once per node and then gathered per edge.
#[derive(Module, Debug)]
pub struct PnaConv {
    /// Edge encoder `d_edge → F` shared by all towers (None: the layer reads no edge features).
    pub edge: Option<Linear>,
    /// Pre-layer of each tower, `[x_i ‖ x_j ‖ ẽ_ij]` (`3F` or `2F` rows) `→ F`.
    pub pre: Vec<Linear>,
    /// Post-layer of each tower, `[x_i ‖ 12 aggregates]` (`13F` rows) `→ F'/T`.
    pub post: Vec<Linear>,
    /// Final linear map `F' → F'` after concatenating the towers.
    pub lin: Linear,
    /// `δ`, the average `ln(in-degree + 1)` of the training nodes.
    pub delta: f64,
}

impl PnaConv {
    /// A seeded layer mapping `d_in` (`F`) to `d_out` (`F'`) features with `settings.towers`
    /// towers of width `d_out / towers`, reading edge features of width `settings.d_edge` when
    /// given.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] for a zero width, edge width or tower count, for `d_out` not
    /// divisible by `towers`, or for a `delta` that is not finite and positive.
    pub fn new<R: Rng + ?Sized>(
        d_in: usize,
        d_out: usize,
        settings: PnaSettings,
        device: &Device,
        rng: &mut R,
    ) -> Result<Self> {
        let PnaSettings {
            delta,
            towers,
            d_edge,
        } = settings;
        check_positive(&[
            ("d_in", d_in),
            ("d_out", d_out),
            ("towers", towers),
            ("d_edge", d_edge.unwrap_or(1)),
        ])?;
        if !d_out.is_multiple_of(towers) {
            return Err(Error::InvalidParam {
                name: "towers",
                value: towers.to_string(),
                reason: "must divide the PNA layer's output width",
            });
        }
        if !(delta.is_finite() && delta > 0.0) {
            return Err(Error::InvalidParam {
                name: "delta",
                value: delta.to_string(),
                reason: "the average log-degree must be positive and finite",
            });
        }
        let blocks = if d_edge.is_some() { 3 } else { 2 };
        Ok(Self {
            edge: d_edge.map(|de| Linear::new(de, d_in, true, device, rng)),
            pre: (0..towers)
                .map(|_| Linear::new(blocks * d_in, d_in, true, device, rng))
                .collect(),
            post: (0..towers)
                .map(|_| Linear::new((AGGREGATES + 1) * d_in, d_out / towers, true, device, rng))
                .collect(),
            lin: Linear::new(d_out, d_out, true, device, rng),
            delta,
        })
    }

    /// Width of the edge features the layer reads (None: it ignores edge features).
    pub fn d_edge(&self) -> Option<usize> {
        self.edge.as_ref().map(|e| e.weight.dims()[0])
    }

    /// Number of towers `T`.
    pub fn towers(&self) -> usize {
        self.pre.len()
    }

    /// Input width `F`.
    pub fn d_in(&self) -> usize {
        self.pre[0].weight.dims()[1]
    }

    /// Output width `F'`.
    pub fn d_out(&self) -> usize {
        self.lin.weight.dims()[1]
    }

    /// Forward pass over `[n, F]` features: `[n, F']`. A layer with an edge encoder on a graph
    /// without edge features encodes all-zero edge features (only `b_e` remains);
    /// [`crate::Gnn::layer_forward`] rejects that case before calling this.
    ///
    /// # Complexity
    /// O(nnz(X)·(T·F + F') + E·F·(d_edge + T·F) + n·T·F + n·F'·(F + F')) time and
    /// O(E·(T·F + d_edge) + n·T·F) memory (the min and max aggregates keep O(E·T·F) masks for
    /// their gradients).
    pub fn forward(&self, x: &Input, g: &GraphTensors) -> Tensor<2> {
        let f = self.d_in();
        let n = g.num_nodes;
        let fused = g.fused;
        let edge = self.edge.as_ref().map(|enc| match &g.edge_attr {
            Some(attr) => enc.forward(&Input::Dense(attr.clone())),
            None => {
                let zeros = Tensor::zeros([g.num_edges, f], &enc.weight.device());
                enc.add_bias(zeros)
            }
        });
        // Messages of all towers side by side: [E, T·F].
        let msgs: Vec<Tensor<2>> = self
            .pre
            .iter()
            .map(|pre| {
                let w = pre.weight.val();
                let to_dst = x.project_with(w.clone().narrow(0, 0, f), fused);
                let from_src = x.project_with(w.clone().narrow(0, f, f), fused);
                let mut m = to_dst.select(0, g.dst.clone()) + from_src.select(0, g.src.clone());
                if let Some(e) = &edge {
                    m = m + e.clone().matmul(w.narrow(0, 2 * f, f));
                }
                pre.add_bias(m)
            })
            .collect();
        let msgs = Tensor::cat(msgs, 1);
        let aggregates = aggregate(msgs, &g.dst, n, self.delta);
        let towers: Vec<Tensor<2>> = self
            .post
            .iter()
            .enumerate()
            .map(|(t, post)| {
                let w = post.weight.val();
                let a = Tensor::cat(
                    aggregates
                        .iter()
                        .map(|a| a.clone().narrow(1, t * f, f))
                        .collect(),
                    1,
                );
                let root = x.project_with(w.clone().narrow(0, 0, f), fused);
                post.add_bias(root + a.matmul(w.narrow(0, f, AGGREGATES * f)))
            })
            .collect();
        self.lin.forward(&Input::Dense(Tensor::cat(towers, 1)))
    }
}

/// The 12 scaled aggregates of `[E, C]` messages onto `n` destination rows, each `[n, C]`, in
/// PyG's order (scaler-major: identity, amplification, attenuation; then mean, min, max, std).
fn aggregate(msgs: Tensor<2>, dst: &Tensor<1, Int>, n: usize, delta: f64) -> Vec<Tensor<2>> {
    let device = msgs.device();
    let ones = Tensor::<2>::ones([msgs.dims()[0], 1], &device);
    let deg = scatter_add(ones, dst, n).clamp_min(1.0);
    let mean = scatter_add(msgs.clone(), dst, n) / deg.clone();
    let mean_sq = scatter_add(msgs.clone().square(), dst, n) / deg.clone();
    let std = (relu(mean_sq - mean.clone().square()) + STD_EPS).sqrt();
    let min = scatter_min(msgs.clone(), dst, n);
    let max = scatter_max(msgs, dst, n);
    let log_deg = (deg + 1.0).log();
    let amplification = log_deg.clone().div_scalar(delta);
    let attenuation = log_deg.recip().mul_scalar(delta);
    let base = [mean, min, max, std];
    let mut out = Vec::with_capacity(AGGREGATES);
    out.extend(base.iter().cloned());
    out.extend(base.iter().map(|a| a.clone() * amplification.clone()));
    out.extend(base.iter().map(|a| a.clone() * attenuation.clone()));
    out
}

/// Row-wise maximum of the `[E, C]` messages per destination, `[n, C]`; 0 for a node without
/// incoming messages. The gradient of each output entry goes to the message(s) attaining the
/// maximum, split evenly between ties (as PyTorch's `scatter_reduce(.., "amax")`).
///
/// burn's autodiff `select_assign(.., Max)` assumes unique indices, so the maximum is taken
/// without gradient and the gradient is routed through a straight-through term
/// `scatter_add((m − detach(m)) · w)` that is exactly 0 in the forward pass, with
/// `w = [m_e = max_{dst(e)}] / #ties`.
///
/// # Complexity
/// O(E·C) time and memory.
pub(crate) fn scatter_max(msgs: Tensor<2>, dst: &Tensor<1, Int>, n: usize) -> Tensor<2> {
    let device = msgs.device();
    let c = msgs.dims()[1];
    let values = msgs.clone().detach();
    let max = Tensor::<2>::full([n, c], f32::NEG_INFINITY, &device).select_assign(
        0,
        dst.clone(),
        values.clone(),
        IndexingUpdateOp::Max,
    );
    let empty = max.clone().equal_elem(f32::NEG_INFINITY);
    let max = max.mask_fill(empty, 0.0);
    let hit = values.equal(max.clone().select(0, dst.clone())).float();
    let ties = scatter_add(hit.clone(), dst, n);
    let share = hit / ties.select(0, dst.clone());
    max + scatter_add((msgs.clone() - msgs.detach()) * share, dst, n)
}

/// Row-wise minimum per destination (see [`scatter_max`]): `−max(−m)`.
pub(crate) fn scatter_min(msgs: Tensor<2>, dst: &Tensor<1, Int>, n: usize) -> Tensor<2> {
    scatter_max(msgs.neg(), dst, n).neg()
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::tensor::TensorData;

    fn host(t: Tensor<2>) -> Vec<f32> {
        t.into_data().convert::<f32>().try_to_vec::<f32>().unwrap()
    }

    #[test]
    fn scatter_max_and_min_route_gradients_to_the_extreme_messages() {
        let device = Device::flex().autodiff();
        // Node 0 receives edges 0, 1, 2; node 1 receives edge 3; node 2 receives nothing.
        // Column 1 has a tie for the maximum of node 0 (edges 0 and 2).
        let m = Tensor::<2>::from_data(
            TensorData::new(vec![1.0f32, 5.0, 3.0, -2.0, 2.0, 5.0, -4.0, 7.0], [4, 2]),
            &device,
        )
        .require_grad();
        let dst = Tensor::<1, Int>::from_data(TensorData::new(vec![0i64, 0, 0, 1], [4]), &device);
        let max = scatter_max(m.clone(), &dst, 3);
        let min = scatter_min(m.clone(), &dst, 3);
        assert_eq!(host(max.clone()), vec![3.0, 5.0, -4.0, 7.0, 0.0, 0.0]);
        assert_eq!(host(min.clone()), vec![1.0, -2.0, -4.0, 7.0, 0.0, 0.0]);
        let grads = max.sum().backward();
        assert_eq!(
            host(m.grad(&grads).unwrap()),
            vec![0.0, 0.5, 1.0, 0.0, 0.0, 0.5, 1.0, 1.0]
        );
        let grads = (min * 2.0).sum().backward();
        assert_eq!(
            host(m.grad(&grads).unwrap()),
            vec![2.0, 0.0, 0.0, 2.0, 0.0, 0.0, 2.0, 2.0]
        );
    }

    #[test]
    fn avg_log_degree_rejects_empty_and_edgeless_inputs() {
        assert!(matches!(avg_log_degree(&[]), Err(Error::Empty(_))));
        assert!(matches!(
            avg_log_degree(&[0, 0]),
            Err(Error::InvalidParam { name: "delta", .. })
        ));
        let d = avg_log_degree(&[1, 1, 0, 2]).unwrap();
        assert!((d - (2.0 * 2f64.ln() + 3f64.ln()) / 4.0).abs() < 1e-12);
    }
}
