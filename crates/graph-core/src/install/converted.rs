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

/// The node layout's files: `edges.txt` (`edges`, one `u v` line each), `features.npy`
/// (uint8, `[rows, cols]`) and `labels.npy` (int64).
pub(crate) fn node_layout(
    edges: String,
    rows: usize,
    cols: usize,
    features: &[u8],
    labels: &[i64],
) -> Converted {
    let lbytes: Vec<u8> = labels.iter().flat_map(|l| l.to_le_bytes()).collect();
    Converted::from([
        ("edges.txt".to_owned(), edges.into_bytes()),
        (
            "features.npy".to_owned(),
            super::convert::npy_bytes("|u1", &[rows, cols], features),
        ),
        (
            "labels.npy".to_owned(),
            super::convert::npy_bytes("<i8", &[labels.len()], &lbytes),
        ),
    ])
}
