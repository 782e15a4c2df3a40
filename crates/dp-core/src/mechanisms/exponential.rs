//! The exponential mechanism over a finite candidate set with integer utilities, sampled exactly.

use rand::CryptoRng;

use crate::Result;
use crate::error::{invalid, positive};
use crate::measures::PureDp;
use crate::samplers::{BernoulliExp, below_u64};

/// Denominator of the rational ε the sampler uses: ε is rounded down to a multiple of 2⁻³².
const EPS_DEN_LOG2: u32 = 32;

/// Most candidates [`ValidExponential::select`] accepts (its expected number of proposals is at
/// most the number of candidates).
pub const MAX_CANDIDATES: usize = 1 << 20;

/// Parameters of the exponential mechanism: privacy parameter ε and the sensitivity Δu of the
/// integer utility (default 1).
///
/// # Example
/// ```
/// use dp_core::mechanisms::ExponentialParams;
/// let em = ExponentialParams::new(0.5).check()?;
/// assert_eq!(em.pure_dp().eps(), 0.5);
/// let mut rng = dp_core::rng::seeded_rng(2);
/// // The candidate with utility 0 beats one at -200 (weight e^-50) for sure.
/// assert_eq!(em.select(&[-200, 0], &mut rng)?, 1);
/// assert!(ExponentialParams::new(0.0).check().is_err());
/// # Ok::<(), dp_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExponentialParams {
    eps: f64,
    sensitivity: u64,
}

impl ExponentialParams {
    /// Privacy parameter ε, utility sensitivity 1.
    pub fn new(eps: f64) -> Self {
        Self {
            eps,
            sensitivity: 1,
        }
    }

    /// Sets the sensitivity Δu of the utility (the most any candidate's utility changes between
    /// neighbouring inputs).
    pub fn sensitivity(mut self, sensitivity: u64) -> Self {
        self.sensitivity = sensitivity;
        self
    }

    /// Validates the parameters.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] naming `eps` if ε is not finite, is below 2⁻³² or above 2²⁰,
    /// or `sensitivity` outside [1, 2³⁰].
    pub fn check(&self) -> Result<ValidExponential> {
        let eps = positive("eps", self.eps)?;
        if !(eps >= 1.0 / f64::from(1u32 << 31) / 2.0 && eps <= f64::from(1u32 << 20)) {
            return invalid(
                "eps",
                eps,
                "must lie in [2^-32, 2^20] for the exact sampler",
            );
        }
        if self.sensitivity == 0 || self.sensitivity > 1 << 30 {
            return invalid(
                "sensitivity",
                self.sensitivity as f64,
                "must lie in [1, 2^30]",
            );
        }
        // ε·2³² is exact in f64 (power-of-two scaling) and ≤ 2⁵²; its floor is the numerator,
        // so the sampler's ε' ≤ ε and the claimed ε-DP holds.
        let eps_num = (eps * (1u64 << EPS_DEN_LOG2) as f64).floor() as u64;
        Ok(ValidExponential {
            eps_num,
            sensitivity: self.sensitivity,
            pure: PureDp::new(eps)?,
        })
    }
}

/// A validated exponential mechanism: picks candidate `i` with probability proportional to
/// `exp(ε'·u_i / (2Δu))`, where ε' ≤ ε is ε rounded down to a multiple of 2⁻³².
///
/// # Privacy
/// ε-DP when no candidate's utility changes by more than Δu between neighbouring inputs
/// (McSherry–Talwar 2007, Theorem 6). Utilities may include a data-independent term (a public
/// prior over the candidates): it does not change the sensitivity. The sampler is exact (integer
/// arithmetic only, CKS20's Bernoulli(exp(−γ))), so no floating-point bias (Ilvento 2020) enters;
/// its running time depends on the utilities (a timing channel outside the model).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ValidExponential {
    eps_num: u64,
    sensitivity: u64,
    pure: PureDp,
}

impl ValidExponential {
    /// The ε-DP guarantee of one selection.
    pub fn pure_dp(&self) -> PureDp {
        self.pure
    }

    /// Index of the selected candidate, given each candidate's integer utility.
    ///
    /// Rejection sampling: a uniform candidate `i` is kept with probability
    /// `exp(−ε'(u_max − u_i)/(2Δu))`, so the output has exactly the mechanism's distribution.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`utilities`) when there are no candidates, more than
    /// [`MAX_CANDIDATES`], or a utility gap `u_max − u_i` so large that `ε'·gap` overflows 64 bits.
    ///
    /// # Complexity
    /// Expected O(k) proposals for k candidates (at least one candidate has acceptance
    /// probability 1), each O(1 + ε'·gap/(2Δu)) in the worst case and O(1) expected.
    pub fn select<R: CryptoRng + ?Sized>(&self, utilities: &[i64], rng: &mut R) -> Result<usize> {
        let k = utilities.len();
        if k == 0 {
            return invalid("utilities", 0.0, "need at least one candidate");
        }
        if k > MAX_CANDIDATES {
            return invalid("utilities", k as f64, "more than 2^20 candidates");
        }
        let best = *utilities.iter().max().expect("non-empty");
        // Δu ≤ 2³⁰ (checked), so 2Δu·2³² fits.
        let den = self.sensitivity << (EPS_DEN_LOG2 + 1);
        let gammas = utilities
            .iter()
            .map(|&u| {
                let gap = u64::try_from(i128::from(best) - i128::from(u)).ok();
                match gap.and_then(|g| g.checked_mul(self.eps_num)) {
                    Some(num) => BernoulliExp::new(num, den),
                    None => invalid("utilities", u as f64, "utility gap too large for eps"),
                }
            })
            .collect::<Result<Vec<_>>>()?;
        loop {
            let i = below_u64(rng, k as u64) as usize;
            if gammas[i].sample(rng) {
                return Ok(i);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::seeded_rng;

    #[test]
    fn frequencies_follow_the_exponential_weights() -> Result<()> {
        // ε = 1, Δu = 1: weights exp(u/2) for u = 0, -1, -2, -4.
        let em = ExponentialParams::new(1.0).check()?;
        let utilities = [0, -1, -2, -4];
        let w: Vec<f64> = utilities.iter().map(|&u| (u as f64 / 2.0).exp()).collect();
        let z: f64 = w.iter().sum();
        let mut rng = seeded_rng(11);
        let n = 20_000;
        let mut counts = [0usize; 4];
        for _ in 0..n {
            counts[em.select(&utilities, &mut rng)?] += 1;
        }
        for (c, wi) in counts.iter().zip(&w) {
            let p = wi / z;
            let sd = (p * (1.0 - p) / n as f64).sqrt();
            assert!((*c as f64 / n as f64 - p).abs() < 5.0 * sd, "{counts:?}");
        }
        Ok(())
    }

    #[test]
    fn sensitivity_flattens_and_errors_are_typed() -> Result<()> {
        // Δu = 1000 makes a gap of 2 utility units almost free: both near 1/2.
        let em = ExponentialParams::new(1.0).sensitivity(1000).check()?;
        let mut rng = seeded_rng(3);
        let ones = (0..4000)
            .filter(|_| em.select(&[0, -2], &mut rng).unwrap() == 1)
            .count();
        assert!((1800..2200).contains(&ones), "{ones}");
        for bad in [f64::NAN, -1.0, 0.0, f64::INFINITY, 1e-12, 1e7] {
            assert!(ExponentialParams::new(bad).check().is_err(), "{bad}");
        }
        assert!(ExponentialParams::new(1.0).sensitivity(0).check().is_err());
        assert!(em.select(&[], &mut rng).is_err());
        let huge = ExponentialParams::new(1e6).check()?;
        assert!(huge.select(&[i64::MAX, i64::MIN], &mut rng).is_err());
        Ok(())
    }
}
