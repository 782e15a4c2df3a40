//! The report checksum: FNV-1a-style over 64-bit little-endian words.

const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0000_0100_0000_01b3;

/// The checksum stored in bytes 56..64 of a report: FNV-1a over the 64-bit little-endian words of
/// `head` (the first 56 header bytes) then `body`, folded (`h ^ (h >> 32)`). Public so that
/// other implementations of the format (and fuzzers that mutate a body) can compute it.
///
/// Words are taken with `chunks_exact(8)`: trailing bytes of a length that is not a multiple of 8
/// are ignored (valid reports have none).
///
/// # Example
/// ```
/// use edgerefine::report::{checksum, encode_report};
/// let g = graph_core::Graph::from_edges(3, &[(0, 1)])?;
/// let bytes = encode_report(&g, "1".parse()?)?;
/// let stored = u64::from_le_bytes(bytes[56..64].try_into().unwrap());
/// assert_eq!(checksum(&bytes[..56], &bytes[64..]), stored);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn checksum(head: &[u8], body: &[u8]) -> u64 {
    let mut h = OFFSET;
    for part in [head, body] {
        for w in part.chunks_exact(8) {
            let mut b = [0u8; 8];
            b.copy_from_slice(w);
            h = (h ^ u64::from_le_bytes(b)).wrapping_mul(PRIME);
        }
    }
    h ^ (h >> 32)
}
