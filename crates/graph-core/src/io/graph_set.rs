//! The graph-set JSON format: `{"graphs": [{"n": 4, "edges": [[0,1],[1,2]]}, …]}`.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{GraphError, Result};
use crate::graph::Graph;
use crate::io::write_atomic;

/// One graph of a graph-set file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct GraphEntry {
    n: usize,
    edges: Vec<[u32; 2]>,
}

/// The file shape: graphs under `"graphs"`, pattern sets under `"patterns"`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct GraphSetFile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    graphs: Option<Vec<GraphEntry>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    patterns: Option<Vec<GraphEntry>>,
}

/// Which key a graph set lives under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphSet {
    /// `"graphs"`.
    Graphs,
    /// `"patterns"`.
    Patterns,
}

impl GraphSet {
    fn key(self) -> &'static str {
        match self {
            Self::Graphs => "graphs",
            Self::Patterns => "patterns",
        }
    }
}

/// Reads the graphs stored under `kind`'s key of a graph-set JSON file. Each edge must appear once
/// (either orientation); self-loops and ids `>= n` are errors.
///
/// # Errors
/// [`GraphError::Format`] for malformed JSON, a missing key, or an invalid graph (the message
/// names the graph index and the problem); [`GraphError::Io`] for unreadable files.
///
/// # Example
/// ```
/// use graph_core::io::{GraphSet, read_graph_set};
/// let dir = tempfile::tempdir()?;
/// let p = dir.path().join("p.json");
/// std::fs::write(&p, r#"{"patterns": [{"n": 3, "edges": [[0,1],[1,2]]}, {"n": 1, "edges": []}]}"#)?;
/// let ps = read_graph_set(&p, GraphSet::Patterns)?;
/// assert_eq!(ps.len(), 2);
/// assert_eq!(ps[0].num_edges(), 2);
/// assert!(read_graph_set(&p, GraphSet::Graphs).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_graph_set(path: &Path, kind: GraphSet) -> Result<Vec<Graph>> {
    let bytes = crate::io::read_maybe_gz(path)?;
    parse(path, &bytes, kind)
}

/// Parses a graph set held in memory (the format of [`read_graph_set`]; errors name the file
/// `<memory>`).
///
/// # Errors
/// As [`read_graph_set`], but no I/O.
///
/// ```
/// use graph_core::io::{GraphSet, parse_graph_set};
/// let gs = parse_graph_set(br#"{"graphs": [{"n": 3, "edges": [[0, 1]]}]}"#, GraphSet::Graphs)?;
/// assert_eq!(gs[0].num_edges(), 1);
/// // A tiny file may not declare billions of nodes (see graph_core::limits).
/// assert!(parse_graph_set(br#"{"graphs": [{"n": 4000000000, "edges": []}]}"#, GraphSet::Graphs).is_err());
/// # Ok::<(), graph_core::GraphError>(())
/// ```
pub fn parse_graph_set(bytes: &[u8], kind: GraphSet) -> Result<Vec<Graph>> {
    parse(Path::new("<memory>"), bytes, kind)
}

fn parse(path: &Path, bytes: &[u8], kind: GraphSet) -> Result<Vec<Graph>> {
    let file: GraphSetFile = serde_json::from_slice(bytes)
        .map_err(|e| GraphError::format(path, format!("invalid graph-set JSON: {e}")))?;
    let entries = match kind {
        GraphSet::Graphs => file.graphs,
        GraphSet::Patterns => file.patterns,
    }
    .ok_or_else(|| GraphError::format(path, format!("missing key `{}`", kind.key())))?;
    let declared = entries
        .iter()
        .fold(0u64, |acc, e| acc.saturating_add(e.n as u64));
    crate::limits::check_declared_nodes(path, declared, bytes.len() as u64)?;
    entries
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            let edges: Vec<(u32, u32)> = e.edges.iter().map(|&[u, v]| (u, v)).collect();
            Graph::from_edges(e.n, &edges)
                .map_err(|err| GraphError::format(path, format!("{} {i}: {err}", kind.key())))
        })
        .collect()
}

/// Writes graphs under `kind`'s key, atomically.
///
/// # Errors
/// [`GraphError::Io`] when the file cannot be written.
pub fn write_graph_set(path: &Path, graphs: &[Graph], kind: GraphSet) -> Result<()> {
    let entries: Vec<GraphEntry> = graphs
        .iter()
        .map(|g| GraphEntry {
            n: g.num_nodes(),
            edges: g.edges().map(|(u, v)| [u, v]).collect(),
        })
        .collect();
    let file = match kind {
        GraphSet::Graphs => GraphSetFile {
            graphs: Some(entries),
            patterns: None,
        },
        GraphSet::Patterns => GraphSetFile {
            graphs: None,
            patterns: Some(entries),
        },
    };
    let json = serde_json::to_vec(&file).map_err(|e| GraphError::format(path, e.to_string()))?;
    write_atomic(path, &json)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip_and_errors() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("g.json");
        let gs = vec![
            Graph::from_edges(3, &[(0, 1), (1, 2)]).unwrap(),
            Graph::empty(2).unwrap(),
        ];
        write_graph_set(&p, &gs, GraphSet::Graphs).unwrap();
        assert_eq!(read_graph_set(&p, GraphSet::Graphs).unwrap(), gs);

        std::fs::write(&p, r#"{"graphs": [{"n": 2, "edges": [[0,0]]}]}"#).unwrap();
        let e = read_graph_set(&p, GraphSet::Graphs)
            .unwrap_err()
            .to_string();
        assert!(e.contains("graphs 0: self-loop on node 0"), "{e}");
        std::fs::write(&p, r#"{"graphs": [{"n": 2, "edges": [[0,5]]}]}"#).unwrap();
        let e = read_graph_set(&p, GraphSet::Graphs)
            .unwrap_err()
            .to_string();
        assert!(e.contains("out of range"), "{e}");
        std::fs::write(&p, r#"{"graphs": [{"n": 2, "edges": [[0,1],[1,0]]}]}"#).unwrap();
        assert!(read_graph_set(&p, GraphSet::Graphs).is_err());
        std::fs::write(&p, r#"{"graphs": [{"n": 2, "edges": [[0,1]]"#).unwrap();
        let e = read_graph_set(&p, GraphSet::Graphs)
            .unwrap_err()
            .to_string();
        assert!(e.contains("invalid graph-set JSON"), "{e}");
    }
}
