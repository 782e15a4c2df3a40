//! Every ablation switch reaches every model path: for GCN, GIN, GINE and PNA, each method that
//! differs from another in exactly one switch (embedding sharing, the embedding MA γ with its
//! read mode, the gradient MA β) trains another trajectory: other training losses from the first
//! local round on (the losses are computed by the forward pass the switch must reach, with the
//! weights its updates produced), and other bytes on the wire. A switch that only changed the
//! released rows, and not the model's forward or update path, would leave the losses equal.

use cefedgnn::aml::{AmlGenConfig, generate};
use cefedgnn::train::{FedReport, FedTask, FedTrainConfig, Method, ModelKind, simulate};
use rand::SeedableRng;

/// A generated 3-bank AML graph (edge features, illicit labels), split 60/20/20.
fn aml_task() -> FedTask {
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
    FedTask::from_account_graph("aml", &g.to_account_graph().unwrap(), 0.6, 0.2, &mut rng).unwrap()
}

fn config(model: ModelKind, task: &FedTask) -> FedTrainConfig {
    let base = if model == ModelKind::Gcn {
        FedTrainConfig::citation()
    } else {
        FedTrainConfig::aml(model)
    };
    FedTrainConfig {
        rounds: 3,
        local_steps: 4,
        batch_size: 32,
        fanout: Some(20),
        noise: dp_core::rng::NoiseSource::Seeded(0),
        ..base
    }
    .with_pna_delta_of(task)
    .unwrap()
}

/// The run's report and its per-round mean training losses (the bootstrap round's NaN left
/// out), as bits.
fn run(task: &FedTask, cfg: &FedTrainConfig, method: Method) -> (FedReport, Vec<u64>) {
    let mut losses = Vec::new();
    let r = simulate(task, cfg, method, &mut |info| {
        if !info.loss.is_nan() {
            losses.push(info.loss.to_bits());
        }
    })
    .unwrap();
    assert_eq!(
        losses.len(),
        cfg.rounds as usize,
        "one loss per local round"
    );
    (r, losses)
}

/// The pairs of methods that differ in one switch, with the switch's name.
const PAIRS: [(Method, Method, &str); 5] = [
    (Method::CeFedGnn, Method::NoEmbeddingMa, "embedding MA (γ)"),
    (Method::CeFedGnn, Method::NoGradientMa, "gradient MA (β)"),
    (Method::CeFedGnn, Method::NoSharing, "embedding sharing"),
    (
        Method::NoGradientMa,
        Method::StaleEmbeddings,
        "embedding MA (γ) without gradient MA",
    ),
    (
        Method::NoEmbeddingMa,
        Method::StaleEmbeddings,
        "gradient MA (β) without embedding MA",
    ),
];

fn every_switch_changes_the_trajectory(model: ModelKind) {
    let task = aml_task();
    let cfg = config(model, &task);
    let mut reports = std::collections::HashMap::new();
    for (a, b, _) in PAIRS {
        for m in [a, b] {
            reports.entry(m).or_insert_with(|| run(&task, &cfg, m));
        }
    }
    for (a, b, switch) in PAIRS {
        let ((ra, la), (rb, lb)) = (&reports[&a], &reports[&b]);
        assert!(ra.wire_digest.is_some() && rb.wire_digest.is_some());
        assert_ne!(
            ra.wire_digest,
            rb.wire_digest,
            "{model}: {} and {} put the same bytes on the wire",
            a.name(),
            b.name()
        );
        // The first local round already differs: the switch acts inside the round.
        assert_ne!(
            la[0],
            lb[0],
            "{model}: {} and {} have the same first-round loss: the switch '{switch}' does not reach this model",
            a.name(),
            b.name()
        );
    }
    // And the run is a function of the seed: the same method twice gives the same trajectory.
    let (again, losses) = run(&task, &cfg, Method::CeFedGnn);
    assert_eq!(again.wire_digest, reports[&Method::CeFedGnn].0.wire_digest);
    assert_eq!(losses, reports[&Method::CeFedGnn].1);
}

#[test]
fn every_switch_changes_the_gcn_trajectory() {
    every_switch_changes_the_trajectory(ModelKind::Gcn);
}

#[test]
fn every_switch_changes_the_gin_trajectory() {
    every_switch_changes_the_trajectory(ModelKind::Gin);
}

#[test]
fn every_switch_changes_the_gine_trajectory() {
    every_switch_changes_the_trajectory(ModelKind::Gine);
}

#[test]
fn every_switch_changes_the_pna_trajectory() {
    every_switch_changes_the_trajectory(ModelKind::Pna);
}
