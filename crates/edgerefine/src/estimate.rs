//! The server's estimate of the true edge count E from the noisy report alone.
//!
//! Under ε-edge randomized response every one of the `N = n(n−1)/2` pairs is reported as an edge
//! with probability `p = e^ε/(1+e^ε)` when it is a true edge and `q = 1 − p` otherwise, so the
//! noisy edge count `m̃` has mean `qN + (p − q)E` and variance `N·p·q` (each pair is an
//! independent Bernoulli with variance `p(1−p)` either way). Inverting the mean gives the unbiased
//! estimator `Ê = (m̃ − N(1−p)) / (2p − 1)`.

use crate::client::keep_probability;
use crate::error::{EdgeRefineError, Result};
use dp_core::params::Epsilon;

/// The estimate of the true edge count from a noisy report (see [`estimate_edges`]).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct EdgeEstimate {
    /// The unbiased estimate `Ê = (m̃ − N(1−p)) / (2p − 1)` (may be negative or above `N`).
    pub estimate: f64,
    /// Its exact standard error `√(N·p(1−p)) / (2p − 1)`.
    pub std_error: f64,
    /// `Ê` rounded to the nearest integer and clamped to `[0, N]`: the count the server's budget
    /// `⌊k·E⌋` uses.
    pub edges: u64,
    /// Whether the rounding hit a bound of `[0, N]` (the estimate was outside the feasible range).
    pub clamped: bool,
    /// The number of pairs `N = n(n−1)/2`.
    pub pairs: u64,
    /// The keep probability `p` used.
    pub keep_prob: f64,
}

/// Estimates the true edge count E from the noisy edge count `noisy_edges` (m̃) of an ε-edge
/// randomized-response report on `n` nodes.
///
/// `p` is dp-core's binary randomized-response keep probability ([`keep_probability`]).
/// `Ê = (m̃ − N(1−p)) / (2p − 1)` is unbiased for every E. Its standard error
/// `√(N·p(1−p)) / (2p − 1)` is exact and does not depend on E: it assumes only that the `N`
/// pair decisions are independent (true of [`crate::perturb`]), since every pair, edge or not,
/// is reported as an edge with a Bernoulli of variance `p(1−p)`. By the central limit theorem
/// `Ê` is approximately normal for large `N`.
///
/// # Errors
/// [`EdgeRefineError::InvalidParam`] for ε so small that `2p − 1` is 0 in floating
/// point, or for `noisy_edges > N`.
///
/// # Privacy
/// Post-processing of the randomized-response output (it reads only `m̃`, `n` and ε, all
/// public once the report is): no privacy cost beyond the ε of the report.
///
/// # Complexity
/// O(1).
///
/// # Example
/// ```
/// let e = edgerefine::estimate_edges(1000, "1".parse()?, 135_000)?;
/// assert!(e.std_error > 0.0 && !e.clamped);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn estimate_edges(n: usize, eps: Epsilon, noisy_edges: u64) -> Result<EdgeEstimate> {
    let p = keep_probability(eps)?;
    let gap = 2.0 * p - 1.0;
    if gap <= 0.0 {
        return Err(EdgeRefineError::InvalidParam {
            name: "eps",
            value: eps.get(),
            reason: "too small: 2p − 1 = 0 in floating point, E cannot be estimated",
        });
    }
    let n = n as u64;
    let pairs = n * n.saturating_sub(1) / 2;
    if noisy_edges > pairs {
        return Err(EdgeRefineError::InvalidParam {
            name: "noisy_edges",
            value: noisy_edges as f64,
            reason: "more noisy edges than pairs n(n−1)/2",
        });
    }
    let big_n = pairs as f64;
    let estimate = (noisy_edges as f64 - big_n * (1.0 - p)) / gap;
    let std_error = (big_n * p * (1.0 - p)).sqrt() / gap;
    let rounded = estimate.round();
    let (edges, clamped) = if rounded < 0.0 {
        (0, true)
    } else if rounded > big_n {
        (pairs, true)
    } else {
        (rounded as u64, false)
    };
    Ok(EdgeEstimate {
        estimate,
        std_error,
        edges,
        clamped,
        pairs,
        keep_prob: p,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use graph_core::generate::erdos_renyi;

    #[test]
    fn unbiased_within_its_standard_error_over_seeds() {
        // 200 perturbations of one seeded G(n, p): the mean of Ê lies within 4 standard errors
        // of the mean (SE/√200) of the true E.
        let g = erdos_renyi(400, 0.03, &mut dp_core::rng::seeded_rng(3)).unwrap();
        let truth = g.num_edges() as f64;
        let reps = 200;
        let mut sum = 0.0;
        let mut se = 0.0;
        for seed in 0..reps {
            let noisy = crate::perturb(
                &g,
                Epsilon::new(1.0).unwrap(),
                &mut dp_core::rng::seeded_rng(1000 + seed),
            )
            .unwrap();
            let e =
                estimate_edges(400, Epsilon::new(1.0).unwrap(), noisy.num_edges() as u64).unwrap();
            sum += e.estimate;
            se = e.std_error;
        }
        let mean = sum / reps as f64;
        let se_mean = se / (reps as f64).sqrt();
        assert!(
            (mean - truth).abs() < 4.0 * se_mean,
            "mean {mean} vs E {truth} (SE of mean {se_mean})"
        );
        // And the spread of single estimates is the stated SE (not a much smaller one).
        assert!(se > 50.0, "SE {se}");
    }

    #[test]
    fn closed_form_and_clamping() {
        let p = keep_probability(Epsilon::new(2.0).unwrap()).unwrap();
        let pairs = 100 * 99 / 2;
        // m̃ equal to its mean for E = 300 gives back 300 exactly (up to rounding).
        let m = (pairs as f64 * (1.0 - p) + (2.0 * p - 1.0) * 300.0).round() as u64;
        let e = estimate_edges(100, Epsilon::new(2.0).unwrap(), m).unwrap();
        assert!((e.estimate - 300.0).abs() < 1.0 / (2.0 * p - 1.0));
        assert_eq!(e.pairs, pairs);
        assert!(!e.clamped);
        let se = (pairs as f64 * p * (1.0 - p)).sqrt() / (2.0 * p - 1.0);
        assert_eq!(e.std_error.to_bits(), se.to_bits());
        // No noisy edges: the estimate is negative and clamps to 0.
        let low = estimate_edges(100, Epsilon::new(2.0).unwrap(), 0).unwrap();
        assert!(low.estimate < 0.0 && low.clamped && low.edges == 0);
        // Every pair reported: above N, clamps to N.
        let high = estimate_edges(100, Epsilon::new(2.0).unwrap(), pairs).unwrap();
        assert!(high.estimate > pairs as f64 && high.clamped && high.edges == pairs);
    }

    #[test]
    fn bad_inputs_are_typed_errors() {
        assert!(matches!(
            estimate_edges(10, Epsilon::new(1e-300).unwrap(), 3),
            Err(EdgeRefineError::InvalidParam { name: "eps", .. })
        ));
        assert!(matches!(
            estimate_edges(10, Epsilon::new(1.0).unwrap(), 46),
            Err(EdgeRefineError::InvalidParam {
                name: "noisy_edges",
                ..
            })
        ));
        assert_eq!(
            estimate_edges(1, Epsilon::new(1.0).unwrap(), 0)
                .unwrap()
                .pairs,
            0
        );
    }
}
