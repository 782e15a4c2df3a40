//! Differential-privacy mechanisms and privacy accounting for dpgraph.
//!
//! This crate will hold the privacy measures (pure ε, (ε,δ), zCDP, tCDP, RDP, metric-DP), their
//! conversions and composition, the RDP accountant, the mechanisms with exact samplers, and the
//! privacy ledger described in `shared/design/DP.md`.
//!
//! # Architecture invariants
//! - `dp-core` knows nothing about graphs: it is a leaf crate and depends on no other dpgraph crate.
//! - Privacy numbers are upper bounds: they are rounded up, and invalid parameters are errors.
