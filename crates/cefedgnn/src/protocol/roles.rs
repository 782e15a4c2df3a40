//! The [`Server`] and [`Client`] roles. Each validates every received message completely before
//! changing any state, so a rejected message leaves the role as it was.

use std::collections::BTreeMap;

use dp_core::rng::ChaCha20Rng;

use super::messages::{
    ClientUpdate, EmbeddingRows, Message, ProtocolConfig, RoundMeta, ServerBroadcast,
};
use super::transport::{Direction, Endpoint, TrafficLog, TrafficRecord, Transport};
use crate::error::{FedError, Result};
use crate::estimator::{Bootstrap, EmbeddingEstimator, RowTable};
use crate::federation::ClientTopology;
use crate::privacy::{BoundaryReleaser, ReleaseConfig, ReleaserSnapshot};
use serde::{Deserialize, Serialize};

fn check_vec(name: &str, v: &[f32], len: u32) -> Result<()> {
    if v.len() != len as usize {
        return Err(FedError::Rejected(format!(
            "{name} of length {}, expected {len}",
            v.len()
        )));
    }
    if v.iter().any(|x| !x.is_finite()) {
        return Err(FedError::Rejected(format!("non-finite value in {name}")));
    }
    Ok(())
}

fn check_grad(cfg: &ProtocolConfig, grad: Option<&Vec<f32>>) -> Result<()> {
    match (cfg.share_gradient, grad) {
        (true, Some(g)) => check_vec("grad", g, cfg.num_params),
        (false, None) => Ok(()),
        (true, None) => Err(FedError::Rejected("missing gradient".into())),
        (false, Some(_)) => Err(FedError::Rejected("unexpected gradient".into())),
    }
}

/// Checks row blocks: shapes, at most one block per layer, every node in `allowed` (sorted).
fn check_blocks(
    cfg: &ProtocolConfig,
    blocks: &[EmbeddingRows],
    allowed: &[u32],
    client: u32,
    set: &'static str,
) -> Result<()> {
    let mut layers = vec![false; cfg.layer_dims.len()];
    for b in blocks {
        b.validate(&cfg.layer_dims)?;
        let seen = &mut layers[b.layer as usize];
        if *seen {
            return Err(FedError::Rejected(format!(
                "two blocks for layer {}",
                b.layer
            )));
        }
        *seen = true;
        if let Some(&node) = b.nodes.iter().find(|v| allowed.binary_search(v).is_err()) {
            return Err(FedError::NotInSet { client, node, set });
        }
    }
    Ok(())
}

/// The aggregation server: averages W (and G) weighted by training-set size, keeps the latest
/// noisy row of every boundary node, and sends each client the rows of its halo.
///
/// The server knows the public structure of the federation (every client's boundary and halo
/// ids), never features or labels. Its whole state is one [`ServerState`] (the checkpoint).
#[derive(Debug)]
pub struct Server {
    state: ServerState,
}

/// A [`Server`]'s complete state, serializable (the server's checkpoint): configuration,
/// topology, W, G, the row table, the round and the traffic so far (updates of the current
/// round that are in are included).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ServerState {
    config: ProtocolConfig,
    boundary: Vec<Vec<u32>>,
    halo: Vec<Vec<u32>>,
    params: Vec<f32>,
    grad: Option<Vec<f32>>,
    table: Vec<BTreeMap<u32, Vec<f32>>>,
    round: u32,
    started: bool,
    pending: Vec<Option<ClientUpdate>>,
    traffic: TrafficLog,
}

impl ServerState {
    /// Checks the boundary and halo sets: strictly ascending, every boundary set disjoint from
    /// the others, every halo node on the boundary of another client.
    fn check_sets(&self) -> Result<()> {
        let sorted = |v: &Vec<u32>| v.windows(2).all(|w| w[0] < w[1]);
        if !self.boundary.iter().chain(&self.halo).all(sorted) {
            return Err(FedError::Inconsistent(
                "boundary and halo sets must be strictly ascending".into(),
            ));
        }
        let mut owner: BTreeMap<u32, u32> = BTreeMap::new();
        for (i, b) in self.boundary.iter().enumerate() {
            for &v in b {
                if let Some(j) = owner.insert(v, i as u32) {
                    return Err(FedError::Inconsistent(format!(
                        "node {v} is on the boundary of clients {j} and {i}"
                    )));
                }
            }
        }
        for (i, h) in self.halo.iter().enumerate() {
            if let Some(&v) = h
                .iter()
                .find(|v| owner.get(v).is_none_or(|&j| j as usize == i))
            {
                return Err(FedError::Inconsistent(format!(
                    "halo node {v} of client {i} is on no other client's boundary"
                )));
            }
        }
        Ok(())
    }

    /// Checks that every part fits the configuration (a state read from a checkpoint).
    fn check(&self) -> Result<()> {
        let c = &self.config;
        c.check()?;
        let n = c.num_clients as usize;
        let dims_ok = self.table.len() == c.layer_dims.len()
            && self.table.iter().zip(&c.layer_dims).all(|(rows, &d)| {
                rows.values()
                    .all(|r| r.len() == d as usize && r.iter().all(|x| x.is_finite()))
            });
        if self.boundary.len() != n
            || self.halo.len() != n
            || self.pending.len() != n
            || self.params.len() != c.num_params as usize
            || self.grad.is_some() != c.share_gradient
            || self
                .grad
                .as_ref()
                .is_some_and(|g| g.len() != self.params.len())
            || !dims_ok
            || self.round > c.num_rounds + 1
        {
            return Err(FedError::Inconsistent(
                "the saved server state does not fit its configuration".into(),
            ));
        }
        self.check_sets()
    }
}

impl Server {
    /// A server for clients with the given topologies (ids `0..N` in order) and initial W.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] for an invalid config, a topology count different from
    /// `num_clients`, topologies out of order, or `init_params` of the wrong length.
    pub fn new(
        config: ProtocolConfig,
        topologies: &[ClientTopology],
        init_params: Vec<f32>,
    ) -> Result<Self> {
        config.check()?;
        if topologies.len() != config.num_clients as usize
            || topologies
                .iter()
                .enumerate()
                .any(|(i, t)| t.id() as usize != i)
        {
            return Err(FedError::param(
                "topologies",
                topologies.len(),
                "need one topology per client, ordered by id",
            ));
        }
        Self::from_sets(
            config,
            topologies.iter().map(|t| t.boundary().to_vec()).collect(),
            topologies.iter().map(|t| t.halo().to_vec()).collect(),
            init_params,
        )
    }

    /// A server for clients `0..N` that announced their boundary and halo sets (ascending
    /// global ids): the public structure the server needs, without any client's nodes, features
    /// or labels. The sets are checked: every boundary set disjoint from the others, every halo
    /// node on the boundary of another client.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] as [`Server::new`]; [`FedError::Inconsistent`] for sets that
    /// are unsorted, overlap, or name a halo node no other client has on its boundary.
    pub(crate) fn from_sets(
        config: ProtocolConfig,
        boundary: Vec<Vec<u32>>,
        halo: Vec<Vec<u32>>,
        init_params: Vec<f32>,
    ) -> Result<Self> {
        config.check()?;
        let n = config.num_clients as usize;
        if boundary.len() != n || halo.len() != n {
            return Err(FedError::param(
                "topologies",
                boundary.len(),
                "need one boundary and one halo set per client",
            ));
        }
        if init_params.len() != config.num_params as usize
            || init_params.iter().any(|x| !x.is_finite())
        {
            return Err(FedError::param(
                "init_params",
                init_params.len(),
                "must hold num_params finite values",
            ));
        }
        let grad = config.share_gradient.then(|| vec![0.0; init_params.len()]);
        let state = ServerState {
            boundary,
            halo,
            params: init_params,
            grad,
            table: vec![BTreeMap::new(); config.layer_dims.len()],
            round: 0,
            started: false,
            pending: vec![None; config.num_clients as usize],
            traffic: TrafficLog::default(),
            config,
        };
        state.check_sets()?;
        Ok(Self { state })
    }

    /// The round whose updates the server is collecting.
    pub(crate) fn round(&self) -> u32 {
        self.state.round
    }
    /// Whether all rounds are aggregated (the final model was broadcast).
    pub fn is_finished(&self) -> bool {
        self.state.round > self.state.config.num_rounds
    }
    /// The current averaged W.
    pub fn params(&self) -> &[f32] {
        &self.state.params
    }
    /// The current averaged G (when shared).
    pub fn grad(&self) -> Option<&[f32]> {
        self.state.grad.as_deref()
    }
    /// The latest noisy row of node `v` at `layer`, if received.
    pub fn table_row(&self, layer: usize, v: u32) -> Option<&[f32]> {
        self.state.table.get(layer)?.get(&v).map(Vec::as_slice)
    }
    /// Byte counts of every message sent or accepted.
    pub fn traffic(&self) -> &TrafficLog {
        &self.state.traffic
    }
    /// Whether every client's update for the current round is in.
    pub fn all_received(&self) -> bool {
        self.state.pending.iter().all(Option::is_some)
    }

    /// Round 0: broadcasts the initial W (no halo rows yet).
    ///
    /// # Errors
    /// [`FedError::Rejected`] when called twice; transport errors.
    pub fn start(&mut self, transport: &mut dyn Transport) -> Result<()> {
        if self.state.started {
            return Err(FedError::Rejected("server already started".into()));
        }
        self.state.started = true;
        self.broadcast(transport)
    }

    fn broadcast(&mut self, transport: &mut dyn Transport) -> Result<()> {
        let meta = RoundMeta {
            round: self.state.round,
            num_rounds: self.state.config.num_rounds,
            local_steps: self.state.config.local_steps,
            num_params: self.state.config.num_params,
            layer_dims: self.state.config.layer_dims.clone(),
        };
        for (i, halo) in self.state.halo.iter().enumerate() {
            let halo_rows = self
                .state
                .table
                .iter()
                .enumerate()
                .filter_map(|(l, rows)| {
                    let dim = self.state.config.layer_dims[l];
                    let nodes: Vec<u32> = halo
                        .iter()
                        .copied()
                        .filter(|v| rows.contains_key(v))
                        .collect();
                    if nodes.is_empty() {
                        return None;
                    }
                    let values = nodes.iter().flat_map(|v| rows[v].iter().copied()).collect();
                    Some(EmbeddingRows {
                        layer: l as u16,
                        dim,
                        nodes,
                        values,
                    })
                })
                .collect();
            let msg = Message::Broadcast(ServerBroadcast {
                meta: meta.clone(),
                params: self.state.params.clone(),
                grad: self.state.grad.clone(),
                halo: halo_rows,
            });
            let frame = msg.encode();
            self.state.traffic.record(TrafficRecord {
                round: self.state.round,
                client: i as u32,
                direction: Direction::Down,
                bytes: frame.len() as u64,
                embedding_bytes: msg.embedding_bytes() as u64,
            });
            transport.send(Endpoint::Server, Endpoint::Client(i as u32), frame)?;
        }
        Ok(())
    }

    /// Validates and stores one client update.
    ///
    /// # Errors
    /// [`FedError::MessageTooLarge`] over the sender's bound, [`FedError::UnknownVersion`],
    /// [`FedError::Malformed`], [`FedError::NotInSet`] for a row of a node outside the sender's
    /// boundary set, [`FedError::Rejected`] for a wrong sender, round, shape or a duplicate.
    /// The server's state is unchanged on error.
    pub fn accept(&mut self, from: Endpoint, frame: &[u8]) -> Result<()> {
        let Endpoint::Client(i) = from else {
            return Err(FedError::Rejected("update from the server endpoint".into()));
        };
        let boundary = self
            .state
            .boundary
            .get(i as usize)
            .ok_or_else(|| FedError::Rejected(format!("unknown client {i}")))?;
        let Message::Update(u) =
            Message::decode(frame, self.state.config.update_bound(boundary.len()))?
        else {
            return Err(FedError::Rejected("server expects updates".into()));
        };
        if u.client != i {
            return Err(FedError::Rejected(format!(
                "client {i} sent an update signed {}",
                u.client
            )));
        }
        if !self.state.started || self.is_finished() || u.round != self.state.round {
            return Err(FedError::Rejected(format!(
                "update for round {}, server collects round {}",
                u.round, self.state.round
            )));
        }
        if self.state.pending[i as usize].is_some() {
            return Err(FedError::Rejected(format!(
                "second update from client {i} in round {}",
                u.round
            )));
        }
        check_vec("params", &u.params, self.state.config.num_params)?;
        check_grad(&self.state.config, u.grad.as_ref())?;
        check_blocks(&self.state.config, &u.boundary, boundary, i, "boundary")?;
        self.state.traffic.record(TrafficRecord {
            round: u.round,
            client: i,
            direction: Direction::Up,
            bytes: frame.len() as u64,
            embedding_bytes: Message::Update(u.clone()).embedding_bytes() as u64,
        });
        self.state.pending[i as usize] = Some(u);
        Ok(())
    }

    /// Accepts every frame waiting at the server; returns how many were accepted.
    ///
    /// # Errors
    /// The first rejection (later frames stay queued).
    pub fn poll(&mut self, transport: &mut dyn Transport) -> Result<usize> {
        let mut n = 0;
        while let Some((from, frame)) = transport.recv(Endpoint::Server)? {
            self.accept(from, &frame)?;
            n += 1;
        }
        Ok(n)
    }

    /// The clients whose update for the current round is not in yet.
    pub(crate) fn missing(&self) -> Vec<u32> {
        (0..self.state.pending.len() as u32)
            .filter(|&i| self.state.pending[i as usize].is_none())
            .collect()
    }

    /// Aggregates the round (weighted average of W and G, latest rows into the table) and
    /// broadcasts the next round (after the last round: the final model).
    ///
    /// # Errors
    /// [`FedError::Rejected`] when some update is missing; transport errors.
    pub fn finish_round(&mut self, transport: &mut dyn Transport) -> Result<()> {
        self.finish_round_with(self.state.config.num_clients as usize, transport)
            .map(|_| ())
    }

    /// Aggregates the round over the clients whose update is in, when there are at least
    /// `min_clients` of them: W and G are averaged over those clients (weighted by training-set
    /// size), their rows replace older ones in the table, and the rows of absent clients stay
    /// as last received (nothing aggregated before is lost). Then broadcasts the next round.
    /// Returns the absent clients.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] for `min_clients` = 0; [`FedError::Rejected`] when fewer than
    /// `min_clients` updates are in (nothing changes); transport errors.
    pub(crate) fn finish_round_with(
        &mut self,
        min_clients: usize,
        transport: &mut dyn Transport,
    ) -> Result<Vec<u32>> {
        if min_clients == 0 {
            return Err(FedError::param("min_clients", 0, "must be >= 1"));
        }
        if !self.state.started || self.is_finished() {
            return Err(FedError::Rejected("no round in progress".into()));
        }
        let missing = self.missing();
        let present = self.state.pending.len() - missing.len();
        if present < min_clients {
            return Err(FedError::Rejected(format!(
                "round {}: {present} updates in, {min_clients} needed; no update yet from clients {missing:?}",
                self.state.round
            )));
        }
        let updates: Vec<ClientUpdate> = self
            .state
            .pending
            .iter_mut()
            .filter_map(Option::take)
            .collect();
        let total: u64 = updates.iter().map(|u| u.train_size).sum();
        let weight = |u: &ClientUpdate| {
            if total == 0 {
                1.0 / updates.len() as f64
            } else {
                u.train_size as f64 / total as f64
            }
        };
        let mut w = vec![0.0f64; self.state.params.len()];
        let mut g = vec![0.0f64; self.state.params.len()];
        for u in &updates {
            let a = weight(u);
            for (acc, &x) in w.iter_mut().zip(&u.params) {
                *acc += a * f64::from(x);
            }
            if let Some(ug) = &u.grad {
                for (acc, &x) in g.iter_mut().zip(ug) {
                    *acc += a * f64::from(x);
                }
            }
        }
        self.state.params = w.into_iter().map(|x| x as f32).collect();
        if self.state.grad.is_some() {
            self.state.grad = Some(g.into_iter().map(|x| x as f32).collect());
        }
        for u in updates {
            for b in u.boundary {
                let rows = &mut self.state.table[b.layer as usize];
                for (k, &v) in b.nodes.iter().enumerate() {
                    rows.insert(v, b.row(k).expect("validated shape").to_vec());
                }
            }
        }
        self.state.round += 1;
        self.broadcast(transport)?;
        Ok(missing)
    }

    /// Sends the current round's broadcast again (after a restart from a [`ServerState`]: the
    /// clients answer a broadcast they already answered with their saved update).
    ///
    /// # Errors
    /// [`FedError::Rejected`] before [`Server::start`]; transport errors.
    pub(crate) fn rebroadcast(&mut self, transport: &mut dyn Transport) -> Result<()> {
        if !self.state.started {
            return Err(FedError::Rejected("server not started".into()));
        }
        self.broadcast(transport)
    }

    /// The server's complete state (what a checkpoint saves).
    pub(crate) fn state(&self) -> &ServerState {
        &self.state
    }

    /// A server restored from `state`, checked as [`Server::from_sets`] checks its inputs.
    ///
    /// # Errors
    /// [`FedError::Inconsistent`] for a state whose parts do not fit its configuration or
    /// whose sets do not fit together.
    pub(crate) fn restore(state: ServerState) -> Result<Self> {
        state.check()?;
        Ok(Self { state })
    }

    /// The protocol configuration.
    pub fn config(&self) -> &ProtocolConfig {
        &self.state.config
    }
}

/// A [`Client`]'s state between rounds, serializable (kept on the client's own disk).
///
/// # Privacy
/// Holds the noise generator's state and the client's ledger history: it never leaves the
/// client.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ClientState {
    id: u32,
    config: ProtocolConfig,
    params: Vec<f32>,
    grad: Option<Vec<f32>>,
    halo_rows: Vec<RowTable>,
    meta: Option<RoundMeta>,
    uploaded: bool,
    releaser: ReleaserSnapshot,
    traffic: TrafficLog,
}

/// One client's protocol role: receives W (G) and frozen noisy halo rows, uploads W (G) and its
/// noisy boundary rows. The client holds ids of its own, boundary and halo nodes; its private
/// features and labels stay in [`crate::federation::ClientData`], outside the protocol.
#[derive(Debug)]
pub struct Client {
    id: u32,
    config: ProtocolConfig,
    nodes: Vec<u32>,
    boundary: Vec<u32>,
    halo: Vec<u32>,
    params: Vec<f32>,
    grad: Option<Vec<f32>>,
    halo_rows: Vec<RowTable>,
    meta: Option<RoundMeta>,
    uploaded: bool,
    releaser: BoundaryReleaser,
    traffic: TrafficLog,
}

impl Client {
    /// The role of the client with `topology`.
    ///
    /// # Arguments
    /// * `rng` — the CSPRNG of the boundary noise ([`dp_core::rng::os_rng`] outside experiments).
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] for an invalid protocol or release config.
    pub fn new(
        topology: &ClientTopology,
        config: ProtocolConfig,
        release: ReleaseConfig,
        rng: ChaCha20Rng,
    ) -> Result<Self> {
        config.check()?;
        if topology.id() >= config.num_clients {
            return Err(FedError::param(
                "client",
                topology.id(),
                "id beyond num_clients",
            ));
        }
        let releaser = BoundaryReleaser::new(topology.id(), release, topology.boundary(), rng)?;
        let halo_rows = config
            .layer_dims
            .iter()
            .map(|&d| RowTable::new(topology.halo().len(), d as usize))
            .collect();
        Ok(Self {
            id: topology.id(),
            nodes: topology.nodes().to_vec(),
            boundary: topology.boundary().to_vec(),
            halo: topology.halo().to_vec(),
            params: vec![0.0; config.num_params as usize],
            grad: None,
            halo_rows,
            meta: None,
            uploaded: false,
            releaser,
            traffic: TrafficLog::default(),
            config,
        })
    }

    /// Client id.
    pub fn id(&self) -> u32 {
        self.id
    }
    /// The metadata of the last accepted broadcast.
    pub fn meta(&self) -> Option<&RoundMeta> {
        self.meta.as_ref()
    }
    /// W as last received.
    pub fn params(&self) -> &[f32] {
        &self.params
    }
    /// G as last received (when shared).
    pub(crate) fn grad(&self) -> Option<&[f32]> {
        self.grad.as_deref()
    }
    /// The frozen noisy row Ĥ_v of halo node `v` at `layer`, once received.
    pub fn halo_row(&self, layer: usize, v: u32) -> Option<&[f32]> {
        let i = self.halo.binary_search(&v).ok()?;
        let t = self.halo_rows.get(layer)?;
        if t.is_seen(i) { t.row(i).ok() } else { None }
    }
    /// The boundary releaser (release counts, ledger, privacy report).
    pub fn releaser(&self) -> &BoundaryReleaser {
        &self.releaser
    }
    /// Byte counts of every message sent or accepted.
    pub fn traffic(&self) -> &TrafficLog {
        &self.traffic
    }

    /// The state to persist between rounds.
    pub(crate) fn state(&self) -> ClientState {
        ClientState {
            id: self.id,
            config: self.config.clone(),
            params: self.params.clone(),
            grad: self.grad.clone(),
            halo_rows: self.halo_rows.clone(),
            meta: self.meta.clone(),
            uploaded: self.uploaded,
            releaser: self.releaser.snapshot(),
            traffic: self.traffic.clone(),
        }
    }

    /// The role of the client with `topology` restored from `state` (the ledger is rebuilt from
    /// the release history).
    ///
    /// # Errors
    /// [`FedError::Inconsistent`] for a state of another client, configuration or topology;
    /// as [`BoundaryReleaser::restore`].
    pub(crate) fn restore(
        topology: &ClientTopology,
        release: ReleaseConfig,
        state: ClientState,
    ) -> Result<Self> {
        let shapes_ok = state.halo_rows.len() == state.config.layer_dims.len()
            && state
                .halo_rows
                .iter()
                .zip(&state.config.layer_dims)
                .all(|(t, &d)| t.len() == topology.halo().len() && t.dim() == d as usize);
        if state.id != topology.id()
            || state.params.len() != state.config.num_params as usize
            || !shapes_ok
        {
            return Err(FedError::Inconsistent(format!(
                "the saved protocol state is not client {}'s of this configuration",
                topology.id()
            )));
        }
        state.config.check()?;
        let releaser =
            BoundaryReleaser::restore(topology.id(), release, topology.boundary(), state.releaser)?;
        Ok(Self {
            id: state.id,
            nodes: topology.nodes().to_vec(),
            boundary: topology.boundary().to_vec(),
            halo: topology.halo().to_vec(),
            params: state.params,
            grad: state.grad,
            halo_rows: state.halo_rows,
            meta: state.meta,
            uploaded: state.uploaded,
            releaser,
            traffic: state.traffic,
            config: state.config,
        })
    }

    /// Whether this client uploaded its update for the last broadcast it accepted.
    pub fn uploaded(&self) -> bool {
        self.uploaded
    }

    /// Validates and applies a server broadcast.
    ///
    /// # Errors
    /// [`FedError::MessageTooLarge`], [`FedError::UnknownVersion`], [`FedError::Malformed`],
    /// [`FedError::NotInSet`] for a halo row of a node this client does not border, and
    /// [`FedError::Rejected`] for a wrong sender, round or shape. State is unchanged on error.
    pub fn accept(&mut self, from: Endpoint, frame: &[u8]) -> Result<RoundMeta> {
        if from != Endpoint::Server {
            return Err(FedError::Rejected(format!(
                "client {} got a frame from {from:?}",
                self.id
            )));
        }
        let Message::Broadcast(b) =
            Message::decode(frame, self.config.broadcast_bound(self.halo.len()))?
        else {
            return Err(FedError::Rejected("clients expect broadcasts".into()));
        };
        // Rounds may be skipped (the server completed a round without this client, which was
        // down or late); a round already seen is stale and refused.
        let expected = self.meta.as_ref().map_or(0, |m| m.round + 1);
        let m = &b.meta;
        if m.round < expected
            || m.num_rounds != self.config.num_rounds
            || m.local_steps != self.config.local_steps
            || m.num_params != self.config.num_params
            || m.layer_dims != self.config.layer_dims
        {
            return Err(FedError::Rejected(format!(
                "broadcast for round {} with metadata {m:?}, expected round {expected} or later of this run",
                m.round
            )));
        }
        check_vec("params", &b.params, self.config.num_params)?;
        check_grad(&self.config, b.grad.as_ref())?;
        check_blocks(&self.config, &b.halo, &self.halo, self.id, "halo")?;
        for blk in &b.halo {
            let table = &mut self.halo_rows[blk.layer as usize];
            for (k, v) in blk.nodes.iter().enumerate() {
                let i = self.halo.binary_search(v).expect("checked halo membership");
                table.update(
                    i,
                    blk.row(k).expect("validated shape"),
                    1.0,
                    Bootstrap::Copy,
                )?;
            }
        }
        self.traffic.record(TrafficRecord {
            round: b.meta.round,
            client: self.id,
            direction: Direction::Down,
            bytes: frame.len() as u64,
            embedding_bytes: b.halo.iter().map(EmbeddingRows::byte_len).sum::<usize>() as u64,
        });
        self.params = b.params;
        self.grad = b.grad;
        self.meta = Some(b.meta.clone());
        self.uploaded = false;
        Ok(b.meta)
    }

    /// Accepts the next broadcast waiting for this client, if any.
    ///
    /// # Errors
    /// As [`Client::accept`]; transport errors.
    pub fn poll(&mut self, transport: &mut dyn Transport) -> Result<Option<RoundMeta>> {
        match transport.recv(Endpoint::Client(self.id))? {
            Some((from, frame)) => self.accept(from, &frame).map(Some),
            None => Ok(None),
        }
    }

    /// Ends the current round: releases the boundary rows of `estimate` (clipped and noised) and
    /// uploads them with W (and G); returns the frame size.
    ///
    /// # Arguments
    /// * `estimate` — H over this client's own nodes (rows in the order of its topology's nodes).
    ///
    /// # Errors
    /// [`FedError::Rejected`] before the round's broadcast, after an upload in this round, or
    /// after the final round; [`FedError::InvalidParam`] when `params`, `grad` or `estimate` do
    /// not match the configuration; release errors (budget). Nothing is sent on error.
    ///
    /// # Privacy
    /// Each boundary row is released through [`BoundaryReleaser::release`].
    pub fn upload(
        &mut self,
        transport: &mut dyn Transport,
        params: &[f32],
        grad: Option<&[f32]>,
        train_size: u64,
        estimate: &EmbeddingEstimator,
    ) -> Result<u64> {
        let Some(meta) = &self.meta else {
            return Err(FedError::Rejected(
                "upload before the round-0 broadcast".into(),
            ));
        };
        if self.uploaded || meta.round > meta.num_rounds {
            return Err(FedError::Rejected(format!(
                "no upload expected in round {}",
                meta.round
            )));
        }
        let round = meta.round;
        if params.len() != self.config.num_params as usize {
            return Err(FedError::param(
                "params",
                params.len(),
                "length differs from num_params",
            ));
        }
        if grad.is_some() != self.config.share_gradient
            || grad.is_some_and(|g| g.len() != params.len())
        {
            return Err(FedError::param(
                "grad",
                grad.map_or(0, <[f32]>::len),
                "must match share_gradient and num_params",
            ));
        }
        if estimate.num_layers() != self.config.layer_dims.len() {
            return Err(FedError::param(
                "estimate",
                estimate.num_layers(),
                "layer count differs",
            ));
        }
        let local: Vec<usize> = self
            .boundary
            .iter()
            .map(|v| {
                self.nodes
                    .binary_search(v)
                    .expect("boundary nodes are own nodes")
            })
            .collect();
        let mut gathered = Vec::with_capacity(self.config.layer_dims.len());
        for (l, &d) in self.config.layer_dims.iter().enumerate() {
            let table = estimate.layer(l)?;
            if table.dim() != d as usize || table.len() != self.nodes.len() {
                return Err(FedError::param(
                    "estimate",
                    table.dim(),
                    "table shape differs from the configuration",
                ));
            }
            let mut rows = Vec::with_capacity(local.len() * d as usize);
            for &i in &local {
                rows.extend_from_slice(table.row(i)?);
            }
            gathered.push((l, d, rows));
        }
        let mut blocks = Vec::with_capacity(gathered.len());
        if !self.boundary.is_empty() {
            for (l, d, rows) in gathered {
                blocks.push(self.releaser.release(
                    round,
                    l as u16,
                    &self.boundary,
                    &rows,
                    d as usize,
                )?);
            }
        }
        let msg = Message::Update(ClientUpdate {
            client: self.id,
            round,
            train_size,
            params: params.to_vec(),
            grad: grad.map(<[f32]>::to_vec),
            boundary: blocks,
        });
        let frame = msg.encode();
        let bytes = frame.len() as u64;
        transport.send(Endpoint::Client(self.id), Endpoint::Server, frame)?;
        self.traffic.record(TrafficRecord {
            round,
            client: self.id,
            direction: Direction::Up,
            bytes,
            embedding_bytes: msg.embedding_bytes() as u64,
        });
        self.uploaded = true;
        Ok(bytes)
    }
}
