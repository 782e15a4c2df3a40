//! Conversion to and from petgraph's `UnGraph`.

use petgraph::graph::{NodeIndex, UnGraph};

use crate::builder::{DuplicatePolicy, GraphBuilder};
use crate::error::Result;
use crate::graph::Graph;

impl Graph {
    /// The graph as a petgraph `UnGraph` with node `i` at `NodeIndex(i)`.
    ///
    /// # Example
    /// ```
    /// use graph_core::{DuplicatePolicy, Graph};
    /// let g = Graph::from_edges(3, &[(0, 1), (1, 2)])?;
    /// let pg = g.to_petgraph();
    /// assert_eq!(pg.edge_count(), 2);
    /// assert_eq!(Graph::from_petgraph(&pg, DuplicatePolicy::Reject)?, g);
    /// # Ok::<(), graph_core::GraphError>(())
    /// ```
    pub fn to_petgraph(&self) -> UnGraph<(), ()> {
        let mut g = UnGraph::with_capacity(self.num_nodes(), self.num_edges());
        for _ in 0..self.num_nodes() {
            g.add_node(());
        }
        for (u, v) in self.edges() {
            g.add_edge(NodeIndex::new(u as usize), NodeIndex::new(v as usize), ());
        }
        g
    }

    /// Converts a petgraph `UnGraph`; weights are dropped.
    ///
    /// # Errors
    /// Self-loops, and parallel edges under [`DuplicatePolicy::Reject`], give typed errors.
    pub fn from_petgraph<N, E>(g: &UnGraph<N, E>, duplicates: DuplicatePolicy) -> Result<Graph> {
        let mut b = GraphBuilder::new(g.node_count())?.duplicates(duplicates);
        b.reserve(g.edge_count());
        for e in g.raw_edges() {
            b.add_edge(e.source().index() as u32, e.target().index() as u32)?;
        }
        b.build()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GraphError;

    #[test]
    fn petgraph_loops_and_parallel_edges() {
        let mut pg = UnGraph::<(), ()>::new_undirected();
        let a = pg.add_node(());
        let b = pg.add_node(());
        pg.add_edge(a, b, ());
        pg.add_edge(b, a, ());
        assert!(matches!(
            Graph::from_petgraph(&pg, DuplicatePolicy::Reject),
            Err(GraphError::DuplicateEdge { u: 0, v: 1 })
        ));
        assert_eq!(
            Graph::from_petgraph(&pg, DuplicatePolicy::Merge)
                .unwrap()
                .num_edges(),
            1
        );
        pg.add_edge(a, a, ());
        assert!(matches!(
            Graph::from_petgraph(&pg, DuplicatePolicy::Merge),
            Err(GraphError::SelfLoop { node: 0 })
        ));
    }
}
