//! Homomorphism densities of 50 forest patterns (the paper's law) in 1000 graphs G(25, 0.15):
//! the authors' pipeline takes ≈110 s for this; the target is ≤ 0.1 s. Run with
//! `cargo bench -p homdp --bench homcount`.

use criterion::{Criterion, criterion_group, criterion_main};
use graph_core::Graph;
use homdp::{Pattern, PatternSampler, density_matrix, hom_count};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

fn workload() -> (Vec<Pattern>, Vec<Graph>) {
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let graphs = (0..1000)
        .map(|_| graph_core::generate::erdos_renyi(25, 0.15, &mut rng))
        .collect::<Result<Vec<_>, _>>()
        .expect("valid parameters");
    let patterns = PatternSampler::forests().sample_many(50, &mut rng);
    (patterns, graphs)
}

fn bench(c: &mut Criterion) {
    let (patterns, graphs) = workload();
    let mut group = c.benchmark_group("homcount_1000xG(25,0.15)_x_50_forests");
    group.sample_size(20);
    group.bench_function("densities_f64_parallel", |b| {
        b.iter(|| density_matrix(black_box(&patterns), black_box(&graphs)).expect("ok"))
    });
    group.bench_function("exact_u128_sequential", |b| {
        b.iter(|| {
            let mut acc = 0u128;
            for g in &graphs {
                for p in &patterns {
                    acc = acc.wrapping_add(hom_count(black_box(p), black_box(g)).expect("fits"));
                }
            }
            acc
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
