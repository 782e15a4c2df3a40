//! End-to-end tests of `dpgraph edgerefine`: the binary report format, detection by magic bytes,
//! and the edge count estimated from the report or supplied.

use std::path::Path;
use std::process::{Command, Output};

fn dpgraph(args: &[&str], data: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dpgraph"))
        .args(args)
        .env("DPGRAPH_DATA", data)
        .output()
        .expect("run dpgraph")
}

fn ok_json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A ring plus chords on 150 nodes.
fn graph(d: &Path) -> std::path::PathBuf {
    let g = d.join("g.txt");
    let mut text = String::from("# nodes 150\n");
    for i in 0..150 {
        text += &format!("{i} {}\n", (i + 1) % 150);
        if i % 3 == 0 {
            text += &format!("{i} {}\n", (i + 7) % 150);
        }
    }
    std::fs::write(&g, text).unwrap();
    g
}

#[test]
fn binary_report_round_trips_and_refines_like_the_text_one() {
    let d = tempfile::tempdir().unwrap();
    let g = graph(d.path());
    let (rr, txt) = (d.path().join("noisy.rr"), d.path().join("noisy.txt"));
    let perturb = |out: &Path| {
        ok_json(&dpgraph(
            &[
                "edgerefine",
                "perturb",
                "--graph",
                s(&g),
                "--eps",
                "2",
                "--out",
                s(out),
                "--seed",
                "4",
                "--json",
            ],
            d.path(),
        ))
    };
    let a = perturb(&rr);
    let b = perturb(&txt);
    assert_eq!(a["noisy_edges"], b["noisy_edges"]);
    assert_eq!(
        (a["format"].as_str(), a["encoding"].as_str()),
        (Some("report"), Some("dense"))
    );
    assert_eq!(b["format"], "edge list");
    assert_eq!(&std::fs::read(&rr).unwrap()[..8], b"\x89DPGRR\r\n");
    // The binary report is smaller than the text one.
    assert!(std::fs::metadata(&rr).unwrap().len() < std::fs::metadata(&txt).unwrap().len());
    // Detected by content: a report under a `.txt` name is still read as a report.
    let disguised = d.path().join("report.txt");
    std::fs::copy(&rr, &disguised).unwrap();

    let mut releases = Vec::new();
    for (noisy, eps) in [(&rr, None), (&disguised, Some("2")), (&txt, Some("2"))] {
        let out = d.path().join(format!("rel{}.txt", releases.len()));
        let mut args = vec!["edgerefine", "refine", "--noisy", s(noisy), "--k", "0.5"];
        if let Some(e) = eps {
            args.extend(["--eps", e]);
        }
        args.extend([
            "--true-edges",
            "200",
            "--out",
            s(&out),
            "--json",
            "--seed",
            "1",
        ]);
        let v = ok_json(&dpgraph(&args, d.path()));
        assert_eq!(v["edges_used"], 200);
        assert_eq!(v["edge_count_source"], "supplied");
        assert!(v["edge_estimate"].is_null());
        assert_eq!(v["released_edges"], 100);
        releases.push(std::fs::read(&out).unwrap());
    }
    assert_eq!(releases[0], releases[1]);
    assert_eq!(releases[0], releases[2]);
}

#[test]
fn without_true_edges_the_count_is_estimated_and_said_so() {
    let d = tempfile::tempdir().unwrap();
    let g = graph(d.path());
    let rr = d.path().join("noisy.rr");
    let v = ok_json(&dpgraph(
        &[
            "edgerefine",
            "perturb",
            "--graph",
            s(&g),
            "--eps",
            "3",
            "--out",
            s(&rr),
            "--seed",
            "2",
            "--json",
        ],
        d.path(),
    ));
    let m = v["noisy_edges"].as_u64().unwrap();
    let rel = d.path().join("rel.txt");
    let args = [
        "edgerefine",
        "refine",
        "--noisy",
        s(&rr),
        "--k",
        "1",
        "--out",
        s(&rel),
    ];
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let v = ok_json(&dpgraph(&json_args, d.path()));
    let est = edgerefine::estimate_edges(150, "3".parse().unwrap(), m).unwrap();
    assert_eq!(v["edges_used"].as_u64(), Some(est.edges));
    assert_eq!(v["edge_estimate"]["edges"].as_u64(), Some(est.edges));
    assert!((v["edge_estimate"]["std_error"].as_f64().unwrap() - est.std_error).abs() < 1e-9);
    assert_eq!(v["edge_count_source"], "estimated");
    // The true E = 200 lies within 4 standard errors of the estimate.
    assert!(
        (est.estimate - 200.0).abs() < 4.0 * est.std_error,
        "{est:?}"
    );
    // Text output says it too.
    let out = dpgraph(&args, d.path());
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("edge_count_source: estimated\n") && text.contains("std_error"),
        "{text}"
    );
}

#[test]
fn corrupt_reports_and_missing_eps_are_one_line_errors() {
    let d = tempfile::tempdir().unwrap();
    let g = graph(d.path());
    let rr = d.path().join("noisy.rr");
    ok_json(&dpgraph(
        &[
            "edgerefine",
            "perturb",
            "--graph",
            s(&g),
            "--eps",
            "1",
            "--out",
            s(&rr),
            "--seed",
            "2",
            "--json",
        ],
        d.path(),
    ));
    let bytes = std::fs::read(&rr).unwrap();
    let truncated = d.path().join("truncated.rr");
    std::fs::write(&truncated, &bytes[..bytes.len() - 5]).unwrap();
    let flipped = d.path().join("flipped.rr");
    let mut bad = bytes.clone();
    bad[100] ^= 0x41;
    std::fs::write(&flipped, &bad).unwrap();
    let text = d.path().join("g2.txt");
    std::fs::copy(&g, &text).unwrap();
    let none = d.path().join("none.txt");
    for (noisy, eps, needle) in [
        (&truncated, None, "at byte"),
        (&flipped, None, "at byte"),
        (&rr, Some("2"), "differs from the ε"),
        (&text, None, "--eps is required"),
    ] {
        let mut args = vec![
            "edgerefine",
            "refine",
            "--noisy",
            s(noisy),
            "--k",
            "0.5",
            "--out",
            s(&none),
        ];
        if let Some(e) = eps {
            args.extend(["--eps", e]);
        }
        let out = dpgraph(&args, d.path());
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(needle), "{err}");
        assert!(!none.exists());
    }
}

#[test]
fn an_artifact_calibration_refines_on_its_own_path_and_excludes_the_tie_break() {
    let d = tempfile::tempdir().unwrap();
    let g = graph(d.path());
    let noisy = d.path().join("noisy.rr");
    let perturb = [
        "edgerefine",
        "perturb",
        "--graph",
        s(&g),
        "--eps",
        "2",
        "--out",
        s(&noisy),
        "--seed",
        "4",
        "--json",
    ];
    ok_json(&dpgraph(&perturb, d.path()));
    let out = d.path().join("rel.txt");
    let refine = |extra: &[&str]| {
        let mut a = vec![
            "edgerefine",
            "refine",
            "--noisy",
            s(&noisy),
            "--k",
            "0.5",
            "--true-edges",
            "200",
            "--out",
            s(&out),
            "--seed",
            "1",
            "--json",
        ];
        a.extend_from_slice(extra);
        dpgraph(&a, d.path())
    };
    let v = ok_json(&refine(&["--calibration", "jaccard-isotonic"]));
    assert_eq!(v["calibration"], "jaccard-isotonic");
    assert_eq!(v["k_target"], 100);
    assert_eq!(
        v["released_edges"].as_u64().unwrap(),
        v["k_real"].as_u64().unwrap() + v["k_fake"].as_u64().unwrap()
    );
    assert!(
        v["fitted"].as_str().unwrap().contains("isotonic blocks"),
        "{v}"
    );
    // The paper's calibration on the artifact's path equals our server with the authors'
    // tie-break.
    ok_json(&refine(&["--calibration", "jaccard-histogram"]));
    let artifact = std::fs::read_to_string(&out).unwrap();
    ok_json(&refine(&["--tie-break", "reference"]));
    assert_eq!(artifact, std::fs::read_to_string(&out).unwrap());
    // Both at once, or an unknown name: one clear error.
    for bad in [
        &["--calibration", "jaccard-beta", "--tie-break", "reference"][..],
        &["--calibration", "platt"][..],
    ] {
        let o = refine(bad);
        assert!(!o.status.success());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("--calibration") || err.contains("--tie-break"),
            "{err}"
        );
    }
}
