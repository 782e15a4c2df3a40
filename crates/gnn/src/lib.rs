//! Graph neural networks for dpgraph, on Burn.
//!
//! This crate will hold GCN, GAT, GIN, GraphSAGE and MLP layers on index-based (sparse) message
//! passing, node- and graph-level training loops with early stopping, and evaluation metrics.
//!
//! # Architecture invariants
//! - `gnn` depends on `graph-core` only; it knows nothing about privacy.
//! - Message passing never builds a dense `n × n` adjacency.
