//! ε(p) of repeated Gaussian releases of one node's row, and the privacy report.

use dp_core::accountant::RdpAccountant;
use dp_core::conversions::gaussian_rdp_to_approx_classic;
use dp_core::params::{Delta, EpsilonBound, NoiseMultiplier, NoiseScale};
use serde::Serialize;

use super::config::ReleaseConfig;
use crate::error::{Result, non_negative, positive};

/// What the metric-DP guarantee does not cover, stated in every [`PrivacyReport`].
pub const NOT_COVERED: &str = "The guarantee covers only the released noisy boundary-embedding \
rows. Model parameters and gradients shared with the server every round are NOT covered by any \
privacy guarantee, and neither are the cross-edge attributes visible to both banks.";

/// Closed-form metric-DP ε(p) of `releases` Gaussian releases with ratio p/σ:
/// ε(p) = R p²/(2σ²) + (p/σ)·√(2 R ln(1/δ)).
///
/// # Errors
/// [`crate::FedError::InvalidParam`] naming `p_over_sigma` (not finite ≥ 0) or `delta` (outside (0, 1)).
///
/// # Privacy
/// RDP of the Gaussian at distance p, α p²/(2σ²) per release (Mironov 2017, Prop. 7), composed R
/// times and converted with the classic bound ε = ε_RDP(α) + ln(1/δ)/(α−1) minimised over real
/// α > 1 (Mironov 2017, Prop. 3); CEFEDGNN.md gives the worked values. Computed by
/// [`dp_core::conversions::gaussian_rdp_to_approx_classic`] (rounded one ulp up).
///
/// # Example
/// ```
/// let eps = cefedgnn::privacy::closed_form_eps(63, 0.1, "1e-5".parse()?)?;
/// assert!((eps - 4.12).abs() < 0.005);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn closed_form_eps(releases: u64, p_over_sigma: f64, delta: Delta) -> Result<f64> {
    let x = non_negative("p_over_sigma", p_over_sigma)?;
    Ok(gaussian_rdp_to_approx_classic(releases, x, delta.get())?)
}

/// dp_accounting's default orders refined with 1.01, 1.02, …, 1.99: for large ε the optimal
/// order lies just above 1, where the default grid (step 0.1) is too coarse to reach the closed
/// form (R = 938, p/σ = 1: 617.7 on the default grid against 616.0 in closed form).
fn orders() -> Vec<f64> {
    let mut o: Vec<f64> = (1..100).map(|i| 1.0 + f64::from(i) / 100.0).collect();
    o.extend(dp_core::accountant::default_orders());
    o.sort_by(f64::total_cmp);
    o.dedup_by(|a, b| (*a - *b).abs() < 1e-12);
    o
}

/// ε(p) and its order of `releases` Gaussian releases (standard deviation `sigma`) of a row, for
/// rows at L2 distance ≤ `radius`, through dp-core's RDP accountant: `(improved, classic)`, each
/// as `(ε, order)`.
///
/// # Errors
/// [`crate::FedError::InvalidParam`] naming `sigma` (not finite > 0), `radius` (not finite ≥ 0) or
/// `delta` (outside (0, 1)).
///
/// # Privacy
/// Mironov 2017, Prop. 7 with sensitivity p; improved conversion CKS20 Prop. 12 (dp_accounting's),
/// classic conversion Mironov 2017, Prop. 3, both on dp_accounting's order grid refined to steps
/// of 0.01 below 2 (any order is valid; a finer grid only tightens the minimum).
///
/// # Example
/// ```
/// let delta = "1e-5".parse()?;
/// let ((eps, _), (classic, _)) = cefedgnn::privacy::rdp_eps(63, "1".parse()?, 0.1, delta)?;
/// let closed = cefedgnn::privacy::closed_form_eps(63, 0.1, delta)?;
/// assert!(eps <= classic && eps <= closed);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn rdp_eps(
    releases: u64,
    sigma: NoiseScale,
    radius: f64,
    delta: Delta,
) -> Result<((f64, f64), (f64, f64))> {
    let sigma = positive("sigma", sigma.get())?;
    let radius = non_negative("radius", radius)?;
    let delta = delta.get();
    if releases == 0 || radius == 0.0 {
        return Ok(((0.0, f64::NAN), (0.0, f64::NAN)));
    }
    let mut acc = RdpAccountant::with_orders(orders())?;
    acc.compose_gaussian_with_sensitivity(sigma, radius, releases)?;
    Ok((acc.epsilon(delta)?, acc.epsilon_classic(delta)?))
}

/// The standard-DP figure for the same noise: worst-case radius p = 2C (two clipped rows).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct StandardDpFigure {
    /// The radius 2C.
    pub radius: f64,
    /// Closed-form ε.
    pub eps_closed_form: EpsilonBound,
    /// ε through the RDP accountant (improved conversion).
    pub eps_rdp: EpsilonBound,
}

/// The privacy report of a run: metric DP of the boundary releases at radius p, the standard-DP
/// figure at p = 2C, the release counts, and the statement of what is not covered.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PrivacyReport {
    /// Noise multiplier σ₀.
    pub sigma0: NoiseMultiplier,
    /// Clip norm C.
    pub clip: f64,
    /// σ = σ₀·C.
    pub sigma: NoiseScale,
    /// δ.
    pub delta: Delta,
    /// Metric radius p.
    pub radius: f64,
    /// Largest number of rows released for one node (the R of the bound).
    pub max_releases: u64,
    /// Nodes with at least one release.
    pub nodes_released: usize,
    /// Total rows released.
    pub total_releases: u64,
    /// Closed-form ε(p) at R = `max_releases` (∞ when σ₀ = 0).
    pub eps_closed_form: EpsilonBound,
    /// ε(p) by the RDP accountant, improved conversion (∞ when σ₀ = 0).
    pub eps_rdp: EpsilonBound,
    /// The RDP order attaining `eps_rdp` (NaN without releases; `eps_rdp_order` in a record).
    #[serde(rename = "eps_rdp_order")]
    pub rdp_order: f64,
    /// ε(p) by the RDP accountant, classic conversion.
    pub eps_rdp_classic: EpsilonBound,
    /// Standard DP for the same noise (p = 2C).
    pub standard_dp: StandardDpFigure,
    /// Ledger entries recorded (one per release batch).
    pub ledger_entries: usize,
    /// What the guarantee does not cover ([`NOT_COVERED`]).
    pub not_covered: &'static str,
}

/// How often a client released rows: the counts a [`PrivacyReport`] is computed from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReleaseCounts {
    /// The largest number of releases of one node (R).
    pub max_releases: u64,
    /// Nodes released at least once.
    pub nodes_released: usize,
    /// Releases in all.
    pub total_releases: u64,
    /// Ledger entries recorded (one per release batch).
    pub ledger_entries: usize,
}

impl PrivacyReport {
    /// The report for releases under `config` (σ₀, C, p, δ; its budget is not used) with
    /// `counts`: a node released at most `counts.max_releases` times with noise σ₀·C.
    ///
    /// # Errors
    /// [`crate::FedError::InvalidParam`] naming `clip` (not finite > 0), `radius` or `sigma` (σ₀·C
    /// not finite); σ₀ and δ are checked by their types.
    ///
    /// # Privacy
    /// As [`rdp_eps`] and [`closed_form_eps`]; σ₀ = 0 means no noise, reported as ε = ∞.
    ///
    /// # Example
    /// ```
    /// use cefedgnn::privacy::{PrivacyReport, ReleaseConfig, ReleaseCounts};
    /// use dp_core::params::{Delta, NoiseMultiplier};
    /// let config = ReleaseConfig {
    ///     clip: 1.0,
    ///     sigma0: NoiseMultiplier::ONE,
    ///     radius: 0.1,
    ///     delta: Delta::TEN_TO_MINUS_5,
    ///     budget_eps: None,
    /// };
    /// let counts = ReleaseCounts { max_releases: 938, nodes_released: 938, total_releases: 938, ledger_entries: 0 };
    /// let r = PrivacyReport::compute(&config, counts)?;
    /// assert!(r.eps_rdp.get() < 25.0 && r.standard_dp.eps_closed_form.get() > 1000.0);
    /// assert!(r.not_covered.contains("NOT covered"));
    /// # Ok::<(), cefedgnn::FedError>(())
    /// ```
    pub fn compute(config: &ReleaseConfig, counts: ReleaseCounts) -> Result<Self> {
        let ReleaseConfig {
            sigma0,
            clip,
            radius,
            delta,
            budget_eps: _,
        } = *config;
        let ReleaseCounts {
            max_releases,
            nodes_released,
            total_releases,
            ledger_entries,
        } = counts;
        let clip = positive("clip", clip)?;
        let radius = non_negative("radius", radius)?;
        let sigma = sigma0.scale(clip)?;
        let (eps_cf, (eps_rdp, order), (classic, _), std) = if sigma0.get() == 0.0 {
            let inf = f64::INFINITY;
            let std = StandardDpFigure {
                radius: 2.0 * clip,
                eps_closed_form: EpsilonBound::UNBOUNDED,
                eps_rdp: EpsilonBound::UNBOUNDED,
            };
            (inf, (inf, f64::NAN), (inf, f64::NAN), std)
        } else {
            let cf = closed_form_eps(max_releases, radius / sigma.get(), delta)?;
            let (imp, cl) = rdp_eps(max_releases, sigma, radius, delta)?;
            let std = StandardDpFigure {
                radius: 2.0 * clip,
                eps_closed_form: EpsilonBound::new(closed_form_eps(
                    max_releases,
                    2.0 / sigma0.get(),
                    delta,
                )?)?,
                eps_rdp: EpsilonBound::new(rdp_eps(max_releases, sigma, 2.0 * clip, delta)?.0.0)?,
            };
            (cf, imp, cl, std)
        };
        Ok(Self {
            sigma0,
            clip,
            sigma,
            delta,
            radius,
            max_releases,
            nodes_released,
            total_releases,
            eps_closed_form: EpsilonBound::new(eps_cf)?,
            eps_rdp: EpsilonBound::new(eps_rdp)?,
            rdp_order: order,
            eps_rdp_classic: EpsilonBound::new(classic)?,
            standard_dp: std,
            ledger_entries,
            not_covered: NOT_COVERED,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::FedError;

    fn delta(d: f64) -> Delta {
        Delta::new(d).unwrap()
    }

    fn sigma(s: f64) -> NoiseScale {
        NoiseScale::new(s).unwrap()
    }

    #[test]
    fn worked_values_of_the_design_note() {
        let d = delta(1e-5);
        let e1 = closed_form_eps(63, 0.1, d).unwrap();
        let e2 = closed_form_eps(938, 0.1, d).unwrap();
        let e3 = closed_form_eps(938, 1.0, d).unwrap();
        assert!((e1 - 4.12).abs() < 0.005, "{e1}");
        assert!((e2 - 19.4).abs() < 0.05, "{e2}");
        assert!((e3 - 616.0).abs() < 0.5, "{e3}");
    }

    #[test]
    fn closed_form_is_dp_cores_bound() {
        // dp-core's rounded-up closed form, within 10⁻¹⁴ relative of the values pinned before
        // the formula moved to dp-core (then rounded by hand, one ulp up).
        let d = delta(1e-5);
        for (r, mu, old) in [
            (63, 0.1, 0x4010_7eae_52db_a63a),
            (938, 1.0, 0x4083_3fb5_17f5_e19f),
        ] {
            let eps = closed_form_eps(r, mu, d).unwrap();
            assert_eq!(eps, gaussian_rdp_to_approx_classic(r, mu, d.get()).unwrap());
            let old = f64::from_bits(old);
            assert!(eps >= old && eps - old < 1e-14 * old, "{eps} vs {old}");
        }
        assert_eq!(closed_form_eps(0, 1.0, d).unwrap(), 0.0);
        assert_eq!(closed_form_eps(5, 0.0, d).unwrap(), 0.0);
    }

    #[test]
    fn accountant_is_at_most_the_closed_form() {
        for &(r, x) in &[
            (63u64, 0.1),
            (938, 0.1),
            (938, 1.0),
            (1, 0.5),
            (10, 2.0),
            (500, 0.05),
        ] {
            // σ = 2, p = x·σ.
            let ((imp, order), (classic, _)) =
                rdp_eps(r, sigma(2.0), 2.0 * x, delta(1e-5)).unwrap();
            let closed = closed_form_eps(r, x, delta(1e-5)).unwrap();
            assert!(imp <= closed, "R={r} p/σ={x}: {imp} > {closed}");
            assert!(imp <= classic, "improved {imp} vs classic {classic}");
            // The classic conversion on a grid is within a few percent of the continuous optimum.
            assert!(classic >= closed * (1.0 - 1e-9) && classic <= closed * 1.05 + 1e-9);
            assert!(order > 1.0);
        }
        assert_eq!(rdp_eps(0, sigma(1.0), 1.0, delta(1e-5)).unwrap().0.0, 0.0);
        assert!(matches!(
            rdp_eps(1, sigma(0.0), 1.0, delta(1e-5)),
            Err(FedError::InvalidParam { name: "sigma", .. })
        ));
        assert!(closed_form_eps(1, -1.0, delta(1e-5)).is_err());
        assert!(Delta::new(1.0).is_err());
    }

    #[test]
    fn report_states_standard_dp_is_vacuous_and_scope() {
        // σ₀ = 0.5, p = 0.1σ, 938 releases: metric DP ≈ 19, standard DP (p = 2C) far above 1000.
        let config = |sigma0| ReleaseConfig {
            clip: 2.0,
            sigma0: NoiseMultiplier::new(sigma0).unwrap(),
            radius: 0.1,
            delta: delta(1e-5),
            budget_eps: None,
        };
        let counts = |max_releases, nodes_released, total_releases, ledger_entries| ReleaseCounts {
            max_releases,
            nodes_released,
            total_releases,
            ledger_entries,
        };
        let r = PrivacyReport::compute(&config(0.5), counts(938, 10, 9380, 938)).unwrap();
        assert_eq!(r.sigma.get(), 1.0);
        assert!(r.eps_rdp <= r.eps_closed_form && r.eps_closed_form.get() < 20.0);
        assert!(r.standard_dp.eps_rdp.get() > 1000.0 && r.standard_dp.radius == 4.0);
        assert!(r.not_covered.contains("Model parameters and gradients"));
        let none = PrivacyReport::compute(
            &ReleaseConfig {
                clip: 1.0,
                ..config(0.0)
            },
            counts(3, 1, 3, 0),
        )
        .unwrap();
        assert!(!none.eps_rdp.is_finite() && !none.standard_dp.eps_closed_form.is_finite());
        // σ₀ < 0 cannot reach a report: its type refuses it.
        assert!(NoiseMultiplier::new(-0.1).is_err());
    }
}
