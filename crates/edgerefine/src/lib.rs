//! Local edge-DP graph release with server-side refinement (the EdgeRefine paper).
//!
//! This crate will hold the client's randomized response, the server's Jaccard similarity,
//! quantile calibration and deterministic top-K refinement, the baselines and the evaluation
//! described in `shared/design/EDGEREFINE.md`.
//!
//! # Architecture invariants
//! - Depends on `graph-core`, `dp-core` and `gnn`; never on the other paper crates.
