//! Host-side inputs: [`NodeTask`] (one graph, node labels, masks), [`GraphBatch`] (graphs packed
//! block-diagonally) and [`GraphTask`] (a labelled collection of graphs).
//!
//! Everything is validated at construction, so training never starts on bad input. Edges are
//! directed message edges `src → dst` (a node aggregates over its incoming edges); the
//! `from_graph`/`from_dataset` constructors insert both directions of every undirected edge.

use graph_core::{Graph, GraphDataset, NodeDataset, NodeSplit, Targets};
use ndarray::Array2;

use crate::error::{Error, Result};

/// Directed edges with optional positive weights, over `num_nodes` nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct EdgeList {
    pub(crate) num_nodes: usize,
    pub(crate) src: Vec<u32>,
    pub(crate) dst: Vec<u32>,
    pub(crate) weights: Option<Vec<f32>>,
    /// Edge features `[E, d_edge]`, row `i` for edge `i` (GINE).
    pub(crate) features: Option<Array2<f32>>,
}

impl EdgeList {
    /// Directed edges `(src, dst)`: messages flow from `src` to `dst`.
    ///
    /// # Errors
    /// [`Error::EdgeOutOfRange`] for an endpoint `>= num_nodes`.
    pub fn new(num_nodes: usize, edges: &[(u32, u32)]) -> Result<Self> {
        for (index, &(src, dst)) in edges.iter().enumerate() {
            if src as usize >= num_nodes || dst as usize >= num_nodes {
                return Err(Error::EdgeOutOfRange {
                    index,
                    src,
                    dst,
                    num_nodes,
                });
            }
        }
        Ok(Self {
            num_nodes,
            src: edges.iter().map(|e| e.0).collect(),
            dst: edges.iter().map(|e| e.1).collect(),
            weights: None,
            features: None,
        })
    }

    /// Both directions of every edge of an undirected [`Graph`].
    pub fn from_graph(graph: &Graph) -> Self {
        let (offsets, targets) = graph.csr();
        let mut src = Vec::with_capacity(targets.len());
        for u in 0..graph.num_nodes() {
            src.extend(std::iter::repeat_n(u as u32, offsets[u + 1] - offsets[u]));
        }
        Self {
            num_nodes: graph.num_nodes(),
            src,
            dst: targets.to_vec(),
            weights: None,
            features: None,
        }
    }

    /// Attaches one non-negative, finite weight per edge (GCN normalises with them, GAT scales
    /// attention by them, GIN weights its sum).
    ///
    /// # Errors
    /// [`Error::Shape`] for a wrong count, [`Error::NonFinite`] / [`Error::InvalidParam`] for
    /// NaN, infinite or negative weights.
    pub fn with_weights(mut self, weights: Vec<f32>) -> Result<Self> {
        if weights.len() != self.src.len() {
            return Err(Error::Shape {
                what: "edge weights",
                expected: self.src.len(),
                got: weights.len(),
            });
        }
        if let Some(index) = weights.iter().position(|w| !w.is_finite()) {
            return Err(Error::NonFinite {
                what: "edge weights",
                index,
            });
        }
        if let Some(w) = weights.iter().find(|&&w| w < 0.0) {
            return Err(Error::InvalidParam {
                name: "edge weight",
                value: w.to_string(),
                reason: "must be non-negative",
            });
        }
        self.weights = Some(weights);
        Ok(self)
    }

    /// Attaches one feature row per edge (`[E, d_edge]`, row `i` for edge `i`), read by GINE
    /// layers (e.g. transaction amount, time, currency, payment format).
    ///
    /// # Errors
    /// [`Error::Shape`] for a row count different from the edge count or zero columns,
    /// [`Error::NonFinite`] for NaN or infinite entries.
    ///
    /// # Example
    /// ```
    /// use gnn::EdgeList;
    /// let e = EdgeList::new(2, &[(0, 1), (1, 0)])?;
    /// let e = e.with_edge_features(ndarray::array![[1.0f32, 0.5], [1.0, 0.5]])?;
    /// assert_eq!(e.edge_dim(), Some(2));
    /// # Ok::<(), gnn::Error>(())
    /// ```
    pub fn with_edge_features(mut self, features: Array2<f32>) -> Result<Self> {
        if features.nrows() != self.src.len() {
            return Err(Error::Shape {
                what: "edge feature rows vs. edges",
                expected: self.src.len(),
                got: features.nrows(),
            });
        }
        if features.ncols() == 0 {
            return Err(Error::Empty("edge feature columns"));
        }
        if let Some(index) = features.iter().position(|v| !v.is_finite()) {
            return Err(Error::NonFinite {
                what: "edge features",
                index,
            });
        }
        self.features = Some(features);
        Ok(self)
    }

    /// Width of the edge features, if attached.
    pub fn edge_dim(&self) -> Option<usize> {
        self.features.as_ref().map(Array2::ncols)
    }

    /// The edge features, if attached.
    pub fn edge_features(&self) -> Option<&Array2<f32>> {
        self.features.as_ref()
    }

    /// Number of nodes.
    pub fn num_nodes(&self) -> usize {
        self.num_nodes
    }

    /// Number of directed edges.
    pub fn len(&self) -> usize {
        self.src.len()
    }

    /// Whether there are no edges.
    pub fn is_empty(&self) -> bool {
        self.src.is_empty()
    }

    /// The sources and destinations of the directed edges, edge `i` being
    /// `(sources[i], destinations[i])` (PyG's `edge_index` rows).
    ///
    /// # Example
    /// ```
    /// let e = gnn::EdgeList::new(3, &[(0, 1), (2, 1)])?;
    /// assert_eq!(e.endpoints(), (&[0, 2][..], &[1, 1][..]));
    /// # Ok::<(), gnn::Error>(())
    /// ```
    pub fn endpoints(&self) -> (&[u32], &[u32]) {
        (&self.src, &self.dst)
    }

    /// Incoming edges per node (the degree PNA's scalers use; see
    /// [`crate::layers::avg_log_degree`]).
    ///
    /// # Complexity
    /// O(n + E).
    ///
    /// # Example
    /// ```
    /// let e = gnn::EdgeList::new(3, &[(0, 1), (2, 1), (1, 0)])?;
    /// assert_eq!(e.in_degrees(), vec![1, 2, 0]);
    /// # Ok::<(), gnn::Error>(())
    /// ```
    pub fn in_degrees(&self) -> Vec<usize> {
        let mut deg = vec![0; self.num_nodes];
        for &t in &self.dst {
            deg[t as usize] += 1;
        }
        deg
    }
}

pub(crate) fn check_features(features: &Array2<f32>, num_nodes: usize) -> Result<()> {
    if features.nrows() != num_nodes {
        return Err(Error::Shape {
            what: "feature rows vs. nodes",
            expected: num_nodes,
            got: features.nrows(),
        });
    }
    if features.ncols() == 0 {
        return Err(Error::Empty("feature columns"));
    }
    if let Some(index) = features.iter().position(|v| !v.is_finite()) {
        return Err(Error::NonFinite {
            what: "features",
            index,
        });
    }
    Ok(())
}

fn check_labels(labels: &[u32], num_nodes: usize, num_classes: usize) -> Result<()> {
    if labels.len() != num_nodes {
        return Err(Error::Shape {
            what: "labels vs. nodes",
            expected: num_nodes,
            got: labels.len(),
        });
    }
    if num_classes < 2 {
        return Err(Error::InvalidParam {
            name: "num_classes",
            value: num_classes.to_string(),
            reason: "classification needs at least 2 classes",
        });
    }
    if let Some((index, &label)) = labels
        .iter()
        .enumerate()
        .find(|&(_, &l)| l as usize >= num_classes)
    {
        return Err(Error::LabelOutOfRange {
            index,
            label,
            num_classes,
        });
    }
    Ok(())
}

/// Full-batch node classification: one graph, features, labels and train/val/test masks.
#[derive(Clone, Debug)]
pub struct NodeTask {
    pub(crate) edges: EdgeList,
    pub(crate) features: Array2<f32>,
    pub(crate) labels: Vec<u32>,
    pub(crate) num_classes: usize,
    pub(crate) split: Option<NodeSplit>,
}

impl NodeTask {
    /// Bundles message edges, features (`num_nodes × d`) and labels in `0..num_classes`.
    ///
    /// # Errors
    /// [`Error::Shape`] for feature rows or label count differing from the node count,
    /// [`Error::NonFinite`] for NaN/∞ features, [`Error::LabelOutOfRange`] for a label
    /// `>= num_classes`, [`Error::InvalidParam`] for fewer than 2 classes.
    ///
    /// # Example
    /// ```
    /// use gnn::{EdgeList, NodeTask};
    /// let edges = EdgeList::new(3, &[(0, 1), (1, 0), (1, 2), (2, 1)])?;
    /// let x = ndarray::Array2::<f32>::ones((3, 2));
    /// let task = NodeTask::new(edges, x, vec![0, 1, 1], 2)?;
    /// assert_eq!(task.num_nodes(), 3);
    /// assert!(NodeTask::new(EdgeList::new(3, &[])?, ndarray::Array2::ones((3, 2)), vec![0, 2, 1], 2).is_err());
    /// # Ok::<(), gnn::Error>(())
    /// ```
    pub fn new(
        edges: EdgeList,
        features: Array2<f32>,
        labels: Vec<u32>,
        num_classes: usize,
    ) -> Result<Self> {
        let n = edges.num_nodes;
        if n == 0 {
            return Err(Error::Empty("graph (no nodes)"));
        }
        check_features(&features, n)?;
        check_labels(&labels, n, num_classes)?;
        Ok(Self {
            edges,
            features,
            labels,
            num_classes,
            split: None,
        })
    }

    /// A task from a graph-core [`NodeDataset`], keeping its split if it has one.
    ///
    /// # Errors
    /// As [`NodeTask::new`] and [`NodeTask::with_split`].
    pub fn from_dataset(ds: &NodeDataset) -> Result<Self> {
        let task = Self::new(
            EdgeList::from_graph(ds.graph()),
            ds.features().clone(),
            ds.labels().to_vec(),
            ds.num_classes(),
        )?;
        match ds.split() {
            Some(s) => task.with_split(s.clone()),
            None => Ok(task),
        }
    }

    /// Attaches train/val/test masks.
    ///
    /// # Errors
    /// [`Error::Shape`] for masks of the wrong length, [`Error::Empty`] for an empty train or
    /// validation mask.
    pub fn with_split(mut self, split: NodeSplit) -> Result<Self> {
        let n = self.num_nodes();
        for (what, m) in [
            ("train mask", &split.train),
            ("validation mask", &split.val),
            ("test mask", &split.test),
        ] {
            if m.len() != n {
                return Err(Error::Shape {
                    what,
                    expected: n,
                    got: m.len(),
                });
            }
        }
        if !split.train.iter().any(|&b| b) {
            return Err(Error::Empty("train mask"));
        }
        if !split.val.iter().any(|&b| b) {
            return Err(Error::Empty("validation mask"));
        }
        self.split = Some(split);
        Ok(self)
    }

    /// Replaces the message edges (e.g. by a privatised graph on the same nodes).
    ///
    /// # Errors
    /// [`Error::Shape`] when the node count differs.
    pub fn with_edges(mut self, edges: EdgeList) -> Result<Self> {
        if edges.num_nodes != self.num_nodes() {
            return Err(Error::Shape {
                what: "nodes of the replacement edges",
                expected: self.num_nodes(),
                got: edges.num_nodes,
            });
        }
        self.edges = edges;
        Ok(self)
    }

    /// Number of nodes.
    pub fn num_nodes(&self) -> usize {
        self.edges.num_nodes
    }
    /// Feature dimension.
    pub fn num_features(&self) -> usize {
        self.features.ncols()
    }
    /// Number of classes.
    pub fn num_classes(&self) -> usize {
        self.num_classes
    }
    /// Node labels.
    pub fn labels(&self) -> &[u32] {
        &self.labels
    }
    /// Node features.
    pub fn features(&self) -> &Array2<f32> {
        &self.features
    }
    /// Message edges.
    pub fn edges(&self) -> &EdgeList {
        &self.edges
    }
    /// The split, if attached.
    pub fn split(&self) -> Option<&NodeSplit> {
        self.split.as_ref()
    }
}

/// Graphs packed block-diagonally into one disjoint union: node `i` of graph `g` becomes node
/// `offset[g] + i`, and `node_graph` maps every packed node back to its graph.
#[derive(Clone, Debug)]
pub struct GraphBatch {
    pub(crate) edges: EdgeList,
    pub(crate) features: Array2<f32>,
    pub(crate) node_graph: Vec<u32>,
    pub(crate) num_graphs: usize,
}

impl GraphBatch {
    /// Packs graphs (message edges each) and their node features.
    ///
    /// # Errors
    /// [`Error::Shape`] for a count mismatch between graphs and feature matrices, feature rows
    /// differing from a graph's node count or differing feature widths; [`Error::Empty`] for no
    /// graphs; [`Error::NonFinite`] for NaN features.
    ///
    /// # Example
    /// ```
    /// use gnn::{EdgeList, GraphBatch};
    /// let a = EdgeList::new(2, &[(0, 1), (1, 0)])?;
    /// let b = EdgeList::new(3, &[(0, 2), (2, 0)])?;
    /// let x = [ndarray::Array2::<f32>::ones((2, 4)), ndarray::Array2::ones((3, 4))];
    /// let batch = GraphBatch::pack(&[&a, &b], &[&x[0], &x[1]])?;
    /// assert_eq!((batch.num_nodes(), batch.num_graphs()), (5, 2));
    /// assert_eq!(batch.node_graph(), &[0, 0, 1, 1, 1]);
    /// # Ok::<(), gnn::Error>(())
    /// ```
    pub fn pack(graphs: &[&EdgeList], features: &[&Array2<f32>]) -> Result<Self> {
        if graphs.len() != features.len() {
            return Err(Error::Shape {
                what: "feature matrices vs. graphs",
                expected: graphs.len(),
                got: features.len(),
            });
        }
        let Some(first) = features.first() else {
            return Err(Error::Empty("graph batch"));
        };
        let d = first.ncols();
        let total: usize = graphs.iter().map(|g| g.num_nodes).sum();
        let num_edges: usize = graphs.iter().map(|g| g.len()).sum();
        let weighted = graphs.iter().any(|g| g.weights.is_some());
        // Edge features are packed when every graph has them with one width.
        let packed_features = match graphs.first().and_then(|g| g.features.as_ref()) {
            Some(f0)
                if graphs
                    .iter()
                    .all(|g| g.features.as_ref().is_some_and(|f| f.ncols() == f0.ncols())) =>
            {
                let views: Vec<_> = graphs
                    .iter()
                    .filter_map(|g| g.features.as_ref().map(Array2::view))
                    .collect();
                Some(
                    ndarray::concatenate(ndarray::Axis(0), &views).map_err(|_| Error::Shape {
                        what: "edge feature width",
                        expected: f0.ncols(),
                        got: 0,
                    })?,
                )
            }
            _ => None,
        };
        let mut src = Vec::with_capacity(num_edges);
        let mut dst = Vec::with_capacity(num_edges);
        let mut weights = Vec::with_capacity(if weighted { num_edges } else { 0 });
        let mut node_graph = Vec::with_capacity(total);
        let mut x = Array2::<f32>::zeros((total, d));
        let mut offset = 0usize;
        for (gi, (g, f)) in graphs.iter().zip(features).enumerate() {
            check_features(f, g.num_nodes)?;
            if f.ncols() != d {
                return Err(Error::Shape {
                    what: "feature width",
                    expected: d,
                    got: f.ncols(),
                });
            }
            src.extend(g.src.iter().map(|&s| s + offset as u32));
            dst.extend(g.dst.iter().map(|&t| t + offset as u32));
            if weighted {
                match &g.weights {
                    Some(w) => weights.extend_from_slice(w),
                    None => weights.extend(std::iter::repeat_n(1.0, g.len())),
                }
            }
            x.slice_mut(ndarray::s![offset..offset + g.num_nodes, ..])
                .assign(f);
            node_graph.extend(std::iter::repeat_n(gi as u32, g.num_nodes));
            offset += g.num_nodes;
        }
        Ok(Self {
            edges: EdgeList {
                num_nodes: total,
                src,
                dst,
                weights: weighted.then_some(weights),
                features: packed_features,
            },
            features: x,
            node_graph,
            num_graphs: graphs.len(),
        })
    }

    /// Total number of nodes.
    pub fn num_nodes(&self) -> usize {
        self.edges.num_nodes
    }
    /// Number of graphs.
    pub fn num_graphs(&self) -> usize {
        self.num_graphs
    }
    /// Graph id of every packed node.
    pub fn node_graph(&self) -> &[u32] {
        &self.node_graph
    }
    /// The packed message edges.
    pub fn edges(&self) -> &EdgeList {
        &self.edges
    }
    /// The packed features.
    pub fn features(&self) -> &Array2<f32> {
        &self.features
    }
}

/// How to build node features for graphs that have none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum NodeFeatures {
    /// A single constant 1 per node (HOMDP's all-ones features).
    Constant,
    /// One-hot node labels (atom types of MUTAG, …), over the distinct values of the dataset.
    OneHotLabels,
    /// One-hot degree, capped at `max` (degrees `>= max` share the last slot).
    OneHotDegree {
        /// Largest distinguished degree.
        max: usize,
    },
}

/// Graph-level targets of a [`GraphTask`].
#[derive(Clone, Debug, PartialEq)]
pub enum GraphTargets {
    /// Class ids in `0..num_classes`.
    Class {
        /// Label per graph.
        labels: Vec<u32>,
        /// Number of classes.
        num_classes: usize,
    },
    /// Real-valued regression targets.
    Real(Vec<f32>),
}

/// A labelled collection of graphs with node features, for mini-batch graph classification or
/// regression.
#[derive(Clone, Debug)]
pub struct GraphTask {
    pub(crate) graphs: Vec<EdgeList>,
    pub(crate) features: Vec<Array2<f32>>,
    pub(crate) targets: GraphTargets,
}

impl GraphTask {
    /// Bundles graphs, one feature matrix per graph and one target per graph.
    ///
    /// # Errors
    /// [`Error::Shape`] for count or width mismatches, [`Error::NonFinite`] for NaN features or
    /// targets, [`Error::LabelOutOfRange`] for a class id `>= num_classes`, [`Error::Empty`]
    /// for no graphs.
    pub fn new(
        graphs: Vec<EdgeList>,
        features: Vec<Array2<f32>>,
        targets: GraphTargets,
    ) -> Result<Self> {
        if graphs.is_empty() {
            return Err(Error::Empty("graph collection"));
        }
        if features.len() != graphs.len() {
            return Err(Error::Shape {
                what: "feature matrices vs. graphs",
                expected: graphs.len(),
                got: features.len(),
            });
        }
        let d = features[0].ncols();
        for (g, f) in graphs.iter().zip(&features) {
            check_features(f, g.num_nodes)?;
            if f.ncols() != d {
                return Err(Error::Shape {
                    what: "feature width",
                    expected: d,
                    got: f.ncols(),
                });
            }
        }
        match &targets {
            GraphTargets::Class {
                labels,
                num_classes,
            } => check_labels(labels, graphs.len(), *num_classes)?,
            GraphTargets::Real(y) => {
                if y.len() != graphs.len() {
                    return Err(Error::Shape {
                        what: "targets vs. graphs",
                        expected: graphs.len(),
                        got: y.len(),
                    });
                }
                if let Some(index) = y.iter().position(|v| !v.is_finite()) {
                    return Err(Error::NonFinite {
                        what: "targets",
                        index,
                    });
                }
            }
        }
        Ok(Self {
            graphs,
            features,
            targets,
        })
    }

    /// A task from a graph-core [`GraphDataset`], with node features built as `features` says.
    ///
    /// # Errors
    /// [`Error::Incompatible`] for [`NodeFeatures::OneHotLabels`] on a dataset without node
    /// labels; otherwise as [`GraphTask::new`].
    pub fn from_dataset(ds: &GraphDataset, features: NodeFeatures) -> Result<Self> {
        let graphs: Vec<EdgeList> = ds.graphs().iter().map(EdgeList::from_graph).collect();
        let feats: Vec<Array2<f32>> = match features {
            NodeFeatures::Constant => ds
                .graphs()
                .iter()
                .map(|g| Array2::ones((g.num_nodes(), 1)))
                .collect(),
            NodeFeatures::OneHotDegree { max } => ds
                .graphs()
                .iter()
                .map(|g| {
                    let mut x = Array2::zeros((g.num_nodes(), max + 1));
                    for (u, d) in g.degrees().enumerate() {
                        x[[u, d.min(max)]] = 1.0;
                    }
                    x
                })
                .collect(),
            NodeFeatures::OneHotLabels => {
                let labels = ds.node_labels().ok_or_else(|| {
                    Error::Incompatible(format!("dataset {} has no node labels", ds.name()))
                })?;
                let mut values: Vec<i64> = labels.iter().flatten().copied().collect();
                values.sort_unstable();
                values.dedup();
                labels
                    .iter()
                    .map(|l| {
                        let mut x = Array2::zeros((l.len(), values.len().max(1)));
                        for (u, v) in l.iter().enumerate() {
                            let c = values.binary_search(v).expect("value is in its own set");
                            x[[u, c]] = 1.0;
                        }
                        x
                    })
                    .collect()
            }
        };
        let targets = match ds.targets() {
            Targets::Class {
                labels,
                num_classes,
                ..
            } => GraphTargets::Class {
                labels: labels.clone(),
                num_classes: *num_classes,
            },
            Targets::Real(v) => GraphTargets::Real(v.iter().map(|&x| x as f32).collect()),
        };
        Self::new(graphs, feats, targets)
    }

    /// Packs the graphs at `indices` into one batch.
    ///
    /// # Errors
    /// [`Error::Empty`] for no indices, [`Error::Shape`] for an index out of range.
    pub fn batch(&self, indices: &[usize]) -> Result<GraphBatch> {
        if let Some(&i) = indices.iter().find(|&&i| i >= self.graphs.len()) {
            return Err(Error::Shape {
                what: "graph index",
                expected: self.graphs.len(),
                got: i,
            });
        }
        let g: Vec<&EdgeList> = indices.iter().map(|&i| &self.graphs[i]).collect();
        let f: Vec<&Array2<f32>> = indices.iter().map(|&i| &self.features[i]).collect();
        GraphBatch::pack(&g, &f)
    }

    /// Number of graphs.
    pub fn len(&self) -> usize {
        self.graphs.len()
    }
    /// Whether the task has no graphs (never true for a constructed task).
    pub fn is_empty(&self) -> bool {
        self.graphs.is_empty()
    }
    /// Node feature width.
    pub fn num_features(&self) -> usize {
        self.features[0].ncols()
    }
    /// The targets.
    pub fn targets(&self) -> &GraphTargets {
        &self.targets
    }
    /// Output width a model needs: the class count, or 1 for regression.
    pub fn num_outputs(&self) -> usize {
        match &self.targets {
            GraphTargets::Class { num_classes, .. } => *num_classes,
            GraphTargets::Real(_) => 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_node_inputs_are_typed_errors() {
        let e = EdgeList::new(3, &[(0, 1)]).unwrap();
        let ok = Array2::<f32>::ones((3, 2));
        assert!(matches!(
            NodeTask::new(e.clone(), Array2::ones((2, 2)), vec![0, 1, 1], 2),
            Err(Error::Shape { .. })
        ));
        assert!(matches!(
            NodeTask::new(e.clone(), ok.clone(), vec![0, 1], 2),
            Err(Error::Shape { .. })
        ));
        assert!(matches!(
            NodeTask::new(e.clone(), ok.clone(), vec![0, 1, 5], 2),
            Err(Error::LabelOutOfRange { index: 2, .. })
        ));
        let mut nan = ok.clone();
        nan[[1, 1]] = f32::NAN;
        assert!(matches!(
            NodeTask::new(e.clone(), nan, vec![0, 1, 1], 2),
            Err(Error::NonFinite { index: 3, .. })
        ));
        assert!(matches!(
            EdgeList::new(3, &[(0, 3)]),
            Err(Error::EdgeOutOfRange { .. })
        ));
        let task = NodeTask::new(e.clone(), ok, vec![0, 1, 1], 2).unwrap();
        let empty = NodeSplit {
            train: vec![false; 3],
            val: vec![true; 3],
            test: vec![false; 3],
        };
        assert!(matches!(
            task.clone().with_split(empty),
            Err(Error::Empty(_))
        ));
        assert!(matches!(
            e.with_weights(vec![-1.0]),
            Err(Error::InvalidParam { .. })
        ));
    }

    #[test]
    fn packing_offsets_edges() {
        let a = EdgeList::new(2, &[(0, 1)]).unwrap();
        let b = EdgeList::new(2, &[(1, 0)])
            .unwrap()
            .with_weights(vec![0.5])
            .unwrap();
        let fa = Array2::from_elem((2, 1), 1.0);
        let fb = Array2::from_elem((2, 1), 2.0);
        let p = GraphBatch::pack(&[&a, &b], &[&fa, &fb]).unwrap();
        assert_eq!(p.edges.src, vec![0, 3]);
        assert_eq!(p.edges.dst, vec![1, 2]);
        assert_eq!(p.edges.weights, Some(vec![1.0, 0.5]));
        assert_eq!(p.features.column(0).to_vec(), vec![1.0, 1.0, 2.0, 2.0]);
        assert!(matches!(
            GraphBatch::pack(&[&a], &[&Array2::ones((2, 3)), &fb]),
            Err(Error::Shape { .. })
        ));
    }
}
