//! The re-identification attack of the paper's evaluation: an adversary who knows the clean
//! density vectors of all graphs looks up each released (noisy) vector in a nearest-neighbour
//! index over them; the attack succeeds for a graph when its own index is among the `k` nearest.

use std::collections::HashMap;

use ndarray::{ArrayView2, Axis};
use rayon::prelude::*;

use crate::error::{Result, invalid};

/// Queries per block of the blocked distance computation.
const BLOCK: usize = 64;

/// Share of graphs re-identified at each `k` of `ks` (top-k success rates, same order).
///
/// Row `i` of `released` is the query for graph `i`; the index is the rows of `clean` (exact
/// brute-force Euclidean search). The rank of graph `i` is the number of graphs strictly closer
/// to its query than its own clean vector, plus the tied ones with a smaller index (a stable
/// brute-force search); graphs with bit-identical clean vectors are always tied, so among
/// duplicates only the first can be found at top-1 (as in the paper's non-private numbers).
///
/// # Errors
/// [`crate::HomdpError::InvalidParam`] for shapes that differ, no rows, a `k` of 0, or a
/// non-finite entry.
///
/// # Complexity
/// O(N²·d) time (blocked matrix products, parallel over query blocks with rayon), O(N·d) memory
/// plus `64·N` per thread.
///
/// # Example
/// ```
/// use ndarray::array;
/// let clean = array![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 0.0]];
/// let noisy = array![[0.1, 0.0], [0.0, 0.9], [0.0, 0.9], [0.9, 0.1]];
/// let rates = homdp::reidentification(clean.view(), noisy.view(), &[1, 2, 4])?;
/// // Graph 0 and 2 are found at top-1; graph 3 ties with its duplicate 1 and comes second.
/// assert_eq!(rates, vec![0.5, 0.75, 1.0]);
/// # Ok::<(), homdp::HomdpError>(())
/// ```
pub fn reidentification(
    clean: ArrayView2<'_, f64>,
    released: ArrayView2<'_, f64>,
    ks: &[usize],
) -> Result<Vec<f64>> {
    let ranks = reidentification_ranks(clean, released)?;
    if let Some(&k) = ks.iter().find(|&&k| k == 0) {
        return invalid("k", k as f64, "top-k needs k >= 1");
    }
    let n = ranks.len() as f64;
    Ok(ks
        .iter()
        .map(|&k| ranks.iter().filter(|&&r| r < k).count() as f64 / n)
        .collect())
}

/// The 0-based rank of each graph's own clean vector among the neighbours of its released
/// vector (see [`reidentification`]).
///
/// # Errors
/// As [`reidentification`].
pub fn reidentification_ranks(
    clean: ArrayView2<'_, f64>,
    released: ArrayView2<'_, f64>,
) -> Result<Vec<usize>> {
    if clean.dim() != released.dim() {
        return invalid(
            "released",
            released.nrows() as f64,
            "must have the shape of the clean matrix",
        );
    }
    let (n, _) = clean.dim();
    if n == 0 {
        return invalid("clean", 0.0, "needs at least one row");
    }
    if let Some(&v) = clean.iter().chain(released.iter()).find(|v| !v.is_finite()) {
        return invalid("released", v, "entries must be finite");
    }
    // Earlier bit-identical duplicates of each clean row.
    let mut seen: HashMap<Vec<u64>, usize> = HashMap::new();
    let mut earlier_dups = vec![0usize; n];
    let mut group = vec![0usize; n];
    let mut group_of: HashMap<Vec<u64>, usize> = HashMap::new();
    for (i, row) in clean.outer_iter().enumerate() {
        let key: Vec<u64> = row.iter().map(|v| (v + 0.0).to_bits()).collect();
        let count = seen.entry(key.clone()).or_insert(0);
        earlier_dups[i] = *count;
        *count += 1;
        let next = group_of.len();
        group[i] = *group_of.entry(key).or_insert(next);
    }
    // ‖c_j‖² − 2⟨q, c_j⟩ orders the c_j by distance to q (‖q‖² is common to all j).
    let norms: Vec<f64> = clean.outer_iter().map(|r| r.dot(&r)).collect();
    let ct = clean.t();
    let blocks: Vec<Vec<usize>> = (0..n.div_ceil(BLOCK))
        .into_par_iter()
        .map(|b| {
            let lo = b * BLOCK;
            let hi = (lo + BLOCK).min(n);
            let g = released.slice(ndarray::s![lo..hi, ..]).dot(&ct);
            g.axis_iter(Axis(0))
                .enumerate()
                .map(|(r, gr)| {
                    let i = lo + r;
                    let own = norms[i] - 2.0 * gr[i];
                    let mut rank = earlier_dups[i];
                    for (j, (&gj, &nj)) in gr.iter().zip(&norms).enumerate() {
                        if group[j] == group[i] {
                            continue;
                        }
                        let s = nj - 2.0 * gj;
                        if s < own || (s == own && j < i) {
                            rank += 1;
                        }
                    }
                    rank
                })
                .collect()
        })
        .collect();
    Ok(blocks.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;
    use rand::{RngExt, SeedableRng};

    /// Rank by sorting exact squared distances, ties by index, duplicates included.
    fn naive_ranks(c: &Array2<f64>, q: &Array2<f64>) -> Vec<usize> {
        let n = c.nrows();
        (0..n)
            .map(|i| {
                let d = |j: usize| {
                    c.row(j)
                        .iter()
                        .zip(q.row(i))
                        .map(|(a, b)| (a - b) * (a - b))
                        .sum::<f64>()
                };
                let own = d(i);
                (0..n)
                    .filter(|&j| {
                        let same = c.row(j) == c.row(i);
                        let dj = if same { own } else { d(j) };
                        dj < own || (dj == own && j < i)
                    })
                    .count()
            })
            .collect()
    }

    #[test]
    fn ranks_match_a_naive_search() -> Result<()> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let n = 150; // more than two blocks
        let mut c = Array2::from_shape_fn((n, 5), |_| rng.random::<f64>());
        for i in (0..n).step_by(7) {
            let r = c.row(i / 2).to_owned();
            c.row_mut(i).assign(&r); // duplicates
        }
        let q = &c + &Array2::from_shape_fn((n, 5), |_| 0.2 * (rng.random::<f64>() - 0.5));
        let ranks = reidentification_ranks(c.view(), q.view())?;
        assert_eq!(ranks, naive_ranks(&c, &q));
        // Without noise, every graph whose clean vector is unique is found first.
        let exact = reidentification_ranks(c.view(), c.view())?;
        for (i, &rank) in exact.iter().enumerate() {
            let dups_before = (0..i).filter(|&j| c.row(j) == c.row(i)).count();
            assert_eq!(rank, dups_before);
        }
        let rates = reidentification(c.view(), q.view(), &[1, 10, n])?;
        assert!(rates[0] <= rates[1] && rates[2] == 1.0);
        Ok(())
    }

    #[test]
    fn bad_input_is_an_error() {
        let a = Array2::<f64>::zeros((3, 2));
        let b = Array2::<f64>::zeros((2, 2));
        assert!(reidentification(a.view(), b.view(), &[1]).is_err());
        assert!(reidentification(a.view(), a.view(), &[0]).is_err());
        let mut nan = a.clone();
        nan[[0, 0]] = f64::NAN;
        assert!(reidentification(a.view(), nan.view(), &[1]).is_err());
    }
}
