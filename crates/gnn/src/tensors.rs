//! Device-side inputs: features ([`Input`], dense or sparse), the index tensors of message
//! passing ([`GraphTensors`]), the pooling index ([`PoolIndex`]) and their bundle
//! [`GraphInput`]; plus the counter-based dropout RNG ([`DropoutRng`]).
//!
//! All normalisation constants (GCN's `w / sqrt(deg_u deg_v)`, mean-aggregation `1/deg`, GAT's
//! log edge weights) and the CSR structure of the fused kernels are computed once on the host
//! when the input is uploaded.

use burn::tensor::{Device, IndexingUpdateOp, Int, Tensor, TensorData};
use ndarray::Array2;
use rand::Rng;
use rayon::prelude::*;
use std::sync::Arc;

use crate::data::{EdgeList, GraphBatch, NodeTask};
use crate::kernels::{self, Csr};

/// Node features on the device: dense rows, or a sparse COO matrix (used automatically when at
/// most 10 % of the entries are non-zero, e.g. bag-of-words features). Both give the same
/// results; sparse inputs make the first projection and input dropout cost O(nnz).
#[derive(Clone, Debug)]
// One Input per forward pass, moved rather than stored in bulk: boxing would only add a pointer
// chase to every layer's projection.
#[allow(clippy::large_enum_variant)]
pub enum Input {
    /// Dense `[n, d]` features.
    Dense(Tensor<2>),
    /// Sparse features.
    Sparse {
        /// Row of every non-zero.
        rows: Tensor<1, Int>,
        /// Column of every non-zero.
        cols: Tensor<1, Int>,
        /// Values `[nnz, 1]`.
        values: Tensor<2>,
        /// `[n, d]`.
        shape: [usize; 2],
    },
}

impl Input {
    /// Uploads a feature matrix, choosing the sparse form when at most 10 % is non-zero.
    pub fn from_array(x: &Array2<f32>, device: &Device) -> Self {
        let (n, d) = x.dim();
        let nnz = x.iter().filter(|&&v| v != 0.0).count();
        if nnz * 10 <= n * d {
            let mut rows = Vec::with_capacity(nnz);
            let mut cols = Vec::with_capacity(nnz);
            let mut vals = Vec::with_capacity(nnz);
            for ((r, c), &v) in x.indexed_iter() {
                if v != 0.0 {
                    rows.push(r as i64);
                    cols.push(c as i64);
                    vals.push(v);
                }
            }
            Self::Sparse {
                rows: int_tensor(rows, device),
                cols: int_tensor(cols, device),
                values: Tensor::from_data(TensorData::new(vals, [nnz, 1]), device),
                shape: [n, d],
            }
        } else {
            Self::dense_from_array(x, device)
        }
    }

    /// Uploads a feature matrix in dense form.
    pub fn dense_from_array(x: &Array2<f32>, device: &Device) -> Self {
        let (n, d) = x.dim();
        let data: Vec<f32> = x.iter().copied().collect();
        Self::Dense(Tensor::from_data(TensorData::new(data, [n, d]), device))
    }

    /// `[n, d]`.
    pub fn dims(&self) -> [usize; 2] {
        match self {
            Self::Dense(t) => t.dims(),
            Self::Sparse { shape, .. } => *shape,
        }
    }

    /// `X · W` for `W: [d, out]`.
    ///
    /// Sparse features use the fused sparse-dense kernel when the tensors are on the flex
    /// backend (inside the GNN layers, [`GraphTensors::with_fused_kernels`] decides).
    pub fn project(&self, weight: Tensor<2>) -> Tensor<2> {
        self.project_with(weight, true)
    }

    /// [`Input::project`], with the fused kernel for sparse features only when `fused`.
    pub(crate) fn project_with(&self, weight: Tensor<2>, fused: bool) -> Tensor<2> {
        match self {
            Self::Dense(x) => x.clone().matmul(weight),
            Self::Sparse {
                rows,
                cols,
                values,
                shape,
            } => {
                if fused
                    && let Some(csr) = sparse_pattern(rows, cols, *shape)
                    && let Some(out) = kernels::spmm(&csr, values, &weight)
                {
                    return out;
                }
                let out = weight.dims()[1];
                let msgs = weight.select(0, cols.clone()) * values.clone();
                Tensor::zeros([shape[0], out], (&msgs.device(), msgs.dtype())).select_assign(
                    0,
                    rows.clone(),
                    msgs,
                    IndexingUpdateOp::Add,
                )
            }
        }
    }

    /// Inverted dropout with rate `p` (no-op when `rng` is `None` or `p == 0`).
    pub fn dropout(self, p: f64, rng: Option<&mut DropoutRng>) -> Self {
        self.dropout_with(p, rng, true)
    }

    /// [`Input::dropout`], with the fused elementwise kernel only when `fused`.
    pub(crate) fn dropout_with(self, p: f64, rng: Option<&mut DropoutRng>, fused: bool) -> Self {
        let Some(rng) = rng else { return self };
        if p <= 0.0 {
            return self;
        }
        let dropout = |x, rng| dropout_with(x, p, Some(rng), fused);
        match self {
            Self::Dense(x) => Self::Dense(dropout(x, rng)),
            Self::Sparse {
                rows,
                cols,
                values,
                shape,
            } => Self::Sparse {
                rows,
                cols,
                values: dropout(values, rng),
                shape,
            },
        }
    }

    /// The dense features (densifying a sparse input).
    pub fn to_dense(&self) -> Tensor<2> {
        match self {
            Self::Dense(x) => x.clone(),
            Self::Sparse { shape, .. } => {
                let device = self.device();
                let eye = Tensor::<2>::eye(shape[1], &device);
                self.project(eye)
            }
        }
    }

    fn device(&self) -> Device {
        match self {
            Self::Dense(x) => x.device(),
            Self::Sparse { values, .. } => values.device(),
        }
    }
}

/// The CSR pattern of sparse features (rows × columns), built on the host once per pair of
/// index tensors (see [`kernels::cached_pattern`]).
fn sparse_pattern(
    rows: &Tensor<1, Int>,
    cols: &Tensor<1, Int>,
    shape: [usize; 2],
) -> Option<Arc<Csr>> {
    kernels::cached_pattern(rows, cols, shape, || {
        let host = |t: &Tensor<1, Int>| t.to_data().try_into_vec_as::<i64>().ok();
        Csr::new(shape[0], shape[1], &host(rows)?, &host(cols)?).map(Arc::new)
    })
}

impl From<Tensor<2>> for Input {
    fn from(x: Tensor<2>) -> Self {
        Self::Dense(x)
    }
}

pub(crate) fn int_tensor(v: Vec<i64>, device: &Device) -> Tensor<1, Int> {
    let n = v.len();
    Tensor::from_data(TensorData::new(v, [n]), device)
}

pub(crate) fn column(v: Vec<f32>, device: &Device) -> Tensor<2> {
    let n = v.len();
    Tensor::from_data(TensorData::new(v, [n, 1]), device)
}

/// How GCN and GIN multiply by the adjacency: a sparse product over the edges, or a dense
/// `n × n` matrix product (a blocked GEMM), which is faster on dense graphs such as randomized
/// response releases (a quarter of all pairs at ε = 1).
///
/// Both give the same results up to f32 rounding. GAT keeps its fused sparse kernel either way
/// (its attention is per edge), and so do GraphSAGE, GINE and PNA.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Aggregation {
    /// Dense when the graph has at least [`DENSE_MIN_NODES`] nodes, at least a fraction
    /// [`DENSE_MIN_DENSITY`] of the `n²` entries of `A + I` are edges, and one `n × n` f32
    /// matrix takes at most [`DENSE_MAX_BYTES`]; sparse otherwise.
    #[default]
    Auto,
    /// Always the sparse product.
    Sparse,
    /// Always the dense product (two `n × n` f32 matrices are kept).
    Dense,
}

/// [`Aggregation::Auto`] keeps graphs with fewer nodes sparse (small sampled blocks and
/// molecule batches: the dense matrix would not pay for itself).
pub const DENSE_MIN_NODES: usize = 512;

/// [`Aggregation::Auto`] goes dense from this share of edges among the `n²` entries of
/// `A + I`. Measured by the `aggregation` benchmark (`cargo bench -p gnn --bench aggregation`,
/// one training epoch on Cora's 2,708 nodes and features, 2 cores): the two cross near 5 %
/// (GCN 14.1 / 14.8 ms sparse / dense, GIN 29.8 / 25.5 ms); at 1 % the sparse product is
/// 3.5× faster, at 27 % (randomized response at ε = 1) the dense one is 3.4× (GCN) and 14×
/// (GIN) faster.
pub const DENSE_MIN_DENSITY: f64 = 0.05;

/// [`Aggregation::Auto`] stays sparse when one `n × n` f32 matrix would take more than this
/// (1 GiB: n ≈ 16,000).
pub const DENSE_MAX_BYTES: usize = 1 << 30;

impl Aggregation {
    /// Whether a graph of `n` nodes with `entries` non-zeros in `A + I` is aggregated densely.
    ///
    /// # Example
    /// ```
    /// use gnn::tensors::Aggregation;
    /// assert!(Aggregation::Auto.is_dense(2_708, 2_000_000)); // 27 % of the pairs
    /// assert!(!Aggregation::Auto.is_dense(2_708, 200_000)); // 2.7 %
    /// assert!(!Aggregation::Auto.is_dense(2_708, 13_264)); // Cora itself
    /// assert!(!Aggregation::Auto.is_dense(20, 400)); // too small to pay
    /// assert!(Aggregation::Dense.is_dense(20, 20));
    /// ```
    pub fn is_dense(self, n: usize, entries: usize) -> bool {
        match self {
            Self::Sparse => false,
            Self::Dense => true,
            Self::Auto => {
                let cells = n.saturating_mul(n);
                n >= DENSE_MIN_NODES
                    && cells.saturating_mul(4) <= DENSE_MAX_BYTES
                    && entries as f64 >= DENSE_MIN_DENSITY * cells as f64
            }
        }
    }
}

/// The dense adjacency matrices of [`Aggregation::Dense`], rows = destinations.
#[derive(Clone, Debug)]
pub(crate) struct DenseAdjacency {
    /// GCN's `D̂^{-1/2} (A + I) D̂^{-1/2}`, `[n, n]`.
    pub(crate) gcn: Tensor<2>,
    /// The weighted adjacency `A` (GIN's sum), `[n, n]`.
    pub(crate) sum: Tensor<2>,
}

/// Message-passing index tensors of one (possibly packed) graph.
///
/// Two edge sets are kept: the plain message edges (GIN sum, GraphSAGE mean) and the edges with
/// one self-loop per node (GCN, GAT; an existing self-loop keeps its weight, as PyG's
/// `add_remaining_self_loops`). Dense graphs also keep `n × n` matrices for GCN and GIN
/// ([`Aggregation`]).
#[derive(Clone, Debug)]
pub struct GraphTensors {
    pub(crate) num_nodes: usize,
    pub(crate) src: Tensor<1, Int>,
    pub(crate) dst: Tensor<1, Int>,
    /// Edge weights `[E, 1]` (None when unweighted).
    pub(crate) weight: Option<Tensor<2>>,
    /// Edge features `[E, d_edge]` aligned with `src`/`dst` (GINE).
    pub(crate) edge_attr: Option<Tensor<2>>,
    /// `1 / in-degree(dst)` per plain edge, `[E, 1]`.
    pub(crate) mean_norm: Tensor<2>,
    pub(crate) num_edges: usize,
    pub(crate) src_loop: Tensor<1, Int>,
    pub(crate) dst_loop: Tensor<1, Int>,
    /// `w_uv / sqrt(deg_u deg_v)` with self-loops, `[E + n, 1]`.
    pub(crate) gcn_norm: Tensor<2>,
    /// `ln w` per self-looped edge (None when unweighted), `[E + n, 1]`.
    pub(crate) log_weight_loop: Option<Tensor<2>>,
    /// CSR of the self-looped edges, rows = destinations (entry order = `src_loop` order).
    pub(crate) csr_loop: Option<Arc<Csr>>,
    /// Whether `gcn_norm` over `csr_loop` is a symmetric matrix (undirected graphs).
    pub(crate) gcn_symmetric: bool,
    /// Use the fused kernels of [`crate::kernels`] where they apply.
    pub(crate) fused: bool,
    /// The dense matrices, when [`Aggregation`] chose the dense product.
    pub(crate) dense: Option<DenseAdjacency>,
}

impl GraphTensors {
    /// Uploads an edge list and precomputes the normalisations ([`Aggregation::Auto`]).
    pub fn new(edges: &EdgeList, device: &Device) -> Self {
        Self::with_aggregation(edges, device, Aggregation::Auto)
    }

    /// [`GraphTensors::new`] with the adjacency product chosen by `aggregation`.
    ///
    /// # Complexity
    /// O(E log E) for the sparse structure; O(n²) time and memory more when dense.
    pub fn with_aggregation(edges: &EdgeList, device: &Device, aggregation: Aggregation) -> Self {
        let n = edges.num_nodes;
        let e = edges.src.len();
        let w = |i: usize| edges.weights.as_ref().map_or(1.0, |w| w[i]);
        let mut in_deg = vec![0usize; n];
        for &t in &edges.dst {
            in_deg[t as usize] += 1;
        }
        let mean_norm: Vec<f32> = edges
            .dst
            .iter()
            .map(|&t| 1.0 / in_deg[t as usize] as f32)
            .collect();
        // Self-looped edge set: drop existing loops, then one loop per node.
        let mut loop_weight = vec![1.0f32; n];
        let mut src_l = Vec::with_capacity(e + n);
        let mut dst_l = Vec::with_capacity(e + n);
        let mut w_l = Vec::with_capacity(e + n);
        for i in 0..e {
            let (s, t) = (edges.src[i], edges.dst[i]);
            if s == t {
                loop_weight[s as usize] = w(i);
            } else {
                src_l.push(s as i64);
                dst_l.push(t as i64);
                w_l.push(w(i));
            }
        }
        for (u, &lw) in loop_weight.iter().enumerate() {
            src_l.push(u as i64);
            dst_l.push(u as i64);
            w_l.push(lw);
        }
        // Destination-sorted order: scatter-adds then write rows sequentially (cache locality on
        // large graphs); sums are order-independent up to rounding.
        let mut order: Vec<usize> = (0..src_l.len()).collect();
        order.sort_unstable_by_key(|&k| (dst_l[k], src_l[k]));
        let src_l: Vec<i64> = order.iter().map(|&k| src_l[k]).collect();
        let dst_l: Vec<i64> = order.iter().map(|&k| dst_l[k]).collect();
        let w_l: Vec<f32> = order.iter().map(|&k| w_l[k]).collect();
        let mut deg = vec![0f64; n];
        for (k, &t) in dst_l.iter().enumerate() {
            deg[t as usize] += f64::from(w_l[k]);
        }
        let inv_sqrt: Vec<f64> = deg
            .iter()
            .map(|&d| if d > 0.0 { 1.0 / d.sqrt() } else { 0.0 })
            .collect();
        let gcn_norm: Vec<f32> = (0..src_l.len())
            .map(|k| {
                // Symmetric in (src, dst), so that mirrored edges get bitwise equal weights.
                (f64::from(w_l[k]) * (inv_sqrt[src_l[k] as usize] * inv_sqrt[dst_l[k] as usize]))
                    as f32
            })
            .collect();
        let csr_loop = Csr::new(n, n, &dst_l, &src_l).map(Arc::new);
        let gcn_symmetric = csr_loop.as_ref().is_some_and(|c| c.is_symmetric(&gcn_norm));
        let log_w = edges
            .weights
            .as_ref()
            .map(|_| column(w_l.iter().map(|&x| x.max(1e-30).ln()).collect(), device));
        let dense = aggregation.is_dense(n, src_l.len()).then(|| {
            let matrix = |entries: &mut dyn Iterator<Item = (usize, usize, f32)>| {
                let mut a = vec![0f32; n * n];
                for (dst, src, w) in entries {
                    a[dst * n + src] += w;
                }
                Tensor::<2>::from_data(TensorData::new(a, [n, n]), device)
            };
            DenseAdjacency {
                gcn: matrix(
                    &mut (0..src_l.len())
                        .map(|k| (dst_l[k] as usize, src_l[k] as usize, gcn_norm[k])),
                ),
                sum: matrix(
                    &mut (0..e).map(|i| (edges.dst[i] as usize, edges.src[i] as usize, w(i))),
                ),
            }
        });
        Self {
            num_nodes: n,
            src: int_tensor(edges.src.iter().map(|&s| i64::from(s)).collect(), device),
            dst: int_tensor(edges.dst.iter().map(|&s| i64::from(s)).collect(), device),
            weight: edges.weights.as_ref().map(|w| column(w.clone(), device)),
            edge_attr: edges.features.as_ref().map(|f| {
                let data: Vec<f32> = f.iter().copied().collect();
                Tensor::from_data(TensorData::new(data, [f.nrows(), f.ncols()]), device)
            }),
            mean_norm: column(mean_norm, device),
            num_edges: e,
            src_loop: int_tensor(src_l, device),
            dst_loop: int_tensor(dst_l, device),
            gcn_norm: column(gcn_norm, device),
            log_weight_loop: log_w,
            csr_loop,
            gcn_symmetric,
            fused: true,
            dense,
        }
    }

    /// Whether GCN and GIN aggregate with the dense `n × n` product ([`Aggregation`]).
    pub fn is_dense(&self) -> bool {
        self.dense.is_some()
    }

    /// Switches the fused sparse kernels (CSR message passing with hand-written backward
    /// passes, on by default) on or off. Off, the layers use burn's generic gather/scatter
    /// ops; both give the same results up to f32 rounding. Meant for benchmarks and tests that
    /// compare the two.
    pub fn with_fused_kernels(mut self, on: bool) -> Self {
        self.fused = on;
        self
    }

    /// Whether the fused sparse kernels are enabled (see [`GraphTensors::with_fused_kernels`]).
    pub fn fused_kernels(&self) -> bool {
        self.fused
    }

    /// Number of nodes.
    pub fn num_nodes(&self) -> usize {
        self.num_nodes
    }

    /// Number of message edges (self-loops excluded unless given).
    pub fn num_edges(&self) -> usize {
        self.num_edges
    }

    /// Width of the edge features, if the edge list had them.
    pub fn edge_dim(&self) -> Option<usize> {
        self.edge_attr.as_ref().map(|t| t.dims()[1])
    }
}

/// Scatter-adds `[E, d]` messages onto `num_nodes` rows at `index`.
pub(crate) fn scatter_add(msgs: Tensor<2>, index: &Tensor<1, Int>, num_nodes: usize) -> Tensor<2> {
    let d = msgs.dims()[1];
    Tensor::zeros([num_nodes, d], (&msgs.device(), msgs.dtype())).select_assign(
        0,
        index.clone(),
        msgs,
        IndexingUpdateOp::Add,
    )
}

/// Node-to-graph index of a packed batch, for graph-level pooling.
#[derive(Clone, Debug)]
pub struct PoolIndex {
    pub(crate) node_graph: Tensor<1, Int>,
    /// `1 / |V_g|` per graph, `[G, 1]`.
    pub(crate) inv_count: Tensor<2>,
    pub(crate) num_graphs: usize,
}

impl PoolIndex {
    /// Uploads a node → graph map.
    pub fn new(node_graph: &[u32], num_graphs: usize, device: &Device) -> Self {
        let mut count = vec![0usize; num_graphs];
        for &g in node_graph {
            count[g as usize] += 1;
        }
        Self {
            node_graph: int_tensor(node_graph.iter().map(|&g| i64::from(g)).collect(), device),
            inv_count: column(
                count.iter().map(|&c| 1.0 / c.max(1) as f32).collect(),
                device,
            ),
            num_graphs,
        }
    }
}

/// Features, graph and (for batches of graphs) the pooling index, ready for a forward pass.
#[derive(Clone, Debug)]
pub struct GraphInput {
    /// Node features.
    pub x: Input,
    /// Message-passing indices.
    pub graph: GraphTensors,
    /// Present for graph-level tasks.
    pub pool: Option<PoolIndex>,
}

impl GraphInput {
    /// The input of a node task (features sparse when at most 10 % non-zero).
    pub fn from_node_task(task: &NodeTask, device: &Device) -> Self {
        Self {
            x: Input::from_array(&task.features, device),
            graph: GraphTensors::new(&task.edges, device),
            pool: None,
        }
    }

    /// The input of a packed batch of graphs.
    pub fn from_batch(batch: &GraphBatch, device: &Device) -> Self {
        Self {
            x: Input::from_array(&batch.features, device),
            graph: GraphTensors::new(&batch.edges, device),
            pool: Some(PoolIndex::new(&batch.node_graph, batch.num_graphs, device)),
        }
    }
}

/// Counter-based dropout masks: each mask element is a SplitMix64 hash of a per-call key drawn
/// from a seeded RNG and the element index, so masks are reproducible, independent of thread
/// count, and cheap (one hash per four elements). Serializable, so a training process can stop
/// and resume with the same masks.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DropoutRng {
    key: u64,
    calls: u64,
}

impl DropoutRng {
    /// A generator keyed by one draw from `rng`.
    pub fn new<R: Rng + ?Sized>(rng: &mut R) -> Self {
        Self {
            key: rng.next_u64(),
            calls: 0,
        }
    }

    fn next_key(&mut self) -> u64 {
        self.calls += 1;
        splitmix(self.key ^ splitmix(self.calls))
    }

    /// A keep-mask scaled by `1/(1-p)` with `len` entries.
    pub fn mask(&mut self, len: usize, p: f64) -> Vec<f32> {
        self.masked(len, p, None)
    }

    /// The next mask (as [`DropoutRng::mask`]), multiplied into `x` when given.
    pub(crate) fn masked(&mut self, len: usize, p: f64, x: Option<&[f32]>) -> Vec<f32> {
        const CHUNK: usize = 1 << 14;
        let key = self.next_key();
        let threshold = (p * 65536.0).round() as u32;
        let scale = (1.0 / (1.0 - p)) as f32;
        let mut out = vec![0f32; len];
        out.par_chunks_mut(CHUNK)
            .enumerate()
            .for_each(|(chunk, part)| {
                // One hash per four elements, 16 bits each; branch-free so that it vectorises.
                let base = (chunk as u64) << 12;
                let src = x.map(|x| &x[chunk * CHUNK..chunk * CHUNK + part.len()]);
                for (j, quad) in part.chunks_mut(4).enumerate() {
                    let h = splitmix(key.wrapping_add(base + j as u64));
                    for (k, v) in quad.iter_mut().enumerate() {
                        let r = ((h >> (16 * k)) & 0xffff) as u32;
                        *v = f32::from(u8::from(r >= threshold)) * scale;
                    }
                }
                if let Some(src) = src {
                    for (v, &s) in part.iter_mut().zip(src) {
                        *v *= s;
                    }
                }
            });
        out
    }
}

fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Inverted dropout on a tensor (identity when `rng` is `None` or `p <= 0`).
///
/// On flex tensors the mask is applied in one pass without a mask tensor in the autodiff
/// graph; the result is the same as multiplying by [`DropoutRng::mask`].
pub fn dropout<const D: usize>(x: Tensor<D>, p: f64, rng: Option<&mut DropoutRng>) -> Tensor<D> {
    dropout_with(x, p, rng, true)
}

/// [`dropout`], with the fused elementwise kernel only when `fused`.
pub(crate) fn dropout_with<const D: usize>(
    x: Tensor<D>,
    p: f64,
    rng: Option<&mut DropoutRng>,
    fused: bool,
) -> Tensor<D> {
    let Some(rng) = rng else { return x };
    if p <= 0.0 {
        return x;
    }
    let dims = x.dims();
    let len: usize = dims.iter().product();
    if fused && let Some(out) = kernels::masked_mul(&x, |src| rng.masked(len, p, src)) {
        return out;
    }
    let mask = rng.mask(len, p);
    let mask = Tensor::<D>::from_data(TensorData::new(mask, dims), (&x.device(), x.dtype()));
    x * mask
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn dropout_masks_are_seeded_and_have_the_right_rate() {
        let mut a = DropoutRng::new(&mut rand_chacha::ChaCha8Rng::seed_from_u64(3));
        let mut b = DropoutRng::new(&mut rand_chacha::ChaCha8Rng::seed_from_u64(3));
        let (ma, mb) = (a.mask(100_000, 0.6), b.mask(100_000, 0.6));
        assert_eq!(ma, mb);
        assert_ne!(ma, a.mask(100_000, 0.6));
        let kept = ma.iter().filter(|&&v| v > 0.0).count() as f64 / 1e5;
        // Binomial(1e5, 0.4): sd ≈ 0.0015; 5 sd band.
        assert!((kept - 0.4).abs() < 0.008, "kept {kept}");
        assert!(ma.iter().all(|&v| v == 0.0 || (v - 2.5).abs() < 1e-6));
    }

    #[test]
    fn gcn_normalisation_is_recognised_as_symmetric_on_undirected_graphs() {
        let undirected =
            EdgeList::new(4, &[(0, 1), (1, 0), (1, 2), (2, 1), (2, 3), (3, 2)]).unwrap();
        let weighted = undirected
            .clone()
            .with_weights(vec![0.5, 0.5, 2.0, 2.0, 0.3, 0.3])
            .unwrap();
        let directed = EdgeList::new(4, &[(0, 1), (1, 0), (1, 2)]).unwrap();
        let skewed = undirected
            .clone()
            .with_weights(vec![0.5, 0.6, 2.0, 2.0, 0.3, 0.3])
            .unwrap();
        let sym = |e: &EdgeList| GraphTensors::new(e, &Device::flex()).gcn_symmetric;
        assert!(sym(&undirected) && sym(&weighted));
        assert!(!sym(&directed) && !sym(&skewed));
    }

    #[test]
    fn sparse_features_take_the_fused_projection() {
        let mut a = Array2::<f32>::zeros((6, 20));
        for k in 0..8 {
            a[[k % 6, (k * 7) % 20]] = 1.0 + k as f32;
        }
        let x = Input::from_array(&a, &Device::flex()).dropout(0.5, None);
        let Input::Sparse {
            rows,
            cols,
            values,
            shape,
        } = &x
        else {
            panic!("8 of 120 entries are non-zero: sparse form expected");
        };
        let csr = sparse_pattern(rows, cols, *shape).expect("valid pattern");
        let w = Tensor::<2>::ones([20, 3], &Device::flex().autodiff()).require_grad();
        let fused = kernels::spmm(&csr, values, &w).expect("the fused kernel applies");
        let host = |t: Tensor<2>| t.into_data().try_into_vec_as::<f32>().unwrap();
        assert_eq!(host(fused), host(x.project_with(w, false)));
    }

    #[test]
    fn fused_dropout_equals_the_mask_product_with_its_gradient() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        // Not a multiple of the chunk or quad size.
        let (n, d) = (1000, 37);
        let v: Vec<f32> = (0..n * d).map(|i| (i as f32 * 0.37).sin()).collect();
        for device in [Device::flex(), Device::flex().autodiff()] {
            let x = Tensor::<2>::from_data(TensorData::new(v.clone(), [n, d]), &device);
            let x = if device.is_autodiff() {
                x.require_grad()
            } else {
                x
            };
            let mut a = DropoutRng::new(&mut rng);
            let mut b = a.clone();
            let out = dropout(x.clone(), 0.6, Some(&mut a));
            let mask = b.mask(n * d, 0.6);
            let host = |t: Tensor<2>| t.into_data().try_into_vec_as::<f32>().unwrap();
            let expected: Vec<f32> = v.iter().zip(&mask).map(|(x, m)| x * m).collect();
            assert_eq!(host(out.clone()), expected);
            // Both generators advanced by one call.
            assert_eq!(a.mask(10, 0.5), b.mask(10, 0.5));
            if device.is_autodiff() {
                let g = out.sum().backward();
                assert_eq!(host(x.grad(&g).unwrap()), mask);
            }
        }
    }
}
