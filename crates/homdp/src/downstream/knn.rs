//! Exact brute-force k-nearest-neighbour classification (Euclidean), parallel over test rows,
//! and its linfa face ([`KnnParams`] → [`KnnClassifier`]).
//!
//! # Why not linfa-nn
//! linfa-nn 0.8.1 (`LinearSearch`, `KdTree`, `BallTree` with `L2Dist`) was compared side by
//! side (`cargo bench -p homdp --bench knn`, the repro's shapes; `tests/downstream_linfa.rs`):
//! - **ties**: its indexes order neighbours by distance only (a binary heap), so among training
//!   rows at the same distance, which ones enter the `k` nearest is the heap's order, not the
//!   training index; density embeddings have many exact duplicates (equal densities of
//!   different molecules), so the class shares, and the repro's numbers, would move;
//! - **distances**: it sums `(a − b)²` per pair, the blocked search ranks by `‖t‖² − 2⟨x, t⟩`
//!   (one matrix product per block), so near-ties can rank differently by rounding;
//! - **speed**: slower on every shape of the repro. Median times, one run, 2 cores
//!   (training × columns, k: blocked / linfa-nn linear, kd-tree, ball tree):
//!   1000 × 50, k 100 (`--quick`): 1.40 ms / 13.2, 17.2, 14.1 ms (9.5×, 12×, 10×);
//!   1210 × 50, k 120 (BACE): 1.18 ms / 9.8, 13.8, 12.2 ms (8.3×, 12×, 10×);
//!   8000 × 50, k 250 (a quarter of HIV): 51 ms / 385, 555, 485 ms (7.6×, 11×, 9.6×);
//!   1600 × 6, k 300 (REDDIT-BINARY after PCA): 2.86 ms / 20.3, 20.8, 21.7 ms (7.1×–7.6×);
//!   320 × 4, k 5 (Q1 SBM): 0.136 ms / 0.284, 0.166, 0.250 ms (2.1×, 1.2×, 1.8×).
//!   With every fifth training row duplicated, linfa-nn's `k` nearest differ from ours for
//!   1–12 % of the test rows.
//!
//! So the blocked brute force stays, and linfa-nn is only a dev-dependency (it would also add
//! 14 crates to homdp's default dependencies).

use linfa::DatasetBase;
use linfa::dataset::AsSingleTargets;
use linfa::traits::{Fit, PredictInplace};
use ndarray::{Array1, Array2, ArrayBase, ArrayView2, Axis, Data, Ix2, s};
use rayon::prelude::*;

use super::{argmax_rows, assert_columns, num_classes, targets_vec};
use crate::error::{HomdpError, Result, invalid};

/// Test rows per block of the blocked distance computation.
const BLOCK: usize = 64;

/// For each test row (in order), `visit` gets the `k` nearest training rows as `(key, index)`
/// pairs in no particular order, where `key = ‖t‖² − 2⟨x, t⟩` ranks the training rows `t` by
/// distance to the test row `x`; ties are broken by training index. `k ≤ train rows`.
fn nearest_blocked<T, F>(
    train: ArrayView2<'_, f64>,
    test: ArrayView2<'_, f64>,
    k: usize,
    visit: F,
) -> Vec<T>
where
    T: Send,
    F: Fn(&[(f64, usize)]) -> T + Sync,
{
    let norms: Vec<f64> = train.outer_iter().map(|r| r.dot(&r)).collect();
    let tt = train.t();
    let m = test.nrows();
    (0..m.div_ceil(BLOCK))
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
                if k < keyed.len() {
                    keyed.select_nth_unstable_by(k - 1, by_key_then_index);
                }
                out.push(visit(&keyed[..k]));
            }
            out
        })
        .collect()
}

/// Orders `(key, index)` pairs by key, then by index.
fn by_key_then_index(a: &(f64, usize), b: &(f64, usize)) -> std::cmp::Ordering {
    a.0.total_cmp(&b.0).then(a.1.cmp(&b.1))
}

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
    let rows = nearest_blocked(train, test, k, |nearest| {
        let mut counts = vec![0.0; classes];
        for &(_, j) in nearest {
            counts[labels[j]] += 1.0;
        }
        counts
            .into_iter()
            .map(|c| c / k as f64)
            .collect::<Vec<f64>>()
    });
    Ok(Array2::from_shape_fn((test.nrows(), classes), |(i, c)| {
        rows[i][c]
    }))
}

/// The indices of the `k` nearest training rows of each test row (Euclidean), nearest first,
/// ties in distance broken by the smaller training index: the neighbours [`knn_proba`] counts.
///
/// # Errors
/// [`crate::HomdpError::InvalidParam`] for `k = 0`, no training rows or differing column
/// counts.
///
/// # Complexity
/// As [`knn_proba`], plus O(|test|·k log k) to order the neighbours.
///
/// # Example
/// ```
/// use ndarray::array;
/// // Rows 1 and 2 are both at distance 1 from the query: the smaller index comes first.
/// let tr = array![[5.0], [1.0], [-1.0], [0.5]];
/// let nn = homdp::downstream::knn_neighbours(tr.view(), array![[0.0]].view(), 3)?;
/// assert_eq!(nn, vec![vec![3, 1, 2]]);
/// # Ok::<(), homdp::HomdpError>(())
/// ```
pub fn knn_neighbours(
    train: ArrayView2<'_, f64>,
    test: ArrayView2<'_, f64>,
    k: usize,
) -> Result<Vec<Vec<usize>>> {
    if k == 0 {
        return invalid("k", 0.0, "k-NN needs k >= 1");
    }
    if train.nrows() == 0 {
        return invalid("train", 0.0, "need at least one training row");
    }
    if train.ncols() != test.ncols() {
        return invalid(
            "test",
            test.ncols() as f64,
            "must have the training columns",
        );
    }
    let k = k.min(train.nrows());
    Ok(nearest_blocked(train, test, k, |nearest| {
        let mut v = nearest.to_vec();
        v.sort_unstable_by(by_key_then_index);
        v.into_iter().map(|(_, j)| j).collect()
    }))
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
    Ok(argmax_rows(p.view()).to_vec())
}

/// Hyper-parameters of the k-NN classifier for linfa's [`Fit`]: the number of neighbours.
///
/// # Example
/// ```
/// use homdp::downstream::KnnClassifier;
/// use linfa::prelude::*;
/// use ndarray::array;
/// let ds = Dataset::new(array![[0.0], [1.0], [2.0], [10.0]], array![0usize, 0, 1, 1]);
/// let model = KnnClassifier::params(3).fit(&ds)?;
/// assert_eq!(model.predict(&array![[0.4], [9.0]]), array![0, 1]);
/// # Ok::<(), homdp::HomdpError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct KnnParams {
    /// Neighbours (capped at the number of training rows).
    pub k: usize,
}

/// A fitted k-NN classifier: the training rows and their classes; [`KnnClassifier::predict_proba`]
/// is [`knn_proba`], linfa's `predict` its majority class (ties to the smaller class).
#[derive(Clone, Debug, PartialEq)]
pub struct KnnClassifier {
    train: Array2<f64>,
    labels: Vec<usize>,
    k: usize,
}

impl KnnClassifier {
    /// The hyper-parameters to fit with linfa.
    pub fn params(k: usize) -> KnnParams {
        KnnParams { k }
    }

    /// Class shares among the `k` nearest training rows of each row of `x` ([`knn_proba`]).
    ///
    /// # Errors
    /// [`crate::HomdpError::InvalidParam`] when `x` has other columns than the training rows.
    pub fn predict_proba(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        knn_proba(self.train.view(), &self.labels, x, self.k)
    }
}

impl<D, T> Fit<ArrayBase<D, Ix2>, T, HomdpError> for KnnParams
where
    D: Data<Elem = f64>,
    T: AsSingleTargets<Elem = usize>,
{
    type Object = KnnClassifier;

    /// Stores the training rows and classes.
    ///
    /// # Errors
    /// [`HomdpError::InvalidParam`] for `k = 0`, no rows or a target count that differs.
    fn fit(&self, dataset: &DatasetBase<ArrayBase<D, Ix2>, T>) -> Result<KnnClassifier> {
        let labels = targets_vec(&dataset.targets);
        if self.k == 0 {
            return invalid("k", 0.0, "k-NN needs k >= 1");
        }
        let train = dataset.records.view();
        super::check_train_test(train, &labels, train)?;
        Ok(KnnClassifier {
            train: train.to_owned(),
            labels,
            k: self.k,
        })
    }
}

impl<D: Data<Elem = f64>> PredictInplace<ArrayBase<D, Ix2>, Array1<usize>> for KnnClassifier {
    /// The majority class of each row's `k` nearest training rows.
    ///
    /// # Panics
    /// When `x` has other columns than the training rows, or `y` another length than its rows.
    fn predict_inplace(&self, x: &ArrayBase<D, Ix2>, y: &mut Array1<usize>) {
        assert_columns("k-NN", x.view(), self.train.ncols());
        let p = self
            .predict_proba(x.view())
            .expect("the columns were checked, the model has training rows and k >= 1");
        y.assign(&argmax_rows(p.view()));
    }

    fn default_target(&self, x: &ArrayBase<D, Ix2>) -> Array1<usize> {
        Array1::zeros(x.nrows())
    }
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
