//! Malformed inputs give their specific, located errors (never a panic).

use std::fs;
use std::path::Path;

use graph_core::GraphError;
use graph_core::loaders::{load_node_npy, load_tu};

/// Writes a small valid TU dataset `T` (2 graphs: a triangle and an edge plus an isolated node).
fn write_tu(dir: &Path) {
    fs::write(
        dir.join("T_A.txt"),
        "1, 2\n2, 1\n2, 3\n3, 2\n1, 3\n3, 1\n4, 5\n5, 4\n",
    )
    .unwrap();
    fs::write(dir.join("T_graph_indicator.txt"), "1\n1\n1\n2\n2\n2\n").unwrap();
    fs::write(dir.join("T_graph_labels.txt"), "-1\n1\n").unwrap();
    fs::write(dir.join("T_node_labels.txt"), "6\n6\n8\n7\n7\n1\n").unwrap();
}

fn err_with(file: &str, content: &[u8]) -> String {
    let d = tempfile::tempdir().unwrap();
    write_tu(d.path());
    fs::write(d.path().join(file), content).unwrap();
    load_tu(d.path(), "T").unwrap_err().to_string()
}

#[test]
fn valid_fixture_loads() {
    let d = tempfile::tempdir().unwrap();
    write_tu(d.path());
    let ds = load_tu(d.path(), "T").unwrap();
    assert_eq!(ds.len(), 2);
    assert_eq!(ds.graphs()[0].num_edges(), 3);
    assert_eq!(ds.graphs()[1].num_nodes(), 3, "isolated node 6 exists");
    assert_eq!(ds.graphs()[1].num_edges(), 1);
    assert_eq!(ds.node_labels().unwrap()[1], vec![7, 7, 1]);
}

#[test]
fn gz_files_are_read_transparently() {
    use std::io::Write;
    let d = tempfile::tempdir().unwrap();
    write_tu(d.path());
    let a = fs::read(d.path().join("T_A.txt")).unwrap();
    fs::remove_file(d.path().join("T_A.txt")).unwrap();
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(&a).unwrap();
    fs::write(d.path().join("T_A.txt.gz"), enc.finish().unwrap()).unwrap();
    assert_eq!(load_tu(d.path(), "T").unwrap().total_edges(), 4);
}

#[test]
fn non_numeric_token() {
    let e = err_with("T_A.txt", b"1, 2\n2, x\n");
    assert!(
        e.ends_with("T_A.txt:2: expected target node id (an integer), found `x`"),
        "{e}"
    );
}

#[test]
fn truncated_line() {
    let e = err_with("T_A.txt", b"1, 2\n2,");
    assert!(
        e.ends_with("T_A.txt:2: expected target node id, found end of line"),
        "{e}"
    );
}

#[test]
fn truncated_gzip_stream() {
    let d = tempfile::tempdir().unwrap();
    write_tu(d.path());
    let big: String = (0..2000)
        .map(|i| format!("{}, {}\n", 1 + i % 3, 1 + (i + 1) % 3))
        .collect();
    fs::remove_file(d.path().join("T_A.txt")).unwrap();
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut enc, big.as_bytes()).unwrap();
    let gz = enc.finish().unwrap();
    fs::write(d.path().join("T_A.txt.gz"), &gz[..gz.len() / 2]).unwrap();
    let e = load_tu(d.path(), "T").unwrap_err();
    assert!(matches!(e, GraphError::Io { .. }), "{e}");
    assert!(e.to_string().contains("T_A.txt.gz"));
}

#[test]
fn id_zero_in_one_based_file() {
    let e = err_with("T_A.txt", b"1, 2\n0, 1\n");
    assert!(
        e.ends_with("T_A.txt:2: node id 0 in a 1-based file (ids start at 1)"),
        "{e}"
    );
}

#[test]
fn id_above_node_count() {
    let e = err_with("T_A.txt", b"1, 2\n2, 7\n");
    assert!(
        e.ends_with("T_A.txt:2: node id 7 > number of nodes 6 in the graph indicator"),
        "{e}"
    );
}

#[test]
fn self_loop() {
    let e = err_with("T_A.txt", b"1, 2\n3, 3\n");
    assert!(e.ends_with("T_A.txt:2: self-loop on node 3"), "{e}");
}

#[test]
fn edge_across_graphs() {
    let e = err_with("T_A.txt", b"1, 4\n");
    assert!(
        e.ends_with("T_A.txt:1: edge 1 4 joins graph 1 and graph 2"),
        "{e}"
    );
}

#[test]
fn indicator_label_count_mismatch() {
    let e = err_with("T_graph_labels.txt", b"1\n");
    assert!(
        e.ends_with("T_graph_labels.txt: 1 graph labels but 2 graphs in the graph indicator"),
        "{e}"
    );
    let e = err_with("T_node_labels.txt", b"1\n2\n");
    assert!(
        e.ends_with("T_node_labels.txt: 2 node labels but 6 nodes in the graph indicator"),
        "{e}"
    );
}

#[test]
fn missing_required_file() {
    let d = tempfile::tempdir().unwrap();
    write_tu(d.path());
    fs::remove_file(d.path().join("T_graph_indicator.txt")).unwrap();
    assert!(matches!(
        load_tu(d.path(), "T"),
        Err(GraphError::MissingFile { .. })
    ));
}

#[test]
fn graph_without_nodes() {
    let e = err_with("T_graph_indicator.txt", b"1\n1\n1\n3\n3\n3\n");
    assert!(e.contains("graph 2 has no nodes"), "{e}");
}

#[test]
fn index_file_out_of_range() {
    let d = tempfile::tempdir().unwrap();
    write_tu(d.path());
    fs::write(d.path().join("test.idx"), "0\n2\n").unwrap();
    let e = load_tu(d.path(), "T").unwrap_err().to_string();
    assert!(e.ends_with("test.idx:2: index 2 out of range 0..2"), "{e}");
}

/// An `.npy` v1.0 file with the given dtype, shape literal and raw little-endian body.
fn npy(descr: &str, shape: &str, body: &[u8]) -> Vec<u8> {
    let mut h = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while (11 + h.len()) % 64 != 0 {
        h.push(' ');
    }
    h.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(h.len() as u16).to_le_bytes());
    out.extend_from_slice(h.as_bytes());
    out.extend_from_slice(body);
    out
}

fn npy_u8(shape: &str, body: &[u8]) -> Vec<u8> {
    npy("|u1", shape, body)
}

fn npy_i8(vals: &[i64]) -> Vec<u8> {
    let body: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    npy("<i8", &format!("({},)", vals.len()), &body)
}

#[test]
fn node_layout_errors() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    fs::write(p.join("labels.npy"), npy_i8(&[0, 1, 1])).unwrap();
    fs::write(
        p.join("features.npy"),
        npy_u8("(3, 2)", &[1, 0, 0, 1, 1, 1]),
    )
    .unwrap();
    fs::write(p.join("edges.txt"), "0 1\n1 2\n").unwrap();
    let ds = load_node_npy(p, "toy").unwrap();
    assert_eq!((ds.graph().num_edges(), ds.num_classes()), (2, 2));

    fs::write(p.join("edges.txt"), "0 1\n1 3\n").unwrap();
    let e = load_node_npy(p, "toy").unwrap_err().to_string();
    assert!(
        e.ends_with("edges.txt:2: node id 3 out of range 0..3 (n = number of labels)"),
        "{e}"
    );
    fs::write(p.join("edges.txt"), "0 1\n2 2\n").unwrap();
    assert!(
        load_node_npy(p, "toy")
            .unwrap_err()
            .to_string()
            .ends_with(":2: self-loop on node 2")
    );
    fs::write(p.join("edges.txt"), "0 1\n1 0\n").unwrap();
    assert!(
        load_node_npy(p, "toy")
            .unwrap_err()
            .to_string()
            .ends_with(":2: duplicate edge {0, 1}")
    );
    fs::write(p.join("edges.txt"), "0 1\n").unwrap();
    fs::write(p.join("features.npy"), npy_u8("(3, 2)", &[1, 0, 0])).unwrap();
    let e = load_node_npy(p, "toy").unwrap_err().to_string();
    assert!(e.contains("truncated"), "{e}");
    fs::write(p.join("features.npy"), npy_u8("(2, 2)", &[1, 0, 0, 1])).unwrap();
    let e = load_node_npy(p, "toy").unwrap_err().to_string();
    assert!(e.contains("expected shape [3, d]"), "{e}");
}
