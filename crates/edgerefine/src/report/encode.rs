//! Writing reports: encoding choice, bit packing, atomic write.

use dp_core::params::Epsilon;
use std::path::Path;

use graph_core::Graph;

use super::header::{Encoding, HEADER_LEN, ReportHeader, bit_index, body_len, pairs, seal};
use crate::client::keep_probability;
use crate::error::{EdgeRefineError, Result};

/// Encodes a noisy graph released by randomized response at `eps` as a report (header and body,
/// see the [module docs](super)), choosing the smaller of the dense and sparse encodings.
///
/// # Errors
/// [`EdgeRefineError::InvalidParam`] for a bad ε, [`EdgeRefineError::TooLarge`] when the body
/// would not fit in memory on this machine.
///
/// # Complexity
/// O(n²/8 + m) bytes and time for a dense report, O(m) for a sparse one.
pub fn encode_report(graph: &Graph, eps: Epsilon) -> Result<Vec<u8>> {
    let keep_prob = keep_probability(eps)?;
    let n = graph.num_nodes() as u64;
    let m = graph.num_edges() as u64;
    let dense_len = body_len(Encoding::Dense, n, m);
    let sparse_len = body_len(Encoding::Sparse, n, m);
    let encoding = if sparse_len < dense_len {
        Encoding::Sparse
    } else {
        Encoding::Dense
    };
    let body = dense_len.min(sparse_len);
    let too_large = || EdgeRefineError::TooLarge {
        n: graph.num_nodes(),
        max: usize::MAX,
    };
    let total = usize::try_from(body + HEADER_LEN as u128).map_err(|_| too_large())?;
    let mut out = vec![0u8; total];
    let bytes = &mut out[HEADER_LEN..];
    match encoding {
        Encoding::Dense => {
            // Bit k of the little-endian word k/64 is bit k%8 of byte k/8.
            for (u, v) in graph.edges() {
                let k = bit_index(n, u, v);
                bytes[(k / 8) as usize] |= 1 << (k % 8);
            }
        }
        // `Graph::edges` yields `u < v` in lexicographic order.
        Encoding::Sparse => write_pairs(bytes, graph.edges()),
    }
    debug_assert!(u128::from(m) <= pairs(n));
    seal(&mut out, encoding, n, m, eps, keep_prob);
    Ok(out)
}

/// Writes `pairs` into a sparse body, 8 bytes each (`u` then `v`, little-endian).
pub(super) fn write_pairs(body: &mut [u8], pairs: impl Iterator<Item = (u32, u32)>) {
    for (chunk, (u, v)) in body.chunks_exact_mut(8).zip(pairs) {
        chunk[..4].copy_from_slice(&u.to_le_bytes());
        chunk[4..].copy_from_slice(&v.to_le_bytes());
    }
}

/// Writes [`encode_report`]'s bytes to `path` atomically (a temporary file in the same directory,
/// then a rename, through [`graph_core::io::write_atomic`]) and returns the header written.
///
/// # Errors
/// Those of [`encode_report`], and [`EdgeRefineError::Graph`] wrapping the I/O error.
///
/// # Privacy
/// Writes the randomized-response output only; the file is as private as the report.
pub fn write_report(path: &Path, graph: &Graph, eps: Epsilon) -> Result<ReportHeader> {
    let bytes = encode_report(graph, eps)?;
    graph_core::io::write_atomic(path, &bytes)?;
    ReportHeader::parse(&bytes)
}
