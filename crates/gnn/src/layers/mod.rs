//! Message-passing layers on index-based (sparse) aggregation: [`GcnConv`], [`SageConv`],
//! [`GatConv`], [`GinConv`], [`GineConv`] (GIN with edge features), [`PnaConv`] (PNA's four
//! aggregators times three degree scalers, with [`avg_log_degree`] for its `δ`), the dense
//! [`Linear`] layer and graph pooling.
//!
//! Every layer takes its input as an [`Input`](crate::Input) (so the first layer can consume
//! sparse features) and a [`GraphTensors`](crate::GraphTensors). Layers whose first operation
//! is linear project before aggregating (`Â(XW) = (ÂX)W`), so aggregation runs in the smaller
//! output width.

mod gat;
mod gcn;
mod gin;
mod gine;
mod init;
mod linear;
mod pna;
mod pool;
mod sage;

pub use gat::GatConv;
pub use gcn::GcnConv;
pub use gin::GinConv;
pub use gine::GineConv;
pub(crate) use init::Init;
pub use linear::Linear;
pub use pna::{PnaConv, PnaSettings, avg_log_degree};
pub use pool::{Pooling, pool};
pub use sage::SageConv;
