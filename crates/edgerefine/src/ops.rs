//! The server's use cases as operations: a typed request in, the released graph and a
//! serialisable summary out.
//!
//! `dpgraph edgerefine refine` prints the summary as JSON or text and Python's
//! `dpgraph.edgerefine.refine` converts the same value to a dict, so the two records cannot
//! drift apart: a test compares them key by key.
//!
//! # Example
//! ```
//! use edgerefine::ops::{EdgeCount, EdgeCountSource, NoisyGraph, RefineRequest, refine};
//! use graph_core::generate::erdos_renyi;
//!
//! let mut rng = dp_core::rng::seeded_rng(1);
//! let g = erdos_renyi(200, 0.05, &mut rng)?;
//! let eps = "2".parse()?;
//! let noisy = edgerefine::perturb(&g, eps, &mut rng)?;
//! // The server does not know E: it estimates it from the report (post-processing).
//! let request = RefineRequest { k: 0.5, ..RefineRequest::new(eps, EdgeCount::Estimated) };
//! let (release, summary) = refine(NoisyGraph::Edges(&noisy), &request, &mut |_, _| {})?;
//! assert_eq!(summary.counts.edge_count.edge_count_source, EdgeCountSource::Estimated);
//! assert_eq!(release.num_edges() as u64, summary.counts.k_target);
//! assert_eq!(summary.eps.get(), 2.0); // the owner's ε-edge LDP: refining is post-processing
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::time::Instant;

use dp_core::mechanisms::RandomizedResponse;
use dp_core::params::Epsilon;
use dp_core::rng::{NoiseRecord, NoiseSource};
use graph_core::{BitAdjacency, Graph};
use serde::Serialize;

use crate::error::Result;
use crate::estimate::{EdgeEstimate, estimate_edges};
use crate::report::{Encoding, FlipSampler, ReportHeader, perturb_report};
use crate::server::{
    ArtifactCalibration, CalibratedParams, RefineParams, Release, TieBreak, Timings,
    refine_bits_with_progress, refine_calibrated, refine_with_progress,
};

/// The record of the data owner's randomized response: what `dpgraph edgerefine perturb`
/// prints (with the output file and its format).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PerturbSummary {
    /// Nodes n.
    pub nodes: u64,
    /// Edges of the noisy graph.
    pub noisy_edges: u64,
    /// The guarantee: ε-edge local DP of the report.
    pub eps: Epsilon,
    /// The keep probability `e^ε/(1+e^ε)`.
    pub keep_probability: f64,
    /// The report's body: `"dense"` (bit-packed rows) or `"sparse"` (sorted pairs).
    pub encoding: &'static str,
    /// How the flips of non-edges were drawn.
    pub flip_sampler: &'static str,
    /// The seed of a reproducible (not private) run.
    pub seed: Option<u64>,
    /// The noise record.
    pub noise: NoiseRecord,
    /// Wall-clock seconds of the draw.
    pub perturb_s: f64,
}

/// The data owner's ε-edge randomized response on every pair of `graph`'s upper triangle,
/// drawn straight into a report's packed body ([`perturb_report`], stream
/// [`crate::streams::PERTURB`] of `noise`), and its summary. The CLI writes the bytes as a
/// `.rr` file or decodes them to an edge list; Python decodes them to a graph: the same noisy
/// graph for the same seed.
///
/// # Errors
/// [`perturb_report`]'s, and [`crate::EdgeRefineError::Dp`] when the operating system gives no
/// entropy.
///
/// # Privacy
/// ε-edge local DP (randomized response on each pair, Warner). With a seeded `noise` the report
/// is reproducible and therefore not private; the summary says so.
///
/// # Complexity
/// O(n²/64) words for a dense report, O(m + flips) for a sparse one.
pub fn perturb(
    graph: &Graph,
    eps: Epsilon,
    noise: NoiseSource,
) -> Result<(Vec<u8>, PerturbSummary)> {
    let rr = RandomizedResponse::binary(eps.get())?;
    let mut rng = noise.rng(crate::streams::PERTURB, 0)?;
    let t = Instant::now();
    let bytes = perturb_report(graph, &rr, &mut rng)?;
    let perturb_s = t.elapsed().as_secs_f64();
    let header = ReportHeader::parse(&bytes)?;
    let record = noise.record();
    let summary = PerturbSummary {
        nodes: header.n,
        noisy_edges: header.edges,
        eps,
        keep_probability: rr.keep_prob(),
        encoding: match header.encoding {
            Encoding::Dense => "dense",
            Encoding::Sparse => "sparse",
        },
        flip_sampler: match FlipSampler::for_flip(1.0 - rr.keep_prob()) {
            FlipSampler::Words => "words (bit-sliced, 64 pairs per draw)",
            FlipSampler::Skip => "geometric gaps",
        },
        seed: record.seed,
        noise: record,
        perturb_s,
    };
    Ok((bytes, summary))
}

/// Where the true edge count E of the budget `⌊k·E⌋` comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeCount {
    /// Supplied by the caller, as in the paper's protocol (which treats E as public).
    Supplied(u64),
    /// Estimated from the noisy graph alone ([`estimate_edges`]): post-processing, no privacy
    /// cost beyond the report's ε.
    Estimated,
}

/// How the edge count used was obtained (`"supplied"` or `"estimated"` in a record).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EdgeCountSource {
    /// [`EdgeCount::Supplied`].
    Supplied,
    /// [`EdgeCount::Estimated`].
    Estimated,
}

/// The edge count a release used and where it came from.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct EdgeCountUsed {
    /// The E of the budget `⌊k·E⌋`.
    pub edges_used: u64,
    /// Supplied or estimated.
    pub edge_count_source: EdgeCountSource,
    /// The estimate with its standard error (`None` when supplied).
    pub edge_estimate: Option<EdgeEstimate>,
}

impl EdgeCount {
    /// The edge count for a noisy graph of `n` nodes and `noisy_edges` edges reported at `eps`.
    ///
    /// # Errors
    /// [`crate::EdgeRefineError::InvalidParam`] when the estimate is impossible (see
    /// [`estimate_edges`]).
    ///
    /// # Privacy
    /// Post-processing of the report: reads only n, ε and the noisy edge count.
    pub fn resolve(self, n: usize, eps: Epsilon, noisy_edges: u64) -> Result<EdgeCountUsed> {
        Ok(match self {
            Self::Supplied(e) => EdgeCountUsed {
                edges_used: e,
                edge_count_source: EdgeCountSource::Supplied,
                edge_estimate: None,
            },
            Self::Estimated => {
                let est = estimate_edges(n, eps, noisy_edges)?;
                EdgeCountUsed {
                    edges_used: est.edges,
                    edge_count_source: EdgeCountSource::Estimated,
                    edge_estimate: Some(est),
                }
            }
        })
    }
}

/// A refinement as a caller asks for it: [`RefineParams`] with the edge count still to be
/// resolved against the noisy graph.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RefineRequest {
    /// The ε the data owner reported at.
    pub eps: Epsilon,
    /// Sampling rate k in (0, 1].
    pub k: f64,
    /// The edge count E, supplied or to be estimated.
    pub edge_count: EdgeCount,
    /// Number of quantile bins B.
    pub bins: usize,
    /// Order of candidates with equal calibrated probability.
    pub tie_break: TieBreak,
    /// Seed of the tie order (and of the artifact's beta calibration split).
    pub seed: u64,
}

impl RefineRequest {
    /// [`RefineParams::new`]'s defaults (k = 0.01, 10 bins, default ties, seed 0).
    pub fn new(eps: Epsilon, edge_count: EdgeCount) -> Self {
        let d = RefineParams::new(eps, 0);
        Self {
            eps,
            k: d.k,
            edge_count,
            bins: d.bins,
            tie_break: d.tie_break,
            seed: d.seed,
        }
    }

    /// The checked-at-use parameters for a noisy graph of `n` nodes and `noisy_edges` edges,
    /// and the edge count they use.
    ///
    /// # Errors
    /// See [`EdgeCount::resolve`].
    pub fn params(&self, n: usize, noisy_edges: u64) -> Result<(RefineParams, EdgeCountUsed)> {
        let used = self.edge_count.resolve(n, self.eps, noisy_edges)?;
        let params = RefineParams {
            eps: self.eps,
            k: self.k,
            true_edges: used.edges_used,
            bins: self.bins,
            tie_break: self.tie_break,
            seed: self.seed,
        };
        Ok((params, used))
    }
}

/// The noisy graph the server refines.
#[derive(Clone, Copy, Debug)]
pub enum NoisyGraph<'a> {
    /// An edge list (or a decoded sparse report).
    Edges(&'a Graph),
    /// Bit-packed rows (a dense report), with the report's noisy edge count.
    Bits {
        /// The rows.
        rows: &'a BitAdjacency,
        /// The noisy edge count the report records.
        edges: u64,
    },
}

impl NoisyGraph<'_> {
    /// Number of nodes.
    pub(crate) fn num_nodes(&self) -> usize {
        match self {
            Self::Edges(g) => g.num_nodes(),
            Self::Bits { rows, .. } => rows.num_nodes(),
        }
    }

    /// Number of noisy edges.
    pub fn num_edges(&self) -> u64 {
        match self {
            Self::Edges(g) => g.num_edges() as u64,
            Self::Bits { edges, .. } => *edges,
        }
    }
}

/// What every release of the server records: its size, the edge count it used and how its
/// budget `K = ⌊k·E⌋` splits between noisy edges and noisy non-edges.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReleaseCounts {
    /// Nodes of the release.
    pub nodes: usize,
    /// Edges released (`k_real + k_fake`).
    pub released_edges: usize,
    /// The edge count used and its source.
    #[serde(flatten)]
    pub edge_count: EdgeCountUsed,
    /// Target `K = ⌊k·E⌋`.
    pub k_target: u64,
    /// Edges taken from noisy edges.
    pub k_real: u64,
    /// Edges taken from noisy non-edges.
    pub k_fake: u64,
}

/// The record of a refinement: what `dpgraph edgerefine refine --json` prints and what Python's
/// `refine` returns as its dict.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RefineSummary {
    /// Size, edge count and budget.
    #[serde(flatten)]
    pub counts: ReleaseCounts,
    /// The keep probability `ρ = e^ε/(1+e^ε)` (the paper's ρ; `"rho"` in the record).
    #[serde(rename = "rho")]
    pub keep_probability: f64,
    /// Quantile bin edges.
    pub bin_edges: Vec<f64>,
    /// Calibrated probability of each bin.
    pub bin_probability: Vec<f64>,
    /// Pairs per bin.
    pub bin_pairs: Vec<u64>,
    /// Order of equal candidates.
    pub tie_break: TieBreak,
    /// Seed of the tie order.
    pub seed: u64,
    /// The guarantee: ε-edge local DP of the owner's report, which the release keeps (refining
    /// is post-processing).
    pub eps: Epsilon,
    /// Wall-clock seconds of the refinement.
    pub refine_s: f64,
    /// Seconds per step.
    pub timings: Timings,
}

impl RefineSummary {
    /// The summary of `release`, made with `params` and the edge count `used`, in `seconds`.
    pub fn new(
        release: &Release,
        params: &RefineParams,
        used: EdgeCountUsed,
        seconds: f64,
    ) -> Self {
        Self {
            counts: ReleaseCounts {
                nodes: release.graph.num_nodes(),
                released_edges: release.graph.num_edges(),
                edge_count: used,
                k_target: release.k_target,
                k_real: release.k_real,
                k_fake: release.k_fake,
            },
            keep_probability: release.keep_probability,
            bin_edges: release.bin_edges.clone(),
            bin_probability: release.bin_probability.clone(),
            bin_pairs: release.bin_pairs.clone(),
            tie_break: params.tie_break,
            seed: params.seed,
            eps: params.eps,
            refine_s: seconds,
            timings: release.timings.clone(),
        }
    }
}

/// The EdgeRefine server on `noisy`: resolves the edge count, refines (reporting
/// `progress(done, total)` as [`refine_with_progress`] does) and returns the released graph with
/// its summary.
///
/// # Errors
/// [`EdgeCount::resolve`]'s and [`crate::refine`]'s.
///
/// # Privacy
/// Post-processing of an ε-edge LDP report: the release is ε-edge LDP.
///
/// # Complexity
/// [`crate::refine`]'s.
pub fn refine(
    noisy: NoisyGraph<'_>,
    request: &RefineRequest,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(Graph, RefineSummary)> {
    let (params, used) = request.params(noisy.num_nodes(), noisy.num_edges())?;
    let t = Instant::now();
    let release = match noisy {
        NoisyGraph::Edges(g) => refine_with_progress(g, &params, progress)?,
        NoisyGraph::Bits { rows, .. } => refine_bits_with_progress(rows, &params, progress)?,
    };
    let summary = RefineSummary::new(&release, &params, used, t.elapsed().as_secs_f64());
    Ok((release.graph, summary))
}

/// The record of a refinement under one of the authors' artifact's calibrations.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CalibratedSummary {
    /// Size, edge count and budget.
    #[serde(flatten)]
    pub counts: ReleaseCounts,
    /// The calibration's name.
    pub calibration: &'static str,
    /// Distinct calibrated levels.
    pub levels: usize,
    /// What the calibration fitted.
    pub fitted: String,
    /// Seed of the beta calibration's split.
    pub seed: u64,
    /// The guarantee: the owner's ε-edge LDP (post-processing).
    pub eps: Epsilon,
    /// Wall-clock seconds of the refinement.
    pub refine_s: f64,
}

/// The server under `calibration` (all pairs in memory; the artifact's selection) on `noisy`;
/// `request.tie_break` is not used.
///
/// # Errors
/// [`EdgeCount::resolve`]'s and [`refine_calibrated`]'s.
///
/// # Privacy
/// Post-processing of an ε-edge LDP report.
///
/// # Complexity
/// [`refine_calibrated`]'s.
pub fn refine_artifact(
    noisy: &Graph,
    request: &RefineRequest,
    calibration: ArtifactCalibration,
) -> Result<(Graph, CalibratedSummary)> {
    let (base, used) = request.params(noisy.num_nodes(), noisy.num_edges() as u64)?;
    let params = CalibratedParams {
        eps: base.eps,
        k: base.k,
        true_edges: base.true_edges,
        calibration,
        bins: base.bins,
        seed: base.seed,
    };
    let r = refine_calibrated(noisy, &params)?;
    let summary = CalibratedSummary {
        counts: ReleaseCounts {
            nodes: r.graph.num_nodes(),
            released_edges: r.graph.num_edges(),
            edge_count: used,
            k_target: r.k_target,
            k_real: r.k_real,
            k_fake: r.k_fake,
        },
        calibration: calibration.name(),
        levels: r.levels,
        fitted: r.fitted,
        seed: params.seed,
        eps: params.eps,
        refine_s: r.seconds,
    };
    Ok((r.graph, summary))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn supplied_counts_pass_through_and_estimates_carry_their_error() {
        let eps = Epsilon::new(2.0).unwrap();
        let s = EdgeCount::Supplied(123).resolve(50, eps, 400).unwrap();
        assert_eq!(s.edges_used, 123);
        assert_eq!(s.edge_count_source, EdgeCountSource::Supplied);
        assert!(s.edge_estimate.is_none());
        let e = EdgeCount::Estimated.resolve(50, eps, 400).unwrap();
        let direct = estimate_edges(50, eps, 400).unwrap();
        assert_eq!(e.edges_used, direct.edges);
        assert_eq!(e.edge_estimate, Some(direct));
        // More noisy edges than pairs is refused, not clamped.
        assert!(EdgeCount::Estimated.resolve(50, eps, 50 * 49).is_err());
    }

    #[test]
    fn the_summary_serialises_flat_with_the_source_as_a_name() {
        let mut rng = dp_core::rng::seeded_rng(4);
        let g = graph_core::generate::erdos_renyi(120, 0.05, &mut rng).unwrap();
        let eps = Epsilon::new(1.5).unwrap();
        let noisy = crate::perturb(&g, eps, &mut rng).unwrap();
        let req = RefineRequest {
            k: 0.5,
            ..RefineRequest::new(eps, EdgeCount::Supplied(g.num_edges() as u64))
        };
        let (rel, s) = refine(NoisyGraph::Edges(&noisy), &req, &mut |_, _| {}).unwrap();
        // The same release as the library call with the same parameters.
        let (params, _) = req.params(120, noisy.num_edges() as u64).unwrap();
        assert_eq!(rel, crate::refine(&noisy, &params).unwrap().graph);
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v["edge_count_source"], "supplied");
        assert_eq!(v["edges_used"], g.num_edges() as u64);
        assert!(v["edge_estimate"].is_null());
        assert_eq!(v["released_edges"], rel.num_edges());
        assert_eq!(v["eps"], 1.5);
        assert_eq!(v["tie_break"], "default");
    }
}
