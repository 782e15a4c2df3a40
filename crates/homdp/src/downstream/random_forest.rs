//! Random forest for classification (Breiman; scikit-learn's `RandomForestClassifier`
//! defaults): CART trees grown with Gini impurity on bootstrap samples, a random subset of
//! features considered at each split, class probabilities averaged over the trees' leaves.
//!
//! Trees are fitted in parallel (rayon); tree `t` draws its bootstrap sample and its feature
//! subsets from `ChaCha8(seed, stream t)`, so the forest does not depend on the thread count.
//! Through linfa: [`RandomForestParams`] → [`RandomForest`].
//!
//! linfa-ensemble 0.8.1's random forest draws its feature subset once per tree, not per split,
//! and votes without class shares (needed for ROC-AUC), so it is not scikit-learn's forest that
//! the paper's BBBP row uses.

use linfa::DatasetBase;
use linfa::dataset::AsSingleTargets;
use linfa::traits::{Fit, PredictInplace};
use ndarray::{Array1, Array2, ArrayBase, ArrayView1, ArrayView2, Data, Ix2};
use rand::seq::SliceRandom;
use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use super::{argmax_rows, assert_columns, num_classes, targets_vec};
use crate::error::{HomdpError, Result, invalid};

/// Features considered at each split.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum MaxFeatures {
    /// `max(1, ⌊√d⌋)` of the `d` features (scikit-learn's classifier default).
    Sqrt,
    /// All features (the forest is then bagged CART trees).
    All,
    /// A fixed number (capped at `d`).
    Count(usize),
}

impl MaxFeatures {
    /// Number of features per split for `d` features.
    fn of(self, d: usize) -> usize {
        match self {
            Self::Sqrt => ((d as f64).sqrt().floor() as usize).max(1),
            Self::All => d,
            Self::Count(m) => m.min(d),
        }
    }
}

/// Hyper-parameters of [`random_forest_proba`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ForestParams {
    /// Number of trees.
    pub trees: usize,
    /// A node with fewer distinct training rows is a leaf (scikit-learn's `min_samples_split`,
    /// ≥ 2; rows drawn twice into a bootstrap sample count once, as their weight).
    pub min_split: usize,
    /// Features considered at each split.
    pub max_features: MaxFeatures,
    /// Fit each tree on a bootstrap sample (n draws with replacement) instead of all rows.
    pub bootstrap: bool,
}

impl ForestParams {
    /// scikit-learn's `RandomForestClassifier(n_estimators = trees, min_samples_split =
    /// min_split)`: √d features per split, bootstrap samples.
    pub fn new(trees: usize, min_split: usize) -> Self {
        Self {
            trees,
            min_split,
            max_features: MaxFeatures::Sqrt,
            bootstrap: true,
        }
    }
}

/// One node of a fitted tree.
#[derive(Clone, Debug)]
enum Node {
    /// Class shares of the training samples that reach the leaf.
    Leaf(Vec<f64>),
    /// `x[feature] <= threshold` goes to `left`, else to `right`.
    Split {
        feature: usize,
        threshold: f64,
        left: usize,
        right: usize,
    },
}

/// A fitted classification tree (nodes in creation order, root first).
#[derive(Clone, Debug)]
struct Tree {
    nodes: Vec<Node>,
}

impl Tree {
    fn proba(&self, x: ArrayView1<'_, f64>) -> &[f64] {
        let mut at = 0;
        loop {
            match &self.nodes[at] {
                Node::Leaf(p) => return p,
                Node::Split {
                    feature,
                    threshold,
                    left,
                    right,
                } => {
                    at = if x[*feature] <= *threshold {
                        *left
                    } else {
                        *right
                    }
                }
            }
        }
    }
}

/// Gini impurity `1 − Σ p_c²` of class counts over `n` samples, times `n`.
fn weighted_gini(counts: &[usize], n: usize) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let sq: f64 = counts.iter().map(|&c| (c * c) as f64).sum();
    n as f64 - sq / n as f64
}

/// Grows one tree on the rows `idx` (with repetitions for a bootstrap sample).
struct Grower<'a, 'b> {
    x: ArrayView2<'a, f64>,
    y: &'b [usize],
    classes: usize,
    min_split: usize,
    max_features: usize,
}

/// The best split of one node: feature, threshold, and the node rows reordered so that the
/// first `left` go left.
struct BestSplit {
    feature: usize,
    threshold: f64,
    impurity: f64,
    order: Vec<usize>,
    left: usize,
}

impl Grower<'_, '_> {
    fn grow<R: Rng + ?Sized>(&self, idx: Vec<usize>, rng: &mut R) -> Tree {
        let mut nodes = Vec::new();
        // (node slot, rows)
        let mut stack = vec![(0usize, idx)];
        nodes.push(Node::Leaf(Vec::new()));
        let d = self.x.ncols();
        let mut features: Vec<usize> = (0..d).collect();
        while let Some((slot, rows)) = stack.pop() {
            let mut counts = vec![0usize; self.classes];
            for &i in &rows {
                counts[self.y[i]] += 1;
            }
            let pure = counts.iter().filter(|&&c| c > 0).count() <= 1;
            // scikit-learn counts the distinct rows of a node (a bootstrap sample weights its
            // rows by their multiplicity) against `min_samples_split`.
            let distinct = {
                let mut v = rows.clone();
                v.sort_unstable();
                v.dedup();
                v.len()
            };
            let split = if pure || distinct < self.min_split {
                None
            } else {
                self.best_split(&rows, &counts, &mut features, rng)
            };
            match split {
                None => {
                    let n = rows.len() as f64;
                    nodes[slot] = Node::Leaf(counts.iter().map(|&c| c as f64 / n).collect());
                }
                Some(s) => {
                    let (l, r) = (nodes.len(), nodes.len() + 1);
                    nodes.push(Node::Leaf(Vec::new()));
                    nodes.push(Node::Leaf(Vec::new()));
                    nodes[slot] = Node::Split {
                        feature: s.feature,
                        threshold: s.threshold,
                        left: l,
                        right: r,
                    };
                    let mut order = s.order;
                    let right_rows = order.split_off(s.left);
                    stack.push((r, right_rows));
                    stack.push((l, order));
                }
            }
        }
        Tree { nodes }
    }

    /// scikit-learn's best splitter: features in random order, at least `max_features` of them
    /// visited and more while every visited one was constant on the node; for each, the
    /// threshold between consecutive distinct values with the least weighted Gini impurity
    /// (the midpoint). `None` when every feature is constant on the node.
    fn best_split<R: Rng + ?Sized>(
        &self,
        rows: &[usize],
        counts: &[usize],
        features: &mut [usize],
        rng: &mut R,
    ) -> Option<BestSplit> {
        features.shuffle(rng);
        let n = rows.len();
        let mut best: Option<BestSplit> = None;
        let mut order = rows.to_vec();
        let mut left = vec![0usize; self.classes];
        for (visited, &f) in features.iter().enumerate() {
            if visited >= self.max_features && best.is_some() {
                break;
            }
            order.sort_by(|&a, &b| self.x[[a, f]].total_cmp(&self.x[[b, f]]));
            if self.x[[order[0], f]] == self.x[[order[n - 1], f]] {
                continue;
            }
            left.iter_mut().for_each(|c| *c = 0);
            let mut cur: Option<(f64, f64, usize)> = None;
            for p in 1..n {
                left[self.y[order[p - 1]]] += 1;
                let (a, b) = (self.x[[order[p - 1], f]], self.x[[order[p], f]]);
                if a == b {
                    continue;
                }
                let right: Vec<usize> = counts.iter().zip(&left).map(|(c, l)| c - l).collect();
                let imp = weighted_gini(&left, p) + weighted_gini(&right, n - p);
                if cur.is_none_or(|(i, _, _)| imp < i) {
                    let mut t = a / 2.0 + b / 2.0;
                    if t >= b || !t.is_finite() {
                        t = a;
                    }
                    cur = Some((imp, t, p));
                }
            }
            let Some((imp, t, p)) = cur else { continue };
            if best.as_ref().is_none_or(|b| imp < b.impurity) {
                best = Some(BestSplit {
                    feature: f,
                    threshold: t,
                    impurity: imp,
                    order: order.clone(),
                    left: p,
                });
            }
        }
        best
    }
}

/// Class probabilities `[test, classes]` of a random forest fitted on `(train, labels)`: the
/// mean over trees of the class shares in the leaf each test row reaches (scikit-learn's
/// `predict_proba`). Classes are `0..=max(label)`, at least 2.
///
/// Each tree is a CART tree grown to purity with Gini impurity: a node is split unless it is
/// pure or holds fewer than `min_split` distinct rows (a bootstrap sample's duplicates count
/// once for this test and with their multiplicity in the impurities and leaf shares); at each split `max_features` features are
/// drawn at random (more when all drawn ones are constant on the node) and the best threshold
/// (`x ≤ midpoint` goes left) among them is taken.
///
/// # Arguments
/// * `params` — see [`ForestParams`];
/// * `seed` — drives the bootstrap samples and the feature draws (tree `t` uses
///   `ChaCha8(seed, stream t)`).
///
/// # Errors
/// [`crate::HomdpError::InvalidParam`] for no trees, `min_split < 2`, `MaxFeatures::Count(0)`,
/// no training rows, a label count that differs, differing column counts or non-finite
/// features.
///
/// # Complexity
/// O(trees · depth · n log n · max_features) to fit; O(trees · depth) per test row.
///
/// # Example
/// ```
/// use homdp::downstream::{ForestParams, random_forest_proba};
/// use ndarray::array;
/// let tr = array![[0.0, 5.0], [0.1, 2.0], [0.2, 7.0], [0.3, 1.0], [1.0, 3.0], [1.1, 6.0], [1.2, 0.0], [1.3, 4.0]];
/// let y = [0, 0, 0, 0, 1, 1, 1, 1];
/// let p = random_forest_proba(tr.view(), &y, array![[0.05, 3.0], [1.25, 3.0]].view(), &ForestParams::new(50, 2), 1)?;
/// assert!(p[[0, 0]] > 0.5 && p[[1, 1]] > 0.5);
/// # Ok::<(), homdp::HomdpError>(())
/// ```
pub fn random_forest_proba(
    train: ArrayView2<'_, f64>,
    labels: &[usize],
    test: ArrayView2<'_, f64>,
    params: &ForestParams,
    seed: u64,
) -> Result<Array2<f64>> {
    super::check_train_test(train, labels, test)?;
    if let Some(&v) = test.iter().find(|v| !v.is_finite()) {
        return invalid("features", v, "must be finite");
    }
    Ok(RandomForest::grow(train, labels, params, seed)?.proba(test))
}

/// Hyper-parameters of [`RandomForest`] for linfa's [`Fit`]: the forest's and the seed of its
/// bootstrap samples and feature draws (tree `t` uses `ChaCha8(seed, stream t)`).
///
/// # Example
/// ```
/// use homdp::downstream::{ForestParams, RandomForest};
/// use linfa::prelude::*;
/// use ndarray::array;
/// let x = array![[0.0, 5.0], [0.1, 2.0], [0.2, 7.0], [0.3, 1.0], [1.0, 3.0], [1.1, 6.0], [1.2, 0.0], [1.3, 4.0]];
/// let ds = Dataset::new(x, array![0usize, 0, 0, 0, 1, 1, 1, 1]);
/// let forest = RandomForest::params(ForestParams::new(50, 2), 1).fit(&ds)?;
/// assert_eq!(forest.predict(&array![[0.05, 3.0], [1.25, 3.0]]), array![0, 1]);
/// # Ok::<(), homdp::HomdpError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RandomForestParams {
    /// The forest's hyper-parameters.
    pub forest: ForestParams,
    /// Seed of the bootstrap samples and feature draws.
    pub seed: u64,
}

/// A fitted random forest ([`random_forest_proba`]'s trees): [`RandomForest::predict_proba`]
/// gives the class shares, linfa's `predict` their argmax (ties to the smaller class).
#[derive(Clone, Debug)]
pub struct RandomForest {
    trees: Vec<Tree>,
    classes: usize,
    features: usize,
}

impl RandomForest {
    /// The hyper-parameters to fit with linfa.
    pub fn params(forest: ForestParams, seed: u64) -> RandomForestParams {
        RandomForestParams { forest, seed }
    }

    /// Grows the forest on `(train, labels)` (validated as in [`random_forest_proba`]).
    fn grow(
        train: ArrayView2<'_, f64>,
        labels: &[usize],
        params: &ForestParams,
        seed: u64,
    ) -> Result<Self> {
        if params.trees == 0 {
            return invalid("trees", 0.0, "need at least one tree");
        }
        if params.min_split < 2 {
            return invalid(
                "min_split",
                params.min_split as f64,
                "a split needs at least 2 samples",
            );
        }
        if params.max_features == MaxFeatures::Count(0) {
            return invalid("max_features", 0.0, "need at least one feature per split");
        }
        super::check_train_test(train, labels, train)?;
        if let Some(&v) = train.iter().find(|v| !v.is_finite()) {
            return invalid("features", v, "must be finite");
        }
        let classes = num_classes(labels);
        let n = train.nrows();
        let grower = Grower {
            x: train,
            y: labels,
            classes,
            min_split: params.min_split,
            max_features: params.max_features.of(train.ncols()).max(1),
        };
        let trees: Vec<Tree> = (0..params.trees)
            .into_par_iter()
            .map(|t| {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                rng.set_stream(t as u64);
                let idx: Vec<usize> = if params.bootstrap {
                    (0..n).map(|_| rng.random_range(0..n)).collect()
                } else {
                    (0..n).collect()
                };
                grower.grow(idx, &mut rng)
            })
            .collect();
        Ok(Self {
            trees,
            classes,
            features: train.ncols(),
        })
    }

    /// Mean over trees of the class shares in the leaf each row reaches (columns checked by
    /// the caller).
    fn proba(&self, test: ArrayView2<'_, f64>) -> Array2<f64> {
        let classes = self.classes;
        let rows: Vec<Vec<f64>> = test
            .outer_iter()
            .into_par_iter()
            .map(|x| {
                let mut p = vec![0.0; classes];
                for tree in &self.trees {
                    for (a, b) in p.iter_mut().zip(tree.proba(x)) {
                        *a += b;
                    }
                }
                p.iter().map(|v| v / self.trees.len() as f64).collect()
            })
            .collect();
        Array2::from_shape_fn((test.nrows(), classes), |(i, c)| rows[i][c])
    }

    /// Class shares `[rows, classes]` of the rows of `x` ([`random_forest_proba`]).
    ///
    /// # Errors
    /// [`HomdpError::InvalidParam`] when `x` has other columns than the training rows or a
    /// non-finite entry.
    pub fn predict_proba(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        if x.ncols() != self.features {
            return invalid("x", x.ncols() as f64, "must have the training columns");
        }
        if let Some(&v) = x.iter().find(|v| !v.is_finite()) {
            return invalid("features", v, "must be finite");
        }
        Ok(self.proba(x))
    }
}

impl<D, T> Fit<ArrayBase<D, Ix2>, T, HomdpError> for RandomForestParams
where
    D: Data<Elem = f64>,
    T: AsSingleTargets<Elem = usize>,
{
    type Object = RandomForest;

    /// Grows the forest ([`random_forest_proba`]'s trees).
    ///
    /// # Errors
    /// As [`random_forest_proba`].
    fn fit(&self, dataset: &DatasetBase<ArrayBase<D, Ix2>, T>) -> Result<RandomForest> {
        let labels = targets_vec(&dataset.targets);
        RandomForest::grow(dataset.records.view(), &labels, &self.forest, self.seed)
    }
}

impl<D: Data<Elem = f64>> PredictInplace<ArrayBase<D, Ix2>, Array1<usize>> for RandomForest {
    /// The class with the largest share of each row (a non-finite entry goes to the right of
    /// every split).
    ///
    /// # Panics
    /// When `x` has other columns than the training rows, or `y` another length than its rows.
    fn predict_inplace(&self, x: &ArrayBase<D, Ix2>, y: &mut Array1<usize>) {
        assert_columns("random forest", x.view(), self.features);
        y.assign(&argmax_rows(self.proba(x.view()).view()));
    }

    fn default_target(&self, x: &ArrayBase<D, Ix2>) -> Array1<usize> {
        Array1::zeros(x.nrows())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::roc_auc;
    use ndarray::array;

    /// Hand example: feature 0 separates best at 3.5 (weighted Gini 0.1875 · 8 vs ≥ 0.2 · 8 for
    /// the other thresholds and 0.4375 · 8 for feature 1); the right child (4 samples) is below
    /// `min_split = 5`, so it is a leaf with P(1) = 3/4.
    fn hand() -> (Array2<f64>, Vec<usize>) {
        let x = array![
            [0.0, 0.0],
            [1.0, 1.0],
            [2.0, 0.0],
            [3.0, 1.0],
            [4.0, 0.0],
            [5.0, 1.0],
            [6.0, 0.0],
            [7.0, 1.0]
        ];
        (x, vec![0, 0, 0, 0, 1, 1, 0, 1])
    }

    #[test]
    fn all_features_without_bootstrap_is_one_cart_tree() -> Result<()> {
        let (x, y) = hand();
        let test = array![[2.0, 1.0], [6.0, 0.0], [3.5, 0.0], [3.6, 1.0]];
        let params = ForestParams {
            trees: 7,
            min_split: 5,
            max_features: MaxFeatures::All,
            bootstrap: false,
        };
        let p = random_forest_proba(x.view(), &y, test.view(), &params, 3)?;
        let want = array![[1.0, 0.0], [0.25, 0.75], [1.0, 0.0], [0.25, 0.75]];
        assert_eq!(p, want);
        // One tree gives the same, for any seed.
        let one = ForestParams { trees: 1, ..params };
        assert_eq!(
            random_forest_proba(x.view(), &y, test.view(), &one, 99)?,
            want
        );
        // Grown to purity (min_split = 2), the training rows are recovered exactly.
        let pure = ForestParams {
            min_split: 2,
            ..params
        };
        let p = random_forest_proba(x.view(), &y, x.view(), &pure, 0)?;
        for (row, &c) in p.outer_iter().zip(&y) {
            assert_eq!(row[c], 1.0);
        }
        // One random feature per split: some trees split on the weak feature 1 first.
        let sub = ForestParams {
            max_features: MaxFeatures::Count(1),
            ..params
        };
        let p = random_forest_proba(x.view(), &y, test.view(), &sub, 3)?;
        assert_ne!(p, want);
        Ok(())
    }

    #[test]
    fn min_split_counts_distinct_rows() {
        // Rows 0 and 1 drawn three times each: 6 samples but 2 distinct rows, below
        // min_split = 3, so the root is a leaf with the weighted shares.
        let (x, y) = hand();
        let grower = Grower {
            x: x.view(),
            y: &y,
            classes: 2,
            min_split: 3,
            max_features: 2,
        };
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let tree = grower.grow(vec![0, 0, 0, 4, 4, 4], &mut rng);
        assert_eq!(tree.nodes.len(), 1);
        assert_eq!(tree.proba(x.row(0)), &[0.5, 0.5]);
        // Three distinct rows: split.
        let tree = grower.grow(vec![0, 0, 3, 4, 4, 4], &mut rng);
        assert_eq!(tree.nodes.len(), 3);
        assert_eq!(tree.proba(x.row(0)), &[1.0, 0.0]);
        assert_eq!(tree.proba(x.row(4)), &[0.0, 1.0]);
    }

    #[test]
    fn separates_a_seeded_synthetic_problem() -> Result<()> {
        // Class 1 iff x0 + x1 > 0; 8 pure-noise features; √10 → 3 features per split.
        let mut rng = ChaCha8Rng::seed_from_u64(17);
        let mut sample = |m: usize| {
            let x = Array2::from_shape_fn((m, 10), |_| rng.random::<f64>() * 2.0 - 1.0);
            let y: Vec<usize> = x
                .outer_iter()
                .map(|r| usize::from(r[0] + r[1] > 0.0))
                .collect();
            (x, y)
        };
        let (xtr, ytr) = sample(400);
        let (xte, yte) = sample(300);
        let params = ForestParams::new(60, 10);
        let p = random_forest_proba(xtr.view(), &ytr, xte.view(), &params, 5)?;
        for row in p.outer_iter() {
            assert!((row.sum() - 1.0).abs() < 1e-12);
        }
        let pos: Vec<bool> = yte.iter().map(|&c| c == 1).collect();
        let auc = roc_auc(&p.column(1).to_vec(), &pos)?;
        assert!(auc > 0.95, "AUC {auc}");
        // Seeded: the same seed gives the same forest, another seed another one.
        assert_eq!(
            p,
            random_forest_proba(xtr.view(), &ytr, xte.view(), &params, 5)?
        );
        assert_ne!(
            p,
            random_forest_proba(xtr.view(), &ytr, xte.view(), &params, 6)?
        );
        Ok(())
    }

    #[test]
    fn rejects_bad_input() {
        let (x, y) = hand();
        let ok = ForestParams::new(3, 2);
        let bad = [
            ForestParams { trees: 0, ..ok },
            ForestParams { min_split: 1, ..ok },
            ForestParams {
                max_features: MaxFeatures::Count(0),
                ..ok
            },
        ];
        for p in &bad {
            assert!(random_forest_proba(x.view(), &y, x.view(), p, 0).is_err());
        }
        assert!(random_forest_proba(x.view(), &y[..5], x.view(), &ok, 0).is_err());
        let narrow = array![[1.0]];
        assert!(random_forest_proba(x.view(), &y, narrow.view(), &ok, 0).is_err());
        let mut nan = x.clone();
        nan[[2, 1]] = f64::NAN;
        assert!(random_forest_proba(nan.view(), &y, x.view(), &ok, 0).is_err());
        assert_eq!(MaxFeatures::Sqrt.of(50), 7);
        assert_eq!(MaxFeatures::Count(80).of(50), 50);
    }
}
