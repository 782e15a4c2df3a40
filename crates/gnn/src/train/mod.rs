//! Training loops: full-batch node classification ([`train_node_classifier`]) and mini-batch
//! graph classification / regression ([`train_graph_model`]), with Adam + L2 weight decay,
//! early stopping on validation accuracy or loss with patience, best-weight restoration, seeded
//! reproducibility and an optional progress bar.

mod graph;
mod node;

use std::io::IsTerminal;

use burn::config::Config;
use burn::optim::decay::WeightDecayConfig;
use burn::optim::{AdamConfig, ModuleOptimizer};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Tensor, TensorData};
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};

pub use graph::{GraphResult, GraphSplit, train_graph_model};
pub use node::{NodeResult, predict_nodes, train_node_classifier};

use crate::error::{Error, Result};

/// What early stopping watches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Monitor {
    /// Validation accuracy (higher is better; ties broken by lower validation loss). For
    /// regression this falls back to the validation loss.
    ValAccuracy,
    /// Validation loss (lower is better).
    ValLoss,
}

/// Optimiser and early-stopping settings (EdgeRefine defaults: lr 0.005, weight decay 1e-5,
/// ≤ 700 epochs, patience 100 on validation accuracy).
///
/// # Example
/// ```
/// let cfg = gnn::TrainConfig::new().with_max_epochs(50).with_seed(3);
/// assert_eq!((cfg.lr, cfg.patience, cfg.seed), (0.005, Some(100), 3));
/// ```
#[derive(Config, Debug, PartialEq)]
pub struct TrainConfig {
    /// Adam learning rate.
    #[config(default = 0.005)]
    pub lr: f64,
    /// L2 weight decay added to the gradients (PyTorch `Adam(weight_decay=…)`).
    #[config(default = 1e-5)]
    pub weight_decay: f64,
    /// Maximum number of epochs.
    #[config(default = 700)]
    pub max_epochs: usize,
    /// Stop after this many epochs without improvement (None: run all epochs, still
    /// restoring the best weights).
    #[config(default = "Some(100)")]
    pub patience: Option<usize>,
    /// Early-stopping criterion.
    #[config(default = "Monitor::ValAccuracy")]
    pub monitor: Monitor,
    /// Mini-batch size (graph tasks).
    #[config(default = 32)]
    pub batch_size: usize,
    /// Seed of parameter initialisation, dropout and batch order.
    #[config(default = 0)]
    pub seed: u64,
    /// Show a progress bar (only when stderr is a terminal).
    #[config(default = false)]
    pub progress: bool,
}

impl TrainConfig {
    fn check(&self) -> Result<()> {
        if !(self.lr.is_finite() && self.lr > 0.0) {
            return Err(Error::InvalidParam {
                name: "lr",
                value: self.lr.to_string(),
                reason: "must be positive and finite",
            });
        }
        if !(self.weight_decay.is_finite() && self.weight_decay >= 0.0) {
            return Err(Error::InvalidParam {
                name: "weight_decay",
                value: self.weight_decay.to_string(),
                reason: "must be non-negative and finite",
            });
        }
        crate::error::check_positive(&[
            ("max_epochs", self.max_epochs),
            ("batch_size", self.batch_size),
            ("patience", self.patience.unwrap_or(1)),
        ])
    }

    fn optimizer(&self) -> ModuleOptimizer {
        let mut adam = AdamConfig::new().with_epsilon(1e-8);
        if self.weight_decay > 0.0 {
            adam = adam.with_weight_decay(Some(WeightDecayConfig::new(self.weight_decay as f32)));
        }
        adam.init()
    }

    fn progress_bar(&self, what: &str) -> Option<ProgressBar> {
        (self.progress && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::new(self.max_epochs as u64);
            bar.set_style(
                ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {msg}")
                    .expect("static template")
                    .progress_chars("=> "),
            );
            bar.set_prefix(what.to_string());
            bar
        })
    }
}

/// Checks that `model` reads `features` columns and writes `outputs` columns; `what` names the
/// output check in the error.
fn check_model_dims(
    model: &crate::model::ModelConfig,
    features: usize,
    outputs: usize,
    what: &'static str,
) -> Result<()> {
    let (din, dout) = model.io_dims();
    if din != features {
        return Err(Error::Shape {
            what: "model input width vs. features",
            expected: features,
            got: din,
        });
    }
    if dout != outputs {
        return Err(Error::Shape {
            what,
            expected: outputs,
            got: dout,
        });
    }
    Ok(())
}

/// One epoch's log.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EpochLog {
    /// Epoch (0-based).
    pub epoch: usize,
    /// Mean training loss.
    pub train_loss: f64,
    /// Validation loss.
    pub val_loss: f64,
    /// Validation accuracy (NaN for regression).
    pub val_acc: f64,
}

/// Early stopping state.
struct Stopper {
    monitor: Monitor,
    best: Option<(f64, f64)>,
    best_epoch: usize,
    patience: Option<usize>,
}

impl Stopper {
    fn new(monitor: Monitor, patience: Option<usize>) -> Self {
        Self {
            monitor,
            best: None,
            best_epoch: 0,
            patience,
        }
    }

    /// Records an epoch; returns whether it is the best so far.
    fn improved(&mut self, epoch: usize, val_acc: f64, val_loss: f64) -> bool {
        let better = match (self.best, self.monitor) {
            (None, _) => true,
            (Some((_, bl)), Monitor::ValLoss) => val_loss < bl,
            (Some((ba, bl)), Monitor::ValAccuracy) => {
                if val_acc.is_nan() {
                    val_loss < bl
                } else {
                    val_acc > ba || (val_acc == ba && val_loss < bl)
                }
            }
        };
        if better {
            self.best = Some((val_acc, val_loss));
            self.best_epoch = epoch;
        }
        better
    }

    fn should_stop(&self, epoch: usize) -> bool {
        self.patience.is_some_and(|p| epoch >= self.best_epoch + p)
    }
}

/// Mean cross-entropy of `[m, C]` logits against one-hot targets `[m, C]`.
pub(crate) fn cross_entropy(logits: Tensor<2>, one_hot: Tensor<2>) -> Tensor<1> {
    let m = logits.dims()[0] as f64;
    (log_softmax(logits, 1) * one_hot)
        .sum()
        .mul_scalar(-1.0 / m)
}

pub(crate) fn one_hot(labels: &[u32], num_classes: usize, device: &Device) -> Tensor<2> {
    let mut v = vec![0f32; labels.len() * num_classes];
    for (i, &l) in labels.iter().enumerate() {
        v[i * num_classes + l as usize] = 1.0;
    }
    Tensor::from_data(TensorData::new(v, [labels.len(), num_classes]), device)
}

/// Row-wise argmax and mean cross-entropy of host logits `[rows, c]` restricted to `rows`.
pub(crate) fn host_eval(logits: &[f32], c: usize, rows: &[usize], labels: &[u32]) -> (f64, f64) {
    let mut hits = 0usize;
    let mut loss = 0f64;
    for &r in rows {
        let row = &logits[r * c..(r + 1) * c];
        let (arg, max) = argmax(row);
        let lse = max as f64
            + row
                .iter()
                .map(|&v| f64::from(v - max).exp())
                .sum::<f64>()
                .ln();
        loss += lse - f64::from(row[labels[r] as usize]);
        hits += usize::from(arg as u32 == labels[r]);
    }
    let m = rows.len().max(1) as f64;
    (hits as f64 / m, loss / m)
}

pub(crate) fn argmax(row: &[f32]) -> (usize, f32) {
    row.iter()
        .enumerate()
        .fold((0, f32::NEG_INFINITY), |(bi, bv), (i, &v)| {
            if v > bv { (i, v) } else { (bi, bv) }
        })
}

pub(crate) fn to_host(t: Tensor<2>) -> Vec<f32> {
    t.into_data()
        .convert::<f32>()
        .try_to_vec::<f32>()
        .expect("f32 data after conversion")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn early_stopping_tracks_best_and_patience() {
        let mut s = Stopper::new(Monitor::ValAccuracy, Some(2));
        assert!(s.improved(0, 0.5, 1.0));
        assert!(!s.improved(1, 0.4, 0.5));
        assert!(s.improved(2, 0.5, 0.9)); // tie on accuracy, lower loss
        assert!(!s.should_stop(3));
        assert!(!s.improved(4, 0.5, 0.95));
        assert!(s.should_stop(4));
        let mut l = Stopper::new(Monitor::ValLoss, None);
        assert!(l.improved(0, 0.1, 1.0));
        assert!(!l.improved(1, 0.9, 1.1));
        assert!(!l.should_stop(1000));
    }

    #[test]
    fn host_eval_by_hand() {
        // Row 0: logits (0, ln 3) → p = (1/4, 3/4), label 1: loss ln(4/3), hit.
        // Row 1: logits (0, 0), label 0: loss ln 2, argmax 0 (first max) → hit.
        let l = [0.0, 3f32.ln(), 0.0, 0.0];
        let (acc, loss) = host_eval(&l, 2, &[0, 1], &[1, 0]);
        assert_eq!(acc, 1.0);
        assert!((loss - ((4.0f64 / 3.0).ln() + 2f64.ln()) / 2.0).abs() < 1e-6);
    }
}
