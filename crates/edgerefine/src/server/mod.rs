//! The server's side: Jaccard similarity on the noisy graph, quantile calibration, and
//! deterministic top-K selection of the released edges.

mod calibrated;
mod coordinate;
mod jaccard;
mod quantile;
mod tiled;

pub use calibrated::{ArtifactCalibration, CalibratedParams, CalibratedRelease, refine_calibrated};
pub use coordinate::TiledRefine;
pub use jaccard::{PopcountKernel, set_popcount_kernel};

use tiled::Counts;
pub use tiled::{
    Backend, RankBuckets, SelectionPlan, Tile, TileContext, TileHistogram, TileSelection,
    TileValues, plan_tiles,
};

use std::time::Instant;

use dp_core::params::Epsilon;
use graph_core::{BitAdjacency, Graph};
use rayon::prelude::*;
use serde::Serialize;

use crate::client::keep_probability;
use crate::error::{EdgeRefineError, Result};
use quantile::{bin_of, dedup_edges, lerp, virtual_index};

/// Largest graph the server accepts: node ids and common-neighbour counts are `u32`.
pub const MAX_NODES: usize = u32::MAX as usize;

/// The largest graph of the paths that hold every pair's 16-bit count in memory: the authors'
/// calibrations ([`refine_calibrated`]) and the all-pairs test oracle.
pub const ALL_PAIRS_MAX_NODES: usize = 65_536;

/// Rows (and columns) per tile of [`TileOptions::default`].
pub const DEFAULT_TILE_ROWS: usize = 1024;

/// Histogram resolution used to locate order statistics (buckets over (0, 1]).
const BUCKETS: usize = 1 << 16;

graph_core::choice_enum! {
    /// How candidates with equal calibrated probability are ordered (`--tie-break`).
    pub enum TieBreak: "tie-break" default Default {
        /// By Jaccard similarity (descending), then a seeded pseudo-random order. Does not
        /// collapse into a star around node 0.
        Default => "default",
        /// As the authors' code: by row-major pair index `(i, then j)` ascending. With few
        /// distinct probabilities this releases a star on the first nodes; kept for parity.
        Reference => "reference",
    }
}

/// Parameters of [`refine`].
#[derive(Clone, Debug, PartialEq)]
pub struct RefineParams {
    /// ε of the client's randomized response (gives `ρ = e^ε/(1+e^ε)`).
    pub eps: Epsilon,
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
    pub fn new(eps: Epsilon, true_edges: u64) -> Self {
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
        if !(2..=254).contains(&self.bins) {
            return Err(EdgeRefineError::InvalidParam {
                name: "bins",
                value: self.bins as f64,
                reason: "must be between 2 and 254",
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
    /// The keep probability `ρ = e^ε/(1+e^ε)` (the paper's ρ).
    pub keep_probability: f64,
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
fn jaccard(c: u32, di: u32, dj: u32) -> f64 {
    // In u64: two degrees of up to u32::MAX − 1 do not overflow.
    let union = u64::from(di) + u64::from(dj) - u64::from(c);
    if union == 0 {
        0.0
    } else {
        f64::from(c) / union as f64
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

/// The number of pairs `n(n−1)/2` of a graph of `n` nodes.
///
/// # Errors
/// [`EdgeRefineError::InvalidParam`] for fewer than two nodes (no pair to refine).
fn pair_count(n: usize) -> Result<u64> {
    let total = (n as u64) * (n as u64).saturating_sub(1) / 2;
    if total == 0 {
        return Err(EdgeRefineError::InvalidParam {
            name: "n",
            value: n as f64,
            reason: "the graph needs at least two nodes",
        });
    }
    Ok(total)
}

/// Marks a bucket whose values must be binned one by one.
const AMBIGUOUS: u8 = u8::MAX;

/// How [`refine_tiled`] cuts the work.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileOptions {
    /// Rows (and columns) per tile (≥ 1); the dense backend holds `4 · tile_rows²` bytes of
    /// counts per thread.
    pub tile_rows: usize,
    /// How common neighbours are counted.
    pub backend: Backend,
}

impl Default for TileOptions {
    fn default() -> Self {
        Self {
            tile_rows: DEFAULT_TILE_ROWS,
            backend: Backend::Auto,
        }
    }
}

/// Progress of a refine: units of work done out of a total, reported to a callback.
pub(crate) struct Meter<'a> {
    report: &'a mut dyn FnMut(usize, usize),
    done: usize,
    total: usize,
}

impl<'a> Meter<'a> {
    pub(crate) fn new(report: &'a mut dyn FnMut(usize, usize), total: usize) -> Self {
        Self {
            report,
            done: 0,
            total,
        }
    }

    /// Adds `k` units and reports.
    pub(crate) fn add(&mut self, k: usize) {
        self.done = (self.done + k).min(self.total);
        (self.report)(self.done, self.total);
    }
}

/// Runs `work` over `items` on the local threads, a batch of `8 × threads` items at a time
/// (fewer idle threads at the end of a batch than with 2 × threads: 7 % faster at n = 10,000),
/// merging each result on the calling thread in item order and adding `weight(item)` to the
/// meter after each batch.
pub(crate) fn run_pass<T: Sync, R: Send>(
    items: &[T],
    meter: &mut Meter<'_>,
    weight: impl Fn(&T) -> usize,
    work: impl Fn(&T) -> R + Sync,
    mut merge: impl FnMut(R),
) {
    let batch = 8 * rayon::current_num_threads().max(1);
    for chunk in items.chunks(batch) {
        let results: Vec<R> = chunk.par_iter().map(&work).collect();
        results.into_iter().for_each(&mut merge);
        meter.add(chunk.iter().map(&weight).sum());
    }
}

/// Bin edges and per-bin counts from the merged passes 1 and 2.
struct Bins {
    edges: Vec<f64>,
    pairs: Vec<u64>,
    noisy: Vec<u64>,
    bucket_bin: Vec<u8>,
}

/// The buckets holding the order statistics of the `bins` quantiles (from pass 1).
fn rank_buckets(hist: &TileHistogram, total: u64, bins: usize) -> (Vec<u64>, RankBuckets) {
    let mut cum = vec![0u64; BUCKETS + 2];
    for b in 0..=BUCKETS {
        cum[b + 1] = cum[b] + hist.pairs[b];
    }
    let bucket_of_rank = |r: u64| cum.partition_point(|&c| c <= r) - 1;
    let mut need: Vec<usize> = (0..=bins)
        .map(|i| virtual_index(total, i as f64 / bins as f64))
        .flat_map(|(lo, _)| [lo, (lo + 1).min(total - 1)])
        .map(bucket_of_rank)
        .collect();
    need.sort_unstable();
    need.dedup();
    (cum, RankBuckets { buckets: need })
}

/// Exact bin edges and counts (numpy's linear quantiles, scikit-learn's edge rule).
fn bins_from(
    hist: &TileHistogram,
    cum: &[u64],
    rank: &RankBuckets,
    vals: &TileValues,
    total: u64,
    bins: usize,
) -> Bins {
    let need = &rank.buckets;
    let bucket_of_rank = |r: u64| cum.partition_point(|&c| c <= r) - 1;
    let value_at = |r: u64| -> f64 {
        let b = bucket_of_rank(r);
        let k = need.binary_search(&b).expect("rank buckets are collected");
        let mut left = r - cum[b];
        for (&bits, &(p, _)) in &vals.values[k] {
            if left < p {
                return f64::from_bits(bits);
            }
            left -= p;
        }
        unreachable!("bucket counts agree between passes")
    };
    let raw: Vec<f64> = (0..=bins)
        .map(|i| virtual_index(total, i as f64 / bins as f64))
        .map(|(lo, t)| lerp(value_at(lo), value_at((lo + 1).min(total - 1)), t))
        .collect();
    let edges = dedup_edges(&raw);
    let nbins = edges.len().saturating_sub(1).max(1);
    let inner: &[f64] = if edges.len() >= 2 {
        &edges[1..edges.len() - 1]
    } else {
        &[]
    };
    // A non-empty bucket holding an inner edge is a rank bucket (an edge lies between two
    // adjacent order statistics, so a bucket strictly between them is empty); every other
    // bucket lies inside one bin, because buckets are monotone in the value.
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
        if hist.pairs[b] == 0 {
            continue;
        }
        if bb == AMBIGUOUS {
            let k = need
                .binary_search(&b)
                .expect("a non-empty bucket holding an edge is a rank bucket");
            for (&bits, &(p, e)) in &vals.values[k] {
                let bin = bin_of(inner, f64::from_bits(bits));
                bin_pairs[bin] += p;
                bin_noisy[bin] += e;
            }
        } else {
            bin_pairs[usize::from(bb)] += hist.pairs[b];
            bin_noisy[usize::from(bb)] += hist.noisy[b];
        }
    }
    Bins {
        edges,
        pairs: bin_pairs,
        noisy: bin_noisy,
        bucket_bin,
    }
}

/// What both servers decide from the per-bin counts before the selection pass: the calibrated
/// probability `L` of each bin, `K`, the groups of bins of equal `L` with how much of each is
/// taken per flag ([`decide`]), what the fully taken groups contribute (`got`) and how many
/// candidates the partially taken ones still take (`take`).
struct Selection {
    bin_probability: Vec<f64>,
    k_target: u64,
    group_of_bin: Vec<usize>,
    decision: [Vec<(u8, u64)>; 2],
    got: [u64; 2],
    take: [usize; 2],
}

impl Selection {
    fn plan(params: &RefineParams, rho: f64, bin_pairs: &[u64], bin_noisy: &[u64]) -> Self {
        let bin_probability: Vec<f64> = bin_pairs
            .iter()
            .zip(bin_noisy)
            .map(|(&p, &e)| if p == 0 { 0.5 } else { e as f64 / p as f64 })
            .collect();
        let k_target = (params.k * params.true_edges as f64).floor() as u64;
        let k_real_want = round_half_even(rho * k_target as f64);
        let want = [
            k_target - k_real_want.min(k_target),
            k_real_want.min(k_target),
        ];
        let (group_of_bin, decision) = decide(&bin_probability, bin_pairs, bin_noisy, want);
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
        Self {
            bin_probability,
            k_target,
            group_of_bin,
            decision,
            got,
            take,
        }
    }
}

/// Groups of bins with equal `L` in descending order, and per flag how much of each is taken.
fn decide(
    bin_probability: &[f64],
    bin_pairs: &[u64],
    bin_noisy: &[u64],
    want: [u64; 2],
) -> (Vec<usize>, [Vec<(u8, u64)>; 2]) {
    let mut levels: Vec<f64> = bin_probability.to_vec();
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
    let mut decision = [
        vec![(0u8, 0u64); levels.len()],
        vec![(0u8, 0u64); levels.len()],
    ];
    for (flag, dec) in decision.iter_mut().enumerate() {
        let mut left = want[flag];
        for (g, slot) in dec.iter_mut().enumerate() {
            let avail: u64 = (0..bin_pairs.len())
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
                *slot = (1, avail);
                left -= avail;
            } else {
                *slot = (2, left);
                left = 0;
            }
        }
    }
    (group_of_bin, decision)
}

/// [`refine`] in tiles of row pairs, reporting `progress(tiles done, total)` over the three
/// passes (total = 3 × the number of tiles). The release is the same as [`refine`]'s for every
/// tile size and backend.
///
/// Pass 1 merges the tiles' [`TileHistogram`]s (exact counts per bucket of width 2⁻¹⁶); pass 2
/// merges the tiles' [`TileValues`] of the buckets holding an order statistic (exact quantile
/// edges); pass 3 merges the tiles' [`TileSelection`]s (pairs of fully taken groups, bounded
/// heaps of the best candidates of the partially taken ones).
///
/// # Errors
/// As [`refine`]; `tile_rows == 0` is [`EdgeRefineError::InvalidParam`].
///
/// # Privacy
/// As [`refine`]: post-processing.
///
/// # Complexity
/// Time: three passes over the tiles, each O(n³/64) word operations with the dense backend, or
/// O(Σ_tiles wedges of the tile's rows) with the sparse one (plus the pairs of similarity 0 when
/// they are candidates). With the dense backend, where the counts of all tiles fit in 2 GiB
/// (`2 · Σ tile sizes` bytes, about 46,000 nodes) and half the free memory, pass 1 keeps them
/// and passes 2 and 3 read them back, so the common neighbours are counted once. Elsewhere
/// pass 1 also counts every distinct positive similarity exactly (a hash table, at most 2²²
/// values), which makes pass 2 unnecessary: two passes over the pairs instead of three
/// (n = 10,000, ε = 3, counts not kept: 2.05 s instead of 2.81 s). Memory: the
/// noisy graph, its packed rows (`n²/8` bytes, dense backend only), those kept counts, and per
/// tile in flight (8 × threads at a time) `4 · tile_rows²` bytes of counts (dense) or
/// `5 · tile_rows` bytes (sparse), `16 · (2¹⁶ + 1)` bytes of histogram, the distinct values of
/// at most `2(B + 1)` buckets, and at most `K` candidates per flag; plus the release (`K`
/// edges). No buffer of all pairs but the kept counts within their cap.
pub fn refine_tiled(
    noisy: &Graph,
    params: &RefineParams,
    options: &TileOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Release> {
    let n = noisy.num_nodes();
    if options.tile_rows == 0 {
        return Err(EdgeRefineError::InvalidParam {
            name: "tile_rows",
            value: 0.0,
            reason: "must be at least 1",
        });
    }
    // Validate before building the packed rows.
    TiledRefine::new(n, params)?;
    let t0 = Instant::now();
    let ctx = TileContext::new(noisy, options.backend);
    refine_tiles(&ctx, params, options.tile_rows, t0, progress)
}

/// The three passes of [`refine_tiled`] over a prepared [`TileContext`]; `t0` is when the
/// context started being built (its time is reported as `jaccard_s`).
fn refine_tiles(
    ctx: &TileContext<'_>,
    params: &RefineParams,
    tile_rows: usize,
    t0: Instant,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Release> {
    let tiles = plan_tiles(ctx.num_nodes(), tile_rows);
    let passes = Passes::for_context(ctx, &tiles);
    refine_tiles_with(ctx, params, &tiles, passes, t0, progress)
}

/// How the local tiled refine saves work between its passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Passes {
    /// Pass 1 keeps the dense counts for passes 2 and 3 ([`keeps_counts`]).
    keep_counts: bool,
    /// Pass 1 counts every distinct positive similarity exactly, so that pass 2 is skipped
    /// when there are at most this many (per tile and merged; otherwise pass 2 runs).
    exact_values: Option<usize>,
}

impl Passes {
    /// Kept counts where they fit; else exact values (a pass over all pairs saved).
    fn for_context(ctx: &TileContext<'_>, tiles: &[Tile]) -> Self {
        let keep_counts = keeps_counts(ctx, tiles);
        Self {
            keep_counts,
            exact_values: (!keep_counts).then_some(EXACT_VALUES_CAP),
        }
    }
}

/// Most distinct positive similarities the local refine counts exactly in pass 1 (per tile
/// and merged; about 48 bytes each in the table): beyond, pass 2 runs as on a cluster.
const EXACT_VALUES_CAP: usize = 1 << 22;

fn refine_tiles_with(
    ctx: &TileContext<'_>,
    params: &RefineParams,
    tiles: &[Tile],
    passes: Passes,
    t0: Instant,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Release> {
    let n = ctx.num_nodes();
    let mut coordinator = TiledRefine::new(n, params)?;
    let mut meter = Meter::new(progress, 3 * tiles.len());
    let keep = passes.keep_counts;
    let mut cache: Vec<Option<Vec<u16>>> = Vec::new();
    let cap = passes.exact_values.unwrap_or(0);
    let mut exact: Option<tiled::ExactValues> = passes.exact_values.map(|_| Default::default());
    let index: Vec<usize> = (0..tiles.len()).collect();
    let jaccard_s = t0.elapsed().as_secs_f64();

    let t1 = Instant::now();
    let mut hist = TileHistogram::empty();
    run_pass(
        &index,
        &mut meter,
        |_| 1,
        |&i| {
            if keep {
                let mut slot = None;
                let h = tiles[i].histogram_with(ctx, Counts::Keep(&mut slot));
                (h, slot, None)
            } else if passes.exact_values.is_some() {
                let (h, v) = tiles[i].histogram_exact(ctx, cap);
                (h, None, v)
            } else {
                (tiles[i].histogram_with(ctx, Counts::Compute), None, None)
            }
        },
        |(h, slot, values)| {
            hist.merge(&h);
            if keep {
                cache.push(slot);
            }
            // Merge the tile's exact values, or give up on them (pass 2 then runs).
            match (exact.as_mut(), values) {
                (Some(all), Some(v)) => {
                    for (k, (p, e)) in v {
                        let c = all.entry(k).or_default();
                        c.0 += p;
                        c.1 += e;
                    }
                    if all.len() > cap {
                        exact = None;
                    }
                }
                (Some(_), None) => exact = None,
                _ => {}
            }
        },
    );
    let source = |i: usize| match cache.get(i).and_then(|c| c.as_deref()) {
        Some(kept) => Counts::Cached(kept),
        None => Counts::Compute,
    };
    let rank = coordinator.rank_buckets(&hist)?;
    let vals = match exact.take() {
        Some(all) => {
            // Pass 2 from the exact values: no second pass over the pairs.
            meter.add(tiles.len());
            TileValues::from_exact(&rank, &all, &hist)
        }
        None => {
            let mut vals = TileValues::empty(&rank);
            run_pass(
                &index,
                &mut meter,
                |_| 1,
                |&i| tiles[i].values_with(ctx, &rank, source(i)),
                |v| vals.merge(v),
            );
            vals
        }
    };
    drop(hist);
    let plan = coordinator.selection_plan(&vals)?;
    drop(vals);
    let binning_s = t1.elapsed().as_secs_f64();

    let t2 = Instant::now();
    let mut sel: Option<TileSelection> = None;
    run_pass(
        &index,
        &mut meter,
        |_| 1,
        |&i| tiles[i].select_with(ctx, &plan, source(i)),
        |s| match &mut sel {
            Some(acc) => acc.merge(s),
            None => sel = Some(s),
        },
    );
    drop(cache);
    let mut release = coordinator.finish(sel)?;
    release.timings = Timings {
        jaccard_s,
        binning_s,
        select_s: t2.elapsed().as_secs_f64(),
    };
    Ok(release)
}

/// Most bytes of common-neighbour counts [`refine_tiles`] keeps between its passes (the
/// all-pairs server kept `n²` bytes up to 65,536 nodes; this is that at about 46,000 nodes).
const COUNT_CACHE_MAX_BYTES: u64 = 2 << 30;

/// Whether [`refine_tiles`] keeps the dense backend's counts of pass 1 for passes 2 and 3 (so
/// each pair's common neighbours are counted once): dense backend, counts below 2¹⁶ (n ≤
/// 65,537), and the `2 · Σ tile sizes` bytes within [`COUNT_CACHE_MAX_BYTES`] and half the
/// memory this process can still allocate.
fn keeps_counts(ctx: &TileContext<'_>, tiles: &[Tile]) -> bool {
    if !ctx.is_dense() || ctx.num_nodes() > usize::from(u16::MAX) + 2 {
        return false;
    }
    let bytes: u64 = tiles
        .iter()
        .map(|t| 2 * (t.rows.len() * t.cols.len()) as u64)
        .sum();
    let budget = graph_core::limits::MemoryBudget::detect()
        .bytes()
        .map_or(COUNT_CACHE_MAX_BYTES, |b| {
            (b / 2).min(COUNT_CACHE_MAX_BYTES)
        });
    bytes <= budget
}

/// Refines a noisy graph into a sparse release (the EdgeRefine server): the tiled server
/// ([`refine_tiled`], default [`TileOptions`], no progress report) at every size. Its release
/// equals, byte for byte, that of the all-pairs server that served graphs up to
/// [`ALL_PAIRS_MAX_NODES`] nodes before (kept as the test oracle).
///
/// 1. `J(i,j) = |N(i)∩N(j)| / |N(i)∪N(j)|` for all pairs on the noisy graph (bit-packed AND +
///    popcount, or sorted neighbour lists on sparse graphs; 0 when the union is empty).
/// 2. `B` quantile bins over all pairs: edges are numpy's linear-interpolated quantiles at
///    `i/B`, exact over all pairs (no subsampling); edges within 1e-8 of their predecessor are
///    dropped (scikit-learn's rule); a value goes to the bin counting the inner edges `<=` it.
/// 3. `L(bin)` = noisy edges / pairs in the bin.
/// 4. `K = ⌊k·E⌋`; the best `round(ρK)` noisy edges and the best `K − round(ρK)` noisy
///    non-edges by `L` (descending), ties ordered by [`TieBreak`].
///
/// # Errors
/// Invalid ε, `k ∉ (0, 1]`, `B < 2`, fewer than two nodes; [`EdgeRefineError::TooLarge`] above
/// [`MAX_NODES`].
///
/// # Privacy
/// Post-processing of an ε-edge-LDP output: no further privacy cost, provided `E` is public
/// (as in the paper) or itself released privately (see [`crate::perturb_with_count`]).
///
/// # Complexity
/// O(n³/64) word operations (dense). Memory: see [`refine_tiled`] (the packed rows, `n²/8`
/// bytes, dense backend only, the kept 16-bit counts where they fit (`n²` bytes, at most
/// 2 GiB), plus O(tile) per thread plus the release).
pub fn refine(noisy: &Graph, params: &RefineParams) -> Result<Release> {
    refine_with_progress(noisy, params, &mut |_, _| {})
}

/// [`refine`], reporting `progress(done, total)` in units of work after each batch of it, on
/// the calling thread: tiles of the three passes (see [`refine_tiled`]). `done` rises to
/// `total`; the release is [`refine`]'s.
///
/// # Errors
/// As [`refine`].
///
/// # Privacy
/// As [`refine`]: post-processing.
///
/// # Complexity
/// As [`refine`]; the callback runs at most 3 × tiles times.
///
/// ```
/// use edgerefine::{RefineParams, perturb, refine_with_progress};
/// use graph_core::generate::erdos_renyi;
///
/// let mut rng = dp_core::rng::seeded_rng(7);
/// let g = erdos_renyi(300, 0.05, &mut rng)?;
/// let noisy = perturb(&g, "2".parse()?, &mut rng)?;
/// let mut last = (0, 1);
/// let r = refine_with_progress(&noisy, &RefineParams::new("2".parse()?, g.num_edges() as u64), &mut |d, t| {
///     assert!(d >= last.0, "progress never goes back");
///     last = (d, t);
/// })?;
/// assert_eq!(last.0, last.1, "the last report is the total");
/// assert_eq!(r.graph.num_edges() as u64, r.k_target);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn refine_with_progress(
    noisy: &Graph,
    params: &RefineParams,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Release> {
    refine_tiled(noisy, params, &TileOptions::default(), progress)
}

/// [`refine_with_progress`] over the noisy graph's packed rows (a dense report read with
/// [`crate::report::Report::to_bit_adjacency`]), without its edge list: the tiled server's dense
/// backend. The release is [`refine`]'s on the graph with these rows, byte for byte.
///
/// # Errors
/// As [`refine`].
///
/// # Privacy
/// As [`refine`]: post-processing.
///
/// # Complexity
/// As [`refine`] with the dense backend; memory: the rows given (`n²/8` bytes) plus the kept
/// counts where they fit (see [`refine_tiled`]) or O(tile) per thread, plus the release.
///
/// ```
/// use edgerefine::{RefineParams, perturb, refine, refine_bits_with_progress};
/// use graph_core::generate::erdos_renyi;
///
/// let mut rng = dp_core::rng::seeded_rng(7);
/// let g = erdos_renyi(300, 0.05, &mut rng)?;
/// let noisy = perturb(&g, "2".parse()?, &mut rng)?;
/// let params = RefineParams::new("2".parse()?, g.num_edges() as u64);
/// let from_bits = refine_bits_with_progress(&noisy.bit_adjacency(), &params, &mut |_, _| {})?;
/// assert_eq!(from_bits.graph, refine(&noisy, &params)?.graph);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn refine_bits_with_progress(
    noisy: &BitAdjacency,
    params: &RefineParams,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Release> {
    TiledRefine::new(noisy.num_nodes(), params)?;
    let t0 = Instant::now();
    let ctx = TileContext::from_bits(noisy);
    refine_tiles(&ctx, params, DEFAULT_TILE_ROWS, t0, progress)
}

/// A candidate of a partially taken group: (rank, i, j); a smaller rank is better.
type Cand = ((u64, u64), u32, u32);

/// Python's `round`: to the nearest integer, halves to even.
fn round_half_even(x: f64) -> u64 {
    let r = x.round_ties_even();
    if r < 0.0 { 0 } else { r as u64 }
}

/// The default tie-break order of a refine seeded with `seed`: pair index `idx` ranks by
/// `tie_mixer(seed).at(idx)`, the [`dp_core::rng::Mixer`] of purpose `edgerefine/tie-break`
/// (a seeded order of public candidates after post-processing, not noise).
pub(crate) fn tie_mixer(seed: u64) -> dp_core::rng::Mixer {
    dp_core::rng::Seeds::new(seed).mixer("edgerefine/tie-break")
}

#[cfg(any(test, feature = "oracle"))]
mod oracle;
/// The all-pairs server that served graphs up to [`ALL_PAIRS_MAX_NODES`] nodes before the tiled
/// server did (feature `oracle`): the test oracle of [`refine`], same release byte for byte.
#[cfg(feature = "oracle")]
pub use oracle::refine_oracle as refine_all_pairs;
#[cfg(test)]
mod tests;
