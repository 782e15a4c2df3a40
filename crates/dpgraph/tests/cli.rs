//! End-to-end tests of the `dpgraph` binary: output formats, errors and exit codes.

use std::process::Command;

/// Runs the CLI with its own data directory and no dataset mirror from the caller's
/// environment (a mirror would install what these tests expect to be refused).
fn dpgraph(args: &[&str], data: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_dpgraph"))
        .args(args)
        .env("DPGRAPH_DATA", data)
        .env_remove("DPGRAPH_MIRROR")
        .output()
        .expect("run dpgraph")
}

#[test]
fn graph_stats_text_and_json() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("g.txt");
    std::fs::write(&p, "# nodes 5\n0 1\n1 2\n3 4\n").unwrap();
    let out = dpgraph(
        &["graph", "stats", "--graph", p.to_str().unwrap(), "--json"],
        d.path(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["nodes"], 5);
    assert_eq!(v["edges"], 3);
    assert_eq!(v["max_degree"], 2);
    assert_eq!(v["components"], 2);
    assert!((v["density"].as_f64().unwrap() - 0.3).abs() < 1e-12);

    let out = dpgraph(
        &["graph", "stats", "--graph", p.to_str().unwrap()],
        d.path(),
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("edges: 3"));

    let js = d.path().join("g.json");
    std::fs::write(
        &js,
        r#"{"graphs": [{"n": 3, "edges": [[0,1]]}, {"n": 2, "edges": [[0,1]]}]}"#,
    )
    .unwrap();
    let out = dpgraph(
        &["graph", "stats", "--graph", js.to_str().unwrap(), "--json"],
        d.path(),
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (
            v["graphs"].as_u64(),
            v["nodes"].as_u64(),
            v["components"].as_u64()
        ),
        (Some(2), Some(5), Some(3))
    );
}

#[test]
fn errors_are_one_line_and_non_zero() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("bad.txt");
    std::fs::write(&p, "# nodes 3\n0 1\n2 2\n").unwrap();
    let out = dpgraph(
        &["graph", "stats", "--graph", p.to_str().unwrap()],
        d.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("bad.txt:3: self-loop on node 2"), "{err}");
    assert!(out.stdout.is_empty());

    let out = dpgraph(&["datasets", "info", "no-such-dataset"], d.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown dataset `no-such-dataset`"));

    // Not installed and not installable here (upstream read from an empty folder): one line.
    let empty = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_dpgraph"))
        .args(["datasets", "info", "ACM"])
        .env("DPGRAPH_DATA", d.path())
        .env("DPGRAPH_UPSTREAM", empty.path())
        .env_remove("DPGRAPH_MIRROR")
        .output()
        .expect("run dpgraph");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("dataset `acm` is not installed") && err.contains("could not be installed"),
        "{err}"
    );
    assert!(!d.path().join("acm").exists());

    // Neither or both sources: clap usage error (exit 2).
    let out = dpgraph(&["graph", "stats"], d.path());
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn datasets_list_and_info_on_an_installed_dataset() {
    let d = tempfile::tempdir().unwrap();
    let out = dpgraph(&["datasets", "list", "--json"], d.path());
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let list = v["datasets"].as_array().unwrap();
    assert_eq!(list.len(), 21);
    let pubmed = list.iter().find(|r| r["name"] == "pubmed").unwrap();
    assert_eq!(pubmed["verified_by"], "counts");
    // pubmed, msacademic, and the TU collections checked by their published means.
    let by_counts: Vec<&str> = list
        .iter()
        .filter(|r| r["verified_by"] == "counts")
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        by_counts,
        [
            "pubmed",
            "msacademic",
            "REDDIT-MULTI-5K",
            "github_stargazers"
        ]
    );
    let cora = list.iter().find(|r| r["name"] == "cora").unwrap();
    assert_eq!(
        (cora["installed"].as_bool(), cora["nodes"].as_u64()),
        (Some(false), Some(2708))
    );

    // A command naming a dataset installs it on first use (MUTAG: the embedded copy), then
    // uses the installed copy.
    {
        let out = dpgraph(&["datasets", "info", "mutag", "--json"], d.path());
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("MUTAG: installed") && err.contains("first use"),
            "{err}"
        );
        assert!(d.path().join("MUTAG").is_dir());
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            (
                v["graphs"].as_u64(),
                v["nodes"].as_u64(),
                v["edges"].as_u64(),
                v["classes"].as_u64()
            ),
            (Some(188), Some(3371), Some(3721), Some(2))
        );
        let out = dpgraph(
            &["graph", "stats", "--dataset", "MUTAG", "--json"],
            d.path(),
        );
        assert!(out.stderr.is_empty(), "installed already: nothing to say");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["graphs"], 188);
    }
}

#[test]
fn edgerefine_perturb_then_refine() {
    let d = tempfile::tempdir().unwrap();
    let g = d.path().join("g.txt");
    let mut text = String::from("# nodes 120\n");
    for i in 0..119 {
        text += &format!("{i} {}\n", i + 1);
    }
    std::fs::write(&g, text).unwrap();
    let noisy = d.path().join("noisy.txt.gz");
    let run = |args: &[&str]| dpgraph(args, d.path());
    let out = run(&[
        "edgerefine",
        "perturb",
        "--graph",
        g.to_str().unwrap(),
        "--eps",
        "2",
        "--out",
        noisy.to_str().unwrap(),
        "--seed",
        "3",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["nodes"].as_u64(), v["seed"].as_u64()),
        (Some(120), Some(3))
    );
    let first = v["noisy_edges"].as_u64().unwrap();
    // Same seed, same noisy graph.
    let out = run(&[
        "edgerefine",
        "perturb",
        "--graph",
        g.to_str().unwrap(),
        "--eps",
        "2",
        "--out",
        noisy.to_str().unwrap(),
        "--seed",
        "3",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["noisy_edges"].as_u64(), Some(first));

    let rel = d.path().join("release.txt");
    let out = run(&[
        "edgerefine",
        "refine",
        "--noisy",
        noisy.to_str().unwrap(),
        "--eps",
        "2",
        "--k",
        "0.5",
        "--true-edges",
        "119",
        "--out",
        rel.to_str().unwrap(),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["released_edges"].as_u64(), Some(59));
    assert_eq!(
        v["k_real"].as_u64().unwrap() + v["k_fake"].as_u64().unwrap(),
        59
    );
    assert!(v["bin_edges"].as_array().unwrap().len() >= 2);
    assert_eq!(
        graph_core::io::read_edge_list(&rel).unwrap().num_edges(),
        59
    );

    // Bad input: nothing written.
    let none = d.path().join("none.txt");
    let (noisy, g, none_s) = (
        noisy.to_str().unwrap(),
        g.to_str().unwrap(),
        none.to_str().unwrap(),
    );
    let refine = |eps: &'static str, k: &'static str, extra: &[&'static str]| {
        let mut a = vec![
            "edgerefine",
            "refine",
            "--noisy",
            noisy,
            "--eps",
            eps,
            "--k",
            k,
            "--true-edges",
            "119",
            "--out",
            none_s,
        ];
        a.extend_from_slice(extra);
        a
    };
    let perturb = |eps: &'static str| {
        vec![
            "edgerefine",
            "perturb",
            "--graph",
            g,
            "--eps",
            eps,
            "--out",
            none_s,
        ]
    };
    // A bad ε is refused by the parser, as `Epsilon` (usage status 2); the rest by the
    // command (status 1). One line either way, and nothing written.
    for (args, code) in [
        (refine("2", "1.5", &[]), 1),
        (refine("0", "0.5", &[]), 2),
        (refine("2", "0.5", &["--bins", "1"]), 1),
        (refine("2", "0.5", &["--nodes", "100"]), 1),
        (perturb("-1"), 2),
        (perturb("NaN"), 2),
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(code), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        if code == 2 {
            assert!(err.contains("--eps") && err.contains("eps"), "{err}");
        }
        assert!(!none.exists());
    }
}

#[test]
fn datasets_install_embedded_upstream_and_manual() {
    let d = tempfile::tempdir().unwrap();
    // The embedded copy, with no network.
    let out = dpgraph(
        &["datasets", "install", "cora", "--offline", "--json"],
        d.path(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["datasets"][0]["status"], "installed", "{v}");
    let out = dpgraph(&["datasets", "info", "cora", "--json"], d.path());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["nodes"].as_u64(), v["edges"].as_u64()),
        (Some(2708), Some(5278))
    );
    let out = dpgraph(&["datasets", "install", "cora"], d.path());
    assert!(String::from_utf8_lossy(&out.stdout).contains("cora: already installed and verified"));

    // No plain download: the manual steps, exit 1, nothing installed.
    let out = dpgraph(&["datasets", "install", "amlworld-sample"], d.path());
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("amlworld-sample: skipped: no plain download") && text.contains("Kaggle"),
        "{text}"
    );
    // Offline and not embedded: skipped, exit 1.
    let out = dpgraph(&["datasets", "install", "acm", "--offline"], d.path());
    assert_eq!(out.status.code(), Some(1));
    // Every source failing: one line per source, then one error line, exit 1.
    let empty = tempfile::tempdir().unwrap();
    let out = dpgraph(
        &[
            "datasets",
            "install",
            "NCI1",
            "--upstream",
            empty.path().to_str().unwrap(),
        ],
        d.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.lines().filter(|l| l.contains("NCI1: source")).count(),
        2,
        "{err}"
    );
    assert!(
        err.lines()
            .last()
            .unwrap()
            .starts_with("error: 1 of 1 datasets failed"),
        "{err}"
    );
    assert!(!d.path().join("NCI1").exists());

    // The real upstream archive beside the project, when present (CI has it).
    let up = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/upstream");
    if up.join("EdgeRefine-datasets.zip").is_file() {
        let out = dpgraph(
            &[
                "datasets",
                "install",
                "dblp",
                "--upstream",
                up.to_str().unwrap(),
            ],
            d.path(),
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = dpgraph(&["datasets", "list", "--json"], d.path());
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let dblp = v["datasets"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == "dblp")
            .unwrap()
            .clone();
        assert_eq!(
            (dblp["installed"].as_bool(), dblp["source"].as_str()),
            (Some(true), Some("upstream"))
        );
    }
}

#[test]
fn citeseer_installs_from_the_planetoid_files_and_refuses_a_hostile_pickle() {
    let planetoid =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/upstream/planetoid");
    if !planetoid.join("ind.citeseer.graph").is_file() {
        assert!(
            std::env::var("DPGRAPH_REQUIRE_DATA").as_deref() != Ok("1"),
            "DPGRAPH_REQUIRE_DATA=1 but {} is missing",
            planetoid.display()
        );
        eprintln!("skipping: {} not found", planetoid.display());
        return;
    }
    let install = |data: &std::path::Path, upstream: &std::path::Path| {
        Command::new(env!("CARGO_BIN_EXE_dpgraph"))
            .args(["datasets", "install", "citeseer", "--upstream"])
            .arg(upstream)
            .env("DPGRAPH_DATA", data)
            .env_remove("DPGRAPH_MIRROR")
            .output()
            .expect("run dpgraph")
    };
    let d = tempfile::tempdir().unwrap();
    let out = install(d.path(), &planetoid);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("checksums verified"));
    // The same files with a graph pickle that names os.system: one line, exit 1, nothing placed.
    let evil = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(&planetoid).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, evil.path().join(p.file_name().unwrap())).unwrap();
    }
    std::fs::write(
        evil.path().join("ind.citeseer.graph"),
        b"\x80\x02cposix\nsystem\nU\x02idR.",
    )
    .unwrap();
    let d2 = tempfile::tempdir().unwrap();
    let out = install(d2.path(), evil.path());
    assert_eq!(out.status.code(), Some(1));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("global posix.system is not allowed"),
        "{text}"
    );
    assert!(!d2.path().join("citeseer").exists());
}
