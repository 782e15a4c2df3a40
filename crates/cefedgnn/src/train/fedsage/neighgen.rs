//! NeighGen training of every client: the loss on the impaired graph ([`ClientGen::loss`]),
//! local training of all modules, then federated training of fGen with targets drawn from the
//! other clients ([`train_all`]).

use burn::module::Module;
use burn::optim::decay::WeightDecayConfig;
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Int, Tensor, TensorData};
use dp_core::rng::Seeds;
use gnn::tensors::DropoutRng;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

use super::model::{NeighGen, Propagation, mend_adjacency};
use super::targets::{Impaired, LocalGraph, Slots, attach_all, greedy_match, neighgen_sets};
use super::{CrossTargets, NeighGenConfig, streams};
use crate::error::{FedError, Result};

/// One client's NeighGen with its data on the training device.
pub(crate) struct ClientGen {
    /// G_i.
    pub(crate) graph: LocalGraph,
    /// G_i′ and the targets.
    pub(crate) impaired: Impaired,
    pub(crate) model: NeighGen,
    device: Device,
    x: Tensor<2>,
    prop: Propagation,
    train_idx: Tensor<1, Int>,
    train_missing: Vec<u32>,
    missing_t: Tensor<2>,
    train_targets: Vec<f32>,
    one_hot: Tensor<2>,
    k: usize,
    /// fGen noise of training.
    rng: ChaCha8Rng,
    drop: DropoutRng,
}

/// The targets of the cross-client feature loss L_f^{i←j} against one other client j
/// ([`CrossTargets`]).
pub(crate) enum Cross<'a> {
    /// The authors' code: K rows per node of T_i, matched greedily within the first
    /// min(K, n_v) as the own targets.
    Rows(&'a [f32]),
    /// The paper: all of j's feature rows `[n_j, d]`; each generated slot is matched with the
    /// nearest.
    Pool(&'a ndarray::Array2<f32>),
}

/// For each generated row `g_rows[s]` of `generated` (`[·, d]` rows), the index of the
/// nearest row of `pool` in squared distance (first on ties).
///
/// # Complexity
/// O(|g_rows|·n·d) for `pool: [n, d]`.
pub(crate) fn nearest_rows(
    generated: &[f32],
    g_rows: &[usize],
    pool: &ndarray::Array2<f32>,
) -> Vec<usize> {
    let d = pool.ncols();
    let g =
        ndarray::Array2::from_shape_fn((g_rows.len(), d), |(s, j)| generated[g_rows[s] * d + j]);
    let sq: Vec<f32> = pool.rows().into_iter().map(|r| r.dot(&r)).collect();
    let dots = g.dot(&pool.t());
    dots.rows()
        .into_iter()
        .map(|row| {
            row.iter()
                .zip(&sq)
                .map(|(&gx, &xx)| xx - 2.0 * gx)
                .enumerate()
                .fold((0, f32::INFINITY), |a, b| if b.1 < a.1 { b } else { a })
                .0
        })
        .collect()
}

/// The loss of one forward pass, with its parts.
pub(crate) struct Loss {
    /// The total (None without training nodes).
    pub(crate) total: Option<Tensor<1>>,
    /// Its value.
    pub(crate) value: f64,
}

fn upload(v: Vec<f32>, shape: [usize; 2], device: &Device) -> Tensor<2> {
    Tensor::from_data(TensorData::new(v, shape), device)
}

fn to_host(t: Tensor<2>) -> Vec<f32> {
    t.into_data()
        .convert::<f32>()
        .try_to_vec::<f32>()
        .expect("float tensor data converts to f32")
}

/// N(0, 1) noise `[n, c]` from `rng`.
pub(crate) fn normal(rng: &mut ChaCha8Rng, n: usize, c: usize, device: &Device) -> Tensor<2> {
    let v: Vec<f32> = (0..n * c)
        .map(|_| {
            let z: f64 = StandardNormal.sample(rng);
            z as f32
        })
        .collect();
    upload(v, [n, c], device)
}

/// Mean smooth-L1 (Huber, δ = 1): with a = |x − y| and q = min(a, 1), q·(a − q/2).
fn smooth_l1(x: Tensor<2>, y: Tensor<2>) -> Tensor<1> {
    let a = (x - y).abs();
    let q = a.clone().clamp_max(1.0);
    (q.clone() * (a - q.mul_scalar(0.5))).mean()
}

impl ClientGen {
    /// Client `i`'s NeighGen over its local graph `graph` with `classes` classes: NeighGen's
    /// sets, the impaired graph and a fresh model, all drawn from the run's `seeds`.
    pub(crate) fn new(
        graph: LocalGraph,
        classes: usize,
        cfg: &NeighGenConfig,
        seeds: &Seeds,
        i: u64,
    ) -> Self {
        let device = Device::flex().autodiff();
        let k = cfg.max_generated;
        let d = graph.dim();
        let mut hide = seeds.chacha8(streams::HIDE, i);
        let (train, test) = neighgen_sets(&graph, cfg.split, &mut hide);
        let impaired = Impaired::new(&graph, &train, &test, cfg.hide_fraction, k, &mut hide);
        let model = NeighGen::new(
            d,
            classes,
            cfg,
            &device,
            &mut seeds.chacha8(streams::INIT, i),
        );
        let mut rng = seeds.chacha8(streams::TRAIN, i);
        let drop = DropoutRng::new(&mut rng);
        let rows: Vec<usize> = impaired.kept.clone();
        let x = graph.features.select(ndarray::Axis(0), &rows);
        let x = upload(x.iter().copied().collect(), [rows.len(), d], &device);
        let t = impaired.train.len();
        let train_idx = Tensor::from_data(
            TensorData::new(
                impaired.train.iter().map(|&p| p as i64).collect::<Vec<_>>(),
                [t],
            ),
            &device,
        );
        let train_missing = impaired.train_missing();
        let missing_t = upload(
            train_missing.iter().map(|&n| n as f32).collect(),
            [t, 1],
            &device,
        );
        let mut hot = vec![0f32; t * classes];
        for (r, &p) in impaired.train.iter().enumerate() {
            hot[r * classes + graph.labels[impaired.kept[p]] as usize] = 1.0;
        }
        Self {
            prop: Propagation::new(&impaired.adj, &device),
            one_hot: upload(hot, [t, classes], &device),
            train_targets: impaired.train_targets(k, d),
            train_missing,
            missing_t,
            train_idx,
            x,
            impaired,
            graph,
            model,
            device,
            k,
            rng,
            drop,
        }
    }

    /// The loss of one training forward pass on G_i′:
    /// `scale`·[λ_d·SmoothL1(ñ, n) + λ_f·(L_f + Σ_j L_f^{←j}) + λ_c·CE] over T_i, where
    /// L_f^{←j} is the feature loss against `cross[j]` ([`Cross`]: K rows per node of T_i
    /// matched within the first min(K, n_v) as for the own targets, or every slot p < m_v
    /// matched with its nearest row of client j), normalised as L_f.
    ///
    /// # Errors
    /// [`FedError::Inconsistent`] for a non-finite loss.
    pub(crate) fn loss(
        &mut self,
        cfg: &NeighGenConfig,
        cross: &[Cross<'_>],
        scale: f64,
    ) -> Result<Loss> {
        let t = self.impaired.train.len();
        if t == 0 {
            return Ok(Loss {
                total: None,
                value: 0.0,
            });
        }
        let (n, d, k) = (self.impaired.kept.len(), self.graph.dim(), self.k);
        let noise = normal(&mut self.rng, n, cfg.latent, &self.device).mul_scalar(cfg.noise);
        let out = self.model.generate(
            self.x.clone(),
            &self.prop,
            noise,
            cfg.dropout,
            Some(&mut self.drop),
        );
        let counts = to_host(out.count.clone().detach());
        let m = attach_all(&counts, k, cfg.rounding, &mut self.rng);
        let generated = to_host(out.features.clone().detach());
        let l_d = smooth_l1(
            out.count.clone().select(0, self.train_idx.clone()),
            self.missing_t.clone(),
        );
        let m_t: Vec<usize> = self.impaired.train.iter().map(|&p| m[p]).collect();
        let mut total = l_d.mul_scalar(cfg.lambda_count);
        let slots = Slots {
            rows: &self.impaired.train,
            attach: &m_t,
            counts: &self.train_missing,
        };
        let own = Cross::Rows(&self.train_targets);
        let matched: Vec<(Vec<i64>, Vec<f32>)> = std::iter::once(&own)
            .chain(cross)
            .map(|targets| match targets {
                Cross::Rows(t) => {
                    let pairs = greedy_match(&generated, t, slots, k, d).pairs;
                    let rows = pairs
                        .iter()
                        .flat_map(|&(_, q)| t[q * d..(q + 1) * d].iter().copied())
                        .collect();
                    (pairs.iter().map(|&(g, _)| g as i64).collect(), rows)
                }
                Cross::Pool(pool) => {
                    let g_rows: Vec<usize> = slots
                        .rows
                        .iter()
                        .zip(&m_t)
                        .flat_map(|(&v, &m)| (0..m.min(k)).map(move |p| v * k + p))
                        .collect();
                    let rows = nearest_rows(&generated, &g_rows, pool)
                        .into_iter()
                        .flat_map(|u| pool.row(u).to_vec())
                        .collect();
                    (g_rows.into_iter().map(|g| g as i64).collect(), rows)
                }
            })
            .collect();
        for (gi, rows) in matched {
            if gi.is_empty() {
                continue;
            }
            let pairs = gi.len();
            let idx = Tensor::from_data(TensorData::new(gi, [pairs]), &self.device);
            let l_f = (out.features.clone().select(0, idx)
                - upload(rows, [pairs, d], &self.device))
            .square()
            .sum()
            .div_scalar((d * t * k) as f64);
            total = total + l_f.mul_scalar(cfg.lambda_feature);
        }
        let (adj, gen_rows) = mend_adjacency(&self.impaired.adj, &m, k);
        let x = if gen_rows.is_empty() {
            self.x.clone()
        } else {
            let g = gen_rows.len();
            let idx = Tensor::from_data(TensorData::new(gen_rows, [g]), &self.device);
            Tensor::cat(vec![self.x.clone(), out.features.select(0, idx)], 0)
        };
        let logits = self.model.classifier.forward(
            x,
            &Propagation::new(&adj, &self.device),
            cfg.dropout,
            Some(&mut self.drop),
        );
        let logp = log_softmax(logits.select(0, self.train_idx.clone()), 1);
        let l_c = (logp * self.one_hot.clone())
            .sum()
            .mul_scalar(-1.0 / t as f64);
        let total = (total + l_c.mul_scalar(cfg.lambda_class)).mul_scalar(scale);
        let value = f64::from(total.clone().into_scalar::<f32>());
        if !value.is_finite() {
            return Err(FedError::Inconsistent(format!(
                "non-finite NeighGen loss {value} (lower neighgen.lr)"
            )));
        }
        Ok(Loss {
            total: Some(total),
            value,
        })
    }

    /// K target rows per node of T_i drawn from client `other`'s local graph: per node, a
    /// uniform node of `other` with at least one neighbour, then K of its neighbours drawn
    /// with replacement (`None` when no node of `other` has a neighbour).
    pub(crate) fn draw_cross(&self, other: &LocalGraph, rng: &mut ChaCha8Rng) -> Option<Vec<f32>> {
        let with_nbr: Vec<usize> = (0..other.len())
            .filter(|&v| !other.adj[v].is_empty())
            .collect();
        if with_nbr.is_empty() {
            return None;
        }
        let d = other.dim();
        let mut out = Vec::with_capacity(self.impaired.train.len() * self.k * d);
        for _ in 0..self.impaired.train.len() {
            let u = with_nbr[rng.random_range(0..with_nbr.len())];
            for _ in 0..self.k {
                let w = other.adj[u][rng.random_range(0..other.adj[u].len())];
                out.extend(other.features.row(w as usize).iter().copied());
            }
        }
        Some(out)
    }
}

fn adam(cfg: &NeighGenConfig) -> ModuleOptimizer {
    let mut a = AdamConfig::new().with_epsilon(1e-8);
    if cfg.weight_decay > 0.0 {
        a = a.with_weight_decay(Some(WeightDecayConfig::new(cfg.weight_decay as f32)));
    }
    a.init()
}

/// Local NeighGen training of one client: [`NeighGenConfig::local_epochs`] full-batch Adam
/// steps on all modules; the loss of every epoch.
///
/// # Errors
/// As [`ClientGen::loss`].
pub(crate) fn train_local(c: &mut ClientGen, cfg: &NeighGenConfig) -> Result<Vec<f64>> {
    let mut optim = adam(cfg);
    let mut losses = Vec::new();
    for _ in 0..cfg.local_epochs {
        let Loss { total, value } = c.loss(cfg, &[], 1.0)?;
        let Some(total) = total else { break };
        let grads = GradientsParams::from_grads(total.backward(), &c.model);
        c.model = optim.step(cfg.lr, c.model.clone(), grads);
        losses.push(value);
    }
    Ok(losses)
}

/// What the federated phase moved and how its loss went.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct FedPhase {
    /// Per epoch, the sum over clients of their loss.
    pub(crate) losses: Vec<f64>,
    /// Per epoch and ordered client pair (i, j) that exchanged: |T_i|.
    pub(crate) exchanged_rows: Vec<u64>,
}

/// Every client's local training, then [`NeighGenConfig::fed_epochs`] epochs of federated fGen
/// training: per epoch and client i, the loss (1/M)·[L_i + λ_f Σ_{j≠i} L_f^{i←j}] against
/// every other client j ([`NeighGenConfig::cross`]: all of j's rows, or fresh random
/// neighbours), one step of a fresh Adam on fGen only.
///
/// # Errors
/// As [`ClientGen::loss`].
pub(crate) fn train_all(
    clients: &mut [ClientGen],
    cfg: &NeighGenConfig,
    seeds: &Seeds,
) -> Result<FedPhase> {
    for c in clients.iter_mut() {
        train_local(c, cfg)?;
    }
    let m = clients.len();
    let mut optims: Vec<ModuleOptimizer> = (0..m).map(|_| adam(cfg)).collect();
    let mut draws: Vec<ChaCha8Rng> = (0..m)
        .map(|i| seeds.chacha8(streams::CROSS, i as u64))
        .collect();
    let pools: Vec<ndarray::Array2<f32>> =
        clients.iter().map(|c| c.graph.features.clone()).collect();
    let mut phase = FedPhase::default();
    for _ in 0..cfg.fed_epochs {
        let mut epoch_loss = 0.0;
        for i in 0..m {
            let mut drawn = Vec::new();
            for j in (0..m).filter(|&j| j != i) {
                let t = match cfg.cross {
                    CrossTargets::RandomNeighbours => {
                        clients[i].draw_cross(&clients[j].graph, &mut draws[i])
                    }
                    CrossTargets::Nearest => (clients[j].graph.len() > 0).then(Vec::new),
                };
                if let Some(t) = t {
                    phase
                        .exchanged_rows
                        .push(clients[i].impaired.train.len() as u64);
                    drawn.push((j, t));
                }
            }
            let cross: Vec<Cross<'_>> = drawn
                .iter()
                .map(|(j, t)| match cfg.cross {
                    CrossTargets::RandomNeighbours => Cross::Rows(t),
                    CrossTargets::Nearest => Cross::Pool(&pools[*j]),
                })
                .collect();
            let c = &mut clients[i];
            let Loss { total, value } = c.loss(cfg, &cross, 1.0 / m as f64)?;
            let Some(total) = total else { continue };
            let grads = GradientsParams::from_grads(total.backward(), &c.model.fgen);
            c.model.fgen = optims[i].step(cfg.lr, c.model.fgen.clone(), grads);
            epoch_loss += value;
        }
        phase.losses.push(epoch_loss);
    }
    Ok(phase)
}

/// Evaluation-mode NeighGen of `c` on the graph with neighbour lists `adj` and feature rows
/// `rows` of G_i (one forward pass, fGen noise from `rng`, no dropout): per node, the
/// generated rows it attaches (m_v of [`NeighGenConfig::rounding`], drawn from `rng` after the
/// noise, rows of d features).
pub(crate) fn generate_for(
    c: &ClientGen,
    adj: &[Vec<u32>],
    rows: &[usize],
    cfg: &NeighGenConfig,
    rng: &mut ChaCha8Rng,
) -> Vec<Vec<Vec<f32>>> {
    let device = Device::flex();
    let d = c.graph.dim();
    let x = c.graph.features.select(ndarray::Axis(0), rows);
    let x = upload(x.iter().copied().collect(), [rows.len(), d], &device);
    let model = c.model.valid();
    let noise = normal(rng, rows.len(), cfg.latent, &device).mul_scalar(cfg.noise);
    let out = model.generate(x, &Propagation::new(adj, &device), noise, 0.0, None);
    let counts = to_host(out.count);
    let g = to_host(out.features);
    let k = c.k;
    attach_all(&counts, k, cfg.rounding, rng)
        .into_iter()
        .enumerate()
        .map(|(v, m)| {
            (0..m)
                .map(|p| g[(v * k + p) * d..(v * k + p + 1) * d].to_vec())
                .collect()
        })
        .collect()
}

/// Evaluation-mode predicted counts ñ of `c` on its impaired graph G_i′ (no noise, no
/// dropout), one per node of G_i′.
pub(crate) fn predicted_counts(c: &ClientGen, cfg: &NeighGenConfig) -> Vec<f32> {
    let n = c.impaired.kept.len();
    if n == 0 {
        return Vec::new();
    }
    let device = Device::flex();
    let d = c.graph.dim();
    let x = c.graph.features.select(ndarray::Axis(0), &c.impaired.kept);
    let x = upload(x.iter().copied().collect(), [n, d], &device);
    let noise = Tensor::zeros([n, cfg.latent], &device);
    let out = c.model.valid().generate(
        x,
        &Propagation::new(&c.impaired.adj, &device),
        noise,
        0.0,
        None,
    );
    to_host(out.count)
}
