//! `dpgraph account …`: JSON keys of shared/design/CLI.md, values against the dp_accounting oracle,
//! and one-line errors with a non-zero exit status.

use std::process::{Command, Output};

fn dpgraph(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dpgraph"))
        .args(args)
        .output()
        .expect("run dpgraph")
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = dpgraph(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        stdout.trim().lines().count(),
        1,
        "one JSON object: {stdout}"
    );
    serde_json::from_str(&stdout).unwrap()
}

fn f(v: &serde_json::Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("missing `{key}` in {v}"))
}

#[test]
fn zcdp_keys_and_values() {
    let v = json(&[
        "account", "zcdp", "--rho", "0.03125", "--delta", "1e-3", "--json",
    ]);
    assert!((f(&v, "eps_cks") - 0.6880024554878085).abs() < 1e-12);
    assert!(f(&v, "eps_cks") >= 0.6880024554878085);
    assert!((f(&v, "eps") - (0.03125 + 2.0 * (0.03125 * 1e3f64.ln()).sqrt())).abs() < 1e-12);
    assert_eq!(f(&v, "delta"), 1e-3);
}

#[test]
fn tcdp_keys_and_values() {
    let v = json(&[
        "--json", "account", "tcdp", "--rho", "0.01", "--omega", "1.5", "--delta", "1e-5",
    ]);
    assert!((f(&v, "eps") - 23.040850929940458).abs() < 1e-12 * 23.04);
    assert_eq!(f(&v, "delta"), 1e-5);
}

#[test]
fn rdp_gaussian_keys_and_values() {
    let v = json(&[
        "account",
        "rdp-gaussian",
        "--noise-multiplier",
        "2",
        "--steps",
        "50",
        "--delta",
        "1e-5",
        "--json",
    ]);
    assert!((f(&v, "eps") - 22.019852327713252).abs() < 1e-9 * 22.02);
    assert_eq!(f(&v, "order"), 2.3);
    assert_eq!(f(&v, "delta"), 1e-5);
}

#[test]
fn metric_gaussian_keys_and_values() {
    // σ = 4 at radius 2 is noise multiplier 2: the same 50 releases as above.
    let v = json(&[
        "account",
        "metric-gaussian",
        "--sigma",
        "4",
        "--radius",
        "2",
        "--releases",
        "50",
        "--delta",
        "1e-5",
        "--json",
    ]);
    assert!((f(&v, "eps") - 22.019852327713252).abs() < 1e-9 * 22.02);
    assert_eq!(f(&v, "order"), 2.3);
    // Closed form through zCDP ρ = 50·4/32 = 6.25: ρ + 2√(ρ ln 1e5).
    assert!((f(&v, "eps_closed_form") - 23.21535106103778).abs() < 1e-12 * 23.2);
    assert_eq!(f(&v, "delta"), 1e-5);
}

#[test]
fn text_output_by_default() {
    let out = dpgraph(&["account", "zcdp", "--rho", "0.5", "--delta", "1e-5"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.lines().any(|l| l.starts_with("eps_cks: ")), "{text}");
}

#[test]
fn bad_input_is_one_line_and_non_zero() {
    for args in [
        &["account", "zcdp", "--rho", "-1", "--delta", "1e-5"][..],
        &["account", "zcdp", "--rho", "NaN", "--delta", "1e-5"][..],
        &[
            "account", "tcdp", "--rho", "0.1", "--omega", "1", "--delta", "1e-5",
        ][..],
        &[
            "account",
            "rdp-gaussian",
            "--noise-multiplier",
            "1",
            "--steps",
            "1",
            "--delta",
            "1",
        ][..],
    ] {
        let out = dpgraph(args);
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(out.stdout.is_empty());
    }
}
