//! Graphs, graph collections, datasets, generators and partitions for dpgraph.
//!
//! - [`Graph`]: an undirected simple graph in CSR form with `u32` node ids, built through the
//!   validating [`GraphBuilder`]; [`BitAdjacency`] for dense bitwise kernels.
//! - [`NodeDataset`] (one graph, node features, labels, masks) and [`GraphDataset`] (many graphs,
//!   graph targets, named splits).
//! - [`loaders`]: TU format, the mirror's node-classification layout, OGB raw CSVs.
//! - [`io`]: the command line's edge-list and graph-set formats, `.npy`, atomic writes.
//! - [`registry`]: the dataset registry, installation with checksum verification, load by name.
//! - [`install`]: installation from upstream archives (download, safe unpacking, converters)
//!   and from the embedded copies of Cora and MUTAG.
//! - [`generate`]: seeded G(n,p), SBM, contextual SBM, Barabási–Albert.
//! - [`Partition`]: splitting a graph's nodes into parts by attribute, at random or by
//!   communities, with cross-part edge counts.
//!
//! # Architecture invariants
//! - `graph-core` knows nothing about privacy and depends on no other dpgraph crate.
//! - Every [`Graph`] is simple, symmetric and sorted; constructors enforce it and report bad
//!   input as a [`GraphError`], never by panicking or silently fixing it.
//!
//! # Example
//! ```
//! use graph_core::{generate, Graph, Partition};
//! use rand::SeedableRng;
//! let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(42);
//! let g: Graph = generate::erdos_renyi(500, 0.02, &mut rng)?;
//! assert_eq!(g.num_nodes(), 500);
//! assert!(g.edges().all(|(u, v)| u < v && g.has_edge(v, u)));
//! let parts = Partition::random(500, 4, &mut rng)?;
//! assert!(parts.cross_edges(&g)? <= g.num_edges());
//! # Ok::<(), graph_core::GraphError>(())
//! ```

mod builder;
mod collection;
mod error;
pub mod generate;
mod graph;
pub mod install;
mod interop;
pub mod io;
pub mod loaders;
mod node_data;
mod partition;
pub mod registry;
mod stats;

pub use builder::{DuplicatePolicy, GraphBuilder};
pub use collection::{GraphDataset, Targets};
pub use error::{GraphError, Result};
pub use graph::{BitAdjacency, Components, Graph};
pub use node_data::{NodeDataset, NodeSplit, random_split_indices};
pub use partition::Partition;
pub use registry::{Dataset, Registry};
pub use stats::GraphStats;
