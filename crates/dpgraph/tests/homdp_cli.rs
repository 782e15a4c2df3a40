//! `dpgraph homdp …` end to end: exact counts, densities, the guarantee, the embedding file.

use std::process::Command;

fn dpgraph(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_dpgraph"))
        .args(args)
        .output()
        .expect("run dpgraph")
}

#[test]
fn count_density_account_embed() {
    let d = tempfile::tempdir().unwrap();
    let pats = d.path().join("p.json");
    let graphs = d.path().join("g.json");
    // P3 and K2+K1; graphs K3 and P5.
    std::fs::write(
        &pats,
        r#"{"patterns": [{"n": 3, "edges": [[0,1],[1,2]]}, {"n": 3, "edges": [[0,1]]}]}"#,
    )
    .unwrap();
    std::fs::write(&graphs, r#"{"graphs": [{"n": 3, "edges": [[0,1],[1,2],[0,2]]}, {"n": 5, "edges": [[0,1],[1,2],[2,3],[3,4]]}]}"#).unwrap();
    let (p, g) = (pats.to_str().unwrap(), graphs.to_str().unwrap());

    let out = dpgraph(&["homdp", "count", "--patterns", p, "--graphs", g, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // hom(P3, K3) = 12, hom(K2+K1, K3) = 6·3 = 18; hom(P3, P5) = Σ deg² = 14, hom(K2+K1, P5) = 40.
    assert_eq!(v["counts"], serde_json::json!([["12", "18"], ["14", "40"]]));

    let out = dpgraph(&["homdp", "density", "--patterns", p, "--graphs", g, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!((v["densities"][1][1].as_f64().unwrap() - 8.0 / 25.0).abs() < 1e-12);

    let out = dpgraph(&[
        "homdp",
        "account",
        "--rho",
        "0.01",
        "--patterns",
        "50",
        "--delta",
        "1e-6",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        (v["eps"].as_f64().unwrap() - 1.0929242831).abs() < 1e-9,
        "{v}"
    );

    let npy = d.path().join("emb.npy");
    let out = dpgraph(&[
        "homdp",
        "embed",
        "--graphs",
        g,
        "--rho",
        "0.01",
        "--delta",
        "1e-6",
        "--num-patterns",
        "4",
        "--out",
        npy.to_str().unwrap(),
        "--seed",
        "7",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["seed"], 7);
    let arr = graph_core::io::read_npy(&npy).unwrap();
    assert_eq!(arr.shape, vec![2, 4]);

    let out = dpgraph(&[
        "homdp",
        "account",
        "--rho",
        "0",
        "--patterns",
        "50",
        "--delta",
        "1e-6",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
}
