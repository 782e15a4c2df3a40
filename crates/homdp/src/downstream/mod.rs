//! Downstream models of the paper's evaluation, trained on (noisy) density embeddings:
//! standard scaling, PCA, k-NN, a random forest (own CART trees with per-split feature
//! sampling), bagged decision trees (linfa-trees), linear ε-SVR (dual coordinate descent).
//!
//! [`fit_evaluate`] runs one model from the paper's table on a train/test split and returns the
//! test metrics ([`Scores`]).
//!
//! # In a linfa pipeline
//! Every model also implements linfa's traits on [`linfa::DatasetBase`] (records `f64`
//! matrices, owned or views; sample weights are ignored), so it can stand wherever a linfa
//! model does (e.g. in `Dataset::cross_validate_single`):
//!
//! | hyper-parameters ([`linfa::traits::Fit`]) | fitted model ([`linfa::traits::Predict`]) | targets |
//! |---|---|---|
//! | [`StandardScalerParams`] | [`StandardScaler`] | the scaled records |
//! | [`PcaParams`] | [`Pca`] | the projected records |
//! | [`KnnParams`] | [`KnnClassifier`] | classes `usize` |
//! | [`RandomForestParams`] | [`RandomForest`] | classes `usize` |
//! | [`BaggedTreesParams`] | [`BaggedTrees`] | classes `usize` |
//! | [`LinearSvrParams`] | [`LinearSvr`] | reals `f64` |
//!
//! The scaler and the PCA also implement [`linfa::traits::Transformer`] on datasets. The
//! classifiers' class shares (ROC-AUC scores) are their inherent `predict_proba`. The error type
//! is [`HomdpError`] (linfa's own errors convert into it). Fitted through linfa, a model gives
//! the numbers of the function API ([`knn_proba`], [`random_forest_proba`], …) bit for bit
//! (the bagged trees inherit a run-to-run tie-break of linfa-trees: see [`bagged_trees_proba`]).
//! Where a type also has an inherent method of the same name (`LinearSvr::predict`,
//! `StandardScaler::transform`, `Pca::transform`), call the linfa one by its trait:
//! `Predict::predict(&model, &x)`.
//!
//! Why these are not linfa's own models (each compared in `tests/downstream_linfa.rs`):
//! linfa-nn's indexes break distance ties in heap order, not by training index, and its
//! searches are slower than the blocked brute force here (see [`knn_proba`]); linfa-svm's SMO
//! ε-SVR solves a different problem (unregularised bias), takes minutes on Lipophilicity and
//! panics with shrinking on (see [`LinearSvr`]); linfa-reduction's PCA is an iterative truncated
//! SVD and linfa-preprocessing's scaler multiplies by `1/σ`, so neither gives our numbers bit
//! for bit (see [`Pca`], [`StandardScaler`]); linfa-ensemble's forest has no class shares and no
//! per-split feature sampling (see [`random_forest_proba`]). None is in the default
//! dependencies: each would push `homdp` past its lean dependency budget.
//!
//! # Example
//! ```
//! use homdp::downstream::{KnnClassifier, StandardScaler};
//! use linfa::prelude::*;
//! use ndarray::array;
//! let x = array![[0.0, 1.0], [0.2, 1.1], [0.1, 0.9], [2.0, 3.0], [2.2, 3.1], [2.1, 2.9]];
//! let ds = Dataset::new(x, array![0usize, 0, 0, 1, 1, 1]);
//! // Scale, then k-NN: linfa's Fit / Transformer / Predict.
//! let scaler = StandardScaler::params().fit(&ds)?;
//! let ds = Transformer::transform(&scaler, ds);
//! let knn = KnnClassifier::params(3).fit(&ds)?;
//! let test = Predict::predict(&scaler, &array![[0.05, 1.0], [2.05, 3.0]]);
//! assert_eq!(knn.predict(&test), array![0, 1]);
//! assert_eq!(knn.predict_proba(test.view())?.row(1).to_vec(), vec![0.0, 1.0]);
//! # Ok::<(), homdp::HomdpError>(())
//! ```

mod forest;
mod knn;
mod pca;
mod random_forest;
mod scale;
mod svr;

pub use forest::{BaggedTrees, BaggedTreesParams, bagged_trees_proba};
pub use knn::{KnnClassifier, KnnParams, knn_classify, knn_neighbours, knn_proba};
pub use pca::{Pca, PcaParams};
pub use random_forest::{
    ForestParams, MaxFeatures, RandomForest, RandomForestParams, random_forest_proba,
};
pub use scale::{StandardScaler, StandardScalerParams};
pub use svr::{LinearSvr, LinearSvrParams, linear_svr};

use linfa::dataset::AsSingleTargets;
use ndarray::{Array1, Array2, ArrayView2};

use crate::error::{HomdpError, Result, invalid};
use crate::metrics::{accuracy, rmse, roc_auc};

/// Downstream model (hyper-parameters as in the paper's evaluation; every model standard-scales
/// its inputs with the training rows' mean and deviation: the features, or for
/// [`Downstream::PcaKnn`] the principal components).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub enum Downstream {
    /// k-nearest-neighbour vote (Euclidean); probability = share of positive neighbours.
    Knn {
        /// Neighbours (capped at the number of training rows).
        k: usize,
    },
    /// k-nearest-neighbour vote on the raw features, with no standard scaling (the reference
    /// code's SBM model: `train_on_sbm` fits the k-NN on the densities as they are).
    RawKnn {
        /// Neighbours (capped at the number of training rows).
        k: usize,
    },
    /// `components`-dimensional PCA of the raw (unscaled) features, standard scaling of the
    /// components, then k-NN (the reference code's order for the social datasets).
    PcaKnn {
        /// PCA components.
        components: usize,
        /// Neighbours.
        k: usize,
    },
    /// Random forest ([`random_forest_proba`]: Gini CART trees on bootstrap samples, √d
    /// features drawn per split, leaf class shares averaged over trees), as scikit-learn's
    /// `RandomForestClassifier(n_estimators = trees, min_samples_split = min_split)`.
    RandomForest {
        /// Number of trees.
        trees: usize,
        /// Minimum samples to split a node.
        min_split: usize,
    },
    /// `components`-dimensional PCA of the raw features, standard scaling of the components,
    /// then the [`Downstream::RandomForest`] (the reference code's REDDIT-MULTI-5K model).
    PcaRandomForest {
        /// PCA components.
        components: usize,
        /// Number of trees.
        trees: usize,
        /// Minimum samples to split a node.
        min_split: usize,
    },
    /// Bagged CART trees (linfa-trees, Gini, all features at every split): `trees` bootstrap
    /// samples, a node is split only with at least `min_split` samples; probability = share of
    /// trees voting positive ([`bagged_trees_proba`]).
    BaggedTrees {
        /// Number of trees.
        trees: usize,
        /// Minimum samples to split a node.
        min_split: usize,
    },
    /// Linear ε-insensitive support vector regression (dual coordinate descent; see
    /// [`LinearSvr`]).
    LinearSvr {
        /// Penalty C.
        c: f64,
        /// Width ε of the insensitive tube.
        epsilon: f64,
    },
}

impl Downstream {
    /// The paper's model name for tables.
    pub fn name(&self) -> String {
        match *self {
            Self::Knn { k } => format!("k-NN (k={k})"),
            Self::RawKnn { k } => format!("k-NN (k={k}, unscaled)"),
            Self::PcaKnn { components, k } => format!("PCA({components}) + k-NN (k={k})"),
            Self::RandomForest { trees, min_split } => {
                format!("random forest ({trees}, min split {min_split}, sqrt features)")
            }
            Self::PcaRandomForest {
                components,
                trees,
                min_split,
            } => format!(
                "PCA({components}) + random forest ({trees}, min split {min_split}, sqrt features)"
            ),
            Self::BaggedTrees { trees, min_split } => {
                format!("bagged trees ({trees}, min split {min_split})")
            }
            Self::LinearSvr { c, epsilon } => format!("linear SVR (C={c}, eps={epsilon})"),
        }
    }
}

/// Graph targets: class ids `0..C` or real values.
#[derive(Clone, Debug, PartialEq)]
pub enum Labels {
    /// Class ids.
    Class(Vec<usize>),
    /// Regression targets.
    Real(Vec<f64>),
}

impl Labels {
    /// From graph-core's dataset targets.
    pub fn from_targets(t: &graph_core::Targets) -> Self {
        match t {
            graph_core::Targets::Class { labels, .. } => {
                Self::Class(labels.iter().map(|&l| l as usize).collect())
            }
            graph_core::Targets::Real(v) => Self::Real(v.clone()),
        }
    }

    /// Number of targets.
    pub fn len(&self) -> usize {
        match self {
            Self::Class(v) => v.len(),
            Self::Real(v) => v.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The targets at `idx`.
    pub(crate) fn select(&self, idx: &[usize]) -> Self {
        match self {
            Self::Class(v) => Self::Class(idx.iter().map(|&i| v[i]).collect()),
            Self::Real(v) => Self::Real(idx.iter().map(|&i| v[i]).collect()),
        }
    }
}

/// Test metrics of one model: ROC-AUC (binary classification), accuracy (classification),
/// RMSE (regression); the others are `None`.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Scores {
    /// ROC-AUC of the positive-class score (binary tasks whose test set has both classes).
    pub roc_auc: Option<f64>,
    /// Accuracy of the predicted class.
    pub accuracy: Option<f64>,
    /// Root mean squared error.
    pub rmse: Option<f64>,
}

/// Fits `model` on `(x_train, y_train)` and scores it on `(x_test, y_test)`.
///
/// Features are standard-scaled with the training rows' statistics first ([`Downstream::PcaKnn`],
/// [`Downstream::PcaRandomForest`]: after the PCA; [`Downstream::RawKnn`]: not at all). `seed` drives the
/// bootstrap samples and feature draws of the random forest and the bootstrap of the bagged trees (the other models are deterministic).
///
/// # Errors
/// [`HomdpError::InvalidParam`] for shapes that disagree, empty sets, non-finite features, a
/// classifier given real targets (or the SVR given classes), bad hyper-parameters;
/// [`HomdpError::Downstream`] when a linfa model fails.
///
/// # Example
/// ```
/// use homdp::downstream::{fit_evaluate, Downstream, Labels};
/// use ndarray::array;
/// let x = array![[0.0], [0.1], [0.2], [1.0], [1.1], [1.2]];
/// let y = Labels::Class(vec![0, 0, 0, 1, 1, 1]);
/// let s = fit_evaluate(&Downstream::Knn { k: 3 }, x.view(), &y, x.view(), &y, 0)?;
/// assert_eq!((s.roc_auc, s.accuracy), (Some(1.0), Some(1.0)));
/// # Ok::<(), homdp::HomdpError>(())
/// ```
pub fn fit_evaluate(
    model: &Downstream,
    x_train: ArrayView2<'_, f64>,
    y_train: &Labels,
    x_test: ArrayView2<'_, f64>,
    y_test: &Labels,
    seed: u64,
) -> Result<Scores> {
    if x_train.nrows() != y_train.len() || x_test.nrows() != y_test.len() {
        return invalid("labels", y_train.len() as f64, "need one target per row");
    }
    if x_train.nrows() == 0 || x_test.nrows() == 0 {
        return invalid("rows", 0.0, "train and test sets must be non-empty");
    }
    if x_train.ncols() != x_test.ncols() {
        return invalid(
            "x_test",
            x_test.ncols() as f64,
            "must have the training columns",
        );
    }
    if let Some(&v) = x_train.iter().chain(x_test.iter()).find(|v| !v.is_finite()) {
        return invalid("features", v, "must be finite");
    }
    let scaler = StandardScaler::fit(x_train)?;
    let (tr, te) = (scaler.transform(x_train)?, scaler.transform(x_test)?);
    match (model, y_train, y_test) {
        (Downstream::Knn { k }, Labels::Class(ytr), Labels::Class(yte)) => {
            classification_scores(&tr, ytr, &te, yte, |a, y, b| knn_proba(a, y, b, *k))
        }
        (Downstream::RawKnn { k }, Labels::Class(ytr), Labels::Class(yte)) => {
            classification_scores(
                &x_train.to_owned(),
                ytr,
                &x_test.to_owned(),
                yte,
                |a, y, b| knn_proba(a, y, b, *k),
            )
        }
        (Downstream::PcaKnn { components, k }, Labels::Class(ytr), Labels::Class(yte)) => {
            // The reference's order: PCA of the raw features, then scaling of the components.
            let pca = Pca::fit(x_train, *components)?;
            let (ptr, pte) = (pca.transform(x_train)?, pca.transform(x_test)?);
            let scaler = StandardScaler::fit(ptr.view())?;
            let (ptr, pte) = (scaler.transform(ptr.view())?, scaler.transform(pte.view())?);
            classification_scores(&ptr, ytr, &pte, yte, |a, y, b| knn_proba(a, y, b, *k))
        }
        (Downstream::RandomForest { trees, min_split }, Labels::Class(ytr), Labels::Class(yte)) => {
            let params = ForestParams::new(*trees, *min_split);
            classification_scores(&tr, ytr, &te, yte, |a, y, b| {
                random_forest_proba(a, y, b, &params, seed)
            })
        }
        (
            Downstream::PcaRandomForest {
                components,
                trees,
                min_split,
            },
            Labels::Class(ytr),
            Labels::Class(yte),
        ) => {
            let pca = Pca::fit(x_train, *components)?;
            let (ptr, pte) = (pca.transform(x_train)?, pca.transform(x_test)?);
            let scaler = StandardScaler::fit(ptr.view())?;
            let (ptr, pte) = (scaler.transform(ptr.view())?, scaler.transform(pte.view())?);
            let params = ForestParams::new(*trees, *min_split);
            classification_scores(&ptr, ytr, &pte, yte, |a, y, b| {
                random_forest_proba(a, y, b, &params, seed)
            })
        }
        (Downstream::BaggedTrees { trees, min_split }, Labels::Class(ytr), Labels::Class(yte)) => {
            classification_scores(&tr, ytr, &te, yte, |a, y, b| {
                bagged_trees_proba(a, y, b, *trees, *min_split, seed)
            })
        }
        (Downstream::LinearSvr { c, epsilon }, Labels::Real(ytr), Labels::Real(yte)) => {
            let pred = linear_svr(tr.view(), ytr, te.view(), *c, *epsilon)?;
            Ok(Scores {
                rmse: Some(rmse(&pred, yte)?),
                ..Scores::default()
            })
        }
        _ => Err(HomdpError::InvalidParam {
            name: "labels",
            value: f64::NAN,
            reason: "classifiers need class targets and the SVR real targets",
        }),
    }
}

/// Class-probability matrix `[test, classes]` from a model, then accuracy (argmax, ties to the
/// smaller class) and, for two classes, ROC-AUC of class 1.
fn classification_scores<F>(
    tr: &Array2<f64>,
    ytr: &[usize],
    te: &Array2<f64>,
    yte: &[usize],
    proba: F,
) -> Result<Scores>
where
    F: Fn(ArrayView2<'_, f64>, &[usize], ArrayView2<'_, f64>) -> Result<Array2<f64>>,
{
    let p = proba(tr.view(), ytr, te.view())?;
    let pred = argmax_rows(p.view()).to_vec();
    let classes = p.ncols();
    let auc = if classes == 2 {
        let labels: Vec<bool> = yte.iter().map(|&y| y == 1).collect();
        let both = labels.iter().any(|&l| l) && labels.iter().any(|&l| !l);
        if both {
            Some(roc_auc(&p.column(1).to_vec(), &labels)?)
        } else {
            None
        }
    } else {
        None
    };
    Ok(Scores {
        roc_auc: auc,
        accuracy: Some(accuracy(&pred, yte)?),
        rmse: None,
    })
}

/// A labelled, non-empty training matrix and a test matrix with the same columns.
pub(crate) fn check_train_test(
    train: ArrayView2<'_, f64>,
    labels: &[usize],
    test: ArrayView2<'_, f64>,
) -> Result<()> {
    if train.nrows() != labels.len() || train.nrows() == 0 {
        return invalid(
            "labels",
            labels.len() as f64,
            "need one label per training row",
        );
    }
    if train.ncols() != test.ncols() {
        return invalid(
            "test",
            test.ncols() as f64,
            "must have the training columns",
        );
    }
    Ok(())
}

/// Number of classes `max + 1` of the labels, at least 2.
pub(crate) fn num_classes(y: &[usize]) -> usize {
    y.iter().max().map_or(0, |m| m + 1).max(2)
}

/// The column of each row's largest value (ties to the smaller column): the predicted class of
/// a class-share matrix.
pub(crate) fn argmax_rows(p: ArrayView2<'_, f64>) -> Array1<usize> {
    p.outer_iter()
        .map(|row| {
            let mut best = 0;
            for (c, &v) in row.iter().enumerate() {
                if v > row[best] {
                    best = c;
                }
            }
            best
        })
        .collect()
}

/// The single targets of a linfa dataset as a vector (linfa's views need not be contiguous).
pub(crate) fn targets_vec<T: AsSingleTargets>(t: &T) -> Vec<T::Elem>
where
    T::Elem: Copy,
{
    t.as_single_targets().iter().copied().collect()
}

/// Panics unless `x` has `columns` columns: linfa's `predict` cannot return an error, and its
/// own models panic on a shape mismatch too.
/// [`HomdpError::InvalidParam`] unless `x` has `columns` columns (the fitted data's).
pub(crate) fn check_columns(x: ArrayView2<'_, f64>, columns: usize) -> Result<()> {
    if x.ncols() == columns {
        Ok(())
    } else {
        invalid(
            "columns",
            x.ncols() as f64,
            "must be the number of columns the model was fitted on",
        )
    }
}

pub(crate) fn assert_columns(model: &str, x: ArrayView2<'_, f64>, columns: usize) {
    assert_eq!(
        x.ncols(),
        columns,
        "{model}: the records have {} columns, the model was fitted on {columns}",
        x.ncols()
    );
}

/// linfa's errors (from its dataset helpers) as [`HomdpError::Downstream`], so that
/// [`HomdpError`] can be the error type of our [`linfa::traits::Fit`] implementations.
impl From<linfa::Error> for HomdpError {
    fn from(e: linfa::Error) -> Self {
        Self::Downstream {
            model: "linfa",
            reason: e.to_string(),
        }
    }
}
