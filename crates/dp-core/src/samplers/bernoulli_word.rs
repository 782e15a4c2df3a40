//! 64 independent Bernoulli(p) trials per call, from uniform random words only (bit-sliced).

use rand::Rng;

use crate::Result;
use crate::error::probability;

/// Bits of precision of a [`BernoulliWord`]: its probability is a multiple of 2⁻³².
pub const WORD_PRECISION_BITS: u32 = 32;

/// 64 independent Bernoulli trials at once, with probability `j / 2³²` for an integer `j`:
/// the binary digits `b₁ b₂ … b₃₂` of that probability (most significant first) are applied
/// from the last to the first to an accumulator word, `acc ← bₜ ? acc | r : acc & r` with a
/// fresh uniform word `r` each time. Each bit of the accumulator starts at 0 and after step `t`
/// is 1 with probability `(bₜ + P)/2`, so after the last step with exactly `0.b₁b₂…b₃₂`; bits
/// are independent because every step acts bitwise on independent uniform words (Knuth–Yao
/// style bit slicing; no floating point, so the realised probability is exact).
///
/// Cost: `32 − trailing zeros of j` words (at most 32) per 64 trials, whatever the
/// probability: cheaper per success than [`super::GeometricSkip`] when p is large.
///
/// # Privacy
/// The realised probability is [`BernoulliWord::probability`], `p` rounded **up** to the 2⁻³²
/// grid by [`BernoulliWord::at_least`] (at most 2.4·10⁻¹⁰ above `p`). For the flips of binary
/// randomized response (a non-edge reported as an edge) a larger flip probability only
/// shrinks the likelihood ratio: with keep probability `k ≤ e^ε/(1+e^ε)` and flip probability
/// `q ≥ 1/(1+e^ε)`, both `k/q` and `(1−q)/(1−k)` stay `≤ e^ε`.
///
/// # Example
/// ```
/// use dp_core::samplers::BernoulliWord;
/// let b = BernoulliWord::at_least(0.25)?;
/// assert_eq!(b.probability(), 0.25); // exactly on the grid: two rounds per word
/// assert_eq!(b.rounds(), 2);
/// let mut rng = dp_core::rng::seeded_rng(3);
/// let ones: u32 = (0..1000).map(|_| b.sample(&mut rng).count_ones()).sum();
/// // 64,000 trials: mean 16,000, standard deviation ≈ 110.
/// assert!((ones as f64 - 16_000.0).abs() < 5.0 * 110.0);
/// assert!(BernoulliWord::at_least(-0.1).is_err() && BernoulliWord::at_least(f64::NAN).is_err());
/// # Ok::<(), dp_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BernoulliWord {
    /// `j`, the probability's numerator over 2³² (`2³²` for p = 1).
    numerator: u64,
}

impl BernoulliWord {
    /// Trials with probability `⌈p · 2³²⌉ / 2³²`, the smallest grid value `≥ p`.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`p`) unless `p ∈ [0, 1]`.
    pub fn at_least(p: f64) -> Result<Self> {
        let p = probability("p", p)?;
        // p · 2³² is exact in f64 (a power-of-two scaling), so `ceil` rounds the true product.
        let numerator = (p * 2f64.powi(WORD_PRECISION_BITS as i32)).ceil() as u64;
        Ok(Self { numerator })
    }

    /// Trials with the smallest grid probability `≥ 1 − P[keep]`, computed from `keep`'s integer
    /// threshold `t` exactly: `j = ⌈(2⁶⁴ − t) / 2³²⌉` (0 when `keep` always succeeds). This is
    /// the flip of binary randomized response whose keep decision is `keep`.
    ///
    /// # Privacy
    /// With `keep` realising `k = t/2⁶⁴ ≥ 1/2`, the flip realises `q ≥ 1 − k`, so both
    /// likelihood ratios of a pair, `k/q` and `(1−q)/(1−k)`, are at most `k/(1−k)`: the loss
    /// [`crate::mechanisms::RandomizedResponse::pure_dp`] bounds for its
    /// [`keep_trial`](crate::mechanisms::RandomizedResponse::keep_trial). Exact, in integer
    /// arithmetic (the rounding only lowers the loss).
    ///
    /// ```
    /// use dp_core::mechanisms::RandomizedResponse;
    /// use dp_core::samplers::BernoulliWord;
    /// let keep = RandomizedResponse::binary(1.0)?.keep_trial();
    /// let flip = BernoulliWord::at_least_complement(keep);
    /// assert!(flip.probability() >= 1.0 - keep.probability());
    /// assert!(flip.probability() - (1.0 - keep.probability()) < 2f64.powi(-32));
    /// # Ok::<(), dp_core::Error>(())
    /// ```
    pub fn at_least_complement(keep: super::Bernoulli) -> Self {
        let numerator = keep.threshold().map_or(0, |t| {
            let rest = (1u128 << 64) - u128::from(t);
            rest.div_ceil(1u128 << WORD_PRECISION_BITS) as u64
        });
        Self { numerator }
    }

    /// The realised probability `j / 2³²` (exact in f64).
    pub fn probability(&self) -> f64 {
        self.numerator as f64 / 2f64.powi(WORD_PRECISION_BITS as i32)
    }

    /// Uniform words drawn per call: 0 for p ∈ {0, 1}, else `32 − trailing_zeros(j)`.
    pub fn rounds(&self) -> u32 {
        if self.numerator == 0 || self.numerator >> WORD_PRECISION_BITS != 0 {
            0
        } else {
            WORD_PRECISION_BITS - self.numerator.trailing_zeros()
        }
    }

    /// 64 independent trials: bit `t` of the result is trial `t`.
    ///
    /// # Complexity
    /// [`BernoulliWord::rounds`] calls of `next_u64`.
    #[inline]
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        if self.numerator == 0 {
            return 0;
        }
        if self.numerator >> WORD_PRECISION_BITS != 0 {
            return u64::MAX;
        }
        let low = self.numerator.trailing_zeros();
        // The lowest set digit: the accumulator (all zero) OR a fresh word is that word.
        let mut acc = rng.next_u64();
        for t in low + 1..WORD_PRECISION_BITS {
            let r = rng.next_u64();
            acc = if self.numerator >> t & 1 == 1 {
                acc | r
            } else {
                acc & r
            };
        }
        acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_up_onto_the_grid() {
        let q = 1.0 / (1.0 + 1f64.exp());
        let b = BernoulliWord::at_least(q).unwrap();
        assert!(b.probability() >= q);
        assert!(b.probability() - q < 2f64.powi(-32));
        assert_eq!(BernoulliWord::at_least(0.5).unwrap().rounds(), 1);
        assert_eq!(BernoulliWord::at_least(0.0).unwrap().rounds(), 0);
        assert_eq!(BernoulliWord::at_least(1.0).unwrap().rounds(), 0);
        // The smallest positive p still gets a whole grid step.
        let tiny = BernoulliWord::at_least(1e-300).unwrap();
        assert_eq!(tiny.probability(), 2f64.powi(-32));
        assert_eq!(tiny.rounds(), 32);
    }

    #[test]
    fn degenerate_probabilities_draw_nothing() {
        let mut rng = crate::rng::seeded_rng(1);
        assert_eq!(BernoulliWord::at_least(0.0).unwrap().sample(&mut rng), 0);
        assert_eq!(
            BernoulliWord::at_least(1.0).unwrap().sample(&mut rng),
            u64::MAX
        );
        assert!(BernoulliWord::at_least(1.5).is_err());
    }

    #[test]
    fn every_bit_position_has_the_frequency_and_bits_are_independent() {
        // p = 0.3 (32 rounds), 20,000 words: per position mean 6,000, sd ≈ 64.8; pairs of
        // adjacent positions both set: mean 0.09 · 20,000 = 1,800, sd ≈ 40.5.
        let b = BernoulliWord::at_least(0.3).unwrap();
        let p = b.probability();
        let mut rng = crate::rng::seeded_rng(7);
        let words: Vec<u64> = (0..20_000).map(|_| b.sample(&mut rng)).collect();
        let n = words.len() as f64;
        for t in 0..64 {
            let ones = words.iter().filter(|&&w| w >> t & 1 == 1).count() as f64;
            let sd = (n * p * (1.0 - p)).sqrt();
            assert!((ones - n * p).abs() < 5.0 * sd, "bit {t}: {ones}");
        }
        for t in 0..63 {
            let both = words.iter().filter(|&&w| w >> t & 3 == 3).count() as f64;
            let pp = p * p;
            let sd = (n * pp * (1.0 - pp)).sqrt();
            assert!(
                (both - n * pp).abs() < 5.0 * sd,
                "bits {t},{}: {both}",
                t + 1
            );
        }
    }

    #[test]
    fn same_seed_same_words() {
        let b = BernoulliWord::at_least(0.27).unwrap();
        let a: Vec<u64> = {
            let mut r = crate::rng::seeded_rng(5);
            (0..10).map(|_| b.sample(&mut r)).collect()
        };
        let c: Vec<u64> = {
            let mut r = crate::rng::seeded_rng(5);
            (0..10).map(|_| b.sample(&mut r)).collect()
        };
        assert_eq!(a, c);
    }
}
