//! The dense adjacency product ([`Aggregation::Dense`]) against the sparse one: GCN and GIN
//! models (weighted and unweighted edges, existing self-loops, dense and sparse features) in
//! training mode give the same outputs and the same parameter gradients; GAT, which has no
//! dense path, is unchanged.

mod common;

use burn::tensor::Device;
use common::{assert_close, forward_backward, task_on};
use gnn::{Aggregation, EdgeList, GraphInput, GraphTensors, ModelConfig, NodeTask};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A random graph with 80 nodes and about a fifth of all pairs as edges (both directions, a
/// few self-loops): as dense as a randomized-response release.
fn task(rng: &mut ChaCha8Rng, weighted: bool, sparse_features: bool) -> NodeTask {
    let n = 80u32;
    let mut edges = Vec::new();
    for u in 0..n {
        for v in u..n {
            if rng.random_bool(0.2) {
                edges.push((u, v));
                if u != v {
                    edges.push((v, u));
                }
            }
        }
    }
    edges.sort_unstable();
    task_on(rng, n, &edges, 30, weighted, sparse_features)
}

/// Logits and parameter gradients of one training-mode forward/backward pass.
fn run(cfg: &ModelConfig, task: &NodeTask, aggregation: Aggregation) -> (Vec<f32>, Vec<Vec<f32>>) {
    let plain = Device::flex();
    let mut input = GraphInput::from_node_task(task, &plain);
    input.graph = GraphTensors::with_aggregation(task.edges(), &plain, aggregation);
    assert_eq!(input.graph.is_dense(), aggregation == Aggregation::Dense);
    forward_backward(cfg, &input)
}

#[test]
fn dense_and_sparse_aggregation_agree_in_values_and_gradients() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for (weighted, sparse_features) in [(false, false), (true, false), (false, true), (true, true)]
    {
        let t = task(&mut rng, weighted, sparse_features);
        let configs = [
            ModelConfig::gcn(30, 16, 3).with_dropout(0.3),
            ModelConfig::gin(30, 16, 3).with_dropout(0.3),
            ModelConfig::gat(30, 4, 3),
        ];
        for cfg in &configs {
            let (out_d, grads_d) = run(cfg, &t, Aggregation::Dense);
            let (out_s, grads_s) = run(cfg, &t, Aggregation::Sparse);
            let what = format!("{cfg:?} weighted {weighted} sparse features {sparse_features}");
            assert_close(
                &out_d,
                &out_s,
                2e-5,
                ("dense", "sparse"),
                &format!("logits of {what}"),
            );
            assert_eq!(grads_d.len(), grads_s.len());
            assert!(!grads_d.is_empty());
            for (k, (a, b)) in grads_d.iter().zip(&grads_s).enumerate() {
                assert_close(
                    a,
                    b,
                    2e-5,
                    ("dense", "sparse"),
                    &format!("gradient {k} of {what}"),
                );
            }
        }
    }
}

#[test]
fn the_dense_product_is_what_runs_on_dense_graphs() {
    // Which product the layers use follows `is_dense` (the layers branch on the same field).
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let t = task(&mut rng, false, false);
    let plain = Device::flex();
    assert!(GraphTensors::with_aggregation(t.edges(), &plain, Aggregation::Dense).is_dense());
    assert!(!GraphTensors::with_aggregation(t.edges(), &plain, Aggregation::Sparse).is_dense());
    // Auto: 80 nodes are below the size from which the dense product pays.
    assert!(!GraphTensors::new(t.edges(), &plain).is_dense());
    // Auto on a dense graph of 600 nodes: dense; on a ring of 600 nodes: sparse.
    let n = 600u32;
    let mut dense = Vec::new();
    for u in 0..n {
        for v in 0..n {
            if u != v && (u * 7 + v * 13) % 10 == 0 {
                dense.push((u, v));
            }
        }
    }
    let ring: Vec<(u32, u32)> = (0..n)
        .flat_map(|u| [(u, (u + 1) % n), ((u + 1) % n, u)])
        .collect();
    assert!(GraphTensors::new(&EdgeList::new(600, &dense).unwrap(), &plain).is_dense());
    assert!(!GraphTensors::new(&EdgeList::new(600, &ring).unwrap(), &plain).is_dense());
}
