//! Evaluation of releases with the gnn crate: node classification accuracy of GNNs trained on a
//! released graph (features and labels are the dataset's own), plus the structure of the release
//! (density, true-edge precision and recall) and its publish time.

use std::time::Instant;

use burn::tensor::Device;
use gnn::{EdgeList, ModelConfig, NodeTask, TrainConfig, train_node_classifier};
use graph_core::{Graph, NodeDataset, NodeSplit};
use rand::SeedableRng;
use serde::Serialize;

use crate::baselines::{
    BlinkParams, BlinkVariant, DprrParams, LdpGenParams, blink, dprr, ldpgen, rr,
};
use crate::error::{EdgeRefineError, Result};
use crate::{RefineParams, TieBreak, perturb, refine};

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
    },
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
                    BlinkVariant::Soft => "soft",
                    BlinkVariant::Hybrid => "hybrid",
                }
            ),
            Self::LdpGen => "LDPGen".into(),
            Self::Dprr => "DPRR".into(),
            Self::EdgeRefine { k, tie_break } => match tie_break {
                TieBreak::Default => format!("EdgeRefine k={k}"),
                TieBreak::Reference => format!("EdgeRefine k={k} (reference tie-break)"),
            },
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
pub fn release(graph: &Graph, method: Method, eps: f64, seed: u64) -> Result<Released> {
    let start = Instant::now();
    let mut rng = dp_core::rng::seeded_rng(seed);
    let mut weights = None;
    let g = match method {
        Method::Origin => graph.clone(),
        Method::NoGraph => Graph::empty(graph.num_nodes())?,
        Method::SymRr => perturb(graph, eps, &mut rng)?,
        Method::Rr => rr(graph, eps, &mut rng)?.graph,
        Method::Blink(v) => {
            let r = blink(graph, v, &BlinkParams::new(eps), &mut rng)?;
            weights = r.weights;
            r.graph
        }
        Method::LdpGen => ldpgen(graph, &LdpGenParams::new(eps), &mut rng)?.graph,
        Method::Dprr => dprr(graph, &DprrParams::new(eps), &mut rng)?.graph,
        Method::EdgeRefine { k, tie_break } => {
            let noisy = perturb(graph, eps, &mut rng)?;
            let params = RefineParams {
                eps,
                k,
                true_edges: graph.num_edges() as u64,
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

/// How to train on a release.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrainPlan<'a> {
    /// A gnn model preset (`edgerefine-gcn`, `edgerefine-gat`, `edgerefine-gin`, `edgerefine-mlp`).
    pub model: &'a str,
    /// Train and validation fractions (the rest is test), drawn per seed.
    pub split: (f64, f64),
    /// Epoch cap.
    pub max_epochs: usize,
    /// Early-stopping patience on validation accuracy.
    pub patience: usize,
    /// Seed of the split, the initialisation and dropout.
    pub seed: u64,
}

/// One training run's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RunScore {
    /// Test accuracy of the best-validation weights.
    pub test_acc: f64,
    /// Training wall time in seconds.
    pub train_s: f64,
    /// Epochs run.
    pub epochs: usize,
}

/// Trains `plan.model` on `released` (with optional edge weights aligned with
/// `released.edges()`) and the dataset's features and labels, on a seeded split, with the
/// EdgeRefine protocol (Adam lr 0.005, weight decay 1e-5, early stopping on validation
/// accuracy).
///
/// # Errors
/// Shape mismatches between the release and the dataset; training errors.
pub fn train_on_release(
    ds: &NodeDataset,
    released: &Graph,
    weights: Option<&[f32]>,
    plan: &TrainPlan<'_>,
) -> Result<RunScore> {
    let TrainPlan {
        model,
        split,
        max_epochs,
        patience,
        seed,
    } = *plan;
    if released.num_nodes() != ds.graph().num_nodes() {
        return Err(EdgeRefineError::NodeCountMismatch {
            expected: ds.graph().num_nodes(),
            got: released.num_nodes(),
        });
    }
    let gnn_err = |e: gnn::Error| EdgeRefineError::Train(e.to_string());
    let split = NodeSplit::random(
        ds.graph().num_nodes(),
        split.0,
        split.1,
        &mut rand_chacha::ChaCha8Rng::seed_from_u64(seed),
    )?;
    let task = NodeTask::from_dataset(ds)
        .and_then(|t| t.with_split(split))
        .and_then(|t| {
            let edges = EdgeList::from_graph(released);
            let edges = match weights {
                Some(w) => edges.with_weights(csr_weights(released, w)?)?,
                None => edges,
            };
            t.with_edges(edges)
        })
        .map_err(gnn_err)?;
    let cfg =
        ModelConfig::by_name(model, task.num_features(), task.num_classes()).map_err(gnn_err)?;
    let train = TrainConfig::new()
        .with_lr(0.005)
        .with_weight_decay(1e-5)
        .with_max_epochs(max_epochs)
        .with_patience(Some(patience))
        .with_seed(seed);
    let start = Instant::now();
    let out = train_node_classifier(&task, &cfg, &train, &Device::flex()).map_err(gnn_err)?;
    Ok(RunScore {
        test_acc: out.test_acc,
        train_s: start.elapsed().as_secs_f64(),
        epochs: out.epochs,
    })
}

/// Weights aligned with `graph.edges()` (u < v) spread to both directions in CSR order.
fn csr_weights(graph: &Graph, w: &[f32]) -> gnn::Result<Vec<f32>> {
    if w.len() != graph.num_edges() {
        return Err(gnn::Error::Shape {
            what: "release edge weights",
            expected: graph.num_edges(),
            got: w.len(),
        });
    }
    let n = graph.num_nodes();
    // Index of the first edge (u, ·) with u < · in `edges()` order.
    let mut start = vec![0usize; n + 1];
    for u in 0..n {
        let row = graph.neighbors(u as u32);
        let above = row.len() - row.partition_point(|&v| v <= u as u32);
        start[u + 1] = start[u] + above;
    }
    let idx = |a: u32, b: u32| {
        let row = graph.neighbors(a);
        let first_above = row.partition_point(|&v| v <= a);
        start[a as usize] + row.partition_point(|&v| v < b) - first_above
    };
    let mut out = Vec::with_capacity(2 * w.len());
    for u in 0..n as u32 {
        for &v in graph.neighbors(u) {
            out.push(w[if u < v { idx(u, v) } else { idx(v, u) }]);
        }
    }
    Ok(out)
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
        assert_eq!(release(g, Method::Origin, 1.0, 0).unwrap().graph, *g);
        assert_eq!(
            release(g, Method::NoGraph, 1.0, 0)
                .unwrap()
                .graph
                .num_edges(),
            0
        );
        let er = release(
            g,
            Method::EdgeRefine {
                k: 1.0,
                tie_break: TieBreak::Default,
            },
            2.0,
            3,
        )
        .unwrap();
        assert_eq!(er.graph.num_edges(), m);
        let same = release(
            g,
            Method::EdgeRefine {
                k: 1.0,
                tie_break: TieBreak::Default,
            },
            2.0,
            3,
        )
        .unwrap();
        assert_eq!(er.graph, same.graph, "same seed, same release");
        assert!(release(g, Method::SymRr, 0.0, 0).is_err());
    }

    fn plan(epochs: usize) -> TrainPlan<'static> {
        TrainPlan {
            model: "edgerefine-gcn",
            split: (0.6, 0.2),
            max_epochs: epochs,
            patience: epochs,
            seed: 1,
        }
    }

    #[test]
    fn training_on_the_true_graph_beats_no_graph_on_a_homophilous_sbm() {
        let ds = ContextualSbm {
            n: 240,
            classes: 3,
            p_in: 0.08,
            p_out: 0.004,
            dim: 8,
            mu: 0.8,
        }
        .sample(&mut dp_core::rng::seeded_rng(2))
        .unwrap();
        let empty = Graph::empty(240).unwrap();
        let with = train_on_release(&ds, ds.graph(), None, &plan(60)).unwrap();
        let without = train_on_release(&ds, &empty, None, &plan(60)).unwrap();
        assert!(
            with.test_acc > without.test_acc + 0.1,
            "{} vs {}",
            with.test_acc,
            without.test_acc
        );
        let wrong = Graph::empty(10).unwrap();
        assert!(train_on_release(&ds, &wrong, None, &plan(5)).is_err());
    }

    #[test]
    fn weights_follow_their_edges_in_csr_order() {
        let g = Graph::from_edges(4, &[(0, 1), (0, 3), (1, 2), (2, 3)]).unwrap();
        // edges() order: (0,1) (0,3) (1,2) (2,3)
        let w = csr_weights(&g, &[1.0, 2.0, 3.0, 4.0]).unwrap();
        // CSR: 0:[1,3] 1:[0,2] 2:[1,3] 3:[0,2]
        assert_eq!(w, vec![1.0, 2.0, 1.0, 3.0, 3.0, 4.0, 2.0, 4.0]);
        assert!(csr_weights(&g, &[1.0]).is_err());
    }
}
