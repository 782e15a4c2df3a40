//! FED-PUB's personalised averaging (Baek et al. 2023) as the in-process server computes it.

use dp_core::rng::Seeds;

use super::FedTrainConfig;
use super::local::Trainer;
use crate::error::Result;

/// FED-PUB's server side: a proxy graph of 5 disjoint Erdős–Rényi blocks of 100 nodes (edge
/// probability 0.1, features N(0, 1)), drawn once from the run's seed and sent to every client;
/// after each round, the personalised models θ̄_i = Σ_j α_ij θ_j with
/// α_i = softmax_j(τ · cos(e_i, e_j)) ([`super::FedPubConfig::tau`], the authors' default 10).
/// The bytes up count each client's embedding and, with masks, its masks (FED-PUB uploads
/// them with the model; the server ignores them).
pub(crate) struct FedPub {
    edges: Vec<(u32, u32)>,
    x: ndarray::Array2<f32>,
    /// The personalised models the clients take at the start of the next round.
    pub(crate) next: Option<Vec<Vec<f32>>>,
    /// Bytes of the functional embeddings (and masks) sent up so far.
    pub(crate) bytes_up: u64,
    tau: f64,
}

/// Purpose name of FED-PUB's proxy graph in [`Seeds`].
const FED_PUB_STREAM: &str = "cefedgnn/fed-pub-proxy";

impl FedPub {
    pub(crate) fn new(cfg: &FedTrainConfig, d_in: usize) -> Self {
        use rand::RngExt;
        use rand_distr::{Distribution, StandardNormal};
        let mut rng = Seeds::new(cfg.seed).chacha8(FED_PUB_STREAM, 0);
        let (blocks, size, p) = (5u32, 100u32, 0.1);
        let mut edges = Vec::new();
        for b in 0..blocks {
            for u in 0..size {
                for v in u + 1..size {
                    if rng.random_bool(p) {
                        let (u, v) = (b * size + u, b * size + v);
                        edges.extend([(u, v), (v, u)]);
                    }
                }
            }
        }
        let n = (blocks * size) as usize;
        let x = ndarray::Array2::from_shape_fn((n, d_in), |_| {
            let z: f64 = StandardNormal.sample(&mut rng);
            z as f32
        });
        Self {
            edges,
            x,
            next: None,
            bytes_up: 0,
            tau: cfg.fed_pub.tau,
        }
    }

    /// The personalised models from the clients' current W and functional embeddings.
    pub(crate) fn personalise(&mut self, trainers: &[Trainer]) -> Result<()> {
        let emb = trainers
            .iter()
            .map(|t| t.functional_embedding(&self.edges, &self.x))
            .collect::<Result<Vec<_>>>()?;
        self.bytes_up += emb.iter().map(|e| e.len() as u64 * 4).sum::<u64>();
        self.bytes_up += trainers
            .iter()
            .filter_map(Trainer::masks)
            .map(|m| m.masked_len() as u64 * 4)
            .sum::<u64>();
        let cos = |a: &[f32], b: &[f32]| -> f64 {
            let dot: f64 = a
                .iter()
                .zip(b)
                .map(|(x, y)| f64::from(*x) * f64::from(*y))
                .sum();
            let na: f64 = a.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
            let nb: f64 = b.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
            if na == 0.0 || nb == 0.0 {
                0.0
            } else {
                dot / (na * nb)
            }
        };
        let m = trainers.len();
        let mut next = Vec::with_capacity(m);
        for i in 0..m {
            let logits: Vec<f64> = (0..m).map(|j| self.tau * cos(&emb[i], &emb[j])).collect();
            let top = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let w: Vec<f64> = logits.iter().map(|l| (l - top).exp()).collect();
            let z: f64 = w.iter().sum();
            let mut theta = vec![0.0f64; trainers[i].w.len()];
            for (j, t) in trainers.iter().enumerate() {
                let a = w[j] / z;
                for (o, &v) in theta.iter_mut().zip(&t.w) {
                    *o += a * f64::from(v);
                }
            }
            next.push(theta.into_iter().map(|v| v as f32).collect());
        }
        self.next = Some(next);
        Ok(())
    }
}
