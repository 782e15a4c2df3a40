//! The report checksum: FNV-1a-style over 64-bit little-endian words.

const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0000_0100_0000_01b3;

/// Checksum of `head` (the first 56 header bytes) then `body`; both lengths are multiples of 8.
pub(crate) fn checksum(head: &[u8], body: &[u8]) -> u64 {
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
