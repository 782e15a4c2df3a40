#![doc = include_str!("../README.md")]

pub mod attack;
pub mod baselines;
mod client;
mod error;
pub mod eval;
pub mod metrics;
pub mod paper;
mod server;

pub use client::{NoisyCount, keep_probability, perturb, perturb_with_count};
pub use error::{EdgeRefineError, Result};
#[cfg(feature = "oracle")]
pub use server::refine_all_pairs;
pub use server::{
    Backend, DEFAULT_TILE_ROWS, MAX_NODES, RankBuckets, RefineParams, Release, SelectionPlan,
    TieBreak, Tile, TileContext, TileHistogram, TileOptions, TileSelection, TileValues, Timings,
    plan_tiles, refine, refine_tiled,
};
