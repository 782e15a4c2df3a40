//! Evaluation of releases: every method's release of a graph ([`Method`], [`release`],
//! [`release_many`], per graph of a collection [`release_graph_set`]), the structure of a
//! release (density, true-edge precision and recall) and its publish time; with the feature
//! `train`, node and graph classification accuracy of GNNs trained on a release
//! (`train_on_release`, `train_graph_release`; features and labels are the dataset's own).

use dp_core::params::Epsilon;
use std::time::Instant;

use graph_core::{Graph, GraphDataset};
use serde::Serialize;

use crate::baselines::{
    BlinkArtifactParams, BlinkArtifactPosterior, BlinkArtifactVariant, BlinkParams, BlinkPosterior,
    BlinkVariant, DprrParams, LdpGenParams, blink_artifact_client, blink_artifact_server,
    blink_client, blink_server, dprr, ldpgen, rr,
};
use crate::error::Result;
use crate::{RefineParams, TieBreak, estimate_edges, perturb, refine};

#[cfg(feature = "train")]
mod train;
#[cfg(feature = "train")]
pub use train::{
    GraphModel, NodeModel, RunScore, TrainPlan, majority_rate, mutag_protocol, train_graph_release,
    train_on_release,
};

/// Blink-soft releases in this module drop pairs with posterior ≤ this (the baseline's own default
/// is 1e-6, which keeps nearly all n²/2 pairs): the dropped weight is at most n·1e-3 per node
/// and keeps the soft graph trainable.
pub(crate) const EVAL_SOFT_FLOOR: f64 = 1e-3;

/// How the graph given to the GNN is produced.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Method {
    /// The true graph (no privacy): the upper reference.
    Origin,
    /// No edges at all: the GNN sees features only (the MLP / no-graph row).
    NoGraph,
    /// Symmetric randomized response (upper triangle, mirrored): the noisy graph as released.
    SymRr,
    /// Randomized response on every ordered pair, OR-symmetrised (both endpoints report).
    Rr,
    /// The original Blink (Zhu et al. 2023) with the given posterior use.
    Blink(BlinkVariant),
    /// Blink as the EdgeRefine artifact runs it ([`crate::baselines::blink_artifact()`], its
    /// defaults: ε_d = 0.1, ε_a = ε − 0.1, degree-1 fix on): the baseline the paper's "over
    /// Blink" numbers are measured against. Not the original, and not ε-DP (see
    /// [`crate::baselines::BlinkArtifactSpend`]).
    BlinkArtifact(BlinkArtifactVariant),
    /// LDPGen (Qin et al. 2017), two phases.
    LdpGen,
    /// Degree-preserving randomized response (Hidano & Murakami).
    Dprr,
    /// EdgeRefine with sampling rate `k` and a tie-break.
    EdgeRefine {
        /// Sampling rate k (`K = ⌊k·E⌋`).
        k: f64,
        /// Tie-break order.
        tie_break: TieBreak,
        /// Where the server's edge count `E` comes from.
        edge_count: EdgeCount,
    },
}

/// Where EdgeRefine's server takes the edge count `E` of its budget `K = ⌊k·E⌋` from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EdgeCount {
    /// The true count, supplied as in the paper's protocol (which treats it as public).
    #[default]
    Supplied,
    /// Estimated from the noisy graph alone ([`crate::estimate_edges`]: post-processing, no
    /// extra privacy cost), as a server that does not know `E` must.
    Estimated,
}

impl Method {
    /// A short label for tables.
    pub fn label(&self) -> String {
        match self {
            Self::Origin => "non-private".into(),
            Self::NoGraph => "no graph (features only)".into(),
            Self::SymRr => "SymRR".into(),
            Self::Rr => "RR (OR of both reports)".into(),
            Self::Blink(v) => format!(
                "Blink-{} (original, δ_b = 0.1)",
                match v {
                    BlinkVariant::Hard => "hard",
                    BlinkVariant::Soft => "soft, p ≤ 1e-3 dropped",
                    BlinkVariant::Hybrid => "hybrid",
                }
            ),
            Self::BlinkArtifact(v) => format!(
                "Blink-{} (EdgeRefine artifact's variant)",
                match v {
                    BlinkArtifactVariant::Hard => "hard",
                    BlinkArtifactVariant::Hybrid => "hybrid",
                }
            ),
            Self::LdpGen => "LDPGen".into(),
            Self::Dprr => "DPRR".into(),
            Self::EdgeRefine {
                k,
                tie_break,
                edge_count,
            } => {
                let base = match tie_break {
                    TieBreak::Default => format!("EdgeRefine k={k}"),
                    TieBreak::Reference => format!("EdgeRefine k={k} (reference tie-break)"),
                };
                match edge_count {
                    EdgeCount::Supplied => base,
                    EdgeCount::Estimated => format!("{base} (estimated E)"),
                }
            }
        }
    }

    /// Whether the method spends privacy budget (depends on ε).
    pub fn is_private(&self) -> bool {
        !matches!(self, Self::Origin | Self::NoGraph)
    }
}

/// A released graph with its cost and structure.
#[derive(Clone, Debug)]
pub struct Released {
    /// The graph the GNN trains on.
    pub graph: Graph,
    /// Edge weights aligned with `graph.edges()` (Blink's soft and hybrid releases).
    pub weights: Option<Vec<f32>>,
    /// Client + server wall time in seconds.
    pub publish_s: f64,
}

/// Produces the graph of `method` for the true graph at `eps` (seeded RNG for the client's
/// randomized response: an experiment, not a release).
///
/// # Errors
/// Invalid ε or parameters.
pub fn release(graph: &Graph, method: Method, eps: Epsilon, seed: u64) -> Result<Released> {
    let start = Instant::now();
    let mut rng = dp_core::rng::seeded_rng(seed);
    let mut weights = None;
    let g = match method {
        Method::Origin => graph.clone(),
        Method::NoGraph => Graph::empty(graph.num_nodes())?,
        Method::SymRr => perturb(graph, eps, &mut rng)?,
        Method::Rr => rr(graph, eps, &mut rng)?.graph,
        Method::Blink(v) => {
            let r = blink_posterior(graph, &eval_blink_params(eps), seed)?
                .0
                .release(v)?;
            weights = r.weights;
            r.graph
        }
        Method::BlinkArtifact(v) => {
            let r = blink_artifact_posterior(graph, &BlinkArtifactParams::new(eps), seed)?
                .0
                .release(v)?;
            weights = r.weights;
            r.graph
        }
        Method::LdpGen => ldpgen(graph, &LdpGenParams::new(eps), &mut rng)?.graph,
        Method::Dprr => dprr(graph, &DprrParams::new(eps), &mut rng)?.graph,
        Method::EdgeRefine {
            k,
            tie_break,
            edge_count,
        } => {
            let noisy = perturb(graph, eps, &mut rng)?;
            let true_edges = match edge_count {
                EdgeCount::Supplied => graph.num_edges() as u64,
                EdgeCount::Estimated => {
                    estimate_edges(noisy.num_nodes(), eps, noisy.num_edges() as u64)?.edges
                }
            };
            let params = RefineParams {
                eps,
                k,
                true_edges,
                bins: 10,
                tie_break,
                seed,
            };
            refine(&noisy, &params)?.graph
        }
    };
    Ok(Released {
        graph: g,
        weights,
        publish_s: start.elapsed().as_secs_f64(),
    })
}

/// Blink's parameters in this module: the defaults of [`BlinkParams::new`] with the soft floor
/// [`EVAL_SOFT_FLOOR`].
fn eval_blink_params(eps: Epsilon) -> BlinkParams {
    BlinkParams {
        soft_floor: EVAL_SOFT_FLOOR,
        ..BlinkParams::new(eps)
    }
}

/// Blink's client reports and server posterior for `graph` (the RNG seeded by `seed` exactly as
/// [`release`] seeds it, so every variant released from it equals the corresponding
/// [`release`]), with its wall time in seconds.
///
/// # Errors
/// Invalid ε or Blink parameters.
///
/// # Privacy
/// ε-edge LDP per user (each pair reported by both endpoints: 2ε for the whole release).
///
/// # Complexity
/// O(iterations · n²) time, O(n²/8) bytes.
pub fn blink_posterior(
    graph: &Graph,
    params: &BlinkParams,
    seed: u64,
) -> Result<(BlinkPosterior, f64)> {
    let start = Instant::now();
    let mut rng = dp_core::rng::seeded_rng(seed);
    let reports = blink_client(graph, params, &mut rng)?;
    let post = blink_server(&reports, params)?;
    Ok((post, start.elapsed().as_secs_f64()))
}

/// The artifact's Blink reports and server posterior for `graph` (the RNG seeded by `seed`
/// exactly as [`release`] seeds it, so both variants released from it equal the corresponding
/// [`release`]), with its wall time in seconds.
///
/// # Errors
/// Invalid ε (≤ 0.1 under the default split) or parameters.
///
/// # Privacy
/// Labelled ε; see [`crate::baselines::BlinkArtifactSpend`] for what it spends (no finite ε
/// with the artifact's degree-1 fix).
///
/// # Complexity
/// O(iterations · n²) time, O(n²/4) bytes.
pub(crate) fn blink_artifact_posterior(
    graph: &Graph,
    params: &BlinkArtifactParams,
    seed: u64,
) -> Result<(BlinkArtifactPosterior, f64)> {
    let start = Instant::now();
    let mut rng = dp_core::rng::seeded_rng(seed);
    let reports = blink_artifact_client(graph, params, &mut rng)?;
    let post = blink_artifact_server(&reports, params)?;
    Ok((post, start.elapsed().as_secs_f64()))
}

/// The releases of several methods at one ε and seed; the Blink variants share one set of
/// reports and one posterior, and so do the artifact's Blink variants (each equals its own
/// [`release`]; its publish time is the shared client + server time plus its own release
/// step).
///
/// # Errors
/// As [`release`].
///
/// # Complexity
/// The sum of the methods' costs, with Blink's O(n²) fit done once.
pub fn release_many(
    graph: &Graph,
    methods: &[Method],
    eps: Epsilon,
    seed: u64,
) -> Result<Vec<Released>> {
    let mut post: Option<(BlinkPosterior, f64)> = None;
    let mut artifact: Option<(BlinkArtifactPosterior, f64)> = None;
    let mut out = Vec::with_capacity(methods.len());
    for &m in methods {
        let start = Instant::now();
        let (r, fit_s) = match m {
            Method::Blink(v) => {
                if post.is_none() {
                    post = Some(blink_posterior(graph, &eval_blink_params(eps), seed)?);
                }
                let (p, fit_s) = post.as_ref().expect("set above");
                (p.release(v)?, *fit_s)
            }
            Method::BlinkArtifact(v) => {
                if artifact.is_none() {
                    artifact = Some(blink_artifact_posterior(
                        graph,
                        &BlinkArtifactParams::new(eps),
                        seed,
                    )?);
                }
                let (p, fit_s) = artifact.as_ref().expect("set above");
                (p.release(v)?, *fit_s)
            }
            _ => {
                out.push(release(graph, m, eps, seed)?);
                continue;
            }
        };
        out.push(Released {
            graph: r.graph,
            weights: r.weights,
            publish_s: fit_s + start.elapsed().as_secs_f64(),
        });
    }
    Ok(out)
}

/// Structure of a release against the true graph.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Structure {
    /// Released edges.
    pub edges: usize,
    /// Edge density of the release.
    pub density: f64,
    /// Share of released edges that are true edges (NaN for an empty release).
    pub precision: f64,
    /// Share of true edges that are released.
    pub recall: f64,
}

/// Density, true-edge precision and recall of `released` against `truth`.
pub fn structure(truth: &Graph, released: &Graph) -> Structure {
    let tp = released
        .edges()
        .filter(|&(u, v)| truth.has_edge(u, v))
        .count();
    let e = released.num_edges();
    Structure {
        edges: e,
        density: released.density(),
        precision: if e == 0 {
            f64::NAN
        } else {
            tp as f64 / e as f64
        },
        recall: if truth.num_edges() == 0 {
            f64::NAN
        } else {
            tp as f64 / truth.num_edges() as f64
        },
    }
}

/// Structure of a per-graph release of a graph collection, summed over its graphs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SetStructure {
    /// Released edges over all graphs.
    pub edges: usize,
    /// True edges over all graphs.
    pub true_edges: usize,
    /// Share of released edges that are true edges (NaN for an empty release).
    pub precision: f64,
    /// Share of true edges that are released (NaN without true edges).
    pub recall: f64,
    /// Client + server wall time over all graphs, in seconds.
    pub publish_s: f64,
}

/// Releases every graph of `ds` independently with `method` at `eps` (graph `i` draws from the
/// seed `seed + i·2⁴⁰`; EdgeRefine uses each graph's own edge count as `E`), keeping node labels
/// and targets. Edge weights of Blink's soft and hybrid releases are dropped (graph-level
/// training here is unweighted).
///
/// # Errors
/// As [`release`]; a graph-core error if the collection cannot be rebuilt.
///
/// # Privacy
/// Each graph's release is that method's guarantee at `eps` for that graph's edges; graphs are
/// disjoint, so the collection has the same guarantee (parallel composition).
///
/// # Complexity
/// The sum of the per-graph costs.
pub fn release_graph_set(
    ds: &GraphDataset,
    method: Method,
    eps: Epsilon,
    seed: u64,
) -> Result<(GraphDataset, SetStructure)> {
    let mut graphs = Vec::with_capacity(ds.graphs().len());
    let (mut edges, mut true_edges, mut tp, mut publish_s) = (0, 0, 0, 0.0);
    for (i, g) in ds.graphs().iter().enumerate() {
        let r = release(g, method, eps, seed.wrapping_add((i as u64) << 40))?;
        let s = structure(g, &r.graph);
        edges += s.edges;
        true_edges += g.num_edges();
        tp += r.graph.edges().filter(|&(u, v)| g.has_edge(u, v)).count();
        publish_s += r.publish_s;
        graphs.push(r.graph);
    }
    let mut out = GraphDataset::new(ds.name(), graphs, ds.targets().clone())?;
    if let Some(labels) = ds.node_labels() {
        out = out.with_node_labels(labels.to_vec())?;
    }
    let ratio = |a: usize, b: usize| {
        if b == 0 {
            f64::NAN
        } else {
            a as f64 / b as f64
        }
    };
    Ok((
        out,
        SetStructure {
            edges,
            true_edges,
            precision: ratio(tp, edges),
            recall: ratio(tp, true_edges),
            publish_s,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use graph_core::generate::ContextualSbm;

    #[test]
    fn structure_counts_true_edges() {
        let truth = Graph::from_edges(4, &[(0, 1), (1, 2), (2, 3)]).unwrap();
        let rel = Graph::from_edges(4, &[(0, 1), (0, 3)]).unwrap();
        let s = structure(&truth, &rel);
        assert_eq!((s.edges, s.precision, s.recall), (2, 0.5, 1.0 / 3.0));
        assert!((s.density - 2.0 / 6.0).abs() < 1e-12);
    }

    #[test]
    fn releases_have_the_requested_sizes() {
        let ds = ContextualSbm {
            n: 200,
            classes: 2,
            p_in: 0.05,
            p_out: 0.005,
            dim: 8,
            mu: 1.0,
        }
        .sample(&mut dp_core::rng::seeded_rng(1))
        .unwrap();
        let g = ds.graph();
        let m = g.num_edges();
        assert_eq!(
            release(g, Method::Origin, Epsilon::constant(1.0), 0)
                .unwrap()
                .graph,
            *g
        );
        assert_eq!(
            release(g, Method::NoGraph, Epsilon::constant(1.0), 0)
                .unwrap()
                .graph
                .num_edges(),
            0
        );
        let refine_all = Method::EdgeRefine {
            k: 1.0,
            tie_break: TieBreak::Default,
            edge_count: EdgeCount::Supplied,
        };
        let er = release(g, refine_all, Epsilon::constant(2.0), 3).unwrap();
        assert_eq!(er.graph.num_edges(), m);
        let same = release(g, refine_all, Epsilon::constant(2.0), 3).unwrap();
        assert_eq!(er.graph, same.graph, "same seed, same release");
        assert!(Epsilon::new(0.0).is_err()); // ε ≤ 0 cannot reach a release
    }

    #[test]
    fn release_many_equals_one_release_per_method() {
        let g =
            graph_core::generate::erdos_renyi(120, 0.05, &mut dp_core::rng::seeded_rng(4)).unwrap();
        let methods = [
            Method::Blink(BlinkVariant::Hard),
            Method::SymRr,
            Method::Blink(BlinkVariant::Hybrid),
            Method::BlinkArtifact(BlinkArtifactVariant::Hybrid),
            Method::EdgeRefine {
                k: 1.0,
                tie_break: TieBreak::Default,
                edge_count: EdgeCount::Supplied,
            },
            Method::BlinkArtifact(BlinkArtifactVariant::Hard),
        ];
        let many = release_many(&g, &methods, Epsilon::constant(2.0), 9).unwrap();
        for (m, r) in methods.iter().zip(&many) {
            let one = release(&g, *m, Epsilon::constant(2.0), 9).unwrap();
            assert_eq!(one.graph, r.graph, "{}", m.label());
            assert_eq!(one.weights, r.weights, "{}", m.label());
        }
        // The artifact's hard and hybrid releases are the same pairs, one of them weighted.
        assert_eq!(many[3].graph, many[5].graph);
        assert!(many[5].weights.is_none() && many[3].weights.is_some());
        assert_eq!(
            methods[5].label(),
            "Blink-hard (EdgeRefine artifact's variant)"
        );
        assert_eq!(
            methods[3].label(),
            "Blink-hybrid (EdgeRefine artifact's variant)"
        );
        assert!(methods[3].is_private());
    }
}
