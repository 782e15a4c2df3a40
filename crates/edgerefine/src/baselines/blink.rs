//! The original Blink (Zhu, Tan, Xiao, "Blink: Link Local Differential Privacy in Graph Neural
//! Networks via Bayesian Estimation", CCS 2023): Laplace degrees plus randomized response on
//! every user's full row, a β-model prior fitted to the noisy degrees, and the Bayesian posterior
//! of every pair, released as a hard, soft or hybrid graph.
//!
//! # What is implemented (and where the paper left a choice)
//! - Client (paper §4.1): user i splits ε into `ε_d = δ_b·ε` and `ε_a = (1 − δ_b)·ε`, releases
//!   `d̃_i = d_i + Lap(1/ε_d)` and randomized response with `ε_a` on each of the `n − 1` bits of
//!   her row (asymmetric: both endpoints report on a pair). `δ_b` is a hyperparameter the paper
//!   tunes per dataset; our default is 0.1 ([`BlinkParams::new`]), set it explicitly to match a
//!   protocol.
//! - Server prior (paper §4.2): the β-model `p_ij = σ(β_i + β_j)` fitted by the fixed point of
//!   Chatterjee, Diaconis and Sly (2011), `β_i ← ln d_i − ln Σ_{j≠i} 1/(e^{−β_j} + e^{β_i})`,
//!   200 Jacobi iterations from β = 0, on the noisy degrees clipped to `[1, n − 2]`.
//! - Posterior (paper §4.2): with `x = ã_ij + ã_ji ∈ {0, 1, 2}` and `p_a = e^{ε_a}/(1+e^{ε_a})`,
//!   `P[a_ij = 1 | x] = p·p_a^x(1−p_a)^{2−x} / (p·p_a^x(1−p_a)^{2−x} + (1−p)·(1−p_a)^x p_a^{2−x})`,
//!   i.e. logit `β_i + β_j + 2(x − 1)·ε_a`.
//! - Release (paper §5): hard = pairs with posterior > 0.5; soft = every pair weighted by its
//!   posterior (we drop pairs below [`BlinkParams::soft_floor`], default 1e-6, to keep the
//!   graph finite in memory); hybrid = the `⌊Σ_{i<j} p_ij⌋` pairs of highest posterior (ties by
//!   row-major pair order), weighted by their posterior.
//!
//! The Blink inside the EdgeRefine artifact is a different variant (absolute `ε_d = 0.1` with
//! Laplace scale `1/(2ε_d)`, one symmetric report per pair counted twice, hard and
//! `p·[p > 0.5]` releases): it is implemented beside this one, clearly labelled, in
//! `baselines/blink_artifact.rs` ([`super::blink_artifact()`], [`super::BlinkArtifactParams`]),
//! and reuses this module's β-model fit and posterior.

use dp_core::mechanisms::{LaplaceParams, RandomizedResponse};
use dp_core::params::{Epsilon, EpsilonBound};
use dp_core::samplers::GeometricSkip;
use graph_core::{Graph, GraphBuilder};
use rand::CryptoRng;
use rayon::prelude::*;

use super::{BaselineRelease, BitMatrix, check_share, ordered_pair};
use crate::error::{EdgeRefineError, Result};

/// Parameters of Blink.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlinkParams {
    /// Total ε per user.
    pub eps: Epsilon,
    /// Share `δ_b` of ε spent on the degree (Laplace); the rest goes to randomized response (a
    /// budget share, not a DP δ).
    pub degree_share: f64,
    /// Fixed-point iterations of the β-model fit (200 as the reference).
    pub iterations: usize,
    /// Soft variant only: pairs with posterior ≤ this are not released (default 1e-6).
    pub soft_floor: f64,
}

impl BlinkParams {
    /// Defaults: `δ_b = 0.1`, 200 iterations, soft floor 1e-6.
    pub fn new(eps: Epsilon) -> Self {
        Self {
            eps,
            degree_share: 0.1,
            iterations: 200,
            soft_floor: 1e-6,
        }
    }

    /// `(ε_d, ε_a)` after validation.
    fn split(&self) -> Result<(f64, f64)> {
        let eps = self.eps.get();
        let delta = check_share("delta", self.degree_share)?;
        if self.iterations == 0 {
            return Err(EdgeRefineError::InvalidParam {
                name: "iterations",
                value: 0.0,
                reason: "the beta-model fit needs at least one iteration",
            });
        }
        if !(self.soft_floor > 0.0 && self.soft_floor < 0.5) {
            return Err(EdgeRefineError::InvalidParam {
                name: "soft_floor",
                value: self.soft_floor,
                reason: "must be in (0, 0.5)",
            });
        }
        Ok((delta * eps, (1.0 - delta) * eps))
    }
}

/// Which graph the server releases from the posterior.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlinkVariant {
    /// Pairs with posterior > 0.5, unweighted.
    Hard,
    /// Every pair with posterior above the floor, weighted by the posterior. Dense: about
    /// `n²/2` edges at small ε (32 M at n = 8,000) — mind the memory.
    Soft,
    /// The top `⌊Σ p⌋` pairs by posterior, weighted by the posterior.
    Hybrid,
}

impl BlinkVariant {
    fn name(self) -> &'static str {
        match self {
            Self::Hard => "blink-hard",
            Self::Soft => "blink-soft",
            Self::Hybrid => "blink-hybrid",
        }
    }
}

/// What the users send to the Blink server: noisy degrees and randomized rows.
#[derive(Clone, Debug, PartialEq)]
pub struct BlinkReports {
    eps_d: f64,
    eps_a: f64,
    noisy_degrees: Vec<f64>,
    /// Row i is user i's randomized neighbour list.
    bits: BitMatrix,
}

impl BlinkReports {
    /// Reports assembled from their parts (for a server that receives them from elsewhere, and
    /// for tests): the noisy degrees, the ε spent on each part, and the reported ordered pairs
    /// `(i, j)` meaning "user i reports j as a neighbour".
    ///
    /// # Errors
    /// A non-finite degree, a self-pair or an id out of range.
    pub fn from_parts(
        noisy_degrees: Vec<f64>,
        eps_d: Epsilon,
        eps_a: Epsilon,
        reports: &[(u32, u32)],
    ) -> Result<Self> {
        let n = noisy_degrees.len();
        let (eps_d, eps_a) = (eps_d.get(), eps_a.get());
        if let Some(&d) = noisy_degrees.iter().find(|d| !d.is_finite()) {
            return Err(EdgeRefineError::InvalidParam {
                name: "noisy_degree",
                value: d,
                reason: "must be finite",
            });
        }
        let mut bits = BitMatrix::new(n);
        for &(i, j) in reports {
            if i == j || i as usize >= n || j as usize >= n {
                return Err(EdgeRefineError::InvalidParam {
                    name: "report",
                    value: f64::from(i.max(j)),
                    reason: "a reported pair must join two distinct nodes < n",
                });
            }
            bits.set(i as usize, j as usize);
        }
        Ok(Self {
            eps_d,
            eps_a,
            noisy_degrees,
            bits,
        })
    }

    /// Number of users.
    pub(crate) fn num_nodes(&self) -> usize {
        self.noisy_degrees.len()
    }

    /// The Laplace-noised degrees as reported (not clipped).
    pub fn noisy_degrees(&self) -> &[f64] {
        &self.noisy_degrees
    }

    /// Whether user `i` reported `j`.
    ///
    /// # Panics
    /// When an id is out of range.
    pub fn reported(&self, i: u32, j: u32) -> bool {
        self.bits.get(i as usize, j as usize)
    }

    /// Total number of reported ordered pairs.
    pub fn num_reports(&self) -> u64 {
        self.bits.count()
    }

    /// `(ε_d, ε_a)`.
    pub fn eps_split(&self) -> (f64, f64) {
        (self.eps_d, self.eps_a)
    }
}

/// Blink's client side, for all users: Laplace degrees with `ε_d = δ_b·ε` and randomized
/// response with `ε_a = (1 − δ_b)·ε` on every user's full row.
///
/// Flips over the `n(n − 1)` ordered pairs are drawn with [`GeometricSkip`]; the reports are held
/// as a bit matrix (n²/8 bytes), never as floats.
///
/// # Errors
/// Bad ε, `δ_b ∉ (0, 1)`, zero iterations or a soft floor outside (0, 0.5).
///
/// # Privacy
/// Each user's report is ε-edge LDP: `ε_d` for the degree (Laplace, sensitivity 1,
/// Dwork et al. 2006) plus `ε_a` for the row (Warner 1965), by sequential composition (Blink,
/// Theorem 1). Both endpoints report on a pair, so the collection of reports is 2ε-edge DP.
/// The Laplace noise is dp-core's floating-point sampler.
///
/// # Complexity
/// Expected O(n + m + q_a·n²) with `q_a = 1/(1+e^{ε_a})`; memory n²/8 bytes.
pub fn blink_client<R: CryptoRng + ?Sized>(
    graph: &Graph,
    params: &BlinkParams,
    rng: &mut R,
) -> Result<BlinkReports> {
    let (eps_d, eps_a) = params.split()?;
    let n = graph.num_nodes();
    let lap = LaplaceParams::new(1.0 / eps_d).check()?;
    let noisy_degrees: Vec<f64> = graph
        .degrees()
        .map(|d| lap.release(d as f64, rng))
        .collect();
    let rr = RandomizedResponse::binary(eps_a)?;
    let (p_a, keep) = (rr.keep_prob(), rr.keep_trial());
    let mut bits = BitMatrix::new(n);
    for u in 0..n as u32 {
        for &v in graph.neighbors(u) {
            if keep.sample(rng) {
                bits.set(u as usize, v as usize);
            }
        }
    }
    let nn = n as u64;
    let ordered = nn * nn.saturating_sub(1);
    for pos in GeometricSkip::new(ordered, 1.0 - p_a)?.positions(rng) {
        let (i, j) = ordered_pair(pos, nn);
        if !graph.has_edge(i, j) {
            bits.set(i as usize, j as usize);
        }
    }
    Ok(BlinkReports {
        eps_d,
        eps_a,
        noisy_degrees,
        bits,
    })
}

/// Fits the β-model `P[i ~ j] = σ(β_i + β_j)` to a degree sequence by the fixed point of
/// Chatterjee, Diaconis and Sly (2011, §1.2):
/// `β_i ← ln d_i − ln Σ_{j≠i} 1/(e^{−β_j} + e^{β_i})`, Jacobi updates from β = 0, `iterations`
/// times (stopping early only once no β moves by more than 1e-13).
///
/// # Errors
/// [`EdgeRefineError::InvalidParam`] if fewer than 3 nodes, a degree is not finite or not in
/// `(0, n − 1)`, or `iterations == 0`. Blink's server clips noisy degrees to `[1, n − 2]` first.
///
/// # Complexity
/// O(iterations · n²), parallel over nodes, with `e^{−β_j}` precomputed once per iteration.
///
/// # Example
/// ```
/// // Three nodes of degree 1: the symmetric fixed point is β = 0 (every p = 1/2).
/// let beta = edgerefine::baselines::beta_model_fit(&[1.0, 1.0, 1.0], 200)?;
/// assert!(beta.iter().all(|b| b.abs() < 1e-12));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn beta_model_fit(degrees: &[f64], iterations: usize) -> Result<Vec<f64>> {
    let n = degrees.len();
    if n < 3 {
        return Err(EdgeRefineError::InvalidParam {
            name: "n",
            value: n as f64,
            reason: "the beta-model fit needs at least 3 nodes",
        });
    }
    if iterations == 0 {
        return Err(EdgeRefineError::InvalidParam {
            name: "iterations",
            value: 0.0,
            reason: "must be >= 1",
        });
    }
    if let Some(&d) = degrees
        .iter()
        .find(|&&d| !(d.is_finite() && d > 0.0 && d < (n - 1) as f64))
    {
        return Err(EdgeRefineError::InvalidParam {
            name: "degree",
            value: d,
            reason: "beta-model degrees must lie in (0, n - 1)",
        });
    }
    let log_d: Vec<f64> = degrees.iter().map(|d| d.ln()).collect();
    let mut beta = vec![0.0f64; n];
    for _ in 0..iterations {
        let e_neg: Vec<f64> = beta.iter().map(|b| (-b).exp()).collect();
        let next: Vec<f64> = (0..n)
            .into_par_iter()
            .map(|i| {
                let e_i = beta[i].exp();
                let s = inverse_sum(&e_neg, e_i) - 1.0 / (e_neg[i] + e_i);
                log_d[i] - s.ln()
            })
            .collect();
        let change = next
            .iter()
            .zip(&beta)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        beta = next;
        if change < 1e-13 {
            break;
        }
    }
    Ok(beta)
}

/// `Σ_j 1/(e_j + c)` with eight independent accumulators so the loop vectorises.
fn inverse_sum(e: &[f64], c: f64) -> f64 {
    let mut acc = [0.0f64; 8];
    let chunks = e.chunks_exact(8);
    let rest = chunks.remainder();
    for ch in chunks {
        for k in 0..8 {
            acc[k] += 1.0 / (ch[k] + c);
        }
    }
    let tail: f64 = rest.iter().map(|&x| 1.0 / (x + c)).sum();
    acc.iter().sum::<f64>() + tail
}

pub(crate) fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// The server's state after the β-model fit: enough to evaluate the posterior of any pair.
#[derive(Clone, Debug, PartialEq)]
pub struct BlinkPosterior {
    eps_d: f64,
    eps_a: f64,
    beta: Vec<f64>,
    /// `ã_ij ∨ ã_ji` (symmetric).
    any: BitMatrix,
    /// `ã_ij ∧ ã_ji` (symmetric).
    both: BitMatrix,
    soft_floor: f64,
}

/// Blink's server: clips the noisy degrees to `[1, n − 2]`, fits the β-model prior
/// ([`beta_model_fit`], `params.iterations`) and keeps what the posterior needs.
///
/// # Errors
/// Fewer than 3 nodes; bad parameters (see [`blink_client`]).
///
/// # Privacy
/// Post-processing of the reports: no further privacy cost.
///
/// # Complexity
/// O(iterations · n² + #reports); memory 2·n²/8 bytes for the symmetrised report bits.
pub fn blink_server(reports: &BlinkReports, params: &BlinkParams) -> Result<BlinkPosterior> {
    params.split()?;
    let n = reports.num_nodes();
    let hi = n.saturating_sub(2).max(1) as f64;
    let clipped: Vec<f64> = reports
        .noisy_degrees
        .iter()
        .map(|&d| d.clamp(1.0, hi))
        .collect();
    let beta = beta_model_fit(&clipped, params.iterations)?;
    let mut transposed = BitMatrix::new(n);
    for (i, j) in reports.bits.ones() {
        transposed.set(j, i);
    }
    let mut any = transposed.clone();
    let mut both = transposed;
    for (i, (a, b)) in any.rows_mut().zip(both.rows_mut()).enumerate() {
        for (w, (x, y)) in a.iter_mut().zip(b.iter_mut()).enumerate() {
            let r = reports.bits.row(i)[w];
            *x |= r;
            *y &= r;
        }
    }
    Ok(BlinkPosterior {
        eps_d: reports.eps_d,
        eps_a: reports.eps_a,
        beta,
        any,
        both,
        soft_floor: params.soft_floor,
    })
}

impl BlinkPosterior {
    /// The posterior of a *symmetric* report `ã` (one report per pair, mirrored): both
    /// endpoints are taken to have reported `ã_ij`, so `x = ã_ij + ã_ji = 2·ã_ij ∈ {0, 2}`
    /// (the EdgeRefine artifact's reading, see [`super::blink_artifact()`]).
    pub(crate) fn from_symmetric(eps_d: f64, eps_a: f64, beta: Vec<f64>, bits: BitMatrix) -> Self {
        Self {
            eps_d,
            eps_a,
            beta,
            any: bits.clone(),
            both: bits,
            soft_floor: BlinkParams::new(Epsilon::constant(1.0)).soft_floor,
        }
    }
}

/// One row's selected pairs `(j, posterior)` for `j > i`.
pub(crate) type RowPicks = Vec<(u32, f32)>;

impl BlinkPosterior {
    /// Number of nodes.
    pub(crate) fn num_nodes(&self) -> usize {
        self.beta.len()
    }

    /// The fitted β-model parameters.
    pub fn beta(&self) -> &[f64] {
        &self.beta
    }

    /// `x = ã_ij + ã_ji ∈ {0, 1, 2}`.
    ///
    /// # Panics
    /// When an id is out of range.
    pub fn reports_on(&self, i: u32, j: u32) -> u8 {
        let (i, j) = (i as usize, j as usize);
        u8::from(self.any.get(i, j)) + u8::from(self.both.get(i, j))
    }

    fn logit(&self, i: usize, j: usize) -> f64 {
        let x = f64::from(u8::from(self.any.get(i, j)) + u8::from(self.both.get(i, j)));
        self.beta[i] + self.beta[j] + 2.0 * (x - 1.0) * self.eps_a
    }

    /// The prior `σ(β_i + β_j)`.
    ///
    /// # Panics
    /// When an id is out of range.
    pub fn prior(&self, i: u32, j: u32) -> f64 {
        sigmoid(self.beta[i as usize] + self.beta[j as usize])
    }

    /// The posterior `P[a_ij = 1 | ã_ij, ã_ji]` (0 on the diagonal).
    ///
    /// # Panics
    /// When an id is out of range.
    pub fn probability(&self, i: u32, j: u32) -> f64 {
        if i == j {
            return 0.0;
        }
        sigmoid(self.logit(i as usize, j as usize))
    }

    /// Rows of pairs `j > i` whose logit passes `keep`, in row-major order, in parallel.
    pub(crate) fn select_rows(&self, keep: impl Fn(f64) -> bool + Sync) -> Vec<RowPicks> {
        let n = self.num_nodes();
        (0..n)
            .into_par_iter()
            .map(|i| {
                (i + 1..n)
                    .filter_map(|j| {
                        let z = self.logit(i, j);
                        keep(z).then(|| (j as u32, sigmoid(z) as f32))
                    })
                    .collect()
            })
            .collect()
    }

    /// The graph of the selected rows, with the posteriors as weights when `weighted`.
    pub(crate) fn assemble(
        &self,
        rows: Vec<RowPicks>,
        weighted: bool,
    ) -> Result<(Graph, Option<Vec<f32>>)> {
        let total: usize = rows.iter().map(Vec::len).sum();
        let mut b = GraphBuilder::new(self.num_nodes())?;
        b.reserve(total);
        let mut weights = Vec::with_capacity(if weighted { total } else { 0 });
        for (i, row) in rows.into_iter().enumerate() {
            for (j, w) in row {
                b.add_edge(i as u32, j)?;
                if weighted {
                    weights.push(w);
                }
            }
        }
        Ok((b.build()?, weighted.then_some(weights)))
    }

    /// The `⌊Σ_{i<j} p_ij⌋` highest-posterior pairs (ties by row-major order), as rows.
    fn hybrid_rows(&self) -> Vec<RowPicks> {
        let n = self.num_nodes();
        let total: f64 = (0..n)
            .into_par_iter()
            .map(|i| (i + 1..n).map(|j| sigmoid(self.logit(i, j))).sum::<f64>())
            .sum();
        let k = total.floor() as u64;
        if k == 0 {
            return vec![Vec::new(); n];
        }
        // Histogram of logits to find the bucket that holds the k-th largest, then an exact
        // selection among the pairs at or above it.
        const BUCKETS: usize = 1 << 16;
        let (bmin, bmax) = self
            .beta
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
                (a.min(x), b.max(x))
            });
        let lo = 2.0 * bmin - 2.0 * self.eps_a;
        let width = (2.0 * bmax + 2.0 * self.eps_a - lo).max(1e-9);
        let bucket = |z: f64| (((z - lo) / width * BUCKETS as f64) as usize).min(BUCKETS - 1);
        let hist = (0..n)
            .into_par_iter()
            .fold(
                || vec![0u64; BUCKETS],
                |mut h, i| {
                    for j in i + 1..n {
                        h[bucket(self.logit(i, j))] += 1;
                    }
                    h
                },
            )
            .reduce(
                || vec![0u64; BUCKETS],
                |mut a, b| {
                    a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                    a
                },
            );
        let mut above = 0u64;
        let mut cut = 0usize;
        for b in (0..BUCKETS).rev() {
            above += hist[b];
            if above >= k {
                cut = b;
                break;
            }
        }
        let mut candidates: Vec<(f64, u32, u32)> = (0..n)
            .into_par_iter()
            .flat_map_iter(|i| {
                (i + 1..n).filter_map(move |j| {
                    let z = self.logit(i, j);
                    (bucket(z) >= cut).then_some((z, i as u32, j as u32))
                })
            })
            .collect();
        candidates.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then((a.1, a.2).cmp(&(b.1, b.2))));
        candidates.truncate(k as usize);
        candidates.sort_unstable_by_key(|c| (c.1, c.2));
        let mut rows = vec![Vec::new(); n];
        for (z, i, j) in candidates {
            rows[i as usize].push((j, sigmoid(z) as f32));
        }
        rows
    }

    /// Releases the chosen variant.
    ///
    /// # Errors
    /// Only graph-construction errors (none for valid state).
    ///
    /// # Privacy
    /// Post-processing of ε-edge-LDP reports; 2ε-edge DP for the whole release (both endpoints
    /// report on a pair).
    ///
    /// # Complexity
    /// O(n²) time, parallel over rows (hybrid: two extra passes and a histogram). The soft
    /// variant's output has up to n(n − 1)/2 edges.
    pub fn release(&self, variant: BlinkVariant) -> Result<BaselineRelease> {
        let (rows, weighted) = match variant {
            BlinkVariant::Hard => (self.select_rows(|z| z > 0.0), false),
            BlinkVariant::Soft => {
                let f = self.soft_floor;
                let cut = (f / (1.0 - f)).ln();
                (self.select_rows(move |z| z > cut), true)
            }
            BlinkVariant::Hybrid => (self.hybrid_rows(), true),
        };
        let (graph, weights) = self.assemble(rows, weighted)?;
        let eps = self.eps_d + self.eps_a;
        let extra = match variant {
            BlinkVariant::Soft => format!(", floor {:e}", self.soft_floor),
            _ => String::new(),
        };
        Ok(BaselineRelease {
            graph,
            weights,
            name: variant.name(),
            variant: format!(
                "{} (original, Zhu et al. CCS 2023; delta_b={:.3}, eps_d={:.4}, eps_a={:.4}{extra})",
                variant.name(),
                self.eps_d / eps,
                self.eps_d,
                self.eps_a
            ),
            eps: Epsilon::new(eps)?,
            eps_edge: EpsilonBound::new(eps)?.times(2),
        })
    }
}

/// Blink end to end: [`blink_client`], [`blink_server`], [`BlinkPosterior::release`].
///
/// # Errors
/// See the three steps.
///
/// # Privacy
/// ε-edge LDP per user (Blink, Theorem 1); 2ε-edge DP for the release.
///
/// # Complexity
/// O(iterations · n²) time, O(n²/8) bytes besides the output.
///
/// # Example
/// ```
/// use edgerefine::baselines::{blink, BlinkParams, BlinkVariant};
/// let mut rng = dp_core::rng::seeded_rng(2);
/// let g = graph_core::generate::erdos_renyi(200, 0.05, &mut rng)?;
/// let r = blink(&g, BlinkVariant::Hybrid, &BlinkParams::new("2.0".parse()?), &mut rng)?;
/// assert_eq!(r.name, "blink-hybrid");
/// assert_eq!(r.weights.as_ref().map(Vec::len), Some(r.graph.num_edges()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn blink<R: CryptoRng + ?Sized>(
    graph: &Graph,
    variant: BlinkVariant,
    params: &BlinkParams,
    rng: &mut R,
) -> Result<BaselineRelease> {
    let reports = blink_client(graph, params, rng)?;
    blink_server(&reports, params)?.release(variant)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::edge_precision_recall;
    use graph_core::generate::erdos_renyi;
    use rand::RngExt;

    #[test]
    fn posterior_on_a_hand_worked_three_node_case() {
        // n = 3: degrees clip to [1, 1], the β fixed point is 0, every prior is 1/2.
        // ε_a = ln 3 gives p_a = 3/4: posterior 9/10 for x = 2, 1/2 for x = 1, 1/10 for x = 0.
        let eps_a = 3f64.ln();
        let reports = BlinkReports::from_parts(
            vec![5.0, -2.0, 1.0],
            Epsilon::constant(0.5),
            Epsilon::new(eps_a).unwrap(),
            &[(0, 1), (1, 0), (0, 2)],
        )
        .unwrap();
        let params = BlinkParams::new(Epsilon::constant(1.0));
        let post = blink_server(&reports, &params).unwrap();
        assert!(post.beta().iter().all(|b| b.abs() < 1e-12));
        assert_eq!(post.reports_on(0, 1), 2);
        assert_eq!(post.reports_on(2, 0), 1);
        assert_eq!(post.reports_on(1, 2), 0);
        assert!((post.prior(0, 2) - 0.5).abs() < 1e-12);
        assert!((post.probability(0, 1) - 0.9).abs() < 1e-12);
        assert!((post.probability(0, 2) - 0.5).abs() < 1e-12);
        assert!((post.probability(2, 1) - 0.1).abs() < 1e-12);

        let hard = post.release(BlinkVariant::Hard).unwrap();
        assert_eq!(hard.graph.edges().collect::<Vec<_>>(), vec![(0, 1)]);
        assert!(hard.weights.is_none());
        // Σ p = 1.5 → one edge, the best.
        let hybrid = post.release(BlinkVariant::Hybrid).unwrap();
        assert_eq!(hybrid.graph.edges().collect::<Vec<_>>(), vec![(0, 1)]);
        assert!((hybrid.weights.unwrap()[0] - 0.9).abs() < 1e-6);
        let soft = post.release(BlinkVariant::Soft).unwrap();
        assert_eq!(
            soft.graph.edges().collect::<Vec<_>>(),
            vec![(0, 1), (0, 2), (1, 2)]
        );
        let w = soft.weights.unwrap();
        for (got, want) in w.iter().zip([0.9f32, 0.5, 0.1]) {
            assert!((got - want).abs() < 1e-6, "{w:?}");
        }
    }

    #[test]
    fn beta_fixed_point_recovers_a_generated_beta_model() {
        let mut rng = dp_core::rng::seeded_rng(8);
        let n = 400;
        let truth: Vec<f64> = (0..n).map(|_| -2.0 + 2.0 * rng.random::<f64>()).collect();
        let mut degrees = vec![0.0f64; n];
        for i in 0..n {
            for j in i + 1..n {
                if rng.random::<f64>() < sigmoid(truth[i] + truth[j]) {
                    degrees[i] += 1.0;
                    degrees[j] += 1.0;
                }
            }
        }
        let beta = beta_model_fit(&degrees, 200).unwrap();
        // The fit reproduces the degrees exactly (its defining equations) ...
        for i in 0..n {
            let expected: f64 = (0..n)
                .filter(|&j| j != i)
                .map(|j| sigmoid(beta[i] + beta[j]))
                .sum();
            assert!((expected - degrees[i]).abs() < 1e-6, "node {i}");
        }
        // ... and recovers β up to the sampling error (≈ 1/sqrt(degree) ≈ 0.1 here).
        let mae = beta
            .iter()
            .zip(&truth)
            .map(|(a, b)| (a - b).abs())
            .sum::<f64>()
            / n as f64;
        assert!(mae < 0.15, "mean absolute error {mae}");
    }

    #[test]
    fn client_flip_frequencies_within_bands() {
        let mut rng = dp_core::rng::seeded_rng(9);
        let n = 600;
        let g = erdos_renyi(n, 0.02, &mut rng).unwrap();
        let params = BlinkParams {
            degree_share: 0.2,
            ..BlinkParams::new(Epsilon::constant(2.0))
        };
        let reports = blink_client(&g, &params, &mut rng).unwrap();
        let (eps_d, eps_a) = reports.eps_split();
        assert!((eps_d - 0.4).abs() < 1e-12 && (eps_a - 1.6).abs() < 1e-12);
        let p_a = crate::client::keep_probability(Epsilon::new(eps_a).unwrap()).unwrap();
        let directed = 2.0 * g.num_edges() as f64;
        let kept = g
            .edges()
            .map(|(u, v)| u32::from(reports.reported(u, v)) + u32::from(reports.reported(v, u)))
            .sum::<u32>() as f64;
        assert!((kept - p_a * directed).abs() < 5.0 * (directed * p_a * (1.0 - p_a)).sqrt());
        let non = (n * (n - 1)) as f64 - directed;
        let flipped = reports.num_reports() as f64 - kept;
        let q = 1.0 - p_a;
        assert!((flipped - q * non).abs() < 5.0 * (non * q * p_a).sqrt());
        // Laplace(1/ε_d) degree noise: mean ≈ 0, mean |noise| ≈ 1/ε_d = 2.5.
        let noise: Vec<f64> = reports
            .noisy_degrees()
            .iter()
            .zip(g.degrees())
            .map(|(a, d)| a - d as f64)
            .collect();
        let mad = noise.iter().map(|x| x.abs()).sum::<f64>() / n as f64;
        assert!((mad - 2.5).abs() < 5.0 * 2.5 / (n as f64).sqrt(), "{mad}");
    }

    #[test]
    fn hard_release_recovers_a_graph_at_large_eps() {
        let mut rng = dp_core::rng::seeded_rng(10);
        let g = erdos_renyi(300, 0.05, &mut rng).unwrap();
        let r = blink(
            &g,
            BlinkVariant::Hard,
            &BlinkParams::new(Epsilon::constant(12.0)),
            &mut rng,
        )
        .unwrap();
        let pr = edge_precision_recall(&r.graph, &g).unwrap();
        assert!(pr.precision > 0.95 && pr.recall > 0.95, "{pr:?}");
        assert!(r.variant.contains("delta_b=0.100"));
        // The hybrid keeps ⌊Σ p⌋ ≈ E edges when the degrees are accurate (ε_d = 1 here).
        let accurate_degrees = BlinkParams {
            degree_share: 0.5,
            ..BlinkParams::new(Epsilon::constant(2.0))
        };
        let h = blink(&g, BlinkVariant::Hybrid, &accurate_degrees, &mut rng).unwrap();
        let m = g.num_edges() as f64;
        assert!(
            (h.graph.num_edges() as f64 - m).abs() < 0.3 * m,
            "{}",
            h.graph.num_edges()
        );
        let w = h.weights.unwrap();
        assert!(w.iter().all(|&x| x > 0.0 && x < 1.0));
    }

    #[test]
    fn bad_parameters_are_typed_errors() {
        let g = erdos_renyi(30, 0.2, &mut dp_core::rng::seeded_rng(0)).unwrap();
        let mut rng = dp_core::rng::seeded_rng(1);
        // ε ≤ 0 or NaN cannot reach Blink: its type refuses it.
        for bad in [0.0, -1.0, f64::NAN] {
            assert!(Epsilon::new(bad).is_err());
        }
        let p = BlinkParams {
            degree_share: 1.0,
            ..BlinkParams::new(Epsilon::constant(1.0))
        };
        assert!(matches!(
            blink(&g, BlinkVariant::Soft, &p, &mut rng),
            Err(EdgeRefineError::InvalidParam { name: "delta", .. })
        ));
        assert!(matches!(
            beta_model_fit(&[1.0, 2.0, 5.0], 10),
            Err(EdgeRefineError::InvalidParam { name: "degree", .. })
        ));
    }
}
