//! The native part of the Python package `dpgraph`: every call runs the Rust crates. The Python
//! modules in `python/dpgraph/` re-export these functions under `dpgraph.accounting`,
//! `dpgraph.graph`, `dpgraph.edgerefine`, `dpgraph.homdp` and `dpgraph.fed`.
//!
//! Errors become exceptions of one small hierarchy (`dpgraph.DpgraphError`, with
//! `InvalidParameter` for bad arguments, `DataError` for bad data and `BudgetExceeded` for a
//! release a ledger refuses), carrying the Rust message;
//! a Rust panic is caught at the boundary and raised as `DpgraphError`, never as PyO3's
//! `PanicException`. Calls that can take more than a millisecond release the GIL.

mod accounting;
mod choices;
mod edgerefine;
mod error;
mod fed;
mod graph;
mod homdp;
mod tiles;

use pyo3::prelude::*;

use error::{BudgetExceeded, DataError, DpgraphError, InvalidParameter, ProtocolError};

/// The native module `dpgraph._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("DpgraphError", py.get_type::<DpgraphError>())?;
    m.add("InvalidParameter", py.get_type::<InvalidParameter>())?;
    m.add("DataError", py.get_type::<DataError>())?;
    m.add("BudgetExceeded", py.get_type::<BudgetExceeded>())?;
    m.add("ProtocolError", py.get_type::<ProtocolError>())?;
    m.add_class::<fed::FedClient>()?;
    m.add_class::<fed::FedServer>()?;
    m.add_function(wrap_pyfunction!(choices::choices, m)?)?;
    m.add_function(wrap_pyfunction!(fed::train_config, m)?)?;
    m.add_function(wrap_pyfunction!(fed::apply_fault, m)?)?;
    m.add_function(wrap_pyfunction!(fed::simulate, m)?)?;
    m.add_class::<graph::Graph>()?;
    m.add_function(wrap_pyfunction!(graph::read_edge_list, m)?)?;
    m.add_function(wrap_pyfunction!(graph::load_dataset, m)?)?;
    m.add_function(wrap_pyfunction!(graph::louvain, m)?)?;
    m.add_function(wrap_pyfunction!(graph::modularity, m)?)?;
    m.add_function(wrap_pyfunction!(accounting::zcdp_to_approx, m)?)?;
    m.add_function(wrap_pyfunction!(accounting::gaussian_exact_eps, m)?)?;
    m.add_function(wrap_pyfunction!(accounting::tcdp_to_approx, m)?)?;
    m.add_class::<accounting::RdpAccountant>()?;
    m.add_class::<accounting::PrivacyLedger>()?;
    m.add_function(wrap_pyfunction!(edgerefine::perturb, m)?)?;
    m.add_function(wrap_pyfunction!(edgerefine::refine, m)?)?;
    m.add_function(wrap_pyfunction!(edgerefine::refine_calibrated, m)?)?;
    m.add_function(wrap_pyfunction!(edgerefine::baseline, m)?)?;
    m.add_function(wrap_pyfunction!(edgerefine::write_report, m)?)?;
    m.add_function(wrap_pyfunction!(edgerefine::read_report, m)?)?;
    m.add_function(wrap_pyfunction!(edgerefine::report_header, m)?)?;
    m.add_class::<tiles::TileWorker>()?;
    m.add_class::<tiles::TiledRefine>()?;
    m.add_function(wrap_pyfunction!(tiles::tile_count, m)?)?;
    m.add_class::<homdp::Pattern>()?;
    m.add_function(wrap_pyfunction!(homdp::sample_forests, m)?)?;
    m.add_function(wrap_pyfunction!(homdp::densities, m)?)?;
    m.add_function(wrap_pyfunction!(homdp::hom_counts, m)?)?;
    m.add_function(wrap_pyfunction!(homdp::embed, m)?)?;
    m.add_function(wrap_pyfunction!(homdp::reidentification, m)?)?;
    m.add_function(wrap_pyfunction!(homdp::reidentification_ranks, m)?)?;
    Ok(())
}
