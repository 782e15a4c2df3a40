//! The edge-list format of the command line: `# nodes N`, then one `u v` per line (0-based).

use std::collections::HashSet;
use std::io::Write;
use std::path::Path;

use crate::error::{GraphError, Result};
use crate::graph::Graph;
use crate::io::{Tokens, lines, read_maybe_gz, write_atomic};

/// Reads an edge list: first non-empty line `# nodes N`, then one undirected edge `u v` per line
/// (0-based ids, any whitespace or comma separator); other lines starting with `#` are comments.
/// Each edge must appear once, in either orientation. `.gz` files are decompressed.
///
/// # Errors
/// [`GraphError::Parse`] with the line for a missing header, a non-numeric token, an id `>= N`,
/// a self-loop or a duplicate edge; [`GraphError::Io`] for unreadable or truncated files.
///
/// # Example
/// ```
/// let dir = tempfile::tempdir()?;
/// let p = dir.path().join("g.txt");
/// std::fs::write(&p, "# nodes 3\n0 1\n# a comment\n2 1\n")?;
/// let g = graph_core::io::read_edge_list(&p)?;
/// assert_eq!((g.num_nodes(), g.num_edges()), (3, 2));
/// std::fs::write(&p, "# nodes 3\n0 1\n1 0\n")?;
/// assert!(graph_core::io::read_edge_list(&p).unwrap_err().to_string().contains(":3: duplicate edge"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_edge_list(path: &Path) -> Result<Graph> {
    let buf = read_maybe_gz(path)?;
    let mut n: Option<usize> = None;
    let mut edges: Vec<(u32, u32)> = Vec::new();
    let mut seen: HashSet<(u32, u32)> = HashSet::new();
    for (no, line) in lines(&buf) {
        let trimmed = line.trim_ascii();
        if trimmed.is_empty() {
            continue;
        }
        if let Some(comment) = trimmed.strip_prefix(b"#") {
            if n.is_none() {
                n = Some(parse_header(path, no, comment)?);
            }
            continue;
        }
        let n = n.ok_or_else(|| {
            GraphError::parse(
                path,
                no,
                "expected the header `# nodes N` before the first edge",
            )
        })?;
        let mut t = Tokens::new(trimmed);
        let mut id = |what| -> Result<u32> {
            let v = t
                .next_i64(what)
                .map_err(|m| GraphError::parse(path, no, m))?;
            if v < 0 || v as u64 >= n as u64 {
                return Err(GraphError::parse(
                    path,
                    no,
                    format!("node id {v} out of range 0..{n}"),
                ));
            }
            Ok(v as u32)
        };
        let u = id("source node id")?;
        let v = id("target node id")?;
        t.expect_end().map_err(|m| GraphError::parse(path, no, m))?;
        if u == v {
            return Err(GraphError::parse(
                path,
                no,
                format!("self-loop on node {u}"),
            ));
        }
        let e = (u.min(v), u.max(v));
        if !seen.insert(e) {
            return Err(GraphError::parse(
                path,
                no,
                format!("duplicate edge {{{}, {}}}", e.0, e.1),
            ));
        }
        edges.push(e);
    }
    let n = n.ok_or_else(|| GraphError::format(path, "empty file: expected `# nodes N`"))?;
    Graph::from_edges(n, &edges)
}

fn parse_header(path: &Path, no: usize, comment: &[u8]) -> Result<usize> {
    let mut t = Tokens::new(comment);
    let bad = || GraphError::parse(path, no, "expected the header `# nodes N`");
    match t.next_token() {
        Some(b"nodes") => {}
        _ => return Err(bad()),
    }
    let n = t
        .next_i64("node count N")
        .map_err(|m| GraphError::parse(path, no, m))?;
    t.expect_end().map_err(|m| GraphError::parse(path, no, m))?;
    usize::try_from(n).map_err(|_| GraphError::parse(path, no, format!("negative node count {n}")))
}

/// Writes `graph` as an edge list (gzipped when the path ends in `.gz`), atomically.
///
/// # Errors
/// [`GraphError::Io`] when the file cannot be written.
pub fn write_edge_list(path: &Path, graph: &Graph) -> Result<()> {
    let mut text = Vec::with_capacity(graph.num_edges() * 12 + 32);
    writeln!(text, "# nodes {}", graph.num_nodes()).map_err(|e| GraphError::io(path, e))?;
    for (u, v) in graph.edges() {
        writeln!(text, "{u} {v}").map_err(|e| GraphError::io(path, e))?;
    }
    if path.extension().is_some_and(|e| e == "gz") {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&text).map_err(|e| GraphError::io(path, e))?;
        text = enc.finish().map_err(|e| GraphError::io(path, e))?;
    }
    write_atomic(path, &text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err_of(content: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("g.txt");
        std::fs::write(&p, content).unwrap();
        read_edge_list(&p).unwrap_err().to_string()
    }

    #[test]
    fn malformed_edge_lists_name_line_and_problem() {
        assert!(err_of("0 1\n").contains(":1: expected the header"));
        assert!(
            err_of("# nodes 2\n0 x\n")
                .contains(":2: expected target node id (an integer), found `x`")
        );
        assert!(err_of("# nodes 2\n0 2\n").contains(":2: node id 2 out of range 0..2"));
        assert!(err_of("# nodes 2\n1 1\n").contains(":2: self-loop on node 1"));
        assert!(err_of("# nodes 3\n0 1\n1 2\n1 0\n").contains(":4: duplicate edge {0, 1}"));
        assert!(
            err_of("# nodes 3\n0\n").contains(":2: expected target node id, found end of line")
        );
        assert!(err_of("").contains("empty file"));
    }

    #[test]
    fn roundtrip_plain_and_gz() {
        let g = Graph::from_edges(5, &[(0, 4), (1, 2), (3, 1)]).unwrap();
        let dir = tempfile::tempdir().unwrap();
        for name in ["g.txt", "g.txt.gz"] {
            let p = dir.path().join(name);
            write_edge_list(&p, &g).unwrap();
            assert_eq!(read_edge_list(&p).unwrap(), g);
        }
    }

    #[test]
    fn truncated_gzip_is_an_io_error() {
        let g = Graph::from_edges(200, &(1..200).map(|v| (0, v)).collect::<Vec<_>>()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("g.txt.gz");
        write_edge_list(&p, &g).unwrap();
        let bytes = std::fs::read(&p).unwrap();
        std::fs::write(&p, &bytes[..bytes.len() / 2]).unwrap();
        assert!(matches!(read_edge_list(&p), Err(GraphError::Io { .. })));
    }
}
