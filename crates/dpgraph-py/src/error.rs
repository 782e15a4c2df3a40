//! The exception hierarchy of the package and the guard that turns Rust errors and panics into
//! those exceptions.

use std::panic::{AssertUnwindSafe, catch_unwind};

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    _native,
    DpgraphError,
    PyException,
    "Base class of dpgraph's errors."
);
create_exception!(
    _native,
    InvalidParameter,
    DpgraphError,
    "A parameter outside its domain (ε ≤ 0, NaN, δ ∉ (0, 1), …)."
);
create_exception!(
    _native,
    BudgetExceeded,
    DpgraphError,
    "A release refused by a privacy ledger: it would exceed the budget (nothing was recorded)."
);
create_exception!(
    _native,
    DataError,
    DpgraphError,
    "Malformed data: a bad file, out-of-range node ids, self-loops, wrong shapes."
);

create_exception!(
    _native,
    ProtocolError,
    DataError,
    "A frame, announcement or report refused by a federated role (wrong size, round, shape, \
     non-finite values); the role is unchanged."
);

/// The exception for an error of the Rust crates.
pub(crate) trait IntoPyErr {
    /// The exception carrying this error's message.
    fn into_py_err(self) -> PyErr;
}

impl IntoPyErr for dp_core::Error {
    fn into_py_err(self) -> PyErr {
        match self {
            dp_core::Error::InvalidParam { .. } => InvalidParameter::new_err(self.to_string()),
            dp_core::Error::BudgetExceeded { .. } => BudgetExceeded::new_err(self.to_string()),
            e => DpgraphError::new_err(e.to_string()),
        }
    }
}

impl IntoPyErr for graph_core::GraphError {
    fn into_py_err(self) -> PyErr {
        match self {
            graph_core::GraphError::InvalidParam { .. } => {
                InvalidParameter::new_err(self.to_string())
            }
            e => DataError::new_err(e.to_string()),
        }
    }
}

impl IntoPyErr for edgerefine::EdgeRefineError {
    fn into_py_err(self) -> PyErr {
        match self {
            edgerefine::EdgeRefineError::InvalidParam { .. } => {
                InvalidParameter::new_err(self.to_string())
            }
            edgerefine::EdgeRefineError::Dp(e) => e.into_py_err(),
            e => DataError::new_err(e.to_string()),
        }
    }
}

impl IntoPyErr for homdp::HomdpError {
    fn into_py_err(self) -> PyErr {
        match self {
            homdp::HomdpError::InvalidParam { .. } => InvalidParameter::new_err(self.to_string()),
            homdp::HomdpError::Dp(e) => e.into_py_err(),
            homdp::HomdpError::Graph(e) => e.into_py_err(),
            e => DataError::new_err(e.to_string()),
        }
    }
}

/// Runs `f`, turning its error into the matching exception and a panic into `DpgraphError`.
pub(crate) fn guard<T, E: IntoPyErr>(f: impl FnOnce() -> Result<T, E>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(e.into_py_err()),
        Err(panic) => {
            let msg = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(DpgraphError::new_err(format!(
                "internal error (a bug of dpgraph, please report it): {msg}"
            )))
        }
    }
}

/// An operation's summary (a Rust `Serialize` value, the one the CLI prints with `--json`) as a
/// Python object: structs become dicts, `None` becomes `None`, floats stay floats (∞ included).
pub(crate) fn record<'py, T: serde::Serialize + ?Sized>(
    py: Python<'py>,
    value: &T,
) -> PyResult<Bound<'py, PyAny>> {
    pythonize::pythonize(py, value).map_err(|e| DataError::new_err(e.to_string()))
}
