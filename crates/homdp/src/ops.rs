//! The private embedding as an operation: patterns, graphs, typed parameters and the noise
//! source in; the embedding matrix and a serialisable summary (the guarantee included) out.
//!
//! `dpgraph homdp embed` prints the summary as JSON or text and Python's `dpgraph.homdp.embed`
//! converts the same value to a dict, so the two records cannot drift apart: a test compares
//! them key by key.
//!
//! # Example
//! ```
//! use dp_core::rng::NoiseSource;
//! use graph_core::generate::erdos_renyi;
//! use homdp::{EmbeddingParams, PatternSampler};
//!
//! let mut rng = dp_core::rng::seeded_rng(2);
//! let graphs = (0..8).map(|_| erdos_renyi(20, 0.2, &mut rng)).collect::<Result<Vec<_>, _>>()?;
//! let patterns = PatternSampler::forests().sample_many(5, &mut rng);
//! let params = EmbeddingParams::new("0.5".parse()?).delta("1e-5".parse()?);
//! let (x, s) = homdp::ops::embed(&patterns, &graphs, &params, NoiseSource::from_seed(Some(3)))?;
//! assert_eq!(x.dim(), (8, 5));
//! assert_eq!((s.graphs, s.columns, s.num_patterns), (8, 5, 5));
//! assert!(s.guarantee.eps() > 0.0 && s.guarantee.delta() == 1e-5);
//! assert!(!s.noise.private); // seeded: reproducible, so not private
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::time::Instant;

use dp_core::params::{Epsilon, Rho};
use dp_core::rng::{NoiseRecord, NoiseSource};
use graph_core::Graph;
use ndarray::Array2;
use serde::Serialize;

use crate::embed::{EmbeddingParams, embed as embed_with_rng};
use crate::error::Result;
use crate::guarantee::Guarantee;
use crate::pattern::Pattern;
use crate::sensitivity::SensitivityBound;

/// A pattern as the graph-set JSON writes it: `{"n": .., "edges": [[u, v], ..]}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PatternRecord {
    /// Number of nodes |V(F)|.
    pub n: usize,
    /// The edges.
    pub edges: Vec<[usize; 2]>,
}

impl From<&Pattern> for PatternRecord {
    fn from(p: &Pattern) -> Self {
        Self {
            n: p.num_nodes(),
            edges: p.edges().map(|(u, v)| [u, v]).collect(),
        }
    }
}

/// The private degree bound of a release, as the record states it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct DegreeRecord {
    /// The bound Δ the exponential mechanism chose.
    pub bound: usize,
    /// Its zCDP budget ρ_Δ.
    pub rho: Rho,
    /// Its pure ε.
    pub eps: Epsilon,
    /// The share of graphs the bound should cover.
    pub quantile: f64,
    /// Number of candidate bounds.
    pub candidates: usize,
}

/// The record of a private embedding: what `dpgraph homdp embed --json` prints and what Python's
/// `embed` returns as its dict.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EmbedSummary {
    /// The guarantee: `rho`, `beta`, `dim`, `rho_prime`, `omega`, `degree_rho`, `delta`, `eps`.
    #[serde(flatten)]
    pub guarantee: Guarantee,
    /// Number of patterns D.
    pub num_patterns: usize,
    /// The patterns (public).
    pub patterns: Vec<PatternRecord>,
    /// Rows of the embedding.
    pub graphs: usize,
    /// Columns of the embedding (D, plus one for `|V(G)|`).
    pub columns: usize,
    /// The sensitivity bound that calibrated the noise.
    pub bound: SensitivityBound,
    /// The public degree bound Δ, if any.
    pub max_degree: Option<usize>,
    /// Whether graphs above Δ were clipped.
    pub clip: bool,
    /// Whether `|V(G)|` is the last column.
    pub num_nodes_column: bool,
    /// The private degree bound, when one was estimated.
    pub private_degree: Option<DegreeRecord>,
    /// Graphs that were clipped (indices).
    pub clipped: Vec<usize>,
    /// The noise scale σ_G of each graph.
    pub sigmas: Vec<f64>,
    /// The seed of a reproducible (not private) run.
    pub seed: Option<u64>,
    /// Whether the noise came from the OS CSPRNG (else the run is reproducible, not private).
    pub private: bool,
    /// The noise record.
    pub noise: NoiseRecord,
    /// Wall-clock seconds of the embedding.
    pub embed_s: f64,
}

/// The private embedding of `graphs` by `patterns` ([`crate::embed`]) with noise from stream
/// [`crate::streams::NOISE`] of `noise`, and its summary.
///
/// # Errors
/// [`crate::embed`]'s, and [`crate::HomdpError::Dp`] when the operating system gives no
/// entropy.
///
/// # Privacy
/// [`crate::embed`]'s guarantee, stated in the summary. With a seeded `noise` the release is
/// reproducible and therefore not private; the summary says so.
///
/// # Complexity
/// [`crate::embed`]'s.
pub fn embed(
    patterns: &[Pattern],
    graphs: &[Graph],
    params: &EmbeddingParams,
    noise: NoiseSource,
) -> Result<(Array2<f64>, EmbedSummary)> {
    let mut rng = noise.rng(crate::streams::NOISE, 0)?;
    let start = Instant::now();
    let emb = embed_with_rng(patterns, graphs, params, &mut rng)?;
    let embed_s = start.elapsed().as_secs_f64();
    let options = params.options();
    let record = noise.record();
    let summary = EmbedSummary {
        guarantee: *emb.guarantee(),
        num_patterns: patterns.len(),
        patterns: patterns.iter().map(PatternRecord::from).collect(),
        graphs: emb.values().nrows(),
        columns: emb.values().ncols(),
        bound: options.bound,
        max_degree: options.degree_bound,
        clip: options.clip,
        num_nodes_column: options.append_num_nodes,
        private_degree: emb
            .degree_estimate()
            .map(|e| -> Result<DegreeRecord> {
                Ok(DegreeRecord {
                    bound: e.bound,
                    rho: Rho::new(e.zcdp.rho())?,
                    eps: e.eps,
                    quantile: e.settings.quantile(),
                    candidates: e.candidates,
                })
            })
            .transpose()?,
        clipped: emb.clipped().to_vec(),
        sigmas: emb.sigmas().to_vec(),
        seed: record.seed,
        private: record.private,
        noise: record,
        embed_s,
    };
    Ok((emb.into_values(), summary))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_is_the_embeddings_own_and_serialises_flat() {
        let mut rng = dp_core::rng::seeded_rng(9);
        let graphs: Vec<Graph> = (0..6)
            .map(|_| graph_core::generate::erdos_renyi(15, 0.3, &mut rng).unwrap())
            .collect();
        let patterns = crate::PatternSampler::forests().sample_many(4, &mut rng);
        let params = EmbeddingParams::new(Rho::new(0.2).unwrap()).append_num_nodes(true);
        let source = NoiseSource::from_seed(Some(11));
        let (x, s) = embed(&patterns, &graphs, &params, source).unwrap();
        // The same matrix as the library call on the same stream.
        let mut noise = source.rng(crate::streams::NOISE, 0).unwrap();
        let direct = crate::embed(&patterns, &graphs, &params, &mut noise).unwrap();
        assert_eq!(&x, direct.values());
        assert_eq!(s.guarantee, *direct.guarantee());
        assert_eq!(s.sigmas, direct.sigmas());
        assert_eq!((s.graphs, s.columns), (6, 5));
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v["eps"], s.guarantee.eps());
        assert_eq!(v["rho"], 0.2);
        assert_eq!(v["bound"], "component-aware");
        assert_eq!(v["seed"], 11);
        assert_eq!(v["private"], false);
        assert_eq!(v["patterns"].as_array().unwrap().len(), 4);
        assert!(v["private_degree"].is_null());
    }
}
