//! All-pairs common-neighbour counts by bit-packed AND + popcount, in tiles, parallel over rows.

use std::sync::atomic::{AtomicU8, Ordering};

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
        if has_avx512_popcount() {
            // SAFETY: the CPU supports the features the function is compiled for.
            unsafe { tile_avx512(bits, i0, chunk) };
            return;
        }
        if has_avx2_popcount() {
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

/// Whether the CPU has AVX-512 with the 64-bit lane popcount (`vpopcntq`: Ice Lake, Zen 4 and
/// later), and [`set_popcount_kernel`] allows it.
#[cfg(target_arch = "x86_64")]
#[inline]
fn has_avx512_popcount() -> bool {
    KERNEL_LIMIT.load(Ordering::Relaxed) >= PopcountKernel::Avx512 as u8
        && is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512vpopcntdq")
}

/// Whether the CPU has AVX2 and `popcnt`, and [`set_popcount_kernel`] allows them.
#[cfg(target_arch = "x86_64")]
#[inline]
fn has_avx2_popcount() -> bool {
    KERNEL_LIMIT.load(Ordering::Relaxed) >= PopcountKernel::Avx2 as u8
        && is_x86_feature_detected!("avx2")
        && is_x86_feature_detected!("popcnt")
}

/// The most capable common-neighbour kernel the server may use (see [`set_popcount_kernel`]);
/// ordered from the least to the most capable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum PopcountKernel {
    /// The portable word loop (`u64::count_ones`).
    Portable = 0,
    /// AVX2: nibble lookup with `vpshufb`, 4 words per step.
    Avx2 = 1,
    /// AVX-512 `vpopcntq`, 8 words per instruction, four rows per streamed row.
    Avx512 = 2,
}

static KERNEL_LIMIT: AtomicU8 = AtomicU8::new(PopcountKernel::Avx512 as u8);

/// Limits, for the whole process, the common-neighbour kernel of every refine to `limit` or a
/// less capable one (the server still picks the fastest the CPU supports within it). Counts,
/// and so releases, are the same with every kernel: this changes speed only, e.g. to time the
/// kernels against each other or to reproduce a machine without AVX-512. The default allows
/// all.
///
/// ```
/// use edgerefine::{PopcountKernel, RefineParams, perturb, refine, set_popcount_kernel};
/// let mut rng = dp_core::rng::seeded_rng(3);
/// let g = graph_core::generate::erdos_renyi(200, 0.05, &mut rng)?;
/// let noisy = perturb(&g, "2".parse()?, &mut rng)?;
/// let p = RefineParams::new("2".parse()?, g.num_edges() as u64);
/// let fast = refine(&noisy, &p)?;
/// set_popcount_kernel(PopcountKernel::Portable);
/// let portable = refine(&noisy, &p)?;
/// set_popcount_kernel(PopcountKernel::Avx512);
/// assert_eq!(fast.graph, portable.graph);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn set_popcount_kernel(limit: PopcountKernel) {
    KERNEL_LIMIT.store(limit as u8, Ordering::Relaxed);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
unsafe fn tile_avx512(bits: &BitAdjacency, i0: usize, chunk: &mut [u16]) {
    tile_with(
        bits,
        i0,
        chunk,
        // SAFETY: this function only runs on CPUs with AVX-512 VPOPCNTDQ (checked by the caller).
        |a, b| unsafe { and_popcount4_avx512([a; 4], b)[0] },
        |a, b| unsafe { and_popcount4_avx512(a, b) },
    );
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
unsafe fn tile_avx2(bits: &BitAdjacency, i0: usize, chunk: &mut [u16]) {
    tile_with(
        bits,
        i0,
        chunk,
        // SAFETY: this function only runs on CPUs with AVX2 (checked by the caller).
        |a, b| unsafe { and_popcount_avx2(a, b) },
        |a, b| a.map(|a| unsafe { and_popcount_avx2(a, b) }),
    );
}

/// `Σ_k popcount(a[t][k] & b[k])` for four rows `a[t]` against one row `b` with AVX-512
/// (`vpandq` + `vpopcntq`, 8 words per instruction): `b` is loaded once for the four rows, and
/// the last `len % 8` words come from masked loads.
///
/// # Safety
/// The CPU must support `avx512f` and `avx512vpopcntdq`.
///
/// # Panics
/// When a row of `a` is shorter than `b`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
unsafe fn and_popcount4_avx512(a: [&[u64]; 4], b: &[u64]) -> [u32; 4] {
    use std::arch::x86_64::*;
    let len = b.len();
    assert!(a.iter().all(|r| r.len() >= len), "rows shorter than b");
    let blocks = len / 8;
    let mut acc = [_mm512_setzero_si512(); 4];
    let step = |acc: &mut [__m512i; 4], vb: __m512i, va: [__m512i; 4]| {
        for t in 0..4 {
            acc[t] = _mm512_add_epi64(acc[t], _mm512_popcnt_epi64(_mm512_and_si512(va[t], vb)));
        }
    };
    for k in 0..blocks {
        // SAFETY: 8·k + 7 < len ≤ every row's length; unaligned loads.
        let (vb, va) = unsafe {
            (
                _mm512_loadu_si512(b.as_ptr().add(8 * k).cast()),
                a.map(|r| _mm512_loadu_si512(r.as_ptr().add(8 * k).cast())),
            )
        };
        step(&mut acc, vb, va);
    }
    let rest = len - 8 * blocks;
    if rest > 0 {
        let mask: __mmask8 = (1u8 << rest) - 1;
        // SAFETY: masked loads read only the `rest` words 8·blocks .. len, which exist.
        let (vb, va) = unsafe {
            (
                _mm512_maskz_loadu_epi64(mask, b.as_ptr().add(8 * blocks).cast()),
                a.map(|r| _mm512_maskz_loadu_epi64(mask, r.as_ptr().add(8 * blocks).cast())),
            )
        };
        step(&mut acc, vb, va);
    }
    acc.map(|v| _mm512_reduce_add_epi64(v) as u32)
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

/// The portable count of one pair: `Σ popcount(a[k] & b[k])`.
#[inline(always)]
fn and_popcount(a: &[u64], b: &[u64]) -> u32 {
    a.iter().zip(b).map(|(x, y)| (x & y).count_ones()).sum()
}

/// Fills the rows `i0 .. i0 + TILE` with the portable word loop.
#[inline(always)]
fn tile_generic(bits: &BitAdjacency, i0: usize, chunk: &mut [u16]) {
    tile_with(bits, i0, chunk, and_popcount, |a, b| {
        a.map(|a| and_popcount(a, b))
    });
}

/// Counts the rows of `strip` that precede column row `j` (`strip[t]` is row `i0 + t`) against
/// row `rj`, four at a time with `count4` and the rest with `count`, passing `(t, count)` to
/// `put`.
#[inline(always)]
fn strip_counts(
    strip: &[&[u64]],
    active: usize,
    rj: &[u64],
    count: &impl Fn(&[u64], &[u64]) -> u32,
    count4: &impl Fn([&[u64]; 4], &[u64]) -> [u32; 4],
    mut put: impl FnMut(usize, u32),
) {
    let active = active.min(strip.len());
    let mut t = 0;
    while t + 4 <= active {
        let c = count4([strip[t], strip[t + 1], strip[t + 2], strip[t + 3]], rj);
        for (d, c) in c.into_iter().enumerate() {
            put(t + d, c);
        }
        t += 4;
    }
    while t < active {
        put(t, count(strip[t], rj));
        t += 1;
    }
}

/// Fills the rows `i0 .. i0 + TILE` of the upper triangle (`chunk` holds exactly those rows),
/// counting each pair with `count` (or four rows against one with `count4`).
#[inline(always)]
fn tile_with(
    bits: &BitAdjacency,
    i0: usize,
    chunk: &mut [u16],
    count: impl Fn(&[u64], &[u64]) -> u32,
    count4: impl Fn([&[u64]; 4], &[u64]) -> [u32; 4],
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
        strip_counts(&rows, j - i0, bits.row(j), &count, &count4, |t, c| {
            chunk[offs[t] + (j - i0 - t - 1)] = c as u16;
        });
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
        if has_avx512_popcount() {
            // SAFETY: the CPU supports the features the function is compiled for.
            unsafe { block_avx512(bits, rows, cols, out) };
            return;
        }
        if has_avx2_popcount() {
            // SAFETY: as above.
            unsafe { block_avx2(bits, rows, cols, out) };
            return;
        }
    }
    block_generic(bits, rows, cols, out);
}

/// [`block_counts`] with the portable word loop.
fn block_generic<T: CountCell>(
    bits: &BitAdjacency,
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
    out: &mut [T],
) {
    block_with(bits, rows, cols, out, and_popcount, |a, b| {
        a.map(|a| and_popcount(a, b))
    });
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
unsafe fn block_avx512<T: CountCell>(
    bits: &BitAdjacency,
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
    out: &mut [T],
) {
    block_with(
        bits,
        rows,
        cols,
        out,
        // SAFETY: this function only runs on CPUs with AVX-512 VPOPCNTDQ (checked by the caller).
        |a, b| unsafe { and_popcount4_avx512([a; 4], b)[0] },
        |a, b| unsafe { and_popcount4_avx512(a, b) },
    );
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
unsafe fn block_avx2<T: CountCell>(
    bits: &BitAdjacency,
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
    out: &mut [T],
) {
    block_with(
        bits,
        rows,
        cols,
        out,
        // SAFETY: this function only runs on CPUs with AVX2 (checked by the caller).
        |a, b| unsafe { and_popcount_avx2(a, b) },
        |a, b| a.map(|a| unsafe { and_popcount_avx2(a, b) }),
    );
}

/// The block loop: [`TILE`] rows at a time, each streamed column row combined with them.
#[inline(always)]
fn block_with<T: CountCell>(
    bits: &BitAdjacency,
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
    out: &mut [T],
    count: impl Fn(&[u64], &[u64]) -> u32,
    count4: impl Fn([&[u64]; 4], &[u64]) -> [u32; 4],
) {
    let width = cols.len();
    let mut i0 = rows.start;
    while i0 < rows.end {
        let i1 = (i0 + TILE).min(rows.end);
        let strip: Vec<&[u64]> = (i0..i1).map(|i| bits.row(i)).collect();
        for j in cols.start.max(i0 + 1)..cols.end {
            strip_counts(&strip, j - i0, bits.row(j), &count, &count4, |t, c| {
                out[(i0 + t - rows.start) * width + (j - cols.start)] = T::from_count(c);
            });
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
    fn avx512_popcount_matches_scalar_on_all_lengths() {
        #[cfg(target_arch = "x86_64")]
        if has_avx512_popcount() {
            let mut rng = dp_core::rng::seeded_rng(5);
            for len in (0..140).chain([500, 1563]) {
                let rows: Vec<Vec<u64>> = (0..5)
                    .map(|_| (0..len).map(|_| rng.random()).collect())
                    .collect();
                let b = &rows[4];
                let a = [&rows[0][..], &rows[1], &rows[2], &rows[3]];
                let want = a.map(|a| and_popcount(a, b));
                // SAFETY: AVX-512 VPOPCNTDQ detected above.
                assert_eq!(unsafe { and_popcount4_avx512(a, b) }, want, "len {len}");
            }
            let ones = vec![u64::MAX; 1563];
            // SAFETY: as above.
            let got = unsafe { and_popcount4_avx512([&ones[..]; 4], &ones) };
            assert_eq!(got, [1563 * 64; 4]);
        }
    }

    #[test]
    fn every_block_kernel_agrees() {
        let g = erdos_renyi(203, 0.2, &mut dp_core::rng::seeded_rng(6)).unwrap();
        let bits = g.bit_adjacency();
        let (rows, cols) = (3..150, 1..203);
        let cells = rows.len() * cols.len();
        let mut want = vec![0u32; cells];
        block_generic(&bits, rows.clone(), cols.clone(), &mut want);
        let mut got = vec![0u32; cells];
        block_counts(&bits, rows.clone(), cols.clone(), &mut got);
        assert_eq!(got, want, "dispatched kernel");
        #[cfg(target_arch = "x86_64")]
        {
            if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("popcnt") {
                let mut got = vec![0u32; cells];
                // SAFETY: AVX2 detected.
                unsafe { block_avx2(&bits, rows.clone(), cols.clone(), &mut got) };
                assert_eq!(got, want, "AVX2 kernel");
                let mut tile = vec![0u16; (0..TILE).map(|i| 202 - i).sum()];
                let mut generic = tile.clone();
                // SAFETY: as above.
                unsafe { tile_avx2(&bits, 0, &mut tile) };
                tile_generic(&bits, 0, &mut generic);
                assert_eq!(tile, generic, "AVX2 tile");
            }
            if has_avx512_popcount() {
                let mut got = vec![0u32; cells];
                // SAFETY: AVX-512 VPOPCNTDQ detected.
                unsafe { block_avx512(&bits, rows.clone(), cols.clone(), &mut got) };
                assert_eq!(got, want, "AVX-512 kernel");
                let mut tile = vec![0u16; (0..TILE).map(|i| 202 - i).sum()];
                let mut generic = tile.clone();
                // SAFETY: as above.
                unsafe { tile_avx512(&bits, 0, &mut tile) };
                tile_generic(&bits, 0, &mut generic);
                assert_eq!(tile, generic, "AVX-512 tile");
            }
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
