//! Sampler throughput: each sampler against `rand_distr::Normal`, and the geometric-skip sampler against
//! naive Bernoulli trials and the bit-sliced word sampler over 5·10⁷ trials at p = 0.475 (ε = 0.1),
//! 0.27 (ε = 1), 0.05 (ε ≈ 3) and 0.001 (naive trials only at the two ends).
//!
//! Run: `cargo bench -p dp-core --bench samplers -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use dp_core::mechanisms::{GaussianParams, LaplaceParams};
use dp_core::rng::seeded_rng;
use dp_core::samplers::{
    BernoulliExp, BernoulliWord, DiscreteGaussian, DiscreteLaplace, GeometricSkip,
};
use rand::RngExt;
use rand_distr::{Distribution, Normal};

const BATCH: u64 = 1000;

fn samplers(c: &mut Criterion) {
    let mut g = c.benchmark_group("samplers");
    g.throughput(Throughput::Elements(BATCH));
    let mut rng = seeded_rng(1);
    let normal = Normal::new(0.0, 1.0).unwrap();
    g.bench_function("rand_distr_normal", |b| {
        b.iter(|| (0..BATCH).map(|_| normal.sample(&mut rng)).sum::<f64>())
    });
    let gauss = GaussianParams::new(1.0).check().unwrap();
    g.bench_function("gaussian_release_f64", |b| {
        b.iter(|| {
            (0..BATCH)
                .map(|_| gauss.release(0.0, &mut rng))
                .sum::<f64>()
        })
    });
    let lap = LaplaceParams::new(1.0).check().unwrap();
    g.bench_function("laplace_release_f64", |b| {
        b.iter(|| (0..BATCH).map(|_| lap.release(0.0, &mut rng)).sum::<f64>())
    });
    for sigma in [1.0, 100.0] {
        let dg = DiscreteGaussian::from_sigma(sigma).unwrap();
        g.bench_function(format!("discrete_gaussian_sigma_{sigma}"), |b| {
            b.iter(|| (0..BATCH).map(|_| dg.sample(&mut rng)).sum::<i64>())
        });
    }
    for scale in [1.0, 100.0] {
        let dl = DiscreteLaplace::from_scale(scale).unwrap();
        g.bench_function(format!("discrete_laplace_scale_{scale}"), |b| {
            b.iter(|| (0..BATCH).map(|_| dl.sample(&mut rng)).sum::<i64>())
        });
    }
    let be = BernoulliExp::new(1, 3).unwrap();
    g.bench_function("bernoulli_exp_1_3", |b| {
        b.iter(|| (0..BATCH).filter(|_| be.sample(&mut rng)).count())
    });
    g.finish();
}

fn bernoulli_trials(c: &mut Criterion) {
    const N: u64 = 50_000_000;
    let mut g = c.benchmark_group("bernoulli_5e7");
    g.sample_size(10);
    g.throughput(Throughput::Elements(N));
    let mut rng = seeded_rng(2);
    for p in [0.475, 0.27, 0.05, 0.001] {
        let skip = GeometricSkip::new(N, p).unwrap();
        g.bench_function(format!("geometric_skip_p{p}"), |b| {
            b.iter(|| skip.positions(&mut rng).fold(0u64, |acc, i| acc ^ i))
        });
        // The same trials as packed bits, 64 per call (the dense report's layout).
        let word = BernoulliWord::at_least(p).unwrap();
        g.bench_function(format!("bernoulli_word_p{p}"), |b| {
            b.iter(|| (0..N / 64).fold(0u64, |acc, _| acc ^ word.sample(&mut rng)))
        });
        if p < 0.4 && p > 0.01 {
            continue;
        }
        g.bench_function(format!("naive_p{p}"), |b| {
            b.iter(|| {
                let mut acc = 0u64;
                for i in 0..N {
                    if rng.random_bool(black_box(p)) {
                        acc ^= i;
                    }
                }
                acc
            })
        });
    }
    g.finish();
}

criterion_group!(benches, samplers, bernoulli_trials);
criterion_main!(benches);
