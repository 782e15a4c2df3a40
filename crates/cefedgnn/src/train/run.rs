//! [`simulate`]: one federated run of a [`Method`] on a [`FedTask`] through the in-process
//! transport, with per-client F1, traffic and the privacy report.

use std::sync::Arc;
use std::time::Instant;

use burn::tensor::Device;
use dp_core::rng::{ChaCha8Rng, ChaCha20Rng, NoiseSource, Seeds};
use graph_core::{Graph, Partition};
use serde::Serialize;

use super::fed_pub::FedPub;
use super::local::{EdgeIndex, HaloTable, LocalView, Trainer, ViewData};
use super::swift::Swift;
use super::{FedTask, FedTrainConfig, Method, Metric, fedgcn, fedsage};
use crate::error::{FedError, Result};
use crate::estimator::MaConfig;
use crate::federation::FederatedGraph;
use crate::privacy::{NormStats, PrivacyReport, ReleaseConfig};
use crate::protocol::{Client, Direction, InProcessTransport, ProtocolConfig, Server, Transport};

/// Progress of a run, reported after every round.
#[derive(Clone, Copy, Debug)]
pub struct RoundInfo {
    /// The round just finished (0 = bootstrap).
    pub round: u32,
    /// Total rounds after the bootstrap.
    pub rounds: u32,
    /// Mean training loss of the round's steps over clients (NaN for the bootstrap).
    pub loss: f64,
}

/// Outcome of [`simulate`].
#[derive(Clone, Debug, Serialize)]
pub struct FedReport {
    /// Method name ([`Method::name`]).
    pub method: &'static str,
    /// Dataset name.
    pub dataset: String,
    /// Test F1 (binary or macro, per [`Metric`]) per client on its own test nodes; `None` for a
    /// client without test nodes.
    pub f1_per_client: Vec<Option<f64>>,
    /// Mean of the per-client test F1.
    pub f1_mean: f64,
    /// Mean of the per-client test macro-F1 over the classes present in each client's test
    /// labels or predictions (scikit-learn's default reading; `f1_mean` counts every class,
    /// an absent one as 0). Equal to `f1_mean` for binary F1.
    pub f1_mean_present: f64,
    /// Test F1 over the test nodes of all clients together.
    pub f1_pooled: f64,
    /// Mean per-client validation F1 (for model selection; never the test split).
    pub val_f1_mean: f64,
    /// Validation F1 over all clients' validation nodes.
    pub val_f1_pooled: f64,
    /// Rounds after the bootstrap.
    pub rounds: u32,
    /// Local steps K per round.
    pub local_steps: u32,
    /// Total client → server bytes (all clients, all rounds).
    pub bytes_up: u64,
    /// Total server → client bytes.
    pub bytes_down: u64,
    /// (up + down) / exchanges, where exchanges = rounds + 1 (bootstrap included).
    pub bytes_per_round: f64,
    /// Embedding-row bytes (up + down) per exchange.
    pub embedding_bytes_per_round: f64,
    /// The privacy report of the client with the largest ε(p) (None without releases).
    pub privacy: Option<PrivacyReport>,
    /// Pre-clipping norms of all released boundary rows (all clients; zero rows without
    /// releases): the mean norm against C and the clipped fraction.
    pub norms: NormStats,
    /// SHA-256 of every frame exchanged ([`InProcessTransport::wire_digest`]; `None` for methods
    /// without a server): equal for two runs exactly when they released the same rows.
    pub wire_digest: Option<String>,
    /// FedSage+: per client, the neighbours NeighGen generated and its count error on
    /// NeighGen's test nodes (empty for the other methods).
    pub neighgen: Vec<super::NeighGenReport>,
    /// Wall-clock seconds.
    pub seconds: f64,
}

fn mean(v: impl Iterator<Item = f64>) -> f64 {
    let (s, n) = v.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    if n == 0 { f64::NAN } else { s / n as f64 }
}

/// Macro-F1 over the classes present (see [`FedReport::f1_mean_present`]); binary F1 as
/// [`score`].
fn score_present(metric: Metric, pred: &[u32], truth: &[u32], classes: usize) -> Result<f64> {
    match metric {
        Metric::BinaryF1 => score(metric, pred, truth, classes),
        Metric::MacroF1 => {
            gnn::metrics::macro_f1_present(pred, truth, classes).map_err(FedError::from)
        }
    }
}

pub(crate) fn score(metric: Metric, pred: &[u32], truth: &[u32], classes: usize) -> Result<f64> {
    let r = match metric {
        Metric::BinaryF1 => gnn::metrics::binary_f1(pred, truth),
        Metric::MacroF1 => gnn::metrics::macro_f1(pred, truth, classes),
    };
    r.map_err(FedError::from)
}

/// Purpose name of the trainers' streams in [`Seeds`] (one per client, by client index).
pub(crate) const TRAINER_STREAM: &str = "cefedgnn/trainer";

/// Purpose name of the initialisation of FedGCN's linear first layer in [`Seeds`].
const FEDGCN_STREAM: &str = "cefedgnn/fedgcn-first-layer";

/// Purpose name of the boundary noise in a seeded [`NoiseSource`] (one per client id).
pub(crate) const BOUNDARY_NOISE: &str = "cefedgnn/boundary-noise";

/// The randomness of client `i`'s trainer in a run with `seed` (sampling, dropout): stream
/// `(TRAINER_STREAM, i)` of the run's [`Seeds`]. Training randomness only, never noise.
pub(crate) fn trainer_rng(seed: u64, i: u32) -> ChaCha8Rng {
    Seeds::new(seed).chacha8(TRAINER_STREAM, u64::from(i))
}

/// The CSPRNG of client `id`'s boundary noise.
///
/// # Errors
/// [`FedError::Dp`] if the operating system cannot provide entropy.
///
/// # Privacy
/// [`NoiseSource::Os`]: fresh OS-keyed ChaCha20, reproducible by nobody;
/// [`NoiseSource::Seeded`]: reproducible, not private.
pub(crate) fn noise_rng(noise: NoiseSource, id: u32) -> Result<ChaCha20Rng> {
    Ok(noise.rng(BOUNDARY_NOISE, u64::from(id))?)
}

/// The same partition on the graph without its cross edges (FedAvg ignores them).
fn without_cross_edges(fed: &FederatedGraph) -> Result<FederatedGraph> {
    let part = fed.partition().assignment();
    let local: Vec<(u32, u32)> = fed
        .graph()
        .edges()
        .filter(|&(u, v)| part[u as usize] == part[v as usize])
        .collect();
    let g = Graph::from_edges(fed.graph().num_nodes(), &local)?;
    FederatedGraph::new(g, Partition::by_attribute(part))
}

/// Every client's view of `fed` with node `features` (halo nodes only when `with_halo`).
fn client_views(
    task: &FedTask,
    features: &ndarray::Array2<f32>,
    fed: &FederatedGraph,
    with_halo: bool,
) -> Result<Vec<LocalView>> {
    let nodes = NodeData {
        graph: task.fed.graph(),
        features,
        labels: &task.labels,
        train: &task.split.train,
        num_classes: task.num_classes,
        edge_features: task.edge_features.clone().map(Arc::new),
    };
    views(&nodes, fed, with_halo)
}

/// The node and edge data every client's view is cut from.
struct NodeData<'a> {
    /// The graph whose edge order indexes `edge_features`.
    graph: &'a Graph,
    features: &'a ndarray::Array2<f32>,
    labels: &'a [u32],
    train: &'a [bool],
    num_classes: usize,
    edge_features: Option<Arc<ndarray::Array2<f32>>>,
}

/// Every client's view of `fed` over `nodes` (halo nodes only when `with_halo`).
fn views(nodes: &NodeData<'_>, fed: &FederatedGraph, with_halo: bool) -> Result<Vec<LocalView>> {
    let data = fed.distribute(nodes.features, nodes.labels, Some(nodes.train))?;
    let index = EdgeIndex::new(nodes.graph);
    Ok(fed
        .clients()
        .iter()
        .zip(data)
        .map(|(t, d)| {
            let own = t.nodes().to_vec();
            let halo = if with_halo {
                t.halo().to_vec()
            } else {
                Vec::new()
            };
            LocalView::new(
                nodes.graph,
                &index,
                own,
                halo,
                ViewData {
                    features: d.features().to_owned(),
                    labels: d.labels().to_vec(),
                    num_classes: nodes.num_classes,
                    train: d.train_mask(),
                    edge_features: nodes.edge_features.clone(),
                },
            )
        })
        .collect())
}

/// Runs `method` on `task` and evaluates every client on its own test nodes.
///
/// Clients run sequentially in one process; the federated methods exchange only encoded frames
/// through [`InProcessTransport`]. `on_round` is called after every round. The run is a state
/// machine over rounds (bootstrap, rounds, close): this function only drives it.
///
/// # Errors
/// [`FedError::InvalidParam`] for an invalid configuration (or GINE on a task without edge
/// features); protocol, privacy and model errors.
pub fn simulate(
    task: &FedTask,
    cfg: &FedTrainConfig,
    method: Method,
    on_round: &mut dyn FnMut(RoundInfo),
) -> Result<FedReport> {
    Ok(simulate_observed(task, cfg, method, on_round)?.0)
}

/// What one client holds at the end of a federated run (the client with the most halo nodes):
/// its own nodes' features and first hidden rows under the final model, and the first-layer
/// halo rows it received (after its receiver-side averaging), with the halo nodes' ids. The
/// input of [`crate::attack`].
#[derive(Clone, Debug)]
pub struct ClientObservation {
    /// The client's id.
    pub client: u32,
    /// Global ids of the own nodes (the rows of `own_features` and `own_hidden`).
    pub own_nodes: Vec<u32>,
    /// Own nodes' feature rows, `[n_own, d_in]`.
    pub own_features: ndarray::Array2<f32>,
    /// Own nodes' first hidden rows under the final model, `[n_own, d]`.
    pub own_hidden: ndarray::Array2<f32>,
    /// Global ids of the halo nodes whose first-layer row the client holds.
    pub halo_nodes: Vec<u32>,
    /// Those rows, `[halo_nodes.len(), d]`.
    pub halo_rows: ndarray::Array2<f32>,
    /// The clip norm C of released rows (public: part of the protocol's configuration).
    pub clip: f64,
    /// The noise standard deviation σ = σ₀·C of released rows (public likewise).
    pub sigma: dp_core::params::NoiseScale,
}

/// [`simulate`], also returning what the most exposed client holds at the end
/// ([`ClientObservation`]; `None` for methods without halo rows).
///
/// # Errors
/// As [`simulate`].
pub fn simulate_observed(
    task: &FedTask,
    cfg: &FedTrainConfig,
    method: Method,
    on_round: &mut dyn FnMut(RoundInfo),
) -> Result<(FedReport, Option<ClientObservation>)> {
    let (report, observed, _) = drive(task, cfg, method, on_round, false)?;
    Ok((report, observed))
}

/// The global objective at the model the server holds after one round of
/// [`simulate_traced`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ObjectivePoint {
    /// The round just finished (0 = bootstrap: the initial model).
    pub round: u32,
    /// Local steps per client so far (round · K).
    pub steps: u64,
    /// F(W): the class-weighted cross-entropy over every training node of the whole graph,
    /// every neighbour, no dropout, every layer exact.
    pub loss: f64,
    /// ‖∇F(W)‖², the squared L2 norm of its gradient in W.
    pub grad_norm_sq: f64,
}

/// [`simulate`], also measuring after every round (the bootstrap included) the global
/// objective F and ‖∇F‖² at the model the server holds (the centralised model for
/// [`Method::Centralised`]): the quantity the convergence theorem bounds, (1/T)·Σ_t ‖∇F(W_t)‖²
/// = O(1/√T), read at the end of every round. F is the training loss of one model over the
/// whole graph with exact neighbourhoods: what the federation approximates, not what any
/// client computes.
///
/// # Errors
/// As [`simulate`]; [`FedError::InvalidParam`] for the methods without one global model
/// (the single-client baseline, FED-PUB's personalised models).
///
/// # Complexity
/// One full-graph forward and backward pass per round on top of [`simulate`].
pub fn simulate_traced(
    task: &FedTask,
    cfg: &FedTrainConfig,
    method: Method,
    on_round: &mut dyn FnMut(RoundInfo),
) -> Result<(FedReport, Vec<ObjectivePoint>)> {
    if matches!(method, Method::SingleClient | Method::FedPub) {
        return Err(FedError::param(
            "method",
            method.name(),
            "has no single global model whose objective could be traced",
        ));
    }
    let (report, _, trace) = drive(task, cfg, method, on_round, true)?;
    Ok((report, trace))
}

/// Runs `method` round by round; with `trace`, the global objective after every round.
fn drive(
    task: &FedTask,
    cfg: &FedTrainConfig,
    method: Method,
    on_round: &mut dyn FnMut(RoundInfo),
    trace: bool,
) -> Result<(FedReport, Option<ClientObservation>, Vec<ObjectivePoint>)> {
    cfg.check()?;
    let cfg = &method.run_config(&cfg.with_pna_delta_of(task)?);
    let mut probe = if trace {
        Some(GradientProbe::new(task, cfg, method)?)
    } else {
        None
    };
    let mut points = Vec::new();
    let start = Instant::now();
    let mut run = start_run(task, cfg, method)?;
    for round in run.first_round()..=cfg.rounds {
        let loss = run.round(round)?;
        // The parameters are copied only when the run is traced.
        if let Some(p) = probe.as_mut()
            && let Some(w) = run.global_params()
            && let Some((loss, grad_norm_sq)) = p.measure(&w)?
        {
            points.push(ObjectivePoint {
                round,
                steps: u64::from(round) * u64::from(cfg.local_steps),
                loss,
                grad_norm_sq,
            });
        }
        on_round(RoundInfo {
            round,
            rounds: cfg.rounds,
            loss,
        });
    }
    let mut outcome = run.close()?;
    if method.first_layer_on_sums(cfg) {
        let (up, down) = fedgcn::traffic(task);
        outcome.traffic.0 += up;
        outcome.traffic.1 += down;
        outcome.traffic.2 += up + down;
    }
    let observed = outcome.observed.take();
    Ok((finish(task, cfg, method, outcome, start)?, observed, points))
}

/// The global objective F of [`simulate_traced`] at a given W: a trainer of the run's model
/// over the whole graph as one client (FedGCN's and the exact-first-layer variants: on the
/// pre-aggregated features their first layer reads).
struct GradientProbe {
    trainer: Trainer,
}

impl GradientProbe {
    fn new(task: &FedTask, cfg: &FedTrainConfig, method: Method) -> Result<Self> {
        let mut setup = Setup::new(task, cfg, method)?;
        let features = if method.first_layer_on_sums(cfg) {
            fedgcn::aggregates(task)
        } else {
            task.features.clone()
        };
        let trainer = setup.trainer(whole_graph_view(task, features), cfg, false)?;
        Ok(Self { trainer })
    }

    /// (F(W), ‖∇F(W)‖²); `None` without training nodes.
    fn measure(&mut self, w: &[f32]) -> Result<Option<(f64, f64)>> {
        Ok(self
            .gradient(w)?
            .map(|(loss, g)| (loss, g.iter().map(|&x| f64::from(x).powi(2)).sum())))
    }

    /// (F(W), ∇F(W)); `None` without training nodes.
    fn gradient(&mut self, w: &[f32]) -> Result<Option<(f64, Vec<f32>)>> {
        self.trainer.set_params(w);
        self.trainer.full_gradient()
    }
}

/// The whole graph as one client's view with node `features`.
fn whole_graph_view(task: &FedTask, features: ndarray::Array2<f32>) -> LocalView {
    let g = task.fed.graph();
    let own: Vec<u32> = (0..g.num_nodes() as u32).collect();
    LocalView::new(
        g,
        &EdgeIndex::new(g),
        own,
        Vec::new(),
        ViewData {
            features,
            labels: task.labels.clone(),
            num_classes: task.num_classes,
            train: &task.split.train,
            edge_features: task.edge_features.clone().map(Arc::new),
        },
    )
}

/// One run as a state machine over rounds.
trait Rounds {
    /// The first round: 0 (the bootstrap exchange) for the federated methods, else 1.
    fn first_round(&self) -> u32;
    /// Runs round `round`; the mean training loss of its steps over clients (NaN for the
    /// bootstrap).
    fn round(&mut self, round: u32) -> Result<f64>;
    /// Ends the run: predictions, traffic and privacy.
    fn close(self: Box<Self>) -> Result<Outcome>;
    /// The one global model after the last round (`None` for the methods without one).
    fn global_params(&self) -> Option<Vec<f32>> {
        None
    }
}

/// What a run produced, handed to [`finish`].
struct Outcome {
    /// Per client: the global ids of the nodes it is evaluated on.
    per_client_nodes: Vec<Vec<usize>>,
    /// Per client: predictions for its nodes (the central model: one vector for all nodes).
    preds: Vec<Vec<u32>>,
    /// The central model (one prediction vector over all nodes).
    central: bool,
    /// Bytes up, down, and of embedding rows.
    traffic: (u64, u64, u64),
    /// The report of the client with the most releases.
    privacy: Option<PrivacyReport>,
    /// Norms of all released rows.
    norms: NormStats,
    /// SHA-256 of the wire (federated methods).
    wire_digest: Option<String>,
    /// What the most exposed client holds (methods with halo rows).
    observed: Option<ClientObservation>,
    /// FedSage+'s per-client NeighGen reports.
    neighgen: Vec<super::NeighGenReport>,
}

impl Outcome {
    /// The outcome of methods without a server: no traffic, no releases.
    fn without_server(
        per_client_nodes: Vec<Vec<usize>>,
        preds: Vec<Vec<u32>>,
        central: bool,
    ) -> Self {
        Self {
            per_client_nodes,
            preds,
            central,
            traffic: (0, 0, 0),
            privacy: None,
            norms: NormStats::default(),
            wire_digest: None,
            observed: None,
            neighgen: Vec::new(),
        }
    }
}

/// What every method starts from: the estimator, the initial model, the shared layer widths and
/// the next trainer stream.
struct Setup {
    ma: MaConfig,
    init: gnn::Gnn,
    shared: Vec<usize>,
    next_stream: u32,
}

impl Setup {
    fn new(task: &FedTask, cfg: &FedTrainConfig, method: Method) -> Result<Self> {
        let (gamma, beta, read) = method.estimator(cfg);
        let mut ma = MaConfig::new(gamma, beta)?;
        ma.read = read;
        let device = Device::flex().autodiff();
        let d_edge = task.edge_features.as_ref().map(ndarray::Array2::ncols);
        let model_cfg = cfg.model_config(task.features.ncols(), d_edge, task.num_classes)?;
        let mut init = model_cfg.init(&device)?;
        if method.first_layer_on_sums(cfg) {
            // FedGCN's model: a linear first layer on the pre-aggregated features.
            let mut rng = Seeds::new(cfg.seed).chacha8(FEDGCN_STREAM, 0);
            init.layers[0] = gnn::model::Conv::Linear(gnn::layers::Linear::new(
                task.features.ncols(),
                cfg.hidden,
                true,
                &device,
                &mut rng,
            ));
        }
        Ok(Self {
            ma,
            init,
            shared: vec![cfg.hidden; cfg.num_layers - 1],
            next_stream: 0,
        })
    }

    /// The next trainer (streams in creation order), starting from the initial model.
    fn trainer(
        &mut self,
        view: LocalView,
        cfg: &FedTrainConfig,
        use_halo: bool,
    ) -> Result<Trainer> {
        let rng = trainer_rng(cfg.seed, self.next_stream);
        self.next_stream += 1;
        Trainer::new(view, self.init.clone(), self.ma, cfg, use_halo, rng)
    }
}

/// The state machine of `method` on `task`, before its first round.
fn start_run<'a>(
    task: &FedTask,
    cfg: &'a FedTrainConfig,
    method: Method,
) -> Result<Box<dyn Rounds + 'a>> {
    let mut setup = Setup::new(task, cfg, method)?;
    if method == Method::Centralised {
        return Ok(Box::new(Central::new(task, cfg, &mut setup)?));
    }
    if method == Method::FedSagePlus {
        return Ok(Box::new(fedsage_run(task, cfg, &mut setup)?));
    }
    let shares = method.shares_embeddings();
    let fed_owned;
    let fed = if shares {
        &task.fed
    } else {
        fed_owned = without_cross_edges(&task.fed)?;
        &fed_owned
    };
    let aggregated;
    let features = if method.first_layer_on_sums(cfg) {
        aggregated = fedgcn::aggregates(task);
        &aggregated
    } else {
        &task.features
    };
    let trainers = client_views(task, features, fed, shares)?
        .into_iter()
        .map(|v| setup.trainer(v, cfg, shares))
        .collect::<Result<Vec<_>>>()?;
    let halos = trainers
        .iter()
        .map(|t| HaloTable::new(t.view.halo.len(), &setup.shared))
        .collect();
    let local = Local {
        cfg,
        trainers,
        halos,
    };
    if method.federated() {
        let mut run = Federated::new(local, fed, &setup.shared)?;
        if method == Method::SwiftFedGnn {
            run.swift = Some(Swift::new(cfg, &run.local.trainers, &setup.shared));
        }
        if method == Method::FedPub {
            run.fed_pub = Some(FedPub::new(cfg, task.features.ncols()));
            let fp = &cfg.fed_pub;
            if fp.masks || fp.proximal > 0.0 {
                for t in &mut run.local.trainers {
                    t.enable_fed_pub(fp.masks, fp.l1, fp.proximal);
                }
            }
        }
        Ok(Box::new(run))
    } else {
        Ok(Box::new(local))
    }
}

/// FedSage+: NeighGen trained and the local graphs mended ([`fedsage::mend`]), then FedAvg's
/// rounds over the mended graphs (cross edges ignored). Generated nodes are extra own nodes of
/// their client, outside every split; predictions are kept for the real nodes only.
fn fedsage_run<'a>(
    task: &FedTask,
    cfg: &'a FedTrainConfig,
    setup: &mut Setup,
) -> Result<Federated<'a>> {
    let mended = fedsage::mend(task, cfg)?;
    let nodes = NodeData {
        graph: mended.fed.graph(),
        features: &mended.features,
        labels: &mended.labels,
        train: &mended.train,
        num_classes: task.num_classes,
        edge_features: mended.edge_features.clone().map(Arc::new),
    };
    let trainers = views(&nodes, &mended.fed, false)?
        .into_iter()
        .map(|v| setup.trainer(v, cfg, false))
        .collect::<Result<Vec<_>>>()?;
    let halos = trainers
        .iter()
        .map(|_| HaloTable::new(0, &setup.shared))
        .collect();
    let local = Local {
        cfg,
        trainers,
        halos,
    };
    let mut run = Federated::new(local, &mended.fed, &setup.shared)?;
    run.fedsage = Some(FedSageRun {
        real: mended.real,
        traffic: mended.traffic,
        reports: mended.reports,
    });
    Ok(run)
}

/// What FedSage+'s rounds keep from its preparation.
struct FedSageRun {
    /// Nodes with an id below this are the task's; the others are generated.
    real: usize,
    /// Bytes of the generator phase (up, down).
    traffic: (u64, u64),
    /// Per client, what NeighGen generated.
    reports: Vec<super::NeighGenReport>,
}

/// The centralised baseline: one model on the whole graph, evaluated on each client's nodes.
struct Central<'a> {
    cfg: &'a FedTrainConfig,
    trainer: Trainer,
    halo: HaloTable,
    per_client_nodes: Vec<Vec<usize>>,
}

impl<'a> Central<'a> {
    fn new(task: &FedTask, cfg: &'a FedTrainConfig, setup: &mut Setup) -> Result<Self> {
        let view = whole_graph_view(task, task.features.clone());
        let per_client_nodes = task
            .fed
            .clients()
            .iter()
            .map(|c| c.nodes().iter().map(|&v| v as usize).collect())
            .collect();
        Ok(Self {
            cfg,
            trainer: setup.trainer(view, cfg, false)?,
            halo: HaloTable::new(0, &setup.shared),
            per_client_nodes,
        })
    }
}

impl Rounds for Central<'_> {
    fn first_round(&self) -> u32 {
        1
    }
    fn round(&mut self, _round: u32) -> Result<f64> {
        let mut losses = Vec::new();
        for _ in 0..self.cfg.local_steps {
            losses.extend(self.trainer.step(&self.halo)?);
        }
        Ok(mean(losses.into_iter()))
    }
    fn global_params(&self) -> Option<Vec<f32>> {
        Some(self.trainer.w.clone())
    }
    fn close(mut self: Box<Self>) -> Result<Outcome> {
        let pred = self.trainer.predict(&self.halo)?;
        Ok(Outcome::without_server(
            self.per_client_nodes,
            vec![pred],
            true,
        ))
    }
}

/// Clients training on their own subgraphs with no exchange (the single-client baseline), and
/// the training half of the federated methods.
struct Local<'a> {
    cfg: &'a FedTrainConfig,
    trainers: Vec<Trainer>,
    halos: Vec<HaloTable>,
}

impl Rounds for Local<'_> {
    fn first_round(&self) -> u32 {
        1
    }
    fn round(&mut self, _round: u32) -> Result<f64> {
        let mut losses = Vec::new();
        for (t, h) in self.trainers.iter_mut().zip(&self.halos) {
            for _ in 0..self.cfg.local_steps {
                losses.extend(t.step(h)?);
            }
        }
        Ok(mean(losses.into_iter()))
    }
    fn close(mut self: Box<Self>) -> Result<Outcome> {
        let (preds, per) = predict_all(&mut self.trainers, &self.halos)?;
        Ok(Outcome::without_server(per, preds, false))
    }
}

/// The federated methods: the trainers, each behind its protocol client role, and the server,
/// exchanging encoded frames through the in-process transport.
struct Federated<'a> {
    local: Local<'a>,
    net: InProcessTransport,
    server: Server,
    clients: Vec<Client>,
    /// Swift-FedGNN's cross-client schedule (`None` for the other methods).
    swift: Option<Swift>,
    /// FED-PUB's personalised averaging (`None` for the other methods).
    fed_pub: Option<FedPub>,
    /// FedSage+'s real-node count and generator traffic (`None` for the other methods).
    fedsage: Option<FedSageRun>,
}

impl<'a> Federated<'a> {
    /// The roles of `fed`'s clients around `local`'s trainers; the server's first broadcast is
    /// sent.
    fn new(local: Local<'a>, fed: &FederatedGraph, shared: &[usize]) -> Result<Self> {
        let cfg = local.cfg;
        let n = fed.num_clients() as u32;
        let w0 = local.trainers[0].w.clone();
        let pcfg = ProtocolConfig {
            num_clients: n,
            num_params: w0.len() as u32,
            layer_dims: shared.iter().map(|&d| d as u32).collect(),
            share_gradient: cfg.share_gradient,
            num_rounds: cfg.rounds,
            local_steps: cfg.local_steps,
        };
        let rel = ReleaseConfig {
            clip: cfg.clip,
            sigma0: cfg.sigma0,
            radius: cfg.radius,
            delta: cfg.delta,
            budget_eps: None,
        };
        let mut net = InProcessTransport::new(n);
        let mut server = Server::new(pcfg.clone(), fed.clients(), w0)?;
        let clients = fed
            .clients()
            .iter()
            .map(|t| Client::new(t, pcfg.clone(), rel, noise_rng(cfg.noise, t.id())?))
            .collect::<Result<Vec<_>>>()?;
        server.start(&mut net)?;
        Ok(Self {
            local,
            net,
            server,
            clients,
            swift: None,
            fed_pub: None,
            fedsage: None,
        })
    }
}

impl Federated<'_> {
    /// Every client takes the server's broadcast into its trainer and halo table, then `then`
    /// runs on it (with the wire).
    fn for_each_client(
        &mut self,
        mut then: impl FnMut(
            &mut Client,
            &mut Trainer,
            &mut HaloTable,
            &mut InProcessTransport,
        ) -> Result<()>,
    ) -> Result<()> {
        let cfg = self.local.cfg;
        let pairs = self
            .clients
            .iter_mut()
            .zip(&mut self.local.trainers)
            .zip(&mut self.local.halos);
        for ((c, t), h) in pairs {
            receive(c, t, h, &mut self.net, cfg)?;
            then(c, t, h, &mut self.net)?;
        }
        Ok(())
    }
}

impl Rounds for Federated<'_> {
    fn first_round(&self) -> u32 {
        0
    }
    fn round(&mut self, round: u32) -> Result<f64> {
        let cfg = self.local.cfg;
        let mut losses = Vec::new();
        let mut swift = self.swift.take();
        let cross = swift.as_mut().map(Swift::draw);
        let mut i = 0;
        let personal = self.fed_pub.as_mut().and_then(|f| f.next.take());
        self.for_each_client(|c, t, h, net| {
            if let Some(p) = &personal {
                t.set_personal(&p[i]);
            }
            if round == 0 {
                t.bootstrap(h)?;
            } else if let (Some(sw), Some(cross)) = (&swift, &cross) {
                for s in 0..cfg.local_steps {
                    let halo = if s == 0 && cross[i] {
                        &*h
                    } else {
                        &sw.empty[i]
                    };
                    losses.extend(t.step(halo)?);
                }
            } else {
                for _ in 0..cfg.local_steps {
                    losses.extend(t.step(h)?);
                }
            }
            i += 1;
            let grad = cfg.share_gradient.then(|| t.g.value().to_vec());
            c.upload(net, &t.w, grad.as_deref(), t.train_size(), &t.h)?;
            Ok(())
        })?;
        self.swift = swift;
        if let Some(f) = &mut self.fed_pub
            && round > 0
        {
            f.personalise(&self.local.trainers)?;
        }
        self.server.poll(&mut self.net)?;
        self.server.finish_round(&mut self.net)?;
        Ok(mean(losses.into_iter()))
    }
    fn global_params(&self) -> Option<Vec<f32>> {
        self.fed_pub
            .is_none()
            .then(|| self.server.params().to_vec())
    }
    fn close(mut self: Box<Self>) -> Result<Outcome> {
        // The final broadcast: averaged W and the latest halo rows (FED-PUB: each client's
        // personalised W instead).
        let personal = self.fed_pub.as_mut().and_then(|f| f.next.take());
        let mut i = 0;
        self.for_each_client(|_, t, _, _| {
            if let Some(p) = &personal {
                t.set_params(&p[i]);
            }
            i += 1;
            Ok(())
        })?;
        let observed = observe(&mut self.local)?;
        let (mut preds, mut per) = predict_all(&mut self.local.trainers, &self.local.halos)?;
        let log = self.server.traffic();
        let (mut up, mut down) = (log.total_in(Direction::Up), log.total_in(Direction::Down));
        if let Some(f) = &self.fed_pub {
            up += f.bytes_up;
        }
        let mut emb = log.embedding_total();
        if let Some(s) = &self.fedsage {
            // Own ids ascend, so the real nodes come first.
            for (p, nodes) in preds.iter_mut().zip(&mut per) {
                let real = nodes.partition_point(|&v| v < s.real);
                p.truncate(real);
                nodes.truncate(real);
            }
            up += s.traffic.0;
            down += s.traffic.1;
            emb += s.traffic.0 + s.traffic.1;
        }
        let mut privacy: Option<PrivacyReport> = None;
        let norms = self.clients.iter().fold(NormStats::default(), |acc, c| {
            acc.merge(&c.releaser().norm_stats())
        });
        for c in &self.clients {
            let r = c.releaser().report()?;
            if r.max_releases > 0
                && privacy
                    .as_ref()
                    .is_none_or(|p| r.max_releases > p.max_releases)
            {
                privacy = Some(r);
            }
        }
        Ok(Outcome {
            per_client_nodes: per,
            preds,
            central: false,
            traffic: (up, down, emb),
            privacy,
            norms,
            wire_digest: Some(self.net.wire_digest()),
            observed,
            neighgen: self.fedsage.take().map(|s| s.reports).unwrap_or_default(),
        })
    }
}

/// The [`ClientObservation`] of the client with the most halo nodes (`None` when no client has
/// halo rows).
fn observe(local: &mut Local<'_>) -> Result<Option<ClientObservation>> {
    let Some(i) = (0..local.trainers.len())
        .filter(|&i| !local.trainers[i].view.halo.is_empty())
        .max_by_key(|&i| (local.trainers[i].view.halo.len(), std::cmp::Reverse(i)))
    else {
        return Ok(None);
    };
    let halo = &local.halos[i];
    let t = &mut local.trainers[i];
    let (hidden, _) = t.full_forward(halo)?;
    let n_own = t.view.own.len();
    let d = hidden[0].len() / n_own.max(1);
    let own_hidden = ndarray::Array2::from_shape_vec((n_own, d), hidden[0].clone())
        .map_err(|e| FedError::Inconsistent(e.to_string()))?;
    let mut nodes = Vec::new();
    let mut rows = Vec::new();
    for (j, &v) in t.view.halo.iter().enumerate() {
        if let Some(r) = halo.get(0, j) {
            nodes.push(v);
            rows.extend_from_slice(r);
        }
    }
    let halo_rows = ndarray::Array2::from_shape_vec((nodes.len(), d), rows)
        .map_err(|e| FedError::Inconsistent(e.to_string()))?;
    Ok(Some(ClientObservation {
        client: i as u32,
        own_nodes: t.view.own.clone(),
        own_features: t.view.features.clone(),
        own_hidden,
        halo_nodes: nodes,
        halo_rows,
        clip: local.cfg.clip,
        sigma: local.cfg.sigma0.scale(local.cfg.clip)?,
    }))
}

/// Per client: predictions for all its local nodes, and the global ids of its own nodes.
type Predictions = (Vec<Vec<u32>>, Vec<Vec<usize>>);

/// Every client's predictions for all its nodes, and the global ids of its own nodes.
fn predict_all(trainers: &mut [Trainer], halos: &[HaloTable]) -> Result<Predictions> {
    let preds = trainers
        .iter_mut()
        .zip(halos)
        .map(|(t, h)| t.predict(h))
        .collect::<Result<Vec<_>>>()?;
    let per = trainers
        .iter()
        .map(|t| t.view.own.iter().map(|&v| v as usize).collect())
        .collect();
    Ok((preds, per))
}

fn receive(
    c: &mut Client,
    t: &mut Trainer,
    h: &mut HaloTable,
    net: &mut dyn Transport,
    cfg: &FedTrainConfig,
) -> Result<()> {
    c.poll(net)?
        .ok_or_else(|| FedError::Rejected(format!("client {}: no broadcast", c.id())))?;
    apply_broadcast(c, t, h, cfg)
}

/// Hands the broadcast a client role just accepted to its trainer: W (and G), and the halo rows
/// into the trainer's halo table.
pub(crate) fn apply_broadcast(
    c: &Client,
    t: &mut Trainer,
    h: &mut HaloTable,
    cfg: &FedTrainConfig,
) -> Result<()> {
    let share_gradient = cfg.share_gradient;
    t.set_params(c.params());
    if share_gradient && let Some(g) = c.grad() {
        t.g.set_value(g)?;
    }
    for s in 0..t.h.num_layers() {
        for (j, &v) in t.view.halo.iter().enumerate() {
            if let Some(row) = c.halo_row(s, v) {
                h.set(s, j, row, cfg.halo_average);
            }
        }
    }
    Ok(())
}

/// The report of a run: F1 per client and pooled (test and validation), traffic per exchange,
/// privacy.
fn finish(
    task: &FedTask,
    cfg: &FedTrainConfig,
    method: Method,
    outcome: Outcome,
    start: Instant,
) -> Result<FedReport> {
    let Outcome {
        per_client_nodes,
        preds,
        central,
        traffic: (up, down, emb),
        privacy,
        norms,
        wire_digest,
        observed: _,
        neighgen,
    } = outcome;
    let per_client_nodes = per_client_nodes.as_slice();
    // Prediction of every node (the central model predicts all nodes at once).
    let mut pred_all = vec![0u32; task.labels.len()];
    if central {
        pred_all.clone_from(&preds[0]);
    } else {
        for (nodes, p) in per_client_nodes.iter().zip(&preds) {
            for (&v, &y) in nodes.iter().zip(p) {
                pred_all[v] = y;
            }
        }
    }
    let eval = |mask: &[bool]| -> Result<(Vec<Option<f64>>, f64)> {
        let mut per = Vec::new();
        for nodes in per_client_nodes {
            let rows: Vec<usize> = nodes.iter().copied().filter(|&v| mask[v]).collect();
            if rows.is_empty() {
                per.push(None);
                continue;
            }
            let p: Vec<u32> = rows.iter().map(|&v| pred_all[v]).collect();
            let t: Vec<u32> = rows.iter().map(|&v| task.labels[v]).collect();
            per.push(Some(score(task.metric, &p, &t, task.num_classes)?));
        }
        let rows: Vec<usize> = (0..mask.len()).filter(|&v| mask[v]).collect();
        let p: Vec<u32> = rows.iter().map(|&v| pred_all[v]).collect();
        let t: Vec<u32> = rows.iter().map(|&v| task.labels[v]).collect();
        let pooled = if rows.is_empty() {
            f64::NAN
        } else {
            score(task.metric, &p, &t, task.num_classes)?
        };
        Ok((per, pooled))
    };
    let (test, test_pooled) = eval(&task.split.test)?;
    let (val, val_pooled) = eval(&task.split.val)?;
    // The other reading of a client's macro-F1: only the classes present there.
    let mut present = Vec::new();
    for nodes in per_client_nodes {
        let rows: Vec<usize> = nodes
            .iter()
            .copied()
            .filter(|&v| task.split.test[v])
            .collect();
        if !rows.is_empty() {
            let p: Vec<u32> = rows.iter().map(|&v| pred_all[v]).collect();
            let t: Vec<u32> = rows.iter().map(|&v| task.labels[v]).collect();
            present.push(score_present(task.metric, &p, &t, task.num_classes)?);
        }
    }
    let exchanges = f64::from(cfg.rounds + 1);
    Ok(FedReport {
        method: method.name(),
        dataset: task.name.clone(),
        f1_mean: mean(test.iter().flatten().copied()),
        f1_mean_present: mean(present.into_iter()),
        f1_per_client: test,
        f1_pooled: test_pooled,
        val_f1_mean: mean(val.iter().flatten().copied()),
        val_f1_pooled: val_pooled,
        rounds: cfg.rounds,
        local_steps: cfg.local_steps,
        bytes_up: up,
        bytes_down: down,
        bytes_per_round: (up + down) as f64 / exchanges,
        embedding_bytes_per_round: emb as f64 / exchanges,
        privacy,
        norms,
        wire_digest,
        neighgen,
        seconds: start.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::NeighGenConfig;
    use crate::train::PartitionKind;
    use graph_core::generate::ContextualSbm;
    use rand::SeedableRng;

    /// A small three-client task on a contextual SBM (90 nodes, 3 classes).
    fn csbm_task(seed: u64) -> FedTask {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let ds = ContextualSbm {
            n: 90,
            classes: 3,
            p_in: 0.6,
            p_out: 0.02,
            dim: 8,
            mu: 1.5,
        }
        .sample(&mut rng)
        .unwrap();
        FedTask::from_node_dataset(&ds, 3, PartitionKind::Random, 0.4, 0.2, &mut rng).unwrap()
    }

    /// The probe's gradient is the gradient of its objective: the central difference of F along
    /// ∇F/‖∇F‖ equals ‖∇F‖ (to the f32 resolution of the difference).
    #[test]
    fn the_traced_gradient_is_the_objectives_gradient() {
        let task = csbm_task(4);
        let cfg = FedTrainConfig::citation();
        let mut probe = GradientProbe::new(&task, &cfg, Method::CeFedGnn).unwrap();
        let w0 = probe.trainer.w.clone();
        let (_, g) = probe.gradient(&w0).unwrap().unwrap();
        let norm = g.iter().map(|&x| f64::from(x).powi(2)).sum::<f64>().sqrt();
        assert!(norm > 1e-3, "a random model has a gradient: {norm}");
        let h = 1e-2;
        let shifted = |sign: f64| -> Vec<f32> {
            w0.iter()
                .zip(&g)
                .map(|(&w, &d)| (f64::from(w) + sign * h * f64::from(d) / norm) as f32)
                .collect()
        };
        let (up, _) = probe.gradient(&shifted(1.0)).unwrap().unwrap();
        let (down, _) = probe.gradient(&shifted(-1.0)).unwrap().unwrap();
        let slope = (up - down) / (2.0 * h);
        assert!(
            (slope - norm).abs() < 0.05 * norm,
            "directional derivative {slope} vs ‖∇F‖ {norm}"
        );
        // The same W gives the same objective and gradient (no dropout, no sampling).
        let (f0, _) = probe.gradient(&w0).unwrap().unwrap();
        let (f1, sq) = probe.measure(&w0).unwrap().unwrap();
        assert_eq!(f0, f1);
        assert_eq!(sq, g.iter().map(|&x| f64::from(x).powi(2)).sum::<f64>());
    }

    /// A traced run records the objective after the bootstrap and every round, and the
    /// federated model's objective falls as it trains; the report equals the untraced run's.
    #[test]
    fn a_traced_run_records_every_round_and_its_objective_falls() {
        let task = csbm_task(5);
        let cfg = FedTrainConfig {
            rounds: 6,
            local_steps: 8,
            sigma0: dp_core::params::NoiseMultiplier::ZERO,
            noise: dp_core::rng::NoiseSource::Seeded(1),
            ..FedTrainConfig::citation()
        };
        let (report, trace) = simulate_traced(&task, &cfg, Method::CeFedGnn, &mut |_| {}).unwrap();
        let rounds: Vec<u32> = trace.iter().map(|p| p.round).collect();
        assert_eq!(rounds, (0..=6).collect::<Vec<_>>());
        assert_eq!(trace[6].steps, 48);
        assert!(
            trace[6].loss < trace[0].loss,
            "F falls: {} -> {}",
            trace[0].loss,
            trace[6].loss
        );
        let plain = simulate(&task, &cfg, Method::CeFedGnn, &mut |_| {}).unwrap();
        assert_eq!(plain.f1_mean, report.f1_mean);
        assert_eq!(plain.wire_digest, report.wire_digest);
        let err = simulate_traced(&task, &cfg, Method::SingleClient, &mut |_| {}).unwrap_err();
        assert!(matches!(err, FedError::InvalidParam { .. }), "{err}");
    }

    /// FedSage+'s trainers hold generated nodes besides their own, but the run is evaluated on
    /// exactly every client's own real nodes.
    #[test]
    fn fedsage_plus_evaluates_exactly_the_real_nodes() {
        let task = csbm_task(2);
        let cfg = FedTrainConfig {
            rounds: 2,
            local_steps: 2,
            neighgen: NeighGenConfig {
                latent: 8,
                fgen_hidden: [16, 16],
                hide_fraction: 1.0,
                lr: 0.05,
                local_epochs: 20,
                fed_epochs: 1,
                ..NeighGenConfig::default()
            },
            ..FedTrainConfig::default()
        };
        let mut setup = Setup::new(&task, &cfg, Method::FedSagePlus).unwrap();
        let run = fedsage_run(&task, &cfg, &mut setup).unwrap();
        let clients = task.fed.clients();
        let held: usize = run.local.trainers.iter().map(|t| t.view.own.len()).sum();
        assert!(held > 90, "generated nodes are local nodes of the trainers");
        for (t, c) in run.local.trainers.iter().zip(clients) {
            let train: Vec<u32> = t.view.train.iter().map(|&i| t.view.own[i]).collect();
            assert!(
                train
                    .iter()
                    .all(|&v| task.split.train[v as usize] && c.owns(v))
            );
        }
        let mut run: Box<dyn Rounds> = Box::new(run);
        for r in run.first_round()..=cfg.rounds {
            run.round(r).unwrap();
        }
        let out = run.close().unwrap();
        for (i, (nodes, p)) in out.per_client_nodes.iter().zip(&out.preds).enumerate() {
            let own: Vec<usize> = clients[i].nodes().iter().map(|&v| v as usize).collect();
            assert_eq!(nodes, &own);
            assert_eq!(p.len(), own.len());
        }
    }
}
