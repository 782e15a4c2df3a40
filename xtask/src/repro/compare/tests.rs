//! Tests of the comparison with the reference: keys, tolerances, efforts, missing rows.

use super::*;

fn table(effort: &str, rows: Value) -> Value {
    json!({ "meta": { "effort": effort, "seed": 42 }, "rows": rows })
}

/// The comparison of `run`'s rows, run at full effort, with `reference`.
fn as_full_effort(run: &Value, reference: &Value) -> Comparison {
    let mut c = Comparison::default();
    compare_table(
        "gnn/accuracy",
        &table("full", run["rows"].clone()),
        reference,
        &mut c,
    );
    c
}

#[test]
fn rows_match_on_keys_and_tolerance_uses_the_std() {
    let reference = table(
        "quick",
        json!([
            { "dataset": "cora", "model": "gcn", "mean": 0.88, "std": 0.02, "required": ">= 0.865" },
            { "dataset": "cora", "model": "gat", "mean": 0.87, "std": 0.001 },
        ]),
    );
    let run = table(
        "quick",
        json!([
            { "dataset": "cora", "model": "gcn", "mean": 0.85, "std": 0.01, "required": ">= 0.865" },
            { "dataset": "cora", "model": "gat", "mean": 0.80, "std": 0.001 },
            { "dataset": "acm", "model": "gat", "mean": 0.9, "std": 0.0 },
        ]),
    );
    let mut c = Comparison::default();
    compare_table("gnn/accuracy", &run, &reference, &mut c);
    assert_eq!(c.tables[0].matched, 2);
    assert_eq!(c.entries.len(), 2);
    // |0.85 - 0.88| = 0.03 <= 2 x 0.02: agree; the paper's requirement is carried.
    assert_eq!(c.entries[0].verdict, Verdict::Agree);
    assert_eq!(c.entries[0].paper.as_deref(), Some(">= 0.865"));
    // |0.80 - 0.87| = 0.07 > max(0.02, 0.002): differ.
    assert_eq!(c.entries[1].verdict, Verdict::Differ);
    assert_eq!(c.differing().count(), 1);
    // Another effort: shown, never checked.
    let c = as_full_effort(&run, &reference);
    assert!(
        c.entries
            .iter()
            .all(|e| e.verdict == Verdict::Informational)
    );
    assert!(
        c.markdown(Path::new("results"))
            .contains("| gnn/accuracy | 3 / 2 / 2 / 0 | 0 | 0 | 2 |")
    );
}

#[test]
fn a_reference_row_the_run_lacks_is_missing_only_when_checked() {
    let reference = table(
        "quick",
        json!([
            { "dataset": "cora", "model": "gcn", "mean": 0.88, "std": 0.02 },
            { "dataset": "cora", "model": "gat", "mean": 0.87, "std": 0.01 },
        ]),
    );
    let run = table(
        "quick",
        json!([{ "dataset": "cora", "model": "gcn", "mean": 0.88, "std": 0.02 }]),
    );
    let mut c = Comparison::default();
    compare_table("gnn/accuracy", &run, &reference, &mut c);
    assert_eq!((c.tables[0].matched, c.tables[0].missing), (1, 1));
    assert_eq!(c.missing_rows(), 1);
    assert_eq!(c.differing().count(), 0);
    // Another effort is not checked, so nothing is missing.
    assert_eq!(as_full_effort(&run, &reference).missing_rows(), 0);
}

#[test]
fn rows_of_absent_data_and_the_installed_column_never_count_as_missing() {
    let reference = table(
        "quick",
        json!([
            { "dataset": "cora", "installed": "no", "mean": 0.8, "std": 0.0 },
            { "dataset": "hiv", "metric": "roc_auc", "value": "not installed" },
        ]),
    );
    let run = table(
        "quick",
        json!([
            { "dataset": "cora", "installed": "yes", "mean": 0.8, "std": 0.0 },
            { "dataset": "hiv", "metric": "roc_auc", "value": "0.71" },
        ]),
    );
    let mut c = Comparison::default();
    compare_table("t", &run, &reference, &mut c);
    assert_eq!(c.missing_rows(), 0);
    // Keyed by dataset alone (`installed` is state): both rows match.
    assert_eq!(c.tables[0].matched, 2);
}

#[test]
fn numeric_parameters_are_keys() {
    let rows = json!([{ "method": "RR", "eps": 1.0, "acc_mean": 0.5 }, { "method": "RR", "eps": 2.0, "acc_mean": 0.6 }]);
    let keys = key_columns(rows.as_array().unwrap());
    assert_eq!(keys, ["eps", "method"]);
}
