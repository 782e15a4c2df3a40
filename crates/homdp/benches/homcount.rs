//! Homomorphism densities of 50 forest patterns (the paper's law) in 1000 graphs G(25, 0.15):
//! the authors' pipeline takes ≈110 s for this; the target is ≤ 0.1 s. Then, when HIV is
//! installed (`$DPGRAPH_DATA/HIV`), the whole HIV embedding (41,127 graphs × 50 forests, counts
//! and noise; target ≤ 3 s) and densities of 50 treewidth-2 patterns on the first 1000 HIV
//! graphs (reported). Run with
//! `cargo bench -p homdp --bench homcount`.

use criterion::{Criterion, criterion_group, criterion_main};
use graph_core::Graph;
use graph_core::registry::{DATA_ENV, Dataset, Registry, data_dir_or_default};
use homdp::{EmbeddingParams, Pattern, PatternSampler, density_matrix, embed, hom_count};
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

/// The HIV graphs, or `None` (with a message) when the dataset is not installed.
fn hiv() -> Option<Vec<Graph>> {
    let spec = Registry::embedded()
        .get("HIV")
        .expect("HIV is in the registry");
    if !spec.is_installed(&data_dir()) {
        eprintln!(
            "skipping the HIV benchmarks: HIV is not installed in {} (set DPGRAPH_DATA)",
            data_dir().display()
        );
        return None;
    }
    match spec.load(&data_dir()).expect("HIV loads") {
        Dataset::Graphs(d) => Some(d.graphs().to_vec()),
        _ => panic!("HIV is a graph collection"),
    }
}

fn bench_hiv(c: &mut Criterion) {
    let Some(graphs) = hiv() else { return };
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let forests = PatternSampler::forests().sample_many(50, &mut rng);
    let tw2 = PatternSampler::partial_ktrees(2)
        .expect("k = 2 is valid")
        .sample_many(50, &mut rng);
    let mut group = c.benchmark_group(format!("hiv_{}_graphs", graphs.len()));
    group.sample_size(10);
    // The paper's setting: Δ = 10, ρ = 0.01, counts (scaled densities) + Gaussian noise.
    let params = EmbeddingParams::new(dp_core::params::Rho::new(0.01).expect("ρ = 0.01"))
        .degree_bound(Some(10));
    let mut noise = dp_core::rng::seeded_rng(7);
    group.bench_function("embed_50_forests_rho_0.01", |b| {
        b.iter(|| embed(black_box(&forests), black_box(&graphs), &params, &mut noise).expect("ok"))
    });
    group.finish();
    // Treewidth 2 costs O(|V(F)|·n³) per pair: timed on the first 1000 HIV graphs (report).
    let first = &graphs[..graphs.len().min(1000)];
    let mut group = c.benchmark_group(format!("hiv_first_{}_graphs", first.len()));
    group.sample_size(10);
    group.bench_function("densities_50_treewidth2", |b| {
        b.iter(|| density_matrix(black_box(&tw2), black_box(first)).expect("ok"))
    });
    group.finish();
}

criterion_group!(benches, bench, bench_hiv);
criterion_main!(benches);

/// The data directory: `$DPGRAPH_DATA`, else `./data`.
fn data_dir() -> std::path::PathBuf {
    data_dir_or_default(std::env::var_os(DATA_ENV))
}
