//! Linear ε-insensitive support vector regression by dual coordinate descent (Ho & Lin 2012,
//! the L1-loss SVR solver of LIBLINEAR), and its linfa face ([`LinearSvrParams`] →
//! [`LinearSvr`]).
//!
//! The bias is learned as the weight of a constant feature 1 (as LIBLINEAR and scikit-learn's
//! `LinearSVR` do) after centring the targets on their training mean.
//!
//! # Why not linfa-svm
//! The paper's only SVM is Lipophilicity's linear ε-SVR (C = 1, ε = 0.2). linfa-svm 0.8.1's
//! ε-SVR (`Svm::params().c_svr(c, Some(eps)).linear_kernel()`) was compared on it
//! (the scaffold training split, 3,360 × 50 private embeddings at ρ = 0.01, release build, one
//! seeded draw of patterns and noise):
//! - with its defaults (no shrinking) it finishes, but after 2.6 million SMO iterations in
//!   376 s (this solver: 1.2 s, 5,000 epochs), and it solves another problem (the bias is not
//!   regularised), so its predictions, hence the table's RMSE, differ (test RMSE 1.0860 against
//!   this solver's 1.0862);
//! - with `.shrinking(true)` (the speed-up) its `do_shrinking` loop runs over a bound fixed
//!   before the loop while decrementing the active-set size, so when more than half of the
//!   active variables are shrinkable the size underflows: "attempt to subtract with overflow"
//!   in `solver_smo.rs` (debug) or an index out of bounds (release). On Lipophilicity it
//!   returned a broken model (RMSE 47.8); a 3-row reproducer panics
//!   (`tests/downstream_linfa.rs`, `linfa_svm_0_8_1_shrinking_panics`).
//!
//! linfa-svm also pulls linfa-kernel, linfa-nn and sprs into the default dependencies.

use linfa::DatasetBase;
use linfa::dataset::AsSingleTargets;
use linfa::traits::{Fit, PredictInplace};
use ndarray::{Array1, ArrayBase, ArrayView2, Data, Ix2};
use rand::SeedableRng;
use rand::seq::SliceRandom;

use super::{assert_columns, targets_vec};
use crate::error::{HomdpError, Result, invalid};

/// Stopping tolerance on the largest KKT violation of an epoch.
const TOL: f64 = 1e-6;
/// Epoch limit.
const MAX_EPOCHS: usize = 5000;

/// A fitted linear SVR: `ŷ = ⟨w, x⟩ + b`.
#[derive(Clone, Debug, PartialEq)]
pub struct LinearSvr {
    w: Array1<f64>,
    b: f64,
    epochs: usize,
}

impl LinearSvr {
    /// Fits `min_w ½‖w̃‖² + C·Σ max(0, |y_i − ⟨w̃, x̃_i⟩| − ε)` with `x̃ = (x, 1)`, `w̃ = (w, b')`
    /// and targets centred on their mean.
    ///
    /// # Errors
    /// [`crate::HomdpError::InvalidParam`] for C ≤ 0, ε < 0, non-finite parameters or a target
    /// count that differs from the rows.
    ///
    /// # Complexity
    /// O(n·d) per epoch.
    ///
    /// # Example
    /// ```
    /// use ndarray::Array2;
    /// let x = Array2::from_shape_fn((40, 1), |(i, _)| i as f64 / 10.0);
    /// let y: Vec<f64> = x.column(0).iter().map(|v| 2.0 * v + 1.0).collect();
    /// let m = homdp::downstream::LinearSvr::fit(x.view(), &y, 100.0, 0.01)?;
    /// let pred = m.predict(x.view());
    /// assert!(pred.iter().zip(&y).all(|(p, t)| (p - t).abs() < 0.02));
    /// # Ok::<(), homdp::HomdpError>(())
    /// ```
    pub fn fit(x: ArrayView2<'_, f64>, y: &[f64], c: f64, tube: f64) -> Result<Self> {
        if !(c.is_finite() && c > 0.0) {
            return invalid("c", c, "must be finite and > 0");
        }
        if !(tube.is_finite() && tube >= 0.0) {
            return invalid("epsilon", tube, "must be finite and >= 0");
        }
        let (n, d) = x.dim();
        if n != y.len() || n == 0 {
            return invalid(
                "targets",
                y.len() as f64,
                "need one target per training row",
            );
        }
        let mean = y.iter().sum::<f64>() / n as f64;
        // Augmented weights: w[..d] and the bias weight w[d] (constant feature 1).
        let mut w = vec![0.0; d + 1];
        let mut beta = vec![0.0; n];
        let q: Vec<f64> = x.outer_iter().map(|r| r.dot(&r) + 1.0).collect();
        let mut order: Vec<usize> = (0..n).collect();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
        let mut epochs = 0;
        while epochs < MAX_EPOCHS {
            epochs += 1;
            order.shuffle(&mut rng);
            let mut max_violation: f64 = 0.0;
            for &i in &order {
                let xi = x.row(i);
                let pred = xi.iter().zip(&w).map(|(a, b)| a * b).sum::<f64>() + w[d];
                let g = pred - (y[i] - mean);
                let (gp, gn) = (g + tube, g - tube);
                let b = beta[i];
                let violation = if b == 0.0 {
                    (-gp).max(gn).max(0.0)
                } else if b >= c {
                    gp.max(0.0)
                } else if b <= -c {
                    (-gn).max(0.0)
                } else if b > 0.0 {
                    gp.abs()
                } else {
                    gn.abs()
                };
                max_violation = max_violation.max(violation);
                let h = q[i];
                let z = if gp < h * b {
                    -gp / h
                } else if gn > h * b {
                    -gn / h
                } else {
                    -b
                };
                let nb = (b + z).clamp(-c, c);
                let delta = nb - b;
                if delta != 0.0 {
                    beta[i] = nb;
                    for (wj, &xj) in w.iter_mut().zip(xi.iter()) {
                        *wj += delta * xj;
                    }
                    w[d] += delta;
                }
            }
            if max_violation <= TOL {
                break;
            }
        }
        let b = w[d] + mean;
        w.truncate(d);
        Ok(Self {
            w: Array1::from(w),
            b,
            epochs,
        })
    }

    /// Predictions for the rows of `x`.
    pub fn predict(&self, x: ArrayView2<'_, f64>) -> Vec<f64> {
        x.outer_iter().map(|r| r.dot(&self.w) + self.b).collect()
    }

    /// Epochs the solver ran.
    pub fn epochs(&self) -> usize {
        self.epochs
    }

    /// The hyper-parameters to fit with linfa.
    pub fn params(c: f64, tube: f64) -> LinearSvrParams {
        LinearSvrParams { c, tube }
    }

    /// The weights `w` of `ŷ = ⟨w, x⟩ + b`.
    pub fn weights(&self) -> &Array1<f64> {
        &self.w
    }

    /// The bias `b` of `ŷ = ⟨w, x⟩ + b`.
    pub fn bias(&self) -> f64 {
        self.b
    }
}

/// Hyper-parameters of [`LinearSvr`] for linfa's [`Fit`].
///
/// # Example
/// ```
/// use homdp::downstream::LinearSvr;
/// use linfa::prelude::*;
/// use ndarray::{Array1, Array2};
/// let x = Array2::from_shape_fn((40, 1), |(i, _)| i as f64 / 10.0);
/// let y: Array1<f64> = x.column(0).mapv(|v| 2.0 * v + 1.0);
/// let ds = Dataset::new(x, y);
/// let model = LinearSvr::params(100.0, 0.01).fit(&ds)?;
/// // `LinearSvr` has an inherent `predict` (views, `Vec`): call linfa's by its trait.
/// let pred: Array1<f64> = Predict::predict(&model, &ds);
/// assert!(pred.iter().zip(ds.targets()).all(|(p, t)| (p - t).abs() < 0.02));
/// # Ok::<(), homdp::HomdpError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct LinearSvrParams {
    /// Penalty C.
    pub c: f64,
    /// Width ε of the insensitive tube (a loss parameter, not a privacy one; `epsilon` in
    /// serde, as liblinear and scikit-learn name it).
    #[serde(rename = "epsilon")]
    pub tube: f64,
}

impl<D, T> Fit<ArrayBase<D, Ix2>, T, HomdpError> for LinearSvrParams
where
    D: Data<Elem = f64>,
    T: AsSingleTargets<Elem = f64>,
{
    type Object = LinearSvr;

    /// [`LinearSvr::fit`] on the records and targets.
    ///
    /// # Errors
    /// As [`LinearSvr::fit`].
    fn fit(&self, dataset: &DatasetBase<ArrayBase<D, Ix2>, T>) -> Result<LinearSvr> {
        let y = targets_vec(&dataset.targets);
        LinearSvr::fit(dataset.records.view(), &y, self.c, self.tube)
    }
}

impl<D: Data<Elem = f64>> PredictInplace<ArrayBase<D, Ix2>, Array1<f64>> for LinearSvr {
    /// `⟨w, x⟩ + b` for each row of `x` (the inherent [`LinearSvr::predict`]).
    ///
    /// # Panics
    /// When `x` has other columns than the training rows, or `y` another length than its rows.
    fn predict_inplace(&self, x: &ArrayBase<D, Ix2>, y: &mut Array1<f64>) {
        assert_columns("linear SVR", x.view(), self.w.len());
        assert_eq!(y.len(), x.nrows(), "linear SVR: target length");
        for (t, r) in y.iter_mut().zip(x.outer_iter()) {
            *t = r.dot(&self.w) + self.b;
        }
    }

    fn default_target(&self, x: &ArrayBase<D, Ix2>) -> Array1<f64> {
        Array1::zeros(x.nrows())
    }
}

/// Fits [`LinearSvr`] on the training rows and predicts the test rows.
///
/// # Errors
/// As [`LinearSvr::fit`]; [`crate::HomdpError::InvalidParam`] when the column counts differ.
pub fn linear_svr(
    train: ArrayView2<'_, f64>,
    targets: &[f64],
    test: ArrayView2<'_, f64>,
    c: f64,
    tube: f64,
) -> Result<Vec<f64>> {
    if train.ncols() != test.ncols() {
        return invalid(
            "test",
            test.ncols() as f64,
            "must have the training columns",
        );
    }
    Ok(LinearSvr::fit(train, targets, c, tube)?.predict(test))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;
    use rand::RngExt;

    fn primal(m: &LinearSvr, x: &Array2<f64>, y: &[f64], c: f64, eps: f64) -> f64 {
        let mean = y.iter().sum::<f64>() / y.len() as f64;
        let bias = m.b - mean;
        let reg = 0.5 * (m.w.dot(&m.w) + bias * bias);
        let loss: f64 = m
            .predict(x.view())
            .iter()
            .zip(y)
            .map(|(p, t)| ((p - t).abs() - eps).max(0.0))
            .sum();
        reg + c * loss
    }

    #[test]
    fn solution_is_a_minimum_of_the_primal() -> Result<()> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(8);
        let x = Array2::from_shape_fn((120, 4), |_| rng.random::<f64>() * 2.0 - 1.0);
        let y: Vec<f64> = x
            .outer_iter()
            .map(|r| 3.0 + r[0] - 2.0 * r[1] + 0.5 * (rng.random::<f64>() - 0.5))
            .collect();
        let (c, eps) = (1.0, 0.2);
        let m = LinearSvr::fit(x.view(), &y, c, eps)?;
        assert!(m.epochs() < MAX_EPOCHS);
        let best = primal(&m, &x, &y, c, eps);
        // No random perturbation of (w, b) lowers the convex primal objective.
        for _ in 0..200 {
            let mut p = m.clone();
            let s = 10f64.powi(-rng.random_range(1..4));
            p.w.mapv_inplace(|v| v + s * (rng.random::<f64>() - 0.5));
            p.b += s * (rng.random::<f64>() - 0.5);
            let pv = primal(&p, &x, &y, c, eps);
            assert!(
                pv >= best - 1e-6,
                "perturbation improved: {pv} < {best} at scale {s}"
            );
        }
        // The fit recovers the signal.
        assert!(
            (m.w[0] - 1.0).abs() < 0.2 && (m.w[1] + 2.0).abs() < 0.2,
            "{:?}",
            m.w
        );
        assert!(LinearSvr::fit(x.view(), &y, 0.0, eps).is_err());
        assert!(LinearSvr::fit(x.view(), &y[..3], c, eps).is_err());
        Ok(())
    }
}
