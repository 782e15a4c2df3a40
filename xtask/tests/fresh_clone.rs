//! A fresh clone with an empty data directory and no network: `repro` installs the embedded Cora
//! and MUTAG on first use, runs the gnn table on them, compares it with the committed reference,
//! and never touches `results/`.

use std::process::Command;

fn xtask(args: &[&str], data: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .env("DPGRAPH_DATA", data)
        .env_remove("DPGRAPH_MIRROR")
        .env("DPGRAPH_UPSTREAM", data.join("no-network"))
        .output()
        .expect("run xtask")
}

#[test]
fn offline_repro_gnn_runs_on_the_embedded_cora_and_compares() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    // The quick reference: made on a fresh clone with no data, as this run is.
    let reference = root.join("results/quick/gnn/accuracy.json");
    let before = std::fs::read(&reference).unwrap();
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    let o = xtask(
        &[
            "repro",
            "gnn",
            "--quick",
            "--offline",
            "--check",
            "--out",
            out.to_str().unwrap(),
        ],
        &d.path().join("data"),
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        stdout.contains("cora: installed 3 files from datasets/embedded/cora.tar.gz"),
        "{stdout}"
    );
    let table: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("gnn/accuracy.json")).unwrap()).unwrap();
    let cora: Vec<_> = table["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["dataset"] == "cora")
        .collect();
    assert_eq!(cora.len(), 4, "GCN, GAT, GIN, MLP rows on Cora: {table}");
    assert!(
        stdout.contains("0 differ") && stdout.contains("0 reference rows missing"),
        "{stdout}"
    );
    // The comparison: same effort and seed as the committed quick reference, so checked.
    let cmp: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("comparison.json")).unwrap()).unwrap();
    let entries: Vec<_> = cmp["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| {
            e["table"] == "gnn/accuracy" && e["key"].as_str().unwrap().contains("dataset=cora")
        })
        .collect();
    assert_eq!(entries.len(), 4, "{cmp}");
    assert!(entries.iter().all(|e| e["verdict"] == "agree"), "{cmp}");
    assert_eq!(
        std::fs::read(&reference).unwrap(),
        before,
        "results/ was rewritten"
    );
}

#[test]
fn repro_refuses_to_overwrite_the_reference() {
    let d = tempfile::tempdir().unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../results");
    let o = xtask(
        &["repro", "foundation", "--out", root.to_str().unwrap()],
        d.path(),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--update-reference"));
    let o = xtask(&["repro", "--help"], d.path());
    let help = String::from_utf8_lossy(&o.stdout);
    for flag in [
        "--offline",
        "--check",
        "--upstream",
        "--reference",
        "--update-reference",
        "--only",
        "--tables",
        "--resume",
        "--budget-min",
        "--shard",
        "DPGRAPH_DATA",
    ] {
        assert!(help.contains(flag), "{flag} missing from repro --help");
    }
    // One flag set: the old per-experiment flags are hidden aliases, not listed.
    for old in ["--parts", "--fed-tables", "--fed-settings"] {
        assert!(!help.contains(old), "{old} listed in repro --help");
    }
    // Unknown flags, experiments and values are errors naming them.
    for (args, named) in [
        (&["repro", "--fast"][..], "--fast"),
        (&["repro", "homdpp"][..], "homdpp"),
        (&["repro", "homdp", "--tables", "main,plots"][..], "plots"),
        (
            &["repro", "cefedgnn", "--fed-tables", "methods,ksweep"][..],
            "ksweep",
        ),
        (&["repro", "edgerefine", "--parts", "cora,mars"][..], "mars"),
        (&["repro", "homdp", "--only", "BBBP,zinc"][..], "zinc"),
        (
            &["repro", "homdp", "edgerefine", "--only", "cora,hiv,mars"][..],
            "mars",
        ),
        (&["datasets", "frobnicate"][..], "frobnicate"),
    ] {
        let o = xtask(args, d.path());
        assert_ne!(o.status.code(), Some(0), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(named), "{args:?}: {err}");
    }
    let o = xtask(&["--help"], d.path());
    let help = String::from_utf8_lossy(&o.stdout);
    for cmd in ["datasets", "repro", "tidy", "bench", "ci"] {
        assert!(help.contains(cmd), "{cmd} missing from cargo xtask --help");
    }
}
