//! Dataset loaders: TU format, the node-classification layout of the mirror (`edges.txt` +
//! `.npy`), and OGB's raw graph-property CSVs.
//!
//! Every loader reports malformed input as a [`GraphError`] naming the file,
//! the line and what was expected; none panics on bad data.

mod node_npy;
mod ogb;
pub mod pickle;
mod tu;

pub use node_npy::load_node_npy;
pub use ogb::load_ogb_raw;
pub use tu::load_tu;

use std::path::Path;

use crate::error::{GraphError, Result};
use crate::io::{Tokens, lines};

/// Parses a file with one integer per (non-blank) line.
pub(crate) fn parse_int_column(path: &Path, buf: &[u8], what: &str) -> Result<Vec<i64>> {
    let mut out = Vec::with_capacity(buf.len() / 4);
    for (no, line) in lines(buf) {
        if line.trim_ascii().is_empty() {
            continue;
        }
        let mut t = Tokens::new(line);
        let v = t
            .next_i64(what)
            .map_err(|m| GraphError::parse(path, no, m))?;
        t.expect_end().map_err(|m| GraphError::parse(path, no, m))?;
        out.push(v);
    }
    Ok(out)
}

/// Parses a file with one float per (non-blank) line.
pub(crate) fn parse_float_column(path: &Path, buf: &[u8], what: &str) -> Result<Vec<f64>> {
    let mut out = Vec::new();
    for (no, line) in lines(buf) {
        if line.trim_ascii().is_empty() {
            continue;
        }
        let mut t = Tokens::new(line);
        let v = t
            .next_f64(what)
            .map_err(|m| GraphError::parse(path, no, m))?;
        if !v.is_finite() {
            return Err(GraphError::parse(path, no, format!("non-finite {what}")));
        }
        t.expect_end().map_err(|m| GraphError::parse(path, no, m))?;
        out.push(v);
    }
    Ok(out)
}

/// Reads an index file (0-based ids, one per line) and checks every id is `< bound`.
pub(crate) fn read_index_file(path: &Path, bound: usize) -> Result<Vec<usize>> {
    let buf = crate::io::read_maybe_gz(path)?;
    let mut out = Vec::new();
    for (no, line) in lines(&buf) {
        if line.trim_ascii().is_empty() {
            continue;
        }
        let mut t = Tokens::new(line);
        let v = t
            .next_i64("a 0-based graph index")
            .map_err(|m| GraphError::parse(path, no, m))?;
        if v < 0 || v as u64 >= bound as u64 {
            return Err(GraphError::parse(
                path,
                no,
                format!("index {v} out of range 0..{bound}"),
            ));
        }
        out.push(v as usize);
    }
    Ok(out)
}
