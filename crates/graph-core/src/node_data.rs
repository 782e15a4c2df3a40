//! Node-classification data: one graph with node features, labels and train/val/test masks.

use ndarray::Array2;
use rand::Rng;
use rand::seq::SliceRandom;

use crate::error::{GraphError, Result};
use crate::graph::Graph;

/// Boolean train / validation / test masks over the nodes of one graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeSplit {
    /// Training nodes.
    pub train: Vec<bool>,
    /// Validation nodes.
    pub val: Vec<bool>,
    /// Test nodes.
    pub test: Vec<bool>,
}

impl NodeSplit {
    /// A random split by seeded permutation: the first `round(train_frac·n)` nodes of the
    /// permutation train, the next `round(val_frac·n)` validate, the rest test.
    ///
    /// # Errors
    /// [`GraphError::InvalidParam`] when a fraction is not finite, negative, or they sum above 1.
    ///
    /// # Example
    /// ```
    /// use graph_core::NodeSplit;
    /// use rand::SeedableRng;
    /// let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
    /// let s = NodeSplit::random(10, 0.6, 0.2, &mut rng)?;
    /// assert_eq!(s.counts(), (6, 2, 2));
    /// # Ok::<(), graph_core::GraphError>(())
    /// ```
    pub fn random<R: Rng + ?Sized>(
        n: usize,
        train_frac: f64,
        val_frac: f64,
        rng: &mut R,
    ) -> Result<Self> {
        let [train, val, test] = random_split_indices(n, train_frac, val_frac, rng)?;
        let mask = |idx: &[usize]| {
            let mut m = vec![false; n];
            idx.iter().for_each(|&i| m[i] = true);
            m
        };
        Ok(Self {
            train: mask(&train),
            val: mask(&val),
            test: mask(&test),
        })
    }

    /// A split along a given order of the nodes (e.g. by time, as Multi-GNN splits AML data):
    /// the first `round(train_frac·n)` nodes of `order` train, the next `round(val_frac·n)`
    /// validate, the rest test.
    ///
    /// # Errors
    /// [`GraphError::InvalidParam`] for fractions as in [`NodeSplit::random`], or an `order`
    /// that is not a permutation of `0..order.len()`.
    ///
    /// # Example
    /// ```
    /// use graph_core::NodeSplit;
    /// let s = NodeSplit::ordered(&[4, 3, 2, 1, 0], 0.6, 0.2)?;
    /// assert_eq!(s.train, [false, false, true, true, true]);
    /// assert_eq!(s.val, [false, true, false, false, false]);
    /// assert_eq!(s.test, [true, false, false, false, false]);
    /// assert!(NodeSplit::ordered(&[0, 0], 0.5, 0.5).is_err());
    /// # Ok::<(), graph_core::GraphError>(())
    /// ```
    pub fn ordered(order: &[usize], train_frac: f64, val_frac: f64) -> Result<Self> {
        let n = order.len();
        let mut seen = vec![false; n];
        for &i in order {
            if i >= n || std::mem::replace(&mut seen[i], true) {
                return Err(GraphError::InvalidParam {
                    name: "order",
                    value: i.to_string(),
                    reason: "must be a permutation of the nodes",
                });
            }
        }
        check_fractions(train_frac, val_frac)?;
        let (n_train, n_val) = split_sizes(n, train_frac, val_frac);
        let mut split = Self {
            train: vec![false; n],
            val: vec![false; n],
            test: vec![false; n],
        };
        for (k, &i) in order.iter().enumerate() {
            let mask = if k < n_train {
                &mut split.train
            } else if k < n_train + n_val {
                &mut split.val
            } else {
                &mut split.test
            };
            mask[i] = true;
        }
        Ok(split)
    }

    /// `(train, val, test)` sizes.
    pub fn counts(&self) -> (usize, usize, usize) {
        let c = |m: &[bool]| m.iter().filter(|&&b| b).count();
        (c(&self.train), c(&self.val), c(&self.test))
    }
}

/// A seeded random three-way split of `0..n`: a uniform permutation, whose first
/// `round(train_frac·n)` items train, the next `round(val_frac·n)` validate and the rest test.
/// Each part keeps the permutation's order (mini-batch trainers use it as their first epoch order).
///
/// # Errors
/// [`GraphError::InvalidParam`] when a fraction is not finite, not in [0, 1], or they sum above 1.
///
/// # Example
/// ```
/// use rand::SeedableRng;
/// let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
/// let [tr, va, te] = graph_core::random_split_indices(188, 0.8, 0.1, &mut rng)?;
/// assert_eq!((tr.len(), va.len(), te.len()), (150, 19, 19));
/// # Ok::<(), graph_core::GraphError>(())
/// ```
pub fn random_split_indices<R: Rng + ?Sized>(
    n: usize,
    train_frac: f64,
    val_frac: f64,
    rng: &mut R,
) -> Result<[Vec<usize>; 3]> {
    check_fractions(train_frac, val_frac)?;
    let mut perm: Vec<usize> = (0..n).collect();
    perm.shuffle(rng);
    let (n_train, n_val) = split_sizes(n, train_frac, val_frac);
    let test = perm.split_off(n_train + n_val);
    let val = perm.split_off(n_train);
    Ok([perm, val, test])
}

/// The training and validation sizes of a split of `n` nodes (rounded, within `n`).
fn split_sizes(n: usize, train_frac: f64, val_frac: f64) -> (usize, usize) {
    let n_train = ((train_frac * n as f64).round() as usize).min(n);
    let n_val = ((val_frac * n as f64).round() as usize).min(n - n_train);
    (n_train, n_val)
}

/// Both fractions in [0, 1], their sum at most 1.
fn check_fractions(train_frac: f64, val_frac: f64) -> Result<()> {
    for (name, v) in [("train_frac", train_frac), ("val_frac", val_frac)] {
        if !v.is_finite() || !(0.0..=1.0).contains(&v) {
            return Err(GraphError::InvalidParam {
                name,
                value: v.to_string(),
                reason: "must be a fraction in [0, 1]",
            });
        }
    }
    if train_frac + val_frac > 1.0 + 1e-12 {
        return Err(GraphError::InvalidParam {
            name: "val_frac",
            value: val_frac.to_string(),
            reason: "train_frac + val_frac exceeds 1",
        });
    }
    Ok(())
}

/// One graph with node features (`n × d`, `f32`), class labels in `0..num_classes` and an
/// optional split. Shapes are validated at construction.
#[derive(Clone, Debug)]
pub struct NodeDataset {
    name: String,
    graph: Graph,
    features: Array2<f32>,
    labels: Vec<u32>,
    num_classes: usize,
    split: Option<NodeSplit>,
}

impl NodeDataset {
    /// Bundles a graph, its features and labels; the class count is `max(label) + 1`.
    ///
    /// # Errors
    /// [`GraphError::Shape`] when feature rows or label count differ from the node count,
    /// [`GraphError::NonFinite`] for NaN/∞ features, [`GraphError::Empty`] for a graph without nodes.
    pub fn new(
        name: impl Into<String>,
        graph: Graph,
        features: Array2<f32>,
        labels: Vec<u32>,
    ) -> Result<Self> {
        let n = graph.num_nodes();
        if n == 0 {
            return Err(GraphError::Empty("node dataset without nodes".into()));
        }
        if features.nrows() != n {
            return Err(GraphError::Shape(format!(
                "{} feature rows for {n} nodes",
                features.nrows()
            )));
        }
        if labels.len() != n {
            return Err(GraphError::Shape(format!(
                "{} labels for {n} nodes",
                labels.len()
            )));
        }
        if let Some(((row, col), _)) = features.indexed_iter().find(|(_, v)| !v.is_finite()) {
            return Err(GraphError::NonFinite {
                what: "features",
                row,
                col,
            });
        }
        let num_classes = labels.iter().max().map_or(0, |&m| m as usize + 1);
        Ok(Self {
            name: name.into(),
            graph,
            features,
            labels,
            num_classes,
            split: None,
        })
    }

    /// Attaches a split.
    ///
    /// # Errors
    /// [`GraphError::Shape`] when the masks do not have one entry per node.
    pub fn with_split(mut self, split: NodeSplit) -> Result<Self> {
        let n = self.graph.num_nodes();
        if split.train.len() != n || split.val.len() != n || split.test.len() != n {
            return Err(GraphError::Shape(format!(
                "split masks must have {n} entries"
            )));
        }
        self.split = Some(split);
        Ok(self)
    }

    /// Replaces the graph (e.g. by a privatised release on the same nodes).
    ///
    /// # Errors
    /// [`GraphError::Shape`] when the node count differs.
    pub fn with_graph(mut self, graph: Graph) -> Result<Self> {
        if graph.num_nodes() != self.graph.num_nodes() {
            return Err(GraphError::Shape(format!(
                "replacement graph has {} nodes, dataset has {}",
                graph.num_nodes(),
                self.graph.num_nodes()
            )));
        }
        self.graph = graph;
        Ok(self)
    }

    /// Dataset name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The graph.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }
    /// Node features, one row per node.
    pub fn features(&self) -> &Array2<f32> {
        &self.features
    }
    /// Class label per node.
    pub fn labels(&self) -> &[u32] {
        &self.labels
    }
    /// Number of classes.
    pub fn num_classes(&self) -> usize {
        self.num_classes
    }
    /// The split, if one was attached.
    pub fn split(&self) -> Option<&NodeSplit> {
        self.split.as_ref()
    }
    /// Node count per class.
    pub fn class_counts(&self) -> Vec<usize> {
        let mut c = vec![0; self.num_classes];
        for &l in &self.labels {
            c[l as usize] += 1;
        }
        c
    }
}
