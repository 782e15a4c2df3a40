//! Randomized response baselines: RR (both endpoints report, OR) and SymRR (upper triangle).

use dp_core::params::{Epsilon, EpsilonBound};
use dp_core::samplers::Bernoulli;
use graph_core::Graph;
use rand::CryptoRng;

use super::BaselineRelease;
use crate::client::symmetric_rr;
use crate::client::{keep_probability, perturb};
use crate::error::Result;

/// RR: every user randomizes her whole neighbour list (Warner's randomized response on each of
/// the `n − 1` bits, keep probability `p = e^ε/(1+e^ε)`), so each ordered pair `(i, j)` is
/// randomized independently; the server symmetrises the two reports on `{i, j}` by OR.
///
/// Only the symmetrised graph is returned. It is sampled directly from its distribution, which
/// is exact: the OR of two independent reports is one Bernoulli per pair with
/// `P[edge kept] = 1 − (1−p)²` and `P[non-edge becomes edge] = 1 − p²`, so the work is the
/// upper-triangle geometric skipping of [`perturb`], O(n + m + #flips). The OR graph is about
/// twice as dense as SymRR's (`1 − p²` ≈ 0.46 at ε = 1).
///
/// # Errors
/// [`crate::EdgeRefineError::InvalidParam`] for ε not finite and positive.
///
/// # Privacy
/// Each user's report is ε-edge LDP (Warner 1965; Qin et al. CCS 2017, Def. 2). An undirected
/// edge is in two users' lists, so the released OR graph is 2ε-edge DP, and that is tight:
/// `P[pair absent | non-edge] / P[pair absent | edge] = p²/(1−p)² = e^{2ε}`.
///
/// # Complexity
/// Expected O(n + m + (1 − p²)·n²/2); the output has about that many edges.
///
/// # Example
/// ```
/// use graph_core::generate::erdos_renyi;
/// let mut rng = dp_core::rng::seeded_rng(4);
/// let g = erdos_renyi(400, 0.02, &mut rng)?;
/// let r = edgerefine::baselines::rr(&g, "2.0".parse()?, &mut rng)?;
/// assert_eq!(r.name, "rr");
/// assert_eq!(r.eps_edge.get(), 4.0);
/// // Non-edges turn into edges with probability 1 − p² ≈ 0.224 at ε = 2.
/// assert!((r.graph.density() - 0.224).abs() < 0.02);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn rr<R: CryptoRng + ?Sized>(
    graph: &Graph,
    eps: Epsilon,
    rng: &mut R,
) -> Result<BaselineRelease> {
    let p = keep_probability(eps)?;
    let q = 1.0 - p;
    let keep = 1.0 - q * q;
    let flip = 1.0 - p * p;
    Ok(BaselineRelease {
        graph: symmetric_rr(graph, Bernoulli::new(keep)?, flip, rng)?,
        weights: None,
        name: "rr",
        variant: format!(
            "rr (asymmetric: both endpoints randomize their row, OR-symmetrised; keep {keep:.4}, flip {flip:.4})"
        ),
        eps,
        eps_edge: EpsilonBound::from(eps).times(2),
    })
}

/// SymRR: randomized response on the upper triangle, mirrored; this is [`perturb`], the
/// EdgeRefine client.
///
/// # Errors
/// [`crate::EdgeRefineError::InvalidParam`] for a bad ε.
///
/// # Privacy
/// ε-edge DP of the whole release (each unordered pair is randomized once; Warner 1965).
///
/// # Complexity
/// Expected O(n + m + q·n²/2), `q = 1/(1+e^ε)`.
pub fn symrr<R: CryptoRng + ?Sized>(
    graph: &Graph,
    eps: Epsilon,
    rng: &mut R,
) -> Result<BaselineRelease> {
    let p = keep_probability(eps)?;
    Ok(BaselineRelease {
        graph: perturb(graph, eps, rng)?,
        weights: None,
        name: "symrr",
        variant: format!(
            "symrr (upper triangle randomized once and mirrored; keep {p:.4}, flip {:.4})",
            1.0 - p
        ),
        eps,
        eps_edge: eps.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use graph_core::generate::erdos_renyi;

    /// Counts kept true edges and flipped non-edges and checks both against 5σ binomial bands.
    fn check_bands(g: &Graph, out: &Graph, keep: f64, flip: f64) {
        let n = g.num_nodes();
        let m = g.num_edges() as f64;
        let kept = g.edges().filter(|&(u, v)| out.has_edge(u, v)).count() as f64;
        let non_edges = (n * (n - 1) / 2) as f64 - m;
        let flipped = out.num_edges() as f64 - kept;
        assert!(
            (kept - keep * m).abs() < 5.0 * (m * keep * (1.0 - keep)).sqrt(),
            "kept {kept} of {m}, expected {}",
            keep * m
        );
        assert!(
            (flipped - flip * non_edges).abs() < 5.0 * (non_edges * flip * (1.0 - flip)).sqrt(),
            "flipped {flipped} of {non_edges}, expected {}",
            flip * non_edges
        );
    }

    #[test]
    fn rr_or_frequencies_within_bands() {
        let mut rng = dp_core::rng::seeded_rng(21);
        let g = erdos_renyi(1200, 0.03, &mut rng).unwrap();
        for eps in [0.5, 1.0, 3.0] {
            let p = keep_probability(Epsilon::new(eps).unwrap()).unwrap();
            let r = rr(&g, Epsilon::new(eps).unwrap(), &mut rng).unwrap();
            check_bands(&g, &r.graph, 1.0 - (1.0 - p) * (1.0 - p), 1.0 - p * p);
            assert_eq!(r.eps_edge.get(), 2.0 * eps);
            assert!(r.weights.is_none());
        }
    }

    #[test]
    fn symrr_frequencies_within_bands() {
        let mut rng = dp_core::rng::seeded_rng(22);
        let g = erdos_renyi(1200, 0.03, &mut rng).unwrap();
        let p = keep_probability(Epsilon::new(1.5).unwrap()).unwrap();
        let r = symrr(&g, Epsilon::constant(1.5), &mut rng).unwrap();
        check_bands(&g, &r.graph, p, 1.0 - p);
        assert_eq!(r.name, "symrr");
        assert_eq!(r.eps_edge.get(), 1.5);
    }

    #[test]
    fn bad_eps_cannot_reach_a_baseline() {
        // RR and SymRR take a checked ε: the values they used to refuse are refused by the type.
        for bad in [0.0, -0.5, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                Epsilon::new(bad),
                Err(dp_core::Error::InvalidParam { name: "eps", .. })
            ));
        }
    }
}
