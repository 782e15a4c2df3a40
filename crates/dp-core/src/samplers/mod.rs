//! Random samplers: exact integer samplers (Canonne–Kamath–Steinke 2020) and the geometric-skip sampler.
//!
//! | sampler | arithmetic | used by |
//! |---|---|---|
//! | [`Bernoulli`] | exact (64-bit integer threshold) | randomized-response keep decisions, Bernoulli trials of releases |
//! | [`BernoulliWord`] | exact (bit-sliced uniform words, p on the 2⁻³² grid rounded up) | 64 trials per call: dense randomized-response reports |
//! | [`BernoulliExp`] | exact (integers, rational γ) | the two samplers below |
//! | [`DiscreteLaplace`] | exact (integers, rational scale) | [`crate::mechanisms::ValidLaplace::release_integer`] |
//! | [`DiscreteGaussian`] | exact (integers, rational σ²) | [`crate::mechanisms::ValidGaussian::release_integer`] |
//! | [`GeometricSkip`] | floating point (inverse CDF of the geometric gap) | success positions among N trials |
//!
//! The exact samplers consume only uniform random bits through rejection (no floating point), so their
//! output distribution is exactly the stated one: they are immune to the floating-point attacks of
//! Mironov 2012. [`GeometricSkip`] draws gaps by floating-point inversion; its per-trial probability
//! matches p up to about 1e-15 relative (see its docs).
//!
//! # Example
//! ```
//! use dp_core::samplers::DiscreteGaussian;
//! let dg = DiscreteGaussian::new(9, 4)?; // σ² = 9/4
//! let mut rng = dp_core::rng::seeded_rng(1);
//! let n = 2000;
//! let mean = (0..n).map(|_| dg.sample(&mut rng) as f64).sum::<f64>() / n as f64;
//! assert!(mean.abs() < 5.0 * (2.25f64 / n as f64).sqrt());
//! # Ok::<(), dp_core::Error>(())
//! ```

mod bernoulli;
mod bernoulli_exp;
mod bernoulli_word;
mod discrete_gaussian;
mod discrete_laplace;
mod geometric_skip;
mod uniform;

pub use bernoulli::*;
pub use bernoulli_exp::*;
pub use bernoulli_word::*;
pub use discrete_gaussian::*;
pub use discrete_laplace::*;
pub use geometric_skip::*;
pub(crate) use uniform::*;
