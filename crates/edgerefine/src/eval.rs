//! Evaluation of releases with the gnn crate: node classification accuracy of GNNs trained on a
//! released graph (features and labels are the dataset's own), plus the structure of the release
//! (density, true-edge precision and recall) and its publish time.

use std::time::Instant;

use burn::tensor::Device;
use gnn::{
    EdgeList, GraphSplit, GraphTask, ModelConfig, Monitor, NodeFeatures, NodeTask, TrainConfig,
    train_graph_model, train_node_classifier,
};
use graph_core::{Graph, GraphDataset, NodeDataset, NodeSplit};
use rand::SeedableRng;
use serde::Serialize;

use crate::baselines::{
    BlinkParams, BlinkPosterior, BlinkVariant, DprrParams, LdpGenParams, blink_client,
    blink_server, dprr, ldpgen, rr,
};
use crate::error::{EdgeRefineError, Result};
use crate::{RefineParams, TieBreak, perturb, refine};

/// Blink-soft releases in this module drop pairs with posterior ≤ this (the baseline's own default
/// is 1e-6, which keeps nearly all n²/2 pairs): the dropped weight is at most n·1e-3 per node
/// and keeps the soft graph trainable.
pub const EVAL_SOFT_FLOOR: f64 = 1e-3;

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
                    BlinkVariant::Soft => "soft, p ≤ 1e-3 dropped",
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
            let r = blink_posterior(graph, &eval_blink_params(eps), seed)?
                .0
                .release(v)?;
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

/// Blink's parameters in this module: the defaults of [`BlinkParams::new`] with the soft floor
/// [`EVAL_SOFT_FLOOR`].
fn eval_blink_params(eps: f64) -> BlinkParams {
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

/// The releases of several methods at one ε and seed; the Blink variants share one set of
/// reports and one posterior (each equals its own [`release`]; its publish time is the shared
/// client + server time plus its own release step).
///
/// # Errors
/// As [`release`].
///
/// # Complexity
/// The sum of the methods' costs, with Blink's O(n²) fit done once.
pub fn release_many(
    graph: &Graph,
    methods: &[Method],
    eps: f64,
    seed: u64,
) -> Result<Vec<Released>> {
    let mut post: Option<(BlinkPosterior, f64)> = None;
    let mut out = Vec::with_capacity(methods.len());
    for &m in methods {
        if let Method::Blink(v) = m {
            if post.is_none() {
                post = Some(blink_posterior(graph, &eval_blink_params(eps), seed)?);
            }
            let (p, fit_s) = post.as_ref().expect("set above");
            let start = Instant::now();
            let r = p.release(v)?;
            out.push(Released {
                graph: r.graph,
                weights: r.weights,
                publish_s: fit_s + start.elapsed().as_secs_f64(),
            });
        } else {
            out.push(release(graph, m, eps, seed)?);
        }
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

/// How to train on a release.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrainPlan<'a> {
    /// A gnn model preset (`edgerefine-gcn`, `edgerefine-gat`, `edgerefine-gin`, `edgerefine-mlp`).
    pub model: &'a str,
    /// Train and validation fractions (the rest is test), drawn per seed.
    pub split: (f64, f64),
    /// Epoch cap.
    pub max_epochs: usize,
    /// Early-stopping patience (None: run all epochs, keep the best-validation weights).
    pub patience: Option<usize>,
    /// Seed of the split, the initialisation and dropout.
    pub seed: u64,
    /// Adam learning rate.
    pub lr: f64,
    /// Weight decay.
    pub weight_decay: f64,
    /// Which validation score selects the weights and stops early.
    pub monitor: Monitor,
    /// Overrides the preset's dropout between layers and sets input dropout to 0 (the PyG
    /// models of Blink); None keeps the preset.
    pub dropout: Option<f64>,
}

impl<'a> TrainPlan<'a> {
    /// The EdgeRefine protocol for `model`: 60/20/20 split, Adam lr 0.005, weight decay 1e-5,
    /// ≤ 700 epochs, patience 100 on validation accuracy, the preset's dropout.
    pub fn edgerefine(model: &'a str, seed: u64) -> Self {
        Self {
            model,
            split: (0.6, 0.2),
            max_epochs: 700,
            patience: Some(100),
            seed,
            lr: 0.005,
            weight_decay: 1e-5,
            monitor: Monitor::ValAccuracy,
            dropout: None,
        }
    }

    /// The same plan with an epoch cap and patience.
    pub fn with_epochs(self, max_epochs: usize, patience: Option<usize>) -> Self {
        Self {
            max_epochs,
            patience,
            ..self
        }
    }
}

/// One training run's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RunScore {
    /// Test accuracy of the best-validation weights.
    pub test_acc: f64,
    /// Validation accuracy of the same weights.
    pub val_acc: f64,
    /// Validation loss of the same weights (the epoch's logged loss).
    pub val_loss: f64,
    /// Training wall time in seconds.
    pub train_s: f64,
    /// Epochs run.
    pub epochs: usize,
}

/// Trains `plan.model` on `released` (with optional edge weights aligned with
/// `released.edges()`) and the dataset's features and labels, on a seeded split, with the
/// optimiser and early stopping of `plan` ([`TrainPlan::edgerefine`]: the EdgeRefine protocol).
///
/// # Errors
/// Shape mismatches between the release and the dataset; training errors.
///
/// # Complexity
/// O(epochs · (m + n) · width) for the model's width.
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
        lr,
        weight_decay,
        monitor,
        dropout,
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
    let cfg = match dropout {
        Some(d) => with_dropout(cfg, d),
        None => cfg,
    };
    let train = TrainConfig::new()
        .with_lr(lr)
        .with_weight_decay(weight_decay)
        .with_max_epochs(max_epochs)
        .with_patience(patience)
        .with_monitor(monitor)
        .with_seed(seed);
    let start = Instant::now();
    let out = train_node_classifier(&task, &cfg, &train, &Device::flex()).map_err(gnn_err)?;
    Ok(RunScore {
        test_acc: out.test_acc,
        val_acc: out.val_acc,
        val_loss: out
            .history
            .get(out.best_epoch)
            .map_or(f64::NAN, |e| e.val_loss),
        train_s: start.elapsed().as_secs_f64(),
        epochs: out.epochs,
    })
}

/// `cfg` with dropout `d` between layers and none on the input (GCN, GAT, GIN, MLP; other
/// models unchanged).
fn with_dropout(cfg: ModelConfig, d: f64) -> ModelConfig {
    match cfg {
        ModelConfig::Gcn(c) => ModelConfig::Gcn(c.with_dropout(d).with_input_dropout(Some(0.0))),
        ModelConfig::Gat(c) => ModelConfig::Gat(c.with_dropout(d).with_input_dropout(Some(0.0))),
        ModelConfig::Gin(c) => ModelConfig::Gin(c.with_dropout(d).with_input_dropout(Some(0.0))),
        ModelConfig::Mlp(c) => ModelConfig::Mlp(c.with_dropout(d).with_input_dropout(Some(0.0))),
        other => other,
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
    eps: f64,
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

/// Trains the graph-level `model` (`edgerefine-graph-{gcn,gat,gin}`) on the graphs of `ds` with
/// one-hot node labels as features, EdgeRefine's MUTAG protocol: 80/10/10 split drawn from
/// `seed`, Adam lr 0.005, weight decay 5e-4, batch 32, ≤ 150 epochs, patience 20 on
/// validation accuracy.
///
/// # Errors
/// A dataset without node labels or class targets; training errors.
///
/// # Complexity
/// O(epochs · Σ (n_g + m_g) · width).
pub fn train_graph_release(ds: &GraphDataset, model: &str, seed: u64) -> Result<RunScore> {
    let gnn_err = |e: gnn::Error| EdgeRefineError::Train(e.to_string());
    let task = GraphTask::from_dataset(ds, NodeFeatures::OneHotLabels).map_err(gnn_err)?;
    let cfg =
        ModelConfig::by_name(model, task.num_features(), task.num_outputs()).map_err(gnn_err)?;
    let split = GraphSplit::random(
        task.len(),
        0.8,
        0.1,
        &mut rand_chacha::ChaCha8Rng::seed_from_u64(seed),
    )
    .map_err(gnn_err)?;
    let train = TrainConfig::new()
        .with_lr(0.005)
        .with_weight_decay(5e-4)
        .with_batch_size(32)
        .with_max_epochs(150)
        .with_patience(Some(20))
        .with_seed(seed);
    let start = Instant::now();
    let out = train_graph_model(&task, &split, &cfg, &train, &Device::flex()).map_err(gnn_err)?;
    Ok(RunScore {
        test_acc: out.test_acc,
        val_acc: out.val_acc,
        val_loss: out
            .history
            .get(out.best_epoch)
            .map_or(f64::NAN, |e| e.val_loss),
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
        TrainPlan::edgerefine("edgerefine-gcn", 1).with_epochs(epochs, Some(epochs))
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
    fn release_many_equals_one_release_per_method() {
        let g =
            graph_core::generate::erdos_renyi(120, 0.05, &mut dp_core::rng::seeded_rng(4)).unwrap();
        let methods = [
            Method::Blink(BlinkVariant::Hard),
            Method::SymRr,
            Method::Blink(BlinkVariant::Hybrid),
            Method::EdgeRefine {
                k: 1.0,
                tie_break: TieBreak::Default,
            },
        ];
        let many = release_many(&g, &methods, 2.0, 9).unwrap();
        for (m, r) in methods.iter().zip(&many) {
            let one = release(&g, *m, 2.0, 9).unwrap();
            assert_eq!(one.graph, r.graph, "{}", m.label());
            assert_eq!(one.weights, r.weights, "{}", m.label());
        }
    }

    /// Cycles (class 0) against stars (class 1), 8 nodes each, constant node labels.
    fn cycles_and_stars(count: usize) -> GraphDataset {
        let mut graphs = Vec::new();
        let mut labels = Vec::new();
        for i in 0..count {
            let edges: Vec<(u32, u32)> = if i % 2 == 0 {
                (0..8).map(|u| (u, (u + 1) % 8)).collect()
            } else {
                (1..8).map(|u| (0, u)).collect()
            };
            graphs.push(Graph::from_edges(8, &edges).unwrap());
            labels.push((i % 2) as u32);
        }
        let targets = graph_core::Targets::Class {
            labels,
            num_classes: 2,
            original: vec![0, 1],
        };
        GraphDataset::new("toy", graphs, targets)
            .unwrap()
            .with_node_labels(vec![vec![0; 8]; count])
            .unwrap()
    }

    #[test]
    fn per_graph_release_keeps_each_graph_and_its_labels() {
        let ds = cycles_and_stars(20);
        let er = Method::EdgeRefine {
            k: 1.0,
            tie_break: TieBreak::Default,
        };
        let (rel, s) = release_graph_set(&ds, er, 2.0, 5).unwrap();
        assert_eq!(rel.graphs().len(), 20);
        for (a, b) in ds.graphs().iter().zip(rel.graphs()) {
            assert_eq!(a.num_nodes(), b.num_nodes());
            // K = E, but each side (noisy edges, noisy non-edges) gives at most what it has.
            assert!(b.num_edges() <= a.num_edges());
        }
        assert_eq!(s.true_edges, 10 * 8 + 10 * 7);
        assert!(
            s.edges <= s.true_edges && s.edges * 2 > s.true_edges,
            "{}",
            s.edges
        );
        assert_eq!(rel.node_labels(), ds.node_labels());
        assert_eq!(rel.targets(), ds.targets());
        let (again, _) = release_graph_set(&ds, er, 2.0, 5).unwrap();
        assert_eq!(again.graphs(), rel.graphs(), "same seed, same release");
        let (origin, s) = release_graph_set(&ds, Method::Origin, 1.0, 0).unwrap();
        assert_eq!(origin.graphs(), ds.graphs());
        assert_eq!((s.precision, s.recall), (1.0, 1.0));
    }

    #[test]
    fn graph_classification_needs_the_edges() {
        // Constant node labels: only the structure separates cycles from stars.
        let ds = cycles_and_stars(40);
        let with = train_graph_release(&ds, "edgerefine-graph-gin", 3).unwrap();
        let (empty, _) = release_graph_set(&ds, Method::NoGraph, 1.0, 0).unwrap();
        let without = train_graph_release(&empty, "edgerefine-graph-gin", 3).unwrap();
        assert!(with.test_acc >= 0.99, "{}", with.test_acc);
        assert!(without.test_acc <= 0.75, "{}", without.test_acc);
    }

    #[test]
    fn blink_protocol_plan_selects_by_validation_loss() {
        let ds = ContextualSbm {
            n: 200,
            classes: 2,
            p_in: 0.06,
            p_out: 0.005,
            dim: 8,
            mu: 0.8,
        }
        .sample(&mut dp_core::rng::seeded_rng(6))
        .unwrap();
        let p = TrainPlan {
            split: (0.5, 0.25),
            lr: 0.01,
            weight_decay: 0.0,
            monitor: Monitor::ValLoss,
            dropout: Some(0.0),
            ..TrainPlan::edgerefine("edgerefine-gcn", 2).with_epochs(40, None)
        };
        let s = train_on_release(&ds, ds.graph(), None, &p).unwrap();
        assert_eq!(s.epochs, 40, "no early stopping without patience");
        assert!(s.val_loss.is_finite() && s.val_loss > 0.0);
        assert!(s.test_acc > 0.7, "{}", s.test_acc);
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
