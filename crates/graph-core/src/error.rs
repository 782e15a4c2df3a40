//! Error type of graph-core.

use std::path::PathBuf;

/// Everything that can go wrong while building, reading or generating graphs.
///
/// Parse errors carry the file, the 1-based line and what was expected, so that a user can fix
/// a malformed input without reading the source.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GraphError {
    /// An edge `(u, u)`: dpgraph graphs are simple.
    #[error("self-loop on node {node}")]
    SelfLoop {
        /// The node with the loop.
        node: u64,
    },
    /// A node id outside `0..n`.
    #[error("node id {node} out of range for a graph with {n} nodes")]
    NodeOutOfRange {
        /// The offending id (as given, after converting 1-based ids to 0-based).
        node: u64,
        /// The number of nodes.
        n: u64,
    },
    /// An edge given twice while duplicates are rejected.
    #[error("duplicate edge {{{u}, {v}}}")]
    DuplicateEdge {
        /// Smaller endpoint.
        u: u32,
        /// Larger endpoint.
        v: u32,
    },
    /// More nodes than fit in `u32` ids.
    #[error("{n} nodes do not fit in u32 node ids")]
    TooManyNodes {
        /// The requested node count.
        n: u64,
    },
    /// A request that would allocate more memory than this process can still get
    /// ([`crate::limits::MemoryBudget`]): refused before allocating.
    #[error(
        "{what} needs about {} ({bytes} bytes), more than the {} this process can still \
         allocate (see graph_core::limits::MemoryBudget)",
        human_bytes(*bytes),
        human_bytes(*budget)
    )]
    TooLarge {
        /// What would have been allocated.
        what: String,
        /// The estimated size in bytes.
        bytes: u64,
        /// The budget in bytes.
        budget: u64,
    },
    /// A parameter outside its domain (probability not in `[0, 1]`, zero blocks, …).
    #[error("invalid parameter `{name}` = {value}: {reason}")]
    InvalidParam {
        /// Parameter name.
        name: &'static str,
        /// The rejected value, as text.
        value: String,
        /// Why it was rejected.
        reason: &'static str,
    },
    /// Mismatched shapes or counts between parts of one dataset (features vs labels, …).
    #[error("shape mismatch: {0}")]
    Shape(String),
    /// A line that cannot be parsed.
    #[error("{}:{line}: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line number (0 when the error is not tied to a line).
        line: usize,
        /// What was found and what was expected.
        message: String,
    },
    /// A file whose content is inconsistent as a whole (wrong line count, bad header, …).
    #[error("{}: {message}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A required file is missing.
    #[error("missing file {}", path.display())]
    MissingFile {
        /// The file that was looked for (without `.gz`).
        path: PathBuf,
    },
    /// An I/O error on a file (including a truncated or corrupt gzip stream).
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A dataset name that the registry does not know.
    #[error("unknown dataset `{name}` (known: {known})")]
    UnknownDataset {
        /// The name asked for.
        name: String,
        /// Comma-separated known names.
        known: String,
    },
    /// A dataset that is in the registry but not installed.
    #[error(
        "dataset `{name}` is not installed in {} (run `dpgraph datasets install {name}`)",
        dir.display()
    )]
    NotInstalled {
        /// Dataset name.
        name: String,
        /// The data directory searched.
        dir: PathBuf,
    },
    /// A dataset checked by its counts (no checksum in the registry) whose load gives another
    /// count than the registry's `expect`.
    #[error(
        "dataset {dataset}: {what} is {}, the registry expects {expected} (a dataset without checksums is checked by its published counts)",
        actual.map_or_else(|| "absent".to_owned(), |a| a.to_string())
    )]
    Counts {
        /// Dataset name.
        dataset: String,
        /// Which count (`nodes`, `edges`, `rows of FILE`, …).
        what: String,
        /// The registry's count.
        expected: usize,
        /// The loaded count (`None`: the loader has no such count).
        actual: Option<usize>,
    },
    /// A collection checked by its published means (no checksum in the registry) whose mean
    /// nodes or edges per graph does not round to the published figure.
    #[error(
        "dataset {dataset}: mean {what} per graph is {actual:.4}, the registry expects the published {published} (a dataset without checksums is checked by its published counts)"
    )]
    PublishedMean {
        /// Dataset name.
        dataset: String,
        /// `nodes` or `edges`.
        what: String,
        /// The published mean, as printed.
        published: String,
        /// The loaded mean.
        actual: f64,
    },
    /// A file whose SHA-256 does not match the registry.
    #[error("checksum mismatch for {file}: expected {expected}, got {actual}")]
    Checksum {
        /// The file (relative to its dataset).
        file: String,
        /// SHA-256 from the registry.
        expected: String,
        /// SHA-256 of the bytes received.
        actual: String,
    },
    /// A downloaded or embedded archive that cannot be unpacked safely: corrupt or truncated,
    /// a member escaping the target folder, a link, or a decompression bomb.
    #[error("archive {archive}: {message}")]
    Archive {
        /// The archive's file name.
        archive: String,
        /// What is wrong.
        message: String,
    },
    /// A download that failed: network, HTTP status, timeout, wrong size.
    #[error("download {url}: {message}")]
    Download {
        /// Where it was read from.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// An upstream archive whose content does not convert to the installed layout.
    #[error("converting {dataset}: {message}")]
    Convert {
        /// The dataset.
        dataset: String,
        /// The member or value that does not fit.
        message: String,
    },
    /// Every upstream source of a dataset failed.
    #[error("no upstream source of {dataset} could be installed: {failures}")]
    Upstream {
        /// The dataset.
        dataset: String,
        /// One entry per source tried, `; `-separated.
        failures: String,
    },
    /// A dataset with no plain download: the user installs it by hand.
    #[error("{dataset} has no plain download; install it by hand: {steps}")]
    Manual {
        /// The dataset.
        dataset: String,
        /// The steps.
        steps: String,
    },
    /// A malformed registry file.
    #[error("registry: {0}")]
    Registry(String),
    /// An empty graph where at least one node is required.
    #[error("empty graph: {0}")]
    Empty(String),
    /// Non-finite feature values.
    #[error("non-finite value in {what} at row {row}, column {col}")]
    NonFinite {
        /// Which array.
        what: &'static str,
        /// Row index.
        row: usize,
        /// Column index.
        col: usize,
    },
}

/// Result alias of graph-core.
pub type Result<T, E = GraphError> = std::result::Result<T, E>;

impl GraphError {
    /// A parse error at `line` of `path`.
    pub(crate) fn parse(path: &std::path::Path, line: usize, message: impl Into<String>) -> Self {
        Self::Parse {
            path: path.to_path_buf(),
            line,
            message: message.into(),
        }
    }

    /// A whole-file format error.
    pub(crate) fn format(path: &std::path::Path, message: impl Into<String>) -> Self {
        Self::Format {
            path: path.to_path_buf(),
            message: message.into(),
        }
    }

    /// An I/O error on `path`.
    pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> Self {
        Self::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// `bytes` for a reader: `3.0 GiB`, `512.0 MiB`, `900 bytes`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut v = bytes as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit < UNITS.len() - 1 {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}
