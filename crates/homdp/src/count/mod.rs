//! Exact homomorphism counts `hom(F, G)` and densities `t(F, G) = hom(F, G) / n^|V(F)|`.
//!
//! Every algorithm runs in two arithmetics:
//! - exact `u128` with checked operations: an overflow is [`HomdpError::Overflow`], never a
//!   wrapped value (the reference implementation uses wrapping `int64`);
//! - scaled `f64`, where each summed-out pattern node carries a factor `1/n`, so every
//!   intermediate is a partial density in `[0, 1]` and nothing overflows for graphs of any size.

mod brute;
mod cycle;
mod forest;
mod sparse;
mod treewidth;

use graph_core::Graph;
use ndarray::Array2;
use rayon::prelude::*;

use crate::error::{HomdpError, Result};
use crate::pattern::{Pattern, PatternKind};

pub use treewidth::MAX_TABLE_ENTRIES;

/// Which counting algorithm to run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Method {
    /// Forest DP for forests, trace(A^k) for cycles, the sparse tree-decomposition DP
    /// ([`Method::SparseTreeDecomposition`]) otherwise.
    #[default]
    Auto,
    /// Per-component tree DP, O(|V(F)|·(n + |E(G)|)); forests only.
    Forest,
    /// `trace(A^k)` by sparse walks, O(n·k·(n + |E(G)|)); single cycles `C_k` only.
    Cycle,
    /// DP over a nice tree decomposition with dense tables, O(|V(F)|·w·n^(w+1)) for width `w`;
    /// any pattern. Tables are limited to [`MAX_TABLE_ENTRIES`] entries (`n^(w+1)`).
    TreeDecomposition,
    /// The same DP with sparse tables (only the non-zero entries, images of an introduced node
    /// enumerated among graph neighbours), each connected component of the pattern counted on
    /// its own; any pattern. For a connected bag of size `w + 1` a table holds at most
    /// `n·Δ^w` entries (Δ the graph's maximum degree), so on sparse graphs it is orders of
    /// magnitude faster than [`Method::TreeDecomposition`] (a treewidth-3 pattern on a
    /// 25-atom molecule: ≈ 1,600 instead of 390,625 entries). A table with more than
    /// [`MAX_TABLE_ENTRIES`] non-zero entries is [`HomdpError::TooExpensive`].
    SparseTreeDecomposition,
    /// Enumeration of all `n^|V(F)|` maps (the reference oracle for tests).
    BruteForce,
}

/// The number system a DP runs in. Operations return `None` on overflow.
pub(crate) trait Arith: Copy + Sync {
    type W: Copy + Send + Sync + PartialEq + std::fmt::Debug;
    fn zero(&self) -> Self::W;
    fn one(&self) -> Self::W;
    fn add(&self, a: Self::W, b: Self::W) -> Option<Self::W>;
    fn mul(&self, a: Self::W, b: Self::W) -> Option<Self::W>;
    /// Weight of summing out one pattern node: 1 (exact) or `1/n` (scaled).
    fn unit(&self) -> Self::W;
}

/// Exact counting in `u128`, checked.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Exact;

impl Arith for Exact {
    type W = u128;
    #[inline]
    fn zero(&self) -> u128 {
        0
    }
    #[inline]
    fn one(&self) -> u128 {
        1
    }
    #[inline]
    fn add(&self, a: u128, b: u128) -> Option<u128> {
        a.checked_add(b)
    }
    #[inline]
    fn mul(&self, a: u128, b: u128) -> Option<u128> {
        a.checked_mul(b)
    }
    #[inline]
    fn unit(&self) -> u128 {
        1
    }
}

/// Densities in `f64`: every summed-out node is weighted by `1/n`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scaled {
    pub(crate) inv_n: f64,
}

impl Arith for Scaled {
    type W = f64;
    #[inline]
    fn zero(&self) -> f64 {
        0.0
    }
    #[inline]
    fn one(&self) -> f64 {
        1.0
    }
    #[inline]
    fn add(&self, a: f64, b: f64) -> Option<f64> {
        Some(a + b)
    }
    #[inline]
    fn mul(&self, a: f64, b: f64) -> Option<f64> {
        Some(a * b)
    }
    #[inline]
    fn unit(&self) -> f64 {
        self.inv_n
    }
}

/// Sum by pairwise splitting: O(log len) rounding error growth in `f64` instead of O(len).
pub(crate) fn pairwise_sum<A: Arith>(a: &A, xs: &[A::W]) -> Option<A::W> {
    if xs.len() <= 32 {
        let mut s = a.zero();
        for &x in xs {
            s = a.add(s, x)?;
        }
        Some(s)
    } else {
        let (l, r) = xs.split_at(xs.len() / 2);
        a.add(pairwise_sum(a, l)?, pairwise_sum(a, r)?)
    }
}

fn resolve(pattern: &Pattern, method: Method) -> Result<Method> {
    Ok(match (method, pattern.kind()) {
        (Method::Auto, PatternKind::Forest) => Method::Forest,
        (Method::Auto, PatternKind::Cycle(_)) => Method::Cycle,
        (Method::Auto, PatternKind::General) => Method::SparseTreeDecomposition,
        (Method::Forest, k) if k != PatternKind::Forest => {
            return Err(HomdpError::WrongPatternClass {
                method: "forest",
                needs: "a forest pattern",
            });
        }
        (Method::Cycle, k) if !matches!(k, PatternKind::Cycle(_)) => {
            return Err(HomdpError::WrongPatternClass {
                method: "cycle",
                needs: "a single cycle C_k with k >= 3",
            });
        }
        (m, _) => m,
    })
}

fn run<A: Arith>(a: &A, pattern: &Pattern, graph: &Graph, method: Method) -> Result<A::W> {
    let overflow = || HomdpError::Overflow {
        pattern_nodes: pattern.num_nodes(),
        graph_nodes: graph.num_nodes(),
    };
    match resolve(pattern, method)? {
        Method::Forest => forest::count(a, pattern, graph).ok_or_else(overflow),
        Method::Cycle => cycle::count(a, pattern.num_nodes(), graph).ok_or_else(overflow),
        Method::TreeDecomposition => treewidth::count(a, pattern, graph)?.ok_or_else(overflow),
        Method::SparseTreeDecomposition => sparse::count(a, pattern, graph)?.ok_or_else(overflow),
        Method::BruteForce | Method::Auto => unreachable!("resolved above / handled by caller"),
    }
}

/// The exact number of homomorphisms `hom(F, G)`, choosing the algorithm from the pattern's
/// class ([`Method::Auto`]).
///
/// # Errors
/// [`HomdpError::Overflow`] when the count (or an intermediate) exceeds `u128`;
/// [`HomdpError::TooExpensive`] when a tree-decomposition table would exceed
/// [`MAX_TABLE_ENTRIES`] entries.
///
/// # Complexity
/// Forests O(|V(F)|·(n + |E(G)|)); cycles O(n·k·(n + |E(G)|)); otherwise the sparse
/// tree-decomposition DP, O(|V(F)|·T·(log T + w·log Δ)) for tables of at most `T` entries
/// (`T ≤ n·Δ^w` for a bag that is connected in the pattern, `n^(w+1)` at worst).
///
/// # Example
/// ```
/// use graph_core::Graph;
/// use homdp::{hom_count, Pattern};
/// let k3 = Graph::from_edges(3, &[(0, 1), (1, 2), (0, 2)])?;
/// assert_eq!(hom_count(&Pattern::path(3)?, &k3)?, 12);
/// assert_eq!(hom_count(&Pattern::cycle(3)?, &k3)?, 6);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn hom_count(pattern: &Pattern, graph: &Graph) -> Result<u128> {
    hom_count_with(pattern, graph, Method::Auto)
}

/// [`hom_count`] with an explicit algorithm.
///
/// # Errors
/// As [`hom_count`], plus [`HomdpError::WrongPatternClass`] when `method` does not apply to the
/// pattern, and [`HomdpError::TooExpensive`] for brute force beyond 2^32 maps.
pub fn hom_count_with(pattern: &Pattern, graph: &Graph, method: Method) -> Result<u128> {
    if method == Method::BruteForce {
        return brute::count(pattern, graph);
    }
    run(&Exact, pattern, graph, method)
}

/// The homomorphism density `t(F, G) = hom(F, G) / n^|V(F)|`, computed in scaled `f64` so that
/// it never overflows (relative error about `|V(F)|·ε_machine` per summed term).
///
/// # Errors
/// [`HomdpError::EmptyGraph`] when `n = 0`; [`HomdpError::TooExpensive`] as in [`hom_count`].
///
/// # Complexity
/// As [`hom_count`].
///
/// # Example
/// ```
/// use graph_core::Graph;
/// use homdp::{hom_density, Pattern};
/// let p5 = Graph::from_edges(5, &[(0, 1), (1, 2), (2, 3), (3, 4)])?;
/// let k2_k1 = Pattern::new(3, &[(0, 1)])?;
/// assert!((hom_density(&k2_k1, &p5)? - 8.0 / 25.0).abs() < 1e-15);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn hom_density(pattern: &Pattern, graph: &Graph) -> Result<f64> {
    hom_density_with(pattern, graph, Method::Auto)
}

/// [`hom_density`] with an explicit algorithm.
///
/// # Errors
/// As [`hom_density`] and [`hom_count_with`].
pub fn hom_density_with(pattern: &Pattern, graph: &Graph, method: Method) -> Result<f64> {
    let n = graph.num_nodes();
    if n == 0 {
        return Err(HomdpError::EmptyGraph { index: 0 });
    }
    if method == Method::BruteForce {
        return hom_density_exact_with(pattern, graph, method);
    }
    run(
        &Scaled {
            inv_n: 1.0 / n as f64,
        },
        pattern,
        graph,
        method,
    )
}

/// The density from the exact `u128` count, `hom(F, G)` divided by `n` once per pattern node.
///
/// # Errors
/// As [`hom_count`], and [`HomdpError::EmptyGraph`] when `n = 0`.
pub fn hom_density_exact(pattern: &Pattern, graph: &Graph) -> Result<f64> {
    hom_density_exact_with(pattern, graph, Method::Auto)
}

fn hom_density_exact_with(pattern: &Pattern, graph: &Graph, method: Method) -> Result<f64> {
    let n = graph.num_nodes();
    if n == 0 {
        return Err(HomdpError::EmptyGraph { index: 0 });
    }
    let hom = hom_count_with(pattern, graph, method)?;
    Ok((0..pattern.num_nodes()).fold(hom as f64, |t, _| t / n as f64))
}

/// Densities of every pattern in every graph (row `i` = graph `i`), in parallel over graphs.
///
/// # Errors
/// [`HomdpError::EmptyGraph`] (with the graph's index) for a graph without nodes;
/// [`HomdpError::TooExpensive`] as in [`hom_density`].
///
/// # Complexity
/// The sum of [`hom_density`] over all pairs, spread over rayon's threads. `graphs` may hold
/// graphs or references to them (`&[Graph]`, `&[&Graph]`): no copy is needed.
///
/// # Example
/// ```
/// use graph_core::Graph;
/// use homdp::{density_matrix, Pattern};
/// let graphs = vec![Graph::from_edges(2, &[(0, 1)])?, Graph::empty(3)?];
/// let pats = vec![Pattern::new(1, &[])?, Pattern::path(2)?];
/// let t = density_matrix(&pats, &graphs)?;
/// assert_eq!(t.shape(), &[2, 2]);
/// assert_eq!(t.row(0).to_vec(), vec![1.0, 0.5]);
/// assert_eq!(t.row(1).to_vec(), vec![1.0, 0.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn density_matrix<G>(patterns: &[Pattern], graphs: &[G]) -> Result<Array2<f64>>
where
    G: std::borrow::Borrow<Graph> + Sync,
{
    let rows: Vec<Vec<f64>> = graphs
        .par_iter()
        .enumerate()
        .map(|(i, g)| density_row(patterns, g.borrow(), i))
        .collect::<Result<_>>()?;
    let d = patterns.len();
    let flat: Vec<f64> = rows.into_iter().flatten().collect();
    Ok(Array2::from_shape_vec((graphs.len(), d), flat).expect("every row has d entries"))
}

/// Densities of all patterns in one graph; `index` only labels errors.
pub(crate) fn density_row(patterns: &[Pattern], g: &Graph, index: usize) -> Result<Vec<f64>> {
    if g.num_nodes() == 0 {
        return Err(HomdpError::EmptyGraph { index });
    }
    patterns.iter().map(|p| hom_density(p, g)).collect()
}

#[cfg(test)]
mod tests;
