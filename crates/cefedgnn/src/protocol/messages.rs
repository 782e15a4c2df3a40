//! The typed messages, their binary encoding and their exact size bounds.

use serde::{Deserialize, Serialize};

use super::codec::{FRAME_HEADER_BYTES, Reader, Writer, frame, unframe};
use crate::error::{FedError, Result};

const KIND_UPDATE: u8 = 1;
const KIND_BROADCAST: u8 = 2;

/// The public shape of a federated run, agreed by all roles before round 0.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProtocolConfig {
    /// Number of clients N (≥ 2).
    pub num_clients: u32,
    /// Length of the flat parameter vector W.
    pub num_params: u32,
    /// Widths of the shared layers whose rows are exchanged.
    pub layer_dims: Vec<u32>,
    /// Whether G travels with W (CEFEDGNN.md: "W (and G)").
    pub share_gradient: bool,
    /// Rounds R after the round-0 bootstrap.
    pub num_rounds: u32,
    /// Local steps K per round (≥ 1).
    pub local_steps: u32,
}

impl ProtocolConfig {
    /// Validates the configuration.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] naming `num_clients` (< 2), `local_steps` (0), `num_params` (0)
    /// or `layer_dims` (empty or a zero width).
    pub fn check(&self) -> Result<()> {
        if self.num_clients < 2 {
            return Err(FedError::param(
                "num_clients",
                self.num_clients,
                "must be >= 2",
            ));
        }
        if self.local_steps == 0 {
            return Err(FedError::param("local_steps", 0, "K must be >= 1"));
        }
        if self.num_params == 0 {
            return Err(FedError::param(
                "num_params",
                0,
                "the model needs parameters",
            ));
        }
        if self.layer_dims.is_empty() || self.layer_dims.contains(&0) {
            return Err(FedError::param(
                "layer_dims",
                format!("{:?}", self.layer_dims),
                "needs at least one shared layer, each of width >= 1",
            ));
        }
        Ok(())
    }

    /// Exact size bound of a [`ClientUpdate`] frame from a client with `boundary` boundary nodes.
    pub fn update_bound(&self, boundary: usize) -> usize {
        let p = self.num_params as usize;
        FRAME_HEADER_BYTES
            + 4 + 4 + 8 // client, round, train size
            + 4 + 4 * p // params
            + 1 + if self.share_gradient { 4 + 4 * p } else { 0 }
            + 4 + self.rows_bound(boundary)
    }

    /// Exact size bound of a [`ServerBroadcast`] frame to a client with `halo` halo nodes.
    pub fn broadcast_bound(&self, halo: usize) -> usize {
        let p = self.num_params as usize;
        FRAME_HEADER_BYTES
            + RoundMeta::encoded_len(self.layer_dims.len())
            + 4
            + 4 * p
            + 1
            + if self.share_gradient { 4 + 4 * p } else { 0 }
            + 4
            + self.rows_bound(halo)
    }

    fn rows_bound(&self, nodes: usize) -> usize {
        self.layer_dims
            .iter()
            .map(|&d| EmbeddingRows::encoded_len(nodes, d as usize))
            .sum()
    }
}

/// Round metadata sent with every broadcast.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundMeta {
    /// The round the receiver is to run (0 = bootstrap).
    pub round: u32,
    /// Total rounds R.
    pub num_rounds: u32,
    /// Local steps K.
    pub local_steps: u32,
    /// Length of W.
    pub num_params: u32,
    /// Shared layer widths.
    pub layer_dims: Vec<u32>,
}

impl RoundMeta {
    fn encoded_len(layers: usize) -> usize {
        4 * 4 + 4 + 4 * layers
    }
    fn encode(&self, w: &mut Writer) {
        w.u32(self.round);
        w.u32(self.num_rounds);
        w.u32(self.local_steps);
        w.u32(self.num_params);
        w.u32s(&self.layer_dims);
    }
    fn decode(r: &mut Reader<'_>) -> Result<Self> {
        Ok(Self {
            round: r.u32()?,
            num_rounds: r.u32()?,
            local_steps: r.u32()?,
            num_params: r.u32()?,
            layer_dims: r.u32s()?,
        })
    }
}

/// Rows of one shared layer for a set of nodes: `values` holds `nodes.len() × dim` values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EmbeddingRows {
    /// Shared layer index.
    pub layer: u16,
    /// Row width.
    pub dim: u32,
    /// Global node ids.
    pub nodes: Vec<u32>,
    /// Row-major values.
    pub values: Vec<f32>,
}

impl EmbeddingRows {
    /// Encoded bytes of `nodes` rows of width `dim`.
    pub(crate) fn encoded_len(nodes: usize, dim: usize) -> usize {
        2 + 4 + 4 + 4 * nodes + 4 + 4 * nodes * dim
    }
    /// Encoded bytes of this block.
    pub(crate) fn byte_len(&self) -> usize {
        Self::encoded_len(self.nodes.len(), self.dim as usize)
    }
    /// The row of the `i`-th node.
    pub(crate) fn row(&self, i: usize) -> Option<&[f32]> {
        let d = self.dim as usize;
        self.values.get(i * d..(i + 1) * d)
    }
    /// Shape, finiteness and duplicate checks.
    ///
    /// # Errors
    /// [`FedError::Rejected`] describing the first violation.
    pub(crate) fn validate(&self, layer_dims: &[u32]) -> Result<()> {
        let want = layer_dims
            .get(self.layer as usize)
            .ok_or_else(|| FedError::Rejected(format!("rows for unknown layer {}", self.layer)))?;
        if self.dim != *want {
            return Err(FedError::Rejected(format!(
                "layer {} rows of width {}, expected {want}",
                self.layer, self.dim
            )));
        }
        if self.values.len() != self.nodes.len() * self.dim as usize {
            return Err(FedError::Rejected(format!(
                "{} values for {} rows of width {}",
                self.values.len(),
                self.nodes.len(),
                self.dim
            )));
        }
        if self.values.iter().any(|x| !x.is_finite()) {
            return Err(FedError::Rejected("non-finite embedding value".into()));
        }
        let mut ids = self.nodes.clone();
        ids.sort_unstable();
        if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
            return Err(FedError::Rejected(format!("node {} listed twice", w[0])));
        }
        Ok(())
    }
    fn encode(&self, w: &mut Writer) {
        w.u16(self.layer);
        w.u32(self.dim);
        w.u32s(&self.nodes);
        w.f32s(&self.values);
    }
    fn decode(r: &mut Reader<'_>) -> Result<Self> {
        Ok(Self {
            layer: r.u16()?,
            dim: r.u32()?,
            nodes: r.u32s()?,
            values: r.f32s()?,
        })
    }
}

/// Client → server at the end of a round: W, optionally G, and the noisy boundary rows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClientUpdate {
    /// Sender.
    pub client: u32,
    /// The round this update concludes.
    pub round: u32,
    /// Training-set size (the averaging weight).
    pub train_size: u64,
    /// Flat parameters W.
    pub params: Vec<f32>,
    /// Flat gradient estimate G, when shared.
    pub grad: Option<Vec<f32>>,
    /// Noisy boundary rows, one block per shared layer.
    pub boundary: Vec<EmbeddingRows>,
}

/// Server → client i at the start of a round: averaged W (G) and the rows of H_i.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServerBroadcast {
    /// Round metadata.
    pub meta: RoundMeta,
    /// Averaged W.
    pub params: Vec<f32>,
    /// Averaged G, when shared.
    pub grad: Option<Vec<f32>>,
    /// Halo rows (the latest noisy row of every halo node the server holds), per layer.
    pub halo: Vec<EmbeddingRows>,
}

/// Every message of the protocol.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Message {
    /// Client → server.
    Update(ClientUpdate),
    /// Server → client.
    Broadcast(ServerBroadcast),
}

fn encode_opt(w: &mut Writer, g: Option<&Vec<f32>>) {
    match g {
        Some(g) => {
            w.u8(1);
            w.f32s(g);
        }
        None => w.u8(0),
    }
}

fn decode_opt(r: &mut Reader<'_>) -> Result<Option<Vec<f32>>> {
    match r.u8()? {
        0 => Ok(None),
        1 => Ok(Some(r.f32s()?)),
        t => Err(FedError::Malformed(format!("option tag {t}"))),
    }
}

fn encode_blocks(w: &mut Writer, blocks: &[EmbeddingRows]) {
    w.len(blocks.len());
    for b in blocks {
        b.encode(w);
    }
}

fn decode_blocks(r: &mut Reader<'_>) -> Result<Vec<EmbeddingRows>> {
    let n = r.u32()? as usize;
    // Each block needs at least 14 bytes; cap the allocation by that.
    let mut v = Vec::with_capacity(n.min(1024));
    for _ in 0..n {
        v.push(EmbeddingRows::decode(r)?);
    }
    Ok(v)
}

impl Message {
    /// The kind's name, for errors and traffic records.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Self::Update(_) => "update",
            Self::Broadcast(_) => "broadcast",
        }
    }

    /// Bytes of embedding rows in the message (the part CE-FedGNN makes infrequent).
    pub(crate) fn embedding_bytes(&self) -> usize {
        let blocks = match self {
            Self::Update(u) => &u.boundary,
            Self::Broadcast(b) => &b.halo,
        };
        blocks.iter().map(EmbeddingRows::byte_len).sum()
    }

    /// The binary frame of the message.
    ///
    /// # Example
    /// ```
    /// use cefedgnn::protocol::{ClientUpdate, EmbeddingRows, Message};
    /// let m = Message::Update(ClientUpdate {
    ///     client: 2, round: 5, train_size: 40, params: vec![0.5; 3], grad: None,
    ///     boundary: vec![EmbeddingRows { layer: 0, dim: 2, nodes: vec![7], values: vec![1.0, -1.0] }],
    /// });
    /// let bytes = m.encode();
    /// assert_eq!(Message::decode(&bytes, bytes.len())?, m);
    /// assert!(Message::decode(&bytes, bytes.len() - 1).is_err()); // over the bound
    /// # Ok::<(), cefedgnn::FedError>(())
    /// ```
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        match self {
            Self::Update(u) => {
                w.u32(u.client);
                w.u32(u.round);
                w.u64(u.train_size);
                w.f32s(&u.params);
                encode_opt(&mut w, u.grad.as_ref());
                encode_blocks(&mut w, &u.boundary);
                frame(KIND_UPDATE, &w.buf)
            }
            Self::Broadcast(b) => {
                b.meta.encode(&mut w);
                w.f32s(&b.params);
                encode_opt(&mut w, b.grad.as_ref());
                encode_blocks(&mut w, &b.halo);
                frame(KIND_BROADCAST, &w.buf)
            }
        }
    }

    /// Decodes a frame of at most `limit` bytes.
    ///
    /// # Errors
    /// [`FedError::MessageTooLarge`] over the bound (checked before parsing),
    /// [`FedError::UnknownVersion`], or [`FedError::Malformed`].
    pub fn decode(bytes: &[u8], limit: usize) -> Result<Self> {
        let (kind, payload) = unframe(bytes, limit, "protocol")?;
        let mut r = Reader::new(payload);
        let m = match kind {
            KIND_UPDATE => Self::Update(ClientUpdate {
                client: r.u32()?,
                round: r.u32()?,
                train_size: r.u64()?,
                params: r.f32s()?,
                grad: decode_opt(&mut r)?,
                boundary: decode_blocks(&mut r)?,
            }),
            KIND_BROADCAST => Self::Broadcast(ServerBroadcast {
                meta: RoundMeta::decode(&mut r)?,
                params: r.f32s()?,
                grad: decode_opt(&mut r)?,
                halo: decode_blocks(&mut r)?,
            }),
            k => return Err(FedError::Malformed(format!("unknown message kind {k}"))),
        };
        r.finish()?;
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> ProtocolConfig {
        ProtocolConfig {
            num_clients: 3,
            num_params: 5,
            layer_dims: vec![4, 2],
            share_gradient: true,
            num_rounds: 10,
            local_steps: 32,
        }
    }

    fn update(n: usize) -> Message {
        let c = cfg();
        Message::Update(ClientUpdate {
            client: 1,
            round: 3,
            train_size: 17,
            params: (0..5).map(|i| i as f32 * 0.25).collect(),
            grad: Some(vec![-1.0; 5]),
            boundary: c
                .layer_dims
                .iter()
                .enumerate()
                .map(|(l, &d)| EmbeddingRows {
                    layer: l as u16,
                    dim: d,
                    nodes: (0..n as u32).map(|v| 10 + v).collect(),
                    values: (0..n * d as usize).map(|i| i as f32 - 0.5).collect(),
                })
                .collect(),
        })
    }

    #[test]
    fn binary_and_json_round_trips_with_exact_bounds() {
        let c = cfg();
        let m = update(6);
        let bytes = m.encode();
        assert_eq!(
            bytes.len(),
            c.update_bound(6),
            "the bound is exact for a full update"
        );
        assert_eq!(Message::decode(&bytes, c.update_bound(6)).unwrap(), m);
        assert_eq!(
            m.embedding_bytes(),
            EmbeddingRows::encoded_len(6, 4) + EmbeddingRows::encoded_len(6, 2)
        );
        let json = serde_json::to_string(&m).unwrap();
        assert_eq!(serde_json::from_str::<Message>(&json).unwrap(), m);
        let b = Message::Broadcast(ServerBroadcast {
            meta: RoundMeta {
                round: 4,
                num_rounds: 10,
                local_steps: 32,
                num_params: 5,
                layer_dims: vec![4, 2],
            },
            params: vec![1.0; 5],
            grad: Some(vec![0.0; 5]),
            halo: vec![EmbeddingRows {
                layer: 1,
                dim: 2,
                nodes: vec![3],
                values: vec![0.5, 0.25],
            }],
        });
        let bb = b.encode();
        assert!(bb.len() <= c.broadcast_bound(1));
        assert_eq!(Message::decode(&bb, c.broadcast_bound(1)).unwrap(), b);
        let json = serde_json::to_vec(&b).unwrap();
        assert_eq!(serde_json::from_slice::<Message>(&json).unwrap(), b);
    }

    #[test]
    fn bad_frames_are_typed_errors() {
        let m = update(2).encode();
        assert!(matches!(
            Message::decode(&m, m.len() - 1),
            Err(FedError::MessageTooLarge { .. })
        ));
        let mut v2 = m.clone();
        v2[4] = 2;
        assert!(matches!(
            Message::decode(&v2, usize::MAX),
            Err(FedError::UnknownVersion {
                found: 2,
                expected: 1
            })
        ));
        let mut magic = m.clone();
        magic[0] = b'X';
        assert!(matches!(
            Message::decode(&magic, usize::MAX),
            Err(FedError::Malformed(_))
        ));
        assert!(matches!(
            Message::decode(&m[..m.len() - 3], usize::MAX),
            Err(FedError::Malformed(_))
        ));
        let mut kind = m.clone();
        kind[6] = 9;
        assert!(matches!(
            Message::decode(&kind, usize::MAX),
            Err(FedError::Malformed(_))
        ));
        // A corrupt vector length cannot allocate beyond the frame.
        let mut huge = m.clone();
        let params_len_at = super::FRAME_HEADER_BYTES + 16;
        huge[params_len_at..params_len_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            Message::decode(&huge, usize::MAX),
            Err(FedError::Malformed(_))
        ));
    }

    #[test]
    fn rows_validation_and_config_checks() {
        let r = EmbeddingRows {
            layer: 0,
            dim: 4,
            nodes: vec![1, 1],
            values: vec![0.0; 8],
        };
        assert!(r.validate(&[4]).is_err());
        let r = EmbeddingRows {
            layer: 1,
            dim: 4,
            nodes: vec![1],
            values: vec![0.0; 4],
        };
        assert!(r.validate(&[4]).is_err());
        let r = EmbeddingRows {
            layer: 0,
            dim: 4,
            nodes: vec![1],
            values: vec![f32::NAN; 4],
        };
        assert!(r.validate(&[4]).is_err());
        let r = EmbeddingRows {
            layer: 0,
            dim: 4,
            nodes: vec![1],
            values: vec![0.0; 4],
        };
        assert!(r.validate(&[4]).is_ok() && r.validate(&[3]).is_err());
        assert_eq!(r.row(0), Some(&[0.0f32; 4][..]));
        let mut c = cfg();
        assert!(c.check().is_ok());
        c.local_steps = 0;
        assert!(matches!(
            c.check(),
            Err(FedError::InvalidParam {
                name: "local_steps",
                ..
            })
        ));
        let mut c = cfg();
        c.num_clients = 1;
        assert!(matches!(
            c.check(),
            Err(FedError::InvalidParam {
                name: "num_clients",
                ..
            })
        ));
    }
}
