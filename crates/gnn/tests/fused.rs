//! The fused sparse kernels against burn's generic gather/scatter path: whole models (GCN, GAT
//! with concatenated and averaged heads, dense and sparse features, weighted and unweighted
//! edges) in training mode, same outputs and same parameter gradients.

mod common;

use burn::tensor::Device;
use common::{assert_close, forward_backward, task_on};
use gnn::{GatHeads, GraphInput, Input, ModelConfig, NodeTask};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A random directed graph (both directions, a few existing self-loops) with 60 nodes.
fn task(rng: &mut ChaCha8Rng, weighted: bool, sparse: bool) -> NodeTask {
    let n = 60u32;
    let mut edges = Vec::new();
    for _ in 0..150 {
        let (u, v) = (rng.random_range(0..n), rng.random_range(0..n));
        edges.push((u, v));
        if u != v {
            edges.push((v, u));
        }
    }
    edges.sort_unstable();
    edges.dedup();
    task_on(rng, n, &edges, 40, weighted, sparse)
}

/// Logits and parameter gradients of one training-mode forward/backward pass.
fn run(cfg: &ModelConfig, task: &NodeTask, fused: bool) -> (Vec<f32>, Vec<Vec<f32>>) {
    let mut input = GraphInput::from_node_task(task, &Device::flex());
    input.graph = input.graph.with_fused_kernels(fused);
    assert_eq!(input.graph.fused_kernels(), fused);
    forward_backward(cfg, &input)
}

#[test]
fn fused_and_generic_models_agree_in_values_and_gradients() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for (weighted, sparse) in [(false, false), (true, false), (false, true), (true, true)] {
        let t = task(&mut rng, weighted, sparse);
        assert_eq!(
            matches!(
                Input::from_array(t.features(), &Device::flex()),
                Input::Sparse { .. }
            ),
            sparse
        );
        let configs = [
            ModelConfig::gcn(40, 16, 3).with_dropout(0.3),
            ModelConfig::gat_with(
                40,
                4,
                3,
                GatHeads::new()
                    .with_heads(3)
                    .with_out_heads(2)
                    .with_attn_dropout(0.3),
            )
            .with_dropout(0.3),
        ];
        for cfg in &configs {
            let (out_f, grads_f) = run(cfg, &t, true);
            let (out_g, grads_g) = run(cfg, &t, false);
            let what = format!("{cfg:?} weighted {weighted} sparse {sparse}");
            assert_close(
                &out_f,
                &out_g,
                1e-5,
                ("fused", "generic"),
                &format!("logits of {what}"),
            );
            assert_eq!(grads_f.len(), grads_g.len());
            for (k, (a, b)) in grads_f.iter().zip(&grads_g).enumerate() {
                assert_close(
                    a,
                    b,
                    1e-5,
                    ("fused", "generic"),
                    &format!("gradient {k} of {what}"),
                );
            }
        }
    }
}
