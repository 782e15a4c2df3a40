//! CE-FedGNN training on tiny synthetic graphs: determinism, traffic accounting, the baselines'
//! traffic shape (FedGCN, FED-PUB, FedSage+), GINE on a generated AML graph, and typed errors for
//! bad configurations.

use cefedgnn::FedError;
use cefedgnn::aml::{AmlGenConfig, generate};
use cefedgnn::train::{
    FedPubConfig, FedTask, FedTrainConfig, Method, ModelKind, NeighGenConfig, PartitionKind,
    simulate,
};
use graph_core::generate::ContextualSbm;
use rand::SeedableRng;

fn task() -> FedTask {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let ds = ContextualSbm {
        n: 150,
        classes: 3,
        p_in: 0.1,
        p_out: 0.01,
        dim: 8,
        mu: 1.5,
    }
    .sample(&mut rng)
    .unwrap();
    FedTask::from_node_dataset(&ds, 3, PartitionKind::Random, 0.4, 0.2, &mut rng).unwrap()
}

fn small() -> FedTrainConfig {
    FedTrainConfig {
        rounds: 3,
        local_steps: 5,
        batch_size: 16,
        noise: dp_core::rng::NoiseSource::Seeded(0),
        ..FedTrainConfig::default()
    }
}

#[test]
fn same_seed_gives_identical_runs_and_learning_happens() {
    let t = task();
    let cfg = FedTrainConfig {
        rounds: 6,
        local_steps: 8,
        ..small()
    };
    let a = simulate(&t, &cfg, Method::CeFedGnn, &mut |_| {}).unwrap();
    let b = simulate(&t, &cfg, Method::CeFedGnn, &mut |_| {}).unwrap();
    assert_eq!(a.f1_per_client, b.f1_per_client);
    assert_eq!((a.bytes_up, a.bytes_down), (b.bytes_up, b.bytes_down));
    // Separable CSBM: far above chance (1/3) after 48 steps.
    assert!(a.f1_pooled > 0.5, "{}", a.f1_pooled);
    let p = a.privacy.expect("boundary rows were released");
    assert_eq!(
        p.max_releases,
        u64::from(cfg.rounds) + 1,
        "one release per exchange"
    );
    assert!(p.not_covered.contains("NOT covered"));
}

#[test]
fn traffic_shape_of_the_methods() {
    let t = task();
    let cfg = small();
    let ce = simulate(&t, &cfg, Method::CeFedGnn, &mut |_| {}).unwrap();
    let fedavg = simulate(&t, &cfg, Method::FedAvg, &mut |_| {}).unwrap();
    let single = simulate(&t, &cfg, Method::SingleClient, &mut |_| {}).unwrap();
    let central = simulate(&t, &cfg, Method::Centralised, &mut |_| {}).unwrap();
    assert!(ce.embedding_bytes_per_round > 0.0);
    assert_eq!(
        fedavg.embedding_bytes_per_round, 0.0,
        "FedAvg exchanges no rows"
    );
    assert!(fedavg.bytes_up > 0 && fedavg.bytes_up < ce.bytes_up);
    assert!(fedavg.privacy.is_none());
    assert_eq!((single.bytes_up, central.bytes_down), (0, 0));
    // Exchanging every step (K = 1) over the same T costs K times the exchanges.
    let k1 = FedTrainConfig {
        local_steps: 1,
        rounds: 15,
        ..cfg.clone()
    };
    let every = simulate(&t, &k1, Method::CeFedGnn, &mut |_| {}).unwrap();
    assert!(every.embedding_bytes_per_round * 16.0 > ce.embedding_bytes_per_round * 4.0 * 3.0);
    // Embedding bytes per local step: an exchange after every K steps costs 1/K of exchanging
    // after every step (the rows per exchange do not depend on K).
    let k = f64::from(cfg.local_steps);
    assert!(ce.embedding_bytes_per_round / k <= every.embedding_bytes_per_round / k);
    assert!(ce.embedding_bytes_per_round / k <= every.embedding_bytes_per_round / 1.0 / k);
    assert_eq!(ce.f1_per_client.len(), 3);
}

#[test]
fn gradient_as_per_node_signal_learns_and_differs_from_momentum() {
    use cefedgnn::estimator::GradientMode;
    let t = task();
    let cfg = FedTrainConfig {
        rounds: 6,
        local_steps: 8,
        gradient: GradientMode::PerNodeSignal,
        ..small()
    };
    let losses = |cfg: &FedTrainConfig| {
        let mut l = Vec::new();
        let r = simulate(&t, cfg, Method::CeFedGnn, &mut |i| l.push(i.loss)).unwrap();
        (r, l)
    };
    let (a, la) = losses(&cfg);
    let (b, lb) = losses(&cfg);
    assert_eq!(a.f1_per_client, b.f1_per_client, "seeded");
    assert_eq!(la[1..], lb[1..]);
    assert!(a.f1_pooled > 0.5, "{}", a.f1_pooled);
    // The training loss falls, and the switch changes the trajectory.
    assert!(la[6] < la[1], "{la:?}");
    let (_, lm) = losses(&FedTrainConfig {
        gradient: GradientMode::Momentum,
        ..cfg.clone()
    });
    assert_ne!(la[2..], lm[2..], "the switch changes training");
    // Per-node signals stay on the client: they cannot be shared as a flat G.
    let shared = FedTrainConfig {
        share_gradient: true,
        ..cfg
    };
    assert!(matches!(
        simulate(&t, &shared, Method::CeFedGnn, &mut |_| {}),
        Err(FedError::InvalidParam {
            name: "share_gradient",
            ..
        })
    ));
}

#[test]
fn gine_runs_on_a_generated_aml_graph() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    let g = generate(
        &AmlGenConfig {
            num_banks: 3,
            num_accounts: 300,
            num_normal: 1500,
            attempt_scale: 0.1,
            ..AmlGenConfig::default()
        },
        &mut rng,
    )
    .unwrap();
    let t = FedTask::from_account_graph("aml", &g.to_account_graph().unwrap(), 0.6, 0.2, &mut rng)
        .unwrap();
    let cfg = FedTrainConfig {
        model: ModelKind::Gine,
        rounds: 2,
        local_steps: 3,
        fanout: Some(20),
        balanced_loss: true,
        ..small()
    };
    let r = simulate(&t, &cfg, Method::CeFedGnn, &mut |_| {}).unwrap();
    assert!(r.f1_pooled.is_finite());
    assert_eq!(r.f1_per_client.len(), 3);
}

#[test]
fn bad_configurations_are_typed_errors() {
    let t = task();
    for cfg in [
        FedTrainConfig {
            local_steps: 0,
            ..small()
        },
        FedTrainConfig {
            gamma: 0.0,
            ..small()
        },
        FedTrainConfig {
            beta: 1.5,
            ..small()
        },
        FedTrainConfig {
            num_layers: 1,
            ..small()
        },
        FedTrainConfig {
            halo_average: Some(0.0),
            ..small()
        },
        FedTrainConfig {
            grad_clip: Some(-1.0),
            ..small()
        },
        FedTrainConfig {
            model: ModelKind::Gine,
            ..small()
        }, // no edge features
    ] {
        let r = simulate(&t, &cfg, Method::CeFedGnn, &mut |_| {});
        assert!(matches!(r, Err(FedError::InvalidParam { .. })), "{r:?}");
    }
    // σ₀ < 0 and δ ∉ (0, 1) cannot reach a configuration: their types refuse them, from Rust
    // and from a configuration file alike.
    assert!(dp_core::params::NoiseMultiplier::new(-1.0).is_err());
    let mut json = serde_json::to_value(small()).unwrap();
    json["sigma0"] = serde_json::json!(-1.0);
    assert!(serde_json::from_value::<FedTrainConfig>(json.clone()).is_err());
    json["sigma0"] = serde_json::json!(1.0);
    json["delta"] = serde_json::json!(1.5);
    assert!(serde_json::from_value::<FedTrainConfig>(json).is_err());
}

/// Swift-FedGNN with every client sampled and K = 1 (every step a cross-client step) is
/// FedGNN-ST with exact rows: the same frames on the wire and the same predictions. With fewer
/// clients sampled the runs differ.
#[test]
fn swift_with_every_client_every_step_is_exact_stale_embeddings() {
    let t = task();
    let base = FedTrainConfig {
        local_steps: 1,
        rounds: 4,
        noise: dp_core::rng::NoiseSource::Seeded(1),
        ..small()
    };
    let swift_all = FedTrainConfig {
        swift_clients: Some(3),
        ..base.clone()
    };
    let exact_st = FedTrainConfig {
        sigma0: dp_core::params::NoiseMultiplier::ZERO,
        clip: 1e9,
        radius: 1e8,
        halo_average: None,
        ..base.clone()
    };
    let a = simulate(&t, &swift_all, Method::SwiftFedGnn, &mut |_| {}).unwrap();
    let b = simulate(&t, &exact_st, Method::StaleEmbeddings, &mut |_| {}).unwrap();
    assert_eq!(a.wire_digest, b.wire_digest);
    assert_eq!(a.f1_per_client, b.f1_per_client);
    let one = FedTrainConfig {
        swift_clients: Some(1),
        ..base
    };
    let c = simulate(&t, &one, Method::SwiftFedGnn, &mut |_| {}).unwrap();
    assert_ne!(a.wire_digest, c.wire_digest);
    assert!(
        c.norms.clipped_fraction() == 0.0,
        "exact rows are never clipped"
    );
    assert!(
        FedTrainConfig {
            swift_clients: Some(0),
            ..small()
        }
        .check()
        .is_err()
    );
}

/// FedGCN moves FedAvg's traffic plus one exchange of float32 feature rows: up, each client's
/// own and halo rows; down, its own rows.
#[test]
fn fedgcn_traffic_is_fedavg_plus_the_one_shot_aggregates() {
    let t = task();
    let cfg = small();
    let fedavg = simulate(&t, &cfg, Method::FedAvg, &mut |_| {}).unwrap();
    let fedgcn = simulate(&t, &cfg, Method::FedGcn, &mut |_| {}).unwrap();
    let row = t.features.ncols() as u64 * 4;
    let (own, halo): (u64, u64) = t.fed.clients().iter().fold((0, 0), |(o, h), c| {
        (o + c.nodes().len() as u64, h + c.halo().len() as u64)
    });
    assert_eq!(fedgcn.bytes_up - fedavg.bytes_up, (own + halo) * row);
    assert_eq!(fedgcn.bytes_down - fedavg.bytes_down, own * row);
    assert!(fedgcn.privacy.is_none(), "FedGCN releases nothing under DP");
    assert!(fedgcn.f1_pooled > 0.5, "{}", fedgcn.f1_pooled);
}

/// FED-PUB moves FedAvg's model traffic plus, per client and round, one functional embedding
/// (hidden width, float32) and its masks (one float32 per weight-matrix entry), and its clients
/// train from personalised models, not FedAvg's. The masks and the proximal term change the
/// run; without both it is the personalised averaging alone.
#[test]
fn fed_pub_sends_functional_embeddings_and_personalises() {
    let t = task();
    let cfg = small();
    let fedavg = simulate(&t, &cfg, Method::FedAvg, &mut |_| {}).unwrap();
    let fedpub = simulate(&t, &cfg, Method::FedPub, &mut |_| {}).unwrap();
    let m = t.fed.clients().len() as u64;
    // GCN 8 → 16 → 3: weight matrices of 8·16 and 16·3 entries.
    let (d, h, c) = (t.features.ncols() as u64, cfg.hidden as u64, 3u64);
    let per_round = m * (h + d * h + h * c) * 4;
    assert_eq!(
        fedpub.bytes_up - fedavg.bytes_up,
        u64::from(cfg.rounds) * per_round
    );
    assert_eq!(fedpub.bytes_down, fedavg.bytes_down);
    // The clients start rounds from their personalised models: other weights on the wire.
    assert_ne!(fedpub.wire_digest, fedavg.wire_digest);
    assert!(fedpub.f1_pooled > 0.5, "{}", fedpub.f1_pooled);
    let again = simulate(&t, &cfg, Method::FedPub, &mut |_| {}).unwrap();
    assert_eq!(fedpub.f1_per_client, again.f1_per_client, "seeded");
    // Each part of FED-PUB reaches the run.
    let variant = |masks: bool, proximal: f64| {
        let c = FedTrainConfig {
            fed_pub: FedPubConfig {
                masks,
                proximal,
                ..FedPubConfig::default()
            },
            ..small()
        };
        simulate(&t, &c, Method::FedPub, &mut |_| {}).unwrap()
    };
    let plain = variant(false, 0.0);
    let no_prox = variant(true, 0.0);
    let no_masks = variant(false, 1e-3);
    assert_eq!(
        plain.bytes_up - fedavg.bytes_up,
        u64::from(cfg.rounds) * m * h * 4
    );
    for (name, r) in [
        ("plain", &plain),
        ("no proximal", &no_prox),
        ("no masks", &no_masks),
    ] {
        assert_ne!(r.wire_digest, fedpub.wire_digest, "{name}");
    }
    assert_ne!(plain.wire_digest, no_prox.wire_digest, "masks");
    assert_ne!(plain.wire_digest, no_masks.wire_digest, "proximal term");
    assert!(matches!(
        simulate(
            &t,
            &FedTrainConfig {
                fed_pub: FedPubConfig {
                    tau: 0.0,
                    ..FedPubConfig::default()
                },
                ..small()
            },
            Method::FedPub,
            &mut |_| {}
        ),
        Err(FedError::InvalidParam { .. })
    ));
}

/// FedSage+ with a small NeighGen: finite F1, FedAvg's model traffic plus exactly the generator
/// phase (per federated epoch and ordered client pair (i, j), |T_i| nodes' K generated rows of
/// d floats and |T_i| counts to j, the same-size gradients back, each leg up and down; T_i =
/// client i's training nodes), nothing released under DP, and the same seed gives the same run.
#[test]
fn fedsage_plus_moves_fedavg_traffic_plus_the_generator_phase() {
    let t = task();
    // Small and trained hard, so that many neighbours are generated: every node outside the
    // task's train and validation sets hidden, lr 0.05.
    let neighgen = NeighGenConfig {
        latent: 16,
        fgen_hidden: [32, 64],
        hide_fraction: 1.0,
        lr: 0.05,
        local_epochs: 20,
        fed_epochs: 3,
        ..NeighGenConfig::default()
    };
    let cfg = FedTrainConfig {
        neighgen: neighgen.clone(),
        ..small()
    };
    let fedavg = simulate(&t, &cfg, Method::FedAvg, &mut |_| {}).unwrap();
    let sage = simulate(&t, &cfg, Method::FedSagePlus, &mut |_| {}).unwrap();
    let (k, d) = (neighgen.max_generated as u64, t.features.ncols() as u64);
    let m = t.fed.clients().len() as u64;
    let per_epoch: u64 = t
        .fed
        .clients()
        .iter()
        .map(|c| {
            let rows = c
                .nodes()
                .iter()
                .filter(|&&v| t.split.train[v as usize])
                .count() as u64;
            (m - 1) * 4 * (2 * rows * k * d + rows)
        })
        .sum();
    let generator = u64::from(neighgen.fed_epochs) * per_epoch;
    assert!(generator > 0);
    assert_eq!(sage.bytes_up - fedavg.bytes_up, generator);
    assert_eq!(sage.bytes_down - fedavg.bytes_down, generator);
    assert!(
        sage.embedding_bytes_per_round > 0.0,
        "generated rows are node data"
    );
    assert!(sage.privacy.is_none());
    assert_eq!(sage.f1_per_client.len(), 3);
    assert!(
        sage.f1_pooled.is_finite() && sage.f1_per_client.iter().flatten().all(|f| f.is_finite())
    );
    assert!(sage.f1_pooled > 1.0 / 3.0, "{}", sage.f1_pooled);
    let again = simulate(&t, &cfg, Method::FedSagePlus, &mut |_| {}).unwrap();
    assert_eq!(sage.f1_per_client, again.f1_per_client, "seeded");
    assert_eq!(sage.wire_digest, again.wire_digest);
    assert_eq!(
        (sage.bytes_up, sage.bytes_down),
        (again.bytes_up, again.bytes_down)
    );
    // Generated nodes change training: other weights on the wire than FedAvg's.
    assert_ne!(sage.wire_digest, fedavg.wire_digest);
    assert_eq!(Method::parse("fedsage-plus"), Some(Method::FedSagePlus));
    assert!(!Method::FedSagePlus.deployable());
    // NeighGen's configuration is checked, and an old configuration without it still loads.
    let bad = FedTrainConfig {
        neighgen: NeighGenConfig {
            max_generated: 0,
            ..neighgen
        },
        ..small()
    };
    assert!(matches!(
        simulate(&t, &bad, Method::FedSagePlus, &mut |_| {}),
        Err(FedError::InvalidParam { .. })
    ));
    let mut old = serde_json::to_value(small()).unwrap();
    old.as_object_mut().unwrap().remove("neighgen");
    let loaded: FedTrainConfig = serde_json::from_value(old).unwrap();
    assert_eq!(loaded.neighgen, NeighGenConfig::default());
}
