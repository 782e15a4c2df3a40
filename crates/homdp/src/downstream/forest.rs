//! Bagged decision trees (linfa-trees CART with Gini impurity), parallel over trees.
//!
//! linfa-ensemble's random forest votes without probabilities and fits its trees sequentially;
//! for ROC-AUC we need the share of trees voting positive, so the bagging is done here: every
//! tree is fitted on its own bootstrap sample (n draws with replacement) of all features, from a
//! generator seeded by `(seed, tree)` so that the forest does not depend on the thread count.

use linfa::prelude::{Fit, Predict};
use linfa_trees::DecisionTree;
use ndarray::{Array1, Array2, ArrayView2, Axis};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use super::num_classes;
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
    if trees == 0 {
        return invalid("trees", 0.0, "need at least one tree");
    }
    super::check_train_test(train, labels, test)?;
    let classes = num_classes(labels);
    let n = train.nrows();
    let test = test.to_owned();
    let votes: Vec<Array1<usize>> = (0..trees)
        .into_par_iter()
        .map(|t| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            rng.set_stream(t as u64);
            let idx: Vec<usize> = (0..n).map(|_| rng.random_range(0..n)).collect();
            let x = train.select(Axis(0), &idx);
            let y: Array1<usize> = idx.iter().map(|&i| labels[i]).collect();
            let ds = linfa::Dataset::new(x, y);
            let tree = DecisionTree::<f64, usize>::params()
                .min_weight_split(min_split as f32)
                .fit(&ds)
                .map_err(|e| HomdpError::Downstream {
                    model: "decision tree",
                    reason: e.to_string(),
                })?;
            Ok(tree.predict(&test))
        })
        .collect::<Result<_>>()?;
    let mut p = Array2::zeros((test.nrows(), classes));
    for v in &votes {
        for (i, &c) in v.iter().enumerate() {
            if c < classes {
                p[[i, c]] += 1.0 / trees as f64;
            }
        }
    }
    Ok(p)
}
