//! Exact discrete Laplace sampler (Canonne–Kamath–Steinke 2020, Algorithm 2).

use rand::Rng;

use super::bernoulli_exp::{bernoulli_exp_minus_one, bernoulli_exp_unit};
use super::uniform::{below_u64, fair_bit};
use crate::Result;
use crate::error::{invalid, positive};

/// Largest numerator or denominator accepted for the scale (2⁶²).
const MAX_PART: u64 = 1 << 62;

/// Exact sampler of the discrete Laplace distribution on ℤ with rational scale b = `num`/`den`:
/// P[Y = y] ∝ exp(−|y|/b).
///
/// # Privacy
/// Adding it to an integer query with sensitivity Δ is (Δ/b)-DP (Canonne–Kamath–Steinke 2020, §2;
/// Ghosh–Roughgarden–Sundararajan 2009). Sampling is exact (CKS20 Algorithm 2, integer arithmetic only).
///
/// # Example
/// ```
/// use dp_core::samplers::DiscreteLaplace;
/// let lap = DiscreteLaplace::from_scale(2.5)?;
/// assert!(lap.scale() >= 2.5);
/// let mut rng = dp_core::rng::seeded_rng(2);
/// let y: i64 = lap.sample(&mut rng);
/// assert!(y.abs() < 1000);
/// # Ok::<(), dp_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiscreteLaplace {
    num: u64,
    den: u64,
}

impl DiscreteLaplace {
    /// Scale b = `scale_num` / `scale_den`.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] naming `scale_num` or `scale_den` if one is 0 or above 2⁶².
    pub fn new(scale_num: u64, scale_den: u64) -> Result<Self> {
        if scale_num == 0 || scale_num > MAX_PART {
            return invalid("scale_num", scale_num as f64, "must lie in [1, 2^62]");
        }
        if scale_den == 0 || scale_den > MAX_PART {
            return invalid("scale_den", scale_den as f64, "must lie in [1, 2^62]");
        }
        Ok(Self {
            num: scale_num,
            den: scale_den,
        })
    }

    /// The smallest scale of the form m/2^j (m ≤ 2⁵³, j ≤ 62) that is ≥ `scale`: rounding up adds
    /// noise, so the privacy of [`DiscreteLaplace::scale`] ≥ `scale` holds.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`scale`) if it is not finite and > 0, or above 2⁵³.
    pub fn from_scale(scale: f64) -> Result<Self> {
        let scale = positive("scale", scale)?;
        let limit = (1u64 << 53) as f64;
        if scale > limit {
            return invalid("scale", scale, "must be <= 2^53 for the exact sampler");
        }
        let mut j = 62;
        while scale * (1u64 << j) as f64 > limit {
            j -= 1;
        }
        // scale·2^j is exact (power-of-two scaling) and ≤ 2^53, so its ceiling is an exact integer.
        let num = (scale * (1u64 << j) as f64).ceil() as u64;
        Self::new(num.max(1), 1u64 << j)
    }

    /// The scale b as a double (rounded to nearest).
    pub fn scale(&self) -> f64 {
        self.num as f64 / self.den as f64
    }

    /// The scale as the exact fraction (numerator, denominator).
    pub fn scale_ratio(&self) -> (u64, u64) {
        (self.num, self.den)
    }

    /// One draw.
    ///
    /// CKS20 Algorithm 2 with t = `num`, s = `den`: U ~ Unif{0..t−1}, accept with Bernoulli(e^(−U/t));
    /// V ~ Geometric(1 − e⁻¹); X = U + tV; Y = ⌊X/s⌋; a fair sign, rejecting "−0". A |Y| above
    /// `i64::MAX` (probability below e^(−2⁶⁰)) is rejected as well.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> i64 {
        let (t, s) = (self.num, self.den);
        loop {
            let u = below_u64(rng, t);
            if !bernoulli_exp_unit(rng, u128::from(u), u128::from(t)) {
                continue;
            }
            let mut v: u128 = 0;
            while bernoulli_exp_minus_one(rng) {
                v += 1;
            }
            let x = u128::from(u) + u128::from(t) * v;
            let y = x / u128::from(s);
            let negative = fair_bit(rng);
            if negative && y == 0 {
                continue;
            }
            let Ok(y) = i64::try_from(y) else { continue };
            return if negative { -y } else { y };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_is_rounded_up_and_validated() {
        let l = DiscreteLaplace::from_scale(0.1).unwrap();
        assert!(l.scale() >= 0.1);
        let (n, d) = l.scale_ratio();
        assert!(u128::from(n) * 10 >= u128::from(d)); // n/d ≥ 1/10 exactly
        assert_eq!(DiscreteLaplace::from_scale(3.0).unwrap().scale(), 3.0);
        assert!(DiscreteLaplace::from_scale(0.0).is_err());
        assert!(DiscreteLaplace::from_scale(1e300).is_err());
        assert!(matches!(
            DiscreteLaplace::new(0, 1),
            Err(crate::Error::InvalidParam {
                name: "scale_num",
                ..
            })
        ));
    }
}
