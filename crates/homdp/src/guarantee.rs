//! The privacy guarantee of the private embedding: the paper's tCDP parameters and (ε, δ).

use dp_core::calibrate::smooth_gaussian_tcdp;
use dp_core::conversions::tcdp_to_approx;
use dp_core::measures::{Compose, Tcdp, Zcdp};

use dp_core::params::{Delta, EpsilonBound, Rho};

use crate::error::{Result, invalid};

/// The guarantee of a release of `d` noisy densities per graph with noise
/// `σ_G = ‖S_G‖₂ / sqrt(2ρ)` and β-smooth sensitivities `S_G` (the paper's Theorem 4.6):
/// `(ρ', ω)`-tCDP with `ρ' = 2ρ + 4dβ²`, `ω = 1/(4β)`, converted to (ε, δ)-DP.
///
/// Built only by [`Guarantee::new`] / [`Guarantee::paper`] (and returned by
/// [`embed`](crate::embed)), so its numbers always come from validated parameters.
///
/// # Privacy
/// tCDP: Bun–Dwork–Rothblum–Steinke 2018 (STOC); smooth sensitivity: Nissim–Raskhodnikova–Smith
/// 2007; `(ρ', ω)` from [`dp_core::calibrate::smooth_gaussian_tcdp`]; conversion to (ε, δ) by
/// [`dp_core::conversions::tcdp_to_approx`] (BDRS18): with
/// `L = ln(1/δ)`, `ε = ρ' + 2·sqrt(ρ'L)` if `L ≤ (ω−1)²ρ'`, else `ε = ρ'ω + L/(ω−1)`.
/// Neighbouring inputs are graphs with the same node count differing in one edge (both within
/// the public degree bound when one is used).
///
/// # Example
/// ```
/// // The paper's setting: d = 50 patterns, ρ = 0.01, β = ρ/5, δ = 1e-6 gives "ε ≈ 1".
/// use dp_core::params::{Delta, Rho};
/// let g = homdp::Guarantee::paper(Rho::new(0.01)?, 50, Delta::new(1e-6)?)?;
/// assert!((g.eps() - 1.0929242831).abs() < 1e-9);
/// assert!((g.rho_prime() - 0.0208).abs() < 1e-15 && (g.omega() - 125.0).abs() < 1e-12);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Guarantee {
    rho: f64,
    beta: f64,
    dim: usize,
    rho_prime: f64,
    omega: f64,
    degree_rho: f64,
    delta: f64,
    eps: f64,
}

impl Guarantee {
    /// The guarantee for noise parameter ρ, smoothing β, `dim` noisy coordinates and target δ.
    ///
    /// # Errors
    /// [`crate::HomdpError::InvalidParam`] when β is not finite and positive, β ≥ 1/4 (then
    /// ω ≤ 1 and tCDP gives nothing) or `dim = 0` (ρ and δ are checked by their types);
    /// [`crate::HomdpError::Dp`] if dp-core refuses the conversion.
    ///
    /// # Privacy
    /// See the type. `ρ'` is rounded up and ω down (by dp-core's
    /// [`smooth_gaussian_tcdp`]), so the numbers stay upper bounds.
    pub fn new(rho: Rho, beta: f64, dim: usize, delta: Delta) -> Result<Self> {
        let (rho, delta) = (rho.get(), delta.get());
        if !(beta.is_finite() && beta > 0.0) {
            return invalid("beta", beta, "must be finite and > 0");
        }
        if beta >= 0.25 {
            return invalid("beta", beta, "must be < 1/4 so that omega = 1/(4 beta) > 1");
        }
        if dim == 0 {
            return invalid("dim", 0.0, "needs at least one noisy coordinate");
        }
        let tcdp = smooth_gaussian_tcdp(rho, beta, dim)?;
        let (eps, _order) = tcdp_to_approx(tcdp.rho(), tcdp.omega(), delta)?;
        Ok(Self {
            rho,
            beta,
            dim,
            rho_prime: tcdp.rho(),
            omega: tcdp.omega(),
            degree_rho: 0.0,
            delta,
            eps,
        })
    }

    /// This guarantee composed with a ρ_Δ-zCDP degree-bound estimate
    /// ([`crate::estimate_degree_bound`]) run on the same data: `(ρ' + ρ_Δ, ω)`-tCDP, and the
    /// (ε, δ) of that. Replaces an earlier estimate's budget (one estimate per release).
    ///
    /// # Errors
    /// [`crate::HomdpError::Dp`] if dp-core refuses the composition or the conversion.
    ///
    /// # Privacy
    /// ρ_Δ-zCDP is (ρ_Δ, ∞)-tCDP; tCDP composes adaptively to (ρ₁ + ρ₂, min(ω₁, ω₂))
    /// (Bun–Dwork–Rothblum–Steinke 2018), computed by [`dp_core::measures::Compose`] (rounded up).
    ///
    /// # Example
    /// ```
    /// use dp_core::measures::Zcdp;
    /// use dp_core::params::{Delta, Rho};
    /// let g = homdp::Guarantee::paper(Rho::new(0.0095)?, 50, Delta::new(1e-6)?)?;
    /// let both = g.with_degree_estimate(Zcdp::new(0.001)?)?;
    /// assert!((both.tcdp().rho() - (g.rho_prime() + 0.001)).abs() < 1e-15);
    /// assert!(both.eps() > g.eps() && both.eps() < 1.0929242831);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_degree_estimate(&self, estimate: Zcdp) -> Result<Self> {
        let with = Self {
            degree_rho: estimate.rho(),
            ..*self
        };
        let total = with.composed()?;
        let (eps, _order) = tcdp_to_approx(total.rho(), total.omega(), self.delta)?;
        Ok(Self { eps, ..with })
    }

    /// `(ρ' + ρ_Δ, ω)`: the release's tCDP composed with the degree estimate's (ρ_Δ, ∞).
    fn composed(&self) -> Result<Tcdp> {
        Ok(Tcdp::new(self.rho_prime, self.omega)?
            .compose(&Tcdp::new(self.degree_rho, f64::INFINITY)?)?)
    }

    /// [`Guarantee::new`] with the reference code's smoothing `β = ρ/5`.
    ///
    /// # Errors
    /// As [`Guarantee::new`].
    pub fn paper(rho: Rho, dim: usize, delta: Delta) -> Result<Self> {
        Self::new(rho, rho.get() / 5.0, dim, delta)
    }

    /// The noise parameter ρ (`σ_G = ‖S_G‖₂ / sqrt(2ρ)`).
    pub fn rho(&self) -> f64 {
        self.rho
    }

    /// The smoothing parameter β.
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// Number of noisy coordinates `d` (an appended `|V(G)|` column is not one).
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// `ρ' = 2ρ + 4dβ²`.
    pub fn rho_prime(&self) -> f64 {
        self.rho_prime
    }

    /// `ω = 1/(4β)`.
    pub fn omega(&self) -> f64 {
        self.omega
    }

    /// ρ_Δ of a private degree-bound estimate composed into this guarantee (0: none, the
    /// degree bound was public or absent).
    pub fn degree_rho(&self) -> f64 {
        self.degree_rho
    }

    /// The whole tCDP guarantee as a dp-core measure, `(ρ' + ρ_Δ, ω)` (for composition with
    /// other releases).
    pub fn tcdp(&self) -> Tcdp {
        self.composed().expect("validated on construction")
    }

    /// Target δ.
    pub fn delta(&self) -> f64 {
        self.delta
    }

    /// ε of the (ε, δ)-DP guarantee (of the release and, if any, its degree estimate).
    pub fn eps(&self) -> f64 {
        self.eps
    }

    /// [`Self::eps`] as dp-core's computed bound (∞, the safe direction, should it ever be NaN).
    pub(crate) fn eps_bound(&self) -> EpsilonBound {
        EpsilonBound::new(self.eps).unwrap_or(EpsilonBound::UNBOUNDED)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::HomdpError;

    #[test]
    fn paper_values() -> Result<()> {
        let g = Guarantee::paper(Rho::new(0.01)?, 50, Delta::new(1e-6)?)?;
        assert!((g.eps() - 1.0929242831).abs() < 1e-9, "{}", g.eps());
        // The closed form, branch L ≤ (ω−1)²ρ'.
        let (rp, l) = (0.0208f64, (1e6f64).ln());
        let closed = rp + 2.0 * (rp * l).sqrt();
        assert!(g.eps() >= closed && g.eps() - closed < 1e-12);
        let g1 = Guarantee::paper(Rho::new(1.0)?, 50, Delta::new(1e-6)?)?;
        assert!((g1.eps() - 67.762).abs() < 5e-4, "{}", g1.eps());
        // Other branch: ρ' = 10, ω = 1.25.
        let closed1 = 10.0 * 1.25 + l / 0.25;
        assert!(g1.eps() >= closed1 && g1.eps() - closed1 < 1e-9);
        assert_eq!(g1.tcdp().omega(), g1.omega());
        Ok(())
    }

    #[test]
    fn paper_values_keep_their_bits() -> Result<()> {
        // Pinned before the calibration moved to dp-core: the experiments' CSVs depend on these.
        let g = Guarantee::paper(Rho::new(0.01)?, 50, Delta::new(1e-6)?)?;
        assert_eq!(g.rho_prime().to_bits(), 0x3f95_4c98_5f06_f69a);
        assert_eq!(g.omega().to_bits(), 0x405f_3fff_ffff_ffff);
        assert_eq!(g.eps().to_bits(), 0x3ff1_7c9e_2c4f_04c6);
        Ok(())
    }

    #[test]
    fn invalid_parameters() {
        let bad = |r: Result<Guarantee>, name: &str| {
            assert!(
                matches!(r, Err(HomdpError::InvalidParam { name: n, .. }) if n == name),
                "{name}"
            );
        };
        let (rho, delta) = (Rho::new(0.1).unwrap(), Delta::new(1e-6).unwrap());
        bad(Guarantee::new(rho, 0.25, 5, delta), "beta");
        bad(Guarantee::new(rho, 0.0, 5, delta), "beta");
        bad(Guarantee::new(rho, f64::NAN, 5, delta), "beta");
        bad(Guarantee::new(rho, 0.01, 0, delta), "dim");
        // ρ and δ outside their domains cannot reach it: their types refuse them.
        for r in [0.0, -1.0, f64::INFINITY] {
            assert!(Rho::new(r).is_err());
        }
        for d in [0.0, 1.0, f64::NAN] {
            assert!(Delta::new(d).is_err());
        }
    }
}
