//! Conservative floating-point arithmetic: results rounded towards +∞, so privacy losses are upper bounds.
//!
//! `add_up`, `mul_up`, `div_up` and `sqrt_up` are exact directed roundings (error-free transformations:
//! TwoSum and fused multiply-add, as in OpenDP's `inf_add`/`inf_mul`). Results of formulas that call `ln`,
//! `exp` or `ln_1p` (not correctly rounded by libm) go through [`inflate`], which adds a bound on the
//! accumulated floating-point error.

/// Smallest double ≥ a + b (exact directed rounding via TwoSum).
pub(crate) fn add_up(a: f64, b: f64) -> f64 {
    let s = a + b;
    if !s.is_finite() {
        return s;
    }
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    if err > 0.0 { s.next_up() } else { s }
}

/// Smallest double ≥ a · b (exact directed rounding via FMA).
pub(crate) fn mul_up(a: f64, b: f64) -> f64 {
    let p = a * b;
    if !p.is_finite() {
        return p;
    }
    let err = a.mul_add(b, -p);
    if err > 0.0 { p.next_up() } else { p }
}

/// Largest double ≤ a · b (exact directed rounding via FMA).
pub(crate) fn mul_down(a: f64, b: f64) -> f64 {
    let p = a * b;
    if !p.is_finite() {
        return p;
    }
    let err = a.mul_add(b, -p);
    if err < 0.0 { p.next_down() } else { p }
}

/// Smallest double ≥ a / b for b > 0 (exact directed rounding via FMA).
pub(crate) fn div_up(a: f64, b: f64) -> f64 {
    let q = a / b;
    if !q.is_finite() {
        return q;
    }
    // a - q·b computed exactly; positive means q is below the true quotient (b > 0).
    let rem = (-q).mul_add(b, a);
    if rem > 0.0 { q.next_up() } else { q }
}

/// Smallest double ≥ √x (x ≥ 0).
pub(crate) fn sqrt_up(x: f64) -> f64 {
    let s = x.sqrt();
    if s.mul_add(s, -x) < 0.0 {
        s.next_up()
    } else {
        s
    }
}

/// `value` plus a bound on the floating-point error of a short formula whose terms have absolute values
/// summing to `magnitude` (16 units of roundoff per unit of magnitude: libm's `ln`/`exp` are within
/// 1 ulp, and the formulas here have fewer than 8 operations), then one more ulp up.
pub(crate) fn inflate(value: f64, magnitude: f64) -> f64 {
    if !value.is_finite() || magnitude == 0.0 {
        // A value computed from no rounded terms (e.g. an exact 0) is exact.
        return value;
    }
    (value + magnitude.abs() * 16.0 * f64::EPSILON).next_up()
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
}
