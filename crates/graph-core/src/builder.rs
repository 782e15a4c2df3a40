//! Validated construction of [`Graph`]s.

use crate::error::{GraphError, Result};
use crate::graph::{Graph, check_node_count};

/// What [`GraphBuilder`] does with an edge that was already added (in either orientation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DuplicatePolicy {
    /// Keep one copy. Right for formats that list each undirected edge in both directions.
    Merge,
    /// Fail with [`GraphError::DuplicateEdge`] at [`GraphBuilder::build`].
    #[default]
    Reject,
}

/// Collects undirected edges, checking every id and refusing self-loops as they are added.
///
/// # Example
/// ```
/// use graph_core::{DuplicatePolicy, GraphBuilder, GraphError};
/// let mut b = GraphBuilder::new(3)?.duplicates(DuplicatePolicy::Merge);
/// b.add_edge(0, 1)?;
/// b.add_edge(1, 0)?; // merged
/// assert!(matches!(b.add_edge(2, 2), Err(GraphError::SelfLoop { node: 2 })));
/// assert!(matches!(b.add_edge(0, 3), Err(GraphError::NodeOutOfRange { node: 3, n: 3 })));
/// let g = b.build()?;
/// assert_eq!(g.num_edges(), 1);
/// # Ok::<(), GraphError>(())
/// ```
#[derive(Clone, Debug)]
pub struct GraphBuilder {
    n: usize,
    policy: DuplicatePolicy,
    edges: Vec<(u32, u32)>,
}

impl GraphBuilder {
    /// A builder for a graph on nodes `0..n`; duplicates are rejected unless
    /// [`duplicates`](Self::duplicates) says otherwise.
    ///
    /// # Errors
    /// [`GraphError::TooManyNodes`] when `n` exceeds the `u32` id space.
    pub fn new(n: usize) -> Result<Self> {
        check_node_count(n)?;
        // build() holds the offsets and a copy of them: 16 bytes per node.
        crate::limits::check_allocation(
            &format!("a graph on {n} nodes"),
            (n as u64 + 1).saturating_mul(16),
        )?;
        Ok(Self {
            n,
            policy: DuplicatePolicy::Reject,
            edges: Vec::new(),
        })
    }

    /// Sets the duplicate policy.
    #[must_use]
    pub fn duplicates(mut self, policy: DuplicatePolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Reserves room for `additional` more edges.
    pub fn reserve(&mut self, additional: usize) {
        self.edges.reserve(additional);
    }

    /// Reserves room for `additional` more edges, or refuses before allocating when they (and the
    /// graph built from them, 16 bytes per edge in all) would not fit in memory.
    ///
    /// # Errors
    /// [`GraphError::TooLarge`] naming `what` and the size.
    pub fn try_reserve(&mut self, additional: usize, what: &str) -> Result<()> {
        let bytes = (self.edges.len() as u64)
            .saturating_add(additional as u64)
            .saturating_mul(16);
        crate::limits::check_allocation(what, bytes)?;
        self.edges
            .try_reserve(additional)
            .map_err(|_| GraphError::TooLarge {
                what: what.to_owned(),
                bytes,
                budget: crate::limits::MemoryBudget::detect().bytes().unwrap_or(0),
            })
    }

    /// Number of nodes of the graph being built.
    pub fn num_nodes(&self) -> usize {
        self.n
    }

    /// Adds the undirected edge `{u, v}`.
    ///
    /// # Errors
    /// [`GraphError::SelfLoop`] when `u == v`; [`GraphError::NodeOutOfRange`] when an id is `>= n`.
    pub fn add_edge(&mut self, u: u32, v: u32) -> Result<()> {
        for x in [u, v] {
            if x as usize >= self.n {
                return Err(GraphError::NodeOutOfRange {
                    node: u64::from(x),
                    n: self.n as u64,
                });
            }
        }
        if u == v {
            return Err(GraphError::SelfLoop { node: u64::from(u) });
        }
        self.edges.push(if u < v { (u, v) } else { (v, u) });
        Ok(())
    }

    /// Finishes the graph.
    ///
    /// # Errors
    /// [`GraphError::DuplicateEdge`] under [`DuplicatePolicy::Reject`] when an edge was added twice.
    ///
    /// # Complexity
    /// O(n + m log m) (O(n + m) when edges were added in sorted order).
    pub fn build(mut self) -> Result<Graph> {
        if !self.edges.is_sorted() {
            self.edges.sort_unstable();
        }
        match self.policy {
            DuplicatePolicy::Merge => self.edges.dedup(),
            DuplicatePolicy::Reject => {
                if let Some(w) = self.edges.windows(2).find(|w| w[0] == w[1]) {
                    return Err(GraphError::DuplicateEdge {
                        u: w[0].0,
                        v: w[0].1,
                    });
                }
            }
        }
        Ok(Graph::from_sorted_unique(self.n, &self.edges))
    }
}
