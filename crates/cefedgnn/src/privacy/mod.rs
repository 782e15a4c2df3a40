//! Metric-DP release of boundary rows: L2 clipping, Gaussian noise σ = σ₀·C (dp-core's Gaussian
//! mechanism driven by a ChaCha20 CSPRNG), per-node release counts, a ledger entry per release,
//! and the ε(p) accounting (RDP accountant with both conversions, and the closed form).

mod accounting;
mod config;
pub mod radius;
mod release;

pub use accounting::{
    NOT_COVERED, PrivacyReport, ReleaseCounts, StandardDpFigure, closed_form_eps, rdp_eps,
};
pub use config::ReleaseConfig;
pub use release::{BoundaryReleaser, NormStats, ReleaserSnapshot, clip_l2};
