//! Moments of the samplers against their distributions, with bands derived from the sample size
//! (5 standard errors; the exact moments of the discrete distributions are computed by summation).

use dp_core::mechanisms::{GaussianParams, LaplaceParams};
use dp_core::rng::seeded_rng;
use dp_core::samplers::{BernoulliExp, DiscreteGaussian, DiscreteLaplace, GeometricSkip};

/// Checks the sample mean and the sample second moment (mean 0 distributions) of `draws` against the
/// variance `var` and fourth moment `m4`.
fn check_centered_moments(name: &str, draws: &[f64], var: f64, m4: f64) {
    let n = draws.len() as f64;
    let mean = draws.iter().sum::<f64>() / n;
    let m2 = draws.iter().map(|x| x * x).sum::<f64>() / n;
    assert!(mean.abs() < 5.0 * (var / n).sqrt(), "{name}: mean {mean}");
    let sd_m2 = ((m4 - var * var) / n).sqrt();
    assert!(
        (m2 - var).abs() < 5.0 * sd_m2,
        "{name}: second moment {m2}, want {var} ± {sd_m2}"
    );
}

/// Variance and fourth moment of P[y] ∝ weight(|y|) on ℤ, by summation.
fn discrete_moments(weight: impl Fn(f64) -> f64, max: i64) -> (f64, f64) {
    let (mut z, mut s2, mut s4) = (0.0, 0.0, 0.0);
    for y in -max..=max {
        let y = y as f64;
        let w = weight(y.abs());
        z += w;
        s2 += w * y * y;
        s4 += w * y.powi(4);
    }
    (s2 / z, s4 / z)
}

#[test]
fn discrete_laplace_moments() {
    let b = 2.5;
    let lap = DiscreteLaplace::from_scale(b).unwrap();
    let (num, den) = lap.scale_ratio();
    assert_eq!(u128::from(num) * 2, u128::from(den) * 5); // exactly 5/2
    let mut rng = seeded_rng(201);
    let draws: Vec<f64> = (0..40_000).map(|_| lap.sample(&mut rng) as f64).collect();
    let (var, m4) = discrete_moments(|y| (-y / b).exp(), 400);
    // Closed form of the variance: 2q/(1 − q)², q = e^(−1/b).
    let q = (-1.0 / b).exp();
    assert!((var - 2.0 * q / (1.0 - q).powi(2)).abs() < 1e-9);
    check_centered_moments("discrete laplace", &draws, var, m4);
}

#[test]
fn discrete_gaussian_moments() {
    for (num, den) in [(9u64, 4u64), (1, 3), (100, 1)] {
        let dg = DiscreteGaussian::new(num, den).unwrap();
        let s2 = num as f64 / den as f64;
        let mut rng = seeded_rng(202 + num);
        let draws: Vec<f64> = (0..30_000).map(|_| dg.sample(&mut rng) as f64).collect();
        let (var, m4) = discrete_moments(|y| (-y * y / (2.0 * s2)).exp(), 200);
        check_centered_moments("discrete gaussian", &draws, var, m4);
    }
}

#[test]
fn bernoulli_exp_frequencies() {
    let mut rng = seeded_rng(203);
    for (num, den) in [(1u64, 3u64), (3, 2), (0, 5), (7, 7), (10, 3)] {
        let b = BernoulliExp::new(num, den).unwrap();
        let p = (-(num as f64) / den as f64).exp();
        let n = 40_000;
        let freq = (0..n).filter(|_| b.sample(&mut rng)).count() as f64 / n as f64;
        let band = 5.0 * (p * (1.0 - p) / n as f64).sqrt();
        assert!((freq - p).abs() <= band, "γ = {num}/{den}: {freq} vs {p}");
    }
}

#[test]
fn geometric_skip_respects_tiny_p_over_many_trials() {
    let n_trials: u64 = 50_000_000;
    let p = 1e-3;
    let mut rng = seeded_rng(204);
    let pos: Vec<u64> = GeometricSkip::new(n_trials, p)
        .unwrap()
        .positions(&mut rng)
        .collect();
    let k = pos.len() as f64;
    let mean = n_trials as f64 * p;
    assert!(
        (k - mean).abs() < 5.0 * (mean * (1.0 - p)).sqrt(),
        "{k} successes"
    );
    assert!(pos.windows(2).all(|w| w[0] < w[1]));
    assert!(*pos.last().unwrap() < n_trials);
    // Positions are uniform over the trials: their mean is (N − 1)/2 ± N/√(12k).
    let avg = pos.iter().map(|&x| x as f64).sum::<f64>() / k;
    let half = (n_trials - 1) as f64 / 2.0;
    assert!((avg - half).abs() < 5.0 * n_trials as f64 / (12.0 * k).sqrt());
    // Gaps are Geometric(p): mean (1 − p)/p, sd √(1 − p)/p.
    let gaps: Vec<f64> = pos.windows(2).map(|w| (w[1] - w[0] - 1) as f64).collect();
    let g = gaps.iter().sum::<f64>() / gaps.len() as f64;
    let sd = (1.0 - p).sqrt() / p / (gaps.len() as f64).sqrt();
    assert!((g - (1.0 - p) / p).abs() < 5.0 * sd, "mean gap {g}");
}

#[test]
fn geometric_skip_matches_bernoulli_at_large_p() {
    let (n_trials, p) = (400_000u64, 0.27);
    let mut rng = seeded_rng(205);
    let mut hits = vec![false; n_trials as usize];
    for i in GeometricSkip::new(n_trials, p).unwrap().positions(&mut rng) {
        hits[i as usize] = true;
    }
    let k = hits.iter().filter(|&&h| h).count() as f64;
    let mean = n_trials as f64 * p;
    assert!((k - mean).abs() < 5.0 * (mean * (1.0 - p)).sqrt());
    // Independence of neighbours: P[both i and i+1] = p².
    let pairs = hits.windows(2).filter(|w| w[0] && w[1]).count() as f64;
    let m = (n_trials - 1) as f64;
    let p2 = p * p;
    assert!((pairs / m - p2).abs() < 5.0 * (p2 * (1.0 - p2) / m).sqrt() * 1.5);
}

#[test]
fn continuous_samplers_moments() {
    let mut rng = seeded_rng(206);
    let lap = LaplaceParams::new(1.5).check().unwrap();
    let draws: Vec<f64> = (0..100_000).map(|_| lap.release(0.0, &mut rng)).collect();
    // Laplace(b): variance 2b², fourth moment 24b⁴.
    check_centered_moments(
        "laplace",
        &draws,
        2.0 * 1.5f64.powi(2),
        24.0 * 1.5f64.powi(4),
    );
    let g = GaussianParams::new(2.0).check().unwrap();
    let draws: Vec<f64> = (0..100_000).map(|_| g.release(0.0, &mut rng)).collect();
    check_centered_moments("gaussian", &draws, 4.0, 3.0 * 16.0);
}
