//! Principal component analysis by a cyclic Jacobi eigen-decomposition of the (small) covariance
//! matrix: pure Rust, no LAPACK; and its linfa face ([`PcaParams`] → [`Pca`]).
//!
//! # Why not linfa-reduction
//! linfa-reduction 0.8.1's `Pca` (without its `blas` feature) computes a truncated SVD of the
//! centred records by LOBPCG, an iterative solver started from a seeded random block, and
//! clamps singular values at 1e-8. Its projections agree with ours only up to the axes' signs
//! and the solver's tolerance, not bit for bit (`tests/downstream_linfa.rs`: on 150 × 12
//! correlated columns, 5 components, the three well-separated components differ by up to
//! 1.4e-6, the two near-degenerate ones by up to 0.02), so the
//! REDDIT-BINARY k-NN (PCA then k-NN, where a rounding can reorder near-tied neighbours) could
//! move. It would also add linfa-kernel, linfa-linalg and sprs to homdp's default dependencies.

use linfa::DatasetBase;
use linfa::traits::{Fit, PredictInplace, Transformer};
use ndarray::{Array1, Array2, ArrayBase, ArrayView2, Axis, Data, Ix2};

use super::{assert_columns, check_columns};
use crate::error::{HomdpError, Result, invalid};

/// A fitted PCA: the training mean and the leading principal axes.
#[derive(Clone, Debug, PartialEq)]
pub struct Pca {
    mean: Array1<f64>,
    /// `[features, components]`, orthonormal columns by decreasing variance.
    axes: Array2<f64>,
    variances: Array1<f64>,
}

impl Pca {
    /// Fits `components` principal axes of the rows of `x`.
    ///
    /// # Errors
    /// [`crate::HomdpError::InvalidParam`] when `components` is 0 or exceeds the number of
    /// columns, or `x` has fewer than two rows.
    ///
    /// # Complexity
    /// O(n·d²) for the covariance, O(d³) per Jacobi sweep (d = columns).
    ///
    /// # Example
    /// ```
    /// use ndarray::array;
    /// let x = array![[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0]];
    /// let pca = homdp::downstream::Pca::fit(x.view(), 1)?;
    /// let z = pca.transform(x.view())?;
    /// assert!(pca.transform(ndarray::array![[1.0]].view()).is_err(), "other columns: an error");
    /// assert!(((z[[3, 0]] - z[[0, 0]]).abs() - 3.0 * 2f64.sqrt()).abs() < 1e-12);
    /// assert!((pca.explained_variance()[0] - 10.0 / 3.0).abs() < 1e-12);
    /// # Ok::<(), homdp::HomdpError>(())
    /// ```
    pub fn fit(x: ArrayView2<'_, f64>, components: usize) -> Result<Self> {
        let (n, d) = x.dim();
        if components == 0 || components > d {
            return invalid("components", components as f64, "must be in 1..=columns");
        }
        if n < 2 {
            return invalid("rows", n as f64, "PCA needs at least two rows");
        }
        let mean = x.mean_axis(Axis(0)).expect("rows > 0");
        let c = &x - &mean;
        let cov = c.t().dot(&c) / (n as f64 - 1.0);
        let (vals, vecs) = jacobi_eigen(cov);
        let mut order: Vec<usize> = (0..d).collect();
        order.sort_by(|&a, &b| vals[b].total_cmp(&vals[a]).then(a.cmp(&b)));
        let mut axes = Array2::zeros((d, components));
        let mut variances = Array1::zeros(components);
        for (k, &i) in order.iter().take(components).enumerate() {
            axes.column_mut(k).assign(&vecs.column(i));
            variances[k] = vals[i];
        }
        Ok(Self {
            mean,
            axes,
            variances,
        })
    }

    /// Projects rows onto the principal axes.
    ///
    /// # Errors
    /// [`HomdpError::InvalidParam`] when `x` has other columns than the fitted data.
    pub fn transform(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        check_columns(x, self.mean.len())?;
        Ok((&x - &self.mean).dot(&self.axes))
    }

    /// Variance along each kept axis (eigenvalues of the sample covariance).
    pub fn explained_variance(&self) -> &Array1<f64> {
        &self.variances
    }

    /// The hyper-parameters to fit with linfa.
    pub fn params(components: usize) -> PcaParams {
        PcaParams { components }
    }

    /// The principal axes, `[features, components]`, orthonormal columns by decreasing
    /// variance.
    pub fn axes(&self) -> &Array2<f64> {
        &self.axes
    }
}

/// Hyper-parameters of the PCA for linfa's [`Fit`] (the targets are ignored).
///
/// # Example
/// ```
/// use homdp::downstream::Pca;
/// use linfa::prelude::*;
/// use ndarray::array;
/// let ds = DatasetBase::from(array![[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]);
/// let pca = Pca::params(1).fit(&ds)?;
/// let z: ndarray::Array2<f64> = Predict::predict(&pca, ds.records());
/// assert_eq!(z.dim(), (4, 1));
/// # Ok::<(), homdp::HomdpError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PcaParams {
    /// Principal components kept.
    pub components: usize,
}

impl<D: Data<Elem = f64>, T> Fit<ArrayBase<D, Ix2>, T, HomdpError> for PcaParams {
    type Object = Pca;

    /// [`Pca::fit`] on the records.
    ///
    /// # Errors
    /// As [`Pca::fit`].
    fn fit(&self, dataset: &DatasetBase<ArrayBase<D, Ix2>, T>) -> Result<Pca> {
        Pca::fit(dataset.records.view(), self.components)
    }
}

impl<D: Data<Elem = f64>> PredictInplace<ArrayBase<D, Ix2>, Array2<f64>> for Pca {
    /// The projections of the rows of `x` ([`Pca::transform`]).
    ///
    /// # Panics
    /// When `x` has other columns than the fitted data, or `y` another shape than
    /// `[rows, components]`.
    fn predict_inplace(&self, x: &ArrayBase<D, Ix2>, y: &mut Array2<f64>) {
        assert_columns("PCA", x.view(), self.mean.len());
        assert_eq!(y.dim(), (x.nrows(), self.axes.ncols()), "PCA: target shape");
        y.assign(&(x - &self.mean).dot(&self.axes));
    }

    fn default_target(&self, x: &ArrayBase<D, Ix2>) -> Array2<f64> {
        Array2::zeros((x.nrows(), self.axes.ncols()))
    }
}

impl<T> Transformer<DatasetBase<Array2<f64>, T>, DatasetBase<Array2<f64>, T>> for Pca {
    /// Replaces the records by their projections; targets (and weights, feature names are
    /// dropped) stay.
    ///
    /// # Panics
    /// When the records have other columns than the fitted data.
    fn transform(&self, x: DatasetBase<Array2<f64>, T>) -> DatasetBase<Array2<f64>, T> {
        assert_columns("PCA", x.records.view(), self.mean.len());
        let records = (&x.records - &self.mean).dot(&self.axes);
        DatasetBase::new(records, x.targets).with_weights(x.weights)
    }
}

/// Eigenvalues and eigenvectors (columns) of a symmetric matrix by cyclic Jacobi rotations.
fn jacobi_eigen(mut a: Array2<f64>) -> (Array1<f64>, Array2<f64>) {
    let d = a.nrows();
    let mut v = Array2::<f64>::eye(d);
    for _sweep in 0..100 {
        let off: f64 = (0..d)
            .flat_map(|p| (p + 1..d).map(move |q| (p, q)))
            .map(|(p, q)| a[[p, q]] * a[[p, q]])
            .sum();
        let total: f64 = a.iter().map(|x| x * x).sum();
        if off <= 1e-30 * total.max(f64::MIN_POSITIVE) {
            break;
        }
        for p in 0..d {
            for q in p + 1..d {
                let apq = a[[p, q]];
                if apq == 0.0 {
                    continue;
                }
                let theta = (a[[q, q]] - a[[p, p]]) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let cs = 1.0 / (t * t + 1.0).sqrt();
                let sn = t * cs;
                // A ← Jᵀ A J on rows/columns p, q.
                for k in 0..d {
                    let (akp, akq) = (a[[k, p]], a[[k, q]]);
                    a[[k, p]] = cs * akp - sn * akq;
                    a[[k, q]] = sn * akp + cs * akq;
                }
                for k in 0..d {
                    let (apk, aqk) = (a[[p, k]], a[[q, k]]);
                    a[[p, k]] = cs * apk - sn * aqk;
                    a[[q, k]] = sn * apk + cs * aqk;
                }
                for k in 0..d {
                    let (vkp, vkq) = (v[[k, p]], v[[k, q]]);
                    v[[k, p]] = cs * vkp - sn * vkq;
                    v[[k, q]] = sn * vkp + cs * vkq;
                }
            }
        }
    }
    (a.diag().to_owned(), v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    #[test]
    fn eigenpairs_reconstruct_the_covariance() -> Result<()> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let x = Array2::from_shape_fn((60, 7), |(_, j)| rng.random::<f64>() * (j + 1) as f64);
        let pca = Pca::fit(x.view(), 7)?;
        let mean = x.mean_axis(Axis(0)).expect("rows");
        let c = &x - &mean;
        let cov = c.t().dot(&c) / 59.0;
        let w = &pca.axes;
        // W diag(λ) Wᵀ = cov and WᵀW = I.
        let rebuilt = w.dot(&Array2::from_diag(&pca.variances)).dot(&w.t());
        assert!((&rebuilt - &cov).iter().all(|e| e.abs() < 1e-10));
        assert!(
            (w.t().dot(w) - Array2::<f64>::eye(7))
                .iter()
                .all(|e| e.abs() < 1e-10)
        );
        // Decreasing variances; projections have those variances.
        let v = pca.explained_variance();
        assert!(v.windows(2).into_iter().all(|p| p[0] >= p[1]));
        let z = pca.transform(x.view()).unwrap();
        let zv = z.var_axis(Axis(0), 1.0);
        assert!((&zv - v).iter().all(|e| e.abs() < 1e-9));
        assert!(Pca::fit(x.view(), 0).is_err() && Pca::fit(x.view(), 8).is_err());
        Ok(())
    }
}
