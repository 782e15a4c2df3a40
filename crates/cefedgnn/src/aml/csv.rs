//! A small CSV reader (RFC 4180 quotes, `\n` or `\r\n`) whose errors name the file, the line,
//! the column and what was expected.

use std::path::{Path, PathBuf};

use crate::error::{FedError, Result};

/// A whole CSV file in memory (gzip inflated when the name ends in `.gz`).
pub(crate) struct CsvFile {
    pub(crate) path: PathBuf,
    text: String,
}

impl CsvFile {
    /// Reads `path`, or `path.gz` when `path` is missing.
    pub(crate) fn open(path: &Path) -> Result<Self> {
        let found = graph_core::io::find_maybe_gz(path).map_err(|_| FedError::MissingFile {
            path: path.to_path_buf(),
        })?;
        let bytes = graph_core::io::read_maybe_gz(&found)?;
        let text = String::from_utf8(bytes)
            .map_err(|e| FedError::csv(&found, 0, format!("not UTF-8 text: {e}")))?;
        Ok(Self { path: found, text })
    }

    /// Non-empty records after the header, each with its 1-based line number; the header is
    /// checked against `expected` (exact names; alternatives separated by `|`).
    pub(crate) fn records<'a>(&'a self, expected: &[&'a str]) -> Result<Vec<Record<'a>>> {
        let mut lines = self.text.lines().enumerate();
        let (_, header) = lines
            .by_ref()
            .find(|(_, l)| !l.trim().is_empty())
            .ok_or_else(|| FedError::csv(&self.path, 0, "empty file: expected a header line"))?;
        let header = header.trim_start_matches('\u{feff}');
        let names = split(header).map_err(|m| FedError::csv(&self.path, 1, m))?;
        let ok = names.len() == expected.len()
            && names
                .iter()
                .zip(expected)
                .all(|(n, e)| e.split('|').any(|alt| alt == n.trim()));
        if !ok {
            return Err(FedError::csv(
                &self.path,
                1,
                format!("header {names:?}: expected the columns {expected:?}"),
            ));
        }
        let mut out = Vec::new();
        for (i, line) in lines {
            if line.trim().is_empty() {
                continue;
            }
            let fields = split(line).map_err(|m| FedError::csv(&self.path, i + 1, m))?;
            if fields.len() != expected.len() {
                return Err(FedError::csv(
                    &self.path,
                    i + 1,
                    format!(
                        "{} fields, expected {} ({})",
                        fields.len(),
                        expected.len(),
                        expected.join(",")
                    ),
                ));
            }
            out.push(Record {
                path: &self.path,
                line: i + 1,
                fields,
                names: expected.to_vec(),
            });
        }
        Ok(out)
    }
}

/// Splits one CSV line into fields, unquoting quoted fields.
fn split(line: &str) -> std::result::Result<Vec<String>, String> {
    let mut fields = Vec::new();
    let mut cur = String::new();
    let mut chars = line.trim_end_matches('\r').chars().peekable();
    let mut quoted = false;
    let mut at_start = true;
    while let Some(c) = chars.next() {
        if quoted {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    cur.push('"');
                    chars.next();
                } else {
                    quoted = false;
                }
            } else {
                cur.push(c);
            }
        } else if c == '"' && at_start {
            quoted = true;
            at_start = false;
        } else if c == ',' {
            fields.push(std::mem::take(&mut cur));
            at_start = true;
        } else {
            cur.push(c);
            at_start = false;
        }
    }
    if quoted {
        return Err("unterminated quoted field".into());
    }
    fields.push(cur);
    Ok(fields)
}

/// One data record.
pub(crate) struct Record<'a> {
    path: &'a Path,
    pub(crate) line: usize,
    fields: Vec<String>,
    names: Vec<&'a str>,
}

impl Record<'_> {
    fn err(&self, col: usize, what: &str) -> FedError {
        let name = self.names[col].split('|').next().unwrap_or("");
        FedError::csv(
            self.path,
            self.line,
            format!(
                "column {} (`{name}`) = {:?}: expected {what}",
                col + 1,
                self.fields[col]
            ),
        )
    }
    /// Field `col`, trimmed.
    pub(crate) fn str(&self, col: usize) -> &str {
        self.fields[col].trim()
    }
    /// A non-empty field.
    pub(crate) fn nonempty(&self, col: usize) -> Result<&str> {
        let s = self.str(col);
        if s.is_empty() {
            return Err(self.err(col, "a non-empty value"));
        }
        Ok(s)
    }
    /// A finite, non-negative decimal.
    pub(crate) fn amount(&self, col: usize) -> Result<f64> {
        self.str(col)
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x >= 0.0)
            .ok_or_else(|| self.err(col, "a non-negative decimal amount"))
    }
    /// An unsigned integer.
    pub(crate) fn uint(&self, col: usize) -> Result<u64> {
        self.str(col)
            .parse::<u64>()
            .map_err(|_| self.err(col, "a non-negative integer"))
    }
    /// An integer (possibly negative).
    pub(crate) fn int(&self, col: usize) -> Result<i64> {
        self.str(col)
            .parse::<i64>()
            .map_err(|_| self.err(col, "an integer"))
    }
    /// `0`/`1` or `true`/`false` (any case).
    pub(crate) fn flag(&self, col: usize) -> Result<bool> {
        match self.str(col).to_ascii_lowercase().as_str() {
            "0" | "false" => Ok(false),
            "1" | "true" => Ok(true),
            _ => Err(self.err(col, "0/1 or true/false")),
        }
    }
    /// A `YYYY/MM/DD HH:MM` timestamp in minutes since the epoch.
    pub(crate) fn timestamp(&self, col: usize) -> Result<i64> {
        super::time::parse_timestamp(self.str(col))
            .ok_or_else(|| self.err(col, "a timestamp YYYY/MM/DD HH:MM"))
    }
    /// An AMLworld currency name.
    pub(crate) fn currency(&self, col: usize) -> Result<super::Currency> {
        super::Currency::parse(self.str(col))
            .ok_or_else(|| self.err(col, "an AMLworld currency name (US Dollar, Euro, …)"))
    }
    /// An AMLworld payment format.
    pub(crate) fn format(&self, col: usize) -> Result<super::PaymentFormat> {
        super::PaymentFormat::parse(self.str(col)).ok_or_else(|| {
            self.err(
                col,
                "a payment format (Reinvestment, Cheque, ACH, Credit Card, Wire, Cash, Bitcoin)",
            )
        })
    }
    /// A bank id: decimal ids lose their zero padding (`021174` → `21174`), others are kept.
    pub(crate) fn bank(&self, col: usize) -> Result<String> {
        Ok(normalize_bank(self.nonempty(col)?))
    }
    /// An error about this record, for checks across fields.
    pub(crate) fn error(&self, message: impl Into<String>) -> FedError {
        FedError::csv(self.path, self.line, message)
    }
}

/// Strips the zero padding of decimal bank ids (`00220` and `220` are the same bank).
pub(crate) fn normalize_bank(s: &str) -> String {
    if s.bytes().all(|b| b.is_ascii_digit()) {
        let t = s.trim_start_matches('0');
        if t.is_empty() { "0".into() } else { t.into() }
    } else {
        s.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_handles_quotes() {
        assert_eq!(
            split(r#"a,"b,c",,"d""e""#).unwrap(),
            vec!["a", "b,c", "", "d\"e"]
        );
        assert!(split(r#"a,"b"#).is_err());
        assert_eq!(normalize_bank("000"), "0");
        assert_eq!(normalize_bank("021174"), "21174");
        assert_eq!(normalize_bank("bank_a"), "bank_a");
    }
}
