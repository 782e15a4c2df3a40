//! The 64-byte report header: layout, faults, and its validation against the file length.

use crate::client::keep_probability;
use crate::error::{EdgeRefineError, Result};
use dp_core::params::Epsilon;

/// The eight magic bytes that open every report.
pub const MAGIC: [u8; 8] = *b"\x89DPGRR\r\n";
/// The format version this crate writes and reads.
pub const VERSION: u32 = 1;
/// Length of the header in bytes.
pub const HEADER_LEN: usize = 64;

/// Largest node count: node ids are `u32`.
const MAX_N: u64 = 1 << 32;

/// How the body stores the noisy edges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Encoding {
    /// The upper triangle as a bit string of `n(n−1)/2` bits.
    Dense,
    /// Sorted `(u32, u32)` pairs.
    Sparse,
}

impl Encoding {
    fn code(self) -> u32 {
        match self {
            Self::Dense => 0,
            Self::Sparse => 1,
        }
    }
}

/// What is wrong with a report file (carried by [`EdgeRefineError::Report`] with its offset).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ReportFault {
    /// The file ends before the header or the body does.
    #[error("truncated: {expected} bytes needed, the file has {len}")]
    Truncated {
        /// Bytes the header declares (or 64 for the header itself).
        expected: u64,
        /// Bytes present.
        len: u64,
    },
    /// Not a report (wrong magic bytes).
    #[error("not an edgerefine report (bad magic bytes)")]
    BadMagic,
    /// A version this crate does not read.
    #[error("unsupported report version {0} (this build reads {VERSION})")]
    UnsupportedVersion(u32),
    /// An encoding code other than 0 (dense) or 1 (sparse).
    #[error("unknown body encoding {0}")]
    UnknownEncoding(u32),
    /// The sizes in the header disagree with each other or with the file length.
    #[error("size mismatch: {what}: {expected} expected, {got} found")]
    SizeMismatch {
        /// Which size.
        what: &'static str,
        /// The size the other fields determine.
        expected: u128,
        /// The size found.
        got: u128,
    },
    /// A header field outside its domain.
    #[error("bad field `{field}`: {reason}")]
    BadField {
        /// The field.
        field: &'static str,
        /// Why.
        reason: &'static str,
    },
    /// The checksum does not match the content.
    #[error("checksum mismatch: stored {stored:#018x}, computed {computed:#018x}")]
    Checksum {
        /// In the header.
        stored: u64,
        /// Over the file.
        computed: u64,
    },
    /// A sparse pair out of range or order, or a set padding bit of a dense body.
    #[error("bad body: {0}")]
    BadBody(&'static str),
}

/// The decoded header of a report.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct ReportHeader {
    /// Body encoding.
    pub encoding: Encoding,
    /// Node count.
    pub n: u64,
    /// Noisy edge count m̃.
    pub edges: u64,
    /// ε of the randomized response (checked when the header is parsed).
    pub eps: Epsilon,
    /// Keep probability `p = e^ε/(1+e^ε)`.
    pub keep_prob: f64,
    /// Body length in bytes.
    pub body_len: u64,
    /// Stored checksum.
    pub checksum: u64,
}

pub(crate) fn fault(offset: u64, fault: ReportFault) -> EdgeRefineError {
    EdgeRefineError::Report { offset, fault }
}

/// Number of pairs `n(n−1)/2` (exact in u128).
pub(crate) fn pairs(n: u64) -> u128 {
    u128::from(n) * u128::from(n.saturating_sub(1)) / 2
}

/// The dense body's bit of pair `{u, v}` (either order) among `n` nodes: row-major upper
/// triangle, `i(2n − i − 1)/2 + (j − i − 1)` for `i < j`.
pub(crate) fn bit_index(n: u64, u: u32, v: u32) -> u64 {
    let (i, j) = (u128::from(u.min(v)), u128::from(u.max(v)));
    (i * (2 * u128::from(n) - i - 1) / 2 + (j - i - 1)) as u64
}

/// Bits set in a dense body (whole little-endian words).
pub(crate) fn count_bits(body: &[u8]) -> u64 {
    body.chunks_exact(8)
        .map(|c| u64::from(u64_at(c, 0).count_ones()))
        .sum()
}

/// Writes the header of `out` (whose body, after [`HEADER_LEN`] bytes, is written), with the
/// checksum over the header's first 56 bytes and the body.
pub(crate) fn seal(
    out: &mut [u8],
    encoding: Encoding,
    n: u64,
    edges: u64,
    eps: Epsilon,
    keep_prob: f64,
) {
    let mut header = ReportHeader {
        encoding,
        n,
        edges,
        eps,
        keep_prob,
        body_len: (out.len() - HEADER_LEN) as u64,
        checksum: 0,
    };
    let head = header.to_bytes();
    header.checksum = super::checksum::checksum(&head[..56], &out[HEADER_LEN..]);
    out[..HEADER_LEN].copy_from_slice(&header.to_bytes());
}

/// Body length of an encoding for `n` nodes and `m` edges (exact in u128).
pub(crate) fn body_len(encoding: Encoding, n: u64, m: u64) -> u128 {
    match encoding {
        Encoding::Dense => pairs(n).div_ceil(64) * 8,
        Encoding::Sparse => u128::from(m) * 8,
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(w)
}

pub(crate) fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

impl ReportHeader {
    /// Serialises the header (the checksum field as stored in `self`).
    pub(crate) fn to_bytes(self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0..8].copy_from_slice(&MAGIC);
        b[8..12].copy_from_slice(&VERSION.to_le_bytes());
        b[12..16].copy_from_slice(&self.encoding.code().to_le_bytes());
        b[16..24].copy_from_slice(&self.n.to_le_bytes());
        b[24..32].copy_from_slice(&self.edges.to_le_bytes());
        b[32..40].copy_from_slice(&self.eps.get().to_le_bytes());
        b[40..48].copy_from_slice(&self.keep_prob.to_le_bytes());
        b[48..56].copy_from_slice(&self.body_len.to_le_bytes());
        b[56..64].copy_from_slice(&self.checksum.to_le_bytes());
        b
    }

    /// Parses and validates the header of `file` (the whole file) against its length, without
    /// reading the body or allocating. The checksum is not verified here ([`super::Report::open`]
    /// and [`super::decode_report`] verify it).
    ///
    /// # Errors
    /// [`crate::EdgeRefineError::Report`] naming the offset of the first bad field.
    pub(crate) fn parse(file: &[u8]) -> Result<Self> {
        let len = file.len() as u64;
        if file.len() < HEADER_LEN {
            // Name the magic if even that is wrong: a text file is "not a report", not truncated.
            let k = file.len().min(8);
            if file[..k] != MAGIC[..k] {
                return Err(fault(0, ReportFault::BadMagic));
            }
            return Err(fault(
                len,
                ReportFault::Truncated {
                    expected: HEADER_LEN as u64,
                    len,
                },
            ));
        }
        if file[0..8] != MAGIC {
            return Err(fault(0, ReportFault::BadMagic));
        }
        let version = u32_at(file, 8);
        if version != VERSION {
            return Err(fault(8, ReportFault::UnsupportedVersion(version)));
        }
        let encoding = match u32_at(file, 12) {
            0 => Encoding::Dense,
            1 => Encoding::Sparse,
            other => return Err(fault(12, ReportFault::UnknownEncoding(other))),
        };
        let n = u64_at(file, 16);
        if n > MAX_N || usize::try_from(n).is_err() {
            return Err(fault(
                16,
                ReportFault::BadField {
                    field: "n",
                    reason: "more than 2^32 nodes (node ids are u32) or more than this machine addresses",
                },
            ));
        }
        // A dense body's length follows from n, so n is bounded by the file; a sparse body's
        // only from m, so a tiny file could declare billions of nodes (and the graph built from
        // it would allocate for each): bounded as every declared node count (graph_core::limits).
        if encoding == Encoding::Sparse && n > graph_core::limits::declared_nodes_limit(len) {
            return Err(fault(
                16,
                ReportFault::BadField {
                    field: "n",
                    reason: "more nodes than a sparse report of this length may declare (2^20 + 64 per byte, graph_core::limits)",
                },
            ));
        }
        let m = u64_at(file, 24);
        if u128::from(m) > pairs(n) {
            return Err(fault(
                24,
                ReportFault::BadField {
                    field: "m",
                    reason: "more edges than pairs n(n-1)/2",
                },
            ));
        }
        let stored_body = u64_at(file, 48);
        let expected_body = body_len(encoding, n, m);
        if u128::from(stored_body) != expected_body {
            // The dense size follows from n, the sparse one from m: name that field.
            let (offset, what) = match encoding {
                Encoding::Dense => (16, "body length for n (8·⌈n(n−1)/2 / 64⌉)"),
                Encoding::Sparse => (24, "body length for m (8·m)"),
            };
            return Err(fault(
                offset,
                ReportFault::SizeMismatch {
                    what,
                    expected: expected_body,
                    got: u128::from(stored_body),
                },
            ));
        }
        let total = u128::from(stored_body) + HEADER_LEN as u128;
        if u128::from(len) < total {
            return Err(fault(
                len,
                ReportFault::Truncated {
                    expected: u64::try_from(total).unwrap_or(u64::MAX),
                    len,
                },
            ));
        }
        if u128::from(len) > total {
            return Err(fault(
                total as u64,
                ReportFault::SizeMismatch {
                    what: "file length (trailing bytes after the body)",
                    expected: total,
                    got: u128::from(len),
                },
            ));
        }
        let stored = Epsilon::new(f64::from_bits(u64_at(file, 32))).ok();
        let Some((eps, p)) = stored.and_then(|e| keep_probability(e).ok().map(|p| (e, p))) else {
            return Err(fault(
                32,
                ReportFault::BadField {
                    field: "eps",
                    reason: "must be finite and > 0",
                },
            ));
        };
        let keep_prob = f64::from_bits(u64_at(file, 40));
        if keep_prob.to_bits() != p.to_bits() {
            return Err(fault(
                40,
                ReportFault::BadField {
                    field: "keep_prob",
                    reason: "not the keep probability e^ε/(1+e^ε) of the stored ε",
                },
            ));
        }
        Ok(Self {
            encoding,
            n,
            edges: m,
            eps,
            keep_prob,
            body_len: stored_body,
            checksum: u64_at(file, 56),
        })
    }
}
