//! All-pairs common-neighbour counts by bit-packed AND + popcount, in tiles, parallel over rows.

use graph_core::BitAdjacency;
use rayon::prelude::*;

/// Rows per tile: each streamed row `j` is combined with this many rows `i` while in cache.
const TILE: usize = 16;

/// Tiles of [`common_neighbors`] run in parallel between two progress reports.
const BATCH_TILES: usize = 32;

/// Row-major index of pair `(i, j)`, `i < j < n`, in the strict upper triangle.
#[inline]
pub(crate) fn pair_index(n: usize, i: usize, j: usize) -> usize {
    i * n - i * (i + 1) / 2 + (j - i - 1)
}

/// `|N(i) ∩ N(j)|` for every pair `i < j`, in row-major upper-triangle order (see
/// [`pair_index`]). Counts fit in `u16` because the caller (the all-pairs oracle) limits `n` to
/// 65,536.
///
/// Uses the `popcnt` (and AVX2) instructions when the CPU has them, chosen at run time.
///
/// # Complexity
/// O(n³ / 64) word operations, parallel; memory `n(n−1)/2 · 2` bytes for the output. Calls
/// `done(pairs)` on the calling thread after each batch of [`BATCH_TILES`] tiles.
pub(crate) fn common_neighbors(bits: &BitAdjacency, done: &mut dyn FnMut(usize)) -> Vec<u16> {
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
    let mut tiles = tiles.into_iter().peekable();
    while tiles.peek().is_some() {
        let batch: Vec<(usize, &mut [u16])> = tiles.by_ref().take(BATCH_TILES).collect();
        let pairs = batch.iter().map(|(_, c)| c.len()).sum();
        batch
            .into_par_iter()
            .for_each(|(i0, chunk)| tile_dispatch(bits, i0, chunk));
        done(pairs);
    }
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
    tile_with(bits, i0, chunk, |a, b| {
        // SAFETY: this function only runs on CPUs with AVX2 (checked by the caller).
        unsafe { and_popcount_avx2(a, b) }
    });
}

/// `Σ popcount(a[k] & b[k])` with AVX2: 4 words at a time, nibble lookup (`vpshufb`), byte
/// counts accumulated for up to 31 steps before a `vpsadbw` (Muła, Kurz & Lemire 2018).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
unsafe fn and_popcount_avx2(a: &[u64], b: &[u64]) -> u32 {
    use std::arch::x86_64::*;
    let len = a.len().min(b.len());
    let blocks = len / 4;
    let lut = _mm256_setr_epi8(
        0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3,
        3, 4,
    );
    let low = _mm256_set1_epi8(0x0f);
    let mut total = _mm256_setzero_si256();
    let mut k = 0;
    while k < blocks {
        let end = (k + 31).min(blocks);
        let mut bytes = _mm256_setzero_si256();
        while k < end {
            // SAFETY: 4·k + 3 < len, unaligned loads.
            let (va, vb) = unsafe {
                (
                    _mm256_loadu_si256(a.as_ptr().add(4 * k).cast()),
                    _mm256_loadu_si256(b.as_ptr().add(4 * k).cast()),
                )
            };
            let v = _mm256_and_si256(va, vb);
            let lo = _mm256_and_si256(v, low);
            let hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), low);
            let c = _mm256_add_epi8(_mm256_shuffle_epi8(lut, lo), _mm256_shuffle_epi8(lut, hi));
            bytes = _mm256_add_epi8(bytes, c);
            k += 1;
        }
        total = _mm256_add_epi64(total, _mm256_sad_epu8(bytes, _mm256_setzero_si256()));
    }
    let mut lanes = [0u64; 4];
    // SAFETY: 32-byte store into a 32-byte array.
    unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), total) };
    let mut sum = lanes.iter().sum::<u64>() as u32;
    for w in 4 * blocks..len {
        sum += (a[w] & b[w]).count_ones();
    }
    sum
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn tile_popcnt(bits: &BitAdjacency, i0: usize, chunk: &mut [u16]) {
    tile_generic(bits, i0, chunk);
}

/// Fills the rows `i0 .. i0 + TILE` with the portable word loop.
#[inline(always)]
fn tile_generic(bits: &BitAdjacency, i0: usize, chunk: &mut [u16]) {
    tile_with(bits, i0, chunk, |a, b| {
        a.iter().zip(b).map(|(x, y)| (x & y).count_ones()).sum()
    });
}

/// Fills the rows `i0 .. i0 + TILE` of the upper triangle (`chunk` holds exactly those rows),
/// counting each pair with `count`.
#[inline(always)]
fn tile_with(
    bits: &BitAdjacency,
    i0: usize,
    chunk: &mut [u16],
    count: impl Fn(&[u64], &[u64]) -> u32,
) {
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
            chunk[offs[t] + (j - i - 1)] = count(ri, rj) as u16;
        }
    }
}

/// A cell of [`block_counts`]'s output: `u32`, or `u16` where the caller knows counts stay
/// below 2¹⁶ (at most n − 2 common neighbours).
pub(crate) trait CountCell: Copy {
    /// The count as stored.
    fn from_count(c: u32) -> Self;
}

impl CountCell for u32 {
    #[inline(always)]
    fn from_count(c: u32) -> Self {
        c
    }
}

impl CountCell for u16 {
    #[inline(always)]
    fn from_count(c: u32) -> Self {
        c as u16
    }
}

/// `|N(i) ∩ N(j)|` for the pairs `i < j` of a block of rows `rows` × columns `cols`, written to
/// `out[(i − rows.start) · cols.len() + (j − cols.start)]` (entries with `j <= i` are left as
/// they are). Same kernels (AVX2 / popcnt / portable) as [`common_neighbors`].
///
/// # Panics
/// When `out` is shorter than `rows.len() · cols.len()` or a range exceeds the matrix.
///
/// # Complexity
/// `rows.len() · cols.len() · n / 64` word operations; no allocation.
pub(crate) fn block_counts<T: CountCell>(
    bits: &BitAdjacency,
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
    out: &mut [T],
) {
    #[cfg(target_arch = "x86_64")]
    {
        if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU supports the features the function is compiled for.
            unsafe { block_avx2(bits, rows, cols, out) };
            return;
        }
    }
    block_with(bits, rows, cols, out, |a, b| {
        a.iter().zip(b).map(|(x, y)| (x & y).count_ones()).sum()
    });
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
unsafe fn block_avx2<T: CountCell>(
    bits: &BitAdjacency,
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
    out: &mut [T],
) {
    block_with(bits, rows, cols, out, |a, b| {
        // SAFETY: this function only runs on CPUs with AVX2 (checked by the caller).
        unsafe { and_popcount_avx2(a, b) }
    });
}

/// The block loop: [`TILE`] rows at a time, each streamed column row combined with them.
#[inline(always)]
fn block_with<T: CountCell>(
    bits: &BitAdjacency,
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
    out: &mut [T],
    count: impl Fn(&[u64], &[u64]) -> u32,
) {
    let width = cols.len();
    let mut i0 = rows.start;
    while i0 < rows.end {
        let i1 = (i0 + TILE).min(rows.end);
        let strip: Vec<&[u64]> = (i0..i1).map(|i| bits.row(i)).collect();
        for j in cols.start.max(i0 + 1)..cols.end {
            let rj = bits.row(j);
            for (t, ri) in strip.iter().enumerate() {
                let i = i0 + t;
                if i >= j {
                    break;
                }
                out[(i - rows.start) * width + (j - cols.start)] = T::from_count(count(ri, rj));
            }
        }
        i0 = i1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use graph_core::generate::erdos_renyi;
    use rand::RngExt;

    #[test]
    fn avx2_popcount_matches_scalar_on_all_lengths() {
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("avx2") {
            let mut rng = dp_core::rng::seeded_rng(4);
            for len in (0..140).chain([500, 1000]) {
                let a: Vec<u64> = (0..len).map(|_| rng.random()).collect();
                let b: Vec<u64> = (0..len).map(|_| rng.random()).collect();
                let want: u32 = a.iter().zip(&b).map(|(x, y)| (x & y).count_ones()).sum();
                // SAFETY: AVX2 detected above.
                assert_eq!(unsafe { and_popcount_avx2(&a, &b) }, want, "len {len}");
            }
            let ones = vec![u64::MAX; 1000];
            // SAFETY: as above. Byte counters saturate after 31 steps of 8 per byte: check no overflow.
            assert_eq!(unsafe { and_popcount_avx2(&ones, &ones) }, 64_000);
        }
    }

    #[test]
    fn matches_naive_counts() {
        for (n, p, seed) in [
            (1usize, 0.5, 0u64),
            (2, 1.0, 1),
            (37, 0.3, 2),
            (130, 0.1, 3),
        ] {
            let g = erdos_renyi(n, p, &mut dp_core::rng::seeded_rng(seed)).unwrap();
            let c = common_neighbors(&g.bit_adjacency(), &mut |_| {});
            assert_eq!(c.len(), n * n.saturating_sub(1) / 2);
            let bits = g.bit_adjacency();
            let mut full = vec![0u32; n * n];
            block_counts(&bits, 0..n, 0..n, &mut full);
            for i in 0..n {
                for j in i + 1..n {
                    let naive = (0..n as u32)
                        .filter(|&w| g.has_edge(i as u32, w) && g.has_edge(j as u32, w))
                        .count();
                    assert_eq!(c[pair_index(n, i, j)] as usize, naive, "pair ({i}, {j})");
                    // Every block containing the pair agrees.
                    assert_eq!(full[i * n + j] as usize, naive, "full block ({i}, {j})");
                    for (r0, c0, w) in [(i, j, 1), (i - i % 5, j - j % 5, 5)] {
                        let rows = r0..(r0 + w).min(n);
                        let cols = c0..(c0 + w).min(n);
                        let mut out = vec![0u32; rows.len() * cols.len()];
                        block_counts(&bits, rows.clone(), cols.clone(), &mut out);
                        let got = out[(i - rows.start) * cols.len() + (j - cols.start)];
                        assert_eq!(got as usize, naive, "block pair ({i}, {j})");
                    }
                }
            }
        }
    }
}
