//! The privacy boundary of every command that releases noise: without `--seed` two runs on the same
//! input release different noise and nothing a run prints reproduces it; with `--seed` the run is
//! reproducible and says that it is therefore not private.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn dpgraph(args: &[&str], data: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dpgraph"))
        .args(args)
        .env("DPGRAPH_DATA", data)
        .env_remove("DPGRAPH_MIRROR")
        .output()
        .expect("run dpgraph")
}

fn ok_json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// The `"noise"` record says private and carries no seed; `seed` is null.
fn assert_private(v: &Value) {
    assert_eq!(v["seed"], Value::Null, "{v}");
    assert_eq!(v["noise"]["source"], "os-csprng", "{v}");
    assert_eq!(v["noise"]["private"], true, "{v}");
    assert_eq!(v["noise"]["reproducible"], false, "{v}");
    assert_eq!(v["noise"]["seed"], Value::Null, "{v}");
}

/// The `"noise"` record says reproducible and not private, with the seed.
fn assert_reproducible(v: &Value, seed: u64) {
    assert_eq!(v["noise"]["source"], "seeded", "{v}");
    assert_eq!(v["noise"]["private"], false, "{v}");
    assert_eq!(v["noise"]["reproducible"], true, "{v}");
    assert_eq!(v["noise"]["seed"], seed, "{v}");
    assert!(
        v["noise"]["note"]
            .as_str()
            .is_some_and(|n| n.contains("NOT private")),
        "{v}"
    );
}

/// Every unsigned integer anywhere in `v` (candidate seeds a reader could try).
fn integers(v: &Value, out: &mut Vec<u64>) {
    match v {
        Value::Number(n) => out.extend(n.as_u64()),
        Value::Array(a) => a.iter().for_each(|x| integers(x, out)),
        Value::Object(m) => m.values().for_each(|x| integers(x, out)),
        _ => {}
    }
}

#[test]
fn fed_simulate_without_seed_draws_noise_no_printed_value_reproduces() {
    let d = tempfile::tempdir().unwrap();
    let data = d.path().join("data");
    ok_json(&dpgraph(
        &["datasets", "install", "cora", "--offline", "--json"],
        &data,
    ));
    let run = |seed: Option<u64>| {
        let s = seed.map(|s| s.to_string());
        let mut args = vec![
            "fed",
            "simulate",
            "--dataset",
            "cora",
            "--clients",
            "3",
            "--rounds",
            "1",
            "--local-steps",
            "1",
            "--json",
        ];
        if let Some(s) = &s {
            args.extend(["--seed", s.as_str()]);
        }
        ok_json(&dpgraph(&args, &data))
    };
    let (a, b) = (run(None), run(None));
    assert_private(&a);
    assert_private(&b);
    let digest = |v: &Value| v["wire_digest"].as_str().expect("a digest").to_owned();
    assert_ne!(
        digest(&a),
        digest(&b),
        "two unseeded runs released the same rows"
    );
    // The training seed is printed (a separate stream); seeding a run with it, or with any other
    // integer the output prints, does not give the released rows back.
    let training = a["training_seed"].as_u64().expect("training seed");
    let mut candidates = Vec::new();
    integers(&a, &mut candidates);
    assert!(candidates.contains(&training));
    candidates.sort_unstable();
    candidates.dedup();
    for &c in candidates.iter().filter(|&&c| c == training || c < 4) {
        let r = run(Some(c));
        assert_reproducible(&r, c);
        assert_ne!(digest(&r), digest(&a), "--seed {c} reproduced the release");
    }
    // With --seed the release is reproducible, and says so.
    let (s1, s2) = (run(Some(training)), run(Some(training)));
    assert_eq!(digest(&s1), digest(&s2));
    assert_eq!(s1["training_seed"], training);
}

/// A ring with chords on 80 nodes.
/// Runs `args --out DIR/out --json [--seed S]` in `dir`; the JSON printed and the file written.
fn released(dir: &Path, args: &[&str], out: &str, seed: Option<&str>) -> (Value, Vec<u8>) {
    let out = dir.join(out);
    let mut all = args.to_vec();
    all.extend(["--out", out.to_str().unwrap(), "--json"]);
    all.extend(seed.map(|s| ["--seed", s]).into_iter().flatten());
    let v = ok_json(&dpgraph(&all, dir));
    (v, std::fs::read(out).unwrap())
}

fn write_graph(path: &Path) {
    let mut text = String::from("# nodes 80\n");
    for i in 0..80 {
        text += &format!("{i} {}\n", (i + 1) % 80);
        if i % 4 == 0 {
            text += &format!("{i} {}\n", (i + 9) % 80);
        }
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn edgerefine_perturb_without_seed_draws_fresh_noise() {
    let d = tempfile::tempdir().unwrap();
    let g = d.path().join("g.txt");
    write_graph(&g);
    let args = [
        "edgerefine",
        "perturb",
        "--graph",
        g.to_str().unwrap(),
        "--eps",
        "1",
    ];
    let perturb = |out: &str, seed: Option<&str>| released(d.path(), &args, out, seed);
    let (a, fa) = perturb("a.txt", None);
    let (b, fb) = perturb("b.txt", None);
    assert_private(&a);
    assert_private(&b);
    assert_ne!(fa, fb, "two unseeded releases are identical");
    let mut ints = Vec::new();
    integers(&a, &mut ints);
    for c in ints {
        let (_, fc) = perturb("c.txt", Some(&c.to_string()));
        assert_ne!(fc, fa, "--seed {c} reproduced the release");
    }
    let (s1, f1) = perturb("s1.txt", Some("5"));
    let (_, f2) = perturb("s2.txt", Some("5"));
    assert_reproducible(&s1, 5);
    assert_eq!(f1, f2);
}

#[test]
fn homdp_embed_without_seed_draws_fresh_noise() {
    let d = tempfile::tempdir().unwrap();
    let graphs = d.path().join("g.json");
    std::fs::write(
        &graphs,
        r#"{"graphs": [{"n": 4, "edges": [[0,1],[1,2],[2,3]]}, {"n": 5, "edges": [[0,1],[1,2],[2,3],[3,4],[4,0]]}]}"#,
    )
    .unwrap();
    let args = [
        "homdp",
        "embed",
        "--graphs",
        graphs.to_str().unwrap(),
        "--num-patterns",
        "4",
        "--rho",
        "0.5",
        "--delta",
        "1e-6",
        "--max-degree",
        "4",
    ];
    let embed = |out: &str, seed: Option<&str>| released(d.path(), &args, out, seed);
    let (a, ea) = embed("a.npy", None);
    let (_, eb) = embed("b.npy", None);
    assert_private(&a);
    assert_ne!(ea, eb, "two unseeded embeddings are identical");
    let (s1, e1) = embed("s1.npy", Some("9"));
    let (_, e2) = embed("s2.npy", Some("9"));
    assert_reproducible(&s1, 9);
    assert_eq!(e1, e2);
}
