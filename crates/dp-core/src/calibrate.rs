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
//! truncation orders down. The roundings reproduce, bit for bit, the ones the paper crates used
//! before they called this module (their experiment outputs depend on them); each function's
//! `# Rounding` section says what is guaranteed.
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
use crate::float::inflate_ops;
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
/// σ is one ulp above the round-to-nearest evaluation `Δ / √(2ρ)`: the rounding homdp's release
/// has always used (its outputs depend on these exact doubles). The two roundings before that
/// ulp can together exceed it, so σ can fall below the real Δ/√(2ρ) by less than 10⁻¹⁶ relative
/// (about 0.5% of random inputs). The mechanism built with this σ reports its own ρ rounded up
/// exactly ([`crate::mechanisms::ValidGaussian::zcdp`]).
///
/// # Example
/// ```
/// let sigma = dp_core::calibrate::gaussian_sigma_zcdp(1.0, 0.005)?;
/// assert_eq!(sigma, (1.0 / 0.01f64.sqrt()).next_up());
/// assert!(sigma > 10.0 && sigma - 10.0 < 1e-14);
/// assert!(dp_core::calibrate::gaussian_sigma_zcdp(1.0, 0.0).is_err());
/// # Ok::<(), dp_core::Error>(())
/// ```
pub fn gaussian_sigma_zcdp(sensitivity: f64, rho: f64) -> Result<f64> {
    let sensitivity = positive("sensitivity", sensitivity)?;
    let rho = positive("rho", rho)?;
    let sigma = (sensitivity / (2.0 * rho).sqrt()).next_up();
    if !sigma.is_finite() {
        return invalid("rho", rho, "sensitivity / sqrt(2 rho) overflows");
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
/// One ulp above the round-to-nearest evaluation `Δ·Δ / (2σ·σ)` (so Δ = 0 gives the smallest
/// positive double, not 0): the rounding cefedgnn's ledger has always used. Three roundings
/// precede that ulp, so the result can fall below the real value by less than 2·10⁻¹⁶ relative
/// (about 3% of random inputs); [`crate::mechanisms::ValidGaussian::zcdp`] is the exactly
/// rounded-up ρ.
///
/// # Example
/// ```
/// let rho = dp_core::calibrate::gaussian_rho(0.2, 2.0)?;
/// assert_eq!(rho, (0.2 * 0.2 / (2.0 * 2.0 * 2.0f64)).next_up());
/// assert!((rho - 0.005).abs() < 1e-17);
/// assert!(dp_core::calibrate::gaussian_rho(-1.0, 2.0).is_err());
/// # Ok::<(), dp_core::Error>(())
/// ```
pub fn gaussian_rho(sensitivity: f64, sigma: f64) -> Result<f64> {
    let sensitivity = non_negative("sensitivity", sensitivity)?;
    let sigma = positive("sigma", sigma)?;
    let rho = (sensitivity * sensitivity / (2.0 * sigma * sigma)).next_up();
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

    #[test]
    fn pinned_bits_of_the_historical_roundings() {
        // Values the paper crates computed by hand before calling this module; their experiment
        // outputs depend on these exact doubles.
        let sigma = gaussian_sigma_zcdp(0.08, 0.01).unwrap();
        assert_eq!(sigma.to_bits(), (0.08 / 0.02f64.sqrt()).next_up().to_bits());
        assert_eq!(sigma.to_bits(), 0x3fe2_1a18_51ff_630b);
        let rho = gaussian_rho(0.2, 1.0).unwrap();
        assert_eq!(rho.to_bits(), 0x3f94_7ae1_47ae_147d);
        assert_eq!(gaussian_rho(0.0, 1.0).unwrap(), f64::from_bits(1));
        let t = smooth_gaussian_tcdp(0.01, 0.002, 50).unwrap();
        assert_eq!(t.rho().to_bits(), 0x3f95_4c98_5f06_f69a);
        assert_eq!(t.omega().to_bits(), 0x405f_3fff_ffff_ffff);
        let t1 = smooth_gaussian_tcdp(1.0, 0.2, 50).unwrap();
        assert_eq!(t1.rho(), inflate_ops(2.0 + 200.0 * 0.2 * 0.2, 4));
        assert_eq!(t1.omega(), (1.0 / 0.8f64).next_down());
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
