//! Collections of small graphs with graph-level targets and named splits.

use std::collections::BTreeMap;

use crate::error::{GraphError, Result};
use crate::graph::Graph;

/// Graph-level targets.
#[derive(Clone, Debug, PartialEq)]
pub enum Targets {
    /// Class labels mapped to `0..num_classes` (sorted order of the original values).
    Class {
        /// Mapped label per graph.
        labels: Vec<u32>,
        /// Number of classes.
        num_classes: usize,
        /// The original value of each class id (`original[c]` is the file's value of class `c`).
        original: Vec<i64>,
    },
    /// Real-valued regression targets.
    Real(Vec<f64>),
}

impl Targets {
    /// Maps raw integer labels (e.g. TU's `-1/1` or `1..C`) to `0..C-1` in sorted order.
    ///
    /// # Example
    /// ```
    /// use graph_core::Targets;
    /// let t = Targets::from_raw_classes(&[-1, 1, 1, -1]);
    /// assert_eq!(t, Targets::Class { labels: vec![0, 1, 1, 0], num_classes: 2, original: vec![-1, 1] });
    /// ```
    pub fn from_raw_classes(raw: &[i64]) -> Self {
        let mut original: Vec<i64> = raw.to_vec();
        original.sort_unstable();
        original.dedup();
        let labels = raw
            .iter()
            .map(|v| original.binary_search(v).expect("value is in its own set") as u32)
            .collect();
        Self::Class {
            labels,
            num_classes: original.len(),
            original,
        }
    }

    /// Number of targets.
    pub fn len(&self) -> usize {
        match self {
            Self::Class { labels, .. } => labels.len(),
            Self::Real(v) => v.len(),
        }
    }

    /// Whether there are no targets.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of classes (`None` for regression).
    pub fn num_classes(&self) -> Option<usize> {
        match self {
            Self::Class { num_classes, .. } => Some(*num_classes),
            Self::Real(_) => None,
        }
    }
}

/// A collection of graphs with one target each, optional per-node integer labels (atom types,
/// …) and named index splits (`"train"`, `"valid"`, `"test"`, …).
#[derive(Clone, Debug)]
pub struct GraphDataset {
    name: String,
    graphs: Vec<Graph>,
    node_labels: Option<Vec<Vec<i64>>>,
    targets: Targets,
    splits: BTreeMap<String, Vec<usize>>,
}

impl GraphDataset {
    /// Bundles graphs and targets.
    ///
    /// # Errors
    /// [`GraphError::Shape`] when the target count differs from the graph count.
    pub fn new(name: impl Into<String>, graphs: Vec<Graph>, targets: Targets) -> Result<Self> {
        if targets.len() != graphs.len() {
            return Err(GraphError::Shape(format!(
                "{} targets for {} graphs",
                targets.len(),
                graphs.len()
            )));
        }
        Ok(Self {
            name: name.into(),
            graphs,
            node_labels: None,
            targets,
            splits: BTreeMap::new(),
        })
    }

    /// Attaches per-node labels, one vector per graph.
    ///
    /// # Errors
    /// [`GraphError::Shape`] when a graph's label count differs from its node count.
    pub fn with_node_labels(mut self, labels: Vec<Vec<i64>>) -> Result<Self> {
        if labels.len() != self.graphs.len() {
            return Err(GraphError::Shape(format!(
                "node labels for {} graphs, dataset has {}",
                labels.len(),
                self.graphs.len()
            )));
        }
        for (i, (l, g)) in labels.iter().zip(&self.graphs).enumerate() {
            if l.len() != g.num_nodes() {
                return Err(GraphError::Shape(format!(
                    "graph {i}: {} node labels for {} nodes",
                    l.len(),
                    g.num_nodes()
                )));
            }
        }
        self.node_labels = Some(labels);
        Ok(self)
    }

    /// Adds (or replaces) a named split of graph indices.
    ///
    /// # Errors
    /// [`GraphError::NodeOutOfRange`] when an index is not a graph of this dataset.
    pub fn with_split(mut self, name: impl Into<String>, indices: Vec<usize>) -> Result<Self> {
        if let Some(&bad) = indices.iter().find(|&&i| i >= self.graphs.len()) {
            return Err(GraphError::NodeOutOfRange {
                node: bad as u64,
                n: self.graphs.len() as u64,
            });
        }
        self.splits.insert(name.into(), indices);
        Ok(self)
    }

    /// Dataset name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The graphs.
    pub fn graphs(&self) -> &[Graph] {
        &self.graphs
    }
    /// Number of graphs.
    pub fn len(&self) -> usize {
        self.graphs.len()
    }
    /// Whether the dataset has no graphs.
    pub fn is_empty(&self) -> bool {
        self.graphs.is_empty()
    }
    /// The targets.
    pub fn targets(&self) -> &Targets {
        &self.targets
    }
    /// Per-node labels, if the dataset has them.
    pub fn node_labels(&self) -> Option<&[Vec<i64>]> {
        self.node_labels.as_deref()
    }
    /// A named split.
    pub fn split(&self, name: &str) -> Option<&[usize]> {
        self.splits.get(name).map(Vec::as_slice)
    }
    /// All splits by name.
    pub fn splits(&self) -> &BTreeMap<String, Vec<usize>> {
        &self.splits
    }
    /// Total node count.
    pub fn total_nodes(&self) -> usize {
        self.graphs.iter().map(Graph::num_nodes).sum()
    }
    /// Total undirected edge count.
    pub fn total_edges(&self) -> usize {
        self.graphs.iter().map(Graph::num_edges).sum()
    }
}
