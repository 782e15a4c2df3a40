//! `dpgraph fed simulate` end to end on a generated AML graph is slow in debug; these check the
//! argument validation and the one-line errors, which need no training.

use std::process::Command;

fn dpgraph(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_dpgraph"))
        .args(args)
        .env("DPGRAPH_DATA", std::env::temp_dir().join("dpgraph-no-data"))
        // Upstream downloads read from an empty folder, so a first-use install fails here
        // instead of reaching the network.
        .env(
            "DPGRAPH_UPSTREAM",
            std::env::temp_dir().join("dpgraph-no-upstream"),
        )
        .env_remove("DPGRAPH_MIRROR")
        .output()
        .expect("run dpgraph")
}

#[test]
fn fed_simulate_rejects_bad_input_with_one_line() {
    for args in [
        vec![
            "fed",
            "simulate",
            "--dataset",
            "no-such-dataset",
            "--clients",
            "4",
            "--rounds",
            "2",
            "--local-steps",
            "2",
            "--sigma0",
            "1",
        ],
        vec![
            "fed",
            "simulate",
            "--dataset",
            "acm",
            "--clients",
            "4",
            "--rounds",
            "2",
            "--local-steps",
            "2",
            "--sigma0",
            "1",
        ],
    ] {
        let out = dpgraph(&args);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn fed_simulate_rejects_bad_values_of_the_training_switches() {
    let base = [
        "fed",
        "simulate",
        "--dataset",
        "aml-generated",
        "--generate-accounts",
        "200",
        "--rounds",
        "1",
        "--local-steps",
        "1",
    ];
    for (flag, value, named) in [
        ("--halo-average", "0", "halo_average"),
        ("--halo-average", "1.5", "halo_average"),
        ("--grad-clip", "NaN", "grad_clip"),
        ("--dropout", "1.5", "dropout"),
        ("--hidden", "0", "hidden"),
    ] {
        let args: Vec<&str> = base.iter().copied().chain([flag, value]).collect();
        let out = dpgraph(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(named), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn fed_partition_writes_one_readable_folder_per_bank() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("orgs");
    let partition = |out: &std::path::Path| {
        dpgraph(&[
            "--seed",
            "4",
            "--json",
            "fed",
            "partition",
            "--dataset",
            "aml-generated",
            "--generate-accounts",
            "300",
            "--banks",
            "3",
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let run = partition(&out);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(report["seed"], 4);
    let clients = report["clients"].as_array().unwrap();
    assert_eq!(clients.len(), 3);
    let mut nodes = 0;
    for (i, c) in clients.iter().enumerate() {
        let org = cefedgnn::deploy::OrgData::read(&out.join(format!("org-{i}"))).unwrap();
        assert_eq!(org.manifest.client, i as u32);
        assert_eq!(org.nodes.len() as u64, c["nodes"].as_u64().unwrap());
        assert_eq!(
            org.topology().unwrap().halo().len() as u64,
            c["halo"].as_u64().unwrap()
        );
        // Transactions carry their features; every edge has an own end.
        let ef = org.edge_features.as_ref().unwrap();
        assert_eq!(ef.nrows(), org.edges.len());
        assert!(
            org.edges
                .iter()
                .all(|&(u, v)| org.nodes.binary_search(&u).is_ok()
                    || org.nodes.binary_search(&v).is_ok())
        );
        nodes += org.nodes.len();
    }
    assert_eq!(nodes, 300);
    // The same seed writes the same files.
    let again = dir.path().join("again");
    let run2 = partition(&again);
    assert!(run2.status.success());
    for f in ["org.json", "nodes.csv", "edges.csv"] {
        assert_eq!(
            std::fs::read(out.join("org-1").join(f)).unwrap(),
            std::fs::read(again.join("org-1").join(f)).unwrap()
        );
    }
    // An unknown dataset is one line on stderr and exit status 1.
    let bad = dpgraph(&[
        "fed",
        "partition",
        "--dataset",
        "nope",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(bad.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&bad.stderr).lines().count(), 1);
}

/// An AMLworld-format transaction file of a generated graph: 400 accounts in 5 banks (those
/// with transactions are in the file).
fn amlworld_file(dir: &std::path::Path) -> std::path::PathBuf {
    use rand::SeedableRng;
    let cfg = cefedgnn::aml::AmlGenConfig {
        num_banks: 5,
        num_accounts: 400,
        num_normal: 4000,
        ..cefedgnn::aml::AmlGenConfig::default()
    };
    let g = cefedgnn::aml::generate(&cfg, &mut rand_chacha::ChaCha8Rng::seed_from_u64(7)).unwrap();
    let path = dir.join("Bank_Trans.csv");
    cefedgnn::aml::write_amlworld_trans(&g, &path).unwrap();
    path
}

#[test]
fn an_amlworld_file_given_by_path_groups_its_banks_and_splits_by_time() {
    let dir = tempfile::tempdir().unwrap();
    let csv = amlworld_file(dir.path());
    let tg = cefedgnn::aml::load_amlworld_trans(&csv).unwrap();
    let accounts = tg.accounts().len();
    assert!(accounts > 300, "{accounts}");
    let out = dir.path().join("orgs");
    let run = dpgraph(&[
        "--seed",
        "1",
        "--json",
        "fed",
        "partition",
        "--aml-file",
        csv.to_str().unwrap(),
        "--clients",
        "2",
        "--split",
        "time",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(report["dataset"], "Bank_Trans.csv");
    let clients = report["clients"].as_array().unwrap();
    assert_eq!(clients.len(), 2, "5 banks grouped into 2 clients");
    let nodes: u64 = clients.iter().map(|c| c["nodes"].as_u64().unwrap()).sum();
    assert_eq!(nodes as usize, accounts);
    // The same accounts through the library: the time split puts the earliest accounts in
    // training and the latest in test.
    let ag = tg.to_account_graph().unwrap();
    let order = ag.time_order().unwrap();
    let split = graph_core::NodeSplit::ordered(&order, 0.6, 0.2).unwrap();
    let last_train = order.iter().rev().find(|&&i| split.train[i]).unwrap();
    let first_test = order.iter().find(|&&i| split.test[i]).unwrap();
    assert!(ag.first_seen[*last_train] <= ag.first_seen[*first_test]);

    // A training run on the file: one line of JSON with the two clients' scores.
    let sim = dpgraph(&[
        "--seed",
        "1",
        "--json",
        "fed",
        "simulate",
        "--aml-file",
        csv.to_str().unwrap(),
        "--clients",
        "2",
        "--split",
        "time",
        "--rounds",
        "1",
        "--local-steps",
        "2",
    ]);
    assert!(
        sim.status.success(),
        "{}",
        String::from_utf8_lossy(&sim.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&sim.stdout).unwrap();
    assert_eq!(r["dataset"], "Bank_Trans.csv");
    assert_eq!(r["f1_per_client"].as_array().unwrap().len(), 2, "{r}");
    assert!(r["not_covered"].as_str().unwrap().contains("NOT covered"));

    // Hostile input: a truncated file, a time split of a citation graph, more clients than
    // banks: one line each, exit status 1.
    let bad = dir.path().join("bad.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    // Cut inside a record (before one of its commas): that record lacks fields.
    let cut = text[..text.len() / 2].rfind(',').unwrap();
    std::fs::write(&bad, &text[..cut]).unwrap();
    for args in [
        vec!["fed", "partition", "--aml-file", bad.to_str().unwrap()],
        vec!["fed", "partition", "--dataset", "cora", "--split", "time"],
        vec![
            "fed",
            "partition",
            "--aml-file",
            csv.to_str().unwrap(),
            "--clients",
            "9",
        ],
    ] {
        let mut a = args.clone();
        a.extend(["--out", out.to_str().unwrap()]);
        let r = dpgraph(&a);
        assert_eq!(r.status.code(), Some(1), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&r.stderr).lines().count(),
            1,
            "{args:?}: {}",
            String::from_utf8_lossy(&r.stderr)
        );
    }
}
