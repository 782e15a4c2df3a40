//! Calibration: the noise scale a target guarantee needs, and the guarantee a noise scale gives.
//!
//! | function | computes | source |
//! |---|---|---|
//! | [`gaussian_sigma_zcdp`] | σ = Δ/√(2ρ) for ρ-zCDP | Bun–Steinke 2016, Prop. 1.6 |
//! | [`gaussian_rho`] | ρ = Δ²/(2σ²) of a Gaussian release | Bun–Steinke 2016, Prop. 1.6 |
//! | [`smooth_sensitivity`] | S = max_k e^(−βk)·LS_k | Nissim–Raskhodnikova–Smith 2007, Def. 2.1 |
//! | [`smooth_gaussian_tcdp`] | (2ρ + 4dβ², 1/(4β))-tCDP of Gaussian noise scaled to a β-smooth bound | homdp paper, Thm. 4.6 (BDRS18, NRS07) |
//!
//! Every function validates its inputs ([`crate::Error::InvalidParam`] naming the parameter) and
//! rounds its result in the direction that keeps the guarantee: noise scales and privacy losses up,
//! truncation orders down, through the exact directed roundings of [`crate::float`]. Each
//! function's `# Rounding` section says what is guaranteed.
//!
//! # Example
//! ```
//! use dp_core::calibrate::{gaussian_rho, gaussian_sigma_zcdp};
//! let sigma = gaussian_sigma_zcdp(2.0, 0.5)?; // Δ = 2, ρ = 0.5
//! assert!(sigma >= 2.0 && sigma - 2.0 < 1e-15);
//! assert!(gaussian_rho(2.0, sigma)? >= 0.5 - 1e-15);
//! # Ok::<(), dp_core::Error>(())
//! ```

use crate::Result;
use crate::error::{invalid, non_negative, positive};
use crate::float::{div_up, inflate_ops, mul_down, mul_up, sqrt_down};
use crate::measures::Tcdp;

/// The standard deviation σ = Δ/√(2ρ) of Gaussian noise that makes a query with ℓ₂ sensitivity Δ
/// ρ-zCDP.
///
/// # Arguments
/// * `sensitivity` — the ℓ₂ sensitivity Δ, finite and > 0 (a query with Δ = 0 needs no noise);
/// * `rho` — the target ρ, finite and > 0.
///
/// # Errors
/// [`crate::Error::InvalidParam`] naming `sensitivity` or `rho` (NaN, infinite or ≤ 0), or `rho`
/// when σ overflows.
///
/// # Privacy
/// Bun–Steinke 2016, Prop. 1.6: N(0, σ²) noise gives Δ²/(2σ²)-zCDP, so σ ≥ Δ/√(2ρ) gives ρ-zCDP.
///
/// # Rounding
/// σ ≥ Δ/√(2ρ) over the reals: Δ divided, rounded up, by √(2ρ) rounded down (exact directed
/// roundings, [`crate::float::div_up`] and [`crate::float::sqrt_down`]), less than three ulps
/// above the real value. (Until 2026-12 σ was the round-to-nearest quotient plus one ulp, which fell
/// below the real value on about 0.5% of inputs, by less than 10⁻¹⁶ relative.)
///
/// # Example
/// ```
/// // Exact inputs give the exact σ: √(2 · 0.125) = 0.5, so σ = 1.5 / 0.5 = 3.
/// assert_eq!(dp_core::calibrate::gaussian_sigma_zcdp(1.5, 0.125)?, 3.0);
/// let sigma = dp_core::calibrate::gaussian_sigma_zcdp(1.0, 0.005)?; // Δ/√(2ρ) ≈ 10
/// assert!(sigma >= 10.0 && sigma - 10.0 < 1e-14);
/// assert!(dp_core::calibrate::gaussian_sigma_zcdp(1.0, 0.0).is_err());
/// # Ok::<(), dp_core::Error>(())
/// ```
pub fn gaussian_sigma_zcdp(sensitivity: f64, rho: f64) -> Result<f64> {
    let sensitivity = positive("sensitivity", sensitivity)?;
    let rho = positive("rho", rho)?;
    let two_rho = 2.0 * rho; // exact unless it overflows
    let sigma = if two_rho.is_finite() {
        div_up(sensitivity, sqrt_down(two_rho))
    } else {
        // Δ/√(2ρ) = (Δ/√ρ)/√2, each step rounded up.
        div_up(div_up(sensitivity, sqrt_down(rho)), sqrt_down(2.0))
    };
    if !sigma.is_finite() {
        return invalid("rho", rho, "sensitivity / sqrt(2 rho) overflows");
    }
    if sigma < f64::MIN_POSITIVE {
        // Below the normal range the directed roundings are not exact.
        return invalid("rho", rho, "sensitivity / sqrt(2 rho) underflows");
    }
    Ok(sigma)
}

/// The zCDP parameter ρ = Δ²/(2σ²) of one release of a query with ℓ₂ sensitivity (or metric
/// radius) Δ under N(0, σ²) noise.
///
/// # Arguments
/// * `sensitivity` — Δ, finite and ≥ 0;
/// * `sigma` — the noise standard deviation, finite and > 0.
///
/// # Errors
/// [`crate::Error::InvalidParam`] naming `sensitivity` (NaN, infinite or < 0) or `sigma` (NaN,
/// infinite or ≤ 0), or `sigma` when ρ overflows.
///
/// # Privacy
/// Bun–Steinke 2016, Prop. 1.6 (for inputs at ℓ₂ distance ≤ Δ: the metric-DP reading of
/// [`crate::measures::MetricDp::gaussian`]).
///
/// # Rounding
/// ρ ≥ Δ²/(2σ²) over the reals: Δ² rounded up divided, rounded up, by 2σ² rounded down (exact
/// directed roundings of [`crate::float`]), less than five ulps above the real value. Δ = 0 gives
/// the smallest positive double rather than 0, so the result is always a valid
/// [`crate::measures::Zcdp`]. (Until 2026-12 ρ was the round-to-nearest formula plus one ulp,
/// which fell below the real value on about 3% of inputs, by less than 2·10⁻¹⁶ relative.)
///
/// # Example
/// ```
/// let rho = dp_core::calibrate::gaussian_rho(0.2, 2.0)?;
/// assert!(rho * 8.0 >= 0.2 * 0.2 && (rho - 0.005).abs() < 1e-17);
/// assert!(dp_core::calibrate::gaussian_rho(-1.0, 2.0).is_err());
/// # Ok::<(), dp_core::Error>(())
/// ```
pub fn gaussian_rho(sensitivity: f64, sigma: f64) -> Result<f64> {
    let sensitivity = non_negative("sensitivity", sensitivity)?;
    let sigma = positive("sigma", sigma)?;
    let two_var = 2.0 * mul_down(sigma, sigma);
    if two_var < f64::MIN_POSITIVE {
        // Below the normal range the directed roundings are not exact; ρ would overflow anyway.
        return invalid("sigma", sigma, "sensitivity^2 / (2 sigma^2) overflows");
    }
    // Below the normal range the directed roundings are not exact: floor at 2·MIN_POSITIVE, an
    // upper bound on any value whose rounded evaluation falls there.
    let floor = if sensitivity > 0.0 {
        2.0 * f64::MIN_POSITIVE
    } else {
        f64::from_bits(1)
    };
    let rho = div_up(mul_up(sensitivity, sensitivity).max(floor), two_var).max(floor);
    if !rho.is_finite() {
        return invalid("sigma", sigma, "sensitivity^2 / (2 sigma^2) overflows");
    }
    Ok(rho)
}

/// The β-smooth upper bound S = max_k e^(−βk)·LS_k on the local sensitivity, from upper bounds
/// `local[k]` on the local sensitivity at distance k from the input and `tail` ≥ LS_k for every
/// k ≥ `local.len()`.
///
/// # Arguments
/// * `beta` — the smoothing parameter β, finite and > 0;
/// * `local` — LS_0, LS_1, … (each finite and ≥ 0; may be empty);
/// * `tail` — a bound on every later LS_k, finite and ≥ 0.
///
/// # Errors
/// [`crate::Error::InvalidParam`] naming `beta`, `local` or `tail`.
///
/// # Privacy
/// Nissim–Raskhodnikova–Smith 2007, Def. 2.1 / Lemma 2.3: S(x) ≤ e^β·S(x') for neighbours x, x',
/// and S ≥ LS_0. For a local bound that does not depend on the data (LS_k = LS_0 for every k),
/// S = LS_0 exactly.
///
/// # Example
/// ```
/// use dp_core::calibrate::smooth_sensitivity;
/// let s = smooth_sensitivity(0.5, &[0.1, 0.3], 0.3)?;
/// assert_eq!(s, 0.3 * (-0.5f64).exp());
/// assert_eq!(smooth_sensitivity(0.002, &[0.08], 0.08)?, 0.08);
/// # Ok::<(), dp_core::Error>(())
/// ```
pub fn smooth_sensitivity(beta: f64, local: &[f64], tail: f64) -> Result<f64> {
    let beta = positive("beta", beta)?;
    let mut best: f64 = 0.0;
    for (k, &ls) in local.iter().enumerate() {
        if !(ls.is_finite() && ls >= 0.0) {
            return invalid("local", ls, "local sensitivities must be finite and >= 0");
        }
        best = best.max((-beta * k as f64).exp() * ls);
    }
    let tail = non_negative("tail", tail)?;
    Ok(best.max((-beta * local.len() as f64).exp() * tail))
}

/// The tCDP guarantee of releasing f(x) + N(0, σ(x)²·I_d) for f: X → ℝ^d, with
/// σ(x) = S(x)/√(2ρ) and S a β-smooth upper bound on the ℓ₂ local sensitivity of f:
/// (ρ', ω)-tCDP with ρ' = 2ρ + 4dβ² and ω = 1/(4β).
///
/// # Arguments
/// * `rho` — the noise parameter ρ of σ(x) = S(x)/√(2ρ), finite and > 0;
/// * `beta` — the smoothing parameter β, finite, > 0 and < 1/4 (so that ω > 1);
/// * `dim` — the number d ≥ 1 of noisy coordinates.
///
/// # Errors
/// [`crate::Error::InvalidParam`] naming `rho`, `beta` or `dim`.
///
/// # Privacy
/// Theorem 4.6 of the homdp paper (On the Trade-off Between Expressivity and Privacy in Graph
/// Representation Learning, 2026), stated there for homomorphism-density vectors with the smooth
/// bound of Proposition 4.4: Gaussian noise with a data-dependent scale analysed under tCDP
/// (Bun–Dwork–Rothblum–Steinke 2018), smooth sensitivity after Nissim–Raskhodnikova–Smith 2007.
/// Convert with [`crate::measures::Tcdp::to_approx`] ([`crate::conversions::tcdp_to_approx`]).
///
/// # Rounding
/// ρ' is the round-to-nearest `2ρ + 4dβ·β` inflated by [`inflate_ops`] with 4 operations (three
/// are rounded: an upper bound); ω is one ulp below the round-to-nearest `1/(4β)` (a lower bound).
///
/// # Example
/// ```
/// // The homdp paper's setting: ρ = 0.01, β = ρ/5, d = 50.
/// let t = dp_core::calibrate::smooth_gaussian_tcdp(0.01, 0.002, 50)?;
/// assert!(t.rho() >= 0.0208 && t.rho() - 0.0208 < 1e-15);
/// assert!(t.omega() <= 125.0 && 125.0 - t.omega() < 1e-12);
/// assert!((t.to_approx(1e-6)?.eps() - 1.0929242831).abs() < 1e-9);
/// assert!(dp_core::calibrate::smooth_gaussian_tcdp(0.01, 0.25, 50).is_err());
/// # Ok::<(), dp_core::Error>(())
/// ```
pub fn smooth_gaussian_tcdp(rho: f64, beta: f64, dim: usize) -> Result<Tcdp> {
    let rho = positive("rho", rho)?;
    let beta = positive("beta", beta)?;
    if beta >= 0.25 {
        return invalid("beta", beta, "must be < 1/4 so that omega = 1/(4 beta) > 1");
    }
    if dim == 0 {
        return invalid("dim", 0.0, "needs at least one noisy coordinate");
    }
    let rho_prime = inflate_ops(2.0 * rho + 4.0 * dim as f64 * beta * beta, 4);
    let omega = (1.0 / (4.0 * beta)).next_down();
    Tcdp::new(rho_prime, omega)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;

    fn is_invalid<T: std::fmt::Debug>(r: Result<T>, want: &str) -> bool {
        matches!(r, Err(Error::InvalidParam { name, .. }) if name == want)
    }

    #[test]
    fn invalid_inputs_are_errors() {
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(is_invalid(gaussian_sigma_zcdp(1.0, bad), "rho"));
            assert!(is_invalid(gaussian_sigma_zcdp(bad, 0.1), "sensitivity"));
            assert!(is_invalid(gaussian_rho(1.0, bad), "sigma"));
            assert!(is_invalid(smooth_sensitivity(bad, &[1.0], 1.0), "beta"));
            assert!(is_invalid(smooth_gaussian_tcdp(bad, 0.01, 5), "rho"));
            assert!(is_invalid(smooth_gaussian_tcdp(0.1, bad, 5), "beta"));
        }
        for bad in [-1.0, f64::NAN, f64::INFINITY] {
            assert!(is_invalid(gaussian_rho(bad, 1.0), "sensitivity"));
            assert!(is_invalid(smooth_sensitivity(0.1, &[bad], 1.0), "local"));
            assert!(is_invalid(smooth_sensitivity(0.1, &[1.0], bad), "tail"));
        }
        assert!(is_invalid(gaussian_sigma_zcdp(1e300, 1e-300), "rho"));
        assert!(is_invalid(gaussian_rho(1e300, 1e-300), "sigma"));
        assert!(is_invalid(smooth_gaussian_tcdp(0.1, 0.25, 5), "beta"));
        assert!(is_invalid(smooth_gaussian_tcdp(0.1, 0.01, 0), "dim"));
    }

    /// Exact sign of `a·b·c − d·e` for finite non-negative doubles (big-integer arithmetic on
    /// their mantissas and exponents): the oracle for the directed roundings.
    fn exact_cmp(a: f64, b: f64, c: f64, d: f64, e: f64) -> std::cmp::Ordering {
        use num_bigint::BigUint;
        // x = m·2^k exactly.
        fn parts(x: f64) -> (BigUint, i64) {
            assert!(x.is_finite() && x >= 0.0);
            let bits = x.to_bits();
            let exp = ((bits >> 52) & 0x7ff) as i64;
            let frac = bits & ((1 << 52) - 1);
            if exp == 0 {
                (BigUint::from(frac), -1074)
            } else {
                (BigUint::from(frac | (1 << 52)), exp - 1075)
            }
        }
        let prod = |xs: &[f64]| {
            xs.iter().fold((BigUint::from(1u8), 0i64), |(m, k), &x| {
                let (mx, kx) = parts(x);
                (m * mx, k + kx)
            })
        };
        let (ml, kl) = prod(&[a, b, c]);
        let (mr, kr) = prod(&[d, e]);
        let k = kl.min(kr);
        (ml << (kl - k) as usize).cmp(&(mr << (kr - k) as usize))
    }

    #[test]
    fn sigma_and_rho_are_exact_upper_bounds() {
        use rand::{RngExt, SeedableRng};
        use std::cmp::Ordering::Less;
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(7);
        let mut tightest = 0;
        for _ in 0..20_000 {
            let d = 10f64.powf(rng.random_range(-3.0..3.0));
            let rho = 10f64.powf(rng.random_range(-5.0..2.0));
            // σ ≥ Δ/√(2ρ) ⟺ σ·σ·2ρ ≥ Δ·Δ.
            let sigma = gaussian_sigma_zcdp(d, rho).unwrap();
            assert_ne!(
                exact_cmp(sigma, sigma, 2.0 * rho, d, d),
                Less,
                "σ({d}, {rho})"
            );
            // Less than three ulps above: the double three below is too small.
            let low = sigma.next_down().next_down().next_down();
            assert_eq!(
                exact_cmp(low, low, 2.0 * rho, d, d),
                Less,
                "σ({d}, {rho}) loose"
            );
            // ρ ≥ Δ²/(2σ²) ⟺ ρ·2σ·σ ≥ Δ·Δ, for σ drawn on its own.
            let s = 10f64.powf(rng.random_range(-3.0..3.0));
            let r = gaussian_rho(d, s).unwrap();
            assert_ne!(exact_cmp(r, 2.0 * s, s, d, d), Less, "ρ({d}, {s})");
            // Less than five ulps above.
            let low = (0..5).fold(r, |x, _| x.next_down());
            assert_eq!(exact_cmp(low, 2.0 * s, s, d, d), Less, "ρ({d}, {s}) loose");
            if exact_cmp(r.next_down(), 2.0 * s, s, d, d) == Less {
                tightest += 1;
            }
        }
        // Often the smallest double that is an upper bound.
        assert!(tightest > 2_000, "{tightest}");
        assert_eq!(gaussian_rho(0.0, 1.0).unwrap(), f64::from_bits(1));
        let t = smooth_gaussian_tcdp(0.01, 0.002, 50).unwrap();
        assert_eq!(t.rho().to_bits(), 0x3f95_4c98_5f06_f69a);
        assert_eq!(t.omega().to_bits(), 0x405f_3fff_ffff_ffff);
        let t1 = smooth_gaussian_tcdp(1.0, 0.2, 50).unwrap();
        assert_eq!(t1.rho(), inflate_ops(2.0 + 200.0 * 0.2 * 0.2, 4));
        assert_eq!(t1.omega(), (1.0 / 0.8f64).next_down());
    }

    #[test]
    fn the_historical_roundings_could_fall_below_the_bound() {
        // Why the roundings changed: the round-to-nearest evaluation plus one ulp, as used until
        // 2026-12, is below the real σ for some inputs (found by the search below).
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(11);
        let below = (0..20_000)
            .filter(|_| {
                let d = 10f64.powf(rng.random_range(-3.0..3.0));
                let rho = 10f64.powf(rng.random_range(-5.0..2.0));
                let old = (d / (2.0 * rho).sqrt()).next_up();
                exact_cmp(old, old, 2.0 * rho, d, d) == std::cmp::Ordering::Less
            })
            .count();
        assert!(below > 0, "no input found where the old σ was too small");
    }

    #[test]
    fn rounding_directions_hold_on_a_grid() {
        for &d in &[1e-3, 0.08, 1.0, 7.5] {
            for &rho in &[1e-4, 0.01, 0.5, 3.0] {
                let sigma = gaussian_sigma_zcdp(d, rho).unwrap();
                // σ²·2ρ ≥ Δ² up to the documented relative 1e-15.
                assert!(
                    sigma * sigma * 2.0 * rho >= d * d * (1.0 - 1e-15),
                    "{d} {rho}"
                );
                let back = gaussian_rho(d, sigma).unwrap();
                assert!((back - rho).abs() <= 1e-14 * rho, "{d} {rho}");
            }
        }
        for &beta in &[1e-4, 0.002, 0.1, 0.2499] {
            let t = smooth_gaussian_tcdp(0.3, beta, 7).unwrap();
            assert!(t.omega() < 1.0 / (4.0 * beta) && t.omega() > 1.0);
            assert!(t.rho() > 2.0 * 0.3 + 28.0 * beta * beta);
        }
        assert_eq!(smooth_sensitivity(0.1, &[], 2.0).unwrap(), 2.0);
        assert_eq!(smooth_sensitivity(0.1, &[0.0, 0.0], 0.0).unwrap(), 0.0);
    }
}
