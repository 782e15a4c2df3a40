//! The [`Transport`] trait, the in-process transport, and the byte accounting of every message.

use std::collections::{BTreeMap, VecDeque};

use serde::{Deserialize, Serialize};

use crate::error::{FedError, Result};

/// A protocol participant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Endpoint {
    /// The aggregation server.
    Server,
    /// Client `i`.
    Client(u32),
}

/// Moves frames between endpoints. A network transport implements the same trait; the roles
/// never see anything but frames.
pub trait Transport {
    /// Queues `frame` from `from` to `to`.
    ///
    /// # Errors
    /// [`FedError::Transport`] for an unknown endpoint or a closed channel.
    fn send(&mut self, from: Endpoint, to: Endpoint, frame: Vec<u8>) -> Result<()>;

    /// The next frame addressed to `at`, with its sender, or `None` when none is waiting.
    ///
    /// # Errors
    /// [`FedError::Transport`] for an unknown endpoint.
    fn recv(&mut self, at: Endpoint) -> Result<Option<(Endpoint, Vec<u8>)>>;
}

/// An in-process transport: one FIFO queue per endpoint, with byte totals per (sender, receiver).
///
/// # Example
/// ```
/// use cefedgnn::protocol::{Endpoint, InProcessTransport, Transport};
/// let mut t = InProcessTransport::new(2);
/// t.send(Endpoint::Client(1), Endpoint::Server, vec![1, 2, 3])?;
/// assert_eq!(t.recv(Endpoint::Server)?, Some((Endpoint::Client(1), vec![1, 2, 3])));
/// assert_eq!(t.bytes_between(Endpoint::Client(1), Endpoint::Server), 3);
/// assert!(t.send(Endpoint::Server, Endpoint::Client(2), vec![]).is_err());
/// # Ok::<(), cefedgnn::FedError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct InProcessTransport {
    num_clients: u32,
    queues: BTreeMap<Endpoint, VecDeque<(Endpoint, Vec<u8>)>>,
    bytes: BTreeMap<(Endpoint, Endpoint), u64>,
    wire: sha2::Sha256,
}

impl InProcessTransport {
    /// A transport for the server and clients `0..num_clients`.
    pub fn new(num_clients: u32) -> Self {
        Self {
            num_clients,
            ..Self::default()
        }
    }

    fn check(&self, e: Endpoint) -> Result<()> {
        match e {
            Endpoint::Client(i) if i >= self.num_clients => Err(FedError::Transport(format!(
                "unknown endpoint client {i} (transport has {} clients)",
                self.num_clients
            ))),
            _ => Ok(()),
        }
    }

    /// Bytes sent so far from `from` to `to`.
    pub fn bytes_between(&self, from: Endpoint, to: Endpoint) -> u64 {
        self.bytes.get(&(from, to)).copied().unwrap_or(0)
    }

    /// Total bytes sent so far.
    pub fn total_bytes(&self) -> u64 {
        self.bytes.values().sum()
    }

    /// SHA-256 (lower-case hex) of every frame sent so far, in order, each with its endpoints and
    /// length: a fingerprint of everything that crossed the wire (two runs exchanged the same
    /// bytes exactly when their fingerprints agree).
    pub fn wire_digest(&self) -> String {
        use sha2::Digest;
        self.wire
            .clone()
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// Frames waiting for `at`.
    pub fn pending(&self, at: Endpoint) -> usize {
        self.queues.get(&at).map_or(0, VecDeque::len)
    }
}

impl Transport for InProcessTransport {
    fn send(&mut self, from: Endpoint, to: Endpoint, frame: Vec<u8>) -> Result<()> {
        self.check(from)?;
        self.check(to)?;
        *self.bytes.entry((from, to)).or_default() += frame.len() as u64;
        {
            use sha2::Digest;
            let tag = |e: Endpoint| match e {
                Endpoint::Server => u64::MAX,
                Endpoint::Client(i) => u64::from(i),
            };
            self.wire.update(tag(from).to_le_bytes());
            self.wire.update(tag(to).to_le_bytes());
            self.wire.update((frame.len() as u64).to_le_bytes());
            self.wire.update(&frame);
        }
        self.queues.entry(to).or_default().push_back((from, frame));
        Ok(())
    }

    fn recv(&mut self, at: Endpoint) -> Result<Option<(Endpoint, Vec<u8>)>> {
        self.check(at)?;
        Ok(self.queues.get_mut(&at).and_then(VecDeque::pop_front))
    }
}

/// Direction of a message relative to the client.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Direction {
    /// Client → server.
    Up,
    /// Server → client.
    Down,
}

/// One message's byte count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrafficRecord {
    /// Round of the message.
    pub round: u32,
    /// The client at the other end.
    pub client: u32,
    /// Direction.
    pub direction: Direction,
    /// Frame bytes.
    pub bytes: u64,
    /// Of which embedding rows.
    pub embedding_bytes: u64,
}

/// Totals of one round.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundTraffic {
    /// Round.
    pub round: u32,
    /// Bytes up (all clients).
    pub up: u64,
    /// Bytes down (all clients).
    pub down: u64,
    /// Embedding-row bytes, both directions.
    pub embedding: u64,
}

/// The byte count of every message a role sent or accepted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrafficLog {
    records: Vec<TrafficRecord>,
}

impl TrafficLog {
    /// Records one message.
    pub(crate) fn record(&mut self, record: TrafficRecord) {
        self.records.push(record);
    }
    /// All records, in order.
    pub fn records(&self) -> &[TrafficRecord] {
        &self.records
    }
    fn sum(&self, f: impl Fn(&TrafficRecord) -> bool) -> u64 {
        self.records.iter().filter(|r| f(r)).map(|r| r.bytes).sum()
    }
    /// Bytes sent up by `client`.
    pub fn up_total(&self, client: u32) -> u64 {
        self.sum(|r| r.client == client && r.direction == Direction::Up)
    }
    /// Bytes sent down to `client`.
    pub fn down_total(&self, client: u32) -> u64 {
        self.sum(|r| r.client == client && r.direction == Direction::Down)
    }
    /// Bytes in `direction`, all clients.
    pub(crate) fn total_in(&self, direction: Direction) -> u64 {
        self.sum(|r| r.direction == direction)
    }
    /// Embedding-row bytes, both directions.
    pub(crate) fn embedding_total(&self) -> u64 {
        self.records.iter().map(|r| r.embedding_bytes).sum()
    }
    /// All bytes, both directions.
    pub fn total(&self) -> u64 {
        self.sum(|_| true)
    }
    /// Totals per round, ascending.
    pub fn per_round(&self) -> Vec<RoundTraffic> {
        let mut m: BTreeMap<u32, RoundTraffic> = BTreeMap::new();
        for r in &self.records {
            let e = m.entry(r.round).or_insert(RoundTraffic {
                round: r.round,
                ..RoundTraffic::default()
            });
            match r.direction {
                Direction::Up => e.up += r.bytes,
                Direction::Down => e.down += r.bytes,
            }
            e.embedding += r.embedding_bytes;
        }
        m.into_values().collect()
    }
}
