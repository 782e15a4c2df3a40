//! Statistical privacy audits: for each mechanism, run it many times on two neighbouring inputs, and
//! turn the frequencies of one event into a lower bound on ε that holds with high confidence
//! (Hoeffding bands, failure probability 1e-6 per frequency). That lower bound must not exceed the
//! claimed ε, and it must come close to it (so the audit has power). Seeded, no retries.

use dp_core::mechanisms::{GaussianParams, LaplaceParams, RandomizedResponseParams};
use dp_core::rng::seeded_rng;

/// Half-width of a two-sided Hoeffding band for a frequency over `n` draws, confidence 1 − 1e-6.
fn hoeffding(n: u64) -> f64 {
    ((2.0f64 / 1e-6).ln() / (2.0 * n as f64)).sqrt()
}

/// Lower confidence bound on ε from P[E | x1] ≤ e^ε P[E | x0] + δ: ln((p1_low − δ) / p0_high).
fn eps_lower_bound(hits1: u64, hits0: u64, n: u64, delta: f64) -> f64 {
    let h = hoeffding(n);
    let p1_low = hits1 as f64 / n as f64 - h;
    let p0_high = hits0 as f64 / n as f64 + h;
    if p1_low - delta <= 0.0 {
        return 0.0;
    }
    ((p1_low - delta) / p0_high).ln()
}

fn count(n: u64, mut event: impl FnMut() -> bool) -> u64 {
    (0..n).filter(|_| event()).count() as u64
}

#[test]
fn laplace_float_release() {
    let lap = LaplaceParams::new(1.0).check().unwrap();
    let claimed = lap.pure_dp().eps();
    let mut rng = seeded_rng(101);
    let n = 200_000;
    // The likelihood ratio of {y ≥ 1} under inputs 1 and 0 is exactly e^ε.
    let hits1 = count(n, || lap.release(1.0, &mut rng) >= 1.0);
    let hits0 = count(n, || lap.release(0.0, &mut rng) >= 1.0);
    let lb = eps_lower_bound(hits1, hits0, n, 0.0);
    assert!(lb <= claimed, "empirical {lb} > claimed {claimed}");
    assert!(lb > 0.9 * claimed, "audit without power: {lb}");
}

#[test]
fn laplace_exact_integer_release() {
    let lap = LaplaceParams::new(1.0).check().unwrap();
    let claimed = lap.pure_dp().eps();
    let mut rng = seeded_rng(102);
    let n = 100_000;
    let hits1 = count(n, || lap.release_integer(1, &mut rng).unwrap() >= 1);
    let hits0 = count(n, || lap.release_integer(0, &mut rng).unwrap() >= 1);
    let lb = eps_lower_bound(hits1, hits0, n, 0.0);
    assert!(lb <= claimed, "empirical {lb} > claimed {claimed}");
    assert!(lb > 0.85 * claimed, "audit without power: {lb}");
}

#[test]
fn gaussian_float_release_as_approx_dp() {
    let g = GaussianParams::new(1.0).sensitivity(1.0).check().unwrap();
    let delta = 1e-3;
    // The tight (analytic) ε is the strictest claim to audit against; the CKS one is larger.
    let tight = g.approx_dp_analytic(delta).unwrap().eps();
    assert!(tight <= g.approx_dp(delta).unwrap().eps());
    let mut rng = seeded_rng(103);
    let n = 200_000;
    let hits1 = count(n, || g.release(1.0, &mut rng) >= 1.5);
    let hits0 = count(n, || g.release(0.0, &mut rng) >= 1.5);
    let lb = eps_lower_bound(hits1, hits0, n, delta);
    assert!(lb <= tight, "empirical {lb} > claimed {tight}");
    // The event's own log-ratio is ln(Q(0.5)/Q(1.5)) ≈ 1.53.
    assert!(lb > 1.3, "audit without power: {lb}");
}

#[test]
fn discrete_gaussian_release_as_approx_dp() {
    let g = GaussianParams::new(1.0).sensitivity(1.0).check().unwrap();
    let delta = 1e-3;
    let claimed = g.approx_dp(delta).unwrap().eps();
    let mut rng = seeded_rng(104);
    let n = 60_000;
    let hits1 = count(n, || g.release_integer(1, &mut rng).unwrap() >= 2);
    let hits0 = count(n, || g.release_integer(0, &mut rng).unwrap() >= 2);
    let lb = eps_lower_bound(hits1, hits0, n, delta);
    assert!(lb <= claimed, "empirical {lb} > claimed {claimed}");
    // The event's log-ratio is ln(P[Y ≥ 1]/P[Y ≥ 2]) ≈ 1.64 for σ = 1.
    assert!(lb > 1.3, "audit without power: {lb}");
}

#[test]
fn binary_randomized_response() {
    let rr = RandomizedResponseParams::new(1.0).check().unwrap();
    let claimed = rr.pure_dp().eps();
    let mut rng = seeded_rng(105);
    let n = 200_000;
    let hits1 = count(n, || rr.release_bit(true, &mut rng).unwrap());
    let hits0 = count(n, || rr.release_bit(false, &mut rng).unwrap());
    let lb = eps_lower_bound(hits1, hits0, n, 0.0);
    assert!(lb <= claimed, "empirical {lb} > claimed {claimed}");
    assert!(lb > 0.9 * claimed, "audit without power: {lb}");
}

#[test]
fn k_ary_randomized_response() {
    let rr = RandomizedResponseParams::new(1.5)
        .categories(4)
        .check()
        .unwrap();
    let claimed = rr.pure_dp().eps();
    let mut rng = seeded_rng(106);
    let n = 200_000;
    let hits1 = count(n, || rr.release(0, &mut rng).unwrap() == 0);
    let hits0 = count(n, || rr.release(1, &mut rng).unwrap() == 0);
    let lb = eps_lower_bound(hits1, hits0, n, 0.0);
    assert!(lb <= claimed, "empirical {lb} > claimed {claimed}");
    assert!(lb > 0.9 * claimed, "audit without power: {lb}");
    // The other values are equally likely: each of 1, 2, 3 for input 0.
    let mut cells = [0u64; 4];
    for _ in 0..n {
        cells[rr.release(0, &mut rng).unwrap() as usize] += 1;
    }
    let h = hoeffding(n);
    for &c in &cells[1..] {
        assert!((c as f64 / n as f64 - rr.other_prob()).abs() < h);
    }
}

#[test]
fn an_undersized_noise_fails_the_audit() {
    // The audit must be able to fail: claim ε = 1 but add Laplace noise of scale 1/2 (true ε = 2).
    let claimed = LaplaceParams::new(1.0).check().unwrap().pure_dp().eps();
    let weak = LaplaceParams::new(0.5).check().unwrap();
    let mut rng = seeded_rng(107);
    let n = 100_000;
    let hits1 = count(n, || weak.release(1.0, &mut rng) >= 1.0);
    let hits0 = count(n, || weak.release(0.0, &mut rng) >= 1.0);
    assert!(eps_lower_bound(hits1, hits0, n, 0.0) > claimed);
}
