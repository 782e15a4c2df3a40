//! The Gaussian mechanism with a noise scale chosen per release.

use rand::CryptoRng;
use rand_distr::{Distribution, Normal};

use super::add_integer_noise;
use crate::Result;
use crate::error::positive;
use crate::float::{div_up, mul_down, mul_up};
use crate::measures::Zcdp;
use crate::samplers::DiscreteGaussian;

/// Parameters of a Gaussian mechanism whose σ is given at each release (e.g. a schedule over rounds, or
/// a scale chosen from earlier noisy outputs); the ℓ₂ sensitivity Δ (default 1) is fixed.
///
/// # Example
/// ```
/// use dp_core::mechanisms::ScaledGaussianParams;
/// use dp_core::measures::Compose;
/// let m = ScaledGaussianParams::new().sensitivity(1.0).check()?;
/// let mut rng = dp_core::rng::seeded_rng(8);
/// let (_, a) = m.release(3.0, 2.0, &mut rng)?;
/// let (_, b) = m.release(3.0, 4.0, &mut rng)?;
/// assert_eq!(a.compose(&b)?.rho(), 0.125 + 0.03125);
/// # Ok::<(), dp_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScaledGaussianParams {
    sensitivity: f64,
}

impl Default for ScaledGaussianParams {
    fn default() -> Self {
        Self::new()
    }
}

impl ScaledGaussianParams {
    /// Sensitivity 1.
    pub fn new() -> Self {
        Self { sensitivity: 1.0 }
    }

    /// Sets the ℓ₂ sensitivity Δ.
    pub fn sensitivity(mut self, sensitivity: f64) -> Self {
        self.sensitivity = sensitivity;
        self
    }

    /// Validates the parameters.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`sensitivity`) if Δ is not finite and > 0.
    pub fn check(&self) -> Result<ValidScaledGaussian> {
        Ok(ValidScaledGaussian {
            sensitivity: positive("sensitivity", self.sensitivity)?,
        })
    }
}

/// A validated Gaussian mechanism with per-release σ.
///
/// # Privacy
/// Each release with scale σᵢ is Δ²/(2σᵢ²)-zCDP (Bun–Steinke 2016, Prop. 1.6); releases compose by
/// adding ρ (BS16), also adaptively, when σᵢ depends only on public data or earlier *released*
/// outputs. If σᵢ depends on the private data itself (data-dependent noise), this guarantee does not
/// apply: such a scale needs its own analysis (smooth sensitivity, Nissim–Raskhodnikova–Smith 2007),
/// which this type does not provide.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ValidScaledGaussian {
    sensitivity: f64,
}

impl ValidScaledGaussian {
    /// The ℓ₂ sensitivity Δ.
    pub fn sensitivity(&self) -> f64 {
        self.sensitivity
    }

    /// The zCDP cost of one release with scale `sigma`: ρ = Δ²/(2σ²), rounded up.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`sigma`) if σ is not finite and > 0, or ρ overflows.
    ///
    /// # Privacy
    /// BS16 Prop. 1.6.
    pub fn cost(&self, sigma: f64) -> Result<Zcdp> {
        let sigma = positive("sigma", sigma)?;
        let rho = div_up(
            mul_up(self.sensitivity, self.sensitivity),
            2.0 * mul_down(sigma, sigma),
        );
        match Zcdp::new(rho) {
            Ok(z) => Ok(z),
            Err(_) => {
                crate::error::invalid("sigma", sigma, "sensitivity^2 / (2 sigma^2) overflows")
            }
        }
    }

    /// `value` plus N(0, σ²) noise (floating point, `rand_distr::Normal`), with its zCDP cost.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`sigma`) as [`ValidScaledGaussian::cost`].
    ///
    /// # Privacy
    /// The returned [`Zcdp`]; floating-point noise is subject to Mironov 2012.
    pub fn release<R: CryptoRng + ?Sized>(
        &self,
        value: f64,
        sigma: f64,
        rng: &mut R,
    ) -> Result<(f64, Zcdp)> {
        let cost = self.cost(sigma)?;
        let normal = Normal::new(0.0, sigma).expect("sigma is finite and > 0");
        Ok((value + normal.sample(rng), cost))
    }

    /// `value` plus exact discrete Gaussian noise with variance parameter ≥ σ², with its zCDP cost.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] naming `sigma` (as [`ValidScaledGaussian::cost`], or σ² > 2⁴⁰) or
    /// `value` (overflow).
    ///
    /// # Privacy
    /// The returned [`Zcdp`] (CKS20 Thm. 4); exact sampling.
    pub fn release_integer<R: CryptoRng + ?Sized>(
        &self,
        value: i64,
        sigma: f64,
        rng: &mut R,
    ) -> Result<(i64, Zcdp)> {
        let cost = self.cost(sigma)?;
        let dg = DiscreteGaussian::from_sigma(sigma)?;
        Ok((add_integer_noise(value, dg.sample(rng))?, cost))
    }
}
