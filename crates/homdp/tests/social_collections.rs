//! The paper's other social collections, REDDIT-MULTI-5K and github_stargazers, end to end: an
//! archive in the TUDataset zip layout with their class counts and smaller graphs, installed by
//! graph-core's upstream installer under a registry entry shaped like theirs (same name, format
//! and files, checked by the generated graphs' counts and means), loaded, split and run through
//! the main-table protocol to its rows with the paper's setting for each.

use std::io::Write;

use graph_core::generate::erdos_renyi;
use graph_core::install::{Quiet, UpstreamInstaller};
use graph_core::registry::{Dataset, Registry};
use graph_core::{Graph, GraphDataset};
use homdp::downstream::{Downstream, Labels};
use homdp::paper::{Prepared, Rho, RowKind, Score, Sizes, main_table, setting, settings};
use homdp::{HomdpError, Split};
use rand::SeedableRng;

/// `per_class` Erdős–Rényi graphs per class: class `c` has `12 + 4c` to `14 + 4c` nodes and
/// edge probability `0.15 + 0.1c`, so size and density both tell the classes apart.
fn graphs(classes: usize, per_class: usize, seed: u64) -> (Vec<Graph>, Vec<usize>) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let (mut gs, mut ys) = (Vec::new(), Vec::new());
    for i in 0..classes * per_class {
        let c = i % classes;
        gs.push(erdos_renyi(12 + 4 * c + i % 3, 0.15 + 0.1 * c as f64, &mut rng).unwrap());
        ys.push(c);
    }
    (gs, ys)
}

/// The TUDataset zip of `graphs` (labels written 1-based, as REDDIT-MULTI-5K's are).
fn tu_zip(name: &str, graphs: &[Graph], labels: &[usize]) -> Vec<u8> {
    let (mut a, mut ind, mut lab) = (String::new(), String::new(), String::new());
    let mut offset = 0u32;
    for (g, (graph, &y)) in graphs.iter().zip(labels).enumerate() {
        for _ in 0..graph.num_nodes() {
            ind.push_str(&format!("{}\n", g + 1));
        }
        for (u, v) in graph.edges() {
            let (u, v) = (offset + u + 1, offset + v + 1);
            a.push_str(&format!("{u}, {v}\n{v}, {u}\n"));
        }
        lab.push_str(&format!("{}\n", y + 1));
        offset += graph.num_nodes() as u32;
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

/// The registry entry of `name` as the real one is written (TUDataset zip, `format = "files"`,
/// gzipped `_A` and indicator, no checksums), with the generated collection's counts and means.
fn entry(name: &str, graphs: &[Graph], classes: usize) -> Registry {
    let n = graphs.len();
    let nodes: usize = graphs.iter().map(Graph::num_nodes).sum();
    let edges: usize = graphs.iter().map(Graph::num_edges).sum();
    let mean = |t: usize| format!("{:.2}", t as f64 / n as f64);
    Registry::from_toml_str(&format!(
        "[[dataset]]\nname = '{name}'\ntask = 'graph-classification'\nlayout = 'tu'\n\
         description = 'x'\nupstream = [{{ url = 'https://h/{name}.zip', format = 'files' }}]\n\
         expect = {{ graphs = {n}, classes = {classes}, mean_nodes = '{}', mean_edges = '{}' }}\n\
         [[dataset.files]]\npath = '{name}_A.txt.gz'\n\
         [[dataset.files]]\npath = '{name}_graph_indicator.txt.gz'\n\
         [[dataset.files]]\npath = '{name}_graph_labels.txt'\n",
        mean(nodes),
        mean(edges)
    ))
    .unwrap()
}

/// Installs the generated archive of `name` and returns the loaded collection.
fn install(name: &str, classes: usize, per_class: usize) -> GraphDataset {
    let (gs, ys) = graphs(classes, per_class, 7);
    let up = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    std::fs::write(
        up.path().join(format!("{name}.zip")),
        tu_zip(name, &gs, &ys),
    )
    .unwrap();
    let reg = entry(name, &gs, classes);
    let spec = reg.get(name).unwrap();
    assert!(spec.checked_by_counts());
    UpstreamInstaller::new()
        .with_embedded(false)
        .with_base(Some(up.path().display().to_string()))
        .install(spec, data.path(), &mut Quiet)
        .unwrap();
    let Dataset::Graphs(ds) = spec.load(data.path()).unwrap() else {
        panic!("a graph collection")
    };
    assert_eq!(ds.len(), classes * per_class);
    ds
}

#[test]
fn social_collections_run_from_install_to_main_table_rows() -> Result<(), HomdpError> {
    let sizes = Sizes {
        reps: 1,
        ..Sizes::quick()
    };
    for (name, classes, per_class, metric, floor) in [
        ("REDDIT-MULTI-5K", 5, 16, "accuracy", 0.6),
        ("github_stargazers", 2, 30, "ROC-AUC", 0.8),
    ] {
        let ds = install(name, classes, per_class);
        let s = setting(name).expect("a setting of the paper");
        let index = settings().iter().position(|x| x.name == name).unwrap();
        let split = Split::of_dataset(&ds, 3)?;
        let labels = Labels::from_targets(ds.targets());
        let Labels::Class(y) = &labels else {
            panic!("class labels")
        };
        assert_eq!(
            y.iter().max(),
            Some(&(classes - 1)),
            "{name}: classes 0..{classes}"
        );
        let p = Prepared::subsample(
            ds.graphs().to_vec(),
            labels,
            split,
            usize::MAX,
            usize::MAX,
            3,
        );
        let t = main_table(&p, &s, index, &sizes, 42, None)?;
        // ρ = 0.01 under both bounds, then non-private; no noisy-test-row rows for them; last
        // the private-Δ row (no public bound for the social collections).
        let rhos: Vec<Rho> = t.rows.iter().map(|r| r.rho).collect();
        // Then the controls: |V(G)| alone, the densities without it (private, non-private).
        assert_eq!(
            &rhos[4..],
            [Rho::Public, Rho::Private(0.01), Rho::NonPrivate],
            "{name}"
        );
        let rhos = &rhos[..4];
        assert_eq!(
            rhos,
            [
                Rho::Private(0.01),
                Rho::Private(0.01),
                Rho::NonPrivate,
                Rho::Private(0.009)
            ],
            "{name}"
        );
        assert_eq!(t.rows[0].degree, "none");
        assert!(t.rows[3].degree.starts_with("private "), "{name}");
        assert!(
            t.rows[4..]
                .iter()
                .all(|r| r.paper_value.is_nan() && r.kind != RowKind::Embedding)
        );
        for r in &t.rows[..4] {
            assert_eq!((r.dataset.as_str(), r.metric.as_str()), (name, metric));
            assert_eq!(r.model, s.model.name());
            assert_eq!(r.graphs, Some(classes * per_class));
            assert!(r.paper_value.is_nan(), "{name}: the paper prints no figure");
            let Score::Value(v) = r.value else {
                panic!("{name}: a score, got {:?}", r.value)
            };
            assert!((0.0..=1.0).contains(&v), "{name}: {v}");
            assert!((0.0..=1.0).contains(&r.attack_top1));
        }
        assert!(t.rows[0].eps.is_some_and(|e| e.is_finite()));
        assert_eq!(
            t.rows[2].eps,
            Some(dp_core::params::EpsilonBound::UNBOUNDED)
        );
        // |V(G)| is appended (public): the classes differ in size, so the model separates
        // them even without private structure.
        let Score::Value(non_private) = t.rows[2].value else {
            unreachable!()
        };
        assert!(
            non_private >= floor,
            "{name}: non-private {metric} {non_private}"
        );
        if name == "REDDIT-MULTI-5K" {
            assert!(matches!(
                s.model,
                Downstream::PcaRandomForest { components: 5, .. }
            ));
        }
    }
    Ok(())
}
