//! The gnn-benchmark `.npz` format (Shchur et al. 2018, `github.com/shchur/gnn-benchmark`; the
//! files PyTorch Geometric's `Coauthor`, `Amazon` and `CitationFull` read) → the node layout.
//!
//! An `.npz` is a zip of `.npy` members. The ones read here are the adjacency and the attributes
//! as CSR triplets (`adj_data`, `adj_indices`, `adj_indptr`, `adj_shape`; the same with `attr_`)
//! and `labels`; the object arrays beside them (`node_names`, `attr_names`, `class_names`) are
//! pickles and are never opened. The conversion is PyG's `read_npz`: attributes binarised
//! (`x > 0 → 1`), self-loops dropped, edges made undirected and merged.

use std::collections::BTreeMap;

use crate::error::{GraphError, Result};
use crate::install::archive::Archive;
use crate::install::converted::{Converted, Features, node_layout};
use crate::io::npy::{NpyArray, parse_npy};
use crate::registry::DatasetSpec;

/// The members read, in the order [`convert_members`] asks for them (`<key>.npy`).
pub const MEMBERS: [&str; 9] = [
    "adj_data",
    "adj_indices",
    "adj_indptr",
    "adj_shape",
    "attr_data",
    "attr_indices",
    "attr_indptr",
    "attr_shape",
    "labels",
];

/// A [`GraphError::Convert`] for dataset `name`.
fn convert_err(name: &str, message: impl Into<String>) -> GraphError {
    GraphError::Convert {
        dataset: name.to_owned(),
        message: message.into(),
    }
}

/// The member `<key>.npy` of an archive (at its root or in a folder).
fn archive_member(archive: &Archive, key: &str) -> Option<Vec<u8>> {
    let file = format!("{key}.npy");
    archive
        .get(&file)
        .or_else(|| archive.find(&format!("/{file}")).map(|(_, b)| b))
        .map(<[u8]>::to_vec)
}

/// A CSR matrix read from its four members.
struct Csr {
    rows: usize,
    cols: usize,
    indptr: Vec<i64>,
    indices: Vec<i64>,
    data: Vec<f32>,
}

/// Converts a gnn-benchmark `.npz` archive into `edges.txt`, `features.npy` (uint8, binarised)
/// and `labels.npy` (int64).
///
/// # Errors
/// [`GraphError::Convert`](crate::GraphError::Convert) for a missing member, a member that is
/// not a valid `.npy` of the expected kind, CSR arrays that do not fit their shape (an index
/// out of range, a decreasing or overlong `indptr`), a non-square adjacency, labels that do not
/// fit the nodes, or features too large to densify.
///
/// # Complexity
/// O(n·d) for the dense features, O(m log m) for the edges.
pub(crate) fn convert(spec: &DatasetSpec, archive: &Archive) -> Result<Converted> {
    convert_members(&spec.name, &|key| archive_member(archive, key))
}

/// Converts the members of a gnn-benchmark `.npz` of dataset `name`, fetched by key
/// ([`MEMBERS`], without `.npy`) from `member`, into `edges.txt`, `features.npy` (uint8,
/// binarised) and `labels.npy` (int64).
///
/// # Errors
/// [`GraphError::Convert`] for a missing member, a member that is not a valid `.npy` of the
/// expected kind, CSR arrays that do not fit their shape, a non-square adjacency or labels that
/// do not fit the nodes; [`GraphError::TooLarge`] for features too large to densify.
///
/// # Complexity
/// O(n·d) for the dense features, O(m log m) for the edges.
pub fn convert_members(
    name: &str,
    member: &dyn Fn(&str) -> Option<Vec<u8>>,
) -> Result<BTreeMap<String, Vec<u8>>> {
    let spec = name;
    let adj = csr(spec, member, "adj")?;
    if adj.rows != adj.cols {
        return Err(convert_err(
            spec,
            format!("adjacency is {} x {}, not square", adj.rows, adj.cols),
        ));
    }
    let n = adj.rows;
    let attr = csr(spec, member, "attr")?;
    if attr.rows != n {
        return Err(convert_err(
            spec,
            format!("{} attribute rows for {n} nodes", attr.rows),
        ));
    }
    let labels = array(spec, member, "labels")?;
    let labels = labels
        .to_i64()
        .filter(|_| labels.shape == [n])
        .ok_or_else(|| convert_err(spec, format!("labels are not {n} integers")))?;
    if let Some(l) = labels
        .iter()
        .find(|&&l| !(0..=i64::from(u16::MAX)).contains(&l))
    {
        return Err(convert_err(spec, format!("label {l} is out of range")));
    }
    let cells = (n as u64).saturating_mul(attr.cols as u64);
    crate::limits::check_allocation(&format!("{name}: {n} x {} features", attr.cols), cells)?;
    let mut features = vec![0u8; n * attr.cols];
    for_each_entry(&attr, |r, c, x| {
        if x > 0.0 {
            features[r * attr.cols + c] = 1;
        }
    });
    let mut edges: Vec<(u32, u32)> = Vec::with_capacity(adj.data.len());
    for_each_entry(&adj, |u, v, x| {
        if u != v && x != 0.0 {
            edges.push((u.min(v) as u32, u.max(v) as u32));
        }
    });
    edges.sort_unstable();
    edges.dedup();
    let mut text = String::with_capacity(edges.len() * 12);
    for (u, v) in &edges {
        text.push_str(&format!("{u} {v}\n"));
    }
    Ok(node_layout(
        text,
        n,
        attr.cols,
        &Features::U8(features),
        &labels,
    ))
}

/// Calls `f(row, col, value)` for each stored entry of a validated CSR matrix.
fn for_each_entry(m: &Csr, mut f: impl FnMut(usize, usize, f32)) {
    for r in 0..m.rows {
        for k in m.indptr[r] as usize..m.indptr[r + 1] as usize {
            f(r, m.indices[k] as usize, m.data[k]);
        }
    }
}

/// The member `<key>.npy`, parsed.
fn array(spec: &str, member: &dyn Fn(&str) -> Option<Vec<u8>>, key: &str) -> Result<NpyArray> {
    let file = format!("{key}.npy");
    let bytes = member(key)
        .ok_or_else(|| convert_err(spec, format!("the archive has no member `{file}`")))?;
    parse_npy(std::path::Path::new(&file), &bytes).map_err(|e| convert_err(spec, e.to_string()))
}

/// The CSR matrix `<prefix>_{data,indices,indptr,shape}`, checked: `indptr` starts at 0, never
/// decreases and ends at the number of entries; every index is below the column count.
fn csr(spec: &str, member: &dyn Fn(&str) -> Option<Vec<u8>>, prefix: &str) -> Result<Csr> {
    let int = |key: &str| -> Result<Vec<i64>> {
        let a = array(spec, member, &format!("{prefix}_{key}"))?;
        if a.shape.len() != 1 {
            return Err(convert_err(
                spec,
                format!("{prefix}_{key} is not one-dimensional"),
            ));
        }
        a.to_i64()
            .ok_or_else(|| convert_err(spec, format!("{prefix}_{key} is not an integer array")))
    };
    let shape = int("shape")?;
    let [rows, cols] = shape[..] else {
        return Err(convert_err(
            spec,
            format!("{prefix}_shape is not two numbers"),
        ));
    };
    let dim = |d: i64| usize::try_from(d).ok().filter(|&d| d <= 1 << 31);
    let (Some(rows), Some(cols)) = (dim(rows), dim(cols)) else {
        return Err(convert_err(
            spec,
            format!("{prefix}_shape ({rows}, {cols}) is out of range"),
        ));
    };
    let indptr = int("indptr")?;
    let indices = int("indices")?;
    let data = array(spec, member, &format!("{prefix}_data"))?;
    if data.shape.len() != 1 {
        return Err(convert_err(
            spec,
            format!("{prefix}_data is not one-dimensional"),
        ));
    }
    let data = data.to_f32();
    let bad = |m: String| Err(convert_err(spec, format!("{prefix}: {m}")));
    if indptr.len() != rows + 1 {
        return bad(format!("{} indptr entries for {rows} rows", indptr.len()));
    }
    if indices.len() != data.len() {
        return bad(format!(
            "{} indices for {} values",
            indices.len(),
            data.len()
        ));
    }
    if indptr[0] != 0 || indptr[rows] != indices.len() as i64 {
        return bad(format!(
            "indptr runs from {} to {}, not 0 to {}",
            indptr[0],
            indptr[rows],
            indices.len()
        ));
    }
    if indptr.windows(2).any(|w| w[1] < w[0]) {
        return bad("indptr decreases".into());
    }
    if let Some(i) = indices.iter().find(|&&i| i < 0 || i as u64 >= cols as u64) {
        return bad(format!("column index {i} is not below {cols}"));
    }
    if let Some(x) = data.iter().find(|x| !x.is_finite()) {
        return bad(format!("value {x} is not finite"));
    }
    Ok(Csr {
        rows,
        cols,
        indptr,
        indices,
        data,
    })
}
