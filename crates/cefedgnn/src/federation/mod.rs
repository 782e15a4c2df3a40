//! The federated setting: one graph split across clients, each client's topology (own nodes,
//! local and cross edges, boundary and halo sets), cross-edge statistics, and the per-client
//! private data (features and labels of own nodes only).

mod data;
mod setting;

pub use data::ClientData;
pub use setting::{ClientStats, ClientTopology, CrossEdgeStats, FederatedGraph};
