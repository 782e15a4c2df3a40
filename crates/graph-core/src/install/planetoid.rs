//! Planetoid's files (`ind.<name>.{x,tx,allx,y,ty,ally,graph,test.index}`, Yang et al. 2016)
//! → the node layout (`edges.txt`, `features.npy` uint8 — float32 where a value is not a small
//! integer, PubMed's TF-IDF weights —, `labels.npy` int64), as PyTorch
//! Geometric's `Planetoid` reads them: nodes are `allx`'s rows, then the test range
//! `min(test.index)..=max(test.index)` (ids of the range missing from `test.index`, CiteSeer's
//! isolated nodes, get all-zero features and label 0); test row `i` goes to node
//! `test.index[i]`; labels are the argmax of the one-hot rows; edges are every pair of the
//! adjacency lists, undirected, without self-loops, duplicates merged. The pickles are read by
//! [`crate::loaders::pickle`], which runs nothing.

use std::collections::BTreeMap;

use crate::error::{GraphError, Result};
use crate::install::converted::{Features, node_layout};
use crate::loaders::pickle::{self, Class, Shared, Value};

/// The file suffixes of a Planetoid dataset, `ind.<name>.<suffix>`.
pub const SUFFIXES: [&str; 8] = ["x", "tx", "allx", "y", "ty", "ally", "graph", "test.index"];

/// A dense row-major matrix of `f64` read from a numpy array or a CSR matrix.
struct Dense {
    rows: usize,
    cols: usize,
    data: Vec<f64>,
}

/// A numpy array's shape and values (as `f64`).
struct Array {
    shape: Vec<usize>,
    values: Vec<f64>,
}

fn err(file: &str, message: impl Into<String>) -> GraphError {
    GraphError::Format {
        path: file.into(),
        message: message.into(),
    }
}

fn int(v: &Shared, file: &str, what: &str) -> Result<i64> {
    match &*v.borrow() {
        Value::Int(i) => Ok(*i),
        _ => Err(err(file, format!("{what} is not an integer"))),
    }
}

fn bytes(v: &Shared) -> Option<Vec<u8>> {
    match &*v.borrow() {
        Value::Bytes(b) => Some(b.clone()),
        _ => None,
    }
}

fn tuple(v: &Shared) -> Option<Vec<Shared>> {
    match &*v.borrow() {
        Value::Tuple(t) => Some(t.clone()),
        _ => None,
    }
}

/// A decoder of one little-endian array item.
type Decode = fn(&[u8]) -> f64;

/// A `numpy.dtype` object: item size and a decoder of one little-endian item.
fn dtype(v: &Shared, file: &str) -> Result<(usize, Decode)> {
    let b = v.borrow();
    let Value::Object {
        class: Class::Dtype,
        args,
        state,
        ..
    } = &*b
    else {
        return Err(err(file, "array dtype is not a numpy.dtype"));
    };
    let code = args.first().and_then(bytes).unwrap_or_default();
    let order = state
        .as_ref()
        .and_then(tuple)
        .and_then(|t| t.get(1).and_then(bytes))
        .unwrap_or_default();
    if !matches!(order.as_slice(), b"<" | b"|" | b"=") {
        return Err(err(file, "big-endian arrays are not read"));
    }
    Ok(match code.as_slice() {
        b"i4" => (4, |b| {
            f64::from(i32::from_le_bytes(b.try_into().expect("4 bytes")))
        }),
        b"i8" => (8, |b| {
            i64::from_le_bytes(b.try_into().expect("8 bytes")) as f64
        }),
        b"f4" => (4, |b| {
            f64::from(f32::from_le_bytes(b.try_into().expect("4 bytes")))
        }),
        b"f8" => (8, |b| f64::from_le_bytes(b.try_into().expect("8 bytes"))),
        b"u1" | b"b1" => (1, |b| f64::from(b[0])),
        other => {
            return Err(err(
                file,
                format!("dtype {} is not read", String::from_utf8_lossy(other)),
            ));
        }
    })
}

/// A `numpy.ndarray` rebuilt by `_reconstruct` + `BUILD((version, shape, dtype, fortran, raw))`.
fn array(v: &Shared, file: &str) -> Result<Array> {
    let b = v.borrow();
    let Value::Object {
        class: Class::Reconstruct,
        state: Some(state),
        ..
    } = &*b
    else {
        return Err(err(file, "expected a numpy array"));
    };
    let st = tuple(state).ok_or_else(|| err(file, "array state is not a tuple"))?;
    let [_, shape, dt, fortran, raw] = st.as_slice() else {
        return Err(err(file, "array state does not have 5 items"));
    };
    let shape: Vec<usize> = tuple(shape)
        .ok_or_else(|| err(file, "array shape is not a tuple"))?
        .iter()
        .map(|d| {
            usize::try_from(int(d, file, "a dimension")?)
                .map_err(|_| err(file, "negative dimension"))
        })
        .collect::<Result<_>>()?;
    if matches!(&*fortran.borrow(), Value::Bool(true)) && shape.len() > 1 {
        return Err(err(file, "Fortran-ordered arrays are not read"));
    }
    let (size, decode) = dtype(dt, file)?;
    let raw = bytes(raw).ok_or_else(|| err(file, "array data is not a byte string"))?;
    let count = shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .filter(|c| c.checked_mul(size) == Some(raw.len()))
        .ok_or_else(|| {
            err(
                file,
                format!("shape {shape:?} does not fit {} data bytes", raw.len()),
            )
        })?;
    let values = raw.chunks_exact(size).map(decode).collect::<Vec<_>>();
    debug_assert_eq!(values.len(), count);
    Ok(Array { shape, values })
}

/// A 2-D array or a `scipy.sparse.csr_matrix`, dense.
fn matrix(v: &Shared, file: &str) -> Result<Dense> {
    let is_csr = matches!(
        &*v.borrow(),
        Value::Object {
            class: Class::CsrMatrix,
            ..
        }
    );
    if !is_csr {
        let a = array(v, file)?;
        let [rows, cols] = a.shape[..] else {
            return Err(err(
                file,
                format!("expected a matrix, got shape {:?}", a.shape),
            ));
        };
        return Ok(Dense {
            rows,
            cols,
            data: a.values,
        });
    }
    let b = v.borrow();
    let Value::Object {
        state: Some(state), ..
    } = &*b
    else {
        return Err(err(file, "csr_matrix without state"));
    };
    let Value::Dict(items) = &*state.borrow() else {
        return Err(err(file, "csr_matrix state is not a dict"));
    };
    let get = |key: &[u8]| {
        items
            .iter()
            .find(|(k, _)| bytes(k).as_deref() == Some(key))
            .map(|(_, v)| v.clone())
            .ok_or_else(|| {
                err(
                    file,
                    format!("csr_matrix has no {}", String::from_utf8_lossy(key)),
                )
            })
    };
    let shape = tuple(&get(b"_shape")?).ok_or_else(|| err(file, "_shape is not a tuple"))?;
    let [r, c] = shape.as_slice() else {
        return Err(err(file, "_shape is not 2-D"));
    };
    let (rows, cols) = (int(r, file, "_shape")?, int(c, file, "_shape")?);
    let (rows, cols) = (
        usize::try_from(rows).map_err(|_| err(file, "negative _shape"))?,
        usize::try_from(cols).map_err(|_| err(file, "negative _shape"))?,
    );
    let indptr = array(&get(b"indptr")?, file)?.values;
    let indices = array(&get(b"indices")?, file)?.values;
    let data = array(&get(b"data")?, file)?.values;
    if indptr.len() != rows + 1 || indices.len() != data.len() {
        return Err(err(file, "csr_matrix index arrays do not fit its shape"));
    }
    let cells = rows
        .checked_mul(cols)
        .ok_or_else(|| err(file, format!("{rows} × {cols} is too large to densify")))?;
    crate::limits::check_allocation(
        &format!("{file}: a dense {rows} × {cols} matrix"),
        cells as u64 * 8,
    )?;
    let mut dense = vec![0.0; cells];
    for i in 0..rows {
        let (a, b) = (indptr[i], indptr[i + 1]);
        if !(a >= 0.0 && a <= b && b <= data.len() as f64) {
            return Err(err(file, format!("indptr is not monotone at row {i}")));
        }
        for k in a as usize..b as usize {
            let j = indices[k];
            if !(j >= 0.0 && j < cols as f64) {
                return Err(err(file, format!("column {j} out of range in row {i}")));
            }
            dense[i * cols + j as usize] += data[k];
        }
    }
    Ok(Dense {
        rows,
        cols,
        data: dense,
    })
}

/// The adjacency lists of a `defaultdict(list)` (or a dict) of integer keys.
fn adjacency(v: &Shared, file: &str) -> Result<Vec<(i64, i64)>> {
    let b = v.borrow();
    let items = match &*b {
        Value::Object {
            class: Class::DefaultDict,
            items,
            ..
        }
        | Value::Dict(items) => items,
        _ => return Err(err(file, "graph is not a dict of lists")),
    };
    let mut pairs = Vec::new();
    for (k, list) in items {
        let u = int(k, file, "a node id")?;
        let Value::List(vs) = &*list.borrow() else {
            return Err(err(file, format!("the neighbours of {u} are not a list")));
        };
        for v in vs {
            pairs.push((u, int(v, file, "a neighbour id")?));
        }
    }
    Ok(pairs)
}

/// Argmax per row (the first maximum; an all-zero row gives 0, as PyG's `max(dim=1)`).
fn argmax_rows(m: &Dense) -> Vec<i64> {
    (0..m.rows)
        .map(|i| {
            let row = &m.data[i * m.cols..(i + 1) * m.cols];
            let mut best = 0;
            for (j, &x) in row.iter().enumerate() {
                if x > row[best] {
                    best = j;
                }
            }
            best as i64
        })
        .collect()
}

/// Converts the Planetoid files of dataset `name`, fetched by suffix ([`SUFFIXES`]) from
/// `file`, into `edges.txt`, `features.npy` (uint8, or float32 when some value is not a small
/// non-negative integer) and `labels.npy` (int64).
///
/// # Errors
/// [`GraphError::MissingFile`] for a file `file` does not give; [`GraphError::Format`]
/// naming the file for a pickle outside the subset ([`pickle::read`]), arrays whose shapes do
/// not fit each other, a feature that is not finite, or an id out of range.
///
/// # Complexity
/// O(nodes · features) to densify the features, O(m log m) for the edges.
pub fn convert(
    name: &str,
    file: &dyn Fn(&str) -> Option<Vec<u8>>,
) -> Result<BTreeMap<String, Vec<u8>>> {
    let path = |s: &str| format!("ind.{name}.{s}");
    let load = |s: &str| -> Result<(String, Vec<u8>)> {
        let p = path(s);
        let b = file(s).ok_or_else(|| GraphError::MissingFile {
            path: p.clone().into(),
        })?;
        Ok((p, b))
    };
    let read = |s: &str| -> Result<(String, Shared)> {
        let (p, b) = load(s)?;
        let v = pickle::read(&p, &b)?;
        Ok((p, v))
    };
    let (ptx, tx) = read("tx")?;
    let tx = matrix(&tx, &ptx)?;
    let (pallx, allx) = read("allx")?;
    let allx = matrix(&allx, &pallx)?;
    let (pty, ty) = read("ty")?;
    let ty = matrix(&ty, &pty)?;
    let (pally, ally) = read("ally")?;
    let ally = matrix(&ally, &pally)?;
    let (pg, graph) = read("graph")?;
    let pairs = adjacency(&graph, &pg)?;
    let (pti, ti) = load("test.index")?;
    let test: Vec<i64> = crate::loaders::parse_int_column(pti.as_ref(), &ti, "a test node id")?;
    let cols = allx.cols;
    if tx.cols != cols || ty.cols != ally.cols || ally.rows != allx.rows || ty.rows != tx.rows {
        return Err(err(
            &ptx,
            "x/tx/allx and y/ty/ally shapes do not fit each other",
        ));
    }
    if test.len() != tx.rows || test.is_empty() {
        return Err(err(
            &pti,
            format!("{} test ids for {} test rows", test.len(), tx.rows),
        ));
    }
    let mut sorted = test.clone();
    sorted.sort_unstable();
    let (lo, hi) = (sorted[0], sorted[sorted.len() - 1]);
    if lo < 0 || hi - lo > 1 << 24 {
        return Err(err(&pti, format!("test ids {lo}..={hi} out of range")));
    }
    let ext = (hi - lo + 1) as usize;
    let n = allx.rows + ext;
    let cells = (n as u64).saturating_mul((cols + ally.cols) as u64);
    crate::limits::check_allocation(&format!("ind.{name}: {n} nodes"), cells.saturating_mul(8))?;
    let classes = ally.cols;
    // PyG: tx_ext[sorted - lo] = tx; x = [allx; tx_ext]; x[test] = x[sorted].
    let mut x = allx.data.clone();
    x.resize(n * cols, 0.0);
    let mut y = ally.data.clone();
    y.resize(n * classes, 0.0);
    for (i, &s) in sorted.iter().enumerate() {
        let r = allx.rows + (s - lo) as usize;
        x[r * cols..(r + 1) * cols].copy_from_slice(&tx.data[i * cols..(i + 1) * cols]);
        y[r * classes..(r + 1) * classes].copy_from_slice(&ty.data[i * classes..(i + 1) * classes]);
    }
    let (x_old, y_old) = (x.clone(), y.clone());
    for (&t, &s) in test.iter().zip(&sorted) {
        let (t, s) = (t as usize, s as usize);
        if t >= n || s >= n {
            return Err(err(&pti, format!("test id {t} is not below {n}")));
        }
        x[t * cols..(t + 1) * cols].copy_from_slice(&x_old[s * cols..(s + 1) * cols]);
        y[t * classes..(t + 1) * classes].copy_from_slice(&y_old[s * classes..(s + 1) * classes]);
    }
    let features = Features::from_values(x, cols).map_err(|m| err(&pallx, m))?;
    let labels = argmax_rows(&Dense {
        rows: n,
        cols: classes,
        data: y,
    });
    let mut edges: Vec<(u32, u32)> = Vec::with_capacity(pairs.len());
    for (u, v) in pairs {
        if u < 0 || v < 0 || u as usize >= n || v as usize >= n {
            return Err(err(
                &pg,
                format!("edge ({u}, {v}) out of range for {n} nodes"),
            ));
        }
        if u != v {
            edges.push((u.min(v) as u32, u.max(v) as u32));
        }
    }
    edges.sort_unstable();
    edges.dedup();
    let mut text = String::with_capacity(edges.len() * 10);
    for (u, v) in &edges {
        text.push_str(&format!("{u} {v}\n"));
    }
    Ok(node_layout(text, n, cols, &features, &labels))
}
