//! Linear ε-insensitive support vector regression by dual coordinate descent (Ho & Lin 2012,
//! the L1-loss SVR solver of LIBLINEAR).
//!
//! linfa-svm's ε-SVR was tried first: its SMO solver panics (index out of bounds in
//! `solver_smo.rs`) on the Lipophilicity embeddings, so this small solver replaces it. The bias
//! is learned as the weight of a constant feature 1 (as LIBLINEAR and scikit-learn's
//! `LinearSVR` do) after centring the targets on their training mean.

use ndarray::{Array1, ArrayView2};
use rand::SeedableRng;
use rand::seq::SliceRandom;

use crate::error::{Result, invalid};

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
    pub fn fit(x: ArrayView2<'_, f64>, y: &[f64], c: f64, epsilon: f64) -> Result<Self> {
        if !(c.is_finite() && c > 0.0) {
            return invalid("c", c, "must be finite and > 0");
        }
        if !(epsilon.is_finite() && epsilon >= 0.0) {
            return invalid("epsilon", epsilon, "must be finite and >= 0");
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
                let (gp, gn) = (g + epsilon, g - epsilon);
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
    epsilon: f64,
) -> Result<Vec<f64>> {
    if train.ncols() != test.ncols() {
        return invalid(
            "test",
            test.ncols() as f64,
            "must have the training columns",
        );
    }
    Ok(LinearSvr::fit(train, targets, c, epsilon)?.predict(test))
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
