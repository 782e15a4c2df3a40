//! Swift-FedGNN's cross-client schedule: which clients take a round's cross-client step.

use dp_core::rng::{ChaCha8Rng, Seeds};

use super::FedTrainConfig;
use super::local::{HaloTable, Trainer};

/// Swift-FedGNN's schedule: each round, `per_round` clients drawn without replacement take
/// their first local step with the halo rows; every other step reads an empty halo table.
pub(crate) struct Swift {
    rng: ChaCha8Rng,
    per_round: usize,
    pub(crate) empty: Vec<HaloTable>,
}

/// Purpose name of Swift-FedGNN's client sampling in [`Seeds`].
const SWIFT_STREAM: &str = "cefedgnn/swift-clients";

impl Swift {
    pub(crate) fn new(cfg: &FedTrainConfig, trainers: &[Trainer], shared: &[usize]) -> Self {
        let m = trainers.len();
        Self {
            rng: Seeds::new(cfg.seed).chacha8(SWIFT_STREAM, 0),
            per_round: cfg.swift_clients.unwrap_or(m.div_ceil(2)).min(m),
            empty: trainers
                .iter()
                .map(|t| HaloTable::new(t.view.halo.len(), shared))
                .collect(),
        }
    }

    /// Whether each client takes this round's cross-client step.
    pub(crate) fn draw(&mut self) -> Vec<bool> {
        let m = self.empty.len();
        let mut picked = vec![false; m];
        for i in rand::seq::index::sample(&mut self.rng, m, self.per_round) {
            picked[i] = true;
        }
        picked
    }
}
