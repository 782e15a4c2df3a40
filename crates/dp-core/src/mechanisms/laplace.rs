//! The Laplace mechanism.

use rand::CryptoRng;

use super::add_integer_noise;
use crate::Result;
use crate::error::positive;
use crate::float::div_up;
use crate::measures::{MetricDp, PureDp};
use crate::samplers::{DiscreteLaplace, fair_bit, open_closed_unit};

/// Parameters of the Laplace mechanism: noise scale b and ℓ₁ sensitivity Δ (default 1).
///
/// # Example
/// ```
/// use dp_core::mechanisms::LaplaceParams;
/// let l = LaplaceParams::new(0.5).sensitivity(2.0).check()?;
/// assert_eq!(l.pure_dp().eps(), 4.0);
/// assert!(LaplaceParams::new(f64::NAN).check().is_err());
/// # Ok::<(), dp_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LaplaceParams {
    scale: f64,
    sensitivity: f64,
}

impl LaplaceParams {
    /// Noise scale `scale` (b), sensitivity 1.
    pub fn new(scale: f64) -> Self {
        Self {
            scale,
            sensitivity: 1.0,
        }
    }

    /// Sets the ℓ₁ sensitivity Δ.
    pub fn sensitivity(mut self, sensitivity: f64) -> Self {
        self.sensitivity = sensitivity;
        self
    }

    /// Validates the parameters.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] naming `scale` or `sensitivity` if one is not finite and > 0.
    pub fn check(&self) -> Result<ValidLaplace> {
        let scale = positive("scale", self.scale)?;
        let sensitivity = positive("sensitivity", self.sensitivity)?;
        let Ok(pure) = PureDp::new(div_up(sensitivity, scale)) else {
            return crate::error::invalid("scale", scale, "sensitivity / scale overflows");
        };
        Ok(ValidLaplace {
            scale,
            sensitivity,
            pure,
            discrete: DiscreteLaplace::from_scale(scale).ok(),
        })
    }
}

/// A validated Laplace mechanism M(x) = x + Lap(b).
///
/// # Privacy
/// (Δ/b)-DP (Dwork–McSherry–Nissim–Smith 2006); for integer queries with the discrete Laplace, the same
/// bound (CKS20 / Ghosh–Roughgarden–Sundararajan 2009).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ValidLaplace {
    scale: f64,
    sensitivity: f64,
    pure: PureDp,
    discrete: Option<DiscreteLaplace>,
}

impl ValidLaplace {
    /// The scale b.
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// The ℓ₁ sensitivity Δ.
    pub fn sensitivity(&self) -> f64 {
        self.sensitivity
    }

    /// `value` plus Laplace(b) noise, floating point: a fair sign times b·(−ln U), U uniform in (0, 1].
    ///
    /// # Privacy
    /// [`ValidLaplace::pure_dp`] in exact arithmetic; this is the textbook floating-point sampler that
    /// Mironov 2012 attacked (the set of reachable doubles depends on the input). Use
    /// [`ValidLaplace::release_integer`] for releases that leave the machine.
    pub fn release<R: CryptoRng + ?Sized>(&self, value: f64, rng: &mut R) -> f64 {
        let magnitude = -self.scale * open_closed_unit(rng).ln();
        if fair_bit(rng) {
            value - magnitude
        } else {
            value + magnitude
        }
    }

    /// `value` plus exact discrete Laplace noise with scale ≥ b (CKS20 Algorithm 2).
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] naming `scale` if b > 2⁵³ (outside the exact sampler's range) or
    /// `value` if the sum overflows `i64`.
    ///
    /// # Privacy
    /// (Δ/b)-DP for an integer query with ℓ₁ sensitivity Δ; exact sampling.
    pub fn release_integer<R: CryptoRng + ?Sized>(&self, value: i64, rng: &mut R) -> Result<i64> {
        let Some(dl) = self.discrete else {
            return crate::error::invalid(
                "scale",
                self.scale,
                "must be <= 2^53 for the exact sampler",
            );
        };
        add_integer_noise(value, dl.sample(rng))
    }

    /// The guarantee ε = Δ/b, rounded up.
    ///
    /// # Privacy
    /// Dwork–McSherry–Nissim–Smith 2006 (Laplace mechanism).
    pub fn pure_dp(&self) -> PureDp {
        self.pure
    }

    /// The metric DP of the release: ε(p) = p/b (Chatzikokolakis et al. 2013).
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] if 1/b overflows.
    ///
    /// # Privacy
    /// See [`MetricDp::laplace`].
    pub fn metric_dp(&self) -> Result<MetricDp> {
        MetricDp::laplace(self.scale)
    }
}
