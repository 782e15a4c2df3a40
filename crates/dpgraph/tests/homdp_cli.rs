//! `dpgraph homdp …` end to end: exact counts, densities, the guarantee, the embedding file.

use std::process::Command;

fn dpgraph(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_dpgraph"))
        .args(args)
        .output()
        .expect("run dpgraph")
}

/// `homdp embed` of graph set `graphs` at ρ = 0.01, δ = 1e-6 with 4 patterns into `out`, JSON.
fn embed_args<'a>(graphs: &'a str, out: &'a str) -> Vec<&'a str> {
    vec![
        "homdp",
        "embed",
        "--graphs",
        graphs,
        "--rho",
        "0.01",
        "--delta",
        "1e-6",
        "--num-patterns",
        "4",
        "--out",
        out,
        "--json",
    ]
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
    let out = dpgraph(&[&embed_args(g, npy.to_str().unwrap())[..], &["--seed", "7"]].concat());
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

#[test]
fn embed_with_a_private_degree_bound() {
    let d = tempfile::tempdir().unwrap();
    let graphs = d.path().join("g.json");
    // 40 paths on 8 nodes (max degree 2) and one star (degree 7).
    let path = r#"{"n": 8, "edges": [[0,1],[1,2],[2,3],[3,4],[4,5],[5,6],[6,7]]}"#;
    let star = r#"{"n": 8, "edges": [[0,1],[0,2],[0,3],[0,4],[0,5],[0,6],[0,7]]}"#;
    let mut all = vec![path; 40];
    all.push(star);
    std::fs::write(&graphs, format!(r#"{{"graphs": [{}]}}"#, all.join(","))).unwrap();
    let g = graphs.to_str().unwrap();
    let npy = d.path().join("emb.npy");
    let base = embed_args(g, npy.to_str().unwrap());
    let run = |extra: &[&str]| dpgraph(&[&base[..], &["--seed", "3"], extra].concat());
    let out = run(&["--private-degree-rho", "0.5"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let bound = v["private_degree"]["bound"].as_u64().unwrap();
    assert!((1..=7).contains(&bound), "{v}");
    assert_eq!(v["degree_rho"].as_f64().unwrap(), 0.5);
    assert_eq!(
        !v["clipped"].as_array().unwrap().is_empty(),
        bound < 7,
        "{v}"
    );
    let plain = run(&[]);
    let p: serde_json::Value = serde_json::from_slice(&plain.stdout).unwrap();
    assert!(v["eps"].as_f64().unwrap() > p["eps"].as_f64().unwrap());
    assert!(p["private_degree"].is_null());
    // A public bound and a private estimate exclude each other; a bad budget is one line.
    for bad in [
        &["--private-degree-rho", "0.5", "--max-degree", "3"][..],
        &["--private-degree-rho", "-1"][..],
        &["--private-degree-rho", "0.5", "--degree-quantile", "1.5"][..],
        &["--degree-quantile", "0.5"][..],
    ] {
        let out = run(bad);
        assert!(!out.status.success(), "{bad:?}");
        assert!(!out.stderr.is_empty(), "{bad:?}");
    }
}
