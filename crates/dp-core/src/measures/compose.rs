//! The composition trait shared by all privacy measures (OpenDP's `CompositionMeasure`).

use crate::Result;

/// Sequential composition of two guarantees of the same kind.
///
/// Results are rounded up, so the composed loss is never below the exact sum.
///
/// # Example
/// ```
/// use dp_core::measures::{ApproxDp, Compose};
/// let one = ApproxDp::new(0.5, 1e-6)?;
/// let ten = one.compose_n(10)?;
/// assert!((ten.eps() - 5.0).abs() < 1e-12 && (ten.delta() - 1e-5).abs() < 1e-18);
/// # Ok::<(), dp_core::Error>(())
/// ```
pub trait Compose: Sized {
    /// The guarantee of running `self` then `other` (adaptively) on the same data.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] if the composed value overflows to ∞, or if the two guarantees are
    /// not composable (e.g. RDP curves on different order grids).
    ///
    /// # Privacy
    /// Each implementation cites its composition theorem.
    fn compose(&self, other: &Self) -> Result<Self>;

    /// The guarantee of `times` adaptive runs of `self` (`times = 0` gives the zero loss).
    ///
    /// # Errors
    /// As [`Compose::compose`].
    ///
    /// # Privacy
    /// As [`Compose::compose`], applied `times` times.
    fn compose_n(&self, times: u64) -> Result<Self>;
}
