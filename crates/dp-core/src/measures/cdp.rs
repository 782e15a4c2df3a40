//! Concentrated DP: zero-concentrated (zCDP) and truncated (tCDP).

use serde::Serialize;

use crate::Result;
use crate::conversions::{tcdp_to_approx, zcdp_to_approx, zcdp_to_approx_cks};
use crate::error::{invalid, non_negative};
use crate::float::{add_up, mul_up};
use crate::measures::{ApproxDp, Compose, RdpCurve};

/// ρ-zero-concentrated DP: D_α(M(x) ‖ M(x')) ≤ ρα for every order α > 1 (Bun–Steinke 2016, Def. 1.1).
///
/// # Example
/// ```
/// use dp_core::measures::Zcdp;
/// let z = Zcdp::new(1.0 / 32.0)?;
/// let dp = z.to_approx(1e-3)?; // Canonne–Kamath–Steinke 2020 conversion
/// assert!((dp.eps() - 0.6880024554878085).abs() < 1e-12);
/// # Ok::<(), dp_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Zcdp {
    rho: f64,
}

impl Zcdp {
    /// A ρ-zCDP guarantee.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`rho`) if ρ is NaN, infinite or negative.
    pub fn new(rho: f64) -> Result<Self> {
        Ok(Self {
            rho: non_negative("rho", rho)?,
        })
    }

    /// The parameter ρ.
    pub fn rho(&self) -> f64 {
        self.rho
    }

    /// (ε, δ)-DP through the tighter Canonne–Kamath–Steinke conversion (see
    /// [`crate::conversions::zcdp_to_approx_cks`]).
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`delta`) if δ ∉ (0, 1).
    ///
    /// # Privacy
    /// CKS20 Prop. 12 / Cor. 13 applied to D_α ≤ ρα.
    pub fn to_approx(&self, delta: f64) -> Result<ApproxDp> {
        if self.rho == 0.0 {
            crate::error::open_unit("delta", delta)?;
            return ApproxDp::new(0.0, delta);
        }
        ApproxDp::new(zcdp_to_approx_cks(self.rho, delta)?.0, delta)
    }

    /// (ε, δ)-DP through the standard closed form ε = ρ + 2√(ρ ln(1/δ)).
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`delta`) if δ ∉ (0, 1).
    ///
    /// # Privacy
    /// Bun–Steinke 2016, Prop. 1.3.
    pub fn to_approx_bs16(&self, delta: f64) -> Result<ApproxDp> {
        if self.rho == 0.0 {
            crate::error::open_unit("delta", delta)?;
            return ApproxDp::new(0.0, delta);
        }
        ApproxDp::new(zcdp_to_approx(self.rho, delta)?, delta)
    }

    /// The RDP curve ε(α) = ρα on `orders`.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`orders`) for an empty grid or an order that is not finite > 1.
    ///
    /// # Privacy
    /// Bun–Steinke 2016, Def. 1.1 (zCDP is RDP at every order).
    pub fn to_rdp(&self, orders: &[f64]) -> Result<RdpCurve> {
        let eps = orders.iter().map(|&a| mul_up(a, self.rho)).collect();
        RdpCurve::new(orders.to_vec(), eps)
    }
}

impl Compose for Zcdp {
    /// # Privacy
    /// Bun–Steinke 2016, composition lemma (Lemma 1.7): ρ₁ + ρ₂, rounded up.
    fn compose(&self, other: &Self) -> Result<Self> {
        Self::new(add_up(self.rho, other.rho))
    }

    fn compose_n(&self, times: u64) -> Result<Self> {
        Self::new(mul_up(times as f64, self.rho))
    }
}

/// (ρ, ω)-truncated CDP: D_α(M(x) ‖ M(x')) ≤ ρα for every α ∈ (1, ω]
/// (Bun–Dwork–Rothblum–Steinke 2018, Def. 1). ω = ∞ is allowed and is ρ-zCDP.
///
/// # Example
/// ```
/// use dp_core::measures::{Compose, Tcdp};
/// let t = Tcdp::new(0.1, 10.0)?.compose(&Tcdp::new(0.05, 5.0)?)?;
/// assert!((t.rho() - 0.15).abs() < 1e-15 && t.omega() == 5.0);
/// assert!(Tcdp::new(0.1, 1.0).is_err());
/// # Ok::<(), dp_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Tcdp {
    rho: f64,
    omega: f64,
}

impl Tcdp {
    /// A (ρ, ω)-tCDP guarantee.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] naming `rho` (NaN, infinite or negative) or `omega` (NaN or ≤ 1).
    pub fn new(rho: f64, omega: f64) -> Result<Self> {
        let rho = non_negative("rho", rho)?;
        if omega.is_nan() || omega <= 1.0 {
            return invalid("omega", omega, "must be > 1 (may be +inf)");
        }
        Ok(Self { rho, omega })
    }

    /// The parameter ρ.
    pub fn rho(&self) -> f64 {
        self.rho
    }

    /// The truncation order ω.
    pub fn omega(&self) -> f64 {
        self.omega
    }

    /// (ε, δ)-DP through [`crate::conversions::tcdp_to_approx`].
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`delta`) if δ ∉ (0, 1).
    ///
    /// # Privacy
    /// Bun–Dwork–Rothblum–Steinke 2018, tCDP → (ε, δ)-DP conversion.
    pub fn to_approx(&self, delta: f64) -> Result<ApproxDp> {
        if self.rho == 0.0 {
            crate::error::open_unit("delta", delta)?;
            return ApproxDp::new(0.0, delta);
        }
        ApproxDp::new(tcdp_to_approx(self.rho, self.omega, delta)?.0, delta)
    }

    /// The RDP curve on `orders`: ρα for α ≤ ω, +∞ (no guarantee) above ω.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`orders`) for an empty grid or an order that is not finite > 1.
    ///
    /// # Privacy
    /// BDRS18, Def. 1.
    pub fn to_rdp(&self, orders: &[f64]) -> Result<RdpCurve> {
        let eps = orders
            .iter()
            .map(|&a| {
                if a <= self.omega {
                    mul_up(a, self.rho)
                } else {
                    f64::INFINITY
                }
            })
            .collect();
        RdpCurve::new(orders.to_vec(), eps)
    }
}

impl Compose for Tcdp {
    /// # Privacy
    /// BDRS18, composition of tCDP: (ρ₁ + ρ₂, min(ω₁, ω₂)), ρ rounded up.
    fn compose(&self, other: &Self) -> Result<Self> {
        Self::new(add_up(self.rho, other.rho), self.omega.min(other.omega))
    }

    fn compose_n(&self, times: u64) -> Result<Self> {
        Self::new(mul_up(times as f64, self.rho), self.omega)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_rho_converts_to_zero_eps() {
        assert_eq!(Zcdp::new(0.0).unwrap().to_approx(1e-6).unwrap().eps(), 0.0);
        assert!(Zcdp::new(0.0).unwrap().to_approx(0.0).is_err());
        assert_eq!(
            Tcdp::new(0.0, 2.0).unwrap().to_approx(1e-6).unwrap().eps(),
            0.0
        );
    }

    #[test]
    fn tcdp_rdp_is_infinite_above_omega() {
        let r = Tcdp::new(0.5, 4.0)
            .unwrap()
            .to_rdp(&[2.0, 4.0, 8.0])
            .unwrap();
        assert_eq!(r.eps(), &[1.0, 2.0, f64::INFINITY][..]);
        assert!(Tcdp::new(0.5, f64::NAN).is_err());
        assert!(Tcdp::new(0.5, f64::INFINITY).is_ok());
    }
}
