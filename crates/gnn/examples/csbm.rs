//! Node classification on a generated contextual SBM (no data needed):
//! `cargo run --release -p gnn --example csbm`. Trains GCN, GraphSAGE, GAT, GIN and an MLP on
//! the same seeded graph and prints their test accuracy.

use gnn::{ModelConfig, NodeTask, TrainConfig, train_node_classifier};
use graph_core::{NodeSplit, generate::ContextualSbm};
use rand::SeedableRng;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
    let ds = ContextualSbm {
        n: 2000,
        classes: 4,
        p_in: 0.01,
        p_out: 0.001,
        dim: 32,
        mu: 1.0,
    }
    .sample(&mut rng)?;
    let split = NodeSplit::random(2000, 0.6, 0.2, &mut rng)?;
    let task = NodeTask::from_dataset(&ds)?.with_split(split)?;
    let device = burn::tensor::Device::flex();
    let train = TrainConfig::new()
        .with_max_epochs(200)
        .with_patience(Some(50));
    for (name, cfg) in [
        ("gcn", ModelConfig::gcn(32, 64, 4)),
        ("sage", ModelConfig::sage(32, 64, 4)),
        ("gat", ModelConfig::gat(32, 8, 4)),
        ("gin", ModelConfig::gin(32, 64, 4)),
        ("mlp", ModelConfig::mlp(32, 64, 4)),
    ] {
        let t = std::time::Instant::now();
        let out = train_node_classifier(&task, &cfg, &train, &device)?;
        println!(
            "{name:>4}: test acc {:.3} (best epoch {}, {:.1}s)",
            out.test_acc,
            out.best_epoch,
            t.elapsed().as_secs_f64()
        );
    }
    Ok(())
}
