//! DPRR, degree-preserving randomized response (Hidano and Murakami, "Degree-Preserving
//! Randomized Response for Graph Neural Networks under Local Differential Privacy", 2022/2024).
//!
//! User i releases a Laplace-noised degree `d̃_i = d_i + Lap(1/ε₁)`, applies Warner's randomized
//! response with `ε₂ = ε − ε₁` to each of the `n − 1` bits of her row, and keeps each reported 1
//! with probability `q_i = d̃_i / (d̃_i(2p − 1) + (n − 1)(1 − p))` (clipped to [0, 1]),
//! `p = e^{ε₂}/(1+e^{ε₂})`, so that the expected number of 1s she sends is `d̃_i` (paper §IV,
//! "edge sampling"). Rows are independent, so each row is drawn by geometric skipping with the
//! combined probabilities `p·q_i` (true edges) and `(1 − p)·q_i` (non-edges).
//!
//! Choices where the paper left one:
//! - ε₁: the paper's allocation rule as `shared/design/HOMDP.md` records it,
//!   `ε₁ = max(0.1, sqrt(8/(n_max − 1)))`, capped at ε/2 so that every ε > 0 is usable (the cap
//!   only binds for tiny graphs or tiny ε); see [`dprr_default_eps1`]. An explicit
//!   [`DprrParams::eps1`] overrides it.
//! - The server symmetrises the reports by OR (both endpoints report on a pair, as for RR), so
//!   the released degree is up to about twice `d̃_i` for sparse graphs; the per-user reported
//!   degree is the preserved quantity ([`DprrReports::reported_degrees`]).

use dp_core::mechanisms::LaplaceParams;
use dp_core::params::{Epsilon, EpsilonBound};
use dp_core::samplers::{Bernoulli, GeometricSkip};
use graph_core::{DuplicatePolicy, Graph, GraphBuilder};
use rand::CryptoRng;

use super::BaselineRelease;
use crate::client::keep_probability;
use crate::error::{EdgeRefineError, Result};

/// Parameters of DPRR.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DprrParams {
    /// Total ε per user.
    pub eps: Epsilon,
    /// ε₁ for the Laplace degree; `None` uses [`dprr_default_eps1`] with the graph's node count
    /// as `n_max`. Must be below ε (its type already keeps it finite and > 0).
    pub eps1: Option<Epsilon>,
}

impl DprrParams {
    /// ε with the default ε₁ rule.
    pub fn new(eps: Epsilon) -> Self {
        Self { eps, eps1: None }
    }
}

/// The default ε₁: `max(0.1, sqrt(8/(n_max − 1)))`, capped at `ε/2`. For a collection of
/// graphs pass the largest node count.
///
/// # Errors
/// Bad ε or `n_max < 2`.
///
/// # Example
/// ```
/// // Cora-sized graphs: sqrt(8/2707) ≈ 0.054 < 0.1, so ε₁ = 0.1.
/// assert_eq!(edgerefine::baselines::dprr_default_eps1("1".parse()?, 2708)?, 0.1);
/// // MUTAG (n_max = 28) at ε = 0.5: sqrt(8/27) ≈ 0.544 is capped at ε/2.
/// assert_eq!(edgerefine::baselines::dprr_default_eps1("0.5".parse()?, 28)?, 0.25);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn dprr_default_eps1(eps: Epsilon, n_max: usize) -> Result<f64> {
    let eps = eps.get();
    if n_max < 2 {
        return Err(EdgeRefineError::InvalidParam {
            name: "n_max",
            value: n_max as f64,
            reason: "must be >= 2",
        });
    }
    let rule = (8.0 / (n_max - 1) as f64).sqrt().max(0.1);
    Ok(rule.min(eps / 2.0))
}

/// Every user's DPRR report, before the server symmetrises them.
#[derive(Clone, Debug, PartialEq)]
pub struct DprrReports {
    n: usize,
    eps1: f64,
    eps2: f64,
    noisy_degrees: Vec<f64>,
    sampling: Vec<f64>,
    /// Directed reports `(i, j)`: user i sends j, sorted by `(i, j)`.
    reports: Vec<(u32, u32)>,
}

impl DprrReports {
    /// `(ε₁, ε₂)`.
    pub fn eps_split(&self) -> (f64, f64) {
        (self.eps1, self.eps2)
    }

    /// The Laplace-noised degrees `d̃_i`.
    pub fn noisy_degrees(&self) -> &[f64] {
        &self.noisy_degrees
    }

    /// The sampling probabilities `q_i`.
    pub fn sampling_probabilities(&self) -> &[f64] {
        &self.sampling
    }

    /// The reported ordered pairs `(i, j)` (user i sends j), sorted.
    pub fn reports(&self) -> &[(u32, u32)] {
        &self.reports
    }

    /// How many 1s each user sent (the quantity whose expectation is `d̃_i`).
    pub fn reported_degrees(&self) -> Vec<u32> {
        let mut d = vec![0u32; self.n];
        for &(i, _) in &self.reports {
            d[i as usize] += 1;
        }
        d
    }

    /// The server's graph: `{i, j}` is an edge if either endpoint reported the other.
    ///
    /// # Errors
    /// None for reports built by [`dprr_reports`].
    ///
    /// # Privacy
    /// Post-processing; 2ε-edge DP for the release (each pair is reported on by both endpoints).
    pub fn symmetrise(&self) -> Result<BaselineRelease> {
        let mut b = GraphBuilder::new(self.n)?.duplicates(DuplicatePolicy::Merge);
        b.reserve(self.reports.len());
        for &(i, j) in &self.reports {
            b.add_edge(i, j)?;
        }
        let eps = self.eps1 + self.eps2;
        Ok(BaselineRelease {
            graph: b.build()?,
            weights: None,
            name: "dprr",
            variant: format!(
                "dprr (Hidano & Murakami; eps1={:.4} Laplace degree, eps2={:.4} RR on full rows, per-user edge sampling, OR-symmetrised)",
                self.eps1, self.eps2
            ),
            eps: Epsilon::new(eps)?,
            eps_edge: EpsilonBound::new(eps)?.times(2),
        })
    }
}

/// Simulates every DPRR user: noisy degree, randomized response on the full row, edge sampling
/// tuned to the noisy degree.
///
/// # Errors
/// Bad ε, or an explicit ε₁ not in (0, ε).
///
/// # Privacy
/// Each user's report is ε-edge LDP: ε₁ for the degree (Laplace, sensitivity 1) plus ε₂ for the
/// row (Warner's RR); the sampling uses only `d̃_i` and the RR output, so it is post-processing
/// (Hidano and Murakami, Theorem 1). The Laplace noise is dp-core's floating-point sampler.
///
/// # Complexity
/// Expected O(n + m + Σ_i d̃_i) with one [`GeometricSkip`] per row.
pub fn dprr_reports<R: CryptoRng + ?Sized>(
    graph: &Graph,
    params: &DprrParams,
    rng: &mut R,
) -> Result<DprrReports> {
    let eps = params.eps.get();
    let n = graph.num_nodes();
    let eps1 = match params.eps1.map(Epsilon::get) {
        Some(e1) => {
            if e1 >= eps {
                return Err(EdgeRefineError::InvalidParam {
                    name: "eps1",
                    value: e1,
                    reason: "must be in (0, eps)",
                });
            }
            e1
        }
        None => dprr_default_eps1(params.eps, n.max(2))?,
    };
    let eps2 = eps - eps1;
    let p = keep_probability(Epsilon::new(eps2)?)?;
    let lap = LaplaceParams::new(1.0 / eps1).check()?;
    let rest = n.saturating_sub(1) as f64;
    let mut noisy_degrees = Vec::with_capacity(n);
    let mut sampling = Vec::with_capacity(n);
    let mut reports = Vec::new();
    let mut row = Vec::new();
    for i in 0..n as u32 {
        let d = graph.degree(i);
        let noisy = lap.release(d as f64, rng);
        let q = if noisy <= 0.0 {
            0.0
        } else {
            (noisy / (noisy * (2.0 * p - 1.0) + rest * (1.0 - p))).min(1.0)
        };
        noisy_degrees.push(noisy);
        sampling.push(q);
        row.clear();
        let keep = Bernoulli::new(p * q)?;
        for &j in graph.neighbors(i) {
            if keep.sample(rng) {
                row.push(j);
            }
        }
        let skip = GeometricSkip::new(n.saturating_sub(1) as u64, (1.0 - p) * q)?;
        for c in skip.positions(rng) {
            let j = if c >= u64::from(i) { c + 1 } else { c } as u32;
            if !graph.has_edge(i, j) {
                row.push(j);
            }
        }
        row.sort_unstable();
        reports.extend(row.iter().map(|&j| (i, j)));
    }
    Ok(DprrReports {
        n,
        eps1,
        eps2,
        noisy_degrees,
        sampling,
        reports,
    })
}

/// DPRR end to end: [`dprr_reports`] then [`DprrReports::symmetrise`].
///
/// # Errors
/// See [`dprr_reports`].
///
/// # Privacy
/// ε-edge LDP per user; 2ε-edge DP for the OR-symmetrised release.
///
/// # Complexity
/// Expected O(n + m + Σ_i d̃_i) plus the graph build.
///
/// # Example
/// ```
/// use edgerefine::baselines::{dprr, DprrParams};
/// let mut rng = dp_core::rng::seeded_rng(5);
/// let g = graph_core::generate::erdos_renyi(500, 0.04, &mut rng)?;
/// let r = dprr(&g, &DprrParams::new("1.0".parse()?), &mut rng)?;
/// // Each user sends about d̃_i ≈ d_i pairs; OR keeps at most twice the true edge count.
/// assert!(r.graph.num_edges() < 2 * g.num_edges() + 500);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn dprr<R: CryptoRng + ?Sized>(
    graph: &Graph,
    params: &DprrParams,
    rng: &mut R,
) -> Result<BaselineRelease> {
    dprr_reports(graph, params, rng)?.symmetrise()
}

#[cfg(test)]
mod tests {
    use super::*;
    use graph_core::generate::erdos_renyi;

    #[test]
    fn expected_degree_is_preserved_within_bands() {
        let mut rng = dp_core::rng::seeded_rng(31);
        let n = 1000;
        let g = erdos_renyi(n, 0.03, &mut rng).unwrap();
        let reports = dprr_reports(&g, &DprrParams::new(Epsilon::constant(2.0)), &mut rng).unwrap();
        let (eps1, eps2) = reports.eps_split();
        assert_eq!(eps1, 0.1);
        assert!((eps2 - 1.9).abs() < 1e-12);
        let p = keep_probability(Epsilon::new(eps2).unwrap()).unwrap();
        let reported = reports.reported_degrees();
        // Exact conditional expectation given the q_i: Σ q_i (d_i p + (n−1−d_i)(1−p)).
        let (mut expected, mut var) = (0.0, 0.0);
        for (i, &q) in reports.sampling_probabilities().iter().enumerate() {
            let d = g.degree(i as u32) as f64;
            let (a, b) = (p * q, (1.0 - p) * q);
            expected += d * a + ((n - 1) as f64 - d) * b;
            var += d * a * (1.0 - a) + ((n - 1) as f64 - d) * b * (1.0 - b);
        }
        let total = reported.iter().map(|&x| f64::from(x)).sum::<f64>();
        assert!(
            (total - expected).abs() < 5.0 * var.sqrt(),
            "{total} vs {expected}"
        );
        // Degree preservation: reported ≈ noisy ≈ true degrees on aggregate.
        let true_total = 2.0 * g.num_edges() as f64;
        assert!(
            (total - true_total).abs() < 0.05 * true_total,
            "{total} vs {true_total}"
        );
        // And per user: reported degrees track the noisy degrees.
        let noisy = reports.noisy_degrees();
        let mae = reported
            .iter()
            .zip(noisy)
            .map(|(&r, &d)| (f64::from(r) - d.max(0.0)).abs())
            .sum::<f64>()
            / n as f64;
        assert!(mae < 8.0, "mean |reported − noisy| = {mae}");
        // Without sampling RR would send ≈ (n−1)(1−p) ≈ 130 pairs a user.
        assert!(total / (n as f64) < 40.0);
        let release = reports.symmetrise().unwrap();
        assert_eq!(release.eps_edge.get(), 4.0);
        assert!(release.graph.num_edges() as f64 <= total);
    }

    #[test]
    fn bad_eps_and_eps1_are_typed_errors() {
        let g = erdos_renyi(40, 0.1, &mut dp_core::rng::seeded_rng(0)).unwrap();
        let mut rng = dp_core::rng::seeded_rng(1);
        // ε ≤ 0 or NaN cannot reach DPRR: its type refuses it.
        for bad in [0.0, -2.0, f64::NAN] {
            assert!(Epsilon::new(bad).is_err());
        }
        let p = DprrParams {
            eps: Epsilon::constant(1.0),
            eps1: Some(Epsilon::constant(1.0)),
        };
        assert!(matches!(
            dprr(&g, &p, &mut rng),
            Err(EdgeRefineError::InvalidParam { name: "eps1", .. })
        ));
    }
}
