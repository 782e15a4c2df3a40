//! Standard scaling with the training rows' statistics.

use ndarray::{Array1, Array2, ArrayView2, Axis};

use crate::error::{Result, invalid};

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
    /// assert_eq!(s.transform(array![[2.0, 6.0]].view()), array![[0.0, 1.0]]);
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
    pub fn transform(&self, x: ArrayView2<'_, f64>) -> Array2<f64> {
        (&x - &self.mean) / &self.scale
    }
}
