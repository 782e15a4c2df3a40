//! homdp's downstream models through linfa's traits (`Fit`, `Predict`, `Transformer`, linfa's
//! own cross-validation), and the comparisons with linfa's models that decide which
//! implementation homdp uses (see the module docs of `homdp::downstream`). The comparisons
//! assert today's upstream behaviour, naming the upstream version: when an upstream release
//! changes it, the test fails so that someone revisits the choice.

use homdp::HomdpError;
use homdp::downstream::{
    BaggedTrees, Downstream, ForestParams, KnnClassifier, Labels, LinearSvr, Pca, RandomForest,
    StandardScaler, bagged_trees_proba, fit_evaluate, knn_classify, knn_neighbours, knn_proba,
    linear_svr, random_forest_proba,
};
use linfa::prelude::*;
use linfa_nn::distance::L2Dist;
use linfa_nn::{CommonNearestNeighbour, LinearSearch, NearestNeighbour};
use ndarray::{Array1, Array2, ArrayView1, Axis, Ix1, array};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

type Result<T = ()> = std::result::Result<T, HomdpError>;

/// A linfa dataset with one target per row.
type Data<L> = Dataset<f64, L, Ix1>;

/// Seeded two-class data: class 1 iff `x0 + x1 > 0`, `d − 2` noise columns, and every fifth
/// row a copy of the previous one (density embeddings have exact duplicates).
fn two_classes(n: usize, d: usize, seed: u64) -> Data<usize> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut x = Array2::from_shape_fn((n, d), |_| rng.random::<f64>() * 2.0 - 1.0);
    for i in (5..n).step_by(5) {
        let prev = x.row(i - 1).to_owned();
        x.row_mut(i).assign(&prev);
    }
    let y: Array1<usize> = x
        .outer_iter()
        .map(|r| usize::from(r[0] + r[1] > 0.0))
        .collect();
    Dataset::new(x, y)
}

/// Seeded regression data: `y = 3 + x0 − 2·x1 + noise`.
fn regression(n: usize, d: usize, seed: u64) -> Data<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let x = Array2::from_shape_fn((n, d), |_| rng.random::<f64>() * 2.0 - 1.0);
    let y: Array1<f64> = x
        .outer_iter()
        .map(|r| 3.0 + r[0] - 2.0 * r[1] + 0.3 * (rng.random::<f64>() - 0.5))
        .collect();
    Dataset::new(x, y)
}

/// What a linfa user writes: fit hyper-parameters on a dataset, predict the test records.
/// Generic over the model, so it takes any of ours as it would take linfa's.
fn fit_predict<P, M, L>(params: &P, train: &Data<L>, test: &Array2<f64>) -> Array1<L>
where
    P: Fit<Array2<f64>, Array1<L>, HomdpError, Object = M>,
    M: for<'a> Predict<&'a Array2<f64>, Array1<L>>,
{
    params.fit(train).expect("fits").predict(test)
}

/// Accuracy of predicted classes, for linfa's cross-validation.
fn accuracy(
    pred: &Array1<usize>,
    truth: &ArrayView1<'_, usize>,
) -> std::result::Result<f64, linfa::Error> {
    let hits = pred.iter().zip(truth).filter(|(a, b)| a == b).count();
    Ok(hits as f64 / pred.len() as f64)
}

#[test]
fn knn_through_linfa_is_knn_proba() -> Result {
    let (train, test) = two_classes(200, 4, 1).split_with_ratio(0.75);
    let model = KnnClassifier::params(7).fit(&train)?;
    let labels = train.targets().to_vec();
    assert_eq!(
        model.predict_proba(test.records().view())?,
        knn_proba(train.records().view(), &labels, test.records().view(), 7)?
    );
    let pred = fit_predict(&KnnClassifier::params(7), &train, test.records());
    let want = knn_classify(train.records().view(), &labels, test.records().view(), 7)?;
    assert_eq!(pred.to_vec(), want);
    assert!(accuracy(&pred, &test.targets().view())? > 0.85);
    // linfa's own k-fold cross-validation takes it as it takes linfa's models.
    let mut all = two_classes(200, 4, 1);
    let params = [KnnClassifier::params(1), KnnClassifier::params(15)];
    let acc = all.cross_validate_single(5, &params, accuracy)?;
    assert!(acc.iter().all(|&a| a > 0.8), "{acc}");
    assert!(KnnClassifier::params(0).fit(&train).is_err());
    Ok(())
}

#[test]
fn random_forest_through_linfa_is_random_forest_proba() -> Result {
    let (train, test) = two_classes(160, 6, 2).split_with_ratio(0.75);
    let forest = ForestParams::new(30, 4);
    let model = RandomForest::params(forest, 9).fit(&train)?;
    let labels = train.targets().to_vec();
    let want = random_forest_proba(
        train.records().view(),
        &labels,
        test.records().view(),
        &forest,
        9,
    )?;
    assert_eq!(model.predict_proba(test.records().view())?, want);
    let pred = fit_predict(&RandomForest::params(forest, 9), &train, test.records());
    let acc = accuracy(&pred, &test.targets().view())?;
    assert!(acc > 0.7, "{acc}");
    let mut all = two_classes(160, 6, 2);
    let acc = all.cross_validate_single(4, &[RandomForest::params(forest, 1)], accuracy)?;
    assert!(acc[0] > 0.7, "{acc}");
    Ok(())
}

/// Grown to purity (`min_split = 2`, two classes): linfa-trees 0.8.1 breaks ties between
/// classes at a leaf in `HashMap` order, which changes from run to run, so only pure leaves give
/// reproducible bagged trees.
#[test]
fn bagged_trees_through_linfa_are_bagged_trees_proba() -> Result {
    let (train, test) = two_classes(160, 3, 3).split_with_ratio(0.75);
    let model = BaggedTrees::params(15, 2, 5).fit(&train)?;
    let labels = train.targets().to_vec();
    let want = bagged_trees_proba(
        train.records().view(),
        &labels,
        test.records().view(),
        15,
        2,
        5,
    )?;
    assert_eq!(model.predict_proba(test.records().view())?, want);
    let pred = fit_predict(&BaggedTrees::params(15, 2, 5), &train, test.records());
    assert!(accuracy(&pred, &test.targets().view())? > 0.8);
    let mut all = two_classes(160, 3, 3);
    let acc = all.cross_validate_single(4, &[BaggedTrees::params(15, 2, 5)], accuracy)?;
    assert!(acc[0] > 0.8, "{acc}");
    Ok(())
}

#[test]
fn linear_svr_through_linfa_is_linear_svr() -> Result {
    let (train, test) = regression(150, 3, 4).split_with_ratio(0.8);
    let want = linear_svr(
        train.records().view(),
        train.targets().as_slice().expect("contiguous"),
        test.records().view(),
        1.0,
        0.2,
    )?;
    let pred = fit_predict(&LinearSvr::params(1.0, 0.2), &train, test.records());
    assert_eq!(pred.to_vec(), want);
    // linfa's cross-validation with a regression score (negated mean absolute error).
    let mut all = regression(150, 3, 4);
    let mae = all.cross_validate_single(5, &[LinearSvr::params(1.0, 0.2)], |p, t| {
        Ok(p.iter().zip(t).map(|(a, b)| (a - b).abs()).sum::<f64>() / p.len() as f64)
    })?;
    assert!(mae[0] < 0.3, "{mae}");
    assert!(LinearSvr::params(0.0, 0.2).fit(&train).is_err());
    Ok(())
}

#[test]
fn scaler_and_pca_through_linfa_are_ours() -> Result {
    let ds = two_classes(120, 6, 5);
    let scaler = StandardScaler::params().fit(&ds)?;
    let want = StandardScaler::fit(ds.records().view())?.transform(ds.records().view())?;
    let got: Array2<f64> = Predict::predict(&scaler, ds.records());
    assert_eq!(got, want);
    let scaled = Transformer::transform(&scaler, ds.clone());
    assert_eq!(scaled.records(), &want);
    assert_eq!(scaled.targets(), ds.targets());

    let pca = Pca::params(3).fit(&ds)?;
    let want = Pca::fit(ds.records().view(), 3)?.transform(ds.records().view())?;
    let got: Array2<f64> = Predict::predict(&pca, ds.records());
    assert_eq!(got, want);
    assert_eq!(Transformer::transform(&pca, ds).records(), &want);
    Ok(())
}

/// The models of the paper's table, assembled from linfa's traits (scale, PCA, k-NN / forest),
/// give `fit_evaluate`'s accuracy exactly.
#[test]
fn linfa_pipelines_give_fit_evaluate_numbers() -> Result {
    let (train, test) = two_classes(240, 6, 6).split_with_ratio(0.75);
    let (ytr, yte) = (
        Labels::Class(train.targets().to_vec()),
        Labels::Class(test.targets().to_vec()),
    );
    let scores = |model: &Downstream| {
        fit_evaluate(
            model,
            train.records().view(),
            &ytr,
            test.records().view(),
            &yte,
            11,
        )
    };
    let truth = test.targets().view();

    // Scaling, then k-NN.
    let scaler = StandardScaler::params().fit(&train)?;
    let strain = Transformer::transform(&scaler, train.clone());
    let stest: Array2<f64> = Predict::predict(&scaler, test.records());
    let pred = fit_predict(&KnnClassifier::params(9), &strain, &stest);
    let want = scores(&Downstream::Knn { k: 9 })?.accuracy;
    assert_eq!(Some(accuracy(&pred, &truth)?), want);

    // PCA of the raw features, scaling of the components, then k-NN (the social datasets).
    let pca = Pca::params(3).fit(&train)?;
    let ptrain = Transformer::transform(&pca, train.clone());
    let ptest: Array2<f64> = Predict::predict(&pca, test.records());
    let scaler = StandardScaler::params().fit(&ptrain)?;
    let ptrain = Transformer::transform(&scaler, ptrain);
    let ptest: Array2<f64> = Predict::predict(&scaler, &ptest);
    let pred = fit_predict(&KnnClassifier::params(9), &ptrain, &ptest);
    let want = scores(&Downstream::PcaKnn {
        components: 3,
        k: 9,
    })?
    .accuracy;
    assert_eq!(Some(accuracy(&pred, &truth)?), want);

    // Scaling, then the random forest with the model seed.
    let pred = fit_predict(
        &RandomForest::params(ForestParams::new(20, 5), 11),
        &strain,
        &stest,
    );
    let want = scores(&Downstream::RandomForest {
        trees: 20,
        min_split: 5,
    })?
    .accuracy;
    assert_eq!(Some(accuracy(&pred, &truth)?), want);
    Ok(())
}

/// The version of `package` in the workspace's Cargo.lock (`None` outside the workspace, e.g.
/// from a packaged crate).
fn locked_version(package: &str) -> Option<String> {
    let lock = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.lock");
    let text = std::fs::read_to_string(lock).ok()?;
    let entry = text.split("[[package]]").find(|e| {
        e.lines()
            .any(|l| l.trim() == format!("name = \"{package}\""))
    })?;
    entry.lines().find_map(|l| {
        l.trim()
            .strip_prefix("version = \"")
            .and_then(|v| v.strip_suffix('"'))
            .map(str::to_owned)
    })
}

/// Asserts the workspace still locks `package` at `version` (the version a comparison below
/// describes); an upgrade fails here so that the comparison is revisited.
fn assert_upstream_version(package: &str, version: &str) {
    if let Some(v) = locked_version(package) {
        assert_eq!(
            v, version,
            "{package} is now {v}: re-run this comparison and revisit homdp's choice"
        );
    }
}

/// linfa-nn 0.8.1 returns the same neighbours as ours on data without distance ties.
#[test]
fn linfa_nn_0_8_1_agrees_without_ties() -> Result {
    assert_upstream_version("linfa-nn", "0.8.1");
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let train = Array2::from_shape_fn((300, 5), |_| rng.random::<f64>());
    let test = Array2::from_shape_fn((40, 5), |_| rng.random::<f64>());
    let k = 10;
    let ours = knn_neighbours(train.view(), test.view(), k)?;
    for algorithm in [
        CommonNearestNeighbour::LinearSearch,
        CommonNearestNeighbour::KdTree,
        CommonNearestNeighbour::BallTree,
    ] {
        let index = algorithm.from_batch(&train, L2Dist).expect("builds");
        for (row, want) in test.outer_iter().zip(&ours) {
            let got: Vec<usize> = index
                .k_nearest(row, k)
                .expect("queries")
                .into_iter()
                .map(|(_, i)| i)
                .collect();
            assert_eq!(&got, want);
        }
    }
    Ok(())
}

/// Among training rows at the same distance, linfa-nn 0.8.1 picks by its heap's order, ours by
/// training index: with duplicated rows the `k` nearest, hence the class shares, differ.
#[test]
fn linfa_nn_0_8_1_breaks_ties_otherwise() -> Result {
    assert_upstream_version("linfa-nn", "0.8.1");
    // Eight copies of the query point (classes 0,0,0,0,1,1,1,1), one far row.
    let mut train = Array2::zeros((9, 2));
    train.row_mut(8).fill(5.0);
    let labels = [0, 0, 0, 0, 1, 1, 1, 1, 1];
    let query = array![[0.0, 0.0]];
    let ours = knn_neighbours(train.view(), query.view(), 4)?;
    assert_eq!(ours, vec![vec![0, 1, 2, 3]]);
    assert_eq!(
        knn_proba(train.view(), &labels, query.view(), 4)?
            .row(0)
            .to_vec(),
        vec![1.0, 0.0]
    );
    let index = LinearSearch::new()
        .from_batch(&train, L2Dist)
        .expect("builds");
    let mut theirs: Vec<usize> = index
        .k_nearest(query.row(0), 4)
        .expect("queries")
        .into_iter()
        .map(|(_, i)| i)
        .collect();
    theirs.sort_unstable();
    assert_ne!(
        theirs,
        vec![0, 1, 2, 3],
        "linfa-nn 0.8.1's LinearSearch now breaks distance ties by index: revisit knn.rs"
    );
    Ok(())
}

/// linfa-svm 0.8.1's ε-SVR: fits with its defaults, panics with shrinking on (its
/// `do_shrinking` decrements the active-set size below zero when more than half of the active
/// variables are shrinkable). Three rows suffice.
#[test]
fn linfa_svm_0_8_1_shrinking_panics() {
    assert_upstream_version("linfa-svm", "0.8.1");
    let ds = Dataset::new(array![[2.0], [1.0], [-2.0]], array![-1.0, -2.0, -3.0]);
    let params = || {
        linfa_svm::Svm::<f64, f64>::params()
            .c_svr(1.0, Some(0.2))
            .linear_kernel()
    };
    assert!(
        params().fit(&ds).is_ok(),
        "linfa-svm 0.8.1 without shrinking fits"
    );
    let shrinking = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        params().shrinking(true).fit(&ds)
    }));
    assert!(
        shrinking.is_err(),
        "linfa-svm 0.8.1's ε-SVR with shrinking panicked here (solver_smo.rs, do_shrinking); \
         it no longer does: revisit homdp's LinearSvr (src/downstream/svr.rs)"
    );
}

/// linfa-reduction 0.8.1's PCA (LOBPCG truncated SVD) projects like ours up to the axes' signs
/// and its solver's tolerance, but not bit for bit.
#[test]
fn linfa_reduction_0_8_1_pca_is_close_not_equal() -> Result {
    assert_upstream_version("linfa-reduction", "0.8.1");
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    // Correlated columns of different scales, as density embeddings.
    let base = Array2::from_shape_fn((150, 3), |_| rng.random::<f64>());
    let x = Array2::from_shape_fn((150, 12), |(i, j)| {
        (j + 1) as f64 * base[[i, j % 3]] + 0.1 * rng.random::<f64>()
    });
    let ours = Pca::fit(x.view(), 5)?.transform(x.view())?;
    let ds = DatasetBase::from(x.clone());
    let theirs_model = linfa_reduction::Pca::params(5)
        .fit(&ds)
        .expect("linfa-reduction fits");
    let theirs: Array2<f64> = theirs_model.predict(&x);
    // Largest difference per component, after aligning the axes' signs.
    let diffs: Vec<f64> = ours
        .axis_iter(Axis(1))
        .zip(theirs.axis_iter(Axis(1)))
        .map(|(a, b)| {
            let sign = if a.dot(&b) < 0.0 { -1.0 } else { 1.0 };
            a.iter()
                .zip(&b)
                .map(|(u, v)| (u - sign * v).abs())
                .fold(0.0, f64::max)
        })
        .collect();
    eprintln!("PCA differences per component: {diffs:?}");
    assert!(diffs[0] < 1e-3, "first components differ: {diffs:?}");
    assert!(
        diffs.iter().any(|&d| d > 0.0),
        "linfa-reduction 0.8.1's PCA now matches ours bit for bit: revisit pca.rs"
    );
    Ok(())
}

/// linfa-preprocessing 0.8.1's standard scaler has our statistics but multiplies by `1/σ`:
/// equal up to rounding, not bit for bit.
#[test]
fn linfa_preprocessing_0_8_1_scaler_is_close_not_equal() -> Result {
    assert_upstream_version("linfa-preprocessing", "0.8.1");
    let ds = two_classes(200, 8, 9);
    let ours = StandardScaler::fit(ds.records().view())?.transform(ds.records().view())?;
    let scaler = linfa_preprocessing::linear_scaling::LinearScaler::standard()
        .fit(&ds)
        .expect("linfa-preprocessing fits");
    let theirs = scaler.transform(ds.records().clone());
    let max_rel = ours
        .iter()
        .zip(&theirs)
        .map(|(a, b)| (a - b).abs() / a.abs().max(1e-300))
        .fold(0.0, f64::max);
    assert!(max_rel < 1e-14, "relative difference {max_rel}");
    assert_ne!(
        ours, theirs,
        "linfa-preprocessing 0.8.1's scaler now matches ours bit for bit: revisit scale.rs"
    );
    Ok(())
}
