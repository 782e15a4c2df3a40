//! One CE-FedGNN protocol round with K = 32 local steps on Cora split across 5 clients
//! (random partition, GCN hidden 16, the citation preset): every client's 32 sampled steps,
//! the noisy boundary release, the server's aggregation and the broadcast, all through the
//! in-process transport.
//!
//! `simulate` always runs setup and the bootstrap round 0 (full forward pass, first release), so
//! the bench times runs with R = 1 and R = 5 rounds after the bootstrap: one round costs a quarter
//! of the difference of the two medians. The bytes per round (up + down, all clients) are printed once.
//!
//! Cora is read from `$DPGRAPH_DATA` when installed; otherwise a generated graph of Cora's size
//! (2,708 nodes, ~5,300 edges, 1,433 binary features, 7 classes) is used. Run with
//! `cargo bench -p cefedgnn --bench round`.

use cefedgnn::train::{FedTask, FedTrainConfig, Method, PartitionKind, simulate};
use criterion::{Criterion, criterion_group, criterion_main};
use graph_core::{Dataset, NodeDataset, Registry};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn cora() -> NodeDataset {
    let dir =
        graph_core::registry::data_dir_or_default(std::env::var_os(graph_core::registry::DATA_ENV));
    if let Ok(spec) = Registry::embedded().get("cora")
        && let Ok(Dataset::Nodes(ds)) = spec.load(&dir)
    {
        eprintln!("round bench: Cora from {}", dir.display());
        return ds;
    }
    eprintln!("round bench: Cora not installed, using a generated graph of Cora's size");
    graph_core::generate::cora_shaped(&mut ChaCha8Rng::seed_from_u64(0)).expect("valid stand-in")
}

fn bench(c: &mut Criterion) {
    let ds = cora();
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    let task = FedTask::from_node_dataset(&ds, 5, PartitionKind::Random, 0.2, 0.2, &mut rng)
        .expect("valid task");
    let cfg = |rounds| FedTrainConfig {
        local_steps: 32,
        rounds,
        ..FedTrainConfig::citation()
    };
    let r = simulate(&task, &cfg(5), Method::CeFedGnn, &mut |_| {}).expect("runs");
    eprintln!(
        "round bench: {:.0} bytes per round ({:.0} embedding bytes), {} clients",
        r.bytes_per_round,
        r.embedding_bytes_per_round,
        r.f1_per_client.len()
    );
    let mut g = c.benchmark_group("cefedgnn_round_cora_5_clients_k32");
    g.sample_size(10);
    for rounds in [1u32, 5] {
        let cfg = cfg(rounds);
        g.bench_function(format!("bootstrap_plus_{rounds}_rounds"), |b| {
            b.iter(|| simulate(&task, &cfg, Method::CeFedGnn, &mut |_| {}).expect("runs"));
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
