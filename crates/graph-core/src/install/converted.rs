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
