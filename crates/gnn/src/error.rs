//! Error type of the `gnn` crate.

/// Everything that can go wrong before or during training.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A tensor or table does not have the expected shape.
    #[error("shape mismatch in {what}: expected {expected}, got {got}")]
    Shape {
        /// What was checked.
        what: &'static str,
        /// Expected size.
        expected: usize,
        /// Actual size.
        got: usize,
    },
    /// A class label is outside `0..num_classes`.
    #[error("label {label} at position {index} is out of range for {num_classes} classes")]
    LabelOutOfRange {
        /// Position of the offending label.
        index: usize,
        /// The label.
        label: u32,
        /// Number of classes.
        num_classes: usize,
    },
    /// A NaN or infinite value in features, edge weights or targets.
    #[error("non-finite value in {what} at position {index}")]
    NonFinite {
        /// Which input.
        what: &'static str,
        /// Flat position of the first bad value.
        index: usize,
    },
    /// An edge endpoint is not a node of the graph.
    #[error("edge {index} ({src} -> {dst}) has an endpoint outside 0..{num_nodes}")]
    EdgeOutOfRange {
        /// Edge position.
        index: usize,
        /// Source node.
        src: u32,
        /// Destination node.
        dst: u32,
        /// Number of nodes.
        num_nodes: usize,
    },
    /// A mask or index set that must select something is empty.
    #[error("empty {0}")]
    Empty(&'static str),
    /// An invalid hyper-parameter.
    #[error("invalid parameter `{name}` = {value}: {reason}")]
    InvalidParam {
        /// Parameter name.
        name: &'static str,
        /// Offending value, rendered.
        value: String,
        /// Why it is invalid.
        reason: &'static str,
    },
    /// The task does not fit the model or training routine (e.g. regression targets given to a
    /// classifier, a model without pooling used for graph-level prediction).
    #[error("incompatible task: {0}")]
    Incompatible(String),
    /// An error from `graph-core` (loading data, building graphs, splits).
    #[error(transparent)]
    Graph(#[from] graph_core::GraphError),
}

/// `Result` with [`Error`] as the default error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Every named count must be positive: the first that is 0 is [`Error::InvalidParam`].
pub(crate) fn check_positive(counts: &[(&'static str, usize)]) -> Result<()> {
    match counts.iter().find(|(_, v)| *v == 0) {
        Some(&(name, _)) => Err(Error::InvalidParam {
            name,
            value: "0".into(),
            reason: "must be positive",
        }),
        None => Ok(()),
    }
}
