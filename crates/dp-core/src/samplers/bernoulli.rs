//! Bernoulli(p) decided by one 64-bit draw against an integer threshold.

use rand::Rng;

use crate::Result;
use crate::error::probability;

/// A Bernoulli(p) trial realised as `next_u64() < ⌊p·2⁶⁴⌋` (p = 1: always true), so the realised
/// probability is `⌊p·2⁶⁴⌋ / 2⁶⁴` exactly: known to the last bit, the same threshold
/// [`crate::mechanisms::RandomizedResponse`] uses for its keep decision.
///
/// # Example
/// ```
/// use dp_core::samplers::Bernoulli;
/// let b = Bernoulli::new(0.25)?;
/// assert_eq!(b.threshold(), Some(1u64 << 62));
/// let mut rng = dp_core::rng::seeded_rng(3);
/// let hits = (0..10_000).filter(|_| b.sample(&mut rng)).count();
/// assert!((2300..2700).contains(&hits));
/// assert!(Bernoulli::new(1.5).is_err() && Bernoulli::new(f64::NAN).is_err());
/// # Ok::<(), dp_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bernoulli {
    /// `None`: p = 1.
    threshold: Option<u64>,
}

impl Bernoulli {
    /// Bernoulli(`p`).
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`p`) unless `p ∈ [0, 1]`.
    pub fn new(p: f64) -> Result<Self> {
        let p = probability("p", p)?;
        Ok(Self {
            threshold: (p < 1.0).then(|| (p * 2f64.powi(64)) as u64),
        })
    }

    /// The trial `next_u64() < threshold`.
    pub(crate) fn from_threshold(threshold: u64) -> Self {
        Self {
            threshold: Some(threshold),
        }
    }

    /// The integer threshold (`None` when p = 1).
    pub fn threshold(&self) -> Option<u64> {
        self.threshold
    }

    /// The realised probability `threshold / 2⁶⁴`.
    pub fn probability(&self) -> f64 {
        self.threshold.map_or(1.0, |t| t as f64 / 2f64.powi(64))
    }

    /// One trial: one 64-bit draw.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> bool {
        let x = rng.next_u64();
        self.threshold.is_none_or(|t| x < t)
    }
}
