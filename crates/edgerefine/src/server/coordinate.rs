//! The coordinator of a tiled refine: what is decided between the passes from the merged tile
//! results, on one machine, while the tiles themselves run anywhere (local threads in
//! [`super::refine_tiled`], a cluster elsewhere).
//!
//! The coordinator checks what it is given: results of the wrong length, counts that do not add
//! up to the pair space, or values outside their bucket are an [`EdgeRefineError::Tiles`] error,
//! never a panic or a silently wrong release.

use super::tiled::{RankBuckets, SelectionPlan, TileHistogram, TileSelection, TileValues};
use super::{
    BUCKETS, Bins, MAX_NODES, RefineParams, Release, Selection, TieBreak, Timings, bins_from,
    bucket, rank_buckets,
};
use crate::client::keep_probability;
use crate::error::{EdgeRefineError, Result};
use graph_core::GraphBuilder;

/// Where a [`TiledRefine`] is: which merged result it waits for.
#[derive(Clone, Debug)]
enum Stage {
    /// Waits for pass 1's merged [`TileHistogram`].
    Histogram,
    /// Waits for pass 2's merged [`TileValues`].
    Values {
        hist: TileHistogram,
        cum: Vec<u64>,
        rank: RankBuckets,
    },
    /// Waits for pass 3's merged [`TileSelection`].
    Select(Box<Decided>),
    /// The release was built.
    Done,
}

/// What passes 1 and 2 decided, kept for the release.
#[derive(Clone, Debug)]
struct Decided {
    bin_edges: Vec<f64>,
    bin_pairs: Vec<u64>,
    bin_noisy: Vec<u64>,
    bin_probability: Vec<f64>,
    k_target: u64,
    got: [u64; 2],
    take: [usize; 2],
}

/// The decisions of a tiled refine between its three passes, for tiles run elsewhere.
///
/// 1. Run [`crate::Tile::histogram`] on every tile of [`crate::plan_tiles`]; merge; give the
///    result to [`TiledRefine::rank_buckets`].
/// 2. Run [`crate::Tile::values`] with those [`RankBuckets`] on every tile; merge (starting from
///    [`TileValues::empty`]); give the result to [`TiledRefine::selection_plan`].
/// 3. Run [`crate::Tile::select`] with that [`SelectionPlan`] on every tile; merge; give the
///    result to [`TiledRefine::finish`], which builds the [`Release`].
///
/// The release equals [`crate::refine`]'s for the same noisy graph and parameters, whatever the
/// tile size, backend and merge order.
///
/// # Example
/// ```
/// use edgerefine::{RefineParams, TileContext, TileValues, TiledRefine, Backend, plan_tiles};
/// use graph_core::generate::erdos_renyi;
///
/// let mut rng = dp_core::rng::seeded_rng(3);
/// let g = erdos_renyi(200, 0.05, &mut rng)?;
/// let noisy = edgerefine::perturb(&g, "2".parse()?, &mut rng)?;
/// let params = RefineParams::new("2".parse()?, g.num_edges() as u64);
///
/// let ctx = TileContext::new(&noisy, Backend::Auto);
/// let tiles = plan_tiles(noisy.num_nodes(), 64);
/// let mut coordinator = TiledRefine::new(noisy.num_nodes(), &params)?;
/// let mut hist = edgerefine::TileHistogram::empty();
/// tiles.iter().for_each(|t| hist.merge(&t.histogram(&ctx)));
/// let rank = coordinator.rank_buckets(&hist)?;
/// let mut values = TileValues::empty(&rank);
/// tiles.iter().for_each(|t| values.merge(t.values(&ctx, &rank)));
/// let plan = coordinator.selection_plan(&values)?;
/// let selection = tiles.iter().map(|t| t.select(&ctx, &plan)).reduce(|mut a, b| {
///     a.merge(b);
///     a
/// });
/// let release = coordinator.finish(selection)?;
///
/// let local = edgerefine::refine(&noisy, &params)?;
/// assert_eq!(release.graph, local.graph);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct TiledRefine {
    params: RefineParams,
    n: usize,
    rho: f64,
    total: u64,
    stage: Stage,
}

impl TiledRefine {
    /// A coordinator for a noisy graph of `n` nodes.
    ///
    /// # Errors
    /// As [`crate::refine`]: invalid ε, `k`, `bins`; fewer than two nodes;
    /// [`EdgeRefineError::TooLarge`] above [`MAX_NODES`].
    pub fn new(n: usize, params: &RefineParams) -> Result<Self> {
        params.validate()?;
        if n > MAX_NODES {
            return Err(EdgeRefineError::TooLarge { n, max: MAX_NODES });
        }
        let total = super::pair_count(n)?;
        Ok(Self {
            params: params.clone(),
            n,
            rho: keep_probability(params.eps)?,
            total,
            stage: Stage::Histogram,
        })
    }

    /// Number of nodes of the noisy graph.
    pub fn num_nodes(&self) -> usize {
        self.n
    }

    /// Pass 1 → 2: the buckets holding the order statistics of the quantile bins, from the
    /// merged histogram of all tiles.
    ///
    /// # Errors
    /// [`EdgeRefineError::Tiles`] when called out of order, or when `hist` is not a histogram of
    /// all `n(n−1)/2` pairs (wrong length, more noisy edges than pairs in a bucket, another
    /// total).
    pub fn rank_buckets(&mut self, hist: &TileHistogram) -> Result<RankBuckets> {
        if !matches!(self.stage, Stage::Histogram) {
            return Err(tiles("rank_buckets called out of order"));
        }
        if hist.pairs.len() != BUCKETS + 1 || hist.noisy.len() != BUCKETS + 1 {
            return Err(tiles(format!(
                "a histogram has {} + 1 buckets, got {} and {}",
                BUCKETS,
                hist.pairs.len(),
                hist.noisy.len()
            )));
        }
        if hist.pairs.iter().zip(&hist.noisy).any(|(p, e)| e > p) {
            return Err(tiles("a bucket with more noisy edges than pairs"));
        }
        let sum = hist
            .pairs
            .iter()
            .try_fold(0u64, |a, &p| a.checked_add(p))
            .ok_or_else(|| tiles("the histogram's pair counts overflow"))?;
        if sum != self.total {
            return Err(tiles(format!(
                "the merged histogram counts {sum} pairs, the graph has {} (a tile missing or \
                 counted twice?)",
                self.total
            )));
        }
        let (cum, rank) = rank_buckets(hist, self.total, self.params.bins);
        self.stage = Stage::Values {
            hist: hist.clone(),
            cum,
            rank: rank.clone(),
        };
        Ok(rank)
    }

    /// Pass 2 → 3: the exact quantile bins, the calibrated probabilities and what pass 3 takes,
    /// from the merged values of all tiles.
    ///
    /// # Errors
    /// [`EdgeRefineError::Tiles`] when called out of order, or when `values` does not match the
    /// histogram (another number of buckets, a value outside its bucket, counts that differ).
    pub fn selection_plan(&mut self, values: &TileValues) -> Result<SelectionPlan> {
        let Stage::Values { hist, cum, rank } = &self.stage else {
            return Err(tiles("selection_plan called out of order"));
        };
        check_values(hist, rank, values)?;
        let Bins {
            edges: bin_edges,
            pairs: bin_pairs,
            noisy: bin_noisy,
            bucket_bin,
        } = bins_from(hist, cum, rank, values, self.total, self.params.bins);
        let Selection {
            bin_probability,
            k_target,
            group_of_bin,
            decision,
            got,
            take,
        } = Selection::plan(&self.params, self.rho, &bin_pairs, &bin_noisy);
        let inner: Vec<f64> = if bin_edges.len() >= 2 {
            bin_edges[1..bin_edges.len() - 1].to_vec()
        } else {
            Vec::new()
        };
        let mut plan = SelectionPlan {
            n: self.n,
            inner,
            bucket_bin,
            group_of_bin,
            decision,
            take,
            tie_break: self.params.tie_break,
            tie: super::tie_mixer(self.params.seed),
            zeros: true,
        };
        // Whether pass 3 must visit the non-edges of similarity 0 (bucket 0): not when their
        // group is not taken, nor when the default order (similarity first) fills the partial
        // take with non-edges of positive similarity of the same group.
        let g0 = plan.group_of_bin[plan.bin(0.0)];
        let zero_non_edges = hist.pairs[0] - hist.noisy[0];
        plan.zeros = match plan.decision[0][g0] {
            (0, _) => false,
            (2, partial) if self.params.tie_break == TieBreak::Default => {
                let in_group: u64 = (0..bin_pairs.len())
                    .filter(|&b| plan.group_of_bin[b] == g0)
                    .map(|b| bin_pairs[b] - bin_noisy[b])
                    .sum();
                in_group - zero_non_edges < partial
            }
            _ => true,
        };
        self.stage = Stage::Select(Box::new(Decided {
            bin_edges,
            bin_pairs,
            bin_noisy,
            bin_probability,
            k_target,
            got,
            take,
        }));
        Ok(plan)
    }

    /// Pass 3 → release: the pairs of fully taken groups and the best candidates of the
    /// partially taken ones, from the merged selections of all tiles (`None` for no tiles).
    /// The release's timings are zero (the coordinator does not see the tiles run).
    ///
    /// # Errors
    /// [`EdgeRefineError::Tiles`] when called out of order or with a selection of another plan;
    /// graph errors for pairs outside the graph.
    pub fn finish(&mut self, selection: Option<TileSelection>) -> Result<Release> {
        let Stage::Select(decided) = &self.stage else {
            return Err(tiles("finish called out of order"));
        };
        let Decided {
            bin_edges,
            bin_pairs,
            bin_noisy,
            bin_probability,
            k_target,
            mut got,
            take,
        } = (**decided).clone();
        let mut edges: Vec<(u32, u32)> = Vec::new();
        if let Some(sel) = selection {
            if sel.take != take {
                return Err(tiles(format!(
                    "a selection for takes {:?}, the plan takes {take:?}",
                    sel.take
                )));
            }
            edges = sel.taken;
            for (flag, heap) in sel.best.into_iter().enumerate() {
                let mut c = heap.into_vec();
                c.sort_unstable();
                let t = take[flag].min(c.len());
                edges.extend(c[..t].iter().map(|x| (x.1, x.2)));
                got[flag] += t as u64;
            }
        }
        let mut b = GraphBuilder::new(self.n)?;
        b.reserve(edges.len());
        for (u, v) in edges {
            b.add_edge(u, v)?;
        }
        let graph = b.build()?;
        if got[0] + got[1] != graph.num_edges() as u64 {
            return Err(tiles(format!(
                "the selections hold {} pairs, the plan takes {} (a tile missing, or a pair twice)",
                graph.num_edges(),
                got[0] + got[1]
            )));
        }
        self.stage = Stage::Done;
        Ok(Release {
            graph,
            k_target,
            k_real: got[1],
            k_fake: got[0],
            keep_probability: self.rho,
            bin_edges,
            bin_probability,
            bin_pairs,
            bin_noisy_edges: bin_noisy,
            timings: Timings::default(),
        })
    }
}

/// The error of tile results that do not fit.
fn tiles(reason: impl Into<String>) -> EdgeRefineError {
    EdgeRefineError::Tiles(reason.into())
}

/// Checks that `values` holds, for every rank bucket, values inside that bucket whose counts are
/// the histogram's.
fn check_values(hist: &TileHistogram, rank: &RankBuckets, values: &TileValues) -> Result<()> {
    if values.values.len() != rank.buckets.len() {
        return Err(tiles(format!(
            "values for {} buckets, {} asked",
            values.values.len(),
            rank.buckets.len()
        )));
    }
    for (&b, vals) in rank.buckets.iter().zip(&values.values) {
        let (mut pairs, mut noisy) = (0u64, 0u64);
        for (&bits, &(p, e)) in vals {
            let v = f64::from_bits(bits);
            if !(0.0..=1.0).contains(&v) || bucket(v) != b {
                return Err(tiles(format!("value {v} is not in bucket {b}")));
            }
            pairs = pairs.saturating_add(p);
            noisy = noisy.saturating_add(e);
        }
        if pairs != hist.pairs[b] || noisy != hist.noisy[b] {
            return Err(tiles(format!(
                "bucket {b}: values count {pairs} pairs and {noisy} noisy edges, the histogram \
                 {} and {}",
                hist.pairs[b], hist.noisy[b]
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Backend, TileContext, plan_tiles};
    use dp_core::params::Epsilon;
    use graph_core::Graph;
    use graph_core::generate::erdos_renyi;

    fn noisy(n: usize, seed: u64) -> (Graph, RefineParams) {
        let mut rng = dp_core::rng::seeded_rng(seed);
        let g = erdos_renyi(n, 0.04, &mut rng).unwrap();
        let noisy = crate::perturb(&g, Epsilon::new(1.5).unwrap(), &mut rng).unwrap();
        (
            noisy,
            RefineParams::new(Epsilon::new(1.5).unwrap(), g.num_edges() as u64),
        )
    }

    /// Runs the three passes with the tiles merged in `order` (indices into the tiles).
    fn run(g: &Graph, p: &RefineParams, tile_rows: usize, order: &[usize]) -> Result<Release> {
        let ctx = TileContext::new(g, Backend::Auto);
        let tiles = plan_tiles(g.num_nodes(), tile_rows);
        let mut c = TiledRefine::new(g.num_nodes(), p)?;
        let mut hist = TileHistogram::empty();
        order
            .iter()
            .for_each(|&k| hist.merge(&tiles[k].histogram(&ctx)));
        let rank = c.rank_buckets(&hist)?;
        let mut vals = TileValues::empty(&rank);
        order
            .iter()
            .for_each(|&k| vals.merge(tiles[k].values(&ctx, &rank)));
        let plan = c.selection_plan(&vals)?;
        plan.check(g.num_nodes())?;
        let sel = order
            .iter()
            .map(|&k| tiles[k].select(&ctx, &plan))
            .reduce(|mut a, b| {
                a.merge(b);
                a
            });
        c.finish(sel)
    }

    #[test]
    fn any_merge_order_gives_the_local_release() {
        for tie_break in [TieBreak::Default, TieBreak::Reference] {
            let (g, mut p) = noisy(300, 11);
            p.tie_break = tie_break;
            let local = crate::refine(&g, &p).unwrap();
            let k = plan_tiles(300, 37).len();
            let forward: Vec<usize> = (0..k).collect();
            let backward: Vec<usize> = (0..k).rev().collect();
            let shuffled: Vec<usize> = (0..k).map(|i| (i * 7 + 3) % k).collect();
            for order in [forward, backward, shuffled] {
                let r = run(&g, &p, 37, &order).unwrap();
                assert_eq!(r.graph, local.graph, "{tie_break:?}");
                assert_eq!((r.k_real, r.k_fake), (local.k_real, local.k_fake));
                assert_eq!(r.bin_edges, local.bin_edges);
            }
        }
    }

    #[test]
    fn a_missing_or_doubled_tile_is_an_error() {
        let (g, p) = noisy(200, 5);
        let k = plan_tiles(200, 50).len();
        let missing: Vec<usize> = (1..k).collect();
        let doubled: Vec<usize> = (0..k).chain([0]).collect();
        for order in [missing, doubled] {
            let e = run(&g, &p, 50, &order).unwrap_err();
            assert!(
                matches!(&e, EdgeRefineError::Tiles(m) if m.contains("counts")),
                "{e}"
            );
        }
    }

    #[test]
    fn out_of_order_calls_and_foreign_results_are_errors() {
        let (g, p) = noisy(120, 9);
        let ctx = TileContext::new(&g, Backend::Auto);
        let tiles = plan_tiles(120, 40);
        let mut c = TiledRefine::new(120, &p).unwrap();
        let rank = RankBuckets { buckets: vec![0] };
        assert!(matches!(
            c.selection_plan(&TileValues::empty(&rank)),
            Err(EdgeRefineError::Tiles(_))
        ));
        assert!(matches!(c.finish(None), Err(EdgeRefineError::Tiles(_))));
        let short = TileHistogram {
            pairs: vec![1; 3],
            noisy: vec![0; 3],
        };
        assert!(matches!(
            c.rank_buckets(&short),
            Err(EdgeRefineError::Tiles(_))
        ));
        let mut hist = TileHistogram::empty();
        tiles.iter().for_each(|t| hist.merge(&t.histogram(&ctx)));
        let rank = c.rank_buckets(&hist).unwrap();
        // Values of other buckets than asked.
        let other = RankBuckets {
            buckets: rank.buckets.iter().map(|b| b + 1).collect(),
        };
        let mut vals = TileValues::empty(&other);
        tiles
            .iter()
            .for_each(|t| vals.merge(t.values(&ctx, &other)));
        assert!(matches!(
            c.selection_plan(&vals),
            Err(EdgeRefineError::Tiles(_))
        ));
        let mut vals = TileValues::empty(&rank);
        tiles.iter().for_each(|t| vals.merge(t.values(&ctx, &rank)));
        let plan = c.selection_plan(&vals).unwrap();
        // A plan for another graph, or tampered with, is refused before a tile runs.
        assert!(plan.check(121).is_err());
        let mut bad = plan.clone();
        bad.group_of_bin.push(0);
        assert!(bad.check(120).is_err());
        let mut bad = plan.clone();
        bad.take[0] += 1;
        assert!(bad.check(120).is_err());
        // A selection made with another take.
        let mut sel = tiles[0].select(&ctx, &plan);
        sel.take[1] += 1;
        assert!(matches!(
            c.finish(Some(sel)),
            Err(EdgeRefineError::Tiles(_))
        ));
        assert!(TiledRefine::new(1, &p).is_err());
    }
}
