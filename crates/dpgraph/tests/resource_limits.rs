//! Requests that cannot fit in memory end with a typed one-line error before allocating, never
//! with an abort or the OOM killer: tried as a user would, under a 3 GB address-space limit.

use std::process::Command;

/// `dpgraph ARGS` under `ulimit -v 3 GiB`.
fn dpgraph_limited(args: &[&str]) -> std::process::Output {
    let mut cmd = String::from("ulimit -v 3145728 && exec \"$0\"");
    for i in 1..=args.len() {
        cmd += &format!(" \"${i}\"");
    }
    Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .arg(env!("CARGO_BIN_EXE_dpgraph"))
        .args(args)
        .env("RAYON_NUM_THREADS", "2")
        .output()
        .expect("run dpgraph under ulimit")
}

/// `dpgraph edgerefine perturb --graph G --eps 0.1 --out OUT EXTRA…` under the limit.
fn perturb_limited(
    graph: &std::path::Path,
    out: &std::path::Path,
    extra: &[&str],
) -> std::process::Output {
    let mut args = vec![
        "edgerefine",
        "perturb",
        "--graph",
        graph.to_str().unwrap(),
        "--eps",
        "0.1",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    dpgraph_limited(&args)
}

#[test]
fn perturb_of_a_tiny_file_declaring_many_nodes_is_refused_before_allocating() {
    let d = tempfile::tempdir().unwrap();
    let g = d.path().join("g.txt");
    // 19 bytes declaring 100,000 nodes: at ε = 0.1 the release would hold ≈ 2.4·10⁹ edges.
    std::fs::write(&g, "# nodes 100000\n0 1\n").unwrap();
    assert_eq!(std::fs::metadata(&g).unwrap().len(), 19);
    let out_path = d.path().join("noisy.txt");
    let out = perturb_limited(&g, &out_path, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(stderr.contains("needs about"), "{stderr}");
    assert!(stderr.contains("100000 nodes"), "{stderr}");
    assert!(!out_path.exists());
}

#[test]
fn a_small_release_still_runs_under_the_same_limit() {
    let d = tempfile::tempdir().unwrap();
    let g = d.path().join("g.txt");
    std::fs::write(&g, "# nodes 2000\n0 1\n1 2\n").unwrap();
    let out_path = d.path().join("noisy.txt");
    let out = perturb_limited(&g, &out_path, &["--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out_path.exists());
}

#[test]
fn a_dense_report_of_600_million_noisy_edges_fits_in_the_same_limit() {
    // 50,000 nodes at ε = 0.1: ≈ 5.9·10⁸ noisy edges, which as an edge list would need ≈ 9.5 GB;
    // the report is drawn straight into its packed body (156 MB).
    let d = tempfile::tempdir().unwrap();
    let g = d.path().join("g.txt");
    std::fs::write(&g, "# nodes 50000\n0 1\n1 2\n").unwrap();
    let out_path = d.path().join("noisy.rr");
    let out = perturb_limited(&g, &out_path, &["--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (json["format"].as_str(), json["encoding"].as_str()),
        (Some("report"), Some("dense"))
    );
    let pairs = 50_000.0 * 49_999.0 / 2.0;
    let q = 1.0 / (1.0 + 0.1f64.exp());
    let m = json["noisy_edges"].as_f64().unwrap();
    assert!(
        (m - q * pairs).abs() < 5.0 * (pairs * q * (1.0 - q)).sqrt(),
        "{m}"
    );
    let len = std::fs::metadata(&out_path).unwrap().len();
    assert_eq!(len, 64 + 8 * (pairs as u64).div_ceil(64));
}
