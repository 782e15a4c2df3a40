//! What travels besides protocol frames: a client's [`Announcement`] before round 0 and its
//! [`ClientFinal`] report after the final broadcast (JSON, public by design), and the
//! [`Outbox`] transport that hands a role's frame back to the caller.

use serde::{Deserialize, Serialize};

use crate::error::{FedError, Result};
use crate::privacy::NormStats;
use crate::protocol::{Endpoint, Transport};
use crate::train::Metric;

/// The largest announcement or final report accepted (bytes).
pub const MAX_JSON_BYTES: usize = 64 << 20;

/// A client's public self-description, sent once before round 0: the shapes the server must
/// agree on and the client's boundary and halo ids (the public structure CEFEDGNN.md lets the
/// server know). No feature, label or edge list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Announcement {
    /// Client id.
    pub client: u32,
    /// Number of clients the client's files name.
    pub num_clients: u32,
    /// Dataset name.
    pub dataset: String,
    /// Feature columns per node.
    pub num_features: usize,
    /// Feature columns per edge.
    pub num_edge_features: usize,
    /// Classes.
    pub num_classes: usize,
    /// The evaluation metric.
    pub metric: Metric,
    /// Length of W as the client builds the model.
    pub num_params: u32,
    /// Boundary set B_i (ascending global ids).
    pub boundary: Vec<u32>,
    /// Halo H_i (ascending global ids).
    pub halo: Vec<u32>,
}

impl Announcement {
    /// Encodes as JSON.
    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("plain data serializes")
    }

    /// Decodes and bounds an announcement.
    ///
    /// # Errors
    /// [`FedError::MessageTooLarge`] over [`MAX_JSON_BYTES`]; [`FedError::Malformed`] for
    /// anything but an announcement.
    pub fn from_json(bytes: &[u8]) -> Result<Self> {
        from_json("announcement", bytes)
    }
}

/// One split's evaluation on a client: node count, the client's score and the confusion counts
/// (`confusion[truth][prediction]`) from which the server pools a score over clients.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// Nodes evaluated.
    pub nodes: u64,
    /// The metric on these nodes (`None` without nodes).
    pub score: Option<f64>,
    /// Confusion counts, truth × prediction.
    pub confusion: Vec<Vec<u64>>,
}

/// A client's report after the final broadcast.
///
/// # Privacy
/// `privacy` is computed on the client from its own ledger (every release it made, including
/// releases in updates the server refused).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClientFinal {
    /// Client id.
    pub client: u32,
    /// Test split.
    pub test: Evaluation,
    /// Validation split.
    pub val: Evaluation,
    /// Rounds this client trained and uploaded in.
    pub rounds_trained: Vec<u32>,
    /// The client's privacy report ([`crate::privacy::PrivacyReport`] as JSON; `None` without
    /// releases).
    pub privacy: Option<serde_json::Value>,
    /// Pre-clipping norms of its released rows.
    pub norms: NormStats,
    /// Bytes this client uploaded (every update it sent).
    pub bytes_up: u64,
    /// Bytes it accepted from the server.
    pub bytes_down: u64,
    /// The fixed noise seed, when the run used one (`None`: OS entropy).
    pub noise_seed: Option<u64>,
    /// The training seed.
    pub seed: u64,
}

impl ClientFinal {
    /// Encodes as JSON.
    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("plain data serializes")
    }

    /// Decodes and bounds a final report.
    ///
    /// # Errors
    /// As [`Announcement::from_json`].
    pub(crate) fn from_json(bytes: &[u8]) -> Result<Self> {
        from_json("final report", bytes)
    }
}

fn from_json<T: serde::de::DeserializeOwned>(kind: &'static str, bytes: &[u8]) -> Result<T> {
    if bytes.len() > MAX_JSON_BYTES {
        return Err(FedError::MessageTooLarge {
            kind,
            bytes: bytes.len(),
            limit: MAX_JSON_BYTES,
        });
    }
    serde_json::from_slice(bytes).map_err(|e| FedError::Malformed(format!("{kind}: {e}")))
}

/// A transport that keeps what a role sends, for the caller to carry (in a Flower message).
#[derive(Debug, Default)]
pub(crate) struct Outbox {
    sent: Vec<(Endpoint, Vec<u8>)>,
}

impl Outbox {
    /// The one frame sent.
    pub(crate) fn take(self) -> Result<Vec<u8>> {
        let mut sent = self.sent;
        match (sent.pop(), sent.is_empty()) {
            (Some((_, f)), true) => Ok(f),
            _ => Err(FedError::Transport("expected exactly one frame".into())),
        }
    }

    /// Every frame sent, with its receiver.
    pub(crate) fn drain(&mut self) -> Vec<(Endpoint, Vec<u8>)> {
        std::mem::take(&mut self.sent)
    }
}

impl Transport for Outbox {
    fn send(&mut self, _from: Endpoint, to: Endpoint, frame: Vec<u8>) -> Result<()> {
        self.sent.push((to, frame));
        Ok(())
    }
    fn recv(&mut self, _at: Endpoint) -> Result<Option<(Endpoint, Vec<u8>)>> {
        Ok(None)
    }
}
