//! The end of every `repro` run: each table's numbers beside the committed reference results
//! (`results/`) and the paper's values where the table carries them, with which agree within
//! the stated tolerance. Written as `<out>/comparison.{md,json}`; `--check` fails the run when a
//! number that should agree does not.
//!
//! A number *should agree* when the run and the reference used the same effort and seed (the
//! experiments are seeded end to end); across efforts the comparison is shown but not checked.
//! Rows are matched on their key columns: every column whose reference values are text, plus
//! the parameter columns in [`KEY_NUMBERS`].

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{Value, json};

/// Numeric columns that identify a row rather than measure it.
const KEY_NUMBERS: &[&str] = &["eps", "rho", "K", "sigma0", "treewidth", "parts", "k"];

/// Measured columns compared, each with the column holding its spread over seeds.
const METRICS: &[(&str, Option<&str>)] = &[
    ("mean", Some("std")),
    ("acc_mean", Some("acc_std")),
    ("value", Some("std")),
    ("accuracy", Some("std")),
    ("roc_auc", Some("std")),
    ("f1_mean", None),
    ("pubi", None),
];

/// Text columns that describe a row's state on the machine, not which row it is (`installed`:
/// yes/no by the data directory), so never part of the key.
const STATE_COLUMNS: &[&str] = &["installed", "runs", "seeds"];

/// Whether a reference row records that its data was absent (a `not installed` cell): a run on
/// a machine that has the data replaces it with measured rows, so it is never missing.
fn documents_absence(row: &Value) -> bool {
    row.as_object().is_some_and(|m| {
        m.values()
            .any(|v| v.as_str().is_some_and(|s| s.contains("not installed")))
    })
}

/// Columns holding the paper's value for a row.
const PAPER: &[&str] = &["paper_value", "required", "published"];

/// The note of a table the run wrote that the reference lacks.
pub(crate) const NO_REFERENCE: &str = "no committed reference";

/// Absolute tolerance floor; the tolerance is max(this, 2 × the larger seed std of the two).
pub(crate) const TOL_FLOOR: f64 = 0.02;

/// How one number compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Verdict {
    /// Within the tolerance, and the settings match: checked.
    Agree,
    /// Outside the tolerance with matching settings: `--check` fails.
    Differ,
    /// Shown for information: the run's effort or seed differs from the reference's.
    Informational,
}

/// One compared number.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct Entry {
    pub(crate) table: String,
    pub(crate) key: String,
    pub(crate) column: String,
    pub(crate) run: f64,
    pub(crate) reference: f64,
    pub(crate) tolerance: f64,
    pub(crate) paper: Option<String>,
    pub(crate) verdict: Verdict,
}

/// A table's comparison summary.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub(crate) struct TableSummary {
    pub(crate) table: String,
    pub(crate) note: String,
    pub(crate) rows_run: usize,
    pub(crate) rows_reference: usize,
    pub(crate) matched: usize,
    /// Reference rows the run did not produce, counted where the settings match (a checked
    /// table): `--check` fails on them, since a row that vanished is not an agreement.
    pub(crate) missing: usize,
}

/// Everything compared in a run.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub(crate) struct Comparison {
    pub(crate) tables: Vec<TableSummary>,
    pub(crate) entries: Vec<Entry>,
}

fn num(v: &Value) -> Option<f64> {
    v.as_f64()
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "-".into(),
        other => other.to_string(),
    }
}

fn load(path: &Path) -> Result<Option<Value>> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(Some(
            serde_json::from_str(&t).with_context(|| format!("parsing {}", path.display()))?,
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

/// The key columns of a table, from its reference rows.
fn key_columns(rows: &[Value]) -> Vec<String> {
    let Some(first) = rows.first().and_then(Value::as_object) else {
        return vec![];
    };
    first
        .keys()
        .filter(|k| {
            KEY_NUMBERS.contains(&k.as_str())
                || rows
                    .iter()
                    .all(|r| matches!(r.get(k.as_str()), Some(Value::String(_))))
        })
        .filter(|k| !PAPER.contains(&k.as_str()) && !STATE_COLUMNS.contains(&k.as_str()))
        .cloned()
        .collect()
}

fn row_key(row: &Value, keys: &[String]) -> String {
    keys.iter()
        .map(|k| format!("{k}={}", text(row.get(k.as_str()).unwrap_or(&Value::Null))))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Compares one table of the run with its reference.
pub(crate) fn compare_table(name: &str, run: &Value, reference: &Value, out: &mut Comparison) {
    let rrows = reference["rows"].as_array().cloned().unwrap_or_default();
    let nrows = run["rows"].as_array().cloned().unwrap_or_default();
    let same = ["effort", "seed"]
        .iter()
        .all(|k| run["meta"][k] == reference["meta"][k]);
    let keys = key_columns(&rrows);
    let by_key: BTreeMap<String, &Value> = rrows.iter().map(|r| (row_key(r, &keys), r)).collect();
    let mut summary = TableSummary {
        table: name.to_owned(),
        rows_run: nrows.len(),
        rows_reference: rrows.len(),
        note: if same {
            "same effort and seed: checked".into()
        } else {
            format!(
                "run effort {} seed {} vs reference effort {} seed {}: shown, not checked",
                text(&run["meta"]["effort"]),
                text(&run["meta"]["seed"]),
                text(&reference["meta"]["effort"]),
                text(&reference["meta"]["seed"])
            )
        },
        matched: 0,
        missing: 0,
    };
    if same {
        let run_keys: std::collections::BTreeSet<String> =
            nrows.iter().map(|r| row_key(r, &keys)).collect();
        summary.missing = by_key
            .iter()
            .filter(|(k, r)| !run_keys.contains(*k) && !documents_absence(r))
            .count();
    }
    for row in &nrows {
        let key = row_key(row, &keys);
        let Some(refrow) = by_key.get(&key) else {
            continue;
        };
        summary.matched += 1;
        for (col, std_col) in METRICS {
            let (Some(a), Some(b)) = (row.get(*col).and_then(num), refrow.get(*col).and_then(num))
            else {
                continue;
            };
            let spread = std_col
                .map(|s| {
                    let x = row.get(s).and_then(num).unwrap_or(0.0);
                    let y = refrow.get(s).and_then(num).unwrap_or(0.0);
                    x.max(y)
                })
                .unwrap_or(0.0);
            let tolerance = TOL_FLOOR.max(2.0 * spread);
            let paper = PAPER
                .iter()
                .find_map(|p| row.get(*p).filter(|v| !v.is_null()).map(text));
            let verdict = if !same {
                Verdict::Informational
            } else if (a - b).abs() <= tolerance {
                Verdict::Agree
            } else {
                Verdict::Differ
            };
            out.entries.push(Entry {
                table: name.to_owned(),
                key: key.clone(),
                column: (*col).to_owned(),
                run: a,
                reference: b,
                tolerance,
                paper,
                verdict,
            });
        }
    }
    out.tables.push(summary);
}

/// Compares every table the run wrote under `out/<experiment>/` with `reference/<experiment>/`.
///
/// # Errors
/// Unreadable or malformed JSON.
pub(crate) fn compare_runs(
    out: &Path,
    reference: &Path,
    experiments: &[String],
) -> Result<Comparison> {
    let mut cmp = Comparison::default();
    for exp in experiments {
        let dir = out.join(exp);
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files: Vec<_> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        for f in files {
            let stem = f
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default()
                .to_owned();
            let Some(run) = load(&f)? else { continue };
            let name = format!("{exp}/{stem}");
            match load(&reference.join(exp).join(format!("{stem}.json")))? {
                Some(r) => compare_table(&name, &run, &r, &mut cmp),
                None => cmp.tables.push(TableSummary {
                    table: name,
                    note: NO_REFERENCE.into(),
                    rows_run: run["rows"].as_array().map_or(0, Vec::len),
                    ..TableSummary::default()
                }),
            }
        }
    }
    Ok(cmp)
}

impl Comparison {
    /// Reference rows that a checked table of the run lacks.
    pub(crate) fn missing_rows(&self) -> usize {
        self.tables.iter().map(|t| t.missing).sum()
    }

    /// Entries that should agree and do not.
    pub(crate) fn differing(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(|e| e.verdict == Verdict::Differ)
    }

    fn count(&self, table: &str, v: Verdict) -> usize {
        self.entries
            .iter()
            .filter(|e| e.table == table && e.verdict == v)
            .count()
    }

    /// A Markdown report: one summary line per table, then every compared number.
    pub(crate) fn markdown(&self, reference: &Path) -> String {
        let mut s = format!(
            "# This run against the committed reference ({}) and the papers\n\n\
             Tolerance per number: max({TOL_FLOOR}, 2 × the larger seed std of run and reference). \
             Numbers are checked only where the run used the reference's effort and seed.\n\n\
             | table | rows (run / reference / matched / missing) | agree | differ | shown only | note |\n|---|---|---|---|---|---|\n",
            reference.display()
        );
        for t in &self.tables {
            s.push_str(&format!(
                "| {} | {} / {} / {} / {} | {} | {} | {} | {} |\n",
                t.table,
                t.rows_run,
                t.rows_reference,
                t.matched,
                t.missing,
                self.count(&t.table, Verdict::Agree),
                self.count(&t.table, Verdict::Differ),
                self.count(&t.table, Verdict::Informational),
                t.note
            ));
        }
        s.push_str("\n| table | row | column | run | reference | paper | tolerance | verdict |\n|---|---|---|---|---|---|---|---|\n");
        for e in &self.entries {
            s.push_str(&format!(
                "| {} | {} | {} | {:.4} | {:.4} | {} | {:.3} | {:?} |\n",
                e.table,
                e.key,
                e.column,
                e.run,
                e.reference,
                e.paper.as_deref().unwrap_or("-"),
                e.tolerance,
                e.verdict
            ));
        }
        s
    }

    /// The JSON form of [`Comparison::markdown`].
    pub(crate) fn json(&self) -> Value {
        json!({ "tolerance_floor": TOL_FLOOR, "tables": self.tables, "entries": self.entries })
    }
}

#[cfg(test)]
mod tests;
