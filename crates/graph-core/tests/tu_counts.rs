//! TU collections whose publisher gives no checksum and no totals, only the graph and class
//! counts and the mean nodes and edges per graph (REDDIT-MULTI-5K, github_stargazers): archives
//! in the TUDataset zip layout built here, installed through the real upstream installer from a
//! local folder standing in for the publisher, and refused when a count or a mean differs.

use std::io::Write;

use graph_core::GraphError;
use graph_core::registry::{Dataset, Registry};

mod common;
use common::{assert_nothing_left, install_from};

/// A TUDataset zip as www.chrsmrrs.com ships it: `NAME/NAME_A.txt` (both directions of every
/// edge, 1-based global ids), `NAME/NAME_graph_indicator.txt`, `NAME/NAME_graph_labels.txt`.
/// Graph `g` is a path on `sizes[g]` nodes (`sizes[g] − 1` edges), labelled `labels[g]`.
fn tu_zip(name: &str, sizes: &[usize], labels: &[usize]) -> Vec<u8> {
    let (mut a, mut ind, mut lab) = (String::new(), String::new(), String::new());
    let mut offset = 0;
    for (g, (&n, &y)) in sizes.iter().zip(labels).enumerate() {
        for k in 0..n {
            ind.push_str(&format!("{}\n", g + 1));
            if k + 1 < n {
                let (u, v) = (offset + k + 1, offset + k + 2);
                a.push_str(&format!("{u}, {v}\n{v}, {u}\n"));
            }
        }
        lab.push_str(&format!("{y}\n"));
        offset += n;
    }
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (file, text) in [
        ("A.txt", a),
        ("graph_indicator.txt", ind),
        ("graph_labels.txt", lab),
    ] {
        w.start_file(format!("{name}/{name}_{file}"), opts).unwrap();
        w.write_all(text.as_bytes()).unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// A registry of one TU collection `toy` checked by its graph and class counts and its
/// published means.
fn toy_registry(graphs: usize, classes: usize, mean_nodes: &str, mean_edges: &str) -> Registry {
    Registry::from_toml_str(&format!(
        "[[dataset]]\nname = 'toy'\ntask = 'graph-classification'\nlayout = 'tu'\n\
         description = 'x'\nupstream = [{{ url = 'https://h/toy.zip', format = 'files' }}]\n\
         expect = {{ graphs = {graphs}, classes = {classes}, mean_nodes = '{mean_nodes}', mean_edges = '{mean_edges}' }}\n\
         [[dataset.files]]\npath = 'toy_A.txt.gz'\n[[dataset.files]]\npath = 'toy_graph_indicator.txt.gz'\n\
         [[dataset.files]]\npath = 'toy_graph_labels.txt'\n"
    ))
    .unwrap()
}

/// Seven graphs of 3, 4, 5, 6, 3, 4, 5 nodes (30 nodes, 23 edges: means 4.2857… and 3.2857…),
/// three classes.
const SIZES: [usize; 7] = [3, 4, 5, 6, 3, 4, 5];
const LABELS: [usize; 7] = [1, 2, 3, 1, 2, 3, 1];

#[test]
fn tu_zip_checked_by_published_means_installs_and_loads() {
    let up = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    std::fs::write(up.path().join("toy.zip"), tu_zip("toy", &SIZES, &LABELS)).unwrap();
    let reg = toy_registry(7, 3, "4.29", "3.29");
    let spec = reg.get("toy").unwrap();
    assert!(spec.checked_by_counts() && spec.expect.identifies(spec.layout));
    install_from(spec, up.path(), data.path()).unwrap();
    let Dataset::Graphs(d) = spec.load(data.path()).unwrap() else {
        panic!("a graph collection")
    };
    assert_eq!((d.len(), d.total_nodes(), d.total_edges()), (7, 30, 23));
    assert_eq!(d.targets().num_classes(), Some(3));
    spec.verify(data.path()).unwrap();
}

/// A registry entry checked by its published means refuses an archive whose graph count,
/// class count or mean nodes / edges differ, as a typed error, and leaves nothing behind.
#[test]
fn tu_counts_entry_refuses_other_counts() {
    let up = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    std::fs::write(up.path().join("toy.zip"), tu_zip("toy", &SIZES, &LABELS)).unwrap();
    for (reg, what) in [
        (toy_registry(8, 3, "4.29", "3.29"), "graphs is 7"),
        (toy_registry(7, 2, "4.29", "3.29"), "classes is 3"),
        (
            toy_registry(7, 3, "4.30", "3.29"),
            "mean nodes per graph is 4.2857",
        ),
        (
            toy_registry(7, 3, "4.29", "3.2"),
            "mean edges per graph is 3.2857",
        ),
    ] {
        let spec = reg.get("toy").unwrap();
        let e = install_from(spec, up.path(), data.path()).unwrap_err();
        assert!(e.to_string().contains(what), "{what}: {e}");
        assert!(!spec.dir(data.path()).exists(), "{what}: nothing placed");
        assert_nothing_left(data.path(), what);
    }
    // Installed, then an edge dropped on disk: verify catches it by the mean.
    let reg = toy_registry(7, 3, "4.29", "3.29");
    let spec = reg.get("toy").unwrap();
    install_from(spec, up.path(), data.path()).unwrap();
    let a = spec.dir(data.path()).join("toy_A.txt.gz");
    let plain = "1, 2\n2, 1\n";
    let mut gz = flate2_free_gzip(plain.as_bytes());
    std::fs::write(&a, std::mem::take(&mut gz)).unwrap();
    let e = spec.verify(data.path()).unwrap_err();
    assert!(matches!(e, GraphError::PublishedMean { .. }), "{e}");
}

/// A stored-block gzip of `bytes` (RFC 1952 with one uncompressed deflate block), so the test
/// needs no compression crate.
fn flate2_free_gzip(bytes: &[u8]) -> Vec<u8> {
    assert!(bytes.len() < 65_536);
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];
    out.push(1); // final stored block
    let len = bytes.len() as u16;
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&(!len).to_le_bytes());
    out.extend_from_slice(bytes);
    out.extend_from_slice(&crc32(bytes).to_le_bytes());
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A registry entry that gives totals needs no means, one that gives neither is refused, and a
/// mean that is not a printed decimal is refused by name.
#[test]
fn tu_entries_without_checksums_need_totals_or_means() {
    let entry = |expect: &str| {
        Registry::from_toml_str(&format!(
            "[[dataset]]\nname = 'toy'\ntask = 'graph-classification'\nlayout = 'tu'\n\
             description = 'x'\nupstream = []\nexpect = {{ {expect} }}\n\
             [[dataset.files]]\npath = 'toy_A.txt'\n"
        ))
    };
    assert!(entry("graphs = 7, classes = 3, nodes = 30, edges = 23").is_ok());
    assert!(entry("graphs = 7, classes = 3, mean_nodes = '4.29', mean_edges = '3.29'").is_ok());
    for weak in [
        "graphs = 7, classes = 3",
        "graphs = 7, classes = 3, mean_nodes = '4.29'",
        "classes = 3, mean_nodes = '4.29', mean_edges = '3.29'",
        "graphs = 7, mean_nodes = '4.29', mean_edges = '3.29'",
    ] {
        let e = entry(weak).unwrap_err().to_string();
        assert!(e.contains("mean_nodes and mean_edges"), "{weak}: {e}");
    }
    let e = entry("graphs = 7, classes = 3, mean_nodes = '4,29', mean_edges = '3.29'")
        .unwrap_err()
        .to_string();
    assert!(e.contains("`4,29` is not a published mean"), "{e}");
}

/// The registry's REDDIT-MULTI-5K and github_stargazers entries: checked by their published
/// figures (TUDataset's table), and an archive with the right graph and class counts but other
/// graph sizes — the path a user with network takes, from the publisher's URL file name to the
/// check — is refused by its mean.
#[test]
fn social_tu_entries_install_from_their_publisher_zip_and_check_means() {
    let reg = Registry::embedded();
    for (name, graphs, classes, nodes, edges) in [
        ("REDDIT-MULTI-5K", 4_999, 5, "508.52", "594.87"),
        ("github_stargazers", 12_725, 2, "113.79", "234.64"),
    ] {
        let spec = reg.get(name).unwrap();
        assert!(spec.checked_by_counts() && spec.expect.identifies(spec.layout));
        assert_eq!(
            (spec.expect.graphs, spec.expect.classes),
            (Some(graphs), Some(classes))
        );
        let means = (
            spec.expect.mean_nodes.as_ref().unwrap(),
            spec.expect.mean_edges.as_ref().unwrap(),
        );
        assert_eq!(
            (means.0.to_string(), means.1.to_string()),
            (nodes.to_owned(), edges.to_owned())
        );
        let url = &spec.installable_upstream().next().unwrap().url;
        assert!(url.ends_with(&format!("/{name}.zip")), "{url}");
        // Their counts, three-node graphs.
        let sizes = vec![3; graphs];
        let labels: Vec<usize> = (0..graphs).map(|g| g % classes).collect();
        let up = tempfile::tempdir().unwrap();
        let data = tempfile::tempdir().unwrap();
        std::fs::write(
            up.path().join(format!("{name}.zip")),
            tu_zip(name, &sizes, &labels),
        )
        .unwrap();
        let e = install_from(spec, up.path(), data.path()).unwrap_err();
        assert!(
            e.to_string().contains(&format!(
                "mean nodes per graph is 3.0000, the registry expects the published {nodes}"
            )),
            "{name}: {e}"
        );
        assert_nothing_left(data.path(), name);
    }
}
