#![doc = include_str!("../README.md")]

pub mod aml;
pub mod attack;
pub mod deploy;
mod error;
pub mod estimator;
pub mod federation;
pub mod ops;
pub mod paper;
pub mod privacy;
pub mod protocol;
pub mod train;

pub use error::{FedError, Result};
