//! GRAND's spectral step: signed square roots of `M`'s eigenpairs, rounded, with error
//! forgetting (see the [parent module](super) for the algorithm and its source).

use rayon::prelude::*;

use super::eigen::{Spectrum, spectrum};
use super::{Observation, State, bits_of, valid_mask};
use crate::baselines::BitMatrix;
use crate::error::{EdgeRefineError, Result};

/// Eigenvalues of one block closer than this share of the largest eigenvalue are one eigenspace
/// (one sign for all of it).
const DEGENERATE_TOL: f64 = 1e-8;

/// Entry classes of the estimate during the sign search.
const UNKNOWN: u8 = 0;
const KNOWN_ZERO: u8 = 1;
const KNOWN_ONE: u8 = 2;

/// Parameters of GRAND's spectral step (see the [module docs](super)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpectralParams {
    /// Keep only the `rank` eigenpairs of `M` with the largest eigenvalues (the largest `|λ|` of
    /// R); `None` keeps all. Blocks of `M` larger than `2·rank + 32` nodes are then reduced by
    /// Lanczos instead of a dense eigendecomposition. Default: [`DEFAULT_RANK`].
    pub rank: Option<usize>,
    /// Rounding threshold θ: an unknown pair becomes an edge when its entry of the signed
    /// square root is at least θ (GRAND: 0.5).
    pub threshold: f64,
    /// Error forgetting (GRAND's sanity check): after rounding, every row whose common-neighbour
    /// counts in the estimate differ from `M` anywhere gives its guesses back to unknown.
    pub forget: bool,
}

/// Default rank limit of the spectral step: the 256 largest eigenpairs of `M`; a block of up to
/// 544 nodes is decomposed exactly, a larger one reduced by 544 Lanczos steps. Measured costs
/// and the accuracy given up are in the [module docs](super#complexity).
pub const DEFAULT_RANK: usize = 256;

impl Default for SpectralParams {
    fn default() -> Self {
        Self {
            rank: Some(DEFAULT_RANK),
            threshold: 0.5,
            forget: true,
        }
    }
}

impl SpectralParams {
    /// Checks the parameters.
    ///
    /// # Errors
    /// [`EdgeRefineError::InvalidParam`] when `rank` is `Some(0)` or `threshold` is not a
    /// finite number in (0, 1].
    pub fn check(&self) -> Result<()> {
        if self.rank == Some(0) {
            return Err(EdgeRefineError::InvalidParam {
                name: "rank",
                value: 0.0,
                reason: "must be >= 1 (None keeps every eigenpair)",
            });
        }
        if !(self.threshold > 0.0 && self.threshold <= 1.0) {
            return Err(EdgeRefineError::InvalidParam {
                name: "threshold",
                value: self.threshold,
                reason: "must lie in (0, 1]",
            });
        }
        Ok(())
    }
}

/// What the spectral step did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SpectralReport {
    /// Blocks of `M` (components of its support) with a positive eigenvalue.
    pub blocks: usize,
    /// Blocks reduced by Lanczos under the rank limit.
    pub lanczos_blocks: usize,
    /// Eigenpairs whose signed square roots were summed.
    pub eigenpairs: usize,
    /// Of those, the ones given the sign `+`.
    pub positive: usize,
    /// Unknown pairs the rounding decided.
    pub guessed: u64,
    /// Of those, the ones rounded to an edge.
    pub guessed_edges: u64,
    /// Rows holding guesses whose degree or common-neighbour counts in the rounded estimate
    /// disagreed with `M` (error forgetting; 0 without it).
    pub inconsistent_rows: usize,
    /// Guesses given back to unknown by error forgetting.
    pub forgotten: u64,
    /// Pairs the deduction rules decided after the spectral step, from premises that include
    /// its guesses.
    pub deduced_after: u64,
}

/// The sign search: `X = Σ_k s_k √μ_k v_k v_kᵀ`, one sign per group of equal eigenvalues
/// ([`degenerate_groups`]), each chosen greedily in order of decreasing `μ_k` to minimise `β·‖X − A*‖_known + α·‖X − round(X)‖_unknown` (Frobenius norms
/// over the entries of each class, diagonal included as known zeros; `β` = the share of known
/// entries, `α = 1 − β`). Returns, per block, the upper triangle of `X` (row-major `s × s`) and
/// the number of `+` signs.
fn sign_search(
    st: &State,
    spec: &Spectrum,
    threshold: f64,
    group_tol: f64,
    n: usize,
) -> (Vec<Vec<f64>>, Vec<Vec<u8>>, usize) {
    let (ones, zeros) = (st.one.count() as f64, st.zero.count() as f64);
    let beta = (n as f64 + ones + zeros) / (n as f64 * n as f64);
    let alpha = 1.0 - beta;
    // X = 0: each known edge contributes (0 − 1)², each rounding residual is 0.
    let mut known_cost = ones;
    let mut unknown_cost = 0.0;
    let class: Vec<Vec<u8>> = spec
        .blocks
        .par_iter()
        .map(|nodes| {
            let s = nodes.len();
            let mut c = vec![UNKNOWN; s * s];
            for (a, &i) in nodes.iter().enumerate() {
                let i = i as usize;
                c[a * s + a] = KNOWN_ZERO;
                for (b, &j) in nodes.iter().enumerate().skip(a + 1) {
                    let j = j as usize;
                    c[a * s + b] = if st.one.get(i, j) {
                        KNOWN_ONE
                    } else if st.zero.get(i, j) {
                        KNOWN_ZERO
                    } else {
                        UNKNOWN
                    };
                }
            }
            c
        })
        .collect();
    let mut x: Vec<Vec<f64>> = spec
        .blocks
        .iter()
        .map(|nodes| vec![0.0; nodes.len() * nodes.len()])
        .collect();
    let round = |v: f64| if v >= threshold { 1.0 } else { 0.0 };
    let residual = move |cls: u8, v: f64| -> f64 {
        match cls {
            KNOWN_ONE => (v - 1.0) * (v - 1.0),
            KNOWN_ZERO => v * v,
            _ => (v - round(v)) * (v - round(v)),
        }
    };
    let mut positive = 0;
    for group in degenerate_groups(spec, group_tol) {
        let block = spec.pairs[group[0]].block;
        let s = spec.blocks[block].len();
        let (xb, cb) = (&x[block], &class[block]);
        let terms: Vec<(&[f64], f64)> = group
            .iter()
            .map(|&k| (&spec.pairs[k].vector[..], spec.pairs[k].value.sqrt()))
            .collect();
        // Per row a: changes of the known and unknown squared norms for the signs + and −,
        // weight 1 on the diagonal and 2 off it (both triangles).
        let rows: Vec<[f64; 4]> = (0..s)
            .into_par_iter()
            .map_init(Vec::new, |ca: &mut Vec<f64>, a| {
                ca.clear();
                ca.extend(terms.iter().map(|&(v, c)| c * v[a]));
                let mut acc = [0.0; 4];
                for b in a..s {
                    let w = if b == a { 1.0 } else { 2.0 };
                    let (x0, cls) = (xb[a * s + b], cb[a * s + b]);
                    let d: f64 = ca.iter().zip(&terms).map(|(c, (v, _))| c * v[b]).sum();
                    let r0 = residual(cls, x0);
                    let (rp, rm) = (residual(cls, x0 + d) - r0, residual(cls, x0 - d) - r0);
                    let slot = if cls == UNKNOWN { 2 } else { 0 };
                    acc[slot] += w * rp;
                    acc[slot + 1] += w * rm;
                }
                acc
            })
            .collect();
        let mut delta = [0.0; 4];
        for r in &rows {
            for (d, x) in delta.iter_mut().zip(r) {
                *d += x;
            }
        }
        let cost = |dk: f64, du: f64| {
            beta * (known_cost + dk).max(0.0).sqrt() + alpha * (unknown_cost + du).max(0.0).sqrt()
        };
        let plus = cost(delta[0], delta[2]) <= cost(delta[1], delta[3]);
        let sign = if plus {
            positive += group.len();
            known_cost += delta[0];
            unknown_cost += delta[2];
            1.0
        } else {
            known_cost += delta[1];
            unknown_cost += delta[3];
            -1.0
        };
        x[block].par_chunks_mut(s).enumerate().for_each_init(
            Vec::new,
            |ca: &mut Vec<f64>, (a, row)| {
                ca.clear();
                ca.extend(terms.iter().map(|&(v, c)| sign * c * v[a]));
                for (b, xv) in row.iter_mut().enumerate().skip(a) {
                    *xv += ca
                        .iter()
                        .zip(&terms)
                        .map(|(c, (v, _))| c * v[b])
                        .sum::<f64>();
                }
            },
        );
    }
    (x, class, positive)
}

/// Indices of `spec.pairs` grouped: eigenpairs of one block whose eigenvalues differ by at
/// most `tol` times the largest form one group (one eigenspace of `M` up to rounding); groups
/// ordered by their largest eigenvalue, then block.
fn degenerate_groups(spec: &Spectrum, tol: f64) -> Vec<Vec<usize>> {
    let eps = tol * spec.pairs.first().map_or(0.0, |p| p.value);
    let mut by_block: Vec<Vec<usize>> = vec![Vec::new(); spec.blocks.len()];
    for (k, p) in spec.pairs.iter().enumerate() {
        by_block[p.block].push(k);
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for ks in by_block {
        for k in ks {
            match groups.last_mut() {
                Some(g)
                    if spec.pairs[g[0]].block == spec.pairs[k].block
                        && spec.pairs[*g.last().expect("non-empty")].value
                            - spec.pairs[k].value
                            <= eps =>
                {
                    g.push(k)
                }
                _ => groups.push(vec![k]),
            }
        }
    }
    groups.sort_by(|a, b| {
        spec.pairs[b[0]]
            .value
            .total_cmp(&spec.pairs[a[0]].value)
            .then(spec.pairs[a[0]].block.cmp(&spec.pairs[b[0]].block))
    });
    groups
}

/// Runs the spectral step on the state left by the sound deductions: guesses every unknown
/// pair, then (with `forget`) gives back the guesses of inconsistent rows. Guessed pairs are
/// marked in `st.guessed`; no decided pair changes.
pub(super) fn spectral_step(
    obs: &Observation,
    st: &mut State,
    params: &SpectralParams,
) -> (SpectralReport, State) {
    let n = obs.n;
    let spec = spectrum(obs, params.rank);
    let (x, class, positive) = sign_search(st, &spec, params.threshold, DEGENERATE_TOL, n);
    let mut report = SpectralReport {
        blocks: spec.blocks.len(),
        lanczos_blocks: spec.lanczos_blocks,
        eigenpairs: spec.pairs.len(),
        positive,
        ..SpectralReport::default()
    };

    // Rounding: unknown pairs inside a block at or above θ are edges; every other unknown pair
    // (inside a block below θ, or between blocks where X = 0) is a non-edge.
    let mut guess_one = BitMatrix::new(n);
    for ((nodes, xb), cb) in spec.blocks.iter().zip(&x).zip(&class) {
        let s = nodes.len();
        for a in 0..s {
            for b in a + 1..s {
                if cb[a * s + b] == UNKNOWN && xb[a * s + b] >= params.threshold {
                    let (i, j) = (nodes[a] as usize, nodes[b] as usize);
                    guess_one.set(i, j);
                    guess_one.set(j, i);
                }
            }
        }
    }
    let words = st.one.words();
    for i in 0..n {
        for w in 0..words {
            let unk = !st.one.row(i)[w] & !st.zero.row(i)[w] & valid_mask(i, w, n);
            let g1 = unk & guess_one.row(i)[w];
            st.one.row_mut(i)[w] |= g1;
            st.zero.row_mut(i)[w] |= unk & !g1;
            st.guessed.row_mut(i)[w] |= unk;
            report.guessed += u64::from(unk.count_ones());
            report.guessed_edges += u64::from(g1.count_ones());
        }
    }
    report.guessed /= 2;
    report.guessed_edges /= 2;
    let rounded = st.clone();

    if params.forget {
        // A row is inconsistent when its degree or a common-neighbour count in the estimate
        // differs from M. Only rows holding guesses have something to give back.
        let bad: Vec<usize> = (0..n)
            .into_par_iter()
            .filter(|&i| st.guessed.row(i).iter().any(|&w| w != 0))
            .filter(|&i| {
                let oi = st.one.row(i);
                (0..n).any(|j| {
                    let common: u32 = oi
                        .iter()
                        .zip(st.one.row(j))
                        .map(|(a, b)| (a & b).count_ones())
                        .sum();
                    let m = if i == j {
                        obs.degree[i]
                    } else {
                        obs.common(i, j)
                    };
                    common != m
                })
            })
            .collect();
        report.inconsistent_rows = bad.len();
        for i in bad {
            let row: Vec<u64> = st.guessed.row(i).to_vec();
            for k in bits_of(&row) {
                st.forget(i, k);
                report.forgotten += 1;
            }
        }
    }
    (report, rounded)
}
