//! Randomized response over k ≥ 2 values (binary and k-ary).

use rand::CryptoRng;

use crate::Result;
use crate::error::{invalid, positive};
use crate::float::inflate;
use crate::measures::PureDp;
use crate::samplers::below_u64;

/// Parameters of k-ary randomized response: ε and the number of categories k (default 2).
///
/// # Example
/// ```
/// use dp_core::mechanisms::RandomizedResponseParams;
/// let rr = RandomizedResponseParams::new(0.1).check()?;
/// assert!((rr.keep_prob() - 0.52497918747894).abs() < 1e-12);
/// let rr3 = RandomizedResponseParams::new(0.1).categories(3).check()?;
/// assert!((rr3.other_prob() - 0.3220434643963898).abs() < 1e-12);
/// # Ok::<(), dp_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RandomizedResponseParams {
    eps: f64,
    categories: u64,
}

impl RandomizedResponseParams {
    /// Binary randomized response with privacy loss `eps`.
    pub fn new(eps: f64) -> Self {
        Self { eps, categories: 2 }
    }

    /// Sets the number of categories k (values 0..k).
    pub fn categories(mut self, k: u64) -> Self {
        self.categories = k;
        self
    }

    /// Validates the parameters.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] naming `eps` (not finite and > 0) or `categories` (< 2).
    pub fn check(&self) -> Result<RandomizedResponse> {
        let eps = positive("eps", self.eps)?;
        let k = self.categories;
        if k < 2 {
            return invalid("categories", k as f64, "must be >= 2");
        }
        let km1 = (k - 1) as f64;
        let e_neg = (-eps).exp();
        let keep = 1.0 / (1.0 + km1 * e_neg);
        let other = e_neg / (1.0 + km1 * e_neg);
        // P[keep] is realised exactly as threshold / 2^64.
        let threshold = (keep * 2f64.powi(64)) as u64;
        if threshold == 0 {
            return invalid("eps", eps, "keep probability underflows");
        }
        // Realised loss ln(P[keep] / P[each other]) = ln(threshold·(k−1) / (2^64 − threshold)).
        let num = u128::from(threshold) * u128::from(k - 1);
        let den = (1u128 << 64) - u128::from(threshold);
        let realised = inflate((num as f64 / den as f64).ln(), 2.0);
        Ok(RandomizedResponse {
            eps,
            k,
            keep,
            other,
            threshold,
            implemented_eps: realised.max(eps),
        })
    }
}

/// Validated k-ary randomized response: report the true value with probability e^ε/(e^ε + k − 1), and
/// each other value with probability 1/(e^ε + k − 1).
///
/// # Privacy
/// ε-DP (Warner 1965; k-ary form of Kairouz–Oh–Viswanath 2016): the ratio of output probabilities under
/// two inputs is at most e^ε. The keep decision compares a 64-bit draw with an integer threshold, so the
/// realised ratio is known exactly and [`RandomizedResponse::pure_dp`] reports the larger of ε and it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RandomizedResponse {
    eps: f64,
    k: u64,
    keep: f64,
    other: f64,
    threshold: u64,
    implemented_eps: f64,
}

impl RandomizedResponse {
    /// Binary randomized response with privacy loss `eps` (the ε-edge RR of local edge-DP).
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`eps`) unless `eps` is finite and > 0.
    ///
    /// # Example
    /// ```
    /// let rr = dp_core::mechanisms::RandomizedResponse::binary(1.0)?;
    /// assert_eq!((rr.categories(), rr.eps()), (2, 1.0));
    /// # Ok::<(), dp_core::Error>(())
    /// ```
    pub fn binary(eps: f64) -> Result<Self> {
        RandomizedResponseParams::new(eps).check()
    }

    /// The ε it was built with (the guarantee is [`RandomizedResponse::pure_dp`]).
    pub fn eps(&self) -> f64 {
        self.eps
    }

    /// Binary randomized response on a bit known to be 1 (a true edge): kept with probability
    /// [`RandomizedResponse::keep_prob`], decided by one 64-bit draw against the integer threshold.
    ///
    /// # Privacy
    /// See [`RandomizedResponse::pure_dp`]. Exactly [`RandomizedResponse::release_bit`]`(true)` for
    /// k = 2, without its branch on k.
    pub fn keep<R: CryptoRng + ?Sized>(&self, rng: &mut R) -> bool {
        rng.next_u64() < self.threshold
    }

    /// The keep decision as a [`crate::samplers::Bernoulli`] with the same integer threshold (for
    /// samplers that decide many pairs at once).
    pub fn keep_trial(&self) -> crate::samplers::Bernoulli {
        crate::samplers::Bernoulli::from_threshold(self.threshold)
    }

    /// The number of categories k.
    pub fn categories(&self) -> u64 {
        self.k
    }

    /// P[output = input] = e^ε/(e^ε + k − 1).
    pub fn keep_prob(&self) -> f64 {
        self.keep
    }

    /// P[output = v] for each of the k − 1 values v ≠ input: 1/(e^ε + k − 1).
    pub fn other_prob(&self) -> f64 {
        self.other
    }

    /// P[output ≠ input] = (k − 1)/(e^ε + k − 1).
    pub fn flip_prob(&self) -> f64 {
        (self.k - 1) as f64 * self.other
    }

    /// The equivalent "replace by a uniform value with probability q" parameter,
    /// q = k/(e^ε + k − 1) (dp_accounting's randomized-response noise parameter).
    pub fn replacement_prob(&self) -> f64 {
        self.k as f64 * self.other
    }

    /// 1/(keep − other): the factor that makes (1[y = v] − other)/(keep − other) an unbiased estimate of
    /// 1[x = v].
    pub fn debias_scale(&self) -> f64 {
        1.0 / (self.keep - self.other)
    }

    /// The guarantee: max(ε, realised ε) rounded up.
    ///
    /// # Privacy
    /// Pure ε-DP; see the type's docs.
    pub fn pure_dp(&self) -> PureDp {
        PureDp::new(self.implemented_eps).expect("finite eps")
    }

    /// Randomizes `value` ∈ 0..k.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`value`) if `value` ≥ k.
    ///
    /// # Privacy
    /// See [`RandomizedResponse::pure_dp`]; integer arithmetic only.
    pub fn release<R: CryptoRng + ?Sized>(&self, value: u64, rng: &mut R) -> Result<u64> {
        if value >= self.k {
            return invalid("value", value as f64, "must be < categories");
        }
        if rng.next_u64() < self.threshold {
            return Ok(value);
        }
        let other = below_u64(rng, self.k - 1);
        Ok(if other >= value { other + 1 } else { other })
    }

    /// Binary randomized response on a bit (k must be 2).
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`categories`) if k ≠ 2.
    ///
    /// # Privacy
    /// See [`RandomizedResponse::pure_dp`].
    pub fn release_bit<R: CryptoRng + ?Sized>(&self, bit: bool, rng: &mut R) -> Result<bool> {
        if self.k != 2 {
            return invalid(
                "categories",
                self.k as f64,
                "release_bit needs 2 categories",
            );
        }
        Ok(self.release(u64::from(bit), rng)? == 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_and_implemented_eps() {
        assert!(matches!(
            RandomizedResponseParams::new(0.0).check(),
            Err(crate::Error::InvalidParam { name: "eps", .. })
        ));
        assert!(matches!(
            RandomizedResponseParams::new(1.0).categories(1).check(),
            Err(crate::Error::InvalidParam {
                name: "categories",
                ..
            })
        ));
        let rr = RandomizedResponseParams::new(1.0)
            .categories(4)
            .check()
            .unwrap();
        let e = rr.pure_dp().eps();
        assert!((1.0..1.0 + 1e-13).contains(&e));
        let mut rng = crate::rng::seeded_rng(0);
        assert!(rr.release(4, &mut rng).is_err());
        assert!(rr.release_bit(true, &mut rng).is_err());
        assert!((0..100).all(|_| rr.release(3, &mut rng).is_ok_and(|v| v < 4)));
        // Huge eps: keep probability rounds to 1, the realised ratio is reported.
        let sure = RandomizedResponseParams::new(100.0).check().unwrap();
        assert!(sure.pure_dp().eps() >= 100.0);
    }
}
