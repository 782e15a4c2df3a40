//! Full-batch node classification with train/validation/test masks.

use burn::module::Module;
use burn::optim::GradientsParams;
use burn::tensor::Device;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::{EpochLog, Stopper, TrainConfig, cross_entropy, host_eval, one_hot, to_host};
use crate::data::NodeTask;
use crate::error::{Error, Result};
use crate::metrics;
use crate::model::{Gnn, ModelConfig};
use crate::tensors::{DropoutRng, GraphInput, int_tensor};

/// Outcome of [`train_node_classifier`]: the best-validation model and its scores.
#[derive(Debug)]
pub struct NodeResult {
    /// Model with the best-validation weights, in evaluation mode (no autodiff).
    pub model: Gnn,
    /// Epoch of the best validation score.
    pub best_epoch: usize,
    /// Epochs run.
    pub epochs: usize,
    /// Accuracy of the best weights on the training nodes.
    pub train_acc: f64,
    /// … on the validation nodes.
    pub val_acc: f64,
    /// … on the test nodes (NaN when the test mask is empty).
    pub test_acc: f64,
    /// Macro-F1 on the test nodes (NaN when the test mask is empty).
    pub test_macro_f1: f64,
    /// Per-epoch log.
    pub history: Vec<EpochLog>,
}

fn mask_rows(mask: &[bool]) -> Vec<usize> {
    mask.iter()
        .enumerate()
        .filter_map(|(i, &b)| b.then_some(i))
        .collect()
}

/// Trains `model` on `task` full-batch: cross-entropy on the training nodes, Adam with weight
/// decay, evaluation every epoch, early stopping with patience, and returns the weights of the
/// best validation epoch. Same `cfg.seed` → same numbers.
///
/// # Arguments
/// * `task` — graph, features, labels and a split (required).
/// * `model` — a node-level configuration with `d_input = task.num_features()` and
///   `d_output = task.num_classes()`; initialised from `cfg.seed`.
/// * `device` — a plain device (e.g. `Device::flex()`); autodiff is enabled internally.
///
/// # Errors
/// [`Error::Empty`] without a split, [`Error::Shape`] when the model's widths do not fit the
/// task, [`Error::Incompatible`] for a pooling model, [`Error::InvalidParam`] for bad settings.
///
/// # Example
/// ```
/// use gnn::{ModelConfig, NodeTask, TrainConfig, train_node_classifier};
/// use graph_core::{NodeSplit, generate::ContextualSbm};
/// use rand::SeedableRng;
/// let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
/// let ds = ContextualSbm { n: 200, classes: 2, p_in: 0.1, p_out: 0.01, dim: 8, mu: 1.5 }
///     .sample(&mut rng)?;
/// let split = NodeSplit::random(200, 0.6, 0.2, &mut rng)?;
/// let task = NodeTask::from_dataset(&ds)?.with_split(split)?;
/// let model = ModelConfig::gcn(8, 16, 2);
/// let out = train_node_classifier(&task, &model, &TrainConfig::new().with_max_epochs(30), &burn::tensor::Device::flex())?;
/// assert!(out.test_acc > 0.8);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn train_node_classifier(
    task: &NodeTask,
    model: &ModelConfig,
    cfg: &TrainConfig,
    device: &Device,
) -> Result<NodeResult> {
    cfg.check()?;
    let split = task
        .split()
        .ok_or(Error::Empty("split (attach one with with_split)"))?;
    if model.is_graph_level() {
        return Err(Error::Incompatible(
            "a pooling (graph-level) model cannot classify nodes".into(),
        ));
    }
    super::check_model_dims(
        model,
        task.num_features(),
        task.num_classes(),
        "model output width vs. classes",
    )?;
    let (train, val, test) = (
        mask_rows(&split.train),
        mask_rows(&split.val),
        mask_rows(&split.test),
    );
    let plain = device.clone().without_autodiff();
    let ad = plain.clone().autodiff();
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
    let mut net = model.init_with_rng(&ad, &mut rng)?;
    let mut drop = DropoutRng::new(&mut rng);
    let input = GraphInput::from_node_task(task, &plain);
    let labels = task.labels();
    let c = task.num_classes();
    let train_idx = int_tensor(train.iter().map(|&i| i as i64).collect(), &plain);
    let train_labels: Vec<u32> = train.iter().map(|&i| labels[i]).collect();
    let target = one_hot(&train_labels, c, &plain);
    let mut optim = cfg.optimizer();
    let mut stop = Stopper::new(cfg.monitor, cfg.patience);
    let mut best: Option<(Gnn, Vec<f32>)> = None;
    let mut history = Vec::new();
    let bar = cfg.progress_bar("node");
    let mut epochs = 0;
    for epoch in 0..cfg.max_epochs {
        epochs = epoch + 1;
        let logits = net.forward(&input, Some(&mut drop))?;
        let loss = cross_entropy(logits.select(0, train_idx.clone()), target.clone());
        let train_loss = f64::from(loss.clone().into_scalar::<f32>());
        let grads = GradientsParams::from_grads(loss.backward(), &net);
        net = optim.step(cfg.lr, net, grads);

        let eval = net.valid();
        let out = to_host(eval.forward(&input, None)?);
        let (val_acc, val_loss) = host_eval(&out, c, &val, labels);
        history.push(EpochLog {
            epoch,
            train_loss,
            val_loss,
            val_acc,
        });
        if stop.improved(epoch, val_acc, val_loss) {
            best = Some((eval, out));
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
    let (model, out) = best.expect("at least one epoch ran");
    let acc = |rows: &[usize]| host_eval(&out, c, rows, labels).0;
    let (test_acc, test_macro_f1) = if test.is_empty() {
        (f64::NAN, f64::NAN)
    } else {
        let pred: Vec<u32> = test
            .iter()
            .map(|&r| super::argmax(&out[r * c..(r + 1) * c]).0 as u32)
            .collect();
        let truth: Vec<u32> = test.iter().map(|&r| labels[r]).collect();
        (acc(&test), metrics::macro_f1(&pred, &truth, c)?)
    };
    Ok(NodeResult {
        model,
        best_epoch: stop.best_epoch,
        epochs,
        train_acc: acc(&train),
        val_acc: acc(&val),
        test_acc,
        test_macro_f1,
        history,
    })
}

/// Predicted class of every node of `task` under `model` (evaluation mode).
///
/// # Errors
/// [`Error::Shape`] when the model's output or input width does not fit the task;
/// [`Error::Incompatible`] for a pooling model.
pub fn predict_nodes(model: &Gnn, task: &NodeTask, device: &Device) -> Result<Vec<u32>> {
    if model.is_graph_level() {
        return Err(Error::Incompatible(
            "a pooling (graph-level) model cannot classify nodes".into(),
        ));
    }
    let input = GraphInput::from_node_task(task, &device.clone().without_autodiff());
    let logits = model.valid().forward(&input, None)?;
    let [n, c] = logits.dims();
    if c != task.num_classes() {
        return Err(Error::Shape {
            what: "model output width vs. classes",
            expected: task.num_classes(),
            got: c,
        });
    }
    let out = to_host(logits);
    Ok((0..n)
        .map(|r| super::argmax(&out[r * c..(r + 1) * c]).0 as u32)
        .collect())
}
