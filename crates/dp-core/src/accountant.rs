//! The Rényi DP accountant, mirroring Google's dp_accounting `RdpAccountant` (version 0.6.0).

use crate::Result;
use crate::conversions::{rdp_to_approx, rdp_to_approx_classic, rdp_to_delta};
use crate::error::positive;
use crate::float::{add_up, div_up, mul_down, mul_up};
use crate::measures::{Compose, RdpCurve, Zcdp, check_orders};

/// dp_accounting's `DEFAULT_RDP_ORDERS`: 1 + x/10 for x in 1..=99, then 11..=63, 128, 256, 512, 1024.
///
/// # Example
/// ```
/// let orders = dp_core::accountant::default_orders();
/// assert_eq!(orders.len(), 156);
/// assert_eq!((orders[0], orders[155]), (1.1, 1024.0));
/// ```
pub fn default_orders() -> Vec<f64> {
    let mut orders: Vec<f64> = (1..100).map(|x| 1.0 + f64::from(x) / 10.0).collect();
    orders.extend((11..64).map(f64::from));
    orders.extend([128.0, 256.0, 512.0, 1024.0]);
    orders
}

/// Accumulates the RDP curve of a sequence of releases on a fixed order grid and converts it to
/// (ε, δ)-DP, as dp_accounting's `RdpAccountant` (so its results match to 1e-9 relative).
///
/// # Example
/// ```
/// use dp_core::accountant::RdpAccountant;
/// let mut acc = RdpAccountant::new();
/// acc.compose_gaussian(1.1, 1)?;
/// let (eps, order) = acc.epsilon(1e-3)?;
/// assert!((eps - 3.1506203703277533).abs() < 1e-8 && order == 4.6);
/// # Ok::<(), dp_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct RdpAccountant {
    orders: Vec<f64>,
    rdp: Vec<f64>,
}

impl Default for RdpAccountant {
    fn default() -> Self {
        Self::new()
    }
}

impl RdpAccountant {
    /// An empty accountant on [`default_orders`].
    pub fn new() -> Self {
        let orders = default_orders();
        let rdp = vec![0.0; orders.len()];
        Self { orders, rdp }
    }

    /// An empty accountant on a custom order grid.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`orders`) for an empty grid or an order that is not finite > 1.
    pub fn with_orders(orders: Vec<f64>) -> Result<Self> {
        check_orders(&orders)?;
        let rdp = vec![0.0; orders.len()];
        Ok(Self { orders, rdp })
    }

    /// The order grid.
    pub fn orders(&self) -> &[f64] {
        &self.orders
    }

    /// The accumulated RDP curve.
    pub fn curve(&self) -> RdpCurve {
        RdpCurve::new(self.orders.clone(), self.rdp.clone())
            .expect("the accountant keeps a validated grid and non-negative values")
    }

    /// Adds `count` releases of the Gaussian mechanism with noise multiplier σ/Δ (no subsampling).
    ///
    /// # Arguments
    /// * `noise_multiplier` — σ divided by the ℓ₂ sensitivity; finite and > 0.
    /// * `count` — number of releases (0 adds nothing).
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`noise_multiplier`).
    ///
    /// # Privacy
    /// Mironov 2017, Prop. 7: ε(α) = α/(2 z²) per release, added `count` times (Prop. 1); rounded up.
    pub fn compose_gaussian(&mut self, noise_multiplier: f64, count: u64) -> Result<&mut Self> {
        let z = positive("noise_multiplier", noise_multiplier)?;
        // 2z² rounded down, so the quotient is rounded up.
        let denom = 2.0 * mul_down(z, z);
        self.add(|a| mul_up(div_up(a, denom), count as f64))
    }

    /// Adds `count` Gaussian releases with standard deviation `sigma` of a function with ℓ₂ sensitivity
    /// `sensitivity` (same as noise multiplier σ/Δ, without rounding the ratio).
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] naming `sigma` or `sensitivity` (finite and > 0).
    ///
    /// # Privacy
    /// Mironov 2017, Prop. 7: ε(α) = αΔ²/(2σ²) per release; rounded up.
    pub fn compose_gaussian_with_sensitivity(
        &mut self,
        sigma: f64,
        sensitivity: f64,
        count: u64,
    ) -> Result<&mut Self> {
        let sigma = positive("sigma", sigma)?;
        let sens = positive("sensitivity", sensitivity)?;
        let rho = Zcdp::new(div_up(mul_up(sens, sens), 2.0 * mul_down(sigma, sigma)))?;
        self.compose_zcdp(&rho, count)
    }

    /// Adds `count` releases of a ρ-zCDP mechanism (ε(α) = ρα).
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] if the accumulated curve overflows.
    ///
    /// # Privacy
    /// Bun–Steinke 2016, Def. 1.1; composition by Mironov 2017, Prop. 1.
    pub fn compose_zcdp(&mut self, zcdp: &Zcdp, count: u64) -> Result<&mut Self> {
        let rho = zcdp.rho();
        self.add(|a| mul_up(mul_up(a, rho), count as f64))
    }

    /// Adds an RDP curve given on the same order grid.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`orders`) if the curve's grid differs from the accountant's.
    ///
    /// # Privacy
    /// Mironov 2017, Prop. 1.
    pub fn compose_curve(&mut self, curve: &RdpCurve) -> Result<&mut Self> {
        let sum = self.curve().compose(curve)?;
        self.rdp = sum.eps().to_vec();
        Ok(self)
    }

    fn add(&mut self, per_order: impl Fn(f64) -> f64) -> Result<&mut Self> {
        let new: Vec<f64> = self
            .orders
            .iter()
            .zip(&self.rdp)
            .map(|(&a, &r)| add_up(r, per_order(a)))
            .collect();
        self.rdp = RdpCurve::new(self.orders.clone(), new)?.eps().to_vec();
        Ok(self)
    }

    /// The smallest ε (and its order) such that the composed releases are (ε, δ)-DP, with the
    /// improved conversion of dp_accounting's `get_epsilon_and_optimal_order`.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`delta`) if δ ∉ (0, 1).
    ///
    /// # Privacy
    /// CKS20 Prop. 12 via [`crate::conversions::rdp_to_approx`].
    pub fn epsilon(&self, delta: f64) -> Result<(f64, f64)> {
        rdp_to_approx(&self.orders, &self.rdp, delta)
    }

    /// ε and its order through the classic conversion (Mironov 2017, Prop. 3).
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`delta`) if δ ∉ (0, 1).
    ///
    /// # Privacy
    /// Mironov 2017, Prop. 3 via [`crate::conversions::rdp_to_approx_classic`].
    pub fn epsilon_classic(&self, delta: f64) -> Result<(f64, f64)> {
        rdp_to_approx_classic(&self.orders, &self.rdp, delta)
    }

    /// The smallest δ (and its order) such that the composed releases are (ε, δ)-DP, as dp_accounting's
    /// `get_delta_and_optimal_order`.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`eps`) if ε is NaN, infinite or negative.
    ///
    /// # Privacy
    /// CKS20 Prop. 12 solved for δ via [`crate::conversions::rdp_to_delta`].
    pub fn delta(&self, eps: f64) -> Result<(f64, f64)> {
        rdp_to_delta(&self.orders, &self.rdp, eps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_accountant_is_free_and_bad_input_is_rejected() {
        let acc = RdpAccountant::new();
        assert_eq!(acc.epsilon(1e-5).unwrap().0, 0.0);
        let mut acc = RdpAccountant::new();
        assert!(matches!(
            acc.compose_gaussian(0.0, 1),
            Err(crate::Error::InvalidParam {
                name: "noise_multiplier",
                ..
            })
        ));
        assert!(acc.compose_gaussian(f64::NAN, 1).is_err());
        assert!(RdpAccountant::with_orders(vec![]).is_err());
        assert!(acc.epsilon(0.0).is_err());
        let other = RdpCurve::new(vec![2.0], vec![0.1]).unwrap();
        assert!(acc.compose_curve(&other).is_err());
    }

    #[test]
    fn sensitivity_form_equals_noise_multiplier_form() {
        let mut a = RdpAccountant::new();
        a.compose_gaussian(2.0, 50).unwrap();
        let mut b = RdpAccountant::new();
        b.compose_gaussian_with_sensitivity(4.0, 2.0, 50).unwrap();
        let (ea, oa) = a.epsilon(1e-5).unwrap();
        let (eb, ob) = b.epsilon(1e-5).unwrap();
        assert_eq!(oa, ob);
        assert!((ea - eb).abs() < 1e-12 * ea);
    }
}
