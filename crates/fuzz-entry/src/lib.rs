//! The entry points of dpgraph's fuzz targets: one function per decoder of outside data, each
//! taking arbitrary bytes. The cargo-fuzz crate in `fuzz/` (nightly, libFuzzer) calls them from
//! its targets; the stable test `tests/corpus.rs` replays the committed corpora and crash
//! regressions (`fuzz/corpus/<target>/`, `fuzz/regressions/<target>/`) through the same
//! functions, so a regression fails `cargo test` without nightly.
//!
//! A target passes an input when the decoder returns (`Ok` or a typed error) without a panic, an
//! abort or an unbounded allocation. Multi-file formats take the input split at [`SPLIT`] bytes
//! (missing parts are empty files) and read it from a temporary folder, as a user's files would be.

use std::path::Path;

use graph_core::io::{GraphSet, parse_edge_list, parse_graph_set, read_edge_list, read_npy};

/// The byte that separates the files of a multi-file target's input.
pub const SPLIT: u8 = 0xFF;

/// Frame size limit of the protocol target (the federation's default is larger; the decoder
/// checks it before parsing).
const FRAME_LIMIT: usize = 1 << 20;

/// Every target's name, in the order of `fuzz/Cargo.toml`.
pub const TARGETS: [&str; 14] = [
    "edge_list",
    "edge_list_gz",
    "graph_set",
    "npy",
    "tu",
    "ogb_raw",
    "registry_toml",
    "archive",
    "amlworld_csv",
    "amlsim_csv",
    "protocol_frame",
    "report_rr",
    "planetoid",
    "npz",
];

/// Runs the target `name` on `data`.
///
/// # Errors
/// The name of an unknown target (a bug of the caller, not a finding).
///
/// # Panics
/// Wherever the decoder under test panics: that is what the fuzzer looks for.
pub fn run(name: &str, data: &[u8]) -> Result<(), String> {
    match name {
        "edge_list" => edge_list(data),
        "edge_list_gz" => with_files(&["g.txt.gz"], data, |d| {
            let _ = read_edge_list(&d.join("g.txt.gz"));
        }),
        "graph_set" => {
            let _ = parse_graph_set(data, GraphSet::Graphs);
            let _ = parse_graph_set(data, GraphSet::Patterns);
        }
        "npy" => with_files(&["x.npy"], data, |d| {
            let _ = read_npy(&d.join("x.npy"));
        }),
        "tu" => with_files(
            &[
                "X_A.txt",
                "X_graph_indicator.txt",
                "X_graph_labels.txt",
                "X_node_labels.txt",
            ],
            data,
            |d| {
                let _ = graph_core::loaders::load_tu(d, "X");
            },
        ),
        "ogb_raw" => with_files(
            &[
                "num_node_list.csv",
                "num_edge_list.csv",
                "edge.csv",
                "graph-label.csv",
            ],
            data,
            |d| {
                let _ = graph_core::loaders::load_ogb_raw(d, "x");
            },
        ),
        "registry_toml" => {
            if let Ok(text) = std::str::from_utf8(data) {
                let _ = graph_core::Registry::from_toml_str(text);
            }
        }
        "archive" => {
            for name in ["x.zip", "x.tar.gz", "x.tgz", "x.gz", "x.txt"] {
                let _ = graph_core::install::Archive::read(data, name, 1 << 24);
            }
        }
        "amlworld_csv" => with_files(&["trans.csv"], data, |d| {
            let _ = cefedgnn::aml::load_amlworld_trans(&d.join("trans.csv"));
        }),
        "amlsim_csv" => with_files(
            &[
                "accounts.csv",
                "transactions.csv",
                "alert_transactions.csv",
                "alert_members.csv",
            ],
            data,
            |d| {
                let _ = cefedgnn::aml::load_amlsim_small(d);
            },
        ),
        "protocol_frame" => protocol_frame(data),
        "report_rr" => report_rr(data),
        "planetoid" => planetoid(data),
        "npz" => npz(data),
        other => return Err(format!("unknown fuzz target {other}")),
    }
    Ok(())
}

/// A gnn-benchmark `.npz` (the input split at [`SPLIT`] into the members of
/// [`graph_core::install::npz::MEMBERS`], in order): each part through the `.npy` reader, then
/// the whole conversion.
fn npz(data: &[u8]) {
    use graph_core::install::npz::{MEMBERS, convert_members};
    let parts: Vec<&[u8]> = data.split(|&b| b == SPLIT).collect();
    let member = |key: &str| {
        let i = MEMBERS.iter().position(|&m| m == key)?;
        parts.get(i).map(|p| p.to_vec())
    };
    let _ = convert_members("fuzz", &member);
}

/// The Planetoid pickles (the input split at [`SPLIT`] into the files of
/// [`graph_core::install::planetoid::SUFFIXES`]): each part through the restricted pickle
/// reader, then the whole conversion.
fn planetoid(data: &[u8]) {
    use graph_core::install::planetoid::{SUFFIXES, convert};
    let parts: Vec<&[u8]> = data.split(|&b| b == SPLIT).collect();
    for p in &parts {
        let _ = graph_core::loaders::pickle::read("part", p);
    }
    let file = |s: &str| {
        let i = SUFFIXES.iter().position(|&x| x == s)?;
        parts.get(i).map(|p| p.to_vec())
    };
    let _ = convert("x", &file);
}

/// Parses an edge list; a graph that parses must write and parse back to itself.
fn edge_list(data: &[u8]) {
    if let Ok(g) = parse_edge_list(data) {
        let mut text = format!("# nodes {}\n", g.num_nodes());
        for (u, v) in g.edges() {
            text.push_str(&format!("{u} {v}\n"));
        }
        let again = parse_edge_list(text.as_bytes()).expect("a written edge list parses");
        assert_eq!(again, g, "edge list round trip");
    }
}

/// Decodes a protocol frame; a message that decodes must encode to the same bytes.
fn protocol_frame(data: &[u8]) {
    use cefedgnn::protocol::Message;
    if let Ok(m) = Message::decode(data, FRAME_LIMIT) {
        assert_eq!(m.encode(), data, "frame round trip");
    }
}

/// Decodes a noisy report as given and with its checksum recomputed (so that mutated bodies get
/// past the checksum to the body decoder); a report that decodes must re-encode to a report of
/// the same graph.
fn report_rr(data: &[u8]) {
    report_round_trip(data);
    if data.len() >= edgerefine::report::HEADER_LEN {
        let mut fixed = data.to_vec();
        let sum = edgerefine::report::checksum(&data[..56], &data[64..]);
        fixed[56..64].copy_from_slice(&sum.to_le_bytes());
        report_round_trip(&fixed);
    }
}

fn report_round_trip(data: &[u8]) {
    if let Ok((header, g)) = edgerefine::report::decode_report(data) {
        let again =
            edgerefine::report::encode_report(&g, header.eps).expect("a decoded graph encodes");
        let (_, g2) = edgerefine::report::decode_report(&again).expect("an encoded report decodes");
        assert_eq!(g2, g, "report round trip");
    }
}

/// Writes the parts of `data` (split at [`SPLIT`]) as `names` into a fresh temporary folder and
/// runs `f` on it.
fn with_files(names: &[&str], data: &[u8], f: impl FnOnce(&Path)) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut parts = data.split(|&b| b == SPLIT);
    for name in names {
        let part = parts.next().unwrap_or(&[]);
        std::fs::write(dir.path().join(name), part).expect("writable temporary folder");
    }
    f(dir.path());
}
