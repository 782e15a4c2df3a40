//! [`OrgServer`]: the aggregation server of a deployed run — registration of the clients'
//! announcements, the protocol [`Server`] role, rounds that complete with at least
//! `min_clients` updates, refused frames logged by client, a checkpoint after every round, and
//! the run's report from the clients' final reports.

use std::collections::BTreeMap;
use std::path::Path;

use dp_core::params::EpsilonBound;
use serde::{Deserialize, Serialize};

use super::wire::{Announcement, ClientFinal, Outbox};
use crate::error::{FedError, Result};
use crate::protocol::{Direction, Endpoint, RoundTraffic, Server, ServerState};
use crate::train::{FedTrainConfig, Method, Metric, score};

/// The checkpoint format tag.
const CHECKPOINT_FORMAT: &str = "dpgraph-fed-server/1";

/// The server's configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServerOptions {
    /// The method (as the clients').
    pub method: Method,
    /// Training configuration (as the clients').
    pub train: FedTrainConfig,
    /// Number of clients N.
    pub num_clients: u32,
    /// A round completes when at least this many clients' updates are in.
    pub min_clients: usize,
}

/// Something the server noted about a client in a round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// The round.
    pub round: u32,
    /// The client.
    pub client: u32,
    /// `rejected` (a frame refused, with the reason) or `absent` (no update when the round
    /// closed).
    pub kind: String,
    /// Details.
    pub detail: String,
}

/// What [`OrgServer::finish_round`] did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RoundOutcome {
    /// The round aggregated.
    pub round: u32,
    /// Clients whose updates were averaged.
    pub aggregated: Vec<u32>,
    /// Clients without an update in that round.
    pub absent: Vec<u32>,
}

/// The report of a deployed run.
#[derive(Clone, Debug, Serialize)]
pub struct RunReport {
    /// Method name.
    pub method: &'static str,
    /// Dataset name.
    pub dataset: String,
    /// Clients N.
    pub clients: u32,
    /// Rounds R after the bootstrap.
    pub rounds: u32,
    /// Local steps K.
    pub local_steps: u32,
    /// Minimum clients per round.
    pub min_clients: usize,
    /// Test score per client (from its final report; `None` without one or without test
    /// nodes).
    pub f1_per_client: Vec<Option<f64>>,
    /// Mean of the per-client test scores.
    pub f1_mean: f64,
    /// Test score over all reporting clients' test nodes (from their confusion counts).
    pub f1_pooled: f64,
    /// Mean per-client validation score.
    pub val_f1_mean: f64,
    /// Bytes of updates accepted (client → server).
    pub bytes_up: u64,
    /// Bytes of broadcasts sent (server → client).
    pub bytes_down: u64,
    /// (up + down) / (rounds + 1).
    pub bytes_per_round: f64,
    /// Embedding-row bytes per exchange.
    pub embedding_bytes_per_round: f64,
    /// Traffic per round.
    pub per_round: Vec<RoundTraffic>,
    /// Each client's privacy report, as it sent it.
    pub privacy: Vec<Option<serde_json::Value>>,
    /// The largest ε(p) (RDP) over the clients' reports (+∞, serialised as null, where a report
    /// gives no finite bound); `None` without reports.
    pub eps_max: Option<EpsilonBound>,
    /// What ε(p) does not cover: the model updates and gradients of every round
    /// ([`crate::privacy::NOT_COVERED`]).
    pub not_covered: &'static str,
    /// Refusals and absences, in order.
    pub events: Vec<Event>,
    /// Clients that sent no final report.
    pub missing_finals: Vec<u32>,
    /// The training seed.
    pub seed: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Checkpoint {
    format: String,
    options: ServerOptions,
    announced: BTreeMap<u32, Announcement>,
    server: Option<ServerState>,
    events: Vec<Event>,
    finals: BTreeMap<u32, ClientFinal>,
}

/// The aggregation server of a deployed run (engine-agnostic: frames in, frames out).
///
/// # Example
/// See the `deploy` module's tests and `python/dpgraph/fed` for the Flower apps that drive it.
#[derive(Debug)]
pub struct OrgServer {
    options: ServerOptions,
    announced: BTreeMap<u32, Announcement>,
    server: Option<Server>,
    frames: BTreeMap<u32, Vec<u8>>,
    events: Vec<Event>,
    finals: BTreeMap<u32, ClientFinal>,
}

impl OrgServer {
    /// A server waiting for the clients' announcements.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] for an invalid configuration, a method without a server, fewer
    /// than 2 clients, or `min_clients` outside `1..=num_clients`.
    pub fn new(options: ServerOptions) -> Result<Self> {
        options.train.check()?;
        if !options.method.deployable() {
            return Err(FedError::param(
                "method",
                options.method.name(),
                "is not deployed (no server, or a baseline simulated only)",
            ));
        }
        if options.num_clients < 2 {
            return Err(FedError::param(
                "num_clients",
                options.num_clients,
                "must be >= 2",
            ));
        }
        if options.min_clients == 0 || options.min_clients > options.num_clients as usize {
            return Err(FedError::param(
                "min_clients",
                options.min_clients,
                "must lie in 1..=num_clients",
            ));
        }
        Ok(Self {
            options,
            announced: BTreeMap::new(),
            server: None,
            frames: BTreeMap::new(),
            events: Vec::new(),
            finals: BTreeMap::new(),
        })
    }

    /// The configuration.
    pub fn options(&self) -> &ServerOptions {
        &self.options
    }

    /// Registers a client's announcement; returns its id. A client may announce again (after a
    /// restart) with the same content.
    ///
    /// # Errors
    /// [`FedError::Rejected`] for an id out of range, another client count, shapes that differ
    /// from the clients registered before, or a second, different announcement of the same id.
    pub fn register(&mut self, a: Announcement) -> Result<u32> {
        let reject = |why: String| Err(FedError::Rejected(format!("client {}: {why}", a.client)));
        if a.client >= self.options.num_clients || a.num_clients != self.options.num_clients {
            return reject(format!(
                "announces client {} of {}, this run has {} clients",
                a.client, a.num_clients, self.options.num_clients
            ));
        }
        if let Some(old) = self.announced.get(&a.client) {
            return if *old == a {
                Ok(a.client)
            } else {
                reject("announced twice with different content".into())
            };
        }
        if self.server.is_some() {
            return reject("the run has started without this client".into());
        }
        if let Some(other) = self.announced.values().next()
            && (
                other.num_features,
                other.num_edge_features,
                other.num_classes,
                other.num_params,
                other.metric,
            ) != (
                a.num_features,
                a.num_edge_features,
                a.num_classes,
                a.num_params,
                a.metric,
            )
        {
            return reject(format!(
                "shapes (features, edge features, classes, params) = {:?} differ from client {}'s {:?}",
                (
                    a.num_features,
                    a.num_edge_features,
                    a.num_classes,
                    a.num_params
                ),
                other.client,
                (
                    other.num_features,
                    other.num_edge_features,
                    other.num_classes,
                    other.num_params
                )
            ));
        }
        self.announced.insert(a.client, a.clone());
        Ok(a.client)
    }

    /// Clients not registered yet.
    pub fn unregistered(&self) -> Vec<u32> {
        (0..self.options.num_clients)
            .filter(|i| !self.announced.contains_key(i))
            .collect()
    }

    /// Starts round 0 once every client has announced: builds the initial model and the
    /// protocol role, and prepares the round-0 broadcasts ([`OrgServer::frame`]).
    ///
    /// # Errors
    /// [`FedError::Rejected`] while clients are missing or when already started;
    /// [`FedError::Inconsistent`] for announced sets that do not fit together or a model size
    /// other than the clients'; model errors.
    pub fn start(&mut self) -> Result<()> {
        if self.server.is_some() {
            return Err(FedError::Rejected("the run has already started".into()));
        }
        let missing = self.unregistered();
        if !missing.is_empty() {
            return Err(FedError::Rejected(format!(
                "clients {missing:?} have not announced themselves"
            )));
        }
        let first = &self.announced[&0];
        let d_edge = (first.num_edge_features > 0).then_some(first.num_edge_features);
        let w0 =
            self.options
                .train
                .initial_params(first.num_features, d_edge, first.num_classes)?;
        if w0.len() != first.num_params as usize {
            return Err(FedError::Inconsistent(format!(
                "the clients' model has {} parameters, the server's {}",
                first.num_params,
                w0.len()
            )));
        }
        let pcfg =
            super::client::protocol_config(&self.options.train, self.options.num_clients, w0.len());
        let mut server = Server::from_sets(
            pcfg,
            self.announced
                .values()
                .map(|a| a.boundary.clone())
                .collect(),
            self.announced.values().map(|a| a.halo.clone()).collect(),
            w0,
        )?;
        let mut out = Outbox::default();
        server.start(&mut out)?;
        self.server = Some(server);
        self.take_frames(out);
        Ok(())
    }

    fn take_frames(&mut self, mut out: Outbox) {
        self.frames = out
            .drain()
            .into_iter()
            .filter_map(|(to, f)| match to {
                Endpoint::Client(i) => Some((i, f)),
                Endpoint::Server => None,
            })
            .collect();
    }

    fn server(&self) -> Result<&Server> {
        self.server
            .as_ref()
            .ok_or_else(|| FedError::Rejected("the run has not started".into()))
    }

    /// The round whose updates are collected (`None` before [`OrgServer::start`]).
    pub fn round(&self) -> Option<u32> {
        self.server.as_ref().map(Server::round)
    }

    /// Whether the current broadcast is the final model (answered by final reports).
    pub fn is_final(&self) -> bool {
        self.server.as_ref().is_some_and(Server::is_finished)
    }

    /// The current broadcast to client `i`.
    pub fn frame(&self, i: u32) -> Option<&[u8]> {
        self.frames.get(&i).map(Vec::as_slice)
    }

    /// Accepts client `i`'s update; a refused frame is logged as an event naming the client.
    ///
    /// # Errors
    /// As [`Server::accept`] (the server is unchanged).
    pub fn accept(&mut self, i: u32, frame: &[u8]) -> Result<()> {
        let server = self
            .server
            .as_mut()
            .ok_or_else(|| FedError::Rejected("the run has not started".into()))?;
        let round = server.round();
        server.accept(Endpoint::Client(i), frame).inspect_err(|e| {
            self.events.push(Event {
                round,
                client: i,
                kind: "rejected".into(),
                detail: e.to_string(),
            });
        })
    }

    /// Closes the round when at least `min_clients` updates are in and prepares the next
    /// broadcast.
    ///
    /// # Errors
    /// [`FedError::Rejected`] with fewer updates (nothing changes; collect more or stop).
    pub fn finish_round(&mut self) -> Result<RoundOutcome> {
        let min = self.options.min_clients;
        let server = self
            .server
            .as_mut()
            .ok_or_else(|| FedError::Rejected("the run has not started".into()))?;
        let round = server.round();
        let mut out = Outbox::default();
        let absent = server.finish_round_with(min, &mut out)?;
        let aggregated = (0..self.options.num_clients)
            .filter(|i| !absent.contains(i))
            .collect();
        for &i in &absent {
            self.events.push(Event {
                round,
                client: i,
                kind: "absent".into(),
                detail: "no accepted update when the round closed".into(),
            });
        }
        self.take_frames(out);
        Ok(RoundOutcome {
            round,
            aggregated,
            absent,
        })
    }

    /// Accepts client `i`'s final report (after the final broadcast).
    ///
    /// # Errors
    /// [`FedError::Rejected`] before the final broadcast or for a report signed by another
    /// client; [`FedError::Malformed`] for a report that does not decode.
    pub fn accept_final(&mut self, i: u32, bytes: &[u8]) -> Result<()> {
        if !self.is_final() {
            return Err(FedError::Rejected(
                "final report before the final broadcast".into(),
            ));
        }
        let r = ClientFinal::from_json(bytes)?;
        let classes = self.announced.get(&i).map_or(0, |a| a.num_classes);
        if r.client != i
            || [&r.test, &r.val].iter().any(|e| {
                e.confusion.len() != classes || e.confusion.iter().any(|row| row.len() != classes)
            })
        {
            return Err(FedError::Rejected(format!(
                "final report of client {i} is signed {} or has the wrong shape",
                r.client
            )));
        }
        self.finals.insert(i, r);
        Ok(())
    }

    /// The run's report (complete once every client's final report is in).
    ///
    /// # Errors
    /// [`FedError::Rejected`] before the start; metric errors.
    pub fn report(&self) -> Result<RunReport> {
        let server = self.server()?;
        let metric = self.announced.get(&0).map_or(Metric::MacroF1, |a| a.metric);
        let n = self.options.num_clients;
        let log = server.traffic();
        let (up, down) = (log.total_in(Direction::Up), log.total_in(Direction::Down));
        let emb = log.embedding_total();
        let classes = self.announced.get(&0).map_or(2, |a| a.num_classes);
        let per: Vec<Option<f64>> = (0..n)
            .map(|i| self.finals.get(&i).and_then(|f| f.test.score))
            .collect();
        let mean = |v: Vec<f64>| {
            if v.is_empty() {
                f64::NAN
            } else {
                v.iter().sum::<f64>() / v.len() as f64
            }
        };
        let mut pooled = vec![vec![0u64; classes]; classes];
        for f in self.finals.values() {
            for (t, row) in f.test.confusion.iter().enumerate() {
                for (p, &c) in row.iter().enumerate() {
                    pooled[t][p] += c;
                }
            }
        }
        let (mut pred, mut truth) = (Vec::new(), Vec::new());
        for (t, row) in pooled.iter().enumerate() {
            for (p, &c) in row.iter().enumerate() {
                for _ in 0..c {
                    pred.push(p as u32);
                    truth.push(t as u32);
                }
            }
        }
        let f1_pooled = if pred.is_empty() {
            f64::NAN
        } else {
            score(metric, &pred, &truth, classes)?
        };
        let privacy: Vec<Option<serde_json::Value>> = (0..n)
            .map(|i| self.finals.get(&i).and_then(|f| f.privacy.clone()))
            .collect();
        // A report's ε is a bound: +∞ (no noise) serialises as null, and a value that is not a
        // valid bound bounds nothing either.
        let eps_max = privacy
            .iter()
            .flatten()
            .filter_map(|p| p.get("eps_rdp"))
            .map(|v| {
                v.as_f64()
                    .and_then(|e| EpsilonBound::new(e).ok())
                    .unwrap_or(EpsilonBound::UNBOUNDED)
            })
            .reduce(|a, b| if b.get() > a.get() { b } else { a });
        let cfg = &self.options.train;
        Ok(RunReport {
            method: self.options.method.name(),
            dataset: self
                .announced
                .get(&0)
                .map_or_else(String::new, |a| a.dataset.clone()),
            clients: n,
            rounds: cfg.rounds,
            local_steps: cfg.local_steps,
            min_clients: self.options.min_clients,
            f1_mean: mean(per.iter().flatten().copied().collect()),
            f1_per_client: per,
            f1_pooled,
            val_f1_mean: mean(self.finals.values().filter_map(|f| f.val.score).collect()),
            bytes_up: up,
            bytes_down: down,
            bytes_per_round: (up + down) as f64 / f64::from(cfg.rounds + 1),
            embedding_bytes_per_round: emb as f64 / f64::from(cfg.rounds + 1),
            per_round: log.per_round(),
            privacy,
            eps_max,
            not_covered: crate::privacy::NOT_COVERED,
            events: self.events.clone(),
            missing_finals: (0..n).filter(|i| !self.finals.contains_key(i)).collect(),
            seed: cfg.seed,
        })
    }

    /// Writes the server's complete state to `path` (temporary name, then rename).
    ///
    /// # Errors
    /// I/O errors.
    pub fn checkpoint(&self, path: &Path) -> Result<()> {
        let c = Checkpoint {
            format: CHECKPOINT_FORMAT.into(),
            options: self.options.clone(),
            announced: self.announced.clone(),
            server: self.server.as_ref().map(|s| s.state().clone()),
            events: self.events.clone(),
            finals: self.finals.clone(),
        };
        let bytes = rmp_serde::to_vec(&c)
            .map_err(|e| FedError::Inconsistent(format!("checkpoint: {e}")))?;
        graph_core::io::write_atomic(path, &bytes)?;
        Ok(())
    }

    /// The server restored from the checkpoint at `path`, with the current round's broadcasts
    /// prepared again (clients answer a round they answered before with their saved update).
    ///
    /// # Errors
    /// [`FedError::Io`]; [`FedError::Malformed`] for a file that is not a checkpoint;
    /// [`FedError::Inconsistent`] for a checkpoint of a run with other options or a state that
    /// does not fit its configuration.
    pub fn resume(path: &Path, options: ServerOptions) -> Result<Self> {
        let bytes = std::fs::read(path).map_err(|source| FedError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let c: Checkpoint = rmp_serde::from_slice(&bytes)
            .map_err(|e| FedError::Malformed(format!("checkpoint {}: {e}", path.display())))?;
        if c.format != CHECKPOINT_FORMAT {
            return Err(FedError::Malformed(format!(
                "checkpoint {}: format {:?}",
                path.display(),
                c.format
            )));
        }
        if c.options != options {
            return Err(FedError::Inconsistent(format!(
                "checkpoint {} was written by a run with other options",
                path.display()
            )));
        }
        let mut s = Self::new(options)?;
        s.announced = c.announced;
        s.events = c.events;
        s.finals = c.finals;
        if let Some(state) = c.server {
            let mut server = Server::restore(state)?;
            let mut out = Outbox::default();
            server.rebroadcast(&mut out)?;
            s.server = Some(server);
            s.take_frames(out);
        }
        Ok(s)
    }
}
