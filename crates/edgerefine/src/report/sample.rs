//! Sampling a report straight into its dense body: the data owner's randomized response written
//! as packed bits while it is drawn, so that memory is the report and nothing else.

use dp_core::mechanisms::RandomizedResponse;
use dp_core::params::Epsilon;
use dp_core::samplers::{BernoulliWord, GeometricSkip};
use graph_core::Graph;
use rand::CryptoRng;

use super::decode::dense_pairs;
use super::encode::{encode_report, write_pairs};
use super::header::{Encoding, HEADER_LEN, bit_index, body_len, count_bits, pairs, seal};
use crate::client::symmetric_rr;
use crate::error::{EdgeRefineError, Result};

/// Flip probabilities from which [`perturb_report`] draws whole words of 64 pairs
/// ([`BernoulliWord`], ≤ 32 uniform words per 64 pairs) instead of geometric gaps
/// ([`GeometricSkip`], one logarithm per flip): `q ≥ 1/8`, i.e. `ε ≤ ln 7 ≈ 1.95`. Measured
/// (`cargo bench -p dp-core --bench samplers -- bernoulli_5e7`): 2.2 ns per pair for the words
/// against 15–29 ns per flip for the gaps, even at `q ≈ 0.1`.
pub const WORD_SAMPLER_MIN_FLIP: f64 = 0.125;

/// How [`perturb_report`] draws the flips of the non-edges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlipSampler {
    /// Geometric gaps between flips ([`GeometricSkip`]): the same draws, in the same order, as
    /// [`crate::perturb`], so the report holds the same noisy graph for the same generator.
    Skip,
    /// 64 pairs per call, bit-sliced ([`BernoulliWord::at_least_complement`] of the keep
    /// decision): flip probability rounded up to the 2⁻³² grid; a different (equally
    /// distributed up to that rounding) draw from [`crate::perturb`]'s.
    Words,
}

impl FlipSampler {
    /// The sampler [`perturb_report`] uses at flip probability `flip`.
    pub fn for_flip(flip: f64) -> Self {
        if flip >= WORD_SAMPLER_MIN_FLIP {
            Self::Words
        } else {
            Self::Skip
        }
    }
}

/// Randomized response on every pair of the upper triangle, encoded as a report (the
/// [module format](super)): the dense body is filled while the noise is drawn, so a release of
/// billions of noisy edges needs the report's `n(n−1)/16` bytes and not an edge list.
///
/// True edges are kept by `rr`'s keep trial (drawn first, in edge order, as [`crate::perturb`]);
/// non-edges flip by [`FlipSampler::for_flip`]`(1 − keep)`. Where the report comes out sparse
/// (fewer than one pair in 64 is a noisy edge, `ε ≳ 4.1`), the noisy graph is built as
/// [`crate::perturb`] does and encoded, which needs less memory there.
///
/// The bytes equal [`super::encode_report`] of the noisy graph they hold; with
/// [`FlipSampler::Skip`] that graph is [`crate::perturb`]'s for the same generator.
///
/// # Errors
/// [`EdgeRefineError::InvalidParam`] if `rr` is not binary; [`EdgeRefineError::Graph`] wrapping
/// [`graph_core::GraphError::TooLarge`] when the report does not fit the memory budget.
///
/// # Privacy
/// `rr.pure_dp()`-edge local DP: each pair is decided once, a true edge kept with the keep
/// trial's realised probability `k`, a non-edge flipped with probability `≥ 1 − k` (words,
/// exact; see [`BernoulliWord::at_least_complement`]) or `1 − k` up to 1e-15 relative (gaps,
/// see [`GeometricSkip`]). Pass a CSPRNG (`dp_core::rng::os_rng`) for releases.
///
/// # Complexity
/// Dense: O(n²/64 · rounds) uniform words (words) or O(#flips) gaps (skip), plus O(m); memory
/// `64 + 8⌈n(n−1)/128⌉` bytes (the report) plus `16m` bytes of true-edge positions and keep
/// decisions.
///
/// # Example
/// ```
/// use dp_core::mechanisms::RandomizedResponse;
/// use edgerefine::report::{decode_report, perturb_report};
/// use graph_core::Graph;
///
/// let g = Graph::from_edges(300, &[(0, 1), (1, 2)])?;
/// let rr = RandomizedResponse::binary(0.5)?;
/// let bytes = perturb_report(&g, &rr, &mut dp_core::rng::seeded_rng(1))?;
/// let (header, noisy) = decode_report(&bytes)?;
/// assert_eq!(header.edges as usize, noisy.num_edges());
/// // q ≈ 0.378 of the 44,850 pairs: ≈ 16,950 noisy edges, sd ≈ 103.
/// assert!((noisy.num_edges() as f64 - 16_950.0).abs() < 600.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn perturb_report<R: CryptoRng + ?Sized>(
    graph: &Graph,
    rr: &RandomizedResponse,
    rng: &mut R,
) -> Result<Vec<u8>> {
    if rr.categories() != 2 {
        return Err(EdgeRefineError::InvalidParam {
            name: "categories",
            value: rr.categories() as f64,
            reason: "edge randomized response is binary",
        });
    }
    let eps = Epsilon::new(rr.eps())?;
    let keep = rr.keep_trial();
    let flip = 1.0 - rr.keep_prob();
    let n = graph.num_nodes() as u64;
    let total = pairs(n);
    let dense_len = body_len(Encoding::Dense, n, 0);
    // Expected noisy edges against the pairs a dense word holds.
    let expected = flip * total as f64 + graph.num_edges() as f64;
    if 8.0 * expected < dense_len as f64 {
        let noisy = symmetric_rr(graph, keep, flip, rng)?;
        return encode_report(&noisy, eps);
    }
    let out_len = usize::try_from(dense_len + HEADER_LEN as u128).unwrap_or(usize::MAX);
    let mut out: Vec<u8> = graph_core::limits::zeroed_vec(
        &format!(
            "the randomized-response report of {} nodes",
            graph.num_nodes()
        ),
        out_len,
    )?;

    // The keep decisions first, in edge order (as `perturb`), as bit positions.
    let decisions: Vec<(u64, bool)> = graph
        .edges()
        .map(|(u, v)| (bit_index(n, u, v), keep.sample(rng)))
        .collect();

    let body = &mut out[HEADER_LEN..];
    match FlipSampler::for_flip(flip) {
        FlipSampler::Words => {
            let word = BernoulliWord::at_least_complement(keep);
            for chunk in body.chunks_exact_mut(8) {
                chunk.copy_from_slice(&word.sample(rng).to_le_bytes());
            }
            let used = (total % 64) as u32;
            if used != 0 {
                let last = body.len() - 8;
                let w = u64::from_le_bytes(body[last..].try_into().expect("8 bytes"));
                body[last..].copy_from_slice(&(w & ((1u64 << used) - 1)).to_le_bytes());
            }
        }
        FlipSampler::Skip => {
            // Flips at every position; true-edge positions are overwritten below.
            // The positions of `perturb`'s skips (blocks of draws; nothing draws after them).
            let skip = GeometricSkip::new(total as u64, flip)?;
            skip.for_each_position(rng, |k| body[(k / 8) as usize] |= 1 << (k % 8));
        }
    }
    for &(k, kept) in &decisions {
        let (byte, bit) = ((k / 8) as usize, k % 8);
        body[byte] = (body[byte] & !(1 << bit)) | (u8::from(kept) << bit);
    }
    drop(decisions);

    let edges = count_bits(body);
    if body_len(Encoding::Sparse, n, edges) < dense_len {
        // Rare at the densities that reach here: re-encode the same bits sparsely.
        return sparse_from_dense(n, eps, rr.keep_prob(), body, edges);
    }
    seal(&mut out, Encoding::Dense, n, edges, eps, rr.keep_prob());
    Ok(out)
}

/// The sparse encoding of a dense body's set bits.
fn sparse_from_dense(
    n: u64,
    eps: Epsilon,
    keep_prob: f64,
    body: &[u8],
    edges: u64,
) -> Result<Vec<u8>> {
    let len = HEADER_LEN + 8 * edges as usize;
    let mut out = vec![0u8; len];
    write_pairs(&mut out[HEADER_LEN..], dense_pairs(n, body));
    seal(&mut out, Encoding::Sparse, n, edges, eps, keep_prob);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::decode_report;
    use dp_core::params::Epsilon;
    use graph_core::generate::erdos_renyi;

    fn graph() -> Graph {
        erdos_renyi(700, 0.02, &mut dp_core::rng::seeded_rng(2)).unwrap()
    }

    #[test]
    fn skip_reports_hold_perturbs_graph_and_encode_like_it() {
        // ε = 2.5: flip 0.076 < 1/8, dense report (the gaps, the same draws as perturb).
        let g = graph();
        let rr = RandomizedResponse::binary(2.5).unwrap();
        assert_eq!(
            FlipSampler::for_flip(1.0 - rr.keep_prob()),
            FlipSampler::Skip
        );
        let bytes = perturb_report(&g, &rr, &mut dp_core::rng::seeded_rng(9)).unwrap();
        let noisy = crate::perturb(
            &g,
            Epsilon::new(2.5).unwrap(),
            &mut dp_core::rng::seeded_rng(9),
        )
        .unwrap();
        assert_eq!(
            bytes,
            encode_report(&noisy, Epsilon::new(2.5).unwrap()).unwrap()
        );
        assert_eq!(bytes[12], 0, "dense encoding");
    }

    #[test]
    fn sparse_regime_matches_perturb_too() {
        // n = 3,000, ≈ 2,250 edges, ε = 7: ≈ 4,050 flips + 2,250 kept ≪ 4.5M pairs / 64.
        let g = erdos_renyi(3000, 0.0005, &mut dp_core::rng::seeded_rng(3)).unwrap();
        let rr = RandomizedResponse::binary(7.0).unwrap();
        let bytes = perturb_report(&g, &rr, &mut dp_core::rng::seeded_rng(4)).unwrap();
        let noisy = crate::perturb(
            &g,
            Epsilon::new(7.0).unwrap(),
            &mut dp_core::rng::seeded_rng(4),
        )
        .unwrap();
        assert_eq!(
            bytes,
            encode_report(&noisy, Epsilon::new(7.0).unwrap()).unwrap()
        );
        assert_eq!(bytes[12], 1, "sparse encoding");
    }

    #[test]
    fn word_reports_are_valid_and_have_randomized_response_frequencies() {
        // ε = 1: flip ≈ 0.269 ≥ 1/8 (words). 244,650 pairs.
        let g = graph();
        let eps = 1.0;
        let rr = RandomizedResponse::binary(eps).unwrap();
        assert_eq!(
            FlipSampler::for_flip(1.0 - rr.keep_prob()),
            FlipSampler::Words
        );
        let bytes = perturb_report(&g, &rr, &mut dp_core::rng::seeded_rng(5)).unwrap();
        assert_eq!(
            bytes,
            encode_report(
                &decode_report(&bytes).unwrap().1,
                Epsilon::new(eps).unwrap()
            )
            .unwrap()
        );
        let (_, noisy) = decode_report(&bytes).unwrap();
        let p = rr.keep_prob();
        let m = g.num_edges() as f64;
        let kept = g.edges().filter(|&(u, v)| noisy.has_edge(u, v)).count() as f64;
        let non_edges = 700.0 * 699.0 / 2.0 - m;
        let flipped = noisy.num_edges() as f64 - kept;
        assert!(
            (kept - p * m).abs() < 5.0 * (m * p * (1.0 - p)).sqrt(),
            "kept {kept} of {m}"
        );
        let q = 1.0 - p;
        assert!(
            (flipped - q * non_edges).abs() < 5.0 * (non_edges * q * p).sqrt(),
            "flipped {flipped} of {non_edges}"
        );
        // Same generator, same report; another one, another report.
        let again = perturb_report(&g, &rr, &mut dp_core::rng::seeded_rng(5)).unwrap();
        assert_eq!(bytes, again);
        let other = perturb_report(&g, &rr, &mut dp_core::rng::seeded_rng(6)).unwrap();
        assert_ne!(bytes, other);
    }

    #[test]
    fn a_dense_body_re_encoded_sparsely_is_the_encoders_sparse_report() {
        let g = Graph::from_edges(200, &[(0, 199), (5, 6), (7, 150)]).unwrap();
        let n = 200u64;
        let mut body = vec![0u8; body_len(Encoding::Dense, n, 0) as usize];
        for (u, v) in g.edges() {
            let k = bit_index(n, u, v);
            body[(k / 8) as usize] |= 1 << (k % 8);
        }
        let kp = crate::keep_probability(Epsilon::new(1.5).unwrap()).unwrap();
        let bytes = sparse_from_dense(n, Epsilon::new(1.5).unwrap(), kp, &body, 3).unwrap();
        assert_eq!(
            bytes,
            encode_report(&g, Epsilon::new(1.5).unwrap()).unwrap()
        );
    }

    #[test]
    fn padding_stays_zero_and_tiny_graphs_work() {
        // n = 12: 66 pairs, two words, 62 padding bits; ε = 0.1 (words).
        let g = Graph::from_edges(12, &[(0, 11), (3, 4)]).unwrap();
        let rr = RandomizedResponse::binary(0.1).unwrap();
        for seed in 0..20 {
            let bytes = perturb_report(&g, &rr, &mut dp_core::rng::seeded_rng(seed)).unwrap();
            decode_report(&bytes).expect("valid report (zero padding, counted m)");
        }
        let two = Graph::from_edges(2, &[]).unwrap();
        let bytes = perturb_report(&two, &rr, &mut dp_core::rng::seeded_rng(1)).unwrap();
        assert_eq!(decode_report(&bytes).unwrap().1.num_nodes(), 2);
        let multi = dp_core::mechanisms::RandomizedResponseParams::new(1.0)
            .categories(3)
            .check()
            .unwrap();
        assert!(perturb_report(&g, &multi, &mut dp_core::rng::seeded_rng(1)).is_err());
    }
}
