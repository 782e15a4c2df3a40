//! PNA ([`PnaConv`]): the layer against an independent plain-Rust reference on a hand-built
//! graph with hand-set weights, gradients through the min/max aggregators, training, model
//! wiring and typed errors.

use burn::module::Param;
use burn::tensor::{Device, Tensor, TensorData};
use gnn::layers::{Linear, PnaConv, avg_log_degree};
use gnn::{
    Architecture, EdgeList, Error, GraphInput, GraphTensors, Input, ModelConfig, NodeTask,
    PnaSettings, TrainConfig, train_node_classifier,
};
use graph_core::{NodeSplit, generate::ContextualSbm};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// 4 nodes; in-degrees 2, 3, 1, 0 (node 3 receives nothing).
const EDGES: [(u32, u32); 6] = [(0, 1), (2, 1), (3, 1), (1, 0), (3, 0), (0, 2)];
const N: usize = 4;
const F: usize = 3;
const D_EDGE: usize = 2;

fn host<const D: usize>(t: Tensor<D>) -> Vec<f32> {
    t.into_data().convert::<f32>().try_to_vec::<f32>().unwrap()
}

/// Deterministic, generic values in `[-scale, scale]`.
fn values(len: usize, seed: f32, scale: f32) -> Vec<f32> {
    (0..len)
        .map(|k| scale * (k as f32 * 0.731 + seed).sin())
        .collect()
}

fn features() -> Vec<f32> {
    values(N * F, 0.3, 1.0)
}

fn edge_features() -> Vec<f32> {
    values(EDGES.len() * D_EDGE, 1.7, 1.0)
}

fn graph(with_edge_features: bool) -> GraphTensors {
    let mut e = EdgeList::new(N, &EDGES).unwrap();
    if with_edge_features {
        let ef = ndarray::Array2::from_shape_vec((EDGES.len(), D_EDGE), edge_features()).unwrap();
        e = e.with_edge_features(ef).unwrap();
    }
    GraphTensors::new(&e, &Device::flex())
}

fn pna(d_edge: Option<usize>, towers: usize, delta: f64) -> PnaSettings {
    PnaSettings::new(delta)
        .with_towers(towers)
        .with_d_edge(d_edge)
}

fn delta() -> f64 {
    avg_log_degree(&EdgeList::new(N, &EDGES).unwrap().in_degrees()).unwrap()
}

/// A dense layer with the given `[rows, cols]` weight and `[cols]` bias (row-major).
fn linear(rows: usize, cols: usize, w: &[f32], b: &[f32], device: &Device) -> Linear {
    Linear {
        weight: Param::from_data(TensorData::new(w.to_vec(), [rows, cols]), device),
        bias: Some(Param::from_data(
            TensorData::new(b.to_vec(), [cols]),
            device,
        )),
    }
}

/// Host copy of a dense layer: `w` row-major `[rows, cols]`.
struct HostLinear {
    rows: usize,
    cols: usize,
    w: Vec<f32>,
    b: Vec<f32>,
}

impl HostLinear {
    fn new(rows: usize, cols: usize, seed: f32) -> Self {
        // Scaled like PyTorch's initialisation so outputs stay O(1).
        let scale = 1.0 / (rows as f32).sqrt();
        Self {
            rows,
            cols,
            w: values(rows * cols, seed, scale),
            b: values(cols, seed + 0.5, scale),
        }
    }

    fn apply(&self, x: &[f64]) -> Vec<f64> {
        assert_eq!(x.len(), self.rows);
        (0..self.cols)
            .map(|c| {
                f64::from(self.b[c])
                    + (0..self.rows)
                        .map(|r| x[r] * f64::from(self.w[r * self.cols + c]))
                        .sum::<f64>()
            })
            .collect()
    }

    fn device(&self, device: &Device) -> Linear {
        linear(self.rows, self.cols, &self.w, &self.b, device)
    }
}

/// The hand-set weights of one PNA layer `F → d_out` with `towers` towers.
struct HostPna {
    edge: Option<HostLinear>,
    pre: Vec<HostLinear>,
    post: Vec<HostLinear>,
    lin: HostLinear,
    delta: f64,
}

impl HostPna {
    fn new(d_out: usize, towers: usize, with_edges: bool) -> Self {
        let blocks = if with_edges { 3 } else { 2 };
        Self {
            edge: with_edges.then(|| HostLinear::new(D_EDGE, F, 0.1)),
            pre: (0..towers)
                .map(|t| HostLinear::new(blocks * F, F, 1.0 + t as f32))
                .collect(),
            post: (0..towers)
                .map(|t| HostLinear::new(13 * F, d_out / towers, 2.5 + t as f32))
                .collect(),
            lin: HostLinear::new(d_out, d_out, 7.0),
            delta: delta(),
        }
    }

    /// The layer built by `PnaConv::new`, with every parameter replaced by the hand-set ones.
    fn layer(&self, device: &Device) -> PnaConv {
        let d_out = self.lin.cols;
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let d_edge = self.edge.as_ref().map(|_| D_EDGE);
        let settings = pna(d_edge, self.pre.len(), self.delta);
        let mut l = PnaConv::new(F, d_out, settings, device, &mut rng).unwrap();
        l.edge = self.edge.as_ref().map(|e| e.device(device));
        l.pre = self.pre.iter().map(|p| p.device(device)).collect();
        l.post = self.post.iter().map(|p| p.device(device)).collect();
        l.lin = self.lin.device(device);
        l
    }

    /// Independent reference: PyG's `PNAConv` equations, one node and one tower at a time, in f64.
    fn reference(&self, x: &[f32], edge_attr: Option<&[f32]>) -> Vec<f64> {
        let row =
            |i: usize| -> Vec<f64> { x[i * F..(i + 1) * F].iter().map(|&v| v.into()).collect() };
        let mut out = Vec::new();
        for i in 0..N {
            let xi = row(i);
            let mut towers = Vec::new();
            for (pre, post) in self.pre.iter().zip(&self.post) {
                let msgs: Vec<Vec<f64>> = EDGES
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| e.1 as usize == i)
                    .map(|(k, &(s, _))| {
                        let mut h = xi.clone();
                        h.extend(row(s as usize));
                        if let Some(enc) = &self.edge {
                            let attr = edge_attr.expect("edge features");
                            let e: Vec<f64> = attr[k * D_EDGE..(k + 1) * D_EDGE]
                                .iter()
                                .map(|&v| v.into())
                                .collect();
                            h.extend(enc.apply(&e));
                        }
                        pre.apply(&h)
                    })
                    .collect();
                let cnt = msgs.len();
                let mut agg = vec![Vec::new(); 4];
                for c in 0..F {
                    let col: Vec<f64> = msgs.iter().map(|m| m[c]).collect();
                    let (mean, min, max, std) = if cnt == 0 {
                        (0.0, 0.0, 0.0, 1e-5f64.sqrt())
                    } else {
                        let mean = col.iter().sum::<f64>() / cnt as f64;
                        let sq = col.iter().map(|v| v * v).sum::<f64>() / cnt as f64;
                        (
                            mean,
                            col.iter().copied().fold(f64::INFINITY, f64::min),
                            col.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                            ((sq - mean * mean).max(0.0) + 1e-5).sqrt(),
                        )
                    };
                    for (a, v) in agg.iter_mut().zip([mean, min, max, std]) {
                        a.push(v);
                    }
                }
                let d = cnt.max(1) as f64;
                let amp = (d + 1.0).ln() / self.delta;
                let att = self.delta / (d + 1.0).ln();
                let mut h = xi.clone();
                for s in [1.0, amp, att] {
                    for a in &agg {
                        h.extend(a.iter().map(|v| v * s));
                    }
                }
                towers.extend(post.apply(&h));
            }
            out.extend(self.lin.apply(&towers));
        }
        out
    }
}

fn dense(v: Vec<f32>, dims: [usize; 2], device: &Device) -> Tensor<2> {
    Tensor::from_data(TensorData::new(v, dims), device)
}

#[test]
fn pna_matches_a_plain_rust_reference() {
    let device = Device::flex();
    let x = features();
    let input = Input::Dense(dense(x.clone(), [N, F], &device));
    for with_edges in [false, true] {
        let g = graph(with_edges);
        for (d_out, towers) in [(4, 1), (6, 3), (4, 2)] {
            let host_layer = HostPna::new(d_out, towers, with_edges);
            let layer = host_layer.layer(&device);
            assert_eq!(
                (layer.towers(), layer.d_in(), layer.d_out()),
                (towers, F, d_out)
            );
            assert_eq!(layer.d_edge(), with_edges.then_some(D_EDGE));
            let ef = edge_features();
            let expected = host_layer.reference(&x, with_edges.then_some(&ef[..]));
            let got = host(layer.forward(&input, &g));
            assert_eq!(got.len(), N * d_out);
            for (k, (&a, &b)) in got.iter().zip(&expected).enumerate() {
                assert!(
                    (f64::from(a) - b).abs() < 1e-5,
                    "edges {with_edges}, towers {towers}, entry {k}: layer {a}, reference {b}"
                );
            }
            // The reference is not degenerate: outputs differ between nodes.
            assert!((expected[0] - expected[d_out]).abs() > 1e-3);
        }
    }
}

#[test]
fn pna_on_sparse_input_equals_dense_input() {
    let device = Device::flex();
    // 4 × 30 features with 6 non-zeros: uploaded in sparse form.
    let mut a = ndarray::Array2::<f32>::zeros((N, 30));
    for k in 0..6 {
        a[[k % N, (k * 7) % 30]] = 0.5 + k as f32;
    }
    let sparse = Input::from_array(&a, &device);
    assert!(matches!(sparse, Input::Sparse { .. }));
    let dense = Input::dense_from_array(&a, &device);
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let layer = PnaConv::new(30, 4, pna(Some(D_EDGE), 2, delta()), &device, &mut rng).unwrap();
    for fused in [true, false] {
        let g = graph(true).with_fused_kernels(fused);
        let (s, d) = (
            host(layer.forward(&sparse, &g)),
            host(layer.forward(&dense, &g)),
        );
        assert!(s.iter().zip(&d).all(|(p, q)| (p - q).abs() < 1e-5));
    }
}

/// Weights that make the layer output one identity-scaled aggregate of the source features:
/// `m_ij = x_j`, output `i` = aggregate `which` (0 mean, 1 min, 2 max, 3 std) of `{x_j : j → i}`.
fn selector(which: usize, device: &Device) -> PnaConv {
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let mut l = PnaConv::new(F, F, pna(None, 1, delta()), device, &mut rng).unwrap();
    let eye = |c: usize| (0..c * c).map(move |k| f32::from(u8::from(k % (c + 1) == 0)));
    // [x_i ‖ x_j] → x_j.
    let pre: Vec<f32> = std::iter::repeat_n(0.0, F * F).chain(eye(F)).collect();
    l.pre = vec![linear(2 * F, F, &pre, &[0.0; F], device)];
    // [x_i ‖ 12 aggregates] → block 1 + which.
    let mut post = vec![0.0; 13 * F * F];
    for c in 0..F {
        post[((1 + which) * F + c) * F + c] = 1.0;
    }
    l.post = vec![linear(13 * F, F, &post, &[0.0; F], device)];
    l.lin = linear(F, F, &eye(F).collect::<Vec<_>>(), &[0.0; F], device);
    l
}

#[test]
fn min_and_max_gradients_reach_the_extreme_rows_only() {
    let device = Device::flex().autodiff();
    let g = graph(false);
    let x = features();
    let r = values(N * F, 4.2, 1.0);
    for (which, pick) in [(1, f32::min as fn(f32, f32) -> f32), (2, f32::max)] {
        let layer = selector(which, &device);
        let xt = dense(x.clone(), [N, F], &device).require_grad();
        let out = layer.forward(&Input::Dense(xt.clone()), &g);
        // Forward: the extreme source row per node and column; 0 for node 3.
        let mut expected = vec![0.0f32; N * F];
        let mut grad = vec![0.0f32; N * F];
        for i in 0..N {
            for c in 0..F {
                let srcs: Vec<usize> = EDGES
                    .iter()
                    .filter(|e| e.1 as usize == i)
                    .map(|e| e.0 as usize)
                    .collect();
                if let Some(&first) = srcs.first() {
                    let best = srcs.iter().copied().fold(first, |b, j| {
                        if pick(x[j * F + c], x[b * F + c]) == x[j * F + c] {
                            j
                        } else {
                            b
                        }
                    });
                    expected[i * F + c] = x[best * F + c];
                    grad[best * F + c] += r[i * F + c];
                }
            }
        }
        assert_eq!(host(out.clone()), expected, "aggregator {which}");
        let grads = (out * dense(r.clone(), [N, F], &device)).sum().backward();
        let got = host(xt.grad(&grads).expect("x receives a gradient"));
        for (k, (&a, &b)) in got.iter().zip(&grad).enumerate() {
            assert!(
                (a - b).abs() < 1e-6,
                "aggregator {which}, entry {k}: {a} vs {b}"
            );
        }
        // Some row is the extreme of a neighbourhood, and some row of none.
        assert!(grad.iter().any(|&v| v != 0.0) && grad.contains(&0.0));
    }
}

#[test]
fn a_graph_without_edges_gives_the_empty_aggregates() {
    let device = Device::flex();
    let g = GraphTensors::new(&EdgeList::new(N, &[]).unwrap(), &device);
    let x = Input::Dense(dense(features(), [N, F], &device));
    // Mean, min and max of nothing are 0; std is sqrt(1e-5).
    for (which, expected) in [(0, 0.0), (1, 0.0), (2, 0.0), (3, 1e-5f32.sqrt())] {
        let out = host(selector(which, &device).forward(&x, &g));
        assert!(
            out.iter().all(|&v| (v - expected).abs() < 1e-7),
            "aggregator {which}: {out:?}"
        );
    }
}

#[test]
fn weight_gradient_matches_a_finite_difference() {
    let device = Device::flex().autodiff();
    let g = graph(true);
    let input = Input::Dense(dense(features(), [N, F], &device));
    let r = dense(values(N * 4, 5.1, 1.0), [N, 4], &device);
    let host_layer = HostPna::new(4, 2, true);
    let loss = |l: &PnaConv| (l.forward(&input, &g) * r.clone()).sum();
    let layer = host_layer.layer(&device);
    let grads = loss(&layer).backward();
    let ana_pre = host(layer.pre[1].weight.val().grad(&grads).unwrap());
    let ana_edge = host(
        layer
            .edge
            .as_ref()
            .unwrap()
            .weight
            .val()
            .grad(&grads)
            .unwrap(),
    );
    // Central differences in f64 through the reference (independent of autodiff).
    let h = 1e-3f32;
    let fd = |perturb: &dyn Fn(&mut HostPna, f32)| {
        let eval = |d: f32| {
            let mut p = HostPna::new(4, 2, true);
            perturb(&mut p, d);
            let rv = values(N * 4, 5.1, 1.0);
            p.reference(&features(), Some(&edge_features()))
                .iter()
                .zip(&rv)
                .map(|(o, &w)| o * f64::from(w))
                .sum::<f64>()
        };
        (eval(h) - eval(-h)) / (2.0 * f64::from(h))
    };
    let mut checked = 0;
    for j in [0, 4, 7, 13, 20, 26] {
        let num = fd(&|p, d| p.pre[1].w[j] += d);
        let ana = f64::from(ana_pre[j]);
        assert!(
            (num - ana).abs() < 1e-3 + 1e-2 * ana.abs(),
            "pre[1] w{j}: {ana} vs {num}"
        );
        checked += 1;
    }
    assert_eq!(ana_edge.len(), D_EDGE * F);
    for (j, &a) in ana_edge.iter().enumerate() {
        let num = fd(&|p, d| p.edge.as_mut().unwrap().w[j] += d);
        let ana = f64::from(a);
        assert!(
            (num - ana).abs() < 1e-3 + 1e-2 * ana.abs(),
            "edge w{j}: {ana} vs {num}"
        );
        checked += 1;
    }
    assert_eq!(checked, 12);
    assert!(ana_pre.iter().any(|&v| v.abs() > 1e-3));
}

#[test]
fn pna_model_trains_on_a_contextual_sbm() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let n = 240;
    let ds = ContextualSbm {
        n,
        classes: 3,
        p_in: 0.06,
        p_out: 0.004,
        dim: 12,
        mu: 1.2,
    }
    .sample(&mut rng)
    .unwrap();
    let split = NodeSplit::random(n, 0.6, 0.2, &mut rng).unwrap();
    let task: NodeTask = NodeTask::from_dataset(&ds)
        .unwrap()
        .with_split(split)
        .unwrap();
    let train_mask = &task.split().unwrap().train;
    let deg: Vec<usize> = task
        .edges()
        .in_degrees()
        .into_iter()
        .zip(train_mask)
        .filter_map(|(d, &t)| t.then_some(d))
        .collect();
    let delta = avg_log_degree(&deg).unwrap();
    let cfg = ModelConfig::pna(12, 12, 3, pna(None, 3, delta)).with_dropout(0.2);
    let train = TrainConfig::new()
        .with_lr(0.01)
        .with_max_epochs(30)
        .with_patience(None)
        .with_seed(2);
    let out = train_node_classifier(&task, &cfg, &train, &Device::flex()).unwrap();
    let first = out.history[0].train_loss;
    let last = out.history.last().unwrap().train_loss;
    assert!(last < 0.5 * first, "train loss {first} -> {last}");
    // Chance is 1/3.
    assert!(out.test_acc > 0.8, "test acc {}", out.test_acc);
}

#[test]
fn pna_layers_check_the_graphs_edge_features() {
    let device = Device::flex();
    let x = Input::Dense(dense(features(), [N, F], &device));
    let run = |cfg: ModelConfig, g: GraphTensors| {
        let input = GraphInput {
            x: x.clone(),
            graph: g,
            pool: None,
        };
        cfg.init(&device).unwrap().forward(&input, None)
    };
    let with_edges = ModelConfig::pna(F, 4, 2, pna(Some(D_EDGE), 2, delta()));
    assert_eq!(run(with_edges.clone(), graph(true)).unwrap().dims(), [N, 2]);
    assert!(matches!(
        run(with_edges, graph(false)),
        Err(Error::Incompatible(_))
    ));
    let wider = ModelConfig::pna(F, 4, 2, pna(Some(D_EDGE + 1), 2, delta()));
    assert!(matches!(
        run(wider, graph(true)),
        Err(Error::Incompatible(_))
    ));
    // A layer without an edge encoder ignores edge features.
    let plain = ModelConfig::pna(F, 4, 2, pna(None, 2, delta()));
    let a = host(run(plain.clone(), graph(true)).unwrap());
    let b = host(run(plain, graph(false)).unwrap());
    assert_eq!(a, b);
}

#[test]
fn pna_configs_round_trip_and_old_configs_still_load() {
    for cfg in [
        ModelConfig::pna(10, 20, 5, pna(None, 5, 1.25)),
        ModelConfig::pna(10, 20, 4, pna(Some(4), 2, 0.5)).with_num_layers(3),
    ] {
        let json = serde_json::to_string(&cfg).unwrap();
        let back: ModelConfig = serde_json::from_str(&json).unwrap();
        assert_eq!(cfg, back);
        assert!(cfg.init(&Device::flex()).is_ok());
    }
    // A config written before PNA existed, and a PNA architecture without `d_edge`.
    let old = r#"{"architecture":{"Gine":{"d_edge":2,"train_eps":true}},"d_input":10,
        "d_hidden":16,"d_output":3,"num_layers":2,"dropout":0.5,"input_dropout":null,
        "activation":"Relu","pooling":null,"seed":0}"#;
    let cfg: ModelConfig = serde_json::from_str(old).unwrap();
    assert_eq!(cfg, ModelConfig::gine(10, 2, 16, 3));
    let arch: Architecture = serde_json::from_str(r#"{"Pna":{"towers":2,"delta":1.5}}"#).unwrap();
    assert_eq!(
        arch,
        Architecture::Pna(PnaSettings {
            d_edge: None,
            towers: 2,
            delta: 1.5
        })
    );
}

#[test]
fn invalid_pna_settings_are_typed_errors() {
    let device = Device::flex();
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let mut layer = |d_out, d_edge, towers, delta| {
        PnaConv::new(3, d_out, pna(d_edge, towers, delta), &device, &mut rng).map(|_| ())
    };
    let name = |r: Result<(), Error>| match r {
        Err(Error::InvalidParam { name, .. }) => name,
        other => panic!("expected InvalidParam, got {other:?}"),
    };
    assert_eq!(name(layer(4, None, 0, 1.0)), "towers");
    assert_eq!(name(layer(4, None, 3, 1.0)), "towers");
    assert_eq!(name(layer(4, Some(0), 2, 1.0)), "d_edge");
    for bad in [f64::NAN, f64::INFINITY, 0.0, -1.0] {
        assert_eq!(name(layer(4, None, 2, bad)), "delta");
    }
    assert!(layer(4, Some(2), 2, 1.0).is_ok());
    // The same checks through the model configuration: the output layer (width 3) does not
    // split into 2 towers even though the hidden layer (width 4) does.
    let init = |cfg: ModelConfig| cfg.init(&device).map(|_| ());
    assert_eq!(
        name(init(ModelConfig::pna(3, 4, 3, pna(None, 2, 1.0)))),
        "towers"
    );
    assert_eq!(
        name(init(ModelConfig::pna(3, 4, 4, pna(None, 0, 1.0)))),
        "towers"
    );
    assert_eq!(
        name(init(ModelConfig::pna(3, 4, 4, pna(None, 2, f64::NAN)))),
        "delta"
    );
    assert_eq!(
        name(init(ModelConfig::pna(3, 4, 4, pna(Some(0), 2, 1.0)))),
        "d_edge"
    );
    assert!(init(ModelConfig::pna(3, 4, 4, pna(Some(2), 2, 1.0))).is_ok());
}
