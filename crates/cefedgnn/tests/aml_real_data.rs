//! Real-data tests: load the installed mirror datasets from `$DPGRAPH_DATA` and check the counts
//! of their READMEs. Each test skips with a message when the data is missing, and fails then if
//! `DPGRAPH_REQUIRE_DATA=1`.

use std::path::PathBuf;

use cefedgnn::aml::{self, Calibration, Typology};

/// The dataset folder's parent, or `None` (after printing why) when the dataset is missing.
fn data_for(name: &str) -> Option<PathBuf> {
    let dir =
        graph_core::registry::data_dir_or_default(std::env::var_os(graph_core::registry::DATA_ENV));
    let spec = graph_core::Registry::embedded()
        .get(name)
        .expect("dataset is registered");
    if spec.is_installed(&dir) {
        return Some(dir);
    }
    assert!(
        std::env::var("DPGRAPH_REQUIRE_DATA").as_deref() != Ok("1"),
        "dataset {name} is not installed in {} and DPGRAPH_REQUIRE_DATA=1",
        dir.display()
    );
    eprintln!(
        "skipping: dataset {name} is not installed in {} (set DPGRAPH_DATA)",
        dir.display()
    );
    None
}

#[test]
fn real_data_amlsim_small_counts() {
    let Some(dir) = data_for("amlsim-small") else {
        return;
    };
    let g = aml::load_by_name("amlsim-small", &dir).unwrap();
    assert_eq!(g.accounts().len(), 4338);
    assert_eq!(g.bank_sizes(), vec![1200, 1000, 900, 700, 538]);
    let normal = g
        .transactions()
        .iter()
        .filter(|t| t.attempt.is_none())
        .count();
    assert_eq!(normal, 22_419);
    let alert: Vec<_> = g
        .transactions()
        .iter()
        .filter(|t| t.attempt.is_some())
        .collect();
    assert_eq!(alert.len(), 502);
    assert_eq!(g.num_laundering(), 458);
    assert_eq!(g.attempts().len(), 63);
    assert_eq!(g.num_labelled_accounts(), 390);
    let cross_normal = g
        .transactions()
        .iter()
        .filter(|t| t.attempt.is_none())
        .filter(|t| g.accounts()[t.src as usize].bank != g.accounts()[t.dst as usize].bank)
        .count();
    assert_eq!(cross_normal, 15_701);
    assert_eq!(g.num_cross_bank() - cross_normal, 460);
    let ag = g.to_account_graph().unwrap();
    let fed = ag.federate_by_bank().unwrap();
    assert_eq!(fed.num_clients(), 5);
    assert!(fed.stats().unwrap().cross_fraction > 0.5);
}

#[test]
fn real_data_amlsim_sample_20k_counts() {
    let Some(dir) = data_for("amlsim-sample-20k") else {
        return;
    };
    let g = aml::load_by_name("amlsim-sample-20k", &dir).unwrap();
    assert_eq!(g.accounts().len(), 20_000);
    assert_eq!(g.transactions().len(), 120_558);
    assert_eq!(g.num_labelled_accounts(), 1804);
    assert!(g.transactions().iter().all(|t| t.is_laundering.is_none()));
    let ag = g.to_account_graph().unwrap();
    assert_eq!(ag.node_labels.iter().filter(|&&l| l == 1).count(), 1804);
}

#[test]
fn real_data_amlworld_sample_counts_and_calibration() {
    let Some(dir) = data_for("amlworld-sample") else {
        return;
    };
    let g = aml::load_by_name("amlworld-sample", &dir).unwrap();
    assert_eq!(g.transactions().len(), 4209);
    assert_eq!(g.num_laundering(), 3209);
    assert_eq!(g.attempts().len(), 370);
    let c = g.typology_counts();
    assert_eq!(c.len(), 8);
    let want = [
        (Typology::FanOut, 48, 342),
        (Typology::FanIn, 40, 318),
        (Typology::Cycle, 54, 287),
        (Typology::GatherScatter, 51, 716),
        (Typology::ScatterGather, 44, 626),
        (Typology::Stack, 43, 466),
        (Typology::Random, 41, 191),
        (Typology::Bipartite, 49, 263),
    ];
    for (t, a, n) in want {
        assert_eq!(c[&t], (a, n), "{t:?}");
    }
    let laund: Vec<_> = g
        .transactions()
        .iter()
        .filter(|t| t.attempt.is_some())
        .collect();
    let cross = laund
        .iter()
        .filter(|t| g.accounts()[t.src as usize].bank != g.accounts()[t.dst as usize].bank)
        .count();
    assert_eq!(cross, 3131);
    // The embedded calibration equals the statistics recomputed from the files.
    let cal = Calibration::from_graph(&g).unwrap();
    let def = Calibration::default();
    assert_eq!(cal.attempt_sizes, def.attempt_sizes);
    assert_eq!(cal.laundering_formats, def.laundering_formats);
    assert_eq!(cal.currencies, def.currencies);
    assert_eq!(cal.normal_formats, def.normal_formats);
    assert!((cal.laundering_cross_bank - def.laundering_cross_bank).abs() < 1e-12);
    assert!((cal.normal_cross_bank - def.normal_cross_bank).abs() < 1e-12);
    assert!((cal.laundering_log_amount.0 - def.laundering_log_amount.0).abs() < 1e-3);
    assert!((cal.laundering_log_amount.1 - def.laundering_log_amount.1).abs() < 1e-3);
    for (f, m, s) in &cal.normal_log_amount {
        let d = def.normal_log_amount.iter().find(|x| x.0 == *f).unwrap();
        assert!((m - d.1).abs() < 1e-3 && (s - d.2).abs() < 1e-3, "{f:?}");
    }
    // Writing the patterns back and reading them gives the same attempts.
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("patterns.csv");
    aml::write_patterns_flat(&g, &p).unwrap();
    let mut back = aml::TransactionGraph::new();
    aml::load_amlworld_patterns_flat(&p, &mut back).unwrap();
    assert_eq!(back.typology_counts(), g.typology_counts());
    assert_eq!(back.num_cross_bank(), 3131);
}
