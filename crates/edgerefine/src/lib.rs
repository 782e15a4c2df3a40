//! Local edge-DP graph release with server-side refinement (the EdgeRefine paper).
//!
//! - Client (data owner): [`perturb`] applies ε-edge randomized response to every pair of the
//!   upper triangle, in O(n + m + #flips) with dp-core's geometric-skip sampler; never a dense
//!   matrix. [`perturb_with_count`] additionally releases a noisy edge count.
//! - Server: [`refine`] computes all-pairs Jaccard similarities on the noisy graph (bit-packed
//!   AND + popcount), calibrates them by exact quantile bins, and releases `K = ⌊k·E⌋` edges by
//!   deterministic top-K: `round(ρK)` from noisy edges, the rest from noisy non-edges.
//!
//! Deviations from the authors' code, as `shared/design/EDGEREFINE.md` lists: exact quantiles
//! over all pairs (their binner subsamples 200k pairs on large graphs) and a default tie-break
//! that does not release a star on node 0 ([`TieBreak::Reference`] keeps their order).
//!
//! # Architecture invariants
//! - Depends on `graph-core`, `dp-core` and `gnn`; never on the other paper crates.
//! - The client and the server are separate roles: the server sees only the noisy graph, `ε`
//!   and `E`.
//!
//! # Example
//! ```
//! use edgerefine::{perturb, refine, RefineParams};
//! use graph_core::generate::erdos_renyi;
//! let mut rng = dp_core::rng::seeded_rng(3);
//! let g = erdos_renyi(300, 0.03, &mut rng)?;
//! let noisy = perturb(&g, 2.0, &mut rng)?;
//! let release = refine(&noisy, &RefineParams { k: 0.5, ..RefineParams::new(2.0, g.num_edges() as u64) })?;
//! assert_eq!(release.graph.num_edges() as u64, release.k_target);
//! assert_eq!(release.k_target, g.num_edges() as u64 / 2);
//! # Ok::<(), edgerefine::EdgeRefineError>(())
//! ```

pub mod attack;
pub mod baselines;
mod client;
mod error;
pub mod eval;
pub mod metrics;
mod server;

pub use client::{NoisyCount, keep_probability, perturb, perturb_with_count};
pub use error::{EdgeRefineError, Result};
pub use server::{MAX_NODES, RefineParams, Release, TieBreak, Timings, refine};
