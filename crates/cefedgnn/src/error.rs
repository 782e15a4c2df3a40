//! Error type of cefedgnn: leaf errors of graph-core and dp-core wrapped with `#[from]`, plus the
//! crate's own parse, configuration and protocol errors.

use std::path::PathBuf;

/// Everything that can go wrong in the federated setting, the AML data and the protocol.
///
/// A rejected message never changes the state of the role that rejected it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FedError {
    /// An error from graph-core (graph construction, partitions, atomic writes).
    #[error(transparent)]
    Graph(#[from] graph_core::GraphError),
    /// An error from dp-core (invalid mechanism parameters, budget refusals).
    #[error(transparent)]
    Dp(dp_core::Error),
    /// An error from the gnn crate (model configuration, shapes).
    #[error(transparent)]
    Gnn(#[from] gnn::Error),
    /// A parameter outside its domain.
    #[error("invalid parameter `{name}` = {value}: {reason}")]
    InvalidParam {
        /// Parameter name.
        name: &'static str,
        /// The rejected value, as text.
        value: String,
        /// The rule it broke.
        reason: &'static str,
    },
    /// A malformed CSV line: the file, the 1-based line, the column and what was expected.
    #[error("{}:{line}: {message}", path.display())]
    Csv {
        /// The file.
        path: PathBuf,
        /// 1-based line number (0 when the error concerns the whole file).
        line: usize,
        /// What was found and what was expected.
        message: String,
    },
    /// An unreadable file (including a corrupt gzip stream).
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A required file is missing.
    #[error("missing file {}", path.display())]
    MissingFile {
        /// The file looked for.
        path: PathBuf,
    },
    /// Inconsistent data between files or inside a structure (unknown account ids, shapes, …).
    #[error("inconsistent data: {0}")]
    Inconsistent(String),
    /// A message larger than the bound for its kind.
    #[error("{kind} message of {bytes} bytes exceeds the bound of {limit} bytes")]
    MessageTooLarge {
        /// Message kind.
        kind: &'static str,
        /// Size received.
        bytes: usize,
        /// The bound.
        limit: usize,
    },
    /// A message with a protocol version this code does not speak.
    #[error("unknown protocol version {found} (this side speaks {expected})")]
    UnknownVersion {
        /// Version found in the frame.
        found: u16,
        /// Version spoken here.
        expected: u16,
    },
    /// A frame that does not decode (bad magic, truncated, trailing bytes, bad tag).
    #[error("malformed message: {0}")]
    Malformed(String),
    /// A well-formed message that is not acceptable in the receiver's state.
    #[error("rejected message: {0}")]
    Rejected(String),
    /// A halo row for a node the receiving client does not border, or a boundary row for a node
    /// the sending client does not own on the boundary.
    #[error("client {client}: node {node} is not in its {set} set")]
    NotInSet {
        /// The client concerned.
        client: u32,
        /// The node id (global).
        node: u32,
        /// `"halo"` or `"boundary"`.
        set: &'static str,
    },
    /// A transport failure (unknown endpoint, closed channel).
    #[error("transport: {0}")]
    Transport(String),
}

/// `Result` with [`FedError`] as the default error type.
pub type Result<T, E = FedError> = std::result::Result<T, E>;

impl FedError {
    /// A CSV error at `line` of `path`.
    pub(crate) fn csv(path: &std::path::Path, line: usize, message: impl Into<String>) -> Self {
        Self::Csv {
            path: path.to_path_buf(),
            line,
            message: message.into(),
        }
    }

    /// An invalid-parameter error.
    pub(crate) fn param(name: &'static str, value: impl ToString, reason: &'static str) -> Self {
        Self::InvalidParam {
            name,
            value: value.to_string(),
            reason,
        }
    }
}

/// `value` must lie in (0, 1] (γ, β and similar coefficients).
pub(crate) fn unit_interval(name: &'static str, value: f64) -> Result<f64> {
    if value.is_nan() || value <= 0.0 || value > 1.0 {
        Err(FedError::param(name, value, "must lie in (0, 1]"))
    } else {
        Ok(value)
    }
}

/// `value` must be finite and ≥ 0.
pub(crate) fn non_negative(name: &'static str, value: f64) -> Result<f64> {
    if !value.is_finite() || value < 0.0 {
        Err(FedError::param(name, value, "must be finite and >= 0"))
    } else {
        Ok(value)
    }
}

/// `value` must be finite and > 0.
pub(crate) fn positive(name: &'static str, value: f64) -> Result<f64> {
    if !value.is_finite() || value <= 0.0 {
        Err(FedError::param(name, value, "must be finite and > 0"))
    } else {
        Ok(value)
    }
}

impl From<dp_core::Error> for FedError {
    /// dp-core's parameter errors keep their name, value and rule (privacy parameters are
    /// validated by dp-core's types alone); the others are wrapped.
    fn from(e: dp_core::Error) -> Self {
        e.into_invalid_param()
            .map_or_else(Self::Dp, |(name, value, reason)| {
                Self::param(name, value, reason)
            })
    }
}
