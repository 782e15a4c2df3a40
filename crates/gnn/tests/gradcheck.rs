//! Gradient checks: every layer's autodiff gradients against central finite differences.
//!
//! f32 with step h = 1e-3 on a loss `Σ out ⊙ R` of magnitude O(1): the truncation error is
//! O(h²) ≈ 1e-6, the rounding error about `ε_f32 · |loss| / h` ≈ 1e-4 (a few ulps of a sum of
//! ~100 terms), so we accept `|num − ana| ≤ 3e-3 + 3e-2 |ana|`. Inputs are seeded and generic
//! (no ReLU/LeakyReLU argument within 1e-3 of a kink is likely; the checks are deterministic).

use burn::module::{Module, ModuleMapper, ModuleVisitor, Param};
use burn::tensor::{Device, Tensor, TensorData};
use gnn::layers::{
    GatConv, GcnConv, GinConv, GineConv, Linear, PnaConv, PnaSettings, Pooling, SageConv,
    avg_log_degree, pool,
};
use gnn::tensors::PoolIndex;
use gnn::{EdgeList, GraphTensors, Input};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const H: f32 = 1e-3;

struct Collect {
    values: Vec<Vec<f32>>,
}
impl ModuleVisitor for Collect {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        self.values.push(host(param.val()));
    }
}

struct Grads<'a> {
    grads: &'a burn::tensor::Gradients,
    out: Vec<Option<Vec<f32>>>,
}
impl ModuleVisitor for Grads<'_> {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        self.out.push(param.val().grad(self.grads).map(host));
    }
}

struct Perturb {
    target: usize,
    index: usize,
    delta: f32,
    seen: usize,
}
impl ModuleMapper for Perturb {
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        let k = self.seen;
        self.seen += 1;
        if k != self.target {
            return param;
        }
        let (index, delta) = (self.index, self.delta);
        param.map(move |t| {
            let dims = t.dims();
            let device = t.device();
            let mut v = host(t);
            v[index] += delta;
            Tensor::from_data(TensorData::new(v, dims), &device)
        })
    }
}

fn host<const D: usize>(t: Tensor<D>) -> Vec<f32> {
    t.into_data().convert::<f32>().try_to_vec::<f32>().unwrap()
}

fn device() -> Device {
    Device::flex().autodiff()
}

/// A small directed graph with both directions, a node without in-edges (4) and a weighted
/// variant.
fn graph(weighted: bool) -> (EdgeList, GraphTensors) {
    let edges = [
        (0, 1),
        (1, 0),
        (1, 2),
        (2, 1),
        (2, 3),
        (3, 2),
        (0, 2),
        (2, 0),
        (4, 0),
    ];
    let mut e = EdgeList::new(5, &edges).unwrap();
    if weighted {
        e = e
            .with_weights(vec![0.5, 0.5, 2.0, 2.0, 1.0, 1.0, 0.3, 0.3, 1.5])
            .unwrap();
    }
    let g = GraphTensors::new(&e, &Device::flex());
    (e, g)
}

fn features(rng: &mut ChaCha8Rng, n: usize, d: usize) -> Input {
    let v: Vec<f32> = (0..n * d).map(|_| rng.random_range(-1.0..1.0)).collect();
    Input::Dense(Tensor::from_data(
        TensorData::new(v, [n, d]),
        &Device::flex(),
    ))
}

fn weights_like(rng: &mut ChaCha8Rng, dims: [usize; 2]) -> Tensor<2> {
    let v: Vec<f32> = (0..dims[0] * dims[1])
        .map(|_| rng.random_range(-1.0..1.0))
        .collect();
    Tensor::from_data(TensorData::new(v, dims), &Device::flex())
}

/// Compares autodiff and finite-difference gradients of `loss` for every parameter entry.
fn check<M: Module>(module: M, loss: impl Fn(&M) -> Tensor<1>) {
    let l = loss(&module);
    let grads = l.backward();
    let mut g = Grads {
        grads: &grads,
        out: Vec::new(),
    };
    module.visit(&mut g);
    let mut c = Collect { values: Vec::new() };
    module.visit(&mut c);
    let mut checked = 0;
    for (p, values) in c.values.iter().enumerate() {
        let ana = g.out[p].clone().unwrap_or_else(|| vec![0.0; values.len()]);
        for (j, &a) in ana.iter().enumerate() {
            let eval = |delta: f32| {
                let m = module.clone().map(&mut Perturb {
                    target: p,
                    index: j,
                    delta,
                    seen: 0,
                });
                f64::from(loss(&m.valid()).into_scalar::<f32>())
            };
            let num = (eval(H) - eval(-H)) / (2.0 * f64::from(H));
            let a = f64::from(a);
            assert!(
                (num - a).abs() <= 3e-3 + 3e-2 * a.abs(),
                "param {p} entry {j}: autodiff {a}, finite difference {num}"
            );
            checked += 1;
        }
    }
    assert!(checked > 0);
}

#[test]
fn gcn_gradients_match_finite_differences() {
    // Fused CSR kernels (the default) and burn's generic gather/scatter ops.
    for (weighted, fused) in [(false, true), (true, true), (false, false), (true, false)] {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let (_, g) = graph(weighted);
        let g = g.with_fused_kernels(fused);
        let x = features(&mut rng, 5, 3);
        let r = weights_like(&mut rng, [5, 2]);
        let layer = GcnConv::new(3, 2, &device(), &mut rng);
        // Non-zero bias so its gradient path is exercised with generic values.
        check(layer, |m| (m.forward(&x, &g) * r.clone()).sum());
    }
}

#[test]
fn sage_gradients_match_finite_differences() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let (_, g) = graph(false);
    let x = features(&mut rng, 5, 3);
    let r = weights_like(&mut rng, [5, 2]);
    let layer = SageConv::new(3, 2, &device(), &mut rng);
    check(layer, |m| (m.forward(&x, &g) * r.clone()).sum());
}

#[test]
fn gat_gradients_match_finite_differences() {
    for (weighted, concat, fused) in [
        (false, true, true),
        (true, false, true),
        (false, true, false),
        (true, false, false),
    ] {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let (_, g) = graph(weighted);
        let g = g.with_fused_kernels(fused);
        let x = features(&mut rng, 5, 3);
        let width = if concat { 4 } else { 2 };
        let r = weights_like(&mut rng, [5, width]);
        let layer = GatConv::new(3, 2, 2, concat, &device(), &mut rng);
        check(layer, |m| (m.forward(&x, &g, None) * r.clone()).sum());
    }
}

#[test]
fn gin_gradients_match_finite_differences() {
    for weighted in [false, true] {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let (_, g) = graph(weighted);
        let x = features(&mut rng, 5, 3);
        let r = weights_like(&mut rng, [5, 2]);
        let layer = GinConv::new(3, 4, 2, true, &device(), &mut rng);
        check(layer, |m| (m.forward(&x, &g) * r.clone()).sum());
    }
}

#[test]
fn gine_gradients_match_finite_differences() {
    for weighted in [false, true] {
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        let (e, _) = graph(weighted);
        let m = e.len();
        let ef: Vec<f32> = (0..m * 2).map(|_| rng.random_range(-1.0..1.0)).collect();
        let e = e
            .with_edge_features(ndarray::Array2::from_shape_vec((m, 2), ef).unwrap())
            .unwrap();
        let g = GraphTensors::new(&e, &Device::flex());
        assert_eq!(g.edge_dim(), Some(2));
        let x = features(&mut rng, 5, 3);
        let r = weights_like(&mut rng, [5, 2]);
        let layer = GineConv::new(3, 2, 4, 2, &device(), &mut rng).with_train_eps(true);
        // The edge projection, both MLP layers and ε all receive gradients.
        check(layer, |m| (m.forward(&x, &g) * r.clone()).sum());
    }
}

#[test]
fn pna_gradients_match_finite_differences() {
    // Min, max and std are smooth at generic inputs (no ties, positive variances); nodes 3 and 4
    // have one and no incoming edge.
    for (with_edges, towers) in [(false, 1), (true, 2)] {
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let (e, _) = graph(false);
        let delta = avg_log_degree(&e.in_degrees()).unwrap();
        let m = e.len();
        let ef: Vec<f32> = (0..m * 2).map(|_| rng.random_range(-1.0..1.0)).collect();
        let e = if with_edges {
            e.with_edge_features(ndarray::Array2::from_shape_vec((m, 2), ef).unwrap())
                .unwrap()
        } else {
            e
        };
        let g = GraphTensors::new(&e, &Device::flex());
        let x = features(&mut rng, 5, 3);
        let r = weights_like(&mut rng, [5, 2]);
        let d_edge = with_edges.then_some(2);
        let pna = PnaSettings::new(delta)
            .with_towers(towers)
            .with_d_edge(d_edge);
        let layer = PnaConv::new(3, 2, pna, &device(), &mut rng).unwrap();
        check(layer, |m| (m.forward(&x, &g) * r.clone()).sum());
    }
}

#[test]
fn sparse_linear_and_pooling_gradients_match_finite_differences() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    // 6 × 20 features with 8 non-zeros: uploaded in sparse form.
    let mut a = ndarray::Array2::<f32>::zeros((6, 20));
    for k in 0..8 {
        a[[k % 6, (k * 7) % 20]] = rng.random_range(0.5..1.5);
    }
    let x = Input::from_array(&a, &Device::flex());
    assert!(matches!(x, Input::Sparse { .. }));
    let idx = PoolIndex::new(&[0, 0, 1, 1, 1, 2], 3, &Device::flex());
    let r = weights_like(&mut rng, [3, 2]);
    let layer = Linear::new(20, 2, true, &device(), &mut rng);
    for p in [Pooling::Mean, Pooling::Sum] {
        check(layer.clone(), |m| {
            (pool(m.forward(&x), &idx, p).tanh() * r.clone()).sum()
        });
    }
}

#[test]
fn gcn_on_sparse_features_gradients_match_finite_differences() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut a = ndarray::Array2::<f32>::zeros((5, 30));
    for k in 0..9 {
        a[[k % 5, (k * 7) % 30]] = rng.random_range(0.5..1.5);
    }
    let x = Input::from_array(&a, &Device::flex());
    assert!(matches!(x, Input::Sparse { .. }));
    let r = weights_like(&mut rng, [5, 3]);
    for fused in [true, false] {
        let (_, g) = graph(true);
        let g = g.with_fused_kernels(fused);
        let layer = GcnConv::new(30, 3, &device(), &mut rng);
        check(layer, |m| (m.forward(&x, &g) * r.clone()).sum());
    }
}
