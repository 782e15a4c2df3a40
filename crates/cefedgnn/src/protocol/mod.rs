//! The client/server protocol: typed, versioned messages with a compact binary framing (and serde
//! derives for other encodings), size bounds checked on receipt, a [`Transport`] trait with an
//! in-process implementation, byte accounting, and the [`Server`] and [`Client`] roles.
//!
//! One round r: the server broadcasts the averaged parameters W (and G) and each client's halo rows
//! ([`ServerBroadcast`]); each client trains K local steps (outside this module: the model is a flat
//! parameter vector here) and uploads W, G and its noisy boundary rows ([`ClientUpdate`]); when all
//! updates are in, the server averages W and G weighted by training-set size, keeps the latest row
//! per boundary node, and broadcasts round r + 1. Round 0 bootstraps the table: the server sends
//! the initial W without halo rows and the clients upload rows computed with it.

mod codec;
mod messages;
mod roles;
mod transport;

pub use codec::{FRAME_HEADER_BYTES, MAGIC, PROTOCOL_VERSION};
pub use messages::{
    ClientUpdate, EmbeddingRows, Message, ProtocolConfig, RoundMeta, ServerBroadcast,
};
pub use roles::{Client, ClientState, Server, ServerState};
pub use transport::{
    Direction, Endpoint, InProcessTransport, RoundTraffic, TrafficLog, TrafficRecord, Transport,
};
