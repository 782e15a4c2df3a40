//! Tiles of row pairs: the upper triangle of the pair space cut into blocks, each an independent
//! unit of work with a mergeable result, for the three passes of the server (histogram, exact
//! values of the rank buckets, selection).
//!
//! A tile's input is the [`Tile`] (its row and column ranges), read access to the noisy graph
//! through a [`TileContext`], and, for the later passes, what the merged results of the earlier
//! passes decided ([`RankBuckets`], [`SelectionPlan`]). Its result is a [`TileHistogram`],
//! [`TileValues`] or [`TileSelection`]; results of the same pass merge with `merge` in any order
//! into the same value. [`super::refine_tiled`] runs the passes on the local threads; a cluster
//! can run the same tiles elsewhere.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;

use serde::{Deserialize, Serialize};

use graph_core::{BitAdjacency, Graph};

use super::jaccard::{block_counts, pair_index};
use super::quantile::bin_of;
use super::{AMBIGUOUS, BUCKETS, Cand, TieBreak, bucket, jaccard};

graph_core::choice_enum! {
    /// How a [`TileContext`] counts common neighbours.
    pub enum Backend: "tile backend" default Auto {
        /// [`Backend::Sparse`] when the graph's wedges are fewer than the bit operations of the
        /// dense kernel, [`Backend::Dense`] otherwise.
        Auto => "auto",
        /// Bit-packed rows (`n²/8` bytes), AND + popcount over every pair of the tile.
        Dense => "dense",
        /// Sorted neighbour lists: only pairs with a common neighbour or an edge are visited,
        /// the others (similarity 0, no edge) are counted in bulk.
        Sparse => "sparse",
    }
}

/// Read access to the noisy graph shared by all tiles: its degrees, and either its packed rows
/// (dense backend) or the graph's neighbour lists (sparse backend).
#[derive(Debug)]
pub struct TileContext<'a> {
    n: usize,
    degree: Vec<u32>,
    rows: Rows<'a>,
}

/// How a [`TileContext`] reads the noisy graph.
#[derive(Debug)]
enum Rows<'a> {
    /// Bit-packed rows (the dense backend).
    Bits(Cow<'a, BitAdjacency>),
    /// Sorted neighbour lists (the sparse backend).
    Lists(Cow<'a, Graph>),
}

impl<'a> TileContext<'a> {
    /// Prepares the shared input of the tiles of `graph`.
    ///
    /// # Complexity
    /// O(n + m); memory `n²/8` bytes of packed rows when the backend is dense, `4n` bytes of
    /// degrees otherwise.
    pub fn new(graph: &'a Graph, backend: Backend) -> Self {
        Self::with(Cow::Borrowed(graph), backend)
    }

    /// [`TileContext::new`] owning its graph: for a worker that keeps the context between
    /// calls (a process of a cluster).
    ///
    /// # Complexity
    /// As [`TileContext::new`].
    pub fn owned(graph: Graph, backend: Backend) -> TileContext<'static> {
        TileContext::with(Cow::Owned(graph), backend)
    }

    /// The dense backend over packed rows already built (a dense report read with
    /// [`crate::report::Report::to_bit_adjacency`]): no edge list is needed.
    ///
    /// # Complexity
    /// O(n²/64) to count the degrees; no further memory but `4n` bytes of degrees.
    pub(crate) fn from_bits(bits: &'a BitAdjacency) -> Self {
        let n = bits.num_nodes();
        Self {
            n,
            degree: (0..n).map(|u| bits.degree(u) as u32).collect(),
            rows: Rows::Bits(Cow::Borrowed(bits)),
        }
    }

    fn with(graph: Cow<'a, Graph>, backend: Backend) -> Self {
        let n = graph.num_nodes();
        let degree: Vec<u32> = graph.degrees().map(|d| d as u32).collect();
        let dense = match backend {
            Backend::Dense => true,
            Backend::Sparse => false,
            Backend::Auto => {
                // Wedges Σ d² against n·n/2·n/64 word operations (with a factor 8 for the
                // random access of the sparse path).
                let wedges: f64 = degree.iter().map(|&d| f64::from(d) * f64::from(d)).sum();
                let words = (n as f64) * (n as f64) / 2.0 * (n as f64 / 64.0).ceil();
                8.0 * wedges > words
            }
        };
        let rows = if dense {
            Rows::Bits(Cow::Owned(graph.bit_adjacency()))
        } else {
            Rows::Lists(graph)
        };
        Self { n, degree, rows }
    }

    /// Number of nodes.
    pub fn num_nodes(&self) -> usize {
        self.n
    }

    /// Whether the dense (bit-packed) backend is used.
    pub fn is_dense(&self) -> bool {
        matches!(self.rows, Rows::Bits(_))
    }
}

/// A block of the strict upper triangle of the pair space: the pairs `(i, j)` with `i ∈ rows`,
/// `j ∈ cols` and `i < j`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Tile {
    /// Row range.
    pub rows: Range<usize>,
    /// Column range.
    pub cols: Range<usize>,
}

/// Cuts the pairs of `n` nodes into square tiles of `tile_rows` rows and columns (the last ones
/// smaller), the blocks `(a, b)` with `a <= b` in row-major order. Every pair `i < j < n` lies in
/// exactly one tile.
///
/// # Panics
/// When `tile_rows == 0`.
///
/// # Complexity
/// `(n / tile_rows)² / 2` tiles.
pub fn plan_tiles(n: usize, tile_rows: usize) -> Vec<Tile> {
    assert!(tile_rows > 0, "tile_rows must be positive");
    let blocks = n.div_ceil(tile_rows);
    let range = |b: usize| b * tile_rows..((b + 1) * tile_rows).min(n);
    (0..blocks)
        .flat_map(|a| {
            (a..blocks).map(move |b| Tile {
                rows: range(a),
                cols: range(b),
            })
        })
        .collect()
}

/// Where the dense backend's common-neighbour counts of a tile come from.
pub(crate) enum Counts<'a> {
    /// Computed for this pass and dropped.
    Compute,
    /// Computed, then kept (as `u16`: the caller guarantees counts below 2¹⁶) for later passes.
    Keep(&'a mut Option<Vec<u16>>),
    /// Kept by an earlier pass over the same tile.
    Cached(&'a [u16]),
}

impl Tile {
    /// Number of pairs `i < j` in the tile.
    pub(crate) fn num_pairs(&self) -> u64 {
        self.rows
            .clone()
            .map(|i| self.cols.end.saturating_sub(self.cols.start.max(i + 1)) as u64)
            .sum()
    }

    /// Calls `f(i, j, similarity, is_noisy_edge)` for the pairs of the tile; pairs without a
    /// common neighbour and without an edge (similarity 0) are visited only when `zeros` is set,
    /// and otherwise counted in the returned number (the sparse backend never looks at them).
    /// The dense backend's common-neighbour counts are computed, computed and kept, or read
    /// from an earlier pass (see [`Counts`]); the sparse backend ignores `counts`.
    fn visit_counts(
        &self,
        ctx: &TileContext<'_>,
        zeros: bool,
        counts: Counts<'_>,
        mut f: impl FnMut(usize, usize, f64, bool),
    ) -> u64 {
        let deg = &ctx.degree;
        let (c0, c1) = (self.cols.start, self.cols.end);
        let width = self.cols.len();
        let g: &Graph = match &ctx.rows {
            Rows::Lists(g) => g,
            Rows::Bits(bits) => {
                let cells = self.rows.len() * width;
                return match counts {
                    Counts::Compute => {
                        let mut wide = vec![0u32; cells];
                        block_counts(bits, self.rows.clone(), self.cols.clone(), &mut wide);
                        self.visit_dense(bits, deg, &wide, zeros, f)
                    }
                    Counts::Keep(slot) => {
                        // Counts are at most n − 2, which the caller keeps below 2¹⁶.
                        let mut kept = vec![0u16; cells];
                        block_counts(bits, self.rows.clone(), self.cols.clone(), &mut kept);
                        let skipped = self.visit_dense(bits, deg, &kept, zeros, f);
                        *slot = Some(kept);
                        skipped
                    }
                    Counts::Cached(kept) => self.visit_dense(bits, deg, kept, zeros, f),
                };
            }
        };
        let mut skipped = 0u64;
        // Sparse: per row, common neighbours by wedges i–w–j, then the row's edges.
        const EDGE: u8 = 1;
        const SEEN: u8 = 2;
        let mut acc = vec![0u32; width];
        let mut mark = vec![0u8; width];
        let mut touched: Vec<usize> = Vec::new();
        let from = |list: &[u32], lo: usize| list.partition_point(|&x| (x as usize) < lo);
        for i in self.rows.clone() {
            let lo = c0.max(i + 1);
            if lo >= c1 {
                continue;
            }
            let ni = g.neighbors(i as u32);
            for &w in ni {
                let nw = g.neighbors(w);
                for &j in &nw[from(nw, lo)..] {
                    let k = j as usize;
                    if k >= c1 {
                        break;
                    }
                    let k = k - c0;
                    if mark[k] == 0 {
                        touched.push(k);
                    }
                    mark[k] |= SEEN;
                    acc[k] += 1;
                }
            }
            for &j in &ni[from(ni, lo)..] {
                let k = j as usize;
                if k >= c1 {
                    break;
                }
                let k = k - c0;
                if mark[k] == 0 {
                    touched.push(k);
                }
                mark[k] |= EDGE;
            }
            if zeros {
                for j in lo..c1 {
                    let k = j - c0;
                    f(i, j, jaccard(acc[k], deg[i], deg[j]), mark[k] & EDGE != 0);
                }
            } else {
                for &k in &touched {
                    let j = c0 + k;
                    f(i, j, jaccard(acc[k], deg[i], deg[j]), mark[k] & EDGE != 0);
                }
                skipped += (c1 - lo - touched.len()) as u64;
            }
            for &k in &touched {
                acc[k] = 0;
                mark[k] = 0;
            }
            touched.clear();
        }
        skipped
    }

    /// The dense backend's loop of [`Tile::visit_counts`] over the tile's counts (row-major,
    /// `cols.len()` per row), monomorphised per cell type.
    #[inline(always)]
    fn visit_dense<T: Copy + Into<u32>>(
        &self,
        bits: &BitAdjacency,
        deg: &[u32],
        counts: &[T],
        zeros: bool,
        mut f: impl FnMut(usize, usize, f64, bool),
    ) -> u64 {
        let (c0, c1) = (self.cols.start, self.cols.end);
        let width = self.cols.len();
        let mut skipped = 0u64;
        for i in self.rows.clone() {
            let row = bits.row(i);
            let di = deg[i];
            let lo = c0.max(i + 1);
            if lo >= c1 {
                continue;
            }
            let base = (i - self.rows.start) * width;
            for (j, &c) in (lo..c1).zip(&counts[base + lo - c0..base + width]) {
                let c: u32 = c.into();
                let e = row[j / 64] >> (j % 64) & 1 == 1;
                if c == 0 && !e && !zeros {
                    skipped += 1;
                    continue;
                }
                f(i, j, jaccard(c, di, deg[j]), e);
            }
        }
        skipped
    }

    /// Pass 1: the tile's exact histogram of similarities over 2¹⁶ + 1 buckets (pairs and
    /// noisy edges per bucket).
    ///
    /// # Complexity
    /// Dense: `|tile| · n / 64` word operations, memory `4 |tile|` bytes of counts; sparse:
    /// the wedges of the tile's rows, memory `5 · cols` bytes. Plus `16 (BUCKETS + 1)` bytes of
    /// result.
    pub fn histogram(&self, ctx: &TileContext<'_>) -> TileHistogram {
        self.histogram_with(ctx, Counts::Compute)
    }

    /// [`Tile::histogram`] with the counts' source given.
    pub(crate) fn histogram_with(
        &self,
        ctx: &TileContext<'_>,
        counts: Counts<'_>,
    ) -> TileHistogram {
        if self.num_pairs() >= 1 << 32 {
            let mut h = TileHistogram::empty();
            let zeros = self.visit_counts(ctx, false, counts, |_, _, s, e| {
                let b = bucket(s);
                h.pairs[b] += 1;
                h.noisy[b] += u64::from(e);
            });
            h.pairs[0] += zeros;
            return h;
        }
        // Fewer than 2³² pairs: pairs in the low 32 bits of one word per bucket, noisy edges
        // in the high 32 (one increment per pair).
        let mut packed = vec![0u64; BUCKETS + 1];
        let zeros = self.visit_counts(ctx, false, counts, |_, _, s, e| {
            packed[bucket(s)] += 1 + (u64::from(e) << 32);
        });
        let mut h = TileHistogram {
            pairs: packed.iter().map(|&w| w & 0xFFFF_FFFF).collect(),
            noisy: packed.iter().map(|&w| w >> 32).collect(),
        };
        h.pairs[0] += zeros;
        h
    }

    /// Pass 1 with every distinct positive similarity of the tile counted exactly (value bits →
    /// pairs, noisy edges), so that pass 2 need not run: `None` for the values when the tile
    /// has more than `cap` distinct positive values.
    pub(crate) fn histogram_exact(
        &self,
        ctx: &TileContext<'_>,
        cap: usize,
    ) -> (TileHistogram, Option<ExactValues>) {
        let mut h = TileHistogram::empty();
        let mut values = Some(ExactValues::default());
        let zeros = self.visit_counts(ctx, false, Counts::Compute, |_, _, s, e| {
            let b = bucket(s);
            h.pairs[b] += 1;
            h.noisy[b] += u64::from(e);
            if b != 0
                && let Some(v) = &mut values
            {
                let c = v.entry(s.to_bits()).or_default();
                c.0 += 1;
                c.1 += u64::from(e);
                if v.len() > cap {
                    values = None;
                }
            }
        });
        h.pairs[0] += zeros;
        (h, values)
    }

    /// Pass 2: the distinct similarity values (with pairs and noisy edges) of the tile's pairs in
    /// the buckets `rank.buckets`.
    ///
    /// # Complexity
    /// As [`Tile::histogram`], plus the distinct values found.
    pub fn values(&self, ctx: &TileContext<'_>, rank: &RankBuckets) -> TileValues {
        self.values_with(ctx, rank, Counts::Compute)
    }

    /// [`Tile::values`] with the counts' source given.
    pub(crate) fn values_with(
        &self,
        ctx: &TileContext<'_>,
        rank: &RankBuckets,
        counts: Counts<'_>,
    ) -> TileValues {
        let need = &rank.buckets;
        // One bit per bucket: most pairs fall outside the few needed buckets and are rejected
        // without the search.
        let mut wanted = vec![0u64; (BUCKETS + 1).div_ceil(64)];
        for &b in need {
            wanted[b / 64] |= 1 << (b % 64);
        }
        let mut v = TileValues::empty(rank);
        let zeros = self.visit_counts(ctx, false, counts, |_, _, s, e| {
            let b = bucket(s);
            if wanted[b / 64] >> (b % 64) & 1 == 0 {
                return;
            }
            if let Ok(k) = need.binary_search(&b) {
                let c = v.values[k].entry(s.to_bits()).or_default();
                c.0 += 1;
                c.1 += u64::from(e);
            }
        });
        if zeros > 0 && need.first() == Some(&0) {
            v.values[0].entry(0f64.to_bits()).or_default().0 += zeros;
        }
        v
    }

    /// Pass 3: the tile's pairs of fully taken groups, and its best candidates of the partially
    /// taken groups (at most `plan`'s take per flag).
    ///
    /// # Complexity
    /// As [`Tile::histogram`] (all pairs of the tile when pairs of similarity 0 are candidates),
    /// plus the taken pairs and `O(take · log take)` for the bounded heaps.
    pub fn select(&self, ctx: &TileContext<'_>, plan: &SelectionPlan) -> TileSelection {
        self.select_with(ctx, plan, Counts::Compute)
    }

    /// [`Tile::select`] with the counts' source given.
    pub(crate) fn select_with(
        &self,
        ctx: &TileContext<'_>,
        plan: &SelectionPlan,
        counts: Counts<'_>,
    ) -> TileSelection {
        let n = ctx.num_nodes();
        let mut out = TileSelection {
            take: plan.take,
            taken: Vec::new(),
            best: [
                std::collections::BinaryHeap::new(),
                std::collections::BinaryHeap::new(),
            ],
        };
        // The decision per flag and bucket where the bucket lies in one bin (most pairs), else
        // AMBIGUOUS: one lookup instead of bin, group and decision.
        let verdict: [Vec<u8>; 2] = [0, 1].map(|f| {
            plan.bucket_bin
                .iter()
                .map(|&bb| {
                    if bb == AMBIGUOUS {
                        AMBIGUOUS
                    } else {
                        plan.decision[f][plan.group_of_bin[usize::from(bb)]].0
                    }
                })
                .collect()
        });
        self.visit_counts(ctx, plan.zeros, counts, |i, j, s, e| {
            let f = usize::from(e);
            let mut d = verdict[f][bucket(s)];
            if d == AMBIGUOUS {
                d = plan.decision[f][plan.group_of_bin[plan.bin(s)]].0;
            }
            match d {
                1 => out.taken.push((i as u32, j as u32)),
                2 => {
                    let idx = pair_index(n, i, j) as u64;
                    out.offer(f, (plan.rank(s, idx), i as u32, j as u32));
                }
                _ => {}
            }
        });
        out
    }
}

/// Per-bucket pairs and noisy edges of a set of pairs (one tile, or merged tiles).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TileHistogram {
    /// Pairs per bucket (bucket 0 holds similarity 0).
    pub pairs: Vec<u64>,
    /// Noisy edges per bucket.
    pub noisy: Vec<u64>,
}

impl TileHistogram {
    /// The histogram of no pairs.
    pub fn empty() -> Self {
        Self {
            pairs: vec![0; BUCKETS + 1],
            noisy: vec![0; BUCKETS + 1],
        }
    }

    /// Adds `other`'s counts.
    pub fn merge(&mut self, other: &TileHistogram) {
        self.pairs
            .iter_mut()
            .zip(&other.pairs)
            .for_each(|(a, b)| *a += b);
        self.noisy
            .iter_mut()
            .zip(&other.noisy)
            .for_each(|(a, b)| *a += b);
    }
}

/// The buckets that hold an order statistic of the quantile bins (sorted), decided from the
/// merged histogram: the input of pass 2.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankBuckets {
    pub(super) buckets: Vec<usize>,
}

/// Distinct positive similarities counted exactly: value bits → (pairs, noisy edges).
pub(crate) type ExactValues = std::collections::HashMap<u64, (u64, u64), BuildMix>;

/// A fast hash for similarity bits (a 64-bit finaliser; the keys are not adversarial for the
/// table: they are the values of one's own refine, and a bad spread only costs time).
#[derive(Clone, Copy, Default)]
pub(crate) struct BuildMix;

impl std::hash::BuildHasher for BuildMix {
    type Hasher = Mix;
    fn build_hasher(&self) -> Mix {
        Mix(0)
    }
}

/// See [`BuildMix`].
pub(crate) struct Mix(u64);

impl std::hash::Hasher for Mix {
    fn finish(&self) -> u64 {
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 ^= x;
    }
}

impl TileValues {
    /// The values of the rank buckets from exact counts of every positive similarity and the
    /// merged histogram (bucket 0 holds exactly the value 0).
    pub(crate) fn from_exact(
        rank: &RankBuckets,
        exact: &ExactValues,
        hist: &TileHistogram,
    ) -> Self {
        let mut out = TileValues::empty(rank);
        for (&bits, &(p, e)) in exact {
            if let Ok(k) = rank.buckets.binary_search(&bucket(f64::from_bits(bits))) {
                out.values[k].insert(bits, (p, e));
            }
        }
        if rank.buckets.first() == Some(&0) && hist.pairs[0] > 0 {
            out.values[0].insert(0f64.to_bits(), (hist.pairs[0], hist.noisy[0]));
        }
        out
    }
}

/// The distinct values of the rank buckets: per bucket, value bits → (pairs, noisy edges).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TileValues {
    pub(super) values: Vec<BTreeMap<u64, (u64, u64)>>,
}

impl TileValues {
    /// The values of no pairs, for the buckets of `rank` (the start of a merge).
    pub fn empty(rank: &RankBuckets) -> Self {
        Self {
            values: vec![BTreeMap::new(); rank.buckets.len()],
        }
    }

    /// Adds `other`'s counts (both computed for the same [`RankBuckets`]).
    pub fn merge(&mut self, other: TileValues) {
        for (x, y) in self.values.iter_mut().zip(other.values) {
            for (k, (p, e)) in y {
                let c = x.entry(k).or_default();
                c.0 += p;
                c.1 += e;
            }
        }
    }
}

/// What pass 3 takes, decided from the merged results of passes 1 and 2: the bin of every
/// bucket, the groups of bins with equal calibrated probability and per flag (noisy non-edge,
/// noisy edge) whether a group is taken fully, partly or not at all.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SelectionPlan {
    pub(super) n: usize,
    pub(super) inner: Vec<f64>,
    pub(super) bucket_bin: Vec<u8>,
    pub(super) group_of_bin: Vec<usize>,
    /// decision[flag][group]: 0 = none, 1 = all, 2 = partial (with how many).
    pub(super) decision: [Vec<(u8, u64)>; 2],
    pub(super) take: [usize; 2],
    pub(super) tie_break: TieBreak,
    /// The default tie-break's order ([`super::tie_mixer`]).
    pub(super) tie: dp_core::rng::Mixer,
    /// Whether non-edges of similarity 0 can be selected (else they are not visited).
    pub(super) zeros: bool,
}

impl SelectionPlan {
    /// Checks that the plan fits a graph of `n` nodes and is consistent (as
    /// [`crate::TiledRefine::selection_plan`] makes it): for a plan received from elsewhere
    /// before [`Tile::select`] runs with it.
    ///
    /// # Errors
    /// [`crate::EdgeRefineError::Tiles`] naming the first inconsistency.
    pub fn check(&self, n: usize) -> crate::Result<()> {
        let fault = |reason: String| Err(crate::EdgeRefineError::Tiles(reason));
        if self.n != n {
            return fault(format!("a plan for {} nodes, the graph has {n}", self.n));
        }
        if self.bucket_bin.len() != BUCKETS + 1 {
            return fault(format!("a plan with {} buckets", self.bucket_bin.len()));
        }
        if self.inner.iter().any(|e| !e.is_finite()) || !self.inner.is_sorted() {
            return fault("the plan's bin edges are not finite and sorted".into());
        }
        let bins = self.inner.len() + 1;
        if self
            .bucket_bin
            .iter()
            .any(|&b| b != AMBIGUOUS && usize::from(b) >= bins)
        {
            return fault("a bucket of the plan in no bin".into());
        }
        let groups = self.decision[0].len();
        if self.group_of_bin.len() != bins
            || self.decision[1].len() != groups
            || self.group_of_bin.iter().any(|&g| g >= groups)
        {
            return fault("the plan's groups do not match its bins".into());
        }
        for (flag, d) in self.decision.iter().enumerate() {
            if d.iter().any(|&(kind, _)| kind > 2) {
                return fault("an unknown decision in the plan".into());
            }
            let partial: u64 = d.iter().filter(|x| x.0 == 2).map(|x| x.1).sum();
            if partial != self.take[flag] as u64 {
                return fault("the plan's take does not match its decisions".into());
            }
        }
        Ok(())
    }

    /// Bin of similarity `s`.
    #[inline]
    pub(super) fn bin(&self, s: f64) -> usize {
        let bb = self.bucket_bin[bucket(s)];
        if bb == AMBIGUOUS {
            bin_of(&self.inner, s)
        } else {
            usize::from(bb)
        }
    }

    /// Order of candidates of equal probability (smaller is better).
    #[inline]
    fn rank(&self, s: f64, idx: u64) -> (u64, u64) {
        match self.tie_break {
            TieBreak::Reference => (idx, 0),
            // Similarities are >= 0, so the bit patterns order like the values.
            TieBreak::Default => (u64::MAX - s.to_bits(), self.tie.at(idx)),
        }
    }
}

/// Pass 3's result: pairs of fully taken groups, and per flag the best candidates of the
/// partially taken group (a bounded max-heap of at most `take` entries).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TileSelection {
    pub(super) take: [usize; 2],
    pub(super) taken: Vec<(u32, u32)>,
    pub(super) best: [std::collections::BinaryHeap<Cand>; 2],
}

impl TileSelection {
    /// Offers a candidate for flag `f`, keeping the best `take[f]`.
    #[inline]
    fn offer(&mut self, f: usize, c: Cand) {
        let h = &mut self.best[f];
        if h.len() < self.take[f] {
            h.push(c);
        } else if h.peek().is_some_and(|worst| c < *worst) {
            h.pop();
            h.push(c);
        }
    }

    /// Joins `other` (computed with the same plan): the union of the taken pairs and the best
    /// candidates of both.
    pub fn merge(&mut self, other: TileSelection) {
        self.taken.extend(other.taken);
        for (f, h) in other.best.into_iter().enumerate() {
            for c in h {
                self.offer(f, c);
            }
        }
    }

    /// Largest number of candidates held per flag (at most the plan's take).
    pub fn candidates(&self) -> [usize; 2] {
        [self.best[0].len(), self.best[1].len()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_cover_every_pair_once() {
        for (n, t) in [
            (0usize, 3usize),
            (1, 1),
            (7, 3),
            (10, 10),
            (10, 64),
            (33, 4),
        ] {
            let tiles = plan_tiles(n, t);
            let mut seen = vec![0u8; n * n];
            for tile in &tiles {
                let mut pairs = 0;
                for i in tile.rows.clone() {
                    for j in tile.cols.clone() {
                        if i < j {
                            seen[i * n + j] += 1;
                            pairs += 1;
                        }
                    }
                }
                assert_eq!(tile.num_pairs(), pairs);
            }
            for i in 0..n {
                for j in 0..n {
                    assert_eq!(seen[i * n + j], u8::from(i < j), "n={n} t={t} ({i},{j})");
                }
            }
        }
    }
}
