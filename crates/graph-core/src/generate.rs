//! Seeded random graph generators, each in expected O(n + m) time (plus the final CSR build).
//!
//! All take the RNG by `&mut R` so that tests and experiments can seed them.

use ndarray::Array2;
use rand::{Rng, RngExt};
use rand_distr::{Distribution, StandardNormal};

use crate::builder::GraphBuilder;
use crate::error::{GraphError, Result};
use crate::graph::{Graph, check_node_count};
use crate::node_data::NodeDataset;

fn check_prob(name: &'static str, p: f64) -> Result<()> {
    if !p.is_finite() || !(0.0..=1.0).contains(&p) {
        return Err(GraphError::InvalidParam {
            name,
            value: p.to_string(),
            reason: "must be a probability in [0, 1]",
        });
    }
    Ok(())
}

/// Positions of the successes among `total` Bernoulli(`p`) trials, by geometric skipping:
/// the gap to the next success is `floor(ln U / ln(1 − p))`. Expected O(1 + p·total) time.
pub(crate) fn bernoulli_positions<'a, R: Rng + ?Sized>(
    total: u64,
    p: f64,
    rng: &'a mut R,
) -> impl Iterator<Item = u64> + 'a {
    let log_q = (-p).ln_1p();
    let mut next: u64 = 0;
    let mut done = p <= 0.0 || total == 0;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        if p >= 1.0 {
            let k = next;
            next += 1;
            done = next >= total;
            return Some(k);
        }
        // U in (0, 1]: ln U <= 0 and finite.
        let u: f64 = 1.0 - rng.random::<f64>();
        let skip = (u.ln() / log_q).floor();
        if skip >= (total - next) as f64 {
            done = true;
            return None;
        }
        let k = next + skip as u64;
        next = k + 1;
        done = next >= total;
        Some(k)
    })
}

/// Maps a linear index `k < s(s−1)/2` to the pair `(i, j)`, `i < j < s`, in the order
/// (0,1), (0,2), (1,2), (0,3), … (column-major over the strict upper triangle).
fn triangle_pair(k: u64) -> (u64, u64) {
    let mut j = ((1.0 + (1.0 + 8.0 * k as f64).sqrt()) / 2.0).floor() as u64;
    while j * (j - 1) / 2 > k {
        j -= 1;
    }
    while (j + 1) * j / 2 <= k {
        j += 1;
    }
    (k - j * (j - 1) / 2, j)
}

/// Erdős–Rényi G(n, p): every pair independently with probability `p`, by geometric skipping
/// over the pairs (Batagelj & Brandes 2005).
///
/// # Errors
/// [`GraphError::InvalidParam`] when `p` is not in [0, 1]; [`GraphError::TooManyNodes`].
///
/// # Complexity
/// Expected O(n + m).
///
/// # Example
/// ```
/// use rand::SeedableRng;
/// let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
/// let g = graph_core::generate::erdos_renyi(2000, 0.01, &mut rng)?;
/// let expected = 0.01 * 2000.0 * 1999.0 / 2.0;
/// assert!((g.num_edges() as f64 - expected).abs() < 5.0 * expected.sqrt());
/// # Ok::<(), graph_core::GraphError>(())
/// ```
pub fn erdos_renyi<R: Rng + ?Sized>(n: usize, p: f64, rng: &mut R) -> Result<Graph> {
    check_node_count(n)?;
    check_prob("p", p)?;
    let pairs = (n as u64) * (n as u64).saturating_sub(1) / 2;
    let mut edges: Vec<(u32, u32)> = Vec::with_capacity((p * pairs as f64 * 1.05) as usize + 16);
    for k in bernoulli_positions(pairs, p, rng) {
        let (i, j) = triangle_pair(k);
        edges.push((i as u32, j as u32));
    }
    // Edges come ordered by (j, i), i < j: sorted and unique, as `from_sorted_unique` needs.
    Ok(Graph::from_sorted_unique(n, &edges))
}

/// Stochastic block model: blocks of the given sizes (nodes numbered block by block), each pair
/// inside a block an edge with probability `p_in`, across blocks with `p_out`.
/// Returns the graph and the block of every node.
///
/// # Errors
/// [`GraphError::InvalidParam`] for probabilities outside [0, 1] or no blocks.
///
/// # Complexity
/// Expected O(n + m) sampling, then O(m log m) to build.
pub fn sbm<R: Rng + ?Sized>(
    block_sizes: &[usize],
    p_in: f64,
    p_out: f64,
    rng: &mut R,
) -> Result<(Graph, Vec<u32>)> {
    let k = block_sizes.len();
    let probs: Vec<Vec<f64>> = (0..k)
        .map(|a| (0..k).map(|b| if a == b { p_in } else { p_out }).collect())
        .collect();
    sbm_matrix(block_sizes, &probs, rng)
}

/// Stochastic block model with a full symmetric matrix of block-pair probabilities.
///
/// # Errors
/// [`GraphError::InvalidParam`] for a non-square or asymmetric matrix, probabilities outside
/// [0, 1], or no blocks.
pub fn sbm_matrix<R: Rng + ?Sized>(
    block_sizes: &[usize],
    probs: &[Vec<f64>],
    rng: &mut R,
) -> Result<(Graph, Vec<u32>)> {
    let k = block_sizes.len();
    if k == 0 {
        return Err(GraphError::InvalidParam {
            name: "block_sizes",
            value: "[]".into(),
            reason: "at least one block is needed",
        });
    }
    if probs.len() != k || probs.iter().any(|r| r.len() != k) {
        return Err(GraphError::InvalidParam {
            name: "probs",
            value: format!("{} rows", probs.len()),
            reason: "must be a k × k matrix for k blocks",
        });
    }
    for (a, row) in probs.iter().enumerate() {
        for (b, &pab) in row.iter().enumerate() {
            check_prob("probs", pab)?;
            if pab != probs[b][a] {
                return Err(GraphError::InvalidParam {
                    name: "probs",
                    value: format!("[{a}][{b}]"),
                    reason: "must be symmetric",
                });
            }
        }
    }
    let n: usize = block_sizes.iter().sum();
    check_node_count(n)?;
    let mut start = vec![0u64; k + 1];
    for (i, &s) in block_sizes.iter().enumerate() {
        start[i + 1] = start[i] + s as u64;
    }
    let mut b = GraphBuilder::new(n)?;
    for a in 0..k {
        let sa = block_sizes[a] as u64;
        for k_pos in bernoulli_positions(sa * sa.saturating_sub(1) / 2, probs[a][a], rng) {
            let (i, j) = triangle_pair(k_pos);
            b.add_edge((start[a] + i) as u32, (start[a] + j) as u32)?;
        }
        for c in a + 1..k {
            let sc = block_sizes[c] as u64;
            for k_pos in bernoulli_positions(sa * sc, probs[a][c], rng) {
                let (i, j) = (k_pos / sc, k_pos % sc);
                b.add_edge((start[a] + i) as u32, (start[c] + j) as u32)?;
            }
        }
    }
    let blocks = (0..k)
        .flat_map(|a| std::iter::repeat_n(a as u32, block_sizes[a]))
        .collect();
    Ok((b.build()?, blocks))
}

/// Parameters of a contextual SBM.
#[derive(Clone, Debug, PartialEq)]
pub struct ContextualSbm {
    /// Number of nodes (split into `classes` nearly equal blocks).
    pub n: usize,
    /// Number of classes (= blocks).
    pub classes: usize,
    /// Edge probability inside a class.
    pub p_in: f64,
    /// Edge probability across classes.
    pub p_out: f64,
    /// Feature dimension.
    pub dim: usize,
    /// Norm of each class mean; features are `mean[class] + N(0, I)`.
    pub mu: f64,
}

impl ContextualSbm {
    /// Samples a node-classification dataset: an SBM graph whose blocks are the classes, and
    /// Gaussian features around a random class mean of norm `mu` (mean directions drawn
    /// uniformly on the sphere).
    ///
    /// # Errors
    /// [`GraphError::InvalidParam`] for `classes == 0`, `classes > n`, `dim == 0`, a non-finite
    /// or negative `mu`, or bad probabilities.
    ///
    /// # Example
    /// ```
    /// use graph_core::generate::ContextualSbm;
    /// use rand::SeedableRng;
    /// let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    /// let ds = ContextualSbm { n: 300, classes: 3, p_in: 0.05, p_out: 0.005, dim: 8, mu: 2.0 }
    ///     .sample(&mut rng)?;
    /// assert_eq!(ds.features().dim(), (300, 8));
    /// assert_eq!(ds.class_counts(), vec![100, 100, 100]);
    /// # Ok::<(), graph_core::GraphError>(())
    /// ```
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Result<NodeDataset> {
        if self.classes == 0 || self.classes > self.n {
            return Err(GraphError::InvalidParam {
                name: "classes",
                value: self.classes.to_string(),
                reason: "must be between 1 and n",
            });
        }
        if self.dim == 0 {
            return Err(GraphError::InvalidParam {
                name: "dim",
                value: "0".into(),
                reason: "features need at least one dimension",
            });
        }
        if !self.mu.is_finite() || self.mu < 0.0 {
            return Err(GraphError::InvalidParam {
                name: "mu",
                value: self.mu.to_string(),
                reason: "must be finite and non-negative",
            });
        }
        let sizes: Vec<usize> = (0..self.classes)
            .map(|c| self.n / self.classes + usize::from(c < self.n % self.classes))
            .collect();
        let (graph, labels) = sbm(&sizes, self.p_in, self.p_out, rng)?;
        let means: Vec<Vec<f64>> = (0..self.classes)
            .map(|_| {
                let v: Vec<f64> = (0..self.dim).map(|_| StandardNormal.sample(rng)).collect();
                let norm = v
                    .iter()
                    .map(|x| x * x)
                    .sum::<f64>()
                    .sqrt()
                    .max(f64::MIN_POSITIVE);
                v.into_iter().map(|x| x * self.mu / norm).collect()
            })
            .collect();
        let mut features = Array2::<f32>::zeros((self.n, self.dim));
        for (i, mut row) in features.rows_mut().into_iter().enumerate() {
            let m = &means[labels[i] as usize];
            for (d, x) in row.iter_mut().enumerate() {
                let z: f64 = StandardNormal.sample(rng);
                *x = (m[d] + z) as f32;
            }
        }
        NodeDataset::new("csbm", graph, features, labels)
    }
}

/// A stand-in of Cora's shape for benchmarks and examples without the real data: 2,708 nodes in
/// 7 classes (contextual SBM with p_in = 0.0027, p_out = 0.0001, so ≈ 5,300 edges) and 1,433
/// binary features with up to 18 ones per node, drawn independently of the class.
///
/// # Errors
/// None in practice (the parameters are valid); the `Result` is the one of [`ContextualSbm::sample`].
///
/// # Example
/// ```
/// use rand::SeedableRng;
/// let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
/// let ds = graph_core::generate::cora_shaped(&mut rng)?;
/// assert_eq!(ds.features().dim(), (2708, 1433));
/// assert_eq!(ds.class_counts().len(), 7);
/// # Ok::<(), graph_core::GraphError>(())
/// ```
pub fn cora_shaped<R: Rng + ?Sized>(rng: &mut R) -> Result<NodeDataset> {
    const N: usize = 2708;
    const DIM: usize = 1433;
    let ds = ContextualSbm {
        n: N,
        classes: 7,
        p_in: 0.0027,
        p_out: 0.0001,
        dim: 1,
        mu: 0.0,
    }
    .sample(rng)?;
    let mut x = Array2::<f32>::zeros((N, DIM));
    for r in 0..N {
        for _ in 0..18 {
            x[[r, rng.random_range(0..DIM)]] = 1.0;
        }
    }
    NodeDataset::new("cora-shaped", ds.graph().clone(), x, ds.labels().to_vec())
}

/// Barabási–Albert preferential attachment: starts from a star on `m + 1` nodes, then each new
/// node joins `m` distinct existing nodes chosen with probability proportional to degree
/// (as networkx's `barabasi_albert_graph`).
///
/// # Errors
/// [`GraphError::InvalidParam`] unless `1 <= m < n`.
///
/// # Complexity
/// Expected O(n·m) sampling, then O(m n log(m n)) to build.
pub fn barabasi_albert<R: Rng + ?Sized>(n: usize, m: usize, rng: &mut R) -> Result<Graph> {
    if m == 0 || m >= n {
        return Err(GraphError::InvalidParam {
            name: "m",
            value: m.to_string(),
            reason: "must satisfy 1 <= m < n",
        });
    }
    check_node_count(n)?;
    let mut b = GraphBuilder::new(n)?;
    b.reserve(n * m);
    // Every edge endpoint once: sampling uniformly from it is sampling by degree.
    let mut ends: Vec<u32> = Vec::with_capacity(2 * n * m);
    for v in 1..=m as u32 {
        b.add_edge(0, v)?;
        ends.extend([0, v]);
    }
    let mut targets: Vec<u32> = Vec::with_capacity(m);
    for v in (m + 1) as u32..n as u32 {
        targets.clear();
        while targets.len() < m {
            let t = ends[rng.random_range(0..ends.len())];
            if !targets.contains(&t) {
                targets.push(t);
            }
        }
        for &t in &targets {
            b.add_edge(t, v)?;
            ends.extend([t, v]);
        }
    }
    b.build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn triangle_pairs_enumerate_in_order() {
        let mut k = 0;
        for j in 1..60u64 {
            for i in 0..j {
                assert_eq!(triangle_pair(k), (i, j));
                k += 1;
            }
        }
        // Large indices stay exact.
        let j = 3_000_000u64;
        assert_eq!(triangle_pair(j * (j - 1) / 2 + 5), (5, j));
    }

    #[test]
    fn gnp_edge_count_within_band_and_seeded() {
        let (n, p) = (3000usize, 0.004);
        let g = erdos_renyi(n, p, &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
        let mean = p * (n * (n - 1) / 2) as f64;
        let sd = (mean * (1.0 - p)).sqrt();
        assert!(
            (g.num_edges() as f64 - mean).abs() < 5.0 * sd,
            "{}",
            g.num_edges()
        );
        assert_eq!(
            g,
            erdos_renyi(n, p, &mut ChaCha8Rng::seed_from_u64(1)).unwrap()
        );
        assert_ne!(
            g,
            erdos_renyi(n, p, &mut ChaCha8Rng::seed_from_u64(2)).unwrap()
        );
        assert_eq!(
            erdos_renyi(5, 1.0, &mut ChaCha8Rng::seed_from_u64(0))
                .unwrap()
                .num_edges(),
            10
        );
        assert_eq!(
            erdos_renyi(5, 0.0, &mut ChaCha8Rng::seed_from_u64(0))
                .unwrap()
                .num_edges(),
            0
        );
        assert!(erdos_renyi(5, f64::NAN, &mut ChaCha8Rng::seed_from_u64(0)).is_err());
        assert!(erdos_renyi(5, 1.5, &mut ChaCha8Rng::seed_from_u64(0)).is_err());
    }

    #[test]
    fn sbm_densities_match_probabilities() {
        let (g, blocks) = sbm(&[400, 400], 0.1, 0.01, &mut ChaCha8Rng::seed_from_u64(3)).unwrap();
        let (mut inside, mut across) = (0usize, 0usize);
        for (u, v) in g.edges() {
            if blocks[u as usize] == blocks[v as usize] {
                inside += 1;
            } else {
                across += 1;
            }
        }
        let (ein, eout) = (0.1 * 2.0 * (400.0 * 399.0 / 2.0), 0.01 * 400.0 * 400.0);
        assert!((inside as f64 - ein).abs() < 5.0 * ein.sqrt(), "{inside}");
        assert!((across as f64 - eout).abs() < 5.0 * eout.sqrt(), "{across}");
        assert!(sbm(&[], 0.1, 0.1, &mut ChaCha8Rng::seed_from_u64(3)).is_err());
    }

    #[test]
    fn ba_has_expected_edges_and_degrees() {
        let g = barabasi_albert(1000, 3, &mut ChaCha8Rng::seed_from_u64(4)).unwrap();
        assert_eq!(g.num_edges(), 3 + 3 * (1000 - 4));
        assert!(g.degrees().skip(4).all(|d| d >= 3));
        assert!(g.max_degree() > 30, "preferential attachment makes hubs");
        assert!(barabasi_albert(3, 3, &mut ChaCha8Rng::seed_from_u64(4)).is_err());
    }

    #[test]
    fn csbm_features_separate_classes() {
        let ds = ContextualSbm {
            n: 400,
            classes: 2,
            p_in: 0.02,
            p_out: 0.002,
            dim: 16,
            mu: 4.0,
        }
        .sample(&mut ChaCha8Rng::seed_from_u64(5))
        .unwrap();
        let f = ds.features();
        let mean = |c: u32| -> Vec<f64> {
            let rows: Vec<_> = (0..400).filter(|&i| ds.labels()[i] == c).collect();
            (0..16)
                .map(|d| {
                    rows.iter().map(|&i| f64::from(f[[i, d]])).sum::<f64>() / rows.len() as f64
                })
                .collect()
        };
        let (m0, m1) = (mean(0), mean(1));
        let dist: f64 = m0
            .iter()
            .zip(&m1)
            .map(|(a, b)| (a - b).powi(2))
            .sum::<f64>()
            .sqrt();
        assert!(dist > 2.0, "class means should be apart, got {dist}");
    }
}
