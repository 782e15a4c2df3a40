//! One training epoch (forward + backward + Adam step), full batch:
//! GCN, GAT and GIN (EdgeRefine's configurations) on Cora, and a 2-layer GCN (hidden 16) on a
//! random graph with 100,000 nodes, 1,000,000 undirected edges and 128 dense features; and PNA
//! (hidden 20, 5 towers, Multi-GNN's widths) on a contextual SBM with 2,000 nodes and 32 features
//! (PNA's first layer works in the input width, so Cora's 1,433 features would dominate).
//!
//! Cora is read from `$DPGRAPH_DATA` when installed; otherwise a stand-in of Cora's shape
//! (2,708 nodes, ~5,300 edges, 1,433 binary features with ~18 ones per node, 7 classes) is
//! generated. Run with `cargo bench -p gnn --bench epoch`.

mod common;

use common::{Epoch, big_graph, cora, gat, gcn, gin, pna_task};
use criterion::{Criterion, criterion_group, criterion_main};
use gnn::layers::avg_log_degree;
use gnn::{ModelConfig, PnaSettings};

/// Each configuration twice, side by side: with the fused kernels (the default) and with
/// burn's generic ops (`_generic`), so that their ratio is measured under the same load.
fn bench(c: &mut Criterion) {
    let cora = cora();
    let mut group = c.benchmark_group("epoch");
    group.sample_size(30);
    for (label, model) in [
        ("cora_gcn", gcn as fn(usize, usize) -> ModelConfig),
        ("cora_gat", gat),
        ("cora_gin", gin),
    ] {
        for fused in [true, false] {
            let mut e = Epoch::new(&cora, model, fused);
            e.step();
            let label = if fused {
                label.to_string()
            } else {
                format!("{label}_generic")
            };
            group.bench_function(label, |b| b.iter(|| e.step()));
        }
    }
    let sbm = pna_task();
    let delta = avg_log_degree(&sbm.edges().in_degrees()).expect("the SBM has edges");
    let pna = PnaSettings::new(delta).with_towers(5);
    let mut e = Epoch::new(&sbm, |i, o| ModelConfig::pna(i, 20, o, pna), true);
    e.step();
    group.bench_function("csbm_2k_pna", |b| b.iter(|| e.step()));
    group.finish();
    let big = big_graph();
    let mut group = c.benchmark_group("epoch_large");
    group.sample_size(10);
    for fused in [true, false] {
        let mut e = Epoch::new(&big, gcn, fused);
        e.step();
        let label = if fused {
            "gcn_100k_nodes_1m_edges"
        } else {
            "gcn_100k_nodes_1m_edges_generic"
        };
        group.bench_function(label, |b| b.iter(|| e.step()));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
