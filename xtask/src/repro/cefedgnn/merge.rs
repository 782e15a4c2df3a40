//! Resuming `repro cefedgnn`: the earlier tables in the output directory and the merge of their
//! rows with this run's, setting by setting.

use anyhow::Result;

use crate::output::Table;
use crate::repro::Ctx;

/// An earlier table in the output directory, when it was written with this run's effort and
/// seed: its rows by column name, its revision, and the revision of each setting's rows
/// (`meta.setting_revisions`: a table that kept rows of an earlier run says so per setting).
pub(super) struct Earlier {
    rows: Vec<serde_json::Map<String, serde_json::Value>>,
    revision: String,
    setting_revisions: serde_json::Map<String, serde_json::Value>,
}

/// The meta key of the revision that computed each setting's rows.
pub(super) const SETTING_REVISIONS: &str = "setting_revisions";

impl Earlier {
    pub(super) fn load(ctx: &Ctx, dir: &std::path::Path, stem: &str) -> Result<Option<Self>> {
        let path = dir.join(format!("{stem}.json"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            return Ok(None);
        };
        let v: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| anyhow::anyhow!("parsing {}: {e}", path.display()))?;
        let now = ctx.meta();
        if v["meta"].get("effort") != now.get("effort") || v["meta"].get("seed") != now.get("seed")
        {
            return Ok(None);
        }
        let rows = v["rows"]
            .as_array()
            .map(|a| a.iter().filter_map(|r| r.as_object().cloned()).collect())
            .unwrap_or_default();
        Ok(Some(Self {
            rows,
            revision: v["meta"]["git_revision"].as_str().unwrap_or("").to_owned(),
            setting_revisions: v["meta"][SETTING_REVISIONS]
                .as_object()
                .cloned()
                .unwrap_or_default(),
        }))
    }

    /// The revision that computed `setting`'s rows: the table's own where it does not say
    /// per setting (tables written before it did).
    fn revision_of(&self, setting: &str) -> &str {
        self.setting_revisions
            .get(setting)
            .and_then(|v| v.as_str())
            .unwrap_or(&self.revision)
    }

    /// Whether it has rows of `setting` computed by `revision`.
    pub(super) fn has(&self, setting: &str, revision: &str) -> bool {
        self.revision_of(setting) == revision && self.rows_of(setting).next().is_some()
    }

    fn rows_of<'a>(
        &'a self,
        setting: &'a str,
    ) -> impl Iterator<Item = &'a serde_json::Map<String, serde_json::Value>> {
        self.rows
            .iter()
            .filter(move |r| r.get("setting").and_then(|v| v.as_str()) == Some(setting))
    }
}

/// `table` (this run's rows of the settings in `done`) merged with the earlier table's rows of
/// the other settings of `order`, in the plan's order, laid out on `table`'s columns by name
/// (a column the earlier table lacks is empty); the note says which settings' rows were kept
/// and from which revision, and `meta.setting_revisions` which revision computed each
/// setting's rows.
pub(super) fn merged(
    mut table: Table,
    earlier: Option<&Earlier>,
    order: &[String],
    done: &[String],
) -> Table {
    let now = table
        .meta
        .get("git_revision")
        .cloned()
        .unwrap_or(serde_json::Value::Null);
    let mut revisions = serde_json::Map::new();
    for label in done {
        revisions.insert(label.clone(), now.clone());
    }
    let Some(e) = earlier else {
        table
            .meta
            .insert(SETTING_REVISIONS.into(), revisions.into());
        return table;
    };
    let at = table.columns.iter().position(|c| c == "setting");
    let new = std::mem::take(&mut table.rows);
    let mut kept = Vec::new();
    for label in order {
        if done.contains(label) {
            table.rows.extend(
                new.iter()
                    .filter(|r| at.and_then(|i| r.get(i)).and_then(|v| v.as_str()) == Some(label))
                    .cloned(),
            );
        } else {
            let before = table.rows.len();
            for r in e.rows_of(label) {
                let row = table
                    .columns
                    .iter()
                    .map(|c| r.get(c).cloned().unwrap_or(serde_json::Value::Null))
                    .collect();
                table.rows.push(row);
            }
            if table.rows.len() > before {
                revisions.insert(label.clone(), e.revision_of(label).into());
                kept.push(format!("{label} ({})", e.revision_of(label)));
            }
        }
    }
    if !kept.is_empty() {
        table.notes.push(format!(
            "Rows of {} (computed by the revisions in brackets) are kept from the earlier table in the output directory (columns it lacked are empty); this run wrote the others.",
            kept.join(", ")
        ));
    }
    table
        .meta
        .insert(SETTING_REVISIONS.into(), revisions.into());
    table
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::output::Table;

    /// After a setting finishes, the table holds this run's rows of the finished settings and
    /// the earlier table's rows of the others, in the plan's order, and says which were kept.
    #[test]
    fn finished_settings_replace_their_rows_and_the_rest_are_kept() {
        let mut t = Table::new("t", &["setting", "x", "z"]);
        t.push(vec![json!("b"), json!(2.0), json!(0.5)]);
        // As read back from JSON: keys in another order, an earlier table without column z.
        let row = |s: &str, x: f64| json!({"x": x, "setting": s}).as_object().unwrap().clone();
        t.meta.insert("git_revision".into(), json!("r1"));
        // Setting c's rows were kept by the run of r0 from a run of r-1.
        let earlier = Earlier {
            rows: vec![row("a", 10.0), row("b", 20.0), row("c", 30.0)],
            revision: "r0".into(),
            setting_revisions: json!({"a": "r0", "b": "r0", "c": "r-1"})
                .as_object()
                .unwrap()
                .clone(),
        };
        let order = ["a".to_owned(), "b".to_owned(), "c".to_owned()];
        let m = merged(t, Some(&earlier), &order, &["b".to_owned()]);
        assert_eq!(
            m.meta[SETTING_REVISIONS],
            json!({"a": "r0", "b": "r1", "c": "r-1"}),
            "each setting's rows keep the revision that computed them"
        );
        let xs: Vec<f64> = m.rows.iter().map(|r| r[1].as_f64().unwrap()).collect();
        assert_eq!(xs, [10.0, 2.0, 30.0]);
        assert_eq!(m.rows[0][0], json!("a"));
        assert_eq!(
            m.rows[0][2],
            serde_json::Value::Null,
            "a column it lacked is empty"
        );
        assert_eq!(m.rows[1][2], json!(0.5));
        assert!(m.notes[0].contains("a (r0), c (r-1)"), "{:?}", m.notes);
        assert!(earlier.has("a", "r0") && !earlier.has("a", "r1") && !earlier.has("d", "r0"));
        // A run of r0 that kept c from r-1 has not computed c: --resume at r0 runs it.
        assert!(!earlier.has("c", "r0") && earlier.has("c", "r-1"));
        // Nothing earlier: this run's rows only.
        let t = Table::new("t", &["setting", "x", "z"]);
        assert!(merged(t, None, &order, &[]).rows.is_empty());
    }
}
