//! Converters from upstream archives to the installed layout. Each takes the unpacked
//! [`Archive`] and the registry entry and returns the converted files by relative path; the
//! caller checks them against the registry's checksums.

use crate::error::Result;
use crate::install::archive::Archive;
use crate::install::converted::{Converted, Features, convert_err, node_layout, uint8_features};
use crate::install::gzip::{GzipProfile, gzip};
use crate::registry::{DatasetSpec, Layout, SourceFormat, Upstream};

/// Converts `archive` (downloaded from `source`) into the files of `spec`.
///
/// # Errors
/// [`GraphError::Convert`](crate::GraphError::Convert) naming the member or value that does not fit the format.
pub(crate) fn convert(
    spec: &DatasetSpec,
    source: &Upstream,
    archive: &Archive,
) -> Result<Converted> {
    match source.format {
        SourceFormat::EdgerefineZip => match spec.layout {
            Layout::NodeNpy => edgerefine_dense(spec, archive),
            _ => files(spec, archive, &format!("TUDataset/{}/raw", spec.name)),
        },
        SourceFormat::Files => files(spec, archive, ""),
        SourceFormat::DgcnnZip => dgcnn(spec, source, archive),
        SourceFormat::OgbZip => super::ogb::convert(spec, archive),
        SourceFormat::GnnBenchmarkNpz => super::npz::convert(spec, archive),
        SourceFormat::Planetoid => Err(convert_err(
            spec,
            "Planetoid sources are eight files, not one archive",
        )),
        SourceFormat::Reference => Err(convert_err(spec, "a reference source is not a download")),
    }
}

/// Which members of the archive `source` the conversion of `spec` reads: archives that hold
/// several datasets (the EdgeRefine zip) are unpacked only as far as this dataset needs.
pub(crate) fn wanted(spec: &DatasetSpec, source: &Upstream) -> Box<dyn Fn(&str) -> bool> {
    match (source.format, spec.layout) {
        (SourceFormat::EdgerefineZip, Layout::NodeNpy) => {
            let prefix = format!("{}/", spec.name);
            Box::new(move |p| p.starts_with(&prefix))
        }
        (SourceFormat::EdgerefineZip, _) => {
            let prefix = format!("TUDataset/{}/raw/", spec.name);
            Box::new(move |p| p.starts_with(&prefix))
        }
        _ => Box::new(|_| true),
    }
}

/// The member named `file` (under `folder` when given), or any single member ending in it.
fn member<'a>(archive: &'a Archive, folder: &str, file: &str) -> Option<&'a [u8]> {
    if !folder.is_empty()
        && let Some(b) = archive.get(&format!("{folder}/{file}"))
    {
        return Some(b);
    }
    archive.find(file).map(|(_, b)| b)
}

/// Every required file of `spec` taken unchanged from the archive, or gzipped (GNU profile)
/// from the uncompressed member where the registry's file ends in `.gz`.
fn files(spec: &DatasetSpec, archive: &Archive, folder: &str) -> Result<Converted> {
    let mut out = Converted::new();
    for f in spec.required_files() {
        let bytes = if let Some(b) = member(archive, folder, &f.path) {
            b.to_vec()
        } else if let Some(plain) = f.path.strip_suffix(".gz")
            && let Some(b) = member(archive, folder, plain)
        {
            gzip(b, GzipProfile::Gnu, "")
        } else {
            return Err(convert_err(
                spec,
                format!("the archive has no member `{}`", f.path),
            ));
        };
        out.insert(f.path.clone(), bytes);
    }
    Ok(out)
}

/// EdgeRefine's dense `<name>_adj.npy` / `_feat.npy` / `_label.npy` → `edges.txt` (`u v`,
/// u < v, sorted; entries ≠ 0 are edges, the diagonal is dropped: AMAP has one self-loop),
/// `features.npy` (uint8; every value must be a small non-negative integer) and `labels.npy`
/// (int64).
fn edgerefine_dense(spec: &DatasetSpec, archive: &Archive) -> Result<Converted> {
    let name = spec.name.as_str();
    let load = |suffix: &str| -> Result<crate::io::NpyArray> {
        let file = format!("{name}_{suffix}.npy");
        let bytes = member(archive, name, &file).ok_or_else(|| {
            convert_err(spec, format!("the archive has no member `{name}/{file}`"))
        })?;
        crate::io::npy::parse_npy(std::path::Path::new(&file), bytes)
    };
    let adj = load("adj")?;
    let [n, n2] = adj.shape[..] else {
        return Err(convert_err(spec, "adjacency is not a matrix"));
    };
    if n != n2 {
        return Err(convert_err(
            spec,
            format!("adjacency is {n} x {n2}, not square"),
        ));
    }
    let a = adj.to_f32();
    let mut edges = String::new();
    for u in 0..n {
        for v in u + 1..n {
            let (x, y) = (a[u * n + v], a[v * n + u]);
            if !x.is_finite() || !y.is_finite() {
                return Err(convert_err(
                    spec,
                    format!("non-finite adjacency entry at ({u}, {v})"),
                ));
            }
            if (x != 0.0) != (y != 0.0) {
                return Err(convert_err(
                    spec,
                    format!("adjacency is not symmetric at ({u}, {v})"),
                ));
            }
            if x != 0.0 {
                edges.push_str(&format!("{u} {v}\n"));
            }
        }
    }
    let feat = load("feat")?;
    let [rows, cols] = feat.shape[..] else {
        return Err(convert_err(spec, "features are not a matrix"));
    };
    if rows != n {
        return Err(convert_err(
            spec,
            format!("{rows} feature rows for {n} nodes"),
        ));
    }
    let fbytes = uint8_features(feat.to_f32().into_iter().map(f64::from), cols)
        .map_err(|m| convert_err(spec, m))?;
    let label = load("label")?;
    let labels = label
        .to_i64()
        .ok_or_else(|| convert_err(spec, "labels are not integers"))?;
    if label.shape != [n] {
        return Err(convert_err(
            spec,
            format!("labels have shape {:?}, expected [{n}]", label.shape),
        ));
    }
    Ok(node_layout(
        edges,
        rows,
        cols,
        &Features::U8(fbytes),
        &labels,
    ))
}

/// The DGCNN text format (`<NAME>/<NAME>.txt`: graph count; per graph `n label`; per node
/// `tag m neighbours…`, 0-based within the graph) and its `10fold_idx/` → TU files:
/// `_A.txt.gz` (every undirected pair u < v, sorted, written `u, v` then `v, u`, 1-based global
/// ids), `_graph_indicator.txt.gz`, `_graph_labels.txt` (labels renamed by the source's
/// `label_map`) and `splits_dgcnn_10fold/` (the folds unchanged).
fn dgcnn(spec: &DatasetSpec, source: &Upstream, archive: &Archive) -> Result<Converted> {
    let name = spec.name.as_str();
    let file = format!("{name}.txt");
    let text = member(archive, name, &file)
        .ok_or_else(|| convert_err(spec, format!("the archive has no member `{name}/{file}`")))?;
    let text =
        std::str::from_utf8(text).map_err(|_| convert_err(spec, format!("{file} is not UTF-8")))?;
    let mut lines = text.lines().enumerate();
    let bad = |line: usize, m: &str| convert_err(spec, format!("{file}:{}: {m}", line + 1));
    let mut next = |what: &str| -> Result<(usize, Vec<&str>)> {
        let (i, l) = lines
            .next()
            .ok_or_else(|| convert_err(spec, format!("{file}: ends before {what}")))?;
        Ok((i, l.split_whitespace().collect()))
    };
    let num = |i: usize, t: &str| -> Result<usize> {
        t.parse::<usize>()
            .map_err(|_| bad(i, &format!("`{t}` is not a count or id")))
    };
    let (i, head) = next("the graph count")?;
    let graphs = match head[..] {
        [g] => num(i, g)?,
        _ => return Err(bad(i, "expected the graph count")),
    };
    // The file cannot hold more graphs than lines: check before allocating.
    if graphs > text.len() {
        return Err(bad(i, "graph count larger than the file"));
    }
    let mut pairs: Vec<(u64, u64)> = Vec::new();
    let mut indicator = String::new();
    let mut labels = String::new();
    let mut offset = 0u64;
    for g in 0..graphs {
        let (i, gl) = next("a graph header")?;
        let [n, label] = gl[..] else {
            return Err(bad(i, "expected `nodes label`"));
        };
        let n = num(i, n)?;
        if n > text.len() {
            return Err(bad(i, "node count larger than the file"));
        }
        let label = source.label_map.get(label).map_or(label, String::as_str);
        labels.push_str(label);
        labels.push('\n');
        for k in 0..n {
            let (i, nl) = next("a node line")?;
            if nl.len() < 2 {
                return Err(bad(i, "expected `tag degree neighbours…`"));
            }
            let m = num(i, nl[1])?;
            if nl.len() != 2 + m {
                return Err(bad(
                    i,
                    &format!("degree {m} but {} neighbours", nl.len() - 2),
                ));
            }
            for t in &nl[2..] {
                let v = num(i, t)?;
                if v >= n {
                    return Err(bad(i, &format!("neighbour {v} out of range for {n} nodes")));
                }
                if v == k {
                    return Err(bad(i, &format!("self-loop on node {k}")));
                }
                let (a, b) = (offset + k as u64 + 1, offset + v as u64 + 1);
                pairs.push((a.min(b), a.max(b)));
            }
            indicator.push_str(&(g + 1).to_string());
            indicator.push('\n');
        }
        offset += n as u64;
    }
    pairs.sort_unstable();
    pairs.dedup();
    let mut a = String::with_capacity(pairs.len() * 20);
    for (u, v) in &pairs {
        a.push_str(&format!("{u}, {v}\n{v}, {u}\n"));
    }
    let mut out = Converted::new();
    out.insert(
        format!("{name}_A.txt.gz"),
        gzip(a.as_bytes(), GzipProfile::Gnu, ""),
    );
    out.insert(
        format!("{name}_graph_indicator.txt.gz"),
        gzip(indicator.as_bytes(), GzipProfile::Gnu, ""),
    );
    out.insert(format!("{name}_graph_labels.txt"), labels.into_bytes());
    for f in spec.required_files() {
        if let Some(fold) = f.path.strip_prefix("splits_dgcnn_10fold/") {
            let b = member(archive, &format!("{name}/10fold_idx"), fold).ok_or_else(|| {
                convert_err(spec, format!("the archive has no fold file `{fold}`"))
            })?;
            out.insert(f.path.clone(), b.to_vec());
        }
    }
    Ok(out)
}
