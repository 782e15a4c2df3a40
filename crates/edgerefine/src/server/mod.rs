//! The server's side: Jaccard similarity on the noisy graph, quantile calibration, and
//! deterministic top-K selection of the released edges.

mod jaccard;
mod quantile;

use std::collections::BinaryHeap;
use std::time::Instant;

use graph_core::{BitAdjacency, Graph, GraphBuilder};
use rayon::prelude::*;
use serde::Serialize;

use crate::client::keep_probability;
use crate::error::{EdgeRefineError, Result};
use jaccard::{common_neighbors, pair_index};
use quantile::{bin_of, dedup_edges, lerp, virtual_index};

/// Largest graph the all-pairs server accepts (common-neighbour counts are stored as `u16`).
pub const MAX_NODES: usize = 65_536;

/// Histogram resolution used to locate order statistics (buckets over (0, 1]).
const BUCKETS: usize = 1 << 16;

/// How candidates with equal calibrated probability are ordered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TieBreak {
    /// By Jaccard similarity (descending), then a seeded pseudo-random order. Does not collapse
    /// into a star around node 0.
    #[default]
    Default,
    /// As the authors' code: by row-major pair index `(i, then j)` ascending. With few distinct
    /// probabilities this releases a star on the first nodes; kept for parity.
    Reference,
}

/// Parameters of [`refine`].
#[derive(Clone, Debug, PartialEq)]
pub struct RefineParams {
    /// ε of the client's randomized response (gives `ρ = e^ε/(1+e^ε)`).
    pub eps: f64,
    /// Sampling rate: the release has `K = ⌊k·E⌋` edges.
    pub k: f64,
    /// The true edge count `E` (public in the paper; see [`crate::perturb_with_count`] for a noisy one).
    pub true_edges: u64,
    /// Number of quantile bins `B` (≥ 2).
    pub bins: usize,
    /// Tie-break order.
    pub tie_break: TieBreak,
    /// Seed of the default tie-break's pseudo-random order (data-independent, not a privacy seed).
    pub seed: u64,
}

impl RefineParams {
    /// The paper's defaults for a given ε and E: `k = 0.01`, `B = 10`, default tie-break, seed 0.
    pub fn new(eps: f64, true_edges: u64) -> Self {
        Self {
            eps,
            k: 0.01,
            true_edges,
            bins: 10,
            tie_break: TieBreak::Default,
            seed: 0,
        }
    }

    fn validate(&self) -> Result<()> {
        keep_probability(self.eps)?;
        if !self.k.is_finite() || self.k <= 0.0 || self.k > 1.0 {
            return Err(EdgeRefineError::InvalidParam {
                name: "k",
                value: self.k,
                reason: "must be in (0, 1]",
            });
        }
        if self.bins < 2 {
            return Err(EdgeRefineError::InvalidParam {
                name: "bins",
                value: self.bins as f64,
                reason: "at least 2 bins are needed",
            });
        }
        Ok(())
    }
}

/// Wall-clock seconds of the server's steps.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Timings {
    /// Bit matrix and common-neighbour counts.
    pub jaccard_s: f64,
    /// Quantile bin edges and per-bin counts.
    pub binning_s: f64,
    /// Top-K selection and graph build.
    pub select_s: f64,
}

/// The refined release and how it was obtained.
#[derive(Clone, Debug)]
pub struct Release {
    /// The released graph (`k_real + k_fake` edges).
    pub graph: Graph,
    /// Target `K = ⌊k·E⌋`.
    pub k_target: u64,
    /// Edges taken from noisy edges (`round(ρK)`, half to even, or fewer if not available).
    pub k_real: u64,
    /// Edges taken from noisy non-edges.
    pub k_fake: u64,
    /// `ρ = e^ε/(1+e^ε)`.
    pub rho: f64,
    /// Kept quantile bin edges (length = bins + 1).
    pub bin_edges: Vec<f64>,
    /// Calibrated probability `L` of each bin (noisy edges / pairs; 0.5 for an empty bin).
    pub bin_probability: Vec<f64>,
    /// Pairs per bin.
    pub bin_pairs: Vec<u64>,
    /// Noisy edges per bin.
    pub bin_noisy_edges: Vec<u64>,
    /// Step timings.
    pub timings: Timings,
}

/// Jaccard similarity from a common-neighbour count and the two degrees (0 for an empty union).
#[inline]
fn jaccard(c: u16, di: u32, dj: u32) -> f64 {
    let union = di + dj - u32::from(c);
    if union == 0 {
        0.0
    } else {
        f64::from(c) / f64::from(union)
    }
}

/// Bucket of a similarity: 0 for exactly 0, then `1 + ⌊J·BUCKETS⌋` (monotone in `J`).
#[inline]
fn bucket(j: f64) -> usize {
    if j <= 0.0 {
        0
    } else {
        1 + ((j * BUCKETS as f64) as usize).min(BUCKETS - 1)
    }
}

#[derive(Clone)]
struct Hist {
    pairs: Vec<u64>,
    edges: Vec<u64>,
    min: Vec<f64>,
    max: Vec<f64>,
}

impl Hist {
    fn new() -> Self {
        Self {
            pairs: vec![0; BUCKETS + 1],
            edges: vec![0; BUCKETS + 1],
            min: vec![f64::INFINITY; BUCKETS + 1],
            max: vec![f64::NEG_INFINITY; BUCKETS + 1],
        }
    }

    fn merge(mut self, o: Self) -> Self {
        for b in 0..=BUCKETS {
            self.pairs[b] += o.pairs[b];
            self.edges[b] += o.edges[b];
            self.min[b] = self.min[b].min(o.min[b]);
            self.max[b] = self.max[b].max(o.max[b]);
        }
        self
    }
}

/// Everything the passes over all pairs need.
struct Pairs<'a> {
    n: usize,
    counts: &'a [u16],
    degree: &'a [u32],
    bits: &'a BitAdjacency,
}

impl Pairs<'_> {
    /// Calls `f(j, similarity, is_noisy_edge, pair_index)` for every `j > i`.
    #[inline]
    fn row(&self, i: usize, mut f: impl FnMut(usize, f64, bool, usize)) {
        let base = pair_index(self.n, i, i + 1);
        let row = self.bits.row(i);
        for j in i + 1..self.n {
            let idx = base + (j - i - 1);
            let s = jaccard(self.counts[idx], self.degree[i], self.degree[j]);
            let e = row[j / 64] >> (j % 64) & 1 == 1;
            f(j, s, e, idx);
        }
    }
}

/// Refines a noisy graph into a sparse release (the EdgeRefine server).
///
/// 1. `J(i,j) = |N(i)∩N(j)| / |N(i)∪N(j)|` for all pairs on the noisy graph (bit-packed AND +
///    popcount, parallel; 0 when the union is empty).
/// 2. `B` quantile bins over all pairs: edges are numpy's linear-interpolated quantiles at
///    `i/B`, exact over all pairs (no subsampling); edges within 1e-8 of their predecessor are
///    dropped (scikit-learn's rule); a value goes to the bin counting the inner edges `<=` it.
/// 3. `L(bin)` = noisy edges / pairs in the bin.
/// 4. `K = ⌊k·E⌋`; the best `round(ρK)` noisy edges and the best `K − round(ρK)` noisy
///    non-edges by `L` (descending), ties ordered by [`TieBreak`].
///
/// # Errors
/// Invalid ε, `k ∉ (0, 1]`, `B < 2`; [`EdgeRefineError::TooLarge`] above [`MAX_NODES`].
///
/// # Privacy
/// Post-processing of an ε-edge-LDP output: no further privacy cost, provided `E` is public
/// (as in the paper) or itself released privately (see [`crate::perturb_with_count`]).
///
/// # Complexity
/// O(n³/64) word operations for the similarities, then O(n²) passes; memory `n²` bytes
/// (16-bit counts) plus `n²/8` bytes of bits.
pub fn refine(noisy: &Graph, params: &RefineParams) -> Result<Release> {
    params.validate()?;
    let n = noisy.num_nodes();
    if n > MAX_NODES {
        return Err(EdgeRefineError::TooLarge { n, max: MAX_NODES });
    }
    let rho = keep_probability(params.eps)?;
    let total = (n as u64) * (n as u64).saturating_sub(1) / 2;
    if total == 0 {
        return Err(EdgeRefineError::InvalidParam {
            name: "n",
            value: n as f64,
            reason: "the graph needs at least two nodes",
        });
    }

    let t0 = Instant::now();
    let bits = noisy.bit_adjacency();
    let counts = common_neighbors(&bits);
    let degree: Vec<u32> = noisy.degrees().map(|d| d as u32).collect();
    let pairs = Pairs {
        n,
        counts: &counts,
        degree: &degree,
        bits: &bits,
    };
    let jaccard_s = t0.elapsed().as_secs_f64();

    // Pass 1: bucket histogram with edge counts, minima and maxima.
    let t1 = Instant::now();
    let chunks = row_chunks(n, 4 * rayon::current_num_threads());
    let hist = chunks
        .par_iter()
        .map(|rows| {
            let mut h = Hist::new();
            for i in rows.clone() {
                pairs.row(i, |_, s, e, _| {
                    let b = bucket(s);
                    h.pairs[b] += 1;
                    h.edges[b] += u64::from(e);
                    h.min[b] = h.min[b].min(s);
                    h.max[b] = h.max[b].max(s);
                });
            }
            h
        })
        .reduce(Hist::new, Hist::merge);

    // Order statistics needed by the quantiles.
    let qs: Vec<(u64, f64)> = (0..=params.bins)
        .map(|i| virtual_index(total, i as f64 / params.bins as f64))
        .collect();
    let mut ranks: Vec<u64> = qs
        .iter()
        .flat_map(|&(lo, _)| [lo, (lo + 1).min(total - 1)])
        .collect();
    ranks.sort_unstable();
    ranks.dedup();
    let mut cum = vec![0u64; BUCKETS + 2];
    for b in 0..=BUCKETS {
        cum[b + 1] = cum[b] + hist.pairs[b];
    }
    let bucket_of_rank = |r: u64| cum.partition_point(|&c| c <= r) - 1;
    let spread = |b: usize| hist.min[b] < hist.max[b];
    let mut need: Vec<usize> = ranks
        .iter()
        .map(|&r| bucket_of_rank(r))
        .filter(|&b| spread(b))
        .collect();
    need.sort_unstable();
    need.dedup();
    // Pass 2: the values of the buckets that hold an order statistic and are not constant.
    let mut collected: Vec<Vec<(f64, bool)>> = vec![Vec::new(); need.len()];
    if !need.is_empty() {
        let parts: Vec<Vec<Vec<(f64, bool)>>> = chunks
            .par_iter()
            .map(|rows| {
                let mut acc = vec![Vec::new(); need.len()];
                for i in rows.clone() {
                    pairs.row(i, |_, s, e, _| {
                        if let Ok(k) = need.binary_search(&bucket(s)) {
                            acc[k].push((s, e));
                        }
                    });
                }
                acc
            })
            .collect();
        for p in parts {
            for (k, mut v) in p.into_iter().enumerate() {
                collected[k].append(&mut v);
            }
        }
        for v in &mut collected {
            v.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
        }
    }
    let value_at = |r: u64| -> f64 {
        let b = bucket_of_rank(r);
        match need.binary_search(&b) {
            Ok(k) => collected[k][(r - cum[b]) as usize].0,
            Err(_) => hist.min[b],
        }
    };
    let raw_edges: Vec<f64> = qs
        .iter()
        .map(|&(lo, t)| lerp(value_at(lo), value_at((lo + 1).min(total - 1)), t))
        .collect();
    let bin_edges = dedup_edges(&raw_edges);
    let nbins = bin_edges.len().saturating_sub(1).max(1);
    let inner: &[f64] = if bin_edges.len() >= 2 {
        &bin_edges[1..bin_edges.len() - 1]
    } else {
        &[]
    };

    // Per-bin counts: whole buckets where the bin is unambiguous, values otherwise.
    let mut bin_pairs = vec![0u64; nbins];
    let mut bin_noisy = vec![0u64; nbins];
    for b in 0..=BUCKETS {
        if hist.pairs[b] == 0 {
            continue;
        }
        let (lo_bin, hi_bin) = (bin_of(inner, hist.min[b]), bin_of(inner, hist.max[b]));
        if lo_bin == hi_bin {
            bin_pairs[lo_bin] += hist.pairs[b];
            bin_noisy[lo_bin] += hist.edges[b];
        } else {
            let k = need.binary_search(&b);
            let values: Vec<(f64, bool)> = match k {
                Ok(k) => collected[k].clone(),
                Err(_) => {
                    // A bucket straddling an edge without an order statistic in it: gather it.
                    let mut v = Vec::new();
                    for i in 0..n {
                        pairs.row(i, |_, s, e, _| {
                            if bucket(s) == b {
                                v.push((s, e));
                            }
                        });
                    }
                    v
                }
            };
            for (s, e) in values {
                let bi = bin_of(inner, s);
                bin_pairs[bi] += 1;
                bin_noisy[bi] += u64::from(e);
            }
        }
    }
    let bin_probability: Vec<f64> = bin_pairs
        .iter()
        .zip(&bin_noisy)
        .map(|(&p, &e)| if p == 0 { 0.5 } else { e as f64 / p as f64 })
        .collect();
    let binning_s = t1.elapsed().as_secs_f64();

    // Selection: groups of bins with equal L, in descending L.
    let t2 = Instant::now();
    let mut levels: Vec<f64> = bin_probability.clone();
    levels.sort_unstable_by(|a, b| b.total_cmp(a));
    levels.dedup();
    let group_of_bin: Vec<usize> = bin_probability
        .iter()
        .map(|l| {
            levels
                .iter()
                .position(|x| x == l)
                .expect("level of its own bin")
        })
        .collect();
    let k_target = (params.k * params.true_edges as f64).floor() as u64;
    let k_real_want = round_half_even(rho * k_target as f64);
    let want = [
        k_target - k_real_want.min(k_target),
        k_real_want.min(k_target),
    ];
    // decision[flag][group]: 0 = none, 1 = all, 2 = partial (with how many).
    let mut decision = [
        vec![(0u8, 0u64); levels.len()],
        vec![(0u8, 0u64); levels.len()],
    ];
    for flag in 0..2 {
        let mut left = want[flag];
        for (g, _) in levels.iter().enumerate() {
            let avail: u64 = (0..nbins)
                .filter(|&b| group_of_bin[b] == g)
                .map(|b| {
                    if flag == 1 {
                        bin_noisy[b]
                    } else {
                        bin_pairs[b] - bin_noisy[b]
                    }
                })
                .sum();
            if left == 0 {
                break;
            }
            if avail <= left {
                decision[flag][g] = (1, avail);
                left -= avail;
            } else {
                decision[flag][g] = (2, left);
                left = 0;
            }
        }
    }
    // Pass 3: the fully taken groups, and for the (at most one) partial group per flag the best
    // `take` candidates, kept in a bounded heap per chunk of rows.
    let mut got = [0u64; 2];
    let mut take = [0usize; 2];
    for flag in 0..2 {
        for d in &decision[flag] {
            match d.0 {
                1 => got[flag] += d.1,
                2 => take[flag] += d.1 as usize,
                _ => {}
            }
        }
    }
    let rank = |s: f64, idx: usize| -> (u64, u64) {
        match params.tie_break {
            TieBreak::Reference => (idx as u64, 0),
            // Similarities are >= 0, so the bit patterns order like the values.
            TieBreak::Default => (
                u64::MAX - s.to_bits(),
                splitmix64(params.seed ^ (idx as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            ),
        }
    };
    let parts: Vec<ChunkSelection> = chunks
        .par_iter()
        .map(|rows| {
            let mut taken = Vec::new();
            let mut best: [BinaryHeap<Cand>; 2] = [BinaryHeap::new(), BinaryHeap::new()];
            for i in rows.clone() {
                pairs.row(i, |j, s, e, idx| {
                    let f = usize::from(e);
                    let g = group_of_bin[bin_of(inner, s)];
                    match decision[f][g].0 {
                        1 => taken.push((i as u32, j as u32)),
                        2 => {
                            let c = (rank(s, idx), i as u32, j as u32);
                            let h = &mut best[f];
                            if h.len() < take[f] {
                                h.push(c);
                            } else if h.peek().is_some_and(|worst| c < *worst) {
                                h.pop();
                                h.push(c);
                            }
                        }
                        _ => {}
                    }
                });
            }
            (taken, best)
        })
        .collect();
    let mut edges: Vec<(u32, u32)> = Vec::new();
    let mut cands: [Vec<Cand>; 2] = [Vec::new(), Vec::new()];
    for (t, [h0, h1]) in parts {
        edges.extend(t);
        cands[0].extend(h0);
        cands[1].extend(h1);
    }
    for flag in 0..2 {
        let c = &mut cands[flag];
        c.sort_unstable();
        let t = take[flag].min(c.len());
        edges.extend(c[..t].iter().map(|x| (x.1, x.2)));
        got[flag] += t as u64;
    }
    let mut b = GraphBuilder::new(n)?;
    b.reserve(edges.len());
    for (u, v) in edges {
        b.add_edge(u, v)?;
    }
    let graph = b.build()?;
    let select_s = t2.elapsed().as_secs_f64();
    Ok(Release {
        graph,
        k_target,
        k_real: got[1],
        k_fake: got[0],
        rho,
        bin_edges,
        bin_probability,
        bin_pairs,
        bin_noisy_edges: bin_noisy,
        timings: Timings {
            jaccard_s,
            binning_s,
            select_s,
        },
    })
}

/// Splits rows `0..n` into about `parts` ranges holding similar numbers of pairs
/// (row `i` has `n − 1 − i` pairs).
fn row_chunks(n: usize, parts: usize) -> Vec<std::ops::Range<usize>> {
    let total = n * n.saturating_sub(1) / 2;
    let per = total.div_ceil(parts.max(1)).max(1);
    let mut out = Vec::new();
    let (mut start, mut acc) = (0, 0);
    for i in 0..n {
        acc += n - 1 - i;
        if acc >= per {
            out.push(start..i + 1);
            start = i + 1;
            acc = 0;
        }
    }
    if start < n {
        out.push(start..n);
    }
    out
}

/// A candidate of a partially taken group: (rank, i, j); a smaller rank is better.
type Cand = ((u64, u64), u32, u32);

/// What one chunk of rows contributes: fully taken pairs, and the best candidates per flag.
type ChunkSelection = (Vec<(u32, u32)>, [BinaryHeap<Cand>; 2]);

/// Python's `round`: to the nearest integer, halves to even.
fn round_half_even(x: f64) -> u64 {
    let r = x.round_ties_even();
    if r < 0.0 { 0 } else { r as u64 }
}

/// SplitMix64: a fixed pseudo-random permutation of 64-bit keys (the default tie-break order).
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests;
