//! A [`BitAdjacency`] from the strict upper triangle stored as one row-major bit string (the
//! layout of EdgeRefine's dense `.rr` reports), without an edge list in between.

use crate::error::{GraphError, Result};
use crate::graph::BitAdjacency;

impl BitAdjacency {
    /// The symmetric adjacency whose strict upper triangle is the bit string `body`: pair
    /// `(i, j)` with `i < j < n` at bit `k = i(2n − i − 1)/2 + (j − i − 1)`, bit `k mod 8` of
    /// byte `k / 8` (equivalently bit `k mod 64` of the little-endian `u64` word `k / 64`).
    /// Bits after the last pair are ignored.
    ///
    /// Each row's upper part is copied 64 columns at a time from the string, then every
    /// 64 × 64 block above the diagonal is transposed into its mirror below it; no edge list is
    /// built, so the memory is the `n · ⌈n/64⌉` words of the result.
    ///
    /// # Errors
    /// [`GraphError::InvalidParam`] (`body`) when `body` holds fewer than `n(n−1)/2` bits;
    /// [`GraphError::TooLarge`] when the rows do not fit the memory budget
    /// ([`crate::limits::check_allocation`]) or cannot be allocated.
    ///
    /// # Complexity
    /// O(n²/64) word operations (the copy and the 64 × 64 transposes), memory `n²/8` bytes.
    ///
    /// # Example
    /// ```
    /// use graph_core::{BitAdjacency, Graph};
    /// // n = 4: pairs (0,1) (0,2) (0,3) (1,2) (1,3) (2,3) are bits 0..6; set (0,2) and (2,3).
    /// let bits = BitAdjacency::from_upper_triangle(4, &[0b10_0010])?;
    /// assert!(bits.contains(0, 2) && bits.contains(2, 0) && bits.contains(3, 2));
    /// assert_eq!(bits, Graph::from_edges(4, &[(0, 2), (2, 3)])?.bit_adjacency());
    /// assert!(BitAdjacency::from_upper_triangle(40, &[0; 8]).is_err()); // 780 bits needed
    /// # Ok::<(), graph_core::GraphError>(())
    /// ```
    pub fn from_upper_triangle(n: usize, body: &[u8]) -> Result<Self> {
        let pairs = (n as u128) * (n as u128).saturating_sub(1) / 2;
        if (body.len() as u128) * 8 < pairs {
            return Err(GraphError::InvalidParam {
                name: "body",
                value: format!("{} bytes for {n} nodes", body.len()),
                reason: "fewer bits than the n(n-1)/2 pairs of the upper triangle",
            });
        }
        let wpr = n.div_ceil(64);
        let words = usize::try_from((n as u128) * (wpr as u128)).unwrap_or(usize::MAX);
        let bits = crate::limits::zeroed_vec::<u64>(
            &format!("the packed adjacency rows of {n} nodes"),
            words,
        )?;
        let mut adj = BitAdjacency::from_parts(n, wpr, bits);
        copy_upper_rows(n, body, adj.words_mut());
        mirror_blocks(n, wpr, adj.words_mut());
        Ok(adj)
    }
}

/// 64 bits of `body` starting at bit `pos` (bits past the end read as 0).
#[inline]
fn bits_at(body: &[u8], pos: u64) -> u64 {
    let byte = (pos / 8) as usize;
    let shift = (pos % 8) as u32;
    let (lo, hi) = if byte + 9 <= body.len() {
        let lo = u64::from_le_bytes(body[byte..byte + 8].try_into().expect("8 bytes"));
        (lo, u64::from(body[byte + 8]))
    } else {
        let mut buf = [0u8; 9];
        if byte < body.len() {
            let end = body.len().min(byte + 9);
            buf[..end - byte].copy_from_slice(&body[byte..end]);
        }
        let lo = u64::from_le_bytes(buf[..8].try_into().expect("8 bytes"));
        (lo, u64::from(buf[8]))
    };
    if shift == 0 {
        lo
    } else {
        (lo >> shift) | (hi << (64 - shift))
    }
}

/// Row `i`, columns `i + 1 .. n`, from the bit string.
fn copy_upper_rows(n: usize, body: &[u8], out: &mut [u64]) {
    let wpr = n.div_ceil(64);
    let tail_mask = if n.is_multiple_of(64) {
        u64::MAX
    } else {
        (1u64 << (n % 64)) - 1
    };
    let n64 = n as u64;
    for i in 0..n.saturating_sub(1) {
        let i64_ = i as u64;
        let start = i64_ * (2 * n64 - i64_ - 1) / 2;
        let row = &mut out[i * wpr..(i + 1) * wpr];
        let first = (i + 1) / 64;
        for (w, slot) in row.iter_mut().enumerate().skip(first) {
            let col0 = 64 * w;
            let mut v = if col0 > i {
                bits_at(body, start + (col0 - i - 1) as u64)
            } else {
                // col0 ≤ i < col0 + 63: columns i + 1.. start at bit i + 1 − col0 of the word.
                bits_at(body, start) << (i + 1 - col0)
            };
            if w == wpr - 1 {
                v &= tail_mask;
            }
            *slot = v;
        }
    }
}

/// Mirrors the strict upper triangle below the diagonal, a 64 × 64 block at a time.
fn mirror_blocks(n: usize, wpr: usize, out: &mut [u64]) {
    let mut block = [0u64; 64];
    for bi in 0..wpr {
        let rows = 64 * bi..(64 * bi + 64).min(n);
        for bj in bi..wpr {
            for (r, slot) in block.iter_mut().enumerate() {
                let row = 64 * bi + r;
                *slot = if row < rows.end {
                    out[row * wpr + bj]
                } else {
                    0
                };
            }
            transpose64(&mut block);
            for (c, &t) in block.iter().enumerate() {
                let row = 64 * bj + c;
                if row >= n {
                    break;
                }
                if bj == bi {
                    out[row * wpr + bi] |= t;
                } else {
                    out[row * wpr + bi] = t;
                }
            }
        }
    }
}

/// In-place transpose of a 64 × 64 bit matrix (bit `c` of word `r` ↔ bit `r` of word `c`):
/// swap the off-diagonal halves, then recurse on quarters, all levels word-parallel
/// (Warren, *Hacker's Delight*, §7-3).
fn transpose64(a: &mut [u64; 64]) {
    let mut j = 32usize;
    let mut m: u64 = 0x0000_0000_FFFF_FFFF;
    while j != 0 {
        let mut k = 0usize;
        while k < 64 {
            let t = ((a[k] >> j) ^ a[k + j]) & m;
            a[k] ^= t << j;
            a[k + j] ^= t;
            k = (k + j + 1) & !j;
        }
        j >>= 1;
        m ^= m << j;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Graph;
    use rand::{RngExt, SeedableRng};

    fn upper_string(g: &Graph) -> Vec<u8> {
        let n = g.num_nodes() as u64;
        let pairs = n * n.saturating_sub(1) / 2;
        let mut body = vec![0u8; 8 * pairs.div_ceil(64) as usize];
        for (u, v) in g.edges() {
            let (i, j) = (u64::from(u), u64::from(v));
            let k = i * (2 * n - i - 1) / 2 + (j - i - 1);
            body[(k / 8) as usize] |= 1 << (k % 8);
        }
        body
    }

    #[test]
    fn transpose_matches_the_naive_one() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let mut a = [0u64; 64];
        a.iter_mut().for_each(|w| *w = rng.random());
        let orig = a;
        transpose64(&mut a);
        for (r, &row) in orig.iter().enumerate() {
            for (c, &col) in a.iter().enumerate() {
                assert_eq!(col >> r & 1, row >> c & 1, "({r}, {c})");
            }
        }
    }

    #[test]
    fn equals_the_graphs_own_bit_adjacency_at_every_alignment() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for n in [0usize, 1, 2, 3, 63, 64, 65, 127, 128, 129, 200, 333] {
            let mut edges = Vec::new();
            for i in 0..n as u32 {
                for j in i + 1..n as u32 {
                    if rng.random_bool(0.3) {
                        edges.push((i, j));
                    }
                }
            }
            let g = Graph::from_edges(n, &edges).unwrap();
            let bits = BitAdjacency::from_upper_triangle(n, &upper_string(&g)).unwrap();
            assert_eq!(bits, g.bit_adjacency(), "n = {n}");
            for u in 0..n {
                assert_eq!(bits.degree(u), g.degree(u as u32), "degree of {u}, n = {n}");
            }
        }
    }

    #[test]
    fn ignores_bits_after_the_last_pair_and_refuses_a_short_string() {
        // n = 5: 10 pairs; set every bit of two bytes (pairs 0..9 and 6 bits of padding).
        let bits = BitAdjacency::from_upper_triangle(5, &[0xFF, 0xFF]).unwrap();
        let complete: Vec<(u32, u32)> = (0..5u32)
            .flat_map(|i| (i + 1..5).map(move |j| (i, j)))
            .collect();
        assert_eq!(
            bits,
            Graph::from_edges(5, &complete).unwrap().bit_adjacency()
        );
        assert!(matches!(
            BitAdjacency::from_upper_triangle(5, &[0xFF]),
            Err(GraphError::InvalidParam { name: "body", .. })
        ));
    }
}
