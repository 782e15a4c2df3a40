//! Shared by the `epoch` benchmark and the `epoch_time` example (the PyG comparison): the
//! benchmark tasks and one full-batch training epoch.
#![allow(dead_code)] // each includer uses a part

use burn::optim::decay::WeightDecayConfig;
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Int, Tensor, TensorData};
use gnn::tensors::DropoutRng;
use gnn::{Aggregation, EdgeList, Gnn, GraphInput, GraphTensors, ModelConfig, NodeTask};
use graph_core::generate::ContextualSbm;
use graph_core::{Dataset, Registry};
use ndarray::Array2;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Cora from `$DPGRAPH_DATA`, or a stand-in of its shape.
pub(crate) fn cora() -> NodeTask {
    let dir =
        graph_core::registry::data_dir_or_default(std::env::var_os(graph_core::registry::DATA_ENV));
    if let Ok(spec) = Registry::embedded().get("cora")
        && let Ok(Dataset::Nodes(ds)) = spec.load(&dir)
    {
        eprintln!("epoch bench: Cora from {}", dir.display());
        return NodeTask::from_dataset(&ds).expect("valid Cora");
    }
    eprintln!("epoch bench: Cora not installed, using a Cora-shaped stand-in");
    let ds = graph_core::generate::cora_shaped(&mut ChaCha8Rng::seed_from_u64(0))
        .expect("valid stand-in");
    NodeTask::from_dataset(&ds).expect("valid stand-in")
}

/// A random graph: 100,000 nodes, 1,000,000 undirected edges (both directions), 128 dense
/// features, 10 classes.
pub(crate) fn big_graph() -> NodeTask {
    let n = 100_000u32;
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut edges = Vec::with_capacity(2_000_000);
    while edges.len() < 2_000_000 {
        let (u, v) = (rng.random_range(0..n), rng.random_range(0..n));
        if u != v {
            edges.push((u, v));
            edges.push((v, u));
        }
    }
    let x = Array2::from_shape_fn((n as usize, 128), |_| rng.random_range(-1.0f32..1.0));
    let labels = (0..n).map(|_| rng.random_range(0..10u32)).collect();
    NodeTask::new(
        EdgeList::new(n as usize, &edges).expect("valid edges"),
        x,
        labels,
        10,
    )
    .expect("valid task")
}

/// Cora's nodes, features and labels with a symmetric randomized-response release of its
/// edges at `eps` in place of the edges: every unordered pair flips with probability
/// `1 / (1 + e^ε)` (SymRR; 27 % of all pairs are edges at ε = 1), seeded.
pub(crate) fn cora_symrr(cora: &NodeTask, eps: f64, seed: u64) -> NodeTask {
    let n = cora.num_nodes();
    let flip = 1.0 / (1.0 + eps.exp());
    let mut adj = vec![false; n * n];
    let (src, dst) = cora.edges().endpoints();
    for (&s, &t) in src.iter().zip(dst) {
        adj[s as usize * n + t as usize] = true;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut edges = Vec::new();
    for u in 0..n {
        for v in u + 1..n {
            if adj[u * n + v] != rng.random_bool(flip) {
                edges.push((u as u32, v as u32));
                edges.push((v as u32, u as u32));
            }
        }
    }
    NodeTask::new(
        EdgeList::new(n, &edges).expect("valid edges"),
        cora.features().clone(),
        cora.labels().to_vec(),
        cora.num_classes(),
    )
    .expect("valid task")
}

/// A contextual SBM of 2,000 nodes and 32 features (the PNA benchmark).
pub(crate) fn pna_task() -> NodeTask {
    let ds = ContextualSbm {
        n: 2_000,
        classes: 5,
        p_in: 0.005,
        p_out: 0.0005,
        dim: 32,
        mu: 1.0,
    }
    .sample(&mut ChaCha8Rng::seed_from_u64(2))
    .expect("valid SBM");
    NodeTask::from_dataset(&ds).expect("valid SBM task")
}

/// State of one full-batch training run, stepped one epoch at a time.
pub(crate) struct Epoch {
    model: Option<Gnn>,
    optim: ModuleOptimizer,
    input: GraphInput,
    train_idx: Tensor<1, Int>,
    target: Tensor<2>,
    drop: DropoutRng,
}

impl Epoch {
    /// `fused`: the default fused sparse kernels, else burn's generic gather/scatter ops.
    pub(crate) fn new(
        task: &NodeTask,
        model: impl Fn(usize, usize) -> ModelConfig,
        fused: bool,
    ) -> Self {
        Self::with(task, model, fused, Aggregation::Auto)
    }

    /// [`Epoch::new`] with the adjacency product chosen by `aggregation`.
    pub(crate) fn with(
        task: &NodeTask,
        model: impl Fn(usize, usize) -> ModelConfig,
        fused: bool,
        aggregation: Aggregation,
    ) -> Self {
        let plain = Device::flex();
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let cfg = model(task.num_features(), task.num_classes());
        let model = cfg
            .init_with_rng(&plain.clone().autodiff(), &mut rng)
            .expect("valid config");
        let n = task.num_nodes();
        let train: Vec<i64> = (0..n as i64).filter(|i| i % 5 < 3).collect();
        let c = task.num_classes();
        let mut onehot = vec![0f32; train.len() * c];
        for (k, &i) in train.iter().enumerate() {
            onehot[k * c + task.labels()[i as usize] as usize] = 1.0;
        }
        let m = train.len();
        Self {
            model: Some(model),
            optim: AdamConfig::new()
                .with_weight_decay(Some(WeightDecayConfig::new(1e-5)))
                .init(),
            input: {
                let mut input = GraphInput::from_node_task(task, &plain);
                input.graph = GraphTensors::with_aggregation(task.edges(), &plain, aggregation)
                    .with_fused_kernels(fused);
                input
            },
            train_idx: Tensor::from_data(TensorData::new(train, [m]), &plain),
            target: Tensor::from_data(TensorData::new(onehot, [m, c]), &plain),
            drop: DropoutRng::new(&mut rng),
        }
    }

    /// One epoch; returns the training loss.
    pub(crate) fn step(&mut self) -> f32 {
        let model = self.model.take().expect("model present");
        let logits = model
            .forward(&self.input, Some(&mut self.drop))
            .expect("node-level model");
        let m = self.target.dims()[0] as f64;
        let loss = (log_softmax(logits.select(0, self.train_idx.clone()), 1) * self.target.clone())
            .sum()
            .mul_scalar(-1.0 / m);
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        self.model = Some(self.optim.step(0.005, model, grads));
        loss.into_scalar::<f32>()
    }
}

// The widths of EdgeRefine's Cora models (`edgerefine::paper::NodeModel`).
/// GCN, hidden 16, dropout 0.6.
pub(crate) fn gcn(d_in: usize, d_out: usize) -> ModelConfig {
    ModelConfig::gcn(d_in, 16, d_out).with_dropout(0.6)
}

/// GAT, 8 heads × 16.
pub(crate) fn gat(d_in: usize, d_out: usize) -> ModelConfig {
    ModelConfig::gat(d_in, 16, d_out)
}

/// GIN, hidden 32.
pub(crate) fn gin(d_in: usize, d_out: usize) -> ModelConfig {
    ModelConfig::gin(d_in, 32, d_out)
}
