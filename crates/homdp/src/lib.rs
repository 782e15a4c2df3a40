#![doc = include_str!("../README.md")]

/// The repository README's Rust quick start, run as a doctest of this crate (it uses `homdp`).
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct RepositoryReadme;

mod attack;
mod baselines;
mod count;
mod degree;
pub mod downstream;
mod embed;
mod error;
mod evaluate;
mod guarantee;
pub mod metrics;
pub mod ops;
pub mod paper;
mod pattern;
mod sensitivity;

/// Purpose names of an embedding run's streams in [`dp_core::rng::Seeds`] and
/// [`dp_core::rng::NoiseSource`]: the CLI, the Python module and the paper protocol draw from
/// these, so one seed gives one embedding everywhere.
pub mod streams {
    /// The public pattern stream (training randomness: patterns are public).
    pub const PATTERNS: &str = "homdp/patterns";
    /// The Gaussian noise of the embedding.
    pub const NOISE: &str = "homdp/embedding-noise";
}

pub use attack::{reidentification, reidentification_ranks};
pub use baselines::EdgePerturbation;
#[cfg(feature = "gin-baselines")]
pub use baselines::{
    BaselineFeatures, BaselineOutcome, GinBaselineConfig, GinData, gin_baseline, gin_model,
};
pub use count::{
    MAX_TABLE_ENTRIES, Method, density_matrix, hom_count, hom_count_with, hom_density,
    hom_density_exact, hom_density_with,
};
pub use degree::{
    DegreeEstimate, PrivateDegree, STABLE_CLIP_DISTANCE, candidate_bounds, clip_stable,
    estimate_degree_bound,
};
pub use embed::{EmbeddingParams, PrivateEmbedding, ReleaseOptions, embed, embed_with_densities};
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
