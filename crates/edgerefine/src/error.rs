//! Error type of edgerefine.

/// Everything that can go wrong in the client or the server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EdgeRefineError {
    /// A parameter outside its domain.
    #[error("invalid parameter `{name}` = {value}: {reason}")]
    InvalidParam {
        /// Parameter name.
        name: &'static str,
        /// The rejected value.
        value: f64,
        /// Why.
        reason: &'static str,
    },
    /// More nodes than a server takes: `u32` ids and counts for the tiled server, 16-bit counts
    /// for the all-pairs one (`refine_all_pairs`).
    #[error("graph with {n} nodes is too large for this server (at most {max} nodes)")]
    TooLarge {
        /// Node count.
        n: usize,
        /// Supported maximum.
        max: usize,
    },
    /// The noisy graph does not have the declared node count.
    #[error("noisy graph has {got} nodes, {expected} declared")]
    NodeCountMismatch {
        /// Declared.
        expected: usize,
        /// Found.
        got: usize,
    },
    /// A name (model, method, dataset) that is not one of the known ones.
    #[error("unknown {what} `{name}` (known: {known})")]
    UnknownName {
        /// What was named.
        what: &'static str,
        /// The name given.
        name: String,
        /// The names accepted.
        known: &'static str,
    },
    /// A corrupt or truncated report file (see [`crate::report`]).
    #[error("report: at byte {offset}: {fault}")]
    Report {
        /// Byte offset of the offending field or byte in the file.
        offset: u64,
        /// What is wrong.
        fault: crate::report::ReportFault,
    },
    /// Tile results that do not fit the coordinator of a tiled refine (see
    /// [`crate::TiledRefine`]): out of order, of another plan, or counts that do not add up.
    #[error("tiled refine: {0}")]
    Tiles(String),
    /// A privacy error from dp-core (its invalid parameters arrive as
    /// [`EdgeRefineError::InvalidParam`]).
    #[error(transparent)]
    Dp(dp_core::Error),
    /// Training a GNN on a release failed.
    #[error("training: {0}")]
    Train(String),
    /// A graph error from graph-core.
    #[error(transparent)]
    Graph(#[from] graph_core::GraphError),
}

/// A gnn error while training on a release (feature `train`), kept as its message.
#[cfg(feature = "train")]
impl From<gnn::Error> for EdgeRefineError {
    fn from(e: gnn::Error) -> Self {
        Self::Train(e.to_string())
    }
}

/// Result alias of edgerefine.
pub type Result<T, E = EdgeRefineError> = std::result::Result<T, E>;

impl From<dp_core::Error> for EdgeRefineError {
    /// dp-core's parameter errors keep their name, value and rule (ε is validated by dp-core
    /// alone, [`dp_core::params::Epsilon`]); the others are wrapped.
    fn from(e: dp_core::Error) -> Self {
        e.into_invalid_param()
            .map_or_else(Self::Dp, |(name, value, reason)| Self::InvalidParam {
                name,
                value,
                reason,
            })
    }
}
