//! Pure ε-DP and approximate (ε, δ)-DP.

use serde::Serialize;

use crate::Result;
use crate::error::{invalid, non_negative};
use crate::float::{add_up, mul_up};
use crate::measures::{Compose, RdpCurve, Zcdp};

/// Pure ε-differential privacy: P[M(x) ∈ S] ≤ e^ε · P[M(x') ∈ S] for neighbours x, x'
/// (Dwork–McSherry–Nissim–Smith 2006).
///
/// # Example
/// ```
/// use dp_core::measures::PureDp;
/// let p = PureDp::new(1.0)?;
/// assert_eq!(p.to_zcdp()?.rho(), 0.5);
/// assert!(PureDp::new(f64::NAN).is_err());
/// # Ok::<(), dp_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PureDp {
    eps: f64,
}

impl PureDp {
    /// An ε-DP guarantee.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`eps`) if ε is NaN, infinite or negative.
    pub fn new(eps: f64) -> Result<Self> {
        Ok(Self {
            eps: non_negative("eps", eps)?,
        })
    }

    /// The privacy loss ε.
    pub fn eps(&self) -> f64 {
        self.eps
    }

    /// The same guarantee as (ε, 0)-DP.
    pub fn to_approx(&self) -> ApproxDp {
        ApproxDp {
            eps: self.eps,
            delta: 0.0,
        }
    }

    /// The implied zCDP guarantee ρ = ε²/2, rounded up.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] if ε²/2 overflows.
    ///
    /// # Privacy
    /// Bun–Steinke 2016, Prop. 1.4: ε-DP implies (ε²/2)-zCDP.
    pub fn to_zcdp(&self) -> Result<Zcdp> {
        Zcdp::new(mul_up(mul_up(self.eps, self.eps), 0.5))
    }

    /// The implied RDP curve on `orders`: ε(α) = min(ε, α ε²/2).
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`orders`) for an empty grid or an order that is not a finite
    /// value > 1.
    ///
    /// # Privacy
    /// Mironov 2017, Prop. 3 (D_α ≤ D_∞ = ε) and Bun–Steinke 2016, Prop. 1.4 (D_α ≤ α ε²/2).
    pub fn to_rdp(&self, orders: &[f64]) -> Result<RdpCurve> {
        let half_sq = mul_up(mul_up(self.eps, self.eps), 0.5);
        let eps = orders
            .iter()
            .map(|&a| mul_up(a, half_sq).min(self.eps))
            .collect();
        RdpCurve::new(orders.to_vec(), eps)
    }
}

impl Compose for PureDp {
    /// # Privacy
    /// Basic composition (Dwork–Roth 2014, Thm. 3.16): ε₁ + ε₂, rounded up.
    fn compose(&self, other: &Self) -> Result<Self> {
        Self::new(add_up(self.eps, other.eps))
    }

    fn compose_n(&self, times: u64) -> Result<Self> {
        Self::new(mul_up(times as f64, self.eps))
    }
}

/// Approximate (ε, δ)-differential privacy: P[M(x) ∈ S] ≤ e^ε · P[M(x') ∈ S] + δ
/// (Dwork–Kenthapadi–McSherry–Mironov–Naor 2006).
///
/// # Example
/// ```
/// use dp_core::measures::ApproxDp;
/// let g = ApproxDp::new(1.0, 1e-5)?;
/// assert_eq!((g.eps(), g.delta()), (1.0, 1e-5));
/// assert!(ApproxDp::new(1.0, 1.0).is_err());
/// # Ok::<(), dp_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ApproxDp {
    eps: f64,
    delta: f64,
}

impl ApproxDp {
    /// An (ε, δ)-DP guarantee. δ = 0 is allowed (pure DP).
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] naming `eps` (NaN, infinite or negative) or `delta` (outside [0, 1)).
    pub fn new(eps: f64, delta: f64) -> Result<Self> {
        let eps = non_negative("eps", eps)?;
        if delta.is_nan() || !(0.0..1.0).contains(&delta) {
            return invalid("delta", delta, "must lie in [0, 1)");
        }
        Ok(Self { eps, delta })
    }

    /// The privacy loss ε.
    pub fn eps(&self) -> f64 {
        self.eps
    }

    /// The failure probability δ.
    pub fn delta(&self) -> f64 {
        self.delta
    }
}

impl Compose for ApproxDp {
    /// # Privacy
    /// Basic composition (Dwork–Roth 2014, Thm. 3.16): (ε₁ + ε₂, δ₁ + δ₂), rounded up.
    fn compose(&self, other: &Self) -> Result<Self> {
        Self::new(add_up(self.eps, other.eps), add_up(self.delta, other.delta))
    }

    fn compose_n(&self, times: u64) -> Result<Self> {
        let t = times as f64;
        Self::new(mul_up(t, self.eps), mul_up(t, self.delta))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn composition_adds_and_rounds_up() {
        let a = ApproxDp::new(0.1, 1e-6).unwrap();
        let b = ApproxDp::new(0.2, 2e-6).unwrap();
        let c = a.compose(&b).unwrap();
        assert!(c.eps() >= 0.3 - 1e-16 && c.eps() < 0.3 + 1e-15);
        assert!(c.delta() >= 3e-6 && c.delta() < 3e-6 * (1.0 + 1e-15));
        assert!(matches!(
            a.compose_n(u64::MAX),
            Err(crate::Error::InvalidParam { name: "delta", .. })
        ));
        let big = PureDp::new(f64::MAX).unwrap();
        assert!(matches!(
            big.compose(&big),
            Err(crate::Error::InvalidParam { name: "eps", .. })
        ));
        assert!(
            ApproxDp::new(0.1, 0.999_999_999)
                .unwrap()
                .compose(&a)
                .is_err()
        );
    }

    #[test]
    fn pure_to_rdp_is_the_smaller_bound() {
        let r = PureDp::new(2.0).unwrap().to_rdp(&[1.5, 10.0]).unwrap();
        assert_eq!(r.eps(), &[2.0, 2.0][..]);
        let r = PureDp::new(0.1).unwrap().to_rdp(&[2.0]).unwrap();
        assert!((r.eps()[0] - 0.01).abs() < 1e-15 && r.eps()[0] >= 0.01);
    }
}
