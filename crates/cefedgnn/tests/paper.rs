//! The paper protocol (`cefedgnn::paper`): the quick and full plans, the settings built from
//! given data, and the three tables on a tiny generated AML graph with 2 banks.

use cefedgnn::aml::{AmlGenConfig, generate};
use cefedgnn::paper::{
    AmlDataSetting, AmlSetting, CitationSetting, NO_CLIP, Plan, Runs, Setting,
    approximations_table, attack_table, local_steps_table, methods_table, privacy_table,
    radius_table,
};
use cefedgnn::train::{AmlSplit, FedTask, Method, ModelKind, PartitionKind};
use graph_core::NodeDataset;
use graph_core::generate::ContextualSbm;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// A table's ε as a number (NaN where the row has none).
fn eps(e: Option<dp_core::params::EpsilonBound>) -> f64 {
    e.map_or(f64::NAN, f64::from)
}

fn csbm(seed: u64) -> NodeDataset {
    ContextualSbm {
        n: 120,
        classes: 2,
        p_in: 0.1,
        p_out: 0.01,
        dim: 8,
        mu: 1.0,
    }
    .sample(&mut ChaCha8Rng::seed_from_u64(seed))
    .unwrap()
}

/// A tiny AML task: 2 banks (2 clients), 200 accounts.
fn tiny_aml() -> FedTask {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let cfg = AmlGenConfig {
        num_banks: 2,
        num_accounts: 200,
        num_normal: 1000,
        attempt_scale: 0.05,
        ..AmlGenConfig::default()
    };
    let ag = generate(&cfg, &mut rng)
        .unwrap()
        .to_account_graph()
        .unwrap();
    FedTask::from_account_graph("tiny-aml", &ag, 0.6, 0.2, &mut rng).unwrap()
}

/// A plan of a few steps: T = 4 local steps, K = 2 (K sweep {1, 2}), σ₀ ∈ {0.5, 1}, 2 seeds.
fn tiny_plan() -> Plan {
    Plan {
        aml_steps: 4,
        aml_k_sweep_steps: 4,
        k_default: 2,
        k_sweep: vec![1, 2],
        sigmas: vec![0.5, 1.0],
        seeds: vec![0, 1],
        ..Plan::quick()
    }
}

#[test]
fn quick_and_full_plans() {
    let q = Plan::quick();
    let cora5 = CitationSetting {
        dataset: "cora".into(),
        clients: 5,
        partition: PartitionKind::Louvain,
    };
    assert_eq!(q.citation, vec![cora5.clone()]);
    let gine = |accounts| AmlSetting {
        accounts,
        model: ModelKind::Gine,
    };
    assert_eq!(q.aml, vec![gine(2000)]);
    assert_eq!(
        (q.citation_steps, q.aml_steps, q.k_default),
        (2048, 256, 32)
    );
    assert_eq!(q.k_sweep, [1, 8, 32, 128]);
    assert_eq!(q.sigmas, [0.5, 1.0, 1.2]);
    assert_eq!(q.seeds, [0]);

    let f = Plan::full();
    let names: Vec<&str> = f.citation.iter().map(|c| c.dataset.as_str()).collect();
    assert_eq!(
        names,
        [
            "cora",
            "citeseer",
            "pubmed",
            "msacademic",
            "cora",
            "cora",
            "citeseer",
            "cora",
            "citeseer",
            "acm",
            "dblp",
            "amap"
        ]
    );
    assert_eq!(f.citation[0], cora5);
    assert_eq!(f.citation[4].partition, PartitionKind::Random);
    // The settings with headroom: random partitions and the label-Dirichlet skew.
    let parts: Vec<_> = f.citation[6..].iter().map(|c| c.partition).collect();
    assert_eq!(
        parts,
        [
            PartitionKind::Random,
            PartitionKind::LabelDirichlet1,
            PartitionKind::LabelDirichlet1,
            PartitionKind::Random,
            PartitionKind::Random,
            PartitionKind::Random
        ]
    );
    assert_eq!(
        f.sweep_config(ModelKind::Gcn, 1024).rounds,
        8,
        ">= 8 rounds at K = 1024"
    );
    assert_eq!(q.sweep_config(ModelKind::Gcn, 128).rounds, 16);
    assert_eq!(f.k_sweep_methods.len(), 3);
    let gin = AmlSetting {
        accounts: 2000,
        model: ModelKind::Gin,
    };
    let pna = AmlSetting {
        accounts: 2000,
        model: ModelKind::Pna,
    };
    assert_eq!(f.aml, vec![gine(2000), gin, pna, gine(4000), gine(8000)]);
    assert_eq!((f.citation_steps, f.aml_steps), (2048, 512));
    assert_eq!(f.k_sweep, [1, 8, 32, 128, 1024]);
    assert_eq!(f.seeds, [0, 1, 2]);
    assert!(f.k_sweep.contains(&f.k_default) && q.k_sweep.contains(&q.k_default));

    assert_eq!(f.seeds_for(true), [0, 1, 2]);
    assert_eq!(f.seeds_for(false), [0]);
    assert_eq!(f.k_sweep_for(false), [] as [u32; 0]);
    let c = f.config(ModelKind::Gcn, 8);
    assert_eq!(
        (c.model, c.hidden, c.local_steps, c.rounds),
        (ModelKind::Gcn, 8, 8, 256)
    );
    let a = f.config(ModelKind::Gin, 1024);
    assert_eq!((a.model, a.hidden, a.rounds), (ModelKind::Gin, 32, 1));
}

#[test]
fn settings_skip_missing_data_and_mark_the_primary_ones() {
    let plan = Plan {
        citation: vec![
            CitationSetting {
                dataset: "missing".into(),
                clients: 3,
                partition: PartitionKind::Random,
            },
            CitationSetting {
                dataset: "csbm".into(),
                clients: 2,
                partition: PartitionKind::Random,
            },
            CitationSetting {
                dataset: "csbm".into(),
                clients: 3,
                partition: PartitionKind::Louvain,
            },
        ],
        aml: vec![
            AmlSetting {
                accounts: 300,
                model: ModelKind::Gine,
            },
            AmlSetting {
                accounts: 300,
                model: ModelKind::Gin,
            },
        ],
        ..Plan::quick()
    };
    let data = [("csbm", csbm(1))];
    let sets = plan.settings(&data, 42).unwrap();
    let labels: Vec<_> = sets.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "csbm N=2 random",
            "csbm N=3 louvain",
            "aml-gen-300 Gine",
            "aml-gen-300 Gin"
        ]
    );
    let primary: Vec<_> = sets.iter().map(|s| s.primary).collect();
    assert_eq!(primary, [true, false, true, false]);
    let models: Vec<_> = sets.iter().map(|s| s.model).collect();
    assert_eq!(
        models,
        [
            ModelKind::Gcn,
            ModelKind::Gcn,
            ModelKind::Gine,
            ModelKind::Gin
        ]
    );
    assert_eq!(sets[1].task.fed.clients().len(), 3);
    // One generated graph per account count, one client per bank (8 banks).
    assert_eq!(sets[2].task.labels, sets[3].task.labels);
    assert_eq!(sets[2].task.split.test, sets[3].task.split.test);
    assert_eq!(sets[2].task.fed.clients().len(), 8);
    // The seed draws partitions, splits and graphs: the same seed, the same settings.
    let again = plan.settings(&data, 42).unwrap();
    assert_eq!(sets[0].task.split.test, again[0].task.split.test);
    assert_eq!(sets[2].task.labels, again[2].task.labels);
    let other = plan.settings(&data, 43).unwrap();
    assert_ne!(sets[0].task.split.test, other[0].task.split.test);
}

#[test]
fn a_registry_aml_dataset_runs_as_banks_would() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let cfg = AmlGenConfig {
        num_banks: 4,
        num_accounts: 300,
        num_normal: 3000,
        ..AmlGenConfig::default()
    };
    let ag = generate(&cfg, &mut rng)
        .unwrap()
        .to_account_graph()
        .unwrap();
    let plan = Plan {
        aml_data: vec![
            AmlDataSetting {
                dataset: "bank-file".into(),
                clients: 2,
                split: AmlSplit::Time,
                model: ModelKind::Gine,
            },
            AmlDataSetting {
                dataset: "not-installed".into(),
                clients: 2,
                split: AmlSplit::Random,
                model: ModelKind::Gine,
            },
        ],
        ..Plan::quick()
    };
    let sets = plan
        .aml_data_settings(&[("bank-file", ag.clone())], 5)
        .unwrap();
    assert_eq!(sets.len(), 1, "the dataset not given is skipped");
    let s = &sets[0];
    assert_eq!(s.label, "bank-file N=2 time Gine");
    assert!(!s.primary);
    assert_eq!(s.task.fed.clients().len(), 2);
    // Time-ordered: no test account transacted before the last training account did.
    let order = ag.time_order().unwrap();
    let pos = |v: usize| order.iter().position(|&x| x == v).unwrap();
    let last_train = (0..order.len())
        .filter(|&v| s.task.split.train[v])
        .map(pos)
        .max();
    let first_test = (0..order.len())
        .filter(|&v| s.task.split.test[v])
        .map(pos)
        .min();
    assert!(last_train < first_test, "{last_train:?} {first_test:?}");
}

#[test]
fn tables_on_a_tiny_aml_graph() {
    let plan = tiny_plan();
    let s = Setting {
        label: "tiny".into(),
        task: tiny_aml(),
        model: ModelKind::Gine,
        primary: true,
    };
    let mut runs = Runs::new(false);
    let methods = methods_table(&plan, &s, &mut runs).unwrap();
    let names: Vec<_> = methods.iter().map(|r| r.method.as_str()).collect();
    let all: Vec<_> = Method::ALL.iter().map(|m| m.name()).collect();
    assert_eq!(names, all);
    let sharing = [
        Method::CeFedGnn,
        Method::NoEmbeddingMa,
        Method::NoGradientMa,
        Method::StaleEmbeddings,
    ]
    .map(Method::name);
    for r in &methods {
        assert_eq!((r.setting.as_str(), r.k, r.rounds), ("tiny", 2, 2));
        assert_eq!(r.seeds, [0, 1]);
        for f1 in [r.f1_mean, r.f1_pooled, r.val_f1_mean] {
            assert!((0.0..=1.0).contains(&f1), "{r:?}");
        }
        assert!(
            r.seconds.is_finite() && r.bytes_per_round.is_finite(),
            "{r:?}"
        );
        let shares = sharing.contains(&r.method.as_str());
        // Node data unprotected on the wire: exact halo rows, feature sums, or (FedSage+)
        // generated rows with gradients that reveal remote features.
        let exact_rows = ["swift-fedgnn", "fedgcn", "fedsage-plus"].contains(&r.method.as_str());
        if r.method == "fed-pub" {
            assert_eq!(r.embedding_bytes_per_round, 0.0, "no node rows: {r:?}");
            assert!(r.eps_p.is_none());
            continue;
        }
        assert_eq!(
            r.embedding_bytes_per_round > 0.0,
            shares || exact_rows,
            "{r:?}"
        );
        assert_eq!(r.eps_p.is_some_and(|e| e.is_finite()), shares, "{r:?}");
        assert!(r.wire.contains("unprotected") == exact_rows, "{r:?}");
    }
    let ce = methods.iter().find(|r| r.method == "cefedgnn").unwrap();
    assert!(eps(ce.eps_p) > 0.0);

    let ks = local_steps_table(&plan, &s, &mut runs).unwrap();
    let kr: Vec<_> = ks.iter().map(|r| (r.k, r.rounds)).collect();
    assert_eq!(kr, [(1, 4), (2, 2)]);
    assert_eq!(ks[0].embedding_vs_every_step, 1.0);
    assert!(
        ks[1].embedding_vs_every_step <= ks[1].one_over_k + 1e-12,
        "{:?}",
        ks[1]
    );
    assert_eq!(ks[1].one_over_k, 0.5);
    // K = 2 is the methods table's run, reused.
    assert_eq!(ks[1].f1_mean, ce.f1_mean);
    assert!(
        ks.iter()
            .all(|r| r.f1_mean.is_finite() && r.bytes_total > 0.0)
    );

    let ps = privacy_table(&plan, &s, &mut runs).unwrap();
    let sig: Vec<_> = ps.iter().map(|r| r.sigma0.get()).collect();
    assert_eq!(sig, [0.5, 1.0]);
    for r in &ps {
        assert!(r.max_releases.is_some_and(|n| n > 0), "{r:?}");
        assert!(
            eps(r.eps_p_rdp) > 0.0 && eps(r.eps_p_closed_form).is_finite(),
            "{r:?}"
        );
        assert!(eps(r.eps_standard_dp) > eps(r.eps_p_rdp), "{r:?}");
        assert_eq!((r.clip, r.hidden), (1.0, 32));
        assert!((0.0..=1.0).contains(&r.clipped_fraction) && r.boundary_norm_mean > 0.0);
    }
    assert!(
        eps(ps[0].eps_p_rdp) > eps(ps[1].eps_p_rdp),
        "more noise, smaller ε"
    );
    assert_eq!(ps[1].eps_p_rdp, ce.eps_p);
    assert!(runs.diverged().is_empty(), "{:?}", runs.diverged());

    // The attack on the most exposed bank's received rows: one row per σ₀, the same client
    // and targets each time, finite errors, the mean predictor independent of σ₀.
    let plan_attack = Plan {
        attack_sigmas: vec![0.0, 2.0],
        ..plan.clone()
    };
    let at = attack_table(&plan_attack, &s).unwrap();
    assert_eq!(
        at.iter().map(|r| r.sigma0.get()).collect::<Vec<_>>(),
        [0.0, 2.0]
    );
    assert_eq!(at[0].attack.client, at[1].attack.client);
    assert_eq!(at[0].attack.targets, at[1].attack.targets);
    assert!(at[0].attack.targets > 0 && at[0].attack.own_nodes > 0);
    assert_eq!(at[0].attack.mse_mean, at[1].attack.mse_mean);
    for r in &at {
        assert!(
            r.attack.mse_regression.is_finite() && r.attack.mse_nearest.is_finite(),
            "{r:?}"
        );
        assert_eq!(
            r.regression_vs_mean,
            r.attack.mse_regression / r.attack.mse_mean
        );
        for x in [
            r.label_accuracy,
            r.label_balanced_accuracy,
            r.label_prior_accuracy,
            r.label_prior_balanced_accuracy,
        ] {
            assert!((0.0..=1.0).contains(&x), "{r:?}");
        }
        assert_eq!(
            r.label_prior_balanced_accuracy,
            at[0].label_prior_balanced_accuracy
        );
        assert!(
            r.edge_auc.is_nan() || (0.0..=1.0).contains(&r.edge_auc),
            "{r:?}"
        );
    }

    // The radius table: the rows' norms and distances, ε(p) growing with the radius.
    let rad = radius_table(&plan, &s).unwrap();
    assert_eq!(rad.len(), 1);
    let g = &rad[0].geometry;
    assert!(
        g.rows > 1 && g.norm_p10 <= g.norm_median && g.norm_median <= g.norm_p90,
        "{g:?}"
    );
    assert!((0.0..=1.0).contains(&g.clipped_share));
    assert!(g.random_median <= g.random_p90);
    assert!(eps(rad[0].eps_at_random_p90) >= eps(rad[0].eps_at_random_median));
    assert!(eps(rad[0].eps_p_default) > 0.0 && rad[0].max_releases > 0);

    // The approximation ladder: 7 rows from centralised to the default, costs that add up,
    // the last row the methods table's CE-FedGNN run (the same cached runs).
    let before = runs.len();
    let lad = approximations_table(&plan, &s, &mut runs).unwrap();
    assert_eq!(lad.len(), 8);
    // Every step is its own run (a configuration that differs in any field is not served from
    // the cache), except centralised and the default, which the methods table ran, and the
    // receiver-side averaging, which the AML preset does not use (step 4 = step 3): 5 new
    // configurations × 2 seeds.
    assert_eq!(plan.config(ModelKind::Gine, 2).halo_average, None);
    assert_eq!(runs.len() - before, 10);
    assert_eq!(lad[4].f1_per_seed, lad[3].f1_per_seed);
    assert_eq!(lad[0].method, "centralised");
    assert_eq!(
        (lad[1].k, lad[1].rounds, lad[1].clip, lad[1].sigma0.get()),
        (1, 4, NO_CLIP, 0.0)
    );
    assert_eq!(
        (lad[1].gamma, lad[1].beta, lad[1].halo_average),
        (1.0, 1.0, None)
    );
    assert_eq!((lad[2].k, lad[2].rounds), (2, 2));
    assert!(lad[3].gamma < 1.0 || lad[3].beta < 1.0, "{:?}", lad[3]);
    assert_eq!(lad[6].f1_mean, ce.f1_mean);
    assert!(lad[0].cost.is_nan() && lad[0].vs_centralised == 0.0);
    let total: f64 = lad[1..7].iter().map(|r| r.cost).sum();
    assert!((total - (lad[0].f1_mean - lad[6].f1_mean)).abs() < 1e-9);
    // The control: step 1 with the exact first layer, read against step 1.
    assert_eq!(lad[7].step, cefedgnn::paper::CONTROL_STEP);
    assert_eq!(
        (lad[7].k, lad[7].clip, lad[7].sigma0.get()),
        (1, NO_CLIP, 0.0)
    );
    assert!((lad[7].cost - (lad[1].f1_mean - lad[7].f1_mean)).abs() < 1e-12);
    assert!(lad.iter().all(|r| r.runs == 2 && r.seeds == [0, 1]));

    // A setting that is not primary: no K sweep, no attack, the σ₀ sweep on the first seed,
    // but the methods table over every seed (with their spread and per-seed values).
    let s = Setting {
        primary: false,
        ..s
    };
    assert!(local_steps_table(&plan, &s, &mut runs).unwrap().is_empty());
    assert!(attack_table(&plan, &s).unwrap().is_empty());
    let every = methods_table(&plan, &s, &mut runs).unwrap();
    assert!(every.iter().all(|r| r.seeds == plan.seeds));
    for r in &every {
        assert_eq!(r.f1_per_seed.len(), plan.seeds.len());
        let mean = r.f1_per_seed.iter().sum::<f64>() / r.f1_per_seed.len() as f64;
        assert!((mean - r.f1_mean).abs() < 1e-12, "{r:?}");
        assert_eq!(r.f1_std.is_nan(), plan.seeds.len() < 2);
        // Only FedSage+ reports what NeighGen generated.
        assert_eq!(
            r.generated_neighbours.is_nan(),
            r.method != Method::FedSagePlus.name(),
            "{r:?}"
        );
    }
}

#[test]
fn rows_serialize_with_the_table_columns() {
    let v = serde_json::to_value(cefedgnn::paper::MethodRow::default()).unwrap();
    assert!(v.get("K").is_some() && v.get("k").is_none());
    let v = serde_json::to_value(cefedgnn::paper::PrivacyRow::default()).unwrap();
    assert_eq!(v["max_releases"], serde_json::Value::Null);
}

/// PNA on the AML graph: CE-FedGNN-PNA and FedAvg-PNA train, δ comes from the task's training
/// degrees, and the same seed gives the same run.
#[test]
fn pna_trains_federated_on_a_tiny_aml_graph() {
    use cefedgnn::train::{FedTrainConfig, simulate};
    let task = tiny_aml();
    let cfg = FedTrainConfig {
        rounds: 2,
        local_steps: 2,
        noise: dp_core::rng::NoiseSource::Seeded(3),
        ..FedTrainConfig::aml(ModelKind::Pna)
    };
    let with = cfg.with_pna_delta_of(&task).unwrap();
    let delta = with.pna_delta.unwrap();
    assert!(delta > 0.0 && delta.is_finite(), "{delta}");
    for m in [Method::CeFedGnn, Method::FedAvg] {
        let a = simulate(&task, &cfg, m, &mut |_| {}).unwrap();
        let b = simulate(&task, &cfg, m, &mut |_| {}).unwrap();
        assert!((0.0..=1.0).contains(&a.f1_pooled), "{m}: {}", a.f1_pooled);
        assert_eq!(a.f1_per_client, b.f1_per_client, "{m}: seeded");
    }
    // A configuration that fixes δ uses it: another δ, another model.
    let fixed = FedTrainConfig {
        pna_delta: Some(delta * 3.0),
        ..cfg.clone()
    };
    let a = simulate(&task, &cfg, Method::CeFedGnn, &mut |_| {}).unwrap();
    let c = simulate(&task, &fixed, Method::CeFedGnn, &mut |_| {}).unwrap();
    assert_ne!(a.wire_digest, c.wire_digest);
}
