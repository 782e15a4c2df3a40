//! Standard scaling with the training rows' statistics, and its linfa face
//! ([`StandardScalerParams`] → [`StandardScaler`]).
//!
//! # Why not linfa-preprocessing
//! linfa-preprocessing 0.8.1's `LinearScaler::standard()` has the same statistics (mean,
//! population deviation, scale 1 for a constant column) but multiplies by the reciprocal
//! `1/σ` where we divide by `σ`, which differs in the last bit for some entries (compared in
//! `tests/downstream_linfa.rs`), and it calls a column constant when `σ ≤ f64::EPSILON`, not
//! when `σ = 0`. Rounding differences can reorder near-tied k-NN neighbours, so the repro's
//! numbers could move; it would also add regex, encoding and sprs to homdp's default
//! dependencies.

use linfa::DatasetBase;
use linfa::traits::{Fit, PredictInplace, Transformer};
use ndarray::{Array1, Array2, ArrayBase, ArrayView2, Axis, Data, Ix2};

use super::{assert_columns, check_columns};
use crate::error::{HomdpError, Result, invalid};

/// Per-column `(x − mean) / std` fitted on training rows (population std; a constant column
/// keeps scale 1, as scikit-learn's `StandardScaler`).
#[derive(Clone, Debug, PartialEq)]
pub struct StandardScaler {
    mean: Array1<f64>,
    scale: Array1<f64>,
}

impl StandardScaler {
    /// Fits the column means and deviations.
    ///
    /// # Errors
    /// [`crate::HomdpError::InvalidParam`] with no rows.
    ///
    /// # Example
    /// ```
    /// use ndarray::array;
    /// let s = homdp::downstream::StandardScaler::fit(array![[1.0, 5.0], [3.0, 5.0]].view())?;
    /// assert_eq!(s.transform(array![[2.0, 6.0]].view())?, array![[0.0, 1.0]]);
    /// assert!(s.transform(array![[2.0, 6.0, 1.0]].view()).is_err(), "other columns: an error");
    /// # Ok::<(), homdp::HomdpError>(())
    /// ```
    pub fn fit(x: ArrayView2<'_, f64>) -> Result<Self> {
        if x.nrows() == 0 {
            return invalid("rows", 0.0, "scaling needs at least one row");
        }
        let mean = x.mean_axis(Axis(0)).expect("at least one row");
        let var = x.var_axis(Axis(0), 0.0);
        let scale = var.mapv(|v| if v > 0.0 { v.sqrt() } else { 1.0 });
        Ok(Self { mean, scale })
    }

    /// Scales `x` (columns as in the fitted data).
    ///
    /// # Errors
    /// [`HomdpError::InvalidParam`] when `x` has other columns than the fitted data.
    pub fn transform(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        check_columns(x, self.mean.len())?;
        Ok((&x - &self.mean) / &self.scale)
    }

    /// The hyper-parameters to fit with linfa (there are none).
    pub fn params() -> StandardScalerParams {
        StandardScalerParams
    }

    /// The fitted column means.
    pub fn mean(&self) -> &Array1<f64> {
        &self.mean
    }

    /// The fitted column scales (population deviations, 1 for a constant column).
    pub fn scale(&self) -> &Array1<f64> {
        &self.scale
    }
}

/// linfa's [`Fit`] for [`StandardScaler`] (no hyper-parameters; the targets are ignored).
///
/// # Example
/// ```
/// use homdp::downstream::StandardScaler;
/// use linfa::prelude::*;
/// use ndarray::array;
/// let ds = Dataset::new(array![[1.0, 5.0], [3.0, 5.0]], array![0usize, 1]);
/// let scaler = StandardScaler::params().fit(&ds)?;
/// let ds = Transformer::transform(&scaler, ds);
/// assert_eq!(ds.records(), &array![[-1.0, 0.0], [1.0, 0.0]]);
/// # Ok::<(), homdp::HomdpError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct StandardScalerParams;

impl<D: Data<Elem = f64>, T> Fit<ArrayBase<D, Ix2>, T, HomdpError> for StandardScalerParams {
    type Object = StandardScaler;

    /// [`StandardScaler::fit`] on the records.
    ///
    /// # Errors
    /// As [`StandardScaler::fit`].
    fn fit(&self, dataset: &DatasetBase<ArrayBase<D, Ix2>, T>) -> Result<StandardScaler> {
        StandardScaler::fit(dataset.records.view())
    }
}

impl<D: Data<Elem = f64>> PredictInplace<ArrayBase<D, Ix2>, Array2<f64>> for StandardScaler {
    /// The scaled rows of `x` ([`StandardScaler::transform`]).
    ///
    /// # Panics
    /// When `x` has other columns than the fitted data, or `y` another shape than `x`.
    fn predict_inplace(&self, x: &ArrayBase<D, Ix2>, y: &mut Array2<f64>) {
        assert_columns("standard scaler", x.view(), self.mean.len());
        assert_eq!(y.dim(), x.dim(), "standard scaler: target shape");
        y.assign(&((x - &self.mean) / &self.scale));
    }

    fn default_target(&self, x: &ArrayBase<D, Ix2>) -> Array2<f64> {
        Array2::zeros(x.dim())
    }
}

impl<T> Transformer<DatasetBase<Array2<f64>, T>, DatasetBase<Array2<f64>, T>> for StandardScaler {
    /// Scales the records; targets and weights stay (feature names are dropped).
    ///
    /// # Panics
    /// When the records have other columns than the fitted data.
    fn transform(&self, x: DatasetBase<Array2<f64>, T>) -> DatasetBase<Array2<f64>, T> {
        assert_columns("standard scaler", x.records.view(), self.mean.len());
        let records = (&x.records - &self.mean) / &self.scale;
        DatasetBase::new(records, x.targets).with_weights(x.weights)
    }
}
