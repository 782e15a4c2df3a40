//! Privacy parameters as validated values: parsed once at a front door (command line, Python,
//! configuration file), then passed on without being checked again.
//!
//! # Example
//! ```
//! use dp_core::params::{Delta, Epsilon, NoiseMultiplier, Rho};
//! let eps: Epsilon = "0.5".parse()?;
//! assert!(Rho::new(0.0).is_err() && Rho::new(0.01)?.get() == 0.01);
//! assert!(NoiseMultiplier::new(0.0).is_ok() && NoiseMultiplier::new(-1.0).is_err());
//! assert_eq!(eps.get(), 0.5);
//! assert!("0".parse::<Epsilon>().is_err() && "nan".parse::<Epsilon>().is_err());
//! assert!(Delta::new(1.0).is_err() && Delta::new(1e-5).is_ok());
//! // Deserializing validates too.
//! assert!(serde_json::from_str::<Epsilon>("-1.0").is_err());
//! # Ok::<(), dp_core::Error>(())
//! ```

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::{non_negative, open_unit, positive};
use crate::{Error, Result};

/// A privacy loss ε: finite and > 0.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(try_from = "f64", into = "f64")]
pub struct Epsilon(f64);

impl Epsilon {
    /// Validates `eps`.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] (`eps`) unless `eps` is finite and > 0.
    pub fn new(eps: f64) -> Result<Self> {
        positive("eps", eps).map(Self)
    }

    /// A constant ε, checked at compile time when used in a `const`:
    /// `const EPS_D: Epsilon = Epsilon::constant(0.1);` (an invalid value fails to compile;
    /// called at run time it panics, so pass run-time values to [`Epsilon::new`]).
    ///
    /// # Panics
    /// Unless `eps` is finite and > 0.
    pub const fn constant(eps: f64) -> Self {
        assert!(eps > 0.0 && eps < f64::INFINITY, "ε must be finite and > 0");
        Self(eps)
    }

    /// The value.
    pub const fn get(self) -> f64 {
        self.0
    }
}

/// A failure probability δ ∈ (0, 1).
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(try_from = "f64", into = "f64")]
pub struct Delta(f64);

impl Delta {
    /// δ = 10⁻⁵, a usual default (CE-FedGNN's).
    pub const TEN_TO_MINUS_5: Self = Self(1e-5);
    /// δ = 10⁻⁶, a usual default (homdp's).
    pub const TEN_TO_MINUS_6: Self = Self(1e-6);

    /// Validates `delta`.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] (`delta`) unless `delta` lies in the open interval (0, 1).
    pub fn new(delta: f64) -> Result<Self> {
        open_unit("delta", delta).map(Self)
    }

    /// The value.
    pub const fn get(self) -> f64 {
        self.0
    }
}

/// A noise or zCDP parameter ρ: finite and > 0 (ρ-zCDP; homdp's σ = ‖S‖₂/√(2ρ)).
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(try_from = "f64", into = "f64")]
pub struct Rho(f64);

impl Rho {
    /// Validates `rho`.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] (`rho`) unless `rho` is finite and > 0.
    pub fn new(rho: f64) -> Result<Self> {
        positive("rho", rho).map(Self)
    }

    /// A ρ known when the code is written (a protocol's constant), checked at compile time.
    ///
    /// ```
    /// use dp_core::params::Rho;
    /// const MAIN: Rho = Rho::constant(0.01);
    /// assert_eq!(MAIN.get(), 0.01);
    /// ```
    ///
    /// # Panics
    /// Unless `rho` is finite and > 0 (a compile error in a `const`).
    pub const fn constant(rho: f64) -> Self {
        assert!(rho > 0.0 && rho < f64::INFINITY, "ρ must be finite and > 0");
        Self(rho)
    }

    /// The value.
    pub const fn get(self) -> f64 {
        self.0
    }
}

/// A noise multiplier σ₀: the noise's standard deviation over the sensitivity (σ = σ₀·C), finite
/// and ≥ 0 (0 releases without noise: no guarantee).
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(try_from = "f64", into = "f64")]
pub struct NoiseMultiplier(f64);

impl NoiseMultiplier {
    /// σ₀ = 0: no noise (and no guarantee).
    pub const ZERO: Self = Self(0.0);
    /// σ₀ = 1: noise with the standard deviation of the sensitivity.
    pub const ONE: Self = Self(1.0);

    /// Validates `sigma0`.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] (`sigma0`) unless `sigma0` is finite and ≥ 0.
    pub fn new(sigma0: f64) -> Result<Self> {
        non_negative("sigma0", sigma0).map(Self)
    }

    /// The value.
    pub const fn get(self) -> f64 {
        self.0
    }
}

/// A noise scale σ: the standard deviation of Gaussian noise (or the scale of another
/// mechanism's), finite and ≥ 0 (0: no noise).
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(try_from = "f64", into = "f64")]
pub struct NoiseScale(f64);

impl NoiseScale {
    /// σ = 0: no noise.
    pub const ZERO: Self = Self(0.0);

    /// Validates `sigma`.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] (`sigma`) unless `sigma` is finite and ≥ 0.
    pub fn new(sigma: f64) -> Result<Self> {
        non_negative("sigma", sigma).map(Self)
    }

    /// The value.
    pub const fn get(self) -> f64 {
        self.0
    }
}

impl NoiseMultiplier {
    /// The noise scale σ = σ₀·C of this multiplier at sensitivity (clip norm) `c`.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] (`sigma`) when σ₀·C is not finite, or `c` is negative.
    pub fn scale(self, c: f64) -> Result<NoiseScale> {
        NoiseScale::new(self.0 * c)
    }
}

/// An ε that an accountant computed as an upper bound on a release's privacy loss: ≥ 0 (0:
/// nothing released) and +∞ where nothing bounds it (no noise); never NaN. Unlike [`Epsilon`],
/// a budget a caller asks for, 0 and ∞ are valid values of it. Serialises as its `f64` (∞ as
/// JSON `null`, as before).
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Serialize)]
#[serde(into = "f64")]
pub struct EpsilonBound(f64);

impl EpsilonBound {
    /// No bound: +∞ (a release without noise).
    pub const UNBOUNDED: Self = Self(f64::INFINITY);
    /// Nothing released: 0.
    pub const ZERO: Self = Self(0.0);

    /// Validates a computed `eps`.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] (`eps`) for NaN or a negative value.
    pub fn new(eps: f64) -> Result<Self> {
        if eps.is_nan() || eps < 0.0 {
            return Err(Error::InvalidParam {
                name: "eps",
                value: eps,
                reason: "a computed ε must be >= 0 (or +∞)",
            });
        }
        Ok(Self(eps))
    }

    /// The value.
    pub const fn get(self) -> f64 {
        self.0
    }

    /// Whether a finite bound holds.
    pub fn is_finite(self) -> bool {
        self.0.is_finite()
    }

    /// The bound of `k` mechanisms each bounded by `self` run on the same data: `k·ε`, rounded
    /// up (basic sequential composition, Dwork & Roth 2014, Theorem 3.16).
    ///
    /// ```
    /// use dp_core::params::{Epsilon, EpsilonBound};
    /// let both_endpoints = EpsilonBound::from(Epsilon::constant(1.5)).times(2);
    /// assert_eq!(both_endpoints.get(), 3.0);
    /// assert_eq!(EpsilonBound::UNBOUNDED.times(2), EpsilonBound::UNBOUNDED);
    /// ```
    pub fn times(self, k: u32) -> Self {
        Self(crate::float::mul_up(self.0, f64::from(k)))
    }
}

impl Default for NoiseMultiplier {
    /// No noise ([`NoiseMultiplier::ZERO`]).
    fn default() -> Self {
        Self::ZERO
    }
}

impl Default for NoiseScale {
    /// No noise ([`NoiseScale::ZERO`]).
    fn default() -> Self {
        Self::ZERO
    }
}

impl From<Epsilon> for EpsilonBound {
    /// A budget spent is a bound on the loss (finite and > 0, so valid).
    fn from(eps: Epsilon) -> Self {
        Self(eps.get())
    }
}

impl From<EpsilonBound> for f64 {
    fn from(v: EpsilonBound) -> f64 {
        v.0
    }
}

impl fmt::Display for EpsilonBound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

macro_rules! number_traits {
    ($t:ident, $name:literal) => {
        impl TryFrom<f64> for $t {
            type Error = Error;
            fn try_from(v: f64) -> Result<Self> {
                Self::new(v)
            }
        }

        impl From<$t> for f64 {
            fn from(v: $t) -> f64 {
                v.0
            }
        }

        impl FromStr for $t {
            type Err = Error;
            fn from_str(s: &str) -> Result<Self> {
                let v: f64 = s.trim().parse().map_err(|_| Error::InvalidParam {
                    name: $name,
                    value: f64::NAN,
                    reason: "is not a number",
                })?;
                Self::new(v)
            }
        }

        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }
    };
}

number_traits!(Epsilon, "eps");
number_traits!(Delta, "delta");
number_traits!(Rho, "rho");
number_traits!(NoiseMultiplier, "sigma0");
number_traits!(NoiseScale, "sigma");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_values_are_refused_by_name() {
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                Epsilon::new(bad),
                Err(Error::InvalidParam { name: "eps", .. })
            ));
        }
        for bad in [0.0, 1.0, -1e-9, f64::NAN] {
            assert!(matches!(
                Delta::new(bad),
                Err(Error::InvalidParam { name: "delta", .. })
            ));
        }
        assert!(matches!(
            "abc".parse::<Epsilon>(),
            Err(Error::InvalidParam { name: "eps", .. })
        ));
        assert_eq!("2.5".parse::<Epsilon>().unwrap().to_string(), "2.5");
        let d: Delta = serde_json::from_str("1e-6").unwrap();
        assert_eq!(serde_json::to_string(&d).unwrap(), "1e-6");
        assert!(serde_json::from_str::<Delta>("1.5").is_err());
        for bad in [0.0, -0.5, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                Rho::new(bad),
                Err(Error::InvalidParam { name: "rho", .. })
            ));
        }
        for bad in [-1e-9, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                NoiseMultiplier::new(bad),
                Err(Error::InvalidParam { name: "sigma0", .. })
            ));
        }
        assert_eq!(NoiseMultiplier::new(0.0).unwrap().get(), 0.0);
        assert_eq!(NoiseMultiplier::ONE.scale(2.5).unwrap().get(), 2.5);
        assert!(NoiseMultiplier::ONE.scale(-1.0).is_err() && NoiseScale::new(f64::NAN).is_err());
        assert_eq!("0.25".parse::<Rho>().unwrap().get(), 0.25);
        assert!(serde_json::from_str::<Rho>("0").is_err());
        assert!(EpsilonBound::new(f64::NAN).is_err() && EpsilonBound::new(-1e-9).is_err());
        assert!(
            !EpsilonBound::UNBOUNDED.is_finite()
                && EpsilonBound::new(0.0).unwrap() == EpsilonBound::ZERO
        );
        assert_eq!(
            serde_json::to_string(&EpsilonBound::UNBOUNDED).unwrap(),
            "null"
        );
    }
}
