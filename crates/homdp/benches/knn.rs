//! k-NN class shares, side by side: homdp's blocked brute force ([`knn_proba`]: one matrix
//! product per block of 64 test rows, parallel over blocks) against linfa-nn 0.8.1's
//! `LinearSearch`, `KdTree` and `BallTree` (L2; the index is built inside the measured call, the
//! queries run in parallel over test rows with rayon, the class shares are counted from the
//! returned indices). The shapes are the repro's (50 density columns; `--quick` sizes, BACE,
//! a quarter of HIV, REDDIT-BINARY after PCA(5) + |V|, the Q1 SBM); every fifth training row
//! duplicates the previous one, as equal densities do in the embeddings. Before timing, each
//! workload prints the share of test rows whose `k` nearest linfa-nn picks differently from
//! ours (distance ties). Run with `cargo bench -p homdp --bench knn`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use homdp::downstream::{knn_neighbours, knn_proba};
use linfa_nn::distance::L2Dist;
use linfa_nn::{CommonNearestNeighbour, NearestNeighbour};
use ndarray::Array2;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

/// One benchmark shape: training rows, test rows, columns, neighbours.
struct Workload {
    name: &'static str,
    train: usize,
    test: usize,
    dim: usize,
    k: usize,
}

const WORKLOADS: [Workload; 5] = [
    Workload {
        name: "quick_1000x50_k100",
        train: 1000,
        test: 250,
        dim: 50,
        k: 100,
    },
    Workload {
        name: "bace_1210x50_k120",
        train: 1210,
        test: 152,
        dim: 50,
        k: 120,
    },
    Workload {
        name: "hiv_quarter_8000x50_k250",
        train: 8000,
        test: 1000,
        dim: 50,
        k: 250,
    },
    Workload {
        name: "reddit_pca_1600x6_k300",
        train: 1600,
        test: 400,
        dim: 6,
        k: 300,
    },
    Workload {
        name: "sbm_320x4_k5",
        train: 320,
        test: 80,
        dim: 4,
        k: 5,
    },
];

/// Seeded data of a workload: training rows (every fifth a copy of the previous), labels, test
/// rows.
fn data(w: &Workload) -> (Array2<f64>, Vec<usize>, Array2<f64>) {
    let mut rng = ChaCha8Rng::seed_from_u64(w.train as u64);
    let mut train = Array2::from_shape_fn((w.train, w.dim), |_| rng.random::<f64>());
    for i in (5..w.train).step_by(5) {
        let prev = train.row(i - 1).to_owned();
        train.row_mut(i).assign(&prev);
    }
    let labels = (0..w.train).map(|_| rng.random_range(0..2)).collect();
    let test = Array2::from_shape_fn((w.test, w.dim), |_| rng.random::<f64>());
    (train, labels, test)
}

/// Class shares through a linfa-nn index (built here), queries parallel over test rows.
fn linfa_proba(
    algorithm: &CommonNearestNeighbour,
    train: &Array2<f64>,
    labels: &[usize],
    test: &Array2<f64>,
    k: usize,
) -> Array2<f64> {
    let index = algorithm.from_batch(train, L2Dist).expect("builds");
    let rows: Vec<[f64; 2]> = test
        .outer_iter()
        .into_par_iter()
        .map(|x| {
            let mut counts = [0.0; 2];
            for (_, j) in index.k_nearest(x, k).expect("queries") {
                counts[labels[j]] += 1.0 / k as f64;
            }
            counts
        })
        .collect();
    Array2::from_shape_fn((test.nrows(), 2), |(i, c)| rows[i][c])
}

/// Share of test rows whose `k` nearest training rows (as sets) differ between linfa-nn and
/// ours.
fn disagreement(
    algorithm: &CommonNearestNeighbour,
    train: &Array2<f64>,
    test: &Array2<f64>,
    k: usize,
) -> f64 {
    let ours = knn_neighbours(train.view(), test.view(), k).expect("valid");
    let index = algorithm.from_batch(train, L2Dist).expect("builds");
    let differ = test
        .outer_iter()
        .zip(ours)
        .filter(|(x, want)| {
            let mut got: Vec<usize> = index
                .k_nearest(x.view(), k)
                .expect("queries")
                .into_iter()
                .map(|(_, j)| j)
                .collect();
            let mut want = want.clone();
            got.sort_unstable();
            want.sort_unstable();
            got != want
        })
        .count();
    differ as f64 / test.nrows() as f64
}

const ALGORITHMS: [(&str, CommonNearestNeighbour); 3] = [
    ("linfa_nn_linear", CommonNearestNeighbour::LinearSearch),
    ("linfa_nn_kdtree", CommonNearestNeighbour::KdTree),
    ("linfa_nn_balltree", CommonNearestNeighbour::BallTree),
];

fn bench(c: &mut Criterion) {
    for w in &WORKLOADS {
        let (train, labels, test) = data(w);
        for (name, algorithm) in &ALGORITHMS {
            let share = disagreement(algorithm, &train, &test, w.k);
            eprintln!(
                "{}: {name} picks other neighbours than ours for {:.1} % of test rows",
                w.name,
                100.0 * share
            );
        }
        let mut group = c.benchmark_group(format!("knn_{}", w.name));
        group.bench_function("homdp_blocked", |b| {
            b.iter(|| {
                knn_proba(
                    black_box(train.view()),
                    black_box(&labels),
                    black_box(test.view()),
                    w.k,
                )
                .expect("valid")
            })
        });
        for (name, algorithm) in &ALGORITHMS {
            group.bench_function(*name, |b| {
                b.iter(|| {
                    linfa_proba(
                        algorithm,
                        black_box(&train),
                        black_box(&labels),
                        black_box(&test),
                        w.k,
                    )
                })
            });
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
