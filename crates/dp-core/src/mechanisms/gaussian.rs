//! The Gaussian mechanism.

use rand::CryptoRng;
use rand_distr::{Distribution, Normal};

use super::add_integer_noise;
use crate::Result;
use crate::conversions::gaussian_exact_eps;
use crate::error::positive;
use crate::float::{div_up, mul_down, mul_up};
use crate::measures::{ApproxDp, MetricDp, RdpCurve, Zcdp};
use crate::samplers::DiscreteGaussian;

/// Parameters of the Gaussian mechanism: noise standard deviation σ and ℓ₂ sensitivity Δ (default 1).
///
/// # Example
/// ```
/// use dp_core::mechanisms::GaussianParams;
/// let g = GaussianParams::new(2.0).sensitivity(1.0).check()?;
/// assert_eq!(g.zcdp().rho(), 0.125);
/// assert!(GaussianParams::new(-1.0).check().is_err());
/// # Ok::<(), dp_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GaussianParams {
    sigma: f64,
    sensitivity: f64,
}

impl GaussianParams {
    /// Noise standard deviation `sigma`, sensitivity 1.
    pub fn new(sigma: f64) -> Self {
        Self {
            sigma,
            sensitivity: 1.0,
        }
    }

    /// Sets the ℓ₂ sensitivity Δ of the released value.
    pub fn sensitivity(mut self, sensitivity: f64) -> Self {
        self.sensitivity = sensitivity;
        self
    }

    /// Validates the parameters.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] naming `sigma` or `sensitivity` if one is not finite and > 0.
    pub fn check(&self) -> Result<ValidGaussian> {
        let sigma = positive("sigma", self.sigma)?;
        let sensitivity = positive("sensitivity", self.sensitivity)?;
        let normal = Normal::new(0.0, sigma).expect("sigma is finite and > 0");
        let rho = div_up(
            mul_up(sensitivity, sensitivity),
            2.0 * mul_down(sigma, sigma),
        );
        let Ok(zcdp) = Zcdp::new(rho) else {
            return crate::error::invalid("sigma", sigma, "sensitivity^2 / (2 sigma^2) overflows");
        };
        Ok(ValidGaussian {
            sigma,
            sensitivity,
            normal,
            zcdp,
            discrete: DiscreteGaussian::from_sigma(sigma).ok(),
        })
    }
}

/// A validated Gaussian mechanism M(x) = x + N(0, σ²).
///
/// # Privacy
/// Δ²/(2σ²)-zCDP (Bun–Steinke 2016, Prop. 1.6), for the continuous and (integer-valued queries) the
/// discrete Gaussian (Canonne–Kamath–Steinke 2020, Thm. 4).
#[derive(Debug, Clone, Copy)]
pub struct ValidGaussian {
    sigma: f64,
    sensitivity: f64,
    normal: Normal<f64>,
    zcdp: Zcdp,
    discrete: Option<DiscreteGaussian>,
}

impl ValidGaussian {
    /// The noise standard deviation σ.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// The ℓ₂ sensitivity Δ.
    pub fn sensitivity(&self) -> f64 {
        self.sensitivity
    }

    /// `value` plus N(0, σ²) noise, floating point (`rand_distr::Normal`, Ziggurat).
    ///
    /// # Privacy
    /// [`ValidGaussian::zcdp`] in exact arithmetic; floating-point noise is subject to Mironov 2012 (use
    /// [`ValidGaussian::release_integer`] for releases that leave the machine).
    pub fn release<R: CryptoRng + ?Sized>(&self, value: f64, rng: &mut R) -> f64 {
        value + self.normal.sample(rng)
    }

    /// Each coordinate plus independent N(0, σ²) noise (Δ is then the ℓ₂ sensitivity of the vector).
    ///
    /// # Privacy
    /// As [`ValidGaussian::release`].
    pub fn release_vec<R: CryptoRng + ?Sized>(&self, values: &[f64], rng: &mut R) -> Vec<f64> {
        values.iter().map(|&v| self.release(v, rng)).collect()
    }

    /// `value` plus exact discrete Gaussian noise with variance parameter ≥ σ² (CKS20 Algorithm 3).
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] naming `sigma` if σ² > 2⁴⁰ (outside the exact sampler's range) or
    /// `value` if the sum overflows `i64`.
    ///
    /// # Privacy
    /// Δ²/(2σ²)-zCDP for an integer query with ℓ₂ sensitivity Δ (CKS20 Thm. 4); exact sampling.
    pub fn release_integer<R: CryptoRng + ?Sized>(&self, value: i64, rng: &mut R) -> Result<i64> {
        let Some(dg) = self.discrete else {
            return crate::error::invalid(
                "sigma",
                self.sigma,
                "sigma^2 must be <= 2^40 for the exact sampler",
            );
        };
        add_integer_noise(value, dg.sample(rng))
    }

    /// The zCDP guarantee ρ = Δ²/(2σ²), rounded up.
    ///
    /// # Privacy
    /// Bun–Steinke 2016, Prop. 1.6.
    pub fn zcdp(&self) -> Zcdp {
        self.zcdp
    }

    /// The RDP curve α Δ²/(2σ²) on `orders`.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`orders`) for an invalid grid.
    ///
    /// # Privacy
    /// Mironov 2017, Prop. 7.
    pub fn rdp(&self, orders: &[f64]) -> Result<RdpCurve> {
        self.zcdp().to_rdp(orders)
    }

    /// (ε, δ) through the zCDP conversion of CKS20 (valid for [`ValidGaussian::release`] and
    /// [`ValidGaussian::release_integer`]).
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`delta`) if δ ∉ (0, 1).
    ///
    /// # Privacy
    /// BS16 Prop. 1.6 then CKS20 Cor. 13.
    pub fn approx_dp(&self, delta: f64) -> Result<ApproxDp> {
        self.zcdp().to_approx(delta)
    }

    /// The tight (ε, δ) of the continuous Gaussian mechanism (analytic Gaussian).
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`delta`) if δ ∉ (0, 1).
    ///
    /// # Privacy
    /// Balle–Wang 2018, Thm. 8 with μ = Δ/σ; for [`ValidGaussian::release`] only.
    pub fn approx_dp_analytic(&self, delta: f64) -> Result<ApproxDp> {
        let mu = div_up(self.sensitivity, self.sigma);
        ApproxDp::new(gaussian_exact_eps(mu, delta)?, delta)
    }

    /// The metric DP of the release: ε(p) for inputs at ℓ₂ distance ≤ p, reported at `delta`.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`delta`) if δ ∉ (0, 1).
    ///
    /// # Privacy
    /// ρ(p) = p²/(2σ²) (BS16 Prop. 1.6), see [`MetricDp`].
    pub fn metric_dp(&self, delta: f64) -> Result<MetricDp> {
        MetricDp::gaussian(self.sigma, delta)
    }
}
