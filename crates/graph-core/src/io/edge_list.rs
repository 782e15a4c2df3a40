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
    parse(path, &buf)
}

/// Parses an edge list held in memory (the format of [`read_edge_list`]; errors name the file
/// `<memory>`).
///
/// # Errors
/// As [`read_edge_list`], but no I/O.
///
/// # Complexity
/// O(bytes) for edges in increasing order, O(bytes + m log m) otherwise.
///
/// ```
/// let g = graph_core::io::parse_edge_list(b"# nodes 3\n0 1\n1 2\n")?;
/// assert_eq!((g.num_nodes(), g.num_edges()), (3, 2));
/// // A 19-byte file may not declare 4·10⁹ nodes (see graph_core::limits).
/// assert!(graph_core::io::parse_edge_list(b"# nodes 4000000000\n").is_err());
/// # Ok::<(), graph_core::GraphError>(())
/// ```
pub fn parse_edge_list(buf: &[u8]) -> Result<Graph> {
    parse(Path::new("<memory>"), buf)
}

fn parse(path: &Path, buf: &[u8]) -> Result<Graph> {
    if let Some(g) = parse_fast(path, buf) {
        return Ok(g);
    }
    parse_general(path, buf)
}

/// The byte-level fast path for the common shape (`# nodes N` on the first line, then lines of
/// two decimal ids separated by spaces or tabs, `#` comments, empty lines): no per-line
/// tokenizer, duplicate edges found by one sort instead of a hash set, and no sort at all when
/// the edges come in increasing order (as [`write_edge_list`] writes them). Returns `None` on
/// anything else, including every malformed input, so that [`parse_general`] reports the
/// error with its line number exactly as before.
///
/// # Complexity
/// O(bytes) for sorted input, O(bytes + m log m) otherwise.
fn parse_fast(path: &Path, buf: &[u8]) -> Option<Graph> {
    let nl = buf.iter().position(|&b| b == b'\n').unwrap_or(buf.len());
    let first = buf[..nl].strip_suffix(b"\r").unwrap_or(&buf[..nl]);
    let header = first.trim_ascii().strip_prefix(b"#")?;
    let n = parse_header(path, 1, header, buf.len()).ok()?;
    crate::GraphBuilder::new(n).ok()?;
    let n64 = n as u64;
    let len = buf.len();
    let mut i = (nl + 1).min(len);
    let mut edges: Vec<(u32, u32)> = Vec::with_capacity(len / 10);
    let mut sorted = true;
    let mut last = (0u32, 0u32);
    let num = |i: &mut usize| -> Option<u64> {
        let start = *i;
        let mut v = 0u64;
        while *i < len && buf[*i].is_ascii_digit() && *i - start < 11 {
            v = v * 10 + u64::from(buf[*i] - b'0');
            *i += 1;
        }
        (*i > start && *i - start <= 10 && v < n64).then_some(v)
    };
    while i < len {
        match buf[i] {
            b'\n' => {
                i += 1;
                continue;
            }
            b'#' => {
                i += buf[i..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(len - i, |k| k + 1);
                continue;
            }
            _ => {}
        }
        let u = num(&mut i)? as u32;
        let sep = i;
        while i < len && (buf[i] == b' ' || buf[i] == b'\t') {
            i += 1;
        }
        if i == sep {
            return None;
        }
        let v = num(&mut i)? as u32;
        while i < len && matches!(buf[i], b' ' | b'\t' | b'\r') {
            i += 1;
        }
        if i < len {
            if buf[i] != b'\n' {
                return None;
            }
            i += 1;
        }
        if u == v {
            return None;
        }
        let e = (u.min(v), u.max(v));
        if edges.is_empty() || e > last {
            last = e;
        } else {
            sorted = false;
        }
        edges.push(e);
    }
    if !sorted {
        edges.sort_unstable();
        if edges.windows(2).any(|w| w[0] == w[1]) {
            return None;
        }
    }
    Some(Graph::from_sorted_unique(n, &edges))
}

/// The general line-by-line parser: every input the format allows, and the errors with their
/// line numbers.
fn parse_general(path: &Path, buf: &[u8]) -> Result<Graph> {
    let mut n: Option<usize> = None;
    let mut edges: Vec<(u32, u32)> = Vec::new();
    let mut seen: HashSet<(u32, u32)> = HashSet::new();
    for (no, line) in lines(buf) {
        let trimmed = line.trim_ascii();
        if trimmed.is_empty() {
            continue;
        }
        if let Some(comment) = trimmed.strip_prefix(b"#") {
            if n.is_none() {
                n = Some(parse_header(path, no, comment, buf.len())?);
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

/// The node count of the header `# nodes N`, checked against the file's length
/// ([`crate::limits`]).
fn parse_header(path: &Path, no: usize, comment: &[u8], file_len: usize) -> Result<usize> {
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
    let n = u64::try_from(n)
        .map_err(|_| GraphError::parse(path, no, format!("negative node count {n}")))?;
    crate::limits::check_declared_nodes(path, n, file_len as u64)?;
    usize::try_from(n).map_err(|_| GraphError::TooManyNodes { n })
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

    #[test]
    fn fast_path_agrees_with_the_general_parser_and_declines_malformed_input() {
        let p = Path::new("g.txt");
        let valid = [
            "# nodes 5\n0 1\n1 2\n3 4\n",
            "# nodes 5\n0 1\n1 2\n3 4",
            "# nodes 5\r\n3 4\r\n\n# comment\n2\t1 \n0   1\n",
            "# nodes 1000\n999 0\n5 7\n007 8\n",
            "# nodes 3\n",
            "#nodes 3\n0 2\n",
        ];
        for text in valid {
            let fast = parse_fast(p, text.as_bytes());
            let general = parse_general(p, text.as_bytes()).unwrap();
            assert_eq!(fast.as_ref(), Some(&general), "{text:?}");
        }
        // A larger shuffled graph, written both ways round.
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let g = crate::generate::erdos_renyi(300, 0.1, &mut rng).unwrap();
        let mut text = String::from("# nodes 300\n");
        for (k, (u, v)) in g.edges().enumerate() {
            text += &if k % 2 == 0 {
                format!("{v} {u}\n")
            } else {
                format!("{u} {v}\n")
            };
        }
        assert_eq!(parse_fast(p, text.as_bytes()), Some(g));
        // Malformed, or valid but outside the fast path's shape (leading blanks, commas).
        let declined = [
            "",
            "0 1\n",
            "# nodes 3\n0 x\n",
            "# nodes 3\n0 3\n",
            "# nodes 3\n1 1\n",
            "# nodes 3\n0 1\n2 1\n1 0\n",
            "# nodes 3\n0 1 2\n",
            "# nodes 3\n0\n",
            "# nodes 3\n-1 2\n",
            "# nodes 3\n 0 1\n",
            "# nodes 3\n0,1\n",
            "# nodes 3\n0 99999999999999999999\n",
            "# edges 3\n0 1\n",
        ];
        for text in declined {
            assert_eq!(parse_fast(p, text.as_bytes()), None, "{text:?}");
        }
        // The general parser still names the line.
        let e = parse_general(p, b"# nodes 3\n0 1\n2 1\n1 0\n").unwrap_err();
        assert!(e.to_string().contains(":4: duplicate edge {0, 1}"), "{e}");
    }

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
