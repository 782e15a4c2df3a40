//! The [`Pattern`] type: a validated small simple graph with bit-mask adjacency.

use crate::error::{HomdpError, Result};
use crate::pattern::TreeDecomposition;

/// Largest supported pattern: adjacency rows are single `u64` masks.
pub const MAX_PATTERN_NODES: usize = 64;

/// The structural class of a pattern, which selects the counting algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum PatternKind {
    /// No cycles (isolated vertices allowed): per-component tree DP.
    Forest,
    /// A single cycle `C_k`, `k ≥ 3`, and nothing else: trace(A^k).
    Cycle(usize),
    /// Anything else: DP over the pattern's tree decomposition.
    General,
}

/// A pattern graph `F`: simple, undirected, `1..=64` nodes, with its connected components and a
/// tree decomposition (used by the bounded-treewidth counter).
///
/// # Example
/// ```
/// use homdp::{Pattern, PatternKind};
/// let p = Pattern::new(4, &[(0, 1), (1, 2)])?; // P3 + K1
/// assert_eq!((p.num_nodes(), p.num_edges(), p.num_components()), (4, 2, 2));
/// assert_eq!(p.kind(), PatternKind::Forest);
/// assert_eq!(p.decomposition().width(), 1);
/// assert!(Pattern::new(3, &[(1, 1)]).is_err());
/// # Ok::<(), homdp::HomdpError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pattern {
    adj: Vec<u64>,
    edges: Vec<(u8, u8)>,
    component: Vec<u8>,
    num_components: usize,
    /// Breadth-first order over all components: `(node, position of its parent in this list)`,
    /// `u8::MAX` for component roots. Parents come before children.
    bfs: Vec<(u8, u8)>,
    kind: PatternKind,
    decomposition: TreeDecomposition,
}

impl Pattern {
    /// A pattern on nodes `0..n` with the given undirected edges. Its tree decomposition comes
    /// from a greedy minimum-degree elimination order (width 1 for forests, 2 for cycles).
    ///
    /// # Errors
    /// [`HomdpError::EmptyPattern`] for `n = 0`, [`HomdpError::PatternTooLarge`] for `n > 64`,
    /// [`HomdpError::SelfLoop`], [`HomdpError::NodeOutOfRange`], [`HomdpError::DuplicateEdge`].
    ///
    /// # Complexity
    /// O(n³) for the elimination order.
    pub fn new(n: usize, edges: &[(usize, usize)]) -> Result<Self> {
        let (adj, edges) = validate(n, edges)?;
        let decomposition = TreeDecomposition::min_degree(&adj);
        Ok(Self::assemble(adj, edges, decomposition))
    }

    /// A pattern with a caller-supplied tree decomposition (checked).
    ///
    /// # Errors
    /// As [`Pattern::new`], plus [`HomdpError::InvalidDecomposition`] when `decomposition` is
    /// not a tree decomposition of this graph.
    pub fn with_decomposition(
        n: usize,
        edges: &[(usize, usize)],
        decomposition: TreeDecomposition,
    ) -> Result<Self> {
        let (adj, edges) = validate(n, edges)?;
        decomposition.check(&adj)?;
        Ok(Self::assemble(adj, edges, decomposition))
    }

    /// Internal constructor for sampled patterns whose decomposition is valid by construction.
    pub(crate) fn from_parts(
        n: usize,
        edges: &[(usize, usize)],
        decomposition: TreeDecomposition,
    ) -> Self {
        let (adj, edges) = validate(n, edges).expect("sampler produces valid patterns");
        debug_assert!(decomposition.check(&adj).is_ok());
        Self::assemble(adj, edges, decomposition)
    }

    fn assemble(adj: Vec<u64>, edges: Vec<(u8, u8)>, decomposition: TreeDecomposition) -> Self {
        let n = adj.len();
        let mut component = vec![u8::MAX; n];
        let mut bfs: Vec<(u8, u8)> = Vec::with_capacity(n);
        let mut count = 0usize;
        for s in 0..n {
            if component[s] != u8::MAX {
                continue;
            }
            component[s] = count as u8;
            let mut head = bfs.len();
            bfs.push((s as u8, u8::MAX));
            while head < bfs.len() {
                let u = bfs[head].0 as usize;
                let mut m = adj[u];
                while m != 0 {
                    let v = m.trailing_zeros() as usize;
                    m &= m - 1;
                    if component[v] == u8::MAX {
                        component[v] = count as u8;
                        bfs.push((v as u8, head as u8));
                    }
                }
                head += 1;
            }
            count += 1;
        }
        let kind = if edges.len() + count == n {
            PatternKind::Forest
        } else if count == 1 && n >= 3 && adj.iter().all(|r| r.count_ones() == 2) {
            PatternKind::Cycle(n)
        } else {
            PatternKind::General
        };
        Self {
            adj,
            edges,
            component,
            num_components: count,
            bfs,
            kind,
            decomposition,
        }
    }

    /// The path `P_m` on `m` nodes (`m − 1` edges).
    ///
    /// # Errors
    /// As [`Pattern::new`] for `m = 0` or `m > 64`.
    pub fn path(m: usize) -> Result<Self> {
        let edges: Vec<_> = (1..m).map(|i| (i - 1, i)).collect();
        Self::new(m, &edges)
    }

    /// The cycle `C_k` (`k ≥ 3`).
    ///
    /// # Errors
    /// [`HomdpError::InvalidParam`] for `k < 3`; [`HomdpError::PatternTooLarge`] for `k > 64`.
    pub fn cycle(k: usize) -> Result<Self> {
        if k < 3 {
            return crate::error::invalid("k", k as f64, "a cycle needs at least 3 nodes");
        }
        let edges: Vec<_> = (0..k).map(|i| (i, (i + 1) % k)).collect();
        Self::new(k, &edges)
    }

    /// The complete graph `K_m`.
    ///
    /// # Errors
    /// As [`Pattern::new`].
    pub fn complete(m: usize) -> Result<Self> {
        let edges: Vec<_> = (0..m)
            .flat_map(|i| (i + 1..m).map(move |j| (i, j)))
            .collect();
        Self::new(m, &edges)
    }

    /// The star `K_{1,leaves}`: centre 0 joined to `1..=leaves`.
    ///
    /// # Errors
    /// As [`Pattern::new`] for more than 63 leaves.
    pub fn star(leaves: usize) -> Result<Self> {
        let edges: Vec<_> = (1..=leaves).map(|i| (0, i)).collect();
        Self::new(leaves + 1, &edges)
    }

    /// The disjoint union `self + other` (nodes of `other` shifted by `self.num_nodes()`).
    ///
    /// # Errors
    /// [`HomdpError::PatternTooLarge`] when the union has more than 64 nodes.
    pub fn disjoint_union(&self, other: &Pattern) -> Result<Self> {
        let off = self.num_nodes();
        let edges: Vec<_> = self
            .edges()
            .chain(other.edges().map(|(u, v)| (u + off, v + off)))
            .collect();
        Self::new(off + other.num_nodes(), &edges)
    }

    /// Number of nodes `m = |V(F)|`.
    pub fn num_nodes(&self) -> usize {
        self.adj.len()
    }

    /// Number of edges `e(F)`.
    pub fn num_edges(&self) -> usize {
        self.edges.len()
    }

    /// Edges `(u, v)` with `u < v`, sorted.
    pub fn edges(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.edges.iter().map(|&(u, v)| (u as usize, v as usize))
    }

    /// Neighbours of `v` as a bit mask (bit `u` set iff `{u, v}` is an edge).
    ///
    /// # Panics
    /// When `v >= num_nodes()`.
    pub fn neighbor_mask(&self, v: usize) -> u64 {
        self.adj[v]
    }

    /// Whether `{u, v}` is an edge (false for out-of-range ids).
    pub fn has_edge(&self, u: usize, v: usize) -> bool {
        u < self.adj.len() && v < 64 && self.adj[u] >> v & 1 == 1
    }

    /// Degree of `v`.
    ///
    /// # Panics
    /// When `v >= num_nodes()`.
    pub fn degree(&self, v: usize) -> usize {
        self.adj[v].count_ones() as usize
    }

    /// Number of connected components `c` (isolated vertices count).
    pub fn num_components(&self) -> usize {
        self.num_components
    }

    /// Component id (in `0..num_components()`, numbered by smallest node) of every node.
    pub(crate) fn component_labels(&self) -> Vec<usize> {
        self.component.iter().map(|&c| c as usize).collect()
    }

    /// The nodes of every component, each list ascending.
    pub fn components(&self) -> Vec<Vec<usize>> {
        let mut out = vec![Vec::new(); self.num_components];
        for (v, &c) in self.component.iter().enumerate() {
            out[c as usize].push(v);
        }
        out
    }

    /// The structural class (forest, single cycle, general).
    pub fn kind(&self) -> PatternKind {
        self.kind
    }

    /// Whether the pattern has no cycle.
    pub fn is_forest(&self) -> bool {
        self.kind == PatternKind::Forest
    }

    /// The attached tree decomposition.
    pub fn decomposition(&self) -> &TreeDecomposition {
        &self.decomposition
    }

    /// Breadth-first order `(node, parent position or u8::MAX)`, parents before children.
    pub(crate) fn bfs_order(&self) -> &[(u8, u8)] {
        &self.bfs
    }

    /// The adjacency masks, one per node.
    #[cfg(test)]
    pub(crate) fn adjacency(&self) -> &[u64] {
        &self.adj
    }
}

/// Adjacency masks and sorted `(u, v)`, `u < v`, edges of a validated pattern.
type Validated = (Vec<u64>, Vec<(u8, u8)>);

/// Checks `n` and the edges; returns adjacency masks and sorted edges.
fn validate(n: usize, edges: &[(usize, usize)]) -> Result<Validated> {
    if n == 0 {
        return Err(HomdpError::EmptyPattern);
    }
    if n > MAX_PATTERN_NODES {
        return Err(HomdpError::PatternTooLarge {
            nodes: n,
            max: MAX_PATTERN_NODES,
        });
    }
    let mut adj = vec![0u64; n];
    let mut out = Vec::with_capacity(edges.len());
    for &(u, v) in edges {
        for x in [u, v] {
            if x >= n {
                return Err(HomdpError::NodeOutOfRange { node: x, n });
            }
        }
        if u == v {
            return Err(HomdpError::SelfLoop { node: u });
        }
        let (a, b) = if u < v { (u, v) } else { (v, u) };
        if adj[a] >> b & 1 == 1 {
            return Err(HomdpError::DuplicateEdge { u: a, v: b });
        }
        adj[a] |= 1 << b;
        adj[b] |= 1 << a;
        out.push((a as u8, b as u8));
    }
    out.sort_unstable();
    Ok((adj, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_patterns() {
        assert!(matches!(
            Pattern::new(0, &[]),
            Err(HomdpError::EmptyPattern)
        ));
        assert!(matches!(
            Pattern::new(65, &[]),
            Err(HomdpError::PatternTooLarge { nodes: 65, max: 64 })
        ));
        assert!(matches!(
            Pattern::new(3, &[(2, 2)]),
            Err(HomdpError::SelfLoop { node: 2 })
        ));
        assert!(matches!(
            Pattern::new(3, &[(0, 3)]),
            Err(HomdpError::NodeOutOfRange { node: 3, n: 3 })
        ));
        assert!(matches!(
            Pattern::new(3, &[(0, 1), (1, 0)]),
            Err(HomdpError::DuplicateEdge { u: 0, v: 1 })
        ));
        assert!(matches!(
            Pattern::cycle(2),
            Err(HomdpError::InvalidParam { name: "k", .. })
        ));
        assert!(Pattern::star(63).is_ok());
        assert!(matches!(
            Pattern::star(64),
            Err(HomdpError::PatternTooLarge { .. })
        ));
    }

    #[test]
    fn kinds_components_and_widths() -> Result<()> {
        let c5 = Pattern::cycle(5)?;
        assert_eq!(c5.kind(), PatternKind::Cycle(5));
        assert_eq!(c5.decomposition().width(), 2);
        let k4 = Pattern::complete(4)?;
        assert_eq!(k4.kind(), PatternKind::General);
        assert_eq!(k4.decomposition().width(), 3);
        let f = Pattern::path(3)?.disjoint_union(&Pattern::complete(2)?)?;
        assert_eq!(f.kind(), PatternKind::Forest);
        assert_eq!(f.num_components(), 2);
        assert_eq!(f.components(), vec![vec![0, 1, 2], vec![3, 4]]);
        let two_triangles = Pattern::cycle(3)?.disjoint_union(&Pattern::cycle(3)?)?;
        assert_eq!(two_triangles.kind(), PatternKind::General);
        assert_eq!(Pattern::new(1, &[])?.kind(), PatternKind::Forest);
        Ok(())
    }
}
