//! Error type of dp-core: every invalid parameter, refused release or RNG failure is a typed value.

/// Errors returned by dp-core.
///
/// Parameters are never clamped: an out-of-range value is reported with the parameter's name, the value
/// and the rule it broke.
#[derive(Debug, thiserror::Error, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// A parameter is NaN, infinite, out of its range, or inconsistent with another one.
    #[error("invalid parameter `{name}` = {value}: {reason}")]
    InvalidParam {
        /// Name of the parameter, as in the function signature.
        name: &'static str,
        /// The offending value (integers are converted to `f64`).
        value: f64,
        /// The rule the value broke.
        reason: &'static str,
    },
    /// A release was refused because the composed loss would exceed the configured budget.
    #[error("privacy budget exceeded on `{name}`: would spend {spent}, budget {budget}")]
    BudgetExceeded {
        /// Which component of the budget (`"eps"` or `"delta"`).
        name: &'static str,
        /// The composed loss the release would have led to.
        spent: f64,
        /// The configured budget.
        budget: f64,
    },
    /// The operating system could not provide entropy to seed the CSPRNG.
    #[error("operating-system entropy unavailable: {0}")]
    Entropy(String),
}

/// The parts of an [`Error::InvalidParam`]: name, value, rule.
pub type ParamParts = (&'static str, f64, &'static str);

impl Error {
    /// The name, value and rule of an [`Error::InvalidParam`], else the error itself: how a crate
    /// above maps dp-core's parameter errors into its own invalid-parameter variant and wraps
    /// the rest.
    ///
    /// ```
    /// let e = dp_core::params::Epsilon::new(-1.0).unwrap_err();
    /// let (name, value, _) = e.into_invalid_param().unwrap();
    /// assert_eq!((name, value), ("eps", -1.0));
    /// ```
    ///
    /// # Errors
    /// Any other variant, unchanged.
    pub fn into_invalid_param(self) -> std::result::Result<ParamParts, Self> {
        match self {
            Self::InvalidParam {
                name,
                value,
                reason,
            } => Ok((name, value, reason)),
            other => Err(other),
        }
    }
}

/// `Result` with [`Error`] as the default error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Shorthand for [`Error::InvalidParam`].
pub(crate) fn invalid<T>(name: &'static str, value: f64, reason: &'static str) -> Result<T> {
    Err(Error::InvalidParam {
        name,
        value,
        reason,
    })
}

/// `value` must be finite and strictly positive.
pub(crate) fn positive(name: &'static str, value: f64) -> Result<f64> {
    if !value.is_finite() {
        invalid(name, value, "must be finite")
    } else if value <= 0.0 {
        invalid(name, value, "must be > 0")
    } else {
        Ok(value)
    }
}

/// `value` must be finite and non-negative.
pub(crate) fn non_negative(name: &'static str, value: f64) -> Result<f64> {
    if !value.is_finite() {
        invalid(name, value, "must be finite")
    } else if value < 0.0 {
        invalid(name, value, "must be >= 0")
    } else {
        Ok(value)
    }
}

/// `value` must lie in the open interval (0, 1) (a δ of a conversion).
pub(crate) fn open_unit(name: &'static str, value: f64) -> Result<f64> {
    if value.is_nan() || value <= 0.0 || value >= 1.0 {
        invalid(name, value, "must lie in (0, 1)")
    } else {
        Ok(value)
    }
}

/// `value` must lie in the closed interval [0, 1] (a probability).
pub(crate) fn probability(name: &'static str, value: f64) -> Result<f64> {
    if value.is_nan() || !(0.0..=1.0).contains(&value) {
        invalid(name, value, "must lie in [0, 1]")
    } else {
        Ok(value)
    }
}

/// An RDP order: finite and > 1.
pub(crate) fn order(name: &'static str, value: f64) -> Result<f64> {
    if !value.is_finite() {
        invalid(name, value, "must be finite")
    } else if value <= 1.0 {
        invalid(name, value, "must be > 1")
    } else {
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validators_name_the_parameter() {
        assert_eq!(positive("sigma", 1.5), Ok(1.5));
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                positive("sigma", bad),
                Err(Error::InvalidParam { name: "sigma", .. })
            ));
        }
        assert!(open_unit("delta", 1.0).is_err());
        assert!(open_unit("delta", 0.0).is_err());
        assert!(open_unit("delta", f64::NAN).is_err());
        assert_eq!(open_unit("delta", 0.5), Ok(0.5));
        assert!(probability("p", 1.0 + 1e-12).is_err());
        assert_eq!(probability("p", 0.0), Ok(0.0));
        assert!(order("order", 1.0).is_err());
        assert!(non_negative("eps", -0.0).is_ok());
        assert!(non_negative("eps", -1e-300).is_err());
    }
}
