#![doc = include_str!("../README.md")]

pub mod attack;
pub mod baselines;
mod client;
mod error;
mod estimate;
pub mod eval;
pub mod metrics;
pub mod ops;
pub mod paper;
pub mod report;
mod server;

/// Purpose names of the noise streams in [`dp_core::rng::NoiseSource`]: the CLI and the Python
/// module draw from these, so one seed gives one release everywhere.
pub mod streams {
    /// The data owner's randomized response ([`crate::perturb`]).
    pub const PERTURB: &str = "edgerefine/perturb";
    /// The noise of a baseline release.
    pub const BASELINE: &str = "edgerefine/baseline";
}

pub use client::{NoisyCount, keep_probability, perturb, perturb_with, perturb_with_count};
pub use error::{EdgeRefineError, Result};
pub use estimate::{EdgeEstimate, estimate_edges};
#[cfg(feature = "oracle")]
pub use server::refine_all_pairs;
pub use server::{
    ALL_PAIRS_MAX_NODES, ArtifactCalibration, Backend, CalibratedParams, CalibratedRelease,
    DEFAULT_TILE_ROWS, MAX_NODES, PopcountKernel, RankBuckets, RefineParams, Release,
    SelectionPlan, TieBreak, Tile, TileContext, TileHistogram, TileOptions, TileSelection,
    TileValues, TiledRefine, Timings, plan_tiles, refine, refine_bits_with_progress,
    refine_calibrated, refine_tiled, refine_with_progress, set_popcount_kernel,
};
