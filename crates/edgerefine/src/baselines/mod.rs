//! The baselines of the EdgeRefine evaluation (issue 6): randomized response in two flavours,
//! the original Blink (hard, soft, hybrid), LDPGen and DPRR; beside them, clearly labelled, the
//! Blink variant inside the EdgeRefine authors' artifact ([`blink_artifact()`]), which the
//! paper's "over Blink" numbers are measured against.
//!
//! Every baseline is a function of the true graph (it simulates all users, owner side), ε and a
//! passed-in RNG, and returns a [`BaselineRelease`]: the released graph, optional edge weights
//! aligned with [`Graph::edges`] order, a short `name` and a `variant` string that says exactly
//! which variant and which parameters produced it.
//!
//! # Privacy models
//! Two statements appear in every `# Privacy` section, because the baselines differ in who
//! reports a pair:
//! - **per-user edge LDP** (Qin et al. CCS 2017, Def. 2; Blink's "link LDP"): each user's report
//!   is ε-DP with respect to one bit of her own neighbour list;
//! - **edge DP of the release** (neighbouring graphs differ in one undirected edge): when both
//!   endpoints of a pair report on it (RR, Blink, LDPGen, DPRR) an edge changes two reports and
//!   the release is 2ε-edge DP by composition; [`symrr`] randomizes each pair once and is ε-edge
//!   DP. [`BaselineRelease::eps_edge`] records that number. The artifact's Blink
//!   ([`blink_artifact()`]) is labelled ε but spends `ε_a + 4ε_d` without its degree-1 fix and
//!   has no finite ε with it (its `eps_edge` is then `+∞`); see [`BlinkArtifactSpend`].
//!
//! # Randomness
//! Randomized response over pairs uses dp-core's [`GeometricSkip`](dp_core::samplers::GeometricSkip) (O(m + #flips), never a dense
//! float matrix on the owner side); Laplace noise uses dp-core's floating-point Laplace mechanism
//! ([`dp_core::mechanisms::ValidLaplace::release`]), as the baselines' papers do. Pass a CSPRNG
//! for anything that leaves the machine.

mod blink;
mod blink_artifact;
mod dprr;
mod ldpgen;
mod rr;

pub use blink::{
    BlinkParams, BlinkPosterior, BlinkReports, BlinkVariant, beta_model_fit, blink, blink_client,
    blink_server,
};
pub use blink_artifact::{
    BlinkArtifactParams, BlinkArtifactPosterior, BlinkArtifactReports, BlinkArtifactSpend,
    BlinkArtifactSplit, BlinkArtifactVariant, blink_artifact, blink_artifact_client,
    blink_artifact_server,
};
pub use dprr::{DprrParams, DprrReports, dprr, dprr_default_eps1, dprr_reports};
pub use ldpgen::{LdpGenParams, ldpgen};
pub use rr::{rr, symrr};

use dp_core::params::{Epsilon, EpsilonBound};
use graph_core::Graph;
use rand::CryptoRng;

use crate::error::{EdgeRefineError, Result};

graph_core::choice_enum! {
    /// A baseline by name, as the front ends spell it (`dpgraph.edgerefine.baseline(method=…)`):
    /// [`Baseline::release`] runs it with its default parameters at ε.
    pub enum Baseline: "baseline" {
        /// Randomized response, both endpoints report, OR-symmetrised ([`rr`]).
        Rr => "rr",
        /// Randomized response on each pair once ([`symrr`]).
        SymRr => "symrr",
        /// Blink, hard threshold (Zhu et al. CCS 2023, δ_b = 0.1).
        BlinkHard => "blink-hard",
        /// Blink, posterior weights.
        BlinkSoft => "blink-soft",
        /// Blink, hybrid.
        BlinkHybrid => "blink-hybrid",
        /// Blink as the EdgeRefine artifact runs it (not the original), hard: p > 0.5 with
        /// ε_d = 0.1, ε_a = ε − 0.1 and one symmetric report counted twice ([`blink_artifact()`]).
        BlinkArtifactHard => "blink-artifact-hard",
        /// Blink as the EdgeRefine artifact runs it (not the original), hybrid: the hard pairs
        /// weighted by their posterior.
        BlinkArtifactHybrid => "blink-artifact-hybrid",
        /// LDPGen (Qin et al. CCS 2017).
        LdpGen => "ldpgen",
        /// DPRR with its default ε₁ share.
        Dprr => "dprr",
    }
}

impl Baseline {
    /// Releases `graph` under this baseline at per-user edge-LDP ε with its default parameters.
    ///
    /// # Errors
    /// As the baseline's function ([`rr()`], [`symrr`], [`blink()`], [`blink_artifact()`],
    /// [`ldpgen()`], [`dprr()`]); the artifact's Blink also rejects ε ≤ 0.1.
    ///
    /// # Privacy
    /// ε-edge LDP per user (the artifact's Blink: ε is only its label, see
    /// [`BlinkArtifactSpend`]); the release's edge-DP ε is [`BaselineRelease::eps_edge`].
    pub fn release<R: CryptoRng + ?Sized>(
        self,
        graph: &Graph,
        eps: Epsilon,
        rng: &mut R,
    ) -> Result<BaselineRelease> {
        let blink_with = |v, rng: &mut R| blink(graph, v, &BlinkParams::new(eps), rng);
        let artifact_with =
            |v, rng: &mut R| blink_artifact(graph, v, &BlinkArtifactParams::new(eps), rng);
        match self {
            Self::Rr => rr(graph, eps, rng),
            Self::SymRr => symrr(graph, eps, rng),
            Self::BlinkHard => blink_with(BlinkVariant::Hard, rng),
            Self::BlinkSoft => blink_with(BlinkVariant::Soft, rng),
            Self::BlinkHybrid => blink_with(BlinkVariant::Hybrid, rng),
            Self::BlinkArtifactHard => artifact_with(BlinkArtifactVariant::Hard, rng),
            Self::BlinkArtifactHybrid => artifact_with(BlinkArtifactVariant::Hybrid, rng),
            Self::LdpGen => ldpgen(graph, &LdpGenParams::new(eps), rng),
            Self::Dprr => dprr(graph, &DprrParams::new(eps), rng),
        }
    }
}

/// A graph released by a baseline.
#[derive(Clone, Debug, PartialEq)]
pub struct BaselineRelease {
    /// The released (or generated) graph on the same node ids as the input.
    pub graph: Graph,
    /// Edge weights aligned with `graph.edges()` (lexicographic `(u, v)`, `u < v`), for the
    /// weighted variants (Blink soft and hybrid, the artifact's Blink hybrid); `None` for
    /// unweighted releases.
    pub weights: Option<Vec<f32>>,
    /// Short method name: `rr`, `symrr`, `blink-hard`, `blink-soft`, `blink-hybrid`,
    /// `blink-artifact-hard`, `blink-artifact-hybrid`, `ldpgen`, `dprr`.
    pub name: &'static str,
    /// Exactly which variant and parameters, e.g.
    /// `blink-hard (original, Zhu et al. CCS 2023; delta_b=0.1, eps_d=0.1, eps_a=0.9)`.
    pub variant: String,
    /// The ε the method was called with (per-user edge LDP; for the artifact's Blink only the
    /// paper's label, see [`BlinkArtifactSpend`]).
    pub eps: Epsilon,
    /// The edge-DP guarantee of the whole release (2ε when both endpoints report on a pair;
    /// `+∞` when there is none, as for the artifact's Blink with its degree-1 fix).
    pub eps_edge: EpsilonBound,
}

/// Validates a budget share in the open interval (0, 1).
pub(crate) fn check_share(name: &'static str, share: f64) -> Result<f64> {
    if !share.is_finite() || share <= 0.0 || share >= 1.0 {
        return Err(EdgeRefineError::InvalidParam {
            name,
            value: share,
            reason: "must be in (0, 1)",
        });
    }
    Ok(share)
}

/// Maps an index `pos < n(n−1)` over the ordered pairs `(i, j)`, `j ≠ i`, in row-major order to
/// the pair.
pub(crate) fn ordered_pair(pos: u64, n: u64) -> (u32, u32) {
    let i = pos / (n - 1);
    let c = pos % (n - 1);
    let j = if c >= i { c + 1 } else { c };
    (i as u32, j as u32)
}

/// A dense `n × n` bit matrix, row-major, `ceil(n/64)` words a row (n²/8 bytes: 8 MB at n = 8,000).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BitMatrix {
    n: usize,
    words: usize,
    bits: Vec<u64>,
}

impl BitMatrix {
    pub(crate) fn new(n: usize) -> Self {
        let words = n.div_ceil(64);
        Self {
            n,
            words,
            bits: vec![0; n * words],
        }
    }

    pub(crate) fn n(&self) -> usize {
        self.n
    }

    pub(crate) fn words(&self) -> usize {
        self.words
    }

    pub(crate) fn set(&mut self, i: usize, j: usize) {
        self.bits[i * self.words + j / 64] |= 1 << (j % 64);
    }

    pub(crate) fn get(&self, i: usize, j: usize) -> bool {
        self.bits[i * self.words + j / 64] >> (j % 64) & 1 == 1
    }

    pub(crate) fn clear(&mut self, i: usize, j: usize) {
        self.bits[i * self.words + j / 64] &= !(1 << (j % 64));
    }

    pub(crate) fn row(&self, i: usize) -> &[u64] {
        &self.bits[i * self.words..(i + 1) * self.words]
    }

    pub(crate) fn row_mut(&mut self, i: usize) -> &mut [u64] {
        &mut self.bits[i * self.words..(i + 1) * self.words]
    }

    pub(crate) fn rows_mut(&mut self) -> std::slice::ChunksExactMut<'_, u64> {
        self.bits.chunks_exact_mut(self.words.max(1))
    }

    /// Iterates the set bits `(i, j)` row by row.
    pub(crate) fn ones(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..self.n).flat_map(move |i| set_bits(self.row(i)).map(move |j| (i, j)))
    }

    /// The bit matrix of a graph's adjacency.
    pub(crate) fn from_graph(g: &Graph) -> Self {
        let mut m = Self::new(g.num_nodes());
        for (u, v) in g.edges() {
            m.set(u as usize, v as usize);
            m.set(v as usize, u as usize);
        }
        m
    }

    /// Number of set bits.
    pub(crate) fn count(&self) -> u64 {
        self.bits.iter().map(|w| u64::from(w.count_ones())).sum()
    }
}

/// Draws `⌊x⌋ + Bernoulli(x − ⌊x⌋)` (unbiased stochastic rounding of a non-negative `x`).
pub(crate) fn stochastic_round<R: CryptoRng + ?Sized>(x: f64, rng: &mut R) -> u64 {
    if x.is_nan() || x <= 0.0 {
        return 0;
    }
    let f = x.floor();
    let frac = dp_core::samplers::Bernoulli::new((x - f).clamp(0.0, 1.0))
        .expect("a fraction in [0, 1] is a probability");
    f as u64 + u64::from(frac.sample(rng))
}

/// The positions of the set bits of `words` (bit `b` of word `w` is position `64·w + b`),
/// increasing.
pub(crate) fn set_bits(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words.iter().enumerate().flat_map(|(w, &word)| {
        let mut x = word;
        std::iter::from_fn(move || {
            if x == 0 {
                return None;
            }
            let b = x.trailing_zeros() as usize;
            x &= x - 1;
            Some(w * 64 + b)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordered_pair_enumerates_off_diagonal() {
        let n = 5u64;
        let pairs: Vec<(u32, u32)> = (0..n * (n - 1)).map(|p| ordered_pair(p, n)).collect();
        let mut expected = Vec::new();
        for i in 0..5u32 {
            for j in 0..5u32 {
                if i != j {
                    expected.push((i, j));
                }
            }
        }
        assert_eq!(pairs, expected);
    }

    #[test]
    fn every_named_baseline_releases_under_its_name() {
        let g =
            graph_core::generate::erdos_renyi(80, 0.08, &mut dp_core::rng::seeded_rng(1)).unwrap();
        for b in Baseline::ALL {
            let r = b
                .release(&g, Epsilon::constant(2.0), &mut dp_core::rng::seeded_rng(5))
                .unwrap();
            let again = b
                .release(&g, Epsilon::constant(2.0), &mut dp_core::rng::seeded_rng(5))
                .unwrap();
            assert_eq!(r, again, "{b}");
            assert_eq!(r.name, b.name());
            assert_eq!(r.eps.get(), 2.0);
            let weighted = matches!(
                b,
                Baseline::BlinkSoft | Baseline::BlinkHybrid | Baseline::BlinkArtifactHybrid
            );
            assert_eq!(r.weights.is_some(), weighted, "{b}");
            let eps_edge = match b {
                Baseline::SymRr => 2.0,
                // The artifact's degree-1 fix has no finite ε.
                Baseline::BlinkArtifactHard | Baseline::BlinkArtifactHybrid => f64::INFINITY,
                _ => 4.0,
            };
            assert_eq!(r.eps_edge.get(), eps_edge, "{b}");
        }
        assert!(matches!(
            Baseline::BlinkArtifactHard.release(
                &g,
                Epsilon::constant(0.1),
                &mut dp_core::rng::seeded_rng(5)
            ),
            Err(EdgeRefineError::InvalidParam { name: "eps", .. })
        ));
    }

    #[test]
    fn bit_matrix_roundtrip() {
        let g = Graph::from_edges(70, &[(0, 69), (3, 64), (5, 6)]).unwrap();
        let m = BitMatrix::from_graph(&g);
        assert!(m.get(69, 0) && m.get(0, 69) && m.get(64, 3) && !m.get(1, 2));
        assert_eq!(m.count(), 6);
        let ones: Vec<(usize, usize)> = m.ones().collect();
        assert_eq!(ones[0], (0, 69));
        assert_eq!(ones.len(), 6);
    }
}
