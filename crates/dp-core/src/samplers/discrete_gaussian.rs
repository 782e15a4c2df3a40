//! Exact discrete Gaussian sampler (Canonne–Kamath–Steinke 2020, Algorithm 3).

use rand::Rng;

use super::bernoulli_exp::bernoulli_exp_square;
use super::discrete_laplace::DiscreteLaplace;
use crate::Result;
use crate::error::{invalid, positive};
use crate::float::mul_up;

/// Largest numerator or denominator of σ² (2⁴⁰): keeps every intermediate of the algorithm within
/// 128 bits (with a 256-bit product for γ).
const MAX_PART: u64 = 1 << 40;

/// Exact sampler of the discrete Gaussian on ℤ with rational σ² = `num`/`den`:
/// P[Y = y] ∝ exp(−y²/(2σ²)).
///
/// # Privacy
/// Adding it to an integer query with ℓ₂ sensitivity Δ is Δ²/(2σ²)-zCDP (Canonne–Kamath–Steinke 2020,
/// Thm. 4). Sampling is exact (CKS20 Algorithm 3: discrete Laplace proposals with t = ⌊σ⌋ + 1, accepted
/// with Bernoulli(exp(−(|Y| − σ²/t)²/(2σ²))), all in integer arithmetic).
///
/// # Example
/// ```
/// use dp_core::samplers::DiscreteGaussian;
/// let dg = DiscreteGaussian::from_sigma(3.0)?;
/// assert_eq!(dg.sigma_sq(), 9.0);
/// let mut rng = dp_core::rng::seeded_rng(4);
/// assert!(dg.sample(&mut rng).abs() < 100);
/// # Ok::<(), dp_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiscreteGaussian {
    num: u64,
    den: u64,
    /// t = ⌊σ⌋ + 1, the scale of the Laplace proposal.
    t: u64,
}

impl DiscreteGaussian {
    /// σ² = `sigma_sq_num` / `sigma_sq_den`.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] naming `sigma_sq_num` or `sigma_sq_den` if one is 0 or above 2⁴⁰.
    pub fn new(sigma_sq_num: u64, sigma_sq_den: u64) -> Result<Self> {
        if sigma_sq_num == 0 || sigma_sq_num > MAX_PART {
            return invalid("sigma_sq_num", sigma_sq_num as f64, "must lie in [1, 2^40]");
        }
        if sigma_sq_den == 0 || sigma_sq_den > MAX_PART {
            return invalid("sigma_sq_den", sigma_sq_den as f64, "must lie in [1, 2^40]");
        }
        let (n, d) = (u128::from(sigma_sq_num), u128::from(sigma_sq_den));
        // ⌊σ⌋ = ⌊√(n/d)⌋ = ⌊⌊√(nd)⌋ / d⌋.
        let floor_sigma = (n * d).isqrt() / d;
        let t = u64::try_from(floor_sigma + 1).expect("t <= 2^20 + 1 by the bounds on n and d");
        Ok(Self {
            num: sigma_sq_num,
            den: sigma_sq_den,
            t,
        })
    }

    /// The smallest σ² of the form m/2^j (m ≤ 2⁴⁰, j ≤ 39) that is ≥ `sigma`²: more noise than asked,
    /// so the privacy computed from `sigma` holds.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`sigma`) if σ is not finite and > 0, or σ² ≥ 2⁴⁰.
    pub fn from_sigma(sigma: f64) -> Result<Self> {
        let sigma = positive("sigma", sigma)?;
        let var = mul_up(sigma, sigma);
        let limit = MAX_PART as f64;
        if var > limit {
            return invalid(
                "sigma",
                sigma,
                "sigma^2 must be <= 2^40 for the exact sampler",
            );
        }
        let mut j = 39;
        while j > 0 && (var * (1u64 << j) as f64).ceil() > limit {
            j -= 1;
        }
        let num = (var * (1u64 << j) as f64).ceil() as u64;
        Self::new(num.max(1), 1u64 << j)
    }

    /// σ² as a double (rounded to nearest).
    pub fn sigma_sq(&self) -> f64 {
        self.num as f64 / self.den as f64
    }

    /// σ² as the exact fraction (numerator, denominator).
    pub fn sigma_sq_ratio(&self) -> (u64, u64) {
        (self.num, self.den)
    }

    /// One draw (CKS20 Algorithm 3).
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> i64 {
        let proposal = DiscreteLaplace::new(self.t, 1).expect("1 <= t <= 2^20 + 1");
        let (n, d, t) = (
            u128::from(self.num),
            u128::from(self.den),
            u128::from(self.t),
        );
        // γ = (|Y| − σ²/t)² / (2σ²) = (|Y|·d·t − n)² / (2·n·d·t²).
        let gamma_den = 2 * n * d * t * t;
        loop {
            let y = proposal.sample(rng);
            let scaled = u128::from(y.unsigned_abs()) * d * t;
            let a = scaled.abs_diff(n);
            if bernoulli_exp_square(rng, a, gamma_den) {
                return y;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_round_up_and_validate() {
        let g = DiscreteGaussian::from_sigma(0.3).unwrap();
        let (n, d) = g.sigma_sq_ratio();
        assert!(n as f64 / d as f64 >= 0.09);
        assert_eq!(DiscreteGaussian::new(9, 4).unwrap().t, 2); // ⌊1.5⌋ + 1
        assert_eq!(DiscreteGaussian::new(4, 1).unwrap().t, 3); // ⌊2⌋ + 1
        assert!(DiscreteGaussian::from_sigma(f64::INFINITY).is_err());
        assert!(DiscreteGaussian::from_sigma(2e6).is_err());
        assert!(matches!(
            DiscreteGaussian::new(1, 0),
            Err(crate::Error::InvalidParam {
                name: "sigma_sq_den",
                ..
            })
        ));
    }
}
