//! Exact brute-force k-nearest-neighbour classification (Euclidean), parallel over test rows.

use ndarray::{Array2, ArrayView2, Axis, s};
use rayon::prelude::*;

use super::num_classes;
use crate::error::{Result, invalid};

/// Test rows per block of the blocked distance computation.
const BLOCK: usize = 64;

/// Class shares among the `k` nearest training rows of each test row: `[test, classes]`
/// (classes `0..=max(train label)`, at least 2). Ties in distance are broken by training index.
///
/// # Errors
/// [`crate::HomdpError::InvalidParam`] for `k = 0`, a label count that differs from the rows,
/// no training rows, or differing column counts.
///
/// # Complexity
/// O(|test|·|train|·d) (blocked matrix products) plus O(|test|·|train|) selection.
///
/// # Example
/// ```
/// use ndarray::array;
/// let tr = array![[0.0], [1.0], [2.0], [10.0]];
/// let p = homdp::downstream::knn_proba(tr.view(), &[0, 0, 1, 1], array![[0.4]].view(), 3)?;
/// assert_eq!(p.row(0).to_vec(), vec![2.0 / 3.0, 1.0 / 3.0]);
/// # Ok::<(), homdp::HomdpError>(())
/// ```
pub fn knn_proba(
    train: ArrayView2<'_, f64>,
    labels: &[usize],
    test: ArrayView2<'_, f64>,
    k: usize,
) -> Result<Array2<f64>> {
    if k == 0 {
        return invalid("k", 0.0, "k-NN needs k >= 1");
    }
    super::check_train_test(train, labels, test)?;
    let k = k.min(train.nrows());
    let classes = num_classes(labels);
    let norms: Vec<f64> = train.outer_iter().map(|r| r.dot(&r)).collect();
    let tt = train.t();
    let m = test.nrows();
    let rows: Vec<Vec<f64>> = (0..m.div_ceil(BLOCK))
        .into_par_iter()
        .flat_map_iter(|b| {
            let lo = b * BLOCK;
            let hi = (lo + BLOCK).min(m);
            let g = test.slice(s![lo..hi, ..]).dot(&tt);
            let mut out = Vec::with_capacity(hi - lo);
            let mut keyed: Vec<(f64, usize)> = Vec::with_capacity(norms.len());
            for gr in g.axis_iter(Axis(0)) {
                keyed.clear();
                keyed.extend(
                    gr.iter()
                        .zip(&norms)
                        .enumerate()
                        .map(|(j, (&gj, &nj))| (nj - 2.0 * gj, j)),
                );
                let cmp =
                    |a: &(f64, usize), b: &(f64, usize)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
                if k < keyed.len() {
                    keyed.select_nth_unstable_by(k - 1, cmp);
                }
                let mut counts = vec![0.0; classes];
                for &(_, j) in &keyed[..k] {
                    counts[labels[j]] += 1.0;
                }
                out.push(counts.into_iter().map(|c| c / k as f64).collect());
            }
            out
        })
        .collect();
    Ok(Array2::from_shape_fn((m, classes), |(i, c)| rows[i][c]))
}

/// Majority class among the `k` nearest training rows (ties to the smaller class).
///
/// # Errors
/// As [`knn_proba`].
pub fn knn_classify(
    train: ArrayView2<'_, f64>,
    labels: &[usize],
    test: ArrayView2<'_, f64>,
    k: usize,
) -> Result<Vec<usize>> {
    let p = knn_proba(train, labels, test, k)?;
    Ok(p.outer_iter()
        .map(|row| {
            let mut best = 0;
            for (c, &v) in row.iter().enumerate() {
                if v > row[best] {
                    best = c;
                }
            }
            best
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    #[test]
    fn matches_a_sorted_search() -> Result<()> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let tr = Array2::from_shape_fn((90, 3), |_| rng.random::<f64>());
        let te = Array2::from_shape_fn((70, 3), |_| rng.random::<f64>());
        let y: Vec<usize> = (0..90).map(|_| rng.random_range(0..3)).collect();
        let k = 7;
        let p = knn_proba(tr.view(), &y, te.view(), k)?;
        for i in 0..70 {
            let mut d: Vec<(f64, usize)> = (0..90)
                .map(|j| ((&tr.row(j) - &te.row(i)).mapv(|v| v * v).sum(), j))
                .collect();
            d.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mut c = [0.0; 3];
            for &(_, j) in &d[..k] {
                c[y[j]] += 1.0 / k as f64;
            }
            for (a, b) in c.iter().zip(p.row(i)) {
                assert!((a - b).abs() < 1e-12);
            }
        }
        let pred = knn_classify(tr.view(), &y, te.view(), 1)?;
        assert_eq!(pred.len(), 70);
        // k larger than the training set: the class shares of all training rows.
        let all = knn_proba(tr.view(), &y, te.view(), 1000)?;
        let share0 = y.iter().filter(|&&c| c == 0).count() as f64 / 90.0;
        assert!((all[[0, 0]] - share0).abs() < 1e-12);
        assert!(knn_proba(tr.view(), &y, te.view(), 0).is_err());
        Ok(())
    }
}
