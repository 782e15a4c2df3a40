//! Bagged decision trees (linfa-trees CART with Gini impurity), parallel over trees, and their
//! linfa face ([`BaggedTreesParams`] → [`BaggedTrees`]).
//!
//! linfa-ensemble's random forest votes without probabilities and fits its trees sequentially;
//! for ROC-AUC we need the share of trees voting positive, so the bagging is done here: every
//! tree is fitted on its own bootstrap sample (n draws with replacement) of all features, from a
//! generator seeded by `(seed, tree)` so that the forest does not depend on the thread count.
//!
//! Reproducibility: linfa-trees 0.8.1 picks a leaf's class with a `HashMap` fold
//! (`find_modal_class`), so between classes of equal weight in a leaf the winner follows the
//! map's per-run random order; only forests whose leaves have no such tie (e.g. grown to purity,
//! `min_split = 2`) repeat bit for bit across runs. The paper's table does not use these trees
//! (BBBP uses [`super::random_forest_proba`]).

use linfa::DatasetBase;
use linfa::dataset::AsSingleTargets;
use linfa::prelude::{Fit, Predict};
use linfa::traits::PredictInplace;
use linfa_trees::DecisionTree;
use ndarray::{Array1, Array2, ArrayBase, ArrayView2, Axis, Data, Ix2};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use super::{argmax_rows, assert_columns, num_classes, targets_vec};
use crate::error::{HomdpError, Result, invalid};

/// Share of `trees` bagged CART trees voting for each class: `[test, classes]`.
///
/// # Arguments
/// * `min_split` — a node with fewer training samples is a leaf (scikit-learn's
///   `min_samples_split`);
/// * `seed` — drives the bootstrap samples (tree `t` uses `ChaCha8(seed, stream t)`).
///
/// # Errors
/// [`HomdpError::InvalidParam`] for no trees, no training rows or a label count that differs;
/// [`HomdpError::Downstream`] when linfa-trees refuses a fit.
///
/// # Example
/// ```
/// use ndarray::array;
/// let tr = array![[0.0], [0.1], [0.2], [0.3], [1.0], [1.1], [1.2], [1.3]];
/// let y = [0, 0, 0, 0, 1, 1, 1, 1];
/// let p = homdp::downstream::bagged_trees_proba(tr.view(), &y, array![[0.05], [1.25]].view(), 25, 2, 1)?;
/// assert!(p[[0, 0]] > 0.5 && p[[1, 1]] > 0.5);
/// # Ok::<(), homdp::HomdpError>(())
/// ```
pub fn bagged_trees_proba(
    train: ArrayView2<'_, f64>,
    labels: &[usize],
    test: ArrayView2<'_, f64>,
    trees: usize,
    min_split: usize,
    seed: u64,
) -> Result<Array2<f64>> {
    super::check_train_test(train, labels, test)?;
    let params = BaggedTreesParams {
        trees,
        min_split,
        seed,
    };
    Ok(BaggedTrees::grow(train, labels, &params)?.proba(test))
}

/// Hyper-parameters of [`BaggedTrees`] for linfa's [`Fit`].
///
/// # Example
/// ```
/// use homdp::downstream::BaggedTrees;
/// use linfa::prelude::*;
/// use ndarray::array;
/// let x = array![[0.0], [0.1], [0.2], [0.3], [1.0], [1.1], [1.2], [1.3]];
/// let ds = Dataset::new(x, array![0usize, 0, 0, 0, 1, 1, 1, 1]);
/// let model = BaggedTrees::params(25, 2, 1).fit(&ds)?;
/// assert_eq!(model.predict(&array![[0.05], [1.25]]), array![0, 1]);
/// # Ok::<(), homdp::HomdpError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BaggedTreesParams {
    /// Number of trees.
    pub trees: usize,
    /// A node with fewer training samples is a leaf (scikit-learn's `min_samples_split`).
    pub min_split: usize,
    /// Seed of the bootstrap samples (tree `t` uses `ChaCha8(seed, stream t)`).
    pub seed: u64,
}

/// Fitted bagged CART trees ([`bagged_trees_proba`]'s): [`BaggedTrees::predict_proba`] gives
/// the share of trees voting for each class, linfa's `predict` the majority (ties to the
/// smaller class).
#[derive(Clone, Debug)]
pub struct BaggedTrees {
    trees: Vec<DecisionTree<f64, usize>>,
    classes: usize,
    features: usize,
}

impl BaggedTrees {
    /// The hyper-parameters to fit with linfa.
    pub fn params(trees: usize, min_split: usize, seed: u64) -> BaggedTreesParams {
        BaggedTreesParams {
            trees,
            min_split,
            seed,
        }
    }

    /// Fits the trees on their bootstrap samples (in parallel).
    fn grow(
        train: ArrayView2<'_, f64>,
        labels: &[usize],
        params: &BaggedTreesParams,
    ) -> Result<Self> {
        if params.trees == 0 {
            return invalid("trees", 0.0, "need at least one tree");
        }
        super::check_train_test(train, labels, train)?;
        let n = train.nrows();
        let trees = (0..params.trees)
            .into_par_iter()
            .map(|t| {
                let mut rng = ChaCha8Rng::seed_from_u64(params.seed);
                rng.set_stream(t as u64);
                let idx: Vec<usize> = (0..n).map(|_| rng.random_range(0..n)).collect();
                let x = train.select(Axis(0), &idx);
                let y: Array1<usize> = idx.iter().map(|&i| labels[i]).collect();
                let ds = linfa::Dataset::new(x, y);
                DecisionTree::<f64, usize>::params()
                    .min_weight_split(params.min_split as f32)
                    .fit(&ds)
                    .map_err(|e| HomdpError::Downstream {
                        model: "decision tree",
                        reason: e.to_string(),
                    })
            })
            .collect::<Result<_>>()?;
        Ok(Self {
            trees,
            classes: num_classes(labels),
            features: train.ncols(),
        })
    }

    /// Share of trees voting for each class (columns checked by the caller).
    fn proba(&self, test: ArrayView2<'_, f64>) -> Array2<f64> {
        let test = test.to_owned();
        let votes: Vec<Array1<usize>> = self.trees.par_iter().map(|t| t.predict(&test)).collect();
        let mut p = Array2::zeros((test.nrows(), self.classes));
        for v in &votes {
            for (i, &c) in v.iter().enumerate() {
                if c < self.classes {
                    p[[i, c]] += 1.0 / self.trees.len() as f64;
                }
            }
        }
        p
    }

    /// Share of trees voting for each class, `[rows, classes]` ([`bagged_trees_proba`]).
    ///
    /// # Errors
    /// [`HomdpError::InvalidParam`] when `x` has other columns than the training rows.
    pub fn predict_proba(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        if x.ncols() != self.features {
            return invalid("x", x.ncols() as f64, "must have the training columns");
        }
        Ok(self.proba(x))
    }
}

impl<D, T> Fit<ArrayBase<D, Ix2>, T, HomdpError> for BaggedTreesParams
where
    D: Data<Elem = f64>,
    T: AsSingleTargets<Elem = usize>,
{
    type Object = BaggedTrees;

    /// Fits the trees ([`bagged_trees_proba`]'s).
    ///
    /// # Errors
    /// As [`bagged_trees_proba`].
    fn fit(&self, dataset: &DatasetBase<ArrayBase<D, Ix2>, T>) -> Result<BaggedTrees> {
        let labels = targets_vec(&dataset.targets);
        BaggedTrees::grow(dataset.records.view(), &labels, self)
    }
}

impl<D: Data<Elem = f64>> PredictInplace<ArrayBase<D, Ix2>, Array1<usize>> for BaggedTrees {
    /// The class most trees vote for.
    ///
    /// # Panics
    /// When `x` has other columns than the training rows, or `y` another length than its rows.
    fn predict_inplace(&self, x: &ArrayBase<D, Ix2>, y: &mut Array1<usize>) {
        assert_columns("bagged trees", x.view(), self.features);
        y.assign(&argmax_rows(self.proba(x.view()).view()));
    }

    fn default_target(&self, x: &ArrayBase<D, Ix2>) -> Array1<usize> {
        Array1::zeros(x.nrows())
    }
}
