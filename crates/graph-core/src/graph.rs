//! The undirected simple graph in compressed sparse row (CSR) form.

use crate::error::{GraphError, Result};

/// An undirected simple graph (no self-loops, no parallel edges) on nodes `0..n` with `u32` ids,
/// stored in CSR form: every edge `{u, v}` appears in the neighbour lists of both endpoints, and
/// each neighbour list is sorted ascending.
///
/// Build one with [`GraphBuilder`](crate::GraphBuilder), [`Graph::from_edges`], a loader or a
/// generator. The invariants (sorted, no loops, no duplicates, symmetric) hold for every value of
/// this type, so algorithms may rely on them.
///
/// # Example
/// ```
/// use graph_core::Graph;
/// let g = Graph::from_edges(4, &[(0, 1), (1, 2), (2, 0)])?;
/// assert_eq!(g.num_nodes(), 4);
/// assert_eq!(g.num_edges(), 3);
/// assert_eq!(g.neighbors(2), &[0, 1]);
/// assert!(g.has_edge(1, 0) && !g.has_edge(0, 3));
/// assert_eq!(g.connected_components().count(), 2);
/// # Ok::<(), graph_core::GraphError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Graph {
    /// `offsets[u]..offsets[u + 1]` indexes `targets` for node `u`; length `n + 1`.
    offsets: Vec<usize>,
    /// Concatenated sorted neighbour lists; length `2m`.
    targets: Vec<u32>,
}

impl Graph {
    /// A graph with `n` isolated nodes.
    ///
    /// # Errors
    /// [`GraphError::TooManyNodes`] when `n` does not fit in `u32` ids.
    pub fn empty(n: usize) -> Result<Self> {
        check_node_count(n)?;
        Ok(Self {
            offsets: vec![0; n + 1],
            targets: Vec::new(),
        })
    }

    /// Builds a graph from undirected edges; duplicates (in either orientation) are rejected.
    ///
    /// # Errors
    /// Self-loops, ids `>= n` and duplicate edges give typed errors.
    ///
    /// # Complexity
    /// O(n + m log m).
    pub fn from_edges(n: usize, edges: &[(u32, u32)]) -> Result<Self> {
        let mut b = crate::GraphBuilder::new(n)?;
        b.try_reserve(edges.len(), "the edges")?;
        for &(u, v) in edges {
            b.add_edge(u, v)?;
        }
        b.build()
    }

    /// Builds the CSR arrays from edges `(u, v)` with `u < v`, sorted lexicographically by
    /// `(v, u)` or `(u, v)` and free of duplicates. The caller guarantees these invariants.
    pub(crate) fn from_sorted_unique(n: usize, edges: &[(u32, u32)]) -> Self {
        let mut offsets = vec![0usize; n + 1];
        for &(u, v) in edges {
            offsets[u as usize + 1] += 1;
            offsets[v as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets[..n].to_vec();
        let mut targets = vec![0u32; 2 * edges.len()];
        for &(u, v) in edges {
            targets[fill[u as usize]] = v;
            fill[u as usize] += 1;
            targets[fill[v as usize]] = u;
            fill[v as usize] += 1;
        }
        let mut g = Self { offsets, targets };
        // Lists are sorted already for (u, v)-lexicographic input only when every node's smaller
        // neighbours are inserted before its larger ones; sort where that does not hold.
        g.sort_rows();
        g
    }

    fn sort_rows(&mut self) {
        for u in 0..self.num_nodes() {
            let (s, e) = (self.offsets[u], self.offsets[u + 1]);
            let row = &mut self.targets[s..e];
            if !row.is_sorted() {
                row.sort_unstable();
            }
        }
    }

    /// Number of nodes `n`.
    pub fn num_nodes(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Number of undirected edges `m`.
    pub fn num_edges(&self) -> usize {
        self.targets.len() / 2
    }

    /// Degree of `u` in O(1).
    ///
    /// # Panics
    /// When `u >= n` (an index error, like slice indexing).
    pub fn degree(&self, u: u32) -> usize {
        let u = u as usize;
        self.offsets[u + 1] - self.offsets[u]
    }

    /// The sorted neighbours of `u`.
    ///
    /// # Panics
    /// When `u >= n`.
    pub fn neighbors(&self, u: u32) -> &[u32] {
        let u = u as usize;
        &self.targets[self.offsets[u]..self.offsets[u + 1]]
    }

    /// Whether `{u, v}` is an edge, by binary search in the shorter neighbour list.
    ///
    /// Out-of-range ids are simply not adjacent.
    ///
    /// # Complexity
    /// O(log min(deg u, deg v)).
    pub fn has_edge(&self, u: u32, v: u32) -> bool {
        let n = self.num_nodes();
        if u as usize >= n || v as usize >= n {
            return false;
        }
        let (a, b) = if self.degree(u) <= self.degree(v) {
            (u, v)
        } else {
            (v, u)
        };
        self.neighbors(a).binary_search(&b).is_ok()
    }

    /// Iterator over the edges `(u, v)` with `u < v`, in lexicographic order.
    pub fn edges(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        (0..self.num_nodes() as u32).flat_map(move |u| {
            let row = self.neighbors(u);
            let start = row.partition_point(|&v| v <= u);
            row[start..].iter().map(move |&v| (u, v))
        })
    }

    /// The degree sequence.
    pub fn degrees(&self) -> impl Iterator<Item = usize> + '_ {
        self.offsets.windows(2).map(|w| w[1] - w[0])
    }

    /// Largest degree (0 for a graph without edges).
    pub fn max_degree(&self) -> usize {
        self.degrees().max().unwrap_or(0)
    }

    /// Edge density `m / (n(n-1)/2)`; 0 for graphs with fewer than two nodes.
    pub fn density(&self) -> f64 {
        let n = self.num_nodes() as f64;
        if n < 2.0 {
            0.0
        } else {
            self.num_edges() as f64 / (n * (n - 1.0) / 2.0)
        }
    }

    /// The raw CSR arrays `(offsets, targets)`.
    pub fn csr(&self) -> (&[usize], &[u32]) {
        (&self.offsets, &self.targets)
    }

    /// Connected components (isolated nodes are components of their own).
    ///
    /// # Complexity
    /// O(n + m α(n)) by union–find.
    pub fn connected_components(&self) -> Components {
        let n = self.num_nodes();
        let mut parent: Vec<u32> = (0..n as u32).collect();
        fn find(p: &mut [u32], mut x: u32) -> u32 {
            while p[x as usize] != x {
                let gp = p[p[x as usize] as usize];
                p[x as usize] = gp;
                x = gp;
            }
            x
        }
        for (u, v) in self.edges() {
            let (ru, rv) = (find(&mut parent, u), find(&mut parent, v));
            if ru != rv {
                let (lo, hi) = if ru < rv { (ru, rv) } else { (rv, ru) };
                parent[hi as usize] = lo;
            }
        }
        let mut label = vec![u32::MAX; n];
        let mut count = 0u32;
        for u in 0..n as u32 {
            let r = find(&mut parent, u);
            if label[r as usize] == u32::MAX {
                label[r as usize] = count;
                count += 1;
            }
            label[u as usize] = label[r as usize];
        }
        Components {
            label,
            count: count as usize,
        }
    }

    /// Bit-packed adjacency: row `u` is `ceil(n / 64)` words, bit `v` set iff `{u, v}` is an edge.
    ///
    /// Meant for dense kernels (AND + popcount) on graphs of up to some ten thousand nodes.
    ///
    /// # Complexity
    /// O(n² / 64) words of memory and time.
    pub fn bit_adjacency(&self) -> BitAdjacency {
        let n = self.num_nodes();
        let words = n.div_ceil(64);
        let mut bits = vec![0u64; n * words];
        for u in 0..n {
            let row = &mut bits[u * words..(u + 1) * words];
            for &v in self.neighbors(u as u32) {
                row[v as usize / 64] |= 1u64 << (v % 64);
            }
        }
        BitAdjacency {
            n,
            words_per_row: words,
            bits,
        }
    }

    /// The subgraph induced by `nodes` (in that order: node `nodes[i]` becomes `i`).
    ///
    /// # Errors
    /// [`GraphError::NodeOutOfRange`] for an id `>= n`; [`GraphError::InvalidParam`] when a node
    /// is listed twice.
    pub fn induced_subgraph(&self, nodes: &[u32]) -> Result<Self> {
        let n = self.num_nodes();
        let mut local = vec![u32::MAX; n];
        for (i, &u) in nodes.iter().enumerate() {
            let slot = local
                .get_mut(u as usize)
                .ok_or(GraphError::NodeOutOfRange {
                    node: u64::from(u),
                    n: n as u64,
                })?;
            if *slot != u32::MAX {
                return Err(GraphError::InvalidParam {
                    name: "nodes",
                    value: u.to_string(),
                    reason: "node listed twice",
                });
            }
            *slot = i as u32;
        }
        let mut b = crate::GraphBuilder::new(nodes.len())?;
        for &u in nodes {
            for &v in self.neighbors(u) {
                let (lu, lv) = (local[u as usize], local[v as usize]);
                if lv != u32::MAX && lu < lv {
                    b.add_edge(lu, lv)?;
                }
            }
        }
        b.build()
    }
}

/// Rejects node counts that do not fit `u32` ids.
pub(crate) fn check_node_count(n: usize) -> Result<()> {
    if n > u32::MAX as usize {
        return Err(GraphError::TooManyNodes { n: n as u64 });
    }
    Ok(())
}

/// Connected components: a component id in `0..count` per node, numbered by smallest node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Components {
    label: Vec<u32>,
    count: usize,
}

impl Components {
    /// Number of components.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Component id of every node.
    pub fn labels(&self) -> &[u32] {
        &self.label
    }

    /// Size of every component.
    pub fn sizes(&self) -> Vec<usize> {
        let mut s = vec![0; self.count];
        for &c in &self.label {
            s[c as usize] += 1;
        }
        s
    }
}

/// A bit-packed adjacency matrix: `n` rows of `words_per_row` `u64` words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitAdjacency {
    n: usize,
    words_per_row: usize,
    bits: Vec<u64>,
}

impl BitAdjacency {
    /// Number of rows (nodes).
    pub fn num_nodes(&self) -> usize {
        self.n
    }

    /// Words per row, `ceil(n / 64)`.
    pub fn words_per_row(&self) -> usize {
        self.words_per_row
    }

    /// Row `u` as words; bit `v % 64` of word `v / 64` is set iff `{u, v}` is an edge.
    ///
    /// # Panics
    /// When `u >= n`.
    pub fn row(&self, u: usize) -> &[u64] {
        &self.bits[u * self.words_per_row..(u + 1) * self.words_per_row]
    }

    /// Whether bit `(u, v)` is set.
    ///
    /// # Panics
    /// When `u >= n` or `v >= n`.
    pub fn contains(&self, u: usize, v: usize) -> bool {
        assert!(v < self.n, "column {v} out of range");
        self.row(u)[v / 64] >> (v % 64) & 1 == 1
    }

    /// `|N(u) ∩ N(v)|` by AND + popcount.
    ///
    /// # Panics
    /// When `u >= n` or `v >= n`.
    pub fn common_neighbors(&self, u: usize, v: usize) -> u32 {
        self.row(u)
            .iter()
            .zip(self.row(v))
            .map(|(a, b)| (a & b).count_ones())
            .sum()
    }

    /// All words, row-major.
    pub fn as_words(&self) -> &[u64] {
        &self.bits
    }

    /// Number of bits set in row `u` (the degree of `u`).
    ///
    /// # Panics
    /// When `u >= n`.
    pub fn degree(&self, u: usize) -> usize {
        self.row(u).iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Assembles rows already laid out (`n · words_per_row` words, padding bits zero).
    pub(crate) fn from_parts(n: usize, words_per_row: usize, bits: Vec<u64>) -> Self {
        debug_assert_eq!(bits.len(), n * words_per_row);
        Self {
            n,
            words_per_row,
            bits,
        }
    }

    /// All words, row-major, for in-place construction within the crate.
    pub(crate) fn words_mut(&mut self) -> &mut [u64] {
        &mut self.bits
    }
}
