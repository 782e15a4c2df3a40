//! What a file may make a loader allocate: sizes read from a file are checked against the file's
//! own length before anything is allocated for them.
//!
//! A node count declared in a header (an edge list's `# nodes N`, a graph set's `"n"`) costs
//! memory even when no edge names the nodes, so a tiny file could otherwise ask for gigabytes. A
//! file may declare up to [`FREE_DECLARED_NODES`] nodes, plus [`DECLARED_NODES_PER_BYTE`] per
//! byte of its own length: a real graph's edges take far more room than that, while a 100-byte
//! file that claims 4·10⁹ nodes is refused (the allocation it could cause is at most
//! 8 MiB + 512 bytes per input byte).

use std::path::Path;

use crate::error::{GraphError, Result};

/// Nodes any file may declare regardless of its length.
pub const FREE_DECLARED_NODES: u64 = 1 << 20;

/// Further nodes a file may declare per byte of its length.
pub const DECLARED_NODES_PER_BYTE: u64 = 64;

/// The most nodes a file of `len` bytes may declare in all.
///
/// # Example
/// ```
/// use graph_core::limits::{declared_nodes_limit, FREE_DECLARED_NODES};
/// assert_eq!(declared_nodes_limit(0), FREE_DECLARED_NODES);
/// assert_eq!(declared_nodes_limit(100), FREE_DECLARED_NODES + 6_400);
/// ```
pub fn declared_nodes_limit(len: u64) -> u64 {
    FREE_DECLARED_NODES.saturating_add(len.saturating_mul(DECLARED_NODES_PER_BYTE))
}

/// Checks that a file of `len` bytes may declare `declared` nodes in all.
///
/// # Errors
/// [`GraphError::Format`] naming the file, the declared count and the limit.
pub fn check_declared_nodes(path: &Path, declared: u64, len: u64) -> Result<()> {
    let limit = declared_nodes_limit(len);
    if declared > limit {
        return Err(GraphError::format(
            path,
            format!(
                "declares {declared} nodes in a file of {len} bytes: at most {limit} \
                 ({FREE_DECLARED_NODES} + {DECLARED_NODES_PER_BYTE} per byte; see graph_core::limits)"
            ),
        ));
    }
    Ok(())
}
