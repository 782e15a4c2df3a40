#![doc = include_str!("../README.md")]

pub mod accountant;
pub mod audit;
pub mod calibrate;
pub mod conversions;
mod error;
pub mod float;
pub mod ledger;
pub mod measures;
pub mod mechanisms;
pub mod params;
pub mod rng;
pub mod samplers;

pub use error::{Error, ParamParts, Result};
