//! Loads every dataset of the registry that is installed in `$DPGRAPH_DATA` and checks the counts
//! its README states (the registry's `expect` table).
//!
//! Test names start with `real_data_` so `.ci/run` can select them. With `DPGRAPH_REQUIRE_DATA=1` (set by `.ci/run` after installing the mirror), a dataset that is
//! not installed is a failure, not a skip.

use graph_core::registry::{Dataset, DatasetSpec};
use graph_core::{GraphStats, Registry, Targets};

mod common;
use common::installed;

fn check_expect(spec: &DatasetSpec, ds: &Dataset) {
    if let Dataset::Files(_) = ds {
        assert!(
            !spec.expect.rows.is_empty(),
            "{}: expect.rows missing",
            spec.name
        );
    } else if spec.checked_by_counts() {
        // Without a checksum, the counts are what identifies the dataset (the registry refuses
        // such an entry without them). Checksummed sets may omit some: a regression set such as
        // Lipophilicity has no class count.
        assert!(
            spec.expect.identifies(spec.layout),
            "{}: checked by counts, but expect lacks identifying counts",
            spec.name
        );
    } else {
        assert!(
            spec.expect.nodes.is_some() && spec.expect.edges.is_some(),
            "{}: expect lacks node and edge counts",
            spec.name
        );
    }
    spec.expect
        .check(&spec.name, ds)
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn real_data_every_installed_dataset_matches_its_readme_counts() {
    for spec in Registry::embedded().datasets() {
        if let Some((spec, dir)) = installed(&spec.name) {
            spec.verify(&dir).expect("checksums");
            let ds = spec
                .load(&dir)
                .unwrap_or_else(|e| panic!("{}: {e}", spec.name));
            check_expect(spec, &ds);
        }
    }
}

fn graphs(name: &str) -> Option<graph_core::GraphDataset> {
    let (spec, dir) = installed(name)?;
    match spec.load(&dir).expect("load") {
        Dataset::Graphs(g) => Some(g),
        other => panic!("{name}: expected a graph collection, got {other:?}"),
    }
}

#[test]
fn real_data_cora_counts() {
    let Some((spec, dir)) = installed("cora") else {
        return;
    };
    let Dataset::Nodes(d) = spec.load(&dir).expect("load") else {
        panic!("cora is node data")
    };
    assert_eq!((d.graph().num_nodes(), d.graph().num_edges()), (2708, 5278));
    assert_eq!(d.class_counts(), vec![351, 217, 418, 818, 426, 298, 180]);
    assert_eq!(d.features().dim(), (2708, 1433));
}

#[test]
fn real_data_hiv_counts_and_scaffold_split() {
    let Some(d) = graphs("HIV") else { return };
    assert_eq!(d.len(), 41_127);
    assert_eq!(
        (
            d.split("train").unwrap().len(),
            d.split("valid").unwrap().len(),
            d.split("test").unwrap().len()
        ),
        (32_901, 4_113, 4_113)
    );
    let Targets::Class { labels, .. } = d.targets() else {
        panic!("HIV is classification")
    };
    assert_eq!(labels.iter().filter(|&&l| l == 1).count(), 1_443);
    let test_pos = d
        .split("test")
        .unwrap()
        .iter()
        .filter(|&&i| labels[i] == 1)
        .count();
    assert_eq!(test_pos, 130);
    // Atomic numbers as node labels; the largest molecule has 222 atoms.
    assert_eq!(d.graphs().iter().map(|g| g.num_nodes()).max(), Some(222));
    assert!(
        d.node_labels()
            .unwrap()
            .iter()
            .flatten()
            .all(|&z| (1..=118).contains(&z))
    );
}

#[test]
fn real_data_reddit_imdb_nci1_counts() {
    if let Some(d) = graphs("REDDIT-BINARY") {
        assert_eq!(d.len(), 2_000);
        assert_eq!(GraphStats::of(d.graphs()).isolated, 21);
        assert_eq!(
            d.split("fold1_test").map(<[usize]>::len).unwrap_or(0)
                + d.split("fold1_train").map(<[usize]>::len).unwrap_or(0),
            2_000
        );
        let Targets::Class { original, .. } = d.targets() else {
            panic!("classification")
        };
        assert_eq!(original, &vec![-1, 1]);
    }
    if let Some(d) = graphs("IMDB-BINARY") {
        assert_eq!(
            d.total_edges(),
            96_531,
            "each directed line is listed twice: merged"
        );
    }
    if let Some(d) = graphs("NCI1") {
        assert_eq!(d.len(), 4_110);
        assert_eq!(d.total_nodes(), 122_747);
        assert_eq!(GraphStats::of(d.graphs()).isolated, 428);
    }
    if let Some(d) = graphs("Lipophilicity") {
        let Targets::Real(y) = d.targets() else {
            panic!("regression")
        };
        let mean = y.iter().sum::<f64>() / y.len() as f64;
        assert!((mean - 2.1863).abs() < 1e-4, "{mean}");
    }
}
