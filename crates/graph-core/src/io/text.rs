//! Reading text files that may be gzipped, a fast integer tokenizer, and atomic writes.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::error::{GraphError, Result};

/// Finds `path` or `path.gz`, preferring the plain file.
///
/// # Errors
/// [`GraphError::MissingFile`] when neither exists.
pub fn find_maybe_gz(path: &Path) -> Result<PathBuf> {
    if path.is_file() {
        return Ok(path.to_path_buf());
    }
    let mut gz = path.as_os_str().to_owned();
    gz.push(".gz");
    let gz = PathBuf::from(gz);
    if gz.is_file() {
        return Ok(gz);
    }
    Err(GraphError::MissingFile {
        path: path.to_path_buf(),
    })
}

/// Reads a whole file, decompressing it when its name ends in `.gz`.
///
/// # Errors
/// [`GraphError::Io`] for unreadable files and truncated or corrupt gzip streams.
pub fn read_maybe_gz(path: &Path) -> Result<Vec<u8>> {
    let raw = fs::read(path).map_err(|e| GraphError::io(path, e))?;
    if path.extension().is_some_and(|e| e == "gz") {
        let mut out = Vec::with_capacity(raw.len() * 4);
        flate2::read::MultiGzDecoder::new(&raw[..])
            .read_to_end(&mut out)
            .map_err(|e| GraphError::io(path, e))?;
        Ok(out)
    } else {
        Ok(raw)
    }
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename, so a
/// crash never leaves a half-written file under the final name.
///
/// # Errors
/// [`GraphError::Io`] when the directory is not writable.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| GraphError::format(path, "not a file path"))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".{}.tmp", std::process::id()));
    let tmp = dir.join(tmp_name);
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(GraphError::io(path, e));
    }
    Ok(())
}

/// Iterates over `(1-based line number, line)` of a buffer, without the line terminator
/// (`\n` or `\r\n`). A final empty line is not produced.
pub(crate) fn lines(buf: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let mut rest = buf;
    let mut no = 0usize;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        no += 1;
        let (line, tail) = match memchr_nl(rest) {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, &rest[rest.len()..]),
        };
        rest = tail;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        Some((no, line))
    })
}

fn memchr_nl(s: &[u8]) -> Option<usize> {
    s.iter().position(|&b| b == b'\n')
}

/// A tokenizer over one line: tokens are separated by commas and/or ASCII whitespace.
pub(crate) struct Tokens<'a> {
    rest: &'a [u8],
}

impl<'a> Tokens<'a> {
    /// Tokens of `line`.
    pub(crate) fn new(line: &'a [u8]) -> Self {
        Self { rest: line }
    }

    /// The next raw token.
    pub(crate) fn next_token(&mut self) -> Option<&'a [u8]> {
        let is_sep = |b: u8| b == b',' || b.is_ascii_whitespace();
        let start = self.rest.iter().position(|&b| !is_sep(b))?;
        let s = &self.rest[start..];
        let end = s.iter().position(|&b| is_sep(b)).unwrap_or(s.len());
        self.rest = &s[end..];
        Some(&s[..end])
    }

    /// The next token as an integer; `Err` holds a message for a parse error.
    pub(crate) fn next_i64(&mut self, what: &str) -> std::result::Result<i64, String> {
        let tok = self
            .next_token()
            .ok_or_else(|| format!("expected {what}, found end of line"))?;
        parse_i64(tok).ok_or_else(|| {
            format!(
                "expected {what} (an integer), found `{}`",
                String::from_utf8_lossy(tok)
            )
        })
    }

    /// The next token as a float.
    pub(crate) fn next_f64(&mut self, what: &str) -> std::result::Result<f64, String> {
        let tok = self
            .next_token()
            .ok_or_else(|| format!("expected {what}, found end of line"))?;
        std::str::from_utf8(tok)
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
            .ok_or_else(|| {
                format!(
                    "expected {what} (a number), found `{}`",
                    String::from_utf8_lossy(tok)
                )
            })
    }

    /// `Err` with a message when tokens remain.
    pub(crate) fn expect_end(&mut self) -> std::result::Result<(), String> {
        match self.next_token() {
            None => Ok(()),
            Some(t) => Err(format!(
                "unexpected extra token `{}`",
                String::from_utf8_lossy(t)
            )),
        }
    }
}

/// Parses a decimal integer with optional sign; `None` on anything else or overflow.
fn parse_i64(tok: &[u8]) -> Option<i64> {
    let (neg, digits) = match tok.first()? {
        b'-' => (true, &tok[1..]),
        b'+' => (false, &tok[1..]),
        _ => (false, tok),
    };
    if digits.is_empty() {
        return None;
    }
    let mut v: i64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_sub(i64::from(d - b'0'))?;
    }
    if neg { Some(v) } else { v.checked_neg() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_split_on_commas_and_spaces() {
        let mut t = Tokens::new(b" 12,  -3\t+4 ");
        assert_eq!(t.next_i64("a"), Ok(12));
        assert_eq!(t.next_i64("b"), Ok(-3));
        assert_eq!(t.next_i64("c"), Ok(4));
        assert!(t.expect_end().is_ok());
        assert!(
            Tokens::new(b"x")
                .next_i64("id")
                .unwrap_err()
                .contains("`x`")
        );
        assert!(Tokens::new(b"99999999999999999999").next_i64("id").is_err());
        assert_eq!(
            Tokens::new(b"-9223372036854775808").next_i64("i"),
            Ok(i64::MIN)
        );
    }

    #[test]
    fn lines_handle_crlf_and_missing_final_newline() {
        let v: Vec<_> = lines(b"a\r\nb\n\nc").collect();
        assert_eq!(v, vec![(1, &b"a"[..]), (2, b"b"), (3, b""), (4, b"c")]);
    }

    #[test]
    fn write_atomic_replaces_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.txt");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
