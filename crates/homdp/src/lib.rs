//! Private homomorphism-density graph embeddings (the homdp paper, ICLR 2026).
//!
//! A graph `G` is embedded as the vector of homomorphism densities `t(F_i, G)` of sampled
//! patterns `F_1..F_d`, released with Gaussian noise calibrated to the densities' sensitivity
//! to one edge flip (edge-level DP through truncated concentrated DP).
//!
//! - [`Pattern`], [`TreeDecomposition`], [`PatternSampler`]: patterns (≤ 64 nodes) and the
//!   paper's seeded pattern laws (random forests, partial k-trees, cycles);
//! - [`hom_count`], [`hom_density`], [`density_matrix`]: exact `u128` counts (checked, never
//!   wrapped) and overflow-free `f64` densities; forests by tree DP, cycles by `trace(A^k)`,
//!   bounded treewidth by a nice-tree-decomposition DP with sparse tables (non-zero entries
//!   only, per pattern component; [`Method::SparseTreeDecomposition`]) or dense ones
//!   ([`Method::TreeDecomposition`]);
//! - [`density_sensitivity`] with [`SensitivityBound`]: the component-aware bounded-degree bound
//!   (default), the paper's Theorem 4.5 formula (explicit option), the counting lemma; and
//!   [`smooth_sensitivity`];
//! - [`Guarantee`]: the paper's tCDP guarantee and its (ε, δ);
//! - [`embed`] with [`EmbeddingParams`]: the private embedding, returned together with its
//!   guarantee;
//! - [`reidentification`]: the paper's re-identification attack (top-k rates);
//! - [`gin_baseline`] with [`EdgePerturbation`]: the paper's GIN baselines on graphs perturbed
//!   by randomized response (RR) or degree-preserving RR (DPRR);
//! - [`downstream`] (scaling, PCA, k-NN, random forest, bagged linfa trees, linear SVR) and [`metrics`];
//!   [`evaluate`] with [`Protocol`] and [`Split`]: the paper's evaluation protocol.
//!
//! Design notes: `shared/design/HOMDP.md`.
//!
//! # Architecture invariants
//! - Depends on `graph-core`, `dp-core` and `gnn`; never on the other paper crates.
//! - Exact counts never wrap: overflow is [`HomdpError::Overflow`]. Densities are computed in a
//!   scaled arithmetic in which every intermediate lies in `[0, 1]`.
//! - Privacy numbers come with the release that they describe ([`PrivateEmbedding::guarantee`]);
//!   a caller never recomputes them.
//!
//! # Example
//! ```
//! use graph_core::Graph;
//! use homdp::{hom_count, hom_density, Pattern};
//! let k4 = Graph::from_edges(4, &[(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)])?;
//! let f = Pattern::path(3)?.disjoint_union(&Pattern::path(2)?)?; // P3 + K2
//! assert_eq!(hom_count(&f, &k4)?, 432);
//! assert!((hom_density(&f, &k4)? - 27.0 / 64.0).abs() < 1e-15);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod attack;
mod baselines;
mod count;
pub mod downstream;
mod embed;
mod error;
mod evaluate;
mod guarantee;
pub mod metrics;
mod pattern;
mod sensitivity;

pub use attack::{reidentification, reidentification_ranks};
pub use baselines::{
    BaselineFeatures, BaselineOutcome, EdgePerturbation, GinBaselineConfig, gin_baseline,
};
pub use count::{
    MAX_TABLE_ENTRIES, Method, density_matrix, hom_count, hom_count_with, hom_density,
    hom_density_exact, hom_density_with,
};
pub use embed::{EmbeddingParams, PrivateEmbedding, embed, embed_with_densities};
pub use error::{HomdpError, Result};
pub use evaluate::{EvalData, Outcome, Protocol, Split, clean_features, evaluate};
pub use guarantee::Guarantee;
pub use pattern::{
    MAX_PATTERN_NODES, Pattern, PatternClass, PatternKind, PatternSampler, TreeDecomposition,
    paper_size_p,
};
pub use sensitivity::{
    SensitivityBound, check_degree_bound, clip_to_degree_bound, density_sensitivity,
    smooth_sensitivity,
};
