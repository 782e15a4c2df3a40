//! FedSage+ (Zhang et al., NeurIPS 2021) as a baseline: every client trains the
//! missing-neighbour generator NeighGen on its local graph, then the clients train fGen jointly,
//! and the classification run is FedAvg over the local graphs mended with generated neighbours.
//! Simulation only ([`crate::train::Method::deployable`] is false for it).
//!
//! Per client i (local graph G_i: own nodes, cross-client edges dropped; K = max generated):
//! 1. NeighGen's train set T_i and test set ([`NeighGenSplit`]); hide ⌊½·|rest|⌋ of the other
//!    nodes, drawn uniformly, with their edges → the impaired graph G_i′. Targets per node v of
//!    G_i′: n_v = hidden neighbours, X_v = the first min(n_v, K) of them, zero-padded.
//! 2. Encoder z = ReLU(2-layer GCN d → 32 → 128, Â = D̃⁻¹(A + I) on G_i′, dropout);
//!    dGen ñ = ReLU(Linear 128 → 1); fGen g = tanh(Lin(dropout(ReLU(Lin(ReLU(Lin(z + ε)))))))
//!    with ε ~ N(0, σ²I) (σ = [`NeighGenConfig::noise`], 1 in the paper), 128 → 256 → 2048 → K·d; the classifier (2-layer GCN d → 32 → C) reads
//!    G_i′ mended with m_v generated neighbours per node: ñ_v rounded by
//!    [`NeighGenConfig::rounding`] (stochastically by default, E\[m_v\] = ñ_v; the authors'
//!    ⌊ñ_v⌋ as [`CountRounding::Floor`]), capped at K.
//! 3. L = λ_d·SmoothL1(ñ, n) + λ_f·L_f + λ_c·CE on T_i, L_f the greedy matching loss
//!    ([`targets::greedy_match`]); local training: Adam on all modules.
//! 4. Federated fGen training: encoder, dGen and classifier frozen, fresh Adam on fGen, loss
//!    (1/M)·[L + λ_f Σ_{j≠i} L_f^{i←j}] ([`CrossTargets`]): the paper's, every generated slot
//!    matched with the nearest feature row of client j; or the code's, K neighbours (with
//!    replacement) of a random node of j per node of T_i. The simulation reads j's raw
//!    features as the authors' code does; deployed, i would send its generated rows to j and
//!    receive their gradients, which reveal j's matched feature rows (see
//!    [`generator_traffic`]).
//! 5. Mending for classification ([`MendOn`]): every own node of G_i receives m_v
//!    generated nodes (features g_{v,p}, never in any split; zero edge-feature rows \[R\]).
//!
//! Deviations from the spec, all shared with the other baselines of this crate: the
//! classification model is the setting's model (e.g. GCN, not GraphSAGE with sampled
//! neighbours and Adam) trained by the common trainer with FedAvg's plain SGD, and the
//! evaluation is on every client's own real nodes of the task's split. The greedy loss is the
//! spec's: slots p ≥ m_v and unmatched slots contribute nothing (the authors' code fills them
//! with the mean square of all generated rows, a pull towards zero).

mod config;
mod model;
mod neighgen;
mod targets;

pub use config::{CountRounding, CrossTargets, MendOn, NeighGenConfig, NeighGenSplit};

use dp_core::rng::Seeds;
use graph_core::{Graph, Partition};
use ndarray::Array2;

use super::{FedTask, FedTrainConfig};
use crate::error::Result;
use crate::federation::FederatedGraph;
use neighgen::{ClientGen, FedPhase, generate_for, predicted_counts, train_all};
use serde::Serialize;
use targets::LocalGraph;

/// Purpose names of FedSage+'s random streams in [`Seeds`] (one per client index).
mod streams {
    /// NeighGen's independent split and the hidden nodes.
    pub(super) const HIDE: &str = "cefedgnn/fedsage-hide";
    /// NeighGen's initial weights.
    pub(super) const INIT: &str = "cefedgnn/fedsage-init";
    /// fGen noise and dropout of training.
    pub(super) const TRAIN: &str = "cefedgnn/fedsage-train";
    /// The other clients' targets of the federated phase.
    pub(super) const CROSS: &str = "cefedgnn/fedsage-cross";
    /// fGen noise of the mending for classification.
    pub(super) const MEND: &str = "cefedgnn/fedsage-mend";
}

/// What NeighGen did for one client of a FedSage+ run: the neighbours it generated for the
/// classification run, and how well its count generator predicts the hidden neighbours of
/// NeighGen's test nodes (nodes of the impaired graph G_i′ never trained on).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NeighGenReport {
    /// The client's own (real) nodes.
    pub nodes: usize,
    /// Generated neighbours attached to them for the classification run.
    pub generated: usize,
    /// NeighGen's test nodes in G_i′.
    pub test_nodes: usize,
    /// Mean |ñ_v − n_v| over the test nodes (`None` without test nodes).
    pub count_mae: Option<f64>,
    /// Mean predicted count ñ over the test nodes.
    pub mean_predicted: Option<f64>,
    /// Mean true hidden-neighbour count n_v over the test nodes.
    pub mean_missing: Option<f64>,
}

/// The per-client [`NeighGenReport`] of a trained client `c` that attached `generated`
/// neighbours.
fn client_report(c: &ClientGen, cfg: &NeighGenConfig, generated: usize) -> NeighGenReport {
    let counts = predicted_counts(c, cfg);
    let test = &c.impaired.test;
    let avg = |f: &dyn Fn(usize) -> f64| {
        (!test.is_empty()).then(|| test.iter().map(|&p| f(p)).sum::<f64>() / test.len() as f64)
    };
    NeighGenReport {
        nodes: c.graph.len(),
        generated,
        test_nodes: test.len(),
        count_mae: avg(&|p| (f64::from(counts[p]) - f64::from(c.impaired.missing[p])).abs()),
        mean_predicted: avg(&|p| f64::from(counts[p])),
        mean_missing: avg(&|p| f64::from(c.impaired.missing[p])),
    }
}

/// The mended local graphs of all clients as one federated graph: the task's nodes keep their
/// ids (0..`real`), generated nodes follow, owned by the client that generated them; only edges
/// inside a client.
pub(crate) struct Mended {
    /// Graph (no cross-client edge) and partition.
    pub(crate) fed: FederatedGraph,
    /// Feature rows: the task's, then the generated ones.
    pub(crate) features: Array2<f32>,
    /// Labels: the task's, then 0 for generated nodes (never trained on or evaluated).
    pub(crate) labels: Vec<u32>,
    /// The task's training mask, false for generated nodes.
    pub(crate) train: Vec<bool>,
    /// Edge feature rows in the order of the mended graph's edges (zero rows for generated
    /// edges), where the task has them.
    pub(crate) edge_features: Option<Array2<f32>>,
    /// Number of real nodes (the task's).
    pub(crate) real: usize,
    /// Bytes of the generator phase (up, down), [`generator_traffic`].
    pub(crate) traffic: (u64, u64),
    /// Per client, what NeighGen generated and its count error.
    pub(crate) reports: Vec<NeighGenReport>,
}

/// Bytes the federated generator phase would move deployed, as float32, for exchanges in which
/// client i sends, for the |T_i| = `rows` nodes of its train set, K generated rows of d
/// features and its |T_i| predicted counts to client j through the server, and j returns the
/// gradient of its greedy loss with respect to those rows (|T_i|·K·d values) the same way. Each
/// leg is counted up (to the server) and down (from it): per exchange,
/// up = down = 4·(2·|T_i|·K·d + |T_i|). One exchange per epoch and ordered pair (i, j).
///
/// # Privacy
/// None: the gradient of a squared loss, 2(g − x)/d, reveals j's matched row x exactly.
pub(crate) fn generator_traffic(rows: &[u64], k: usize, d: usize) -> (u64, u64) {
    let kd = (k * d) as u64;
    let bytes: u64 = rows.iter().map(|&t| 4 * (2 * t * kd + t)).sum();
    (bytes, bytes)
}

/// FedSage+'s preparation on `task`: NeighGen trained locally and jointly
/// ([`FedTrainConfig::neighgen`], seeded by [`FedTrainConfig::seed`]), then every client's
/// local graph mended with generated neighbours.
///
/// # Errors
/// [`crate::FedError::InvalidParam`] for an invalid [`NeighGenConfig`];
/// [`crate::FedError::Inconsistent`] for a non-finite NeighGen loss; graph errors.
///
/// # Complexity
/// O(E·M·(n_i·(latent·h1 + h1·h2 + h2·K·d) + (n_i + m_i)·d·h)) for E epochs of M clients.
pub(crate) fn mend(task: &FedTask, cfg: &FedTrainConfig) -> Result<Mended> {
    let (clients, phase) = trained(task, cfg)?;
    assemble(task, cfg, &clients, &phase)
}

/// Every client's NeighGen, trained locally and jointly.
///
/// # Errors
/// As [`mend`].
fn trained(task: &FedTask, cfg: &FedTrainConfig) -> Result<(Vec<ClientGen>, FedPhase)> {
    let ng = &cfg.neighgen;
    ng.check()?;
    let seeds = Seeds::new(cfg.seed);
    let mut clients: Vec<ClientGen> = task
        .fed
        .clients()
        .iter()
        .enumerate()
        .map(|(i, t)| {
            ClientGen::new(
                LocalGraph::of_client(task, t),
                task.num_classes,
                ng,
                &seeds,
                i as u64,
            )
        })
        .collect();
    let phase = train_all(&mut clients, ng, &seeds)?;
    Ok((clients, phase))
}

/// The mended graphs of the trained `clients` (see [`Mended`]); the generator traffic of
/// `phase`.
///
/// # Errors
/// Graph errors.
fn assemble(
    task: &FedTask,
    cfg: &FedTrainConfig,
    clients: &[ClientGen],
    phase: &FedPhase,
) -> Result<Mended> {
    let ng = &cfg.neighgen;
    let seeds = Seeds::new(cfg.seed);
    let n = task.labels.len();
    let d = task.features.ncols();
    let mut edges: Vec<(u32, u32)> = task
        .fed
        .clients()
        .iter()
        .flat_map(|t| t.local_edges().iter().copied())
        .collect();
    let mut rows: Vec<f32> = Vec::new();
    let mut owner: Vec<u32> = task.fed.partition().assignment().to_vec();
    let mut reports = Vec::with_capacity(clients.len());
    for (i, c) in clients.iter().enumerate() {
        let mut rng = seeds.chacha8(streams::MEND, i as u64);
        let on: Vec<usize> = match ng.mend_on {
            MendOn::Full => (0..c.graph.len()).collect(),
            MendOn::Impaired => c.impaired.kept.clone(),
        };
        let adj = match ng.mend_on {
            MendOn::Full => &c.graph.adj,
            MendOn::Impaired => &c.impaired.adj,
        };
        let per_node = generate_for(c, adj, &on, ng, &mut rng);
        let generated: usize = per_node.iter().map(Vec::len).sum();
        reports.push(client_report(c, ng, generated));
        for (&v, list) in on.iter().zip(per_node) {
            for row in list {
                let id = owner.len() as u32;
                edges.push((c.graph.nodes[v], id));
                owner.push(i as u32);
                rows.extend(row);
            }
        }
    }
    let total = owner.len();
    let graph = Graph::from_edges(total, &edges)?;
    let gen_rows = Array2::from_shape_vec((total - n, d), rows)
        .map_err(|e| crate::FedError::Inconsistent(e.to_string()))?;
    let features = ndarray::concatenate(ndarray::Axis(0), &[task.features.view(), gen_rows.view()])
        .map_err(|e| crate::FedError::Inconsistent(e.to_string()))?;
    let edge_features = task
        .edge_features
        .as_ref()
        .map(|ef| mended_edge_features(task, &graph, ef, n));
    let mut labels = task.labels.clone();
    labels.resize(total, 0);
    let mut train = task.split.train.clone();
    train.resize(total, false);
    let fed = FederatedGraph::new(graph, Partition::by_attribute(&owner))?;
    Ok(Mended {
        fed,
        features,
        labels,
        train,
        edge_features,
        real: n,
        traffic: generator_traffic(&phase.exchanged_rows, ng.max_generated, d),
        reports,
    })
}

/// Edge feature rows of the mended `graph`: the task's row for an edge between real nodes
/// (ids < `real`), a zero row for an edge to a generated node \[R\].
fn mended_edge_features(
    task: &FedTask,
    graph: &Graph,
    ef: &Array2<f32>,
    real: usize,
) -> Array2<f32> {
    let task_edges: Vec<(u32, u32)> = task.fed.graph().edges().collect();
    let mut out = Array2::zeros((graph.num_edges(), ef.ncols()));
    for (e, (u, v)) in graph.edges().enumerate() {
        if (v as usize) < real {
            let id = task_edges
                .binary_search(&(u.min(v), u.max(v)))
                .expect("a mended edge between real nodes is a task edge");
            out.row_mut(e).assign(&ef.row(id));
        }
    }
    out
}

#[cfg(test)]
mod tests;
