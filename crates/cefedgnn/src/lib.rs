//! Federated GNN training with infrequent moving-average embedding exchange under metric-DP
//! (the CE-FedGNN paper).
//!
//! This crate will hold the partitioned-graph setting, the client/server protocol, the
//! moving-average estimators, the metric-DP release and the baselines described in
//! `shared/design/CEFEDGNN.md`.
//!
//! # Architecture invariants
//! - Depends on `graph-core`, `dp-core` and `gnn`; never on the other paper crates.
