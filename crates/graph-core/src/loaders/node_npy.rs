//! The node-classification layout of the mirror: `edges.txt` + `features.npy` + `labels.npy`.

use std::path::Path;

use ndarray::Array2;

use crate::builder::GraphBuilder;
use crate::error::{GraphError, Result};
use crate::io::{Tokens, lines, read_maybe_gz, read_npy};
use crate::node_data::NodeDataset;

/// Loads a node-classification dataset from `dir`: `edges.txt` (one undirected edge `u v` per
/// line, 0-based), `features.npy` (`[n, d]`, any integer or float dtype) and `labels.npy`
/// (`[n]`, non-negative integers). The node count is the label count.
///
/// # Errors
/// [`GraphError::Parse`] (with the line) for a malformed edge, an id `>= n`, a self-loop or a
/// duplicate edge; [`GraphError::Format`] for malformed `.npy` files or wrong shapes;
/// [`GraphError::MissingFile`] / [`GraphError::Io`] for missing or unreadable files.
pub fn load_node_npy(dir: &Path, name: &str) -> Result<NodeDataset> {
    let labels_path = dir.join("labels.npy");
    let feats_path = dir.join("features.npy");
    let edges_path = dir.join("edges.txt");
    for p in [&labels_path, &feats_path, &edges_path] {
        if !p.is_file() {
            return Err(GraphError::MissingFile { path: p.clone() });
        }
    }
    let labels_arr = read_npy(&labels_path)?;
    if labels_arr.shape.len() != 1 {
        return Err(GraphError::format(
            &labels_path,
            format!("expected a 1-D array, found shape {:?}", labels_arr.shape),
        ));
    }
    let raw = labels_arr
        .to_i64()
        .ok_or_else(|| GraphError::format(&labels_path, "expected integer labels"))?;
    let mut labels = Vec::with_capacity(raw.len());
    for (i, v) in raw.into_iter().enumerate() {
        let l = u32::try_from(v).map_err(|_| {
            GraphError::format(
                &labels_path,
                format!("label {v} of node {i} is not in 0..2^32"),
            )
        })?;
        labels.push(l);
    }
    let n = labels.len();

    let feats = read_npy(&feats_path)?;
    if feats.shape.len() != 2 || feats.shape[0] != n {
        return Err(GraphError::format(
            &feats_path,
            format!(
                "expected shape [{n}, d] (one row per label), found {:?}",
                feats.shape
            ),
        ));
    }
    let features = Array2::from_shape_vec((feats.shape[0], feats.shape[1]), feats.to_f32())
        .map_err(|e| GraphError::format(&feats_path, e.to_string()))?;

    let buf = read_maybe_gz(&edges_path)?;
    let mut b = GraphBuilder::new(n)?;
    let mut seen = std::collections::HashSet::new();
    for (no, line) in lines(&buf) {
        let line = line.trim_ascii();
        if line.is_empty() || line.starts_with(b"#") {
            continue;
        }
        let mut t = Tokens::new(line);
        let mut id = |what| -> Result<u32> {
            let v = t
                .next_i64(what)
                .map_err(|m| GraphError::parse(&edges_path, no, m))?;
            if v < 0 || v as u64 >= n as u64 {
                return Err(GraphError::parse(
                    &edges_path,
                    no,
                    format!("node id {v} out of range 0..{n} (n = number of labels)"),
                ));
            }
            Ok(v as u32)
        };
        let (u, v) = (id("source node id")?, id("target node id")?);
        t.expect_end()
            .map_err(|m| GraphError::parse(&edges_path, no, m))?;
        if u == v {
            return Err(GraphError::parse(
                &edges_path,
                no,
                format!("self-loop on node {u}"),
            ));
        }
        if !seen.insert((u.min(v), u.max(v))) {
            return Err(GraphError::parse(
                &edges_path,
                no,
                format!("duplicate edge {{{}, {}}}", u.min(v), u.max(v)),
            ));
        }
        b.add_edge(u, v)?;
    }
    let graph = b.build()?;
    NodeDataset::new(name, graph, features, labels)
}
