#![doc = include_str!("../README.md")]

/// The book's Rust library chapter, run as a doctest of this crate (it uses `graph_core`).
#[cfg(doctest)]
#[doc = include_str!("../../../docs/src/getting-started/rust.md")]
pub struct BookRustChapter;

mod builder;
pub mod choice;
mod collection;
mod error;
pub mod generate;
mod graph;
#[cfg(feature = "install")]
pub mod install;
#[cfg(feature = "petgraph")]
mod interop;
pub mod io;
pub mod limits;
pub mod loaders;
mod node_data;
pub mod partition;
pub mod registry;
mod stats;
mod upper_triangle;

pub use builder::{DuplicatePolicy, GraphBuilder};
pub use collection::{GraphDataset, Targets};
pub use error::{GraphError, Result};
pub use graph::{BitAdjacency, Components, Graph};
pub use node_data::{NodeDataset, NodeSplit, random_split_indices};
pub use partition::Partition;
pub use registry::{Dataset, Registry};
pub use stats::{GraphStats, mean_std};
