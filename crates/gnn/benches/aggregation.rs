//! Where the dense adjacency product pays: one GCN and one GIN training epoch (EdgeRefine's
//! widths) on Cora's nodes and features with random edges of density p ∈ {0.2 %, …, 27 %}
//! (27 %: symmetric randomized response of Cora at ε = 1), with the sparse and the dense
//! product side by side ([`gnn::Aggregation`]). [`gnn::tensors::DENSE_MIN_DENSITY`] is set
//! from where the two cross. Run with `cargo bench -p gnn --bench aggregation`.

mod common;

use common::{Epoch, cora, cora_symrr, gat, gcn, gin};
use criterion::{Criterion, criterion_group, criterion_main};
use gnn::{Aggregation, ModelConfig};

fn bench(c: &mut Criterion) {
    let cora = cora();
    let mut group = c.benchmark_group("aggregation");
    group.sample_size(10);
    // SymRR's flip probability 1 / (1 + e^ε) is the density of the release far from the true
    // edges; ε = ln(1/p − 1) gives density p.
    for p in [0.002, 0.005, 0.01, 0.02, 0.05, 0.27] {
        let eps = (1.0 / p - 1.0f64).ln();
        let task = cora_symrr(&cora, eps, 0);
        for (name, model) in [
            ("gcn", gcn as fn(usize, usize) -> ModelConfig),
            ("gin", gin),
        ] {
            for (agg_name, agg) in [
                ("sparse", Aggregation::Sparse),
                ("dense", Aggregation::Dense),
            ] {
                let mut e = Epoch::with(&task, model, true, agg);
                e.step();
                group.bench_function(format!("cora_p{p}_{name}_{agg_name}"), |b| {
                    b.iter(|| e.step())
                });
            }
        }
        if p == 0.27 {
            // GAT has no dense path: its attention is per entry. This is the cost that decides
            // EdgeRefine's `--full` time on dense releases.
            let mut e = Epoch::with(&task, gat, true, Aggregation::Sparse);
            e.step();
            group.bench_function(format!("cora_p{p}_gat_sparse"), |b| b.iter(|| e.step()));
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
