//! The server's refine step on noisy graphs of Cora's size (n = 2,708 at ε = 1) and of
//! n = 10,000 (ε = 1 and ε = 3); with the feature `oracle`, `refine` (the tiled server) against
//! the all-pairs server that served graphs up to 65,536 nodes before it (`refine_all_pairs`, now
//! the test oracle) at n = 10,000, ε = 1 and ε = 3, after checking that both releases are the
//! same, each with the AVX-512 and the AVX2 common-neighbour kernel (`set_popcount_kernel`);
//! and the client's perturb step on n = 100,000, m = 1e6, ε = 3.
//! Run: `cargo bench -p edgerefine --features oracle --bench refine`.

use dp_core::params::Epsilon;

use criterion::{Criterion, criterion_group, criterion_main};
use edgerefine::{RefineParams, perturb, refine};
use graph_core::generate::erdos_renyi;

fn noisy(n: usize, m: f64, eps: f64) -> (graph_core::Graph, u64) {
    let mut rng = dp_core::rng::seeded_rng(7);
    let g = erdos_renyi(n, 2.0 * m / (n as f64 * (n as f64 - 1.0)), &mut rng).expect("valid p");
    let e = g.num_edges() as u64;
    (
        perturb(&g, Epsilon::new(eps).unwrap(), &mut rng).expect("valid eps"),
        e,
    )
}

fn refine_bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("refine");
    g.sample_size(10);
    for (n, m, eps) in [
        (2_708usize, 5_278.0, 1.0),
        (10_000, 20_000.0, 1.0),
        (10_000, 20_000.0, 3.0),
    ] {
        let (noisy, e) = noisy(n, m, eps);
        let p = RefineParams::new(Epsilon::new(eps).unwrap(), e);
        g.bench_function(format!("n={n} eps={eps}"), |b| {
            b.iter(|| refine(&noisy, &p).expect("refine"))
        });
    }
    g.finish();
}

fn perturb_bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("perturb");
    g.sample_size(10);
    let mut rng = dp_core::rng::seeded_rng(1);
    let n = 100_000;
    let graph = erdos_renyi(n, 2e6 / (n as f64 * (n as f64 - 1.0)), &mut rng).expect("valid p");
    g.bench_function("n=1e5 m=1e6 eps=3", |b| {
        b.iter(|| perturb(&graph, Epsilon::new(3.0).unwrap(), &mut rng).expect("perturb"))
    });
    g.finish();
}

/// `refine` (tiled) against the all-pairs server at n = 2,708 (ε = 1) and n = 10,000 (ε = 1 and
/// ε = 3), after checking
/// that both give the same release; each under the AVX-512 kernel (where the CPU has it) and the
/// AVX2 kernel (what the all-pairs server ran before).
#[cfg(feature = "oracle")]
fn tiled_vs_all_pairs(c: &mut Criterion) {
    use edgerefine::{PopcountKernel, TieBreak, refine_all_pairs, set_popcount_kernel};
    let mut g = c.benchmark_group("tiled_vs_all_pairs");
    g.sample_size(10);
    for (n, m, eps) in [
        (2_708usize, 5_278.0, 1.0),
        (10_000, 20_000.0, 1.0),
        (10_000, 20_000.0, 3.0),
    ] {
        let (noisy, e) = noisy(n, m, eps);
        for tb in [TieBreak::Default, TieBreak::Reference] {
            let p = RefineParams {
                tie_break: tb,
                ..RefineParams::new(Epsilon::new(eps).unwrap(), e)
            };
            let a = refine(&noisy, &p).expect("tiled");
            let b = refine_all_pairs(&noisy, &p).expect("all pairs");
            assert_eq!(a.graph, b.graph, "same release ({tb:?})");
            assert_eq!(a.bin_edges, b.bin_edges, "same bins ({tb:?})");
        }
        let p = RefineParams::new(Epsilon::new(eps).unwrap(), e);
        for (kernel, label) in [
            (PopcountKernel::Avx512, ""),
            (PopcountKernel::Avx2, " avx2"),
        ] {
            set_popcount_kernel(kernel);
            g.bench_function(format!("all pairs{label} n={n} eps={eps}"), |b| {
                b.iter(|| refine_all_pairs(&noisy, &p).expect("refine"))
            });
            g.bench_function(format!("tiled{label} n={n} eps={eps}"), |b| {
                b.iter(|| refine(&noisy, &p).expect("refine"))
            });
        }
        set_popcount_kernel(PopcountKernel::Avx512);
    }
    g.finish();
}

#[cfg(not(feature = "oracle"))]
fn tiled_vs_all_pairs(_: &mut Criterion) {
    eprintln!("tiled_vs_all_pairs: needs `--features oracle` (the all-pairs server)");
}

criterion_group!(benches, refine_bench, tiled_vs_all_pairs, perturb_bench);
criterion_main!(benches);
