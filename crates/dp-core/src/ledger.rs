//! The privacy ledger: a record of every release that refuses to exceed a configured budget.

use serde::Serialize;

use crate::accountant::RdpAccountant;
use crate::measures::{ApproxDp, Compose, PureDp, RdpCurve, Tcdp, Zcdp};
use crate::{Error, Result};

/// The guarantee of one recorded release.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub enum Measure {
    /// ε-DP.
    Pure(PureDp),
    /// (ε, δ)-DP.
    Approx(ApproxDp),
    /// ρ-zCDP.
    Zcdp(Zcdp),
    /// (ρ, ω)-tCDP.
    Tcdp(Tcdp),
    /// An RDP curve on the ledger's order grid.
    Rdp(RdpCurve),
}

impl From<PureDp> for Measure {
    fn from(m: PureDp) -> Self {
        Self::Pure(m)
    }
}
impl From<ApproxDp> for Measure {
    fn from(m: ApproxDp) -> Self {
        Self::Approx(m)
    }
}
impl From<Zcdp> for Measure {
    fn from(m: Zcdp) -> Self {
        Self::Zcdp(m)
    }
}
impl From<Tcdp> for Measure {
    fn from(m: Tcdp) -> Self {
        Self::Tcdp(m)
    }
}
impl From<RdpCurve> for Measure {
    fn from(m: RdpCurve) -> Self {
        Self::Rdp(m)
    }
}

/// One recorded release: what was released, its guarantee, and the parameters that produced it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LedgerEntry {
    label: String,
    measure: Measure,
    params: Vec<(String, f64)>,
}

impl LedgerEntry {
    /// What was released.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Its guarantee.
    pub fn measure(&self) -> &Measure {
        &self.measure
    }

    /// The mechanism parameters (name, value), e.g. `("sigma", 4.0)`.
    pub fn params(&self) -> &[(String, f64)] {
        &self.params
    }
}

/// Records releases and their guarantees, composes them, and refuses a release that would exceed the
/// budget (an error, and nothing is recorded or released).
///
/// Composition: pure and (ε, δ) entries add (basic composition); zCDP, tCDP and RDP entries are
/// accumulated as one RDP curve on the ledger's orders and converted once (CKS20 Prop. 12) at the δ
/// left by the (ε, δ) entries: total = (Σε + ε_RDP(δ_budget − Σδ), δ_budget).
///
/// # Example
/// ```
/// use dp_core::ledger::PrivacyLedger;
/// use dp_core::measures::{ApproxDp, PureDp, Zcdp};
/// use dp_core::Error;
///
/// let mut ledger = PrivacyLedger::new(ApproxDp::new(1.0, 1e-6)?)?;
/// ledger.record("degree histogram", PureDp::new(0.5)?, &[("scale", 2.0)])?;
/// let refused = ledger.spend("edge count", PureDp::new(0.6)?, &[], || 42);
/// assert!(matches!(refused, Err(Error::BudgetExceeded { .. })));
/// assert_eq!(ledger.entries().len(), 1);
/// ledger.record("embedding", Zcdp::new(0.001)?, &[("sigma", 22.4)])?;
/// assert!(ledger.total().eps() <= 1.0 && ledger.total().eps() > 0.5);
/// # Ok::<(), dp_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct PrivacyLedger {
    budget: ApproxDp,
    approx: ApproxDp,
    rdp: RdpAccountant,
    has_rdp: bool,
    total: ApproxDp,
    entries: Vec<LedgerEntry>,
}

impl PrivacyLedger {
    /// An empty ledger with `budget`, accumulating RDP on dp_accounting's default orders.
    ///
    /// # Errors
    /// None at present; the `Result` leaves room for budget validation.
    pub fn new(budget: ApproxDp) -> Result<Self> {
        Self::with_accountant(budget, RdpAccountant::new())
    }

    /// An empty ledger with `budget` and a custom RDP order grid.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] (`orders`) for an invalid grid.
    pub fn with_orders(budget: ApproxDp, orders: Vec<f64>) -> Result<Self> {
        Self::with_accountant(budget, RdpAccountant::with_orders(orders)?)
    }

    fn with_accountant(budget: ApproxDp, rdp: RdpAccountant) -> Result<Self> {
        let zero = ApproxDp::new(0.0, 0.0)?;
        Ok(Self {
            budget,
            approx: zero,
            rdp,
            has_rdp: false,
            total: zero,
            entries: Vec::new(),
        })
    }

    /// The configured budget.
    pub fn budget(&self) -> ApproxDp {
        self.budget
    }

    /// The composed guarantee of everything recorded so far (never above the budget).
    pub fn total(&self) -> ApproxDp {
        self.total
    }

    /// The recorded releases, in order.
    pub fn entries(&self) -> &[LedgerEntry] {
        &self.entries
    }

    /// Records a release if the composed total stays within the budget; returns the new total.
    ///
    /// # Errors
    /// [`Error::BudgetExceeded`] (naming `eps` or `delta`) if the release would exceed the budget;
    /// [`Error::InvalidParam`] if an RDP curve is on another order grid. Nothing is recorded on error.
    ///
    /// # Privacy
    /// See the type's docs for the composition rules.
    pub fn record(
        &mut self,
        label: impl Into<String>,
        measure: impl Into<Measure>,
        params: &[(&str, f64)],
    ) -> Result<ApproxDp> {
        let measure = measure.into();
        let mut approx = self.approx;
        let mut rdp = self.rdp.clone();
        let mut has_rdp = self.has_rdp;
        match &measure {
            Measure::Pure(p) => approx = approx.compose(&p.to_approx())?,
            Measure::Approx(a) => approx = approx.compose(a)?,
            Measure::Zcdp(z) => {
                rdp.compose_zcdp(z, 1)?;
                has_rdp = true;
            }
            Measure::Tcdp(t) => {
                let curve = t.to_rdp(rdp.orders())?;
                rdp.compose_curve(&curve)?;
                has_rdp = true;
            }
            Measure::Rdp(c) => {
                rdp.compose_curve(c)?;
                has_rdp = true;
            }
        }
        let (eps, delta) = if has_rdp {
            let left = self.budget.delta() - approx.delta();
            let eps_rdp = if left > 0.0 {
                rdp.epsilon(left)?.0
            } else {
                f64::INFINITY
            };
            (
                crate::float::add_up(approx.eps(), eps_rdp),
                self.budget.delta(),
            )
        } else {
            (approx.eps(), approx.delta())
        };
        if approx.delta() > self.budget.delta() {
            return Err(Error::BudgetExceeded {
                name: "delta",
                spent: approx.delta(),
                budget: self.budget.delta(),
            });
        }
        if eps.is_nan() || eps > self.budget.eps() {
            return Err(Error::BudgetExceeded {
                name: "eps",
                spent: eps,
                budget: self.budget.eps(),
            });
        }
        self.total = ApproxDp::new(eps, delta)?;
        self.approx = approx;
        self.rdp = rdp;
        self.has_rdp = has_rdp;
        self.entries.push(LedgerEntry {
            label: label.into(),
            measure,
            params: params.iter().map(|&(n, v)| (n.to_owned(), v)).collect(),
        });
        Ok(self.total)
    }

    /// Records the release, then runs `release` and returns its output; if the budget would be exceeded,
    /// returns the error without running `release`.
    ///
    /// # Errors
    /// As [`PrivacyLedger::record`].
    ///
    /// # Privacy
    /// Nothing is released when the budget would be exceeded.
    pub fn spend<T>(
        &mut self,
        label: impl Into<String>,
        measure: impl Into<Measure>,
        params: &[(&str, f64)],
        release: impl FnOnce() -> T,
    ) -> Result<T> {
        self.record(label, measure, params)?;
        Ok(release())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_record_nothing() {
        let mut l = PrivacyLedger::new(ApproxDp::new(1.0, 1e-6).unwrap()).unwrap();
        l.record("a", ApproxDp::new(0.2, 5e-7).unwrap(), &[])
            .unwrap();
        let r = l.record("b", ApproxDp::new(0.2, 6e-7).unwrap(), &[]);
        assert!(matches!(
            r,
            Err(Error::BudgetExceeded { name: "delta", .. })
        ));
        // All δ spent by the (ε, δ) entry: no δ left for a zCDP entry.
        let mut full = PrivacyLedger::new(ApproxDp::new(10.0, 1e-6).unwrap()).unwrap();
        full.record("a", ApproxDp::new(0.1, 1e-6).unwrap(), &[])
            .unwrap();
        let r = full.record("z", Zcdp::new(1e-9).unwrap(), &[]);
        assert!(matches!(r, Err(Error::BudgetExceeded { name: "eps", .. })));
        assert_eq!(full.entries().len(), 1);
        assert_eq!(l.total(), ApproxDp::new(0.2, 5e-7).unwrap());
        let mut ran = false;
        let r = l.spend("c", PureDp::new(0.9).unwrap(), &[("scale", 1.0)], || {
            ran = true
        });
        assert!(r.is_err() && !ran);
        let bad = RdpCurve::new(vec![2.0], vec![0.1]).unwrap();
        assert!(matches!(
            l.record("d", bad, &[]),
            Err(Error::InvalidParam { name: "orders", .. })
        ));
        assert_eq!(l.entries().len(), 1);
    }

    #[test]
    fn zcdp_entries_compose_through_rdp() {
        let mut l = PrivacyLedger::new(ApproxDp::new(5.0, 1e-5).unwrap()).unwrap();
        for i in 0..10 {
            l.record(
                format!("round {i}"),
                Zcdp::new(0.01).unwrap(),
                &[("sigma", 7.07)],
            )
            .unwrap();
        }
        let mut acc = RdpAccountant::new();
        acc.compose_zcdp(&Zcdp::new(0.1).unwrap(), 1).unwrap();
        let want = acc.epsilon(1e-5).unwrap().0;
        assert!((l.total().eps() - want).abs() < 1e-12 && l.total().eps() >= want - 1e-15);
        assert_eq!(l.total().delta(), 1e-5);
        assert_eq!(l.entries()[3].label(), "round 3");
        assert_eq!(l.entries()[3].params()[0], ("sigma".to_owned(), 7.07));
        l.record("t", Tcdp::new(0.01, 8.0).unwrap(), &[]).unwrap();
        assert!(l.total().eps() > want);
    }
}
