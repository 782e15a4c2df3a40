//! Resource bombs: small hostile files that declare huge sizes (4·10⁹ nodes, 2⁶⁰ array
//! elements, 4·10⁹ graphs) get a typed error, and the peak of live heap bytes while each is read
//! stays under 100 MB (a counting global allocator; the files are a few hundred bytes).

use std::path::Path;
use std::sync::Mutex;

use graph_core::io::{GraphSet, parse_edge_list, parse_graph_set, read_edge_list, read_npy};
use graph_core::loaders::{load_ogb_raw, load_tu};

#[global_allocator]
static ALLOC: alloc_meter::Counting = alloc_meter::Counting;

/// Tests of this file run one at a time, so that the peak is their own.
static SERIAL: Mutex<()> = Mutex::new(());

const LIMIT: usize = 100 << 20;

/// Runs `f`, returning its result and the peak live heap bytes above the start.
fn peak<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let (out, p) = alloc_meter::peak_during(f);
    eprintln!("peak live heap: {p} bytes");
    (out, p)
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::write(dir.join(name), bytes).unwrap();
}

#[test]
fn edge_list_declaring_4e9_nodes() {
    let _g = SERIAL.lock().unwrap();
    let bytes = b"# nodes 4000000000\n0 1\n";
    let (r, p) = peak(|| parse_edge_list(bytes));
    let e = r.unwrap_err().to_string();
    assert!(e.contains("declares 4000000000 nodes"), "{e}");
    assert!(p < LIMIT, "peak {p} bytes");
    // Through a file, and gzipped.
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "g.txt", bytes);
    let (r, p) = peak(|| read_edge_list(&dir.path().join("g.txt")));
    assert!(r.is_err() && p < LIMIT, "peak {p}");
}

#[test]
fn graph_set_declaring_4e9_nodes() {
    let _g = SERIAL.lock().unwrap();
    let bytes = br#"{"graphs": [{"n": 4000000000, "edges": [[0, 1]]}]}"#;
    let (r, p) = peak(|| parse_graph_set(bytes, GraphSet::Graphs));
    assert!(r.unwrap_err().to_string().contains("declares"));
    assert!(p < LIMIT, "peak {p} bytes");
    // Many graphs that together declare too much.
    let many = format!(
        r#"{{"graphs": [{}]}}"#,
        vec![r#"{"n": 300000000, "edges": []}"#; 16].join(",")
    );
    let (r, p) = peak(|| parse_graph_set(many.as_bytes(), GraphSet::Graphs));
    assert!(r.is_err() && p < LIMIT, "peak {p}");
}

#[test]
fn npy_shape_of_2_pow_60_elements() {
    let _g = SERIAL.lock().unwrap();
    let dir = tempfile::tempdir().unwrap();
    for shape in [
        "(1152921504606846976,)",
        "(4294967296, 4294967296)",
        "(18446744073709551615, 2)",
    ] {
        let header = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': {shape}, }}");
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
        bytes.extend_from_slice(header.as_bytes());
        bytes.extend_from_slice(&[0u8; 16]);
        write(dir.path(), "x.npy", &bytes);
        let (r, p) = peak(|| read_npy(&dir.path().join("x.npy")));
        assert!(r.is_err(), "{shape}");
        assert!(p < LIMIT, "{shape}: peak {p} bytes");
    }
}

#[test]
fn tu_indicator_naming_graph_4e9() {
    let _g = SERIAL.lock().unwrap();
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "X_A.txt", b"1, 2\n");
    write(dir.path(), "X_graph_indicator.txt", b"1\n4000000000\n");
    write(dir.path(), "X_graph_labels.txt", b"1\n");
    let (r, p) = peak(|| load_tu(dir.path(), "X"));
    let e = r.unwrap_err().to_string();
    assert!(e.contains("exceeds the number of nodes"), "{e}");
    assert!(p < LIMIT, "peak {p} bytes");
}

#[test]
fn ogb_node_list_declaring_4e9_nodes() {
    let _g = SERIAL.lock().unwrap();
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "num_node_list.csv", b"4000000000\n");
    write(dir.path(), "num_edge_list.csv", b"1\n");
    write(dir.path(), "edge.csv", b"0,1\n");
    write(dir.path(), "graph-label.csv", b"1\n");
    let (r, p) = peak(|| load_ogb_raw(dir.path(), "x"));
    let e = r.unwrap_err().to_string();
    assert!(e.contains("declares"), "{e}");
    assert!(p < LIMIT, "peak {p} bytes");
}
