//! Eigenpairs of the observed common-neighbour matrix `M = R²` for the spectral step.
//!
//! `M` is symmetric and positive semi-definite (its eigenvalues are the `λ²` of R's eigenvalues
//! `λ`). It is block diagonal over the connected components of its support (pairs with a common
//! neighbour), so each block is decomposed on its own and a block's eigenvectors vanish outside
//! it; the union of the blocks' eigenpairs is an eigendecomposition of `M`.
//!
//! A block is decomposed densely by `linfa-linalg`'s symmetric `eigh` (Householder
//! tridiagonalisation and implicit QR, pure Rust). Under a rank limit `r`, a block larger than
//! `2r + 32` nodes is reduced by Lanczos instead (the operator `x ↦ M x` on the block's sparse
//! rows, full reorthogonalisation, a fresh start on breakdown) to a `2r + 32`-step tridiagonal
//! matrix whose dense `eigh` gives Ritz approximations of the block's top eigenpairs.

use linfa_linalg::eigh::EighInto;
use ndarray::{Array2, ArrayView2, Axis};
use rayon::prelude::*;

use super::{Observation, bits_of};

/// Eigenvalues at or below this share of the largest are treated as 0 (they would add less
/// than `√(1e-9)` of the largest term to the estimate).
const ZERO_SHARE: f64 = 1e-9;

/// Lanczos steps beyond twice the rank (the top Ritz pairs converge first; the margin keeps the
/// r-th one away from the unconverged end of the Krylov space).
const LANCZOS_MARGIN: usize = 32;

/// One eigenpair of a block of `M`.
#[derive(Clone, Debug)]
pub(crate) struct EigenPair {
    /// Eigenvalue `μ > 0`.
    pub(crate) value: f64,
    /// Index of the block in [`Spectrum::blocks`].
    pub(crate) block: usize,
    /// Unit eigenvector over the block's nodes (in their order).
    pub(crate) vector: Vec<f64>,
}

/// The positive eigenpairs of `M` used by the spectral step.
#[derive(Clone, Debug, Default)]
pub(crate) struct Spectrum {
    /// Nodes of each block (connected component of the support of `M`), ascending. Only blocks
    /// with a positive eigenvalue are listed.
    pub(crate) blocks: Vec<Vec<u32>>,
    /// Eigenpairs with positive eigenvalue, largest first, at most `rank` of them.
    pub(crate) pairs: Vec<EigenPair>,
    /// Blocks reduced by Lanczos (larger than `2·rank + 32` nodes).
    pub(crate) lanczos_blocks: usize,
}

/// The blocks of `M`: connected components of its support, nodes with degree 0 left out (their
/// rows of `M` are 0).
fn blocks(obs: &Observation) -> Vec<Vec<u32>> {
    let n = obs.n;
    let mut seen = vec![false; n];
    let mut out = Vec::new();
    for s in 0..n {
        if seen[s] || obs.degree[s] == 0 {
            continue;
        }
        seen[s] = true;
        let mut comp = vec![s as u32];
        let mut head = 0;
        while head < comp.len() {
            let u = comp[head] as usize;
            head += 1;
            for v in bits_of(obs.support.row(u)) {
                if !seen[v] {
                    seen[v] = true;
                    comp.push(v as u32);
                }
            }
        }
        comp.sort_unstable();
        out.push(comp);
    }
    out
}

/// `M` restricted to a block, dense. `local[v]` is v's index in the block.
fn dense_block(obs: &Observation, nodes: &[u32], local: &[u32]) -> Array2<f64> {
    let s = nodes.len();
    let mut m = Array2::<f64>::zeros((s, s));
    m.axis_iter_mut(Axis(0))
        .into_par_iter()
        .enumerate()
        .for_each(|(a, mut row)| {
            let i = nodes[a] as usize;
            for j in bits_of(obs.support.row(i)) {
                let b = local[j] as usize;
                row[b] = if i == j {
                    f64::from(obs.degree[i])
                } else {
                    f64::from(obs.common(i, j))
                };
            }
        });
    m
}

/// `M` restricted to a block as sparse rows `(column, value)`.
fn sparse_block(obs: &Observation, nodes: &[u32], local: &[u32]) -> Vec<Vec<(u32, f64)>> {
    nodes
        .par_iter()
        .map(|&i| {
            let i = i as usize;
            bits_of(obs.support.row(i))
                .map(|j| {
                    let v = if i == j {
                        obs.degree[i]
                    } else {
                        obs.common(i, j)
                    };
                    (local[j], f64::from(v))
                })
                .collect()
        })
        .collect()
}

/// All eigenpairs of a dense symmetric matrix, as `(value, unit vector)`.
fn dense_eigenpairs(m: Array2<f64>) -> Vec<(f64, Vec<f64>)> {
    let (values, vectors) = m.eigh_into().expect("a square matrix by construction");
    values
        .iter()
        .zip(vectors.axis_iter(Axis(1)))
        .map(|(&v, col)| (v, col.to_vec()))
        .collect()
}

/// SplitMix64: the deterministic start vectors of Lanczos.
fn splitmix(state: &mut u64) -> f64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64 - 0.5
}

/// Removes from `w` its components along the first `rows` rows of `q` (two passes of classical
/// Gram–Schmidt, which keeps the basis orthogonal to working precision).
fn reorthogonalise(q: ArrayView2<'_, f64>, w: &mut [f64]) {
    for _ in 0..2 {
        let h: Vec<f64> = q
            .axis_iter(Axis(0))
            .into_par_iter()
            .map(|row| row.iter().zip(w.iter()).map(|(a, b)| a * b).sum())
            .collect();
        for (row, &c) in q.axis_iter(Axis(0)).zip(&h) {
            for (x, &a) in w.iter_mut().zip(row.iter()) {
                *x -= c * a;
            }
        }
    }
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// The `r` largest Ritz pairs of `steps` Lanczos steps on the sparse symmetric `rows`.
fn lanczos_top(
    rows: &[Vec<(u32, f64)>],
    r: usize,
    steps: usize,
    seed: u64,
) -> Vec<(f64, Vec<f64>)> {
    let s = rows.len();
    let k = steps.min(s);
    let mut q = Array2::<f64>::zeros((k, s));
    let mut alpha = vec![0.0; k];
    let mut beta = vec![0.0; k];
    let mut state = seed;
    // Gershgorin bound on ‖M‖: the breakdown threshold is relative to it.
    let scale = rows
        .iter()
        .map(|r| r.iter().map(|&(_, v)| v.abs()).sum::<f64>())
        .fold(0.0, f64::max)
        .max(1.0);
    let start = |q: &Array2<f64>, j: usize, state: &mut u64| -> Vec<f64> {
        loop {
            let mut v: Vec<f64> = (0..s).map(|_| splitmix(state)).collect();
            reorthogonalise(q.slice(ndarray::s![..j, ..]), &mut v);
            let nv = norm(&v);
            if nv > 1e-8 {
                v.iter_mut().for_each(|x| *x /= nv);
                return v;
            }
        }
    };
    let first = start(&q, 0, &mut state);
    q.row_mut(0).assign(&ndarray::ArrayView1::from(&first[..]));
    for j in 0..k {
        let qj = q.row(j).to_vec();
        let mut w: Vec<f64> = rows
            .par_iter()
            .map(|row| row.iter().map(|&(c, v)| v * qj[c as usize]).sum())
            .collect();
        alpha[j] = qj.iter().zip(&w).map(|(a, b)| a * b).sum();
        reorthogonalise(q.slice(ndarray::s![..=j, ..]), &mut w);
        if j + 1 == k {
            break;
        }
        let b = norm(&w);
        let next = if b > 1e-10 * scale {
            beta[j] = b;
            w.iter_mut().for_each(|x| *x /= b);
            w
        } else {
            // An invariant subspace is exhausted (a repeated eigenvalue or a small block): a
            // fresh direction, decoupled in T.
            beta[j] = 0.0;
            start(&q, j + 1, &mut state)
        };
        q.row_mut(j + 1)
            .assign(&ndarray::ArrayView1::from(&next[..]));
    }
    let mut t = Array2::<f64>::zeros((k, k));
    for j in 0..k {
        t[[j, j]] = alpha[j];
        if j + 1 < k {
            t[[j, j + 1]] = beta[j];
            t[[j + 1, j]] = beta[j];
        }
    }
    let (theta, y) = t.eigh_into().expect("a square matrix by construction");
    let mut order: Vec<usize> = (0..k).collect();
    order.sort_by(|&a, &b| theta[b].total_cmp(&theta[a]));
    order.truncate(r);
    let ys = y.select(Axis(1), &order);
    let ritz = q.t().dot(&ys);
    order
        .iter()
        .zip(ritz.axis_iter(Axis(1)))
        .map(|(&o, col)| {
            let mut v = col.to_vec();
            let nv = norm(&v);
            if nv > 0.0 {
                v.iter_mut().for_each(|x| *x /= nv);
            }
            (theta[o], v)
        })
        .collect()
}

/// The positive eigenpairs of the observed `M`, largest first; with `rank = Some(r)` only the
/// `r` largest (see the module docs for how large blocks are reduced).
pub(crate) fn spectrum(obs: &Observation, rank: Option<usize>) -> Spectrum {
    let all = blocks(obs);
    let mut local = vec![u32::MAX; obs.n];
    let dense_limit = rank.map_or(usize::MAX, |r| 2 * r + LANCZOS_MARGIN);
    let mut blocks_out = Vec::new();
    let mut pairs: Vec<EigenPair> = Vec::new();
    let mut lanczos_blocks = 0;
    for nodes in all {
        for (a, &v) in nodes.iter().enumerate() {
            local[v as usize] = a as u32;
        }
        let found = if nodes.len() > dense_limit {
            lanczos_blocks += 1;
            let r = rank.expect("a finite limit comes from a rank");
            let rows = sparse_block(obs, &nodes, &local);
            lanczos_top(&rows, r, dense_limit, 0x5eed ^ u64::from(nodes[0]))
        } else {
            dense_eigenpairs(dense_block(obs, &nodes, &local))
        };
        let id = blocks_out.len();
        let before = pairs.len();
        pairs.extend(
            found
                .into_iter()
                .filter(|&(v, _)| v > 0.0)
                .map(|(value, vector)| EigenPair {
                    value,
                    block: id,
                    vector,
                }),
        );
        if pairs.len() > before {
            blocks_out.push(nodes);
        }
    }
    // Largest first; ties by block, then as found (a stable sort).
    pairs.sort_by(|a, b| b.value.total_cmp(&a.value));
    let top = pairs.first().map_or(0.0, |p| p.value);
    pairs.retain(|p| p.value > ZERO_SHARE * top);
    if let Some(r) = rank {
        pairs.truncate(r);
    }
    Spectrum {
        blocks: blocks_out,
        pairs,
        lanczos_blocks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use graph_core::Graph;
    use graph_core::generate::erdos_renyi;

    /// `Σ μ_k v_k v_kᵀ` over a block against `M` itself.
    fn max_residual(obs: &Observation, sp: &Spectrum) -> f64 {
        let mut worst: f64 = 0.0;
        for (b, nodes) in sp.blocks.iter().enumerate() {
            let s = nodes.len();
            let mut rec = vec![0.0; s * s];
            for p in sp.pairs.iter().filter(|p| p.block == b) {
                for x in 0..s {
                    for y in 0..s {
                        rec[x * s + y] += p.value * p.vector[x] * p.vector[y];
                    }
                }
            }
            for x in 0..s {
                for y in 0..s {
                    let (i, j) = (nodes[x] as usize, nodes[y] as usize);
                    let m = if i == j {
                        f64::from(obs.degree[i])
                    } else {
                        f64::from(obs.common(i, j))
                    };
                    worst = worst.max((rec[x * s + y] - m).abs());
                }
            }
        }
        worst
    }

    #[test]
    fn blocks_reassemble_m() {
        let mut rng = dp_core::rng::seeded_rng(3);
        for (n, p) in [(30, 0.1), (50, 0.05), (40, 0.3)] {
            let g = erdos_renyi(n, p, &mut rng).unwrap();
            let obs = Observation::new(&g);
            let sp = spectrum(&obs, None);
            assert!(max_residual(&obs, &sp) < 1e-9, "n {n} p {p}");
            assert!(sp.pairs.windows(2).all(|w| w[0].value >= w[1].value));
            assert_eq!(sp.lanczos_blocks, 0);
        }
        // A star: the centre is a block of its own (M = [d]); the leaves another (all ones).
        let star = Graph::from_edges(5, &[(0, 1), (0, 2), (0, 3), (0, 4)]).unwrap();
        let sp = spectrum(&Observation::new(&star), None);
        assert_eq!(sp.blocks, vec![vec![0], vec![1, 2, 3, 4]]);
        assert_eq!(sp.pairs.len(), 2);
        assert!(sp.pairs.iter().all(|p| (p.value - 4.0).abs() < 1e-12));
    }

    #[test]
    fn lanczos_finds_the_top_eigenpairs() {
        let g = erdos_renyi(300, 0.03, &mut dp_core::rng::seeded_rng(8)).unwrap();
        let obs = Observation::new(&g);
        let full = spectrum(&obs, None);
        let top = spectrum(&obs, Some(20));
        assert!(top.lanczos_blocks >= 1);
        assert_eq!(top.pairs.len(), 20);
        // The top half has converged; the tail of the 72 Lanczos steps not quite.
        for (k, (a, b)) in full.pairs.iter().zip(&top.pairs).enumerate() {
            let tol = if k < 10 { 1e-9 } else { 5e-2 };
            assert!(
                (a.value - b.value).abs() < tol * a.value,
                "{k}: {} {}",
                a.value,
                b.value
            );
        }
        // The leading Ritz vector is the leading eigenvector (up to sign).
        let (a, b) = (&full.pairs[0], &top.pairs[0]);
        assert_eq!(a.block, 0);
        let ia = &full.blocks[a.block];
        let ib = &top.blocks[b.block];
        assert_eq!(ia, ib);
        let dot: f64 = a.vector.iter().zip(&b.vector).map(|(x, y)| x * y).sum();
        assert!(dot.abs() > 1.0 - 1e-8, "{dot}");
    }
}
