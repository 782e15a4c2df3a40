//! All-pairs common-neighbour counts by bit-packed AND + popcount, in tiles, parallel over rows.

use graph_core::BitAdjacency;
use rayon::prelude::*;

/// Rows per tile: each streamed row `j` is combined with this many rows `i` while in cache.
const TILE: usize = 16;

/// Row-major index of pair `(i, j)`, `i < j < n`, in the strict upper triangle.
#[inline]
pub(crate) fn pair_index(n: usize, i: usize, j: usize) -> usize {
    i * n - i * (i + 1) / 2 + (j - i - 1)
}

/// `|N(i) ∩ N(j)|` for every pair `i < j`, in row-major upper-triangle order (see
/// [`pair_index`]). Counts fit in `u16` because the caller limits `n` to 65,536.
///
/// Uses the `popcnt` (and AVX2) instructions when the CPU has them, chosen at run time.
///
/// # Complexity
/// O(n³ / 64) word operations, parallel; memory `n(n−1)/2 · 2` bytes for the output.
pub(crate) fn common_neighbors(bits: &BitAdjacency) -> Vec<u16> {
    let n = bits.num_nodes();
    let mut out = vec![0u16; n * n.saturating_sub(1) / 2];
    // Split the output into tiles of TILE consecutive rows.
    let mut tiles: Vec<(usize, &mut [u16])> = Vec::new();
    let mut rest: &mut [u16] = &mut out;
    let mut i0 = 0;
    while i0 < n {
        let i1 = (i0 + TILE).min(n);
        let len: usize = (i0..i1).map(|i| n - 1 - i).sum();
        let (head, tail) = rest.split_at_mut(len);
        tiles.push((i0, head));
        rest = tail;
        i0 = i1;
    }
    tiles
        .into_par_iter()
        .for_each(|(i0, chunk)| tile_dispatch(bits, i0, chunk));
    out
}

fn tile_dispatch(bits: &BitAdjacency, i0: usize, chunk: &mut [u16]) {
    #[cfg(target_arch = "x86_64")]
    {
        if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU supports the features the function is compiled for.
            unsafe { tile_avx2(bits, i0, chunk) };
            return;
        }
        if is_x86_feature_detected!("popcnt") {
            // SAFETY: as above.
            unsafe { tile_popcnt(bits, i0, chunk) };
            return;
        }
    }
    tile_generic(bits, i0, chunk);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
unsafe fn tile_avx2(bits: &BitAdjacency, i0: usize, chunk: &mut [u16]) {
    tile_generic(bits, i0, chunk);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn tile_popcnt(bits: &BitAdjacency, i0: usize, chunk: &mut [u16]) {
    tile_generic(bits, i0, chunk);
}

/// Fills the rows `i0 .. i0 + TILE` of the upper triangle (`chunk` holds exactly those rows).
#[inline(always)]
fn tile_generic(bits: &BitAdjacency, i0: usize, chunk: &mut [u16]) {
    let n = bits.num_nodes();
    let i1 = (i0 + TILE).min(n);
    let rows: Vec<&[u64]> = (i0..i1).map(|i| bits.row(i)).collect();
    // Offset of row i inside the chunk.
    let mut offs = Vec::with_capacity(i1 - i0);
    let mut acc = 0;
    for i in i0..i1 {
        offs.push(acc);
        acc += n - 1 - i;
    }
    for j in i0 + 1..n {
        let rj = bits.row(j);
        for (t, ri) in rows.iter().enumerate() {
            let i = i0 + t;
            if i >= j {
                break;
            }
            let c: u32 = ri.iter().zip(rj).map(|(a, b)| (a & b).count_ones()).sum();
            chunk[offs[t] + (j - i - 1)] = c as u16;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use graph_core::generate::erdos_renyi;

    #[test]
    fn matches_naive_counts() {
        for (n, p, seed) in [
            (1usize, 0.5, 0u64),
            (2, 1.0, 1),
            (37, 0.3, 2),
            (130, 0.1, 3),
        ] {
            let g = erdos_renyi(n, p, &mut dp_core::rng::seeded_rng(seed)).unwrap();
            let c = common_neighbors(&g.bit_adjacency());
            assert_eq!(c.len(), n * n.saturating_sub(1) / 2);
            for i in 0..n {
                for j in i + 1..n {
                    let naive = (0..n as u32)
                        .filter(|&w| g.has_edge(i as u32, w) && g.has_edge(j as u32, w))
                        .count();
                    assert_eq!(c[pair_index(n, i, j)] as usize, naive, "pair ({i}, {j})");
                }
            }
        }
    }
}
