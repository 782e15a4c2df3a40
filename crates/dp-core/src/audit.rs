//! Statistical privacy audits: from how often an event occurs when a release path runs on two
//! neighbouring inputs, a lower bound on the ε of that path that holds with high confidence.
//!
//! If a mechanism `M` is (ε, δ)-DP, every event `E` satisfies
//! `P[M(x₁) ∈ E] ≤ e^ε · P[M(x₀) ∈ E] + δ`. Given `hits₁` of `n₁` runs on `x₁` and `hits₀` of
//! `n₀` runs on `x₀`, [`eps_lower_bound`] returns `ln((p₁⁻ − δ) / p₀⁺)` where `p₁⁻` and `p₀⁺` are
//! one-sided Chernoff (Kullback–Leibler) confidence bounds: with probability at least
//! `1 − 2α` the true ε is at least that number. An ε claimed below it is refuted. The bounds are
//! relative to the frequency, so rare events (the ones that show large ε) are bounded tightly,
//! unlike Hoeffding's additive band.
//!
//! # Example
//! ```
//! use dp_core::audit::{eps_lower_bound, kl_lower, kl_upper};
//!
//! // 1,000 hits in 10,000 runs: the true frequency is in [kl_lower, kl_upper] w.h.p.
//! let (lo, hi) = (kl_lower(1_000, 10_000, 1e-6)?, kl_upper(1_000, 10_000, 1e-6)?);
//! assert!(lo < 0.1 && 0.1 < hi && hi - lo < 0.05);
//! // An event 20 times likelier on one input than on the other shows ε > 2.
//! let lb = eps_lower_bound(20_000, 100_000, 1_000, 100_000, 0.0, 1e-6)?;
//! assert!(lb > 2.0 && lb < 20f64.ln());
//! # Ok::<(), dp_core::Error>(())
//! ```

use crate::error::{Result, invalid};

/// Kullback–Leibler divergence between Bernoulli(`p`) and Bernoulli(`q`).
fn kl(p: f64, q: f64) -> f64 {
    let term = |a: f64, b: f64| if a == 0.0 { 0.0 } else { a * (a / b).ln() };
    term(p, q) + term(1.0 - p, 1.0 - q)
}

fn check(hits: u64, n: u64, alpha: f64) -> Result<f64> {
    if n == 0 {
        return invalid("n", 0.0, "at least one run is needed");
    }
    if hits > n {
        return invalid("hits", hits as f64, "must be at most n");
    }
    if !(alpha > 0.0 && alpha < 1.0) {
        return invalid("alpha", alpha, "must be in (0, 1)");
    }
    Ok(hits as f64 / n as f64)
}

/// Bisection on `[lo, hi]` for the boundary of `{q : n·KL(p̂‖q) ≤ ln(1/α)}` (the side where the
/// divergence grows from `inside` to `outside`).
fn boundary(p_hat: f64, n: u64, alpha: f64, mut inside: f64, mut outside: f64) -> f64 {
    let level = (1.0 / alpha).ln() / n as f64;
    for _ in 0..200 {
        let mid = 0.5 * (inside + outside);
        if kl(p_hat, mid) <= level {
            inside = mid;
        } else {
            outside = mid;
        }
    }
    // `outside` is the conservative side of the boundary.
    outside
}

/// An upper confidence bound on a frequency: `P[true p > kl_upper(hits, n, α)] ≤ α`
/// (Chernoff's bound in its Kullback–Leibler form).
///
/// # Errors
/// `n = 0`, `hits > n`, or `α ∉ (0, 1)`.
///
/// # Complexity
/// 200 bisection steps.
pub fn kl_upper(hits: u64, n: u64, alpha: f64) -> Result<f64> {
    let p = check(hits, n, alpha)?;
    if hits == n {
        return Ok(1.0);
    }
    Ok(boundary(p, n, alpha, p, 1.0))
}

/// A lower confidence bound on a frequency: `P[true p < kl_lower(hits, n, α)] ≤ α`.
///
/// # Errors
/// As [`kl_upper`].
pub fn kl_lower(hits: u64, n: u64, alpha: f64) -> Result<f64> {
    let p = check(hits, n, alpha)?;
    if hits == 0 {
        return Ok(0.0);
    }
    Ok(boundary(p, n, alpha, p, 0.0))
}

/// A lower bound on ε from an event seen `hits1` times in `n1` runs on one input and `hits0`
/// times in `n0` runs on its neighbour: `ln((p₁⁻ − δ) / p₀⁺)` with [`kl_lower`] and [`kl_upper`]
/// at level `alpha` each (0 when `p₁⁻ ≤ δ`). With probability at least `1 − 2α` the release path
/// is not (ε, δ)-DP for any ε below the returned value.
///
/// # Errors
/// As [`kl_upper`]; `δ ∉ [0, 1)`.
pub fn eps_lower_bound(
    hits1: u64,
    n1: u64,
    hits0: u64,
    n0: u64,
    delta: f64,
    alpha: f64,
) -> Result<f64> {
    if !(0.0..1.0).contains(&delta) {
        return invalid("delta", delta, "must be in [0, 1)");
    }
    let p1 = kl_lower(hits1, n1, alpha)?;
    let p0 = kl_upper(hits0, n0, alpha)?;
    if p1 <= delta {
        return Ok(0.0);
    }
    Ok(((p1 - delta) / p0).ln().max(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_bracket_the_frequency_and_shrink_with_n() {
        for (h, n) in [(0, 10), (1, 10), (5, 10), (10, 10), (500, 100_000)] {
            let (lo, hi) = (kl_lower(h, n, 1e-6).unwrap(), kl_upper(h, n, 1e-6).unwrap());
            let p = h as f64 / n as f64;
            assert!(lo <= p && p <= hi, "{h}/{n}: [{lo}, {hi}]");
            assert!((0.0..=1.0).contains(&lo) && (0.0..=1.0).contains(&hi));
        }
        let w = |n| kl_upper(n / 10, n, 1e-6).unwrap() - kl_lower(n / 10, n, 1e-6).unwrap();
        assert!(w(100_000) < w(1_000) / 5.0);
    }

    #[test]
    fn coverage_of_the_upper_bound_on_seeded_binomials() {
        // α = 0.05: the bound may fail at most ~5% of the time; Chernoff is conservative, so
        // far fewer. A bound that ignored the sampling error would fail about half the time.
        use rand::RngExt;
        let mut rng = crate::rng::seeded_rng(11);
        let (p, n) = (0.02, 2_000u64);
        let trials = 400;
        let fails = (0..trials)
            .filter(|_| {
                let hits = (0..n).filter(|_| rng.random::<f64>() < p).count() as u64;
                kl_upper(hits, n, 0.05).unwrap() < p
            })
            .count();
        assert!(fails <= trials / 20, "{fails} of {trials}");
    }

    #[test]
    fn bad_arguments_are_errors() {
        assert!(kl_upper(1, 0, 0.1).is_err());
        assert!(kl_upper(11, 10, 0.1).is_err());
        assert!(kl_lower(1, 10, 0.0).is_err());
        assert!(kl_lower(1, 10, f64::NAN).is_err());
        assert!(eps_lower_bound(1, 10, 1, 10, 1.0, 0.1).is_err());
        assert!(eps_lower_bound(1, 10, 1, 10, -0.1, 0.1).is_err());
    }

    #[test]
    fn lower_bound_is_below_the_log_ratio_and_zero_without_signal() {
        let lb = eps_lower_bound(50_000, 100_000, 5_000, 100_000, 0.0, 1e-6).unwrap();
        assert!(lb < 10f64.ln() && lb > 10f64.ln() - 0.1, "{lb}");
        assert_eq!(
            eps_lower_bound(1_000, 100_000, 1_000, 100_000, 0.0, 1e-6).unwrap(),
            0.0
        );
        assert_eq!(
            eps_lower_bound(1_000, 100_000, 10, 100_000, 0.5, 1e-6).unwrap(),
            0.0
        );
    }
}
