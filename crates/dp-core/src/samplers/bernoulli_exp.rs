//! Exact Bernoulli(exp(−γ)) for rational γ ≥ 0 (Canonne–Kamath–Steinke 2020, Algorithm 1).

use rand::Rng;

use super::uniform::{below_u64, bernoulli_ratio};
use crate::Result;
use crate::error::invalid;

/// Exact sampler of Bernoulli(exp(−γ)) for a rational γ = `num`/`den` ≥ 0.
///
/// # Privacy
/// Canonne–Kamath–Steinke 2020, Algorithm 1: only integer comparisons of uniform draws, no floating
/// point, so the output is exactly Bernoulli(exp(−γ)).
///
/// # Example
/// ```
/// use dp_core::samplers::BernoulliExp;
/// let b = BernoulliExp::new(1, 2)?; // exp(−1/2) ≈ 0.6065
/// let mut rng = dp_core::rng::seeded_rng(5);
/// let n = 4000;
/// let hits = (0..n).filter(|_| b.sample(&mut rng)).count() as f64;
/// let p = (-0.5f64).exp();
/// assert!((hits / n as f64 - p).abs() < 5.0 * (p * (1.0 - p) / n as f64).sqrt());
/// # Ok::<(), dp_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BernoulliExp {
    num: u64,
    den: u64,
}

impl BernoulliExp {
    /// Bernoulli(exp(−num/den)).
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`den`) if `den` is 0.
    pub fn new(num: u64, den: u64) -> Result<Self> {
        if den == 0 {
            return invalid("den", 0.0, "the denominator of gamma must be >= 1");
        }
        Ok(Self { num, den })
    }

    /// One draw.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> bool {
        let (q, r) = (self.num / self.den, self.num % self.den);
        bernoulli_exp_split(rng, u128::from(q), u128::from(r), u128::from(self.den))
    }
}

/// Bernoulli(exp(−γ)) for γ = num/den ∈ [0, 1] (CKS20 Algorithm 1, first branch):
/// K ← 1; while Bernoulli(γ/K) { K ← K + 1 }; return K odd.
pub(crate) fn bernoulli_exp_unit<R: Rng + ?Sized>(rng: &mut R, num: u128, den: u128) -> bool {
    let mut k: u64 = 1;
    // Bernoulli(γ/K) = Bernoulli(num/den) ∧ Bernoulli(1/K), independent draws (no overflow of den·K).
    while bernoulli_ratio(rng, num, den) && below_u64(rng, k) == 0 {
        k += 1;
    }
    k % 2 == 1
}

/// Bernoulli(exp(−1)).
pub(crate) fn bernoulli_exp_minus_one<R: Rng + ?Sized>(rng: &mut R) -> bool {
    bernoulli_exp_unit(rng, 1, 1)
}

/// Bernoulli(exp(−(q + r/den))) with r < den: ⌊γ⌋ = q draws of Bernoulli(e⁻¹), then
/// Bernoulli(exp(−r/den)) (CKS20 Algorithm 1, second branch).
pub(crate) fn bernoulli_exp_split<R: Rng + ?Sized>(
    rng: &mut R,
    q: u128,
    r: u128,
    den: u128,
) -> bool {
    let mut i = 0u128;
    while i < q {
        if !bernoulli_exp_minus_one(rng) {
            return false;
        }
        i += 1;
    }
    bernoulli_exp_unit(rng, r, den)
}

/// Bernoulli(exp(−a²/den)), computing ⌊a²/den⌋ and a² mod den exactly in 256-bit arithmetic.
///
/// If ⌊a²/den⌋ ≥ 2¹²⁸ the draw runs Bernoulli(e⁻¹) trials until the first failure and returns `false`;
/// this differs from the exact distribution only on the event of 2¹²⁸ consecutive successes
/// (probability e^(−2¹²⁸)).
pub(crate) fn bernoulli_exp_square<R: Rng + ?Sized>(rng: &mut R, a: u128, den: u128) -> bool {
    match mul_divrem(a, a, den) {
        Some((q, r)) => bernoulli_exp_split(rng, q, r, den),
        None => {
            while bernoulli_exp_minus_one(rng) {}
            false
        }
    }
}

/// ⌊a·b/d⌋ and a·b mod d for d ≥ 1, or `None` if the quotient does not fit in 128 bits.
pub(crate) fn mul_divrem(a: u128, b: u128, d: u128) -> Option<(u128, u128)> {
    let (hi, lo) = widening_mul(a, b);
    if hi == 0 {
        return Some((lo / d, lo % d));
    }
    if hi >= d {
        return None;
    }
    // Long division of (hi, lo) by d, one bit at a time; the remainder stays < d.
    let (mut rem, mut quo) = (hi, 0u128);
    for i in (0..128).rev() {
        let carry = rem >> 127;
        rem = (rem << 1) | ((lo >> i) & 1);
        quo <<= 1;
        if carry == 1 || rem >= d {
            rem = rem.wrapping_sub(d);
            quo |= 1;
        }
    }
    Some((quo, rem))
}

/// The 256-bit product a·b as (high, low) 128-bit words.
fn widening_mul(a: u128, b: u128) -> (u128, u128) {
    let mask = u128::from(u64::MAX);
    let (a1, a0) = (a >> 64, a & mask);
    let (b1, b0) = (b >> 64, b & mask);
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    let mid = (p00 >> 64) + (p01 & mask) + (p10 & mask);
    let lo = (p00 & mask) | (mid << 64);
    let hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
    (hi, lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_division_matches_narrow_division() {
        assert_eq!(mul_divrem(7, 9, 4), Some((15, 3)));
        let a = 1u128 << 70;
        // a² = 2^140; / 2^20 = 2^120.
        assert_eq!(mul_divrem(a, a, 1 << 20), Some((1u128 << 120, 0)));
        // (2^70 + 1)² / (2^20 + 3), checked against Python's big integers.
        let b = a + 1;
        assert_eq!(
            mul_divrem(b, b, (1 << 20) + 3),
            Some((1329224192843995489465594461916515032, 991097))
        );
        assert_eq!(mul_divrem(u128::MAX, u128::MAX, 2), None);
    }

    #[test]
    fn bernoulli_exp_rejects_zero_denominator_and_handles_extremes() {
        assert!(matches!(
            BernoulliExp::new(1, 0),
            Err(crate::Error::InvalidParam { name: "den", .. })
        ));
        let mut rng = crate::rng::seeded_rng(11);
        let always = BernoulliExp::new(0, 1).unwrap();
        assert!((0..100).all(|_| always.sample(&mut rng)));
        let never = BernoulliExp::new(200, 1).unwrap(); // exp(−200) ≈ 1e−87
        assert!((0..100).all(|_| !never.sample(&mut rng)));
        assert!((0..10).all(|_| !bernoulli_exp_square(&mut rng, u128::MAX, 1)));
    }
}
