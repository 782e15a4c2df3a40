//! Source hygiene: every `.rs` file starts with a `//!` doc comment (a crate root may start with
//! `#![doc = include_str!("../README.md")]`); no `todo!`,
//! `unimplemented!` or `dbg!` in the tree.

use std::path::{Path, PathBuf};

use anyhow::Result;

/// Problems found under `root` (skipping `target*` folders and hidden folders).
pub(crate) fn check(root: &Path) -> Result<Vec<String>> {
    let mut files = Vec::new();
    collect(root, &mut files)?;
    let mut problems = Vec::new();
    // Built from pieces so this file does not flag itself.
    let banned = [
        ["todo", "!("].concat(),
        ["unimplemented", "!("].concat(),
        ["dbg", "!("].concat(),
    ];
    for f in files {
        let text = std::fs::read_to_string(&f)?;
        let rel = f.strip_prefix(root).unwrap_or(&f).display().to_string();
        // A crate root may take its documentation from the crate's README instead.
        let head = text.trim_start();
        if !head.starts_with("//!") && !head.starts_with("#![doc = include_str!(\"../README.md\")]")
        {
            problems.push(format!(
                "{rel}: does not start with a `//!` module doc comment (or the README as crate docs)"
            ));
        }
        for (i, line) in text.lines().enumerate() {
            for b in &banned {
                if line.contains(b.as_str()) {
                    problems.push(format!("{rel}:{}: `{b}` left in the code", i + 1));
                }
            }
        }
    }
    Ok(problems)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if entry.file_type()?.is_dir() {
            if name.starts_with('.')
                || name.starts_with("target")
                || name == "data"
                || name == "results"
            {
                continue;
            }
            collect(&path, out)?;
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn tidy() {
        let problems = super::check(&crate::project_root()).unwrap();
        assert!(
            problems.is_empty(),
            "tidy problems:\n{}",
            problems.join("\n")
        );
    }

    #[test]
    fn tidy_detects_problems() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a.rs"), "fn main() {}\n").unwrap();
        std::fs::write(
            d.path().join("b.rs"),
            format!("//! ok\nfn f() {{ {}\"x\") }}\n", ["todo", "!("].concat()),
        )
        .unwrap();
        let p = super::check(d.path()).unwrap();
        assert_eq!(p.len(), 2, "{p:?}");
    }
}
