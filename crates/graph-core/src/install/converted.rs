//! What every converter returns: the converted files by relative path, and the error naming the
//! dataset whose archive does not fit its format. Shared by the converters in `convert` and
//! `ogb`, so that `convert` (which dispatches to `ogb`) is the only one of them importing the
//! other.

use std::collections::BTreeMap;

use crate::error::GraphError;
use crate::registry::DatasetSpec;

/// Converted files: relative path → bytes.
pub(crate) type Converted = BTreeMap<String, Vec<u8>>;

/// A [`GraphError::Convert`] for `spec` with `message`.
pub(crate) fn convert_err(spec: &DatasetSpec, message: impl Into<String>) -> GraphError {
    GraphError::Convert {
        dataset: spec.name.clone(),
        message: message.into(),
    }
}

/// Feature values (row-major, `cols` a row) as the node layout's uint8 bytes; the message names
/// the first value that is not a small non-negative integer.
pub(crate) fn uint8_features(
    values: impl IntoIterator<Item = f64>,
    cols: usize,
) -> std::result::Result<Vec<u8>, String> {
    values
        .into_iter()
        .enumerate()
        .map(|(i, x)| {
            if (0.0..=255.0).contains(&x) && x.fract() == 0.0 {
                Ok(x as u8)
            } else {
                Err(format!(
                    "feature ({}, {}) = {x} is not a uint8 value",
                    i / cols.max(1),
                    i % cols.max(1)
                ))
            }
        })
        .collect()
}

/// Feature values as the node layout stores them.
pub(crate) enum Features {
    /// Small non-negative integers (bag-of-words counts, binary indicators): `|u1`.
    U8(Vec<u8>),
    /// Anything else (TF-IDF weights): `<f4`, as PyTorch Geometric's `float` tensors.
    F32(Vec<f32>),
}

impl Features {
    /// `values` (row-major, `cols` a row) as uint8 when every value is one, else as float32;
    /// the message names the first value that is not finite.
    pub(crate) fn from_values(values: Vec<f64>, cols: usize) -> std::result::Result<Self, String> {
        if let Some(i) = values.iter().position(|x| !x.is_finite()) {
            return Err(format!(
                "feature ({}, {}) = {} is not finite",
                i / cols.max(1),
                i % cols.max(1),
                values[i]
            ));
        }
        match uint8_features(values.iter().copied(), cols) {
            Ok(b) => Ok(Self::U8(b)),
            Err(_) => Ok(Self::F32(values.into_iter().map(|x| x as f32).collect())),
        }
    }
}

/// The node layout's files: `edges.txt` (`edges`, one `u v` line each), `features.npy`
/// (uint8 or float32, `[rows, cols]`) and `labels.npy` (int64).
pub(crate) fn node_layout(
    edges: String,
    rows: usize,
    cols: usize,
    features: &Features,
    labels: &[i64],
) -> Converted {
    let lbytes: Vec<u8> = labels.iter().flat_map(|l| l.to_le_bytes()).collect();
    let features = match features {
        Features::U8(b) => crate::io::npy::npy_bytes("|u1", &[rows, cols], b),
        Features::F32(v) => {
            let b: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
            crate::io::npy::npy_bytes("<f4", &[rows, cols], &b)
        }
    };
    Converted::from([
        ("edges.txt".to_owned(), edges.into_bytes()),
        ("features.npy".to_owned(), features),
        (
            "labels.npy".to_owned(),
            crate::io::npy::npy_bytes("<i8", &[labels.len()], &lbytes),
        ),
    ])
}
