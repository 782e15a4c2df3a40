//! FedSage+ mends: on a graph whose missing (cross-client) neighbours carry the label signal,
//! NeighGen with the authors' schedule predicts fewer than one missing neighbour per node; under
//! the default (stochastic) rounding it attaches generated neighbours and trains another model
//! than FedAvg, under the authors' floor rounding it generates nothing and is FedAvg exactly.
//! With a deterministic fGen trained to convergence it beats FedAvg there, at a short budget.

use cefedgnn::federation::FederatedGraph;
use cefedgnn::train::{
    CountRounding, FedReport, FedTask, FedTrainConfig, Method, Metric, NeighGenConfig, simulate,
};
use graph_core::NodeSplit;
use rand::SeedableRng;

/// Signal/target graph: `n_t` target nodes (2 classes, in the splits) whose features are pure
/// noise, and `n_s` signal nodes (outside every split) whose features are their class one-hot;
/// every target links to `s_deg` signal nodes and `t_deg` targets of its class. Clients at random.
fn signal_task(seed: u64, n_t: usize, n_s: usize, s_deg: usize, t_deg: usize) -> FedTask {
    use rand::RngExt;
    use rand_distr::{Distribution, StandardNormal};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let n = n_t + n_s;
    let d = 8;
    let label = |v: usize| -> u32 {
        if v < n_t {
            (v % 2) as u32
        } else {
            ((v - n_t) % 2) as u32
        }
    };
    let mut edges = std::collections::BTreeSet::new();
    for v in 0..n_t {
        let c = v % 2;
        for _ in 0..s_deg {
            let s = n_t + 2 * rng.random_range(0..n_s / 2) + c;
            edges.insert((v.min(s) as u32, v.max(s) as u32));
        }
        for _ in 0..t_deg {
            let u = 2 * rng.random_range(0..n_t / 2) + c;
            if u != v {
                edges.insert((v.min(u) as u32, v.max(u) as u32));
            }
        }
    }
    let edges: Vec<(u32, u32)> = edges.into_iter().collect();
    let graph = graph_core::Graph::from_edges(n, &edges).unwrap();
    let features = ndarray::Array2::from_shape_fn((n, d), |(v, j)| {
        if v >= n_t {
            f32::from(u8::from(j == label(v) as usize))
        } else if j >= 2 {
            let z: f64 = StandardNormal.sample(&mut rng);
            (0.5 * z) as f32
        } else {
            0.0
        }
    });
    let fed = FederatedGraph::random(graph, 3, &mut rng).unwrap();
    let mut split = NodeSplit::random(n_t, 0.4, 0.2, &mut rng).unwrap();
    for m in [&mut split.train, &mut split.val, &mut split.test] {
        m.resize(n, false);
    }
    FedTask::new(
        "signal",
        fed,
        features,
        (0..n).map(label).collect(),
        2,
        split,
        None,
        Metric::MacroF1,
    )
    .unwrap()
}

fn config(seed: u64, rounding: CountRounding) -> FedTrainConfig {
    FedTrainConfig {
        rounds: 8,
        local_steps: 8,
        batch_size: 32,
        seed,
        noise: dp_core::rng::NoiseSource::Seeded(seed),
        neighgen: NeighGenConfig {
            latent: 32,
            fgen_hidden: [64, 64],
            rounding,
            ..NeighGenConfig::default()
        },
        ..FedTrainConfig::default()
    }
}

fn run(t: &FedTask, cfg: &FedTrainConfig, m: Method) -> FedReport {
    simulate(t, cfg, m, &mut |_| {}).unwrap()
}

#[test]
fn the_default_rounding_mends_where_the_authors_floor_generates_nothing() {
    for seed in 0..2 {
        let t = signal_task(seed, 240, 60, 2, 3);
        let default = config(seed, CountRounding::default());
        let floor = config(seed, CountRounding::Floor);
        let fedavg = run(&t, &default, Method::FedAvg);
        let mended = run(&t, &default, Method::FedSagePlus);
        let floored = run(&t, &floor, Method::FedSagePlus);
        assert!(fedavg.neighgen.is_empty(), "only FedSage+ reports NeighGen");
        assert_eq!(mended.neighgen.len(), 3, "one report per client");
        for (i, (m, f)) in mended.neighgen.iter().zip(&floored.neighgen).enumerate() {
            assert!(m.test_nodes > 0 && m.count_mae.is_some() && f.count_mae.is_some());
            assert_eq!(m.test_nodes, f.test_nodes, "the same NeighGen test nodes");
            let (pred, miss) = (f.mean_predicted.unwrap(), f.mean_missing.unwrap());
            assert!(miss > 0.0, "the test nodes miss hidden neighbours");
            assert!(
                pred < 1.0,
                "seed {seed} client {i}: the schedule predicts {pred} < 1"
            );
            assert_eq!(f.generated, 0, "floor of a count below one");
            assert_eq!(m.nodes, f.nodes);
        }
        let generated: usize = mended.neighgen.iter().map(|r| r.generated).sum();
        assert!(generated > 0, "seed {seed}: the default rounding mends");
        assert_ne!(mended.wire_digest, fedavg.wire_digest, "seed {seed}");
        // Nothing generated: FedSage+ is FedAvg, model for model.
        assert_eq!(floored.wire_digest, fedavg.wire_digest, "seed {seed}");
        assert_eq!(floored.f1_per_client, fedavg.f1_per_client);
    }
}

/// Per seed, FedSage+'s test F1 minus FedAvg's on the signal graph whose targets are joined to
/// signal nodes only (every hidden neighbour carries the class), 8 rounds of 8 steps, NeighGen
/// with `neighgen`.
fn gaps(neighgen: &NeighGenConfig) -> Vec<f64> {
    let gap = |seed: u64| {
        let t = signal_task(seed, 240, 60, 3, 0);
        let cfg = FedTrainConfig {
            neighgen: neighgen.clone(),
            ..config(seed, CountRounding::Stochastic)
        };
        let fedavg = run(&t, &cfg, Method::FedAvg);
        let mended = run(&t, &cfg, Method::FedSagePlus);
        assert!(mended.neighgen.iter().map(|r| r.generated).sum::<usize>() > 0);
        mended.f1_pooled - fedavg.f1_pooled
    };
    // Seeds are independent runs: one thread each.
    std::thread::scope(|s| {
        let runs: Vec<_> = (0..4).map(|seed| s.spawn(move || gap(seed))).collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    })
}

/// FedSage+ beats FedAvg where the hidden neighbours carry the label signal, with fGen's input
/// noise off (`noise: 0`, a variant: the paper's ε ~ N(0, I) swamps the latent and fGen then
/// generates rows that do not depend on the node, see the unit tests of `train::fedsage`) and
/// the generator trained to convergence (lr 1e-2, 200 local and 200 federated epochs; the
/// authors' 20 Adam steps at 1e-3 barely move it). Measured test-F1 gaps over seeds 0..4:
/// +.147, +.023, +.066, +.040 (validation: +.064, +.131, .000, −.048).
///
/// What this does not show: the mended graph is a function of the local graph, so it adds no
/// information, only a head start. With the default budget (20 rounds of 32 steps) FedAvg
/// reaches the same F1 (gaps −.041, −.021, +.012, −.010), and with the paper's noise the gaps
/// are negative (−.022, −.117, −.054, −.053).
#[test]
fn a_deterministic_fgen_trained_to_convergence_beats_fedavg_where_hidden_neighbours_carry_the_class()
 {
    let neighgen = NeighGenConfig {
        noise: 0.0,
        lr: 1e-2,
        local_epochs: 200,
        fed_epochs: 200,
        ..config(0, CountRounding::Stochastic).neighgen
    };
    let gaps = gaps(&neighgen);
    let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
    eprintln!("FedSage+ − FedAvg test F1 per seed: {gaps:?}, mean {mean:.3}");
    assert!(gaps.iter().all(|&g| g >= 0.0), "{gaps:?}");
    assert!(mean > 0.03, "mean gap {mean} over {gaps:?}");
}
