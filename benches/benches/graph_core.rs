//! Benchmarks of graph-core's hot paths: loading HIV (41,127 molecules) and generating
//! G(n, p) with n = 1e6, m ≈ 5e6. Run with `cargo xtask bench --bench graph_core` (release).
//! HIV is read from `$DPGRAPH_DATA` (default `./data`); without it that benchmark is skipped.

use criterion::{Criterion, criterion_group, criterion_main};
use graph_core::registry::{DATA_ENV, data_dir_or_default};
use graph_core::{Registry, generate};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn load_hiv(c: &mut Criterion) {
    let spec = Registry::embedded().get("HIV").expect("registry");
    let dir = data_dir_or_default(std::env::var_os(DATA_ENV));
    if !spec.is_installed(&dir) {
        eprintln!(
            "load_hiv: skipped, HIV is not installed in {}",
            dir.display()
        );
        return;
    }
    let mut g = c.benchmark_group("load");
    g.sample_size(10);
    g.bench_function("HIV (41,127 graphs)", |b| {
        b.iter(|| spec.load(&dir).expect("load"));
    });
    g.finish();
}

fn gnp(c: &mut Criterion) {
    let mut g = c.benchmark_group("generate");
    g.sample_size(10);
    let n = 1_000_000;
    let p = 1e-5; // m ≈ p·n²/2 = 5e6
    g.bench_function("G(n,p) n=1e6 m≈5e6", |b| {
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        b.iter(|| generate::erdos_renyi(n, p, &mut rng).expect("valid parameters"));
    });
    g.finish();
}

criterion_group!(benches, load_hiv, gnp);
criterion_main!(benches);
