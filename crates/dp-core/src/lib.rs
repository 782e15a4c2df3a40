//! Differential-privacy mechanisms, exact samplers and privacy accounting for dpgraph.
//!
//! Anchors: OpenDP's Rust core (measures as types, conservative arithmetic, exact samplers) and Google's
//! dp_accounting (the RDP accountant; `tests/oracle.rs` checks this crate against its values).
//!
//! - [`measures`]: pure ε-DP, (ε, δ)-DP, zCDP, tCDP, RDP curves and metric DP, validated on
//!   construction, composed through the [`measures::Compose`] trait;
//! - [`conversions`]: zCDP/tCDP/RDP → (ε, δ) and δ(ε), each named after its theorem;
//! - [`accountant`]: [`accountant::RdpAccountant`], dp_accounting's RDP accountant;
//! - [`mechanisms`]: Gaussian, Laplace, randomized response, per-release-scale Gaussian
//!   (builder → `check()` → `release(value, &mut rng)`);
//! - [`samplers`]: exact discrete Gaussian / discrete Laplace / Bernoulli(exp(−γ)) (CKS20) and the
//!   geometric-skip sampler of success positions;
//! - [`ledger`]: [`ledger::PrivacyLedger`], a record of releases that refuses to exceed a budget;
//! - [`rng`]: the project CSPRNG (ChaCha20, OS-seeded or explicitly seeded).
//!
//! # Floating point and exact sampling
//! Textbook floating-point noise leaks: Mironov 2012 showed that the low-order bits of a floating-point
//! Laplace sample reveal the input. The `release(f64)` methods of [`mechanisms`] use floating-point
//! samplers and are meant for values that stay inside an experiment; the `release_integer(i64)` methods
//! use the exact integer samplers of [`samplers`] (Canonne–Kamath–Steinke 2020) and are the ones to use
//! for releases that leave the machine. Each method's doc names its sampler.
//!
//! # Architecture invariants
//! - `dp-core` knows nothing about graphs: it is a leaf crate and depends on no other dpgraph crate.
//! - Privacy numbers are upper bounds: they are rounded up, and invalid parameters are errors
//!   ([`Error::InvalidParam`] naming the parameter), never panics or silent clamping.
//! - Randomness is always passed in (`&mut R where R: rand::Rng`), so every test is seeded.
//!
//! # Example
//! ```
//! use dp_core::mechanisms::GaussianParams;
//! use dp_core::rng::seeded_rng;
//!
//! let gauss = GaussianParams::new(4.0).sensitivity(2.0).check()?;
//! let mut rng = seeded_rng(7);
//! let noisy = gauss.release(10.0, &mut rng);
//! assert!(noisy.is_finite());
//! assert_eq!(gauss.zcdp().rho(), 0.125);
//! let dp = gauss.zcdp().to_approx(1e-5)?;
//! let bs16 = 0.125 + 2.0 * (0.125 * 1e5f64.ln()).sqrt();
//! assert!(dp.eps() > 0.0 && dp.eps() < bs16);
//! # Ok::<(), dp_core::Error>(())
//! ```

pub mod accountant;
pub mod conversions;
mod error;
mod float;
pub mod ledger;
pub mod measures;
pub mod mechanisms;
pub mod rng;
pub mod samplers;

pub use error::{Error, Result};
