//! One client's local side of training: its view of the graph ([`LocalView`]: own nodes, own
//! and halo neighbours with edge ids), the frozen halo rows of the round ([`HaloTable`]), and the
//! [`Trainer`] (neighbour sampling, forward with H / Ĥ mixing, MA updates, the W step,
//! evaluation).

use std::sync::Arc;

use burn::tensor::{Device, Tensor, TensorData};
use gnn::tensors::DropoutRng;
use gnn::{EdgeList, Gnn, GraphTensors, Input};
use ndarray::Array2;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::params;
use crate::error::{FedError, Result};
use crate::estimator::{EmbeddingEstimator, GradientEstimator, GradientMode, MaConfig, ReadMode};

/// Sorted undirected edges `(u, v)`, `u < v`, of the whole graph: the edge id of `{u, v}` is
/// its position (the order of [`graph_core::Graph::edges`]).
pub(crate) struct EdgeIndex {
    edges: Vec<(u32, u32)>,
}

impl EdgeIndex {
    pub(crate) fn new(graph: &graph_core::Graph) -> Self {
        let edges: Vec<(u32, u32)> = graph.edges().collect();
        debug_assert!(
            edges.windows(2).all(|w| w[0] < w[1]),
            "Graph::edges is sorted"
        );
        Self { edges }
    }
    fn id(&self, u: u32, v: u32) -> u32 {
        let key = if u < v { (u, v) } else { (v, u) };
        self.edges
            .binary_search(&key)
            .expect("neighbours are graph edges") as u32
    }
}

/// What one client sees: own nodes with features and labels, own neighbours, halo neighbours
/// (empty when embeddings are not shared) and the feature rows of edges touching own nodes.
pub(crate) struct LocalView {
    /// Own nodes (global ids, ascending).
    pub(crate) own: Vec<u32>,
    /// Halo nodes (global ids, ascending).
    pub(crate) halo: Vec<u32>,
    pub(crate) features: Array2<f32>,
    pub(crate) labels: Vec<u32>,
    pub(crate) train: Vec<usize>,
    nbr_own: Vec<Vec<(u32, u32)>>,
    nbr_halo: Vec<Vec<(u32, u32)>>,
    /// Per halo node: 1 + its number of neighbours among the own nodes (the GCN degree the
    /// client can see; a remote node's full degree is not shared) \[R\].
    halo_deg: Vec<u32>,
    edge_features: Option<Arc<Array2<f32>>>,
    /// Classes of the task (labels lie in `0..num_classes`).
    pub(crate) num_classes: usize,
}

/// The rows a client holds for its own nodes (plain data handed to [`LocalView::new`]).
pub(crate) struct ViewData<'a> {
    /// Feature rows of the own nodes.
    pub(crate) features: Array2<f32>,
    /// Labels of the own nodes.
    pub(crate) labels: Vec<u32>,
    /// Classes of the task.
    pub(crate) num_classes: usize,
    /// Train mask over the own nodes.
    pub(crate) train: &'a [bool],
    /// Feature rows of the edges (by [`EdgeIndex`] id), where the task has them.
    pub(crate) edge_features: Option<Arc<Array2<f32>>>,
}

impl LocalView {
    /// The view of the nodes `own` with halo `halo` (both ascending global ids) holding `data`.
    pub(crate) fn new(
        graph: &graph_core::Graph,
        index: &EdgeIndex,
        own: Vec<u32>,
        halo: Vec<u32>,
        data: ViewData<'_>,
    ) -> Self {
        let ViewData {
            features,
            labels,
            num_classes,
            train,
            edge_features,
        } = data;
        let mut nbr_own = vec![Vec::new(); own.len()];
        let mut nbr_halo = vec![Vec::new(); own.len()];
        let mut halo_deg = vec![1u32; halo.len()];
        for (i, &u) in own.iter().enumerate() {
            for &v in graph.neighbors(u) {
                if v == u {
                    continue;
                }
                if let Ok(j) = own.binary_search(&v) {
                    nbr_own[i].push((j as u32, index.id(u, v)));
                } else if let Ok(j) = halo.binary_search(&v) {
                    nbr_halo[i].push((j as u32, index.id(u, v)));
                    halo_deg[j] += 1;
                }
            }
        }
        Self {
            train: train
                .iter()
                .enumerate()
                .filter_map(|(i, &b)| b.then_some(i))
                .collect(),
            own,
            halo,
            features,
            labels,
            nbr_own,
            nbr_halo,
            halo_deg,
            edge_features,
            num_classes,
        }
    }

    fn n_own(&self) -> usize {
        self.own.len()
    }
}

/// The frozen noisy halo rows Ĥ of the current round, per shared layer.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct HaloTable {
    dims: Vec<usize>,
    rows: Vec<Vec<f32>>,
    seen: Vec<Vec<bool>>,
    /// Rows received so far, per layer and halo node.
    count: Vec<Vec<u32>>,
}

impl HaloTable {
    pub(crate) fn new(num_halo: usize, dims: &[usize]) -> Self {
        Self {
            dims: dims.to_vec(),
            rows: dims.iter().map(|&d| vec![0.0; num_halo * d]).collect(),
            seen: dims.iter().map(|_| vec![false; num_halo]).collect(),
            count: dims.iter().map(|_| vec![0; num_halo]).collect(),
        }
    }
    /// Stores a received row: replaces the old one (`average` = None) or averages it in with
    /// rate max(1/t, a) for the t-th row received.
    pub(crate) fn set(&mut self, layer: usize, j: usize, row: &[f32], average: Option<f64>) {
        let d = self.dims[layer];
        let t = &mut self.count[layer][j];
        *t += 1;
        let dst = &mut self.rows[layer][j * d..(j + 1) * d];
        match average {
            Some(a) if *t > 1 => {
                let r = (1.0 / f64::from(*t)).max(a);
                for (h, &x) in dst.iter_mut().zip(row) {
                    *h = ((1.0 - r) * f64::from(*h) + r * f64::from(x)) as f32;
                }
            }
            _ => dst.copy_from_slice(row),
        }
        self.seen[layer][j] = true;
    }
    /// Whether `other` has the same layers and halo size.
    pub(crate) fn same_shape(&self, other: &HaloTable) -> bool {
        self.dims == other.dims
            && self
                .rows
                .iter()
                .zip(&other.rows)
                .all(|(a, b)| a.len() == b.len())
            && self
                .seen
                .iter()
                .zip(&other.seen)
                .all(|(a, b)| a.len() == b.len())
            && self
                .count
                .iter()
                .zip(&other.count)
                .all(|(a, b)| a.len() == b.len())
    }

    pub(crate) fn get(&self, layer: usize, j: usize) -> Option<&[f32]> {
        let d = self.dims[layer];
        self.seen[layer][j].then(|| &self.rows[layer][j * d..(j + 1) * d])
    }
}

/// Node positions of one computation: own nodes are encoded `i`, halo nodes `n_own + j`.
struct Blocks {
    nodes: Vec<u32>,
    /// Per layer: message edges `(src pos, dst pos, edge id, weight)`; the weight n/k scales a
    /// target's k sampled neighbours out of n available ones (1 without sampling), so a sampled
    /// sum or GCN aggregation is an unbiased estimate of the full one used at evaluation.
    edges: Vec<Vec<(u32, u32, u32, f32)>>,
    /// Per layer (GCN only): explicit self-loops `(pos, weight)` of the sources that are not
    /// targets of the layer, weighted by their layer degree so that the symmetric
    /// normalisation 1/sqrt(deg_u deg_v) uses every node's full degree, not its in-degree
    /// inside the sampled block.
    loops: Vec<Vec<(u32, f32)>>,
    /// Per layer: positions of the own nodes whose output the layer computes.
    targets: Vec<Vec<u32>>,
}

/// The mutable state of a [`Trainer`] between rounds: W, the estimators and the randomness (the
/// view and the model structure are rebuilt from the client's data and configuration).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct TrainerState {
    w: Vec<f32>,
    h: EmbeddingEstimator,
    g: GradientEstimator,
    signal: Option<GradientEstimator>,
    drop: DropoutRng,
    rng: ChaCha8Rng,
}

/// One client's model, estimators and randomness.
pub(crate) struct Trainer {
    pub(crate) view: LocalView,
    device: Device,
    model: Gnn,
    /// W, flat.
    pub(crate) w: Vec<f32>,
    pub(crate) h: EmbeddingEstimator,
    pub(crate) g: GradientEstimator,
    ma: MaConfig,
    shared_dims: Vec<usize>,
    drop: DropoutRng,
    rng: ChaCha8Rng,
    class_weight: Vec<f32>,
    num_classes: usize,
    batch_size: usize,
    fanout: Option<usize>,
    lr: f64,
    weight_decay: f64,
    use_halo: bool,
    /// GCN normalisation: explicit self-loop weights of non-target sources.
    gcn: bool,
    grad_clip: Option<f64>,
    /// G as a per-node backward signal (per shared layer) instead of momentum on W \[R\].
    signal: Option<GradientEstimator>,
    /// Position of every encoded node in the current computation (u32::MAX: absent).
    pos: Vec<u32>,
    /// Scratch marks over encoded nodes.
    mark: Vec<bool>,
    /// FED-PUB's personalised masks and proximal term (`None` for the other methods).
    masks: Option<PersonalMasks>,
}

/// FED-PUB's client side (Baek et al. 2023, the authors' `MaskedGCNConv`/`MaskedLinear` and
/// loss): a multiplicative mask M on every weight matrix (rank-2 parameter; biases and scalars
/// unmasked), starting at 1, so that the model computes with W ⊙ M; the loss adds
/// λ1·Σ|M| and, once a personalised model θ̄ has arrived, λ2·Σ_tensors ‖θ − θ̄‖₂ (un-squared, per
/// weight and bias tensor, as the code; the paper writes it squared). In evaluation, entries
/// with |M| < λ1 are zeroed. The masks never leave the client's model averaging: the server
/// averages the dense W.
#[derive(Clone, Debug)]
pub(crate) struct PersonalMasks {
    /// M over the flat W (1 and never updated at unmasked entries).
    mask: Vec<f32>,
    /// The parameter tensors as flat ranges, with whether each is masked.
    tensors: Vec<(std::ops::Range<usize>, bool)>,
    /// θ̄: the personalised model of the current round (`None` before the first).
    anchor: Option<Vec<f32>>,
    l1: f64,
    proximal: f64,
}

impl PersonalMasks {
    /// Masks of ones for a model of `layout` ([`params::layout`]); without `masking` no entry
    /// is masked (the proximal term alone).
    pub(crate) fn new(layout: &[(usize, usize)], masking: bool, l1: f64, proximal: f64) -> Self {
        let mut tensors = Vec::with_capacity(layout.len());
        let mut at = 0;
        for &(len, rank) in layout {
            tensors.push((at..at + len, masking && rank == 2));
            at += len;
        }
        Self {
            mask: vec![1.0; at],
            tensors,
            anchor: None,
            l1,
            proximal,
        }
    }

    /// Entries of masked tensors (the mask bytes a client uploads are 4 per entry).
    pub(crate) fn masked_len(&self) -> usize {
        self.tensors
            .iter()
            .filter(|(_, m)| *m)
            .map(|(r, _)| r.len())
            .sum()
    }

    /// W ⊙ M; in evaluation (`eval`), M with the masked entries below λ1 in magnitude zeroed.
    fn effective(&self, w: &[f32], eval: bool) -> Vec<f32> {
        let cut = self.l1 as f32;
        let mut out: Vec<f32> = w.iter().zip(&self.mask).map(|(&x, &m)| x * m).collect();
        if eval {
            for (r, masked) in &self.tensors {
                if *masked {
                    for i in r.clone() {
                        if self.mask[i].abs() < cut {
                            out[i] = 0.0;
                        }
                    }
                }
            }
        }
        out
    }

    /// From the gradient `g` of the loss with respect to W ⊙ M: the gradient with respect to
    /// W (g ⊙ M plus the proximal term's) returned, and one plain SGD step of rate `lr` on M
    /// (g ⊙ W plus λ1·sign(M)) taken.
    fn split(&mut self, g: &[f32], w: &[f32], lr: f64) -> Vec<f32> {
        let mut gw: Vec<f32> = g.iter().zip(&self.mask).map(|(&a, &m)| a * m).collect();
        if let Some(anchor) = &self.anchor
            && self.proximal > 0.0
        {
            for (r, _) in &self.tensors {
                let norm = w[r.clone()]
                    .iter()
                    .zip(&anchor[r.clone()])
                    .map(|(&a, &b)| f64::from(a - b).powi(2))
                    .sum::<f64>()
                    .sqrt();
                if norm > 0.0 {
                    for i in r.clone() {
                        gw[i] += (self.proximal * f64::from(w[i] - anchor[i]) / norm) as f32;
                    }
                }
            }
        }
        for (r, masked) in &self.tensors {
            if !masked {
                continue;
            }
            for i in r.clone() {
                let m = self.mask[i];
                let sign = if m > 0.0 {
                    1.0
                } else if m < 0.0 {
                    -1.0
                } else {
                    0.0
                };
                let gm = f64::from(g[i]) * f64::from(w[i]) + self.l1 * sign;
                self.mask[i] = (f64::from(m) - lr * gm) as f32;
            }
        }
        gw
    }
}

impl Trainer {
    /// One client's trainer: `model` on `view` with the estimator `ma`, halo rows used when
    /// `use_halo`, sampling and dropout drawn from `rng` (training randomness only).
    pub(crate) fn new(
        view: LocalView,
        model: Gnn,
        ma: MaConfig,
        cfg: &super::FedTrainConfig,
        use_halo: bool,
        mut rng: ChaCha8Rng,
    ) -> Result<Self> {
        let num_classes = view.num_classes;
        let shared_dims = vec![cfg.hidden; cfg.num_layers - 1];
        let w = params::flatten(&model);
        let h = EmbeddingEstimator::new(ma, view.n_own(), &shared_dims)?;
        let (g, signal) = match cfg.gradient {
            GradientMode::Momentum => (GradientEstimator::momentum(ma, w.len()), None),
            GradientMode::PerNodeSignal => {
                // W takes plain steps on the gradient assembled from the per-node signals.
                let plain = MaConfig::new(ma.gamma(), 1.0)?;
                (
                    GradientEstimator::momentum(plain, w.len()),
                    Some(GradientEstimator::per_node(ma, view.n_own(), &shared_dims)?),
                )
            }
        };
        let class_weight = if cfg.balanced_loss {
            let mut count = vec![0usize; num_classes];
            for &i in &view.train {
                count[view.labels[i] as usize] += 1;
            }
            let total = view.train.len().max(1) as f32;
            let present = count.iter().filter(|&&c| c > 0).count().max(1) as f32;
            count
                .iter()
                .map(|&c| {
                    if c == 0 {
                        0.0
                    } else {
                        total / (present * c as f32)
                    }
                })
                .collect()
        } else {
            vec![1.0; num_classes]
        };
        let drop = DropoutRng::new(&mut rng);
        let n = view.n_own() + view.halo.len();
        Ok(Self {
            device: model_device(&model),
            model,
            w,
            h,
            g,
            ma,
            shared_dims,
            drop,
            rng,
            class_weight,
            num_classes,
            batch_size: cfg.batch_size,
            fanout: cfg.fanout,
            lr: cfg.lr,
            weight_decay: cfg.weight_decay,
            use_halo,
            gcn: cfg.model == super::ModelKind::Gcn,
            grad_clip: cfg.grad_clip,
            signal,
            pos: vec![u32::MAX; n],
            mark: vec![false; n],
            masks: None,
            view,
        })
    }

    /// The state to persist between rounds.
    pub(crate) fn state(&self) -> TrainerState {
        TrainerState {
            w: self.w.clone(),
            h: self.h.clone(),
            g: self.g.clone(),
            signal: self.signal.clone(),
            drop: self.drop.clone(),
            rng: self.rng.clone(),
        }
    }

    /// Restores a state saved by [`Trainer::state`] from a trainer built with the same view and
    /// configuration.
    pub(crate) fn restore(&mut self, state: TrainerState) -> Result<()> {
        if state.w.len() != self.w.len()
            || state.h.num_layers() != self.h.num_layers()
            || state.signal.is_some() != self.signal.is_some()
        {
            return Err(FedError::Inconsistent(
                "the saved trainer state is for another model or configuration".into(),
            ));
        }
        for l in 0..self.h.num_layers() {
            let (a, b) = (state.h.layer(l)?, self.h.layer(l)?);
            if a.len() != b.len() || a.dim() != b.dim() {
                return Err(FedError::Inconsistent(
                    "the saved embeddings are for another set of nodes".into(),
                ));
            }
        }
        self.set_params(&state.w);
        self.h = state.h;
        self.g = state.g;
        self.signal = state.signal;
        self.drop = state.drop;
        self.rng = state.rng;
        Ok(())
    }

    /// Number of own training nodes (the averaging weight).
    pub(crate) fn train_size(&self) -> u64 {
        self.view.train.len() as u64
    }

    /// Replaces W (e.g. by the server's average).
    pub(crate) fn set_params(&mut self, w: &[f32]) {
        self.w.copy_from_slice(w);
        self.reload();
    }

    /// The model computes with W (W ⊙ M under FED-PUB's masks, training mode).
    fn reload(&mut self) {
        self.model = match &self.masks {
            Some(m) => params::load(self.model.clone(), &m.effective(&self.w, false)),
            None => params::load(self.model.clone(), &self.w),
        };
    }

    /// FED-PUB: train with personalised masks (when `masking`, λ1 = `l1`) and the proximal
    /// term (λ2 = `proximal`) from now on.
    pub(crate) fn enable_fed_pub(&mut self, masking: bool, l1: f64, proximal: f64) {
        let layout = params::layout(&self.model);
        self.masks = Some(PersonalMasks::new(&layout, masking, l1, proximal));
        self.reload();
    }

    /// FED-PUB's masks, where enabled.
    pub(crate) fn masks(&self) -> Option<&PersonalMasks> {
        self.masks.as_ref()
    }

    /// FED-PUB: W ← the personalised model θ̄ `w`, which the proximal term pulls towards until
    /// the next one arrives.
    pub(crate) fn set_personal(&mut self, w: &[f32]) {
        if let Some(m) = &mut self.masks {
            m.anchor = Some(w.to_vec());
        }
        self.set_params(w);
    }

    /// The model in evaluation: W ⊙ M with small mask entries zeroed under FED-PUB's masks.
    fn eval_model(&self) -> Gnn {
        match &self.masks {
            Some(m) => params::load(self.model.clone(), &m.effective(&self.w, true)),
            None => self.model.clone(),
        }
    }

    fn add_node(&mut self, blocks: &mut Blocks, code: u32) -> u32 {
        let p = &mut self.pos[code as usize];
        if *p == u32::MAX {
            *p = blocks.nodes.len() as u32;
            blocks.nodes.push(code);
        }
        *p
    }

    /// Samples the L-hop neighbourhood of `batch` (own local indices), layer by layer from the
    /// output down: layer ℓ computes its targets from up to `fanout` neighbours each; halo
    /// neighbours enter at layers ℓ ≥ 1 when their row Ĥ^(ℓ−1) is known.
    fn sample(&mut self, batch: &[usize], halo: &HaloTable, full: bool) -> Blocks {
        let layers = self.shared_dims.len() + 1;
        let n_own = self.view.n_own() as u32;
        let mut blocks = Blocks {
            nodes: Vec::new(),
            edges: vec![Vec::new(); layers],
            loops: vec![Vec::new(); layers],
            targets: vec![Vec::new(); layers],
        };
        let mut frontier: Vec<u32> = batch.iter().map(|&i| i as u32).collect();
        for &i in &frontier {
            self.add_node(&mut blocks, i);
        }
        let mut in_next = vec![false; self.view.n_own()];
        let mut cand: Vec<(u32, u32)> = Vec::new();
        for layer in (0..layers).rev() {
            in_next.iter_mut().for_each(|b| *b = false);
            let mut next = frontier.clone();
            for &i in &frontier {
                in_next[i as usize] = true;
            }
            let mut targets = Vec::with_capacity(frontier.len());
            for &v in &frontier {
                let pv = self.pos[v as usize];
                targets.push(pv);
                cand.clear();
                cand.extend(self.view.nbr_own[v as usize].iter().copied());
                if self.use_halo && layer >= 1 {
                    cand.extend(
                        self.view.nbr_halo[v as usize]
                            .iter()
                            .filter(|&&(j, _)| halo.get(layer - 1, j as usize).is_some())
                            .map(|&(j, e)| (n_own + j, e)),
                    );
                }
                let available = cand.len();
                let picked: Vec<(u32, u32)> = match self.fanout {
                    Some(f) if !full && cand.len() > f => {
                        cand.partial_shuffle(&mut self.rng, f).0.to_vec()
                    }
                    _ => cand.clone(),
                };
                let weight = if picked.is_empty() {
                    1.0
                } else {
                    available as f32 / picked.len() as f32
                };
                for (code, eid) in picked {
                    let pu = self.add_node(&mut blocks, code);
                    blocks.edges[layer].push((pu, pv, eid, weight));
                    if code < n_own && !in_next[code as usize] {
                        in_next[code as usize] = true;
                        next.push(code);
                    }
                }
            }
            blocks.targets[layer] = targets;
            if self.gcn {
                self.source_loops(&mut blocks, &frontier, layer, halo);
            }
            frontier = next;
        }
        for &c in &blocks.nodes {
            self.pos[c as usize] = u32::MAX;
        }
        blocks
    }

    /// Number of neighbours own node `v` aggregates at `layer`: own neighbours, plus (layer ≥ 1,
    /// halo in use) halo neighbours whose row Ĥ^(layer−1) is known.
    fn available(&self, v: usize, layer: usize, halo: &HaloTable) -> usize {
        let remote = if self.use_halo && layer >= 1 {
            self.view.nbr_halo[v]
                .iter()
                .filter(|&&(j, _)| halo.get(layer - 1, j as usize).is_some())
                .count()
        } else {
            0
        };
        self.view.nbr_own[v].len() + remote
    }

    /// GCN: a self-loop of weight deg(u) for every source u of `layer` that is not one of its
    /// targets (`frontier`), so that its normalisation uses its layer degree 1 + available
    /// neighbours (halo nodes: 1 + visible neighbours) rather than the in-degree 0 it has in
    /// the sampled block. Targets keep the implicit self-loop of weight 1 and get in-degree
    /// 1 + n from their k sampled edges of weight n/k.
    fn source_loops(
        &mut self,
        blocks: &mut Blocks,
        frontier: &[u32],
        layer: usize,
        halo: &HaloTable,
    ) {
        let n_own = self.view.n_own() as u32;
        for &v in frontier {
            self.mark[v as usize] = true;
        }
        let mut loops = Vec::new();
        for k in 0..blocks.edges[layer].len() {
            let pu = blocks.edges[layer][k].0;
            let code = blocks.nodes[pu as usize];
            if self.mark[code as usize] {
                continue;
            }
            self.mark[code as usize] = true;
            let deg = if code < n_own {
                1 + self.available(code as usize, layer, halo)
            } else {
                self.view.halo_deg[(code - n_own) as usize] as usize
            };
            loops.push((pu, deg as f32));
        }
        for &(pu, _) in &loops {
            self.mark[blocks.nodes[pu as usize] as usize] = false;
        }
        for &v in frontier {
            self.mark[v as usize] = false;
        }
        blocks.loops[layer] = loops;
    }

    fn graph(&self, blocks: &Blocks, layer: usize, device: &Device) -> Result<GraphTensors> {
        let edges = &blocks.edges[layer];
        let loops = &blocks.loops[layer];
        let pairs: Vec<(u32, u32)> = edges
            .iter()
            .map(|&(s, d, _, _)| (s, d))
            .chain(loops.iter().map(|&(p, _)| (p, p)))
            .collect();
        let weights: Vec<f32> = edges
            .iter()
            .map(|e| e.3)
            .chain(loops.iter().map(|l| l.1))
            .collect();
        let mut el = EdgeList::new(blocks.nodes.len(), &pairs)?.with_weights(weights)?;
        if let Some(ef) = &self.view.edge_features
            && !self.gcn
        {
            // GCN never reads edge features (and only GCN blocks carry loops).
            let idx: Vec<usize> = edges.iter().map(|e| e.2 as usize).collect();
            el = el.with_edge_features(ef.select(ndarray::Axis(0), &idx))?;
        }
        Ok(GraphTensors::new(&el, device))
    }

    fn input(&self, blocks: &Blocks, device: &Device) -> Input {
        let n_own = self.view.n_own() as u32;
        let d = self.view.features.ncols();
        let mut x = Array2::<f32>::zeros((blocks.nodes.len(), d));
        for (p, &c) in blocks.nodes.iter().enumerate() {
            if c < n_own {
                x.row_mut(p).assign(&self.view.features.row(c as usize));
            }
        }
        Input::from_array(&x, device)
    }

    /// Halo rows of shared layer `s` at their positions (zeros elsewhere), and their mask.
    fn halo_values(&self, blocks: &Blocks, halo: &HaloTable, s: usize, v: &mut [f32]) {
        let n_own = self.view.n_own() as u32;
        let d = self.shared_dims[s];
        for (p, &c) in blocks.nodes.iter().enumerate() {
            if c >= n_own
                && let Some(row) = halo.get(s, (c - n_own) as usize)
            {
                v[p * d..(p + 1) * d].copy_from_slice(row);
            }
        }
    }

    /// One local step on a sampled mini-batch; returns the training loss (None without
    /// training nodes).
    pub(crate) fn step(&mut self, halo: &HaloTable) -> Result<Option<f64>> {
        if self.view.train.is_empty() {
            return Ok(None);
        }
        let bs = self.batch_size.min(self.view.train.len());
        let batch: Vec<usize> = if bs == self.view.train.len() {
            self.view.train.clone()
        } else {
            rand::seq::index::sample(&mut self.rng, self.view.train.len(), bs)
                .into_iter()
                .map(|k| self.view.train[k])
                .collect()
        };
        let blocks = self.sample(&batch, halo, false);
        let device = self.device.clone();
        let layers = self.shared_dims.len() + 1;
        let mut x = self.input(&blocks, &device);
        let u = blocks.nodes.len();
        let mut logits = None;
        // Per-node signal mode: per shared layer, the zero probe added to the layer's output
        // (its gradient is the backward signal ∂L/∂h_v) and the masked fresh output.
        let mut probes: Vec<(Tensor<2>, Tensor<2>)> = Vec::new();
        for layer in 0..layers {
            let g = self.graph(&blocks, layer, &device)?;
            let z = self
                .model
                .layer_forward(layer, x, &g, Some(&mut self.drop))?;
            if layer + 1 == layers {
                logits = Some(z);
                break;
            }
            let d = self.shared_dims[layer];
            let fresh = to_host(z.clone().detach());
            let mut v = vec![0f32; u * d];
            let mut m = vec![0f32; u];
            for &p in &blocks.targets[layer] {
                let p = p as usize;
                let i = blocks.nodes[p] as usize;
                let row = &fresh[p * d..(p + 1) * d];
                self.h.update(layer, i, row)?;
                let read = match self.ma.read {
                    ReadMode::MovingAverage => self.h.get(layer, i)?,
                    ReadMode::Fresh => row,
                };
                v[p * d..(p + 1) * d].copy_from_slice(read);
                m[p] = 1.0;
            }
            self.halo_values(&blocks, halo, layer, &mut v);
            let vt = Tensor::<2>::from_data(TensorData::new(v, [u, d]), &device);
            let mt = Tensor::<2>::from_data(TensorData::new(m, [u, 1]), &device);
            // Value V (H for computed own rows, Ĥ for halo rows); gradient through h̃ only.
            let zm = z * mt;
            if self.signal.is_some() {
                // The loss reaches layer ≤ ℓ only through the tracked signal G (below).
                let probe = Tensor::<2>::zeros([u, d], &device).require_grad();
                x = Input::Dense(probe.clone() + vt);
                probes.push((probe, zm));
            } else {
                x = Input::Dense(zm.clone() + (vt - zm.detach()));
            }
        }
        let logits = logits.expect("at least one layer");
        let (loss, loss_value) = self.batch_loss(logits, &blocks, &batch, &device)?;
        let grads = loss.backward();
        let mut grad = params::flatten_grad(&self.model, &grads);
        if !probes.is_empty() {
            let extra = self.signal_gradient(&blocks, probes, &grads, &device)?;
            for (a, b) in grad.iter_mut().zip(extra) {
                *a += b;
            }
        }
        if let Some(m) = &mut self.masks {
            // The gradient is with respect to W ⊙ M: M takes its step, W gets g ⊙ M.
            grad = m.split(&grad, &self.w, self.lr);
        }
        if let Some(c) = self.grad_clip {
            let norm = grad
                .iter()
                .map(|&x| f64::from(x).powi(2))
                .sum::<f64>()
                .sqrt();
            if norm > c {
                let scale = c / norm;
                grad.iter_mut()
                    .for_each(|x| *x = (f64::from(*x) * scale) as f32);
            }
        }
        if self.weight_decay > 0.0 {
            for (gi, &wi) in grad.iter_mut().zip(&self.w) {
                *gi += (self.weight_decay * f64::from(wi)) as f32;
            }
        }
        self.g.update(&grad)?;
        self.g.step(&mut self.w, self.lr)?;
        self.reload();
        Ok(Some(loss_value))
    }

    /// The class-weighted cross-entropy of `batch` (own local indices, in the order of the
    /// last layer's targets) from the last layer's `logits`, and its value.
    ///
    /// # Errors
    /// [`FedError::Inconsistent`] for a non-finite loss.
    fn batch_loss(
        &self,
        logits: Tensor<2>,
        blocks: &Blocks,
        batch: &[usize],
        device: &Device,
    ) -> Result<(Tensor<1>, f64)> {
        let layers = self.shared_dims.len() + 1;
        let bpos: Vec<i64> = blocks.targets[layers - 1]
            .iter()
            .map(|&p| i64::from(p))
            .collect();
        let n_b = bpos.len();
        let idx = Tensor::<1, burn::tensor::Int>::from_data(TensorData::new(bpos, [n_b]), device);
        let c = self.num_classes;
        let mut target = vec![0f32; n_b * c];
        let wsum: f32 = batch
            .iter()
            .map(|&i| self.class_weight[self.view.labels[i] as usize])
            .sum();
        for (k, &i) in batch.iter().enumerate() {
            let l = self.view.labels[i] as usize;
            target[k * c + l] = self.class_weight[l] / wsum.max(1e-12);
        }
        let target = Tensor::<2>::from_data(TensorData::new(target, [n_b, c]), device);
        let logp = burn::tensor::activation::log_softmax(logits.select(0, idx), 1);
        let loss = (logp * target).sum().neg();
        let loss_value = f64::from(loss.clone().into_scalar::<f32>());
        if !loss_value.is_finite() {
            return Err(FedError::Inconsistent(format!(
                "non-finite training loss {loss_value} (lower the learning rate)"
            )));
        }
        Ok((loss, loss_value))
    }

    /// The training objective over every own training node at the current W, computed
    /// exactly: every neighbour, no dropout, every layer fresh (no halo rows, no moving
    /// averages, no FED-PUB masks): the loss ([`Trainer::step`]'s class-weighted
    /// cross-entropy) and its gradient in W, flat like W (no weight decay, no clipping). On a
    /// view of the whole graph this is the global objective F and ∇F(W) of the convergence
    /// theorem. `None` without training nodes.
    ///
    /// # Errors
    /// Model errors; [`FedError::Inconsistent`] for a non-finite loss.
    ///
    /// # Complexity
    /// One forward and backward pass over the training nodes' full L-hop neighbourhood.
    pub(crate) fn full_gradient(&mut self) -> Result<Option<(f64, Vec<f32>)>> {
        if self.view.train.is_empty() {
            return Ok(None);
        }
        let batch = self.view.train.clone();
        let none = HaloTable::new(0, &self.shared_dims);
        let use_halo = std::mem::replace(&mut self.use_halo, false);
        let blocks = self.sample(&batch, &none, true);
        self.use_halo = use_halo;
        let device = self.device.clone();
        let layers = self.shared_dims.len() + 1;
        let mut x = self.input(&blocks, &device);
        for layer in 0..layers - 1 {
            let g = self.graph(&blocks, layer, &device)?;
            // Every source of the next layer is a target of this one: the rows are exact.
            x = Input::Dense(self.model.layer_forward(layer, x, &g, None)?);
        }
        let g = self.graph(&blocks, layers - 1, &device)?;
        let logits = self.model.layer_forward(layers - 1, x, &g, None)?;
        let (loss, value) = self.batch_loss(logits, &blocks, &batch, &device)?;
        let grads = loss.backward();
        Ok(Some((value, params::flatten_grad(&self.model, &grads))))
    }

    /// Per-node signal mode: G_v^(ℓ) ← (1−β) G_v^(ℓ) + β ∂L/∂h_v^(ℓ) for the own targets of every
    /// shared layer, then the gradient of the shared layers' parameters as the gradient of the
    /// surrogate Σ_ℓ Σ_v ⟨G_v^(ℓ), h̃_v^(ℓ)⟩ (G constant), flattened like W.
    fn signal_gradient(
        &mut self,
        blocks: &Blocks,
        probes: Vec<(Tensor<2>, Tensor<2>)>,
        grads: &burn::tensor::Gradients,
        device: &Device,
    ) -> Result<Vec<f32>> {
        let u = blocks.nodes.len();
        let mut surrogate: Option<Tensor<1>> = None;
        for (s, (probe, zm)) in probes.into_iter().enumerate() {
            let d = self.shared_dims[s];
            let sig = probe.grad(grads).map_or_else(|| vec![0.0; u * d], to_host);
            let est = self.signal.as_mut().expect("per-node mode");
            let mut gmat = vec![0f32; u * d];
            for &p in &blocks.targets[s] {
                let p = p as usize;
                let i = blocks.nodes[p] as usize;
                est.update_node(s, i, &sig[p * d..(p + 1) * d])?;
                gmat[p * d..(p + 1) * d].copy_from_slice(est.node(s, i)?);
            }
            let gt = Tensor::<2>::from_data(TensorData::new(gmat, [u, d]), device);
            let term = (zm * gt).sum();
            surrogate = Some(match surrogate {
                Some(acc) => acc + term,
                None => term,
            });
        }
        let surrogate = surrogate.expect("at least one shared layer");
        let g2 = surrogate.backward();
        Ok(params::flatten_grad(&self.model, &g2))
    }

    /// Full forward pass over all own nodes (all neighbours; halo rows Ĥ at layers ≥ 1) in
    /// evaluation mode: the hidden rows of every shared layer and the logits, per own node.
    pub(crate) fn full_forward(&mut self, halo: &HaloTable) -> Result<(Vec<Vec<f32>>, Vec<f32>)> {
        let all: Vec<usize> = (0..self.view.n_own()).collect();
        let blocks = self.sample(&all, halo, true);
        let device = self.device.clone().without_autodiff();
        let model = burn::module::Module::valid(&self.model);
        let layers = self.shared_dims.len() + 1;
        let mut x = self.input(&blocks, &device);
        let u = blocks.nodes.len();
        let mut hidden = Vec::with_capacity(layers - 1);
        let n_own = self.view.n_own();
        for layer in 0..layers {
            let g = self.graph(&blocks, layer, &device)?;
            let z = model.layer_forward(layer, x, &g, None)?;
            let mut out = to_host(z);
            if layer + 1 == layers {
                // Own nodes were inserted first, in order: positions 0..n_own.
                out.truncate(n_own * self.num_classes);
                return Ok((hidden, out));
            }
            let d = self.shared_dims[layer];
            // Non-own rows: Ĥ for halo nodes, zeros otherwise.
            for p in n_own..u {
                out[p * d..(p + 1) * d].iter_mut().for_each(|x| *x = 0.0);
            }
            self.halo_values(&blocks, halo, layer, &mut out);
            hidden.push(out[..n_own * d].to_vec());
            x = Input::Dense(Tensor::from_data(TensorData::new(out, [u, d]), &device));
        }
        unreachable!("the last layer returns")
    }

    /// FED-PUB's functional embedding: the mean over the nodes of a shared proxy graph
    /// (`edges` both ways, features `x`, all-zero edge features for a model that reads them)
    /// of the first layer's activated output under this client's current W (evaluation mode).
    ///
    /// # Errors
    /// Model errors (a proxy whose feature width is not the model's).
    pub(crate) fn functional_embedding(
        &self,
        edges: &[(u32, u32)],
        x: &Array2<f32>,
    ) -> Result<Vec<f32>> {
        let device = self.device.clone().without_autodiff();
        let model = burn::module::Module::valid(&self.eval_model());
        let mut el = EdgeList::new(x.nrows(), edges)?;
        if let Some(ef) = &self.view.edge_features
            && !self.gcn
        {
            // The proxy graph has no edge attributes: all-zero rows of the model's width [R].
            el = el.with_edge_features(Array2::zeros((edges.len(), ef.ncols())))?;
        }
        let g = GraphTensors::new(&el, &device);
        let z = to_host(model.layer_forward(0, Input::from_array(x, &device), &g, None)?);
        let d = z.len() / x.nrows().max(1);
        let mut mean = vec![0.0f32; d];
        for row in z.chunks(d) {
            for (m, v) in mean.iter_mut().zip(row) {
                *m += v / x.nrows() as f32;
            }
        }
        Ok(mean)
    }

    /// Round-0 bootstrap: H of every own node from a full forward pass with the current W.
    pub(crate) fn bootstrap(&mut self, halo: &HaloTable) -> Result<()> {
        let (hidden, _) = self.full_forward(halo)?;
        for (s, rows) in hidden.iter().enumerate() {
            let d = self.shared_dims[s];
            for i in 0..self.view.n_own() {
                self.h.update(s, i, &rows[i * d..(i + 1) * d])?;
            }
        }
        Ok(())
    }

    /// Predicted class of every own node.
    pub(crate) fn predict(&mut self, halo: &HaloTable) -> Result<Vec<u32>> {
        let train_model = self.masks.is_some().then(|| {
            let eval = self.eval_model();
            std::mem::replace(&mut self.model, eval)
        });
        let out = self.full_forward(halo);
        if let Some(m) = train_model {
            self.model = m;
        }
        let (_, logits) = out?;
        let c = self.num_classes;
        Ok(logits
            .chunks(c)
            .map(|row| {
                let mut best = 0;
                for k in 1..c {
                    if row[k] > row[best] {
                        best = k;
                    }
                }
                best as u32
            })
            .collect())
    }
}

fn model_device(model: &Gnn) -> Device {
    let mut dev = None;
    struct D<'a>(&'a mut Option<Device>);
    impl burn::module::ModuleVisitor for D<'_> {
        fn visit_float<const K: usize>(&mut self, p: &burn::module::Param<Tensor<K>>) {
            if self.0.is_none() {
                *self.0 = Some(p.val().device());
            }
        }
    }
    burn::module::Module::visit(model, &mut D(&mut dev));
    dev.expect("a GNN has parameters")
}

fn to_host(t: Tensor<2>) -> Vec<f32> {
    t.into_data()
        .convert::<f32>()
        .try_to_vec::<f32>()
        .expect("float tensor data converts to f32")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::FedTrainConfig;
    use rand::SeedableRng;

    /// FED-PUB's masks: W gets g ⊙ M plus the proximal pull (λ2·(θ − θ̄)/‖θ − θ̄‖ per tensor,
    /// biases included), M steps on g ⊙ W + λ1·sign(M) at masked entries only, and evaluation
    /// zeroes the entries below λ1.
    #[test]
    fn personal_masks_split_the_gradient_and_step_the_masks() {
        // One 2×1 weight matrix and a bias of 1.
        let mut m = PersonalMasks::new(&[(2, 2), (1, 1)], true, 0.1, 0.5);
        assert_eq!(m.masked_len(), 2);
        m.mask = vec![2.0, -0.05, 1.0];
        let w = [3.0f32, 4.0, 1.0];
        assert_eq!(m.effective(&w, false), [6.0, -0.2, 1.0]);
        // −0.05 is below λ1 = 0.1 in magnitude: zeroed in evaluation.
        assert_eq!(m.effective(&w, true), [6.0, 0.0, 1.0]);
        let g = [1.0f32, 1.0, 1.0];
        // No personalised model yet: no proximal term.
        let gw = m.split(&g, &w, 0.1);
        assert_eq!(gw, [2.0, -0.05, 1.0]);
        // M ← M − 0.1·(g·w + 0.1·sign(M)): 2 − 0.1·3.1, −0.05 − 0.1·(4 − 0.1); bias mask stays.
        assert!((m.mask[0] - 1.69).abs() < 1e-6, "{:?}", m.mask);
        assert!((m.mask[1] + 0.44).abs() < 1e-6, "{:?}", m.mask);
        assert_eq!(m.mask[2], 1.0);
        // With θ̄: the weight tensor is (3, 4) − (0, 0), norm 5; the bias 1 − 1 = 0 (no pull).
        m.anchor = Some(vec![0.0, 0.0, 1.0]);
        m.mask = vec![1.0, 1.0, 1.0];
        let gw = m.split(&[0.0, 0.0, 0.0], &w, 0.1);
        assert!((gw[0] - 0.5 * 3.0 / 5.0).abs() < 1e-6, "{gw:?}");
        assert!((gw[1] - 0.5 * 4.0 / 5.0).abs() < 1e-6, "{gw:?}");
        assert_eq!(gw[2], 0.0);
        // Without masking: nothing masked or zeroed, M stays 1, the proximal term alone.
        let mut p = PersonalMasks::new(&[(2, 2), (1, 1)], false, 2.0, 0.5);
        assert_eq!(p.masked_len(), 0);
        assert_eq!(p.effective(&w, true), w);
        p.anchor = Some(vec![0.0, 0.0, 1.0]);
        let gw = p.split(&g, &w, 0.1);
        assert!((gw[0] - (1.0 + 0.3)).abs() < 1e-6, "{gw:?}");
        assert_eq!(p.mask, [1.0, 1.0, 1.0]);
    }

    #[test]
    fn halo_rows_average_over_rounds_when_asked() {
        let mut h = HaloTable::new(2, &[2]);
        assert!(h.get(0, 0).is_none());
        h.set(0, 0, &[4.0, 0.0], Some(0.25));
        h.set(0, 0, &[0.0, 4.0], Some(0.25)); // running mean: r = 1/2
        assert_eq!(h.get(0, 0), Some(&[2.0f32, 2.0][..]));
        h.set(0, 0, &[5.0, 5.0], Some(0.25)); // r = 1/3
        assert_eq!(h.get(0, 0), Some(&[3.0f32, 3.0][..]));
        h.set(0, 0, &[7.0, 7.0], Some(0.25)); // r = max(1/4, 0.25)
        assert_eq!(h.get(0, 0), Some(&[4.0f32, 4.0][..]));
        h.set(0, 0, &[8.0, 8.0], Some(0.5)); // r = 0.5 > 1/5
        assert_eq!(h.get(0, 0), Some(&[6.0f32, 6.0][..]));
        // Without averaging the latest row replaces the old one.
        h.set(0, 1, &[1.0, 1.0], None);
        h.set(0, 1, &[9.0, -9.0], None);
        assert_eq!(h.get(0, 1), Some(&[9.0f32, -9.0][..]));
    }

    /// A sampled block whose neighbours are not targets of the last layer must aggregate with
    /// the same GCN normalisation as the full graph: the logits of a one-node batch equal the
    /// full-graph logits of that node.
    #[test]
    fn sampled_gcn_block_matches_the_full_graph() {
        let g =
            graph_core::Graph::from_edges(5, &[(0, 1), (1, 2), (2, 3), (1, 3), (3, 4)]).unwrap();
        let rng = ChaCha8Rng::seed_from_u64(5);
        let x = Array2::from_shape_fn((5, 3), |(i, j)| ((i * 3 + j) % 7) as f32 / 7.0);
        let cfg = FedTrainConfig {
            dropout: 0.0,
            fanout: None,
            hidden: 4,
            ..FedTrainConfig::default()
        };
        let device = Device::flex().autodiff();
        let model = cfg.model_config(3, None, 2).unwrap().init(&device).unwrap();
        let view = LocalView::new(
            &g,
            &EdgeIndex::new(&g),
            (0..5).collect(),
            Vec::new(),
            ViewData {
                features: x.clone(),
                labels: vec![0, 1, 0, 1, 0],
                num_classes: 2,
                train: &[true; 5],
                edge_features: None,
            },
        );
        let ma = MaConfig::new(1.0, 1.0).unwrap();
        let mut t = Trainer::new(view, model, ma, &cfg, false, rng).unwrap();
        let halo = HaloTable::new(0, &[4]);
        let (_, full) = t.full_forward(&halo).unwrap();
        for v in [1usize, 4] {
            let blocks = t.sample(&[v], &halo, false);
            let dev = device.clone().without_autodiff();
            let m = burn::module::Module::valid(&t.model);
            let g0 = t.graph(&blocks, 0, &dev).unwrap();
            let z0 = m
                .layer_forward(0, t.input(&blocks, &dev), &g0, None)
                .unwrap();
            let g1 = t.graph(&blocks, 1, &dev).unwrap();
            let out = to_host(m.layer_forward(1, Input::Dense(z0), &g1, None).unwrap());
            let p = blocks.targets[1][0] as usize;
            for c in 0..2 {
                let (a, b) = (out[p * 2 + c], full[v * 2 + c]);
                assert!((a - b).abs() < 1e-5, "node {v} class {c}: {a} vs {b}");
            }
        }
    }
}
