//! Exact uniform integers and bits from an RNG, by rejection (no modulo bias, no floating point).

use rand::Rng;

/// Uniform integer in [0, n) for n ≥ 1, by masked rejection (expected < 2 draws).
pub(crate) fn below_u64<R: Rng + ?Sized>(rng: &mut R, n: u64) -> u64 {
    debug_assert!(n >= 1);
    if n == 1 {
        return 0;
    }
    let mask = u64::MAX >> (n - 1).leading_zeros();
    loop {
        let x = rng.next_u64() & mask;
        if x < n {
            return x;
        }
    }
}

/// Uniform integer in [0, n) for n ≥ 1, by masked rejection (expected < 2 draws).
pub(crate) fn below_u128<R: Rng + ?Sized>(rng: &mut R, n: u128) -> u128 {
    debug_assert!(n >= 1);
    if n <= u128::from(u64::MAX) {
        return u128::from(below_u64(rng, n as u64));
    }
    let mask = u128::MAX >> (n - 1).leading_zeros();
    loop {
        let x = ((u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64())) & mask;
        if x < n {
            return x;
        }
    }
}

/// Exact Bernoulli(num/den) for num ≤ den, den ≥ 1.
pub(crate) fn bernoulli_ratio<R: Rng + ?Sized>(rng: &mut R, num: u128, den: u128) -> bool {
    below_u128(rng, den) < num
}

/// One fair bit.
pub(crate) fn fair_bit<R: Rng + ?Sized>(rng: &mut R) -> bool {
    rng.next_u32() & 1 == 1
}

/// A uniform double in (0, 1], on the grid of multiples of 2⁻⁵³.
pub(crate) fn open_closed_unit<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    ((rng.next_u64() >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_is_in_range_and_covers_it() {
        let mut rng = crate::rng::seeded_rng(3);
        let mut seen = [0u32; 5];
        for _ in 0..5000 {
            seen[below_u64(&mut rng, 5) as usize] += 1;
        }
        // Each cell has mean 1000 and sd 28; 6 sd band.
        assert!(seen.iter().all(|&c| (832..=1168).contains(&c)), "{seen:?}");
        assert_eq!(below_u64(&mut rng, 1), 0);
        let big = (1u128 << 100) + 7;
        assert!((0..100).all(|_| below_u128(&mut rng, big) < big));
        let u = open_closed_unit(&mut rng);
        assert!(u > 0.0 && u <= 1.0);
    }
}
