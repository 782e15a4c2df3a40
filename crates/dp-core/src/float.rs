//! Conservative floating-point arithmetic: results rounded towards +∞ (or −∞ where a quantity must
//! not grow, such as a noise scale's divisor or a truncation order), so privacy losses are upper
//! bounds.
//!
//! | function | result | how |
//! |---|---|---|
//! | [`add_up`] | smallest double ≥ a + b | TwoSum (OpenDP's `inf_add`) |
//! | [`mul_up`], [`mul_down`] | smallest double ≥ a · b, largest ≤ a · b | FMA remainder (OpenDP's `inf_mul`) |
//! | [`div_up`] | smallest double ≥ a / b | FMA remainder |
//! | [`sqrt_up`], [`sqrt_down`] | smallest double ≥ √x, largest ≤ √x | FMA remainder |
//! | [`inflate`] | value + a bound on the error of a short formula with `ln`/`exp` | 16 ε per unit of magnitude, then one ulp |
//! | [`inflate_ops`] | bound on a product/quotient/sum chain of `ops` roundings | relative `ops` · ε, then one ulp |
//!
//! The first six are exact directed roundings (error-free transformations) for finite results in the
//! normal range; a non-finite result is returned as it is. Results of formulas that call `ln`, `exp` or
//! `ln_1p` (not correctly rounded by libm) go through [`inflate`]. Other crates call these helpers
//! instead of rounding by hand (`next_up`, `1 + k·ε` factors), so every privacy number of dpgraph is
//! rounded in this one place.
//!
//! # Example
//! ```
//! use dp_core::float::{add_up, mul_up, sqrt_up};
//! // ρ + 2√(ρL) rounded up at every step: at least the exact real value for these doubles.
//! let (rho, l) = (0.01, 13.815510557964274);
//! let eps = add_up(rho, mul_up(2.0, sqrt_up(mul_up(rho, l))));
//! assert!(eps >= rho + 2.0 * (rho * l).sqrt());
//! ```

/// Smallest double ≥ a + b (exact directed rounding via TwoSum).
///
/// A non-finite sum (overflow, NaN or infinite input) is returned unchanged.
///
/// # Example
/// ```
/// use dp_core::float::add_up;
/// // 1 + 2⁻⁶⁰ rounds to 1 to nearest; rounded up it is the next double.
/// assert_eq!(add_up(1.0, 2f64.powi(-60)), 1.0f64.next_up());
/// // The exact real sum of the doubles 0.1 and 0.2 is below 0.30000000000000004, the
/// // round-to-nearest result, which is therefore already the smallest double above it.
/// let s = add_up(0.1, 0.2);
/// assert_eq!(s, 0.30000000000000004);
/// // s ≥ 0.1 + 0.2 over the reals: s − 0.2 is exact (Sterbenz), so compare it with 0.1.
/// assert!(s - 0.2 >= 0.1);
/// assert_eq!(add_up(0.5, 0.25), 0.75); // exact sums stay exact
/// ```
pub fn add_up(a: f64, b: f64) -> f64 {
    let s = a + b;
    if !s.is_finite() {
        return s;
    }
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    if err > 0.0 { s.next_up() } else { s }
}

/// Smallest double ≥ a · b (exact directed rounding via FMA).
///
/// A non-finite product is returned unchanged; the rounding is exact for products in the normal
/// range.
///
/// # Example
/// ```
/// use dp_core::float::mul_up;
/// // 0.1 · 0.1 is below 0.010000000000000002 (round to nearest), so rounding up gives that double.
/// assert_eq!(mul_up(0.1, 0.1), 0.1 * 0.1);
/// assert_eq!(mul_up(0.1, 0.1), 0.010000000000000002);
/// // 0.1 · 0.1 ≤ mul_up(0.1, 0.1) over the reals: the FMA residual has the exact sign.
/// assert!(0.1f64.mul_add(0.1, -mul_up(0.1, 0.1)) <= 0.0);
/// // 3 · fl(1/3) is just below 1, and 1 is the smallest double above it.
/// assert_eq!(mul_up(3.0, 1.0 / 3.0), 1.0);
/// assert_eq!(mul_up(1.0 + f64::EPSILON, 1.0 + f64::EPSILON), (1.0 + 2.0 * f64::EPSILON).next_up());
/// ```
pub fn mul_up(a: f64, b: f64) -> f64 {
    let p = a * b;
    if !p.is_finite() {
        return p;
    }
    let err = a.mul_add(b, -p);
    if err > 0.0 { p.next_up() } else { p }
}

/// Largest double ≤ a · b (exact directed rounding via FMA).
///
/// A non-finite product is returned unchanged; the rounding is exact for products in the normal
/// range.
///
/// # Example
/// ```
/// use dp_core::float::{mul_down, mul_up};
/// assert_eq!(mul_down(1.0 + f64::EPSILON, 1.0 + f64::EPSILON), 1.0 + 2.0 * f64::EPSILON);
/// assert!(mul_down(0.1, 0.1) < mul_up(0.1, 0.1));
/// assert_eq!(mul_down(2.0, 0.75), 1.5); // exact products stay exact
/// ```
pub fn mul_down(a: f64, b: f64) -> f64 {
    let p = a * b;
    if !p.is_finite() {
        return p;
    }
    let err = a.mul_add(b, -p);
    if err < 0.0 { p.next_down() } else { p }
}

/// Smallest double ≥ a / b (exact directed rounding via FMA).
///
/// A non-finite quotient (b = 0, overflow, NaN) is returned unchanged; the rounding is exact for
/// quotients in the normal range, for either sign of `b`.
///
/// # Example
/// ```
/// use dp_core::float::div_up;
/// // fl(1/3) is below 1/3, so rounding up gives the next double.
/// assert_eq!(div_up(1.0, 3.0), (1.0f64 / 3.0).next_up());
/// // q ≥ 1/3 over the reals: the FMA residual 1 − 3q has the exact sign.
/// let q = div_up(1.0, 3.0);
/// assert!((-q).mul_add(3.0, 1.0) <= 0.0);
/// assert_eq!(div_up(1.0, 4.0), 0.25); // exact quotients stay exact
/// assert_eq!(div_up(-1.0, -3.0), div_up(1.0, 3.0));
/// ```
pub fn div_up(a: f64, b: f64) -> f64 {
    let q = a / b;
    if !q.is_finite() {
        return q;
    }
    // a − q·b computed exactly; a/b − q = (a − q·b)/b, so q is below the true quotient when the
    // remainder has the sign of b.
    let rem = (-q).mul_add(b, a);
    let below = if b > 0.0 { rem > 0.0 } else { rem < 0.0 };
    if below { q.next_up() } else { q }
}

/// Smallest double ≥ √x for x ≥ 0 (NaN for x < 0 or NaN, +∞ for +∞).
///
/// # Example
/// ```
/// use dp_core::float::sqrt_up;
/// assert_eq!(sqrt_up(4.0), 2.0);
/// let r = sqrt_up(2.0);
/// // r² ≥ 2 exactly: the FMA residual r·r − 2 is computed without rounding error.
/// assert!(r.mul_add(r, -2.0) >= 0.0);
/// assert!(sqrt_up(-1.0).is_nan());
/// ```
pub fn sqrt_up(x: f64) -> f64 {
    let s = x.sqrt();
    if s.mul_add(s, -x) < 0.0 {
        s.next_up()
    } else {
        s
    }
}

/// Largest double ≤ √x for x ≥ 0 (NaN for x < 0 or NaN, +∞ for +∞).
///
/// # Example
/// ```
/// use dp_core::float::sqrt_down;
/// assert_eq!(sqrt_down(4.0), 2.0);
/// let r = sqrt_down(2.0);
/// // r² ≤ 2 exactly: the FMA residual r·r − 2 is computed without rounding error.
/// assert!(r.mul_add(r, -2.0) <= 0.0);
/// assert!(sqrt_down(-1.0).is_nan());
/// ```
pub fn sqrt_down(x: f64) -> f64 {
    let s = x.sqrt();
    if s.is_finite() && s.mul_add(s, -x) > 0.0 {
        s.next_down()
    } else {
        s
    }
}

/// `value` plus a bound on the floating-point error of a short formula whose terms have absolute values
/// summing to `magnitude` (16 units of roundoff per unit of magnitude: libm's `ln`/`exp` are within
/// 1 ulp, and the formulas here have fewer than 8 operations), then one more ulp up.
///
/// A non-finite `value`, or `magnitude` = 0 (a value computed from no rounded terms), is returned
/// unchanged.
///
/// # Example
/// ```
/// use dp_core::float::inflate;
/// let l = -(1e-5f64).ln(); // ln(1/δ), within 1 ulp of the real value
/// let bound = inflate(l, l);
/// assert!(bound > l && bound - l < 1e-13);
/// assert_eq!(inflate(0.0, 0.0), 0.0);
/// ```
pub fn inflate(value: f64, magnitude: f64) -> f64 {
    if !value.is_finite() || magnitude == 0.0 {
        // A value computed from no rounded terms (e.g. an exact 0) is exact.
        return value;
    }
    (value + magnitude.abs() * 16.0 * f64::EPSILON).next_up()
}

/// An upper bound on the exact value of a chain of `ops` correctly rounded operations (products,
/// quotients, square roots, sums of terms of one sign) that evaluated to `value`: `value` moved
/// away from zero (towards zero if negative) by the relative amount `ops`·ε, then one ulp up.
///
/// Each such operation has relative error ≤ ε/2, so the exact value lies within a factor
/// (1 ± ε/2)^ops of `value`, which the relative `ops`·ε covers; the final ulp covers the rounding
/// of the multiplication itself. Zero becomes the smallest positive double (0 is treated like any
/// other computed value); a non-finite `value` is returned unchanged.
///
/// # Example
/// ```
/// use dp_core::float::inflate_ops;
/// // 2ρ + 4dβ²: three rounded operations (2ρ and 4d are exact).
/// let (rho, d, beta) = (0.01, 50.0, 0.002);
/// let rho_prime = inflate_ops(2.0 * rho + 4.0 * d * beta * beta, 3);
/// assert!(rho_prime > 0.0208 && rho_prime - 0.0208 < 1e-16);
/// assert_eq!(inflate_ops(1.0, 4), (1.0 + 4.0 * f64::EPSILON).next_up());
/// assert!(inflate_ops(-1.0, 4) > -1.0);
/// assert_eq!(inflate_ops(0.0, 4), f64::from_bits(1));
/// ```
pub fn inflate_ops(value: f64, ops: usize) -> f64 {
    if !value.is_finite() {
        return value;
    }
    let rel = ops as f64 * f64::EPSILON;
    if value < 0.0 {
        (value * (1.0 - rel)).next_up()
    } else {
        (value * (1.0 + rel)).next_up()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directed_rounding_never_goes_down() {
        // 0.1 + 0.2 rounds up to 0.30000000000000004 in round-to-nearest; the exact sum is below it.
        assert_eq!(add_up(0.1, 0.2), 0.1 + 0.2);
        // 1 + 2^-60 rounds down to 1 in round-to-nearest.
        assert_eq!(add_up(1.0, 2f64.powi(-60)), 1.0f64.next_up());
        assert_eq!(mul_up(3.0, 1.0 / 3.0), 1.0);
        assert!(mul_up(0.1, 0.1) >= 0.1 * 0.1);
        assert!(mul_down(0.1, 0.1) <= 0.1 * 0.1 && mul_down(0.1, 0.1) < mul_up(0.1, 0.1));
        assert_eq!(div_up(1.0, 3.0), (1.0f64 / 3.0).next_up());
        assert_eq!(div_up(1.0, 4.0), 0.25);
        assert_eq!(sqrt_up(4.0), 2.0);
        assert!(sqrt_up(2.0) * sqrt_up(2.0) >= 2.0);
        assert!(inflate(1.0, 1.0) > 1.0);
        assert!(inflate(1.0, 1.0) - 1.0 < 1e-14);
    }

    #[test]
    fn div_up_handles_both_signs_of_the_divisor() {
        for (a, b) in [
            (1.0, 3.0),
            (-1.0, 3.0),
            (1.0, -3.0),
            (-1.0, -3.0),
            (2.0, 7.0),
            (-5.0, 0.1),
        ] {
            let q = div_up(a, b);
            // q ≥ a/b exactly ⟺ (q·b − a) has the sign of b (or is 0); FMA gives it without rounding.
            let r = q.mul_add(b, -a);
            assert!(r == 0.0 || (r > 0.0) == (b > 0.0), "{a}/{b}");
            // ... and q is the smallest such double.
            let below = q.next_down().mul_add(b, -a);
            assert!(below != 0.0 && (below > 0.0) != (b > 0.0), "{a}/{b}");
        }
        assert!(div_up(1.0, 0.0).is_infinite() && div_up(0.0, 0.0).is_nan());
    }

    #[test]
    fn inflate_ops_matches_the_hand_rounding_it_replaced() {
        // The form homdp used: (x·(1 + k·ε)).next_up(), bit for bit, for x ≥ 0.
        for x in [0.0, 1e-300, 0.0208, 0.08, 1.0, 3.5e7] {
            for k in [0usize, 1, 4, 7, 100] {
                let hand = (x * (1.0 + k as f64 * f64::EPSILON)).next_up();
                assert_eq!(inflate_ops(x, k).to_bits(), hand.to_bits());
            }
        }
        assert_eq!(inflate_ops(f64::INFINITY, 3), f64::INFINITY);
        assert!(inflate_ops(f64::NAN, 3).is_nan());
        assert!(inflate_ops(-2.0, 3) > -2.0 * (1.0 - 1.5 * f64::EPSILON));
    }
}
