//! The paper's theory as experiments (the `theory` table):
//!
//! * **Expressivity** (Theorems 4.1 / 4.2): two non-isomorphic graphs that 1-WL cannot tell
//!   apart have equal tree densities, so no release of tree densities separates them; with a
//!   cycle among the patterns their clean densities differ by `D = ‖μ₁ − μ₂‖ > 0`, and the mean
//!   of `T` independent releases (Gaussian noise of standard deviation σ per coordinate) lies
//!   nearer its own graph's clean vector with probability `Φ(D·√T / (2σ))`, which tends to 1.
//!   [`expressivity_table`] measures that rate through [`embed_with_densities`] and prints the
//!   prediction beside it.
//! * **Noise scale** (Proposition 4.9): without a degree bound a density's sensitivity is
//!   `2·e(F)/n²`, so σ² grows as `(max e(F))²`; [`noise_scale_table`] measures σ of one-pattern
//!   releases over paths with 1 to 8 edges and fits the log–log slope (2 without a bound; the
//!   bounded-degree factor `(Δ/n)^(m−c−1)` bends it).

use graph_core::Graph;
use serde::Serialize;

use super::protocol::{NOISE_DRAW, SeedStream, rep_seeds};
use crate::embed::{EmbeddingParams, embed_with_densities};
use crate::error::Result;
use crate::pattern::Pattern;
use crate::{SensitivityBound, density_matrix};

/// One cell of [`expressivity_table`]: a 1-WL-equivalent pair under one pattern set, released
/// `releases` times per trial.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct ExpressivityRow {
    /// The pair (`C6 vs 2×C3`, …).
    pub pair: String,
    /// The pattern set (`paths P2–P5` or `paths + cycles C3–C6`).
    pub patterns: String,
    /// ρ of each release.
    pub rho: f64,
    /// ε of each release at δ = [`super::DELTA`] (`T` releases compose: `T·ρ′` tCDP).
    pub eps: f64,
    /// Releases averaged per trial (`T`).
    pub releases: usize,
    /// `‖μ₁ − μ₂‖` of the clean density vectors (0: the patterns cannot separate the pair).
    pub distance: f64,
    /// Noise standard deviation per coordinate, mean of the two graphs'.
    pub sigma: f64,
    /// Share of trials (both graphs) whose averaged release lies nearer its own clean vector
    /// (a tie, as when `distance = 0`, counts one half).
    pub separated: f64,
    /// The prediction `½·Σ_G Φ(D·√T / (2σ_G))` (½ when `D = 0`).
    pub predicted: f64,
    /// Trials.
    pub trials: usize,
}

/// One row of [`noise_scale_table`]: the noise of a one-pattern release of a path.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct NoiseScaleRow {
    /// The pattern (`P4`: a path on 4 nodes).
    pub pattern: String,
    /// Its edges `e(F)`.
    pub edges: usize,
    /// `none` or the degree bound Δ.
    pub degree_bound: String,
    /// σ of the release (ρ = 1) on the graph.
    pub sigma: f64,
    /// `σ² / e(F)²`: constant when σ² grows as `e(F)²`.
    pub sigma2_over_edges2: f64,
    /// Least-squares slope of `ln σ²` on `ln e(F)` over the rows of this degree bound.
    pub loglog_slope: f64,
}

/// Sizes of [`expressivity_table`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TheorySizes {
    /// Releases averaged per trial.
    pub releases: Vec<usize>,
    /// Trials per cell.
    pub trials: usize,
    /// ρ of each release.
    pub rho: f64,
}

impl TheorySizes {
    /// `--quick`: T ∈ {1, 16, 256}, 100 trials.
    pub fn quick() -> Self {
        Self {
            releases: vec![1, 16, 256],
            trials: 100,
            rho: 1.0,
        }
    }

    /// `--full`: T ∈ {1, 4, 16, 64, 256, 1024}, 1000 trials.
    pub fn full() -> Self {
        Self {
            releases: vec![1, 4, 16, 64, 256, 1024],
            trials: 1000,
            rho: 1.0,
        }
    }
}

/// `copies` disjoint cycles `C_n` (one copy: the cycle itself).
fn cycles_graph(copies: usize, n: usize) -> Result<Graph> {
    let edges: Vec<(u32, u32)> = (0..copies as u32)
        .flat_map(|c| {
            let o = c * n as u32;
            (0..n as u32).map(move |i| (o + i, o + (i + 1) % n as u32))
        })
        .collect();
    Ok(Graph::from_edges(copies * n, &edges)?)
}

/// The pairs: 2-regular `C6 / 2×C3`, `C8 / 2×C4`, and the 3-regular `K3,3 / prism` (both on
/// six nodes: 1-WL colours every node alike in each).
fn wl_pairs() -> Result<Vec<(&'static str, Graph, Graph)>> {
    let k33 = Graph::from_edges(
        6,
        &[0u32, 1, 2]
            .iter()
            .flat_map(|&a| [3u32, 4, 5].map(|b| (a, b)))
            .collect::<Vec<_>>(),
    )?;
    let prism = Graph::from_edges(
        6,
        &[
            (0, 1),
            (1, 2),
            (2, 0),
            (3, 4),
            (4, 5),
            (5, 3),
            (0, 3),
            (1, 4),
            (2, 5),
        ],
    )?;
    Ok(vec![
        ("C6 vs 2×C3", cycles_graph(1, 6)?, cycles_graph(2, 3)?),
        ("C8 vs 2×C4", cycles_graph(1, 8)?, cycles_graph(2, 4)?),
        ("K3,3 vs prism", k33, prism),
    ])
}

/// The two pattern sets: paths only (trees: equal densities on 1-WL-equivalent graphs) and
/// paths with the cycles C3–C6.
fn pattern_sets() -> Result<Vec<(&'static str, Vec<Pattern>)>> {
    let paths: Vec<Pattern> = (2..=5).map(Pattern::path).collect::<Result<_>>()?;
    let mut with_cycles = paths.clone();
    for k in 3..=6 {
        with_cycles.push(Pattern::cycle(k)?);
    }
    Ok(vec![
        ("paths P2–P5", paths),
        ("paths P2–P5 + cycles C3–C6", with_cycles),
    ])
}

fn dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
}

/// Measures how often the mean of `T` releases of each graph of a 1-WL-equivalent pair lies
/// nearer its own clean density vector, against `Φ(D·√T / (2σ))`, for every pair, pattern
/// set and `T` of `sizes`. Each release is [`embed_with_densities`] of the pair at `sizes.rho`
/// (no degree bound, the component-aware sensitivity), noise seeded from `seed` and
/// [`SeedStream::Theory`].
///
/// # Errors
/// As [`embed_with_densities`] and [`density_matrix`]; none for valid sizes.
///
/// # Privacy
/// Each release is `(2ρ + 4dβ², 1/(4β))`-tCDP (its ε in the row); the `T` releases of a trial
/// compose to `T` times that ρ′ — the experiment shows what an adversary who sees them learns.
///
/// # Complexity
/// `Σ_T T · trials` releases of two graphs per cell (six cells).
pub fn expressivity_table(sizes: &TheorySizes, seed: u64) -> Result<Vec<ExpressivityRow>> {
    let params = EmbeddingParams::new(sizes.rho).bound(SensitivityBound::ComponentAware);
    let mut rows = Vec::new();
    let mut cell = 0usize;
    for (pair, g1, g2) in wl_pairs()? {
        let graphs = [g1, g2];
        for (set, patterns) in pattern_sets()? {
            let clean = density_matrix(&patterns, &graphs)?;
            let (mu1, mu2) = (clean.row(0).to_vec(), clean.row(1).to_vec());
            let distance = dist(&mu1, &mu2);
            for &t in &sizes.releases {
                let seeds = rep_seeds(seed, SeedStream::Theory, cell);
                cell += 1;
                let mut rng = seeds.chacha20(NOISE_DRAW, 0);
                let (mut hits, mut sigmas, mut eps) = (0.0, [0.0; 2], f64::NAN);
                for _ in 0..sizes.trials {
                    let d = patterns.len();
                    let mut sum = vec![vec![0.0; d]; 2];
                    for _ in 0..t {
                        let e = embed_with_densities(
                            &patterns,
                            &graphs,
                            clean.view(),
                            &params,
                            &mut rng,
                        )?;
                        for (g, row) in sum.iter_mut().enumerate() {
                            for (s, v) in row.iter_mut().zip(e.values().row(g)) {
                                *s += v;
                            }
                        }
                        sigmas = [e.sigmas()[0], e.sigmas()[1]];
                        eps = e.guarantee().eps();
                    }
                    for (g, row) in sum.iter().enumerate() {
                        let avg: Vec<f64> = row.iter().map(|s| s / t as f64).collect();
                        let (own, other) = if g == 0 { (&mu1, &mu2) } else { (&mu2, &mu1) };
                        let (a, b) = (dist(&avg, own), dist(&avg, other));
                        hits += if a < b {
                            1.0
                        } else if a == b {
                            0.5
                        } else {
                            0.0
                        };
                    }
                }
                let predicted = if distance == 0.0 {
                    0.5
                } else {
                    sigmas
                        .iter()
                        .map(|s| {
                            dp_core::conversions::std_normal_cdf(
                                distance * (t as f64).sqrt() / (2.0 * s),
                            )
                        })
                        .sum::<f64>()
                        / 2.0
                };
                rows.push(ExpressivityRow {
                    pair: pair.into(),
                    patterns: set.into(),
                    rho: sizes.rho,
                    eps,
                    releases: t,
                    distance,
                    sigma: (sigmas[0] + sigmas[1]) / 2.0,
                    separated: hits / (2 * sizes.trials) as f64,
                    predicted,
                    trials: sizes.trials,
                });
            }
        }
    }
    Ok(rows)
}

/// σ of one-pattern releases (ρ = 1) of the paths `P2 … P9` (1 to 8 edges) on `graph`, with no
/// degree bound and with `degree_bound`, and the log–log slope of σ² on `e(F)` per bound
/// (Proposition 4.9: 2 without a bound). No noise is drawn (σ is the calibration's).
///
/// # Errors
/// As [`embed_with_densities`]; [`crate::HomdpError::DegreeBoundExceeded`] when `graph` breaks
/// `degree_bound`.
///
/// # Complexity
/// Sixteen one-pattern densities of `graph`.
pub fn noise_scale_table(graph: &Graph, degree_bound: usize) -> Result<Vec<NoiseScaleRow>> {
    let mut rows = Vec::new();
    for bound in [None, Some(degree_bound)] {
        let params = EmbeddingParams::new(1.0)
            .bound(SensitivityBound::ComponentAware)
            .degree_bound(bound);
        let start = rows.len();
        for m in 1..=8usize {
            let p = Pattern::path(m + 1)?;
            let clean = density_matrix(std::slice::from_ref(&p), std::slice::from_ref(graph))?;
            // A zero generator: σ is fixed by the calibration, the noise is not needed.
            let mut rng = dp_core::rng::seeded_rng(0);
            let e = embed_with_densities(
                std::slice::from_ref(&p),
                std::slice::from_ref(graph),
                clean.view(),
                &params,
                &mut rng,
            )?;
            let sigma = e.sigmas()[0];
            rows.push(NoiseScaleRow {
                pattern: format!("P{}", m + 1),
                edges: m,
                degree_bound: bound.map_or("none".into(), |d| d.to_string()),
                sigma,
                sigma2_over_edges2: sigma * sigma / (m * m) as f64,
                loglog_slope: f64::NAN,
            });
        }
        let pts: Vec<(f64, f64)> = rows[start..]
            .iter()
            .map(|r| ((r.edges as f64).ln(), (r.sigma * r.sigma).ln()))
            .collect();
        let n = pts.len() as f64;
        let (mx, my) = (
            pts.iter().map(|p| p.0).sum::<f64>() / n,
            pts.iter().map(|p| p.1).sum::<f64>() / n,
        );
        let slope = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum::<f64>()
            / pts.iter().map(|p| (p.0 - mx).powi(2)).sum::<f64>();
        for r in &mut rows[start..] {
            r.loglog_slope = slope;
        }
    }
    Ok(rows)
}
