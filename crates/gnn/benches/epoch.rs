//! One training epoch (forward + backward + Adam step), full batch:
//! GCN, GAT and GIN (EdgeRefine's configurations) on Cora, and a 2-layer GCN (hidden 16) on a
//! random graph with 100,000 nodes, 1,000,000 undirected edges and 128 dense features; and PNA
//! (hidden 20, 5 towers, Multi-GNN's widths) on a contextual SBM with 2,000 nodes and 32 features
//! (PNA's first layer works in the input width, so Cora's 1,433 features would dominate).
//!
//! Cora is read from `$DPGRAPH_DATA` when installed; otherwise a stand-in of Cora's shape
//! (2,708 nodes, ~5,300 edges, 1,433 binary features with ~18 ones per node, 7 classes) is
//! generated. Run with `cargo bench -p gnn --bench epoch`.

use burn::optim::decay::WeightDecayConfig;
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Int, Tensor, TensorData};
use criterion::{Criterion, criterion_group, criterion_main};
use gnn::layers::avg_log_degree;
use gnn::tensors::DropoutRng;
use gnn::{EdgeList, Gnn, GraphInput, ModelConfig, NodeTask, PnaSettings};
use graph_core::generate::ContextualSbm;
use graph_core::{Dataset, Registry};
use ndarray::Array2;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn cora() -> NodeTask {
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

fn big_graph() -> NodeTask {
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

fn pna_task() -> NodeTask {
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
struct Epoch {
    model: Option<Gnn>,
    optim: ModuleOptimizer,
    input: GraphInput,
    train_idx: Tensor<1, Int>,
    target: Tensor<2>,
    drop: DropoutRng,
}

impl Epoch {
    /// `fused`: the default fused sparse kernels, else burn's generic gather/scatter ops.
    fn new(task: &NodeTask, model: impl Fn(usize, usize) -> ModelConfig, fused: bool) -> Self {
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
                input.graph = input.graph.with_fused_kernels(fused);
                input
            },
            train_idx: Tensor::from_data(TensorData::new(train, [m]), &plain),
            target: Tensor::from_data(TensorData::new(onehot, [m, c]), &plain),
            drop: DropoutRng::new(&mut rng),
        }
    }

    fn step(&mut self) -> f32 {
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
fn gcn(d_in: usize, d_out: usize) -> ModelConfig {
    ModelConfig::gcn(d_in, 16, d_out).with_dropout(0.6)
}

fn gat(d_in: usize, d_out: usize) -> ModelConfig {
    ModelConfig::gat(d_in, 16, d_out)
}

fn gin(d_in: usize, d_out: usize) -> ModelConfig {
    ModelConfig::gin(d_in, 32, d_out)
}

/// Each configuration twice, side by side: with the fused kernels (the default) and with
/// burn's generic ops (`_generic`), so that their ratio is measured under the same load.
fn bench(c: &mut Criterion) {
    let cora = cora();
    let mut group = c.benchmark_group("epoch");
    group.sample_size(30);
    for (label, model) in [
        ("cora_gcn", gcn as fn(usize, usize) -> ModelConfig),
        ("cora_gat", gat),
        ("cora_gin", gin),
    ] {
        for fused in [true, false] {
            let mut e = Epoch::new(&cora, model, fused);
            e.step();
            let label = if fused {
                label.to_string()
            } else {
                format!("{label}_generic")
            };
            group.bench_function(label, |b| b.iter(|| e.step()));
        }
    }
    let sbm = pna_task();
    let delta = avg_log_degree(&sbm.edges().in_degrees()).expect("the SBM has edges");
    let pna = PnaSettings::new(delta).with_towers(5);
    let mut e = Epoch::new(&sbm, |i, o| ModelConfig::pna(i, 20, o, pna), true);
    e.step();
    group.bench_function("csbm_2k_pna", |b| b.iter(|| e.step()));
    group.finish();
    let big = big_graph();
    let mut group = c.benchmark_group("epoch_large");
    group.sample_size(10);
    for fused in [true, false] {
        let mut e = Epoch::new(&big, gcn, fused);
        e.step();
        let label = if fused {
            "gcn_100k_nodes_1m_edges"
        } else {
            "gcn_100k_nodes_1m_edges_generic"
        };
        group.bench_function(label, |b| b.iter(|| e.step()));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
