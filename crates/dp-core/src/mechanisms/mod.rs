//! Noise-adding mechanisms: parameters → `check()` → a valid mechanism → `release(value, &mut rng)`.
//!
//! | mechanism | `release` sampler | `release_integer` sampler | guarantee |
//! |---|---|---|---|
//! | [`ValidGaussian`] | floating point (`rand_distr::Normal`) | exact [`crate::samplers::DiscreteGaussian`] | Δ²/(2σ²)-zCDP |
//! | [`ValidLaplace`] | floating point (sign × exponential) | exact [`crate::samplers::DiscreteLaplace`] | (Δ/b)-DP |
//! | [`ValidExponential`] | exact (CKS20 Bernoulli(exp(−γ)), rejection over candidates) | — | ε-DP |
//! | [`RandomizedResponse`] | exact integer thresholds on 64-bit draws | — | ε-DP |
//! | [`ValidScaledGaussian`] | floating point, σ per release | exact, σ per release | Δ²/(2σᵢ²)-zCDP per release |
//!
//! Floating-point releases are subject to Mironov 2012 (the low-order bits of floating-point noise can
//! reveal the input): use them for values that stay inside an experiment, and the `release_integer`
//! methods (exact samplers of CKS20) for values that leave the machine.
//!
//! # Example
//! ```
//! use dp_core::mechanisms::LaplaceParams;
//! let lap = LaplaceParams::new(2.0).sensitivity(1.0).check()?;
//! assert_eq!(lap.pure_dp().eps(), 0.5);
//! let mut rng = dp_core::rng::seeded_rng(3);
//! let noisy: i64 = lap.release_integer(41, &mut rng)?;
//! assert!((noisy - 41).abs() < 200);
//! # Ok::<(), dp_core::Error>(())
//! ```

mod exponential;
mod gaussian;
mod laplace;
mod randomized_response;
mod scaled_gaussian;

pub use exponential::*;
pub use gaussian::*;
pub use laplace::*;
pub use randomized_response::*;
pub use scaled_gaussian::*;

use crate::Result;
use crate::error::invalid;

/// `value + noise`, or an error if it overflows `i64`.
pub(crate) fn add_integer_noise(value: i64, noise: i64) -> Result<i64> {
    match value.checked_add(noise) {
        Some(v) => Ok(v),
        None => invalid("value", value as f64, "value + noise overflows i64"),
    }
}
