//! The gnn-benchmark `.npz` converter (MSAcademic = Coauthor-CS) and registry entries checked by
//! their published counts: archives in the format built here, installed through the real
//! upstream installer from a local folder standing in for the publisher.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;

use graph_core::GraphError;
use graph_core::install::{Installer, Origin, Quiet, Report};
use graph_core::registry::{Dataset, Registry};
use rand::{RngExt, SeedableRng};

mod common;
use common::{assert_nothing_left, install_from};

/// A NumPy v1.0 file.
fn npy(descr: &str, shape: &[usize], body: &[u8]) -> Vec<u8> {
    let shape = match shape {
        [n] => format!("({n},)"),
        [a, b] => format!("({a}, {b})"),
        _ => unreachable!(),
    };
    let mut h = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + h.len() + 1) % 64 != 0 {
        h.push(' ');
    }
    h.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(h.len() as u16).to_le_bytes());
    out.extend_from_slice(h.as_bytes());
    out.extend_from_slice(body);
    out
}

fn i32s(v: &[i64]) -> Vec<u8> {
    v.iter().flat_map(|&x| (x as i32).to_le_bytes()).collect()
}
fn i64s(v: &[i64]) -> Vec<u8> {
    v.iter().flat_map(|&x| x.to_le_bytes()).collect()
}
fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|&x| x.to_le_bytes()).collect()
}

/// A CSR matrix from (row, col, value) triplets, sorted by row.
fn csr(rows: usize, mut entries: Vec<(usize, usize, f32)>) -> (Vec<i64>, Vec<i64>, Vec<f32>) {
    entries.sort_by_key(|&(r, c, _)| (r, c));
    let mut indptr = vec![0i64; rows + 1];
    for &(r, _, _) in &entries {
        indptr[r + 1] += 1;
    }
    for r in 0..rows {
        indptr[r + 1] += indptr[r];
    }
    let indices = entries.iter().map(|&(_, c, _)| c as i64).collect();
    let data = entries.iter().map(|&(_, _, x)| x).collect();
    (indptr, indices, data)
}

/// The members of a gnn-benchmark archive (`name → .npy bytes`), with the object arrays
/// (pickles) it also holds.
fn members(
    n: usize,
    d: usize,
    adj: Vec<(usize, usize, f32)>,
    attr: Vec<(usize, usize, f32)>,
    labels: &[i64],
) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for (prefix, cols, entries) in [("adj", n, adj), ("attr", d, attr)] {
        let (indptr, indices, data) = csr(n, entries);
        out.push((
            format!("{prefix}_data.npy"),
            npy("<f4", &[data.len()], &f32s(&data)),
        ));
        out.push((
            format!("{prefix}_indices.npy"),
            npy("<i4", &[indices.len()], &i32s(&indices)),
        ));
        out.push((
            format!("{prefix}_indptr.npy"),
            npy("<i4", &[indptr.len()], &i32s(&indptr)),
        ));
        out.push((
            format!("{prefix}_shape.npy"),
            npy("<i8", &[2], &i64s(&[n as i64, cols as i64])),
        ));
    }
    out.push((
        "labels.npy".into(),
        npy("<i8", &[labels.len()], &i64s(labels)),
    ));
    // An object array: a pickle the converter must never open.
    out.push((
        "class_names.npy".into(),
        npy("|O", &[1], b"\x80\x02cos\nsystem\nq\x00."),
    ));
    out
}

fn zip(members: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in members {
        w.start_file(name.as_str(), opts).unwrap();
        w.write_all(bytes).unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// A registry of one `gnn-benchmark-npz` dataset checked by the given counts.
fn toy_registry(nodes: usize, edges: usize, classes: usize, features: usize) -> Registry {
    Registry::from_toml_str(&format!(
        "[[dataset]]\nname = 'toy'\ntask = 'node-classification'\nlayout = 'node-npy'\n\
         description = 'x'\nupstream = [{{ url = 'https://h/toy.npz', format = 'gnn-benchmark-npz' }}]\n\
         expect = {{ nodes = {nodes}, edges = {edges}, classes = {classes}, features = {features} }}\n\
         [[dataset.files]]\npath = 'edges.txt'\n[[dataset.files]]\npath = 'features.npy'\n\
         [[dataset.files]]\npath = 'labels.npy'\n"
    ))
    .unwrap()
}

/// Five nodes: entries stored both ways, one duplicate, one self-loop, a zero entry, attribute
/// values > 1 (binarised) and a node without attributes.
fn tiny() -> Vec<(String, Vec<u8>)> {
    let adj = vec![
        (0, 1, 1.0),
        (1, 0, 1.0),
        (1, 2, 2.0),
        (2, 3, 1.0),
        (3, 2, 1.0),
        (4, 4, 1.0),
        (3, 4, 0.0),
        (0, 3, 1.0),
    ];
    let attr = vec![
        (0, 0, 3.0),
        (0, 2, 1.0),
        (1, 1, 0.5),
        (3, 2, 7.0),
        (4, 0, 1.0),
    ];
    members(5, 3, adj, attr, &[0, 1, 1, 2, 0])
}

#[test]
fn npz_converts_as_pyg_reads_it() {
    let up = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    std::fs::write(up.path().join("toy.npz"), zip(&tiny())).unwrap();
    let reg = toy_registry(5, 4, 3, 3);
    let spec = reg.get("toy").unwrap();
    assert!(spec.checked_by_counts());
    install_from(spec, up.path(), data.path()).unwrap();
    let dir = spec.dir(data.path());
    assert_eq!(
        std::fs::read_to_string(dir.join("edges.txt")).unwrap(),
        "0 1\n0 3\n1 2\n2 3\n"
    );
    let Dataset::Nodes(d) = spec.load(data.path()).unwrap() else {
        panic!("node data")
    };
    let x = d.features();
    assert_eq!(x.dim(), (5, 3));
    let rows: Vec<Vec<f32>> = x.rows().into_iter().map(|r| r.to_vec()).collect();
    assert_eq!(
        rows,
        [
            vec![1.0, 0.0, 1.0],
            vec![0.0, 1.0, 0.0],
            vec![0.0, 0.0, 0.0],
            vec![0.0, 0.0, 1.0],
            vec![1.0, 0.0, 0.0]
        ]
    );
    assert_eq!(d.labels(), [0, 1, 1, 2, 0]);
    spec.verify(data.path()).unwrap();
}

/// A registry entry checked by counts refuses an archive whose counts differ, and leaves nothing.
#[test]
fn counts_entry_refuses_other_counts() {
    let up = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    std::fs::write(up.path().join("toy.npz"), zip(&tiny())).unwrap();
    for (reg, what) in [
        (toy_registry(5, 5, 3, 3), "edges"),
        (toy_registry(6, 4, 3, 3), "nodes"),
        (toy_registry(5, 4, 4, 3), "classes"),
        (toy_registry(5, 4, 3, 2), "features"),
    ] {
        let spec = reg.get("toy").unwrap();
        let e = install_from(spec, up.path(), data.path()).unwrap_err();
        assert!(e.to_string().contains(&format!("{what} is")), "{what}: {e}");
        assert!(!spec.dir(data.path()).exists(), "{what}: nothing placed");
        assert_nothing_left(data.path(), what);
    }
    // Installed, then changed on disk: verify catches it by counts.
    let reg = toy_registry(5, 4, 3, 3);
    let spec = reg.get("toy").unwrap();
    install_from(spec, up.path(), data.path()).unwrap();
    std::fs::write(spec.dir(data.path()).join("edges.txt"), "0 1\n").unwrap();
    let e = spec.verify(data.path()).unwrap_err();
    assert!(matches!(e, GraphError::Counts { .. }), "{e}");
}

/// The registry's `msacademic` entry installs a generated archive with Coauthor-CS's counts
/// (18,333 nodes, 81,894 edges, 6,805 features, 15 classes) and refuses one edge fewer.
#[test]
fn msacademic_entry_installs_an_archive_with_its_counts() {
    let spec = Registry::embedded().get("msacademic").unwrap();
    assert!(spec.checked_by_counts());
    let (n, m, d, c) = (18_333usize, 81_894usize, 6_805usize, 15i64);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(29);
    let mut edges = BTreeSet::new();
    while edges.len() < m {
        let (u, v) = (rng.random_range(0..n), rng.random_range(0..n));
        if u != v {
            edges.insert((u.min(v), u.max(v)));
        }
    }
    let adj_of = |edges: &BTreeSet<(usize, usize)>| -> Vec<(usize, usize, f32)> {
        edges
            .iter()
            .flat_map(|&(u, v)| [(u, v, 1.0), (v, u, 1.0)])
            .collect()
    };
    let attr: Vec<(usize, usize, f32)> = (0..n)
        .flat_map(|v| [(v, v % d, 1.0), (v, (v * 7 + 3) % d, 2.0)])
        .collect();
    let labels: Vec<i64> = (0..n as i64).map(|v| v % c).collect();
    let up = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let file = up.path().join("ms_academic_cs.npz");
    std::fs::write(
        &file,
        zip(&members(n, d, adj_of(&edges), attr.clone(), &labels)),
    )
    .unwrap();
    install_from(spec, up.path(), data.path()).unwrap();
    let Dataset::Nodes(ds) = spec.load(data.path()).unwrap() else {
        panic!("node data")
    };
    spec.expect
        .check("msacademic", &Dataset::Nodes(ds))
        .unwrap();

    let fewer = tempfile::tempdir().unwrap();
    let mut short = edges.clone();
    short.pop_last();
    std::fs::write(
        up.path().join("ms_academic_cs.npz"),
        zip(&members(n, d, adj_of(&short), attr, &labels)),
    )
    .unwrap();
    let e = install_from(spec, up.path(), fewer.path()).unwrap_err();
    assert!(
        e.to_string()
            .contains("edges is 81893, the registry expects 81894"),
        "{e}"
    );
    assert!(!spec.dir(fewer.path()).exists());
}

/// `install --all --from MIRROR` skips a dataset checked by counts that the mirror lacks (no
/// mirror can pin its bytes) and still fails one with checksums that it lacks.
#[test]
fn mirror_without_a_counts_dataset_skips_it() {
    let mirror = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let mut inst = Installer::new(&Origin::Mirror(mirror.path().display().to_string()));
    let reg = Registry::embedded();
    for name in ["pubmed", "msacademic"] {
        let r = inst.install(reg.get(name).unwrap(), data.path(), &mut Quiet);
        assert!(matches!(r, Report::Skipped { .. }), "{}", r.line(name));
    }
    let r = inst.install(reg.get("acm").unwrap(), data.path(), &mut Quiet);
    assert!(matches!(r, Report::Failed(_)), "{}", r.line("acm"));
}

/// Hostile archives: every defect is a typed error naming it, never a panic.
#[test]
fn hostile_npz_archives_are_typed_errors() {
    let reg = toy_registry(5, 4, 3, 3);
    let spec = reg.get("toy").unwrap();
    let base = tiny();
    let with = |name: &str, bytes: Option<Vec<u8>>| -> Vec<(String, Vec<u8>)> {
        let mut m: Vec<_> = base.iter().filter(|(n, _)| n != name).cloned().collect();
        if let Some(b) = bytes {
            m.push((name.to_owned(), b));
        }
        m
    };
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("no member `labels.npy`", zip(&with("labels.npy", None))),
        (
            "indptr",
            zip(&with(
                "adj_indptr.npy",
                Some(npy("<i4", &[6], &i32s(&[0, 2, 1, 4, 6, 8]))),
            )),
        ),
        (
            "column index 9",
            zip(&with(
                "attr_indices.npy",
                Some(npy("<i4", &[5], &i32s(&[0, 2, 1, 9, 0]))),
            )),
        ),
        (
            "data section",
            zip(&with(
                "adj_data.npy",
                Some(npy("<f4", &[8], &f32s(&[1.0; 3]))),
            )),
        ),
        (
            "out of range",
            zip(&with(
                "adj_shape.npy",
                Some(npy("<i8", &[2], &i64s(&[-5, 5]))),
            )),
        ),
        (
            "not square",
            zip(&with(
                "adj_shape.npy",
                Some(npy("<i8", &[2], &i64s(&[5, 6]))),
            )),
        ),
        (
            "labels are not 5 integers",
            zip(&with(
                "labels.npy",
                Some(npy("<f4", &[5], &f32s(&[0.0; 5]))),
            )),
        ),
        (
            "not finite",
            zip(&with(
                "attr_data.npy",
                Some(npy("<f4", &[5], &f32s(&[1.0, f32::NAN, 1.0, 1.0, 1.0]))),
            )),
        ),
        ("zip", b"PK\x03\x04 truncated".to_vec()),
    ];
    for (want, bytes) in cases {
        let up = tempfile::tempdir().unwrap();
        let data = tempfile::tempdir().unwrap();
        std::fs::write(up.path().join("toy.npz"), bytes).unwrap();
        let e = install_from(spec, up.path(), data.path()).unwrap_err();
        let line = e.to_string();
        assert!(!line.contains('\n'), "one line: {line}");
        assert!(line.contains(want), "{want}: {line}");
        assert!(!spec.dir(data.path()).exists());
    }
}

/// `fuzz/corpus/npz/seed-path3`: the members of a 3-node path (with a self-loop and an
/// attribute value 2) joined by 0xFF, in the order of `npz::MEMBERS`.
#[test]
fn the_fuzz_seed_is_a_valid_three_node_graph() {
    use graph_core::install::npz::{MEMBERS, convert_members};
    let seed = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/npz/seed-path3"),
    )
    .unwrap();
    let parts: Vec<&[u8]> = seed.split(|&b| b == 0xFF).collect();
    assert_eq!(parts.len(), MEMBERS.len());
    let member = |k: &str| {
        let i = MEMBERS.iter().position(|&m| m == k)?;
        Some(parts[i].to_vec())
    };
    let out = convert_members("path3", &member).unwrap();
    assert_eq!(out["edges.txt"], b"0 1\n1 2\n");
    let f = &out["features.npy"];
    assert_eq!(&f[f.len() - 6..], [1, 0, 0, 1, 0, 1]);
    // A missing member is a typed error naming it.
    let e = convert_members("path3", &|k: &str| {
        (k != "labels").then(|| member(k)).flatten()
    })
    .unwrap_err()
    .to_string();
    assert!(e.contains("labels.npy"), "{e}");
}
