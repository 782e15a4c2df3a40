//! Mini-batch graph classification and regression over a [`GraphTask`].

use burn::module::Module;
use burn::optim::GradientsParams;
use burn::tensor::{Device, Tensor, TensorData};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{EpochLog, Stopper, TrainConfig, cross_entropy, host_eval, one_hot, to_host};
use crate::data::{GraphTargets, GraphTask};
use crate::error::{Error, Result};
use crate::metrics;
use crate::model::{Gnn, ModelConfig};
use crate::tensors::{DropoutRng, GraphInput};

/// Train / validation / test graph indices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraphSplit {
    /// Training graphs.
    pub train: Vec<usize>,
    /// Validation graphs.
    pub val: Vec<usize>,
    /// Test graphs.
    pub test: Vec<usize>,
}

impl GraphSplit {
    /// A seeded random split: the first `round(train_frac·n)` graphs of a permutation train,
    /// the next `round(val_frac·n)` validate, the rest test.
    ///
    /// # Errors
    /// [`Error::Graph`] (invalid parameter) for fractions outside `[0, 1]` or summing above 1.
    ///
    /// # Example
    /// ```
    /// use rand::SeedableRng;
    /// let s = gnn::GraphSplit::random(188, 0.8, 0.1, &mut rand_chacha::ChaCha8Rng::seed_from_u64(0))?;
    /// assert_eq!((s.train.len(), s.val.len(), s.test.len()), (150, 19, 19));
    /// # Ok::<(), gnn::Error>(())
    /// ```
    pub fn random<R: Rng + ?Sized>(
        n: usize,
        train_frac: f64,
        val_frac: f64,
        rng: &mut R,
    ) -> Result<Self> {
        let [train, val, test] = graph_core::random_split_indices(n, train_frac, val_frac, rng)?;
        Ok(Self { train, val, test })
    }
}

/// Outcome of [`train_graph_model`].
#[derive(Debug)]
pub struct GraphResult {
    /// Model with the best-validation weights, in evaluation mode.
    pub model: Gnn,
    /// Epoch of the best validation score.
    pub best_epoch: usize,
    /// Epochs run.
    pub epochs: usize,
    /// Validation accuracy (classification) of the best weights; NaN for regression.
    pub val_acc: f64,
    /// Test accuracy; NaN for regression or an empty test set.
    pub test_acc: f64,
    /// Test ROC-AUC for binary classification (NaN otherwise or when undefined).
    pub test_auc: f64,
    /// Test macro-F1 (classification; NaN otherwise).
    pub test_macro_f1: f64,
    /// Test RMSE (regression; NaN otherwise).
    pub test_rmse: f64,
    /// Validation RMSE (regression; NaN otherwise).
    pub val_rmse: f64,
    /// Per-epoch log.
    pub history: Vec<EpochLog>,
}

enum Target {
    Class(Vec<u32>, usize),
    Real(Vec<f32>),
}

/// Per-set evaluation of host outputs: (accuracy or NaN, loss, outputs).
fn evaluate(out: &[f32], width: usize, idx: &[usize], target: &Target) -> (f64, f64) {
    let rows: Vec<usize> = (0..idx.len()).collect();
    match target {
        Target::Class(labels, _) => {
            let l: Vec<u32> = idx.iter().map(|&i| labels[i]).collect();
            host_eval(out, width, &rows, &l)
        }
        Target::Real(y) => {
            let mse = idx
                .iter()
                .enumerate()
                .map(|(r, &i)| f64::from(out[r] - y[i]).powi(2))
                .sum::<f64>()
                / idx.len().max(1) as f64;
            (f64::NAN, mse)
        }
    }
}

/// Trains a graph-level (pooling) `model` on the graphs of `split.train` in shuffled
/// mini-batches of `cfg.batch_size`: cross-entropy for class targets, mean squared error for
/// real targets; evaluation on `split.val` every epoch, early stopping with patience, best
/// weights restored. Same `cfg.seed` → same numbers.
///
/// # Errors
/// [`Error::Incompatible`] for a node-level model; [`Error::Shape`] for widths that do not fit
/// the task or graph indices out of range; [`Error::Empty`] for an empty train or validation
/// set; [`Error::InvalidParam`] for bad settings.
pub fn train_graph_model(
    task: &GraphTask,
    split: &GraphSplit,
    model: &ModelConfig,
    cfg: &TrainConfig,
    device: &Device,
) -> Result<GraphResult> {
    cfg.check()?;
    if !model.is_graph_level() {
        return Err(Error::Incompatible(
            "graph-level training needs a model with pooling".into(),
        ));
    }
    super::check_model_dims(
        model,
        task.num_features(),
        task.num_outputs(),
        "model output width vs. targets",
    )?;
    let dout = task.num_outputs();
    if split.train.is_empty() {
        return Err(Error::Empty("training graphs"));
    }
    if split.val.is_empty() {
        return Err(Error::Empty("validation graphs"));
    }
    let target = match task.targets() {
        GraphTargets::Class {
            labels,
            num_classes,
        } => Target::Class(labels.clone(), *num_classes),
        GraphTargets::Real(y) => Target::Real(y.clone()),
    };
    let plain = device.clone().without_autodiff();
    let ad = plain.clone().autodiff();
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
    let mut net = model.init_with_rng(&ad, &mut rng)?;
    let mut drop = DropoutRng::new(&mut rng);
    let val_in = GraphInput::from_batch(&task.batch(&split.val)?, &plain);
    let test_in = if split.test.is_empty() {
        None
    } else {
        Some(GraphInput::from_batch(&task.batch(&split.test)?, &plain))
    };
    let mut optim = cfg.optimizer();
    let mut stop = Stopper::new(cfg.monitor, cfg.patience);
    let mut best: Option<Gnn> = None;
    let mut history = Vec::new();
    let bar = cfg.progress_bar("graph");
    let mut order = split.train.clone();
    let mut epochs = 0;
    for epoch in 0..cfg.max_epochs {
        epochs = epoch + 1;
        order.shuffle(&mut rng);
        let mut loss_sum = 0.0;
        for chunk in order.chunks(cfg.batch_size) {
            let input = GraphInput::from_batch(&task.batch(chunk)?, &plain);
            let out = net.forward(&input, Some(&mut drop))?;
            let loss = match &target {
                Target::Class(labels, c) => {
                    let l: Vec<u32> = chunk.iter().map(|&i| labels[i]).collect();
                    cross_entropy(out, one_hot(&l, *c, &plain))
                }
                Target::Real(y) => {
                    let t: Vec<f32> = chunk.iter().map(|&i| y[i]).collect();
                    let t = Tensor::<2>::from_data(TensorData::new(t, [chunk.len(), 1]), &plain);
                    (out - t).powi_scalar(2).mean()
                }
            };
            loss_sum += f64::from(loss.clone().into_scalar::<f32>()) * chunk.len() as f64;
            let grads = GradientsParams::from_grads(loss.backward(), &net);
            net = optim.step(cfg.lr, net, grads);
        }
        let eval = net.valid();
        let out = to_host(eval.forward(&val_in, None)?);
        let (val_acc, val_loss) = evaluate(&out, dout, &split.val, &target);
        history.push(EpochLog {
            epoch,
            train_loss: loss_sum / order.len() as f64,
            val_loss,
            val_acc,
        });
        if stop.improved(epoch, val_acc, val_loss) {
            best = Some(eval);
        }
        if let Some(b) = &bar {
            b.inc(1);
            b.set_message(format!("val acc {val_acc:.3} loss {val_loss:.3}"));
        }
        if stop.should_stop(epoch) {
            break;
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let model = best.expect("at least one epoch ran");
    let val_out = to_host(model.forward(&val_in, None)?);
    let (val_acc, val_mse) = evaluate(&val_out, dout, &split.val, &target);
    let mut res = GraphResult {
        model,
        best_epoch: stop.best_epoch,
        epochs,
        val_acc,
        test_acc: f64::NAN,
        test_auc: f64::NAN,
        test_macro_f1: f64::NAN,
        test_rmse: f64::NAN,
        val_rmse: if matches!(target, Target::Real(_)) {
            val_mse.sqrt()
        } else {
            f64::NAN
        },
        history,
    };
    if let Some(test_in) = test_in {
        let out = to_host(res.model.forward(&test_in, None)?);
        match &target {
            Target::Class(labels, c) => {
                let truth: Vec<u32> = split.test.iter().map(|&i| labels[i]).collect();
                let pred: Vec<u32> = (0..truth.len())
                    .map(|r| super::argmax(&out[r * c..(r + 1) * c]).0 as u32)
                    .collect();
                res.test_acc = metrics::accuracy(&pred, &truth)?;
                res.test_macro_f1 = metrics::macro_f1(&pred, &truth, *c)?;
                if *c == 2 {
                    // Score: logit difference (monotone in the class-1 probability).
                    let scores: Vec<f64> = (0..truth.len())
                        .map(|r| f64::from(out[r * 2 + 1] - out[r * 2]))
                        .collect();
                    res.test_auc = metrics::roc_auc(&scores, &truth).unwrap_or(f64::NAN);
                }
            }
            Target::Real(y) => {
                let truth: Vec<f64> = split.test.iter().map(|&i| f64::from(y[i])).collect();
                let pred: Vec<f64> = out.iter().map(|&v| f64::from(v)).collect();
                res.test_rmse = metrics::rmse(&pred, &truth)?;
            }
        }
    }
    Ok(res)
}
