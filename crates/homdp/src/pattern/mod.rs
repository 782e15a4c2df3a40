//! Patterns: small graphs `F` (at most 64 nodes) with their components and a tree decomposition,
//! and the seeded samplers of the paper's pattern laws.

mod decomposition;
#[allow(clippy::module_inception)]
// `pattern::pattern` holds the `Pattern` type, as linfa lays out modules.
mod pattern;
mod sample;

pub use decomposition::TreeDecomposition;
pub use pattern::{MAX_PATTERN_NODES, Pattern, PatternKind};
pub use sample::{PatternClass, PatternSampler, paper_size_p};
