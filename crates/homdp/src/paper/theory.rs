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
//!   `2·e(F)/n²`, so σ² grows as `(max e(F))²`; [`noise_scale_table`] reports σ of one-pattern
//!   releases over paths with 1 to 8 edges and fits the log–log slope (2 without a bound; the
//!   bounded-degree factor `(Δ/n)^(m−c−1)` bends it), and measures the calibration rather than
//!   evaluating it: the empirical local sensitivity over every single-edge flip of real graphs
//!   against the bound ([`local_sensitivity`]) and the variance of drawn noise against σ²
//!   ([`variance_check`]); [`check_noise_scale`] fails when either contradicts it.

use dp_core::params::{EpsilonBound, NoiseScale, Rho};
use graph_core::Graph;
use serde::Serialize;

use super::cells::Rho as RhoCell;
use super::protocol::{NOISE_DRAW, SeedStream, rep_seeds};
use crate::embed::{EmbeddingParams, embed_with_densities};
use crate::error::{HomdpError, Result, invalid};
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
    pub rho: RhoCell,
    /// ε of each release at δ = [`super::DELTA`] (`T` releases compose: `T·ρ′` tCDP; `None`
    /// where no release ran).
    pub eps: Option<EpsilonBound>,
    /// Releases averaged per trial (`T`).
    pub releases: usize,
    /// `‖μ₁ − μ₂‖` of the clean density vectors (0: the patterns cannot separate the pair).
    pub distance: f64,
    /// Noise standard deviation per coordinate, mean of the two graphs'.
    pub sigma: NoiseScale,
    /// Share of trials (both graphs) whose averaged release lies nearer its own clean vector
    /// (a tie, as when `distance = 0`, counts one half).
    pub separated: f64,
    /// The prediction `½·Σ_G Φ(D·√T / (2σ_G))` (½ when `D = 0`).
    pub predicted: f64,
    /// Trials.
    pub trials: usize,
}

/// One row of [`noise_scale_table`]: the noise of a one-pattern release (σ on the probe
/// graph, as calibrated and as drawn) and the measured local sensitivity of the pattern's
/// density on a collection of graphs against the bound the calibration uses.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct NoiseScaleRow {
    /// The pattern (`P4`: a path on 4 nodes; `K1,3`: a star; `2×K2`, `K2+K1`: forests).
    pub pattern: String,
    /// Its edges `e(F)`.
    pub edges: usize,
    /// `none` or the degree bound Δ: the probe's maximum degree for `sigma`, the collection's
    /// for the local sensitivity (`probe D / graphs D'`).
    pub degree_bound: String,
    /// σ of the release (ρ = 1) on the probe graph, as the calibration sets it.
    pub sigma: NoiseScale,
    /// `σ² / e(F)²`: constant when σ² grows as `e(F)²`.
    #[serde(rename = "sigma2_over_edges2")]
    pub variance_over_edges2: f64,
    /// Least-squares slope of `ln σ²` on `ln e(F)` over the path rows of this degree bound.
    pub loglog_slope: f64,
    /// Noise values drawn through the release (`released − clean` on the probe graph).
    pub draws: usize,
    /// Their sample variance.
    pub noise_variance: f64,
    /// Lower end of its confidence interval for σ² (χ² by Wilson–Hilferty, at the normal
    /// quantile [`family_z`] of the table's rows: 99.9 % for all rows together).
    pub variance_ci_low: f64,
    /// Upper end.
    pub variance_ci_high: f64,
    /// Graphs of the collection measured (those within the degree bound).
    pub graphs: usize,
    /// The empirical local sensitivity `max |t(F, G') − t(F, G)|` over every single-edge flip
    /// `G'` (add or remove one edge; with a degree bound, only flips that keep every degree
    /// ≤ Δ) of the graph `G` of the collection where it comes nearest the bound (largest
    /// `max_ratio`).
    pub local_sensitivity: f64,
    /// The calibration's bound (component-aware, [`crate::density_sensitivity`]) on that
    /// graph.
    pub sensitivity_bound: f64,
    /// That graph's nodes.
    pub nodes: usize,
    /// The largest `LS(G) / bound(n_G)` over the collection (≤ 1 when the bound holds).
    pub max_ratio: f64,
    /// The same ratio against the paper's Theorem 4.5 formula (above 1: the paper's bound is
    /// broken on these graphs; it is not what the calibration uses).
    pub paper_bound_ratio: f64,
    /// Both checks hold: `max_ratio ≤ 1` and the calibrated σ² lies in the variance's
    /// confidence interval.
    pub holds: bool,
}

/// Two-sided normal quantile of a single 99.9 % confidence interval.
pub const VARIANCE_Z: f64 = 3.290_526_731_491_926;

/// The two-sided normal quantile that keeps `rows` confidence intervals at 99.9 % together
/// (Bonferroni: each at `1 − 0.001/rows`), so that a table of many rows fails a correct
/// calibration at most 0.1 % of the time (26 rows: z ≈ 4.12, against 3.29 for one).
///
/// # Example
/// ```
/// use homdp::paper::{VARIANCE_Z, family_z};
/// assert!((family_z(1) - VARIANCE_Z).abs() < 1e-9);
/// assert!((family_z(26) - 4.1165).abs() < 1e-3);
/// ```
pub fn family_z(rows: usize) -> f64 {
    let tail = 0.001 / (2.0 * rows.max(1) as f64);
    // Φ(z) = 1 − tail by bisection on dp-core's normal CDF.
    let (mut lo, mut hi) = (0.0f64, 40.0f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if 1.0 - dp_core::conversions::std_normal_cdf(mid) > tail {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// A measured variance against a calibrated σ² ([`variance_check`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct VarianceCheck {
    /// The sample variance of the draws (mean taken as 0: the noise is centred).
    pub variance: f64,
    /// Lower end of the confidence interval for the true variance.
    pub low: f64,
    /// Upper end.
    pub high: f64,
    /// Whether `σ²` lies in `[low, high]`.
    pub holds: bool,
}

/// Whether noise `draws` have variance `sigma²`: the sample second moment `s²` (the noise is
/// centred) and the interval `[N·s²/χ²_{1−α/2}(N), N·s²/χ²_{α/2}(N)]` with the χ² quantiles
/// by Wilson–Hilferty at the normal quantile `z` (e.g. [`VARIANCE_Z`]).
///
/// # Errors
/// [`crate::HomdpError::InvalidParam`] for fewer than 100 draws, a non-finite draw, or `sigma`
/// or `z` not finite and > 0.
///
/// # Example
/// ```
/// use homdp::paper::{VARIANCE_Z, variance_check};
/// use rand_distr::{Distribution, Normal};
/// let mut rng = dp_core::rng::seeded_rng(3);
/// let draws: Vec<f64> = (0..20_000).map(|_| Normal::new(0.0, 2.0).unwrap().sample(&mut rng)).collect();
/// let sigma = |s| dp_core::params::NoiseScale::new(s);
/// assert!(variance_check(&draws, sigma(2.0)?, VARIANCE_Z)?.holds);
/// // A calibration that claims less noise than was drawn fails.
/// assert!(!variance_check(&draws, sigma(1.8)?, VARIANCE_Z)?.holds);
/// # Ok::<(), homdp::HomdpError>(())
/// ```
pub fn variance_check(draws: &[f64], sigma: NoiseScale, z: f64) -> Result<VarianceCheck> {
    let sigma = sigma.get();
    if draws.len() < 100 {
        return invalid("draws", draws.len() as f64, "need at least 100 draws");
    }
    if let Some(&v) = draws.iter().find(|v| !v.is_finite()) {
        return invalid("draws", v, "must be finite");
    }
    if !(sigma.is_finite() && sigma > 0.0) {
        return invalid("sigma", sigma, "must be finite and > 0");
    }
    if !(z.is_finite() && z > 0.0) {
        return invalid("z", z, "must be finite and > 0");
    }
    let n = draws.len() as f64;
    let variance = draws.iter().map(|v| v * v).sum::<f64>() / n;
    let chi2 = |q: f64| n * (1.0 - 2.0 / (9.0 * n) + q * (2.0 / (9.0 * n)).sqrt()).powi(3);
    let (low, high) = (n * variance / chi2(z), n * variance / chi2(-z));
    Ok(VarianceCheck {
        variance,
        low,
        high,
        holds: (low..=high).contains(&(sigma * sigma)),
    })
}

/// The empirical local sensitivity of one pattern on a collection ([`local_sensitivity`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LocalSensitivity {
    /// Graphs measured (those within the degree bound).
    pub graphs: usize,
    /// The largest change of the density over the single-edge flips of the graph of the
    /// largest ratio.
    pub measured: f64,
    /// The bound on that graph.
    pub bound: f64,
    /// That graph's nodes.
    pub nodes: usize,
    /// The largest ratio `LS(G) / bound(n_G)`.
    pub max_ratio: f64,
}

impl LocalSensitivity {
    /// Whether the bound holds on every graph (`max_ratio ≤ 1`, with a relative slack of
    /// 1e-9 for the rounding of two densities' difference; a wrong bound misses by far more);
    /// false when no graph was measured.
    pub(crate) fn holds(&self) -> bool {
        self.max_ratio <= 1.0 + 1e-9
    }
}

/// A sensitivity bound as a function of the pattern, `n` and the degree bound Δ (`None`: no
/// bound), as [`crate::density_sensitivity`] with a fixed [`SensitivityBound`].
pub type SensitivityFn<'a> = dyn Fn(&Pattern, usize, Option<usize>) -> Result<f64> + 'a;

/// The largest `|t(F, G') − t(F, G)|` over every single-edge flip `G'` of each graph `G` of
/// `graphs` (every unordered node pair: the edge removed if present, added if not; with
/// `degree_bound`, only flips after which every degree is ≤ Δ, the bounded-degree model's
/// neighbours, and only graphs within Δ), for each of `patterns`, against `bound(F, n_G, Δ)`:
/// the bound a calibration uses (e.g. [`crate::density_sensitivity`] with
/// [`SensitivityBound::ComponentAware`]).
///
/// # Errors
/// As [`density_matrix`] and `bound`.
///
/// # Complexity
/// `Σ_G n_G²/2` flipped graphs, each counted for every pattern.
pub fn local_sensitivity(
    patterns: &[Pattern],
    graphs: &[Graph],
    degree_bound: Option<usize>,
    bound: &SensitivityFn<'_>,
) -> Result<Vec<LocalSensitivity>> {
    let mut out = vec![
        LocalSensitivity {
            graphs: 0,
            measured: 0.0,
            bound: 0.0,
            nodes: 0,
            max_ratio: f64::NEG_INFINITY,
        };
        patterns.len()
    ];
    for g in graphs {
        let n = g.num_nodes();
        if degree_bound.is_some_and(|d| g.max_degree() > d) || n < 2 {
            continue;
        }
        let edges: Vec<(u32, u32)> = g.edges().collect();
        let mut flipped = Vec::new();
        for u in 0..n as u32 {
            for v in u + 1..n as u32 {
                let next: Vec<(u32, u32)> = if g.has_edge(u, v) {
                    edges
                        .iter()
                        .copied()
                        .filter(|&(a, b)| (a, b) != (u, v) && (a, b) != (v, u))
                        .collect()
                } else {
                    let full = |x: u32| degree_bound.is_some_and(|d| g.degree(x) >= d);
                    if full(u) || full(v) {
                        continue;
                    }
                    edges.iter().copied().chain([(u, v)]).collect()
                };
                flipped.push(Graph::from_edges(n, &next)?);
            }
        }
        let clean = density_matrix(patterns, std::slice::from_ref(g))?;
        let moved = density_matrix(patterns, &flipped)?;
        for (j, (p, o)) in patterns.iter().zip(&mut out).enumerate() {
            let ls = moved
                .column(j)
                .iter()
                .map(|t| (t - clean[[0, j]]).abs())
                .fold(0.0, f64::max);
            let b = bound(p, n, degree_bound)?;
            let ratio = if b > 0.0 {
                ls / b
            } else if ls > 0.0 {
                f64::INFINITY
            } else {
                0.0
            };
            o.graphs += 1;
            // The first graph of the largest ratio (the smallest such graph for ties).
            if ratio > o.max_ratio || (ratio == o.max_ratio && n < o.nodes) {
                (o.max_ratio, o.measured, o.bound, o.nodes) = (ratio, ls, b, n);
            }
        }
    }
    // No graph measured: nothing was shown, so the check must not pass.
    for o in out.iter_mut().filter(|o| o.graphs == 0) {
        o.max_ratio = f64::NAN;
    }
    Ok(out)
}

/// Fails with [`crate::HomdpError::CalibrationViolated`] at the first row of
/// [`noise_scale_table`] whose measured local sensitivity exceeds its bound or whose noise
/// variance misses the calibrated σ²: a wrong calibration fails the table.
///
/// # Errors
/// As described.
pub fn check_noise_scale(rows: &[NoiseScaleRow]) -> Result<()> {
    for r in rows {
        let name = format!("{} (degree bound {})", r.pattern, r.degree_bound);
        if r.max_ratio > 1.0 + 1e-9 || r.max_ratio.is_nan() {
            return Err(HomdpError::CalibrationViolated {
                pattern: name,
                check: "local sensitivity",
                measured: r.local_sensitivity,
                calibrated: r.sensitivity_bound,
            });
        }
        let s2 = r.sigma.get() * r.sigma.get();
        if !(r.variance_ci_low..=r.variance_ci_high).contains(&s2) {
            return Err(HomdpError::CalibrationViolated {
                pattern: name,
                check: "noise variance",
                measured: r.noise_variance,
                calibrated: s2,
            });
        }
    }
    Ok(())
}

/// Sizes of [`expressivity_table`] and [`noise_scale_table`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TheorySizes {
    /// Releases averaged per trial.
    pub releases: Vec<usize>,
    /// Trials per cell.
    pub trials: usize,
    /// ρ of each release.
    pub rho: Rho,
    /// Noise values drawn per row of [`noise_scale_table`].
    pub noise_draws: usize,
}

impl TheorySizes {
    /// `--quick`: T ∈ {1, 16, 256}, 100 trials, 4,000 noise draws per row.
    pub fn quick() -> Self {
        Self {
            releases: vec![1, 16, 256],
            trials: 100,
            rho: Rho::constant(1.0),
            noise_draws: 4_000,
        }
    }

    /// `--full`: T ∈ {1, 4, 16, 64, 256, 1024}, 1000 trials, 40,000 noise draws per row.
    pub fn full() -> Self {
        Self {
            releases: vec![1, 4, 16, 64, 256, 1024],
            trials: 1000,
            rho: Rho::constant(1.0),
            noise_draws: 40_000,
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
                    rho: Some(sizes.rho).into(),
                    eps: EpsilonBound::new(eps).ok(),
                    releases: t,
                    distance,
                    sigma: NoiseScale::new((sigmas[0] + sigmas[1]) / 2.0)?,
                    separated: hits / (2 * sizes.trials) as f64,
                    predicted,
                    trials: sizes.trials,
                });
            }
        }
    }
    Ok(rows)
}

/// The patterns of [`noise_scale_table`]: the paths `P2 … P9` (1 to 8 edges, Proposition
/// 4.9's slope), the stars `K1,3 … K1,5` and the forests `2×K2`, `K2+K1`, each with its name.
fn noise_scale_patterns() -> Result<Vec<(String, Pattern)>> {
    let mut v: Vec<(String, Pattern)> = (2..=9)
        .map(|m| Ok((format!("P{m}"), Pattern::path(m)?)))
        .collect::<Result<_>>()?;
    for k in 3..=5 {
        v.push((format!("K1,{k}"), Pattern::star(k)?));
    }
    let k2 = Pattern::path(2)?;
    v.push(("2×K2".into(), k2.disjoint_union(&k2)?));
    v.push(("K2+K1".into(), k2.disjoint_union(&Pattern::new(1, &[])?)?));
    Ok(v)
}

/// Proposition 4.9 and the calibration, measured. For each of 13 patterns (the paths
/// `P2 … P9`, the stars `K1,3 … K1,5`, the forests `2×K2` and `K2+K1`), with no degree bound and
/// with a bound (the probe's maximum degree `degree_bound` for the probe, the collection's
/// largest degree for the collection):
///
/// * σ of a one-pattern release (ρ = 1, component-aware bound) of `probe` as calibrated, the
///   log–log slope of σ² on `e(F)` over the paths (2 without a bound), and the variance of
///   `sizes.noise_draws` noise values drawn through the release ([`embed_with_densities`] on
///   copies of `probe`, seeded from `seed` and [`SeedStream::Theory`]) with its confidence
///   interval ([`variance_check`]);
/// * the empirical local sensitivity on `collection` ([`local_sensitivity`]: every
///   single-edge flip of every graph) against the component-aware bound the calibration uses,
///   and the ratio against the paper's Theorem 4.5 formula.
///
/// [`check_noise_scale`] fails on a row where either measurement contradicts the calibration.
///
/// # Errors
/// As [`embed_with_densities`] and [`local_sensitivity`];
/// [`crate::HomdpError::DegreeBoundExceeded`] when `probe` breaks `degree_bound`.
///
/// # Privacy
/// Each draw is one release at ρ = 1 (the experiment measures the noise, it protects nothing).
///
/// # Complexity
/// `26 · noise_draws` one-pattern releases of the probe, and `2 · Σ_G n_G²/2` flipped graphs
/// of the collection, each counted for the 13 patterns.
pub fn noise_scale_table(
    probe: &Graph,
    degree_bound: usize,
    collection: &[Graph],
    sizes: &TheorySizes,
    seed: u64,
) -> Result<Vec<NoiseScaleRow>> {
    let patterns = noise_scale_patterns()?;
    let bare: Vec<Pattern> = patterns.iter().map(|(_, p)| p.clone()).collect();
    let collection_bound = collection.iter().map(Graph::max_degree).max().unwrap_or(0);
    let calibration = |bound: SensitivityBound| {
        move |p: &Pattern, n: usize, d: Option<usize>| crate::density_sensitivity(p, n, d, bound)
    };
    let z = family_z(2 * patterns.len());
    let mut rows = Vec::new();
    for (b, (probe_bound, ls_bound)) in [(None, None), (Some(degree_bound), Some(collection_bound))]
        .into_iter()
        .enumerate()
    {
        let params = EmbeddingParams::new(Rho::new(1.0)?)
            .bound(SensitivityBound::ComponentAware)
            .degree_bound(probe_bound);
        let ls = local_sensitivity(
            &bare,
            collection,
            ls_bound,
            &calibration(SensitivityBound::ComponentAware),
        )?;
        let paper = local_sensitivity(
            &bare,
            collection,
            ls_bound,
            &calibration(SensitivityBound::PaperTheorem45),
        )?;
        let start = rows.len();
        for (j, ((name, p), (ls, paper))) in patterns.iter().zip(ls.iter().zip(&paper)).enumerate()
        {
            let one = std::slice::from_ref(p);
            let clean = density_matrix(one, std::slice::from_ref(probe))?;
            let seeds = rep_seeds(seed, SeedStream::Theory, 10_000 + b * 100 + j);
            let mut rng = seeds.chacha20(NOISE_DRAW, 0);
            let (mut draws, mut sigma) = (Vec::with_capacity(sizes.noise_draws), f64::NAN);
            while draws.len() < sizes.noise_draws {
                let batch = (sizes.noise_draws - draws.len()).min(1000);
                let copies = vec![probe.clone(); batch];
                let t = ndarray::Array2::from_elem((batch, 1), clean[[0, 0]]);
                let e = embed_with_densities(one, &copies, t.view(), &params, &mut rng)?;
                sigma = e.sigmas()[0];
                draws.extend(e.values().column(0).iter().map(|v| v - clean[[0, 0]]));
            }
            let sigma = NoiseScale::new(sigma)?;
            let var = variance_check(&draws, sigma, z)?;
            rows.push(NoiseScaleRow {
                pattern: name.clone(),
                edges: p.num_edges(),
                degree_bound: probe_bound.map_or("none".into(), |d| {
                    format!("probe {d} / graphs {collection_bound}")
                }),
                sigma,
                variance_over_edges2: sigma.get() * sigma.get()
                    / (p.num_edges() * p.num_edges()) as f64,
                loglog_slope: f64::NAN,
                draws: draws.len(),
                noise_variance: var.variance,
                variance_ci_low: var.low,
                variance_ci_high: var.high,
                graphs: ls.graphs,
                local_sensitivity: ls.measured,
                sensitivity_bound: ls.bound,
                nodes: ls.nodes,
                max_ratio: ls.max_ratio,
                paper_bound_ratio: paper.max_ratio,
                holds: ls.holds() && var.holds,
            });
        }
        // Proposition 4.9's slope over the paths (the first eight patterns).
        let pts: Vec<(f64, f64)> = rows[start..start + 8]
            .iter()
            .map(|r| ((r.edges as f64).ln(), (r.sigma.get() * r.sigma.get()).ln()))
            .collect();
        let n = pts.len() as f64;
        let (mx, my) = (
            pts.iter().map(|p| p.0).sum::<f64>() / n,
            pts.iter().map(|p| p.1).sum::<f64>() / n,
        );
        let slope = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum::<f64>()
            / pts.iter().map(|p| (p.0 - mx).powi(2)).sum::<f64>();
        for r in &mut rows[start..start + 8] {
            r.loglog_slope = slope;
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn collection() -> Result<Vec<Graph>> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        (0..5)
            .map(|i| Ok(graph_core::generate::erdos_renyi(7 + i, 0.35, &mut rng)?))
            .collect()
    }

    /// The measured local sensitivity stays within the component-aware bound, and a bound
    /// too small by a quarter is caught.
    #[test]
    fn a_too_small_sensitivity_bound_fails_the_measurement() -> Result<()> {
        let graphs = collection()?;
        let patterns: Vec<Pattern> = noise_scale_patterns()?.into_iter().map(|p| p.1).collect();
        let right = |p: &Pattern, n, d| {
            crate::density_sensitivity(p, n, d, SensitivityBound::ComponentAware)
        };
        let small = |p: &Pattern, n, d| Ok(0.75 * right(p, n, d)?);
        let delta = graphs.iter().map(Graph::max_degree).max();
        for d in [None, delta] {
            let ok = local_sensitivity(&patterns, &graphs, d, &right)?;
            assert!(ok.iter().all(LocalSensitivity::holds), "{d:?}: {ok:?}");
            let bad = local_sensitivity(&patterns, &graphs, d, &small)?;
            assert!(bad.iter().any(|l| !l.holds()), "{d:?}: {bad:?}");
        }
        // No graph within the bound: nothing measured, nothing holds.
        let none = local_sensitivity(&patterns, &graphs, Some(0), &right)?;
        assert!(none.iter().all(|l| l.graphs == 0 && !l.holds()), "{none:?}");
        // The paper's formula under-estimates the disconnected K2+K1 under a degree bound.
        let paper = |p: &Pattern, n, d| {
            crate::density_sensitivity(p, n, d, SensitivityBound::PaperTheorem45)
        };
        let k2k1 = [patterns[12].clone()];
        assert_eq!(k2k1[0].num_components(), 2);
        let measured = local_sensitivity(&k2k1, &graphs, delta, &paper)?;
        assert!(!measured[0].holds(), "{measured:?}");
        Ok(())
    }

    /// The drawn noise has the calibrated variance; a calibration that claims 10 % less σ
    /// (or a table row carrying it) fails.
    #[test]
    fn a_too_small_sigma_fails_the_variance_check() -> Result<()> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        let probe = graph_core::generate::erdos_renyi(30, 0.2, &mut rng)?;
        let sizes = TheorySizes {
            noise_draws: 4_000,
            ..TheorySizes::quick()
        };
        let delta = probe.max_degree();
        let rows = noise_scale_table(&probe, delta, &collection()?, &sizes, 3)?;
        check_noise_scale(&rows)?;
        assert!(rows.iter().all(|r| r.holds), "{rows:?}");
        let mut wrong = rows.clone();
        wrong[4].sigma = NoiseScale::new(wrong[4].sigma.get() * 0.9)?;
        assert!(matches!(
            check_noise_scale(&wrong),
            Err(HomdpError::CalibrationViolated {
                check: "noise variance",
                ..
            })
        ));
        let mut wrong = rows;
        wrong[2].max_ratio = 1.3;
        assert!(matches!(
            check_noise_scale(&wrong),
            Err(HomdpError::CalibrationViolated {
                check: "local sensitivity",
                ..
            })
        ));
        assert!(matches!(
            variance_check(&[0.0; 10], NoiseScale::new(1.0)?, VARIANCE_Z),
            Err(HomdpError::InvalidParam { .. })
        ));
        Ok(())
    }
}
