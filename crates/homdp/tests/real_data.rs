//! The evaluation protocol on a real dataset (BACE): skipped with a message when it is not
//! installed, a failure when `DPGRAPH_REQUIRE_DATA=1`.

use graph_core::GraphDataset;
use graph_core::registry::{DATA_ENV, Dataset, Registry, data_dir_or_default};
use homdp::downstream::{Downstream, Labels};
use homdp::{EvalData, PatternSampler, Protocol, Split, clean_features, evaluate};
use rand::SeedableRng;

/// The data directory: `$DPGRAPH_DATA`, else `./data`.
fn data_dir() -> std::path::PathBuf {
    data_dir_or_default(std::env::var_os(DATA_ENV))
}

fn load(name: &str) -> Option<GraphDataset> {
    let spec = Registry::embedded().get(name).expect("in the registry");
    if !spec.is_installed(&data_dir()) {
        assert!(
            std::env::var("DPGRAPH_REQUIRE_DATA").as_deref() != Ok("1"),
            "{name} is not installed in {} and DPGRAPH_REQUIRE_DATA=1",
            data_dir().display()
        );
        eprintln!(
            "skipping: {name} is not installed in {}",
            data_dir().display()
        );
        return None;
    }
    match spec.load(&data_dir()).expect("loads") {
        Dataset::Graphs(d) => Some(d),
        _ => panic!("{name} is a graph collection"),
    }
}

#[test]
fn real_data_bace_scaffold_protocol() -> Result<(), homdp::HomdpError> {
    let Some(ds) = load("BACE") else {
        return Ok(());
    };
    let graphs = ds.graphs();
    let labels = Labels::from_targets(ds.targets());
    let split = Split::of_dataset(&ds, 0)?;
    assert_eq!(
        split.train.len() + split.test.len() + ds.split("valid").map_or(0, <[usize]>::len),
        graphs.len()
    );
    let pats =
        PatternSampler::forests().sample_many(50, &mut rand_chacha::ChaCha8Rng::seed_from_u64(1));
    let clean = clean_features(&pats, graphs, false)?;
    // The paper's protocol: Δ = 6 holds for every BACE molecule (no clipping needed).
    let mut proto = Protocol::new(Downstream::Knn { k: 120 });
    proto.release.degree_bound = Some(6);
    let data = EvalData {
        patterns: &pats,
        graphs,
        labels: &labels,
        split: &split,
        clean: clean.view(),
    };
    let mut noise = rand_chacha::ChaCha20Rng::seed_from_u64(2);
    let exact = evaluate(&data, None, &proto, &mut noise, 0)?;
    let auc = exact.scores.roc_auc.expect("binary task");
    assert!(auc > 0.65, "non-private ROC-AUC {auc} (paper 0.752)");
    // Without noise, re-identification fails only on duplicate density vectors.
    let top1 = exact.attack_top1.expect("attack ran");
    assert!(
        top1 > 0.5 && top1 < 1.0,
        "non-private top-1 {top1} (paper 0.629)"
    );
    // At ρ = 1e-4 (ε ≈ 0.1) the attack is near chance.
    let private = evaluate(
        &data,
        Some(dp_core::params::Rho::new(1e-4)?),
        &proto,
        &mut noise,
        0,
    )?;
    assert_eq!(private.clipped, 0);
    assert!(
        private.attack_top1.expect("attack ran") < 0.01,
        "{private:?}"
    );
    assert!((private.guarantee.expect("private").eps() - 0.1054).abs() < 1e-3);
    Ok(())
}
