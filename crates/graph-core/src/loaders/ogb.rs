//! OGB's raw graph-property-prediction files (the upstream format of `ogbg-mol*`).

use std::path::{Path, PathBuf};

use super::{parse_int_column, read_index_file};
use crate::collection::{GraphDataset, Targets};
use crate::error::{GraphError, Result};
use crate::io::{Tokens, find_maybe_gz, lines, read_maybe_gz};

/// Loads an OGB graph-property dataset from its raw CSVs in `dir` (or `dir/raw`):
/// `edge.csv.gz` (`u,v` per line, ids local to each graph, graphs concatenated),
/// `num_node_list.csv.gz`, `num_edge_list.csv.gz`, `graph-label.csv.gz` (first column is used;
/// all-integer columns become classes, others real targets), optional `node-feat.csv.gz` (its
/// first column plus one, the atomic number, becomes the node label), and the splits
/// `split/<name>/{train,valid,test}.csv.gz` (or under `dir`'s parent `split/`).
///
/// OGB lists each bond once; repeated or reversed pairs are merged.
///
/// # Errors
/// [`GraphError::Parse`] with file and line for malformed numbers, ids outside the graph, or
/// self-loops; [`GraphError::Format`] when the counts of the files disagree or a label is
/// missing (`nan`, i.e. a multi-task set with gaps, which is not supported).
pub fn load_ogb_raw(dir: &Path, name: &str) -> Result<GraphDataset> {
    let raw = if dir.join("raw").is_dir() {
        dir.join("raw")
    } else {
        dir.to_path_buf()
    };
    let read = |f: &str| -> Result<(PathBuf, Vec<u8>)> {
        let p = find_maybe_gz(&raw.join(f))?;
        let b = read_maybe_gz(&p)?;
        Ok((p, b))
    };
    let (nn_path, nn_buf) = read("num_node_list.csv")?;
    let (ne_path, ne_buf) = read("num_edge_list.csv")?;
    let (e_path, e_buf) = read("edge.csv")?;
    let (l_path, l_buf) = read("graph-label.csv")?;

    let num_nodes = parse_int_column(&nn_path, &nn_buf, "a node count")?;
    let num_edges = parse_int_column(&ne_path, &ne_buf, "an edge count")?;
    if num_nodes.len() != num_edges.len() {
        return Err(GraphError::format(
            &ne_path,
            format!(
                "{} edge counts but {} node counts",
                num_edges.len(),
                num_nodes.len()
            ),
        ));
    }
    // The graphs' nodes are allocated even without edges: bounded by the files' length.
    let declared = num_nodes
        .iter()
        .fold(0u64, |a, &c| a.saturating_add(c.max(0) as u64));
    crate::limits::check_declared_nodes(
        &nn_path,
        declared,
        (nn_buf.len() + ne_buf.len() + e_buf.len()) as u64,
    )?;
    let mut sizes = Vec::with_capacity(num_nodes.len());
    for (i, &c) in num_nodes.iter().enumerate() {
        if c < 1 || c > u32::MAX as i64 {
            return Err(GraphError::format(
                &nn_path,
                format!("graph {i}: node count {c} must be at least 1"),
            ));
        }
        sizes.push(c as u32);
    }

    let mut edges = Vec::new();
    let mut g = 0usize;
    let mut left = num_edges.first().copied().unwrap_or(0);
    for (no, line) in lines(&e_buf) {
        if line.trim_ascii().is_empty() {
            continue;
        }
        while left == 0 {
            g += 1;
            if g >= num_edges.len() {
                return Err(GraphError::parse(
                    &e_path,
                    no,
                    "more edge lines than num_edge_list.csv accounts for",
                ));
            }
            left = num_edges[g];
        }
        if left < 0 {
            return Err(GraphError::format(
                &ne_path,
                format!("negative edge count for graph {g}"),
            ));
        }
        let mut t = Tokens::new(line);
        let n = sizes[g];
        let mut id = |what| -> Result<u32> {
            let v = t
                .next_i64(what)
                .map_err(|m| GraphError::parse(&e_path, no, m))?;
            if v < 0 || v >= i64::from(n) {
                return Err(GraphError::parse(
                    &e_path,
                    no,
                    format!("node id {v} out of range 0..{n} of graph {g}"),
                ));
            }
            Ok(v as u32)
        };
        let (u, v) = (id("source node id")?, id("target node id")?);
        t.expect_end()
            .map_err(|m| GraphError::parse(&e_path, no, m))?;
        if u == v {
            return Err(GraphError::parse(
                &e_path,
                no,
                format!("self-loop on node {u}"),
            ));
        }
        edges.push((g as u32, u.min(v), u.max(v)));
        left -= 1;
    }
    let declared: i64 = num_edges.iter().sum();
    if edges.len() as i64 != declared {
        return Err(GraphError::format(
            &e_path,
            format!(
                "{} edge lines but num_edge_list.csv declares {declared}",
                edges.len()
            ),
        ));
    }
    let graphs = super::tu::build_graphs(&sizes, edges);

    let targets = parse_labels(&l_path, &l_buf, graphs.len())?;
    let mut ds = GraphDataset::new(name, graphs, targets)?;

    if let Ok(p) = find_maybe_gz(&raw.join("node-feat.csv")) {
        let buf = read_maybe_gz(&p)?;
        let mut labels = Vec::new();
        for (no, line) in lines(&buf) {
            if line.trim_ascii().is_empty() {
                continue;
            }
            let v = Tokens::new(line)
                .next_i64("an atom feature")
                .map_err(|m| GraphError::parse(&p, no, m))?;
            labels.push(v + 1);
        }
        let total: usize = sizes.iter().map(|&s| s as usize).sum();
        if labels.len() != total {
            return Err(GraphError::format(
                &p,
                format!("{} node rows but {total} nodes", labels.len()),
            ));
        }
        let mut it = labels.into_iter();
        let per: Vec<Vec<i64>> = sizes
            .iter()
            .map(|&s| it.by_ref().take(s as usize).collect())
            .collect();
        ds = ds.with_node_labels(per)?;
    }

    let split_root = [dir.join("split"), raw.join("split")]
        .into_iter()
        .find(|p| p.is_dir());
    if let Some(root) = split_root {
        let mut kinds: Vec<_> = std::fs::read_dir(&root)
            .map_err(|e| GraphError::io(&root, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir())
            .collect();
        kinds.sort();
        for kind in kinds {
            for part in ["train", "valid", "test"] {
                if let Ok(p) = find_maybe_gz(&kind.join(format!("{part}.csv"))) {
                    let idx = read_index_file(&p, ds.len())?;
                    // The first split kind (alphabetically) also gives the plain names.
                    if ds.split(part).is_none() {
                        ds = ds.with_split(part, idx.clone())?;
                    }
                    let kind_name = kind.file_name().map(|s| s.to_string_lossy().into_owned());
                    ds = ds.with_split(format!("{}_{part}", kind_name.unwrap_or_default()), idx)?;
                }
            }
        }
    }
    Ok(ds)
}

fn parse_labels(path: &Path, buf: &[u8], graphs: usize) -> Result<Targets> {
    let mut firsts = Vec::new();
    for (no, line) in lines(buf) {
        if line.trim_ascii().is_empty() {
            continue;
        }
        let tok = Tokens::new(line)
            .next_token()
            .ok_or_else(|| GraphError::parse(path, no, "expected a label"))?;
        let s = std::str::from_utf8(tok).unwrap_or("");
        if s.eq_ignore_ascii_case("nan") {
            return Err(GraphError::parse(
                path,
                no,
                "missing label (nan): multi-task sets with gaps are not supported",
            ));
        }
        firsts.push((no, s.to_owned()));
    }
    if firsts.len() != graphs {
        return Err(GraphError::format(
            path,
            format!("{} labels but {graphs} graphs", firsts.len()),
        ));
    }
    if let Some(ints) = firsts
        .iter()
        .map(|(_, s)| s.parse::<i64>().ok())
        .collect::<Option<Vec<_>>>()
    {
        return Ok(Targets::from_raw_classes(&ints));
    }
    let mut reals = Vec::with_capacity(firsts.len());
    for (no, s) in firsts {
        let v: f64 = s
            .parse()
            .map_err(|_| GraphError::parse(path, no, format!("expected a number, found `{s}`")))?;
        reals.push(v);
    }
    Ok(Targets::Real(reals))
}
