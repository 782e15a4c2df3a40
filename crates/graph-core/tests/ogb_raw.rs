//! OGB raw graph-property CSVs, on a small fixture written here.

use std::fs;
use std::io::Write;
use std::path::Path;

use graph_core::Targets;
use graph_core::loaders::load_ogb_raw;

fn gz(path: &Path, text: &str) {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(text.as_bytes()).unwrap();
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, enc.finish().unwrap()).unwrap();
}

/// Three molecules: a 3-path, a triangle, a single atom.
fn fixture(root: &Path) {
    let raw = root.join("raw");
    gz(&raw.join("num_node_list.csv.gz"), "3\n3\n1\n");
    gz(&raw.join("num_edge_list.csv.gz"), "2\n3\n0\n");
    gz(&raw.join("edge.csv.gz"), "0,1\n1,2\n0,1\n1,2\n2,0\n");
    gz(&raw.join("graph-label.csv.gz"), "0\n1\n0\n");
    gz(
        &raw.join("node-feat.csv.gz"),
        "5,0,1\n5,0,1\n7,1,0\n5,0,0\n5,0,0\n7,0,0\n0,0,0\n",
    );
    gz(&root.join("split/scaffold/train.csv.gz"), "0\n2\n");
    gz(&root.join("split/scaffold/valid.csv.gz"), "1\n");
    gz(&root.join("split/scaffold/test.csv.gz"), "");
}

#[test]
fn loads_ogb_fixture() {
    let d = tempfile::tempdir().unwrap();
    fixture(d.path());
    let ds = load_ogb_raw(d.path(), "ogbg-toy").unwrap();
    assert_eq!(ds.len(), 3);
    assert_eq!(
        ds.graphs()
            .iter()
            .map(|g| (g.num_nodes(), g.num_edges()))
            .collect::<Vec<_>>(),
        vec![(3, 2), (3, 3), (1, 0)]
    );
    assert_eq!(ds.targets(), &Targets::from_raw_classes(&[0, 1, 0]));
    assert_eq!(
        ds.node_labels().unwrap()[0],
        vec![6, 6, 8],
        "atomic number = feature + 1"
    );
    assert_eq!(ds.split("train"), Some(&[0, 2][..]));
    assert_eq!(ds.split("scaffold_valid"), Some(&[1][..]));
    assert_eq!(ds.split("test"), Some(&[][..]));
}

#[test]
fn ogb_regression_targets_and_errors() {
    let d = tempfile::tempdir().unwrap();
    fixture(d.path());
    gz(&d.path().join("raw/graph-label.csv.gz"), "0.5\n-1.25\n3\n");
    let ds = load_ogb_raw(d.path(), "t").unwrap();
    assert_eq!(ds.targets(), &Targets::Real(vec![0.5, -1.25, 3.0]));

    gz(&d.path().join("raw/graph-label.csv.gz"), "0\nnan\n1\n");
    let e = load_ogb_raw(d.path(), "t").unwrap_err().to_string();
    assert!(
        e.contains("graph-label.csv.gz:2: missing label (nan)"),
        "{e}"
    );

    gz(&d.path().join("raw/graph-label.csv.gz"), "0\n1\n0\n");
    gz(
        &d.path().join("raw/edge.csv.gz"),
        "0,1\n1,3\n0,1\n1,2\n2,0\n",
    );
    let e = load_ogb_raw(d.path(), "t").unwrap_err().to_string();
    assert!(
        e.contains("edge.csv.gz:2: node id 3 out of range 0..3 of graph 0"),
        "{e}"
    );

    gz(&d.path().join("raw/edge.csv.gz"), "0,1\n1,2\n0,1\n1,2\n");
    let e = load_ogb_raw(d.path(), "t").unwrap_err().to_string();
    assert!(
        e.contains("4 edge lines but num_edge_list.csv declares 5"),
        "{e}"
    );
}
