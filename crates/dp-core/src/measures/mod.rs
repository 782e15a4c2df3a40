//! Privacy measures as validated plain types, and their composition.
//!
//! | type | guarantee | composition |
//! |---|---|---|
//! | [`PureDp`] | ε-DP | ε adds |
//! | [`ApproxDp`] | (ε, δ)-DP | ε and δ add |
//! | [`Zcdp`] | ρ-zCDP (Bun–Steinke 2016) | ρ adds |
//! | [`Tcdp`] | (ρ, ω)-tCDP (Bun–Dwork–Rothblum–Steinke 2018) | (ρ₁+ρ₂, min(ω₁, ω₂)) |
//! | [`RdpCurve`] | (α, ε(α))-RDP on a grid of orders (Mironov 2017) | pointwise sum on the same grid |
//! | [`MetricDp`] | ε(p) for inputs at distance ≤ p, with δ | ε-slopes, ρ and δ add |
//!
//! Constructors reject NaN, infinities and negative values with [`crate::Error::InvalidParam`]. A zero
//! loss is a valid measure (the identity of composition).
//!
//! # Example
//! ```
//! use dp_core::measures::{Compose, Zcdp};
//! let total = Zcdp::new(0.1)?.compose(&Zcdp::new(0.05)?)?;
//! assert!((total.rho() - 0.15).abs() < 1e-15);
//! assert!(total.rho() >= 0.15);
//! # Ok::<(), dp_core::Error>(())
//! ```

mod cdp;
mod compose;
mod metric;
mod pure;
mod rdp;

pub use cdp::*;
pub use compose::*;
pub use metric::*;
pub use pure::*;
pub use rdp::*;
