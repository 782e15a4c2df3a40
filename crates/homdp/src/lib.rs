//! Private homomorphism-density graph embeddings (the homdp paper).
//!
//! This crate will hold pattern sampling, exact homomorphism counting, densities, sensitivity
//! bounds and the private embedding with its tCDP guarantee, as described in
//! `shared/design/HOMDP.md`.
//!
//! # Architecture invariants
//! - Depends on `graph-core`, `dp-core` and `gnn`; never on the other paper crates.
