//! Experiment output: one table written as CSV, JSON, Markdown (and a plot by the caller), each
//! atomically (temporary file + rename), with the run's metadata.

use std::path::Path;

use anyhow::{Context, Result};
use serde::Serialize;
use serde_json::{Value, json};

/// A results table with metadata.
pub(crate) struct Table {
    pub(crate) title: String,
    pub(crate) columns: Vec<String>,
    pub(crate) rows: Vec<Vec<Value>>,
    /// Free-form run metadata (seed, git revision, deviations, …).
    pub(crate) meta: serde_json::Map<String, Value>,
    /// Notes printed under the Markdown table.
    pub(crate) notes: Vec<String>,
}

impl Table {
    pub(crate) fn new(title: &str, columns: &[&str]) -> Self {
        Self {
            title: title.to_owned(),
            columns: columns.iter().map(|s| (*s).to_owned()).collect(),
            rows: Vec::new(),
            meta: serde_json::Map::new(),
            notes: Vec::new(),
        }
    }

    /// A positional row (tests compare typed tables against it; experiments use [`Self::push_row`]).
    #[cfg(test)]
    pub(crate) fn push(&mut self, row: Vec<Value>) {
        debug_assert_eq!(row.len(), self.columns.len());
        self.rows.push(row);
    }

    /// A table whose columns are the fields of the row type `T` (a `#[derive(Serialize,
    /// Default)]` struct; `#[serde(rename)]` gives a column another name).
    pub(crate) fn typed<T: Serialize + Default>(title: &str) -> Result<Self> {
        let columns =
            crate::row::columns::<T>().with_context(|| format!("columns of table {title:?}"))?;
        let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
        Ok(Self::new(title, &columns))
    }

    /// A typed table holding `rows`.
    pub(crate) fn from_rows<T: Serialize + Default>(title: &str, rows: &[T]) -> Result<Self> {
        let mut t = Self::typed::<T>(title)?;
        for r in rows {
            t.push_row(r)?;
        }
        Ok(t)
    }

    /// Appends a typed row.
    ///
    /// # Errors
    /// When the row's fields are not this table's columns (another row type).
    pub(crate) fn push_row<T: Serialize>(&mut self, row: &T) -> Result<()> {
        let fields =
            crate::row::fields(row).with_context(|| format!("a row of table {:?}", self.title))?;
        let names: Vec<&str> = fields.iter().map(|(k, _)| k.as_str()).collect();
        anyhow::ensure!(
            names == self.columns,
            "a row of table {:?} has fields {names:?}, the table has columns {:?}",
            self.title,
            self.columns
        );
        self.rows.push(fields.into_iter().map(|(_, v)| v).collect());
        Ok(())
    }

    /// A Markdown cell: floats to four decimals, or in scientific notation below 1e-3 so that
    /// a small figure (δ = 1e-6, an attack rate of 3e-4) is not printed as 0.0000.
    fn cell(v: &Value) -> String {
        match v {
            Value::String(s) => s.clone(),
            Value::Number(n) => match n.as_f64() {
                Some(f) if n.is_f64() && f != 0.0 && f.abs() < 1e-3 => format!("{f:.2e}"),
                Some(f) if n.is_f64() => format!("{f:.4}"),
                _ => n.to_string(),
            },
            Value::Null => String::new(),
            other => other.to_string(),
        }
    }

    pub(crate) fn markdown(&self) -> String {
        let mut s = format!("## {}\n\n", self.title);
        s += &format!("| {} |\n", self.columns.join(" | "));
        s += &format!("|{}\n", "---|".repeat(self.columns.len()));
        for r in &self.rows {
            s += &format!(
                "| {} |\n",
                r.iter().map(Self::cell).collect::<Vec<_>>().join(" | ")
            );
        }
        s += "\n";
        for (k, v) in &self.meta {
            s += &format!("- {k}: {}\n", Self::cell(v));
        }
        for n in &self.notes {
            s += &format!("- {n}\n");
        }
        s
    }

    fn csv(&self) -> String {
        let esc = |s: String| {
            if s.contains([',', '"', '\n']) {
                format!("\"{}\"", s.replace('"', "\"\""))
            } else {
                s
            }
        };
        let mut s = self
            .columns
            .iter()
            .map(|c| esc(c.clone()))
            .collect::<Vec<_>>()
            .join(",")
            + "\n";
        for r in &self.rows {
            s += &(r
                .iter()
                .map(|v| {
                    esc(match v {
                        Value::String(x) => x.clone(),
                        Value::Null => String::new(),
                        other => other.to_string(),
                    })
                })
                .collect::<Vec<_>>()
                .join(",")
                + "\n");
        }
        s
    }

    /// Writes `<dir>/<stem>.{csv,json,md}`.
    pub(crate) fn write(&self, dir: &Path, stem: &str) -> Result<()> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|r| {
                Value::Object(
                    self.columns
                        .iter()
                        .cloned()
                        .zip(r.iter().cloned())
                        .collect(),
                )
            })
            .collect();
        let json =
            json!({ "title": self.title, "meta": self.meta, "notes": self.notes, "rows": rows });
        write(dir, &format!("{stem}.csv"), self.csv().as_bytes())?;
        write(
            dir,
            &format!("{stem}.json"),
            serde_json::to_string_pretty(&json)?.as_bytes(),
        )?;
        write(dir, &format!("{stem}.md"), self.markdown().as_bytes())?;
        Ok(())
    }
}

/// Atomic write of `dir/name`.
pub(crate) fn write(dir: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    let p = dir.join(name);
    graph_core::io::write_atomic(&p, bytes).with_context(|| format!("writing {}", p.display()))
}

/// The rows of `<dir>/<stem>.json` as written by [`Table::write`] (empty when the table is
/// absent), for tables derived from other tables (the claims).
///
/// # Errors
/// A file that is not JSON.
pub(crate) fn table_rows(dir: &Path, stem: &str) -> Result<Vec<Value>> {
    let path = dir.join(format!("{stem}.json"));
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(Vec::new());
    };
    let t: Value =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    Ok(t["rows"].as_array().cloned().unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_writes_three_formats() {
        let d = tempfile::tempdir().unwrap();
        let mut t = Table::new("T", &["name", "value"]);
        t.push(vec![json!("a,b"), json!(1.5)]);
        t.push(vec![json!("small"), json!(3.2e-4)]);
        t.push(vec![json!("zero"), json!(0.0)]);
        t.meta.insert("seed".into(), json!(3));
        t.meta.insert("delta".into(), json!(1e-6));
        t.write(d.path(), "x").unwrap();
        let csv = std::fs::read_to_string(d.path().join("x.csv")).unwrap();
        assert_eq!(csv, "name,value\n\"a,b\",1.5\nsmall,0.00032\nzero,0.0\n");
        let md = std::fs::read_to_string(d.path().join("x.md")).unwrap();
        assert!(
            md.contains("| a,b | 1.5000 |") && md.contains("- seed: 3"),
            "{md}"
        );
        // Small figures keep their value: scientific notation below 1e-3, 0 stays 0.0000.
        assert!(
            md.contains("| small | 3.20e-4 |")
                && md.contains("| zero | 0.0000 |")
                && md.contains("- delta: 1.00e-6"),
            "{md}"
        );
        let js: Value =
            serde_json::from_slice(&std::fs::read(d.path().join("x.json")).unwrap()).unwrap();
        assert_eq!(js["rows"][0]["value"], json!(1.5));
    }

    #[derive(Serialize, Default)]
    struct Row {
        name: String,
        value: f64,
        n: usize,
    }

    #[derive(Serialize, Default)]
    struct Other {
        name: String,
    }

    #[test]
    fn typed_rows_write_the_same_table_as_positional_rows() {
        let d = tempfile::tempdir().unwrap();
        let rows = [
            Row {
                name: "a,b".into(),
                value: 1.5,
                n: 2,
            },
            Row {
                name: "c".into(),
                value: f64::NAN,
                n: 0,
            },
        ];
        let typed = Table::from_rows("T", &rows).unwrap();
        let mut positional = Table::new("T", &["name", "value", "n"]);
        positional.push(vec![json!("a,b"), json!(1.5), json!(2)]);
        positional.push(vec![json!("c"), Value::Null, json!(0)]);
        typed.write(d.path(), "typed").unwrap();
        positional.write(d.path(), "pos").unwrap();
        for ext in ["csv", "json", "md"] {
            let a = std::fs::read(d.path().join(format!("typed.{ext}"))).unwrap();
            let b = std::fs::read(d.path().join(format!("pos.{ext}"))).unwrap();
            assert_eq!(a, b, "{ext}");
        }
    }

    #[test]
    fn a_row_of_another_type_is_refused() {
        let mut t = Table::typed::<Row>("T").unwrap();
        let e = t.push_row(&Other { name: "x".into() }).unwrap_err();
        assert!(format!("{e:#}").contains("has fields [\"name\"]"), "{e:#}");
        assert!(t.rows.is_empty());
    }
}
