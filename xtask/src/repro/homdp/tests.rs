//! Tests of `repro homdp`: partial reruns, typed rows, claims, selection.

use std::path::Path;

use ::homdp::paper::{self, CurveRow, MainRow, Q2Row, Score, settings};
use anyhow::{Context, Result};
use serde_json::{Value, json};

use super::claims::{cell, claims};
use super::{Kept, Only, Tables};
use crate::cli::ReproTable;
use crate::output::Table;
use crate::repro::{Ctx, Effort};

fn ctx(seed: u64, out: &Path) -> Ctx {
    Ctx {
        effort: Effort::Full,
        seed,
        out: out.to_path_buf(),
        reference: out.to_path_buf(),
        revision: "test".into(),
        select: Default::default(),
    }
}

/// A main-table row as written before the `test_rows` column existed.
#[derive(serde::Serialize, Default)]
struct OldRow {
    dataset: String,
    bound: String,
    value: f64,
}

#[test]
fn partial_reruns_keep_the_other_datasets_rows() -> Result<()> {
    let dir = tempfile::tempdir()?;
    // An earlier table without the `test_rows` column, as written before it existed.
    let row = |dataset: &str, bound: &str, value| OldRow {
        dataset: dataset.into(),
        bound: bound.into(),
        value,
    };
    let mut old = Table::from_rows(
        "T",
        &[
            row("HIV", "paper", 0.7),
            row("SBM", "paper", 0.9),
            row("SBM", "-", 1.0),
        ],
    )?;
    old.meta = ctx(42, dir.path()).meta();
    old.notes = vec![
        "SBM: per repetition, 0.9 / 0.9.".into(),
        "HIV: per repetition, 0.7.".into(),
        "SBM: some general note.".into(),
    ];
    old.write(dir.path(), "main")?;
    let columns: Vec<String> = ["dataset", "bound", "test_rows", "value"]
        .iter()
        .map(|c| (*c).to_owned())
        .collect();
    let only = Only(Some(vec!["hiv".into()]));
    let fill = |c: &str| (c == "test_rows").then(|| json!("clean"));
    let kept = Kept::load(
        &ctx(42, dir.path()),
        &dir.path().join("main"),
        &columns,
        &only,
        &settings(),
        &fill,
    )?;
    assert!(kept.rows_of("HIV").is_empty());
    assert_eq!(
        kept.rows_of("SBM"),
        vec![
            vec![json!("SBM"), json!("paper"), json!("clean"), json!(0.9)],
            vec![json!("SBM"), json!("-"), json!("clean"), json!(1.0)],
        ]
    );
    assert_eq!(
        kept.notes,
        vec!["SBM: per repetition, 0.9 / 0.9.".to_owned()]
    );
    assert!(
        kept.note().contains("rows of SBM are kept"),
        "{}",
        kept.note()
    );
    // Another seed: nothing is kept, and the note says why.
    let other = Kept::load(
        &ctx(7, dir.path()),
        &dir.path().join("main"),
        &columns,
        &only,
        &settings(),
        &fill,
    )?;
    assert!(other.rows.is_empty() && other.note().contains("not kept"));
    // No earlier table.
    let none = Kept::load(
        &ctx(42, dir.path()),
        &dir.path().join("curve"),
        &columns,
        &only,
        &settings(),
        &fill,
    )?;
    assert!(none.rows.is_empty() && none.note().contains("No earlier curve.json"));
    Ok(())
}

#[test]
fn typed_rows_keep_the_tables_columns_and_cells() -> Result<()> {
    let columns = |t: Table| t.columns;
    assert_eq!(
        columns(Table::typed::<MainRow>("T")?),
        [
            "dataset",
            "kind",
            "model",
            "metric",
            "bound",
            "degree",
            "test_rows",
            "rho",
            "eps",
            "value",
            "std",
            "accuracy",
            "attack_top1",
            "attack_top10",
            "paper_value",
            "paper_attack_top1",
            "paper_attack_top10",
            "clipped",
            "graphs",
            "rr",
            "dprr",
            "paper_rr",
            "paper_dprr",
            "stop_epochs",
            "best_epochs",
            "epoch_cap",
        ]
    );
    assert_eq!(
        columns(Table::typed::<paper::Q1Row>("T")?),
        [
            "patterns",
            "bound",
            "rho",
            "eps",
            "accuracy",
            "std",
            "attack_top1"
        ]
    );
    assert_eq!(
        columns(Table::typed::<Q2Row>("T")?),
        [
            "treewidth",
            "patterns",
            "mean_edges",
            "bound",
            "test_rows",
            "rho",
            "eps",
            "roc_auc",
            "std",
            "attack_top1",
            "graphs",
            "seconds",
            "count_seconds",
        ]
    );
    assert_eq!(
        columns(Table::typed::<CurveRow>("T")?),
        [
            "dataset",
            "metric",
            "bound",
            "rho",
            "eps",
            "value",
            "std",
            "attack_top1",
            "attack_top10",
        ]
    );
    // The cells of a dataset that is not installed, as the positional rows wrote them.
    let sbm = paper::setting("SBM").context("SBM")?;
    let t = Table::from_rows("T", &[MainRow::not_installed(&sbm)])?;
    let null = Value::Null;
    assert_eq!(
        t.rows[0],
        [
            json!("SBM"),
            json!("embedding"),
            json!(sbm.model.name()),
            json!("accuracy"),
            json!("-"),
            json!("-"),
            json!("-"),
            json!("-"),
            null.clone(),
            json!("not installed"),
            null.clone(),
            null.clone(),
            null.clone(),
            null.clone(),
            json!(0.86),
            null.clone(),
            null.clone(),
            null.clone(),
            null.clone(),
            json!("not installed"),
            json!("not installed"),
            null.clone(),
            null.clone(),
            json!("-"),
            json!("-"),
            null,
        ]
    );
    // Numbers keep their JSON type: ρ a float, `inf` a word, counts integers.
    let row = Q2Row {
        treewidth: 2,
        rho: ::homdp::paper::Rho::NonPrivate,
        graphs: 7,
        ..Q2Row::default()
    };
    let t = Table::from_rows("T", &[row])?;
    assert_eq!((&t.rows[0][0], &t.rows[0][5]), (&json!(2), &json!("inf")));
    assert_eq!(t.rows[0][10], json!(7));
    let row = CurveRow {
        rho: ::homdp::paper::Rho::Private(0.01),
        value: Score::Value(f64::NAN),
        ..CurveRow::default()
    };
    let t = Table::from_rows("T", &[row])?;
    assert_eq!((&t.rows[0][3], &t.rows[0][5]), (&json!(0.01), &Value::Null));
    Ok(())
}

#[test]
fn claims_set_each_claim_beside_its_control() -> Result<()> {
    let dir = tempfile::tempdir()?;
    let row = |dataset: &str, kind: &str, bound: &str, rho: Value, value: f64| {
        json!({"dataset": dataset, "kind": kind, "metric": "ROC-AUC", "bound": bound,
               "test_rows": "clean", "rho": rho, "value": value, "paper_value": 0.652,
               "attack_top10": if bound == "-" { 0.99 } else { 0.02 }})
    };
    let main = json!({"rows": [
        row("BACE", "embedding", "components", json!(0.01), 0.37),
        row("BACE", "embedding", "-", json!("inf"), 0.75),
        row("BACE", "nodes-only", "-", json!("public"), 0.77),
        row("HIV", "embedding", "components", json!(0.01), 0.716),
        row("HIV", "nodes-only", "-", json!("public"), 0.60),
    ]});
    std::fs::write(dir.path().join("main.json"), main.to_string())?;
    claims(&ctx(42, dir.path()), dir.path())?;
    let t: Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("claims.json"))?)?;
    let verdicts: Vec<(String, String)> = t["rows"]
        .as_array()
        .context("rows")?
        .iter()
        .map(|r| (cell(r, "dataset"), cell(r, "verdict")))
        .collect();
    assert_eq!(
        verdicts,
        [
            (
                "HIV".to_owned(),
                "holds: the densities beat #V(G) alone".to_owned()
            ),
            (
                "BACE".to_owned(),
                "overturned: #V(G) alone does better".to_owned()
            ),
            (
                "BACE".to_owned(),
                "holds: under a tenth of the non-private rate".to_owned()
            ),
        ]
    );
    Ok(())
}

#[test]
fn table_and_dataset_selection() -> Result<()> {
    let select = |tables: Vec<ReproTable>| super::super::Select {
        tables,
        ..Default::default()
    };
    let all = Tables::new(&select(vec![]));
    assert!(all.main && all.q1 && all.q2 && all.curve);
    let some = Tables::new(&select(vec![ReproTable::Main, ReproTable::Q2]));
    assert!(some.main && !some.q1 && some.q2 && !some.curve);
    // Another experiment's tables only: none of homdp's.
    let other = Tables::new(&select(vec![ReproTable::Rae]));
    assert!(!(other.main || other.q1 || other.q2 || other.curve || other.theory));
    let only = Only::new(&["bbbp".into(), " BACE".into()], &["BBBP", "BACE", "HIV"]);
    assert!(only.wants("BBBP") && only.wants("bace") && !only.wants("HIV"));
    assert!(Only::new(&[], &["HIV"]).wants("HIV"));
    // Another experiment's dataset selects none of homdp's.
    let cora = Only::new(&["cora".into()], &["HIV"]);
    assert!(!cora.wants("HIV"));
    Ok(())
}
