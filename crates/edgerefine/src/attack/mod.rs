//! A GRAND-style reconstruction attack on a released graph, and the relative error RAE.
//!
//! GRAND (Azogagh, Birba, Desharnais, Gambs, Killijian, Tawbi, "GRAND: Graph Reconstruction from
//! potential partial Adjacency and Neighborhood Data", arXiv 2412.02329) reconstructs a graph R
//! from its common-neighbour matrix `M = R²` (`M_ii = d_i`, `M_ij = |N(i) ∩ N(j)|`) by
//! topological deductions followed by a spectral step. Here the attacker observes `M` of the
//! k = 1 release and fills an estimate `A*` with 1 (known edge), 0 (known non-edge) or 2
//! (unknown), then RAE = ‖A* − A‖_F² / ‖A‖_F² measures it against the TRUE graph A.
//!
//! # What is implemented
//! Only sound deductions (each holds for every graph with that `M`), iterated to a fixed point:
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
//! Not implemented: GRAND's spectral step (eigendecomposition of M and sign search), its
//! co-square instantiation and error forgetting, and the knowledgeable adversary with prior
//! edges. Pairs no rule decides stay 2 — so on sparse releases RAE is dominated by the `4`
//! contributed by each unknown non-edge; [`release_rae`] gives the error of an attacker who
//! takes the release itself as her estimate.
//!
//! # Memory
//! Three n × n bit matrices (known ones, known zeros, support of M) plus the release's bits:
//! 4·n²/8 bytes, 32 MB at n = 8,000. `M` entries are computed on demand by AND + popcount of
//! the release's bit rows, never stored densely.

use graph_core::{BitAdjacency, Graph};
use rayon::prelude::*;

use crate::baselines::BitMatrix;
use crate::error::{EdgeRefineError, Result};

/// Parameters of [`grand_attack`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttackParams {
    /// Upper bound on rounds of the triangle and degree-completion steps (it stops earlier at a
    /// fixed point).
    pub max_rounds: usize,
}

impl Default for AttackParams {
    fn default() -> Self {
        Self { max_rounds: 20 }
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
    /// Pairs decided per step.
    pub steps: StepCounts,
    /// Rounds run.
    pub rounds: usize,
}

/// Counts of `(A*_ij, A_ij)` classes over unordered pairs `i < j`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ErrorCounts {
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
    pub fn rae(&self) -> Result<f64> {
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

fn bits_of(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
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

fn popcount_and(a: &[u64], b: &[u64]) -> u32 {
    a.iter().zip(b).map(|(x, y)| (x & y).count_ones()).sum()
}

impl Reconstruction {
    /// Number of nodes.
    pub fn num_nodes(&self) -> usize {
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

    /// `(known ones, known zeros, unknown)` over unordered pairs.
    pub fn known(&self) -> (u64, u64, u64) {
        let n = self.num_nodes() as u64;
        let ones = self.one.count() / 2;
        let zeros = self.zero.count() / 2;
        (ones, zeros, n * n.saturating_sub(1) / 2 - ones - zeros)
    }

    /// Class counts against the true graph.
    ///
    /// # Errors
    /// [`EdgeRefineError::NodeCountMismatch`] when the node counts differ.
    ///
    /// # Complexity
    /// O(n²/64).
    pub fn error_counts(&self, truth: &Graph) -> Result<ErrorCounts> {
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

struct State {
    one: BitMatrix,
    zero: BitMatrix,
}

impl State {
    fn unknown(&self, i: usize, j: usize) -> bool {
        i != j && !self.one.get(i, j) && !self.zero.get(i, j)
    }

    /// Applies deductions symmetrically; returns the number of newly decided pairs.
    fn apply(&mut self, deductions: &[Deduction]) -> u64 {
        let mut new = 0;
        for &(i, j, v) in deductions {
            let (i, j) = (i as usize, j as usize);
            if !self.unknown(i, j) {
                debug_assert_eq!(self.one.get(i, j), v, "contradictory deduction ({i}, {j})");
                continue;
            }
            let m = if v { &mut self.one } else { &mut self.zero };
            m.set(i, j);
            m.set(j, i);
            new += 1;
        }
        new
    }
}

/// Runs the GRAND-style topological attack (degree, common-neighbour, triangle and
/// degree-completion steps; see the [module docs](self)) on the common-neighbour matrix of a
/// release.
///
/// # Errors
/// [`EdgeRefineError::InvalidParam`] when `max_rounds == 0`.
///
/// # Complexity
/// Degree and common-neighbour steps O(n·d_max² + L·n²/64) for L leaves; each round of the
/// triangle step O(P·n/64) for the P pairs with a common neighbour, plus O(Σ known edges ·
/// n/64). Parallel over rows.
///
/// # Example
/// ```
/// use edgerefine::attack::{grand_attack, AttackParams};
/// use graph_core::Graph;
/// // A path 0–1–2 and an isolated node: M determines it completely.
/// let release = Graph::from_edges(4, &[(0, 1), (1, 2)])?;
/// let rec = grand_attack(&release, &AttackParams::default())?;
/// assert_eq!(rec.known().2, 0);
/// assert_eq!(rec.rae(&release)?, 0.0);
/// # Ok::<(), edgerefine::EdgeRefineError>(())
/// ```
pub fn grand_attack(release: &Graph, params: &AttackParams) -> Result<Reconstruction> {
    if params.max_rounds == 0 {
        return Err(EdgeRefineError::InvalidParam {
            name: "max_rounds",
            value: 0.0,
            reason: "must be >= 1",
        });
    }
    let obs = Observation::new(release);
    let n = obs.n;
    let mut st = State {
        one: BitMatrix::new(n),
        zero: BitMatrix::new(n),
    };
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
    let mut rounds = 0;
    while rounds < params.max_rounds {
        rounds += 1;
        let tri = triangle_deductions(&obs, &st);
        let new_tri = st.apply(&tri);
        steps.triangle += new_tri;
        let comp = completion_deductions(&obs, &st);
        let new_comp = st.apply(&comp);
        steps.completion += new_comp;
        if new_tri + new_comp == 0 {
            break;
        }
    }
    Ok(Reconstruction {
        one: st.one,
        zero: st.zero,
        steps,
        rounds,
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
