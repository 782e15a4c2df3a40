//! The data owner's side: ε-edge randomized response on the upper triangle.

use dp_core::mechanisms::RandomizedResponse;
use dp_core::params::Epsilon;
use dp_core::samplers::{Bernoulli, GeometricSkip};
use graph_core::{Graph, GraphBuilder};
use rand::CryptoRng;

use crate::error::Result;

/// Keep probability of a true edge, `p = e^ε / (1 + e^ε)`; a non-edge flips with `1 − p`.
///
/// The number is dp-core's binary randomized response
/// ([`dp_core::mechanisms::RandomizedResponse::keep_prob`]).
///
/// # Errors
/// As [`RandomizedResponse::binary`] (a valid ε is always accepted).
///
/// # Privacy
/// ε-DP per pair (Warner 1965), see [`dp_core::mechanisms::RandomizedResponse`].
///
/// # Example
/// ```
/// use dp_core::params::Epsilon;
/// let p = edgerefine::keep_probability(Epsilon::new(1.0)?)?;
/// assert!((p - 1.0f64.exp() / (1.0 + 1.0f64.exp())).abs() < 1e-15);
/// // An invalid ε is refused where it is parsed, once.
/// assert!("0".parse::<Epsilon>().is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn keep_probability(eps: Epsilon) -> Result<f64> {
    Ok(RandomizedResponse::binary(eps.get())?.keep_prob())
}

/// Randomized response on every pair `i < j` of the upper triangle: a true edge is kept with
/// probability `p = e^ε/(1+e^ε)`, a non-edge becomes an edge with probability `q = 1 − p`.
/// The result is symmetric by construction (one decision per unordered pair).
///
/// Non-edge flips are drawn with dp-core's [`GeometricSkip`] over all `n(n−1)/2` pairs (skipping
/// the positions of true edges, which are decided by their own Bernoulli(p) draw), so the work is
/// O(n + m + #flips) and no dense matrix is built.
///
/// # Errors
/// [`crate::EdgeRefineError::Graph`] when the release does not fit the memory budget.
///
/// # Privacy
/// ε-edge local differential privacy: for two graphs differing in one pair, the output
/// distributions differ by a factor of at most `p / q = e^ε` (randomized response, Warner 1965).
/// Pass a CSPRNG (`dp_core::rng::os_rng`) for releases; seeded generators are for experiments.
///
/// # Complexity
/// Expected O(n + m + q·n²/2) time; the output has about `p·m + q·n²/2` edges.
///
/// # Example
/// ```
/// use graph_core::Graph;
/// let g = Graph::from_edges(200, &[(0, 1), (1, 2)])?;
/// let mut rng = dp_core::rng::seeded_rng(1);
/// let noisy = edgerefine::perturb(&g, "3".parse()?, &mut rng)?;
/// assert_eq!(noisy.num_nodes(), 200);
/// // About q·n(n−1)/2 = 0.047·19,900 ≈ 940 noisy edges.
/// assert!((700..1200).contains(&noisy.num_edges()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn perturb<R: CryptoRng + ?Sized>(graph: &Graph, eps: Epsilon, rng: &mut R) -> Result<Graph> {
    perturb_with(graph, &RandomizedResponse::binary(eps.get())?, rng)
}

/// [`perturb`] with the randomized response already validated (the front door parses ε once
/// into dp-core's [`RandomizedResponse`] and passes that value on).
///
/// A true edge is kept by [`RandomizedResponse::keep_trial`] (one 64-bit draw against dp-core's
/// integer threshold, so [`RandomizedResponse::pure_dp`] describes the noise drawn); non-edges
/// flip with probability `1 − keep` through [`GeometricSkip`].
///
/// # Errors
/// [`crate::EdgeRefineError::InvalidParam`] if `rr` is not binary.
///
/// # Privacy
/// As [`perturb`]: `rr.pure_dp()`-edge local DP.
///
/// # Complexity
/// As [`perturb`].
pub fn perturb_with<R: CryptoRng + ?Sized>(
    graph: &Graph,
    rr: &RandomizedResponse,
    rng: &mut R,
) -> Result<Graph> {
    if rr.categories() != 2 {
        return Err(crate::EdgeRefineError::InvalidParam {
            name: "categories",
            value: rr.categories() as f64,
            reason: "edge randomized response is binary",
        });
    }
    symmetric_rr(graph, rr.keep_trial(), 1.0 - rr.keep_prob(), rng)
}

/// Symmetric randomized response with arbitrary probabilities: every pair `i < j` of the upper
/// triangle is decided once; a true edge is kept by the trial `keep`, a non-edge becomes an edge
/// with `flip`. O(n + m + #flips) with [`GeometricSkip`].
pub(crate) fn symmetric_rr<R: CryptoRng + ?Sized>(
    graph: &Graph,
    keep: Bernoulli,
    flip: f64,
    rng: &mut R,
) -> Result<Graph> {
    let n = graph.num_nodes() as u64;
    let pairs = n * n.saturating_sub(1) / 2;
    let kept: Vec<(u32, u32)> = graph.edges().filter(|_| keep.sample(rng)).collect();
    let skip = GeometricSkip::new(pairs, flip)?;
    let expected = (flip * pairs as f64) as usize + kept.len();
    let mut b = GraphBuilder::new(graph.num_nodes())?;
    b.try_reserve(
        expected + expected / 16 + 16,
        &format!(
            "the randomized-response release of {} nodes ({expected} noisy edges expected)",
            graph.num_nodes()
        ),
    )?;
    let mut kept_it = kept.iter().copied().peekable();
    let (mut row, mut row_start) = (0u64, 0u64);
    for pos in skip.positions(rng) {
        while pos >= row_start + (n - 1 - row) {
            row_start += n - 1 - row;
            row += 1;
        }
        let (i, j) = (row as u32, (row + 1 + (pos - row_start)) as u32);
        while let Some(&e) = kept_it.peek() {
            if e < (i, j) {
                b.add_edge(e.0, e.1)?;
                kept_it.next();
            } else {
                break;
            }
        }
        if !graph.has_edge(i, j) {
            b.add_edge(i, j)?;
        }
    }
    for e in kept_it {
        b.add_edge(e.0, e.1)?;
    }
    Ok(b.build()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use graph_core::generate::erdos_renyi;

    #[test]
    fn keep_and_flip_frequencies_within_bands() {
        let mut rng = dp_core::rng::seeded_rng(11);
        let n = 1500;
        let g = erdos_renyi(n, 0.02, &mut rng).unwrap();
        let eps = 1.0;
        let p = keep_probability(Epsilon::new(eps).unwrap()).unwrap();
        let noisy = perturb(&g, Epsilon::new(eps).unwrap(), &mut rng).unwrap();
        let m = g.num_edges() as f64;
        let kept = g.edges().filter(|&(u, v)| noisy.has_edge(u, v)).count() as f64;
        let non_edges = (n * (n - 1) / 2) as f64 - m;
        let flipped = noisy.num_edges() as f64 - kept;
        // 5-sigma binomial bands derived from the counts.
        assert!(
            (kept - p * m).abs() < 5.0 * (m * p * (1.0 - p)).sqrt(),
            "kept {kept} of {m}"
        );
        let q = 1.0 - p;
        assert!(
            (flipped - q * non_edges).abs() < 5.0 * (non_edges * q * p).sqrt(),
            "flipped {flipped} of {non_edges}"
        );
    }

    #[test]
    fn keep_probability_keeps_its_bits() {
        // Pinned before the number moved to dp-core: 1 / (1 + e^{-ε}).
        assert_eq!(
            keep_probability(Epsilon::new(1.0).unwrap())
                .unwrap()
                .to_bits(),
            0x3fe7_64d4_f5d5_a2bd
        );
        assert_eq!(
            keep_probability(Epsilon::new(0.5).unwrap())
                .unwrap()
                .to_bits(),
            0x3fe3_eb2f_d4d3_4391
        );
        assert_eq!(keep_probability(Epsilon::new(800.0).unwrap()).unwrap(), 1.0);
        for eps in [0.1f64, 0.3, 2.0, 3.5, 8.0] {
            let hand = 1.0 / (1.0 + (-eps).exp());
            assert_eq!(
                keep_probability(Epsilon::new(eps).unwrap())
                    .unwrap()
                    .to_bits(),
                hand.to_bits()
            );
        }
    }

    #[test]
    fn same_seed_same_output_and_bad_eps() {
        let g = erdos_renyi(300, 0.05, &mut dp_core::rng::seeded_rng(0)).unwrap();
        let a = perturb(
            &g,
            Epsilon::new(2.0).unwrap(),
            &mut dp_core::rng::seeded_rng(5),
        )
        .unwrap();
        let b = perturb(
            &g,
            Epsilon::new(2.0).unwrap(),
            &mut dp_core::rng::seeded_rng(5),
        )
        .unwrap();
        assert_eq!(a, b);
        // A bad ε cannot reach `perturb`: it is refused where it becomes an `Epsilon`.
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(Epsilon::new(bad).is_err());
        }
    }
}

/// A noisy edge count released with the graph.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NoisyCount {
    /// `E + DiscreteLaplace(1/ε_E)`, clamped at 0 (post-processing).
    pub edges: u64,
    /// ε spent on the count.
    pub eps_count: Epsilon,
    /// ε spent on randomized response.
    pub eps_rr: Epsilon,
}

/// Randomized response with `ε·(1 − share)` plus the edge count with `ε·share` through the
/// discrete Laplace mechanism (sensitivity 1 under edge-level DP), so that the server need not
/// treat `E` as public. The total is ε by basic composition.
///
/// # Errors
/// `share ∉ (0, 1)`, or a share of ε too small to be a valid ε.
///
/// # Privacy
/// `(ε·(1−share))`-edge LDP for the graph (randomized response) composed with
/// `(ε·share)`-DP for the count (discrete Laplace, Canonne–Kamath–Steinke 2020 sampler):
/// ε-edge DP in total (sequential composition).
pub fn perturb_with_count<R: CryptoRng + ?Sized>(
    graph: &Graph,
    eps: Epsilon,
    share: f64,
    rng: &mut R,
) -> Result<(Graph, NoisyCount)> {
    let eps = eps.get();
    if !share.is_finite() || share <= 0.0 || share >= 1.0 {
        return Err(crate::EdgeRefineError::InvalidParam {
            name: "share",
            value: share,
            reason: "the budget share of the edge count must be in (0, 1)",
        });
    }
    let (eps_count, eps_rr) = (
        Epsilon::new(eps * share)?,
        Epsilon::new(eps * (1.0 - share))?,
    );
    let noisy = perturb(graph, eps_rr, rng)?;
    let lap = dp_core::samplers::DiscreteLaplace::from_scale(1.0 / eps_count.get())?;
    let e = graph.num_edges() as i64 + lap.sample(rng);
    Ok((
        noisy,
        NoisyCount {
            edges: e.max(0) as u64,
            eps_count,
            eps_rr,
        },
    ))
}
