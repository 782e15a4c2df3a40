//! Error type of homdp: every invalid pattern, graph or privacy parameter is a typed value.

use graph_core::GraphError;

/// Errors returned by homdp.
///
/// Nothing is clamped or wrapped silently: an out-of-range parameter, an overflowing exact count
/// or a graph that breaks the public degree bound is reported here.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HomdpError {
    /// A pattern with more nodes than [`crate::MAX_PATTERN_NODES`].
    #[error("pattern has {nodes} nodes, at most {max} are supported")]
    PatternTooLarge {
        /// Requested number of nodes.
        nodes: usize,
        /// The limit.
        max: usize,
    },
    /// A pattern without nodes (its density would be the constant 1).
    #[error("a pattern needs at least one node")]
    EmptyPattern,
    /// A pattern edge `(v, v)`.
    #[error("self-loop on pattern node {node}")]
    SelfLoop {
        /// The node with the loop.
        node: usize,
    },
    /// A pattern node id outside `0..n`.
    #[error("pattern node {node} out of range for a pattern with {n} nodes")]
    NodeOutOfRange {
        /// The offending id.
        node: usize,
        /// The number of pattern nodes.
        n: usize,
    },
    /// A pattern edge listed twice (in either orientation).
    #[error("duplicate pattern edge {{{u}, {v}}}")]
    DuplicateEdge {
        /// Smaller endpoint.
        u: usize,
        /// Larger endpoint.
        v: usize,
    },
    /// A tree decomposition that is not one of the pattern it is attached to.
    #[error("invalid tree decomposition: {reason}")]
    InvalidDecomposition {
        /// The property that fails.
        reason: &'static str,
    },
    /// A counting method applied to a pattern outside its class (e.g. the cycle method on a tree).
    #[error("the {method} method needs {needs}")]
    WrongPatternClass {
        /// The method.
        method: &'static str,
        /// What the pattern must be.
        needs: &'static str,
    },
    /// An exact count exceeded `u128`. Use the density path, which does not overflow.
    #[error(
        "exact homomorphism count overflows u128 ({pattern_nodes}-node pattern, {graph_nodes}-node graph)"
    )]
    Overflow {
        /// Nodes of the pattern.
        pattern_nodes: usize,
        /// Nodes of the graph.
        graph_nodes: usize,
    },
    /// The dynamic programme would need more table entries than the configured limit.
    #[error("dynamic programme needs {entries:e} table entries, limit {limit:e}")]
    TooExpensive {
        /// Entries needed (as f64, it may not fit an integer type).
        entries: f64,
        /// The limit.
        limit: f64,
    },
    /// A graph without nodes: densities `hom / n^m` are undefined.
    #[error("graph {index} has no nodes: its densities are undefined")]
    EmptyGraph {
        /// Position of the graph in its collection (0 for a single graph).
        index: usize,
    },
    /// A graph whose maximum degree exceeds the public degree bound Δ: the bounded-degree
    /// sensitivity would be false for it.
    #[error("graph {index} has maximum degree {max_degree} > degree bound {bound}")]
    DegreeBoundExceeded {
        /// Position of the graph in its collection (0 for a single graph).
        index: usize,
        /// The public bound Δ.
        bound: usize,
        /// The graph's maximum degree.
        max_degree: usize,
    },
    /// A numeric parameter outside its domain.
    #[error("invalid parameter `{name}` = {value}: {reason}")]
    InvalidParam {
        /// Name of the parameter.
        name: &'static str,
        /// The offending value (integers converted to `f64`).
        value: f64,
        /// The rule it broke.
        reason: &'static str,
    },
    /// A measured check of the noise calibration failed: a single-edge flip moved a density
    /// by more than the sensitivity bound, or the drawn noise's variance lies outside its
    /// confidence interval around the calibrated σ² ([`crate::paper::check_noise_scale`]).
    #[error(
        "noise calibration violated for {pattern} ({check}): measured {measured:e}, calibrated {calibrated:e}"
    )]
    CalibrationViolated {
        /// The pattern (and degree bound) of the failing row.
        pattern: String,
        /// Which check failed (`local sensitivity` or `noise variance`).
        check: &'static str,
        /// The measured local sensitivity or noise variance.
        measured: f64,
        /// The bound or calibrated σ² it was checked against.
        calibrated: f64,
    },
    /// A downstream model (linfa) failed to fit.
    #[error("{model} failed: {reason}")]
    Downstream {
        /// The model.
        model: &'static str,
        /// linfa's message.
        reason: String,
    },
    /// An error from dp-core (a mechanism or conversion refused its parameters).
    #[error(transparent)]
    Dp(#[from] dp_core::Error),
    /// An error from graph-core (building a clipped graph).
    #[error(transparent)]
    Graph(#[from] GraphError),
    /// A [`crate::paper::GinCache`] could not record a finished GIN training (feature
    /// `gin-baselines`).
    #[cfg(feature = "gin-baselines")]
    #[error("recording a finished GIN training: {0}")]
    Cache(#[source] std::io::Error),
    /// An error from gnn (training the GIN baseline; feature `gin-baselines`).
    #[cfg(feature = "gin-baselines")]
    #[error(transparent)]
    Gnn(Box<gnn::Error>),
}

#[cfg(feature = "gin-baselines")]
impl From<gnn::Error> for HomdpError {
    fn from(e: gnn::Error) -> Self {
        Self::Gnn(Box::new(e))
    }
}

/// `Result` with [`HomdpError`] as the default error type.
pub type Result<T, E = HomdpError> = std::result::Result<T, E>;

/// Shorthand for [`HomdpError::InvalidParam`].
pub(crate) fn invalid<T>(name: &'static str, value: f64, reason: &'static str) -> Result<T> {
    Err(HomdpError::InvalidParam {
        name,
        value,
        reason,
    })
}
