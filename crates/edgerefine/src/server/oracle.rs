//! The all-pairs server as it was before tiling (16-bit counts of all pairs in memory, at most
//! 65,536 nodes): kept as the test oracle of the tiled [`super::refine`].

use std::collections::{BTreeMap, BinaryHeap};
use std::ops::Range;
use std::time::Instant;

use graph_core::{BitAdjacency, Graph, GraphBuilder};

use super::jaccard::{common_neighbors, pair_index};
use super::quantile::{bin_of, dedup_edges, lerp, virtual_index};
use super::{
    ALL_PAIRS_MAX_NODES, AMBIGUOUS, BUCKETS, Cand, Meter, RefineParams, Release, Selection,
    TieBreak, Timings, bucket, jaccard, run_pass, tie_mixer,
};
use crate::client::keep_probability;
use crate::error::{EdgeRefineError, Result};

/// What one chunk of rows contributes: fully taken pairs, and the best candidates per flag.
type ChunkSelection = (Vec<(u32, u32)>, [BinaryHeap<Cand>; 2]);

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
        let di = self.degree[i];
        for j in i + 1..self.n {
            let idx = base + (j - i - 1);
            let s = jaccard(u32::from(self.counts[idx]), di, self.degree[j]);
            let e = row[j / 64] >> (j % 64) & 1 == 1;
            f(j, s, e, idx);
        }
    }
}

/// Distinct values of the buckets that hold an order statistic: value bits → (pairs, noisy edges).
type Collected = BTreeMap<u64, (u64, u64)>;

/// Bin edges, per-bin counts and the per-bucket bin table (passes 1 and 2).
struct Binning {
    edges: Vec<f64>,
    pairs: Vec<u64>,
    noisy: Vec<u64>,
    /// Bin of every value in bucket `b`, or [`AMBIGUOUS`] when the bucket holds a bin edge.
    bucket_bin: Vec<u8>,
}

fn binning(
    pairs: &Pairs<'_>,
    chunks: &[Range<usize>],
    bins: usize,
    meter: &mut Meter<'_>,
) -> Binning {
    let total = (pairs.n as u64) * (pairs.n as u64 - 1) / 2;
    // Pass 1: per bucket, pairs in the low 32 bits and noisy edges in the high 32 bits
    // (n ≤ 65,536 gives fewer than 2^31 pairs).
    let weight = |rows: &Range<usize>| rows.clone().map(|i| pairs.n - 1 - i).sum::<usize>();
    let mut hist = vec![0u64; BUCKETS + 1];
    run_pass(
        chunks,
        meter,
        weight,
        |rows| {
            let mut h = vec![0u64; BUCKETS + 1];
            for i in rows.clone() {
                pairs.row(i, |_, s, e, _| h[bucket(s)] += 1 + (u64::from(e) << 32));
            }
            h
        },
        |h| hist.iter_mut().zip(h).for_each(|(x, y)| *x += y),
    );
    let count = |b: usize| hist[b] & 0xFFFF_FFFF;
    let noisy_in = |b: usize| hist[b] >> 32;
    let mut cum = vec![0u64; BUCKETS + 2];
    for b in 0..=BUCKETS {
        cum[b + 1] = cum[b] + count(b);
    }
    let bucket_of_rank = |r: u64| cum.partition_point(|&c| c <= r) - 1;

    // Order statistics needed by numpy's linear quantiles.
    let qs: Vec<(u64, f64)> = (0..=bins)
        .map(|i| virtual_index(total, i as f64 / bins as f64))
        .collect();
    let mut need: Vec<usize> = qs
        .iter()
        .flat_map(|&(lo, _)| [lo, (lo + 1).min(total - 1)])
        .map(bucket_of_rank)
        .collect();
    need.sort_unstable();
    need.dedup();
    // Pass 2: the distinct values (with multiplicities) of those buckets.
    let mut collected = vec![Collected::new(); need.len()];
    run_pass(
        chunks,
        meter,
        weight,
        |rows| {
            let mut acc = vec![Collected::new(); need.len()];
            for i in rows.clone() {
                pairs.row(i, |_, s, e, _| {
                    if let Ok(k) = need.binary_search(&bucket(s)) {
                        let c = acc[k].entry(s.to_bits()).or_default();
                        c.0 += 1;
                        c.1 += u64::from(e);
                    }
                });
            }
            acc
        },
        |acc| {
            for (x, y) in collected.iter_mut().zip(acc) {
                for (k, (p, e)) in y {
                    let c = x.entry(k).or_default();
                    c.0 += p;
                    c.1 += e;
                }
            }
        },
    );
    let value_at = |r: u64| -> f64 {
        let b = bucket_of_rank(r);
        let k = need.binary_search(&b).expect("rank buckets are collected");
        let mut left = r - cum[b];
        for (&bits, &(p, _)) in &collected[k] {
            if left < p {
                return f64::from_bits(bits);
            }
            left -= p;
        }
        unreachable!("bucket counts agree between passes")
    };
    let raw: Vec<f64> = qs
        .iter()
        .map(|&(lo, t)| lerp(value_at(lo), value_at((lo + 1).min(total - 1)), t))
        .collect();
    let edges = dedup_edges(&raw);
    let nbins = edges.len().saturating_sub(1).max(1);
    let inner: &[f64] = if edges.len() >= 2 {
        &edges[1..edges.len() - 1]
    } else {
        &[]
    };

    // Per-bin counts. A non-empty bucket holding an inner edge is a rank bucket (an edge lies
    // between two adjacent order statistics, so a bucket strictly between them is empty); every
    // other bucket lies inside one bin, because buckets are monotone in the value.
    let edge_buckets: Vec<usize> = inner.iter().map(|&e| bucket(e)).collect();
    let mut bin_pairs = vec![0u64; nbins];
    let mut bin_noisy = vec![0u64; nbins];
    let bucket_bin: Vec<u8> = (0..=BUCKETS)
        .map(|b| {
            if edge_buckets.contains(&b) {
                AMBIGUOUS
            } else {
                edge_buckets.iter().filter(|&&eb| eb < b).count() as u8
            }
        })
        .collect();
    for (b, &bb) in bucket_bin.iter().enumerate() {
        let straddles = bb == AMBIGUOUS;
        if count(b) == 0 {
            continue;
        }
        if straddles {
            let k = need
                .binary_search(&b)
                .expect("a non-empty bucket holding an edge is a rank bucket");
            for (&bits, &(p, e)) in &collected[k] {
                let bin = bin_of(inner, f64::from_bits(bits));
                bin_pairs[bin] += p;
                bin_noisy[bin] += e;
            }
        } else {
            let bin = usize::from(bb);
            bin_pairs[bin] += count(b);
            bin_noisy[bin] += noisy_in(b);
        }
    }
    Binning {
        edges,
        pairs: bin_pairs,
        noisy: bin_noisy,
        bucket_bin,
    }
}

/// The all-pairs server as it served graphs up to [`ALL_PAIRS_MAX_NODES`] nodes before the
/// tiled server replaced it: every pair's common-neighbour count in memory (`n²` bytes, 16-bit
/// counts). Kept as the test oracle of [`super::refine`] (byte-identical releases, tested) and
/// for the benchmark that compares the two (feature `oracle`).
///
/// # Errors
/// As [`super::refine`], and [`EdgeRefineError::TooLarge`] above [`ALL_PAIRS_MAX_NODES`].
///
/// # Complexity
/// O(n³/64) word operations, `n²` bytes of counts plus the packed rows.
#[cfg_attr(not(feature = "oracle"), allow(unreachable_pub))]
pub fn refine_oracle(noisy: &Graph, params: &RefineParams) -> Result<Release> {
    refine_oracle_with(noisy, params, &mut |_, _| {})
}

/// [`refine_oracle`] reporting progress in pairs (see [`super::refine_with_progress`]).
pub(crate) fn refine_oracle_with(
    noisy: &Graph,
    params: &RefineParams,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Release> {
    if noisy.num_nodes() > ALL_PAIRS_MAX_NODES {
        return Err(EdgeRefineError::TooLarge {
            n: noisy.num_nodes(),
            max: ALL_PAIRS_MAX_NODES,
        });
    }
    refine_oracle_bits(&noisy.bit_adjacency(), params, progress)
}

/// [`refine_oracle_with`] over packed rows (degrees from their popcounts).
pub(crate) fn refine_oracle_bits(
    bits: &BitAdjacency,
    params: &RefineParams,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Release> {
    params.validate()?;
    let n = bits.num_nodes();
    if n > ALL_PAIRS_MAX_NODES {
        return Err(EdgeRefineError::TooLarge {
            n,
            max: ALL_PAIRS_MAX_NODES,
        });
    }
    let rho = keep_probability(params.eps)?;
    let total = super::pair_count(n)?;

    let t0 = Instant::now();
    let mut meter = Meter::new(progress, 4 * total as usize);
    let counts = common_neighbors(bits, &mut |pairs| meter.add(pairs));
    let degree: Vec<u32> = (0..n).map(|u| bits.degree(u) as u32).collect();
    let pairs = Pairs {
        n,
        counts: &counts,
        degree: &degree,
        bits,
    };
    let jaccard_s = t0.elapsed().as_secs_f64();

    let t1 = Instant::now();
    let chunks = row_chunks(n, (4 * rayon::current_num_threads()).max(64));
    let Binning {
        edges: bin_edges,
        pairs: bin_pairs,
        noisy: bin_noisy,
        bucket_bin,
    } = binning(&pairs, &chunks, params.bins, &mut meter);
    let inner: &[f64] = if bin_edges.len() >= 2 {
        &bin_edges[1..bin_edges.len() - 1]
    } else {
        &[]
    };
    let binning_s = t1.elapsed().as_secs_f64();

    // Selection: groups of bins with equal L, in descending L.
    let t2 = Instant::now();
    let Selection {
        bin_probability,
        k_target,
        group_of_bin,
        decision,
        mut got,
        take,
    } = Selection::plan(params, rho, &bin_pairs, &bin_noisy);
    // Pass 3: the fully taken groups, and for the (at most one) partial group per flag the best
    // `take` candidates, kept in a bounded heap per chunk of rows.
    let tie = tie_mixer(params.seed);
    let rank = |s: f64, idx: usize| -> (u64, u64) {
        match params.tie_break {
            TieBreak::Reference => (idx as u64, 0),
            // Similarities are >= 0, so the bit patterns order like the values.
            TieBreak::Default => (u64::MAX - s.to_bits(), tie.at(idx as u64)),
        }
    };
    let mut parts: Vec<ChunkSelection> = Vec::with_capacity(chunks.len());
    run_pass(
        &chunks,
        &mut meter,
        |rows| rows.clone().map(|i| n - 1 - i).sum::<usize>(),
        |rows| {
            let mut taken = Vec::new();
            let mut best: [BinaryHeap<Cand>; 2] = [BinaryHeap::new(), BinaryHeap::new()];
            for i in rows.clone() {
                pairs.row(i, |j, s, e, idx| {
                    let f = usize::from(e);
                    let bb = bucket_bin[bucket(s)];
                    let bin = if bb == AMBIGUOUS {
                        bin_of(inner, s)
                    } else {
                        usize::from(bb)
                    };
                    match decision[f][group_of_bin[bin]].0 {
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
        },
        |part| parts.push(part),
    );
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
        keep_probability: rho,
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
fn row_chunks(n: usize, parts: usize) -> Vec<Range<usize>> {
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
