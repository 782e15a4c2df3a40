//! The server under the authors' artifact's other calibrations
//! (`experiment_utils.DEFAULT_METHOD_COMBOS`): the Jaccard similarity calibrated by scaling
//! (`simple`), isotonic regression, two fitted beta densities, temperature scaling or quantile
//! bins (`histogram`, the paper's), and the Adamic–Adar score with quantile bins — each followed
//! by the artifact's selection (`graph_sampling_with_ratio`): the `round(ρK)` noisy edges and
//! `K − round(ρK)` noisy non-edges of highest calibrated probability, ties by pair index.
//!
//! This is the artifact's code path, kept as a comparison: all pairs in memory (at most
//! [`ALL_PAIRS_MAX_NODES`] nodes), its Jaccard scaled by ½ (which moves the beta and
//! temperature fits), and the authors' tie-break. The production server is [`crate::refine`];
//! with [`ArtifactCalibration::Histogram`] both give the same release under
//! [`crate::TieBreak::Reference`] (tested), up to bin edges within 1e-8 of each other.

mod fit;
mod special;

use dp_core::params::Epsilon;
use std::collections::HashMap;
use std::time::Instant;

use graph_core::{BitAdjacency, Graph};
use rayon::prelude::*;

use super::ALL_PAIRS_MAX_NODES;
use super::jaccard::{common_neighbors, pair_index};
use super::{jaccard, pair_count, round_half_even};
use crate::client::keep_probability;
use crate::error::{EdgeRefineError, Result};
use fit::Grouped;

graph_core::choice_enum! {
    /// A (score, calibration) combination of the authors' artifact
    /// (`experiment_utils.DEFAULT_METHOD_COMBOS`), as `--calibration` names it.
    pub enum ArtifactCalibration: "calibration" {
        /// Jaccard divided by its largest value (`jaccard` + `simple`): ranks as the Jaccard.
        Simple => "jaccard-simple",
        /// Jaccard under isotonic regression of the noisy-edge indicator (`jaccard` + `isotonic`).
        Isotonic => "jaccard-isotonic",
        /// Jaccard under the posterior of two beta densities fitted to a 70 % split
        /// (`jaccard` + `beta`).
        Beta => "jaccard-beta",
        /// Jaccard under temperature scaling of its logit (`jaccard` + `temperature`).
        Temperature => "jaccard-temperature",
        /// Jaccard under quantile bins (`jaccard` + `histogram`): the paper's calibration.
        Histogram => "jaccard-histogram",
        /// Adamic–Adar score under quantile bins (`adamic_adar` + `histogram`).
        AdamicAdar => "adamic-adar-histogram",
    }
}

/// Parameters of [`refine_calibrated`].
#[derive(Clone, Debug, PartialEq)]
pub struct CalibratedParams {
    /// ε of the client's randomized response (gives `ρ = e^ε/(1+e^ε)`).
    pub eps: Epsilon,
    /// Sampling rate: `K = ⌊k·E⌋` edges.
    pub k: f64,
    /// The true edge count `E` (public, as in the paper).
    pub true_edges: u64,
    /// The score and calibration.
    pub calibration: ArtifactCalibration,
    /// Quantile bins of the histogram calibrations (the artifact: 10).
    pub bins: usize,
    /// Seed of the beta calibration's training split (post-processing, not a privacy seed).
    pub seed: u64,
}

impl CalibratedParams {
    /// The artifact's settings: `k = 0.01`, 10 bins, seed 0.
    pub fn new(eps: Epsilon, true_edges: u64, calibration: ArtifactCalibration) -> Self {
        Self {
            eps,
            k: 0.01,
            true_edges,
            calibration,
            bins: 10,
            seed: 0,
        }
    }
}

/// A release of [`refine_calibrated`] and what was fitted.
#[derive(Clone, Debug)]
pub struct CalibratedRelease {
    /// The released graph (`k_real + k_fake` edges).
    pub graph: Graph,
    /// Target `K = ⌊k·E⌋`.
    pub k_target: u64,
    /// Edges taken from noisy edges.
    pub k_real: u64,
    /// Edges taken from noisy non-edges.
    pub k_fake: u64,
    /// Distinct calibrated probabilities (ties beyond them go by pair index).
    pub levels: usize,
    /// What the calibration fitted, in words (temperature, beta shapes, bin edges, blocks).
    pub fitted: String,
    /// Wall-clock seconds of the whole refine.
    pub seconds: f64,
}

/// Refines a noisy graph as the artifact's `build_processed_adj` does under `params.calibration`.
///
/// # Errors
/// [`EdgeRefineError::InvalidParam`] for ε ≤ 0 or not finite, `k ∉ (0, 1]`, bins outside
/// 2..=254, fewer than two nodes, or a beta fit that does not exist;
/// [`EdgeRefineError::TooLarge`] above [`ALL_PAIRS_MAX_NODES`] nodes.
///
/// # Privacy
/// Post-processing of the ε-edge-LDP noisy graph: the release is ε-edge LDP.
///
/// # Complexity
/// O(n³/64) word operations for the Jaccard scores, O(Σ_v deg(v)²) for Adamic–Adar; memory
/// 14 bytes per pair (scores, groups) — about 400 MB at 7,650 nodes.
///
/// # Example
/// ```
/// use edgerefine::{ArtifactCalibration, CalibratedParams, refine_calibrated};
/// use graph_core::Graph;
/// let noisy = Graph::from_edges(6, &[(0, 1), (0, 2), (1, 2), (2, 3), (3, 4), (4, 5), (3, 5)]).unwrap();
/// let mut p = CalibratedParams::new("1".parse().unwrap(), 7, ArtifactCalibration::Isotonic);
/// p.k = 1.0;
/// let r = refine_calibrated(&noisy, &p).unwrap();
/// assert_eq!(r.k_target, 7);
/// assert_eq!(r.graph.num_edges() as u64, r.k_real + r.k_fake);
/// ```
pub fn refine_calibrated(noisy: &Graph, params: &CalibratedParams) -> Result<CalibratedRelease> {
    let t0 = Instant::now();
    let rho = keep_probability(params.eps)?;
    if !params.k.is_finite() || params.k <= 0.0 || params.k > 1.0 {
        return Err(EdgeRefineError::InvalidParam {
            name: "k",
            value: params.k,
            reason: "must be in (0, 1]",
        });
    }
    if !(2..=254).contains(&params.bins) {
        return Err(EdgeRefineError::InvalidParam {
            name: "bins",
            value: params.bins as f64,
            reason: "must be between 2 and 254",
        });
    }
    let n = noisy.num_nodes();
    if n > ALL_PAIRS_MAX_NODES {
        return Err(EdgeRefineError::TooLarge {
            n,
            max: ALL_PAIRS_MAX_NODES,
        });
    }
    let total = pair_count(n)?;
    let bits = noisy.bit_adjacency();
    let scores = match params.calibration {
        ArtifactCalibration::AdamicAdar => adamic_adar(noisy),
        _ => half_jaccard(noisy, &bits),
    };
    let (groups, group_of_pair) = group(n, &scores, &bits);
    drop(scores);
    let (prob, fitted) = calibrate(&groups, params)?;

    // Levels of equal probability, highest first; pairs of one level go by index.
    let mut levels: Vec<f64> = prob.clone();
    if levels.iter().any(|p| p.is_nan()) {
        return Err(EdgeRefineError::InvalidParam {
            name: "calibrated probability",
            value: f64::NAN,
            reason: "the calibration gave NaN",
        });
    }
    levels.sort_unstable_by(|a, b| b.total_cmp(a));
    levels.dedup();
    let level_of_group: Vec<usize> = prob
        .iter()
        .map(|p| levels.partition_point(|l| l > p))
        .collect();
    // Pairs available per flag (0: non-edge, 1: noisy edge) and level.
    let mut avail = [vec![0u64; levels.len()], vec![0u64; levels.len()]];
    for (gi, &l) in level_of_group.iter().enumerate() {
        avail[1][l] += groups.edges[gi];
        avail[0][l] += groups.pairs[gi] - groups.edges[gi];
    }
    let k_target = (params.k * params.true_edges as f64).floor() as u64;
    let real_want = round_half_even(rho * k_target as f64);
    let fake_want = k_target - real_want.min(k_target);
    let noisy_edges = noisy.num_edges() as u64;
    let want = [
        fake_want.min(total - noisy_edges),
        real_want.min(k_target).min(noisy_edges),
    ];
    // Per flag and level: how many of its pairs to take (all, or the first ones by index).
    let mut quota = [vec![0u64; levels.len()], vec![0u64; levels.len()]];
    for flag in 0..2 {
        let mut left = want[flag];
        for (q, &a) in quota[flag].iter_mut().zip(&avail[flag]) {
            *q = a.min(left);
            left -= *q;
        }
    }
    let mut edges = Vec::with_capacity((want[0] + want[1]) as usize);
    for i in 0..n {
        let row = bits.row(i);
        let base = pair_index(n, i, i + 1);
        for j in i + 1..n {
            let flag = usize::from(row[j / 64] >> (j % 64) & 1 == 1);
            let l = level_of_group[group_of_pair[base + j - i - 1] as usize];
            if quota[flag][l] > 0 {
                quota[flag][l] -= 1;
                edges.push((i as u32, j as u32));
            }
        }
    }
    let graph = Graph::from_edges(n, &edges)?;
    Ok(CalibratedRelease {
        graph,
        k_target,
        k_real: want[1],
        k_fake: want[0],
        levels: levels.len(),
        fitted,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// The calibrated probability of every group, and what was fitted.
fn calibrate(g: &Grouped, params: &CalibratedParams) -> Result<(Vec<f64>, String)> {
    if g.all_zero() {
        return Ok((
            vec![0.0; g.values.len()],
            "every score is 0: all probabilities 0".into(),
        ));
    }
    Ok(match params.calibration {
        ArtifactCalibration::Simple => (fit::simple(g), "scaled by the largest score".into()),
        ArtifactCalibration::Isotonic => {
            let p = fit::isotonic(g);
            let mut blocks = p.clone();
            blocks.dedup();
            let n = blocks.len();
            (p, format!("{n} isotonic blocks"))
        }
        ArtifactCalibration::Beta => {
            let mut rng = dp_core::rng::seeded_rng(params.seed);
            let (p, f) = fit::beta(g, &mut rng)?;
            let what = f.map_or("one label only: all probabilities 0".into(), |f| {
                format!(
                    "beta edges (a, b) = ({:.4}, {:.4}), non-edges ({:.4}, {:.4}), prior {:.5}",
                    f.pos.0, f.pos.1, f.neg.0, f.neg.1, f.prior
                )
            });
            (p, what)
        }
        ArtifactCalibration::Temperature => {
            let (p, t) = fit::temperature(g);
            let what = t.map_or("one label only: all probabilities 0".into(), |t| {
                format!("temperature T = {t:.4}")
            });
            (p, what)
        }
        ArtifactCalibration::Histogram | ArtifactCalibration::AdamicAdar => {
            let (p, edges) = fit::histogram(g, params.bins);
            let what = format!(
                "{} bins, edges {edges:.4?}",
                edges.len().saturating_sub(1).max(1)
            );
            (p, what)
        }
    })
}

/// Half the Jaccard similarity of every pair, as the artifact's `compute_jaccard_matrix`
/// (row-major upper triangle).
fn half_jaccard(g: &Graph, bits: &BitAdjacency) -> Vec<f64> {
    let n = g.num_nodes();
    let counts = common_neighbors(bits, &mut |_| {});
    let degree: Vec<u32> = g.degrees().map(|d| d as u32).collect();
    let mut out = vec![0.0; counts.len()];
    for i in 0..n {
        let base = pair_index(n, i, i + 1);
        for j in i + 1..n {
            let idx = base + j - i - 1;
            out[idx] = 0.5 * jaccard(u32::from(counts[idx]), degree[i], degree[j]);
        }
    }
    out
}

/// The Adamic–Adar score `Σ_{v ∈ N(i) ∩ N(j)} 1/ln deg(v)` (over `deg(v) > 1`) of every pair,
/// summed in ascending `v` as the artifact does (row-major upper triangle).
///
/// # Complexity
/// O(Σ_v deg(v)²), parallel over rows.
fn adamic_adar(g: &Graph) -> Vec<f64> {
    let n = g.num_nodes();
    let w: Vec<f64> = (0..n as u32)
        .map(|v| {
            let d = g.degree(v);
            if d > 1 { 1.0 / (d as f64).ln() } else { 0.0 }
        })
        .collect();
    let mut out = vec![0.0; n * n.saturating_sub(1) / 2];
    let mut rows: Vec<(usize, &mut [f64])> = Vec::with_capacity(n);
    let mut rest: &mut [f64] = &mut out;
    for i in 0..n {
        let (row, tail) = rest.split_at_mut(n - 1 - i);
        rows.push((i, row));
        rest = tail;
    }
    rows.into_par_iter().for_each(|(i, row)| {
        for &v in g.neighbors(i as u32) {
            let wv = w[v as usize];
            if wv == 0.0 {
                continue;
            }
            let nv = g.neighbors(v);
            let from = nv.partition_point(|&j| j as usize <= i);
            for &j in &nv[from..] {
                row[j as usize - i - 1] += wv;
            }
        }
    });
    out
}

/// The distinct scores with their pair and noisy-edge counts, and each pair's group.
fn group(n: usize, scores: &[f64], bits: &BitAdjacency) -> (Grouped, Vec<u32>) {
    let mut index: HashMap<u64, u32> = HashMap::new();
    let mut counts: Vec<(f64, u64, u64)> = Vec::new();
    let mut of_pair = vec![0u32; scores.len()];
    for i in 0..n {
        let row = bits.row(i);
        let base = pair_index(n, i, i + 1);
        for j in i + 1..n {
            let idx = base + j - i - 1;
            let s = scores[idx];
            let gi = *index.entry(s.to_bits()).or_insert_with(|| {
                counts.push((s, 0, 0));
                (counts.len() - 1) as u32
            });
            let c = &mut counts[gi as usize];
            c.1 += 1;
            c.2 += row[j / 64] >> (j % 64) & 1;
            of_pair[idx] = gi;
        }
    }
    let mut order: Vec<u32> = (0..counts.len() as u32).collect();
    order.sort_unstable_by(|&a, &b| counts[a as usize].0.total_cmp(&counts[b as usize].0));
    let mut rank = vec![0u32; counts.len()];
    for (r, &gi) in order.iter().enumerate() {
        rank[gi as usize] = r as u32;
    }
    of_pair.par_iter_mut().for_each(|g| *g = rank[*g as usize]);
    let grouped = Grouped {
        values: order.iter().map(|&gi| counts[gi as usize].0).collect(),
        pairs: order.iter().map(|&gi| counts[gi as usize].1).collect(),
        edges: order.iter().map(|&gi| counts[gi as usize].2).collect(),
    };
    (grouped, of_pair)
}

#[cfg(test)]
mod tests;
