//! A GRAND-style reconstruction attack on a released graph, and the relative error RAE.
//!
//! GRAND (Azogagh, Birba, Desharnais, Gambs, Killijian, Tawbi, "GRAND: Graph Reconstruction from
//! potential partial Adjacency and Neighborhood Data", arXiv 2412.02329, KDD 2025) reconstructs
//! a graph R from its common-neighbour matrix `M = R²` (`M_ii = d_i`, `M_ij = |N(i) ∩ N(j)|`)
//! by topological deductions, a spectral step, error forgetting and deductions again. Here the
//! attacker observes `M` of the k = 1 release and fills an estimate `A*` with 1 (edge), 0
//! (non-edge) or 2 (unknown); RAE = ‖A* − A‖_F² / ‖A‖_F² measures it against the TRUE graph A.
//! Two attackers, chosen by [`AttackParams`]: the **sound** one (deductions only: every entry
//! it decides holds for every graph with that `M`) and the **complete** one (deductions, then
//! the spectral step: more pairs decided, the extra ones guesses).
//!
//! # What is implemented
//! Sound deductions, iterated to a fixed point:
//! 1. **Degree step**: `d_i = 0` ⇒ row i is 0; `d_i = n − 1` ⇒ row i is 1. Leaves: if `d_i = 1`,
//!    i's neighbour k satisfies `M_ik = 0`, `d_k = |S| + 1` and `k ∉ S` with
//!    `S = {j ≠ i : M_ij = 1}`; when exactly one node qualifies it is k, and then
//!    `R_kj = [j ∈ S]` for every `j ∉ {i, k}` and row i is `e_k`.
//! 2. **Common-neighbour step**: `M_ij ≥ min(d_i, d_j)` ⇒ `R_ij = 0` (an edge puts j in N(i) but
//!    not in N(j)); `d_i + d_j − M_ij > n − 2` ⇒ `R_ij = 1` (a non-edge's union of neighbourhoods
//!    misses i and j).
//! 3. **Triangle step**, for every pair (j, k): the nodes known adjacent to both are known
//!    common neighbours (closed triangles i–j–k). If they already number `M_jk`, every other
//!    node known adjacent to one of them is not adjacent to the other (in particular `M_jk = 0`
//!    with `R_ij = 1` ⇒ `R_ik = 0`); if the nodes that may still be adjacent to both number
//!    exactly `M_jk`, all of them are adjacent to both.
//! 4. **Degree completion**: a row with `d_i` known ones gets 0 in its unknown entries; a row
//!    whose known ones plus unknowns equal `d_i` gets 1 in them.
//!
//! The complete attacker then runs GRAND's spectral step ([`SpectralParams`]) on the pairs
//! still unknown:
//! 5. **Eigendecomposition** of `M` (symmetric, positive semi-definite): `M = Σ_k μ_k u_k u_kᵀ`.
//!    R is symmetric with `R² = M`, so for simple eigenvalues `R = Σ_k s_k √μ_k u_k u_kᵀ` for
//!    some signs `s_k ∈ {±1}` (R's eigenvalues are `s_k √μ_k`).
//! 6. **Sign search**, greedy, in order of decreasing `μ_k`: the partial sum `X` gets the sign
//!    that makes `β·‖X − A*‖_F,known + α·‖X − round(X)‖_F,unknown` smaller, where "known" are
//!    the deduced pairs and the diagonal (target 0), round(x) = [x ≥ θ], `β` = the share of
//!    known entries of the n × n matrix and `α = 1 − β`.
//! 7. **Rounding**: every unknown pair becomes `[X_ij ≥ θ]` (θ = 0.5). Deduced pairs are never
//!    changed.
//! 8. **Error forgetting**: the estimate B (deductions and guesses) is squared; every row i
//!    with `(B²)_ij ≠ M_ij` for some j (its degree included) gives all its guesses back to
//!    unknown.
//! 9. **Deductions again** (steps 3–4) with the remaining guesses among the premises; what they
//!    decide is a guess too ([`Reconstruction::is_guess`]).
//!
//! Source of steps 5–9: the authors' code (github.com/birbaubin/GRAND, MIT, the KDD 2025
//! artifact): `revisited_spectral.py` (`RevisitedSpectral.run`, `sanity_check_with_high_loss`)
//! and its `DDH` pipeline in `benchmark.py` (deterministic attack, spectral attack, sanity
//! check, deterministic attack without the degree attack), with the weights of its launcher
//! (`DDH_0.0_0.0_0_*`: α = β = γ = 0 selects `β` = known share, `α = 1 − β`, no `γ` term). The
//! paper's own text of the spectral step was not available here; the description above is our
//! reading of that code. Where we differ from it:
//! - **Blocks.** `M` is block diagonal over the connected components of its support (pairs with
//!   a common neighbour); each block is decomposed on its own, which is an eigendecomposition of
//!   `M` (the authors take the SVD of the whole matrix; for a positive semi-definite matrix the
//!   two coincide).
//! - **One sign per eigenspace.** Eigenvalues of one block within `1e-8` of the largest are one
//!   group and share a sign. The authors sign each singular vector, which for a repeated
//!   eigenvalue depends on the basis the solver happens to return; for simple eigenvalues
//!   (generic graphs) the two agree. With it the 9-cycle is recovered, without it not.
//! - **Rank limit** ([`SpectralParams::rank`], default [`DEFAULT_RANK`] = 256): only the largest
//!   eigenpairs, from Lanczos for large blocks (the authors use all of them).
//! - **Deductions.** Our sound rules above, not the authors' rule set (their degree and
//!   rectangle attacks are not here; their matching and completion attacks are our triangle and
//!   completion steps).
//! - **No final completion.** The authors' `DDH_…_1` variant sets the pairs still unknown to 0
//!   at the end; here they stay 2, as the EdgeRefine paper's RAE counts them.
//!
//! The sign search is a greedy heuristic. While the entries of `X` lie below θ the rounding
//! cost is `Σ x²`, so each sign is the one that keeps the partial sum small: on small or dense
//! graphs (the tests: cycles of 7 and 9 nodes, random graphs of 20–60 nodes, half of them
//! recovered exactly) it finds R, on large sparse graphs it rounds nearly every pair to 0
//! (random graphs of 150–500 nodes and mean degree 6–15: at most a handful of true edges among
//! its guesses) and error forgetting then gives back every guess. `M` also does not determine
//! R in general: co-square graphs share it (the 6-cycle and two triangles; the spectral step
//! may return either).
//!
//! Not implemented: GRAND's co-square instantiation (choosing among co-square graphs), the
//! final completion to 0, and the knowledgeable adversary with prior edges. The EdgeRefine
//! artifact's attack (`exp_grand_attack.py`, which gives the paper's RAE ≈ 1.962 on Cora) is such
//! a knowledgeable adversary: it starts from the release itself as its prior, marks as unknown
//! the released non-edges with at least `max(2, ⌊0.3·mean degree⌋)` common neighbours and the
//! released edges with none, and runs GRAND's deterministic rules (no spectral step); its RAE
//! is therefore close to that of taking the release as the guess ([`release_rae`], =
//! 2·(1 − precision) when the release has |E| edges), not to that of an attacker who sees `M`
//! only.
//!
//! # RAE with unknown pairs
//! Over unordered pairs, an unknown pair costs 1 if it is an edge of A and 4 if not; a decided
//! pair costs 1 if wrong and 0 if right: `RAE = (false + missed + unknown edges + 4·unknown
//! non-edges) / m`. A guess never costs more than leaving the pair unknown, so the complete
//! attacker's RAE is at most the sound one's. Leaving everything unknown gives
//! `(4·N − 3m)/m` with `N = n(n−1)/2`; guessing the empty graph gives exactly 1.
//!
//! # Complexity
//! Deductions: see [`grand_attack`]. Spectral step, for blocks of `s` nodes: dense symmetric
//! eigendecomposition O(s³) per block (linfa-linalg's `eigh`, single-threaded; measured here on
//! 2 cores, release build: 156 s at s = 2,708, 47 s at 2,000, 2.6 s at 1,000); with the rank
//! limit r, a block larger than `2r + 32` costs instead `2r + 32` Lanczos steps (O((2r)²·s) with
//! full reorthogonalisation, plus a dense `eigh` of the `(2r + 32)²` tridiagonal matrix). The
//! sign search costs O(s²) per eigenpair (two passes over the block's upper triangle); error
//! forgetting O(n²·n/64). On Cora's k = 1 releases (one block of 2,400–2,650 nodes) the whole
//! complete attack takes 133–170 s per ε without a rank limit (eigendecomposition 85–101 s,
//! sign search of 2,270–2,490 eigenpairs 48–68 s) and 4.5–9 s with the default rank 256
//! (Lanczos 1.3–1.5 s, sign search 3–7.5 s; the sound deductions alone take 20–75 ms); these
//! timings were taken on 2 cores shared with other jobs, so they vary by up to 2×. AMAP's
//! k = 1 release at ε = 2.5 (one block of ≈ 7,650 nodes) takes 101 s with the default rank
//! (deductions 11 s, Lanczos 26 s, sign search 51 s, error forgetting ≈ 13 s); without a rank
//! limit its dense eigendecomposition alone would take ≈ 1 hour per ε (the O(s³) extrapolation
//! of the timings above), hence the default limit. What the limit costs: on graphs up to 544 nodes
//! nothing (every block is decomposed exactly); on random graphs of 150–500 nodes the share of
//! correct guesses before forgetting moves by less than 1 point between rank 16, 64, 200 and all
//! (0.944–0.988), and after forgetting nothing is left at any rank; on Cora's releases the
//! rounding guesses 6–185 edges (of 5,278) at every rank tried (128, 256, 512, all) and
//! forgetting gives every guess back, so the RAE is the same.
//!
//! # Memory
//! Deductions: three n × n bit matrices (known ones, known zeros, support of M) plus the
//! release's bits, 4·n²/8 bytes (32 MB at n = 8,000); `M` entries are computed on demand by
//! AND + popcount of the release's bit rows. The complete attacker adds four bit matrices
//! (guesses, and the estimate at rounding) and, per block of s nodes, the partial sum `X`
//! (`s × s` f64) with its entry classes (`s × s` bytes) and the eigenvectors (`s` f64 each, at
//! most `rank` of them); a block decomposed densely also holds a dense copy of `M` and the
//! solver's work matrices (≈ 3·`s²` f64), a Lanczos block the sparse rows of `M` and
//! `2·rank + 32` basis vectors. Cora with the default rank: ≈ 80 MB; AMAP: ≈ 0.6 GB; Cora
//! without a rank limit: ≈ 0.25 GB.

use graph_core::{BitAdjacency, Graph};
use rayon::prelude::*;

use crate::baselines::BitMatrix;
use crate::baselines::set_bits as bits_of;
use crate::error::{EdgeRefineError, Result};

mod eigen;
mod spectral;

pub use spectral::{DEFAULT_RANK, SpectralParams, SpectralReport};

/// Parameters of [`grand_attack`]: which attacker runs.
///
/// [`AttackParams::sound`] (the default) runs the sound deductions only: every pair it decides
/// is certain. [`AttackParams::complete`] adds GRAND's spectral step and the deductions that
/// follow from its guesses: it decides more pairs, and the extra ones are guesses (see
/// [`Reconstruction::is_guess`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AttackParams {
    /// Upper bound on rounds of the triangle and degree-completion steps, before and again
    /// after the spectral step (each stops earlier at a fixed point).
    pub max_rounds: usize,
    /// GRAND's spectral step; `None` for the deductions alone.
    pub spectral: Option<SpectralParams>,
}

impl Default for AttackParams {
    fn default() -> Self {
        Self::sound()
    }
}

impl AttackParams {
    /// The sound deductions only (20 rounds at most): certain entries, many unknown.
    pub fn sound() -> Self {
        Self {
            max_rounds: 20,
            spectral: None,
        }
    }

    /// The complete GRAND-style attack: sound deductions, the spectral step with
    /// [`SpectralParams::default`] and the deductions from its guesses.
    pub fn complete() -> Self {
        Self {
            spectral: Some(SpectralParams::default()),
            ..Self::sound()
        }
    }

    /// Checks the parameters.
    ///
    /// # Errors
    /// [`EdgeRefineError::InvalidParam`] when `max_rounds == 0` or the spectral parameters are
    /// invalid ([`SpectralParams::check`]).
    pub fn check(&self) -> Result<()> {
        if self.max_rounds == 0 {
            return Err(EdgeRefineError::InvalidParam {
                name: "max_rounds",
                value: 0.0,
                reason: "must be >= 1",
            });
        }
        self.spectral.as_ref().map_or(Ok(()), SpectralParams::check)
    }
}

/// Pairs (unordered) decided by each step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepCounts {
    /// Degree step (zero/full rows and leaves).
    pub degree: u64,
    /// Common-neighbour step.
    pub common_neighbour: u64,
    /// Triangle step.
    pub triangle: u64,
    /// Degree completion.
    pub completion: u64,
}

/// The attacker's estimate `A*` with entries 0, 1 or 2 (unknown).
#[derive(Clone, Debug, PartialEq)]
pub struct Reconstruction {
    one: BitMatrix,
    zero: BitMatrix,
    /// Decided pairs that are guesses (the spectral step's and what was deduced from them).
    guessed: BitMatrix,
    /// Pairs decided per step of the sound deductions.
    pub steps: StepCounts,
    /// Rounds of the sound deductions run.
    pub rounds: usize,
    /// What the spectral step did; `None` when it did not run (the sound attacker, or nothing
    /// left unknown).
    pub spectral: Option<SpectralReport>,
    /// The estimate right after the spectral step's rounding: every pair decided, before error
    /// forgetting and the deductions after it.
    rounded: Option<Box<Reconstruction>>,
}

/// Guessed pairs of a [`Reconstruction`] against a graph.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct GuessCounts {
    /// Guesses equal to the graph's entry.
    pub correct: u64,
    /// Guesses that differ.
    pub wrong: u64,
}

impl GuessCounts {
    /// Share of correct guesses; `None` without guesses.
    pub(crate) fn accuracy(&self) -> Option<f64> {
        let total = self.correct + self.wrong;
        (total > 0).then(|| self.correct as f64 / total as f64)
    }
}

/// Counts of `(A*_ij, A_ij)` classes over unordered pairs `i < j`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ErrorCounts {
    /// `A* = 1`, `A = 1`.
    pub true_edges_found: u64,
    /// `A* = 1`, `A = 0`.
    pub false_edges: u64,
    /// `A* = 0`, `A = 1`.
    pub missed_edges: u64,
    /// `A* = 2`, `A = 1`.
    pub unknown_edges: u64,
    /// `A* = 2`, `A = 0`.
    pub unknown_non_edges: u64,
    /// Edges of A.
    pub true_edges: u64,
}

impl ErrorCounts {
    /// `‖A* − A‖_F² / ‖A‖_F²`: `(false + missed + unknown edges + 4·unknown non-edges) / m`
    /// (the factor 2 of the symmetric matrices cancels).
    ///
    /// # Errors
    /// [`EdgeRefineError::InvalidParam`] when A has no edges.
    pub(crate) fn rae(&self) -> Result<f64> {
        if self.true_edges == 0 {
            return Err(EdgeRefineError::InvalidParam {
                name: "true_edges",
                value: 0.0,
                reason: "RAE is undefined for a graph without edges",
            });
        }
        let num =
            self.false_edges + self.missed_edges + self.unknown_edges + 4 * self.unknown_non_edges;
        Ok(num as f64 / self.true_edges as f64)
    }
}

/// Bits of row `i` strictly above the diagonal, word `w`.
fn upper_mask(i: usize, w: usize, n: usize) -> u64 {
    let lo = w * 64;
    let mut m = if i < lo {
        u64::MAX
    } else if i + 1 >= lo + 64 {
        0
    } else {
        u64::MAX << (i + 1 - lo)
    };
    if lo + 64 > n {
        let valid = n.saturating_sub(lo);
        m &= if valid >= 64 {
            u64::MAX
        } else {
            (1u64 << valid) - 1
        };
    }
    m
}

/// Valid off-diagonal bits of row `i`, word `w`.
fn valid_mask(i: usize, w: usize, n: usize) -> u64 {
    let lo = w * 64;
    let mut m = if lo + 64 > n {
        let valid = n.saturating_sub(lo);
        if valid >= 64 {
            u64::MAX
        } else {
            (1u64 << valid) - 1
        }
    } else {
        u64::MAX
    };
    if i / 64 == w {
        m &= !(1u64 << (i % 64));
    }
    m
}

fn popcount_and(a: &[u64], b: &[u64]) -> u32 {
    a.iter().zip(b).map(|(x, y)| (x & y).count_ones()).sum()
}

impl Reconstruction {
    /// Number of nodes.
    pub(crate) fn num_nodes(&self) -> usize {
        self.one.n()
    }

    /// `A*_ij`: 1 known edge, 0 known non-edge (and the diagonal), 2 unknown.
    ///
    /// # Panics
    /// When an id is out of range.
    pub fn entry(&self, i: usize, j: usize) -> u8 {
        if i == j || self.zero.get(i, j) {
            0
        } else if self.one.get(i, j) {
            1
        } else {
            2
        }
    }

    /// `(known ones, known zeros, unknown)` over unordered pairs, guesses included.
    ///
    /// # Complexity
    /// O(n²/64).
    pub fn known(&self) -> (u64, u64, u64) {
        let n = self.num_nodes() as u64;
        let ones = self.one.count() / 2;
        let zeros = self.zero.count() / 2;
        (ones, zeros, n * n.saturating_sub(1) / 2 - ones - zeros)
    }

    /// Decided pairs (unordered), guesses included.
    ///
    /// # Complexity
    /// O(n²/64).
    pub fn decided(&self) -> u64 {
        let (ones, zeros, _) = self.known();
        ones + zeros
    }

    /// Whether `A*_ij` is a guess (decided by the spectral step or deduced from its guesses)
    /// rather than a sound deduction.
    ///
    /// # Panics
    /// When an id is out of range.
    pub fn is_guess(&self, i: usize, j: usize) -> bool {
        self.guessed.get(i, j)
    }

    /// Guessed pairs (unordered).
    ///
    /// # Complexity
    /// O(n²/64).
    pub fn guesses(&self) -> u64 {
        self.guessed.count() / 2
    }

    /// The estimate of the sound deductions alone: this one with every guess made unknown
    /// again. Equal to the result of [`grand_attack`] with [`AttackParams::sound`] (and the
    /// same `max_rounds`): the spectral step runs after the sound deductions and never changes
    /// their entries.
    ///
    /// # Complexity
    /// O(n²/64).
    pub(crate) fn sound_only(&self) -> Self {
        let mut out = self.clone();
        for i in 0..self.num_nodes() {
            let g = self.guessed.row(i);
            for (o, g) in out.one.row_mut(i).iter_mut().zip(g) {
                *o &= !g;
            }
            for (z, g) in out.zero.row_mut(i).iter_mut().zip(g) {
                *z &= !g;
            }
        }
        out.guessed = BitMatrix::new(self.num_nodes());
        out.spectral = None;
        out.rounded = None;
        out
    }

    /// The estimate right after the spectral step's rounding (sound deductions plus a guess for
    /// every other pair, none forgotten yet); `None` when the spectral step did not run.
    pub(crate) fn rounded(&self) -> Option<&Reconstruction> {
        self.rounded.as_deref()
    }

    /// Correct and wrong guesses against a graph (the true graph, or the release itself to
    /// measure the spectral step as a reconstruction of what it observes).
    ///
    /// # Errors
    /// [`EdgeRefineError::NodeCountMismatch`] when the node counts differ.
    ///
    /// # Complexity
    /// O(n²/64 + guesses·log d).
    pub(crate) fn guess_counts(&self, graph: &Graph) -> Result<GuessCounts> {
        let n = self.num_nodes();
        if graph.num_nodes() != n {
            return Err(EdgeRefineError::NodeCountMismatch {
                expected: n,
                got: graph.num_nodes(),
            });
        }
        let per_row: Vec<GuessCounts> = (0..n)
            .into_par_iter()
            .map(|i| {
                let mut c = GuessCounts::default();
                for j in bits_of(self.guessed.row(i)).filter(|&j| j > i) {
                    if self.one.get(i, j) == graph.has_edge(i as u32, j as u32) {
                        c.correct += 1;
                    } else {
                        c.wrong += 1;
                    }
                }
                c
            })
            .collect();
        Ok(per_row
            .into_iter()
            .fold(GuessCounts::default(), |a, b| GuessCounts {
                correct: a.correct + b.correct,
                wrong: a.wrong + b.wrong,
            }))
    }

    /// Class counts against the true graph.
    ///
    /// # Errors
    /// [`EdgeRefineError::NodeCountMismatch`] when the node counts differ.
    ///
    /// # Complexity
    /// O(n²/64).
    pub(crate) fn error_counts(&self, truth: &Graph) -> Result<ErrorCounts> {
        let n = self.num_nodes();
        if truth.num_nodes() != n {
            return Err(EdgeRefineError::NodeCountMismatch {
                expected: n,
                got: truth.num_nodes(),
            });
        }
        let t = BitMatrix::from_graph(truth);
        let words = t.words();
        let per_row: Vec<ErrorCounts> = (0..n)
            .into_par_iter()
            .map(|i| {
                let mut c = ErrorCounts::default();
                let (o, z, a) = (self.one.row(i), self.zero.row(i), t.row(i));
                for w in 0..words {
                    let up = upper_mask(i, w, n);
                    let unk = !o[w] & !z[w] & up;
                    c.true_edges_found += u64::from((o[w] & a[w] & up).count_ones());
                    c.false_edges += u64::from((o[w] & !a[w] & up).count_ones());
                    c.missed_edges += u64::from((z[w] & a[w] & up).count_ones());
                    c.unknown_edges += u64::from((unk & a[w]).count_ones());
                    c.unknown_non_edges += u64::from((unk & !a[w]).count_ones());
                }
                c
            })
            .collect();
        let mut total = ErrorCounts {
            true_edges: truth.num_edges() as u64,
            ..ErrorCounts::default()
        };
        for c in per_row {
            total.true_edges_found += c.true_edges_found;
            total.false_edges += c.false_edges;
            total.missed_edges += c.missed_edges;
            total.unknown_edges += c.unknown_edges;
            total.unknown_non_edges += c.unknown_non_edges;
        }
        Ok(total)
    }

    /// RAE of the estimate against the true graph (unknown pairs count as 2).
    ///
    /// # Errors
    /// Node-count mismatch, or a true graph without edges.
    ///
    /// # Complexity
    /// O(n²/64).
    pub fn rae(&self, truth: &Graph) -> Result<f64> {
        self.error_counts(truth)?.rae()
    }
}

/// The attacker's view: degrees and common-neighbour counts of the release (`M = R²`).
struct Observation {
    n: usize,
    degree: Vec<u32>,
    bits: BitAdjacency,
    /// Row j: the k ≠ j with `M_jk > 0` (plus j itself when `d_j > 0`).
    support: BitMatrix,
}

impl Observation {
    fn new(release: &Graph) -> Self {
        let n = release.num_nodes();
        let bits = release.bit_adjacency();
        let mut support = BitMatrix::new(n);
        support
            .rows_mut()
            .enumerate()
            .take(n)
            .par_bridge()
            .for_each(|(j, row)| {
                for &w in release.neighbors(j as u32) {
                    for (x, y) in row.iter_mut().zip(bits.row(w as usize)) {
                        *x |= y;
                    }
                }
            });
        Self {
            n,
            degree: release.degrees().map(|d| d as u32).collect(),
            bits,
            support,
        }
    }

    fn common(&self, i: usize, j: usize) -> u32 {
        self.bits.common_neighbors(i, j)
    }
}

/// A deduction: pair and value.
type Deduction = (u32, u32, bool);

#[derive(Clone)]
struct State {
    one: BitMatrix,
    zero: BitMatrix,
    /// Decided pairs that are guesses.
    guessed: BitMatrix,
    /// Whether every decided pair so far is a sound deduction (then no deduction can contradict
    /// one; after the spectral step premises may be wrong and the first value stays).
    sound: bool,
}

impl State {
    fn new(n: usize) -> Self {
        Self {
            one: BitMatrix::new(n),
            zero: BitMatrix::new(n),
            guessed: BitMatrix::new(n),
            sound: true,
        }
    }

    fn unknown(&self, i: usize, j: usize) -> bool {
        i != j && !self.one.get(i, j) && !self.zero.get(i, j)
    }

    /// Applies deductions symmetrically; returns the number of newly decided pairs.
    fn apply(&mut self, deductions: &[Deduction]) -> u64 {
        let mut new = 0;
        for &(i, j, v) in deductions {
            let (i, j) = (i as usize, j as usize);
            if !self.unknown(i, j) {
                debug_assert!(
                    !self.sound || self.one.get(i, j) == v,
                    "contradictory sound deduction ({i}, {j})"
                );
                continue;
            }
            let m = if v { &mut self.one } else { &mut self.zero };
            m.set(i, j);
            m.set(j, i);
            if !self.sound {
                self.guessed.set(i, j);
                self.guessed.set(j, i);
            }
            new += 1;
        }
        new
    }

    /// Makes a guessed pair unknown again.
    fn forget(&mut self, i: usize, j: usize) {
        debug_assert!(self.guessed.get(i, j), "only guesses are forgotten");
        for m in [&mut self.one, &mut self.zero, &mut self.guessed] {
            m.clear(i, j);
            m.clear(j, i);
        }
    }

    /// Triangle and degree-completion rounds to a fixed point or `max_rounds`: `(pairs decided
    /// by the triangle step, by completion, rounds run)`.
    fn rounds(&mut self, obs: &Observation, max_rounds: usize) -> (u64, u64, usize) {
        let (mut tri, mut comp, mut rounds) = (0, 0, 0);
        while rounds < max_rounds {
            rounds += 1;
            let t = triangle_deductions(obs, self);
            let new_tri = self.apply(&t);
            tri += new_tri;
            let c = completion_deductions(obs, self);
            let new_comp = self.apply(&c);
            comp += new_comp;
            if new_tri + new_comp == 0 {
                break;
            }
        }
        (tri, comp, rounds)
    }
}

/// Runs the GRAND-style attack on the common-neighbour matrix `M = R²` of a release R: the
/// sound deductions (degree, common-neighbour, triangle and degree-completion steps), then with
/// `params.spectral` GRAND's spectral step and the deductions from its guesses (see the
/// [module docs](self)).
///
/// # Errors
/// [`EdgeRefineError::InvalidParam`] when the parameters are invalid
/// ([`AttackParams::check`]) or the release has no nodes.
///
/// # Complexity
/// Deductions: degree and common-neighbour steps O(n·d_max² + L·n²/64) for L leaves; each
/// round of the triangle step O(P·n/64) for the P pairs with a common neighbour, plus O(Σ known
/// edges · n/64). Spectral step: see the [module docs](self#complexity) (dense symmetric
/// eigendecompositions, O(s³) for a block of s nodes, dominate). Parallel over rows.
///
/// # Example
/// ```
/// use edgerefine::attack::{grand_attack, AttackParams};
/// use graph_core::Graph;
/// // A path 0–1–2 and an isolated node: M determines it completely.
/// let release = Graph::from_edges(4, &[(0, 1), (1, 2)])?;
/// let rec = grand_attack(&release, &AttackParams::sound())?;
/// assert_eq!(rec.known().2, 0);
/// assert_eq!(rec.rae(&release)?, 0.0);
/// // A 7-cycle: no rule applies, the spectral step recovers it.
/// let cycle: Vec<(u32, u32)> = (0..7).map(|u| (u, (u + 1) % 7)).collect();
/// let c7 = Graph::from_edges(7, &cycle)?;
/// assert_eq!(grand_attack(&c7, &AttackParams::sound())?.decided(), 0);
/// let rec = grand_attack(&c7, &AttackParams::complete())?;
/// assert_eq!((rec.decided(), rec.guesses()), (21, 21));
/// assert_eq!(rec.rae(&c7)?, 0.0);
/// # Ok::<(), edgerefine::EdgeRefineError>(())
/// ```
pub fn grand_attack(release: &Graph, params: &AttackParams) -> Result<Reconstruction> {
    params.check()?;
    if release.num_nodes() == 0 {
        return Err(EdgeRefineError::InvalidParam {
            name: "num_nodes",
            value: 0.0,
            reason: "the release has no nodes to attack",
        });
    }
    let obs = Observation::new(release);
    let n = obs.n;
    let mut st = State::new(n);
    let mut steps = StepCounts::default();

    // 1. Degree step: empty and full rows, then leaves.
    let mut ded: Vec<Deduction> = Vec::new();
    for i in 0..n {
        let d = obs.degree[i] as usize;
        if d == 0 || d + 1 == n {
            ded.extend(
                (0..n)
                    .filter(|&j| j != i)
                    .map(|j| (i as u32, j as u32, d > 0)),
            );
        }
    }
    steps.degree += st.apply(&ded);
    let leaves: Vec<Deduction> = (0..n)
        .into_par_iter()
        .filter(|&i| obs.degree[i] == 1)
        .flat_map_iter(|i| leaf_deductions(&obs, i))
        .collect();
    steps.degree += st.apply(&leaves);

    // 2. Common-neighbour step (static in M).
    let mut cn: Vec<Deduction> = (0..n)
        .into_par_iter()
        .flat_map_iter(|i| {
            let obs = &obs;
            bits_of(obs.support.row(i))
                .filter(move |&j| j > i)
                .filter_map(move |j| {
                    let c = obs.common(i, j);
                    (c > 0 && c >= obs.degree[i].min(obs.degree[j]))
                        .then_some((i as u32, j as u32, false))
                })
        })
        .collect();
    let mut by_degree: Vec<usize> = (0..n).collect();
    by_degree.sort_unstable_by_key(|&i| std::cmp::Reverse(obs.degree[i]));
    // d_i + d_j − M_ij > n − 2 needs d_i + d_j > n − 2: scan pairs by decreasing degree.
    let limit = n as i64 - 2;
    for (a, &i) in by_degree.iter().enumerate() {
        for &j in &by_degree[a + 1..] {
            let s = i64::from(obs.degree[i]) + i64::from(obs.degree[j]);
            if s <= limit {
                break;
            }
            if s - i64::from(obs.common(i, j)) > limit {
                cn.push((i as u32, j as u32, true));
            }
        }
    }
    steps.common_neighbour += st.apply(&cn);

    // 3–4. Triangle step and degree completion to a fixed point.
    let (tri, comp, rounds) = st.rounds(&obs, params.max_rounds);
    steps.triangle += tri;
    steps.completion += comp;

    // 5. The spectral step, then the deductions again with its guesses among the premises.
    let (mut spectral, mut rounded) = (None, None);
    if let Some(sp) = &params.spectral {
        let n64 = n as u64;
        let decided = (st.one.count() + st.zero.count()) / 2;
        if decided < n64 * (n64 - 1) / 2 {
            let (mut report, at_rounding) = spectral::spectral_step(&obs, &mut st, sp);
            st.sound = false;
            let (tri, comp, _) = st.rounds(&obs, params.max_rounds);
            report.deduced_after = tri + comp;
            spectral = Some(report);
            rounded = Some(Box::new(Reconstruction {
                one: at_rounding.one,
                zero: at_rounding.zero,
                guessed: at_rounding.guessed,
                steps,
                rounds,
                spectral,
                rounded: None,
            }));
        }
    }
    Ok(Reconstruction {
        one: st.one,
        zero: st.zero,
        guessed: st.guessed,
        steps,
        rounds,
        spectral,
        rounded,
    })
}

/// The leaf rule for a node `i` of degree 1.
fn leaf_deductions(obs: &Observation, i: usize) -> Vec<Deduction> {
    let n = obs.n;
    let cn: Vec<u32> = (0..n)
        .map(|j| if j == i { 0 } else { obs.common(i, j) })
        .collect();
    let s_len = cn.iter().filter(|&&c| c == 1).count();
    let mut candidates =
        (0..n).filter(|&k| k != i && cn[k] == 0 && obs.degree[k] as usize == s_len + 1);
    let (Some(k), None) = (candidates.next(), candidates.next()) else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(2 * n);
    for (j, &c) in cn.iter().enumerate() {
        if j == i {
            continue;
        }
        out.push((i as u32, j as u32, j == k));
        if j != k {
            out.push((k as u32, j as u32, c == 1));
        }
    }
    out
}

/// One round of the triangle step, read-only on the state.
fn triangle_deductions(obs: &Observation, st: &State) -> Vec<Deduction> {
    let n = obs.n;
    let words = st.one.words();
    (0..n)
        .into_par_iter()
        .flat_map_iter(|j| {
            let mut out: Vec<Deduction> = Vec::new();
            let one_j = st.one.row(j);
            let zero_j = st.zero.row(j);
            // M_jk = 0 with a known edge (i, j): i is not adjacent to k. For every k outside the
            // support of row j, each known neighbour i of j gets (i, k) = 0.
            if one_j.iter().any(|&w| w != 0) {
                for w in 0..words {
                    let outside = !obs.support.row(j)[w] & valid_mask(j, w, n);
                    let mut x = outside;
                    while x != 0 {
                        let k = w * 64 + x.trailing_zeros() as usize;
                        x &= x - 1;
                        for i in bits_of(one_j) {
                            if i != k && st.unknown(i, k) {
                                out.push((i as u32, k as u32, false));
                            }
                        }
                    }
                }
            }
            // Pairs with a common neighbour: saturation in either direction.
            for k in bits_of(obs.support.row(j)).filter(|&k| k > j) {
                let c = obs.common(j, k);
                let one_k = st.one.row(k);
                let zero_k = st.zero.row(k);
                let known = popcount_and(one_j, one_k);
                let mut possible = 0u32;
                for w in 0..words {
                    let pj = !zero_j[w] & valid_mask(j, w, n);
                    let pk = !zero_k[w] & valid_mask(k, w, n);
                    possible += (pj & pk).count_ones();
                }
                if known == c {
                    for w in 0..words {
                        let unk_k = !one_k[w] & !zero_k[w] & valid_mask(k, w, n);
                        let unk_j = !one_j[w] & !zero_j[w] & valid_mask(j, w, n);
                        for i in bits_of(&[one_j[w] & unk_k]) {
                            out.push(((w * 64 + i) as u32, k as u32, false));
                        }
                        for i in bits_of(&[one_k[w] & unk_j]) {
                            out.push(((w * 64 + i) as u32, j as u32, false));
                        }
                    }
                } else if possible == c {
                    for w in 0..words {
                        let both = !zero_j[w]
                            & valid_mask(j, w, n)
                            & !zero_k[w]
                            & valid_mask(k, w, n)
                            & !(one_j[w] & one_k[w]);
                        for i in bits_of(&[both]) {
                            let i = w * 64 + i;
                            out.push((i as u32, j as u32, true));
                            out.push((i as u32, k as u32, true));
                        }
                    }
                }
            }
            out
        })
        .collect()
}

/// Degree completion, read-only on the state.
fn completion_deductions(obs: &Observation, st: &State) -> Vec<Deduction> {
    let n = obs.n;
    let words = st.one.words();
    (0..n)
        .into_par_iter()
        .flat_map_iter(|i| {
            let (o, z) = (st.one.row(i), st.zero.row(i));
            let ones: u32 = o.iter().map(|w| w.count_ones()).sum();
            let unk: Vec<u64> = (0..words)
                .map(|w| !o[w] & !z[w] & valid_mask(i, w, n))
                .collect();
            let unknown: u32 = unk.iter().map(|w| w.count_ones()).sum();
            let d = obs.degree[i];
            let value = if unknown == 0 {
                None
            } else if ones == d {
                Some(false)
            } else if ones + unknown == d {
                Some(true)
            } else {
                None
            };
            let out: Vec<Deduction> = match value {
                Some(v) => bits_of(&unk).map(|j| (i as u32, j as u32, v)).collect(),
                None => Vec::new(),
            };
            out
        })
        .collect()
}

/// RAE of an attacker who takes the release itself as `A*` (no unknown pairs):
/// `(false edges + missed edges) / m`.
///
/// # Errors
/// Node-count mismatch, or a true graph without edges.
///
/// # Complexity
/// O(|release| · log d).
///
/// # Example
/// ```
/// use graph_core::Graph;
/// let truth = Graph::from_edges(4, &[(0, 1), (1, 2)])?;
/// let release = Graph::from_edges(4, &[(0, 1), (2, 3)])?;
/// // One false edge, one missed edge, m = 2.
/// assert_eq!(edgerefine::attack::release_rae(&release, &truth)?, 1.0);
/// # Ok::<(), edgerefine::EdgeRefineError>(())
/// ```
pub fn release_rae(release: &Graph, truth: &Graph) -> Result<f64> {
    if release.num_nodes() != truth.num_nodes() {
        return Err(EdgeRefineError::NodeCountMismatch {
            expected: truth.num_nodes(),
            got: release.num_nodes(),
        });
    }
    let m = truth.num_edges() as u64;
    if m == 0 {
        return Err(EdgeRefineError::InvalidParam {
            name: "true_edges",
            value: 0.0,
            reason: "RAE is undefined for a graph without edges",
        });
    }
    let tp = release
        .edges()
        .filter(|&(u, v)| truth.has_edge(u, v))
        .count() as u64;
    let fp = release.num_edges() as u64 - tp;
    Ok((fp + (m - tp)) as f64 / m as f64)
}

/// RAE of a dense estimate `A*` given row-major as `n·n` entries in {0, 1, 2} (diagonal
/// ignored): the definition, for small examples and cross-checks.
///
/// # Errors
/// Wrong length, an entry outside {0, 1, 2}, or a true graph without edges.
///
/// # Complexity
/// O(n² log d); the input itself is n² bytes.
pub fn rae_dense(estimate: &[u8], truth: &Graph) -> Result<f64> {
    let n = truth.num_nodes();
    if estimate.len() != n * n {
        return Err(EdgeRefineError::InvalidParam {
            name: "estimate",
            value: estimate.len() as f64,
            reason: "must hold n*n entries",
        });
    }
    if let Some(&x) = estimate.iter().find(|&&x| x > 2) {
        return Err(EdgeRefineError::InvalidParam {
            name: "estimate",
            value: f64::from(x),
            reason: "entries must be 0, 1 or 2",
        });
    }
    let m = truth.num_edges();
    if m == 0 {
        return Err(EdgeRefineError::InvalidParam {
            name: "true_edges",
            value: 0.0,
            reason: "RAE is undefined for a graph without edges",
        });
    }
    let mut num = 0u64;
    for i in 0..n {
        for j in 0..n {
            if i != j {
                let a = i64::from(u8::from(truth.has_edge(i as u32, j as u32)));
                let d = i64::from(estimate[i * n + j]) - a;
                num += (d * d) as u64;
            }
        }
    }
    Ok(num as f64 / (2 * m) as f64)
}

#[cfg(test)]
mod tests;
