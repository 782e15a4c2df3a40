//! Positions of the successes among N independent Bernoulli(p) trials, in O(#successes).

use rand::Rng;

use super::uniform::open_closed_unit;
use crate::Result;
use crate::error::{invalid, probability};

/// N independent Bernoulli(p) trials, sampled by skipping over the failures: the gap before the next
/// success is Geometric(p), drawn as ⌊ln U / ln(1 − p)⌋ with U uniform in (0, 1] (Devroye 1986, §X.2;
/// Batagelj–Brandes 2005). Cost O(1 + Np) instead of O(N).
///
/// # Privacy
/// This is the sampler behind randomized response over N items whose "flip" decisions are
/// Bernoulli(p): each trial succeeds with probability p, independently. The gap uses floating point:
/// P[gap ≥ k] = P[U ≤ (1 − p)^k] is realised on the 2⁻⁵³ grid of U, so each trial's probability
/// differs from p by about 1e-15 relative (and `ln_1p` keeps ln(1 − p) accurate for tiny p). Only
/// the positions are output, never floating-point noise, so Mironov's 2012 attack on low-order bits
/// does not apply; account for the ~1e-15 relative deviation if p is set at the edge of a budget.
///
/// # Example
/// ```
/// use dp_core::samplers::GeometricSkip;
/// let mut rng = dp_core::rng::seeded_rng(9);
/// let positions: Vec<u64> = GeometricSkip::new(1_000_000, 0.001)?.positions(&mut rng).collect();
/// assert!(positions.windows(2).all(|w| w[0] < w[1]));
/// assert!(positions.last().is_some_and(|&p| p < 1_000_000));
/// // Mean 1000, standard deviation ≈ 31.6.
/// assert!((positions.len() as f64 - 1000.0).abs() < 5.0 * 31.6);
/// # Ok::<(), dp_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeometricSkip {
    n_trials: u64,
    p: f64,
    /// ln(1 − p), computed with `ln_1p`.
    log_q: f64,
}

impl GeometricSkip {
    /// `n_trials` trials with success probability `p`.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`p`) if p is NaN or outside [0, 1].
    pub fn new(n_trials: u64, p: f64) -> Result<Self> {
        let p = probability("p", p)?;
        let log_q = (-p).ln_1p();
        if p > 0.0 && p < 1.0 && log_q >= 0.0 {
            return invalid("p", p, "too small: ln(1 - p) rounds to 0");
        }
        Ok(Self { n_trials, p, log_q })
    }

    /// The number of trials N.
    pub fn n_trials(&self) -> u64 {
        self.n_trials
    }

    /// The success probability p.
    pub fn p(&self) -> f64 {
        self.p
    }

    /// The increasing positions (0-based, < N) of the successful trials.
    pub fn positions<'a, R: Rng + ?Sized>(&self, rng: &'a mut R) -> SuccessPositions<'a, R> {
        SuccessPositions {
            skip: *self,
            next: 0,
            rng,
        }
    }

    /// Calls `f` with each position of [`GeometricSkip::positions`] in increasing order: the
    /// same positions from the same `rng` state, computed in blocks of 256 draws whose
    /// logarithms and divisions are independent (so the CPU overlaps them) before the positions
    /// are summed in order. It takes up to 255 more draws from `rng` after the last position
    /// than `positions` does: use it where nothing draws from `rng` afterwards, or where that
    /// is accounted for.
    ///
    /// # Complexity
    /// O(1 + successes) draws, like `positions`; 2 KiB of stack.
    ///
    /// ```
    /// use dp_core::samplers::GeometricSkip;
    /// let skip = GeometricSkip::new(10_000, 0.05)?;
    /// let want: Vec<u64> = skip.positions(&mut dp_core::rng::seeded_rng(1)).collect();
    /// let mut got = Vec::new();
    /// skip.for_each_position(&mut dp_core::rng::seeded_rng(1), |k| got.push(k));
    /// assert_eq!(got, want);
    /// # Ok::<(), dp_core::Error>(())
    /// ```
    pub fn for_each_position<R: Rng + ?Sized>(&self, rng: &mut R, mut f: impl FnMut(u64)) {
        const BLOCK: usize = 256;
        if self.n_trials == 0 || self.p == 0.0 {
            return;
        }
        if self.p == 1.0 {
            (0..self.n_trials).for_each(f);
            return;
        }
        let mut block = [0f64; BLOCK];
        let mut next = 0u64;
        loop {
            for x in block.iter_mut() {
                *x = open_closed_unit(rng);
            }
            for x in block.iter_mut() {
                *x = x.ln() / self.log_q;
            }
            // As `SuccessPositions::next`, one gap ⌊x⌋ at a time.
            for &x in &block {
                let Some(pos) = self.position_after(next, x) else {
                    return;
                };
                f(pos);
                next = pos + 1;
            }
        }
    }

    /// The success position that the draw `x = ln U / ln(1 − p) ≥ 0` gives after `next` (the
    /// first undecided trial): `next + ⌊x⌋`, or `None` past the last trial. `n − next` as f64 is
    /// integer-valued, so `⌊x⌋ ≥` it exactly when `x ≥` it, and `x as u64` truncates, i.e. is
    /// `⌊x⌋` (no software `floor` on CPUs without SSE4.1); it may round up above 2⁵³, hence the
    /// check on the position too.
    #[inline]
    fn position_after(&self, next: u64, x: f64) -> Option<u64> {
        let remaining = self.n_trials - next;
        if x >= remaining as f64 {
            return None;
        }
        let pos = next + x as u64;
        (pos < self.n_trials).then_some(pos)
    }
}

/// Iterator over the success positions of a [`GeometricSkip`]; see [`GeometricSkip::positions`].
#[derive(Debug)]
pub struct SuccessPositions<'a, R: ?Sized> {
    skip: GeometricSkip,
    /// The first trial not yet decided.
    next: u64,
    rng: &'a mut R,
}

impl<R: Rng + ?Sized> Iterator for SuccessPositions<'_, R> {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        let remaining = self.skip.n_trials - self.next;
        if remaining == 0 || self.skip.p == 0.0 {
            self.next = self.skip.n_trials;
            return None;
        }
        let x = if self.skip.p == 1.0 {
            0.0
        } else {
            open_closed_unit(self.rng).ln() / self.skip.log_q
        };
        let Some(pos) = self.skip.position_after(self.next, x) else {
            self.next = self.skip.n_trials;
            return None;
        };
        self.next = pos + 1;
        Some(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The positions are those of `⌊ln U / ln(1 − p)⌋` gaps with `floor` called explicitly
    /// (as before the truncating cast replaced it): the same values, draw for draw.
    #[test]
    fn truncation_gives_the_floor_gaps() {
        for (p, n) in [
            (0.0474, 2_000_000u64),
            (0.3, 200_000),
            (0.9, 50_000),
            (1e-4, 10_000_000),
        ] {
            let skip = GeometricSkip::new(n, p).unwrap();
            let got: Vec<u64> = skip.positions(&mut crate::rng::seeded_rng(9)).collect();
            let mut rng = crate::rng::seeded_rng(9);
            let log_q = (-p).ln_1p();
            let (mut want, mut next) = (Vec::new(), 0u64);
            loop {
                let gap = (open_closed_unit(&mut rng).ln() / log_q).floor();
                if gap >= (n - next) as f64 {
                    break;
                }
                want.push(next + gap as u64);
                next += gap as u64 + 1;
                if next >= n {
                    break;
                }
            }
            assert_eq!(got, want, "p = {p}");
        }
    }

    #[test]
    fn blocks_give_the_iterators_positions() {
        for (p, n) in [
            (0.0474, 3_000_000u64),
            (0.3, 100_000),
            (0.99, 5_000),
            (1e-5, 10_000_000),
            (0.5, 0),
            (0.5, 1),
            (0.0, 100),
            (1.0, 700),
        ] {
            let skip = GeometricSkip::new(n, p).unwrap();
            for seed in 0..3 {
                let want: Vec<u64> = skip.positions(&mut crate::rng::seeded_rng(seed)).collect();
                let mut got = Vec::new();
                skip.for_each_position(&mut crate::rng::seeded_rng(seed), |k| got.push(k));
                assert_eq!(got, want, "p = {p}, n = {n}, seed {seed}");
            }
        }
    }

    #[test]
    fn degenerate_probabilities() {
        let mut rng = crate::rng::seeded_rng(1);
        assert_eq!(
            GeometricSkip::new(10, 0.0)
                .unwrap()
                .positions(&mut rng)
                .count(),
            0
        );
        let all: Vec<u64> = GeometricSkip::new(5, 1.0)
            .unwrap()
            .positions(&mut rng)
            .collect();
        assert_eq!(all, vec![0, 1, 2, 3, 4]);
        assert_eq!(
            GeometricSkip::new(0, 0.5)
                .unwrap()
                .positions(&mut rng)
                .count(),
            0
        );
        assert!(GeometricSkip::new(5, 1.5).is_err());
        assert!(matches!(
            GeometricSkip::new(5, f64::NAN),
            Err(crate::Error::InvalidParam { name: "p", .. })
        ));
    }
}
