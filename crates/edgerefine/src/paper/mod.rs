//! The paper's protocols as library code, so that a table of the paper can be run on one's own
//! data and machine (`cargo xtask repro edgerefine` and `repro gnn` are thin drivers of this
//! module).
//!
//! - `gnn_table` (feature `train`): EdgeRefine's GNN models on the clean Cora and MUTAG
//!   graphs, against the accuracies they must reach;
//! - `Plan` (feature `train`): the accuracy-over-ε grid (datasets, models, methods, ε,
//!   seeds), the MUTAG table, Blink's own protocol and the epoch caps by release size.

#[cfg(feature = "train")]
pub mod gnn_table;
#[cfg(feature = "train")]
mod plan;

#[cfg(feature = "train")]
pub use plan::{BlinkProtocol, DENSE_EDGES, DatasetPlan, Plan, VERY_DENSE_EDGES, methods};
