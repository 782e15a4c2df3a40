//! `repro cefedgnn` on the one [`Runner`](crate::repro::runner::Runner): a cell is one
//! setting's rows of one table, cached under `cefedgnn/cache/<setting>/<stem>.json` with the
//! revision that computed them. `--resume` takes a cell of the same revision, effort and seed;
//! `--shard` and `--budget-min` leave whole settings to other processes or later runs. A table
//! is its cells in the plan's order: this run's, the resumed ones, and for the settings this
//! run leaves alone (not in `--only`, another shard's, over the budget) the cells an earlier
//! run left in `--out`, whose revision the note names.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::output::Table;
use crate::repro::Ctx;
use crate::repro::runner::Cell;

/// One setting's rows of one table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct SettingRows {
    /// The table, setting, effort, seed and revision that made it.
    pub(super) fingerprint: String,
    /// The git revision that computed the rows.
    pub(super) revision: String,
    /// The table's columns when the rows were computed.
    pub(super) columns: Vec<String>,
    pub(super) rows: Vec<Vec<Value>>,
    /// Runs of the setting left out of the means because training diverged (methods table).
    #[serde(default)]
    pub(super) diverged: Vec<String>,
    /// Methods of the setting whose F1 agree to four decimals in every seed (methods table).
    #[serde(default)]
    pub(super) identical: Vec<String>,
}

impl Cell for SettingRows {
    const PRETTY: bool = false;

    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }
}

/// A setting's label as a directory name: ASCII letters and digits lower-cased, anything else
/// `-`.
pub(super) fn slug(setting: &str) -> String {
    setting
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

/// Where the cell of `setting`'s rows of table `stem` is cached, relative to `--out`.
pub(super) fn rel(setting: &str, stem: &str) -> PathBuf {
    PathBuf::from("cefedgnn/cache")
        .join(slug(setting))
        .join(format!("{stem}.json"))
}

/// The plan a cell of `setting`'s rows of `stem` is made under: the code (its revision), the
/// effort and the seed of the split, partition and generated graphs.
pub(super) fn fingerprint(ctx: &Ctx, setting: &str, stem: &str) -> String {
    format!("{}{}", plan_key(ctx, setting, stem), ctx.revision)
}

/// The fingerprint up to the revision: an earlier run's cell of another revision is kept for
/// the settings this run does not compute only where it matches (same effort and seed).
pub(super) fn plan_key(ctx: &Ctx, setting: &str, stem: &str) -> String {
    format!(
        "cefedgnn {stem} of {setting}: {:?}, seed {}, revision ",
        ctx.effort, ctx.seed
    )
}

/// A cell held for a table, and whether this run computed it.
#[derive(Debug, Clone)]
pub(super) struct Held {
    pub(super) cell: SettingRows,
    pub(super) fresh: bool,
}

/// Fills `table` (its columns, no rows) with the cells in the plan's order (`(label, cell)`);
/// rows of a cell made under other columns are laid out by column name (a column it lacked is
/// empty). `meta.setting_revisions` says which revision computed each setting's rows, and a
/// note which settings' rows this run did not compute.
pub(super) fn fill(table: &mut Table, cells: &[(&str, Option<&Held>)]) {
    let mut revisions = serde_json::Map::new();
    let mut kept = Vec::new();
    let mut other_columns = false;
    for (label, held) in cells {
        let Some(h) = held else { continue };
        let c = &h.cell;
        if c.columns == table.columns {
            table.rows.extend(c.rows.iter().cloned());
        } else {
            other_columns = true;
            for r in &c.rows {
                let row = table
                    .columns
                    .iter()
                    .map(|col| {
                        c.columns
                            .iter()
                            .position(|x| x == col)
                            .and_then(|i| r.get(i).cloned())
                            .unwrap_or(Value::Null)
                    })
                    .collect();
                table.rows.push(row);
            }
        }
        revisions.insert((*label).to_owned(), c.revision.clone().into());
        if !h.fresh {
            kept.push(format!("{label} ({})", c.revision));
        }
    }
    if !kept.is_empty() {
        table.notes.push(format!(
            "Rows of {} (computed by the revisions in brackets) are taken from the cache of earlier runs in the output directory (cefedgnn/cache{}); this run computed the others.",
            kept.join(", "),
            if other_columns { "; columns a cached table lacked are empty" } else { "" }
        ));
    }
    table
        .meta
        .insert(SETTING_REVISIONS.into(), revisions.into());
}

/// The meta key of the revision that computed each setting's rows.
pub(super) const SETTING_REVISIONS: &str = "setting_revisions";

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn held(rev: &str, columns: &[&str], rows: Vec<Vec<Value>>, fresh: bool) -> Held {
        Held {
            cell: SettingRows {
                fingerprint: String::new(),
                revision: rev.into(),
                columns: columns.iter().map(|c| (*c).to_owned()).collect(),
                rows,
                diverged: Vec::new(),
                identical: Vec::new(),
            },
            fresh,
        }
    }

    /// A table is its cells in the plan's order; rows of a cell made under other columns are
    /// laid out by name, and the note and meta say which revision computed which setting.
    #[test]
    fn a_table_is_its_cells_in_order_with_their_revisions() {
        let mut t = Table::new("t", &["setting", "x", "z"]);
        let a = held(
            "r0",
            &["setting", "x"],
            vec![vec![json!("a"), json!(10.0)]],
            false,
        );
        let b = held(
            "r1",
            &["setting", "x", "z"],
            vec![vec![json!("b"), json!(2.0), json!(0.5)]],
            true,
        );
        let c = held(
            "r-1",
            &["x", "setting"],
            vec![vec![json!(30.0), json!("c")]],
            false,
        );
        fill(
            &mut t,
            &[
                ("a", Some(&a)),
                ("b", Some(&b)),
                ("d", None),
                ("c", Some(&c)),
            ],
        );
        assert_eq!(
            t.meta[SETTING_REVISIONS],
            json!({"a": "r0", "b": "r1", "c": "r-1"})
        );
        let xs: Vec<f64> = t.rows.iter().map(|r| r[1].as_f64().unwrap()).collect();
        assert_eq!(xs, [10.0, 2.0, 30.0]);
        assert_eq!(t.rows[2][0], json!("c"), "laid out by column name");
        assert_eq!(t.rows[0][2], Value::Null, "a column it lacked is empty");
        assert_eq!(t.rows[1][2], json!(0.5));
        assert!(t.notes[0].contains("a (r0), c (r-1)"), "{:?}", t.notes);
        assert!(t.notes[0].contains("lacked are empty"), "{:?}", t.notes);
        // Only this run's cells: no note.
        let mut t = Table::new("t", &["setting", "x", "z"]);
        fill(&mut t, &[("b", Some(&b))]);
        assert!(t.notes.is_empty());
    }

    #[test]
    fn settings_get_distinct_cache_paths() {
        assert_eq!(
            rel("Cora GCN N=5 (σ₀=1)", "methods"),
            PathBuf::from("cefedgnn/cache/cora-gcn-n-5-----1-/methods.json")
        );
        assert_ne!(rel("Cora N=5", "methods"), rel("Cora N=10", "methods"));
    }
}
