//! Shared by the tests that compare two computation paths of the same model (`fused.rs`:
//! fused kernels against burn's generic ops; `dense.rs`: the dense adjacency product against
//! the sparse one): one training-mode forward/backward pass, and the comparison of its outputs.

use burn::module::{Module, ModuleVisitor, Param};
use burn::tensor::{Device, Tensor};
use gnn::tensors::DropoutRng;
use gnn::{EdgeList, GraphInput, ModelConfig, NodeTask};
use ndarray::Array2;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A tensor's values on the host.
pub(crate) fn host<const D: usize>(t: Tensor<D>) -> Vec<f32> {
    t.into_data().try_into_vec_as::<f32>().unwrap()
}

/// Collects every parameter gradient (parameters without one, such as GIN's fixed ε, are
/// skipped).
struct Grads<'a> {
    grads: &'a burn::tensor::Gradients,
    out: Vec<Vec<f32>>,
}

impl ModuleVisitor for Grads<'_> {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        if let Some(g) = param.val().grad(self.grads) {
            self.out.push(host(g));
        }
    }
}

/// Logits and parameter gradients of one training-mode forward/backward pass of `cfg` on
/// `input` (seeded initialisation, dropout and a random loss weighting).
pub(crate) fn forward_backward(cfg: &ModelConfig, input: &GraphInput) -> (Vec<f32>, Vec<Vec<f32>>) {
    let plain = Device::flex();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let model = cfg
        .init_with_rng(&plain.clone().autodiff(), &mut rng)
        .unwrap();
    let mut drop = DropoutRng::new(&mut rng);
    let logits = model.forward(input, Some(&mut drop)).unwrap();
    let r: Vec<f32> = (0..logits.dims().iter().product())
        .map(|_| rng.random_range(-1.0..1.0))
        .collect();
    let r = Tensor::<2>::from_data(burn::tensor::TensorData::new(r, logits.dims()), &plain);
    let grads = (logits.clone().tanh() * r).sum().backward();
    let mut g = Grads {
        grads: &grads,
        out: Vec::new(),
    };
    model.visit(&mut g);
    (host(logits), g.out)
}

/// `a` and `b` agree entry by entry within `tol` times the larger of 1 and `b`'s largest
/// magnitude; `names` label the two paths in the message.
pub(crate) fn assert_close(a: &[f32], b: &[f32], tol: f32, names: (&str, &str), what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    let scale = b.iter().fold(0f32, |m, v| m.max(v.abs())).max(1.0);
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= tol * scale,
            "{what}[{i}]: {} {x}, {} {y}",
            names.0,
            names.1
        );
    }
}

/// A 3-class task on `edges` (sorted, without duplicates) of `n` nodes: random edge weights in
/// [0.2, 2) when `weighted`, `d` random features in [-1, 1), mostly zeros when `sparse_features`.
pub(crate) fn task_on(
    rng: &mut ChaCha8Rng,
    n: u32,
    edges: &[(u32, u32)],
    d: usize,
    weighted: bool,
    sparse_features: bool,
) -> NodeTask {
    let mut el = EdgeList::new(n as usize, edges).unwrap();
    if weighted {
        let w = (0..edges.len())
            .map(|_| rng.random_range(0.2..2.0))
            .collect();
        el = el.with_weights(w).unwrap();
    }
    let x = Array2::from_shape_fn((n as usize, d), |_| {
        let v: f32 = rng.random_range(-1.0..1.0);
        if sparse_features && v.abs() > 0.1 {
            0.0
        } else {
            v
        }
    });
    let labels = (0..n).map(|i| i % 3).collect();
    NodeTask::new(el, x, labels, 3).unwrap()
}
