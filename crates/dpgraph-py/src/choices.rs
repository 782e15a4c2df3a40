//! The typed choices of the Python module: every string keyword that names a choice is parsed
//! by the enum's one list ([`graph_core::choice::Choice`]), the same the CLI's flags use, and
//! `dpgraph.choices()` lists them (a test compares it with `dpgraph choices --json`).

use graph_core::choice::Choice;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::error::InvalidParameter;

/// `s` as a `T`, or `InvalidParameter` naming the accepted names.
pub(crate) fn parse<T: Choice>(s: &str) -> PyResult<T> {
    T::from_name(s).map_err(|e| InvalidParameter::new_err(e.to_string()))
}

/// One choice's entry: `{"names": [...], "aliases": {name: [older spellings]}}`.
fn listing<'py, T: Choice>(py: Python<'py>, out: &Bound<'py, PyDict>) -> PyResult<()> {
    let entry = PyDict::new(py);
    entry.set_item("names", PyList::new(py, T::names())?)?;
    let aliases = PyDict::new(py);
    for c in T::ALL.iter().filter(|c| !c.aliases().is_empty()) {
        aliases.set_item(c.name(), PyList::new(py, c.aliases())?)?;
    }
    entry.set_item("aliases", aliases)?;
    out.set_item(T::WHAT, entry)
}

/// choices() -> dict
///
/// Every named choice the module's keywords accept (`bound=`, `tie_break=`, `method=`, …), by
/// what it chooses: `{"sensitivity bound": {"names": [...], "aliases": {...}}, ...}`; the same
/// lists as `dpgraph choices --json`.
#[pyfunction]
pub(crate) fn choices(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let out = PyDict::new(py);
    listing::<homdp::SensitivityBound>(py, &out)?;
    listing::<edgerefine::TieBreak>(py, &out)?;
    listing::<edgerefine::ArtifactCalibration>(py, &out)?;
    listing::<edgerefine::Backend>(py, &out)?;
    listing::<edgerefine::baselines::Baseline>(py, &out)?;
    listing::<cefedgnn::train::Method>(py, &out)?;
    listing::<cefedgnn::train::ModelKind>(py, &out)?;
    listing::<cefedgnn::train::PartitionKind>(py, &out)?;
    listing::<cefedgnn::train::AmlSplit>(py, &out)?;
    listing::<cefedgnn::train::Preset>(py, &out)?;
    listing::<cefedgnn::estimator::GradientMode>(py, &out)?;
    Ok(out)
}
