//! Rényi DP curves on a grid of orders.

use serde::Serialize;

use crate::Result;
use crate::conversions::{rdp_to_approx, rdp_to_approx_classic, rdp_to_delta};
use crate::error::{invalid, order};
use crate::float::{add_up, mul_up};
use crate::measures::Compose;

/// (α, ε(α))-Rényi DP for every order α of a grid: D_α(M(x) ‖ M(x')) ≤ ε(α) (Mironov 2017, Def. 4).
///
/// A value of `+∞` means "no guarantee at this order" (e.g. a tCDP curve above ω); NaN and negative
/// values are rejected.
///
/// # Example
/// ```
/// use dp_core::measures::RdpCurve;
/// let orders = vec![2.0, 4.0, 8.0];
/// let curve = RdpCurve::new(orders, vec![0.2, 0.4, 0.8])?; // 0.1-zCDP on three orders
/// let (eps, order) = curve.to_approx(1e-5)?;
/// assert_eq!(order, 8.0);
/// assert!((eps - (0.8 + (1.0f64 - 1.0 / 8.0).ln() - (1e-5f64 * 8.0).ln() / 7.0)).abs() < 1e-12);
/// # Ok::<(), dp_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RdpCurve {
    orders: Vec<f64>,
    eps: Vec<f64>,
}

impl RdpCurve {
    /// An RDP curve with `eps[i]` at order `orders[i]`.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] naming `orders` (empty, or an order that is not finite > 1) or
    /// `eps` (length differs from `orders`, NaN or negative value).
    pub fn new(orders: Vec<f64>, eps: Vec<f64>) -> Result<Self> {
        check_orders(&orders)?;
        if eps.len() != orders.len() {
            return invalid("eps", eps.len() as f64, "must have one value per order");
        }
        for &e in &eps {
            if e.is_nan() || e < 0.0 {
                return invalid("eps", e, "RDP values must be >= 0 (or +inf)");
            }
        }
        Ok(Self { orders, eps })
    }

    /// The orders α.
    pub fn orders(&self) -> &[f64] {
        &self.orders
    }

    /// The RDP values ε(α), one per order.
    pub fn eps(&self) -> &[f64] {
        &self.eps
    }

    /// (ε, δ)-DP and the optimal order, through the improved conversion
    /// ([`crate::conversions::rdp_to_approx`]).
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`delta`) if δ ∉ (0, 1).
    ///
    /// # Privacy
    /// CKS20 Prop. 12 (as dp_accounting's `RdpAccountant`).
    pub fn to_approx(&self, delta: f64) -> Result<(f64, f64)> {
        rdp_to_approx(&self.orders, &self.eps, delta)
    }

    /// (ε, δ)-DP and the optimal order, through the classic conversion
    /// ([`crate::conversions::rdp_to_approx_classic`]).
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`delta`) if δ ∉ (0, 1).
    ///
    /// # Privacy
    /// Mironov 2017, Prop. 3.
    pub fn to_approx_classic(&self, delta: f64) -> Result<(f64, f64)> {
        rdp_to_approx_classic(&self.orders, &self.eps, delta)
    }

    /// δ(ε) and the optimal order ([`crate::conversions::rdp_to_delta`]).
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`eps`) if ε is NaN, infinite or negative.
    ///
    /// # Privacy
    /// CKS20 Prop. 12, solved for δ (as dp_accounting).
    pub fn delta(&self, eps: f64) -> Result<(f64, f64)> {
        rdp_to_delta(&self.orders, &self.eps, eps)
    }

    /// The curve scaled by a non-negative factor (e.g. `times` identical releases).
    pub(crate) fn scaled(&self, factor: f64) -> Result<Self> {
        Self::new(
            self.orders.clone(),
            self.eps
                .iter()
                .map(|&e| {
                    if factor == 0.0 {
                        0.0
                    } else {
                        mul_up(factor, e)
                    }
                })
                .collect(),
        )
    }
}

/// Checks an order grid: non-empty, each order finite and > 1.
pub(crate) fn check_orders(orders: &[f64]) -> Result<()> {
    if orders.is_empty() {
        return invalid("orders", 0.0, "the order grid must not be empty");
    }
    for &a in orders {
        order("orders", a)?;
    }
    Ok(())
}

impl Compose for RdpCurve {
    /// # Privacy
    /// Mironov 2017, Prop. 1: RDP values add at each order, rounded up. Both curves must be on the
    /// identical grid.
    fn compose(&self, other: &Self) -> Result<Self> {
        if self.orders != other.orders {
            return invalid(
                "orders",
                other.orders.len() as f64,
                "RDP curves compose only on the identical order grid",
            );
        }
        Self::new(
            self.orders.clone(),
            self.eps
                .iter()
                .zip(&other.eps)
                .map(|(&a, &b)| add_up(a, b))
                .collect(),
        )
    }

    fn compose_n(&self, times: u64) -> Result<Self> {
        self.scaled(times as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_and_composition() {
        assert!(matches!(
            RdpCurve::new(vec![], vec![]),
            Err(crate::Error::InvalidParam { name: "orders", .. })
        ));
        assert!(RdpCurve::new(vec![1.0], vec![0.1]).is_err());
        assert!(RdpCurve::new(vec![2.0], vec![f64::NAN]).is_err());
        assert!(RdpCurve::new(vec![2.0], vec![0.1, 0.2]).is_err());
        let a = RdpCurve::new(vec![2.0, 3.0], vec![0.1, f64::INFINITY]).unwrap();
        let b = a.compose(&a).unwrap();
        assert_eq!(b.eps()[1], f64::INFINITY);
        assert!(b.eps()[0] >= 0.2);
        let c = RdpCurve::new(vec![2.0, 4.0], vec![0.1, 0.1]).unwrap();
        assert!(a.compose(&c).is_err());
        assert_eq!(a.compose_n(0).unwrap().eps()[0], 0.0);
    }
}
