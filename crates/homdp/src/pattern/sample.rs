//! Seeded pattern laws: the paper's random forests, random partial k-trees and cycles.

use rand::{Rng, RngExt};
use rand_distr::{Distribution, Geometric};

use crate::error::{Result, invalid};
use crate::pattern::{MAX_PATTERN_NODES, Pattern, TreeDecomposition};

/// The paper's size parameter `p = 1 − 0.01^(1/16)` (≈ 0.2501): `P(m > 16) = 0.01`.
///
/// # Example
/// ```
/// let p = homdp::paper_size_p();
/// assert!(((1.0 - p).powi(16) - 0.01).abs() < 1e-15);
/// ```
pub fn paper_size_p() -> f64 {
    1.0 - 0.01f64.powf(1.0 / 16.0)
}

/// The class a [`PatternSampler`] draws from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum PatternClass {
    /// Random forests: a uniform labelled tree (Prüfer code) with each edge kept independently.
    Forest,
    /// Random partial k-trees (treewidth ≤ k): a k-tree grown from a (k+1)-clique, each new
    /// node joined to a uniformly chosen k-clique, then each edge kept independently.
    PartialKTree {
        /// The treewidth bound k (1..=3).
        k: usize,
    },
    /// Cycles `C_3..=C_max_len`, length uniform.
    Cycle {
        /// Longest cycle.
        max_len: usize,
    },
}

/// A seeded pattern law (the paper's defaults: sizes `m ~ Geometric(p)` on {1, 2, …} with
/// `p =` [`paper_size_p`], edges kept with probability 0.9).
///
/// Patterns are limited to 64 nodes: sizes above 64 (probability `0.01^4 = 1e-8` under the
/// paper's law) are redrawn, so the law is the paper's conditioned on `m ≤ 64`.
///
/// # Example
/// ```
/// use homdp::PatternSampler;
/// use rand::SeedableRng;
/// let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
/// let pats = PatternSampler::forests().sample_many(50, &mut rng);
/// assert_eq!(pats.len(), 50);
/// assert!(pats.iter().all(|p| p.is_forest() && p.decomposition().width() <= 1));
/// let mut again = rand_chacha::ChaCha8Rng::seed_from_u64(1);
/// assert_eq!(pats, PatternSampler::forests().sample_many(50, &mut again));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct PatternSampler {
    class: PatternClass,
    size_p: f64,
    keep_prob: f64,
}

impl PatternSampler {
    /// The paper's forest law.
    pub fn forests() -> Self {
        Self {
            class: PatternClass::Forest,
            size_p: paper_size_p(),
            keep_prob: 0.9,
        }
    }

    /// Random partial k-trees with the paper's size law and edge keep probability.
    ///
    /// # Errors
    /// [`crate::HomdpError::InvalidParam`] unless `1 ≤ k ≤ 3`.
    pub fn partial_ktrees(k: usize) -> Result<Self> {
        if !(1..=3).contains(&k) {
            return invalid("k", k as f64, "treewidth bound must be 1, 2 or 3");
        }
        Ok(Self {
            class: PatternClass::PartialKTree { k },
            ..Self::forests()
        })
    }

    /// Cycles of uniform length in `3..=max_len`.
    ///
    /// # Errors
    /// [`crate::HomdpError::InvalidParam`] unless `3 ≤ max_len ≤ 64`.
    pub fn cycles(max_len: usize) -> Result<Self> {
        if !(3..=MAX_PATTERN_NODES).contains(&max_len) {
            return invalid("max_len", max_len as f64, "must be in 3..=64");
        }
        Ok(Self {
            class: PatternClass::Cycle { max_len },
            ..Self::forests()
        })
    }

    /// Sets the geometric size parameter `p` (mean size `1/p`).
    ///
    /// # Errors
    /// [`crate::HomdpError::InvalidParam`] unless `0 < p ≤ 1`.
    pub fn size_p(mut self, p: f64) -> Result<Self> {
        if !(p > 0.0 && p <= 1.0) {
            return invalid("size_p", p, "must be in (0, 1]");
        }
        self.size_p = p;
        Ok(self)
    }

    /// Sets the probability of keeping each edge.
    ///
    /// # Errors
    /// [`crate::HomdpError::InvalidParam`] unless `0 ≤ q ≤ 1`.
    pub fn keep_prob(mut self, q: f64) -> Result<Self> {
        if !(0.0..=1.0).contains(&q) {
            return invalid("keep_prob", q, "must be in [0, 1]");
        }
        self.keep_prob = q;
        Ok(self)
    }

    /// The class drawn from.
    pub fn class(&self) -> PatternClass {
        self.class
    }

    /// Draws one pattern.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Pattern {
        match self.class {
            PatternClass::Forest => {
                let m = self.size(rng);
                let edges = self.thin(random_tree(m, rng), rng);
                Pattern::new(m, &edges).expect("a thinned Prüfer tree is a valid pattern")
            }
            PatternClass::PartialKTree { k } => {
                let m = self.size(rng);
                self.partial_ktree(k, m, rng)
            }
            PatternClass::Cycle { max_len } => {
                let k = rng.random_range(3..=max_len);
                Pattern::cycle(k).expect("3 <= k <= 64")
            }
        }
    }

    /// Draws `d` patterns independently.
    pub fn sample_many<R: Rng + ?Sized>(&self, d: usize, rng: &mut R) -> Vec<Pattern> {
        (0..d).map(|_| self.sample(rng)).collect()
    }

    /// `m = 1 + Geometric(p)` (failures before the first success), redrawn while `m > 64`.
    fn size<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        let geo = Geometric::new(self.size_p).expect("size_p validated in (0, 1]");
        loop {
            let failures = geo.sample(rng);
            if failures < MAX_PATTERN_NODES as u64 {
                return failures as usize + 1;
            }
        }
    }

    fn thin<R: Rng + ?Sized>(
        &self,
        edges: Vec<(usize, usize)>,
        rng: &mut R,
    ) -> Vec<(usize, usize)> {
        edges
            .into_iter()
            .filter(|_| rng.random_bool(self.keep_prob))
            .collect()
    }

    /// A k-tree on `m` nodes (the clique `K_m` when `m ≤ k + 1`), thinned, with the bags it was
    /// grown with.
    fn partial_ktree<R: Rng + ?Sized>(&self, k: usize, m: usize, rng: &mut R) -> Pattern {
        let base = m.min(k + 1);
        let mut edges: Vec<(usize, usize)> = (0..base)
            .flat_map(|i| (i + 1..base).map(move |j| (i, j)))
            .collect();
        let mut bags: Vec<Vec<u8>> = vec![(0..base as u8).collect()];
        let mut parent = vec![None];
        // k-cliques available for attachment, each with the bag that holds it.
        let mut cliques: Vec<(Vec<u8>, usize)> = Vec::new();
        if m > base {
            for skip in 0..base {
                let c: Vec<u8> = (0..base as u8).filter(|&x| x as usize != skip).collect();
                cliques.push((c, 0));
            }
        }
        for v in base..m {
            let (c, holder) = cliques[rng.random_range(0..cliques.len())].clone();
            for &u in &c {
                edges.push((u as usize, v));
            }
            let mut bag = c.clone();
            bag.push(v as u8);
            bags.push(bag);
            parent.push(Some(holder));
            let me = bags.len() - 1;
            for drop in 0..c.len() {
                let mut nc: Vec<u8> = c
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| i != drop)
                    .map(|(_, &x)| x)
                    .collect();
                nc.push(v as u8);
                cliques.push((nc, me));
            }
        }
        let edges = self.thin(edges, rng);
        Pattern::from_parts(m, &edges, TreeDecomposition::from_raw(bags, parent))
    }
}

/// A uniformly random labelled tree on `m` nodes by decoding a uniform Prüfer sequence.
fn random_tree<R: Rng + ?Sized>(m: usize, rng: &mut R) -> Vec<(usize, usize)> {
    if m < 2 {
        return Vec::new();
    }
    let seq: Vec<usize> = (0..m - 2).map(|_| rng.random_range(0..m)).collect();
    prufer_decode(m, &seq)
}

/// Decodes a Prüfer sequence (length `m − 2`, entries `< m`) into the tree's `m − 1` edges.
pub(crate) fn prufer_decode(m: usize, seq: &[usize]) -> Vec<(usize, usize)> {
    let mut degree = vec![1usize; m];
    for &x in seq {
        degree[x] += 1;
    }
    let mut edges = Vec::with_capacity(m - 1);
    for &x in seq {
        let leaf = (0..m)
            .find(|&j| degree[j] == 1)
            .expect("a Prüfer step always has a leaf");
        edges.push((leaf, x));
        degree[leaf] -= 1;
        degree[x] -= 1;
    }
    let mut last = (0..m).filter(|&j| degree[j] == 1);
    let (a, b) = (
        last.next().expect("two nodes remain"),
        last.next().expect("two nodes remain"),
    );
    edges.push((a, b));
    edges
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PatternKind;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use std::collections::HashMap;

    #[test]
    fn prufer_is_a_bijection_on_small_trees() -> Result<()> {
        // All 4^2 = 16 sequences give the 16 distinct labelled trees on 4 nodes (Cayley).
        let mut seen = std::collections::HashSet::new();
        for a in 0..4 {
            for b in 0..4 {
                let e = prufer_decode(4, &[a, b]);
                let p = Pattern::new(4, &e)?;
                assert_eq!((p.num_edges(), p.num_components()), (3, 1));
                seen.insert(p.edges().collect::<Vec<_>>());
            }
        }
        assert_eq!(seen.len(), 16);
        Ok(())
    }

    #[test]
    fn forest_sizes_follow_the_geometric_law() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let s = PatternSampler::forests();
        let n = 20_000;
        let pats = s.sample_many(n, &mut rng);
        let p = paper_size_p();
        // Mean of 1 + Geometric(p) is 1/p ≈ 3.998; sd of the mean ≈ sqrt((1-p)/p²/n).
        let mean = pats.iter().map(|f| f.num_nodes() as f64).sum::<f64>() / n as f64;
        let sd = ((1.0 - p) / (p * p) / n as f64).sqrt();
        assert!((mean - 1.0 / p).abs() < 5.0 * sd, "mean {mean}");
        // P(m = 1) = p.
        let ones = pats.iter().filter(|f| f.num_nodes() == 1).count() as f64 / n as f64;
        assert!((ones - p).abs() < 5.0 * (p * (1.0 - p) / n as f64).sqrt());
        // Edge survival: E[e] = 0.9 (m − 1) summed.
        let trees: f64 = pats.iter().map(|f| f.num_nodes() as f64 - 1.0).sum();
        let kept: f64 = pats.iter().map(|f| f.num_edges() as f64).sum();
        assert!((kept / trees - 0.9).abs() < 5.0 * (0.09 / trees).sqrt());
        assert!(pats.iter().all(|f| f.is_forest() && f.num_nodes() <= 64));
        // Not all patterns of one size are identical (a defect of the reference sampler).
        let fives: std::collections::HashSet<_> = pats
            .iter()
            .filter(|f| f.num_nodes() == 5)
            .map(|f| f.edges().collect::<Vec<_>>())
            .collect();
        assert!(fives.len() > 50);
    }

    #[test]
    fn prufer_trees_are_uniform_on_three_nodes() {
        // The three labelled trees on 3 nodes are the paths centred at 0, 1, 2.
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut centre = HashMap::new();
        let n = 9000;
        for _ in 0..n {
            let e = random_tree(3, &mut rng);
            let p = Pattern::new(3, &e).expect("tree");
            let c = (0..3)
                .find(|&v| p.degree(v) == 2)
                .expect("path has a centre");
            *centre.entry(c).or_insert(0usize) += 1;
        }
        for c in 0..3 {
            let f = centre[&c] as f64 / n as f64;
            assert!((f - 1.0 / 3.0).abs() < 5.0 * (2.0 / 9.0 / n as f64).sqrt());
        }
    }

    #[test]
    fn partial_ktrees_keep_valid_decompositions() -> Result<()> {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for k in 1..=3 {
            let s = PatternSampler::partial_ktrees(k)?;
            for _ in 0..300 {
                let p = s.sample(&mut rng);
                p.decomposition().check(p.adjacency())?;
                assert!(p.decomposition().width() <= k);
                let m = p.num_nodes();
                if m > k {
                    let full = k * m - k * (k + 1) / 2;
                    assert!(p.num_edges() <= full);
                }
            }
        }
        // Without thinning, a k-tree on m > k nodes has exactly k·m − k(k+1)/2 edges.
        let s = PatternSampler::partial_ktrees(2)?.keep_prob(1.0)?;
        for _ in 0..100 {
            let p = s.sample(&mut rng);
            let m = p.num_nodes();
            let expect = if m >= 3 { 2 * m - 3 } else { m * (m - 1) / 2 };
            assert_eq!(p.num_edges(), expect);
        }
        assert!(PatternSampler::partial_ktrees(4).is_err());
        Ok(())
    }

    #[test]
    fn cycles_and_parameter_checks() -> Result<()> {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let s = PatternSampler::cycles(6)?;
        let lens: std::collections::BTreeSet<usize> = s
            .sample_many(200, &mut rng)
            .iter()
            .map(|p| match p.kind() {
                PatternKind::Cycle(k) => k,
                other => panic!("not a cycle: {other:?}"),
            })
            .collect();
        assert_eq!(lens.into_iter().collect::<Vec<_>>(), vec![3, 4, 5, 6]);
        assert!(PatternSampler::cycles(2).is_err() && PatternSampler::cycles(65).is_err());
        assert!(PatternSampler::forests().size_p(0.0).is_err());
        assert!(PatternSampler::forests().keep_prob(1.5).is_err());
        Ok(())
    }
}
