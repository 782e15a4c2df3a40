//! Metric DP: a privacy loss that grows with the distance between the two inputs.

use serde::Serialize;

use crate::Result;
use crate::conversions::{zcdp_to_approx, zcdp_to_approx_cks};
use crate::error::{invalid, non_negative};
use crate::float::{add_up, mul_up};
use crate::measures::{ApproxDp, Compose};

/// Metric DP with δ: for any inputs x, x' at distance d(x, x') ≤ p, M(x) and M(x') are
/// (ε(p), δ)-indistinguishable, with
///
/// ε(p) = `eps_per_unit` · p + ε_CKS(ρ(p), δ),  ρ(p) = `rho_per_unit_sq` · p².
///
/// The linear part is the metric DP of Chatzikokolakis–Andrés–Bordenabe–Palamidessi 2013 (a Laplace
/// mechanism with scale b gives slope 1/b). The quadratic part is the zCDP of a Gaussian mechanism on
/// inputs at ℓ₂ distance ≤ p: ρ(p) = p²/(2σ²) per release (Bun–Steinke 2016, Prop. 1.6), converted to
/// (ε, δ) by CKS20 Cor. 13. Both parts are combined by basic composition.
///
/// # Example
/// ```
/// use dp_core::measures::{Compose, MetricDp};
/// // Ten Gaussian releases with σ = 4 of a vector whose neighbours are within distance p.
/// let one = MetricDp::gaussian(4.0, 1e-5)?;
/// let ten = one.compose_n(10)?;
/// let eps_at_half = ten.eps(0.5)?; // ρ = 10 · 0.25 / 32
/// let rho: f64 = 10.0 * 0.25 / 32.0;
/// assert!(eps_at_half <= rho + 2.0 * (rho * (1e5f64).ln()).sqrt());
/// assert_eq!(ten.eps(0.0)?, 0.0);
/// # Ok::<(), dp_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MetricDp {
    eps_per_unit: f64,
    rho_per_unit_sq: f64,
    delta: f64,
}

impl MetricDp {
    /// A metric-DP guarantee ε(p) = `eps_per_unit`·p + ε_CKS(`rho_per_unit_sq`·p², δ).
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] naming `eps_per_unit` or `rho_per_unit_sq` (NaN, infinite,
    /// negative) or `delta` (outside [0, 1), or 0 while `rho_per_unit_sq` > 0).
    pub fn new(eps_per_unit: f64, rho_per_unit_sq: f64, delta: f64) -> Result<Self> {
        let eps_per_unit = non_negative("eps_per_unit", eps_per_unit)?;
        let rho_per_unit_sq = non_negative("rho_per_unit_sq", rho_per_unit_sq)?;
        if delta.is_nan() || !(0.0..1.0).contains(&delta) {
            return invalid("delta", delta, "must lie in [0, 1)");
        }
        if rho_per_unit_sq > 0.0 && delta == 0.0 {
            return invalid("delta", delta, "must be > 0 when rho_per_unit_sq > 0");
        }
        Ok(Self {
            eps_per_unit,
            rho_per_unit_sq,
            delta,
        })
    }

    /// The metric DP of one Laplace release with scale `scale` (ε(p) = p / scale, δ = 0).
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`scale`) if the scale is not finite and > 0.
    ///
    /// # Privacy
    /// Chatzikokolakis et al. 2013: the Laplace density ratio at distance p is e^{p/b}.
    pub fn laplace(scale: f64) -> Result<Self> {
        let scale = crate::error::positive("scale", scale)?;
        Self::new(crate::float::div_up(1.0, scale), 0.0, 0.0)
    }

    /// The metric DP of one Gaussian release with standard deviation `sigma` (ρ(p) = p²/(2σ²)),
    /// reported at failure probability `delta`.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] naming `sigma` (not finite > 0) or `delta` (outside (0, 1)).
    ///
    /// # Privacy
    /// Bun–Steinke 2016, Prop. 1.6 with sensitivity p.
    pub fn gaussian(sigma: f64, delta: f64) -> Result<Self> {
        let sigma = crate::error::positive("sigma", sigma)?;
        crate::error::open_unit("delta", delta)?;
        let rho = crate::float::div_up(1.0, crate::float::mul_up(2.0, mul_up(sigma, sigma)));
        Self::new(0.0, rho, delta)
    }

    /// The slope of the linear (pure) part.
    pub fn eps_per_unit(&self) -> f64 {
        self.eps_per_unit
    }

    /// ρ per squared unit of distance of the quadratic (zCDP) part.
    pub fn rho_per_unit_sq(&self) -> f64 {
        self.rho_per_unit_sq
    }

    /// The failure probability δ.
    pub fn delta(&self) -> f64 {
        self.delta
    }

    /// ε(p) for inputs at distance ≤ `radius`, the zCDP part converted with CKS20.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`radius`) if the radius is NaN, infinite or negative.
    ///
    /// # Privacy
    /// Basic composition of the linear part with CKS20 Cor. 13 on ρ(p).
    pub fn eps(&self, radius: f64) -> Result<f64> {
        self.eps_with(radius, |rho, delta| Ok(zcdp_to_approx_cks(rho, delta)?.0))
    }

    /// ε(p) with the closed-form zCDP conversion ρ + 2√(ρ ln(1/δ)) (Bun–Steinke 2016, Prop. 1.3).
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`radius`) if the radius is NaN, infinite or negative.
    ///
    /// # Privacy
    /// Basic composition of the linear part with BS16 Prop. 1.3 on ρ(p).
    pub fn eps_bs16(&self, radius: f64) -> Result<f64> {
        self.eps_with(radius, zcdp_to_approx)
    }

    /// The (ε(p), δ) guarantee at `radius`.
    ///
    /// # Errors
    /// As [`MetricDp::eps`].
    ///
    /// # Privacy
    /// As [`MetricDp::eps`].
    pub fn at(&self, radius: f64) -> Result<ApproxDp> {
        ApproxDp::new(self.eps(radius)?, self.delta)
    }

    fn eps_with(&self, radius: f64, convert: impl Fn(f64, f64) -> Result<f64>) -> Result<f64> {
        let p = non_negative("radius", radius)?;
        let linear = mul_up(self.eps_per_unit, p);
        let rho = mul_up(self.rho_per_unit_sq, mul_up(p, p));
        let quadratic = if rho > 0.0 {
            convert(rho, self.delta)?
        } else {
            0.0
        };
        Ok(add_up(linear, quadratic))
    }
}

impl Compose for MetricDp {
    /// # Privacy
    /// Slopes add (basic composition) and ρ adds (zCDP composition, BS16). δ is not a spent loss but
    /// the failure probability at which the composed zCDP part is converted (once), so the result keeps
    /// max(δ₁, δ₂): any δ ∈ (0, 1) is a valid conversion target for the total ρ.
    fn compose(&self, other: &Self) -> Result<Self> {
        Self::new(
            add_up(self.eps_per_unit, other.eps_per_unit),
            add_up(self.rho_per_unit_sq, other.rho_per_unit_sq),
            self.delta.max(other.delta),
        )
    }

    /// `times` identical releases: slope and ρ scale by `times`, δ is kept (the conversion target).
    fn compose_n(&self, times: u64) -> Result<Self> {
        let t = times as f64;
        Self::new(
            mul_up(t, self.eps_per_unit),
            mul_up(t, self.rho_per_unit_sq),
            self.delta,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn laplace_slope_and_validation() {
        let m = MetricDp::laplace(2.0).unwrap();
        assert_eq!(m.eps(3.0).unwrap(), 1.5);
        assert!(MetricDp::new(0.0, 1.0, 0.0).is_err());
        assert!(matches!(
            m.eps(-1.0),
            Err(crate::Error::InvalidParam { name: "radius", .. })
        ));
        assert!(MetricDp::gaussian(0.0, 1e-5).is_err());
    }
}
