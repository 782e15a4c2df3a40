//! The TU Dortmund graph-collection format.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::{parse_float_column, parse_int_column, read_index_file};
use crate::collection::{GraphDataset, Targets};
use crate::error::{GraphError, Result};
use crate::graph::Graph;
use crate::io::{Tokens, find_maybe_gz, lines, read_maybe_gz};

/// Loads the TU dataset `name` from `dir` (`{name}_A.txt`, `{name}_graph_indicator.txt`,
/// `{name}_graph_labels.txt` or `{name}_graph_attributes.txt`, optional
/// `{name}_node_labels.txt`, each optionally gzipped).
///
/// - Nodes are created from the graph indicator, so isolated nodes exist; ids are 1-based.
/// - `_A.txt` lists directed pairs; both directions and repeated lines merge into one edge.
/// - Class labels (`-1/1`, `1..C`, …) are mapped to `0..C-1` in sorted order; without a labels
///   file, `_graph_attributes.txt` gives real-valued regression targets.
/// - Splits: `train.idx` / `valid.idx` / `test.idx` (0-based) become splits `train`, `valid`,
///   `test`; `splits_dgcnn_10fold/{train,test}_idx-K.txt` become `foldK_train` / `foldK_test`.
///
/// # Errors
/// [`GraphError::MissingFile`] for a missing required file; [`GraphError::Parse`] (file and line)
/// for a non-numeric token, a node id 0 or above the node count, a self-loop, or an edge between
/// two graphs; [`GraphError::Format`] when the number of labels differs from the number of graphs
/// or nodes, or a graph has no nodes; [`GraphError::Io`] for unreadable or truncated files.
///
/// # Complexity
/// O(N + M log M) for N nodes and M edge lines, parallel over graphs.
pub fn load_tu(dir: &Path, name: &str) -> Result<GraphDataset> {
    let file = |suffix: &str| dir.join(format!("{name}_{suffix}"));
    let a_path = find_maybe_gz(&file("A.txt"))?;
    let ind_path = find_maybe_gz(&file("graph_indicator.txt"))?;
    let ((a_buf, ind_buf), (node_lab, targets_raw)) = rayon::join(
        || rayon::join(|| read_maybe_gz(&a_path), || read_maybe_gz(&ind_path)),
        || {
            rayon::join(
                || optional(&file("node_labels.txt")),
                || {
                    match optional(&file("graph_labels.txt")) {
                        Ok(None) => {}
                        other => return other.map(|o| o.map(|x| (x, true))),
                    }
                    optional(&file("graph_attributes.txt")).map(|o| o.map(|x| (x, false)))
                },
            )
        },
    );
    let (a_buf, ind_buf) = (a_buf?, ind_buf?);

    // Graph indicator: graph id (1-based) of every node.
    let ind = parse_int_column(&ind_path, &ind_buf, "a 1-based graph id")?;
    let n_nodes = ind.len();
    let mut graph_of = Vec::with_capacity(n_nodes);
    let mut num_graphs = 0usize;
    for (k, &g) in ind.iter().enumerate() {
        if g < 1 || g > u32::MAX as i64 {
            return Err(GraphError::format(
                &ind_path,
                format!("node {}: graph id {g} is not a 1-based id", k + 1),
            ));
        }
        // Every graph has a node, so ids beyond the node count leave a graph empty: refused
        // here, before `sizes` is allocated for them.
        if g as u64 > n_nodes as u64 {
            return Err(GraphError::format(
                &ind_path,
                format!(
                    "node {}: graph id {g} exceeds the number of nodes {n_nodes} (a graph without nodes)",
                    k + 1
                ),
            ));
        }
        num_graphs = num_graphs.max(g as usize);
        graph_of.push((g - 1) as u32);
    }
    let mut sizes = vec![0u32; num_graphs];
    let mut local = Vec::with_capacity(n_nodes);
    for &g in &graph_of {
        local.push(sizes[g as usize]);
        sizes[g as usize] += 1;
    }
    if let Some(g) = sizes.iter().position(|&s| s == 0) {
        return Err(GraphError::format(
            &ind_path,
            format!("graph {} has no nodes", g + 1),
        ));
    }

    // Edges, bucketed by graph.
    let mut edges: Vec<(u32, u32, u32)> = Vec::with_capacity(a_buf.len() / 12);
    for (no, line) in lines(&a_buf) {
        if line.trim_ascii().is_empty() {
            continue;
        }
        let mut t = Tokens::new(line);
        let mut node = |what| -> Result<usize> {
            let v = t
                .next_i64(what)
                .map_err(|m| GraphError::parse(&a_path, no, m))?;
            if v < 1 {
                return Err(GraphError::parse(
                    &a_path,
                    no,
                    format!("node id {v} in a 1-based file (ids start at 1)"),
                ));
            }
            if v as u64 > n_nodes as u64 {
                return Err(GraphError::parse(
                    &a_path,
                    no,
                    format!("node id {v} > number of nodes {n_nodes} in the graph indicator"),
                ));
            }
            Ok(v as usize - 1)
        };
        let u = node("source node id")?;
        let v = node("target node id")?;
        t.expect_end()
            .map_err(|m| GraphError::parse(&a_path, no, m))?;
        if u == v {
            return Err(GraphError::parse(
                &a_path,
                no,
                format!("self-loop on node {}", u + 1),
            ));
        }
        let (gu, gv) = (graph_of[u], graph_of[v]);
        if gu != gv {
            return Err(GraphError::parse(
                &a_path,
                no,
                format!(
                    "edge {} {} joins graph {} and graph {}",
                    u + 1,
                    v + 1,
                    gu + 1,
                    gv + 1
                ),
            ));
        }
        let (a, b) = (local[u].min(local[v]), local[u].max(local[v]));
        edges.push((gu, a, b));
    }
    let graphs = build_graphs(&sizes, edges);

    let targets = match targets_raw? {
        Some((buf, true)) => {
            let p = resolved(&file("graph_labels.txt"));
            let raw = parse_int_column(&p, &buf, "a graph label")?;
            check_count(&p, raw.len(), num_graphs, "graph labels", "graphs")?;
            Targets::from_raw_classes(&raw)
        }
        Some((buf, false)) => {
            let p = resolved(&file("graph_attributes.txt"));
            let raw = parse_float_column(&p, &buf, "a graph attribute")?;
            check_count(&p, raw.len(), num_graphs, "graph attributes", "graphs")?;
            Targets::Real(raw)
        }
        None => {
            return Err(GraphError::MissingFile {
                path: file("graph_labels.txt"),
            });
        }
    };
    let mut ds = GraphDataset::new(name, graphs, targets)?;

    if let Some(buf) = node_lab? {
        let p = resolved(&file("node_labels.txt"));
        let raw = parse_node_labels(&p, &buf)?;
        check_count(&p, raw.len(), n_nodes, "node labels", "nodes")?;
        let mut per_graph: Vec<Vec<i64>> = sizes.iter().map(|&s| vec![0; s as usize]).collect();
        for (k, v) in raw.into_iter().enumerate() {
            per_graph[graph_of[k] as usize][local[k] as usize] = v;
        }
        ds = ds.with_node_labels(per_graph)?;
    }

    for split in ["train", "valid", "test"] {
        let p = dir.join(format!("{split}.idx"));
        if p.is_file() {
            ds = ds.with_split(split, read_index_file(&p, num_graphs)?)?;
        }
    }
    let folds = dir.join("splits_dgcnn_10fold");
    for k in 1..=10 {
        for part in ["train", "test"] {
            let p = folds.join(format!("{part}_idx-{k}.txt"));
            if p.is_file() {
                ds = ds.with_split(format!("fold{k}_{part}"), read_index_file(&p, num_graphs)?)?;
            }
        }
    }
    Ok(ds)
}

/// Node labels: the first integer of each line (TU files with several label columns keep the first).
fn parse_node_labels(path: &Path, buf: &[u8]) -> Result<Vec<i64>> {
    let mut out = Vec::with_capacity(buf.len() / 2);
    for (no, line) in lines(buf) {
        if line.trim_ascii().is_empty() {
            continue;
        }
        let v = Tokens::new(line)
            .next_i64("a node label")
            .map_err(|m| GraphError::parse(path, no, m))?;
        out.push(v);
    }
    Ok(out)
}

fn check_count(path: &Path, got: usize, want: usize, what: &str, of: &str) -> Result<()> {
    if got != want {
        return Err(GraphError::format(
            path,
            format!("{got} {what} but {want} {of} in the graph indicator"),
        ));
    }
    Ok(())
}

fn optional(path: &Path) -> Result<Option<Vec<u8>>> {
    match find_maybe_gz(path) {
        Ok(p) => read_maybe_gz(&p).map(Some),
        Err(GraphError::MissingFile { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

fn resolved(path: &Path) -> PathBuf {
    find_maybe_gz(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Groups `(graph, u, v)` edges by graph and builds each graph (duplicates merged).
pub(crate) fn build_graphs(sizes: &[u32], mut edges: Vec<(u32, u32, u32)>) -> Vec<Graph> {
    if !edges.is_sorted() {
        edges.par_sort_unstable();
    }
    edges.dedup();
    let mut starts = vec![0usize; sizes.len() + 1];
    for &(g, _, _) in &edges {
        starts[g as usize + 1] += 1;
    }
    for i in 0..sizes.len() {
        starts[i + 1] += starts[i];
    }
    (0..sizes.len())
        .into_par_iter()
        .map(|g| {
            let pairs: Vec<(u32, u32)> = edges[starts[g]..starts[g + 1]]
                .iter()
                .map(|&(_, a, b)| (a, b))
                .collect();
            Graph::from_sorted_unique(sizes[g] as usize, &pairs)
        })
        .collect()
}
