//! Cells of the tables' rows that hold a number or a word: ρ ([`Rho`]: a number, `inf`,
//! `public` or `-`) and a score ([`Score`]: a number, or why there is none).

use serde::{Serialize, Serializer};

/// A ρ cell: a number for a private row, `inf` for the non-private row, `-` for a row that
/// did not run (a dataset that is not installed).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Rho {
    /// A private release at this ρ.
    Private(f64),
    /// No noise (`inf`).
    NonPrivate,
    /// Public data, released exactly at no privacy cost (`public`: `|V(G)|` under edge-level
    /// DP).
    Public,
    /// Nothing ran (`-`).
    #[default]
    NotRun,
}

impl From<Option<dp_core::params::Rho>> for Rho {
    /// `Some(ρ)`: private at ρ; `None`: non-private.
    fn from(rho: Option<dp_core::params::Rho>) -> Self {
        rho.map_or(Self::NonPrivate, |r| Self::Private(r.get()))
    }
}

impl From<Option<f64>> for Rho {
    /// `Some(ρ)`: private at ρ; `None`: non-private.
    fn from(rho: Option<f64>) -> Self {
        rho.map_or(Self::NonPrivate, Self::Private)
    }
}

impl Serialize for Rho {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Self::Private(r) => s.serialize_f64(r),
            Self::NonPrivate => s.serialize_str("inf"),
            Self::Public => s.serialize_str("public"),
            Self::NotRun => s.serialize_str("-"),
        }
    }
}

/// A score cell: a value (NaN where it was not computed: an empty cell), or why there is
/// none.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Score {
    /// The score.
    Value(f64),
    /// The dataset is not installed (`not installed`).
    #[default]
    NotInstalled,
    /// The paper reports no such score, so none was run (the GIN baselines of REDDIT-BINARY
    /// and SBM: `not run (the paper reports none)`).
    NotReported,
}

impl Score {
    /// The cell of [`Score::NotReported`].
    pub const NOT_REPORTED: &str = "not run (the paper reports none)";
}

impl Serialize for Score {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Self::Value(v) => s.serialize_f64(v),
            Self::NotInstalled => s.serialize_str("not installed"),
            Self::NotReported => s.serialize_str(Self::NOT_REPORTED),
        }
    }
}
