//! `dpgraph fed simulate` end to end on a generated AML graph is slow in debug; these check the
//! argument validation and the one-line errors, which need no training.

use std::process::Command;

fn dpgraph(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_dpgraph"))
        .args(args)
        .env("DPGRAPH_DATA", std::env::temp_dir().join("dpgraph-no-data"))
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
            "citeseer",
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
            "cora",
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
