//! [`OrgClient`]: one organisation's side of a deployed run — the protocol [`Client`] role and
//! the local trainer over the organisation's own files — driven one frame at a time, with its
//! state saved to the organisation's own disk after every answer.

use std::path::Path;
use std::sync::Arc;

use burn::tensor::Device;
use graph_core::Graph;
use serde::{Deserialize, Serialize};

use super::data::{OrgData, OrgManifest, SplitTag};
use super::wire::{Announcement, ClientFinal, Evaluation, Outbox};
use crate::error::{FedError, Result};
use crate::estimator::MaConfig;
use crate::federation::ClientTopology;
use crate::privacy::ReleaseConfig;
use crate::protocol::{Client, ClientState, Endpoint, Message, ProtocolConfig};
use crate::train::{
    EdgeIndex, FedTrainConfig, HaloTable, LocalView, Method, Metric, Trainer, TrainerState,
    ViewData, apply_broadcast, noise_rng, score, trainer_rng,
};

/// Where the boundary noise comes from: dp-core's [`dp_core::rng::NoiseSource`] (`Os` by
/// default; `Seeded(s)` reproduces `dpgraph --seed s fed simulate` and is not private).
pub use dp_core::rng::NoiseSource;

/// What a client process needs besides its data: the method, the training configuration (the
/// same on every client and the server) and the noise source.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClientOptions {
    /// The method (a federated one: CE-FedGNN, its ablations with a server, FedAvg, FedGNN-ST).
    pub method: Method,
    /// Training and release configuration.
    pub train: FedTrainConfig,
    /// Noise source of the boundary releases.
    pub noise: NoiseSource,
}

/// A deliberate defect in an upload, for testing what the server refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Fault {
    /// A NaN in the uploaded parameters.
    NonFinite,
    /// The update claims the previous round.
    WrongRound,
    /// The frame loses its last byte.
    Truncated,
}

impl Fault {
    /// The fault of a name (`nonfinite`, `wrong-round`, `truncated`).
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "nonfinite" => Self::NonFinite,
            "wrong-round" => Self::WrongRound,
            "truncated" => Self::Truncated,
            _ => return None,
        })
    }

    /// `frame` (an encoded update) with this defect.
    ///
    /// # Errors
    /// [`FedError::Malformed`] when `frame` is not an update.
    pub fn apply(self, frame: &[u8]) -> Result<Vec<u8>> {
        if self == Self::Truncated {
            return Ok(frame[..frame.len().saturating_sub(1)].to_vec());
        }
        let Message::Update(mut u) = Message::decode(frame, usize::MAX)? else {
            return Err(FedError::Malformed("not an update".into()));
        };
        match self {
            Self::NonFinite => {
                if let Some(x) = u.params.first_mut() {
                    *x = f32::NAN;
                }
            }
            Self::WrongRound => u.round = u.round.wrapping_sub(1),
            Self::Truncated => unreachable!("handled above"),
        }
        Ok(Message::Update(u).encode())
    }
}

/// The answer of [`OrgClient::handle`].
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// An encoded update for the server.
    Update(Vec<u8>),
    /// The broadcast was the final model: the client's evaluation and privacy report.
    Final(Box<ClientFinal>),
}

/// The saved state of an [`OrgClient`] (its own disk only).
#[derive(Clone, Debug, Serialize, Deserialize)]
struct SavedClient {
    options: ClientOptions,
    role: ClientState,
    trainer: TrainerState,
    halo: HaloTable,
    bootstrapped: bool,
    /// The round answered last and the answer, sent again when that round's broadcast repeats.
    last: Option<(u32, Vec<u8>)>,
    rounds_trained: Vec<u32>,
}

/// One organisation's client process: holds only the organisation's [`OrgData`].
///
/// # Privacy
/// Boundary rows leave only through the role's [`crate::privacy::BoundaryReleaser`] (clipped,
/// noised, recorded in the client's own ledger); the final report carries the privacy report
/// computed here from that ledger, evaluation counts on the client's test and validation nodes,
/// and traffic figures.
pub struct OrgClient {
    options: ClientOptions,
    manifest: OrgManifest,
    pcfg: ProtocolConfig,
    test: Vec<bool>,
    val: Vec<bool>,
    topology: ClientTopology,
    role: Client,
    trainer: Trainer,
    halo: HaloTable,
    bootstrapped: bool,
    last: Option<(u32, Vec<u8>)>,
    rounds_trained: Vec<u32>,
}

impl std::fmt::Debug for OrgClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OrgClient")
            .field("client", &self.role.id())
            .field("round", &self.role.meta().map(|m| m.round))
            .finish_non_exhaustive()
    }
}

/// The release configuration of `cfg`.
pub(crate) fn release_config(cfg: &FedTrainConfig) -> ReleaseConfig {
    ReleaseConfig {
        clip: cfg.clip,
        sigma0: cfg.sigma0,
        radius: cfg.radius,
        delta: cfg.delta,
        budget_eps: None,
    }
}

/// The protocol configuration of a run with `num_clients` clients and a model of `num_params`.
pub(crate) fn protocol_config(
    cfg: &FedTrainConfig,
    num_clients: u32,
    num_params: usize,
) -> ProtocolConfig {
    ProtocolConfig {
        num_clients,
        num_params: num_params as u32,
        layer_dims: vec![cfg.hidden as u32; cfg.num_layers - 1],
        share_gradient: cfg.share_gradient,
        num_rounds: cfg.rounds,
        local_steps: cfg.local_steps,
    }
}

impl OrgClient {
    /// A fresh client over `data`.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] for a method that does not federate or an invalid
    /// configuration; [`FedError::Inconsistent`] for data that does not form a topology;
    /// model errors; [`FedError::Dp`] when the OS has no entropy.
    pub fn new(data: &OrgData, options: ClientOptions) -> Result<Self> {
        let cfg = &options.train;
        cfg.check()?;
        let method = options.method;
        if !method.deployable() {
            return Err(FedError::param(
                "method",
                method.name(),
                "is not deployed (no server, or a baseline simulated only); use `dpgraph fed simulate`",
            ));
        }
        let id = data.manifest.client;
        let shares = method.shares_embeddings();
        // The edges this client uses: all it sees, or only its own when nothing is shared.
        let keep: Vec<usize> = (0..data.edges.len())
            .filter(|&e| {
                let (u, v) = data.edges[e];
                shares
                    || (data.nodes.binary_search(&u).is_ok()
                        && data.nodes.binary_search(&v).is_ok())
            })
            .collect();
        let edges: Vec<(u32, u32)> = keep.iter().map(|&e| data.edges[e]).collect();
        let topology = ClientTopology::from_local(id, data.nodes.clone(), &edges)?;
        // A compact id space over own and halo nodes, in global order, so neighbour order and
        // edge order are those of the global graph.
        let mut ids: Vec<u32> = topology.nodes().to_vec();
        ids.extend_from_slice(topology.halo());
        ids.sort_unstable();
        let local = |v: u32| ids.binary_search(&v).expect("own or halo node") as u32;
        let compact: Vec<(u32, u32)> = edges.iter().map(|&(u, v)| (local(u), local(v))).collect();
        let graph = Graph::from_edges(ids.len(), &compact)?;
        let index = EdgeIndex::new(&graph);
        let ef = data
            .edge_features
            .as_ref()
            .map(|ef| Arc::new(ef.select(ndarray::Axis(0), &keep)));
        let halo: Vec<u32> = if shares {
            topology.halo().to_vec()
        } else {
            Vec::new()
        };
        let mut view = LocalView::new(
            &graph,
            &index,
            topology.nodes().iter().map(|&v| local(v)).collect(),
            halo.iter().map(|&v| local(v)).collect(),
            ViewData {
                features: data.features.clone(),
                labels: data.labels.clone(),
                num_classes: data.manifest.num_classes,
                train: &data.mask(SplitTag::Train),
                edge_features: ef,
            },
        );
        view.own = topology.nodes().to_vec();
        view.halo = halo;
        let (gamma, beta, read) = method.estimator(cfg);
        let mut ma = MaConfig::new(gamma, beta)?;
        ma.read = read;
        let device = Device::flex().autodiff();
        let d_edge =
            (data.manifest.num_edge_features > 0).then_some(data.manifest.num_edge_features);
        let init = cfg
            .model_config(
                data.manifest.num_features,
                d_edge,
                data.manifest.num_classes,
            )?
            .init(&device)?;
        let trainer = Trainer::new(view, init, ma, cfg, shares, trainer_rng(cfg.seed, id))?;
        let shared = vec![cfg.hidden; cfg.num_layers - 1];
        let halo = HaloTable::new(trainer.view.halo.len(), &shared);
        let rng = noise_rng(options.noise, id)?;
        let pcfg = protocol_config(cfg, data.manifest.num_clients, trainer.w.len());
        let role = Client::new(&topology, pcfg.clone(), release_config(cfg), rng)?;
        Ok(Self {
            manifest: data.manifest.clone(),
            pcfg,
            test: data.mask(SplitTag::Test),
            val: data.mask(SplitTag::Val),
            topology,
            role,
            trainer,
            halo,
            bootstrapped: false,
            last: None,
            rounds_trained: Vec::new(),
            options,
        })
    }

    /// The client over `data`, restored from `state` when that file exists (a restarted
    /// process), fresh otherwise.
    ///
    /// # Errors
    /// As [`OrgClient::new`]; [`FedError::Io`] / [`FedError::Malformed`] for an unreadable
    /// state file; [`FedError::Inconsistent`] for a state of another client, data or
    /// configuration.
    pub fn open(data: &OrgData, options: ClientOptions, state: &Path) -> Result<Self> {
        let mut c = Self::new(data, options)?;
        if !state.exists() {
            return Ok(c);
        }
        let bytes = std::fs::read(state).map_err(|source| FedError::Io {
            path: state.to_path_buf(),
            source,
        })?;
        let saved: SavedClient = rmp_serde::from_slice(&bytes)
            .map_err(|e| FedError::Malformed(format!("client state {}: {e}", state.display())))?;
        if saved.options != c.options {
            return Err(FedError::Inconsistent(format!(
                "{} was saved by a run with other options",
                state.display()
            )));
        }
        c.role = Client::restore(&c.topology, release_config(&c.options.train), saved.role)?;
        c.trainer.restore(saved.trainer)?;
        if !saved.halo.same_shape(&c.halo) {
            return Err(FedError::Inconsistent(format!(
                "{}: the saved halo rows are for another halo",
                state.display()
            )));
        }
        c.halo = saved.halo;
        c.bootstrapped = saved.bootstrapped;
        c.last = saved.last;
        c.rounds_trained = saved.rounds_trained;
        Ok(c)
    }

    /// Saves the client's state to `path` (temporary name, then rename).
    ///
    /// # Errors
    /// [`FedError::Graph`] (I/O) when the file cannot be written.
    pub fn save(&self, path: &Path) -> Result<()> {
        let saved = SavedClient {
            options: self.options.clone(),
            role: self.role.state(),
            trainer: self.trainer.state(),
            halo: self.halo.clone(),
            bootstrapped: self.bootstrapped,
            last: self.last.clone(),
            rounds_trained: self.rounds_trained.clone(),
        };
        let bytes = rmp_serde::to_vec(&saved)
            .map_err(|e| FedError::Inconsistent(format!("client state: {e}")))?;
        graph_core::io::write_atomic(path, &bytes)?;
        Ok(())
    }

    /// The client id.
    pub fn id(&self) -> u32 {
        self.role.id()
    }

    /// What the server needs to know of this client (public structure and shapes).
    pub fn announcement(&self) -> Announcement {
        Announcement {
            client: self.role.id(),
            num_clients: self.pcfg.num_clients,
            dataset: self.manifest.dataset.clone(),
            num_features: self.manifest.num_features,
            num_edge_features: self.manifest.num_edge_features,
            num_classes: self.manifest.num_classes,
            metric: self.manifest.metric,
            num_params: self.pcfg.num_params,
            boundary: self.topology.boundary().to_vec(),
            halo: self.trainer.view.halo.clone(),
        }
    }

    /// The round of the last broadcast accepted.
    pub fn round(&self) -> Option<u32> {
        self.role.meta().map(|m| m.round)
    }

    /// Handles one broadcast frame: trains (the bootstrap in round 0, K steps after) and
    /// answers with the encoded update, or evaluates after the final broadcast. A broadcast of
    /// the round this client answered last is answered with the same update again (no new
    /// release).
    ///
    /// # Errors
    /// As [`Client::accept`] and [`Client::upload`]; model errors. The client is unchanged when
    /// the broadcast is refused.
    pub fn handle(&mut self, frame: &[u8]) -> Result<Reply> {
        if let Some((round, answer)) = &self.last {
            let bound = self.pcfg.broadcast_bound(self.trainer.view.halo.len());
            if let Message::Broadcast(b) = Message::decode(frame, bound)?
                && b.meta.round == *round
            {
                return Ok(Reply::Update(answer.clone()));
            }
        }
        let meta = self.role.accept(Endpoint::Server, frame)?;
        let cfg = self.options.train.clone();
        apply_broadcast(&self.role, &mut self.trainer, &mut self.halo, &cfg)?;
        if meta.round > meta.num_rounds {
            return Ok(Reply::Final(Box::new(self.evaluate()?)));
        }
        if !self.bootstrapped {
            self.trainer.bootstrap(&self.halo)?;
            self.bootstrapped = true;
        }
        if meta.round > 0 {
            for _ in 0..cfg.local_steps {
                self.trainer.step(&self.halo)?;
            }
        }
        let grad = cfg.share_gradient.then(|| self.trainer.g.value().to_vec());
        let mut out = Outbox::default();
        self.role.upload(
            &mut out,
            &self.trainer.w,
            grad.as_deref(),
            self.trainer.train_size(),
            &self.trainer.h,
        )?;
        let frame = out.take()?;
        self.rounds_trained.push(meta.round);
        self.last = Some((meta.round, frame.clone()));
        Ok(Reply::Update(frame))
    }

    fn evaluate(&mut self) -> Result<ClientFinal> {
        let pred = self.trainer.predict(&self.halo)?;
        let labels = &self.trainer.view.labels;
        let eval = |mask: &[bool]| -> Result<Evaluation> {
            let rows: Vec<usize> = (0..mask.len()).filter(|&i| mask[i]).collect();
            let p: Vec<u32> = rows.iter().map(|&i| pred[i]).collect();
            let t: Vec<u32> = rows.iter().map(|&i| labels[i]).collect();
            Evaluation::new(self.manifest.metric, &p, &t, self.manifest.num_classes)
        };
        let report = self.role.releaser().report()?;
        let privacy = (report.max_releases > 0)
            .then(|| serde_json::to_value(&report))
            .transpose()
            .map_err(|e| FedError::Inconsistent(e.to_string()))?;
        let log = self.role.traffic();
        Ok(ClientFinal {
            client: self.role.id(),
            test: eval(&self.test)?,
            val: eval(&self.val)?,
            rounds_trained: self.rounds_trained.clone(),
            privacy,
            norms: self.role.releaser().norm_stats(),
            bytes_up: log.up_total(self.role.id()),
            bytes_down: log.down_total(self.role.id()),
            noise_seed: match self.options.noise {
                NoiseSource::Os => None,
                NoiseSource::Seeded(s) => Some(s),
            },
            seed: self.options.train.seed,
        })
    }
}

impl Evaluation {
    /// The evaluation of predictions `pred` against `truth`: node count, the metric, and the
    /// confusion counts (truth × prediction) from which a pooled score is computed.
    ///
    /// # Errors
    /// Metric errors (labels out of range).
    pub fn new(metric: Metric, pred: &[u32], truth: &[u32], classes: usize) -> Result<Self> {
        let mut confusion = vec![vec![0u64; classes]; classes];
        for (&p, &t) in pred.iter().zip(truth) {
            if p as usize >= classes || t as usize >= classes {
                return Err(FedError::param("label", t.max(p), "outside the classes"));
            }
            confusion[t as usize][p as usize] += 1;
        }
        Ok(Self {
            nodes: pred.len() as u64,
            score: if pred.is_empty() {
                None
            } else {
                Some(score(metric, pred, truth, classes)?)
            },
            confusion,
        })
    }
}
