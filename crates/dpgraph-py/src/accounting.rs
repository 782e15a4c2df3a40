//! `dpgraph.accounting`: conversions between privacy measures, the RDP accountant and the
//! privacy ledger, computed by dp-core.

use pyo3::prelude::*;

use crate::error::guard;

/// zcdp_to_approx(rho, delta) -> float
///
/// ε of a ρ-zCDP mechanism at δ (Bun & Steinke 2016, Prop. 1.3: ρ + 2√(ρ ln(1/δ)), rounded up),
/// as dp-core computes it. Raises `InvalidParameter` for ρ < 0, NaN or δ ∉ (0, 1).
#[pyfunction]
pub(crate) fn zcdp_to_approx(rho: f64, delta: f64) -> PyResult<f64> {
    guard(|| dp_core::conversions::zcdp_to_approx(rho, delta))
}

/// gaussian_exact_eps(mu, delta) -> float
///
/// The tight ε(δ) of a Gaussian mechanism with shift μ = sensitivity/σ (Balle & Wang 2018,
/// Thm. 8).
#[pyfunction]
pub(crate) fn gaussian_exact_eps(mu: f64, delta: f64) -> PyResult<f64> {
    guard(|| dp_core::conversions::gaussian_exact_eps(mu, delta))
}

/// tcdp_to_approx(rho, omega, delta) -> tuple[float, float]
///
/// ε of a (ρ, ω)-tCDP mechanism at δ (Bun, Dwork, Rothblum & Steinke 2018) and the Rényi order
/// at which it is attained. Raises `InvalidParameter` for invalid arguments.
#[pyfunction]
pub(crate) fn tcdp_to_approx(rho: f64, omega: f64, delta: f64) -> PyResult<(f64, f64)> {
    guard(|| dp_core::conversions::tcdp_to_approx(rho, omega, delta))
}

/// RdpAccountant(orders=None)
///
/// Rényi-DP accountant over a grid of orders (dp_accounting's default grid unless given):
/// compose Gaussian mechanisms and zCDP, then convert to (ε, δ). Same numbers as dp-core's
/// `RdpAccountant` to the last bit.
#[pyclass(module = "dpgraph.accounting")]
pub(crate) struct RdpAccountant {
    inner: dp_core::accountant::RdpAccountant,
}

#[pymethods]
impl RdpAccountant {
    #[new]
    #[pyo3(signature = (orders=None))]
    fn new(orders: Option<Vec<f64>>) -> PyResult<Self> {
        let inner = match orders {
            None => dp_core::accountant::RdpAccountant::new(),
            Some(o) => guard(|| dp_core::accountant::RdpAccountant::with_orders(o))?,
        };
        Ok(Self { inner })
    }

    /// compose_gaussian(noise_multiplier, count=1)
    ///
    /// Adds `count` Gaussian mechanisms with noise multiplier σ/Δ.
    #[pyo3(signature = (noise_multiplier, count=1))]
    fn compose_gaussian(&mut self, noise_multiplier: f64, count: u64) -> PyResult<()> {
        guard(|| {
            self.inner
                .compose_gaussian(noise_multiplier, count)
                .map(|_| ())
        })
    }

    /// compose_zcdp(rho, count=1)
    #[pyo3(signature = (rho, count=1))]
    fn compose_zcdp(&mut self, rho: f64, count: u64) -> PyResult<()> {
        guard(|| {
            let z = dp_core::measures::Zcdp::new(rho)?;
            self.inner.compose_zcdp(&z, count).map(|_| ())
        })
    }

    /// epsilon(delta) -> tuple[float, float]: (ε, the order attaining it), the improved
    /// conversion (Canonne, Kamath & Steinke 2020, Prop. 12).
    fn epsilon(&self, delta: f64) -> PyResult<(f64, f64)> {
        guard(|| self.inner.epsilon(delta))
    }

    /// epsilon_classic(delta) -> tuple[float, float]: Mironov 2017, Prop. 3.
    fn epsilon_classic(&self, delta: f64) -> PyResult<(f64, f64)> {
        guard(|| self.inner.epsilon_classic(delta))
    }

    /// delta(eps) -> tuple[float, float]: (δ, the order attaining it).
    fn delta(&self, eps: f64) -> PyResult<(f64, f64)> {
        guard(|| self.inner.delta(eps))
    }
}

/// PrivacyLedger(eps, delta, orders=None)
///
/// A record of every release that refuses to exceed the budget (ε, δ): `record` composes the
/// release's guarantee with those before it and raises `BudgetExceeded` (recording nothing)
/// when the total would exceed the budget. Pure and (ε, δ) entries add; zCDP and tCDP entries
/// accumulate as one RDP curve on `orders` (dp_accounting's grid by default), converted once at
/// the δ the (ε, δ) entries leave (Canonne, Kamath & Steinke 2020, Prop. 12). Same numbers as
/// dp-core's `PrivacyLedger` to the last bit.
#[pyclass(module = "dpgraph.accounting")]
pub(crate) struct PrivacyLedger {
    inner: dp_core::ledger::PrivacyLedger,
}

/// The measure of a release from the keyword arguments of `PrivacyLedger.record`.
fn measure(
    eps: Option<f64>,
    delta: Option<f64>,
    rho: Option<f64>,
    omega: Option<f64>,
) -> PyResult<dp_core::ledger::Measure> {
    use dp_core::measures::{ApproxDp, PureDp, Tcdp, Zcdp};
    match (eps, delta, rho, omega) {
        (Some(e), None, None, None) => guard(|| PureDp::new(e).map(Into::into)),
        (Some(e), Some(d), None, None) => guard(|| ApproxDp::new(e, d).map(Into::into)),
        (None, None, Some(r), None) => guard(|| Zcdp::new(r).map(Into::into)),
        (None, None, Some(r), Some(w)) => guard(|| Tcdp::new(r, w).map(Into::into)),
        _ => Err(crate::error::InvalidParameter::new_err(
            "a release is one of: eps (ε-DP), eps and delta ((ε, δ)-DP), rho (ρ-zCDP), rho and \
             omega ((ρ, ω)-tCDP)",
        )),
    }
}

#[pymethods]
impl PrivacyLedger {
    #[new]
    #[pyo3(signature = (eps, delta, orders=None))]
    fn new(eps: f64, delta: f64, orders: Option<Vec<f64>>) -> PyResult<Self> {
        let budget = guard(|| dp_core::measures::ApproxDp::new(eps, delta))?;
        let inner = match orders {
            None => guard(|| dp_core::ledger::PrivacyLedger::new(budget))?,
            Some(o) => guard(|| dp_core::ledger::PrivacyLedger::with_orders(budget, o))?,
        };
        Ok(Self { inner })
    }

    /// record(label, *, eps=None, delta=None, rho=None, omega=None, params=None)
    ///     -> tuple[float, float]
    ///
    /// Records a release and returns the new total (ε, δ). The guarantee is given by keyword:
    /// `eps` (ε-DP), `eps` and `delta` ((ε, δ)-DP), `rho` (ρ-zCDP) or `rho` and `omega`
    /// ((ρ, ω)-tCDP); `params` are the mechanism's parameters for the record (name → value).
    /// Raises `BudgetExceeded` when the total would exceed the budget (nothing is recorded),
    /// `InvalidParameter` for an invalid guarantee.
    #[pyo3(signature = (label, *, eps=None, delta=None, rho=None, omega=None, params=None))]
    #[allow(clippy::too_many_arguments)] // Python keyword arguments
    fn record(
        &mut self,
        label: String,
        eps: Option<f64>,
        delta: Option<f64>,
        rho: Option<f64>,
        omega: Option<f64>,
        params: Option<Bound<'_, pyo3::types::PyDict>>,
    ) -> PyResult<(f64, f64)> {
        let m = measure(eps, delta, rho, omega)?;
        let params: Vec<(String, f64)> = match params {
            None => Vec::new(),
            Some(d) => d
                .iter()
                .map(|(k, v)| Ok((k.extract::<String>()?, v.extract::<f64>()?)))
                .collect::<PyResult<_>>()?,
        };
        let p: Vec<(&str, f64)> = params.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        let total = guard(|| self.inner.record(label, m, &p))?;
        Ok((total.eps(), total.delta()))
    }

    /// The budget (ε, δ).
    #[getter]
    fn budget(&self) -> (f64, f64) {
        let b = self.inner.budget();
        (b.eps(), b.delta())
    }

    /// The composed total (ε, δ) of the recorded releases ((0, 0) when empty).
    #[getter]
    fn total(&self) -> (f64, f64) {
        let t = self.inner.total();
        (t.eps(), t.delta())
    }

    /// entries() -> list[dict]: every recorded release in order, as
    /// `{"label", "measure" ("pure", "approx", "zcdp", "tcdp", "rdp"), its numbers, "params"}`.
    fn entries<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, pyo3::types::PyDict>>> {
        use dp_core::ledger::Measure;
        self.inner
            .entries()
            .iter()
            .map(|e| {
                let d = pyo3::types::PyDict::new(py);
                d.set_item("label", e.label())?;
                match e.measure() {
                    Measure::Pure(p) => {
                        d.set_item("measure", "pure")?;
                        d.set_item("eps", p.eps())?;
                    }
                    Measure::Approx(a) => {
                        d.set_item("measure", "approx")?;
                        d.set_item("eps", a.eps())?;
                        d.set_item("delta", a.delta())?;
                    }
                    Measure::Zcdp(z) => {
                        d.set_item("measure", "zcdp")?;
                        d.set_item("rho", z.rho())?;
                    }
                    Measure::Tcdp(t) => {
                        d.set_item("measure", "tcdp")?;
                        d.set_item("rho", t.rho())?;
                        d.set_item("omega", t.omega())?;
                    }
                    Measure::Rdp(c) => {
                        d.set_item("measure", "rdp")?;
                        d.set_item("rdp_eps", c.eps().to_vec())?;
                    }
                    _ => d.set_item("measure", "other")?,
                }
                let params = pyo3::types::PyDict::new(py);
                for (k, v) in e.params() {
                    params.set_item(k, v)?;
                }
                d.set_item("params", params)?;
                Ok(d)
            })
            .collect()
    }

    fn __len__(&self) -> usize {
        self.inner.entries().len()
    }

    fn __repr__(&self) -> String {
        let (b, t) = (self.inner.budget(), self.inner.total());
        format!(
            "PrivacyLedger(budget=({}, {}), total=({}, {}), entries={})",
            b.eps(),
            b.delta(),
            t.eps(),
            t.delta(),
            self.inner.entries().len()
        )
    }
}
