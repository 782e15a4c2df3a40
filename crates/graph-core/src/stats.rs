//! Summary statistics of graphs and graph collections.

use serde::Serialize;

use crate::graph::Graph;

/// Size, degree and connectivity summary of one graph or a whole collection.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GraphStats {
    /// Number of graphs summarised.
    pub graphs: usize,
    /// Total nodes.
    pub nodes: usize,
    /// Total undirected edges.
    pub edges: usize,
    /// Largest degree.
    pub max_degree: usize,
    /// Mean degree `2m / n`.
    pub mean_degree: f64,
    /// Nodes of degree 0.
    pub isolated: usize,
    /// Total connected components.
    pub components: usize,
    /// Edge density (mean over graphs for a collection).
    pub density: f64,
}

impl GraphStats {
    /// Statistics of a collection of graphs (a single graph is a collection of one).
    ///
    /// # Example
    /// ```
    /// use graph_core::{Graph, GraphStats};
    /// let g = Graph::from_edges(4, &[(0, 1), (1, 2)])?;
    /// let s = GraphStats::of(std::slice::from_ref(&g));
    /// assert_eq!((s.nodes, s.edges, s.max_degree, s.components, s.isolated), (4, 2, 2, 2, 1));
    /// assert!((s.density - 2.0 / 6.0).abs() < 1e-12);
    /// # Ok::<(), graph_core::GraphError>(())
    /// ```
    pub fn of(graphs: &[Graph]) -> Self {
        let nodes: usize = graphs.iter().map(Graph::num_nodes).sum();
        let edges: usize = graphs.iter().map(Graph::num_edges).sum();
        Self {
            graphs: graphs.len(),
            nodes,
            edges,
            max_degree: graphs.iter().map(Graph::max_degree).max().unwrap_or(0),
            mean_degree: if nodes == 0 {
                0.0
            } else {
                2.0 * edges as f64 / nodes as f64
            },
            isolated: graphs
                .iter()
                .map(|g| g.degrees().filter(|&d| d == 0).count())
                .sum(),
            components: graphs
                .iter()
                .map(|g| g.connected_components().count())
                .sum(),
            density: if graphs.is_empty() {
                0.0
            } else {
                graphs.iter().map(Graph::density).sum::<f64>() / graphs.len() as f64
            },
        }
    }
}

/// Mean and sample standard deviation (`n − 1` denominator; 0 for a single value) of
/// `values`, summed in order; `None` for an empty slice. A NaN in `values` makes both NaN:
/// filter first where missing runs are NaN.
///
/// # Example
/// ```
/// let (m, s) = graph_core::mean_std(&[1.0, 2.0, 3.0]).unwrap();
/// assert!((m - 2.0).abs() < 1e-12 && (s - 1.0).abs() < 1e-12);
/// assert_eq!(graph_core::mean_std(&[4.0]), Some((4.0, 0.0)));
/// assert_eq!(graph_core::mean_std(&[]), None);
/// ```
pub fn mean_std(values: &[f64]) -> Option<(f64, f64)> {
    if values.is_empty() {
        return None;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = if values.len() > 1 {
        values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    Some((mean, var.sqrt()))
}
