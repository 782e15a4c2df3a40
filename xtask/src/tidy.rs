//! Source hygiene: every `.rs` file starts with a `//!` doc comment (a crate root may start with
//! `#![doc = include_str!("../README.md")]`); no `todo!`,
//! `unimplemented!` or `dbg!` in the tree; no bare `f64` privacy parameter in the paper crates'
//! public API ([`bare_privacy_floats`]); `graph-core`'s default features
//! pull none of the installer's dependencies ([`INSTALLER_ONLY`]).

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
    let manifest = root.join("crates/graph-core/Cargo.toml");
    if manifest.is_file() {
        for dep in default_pulls(&std::fs::read_to_string(&manifest)?, &INSTALLER_ONLY)? {
            problems.push(format!(
                "crates/graph-core/Cargo.toml: the default features pull `{dep}`, which only the installer (feature `install`) needs"
            ));
        }
    }
    let bare = bare_privacy_floats(root)?;
    if !bare.is_empty() {
        problems.push(format!(
            "{} bare f64 privacy parameters in the paper crates' public API (use dp-core's checked types):\n{}",
            bare.len(),
            bare.join("\n")
        ));
    }
    Ok(problems)
}

/// Dependencies of `graph-core` that only its installer needs (a C build, an HTTP stack,
/// archive readers): a user of the graph type must not pay for them.
const INSTALLER_ONLY: [&str; 4] = ["libz-sys", "ureq", "zip", "tar"];

/// Which of `deps` a crate's default features pull in, from its `Cargo.toml` text: a
/// dependency that is not optional, or one that a feature reachable from `default` enables
/// (`dep:x`, `x`, or `x/feature`).
///
/// # Errors
/// The manifest is not valid TOML.
fn default_pulls(manifest: &str, deps: &[&str]) -> Result<Vec<String>> {
    let doc: toml::Table = manifest.parse()?;
    let table = |k: &str| {
        doc.get(k)
            .and_then(|v| v.as_table())
            .cloned()
            .unwrap_or_default()
    };
    let (dependencies, features) = (table("dependencies"), table("features"));
    let optional = |d: &str| {
        dependencies
            .get(d)
            .and_then(|v| v.get("optional"))
            .and_then(toml::Value::as_bool)
            .unwrap_or(false)
    };
    let mut pulled: Vec<String> = deps
        .iter()
        .filter(|d| dependencies.contains_key(**d) && !optional(d))
        .map(|d| d.to_string())
        .collect();
    let (mut stack, mut seen) = (vec!["default".to_string()], Vec::<String>::new());
    while let Some(f) = stack.pop() {
        if seen.contains(&f) {
            continue;
        }
        seen.push(f.clone());
        let name = f.trim_start_matches("dep:").split('/').next().unwrap_or("");
        if deps.contains(&name)
            && dependencies.contains_key(name)
            && !pulled.iter().any(|p| p == name)
        {
            pulled.push(name.to_string());
        }
        if let Some(list) = features.get(&f).and_then(toml::Value::as_array) {
            stack.extend(list.iter().filter_map(|v| v.as_str().map(str::to_string)));
        }
    }
    Ok(pulled)
}

/// The paper crates whose public API must carry privacy parameters as dp-core's checked types.
const PAPER_CRATES: [&str; 3] = ["homdp", "edgerefine", "cefedgnn"];

/// Whether `name` names a privacy parameter: `eps…`, `epsilon`, `delta`, `rho`, `sigma…`.
fn is_privacy_name(name: &str) -> bool {
    name.starts_with("eps") || name == "delta" || name == "rho" || name.starts_with("sigma")
}

/// `(name, type)` of every `name: type` in a parameter or field list (top-level commas only).
fn typed_names(list: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    let bytes = list.as_bytes();
    for i in 0..=bytes.len() {
        let end = i == bytes.len();
        let c = if end { b',' } else { bytes[i] };
        match c {
            b'(' | b'<' | b'[' | b'{' => depth += 1,
            b')' | b'>' | b']' | b'}' => depth -= 1,
            b',' if depth <= 0 => {
                if let Some((n, t)) = list[start..i].split_once(':') {
                    let n = n.trim().trim_start_matches("mut ").trim();
                    out.push((n.to_string(), t.trim().to_string()));
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    out
}

/// The public struct fields and public function parameters of type `f64` named like a privacy
/// parameter ([`is_privacy_name`]) in the paper crates under `root`, as `file:line: name`.
///
/// History: a ratchet lowered as the paper crates moved to `Epsilon`, `Delta`, `Rho` and the
/// noise-scale types. 103 on 2026-12-07 (homdp 31, edgerefine 38,
/// cefedgnn 34); 94 once edgerefine's client and server parameters took `Epsilon` (edgerefine
/// 29); 77 once the report header, the edge-count estimate, homdp's `EmbeddingParams` and
/// `Guarantee` took `Epsilon`, `Rho` and `Delta` and the SVR's loss width stopped being called
/// `epsilon` (homdp 19, edgerefine 24, cefedgnn 34); 67 once CE-FedGNN's `FedTrainConfig`,
/// `ReleaseConfig`, `PrivacyReport` and accountant took `NoiseMultiplier`, `NoiseScale` and
/// `Delta` (cefedgnn 24); 42 once edgerefine's baselines and evaluation, homdp's private degree
/// bound and DPRR took `Epsilon` / `Rho`, and Blink's budget share δ_b stopped being called
/// `delta` (homdp 16, edgerefine 2, cefedgnn 24); 35 once CE-FedGNN's privacy report holds
/// `EpsilonBound`s (a computed ε, 0 or ∞ allowed) and its observation a `NoiseScale` (cefedgnn
/// 17); 26 once homdp's table rows hold `Option<EpsilonBound>` and its protocol points and
/// `evaluate` a `Rho` (homdp 7); 0 once homdp's theory rows, edgerefine's `eps_edge` and attack
/// rows and CE-FedGNN's table rows hold `Rho`, `Epsilon`, `EpsilonBound`, `NoiseMultiplier`
/// and `NoiseScale`. None may come back.
pub(crate) fn bare_privacy_floats(root: &Path) -> Result<Vec<String>> {
    let mut found = Vec::new();
    for krate in PAPER_CRATES {
        let dir = root.join("crates").join(krate).join("src");
        if !dir.is_dir() {
            continue;
        }
        let mut files = Vec::new();
        collect(&dir, &mut files)?;
        files.sort();
        for f in files {
            let text = std::fs::read_to_string(&f)?;
            let rel = f.strip_prefix(root).unwrap_or(&f).display().to_string();
            for (i, line) in text.lines().enumerate() {
                let t = line.trim_start();
                if let Some(rest) = t.strip_prefix("pub ")
                    && let Some((name, ty)) = rest.split_once(':')
                    && !name.contains(' ')
                    && is_privacy_name(name.trim())
                    && ty.trim().trim_end_matches(',') == "f64"
                {
                    found.push(format!("{rel}:{}: field {}", i + 1, name.trim()));
                }
            }
            let mut from = 0;
            while let Some(at) = text[from..].find("pub fn ") {
                let start = from + at;
                from = start + 7;
                let Some(open) = text[start..].find('(').map(|o| start + o) else {
                    break;
                };
                let mut depth = 0i32;
                let mut close = open;
                for (k, c) in text[open..].char_indices() {
                    match c {
                        '(' => depth += 1,
                        ')' => {
                            depth -= 1;
                            if depth == 0 {
                                close = open + k;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                let line = text[..start].matches('\n').count() + 1;
                for (name, ty) in typed_names(&text[open + 1..close]) {
                    if ty == "f64" && is_privacy_name(&name) {
                        found.push(format!("{rel}:{line}: parameter {name}"));
                    }
                }
            }
        }
    }
    Ok(found)
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

    /// The paper crates expose no bare `f64` privacy parameter (the ratchet is at 0).
    #[test]
    fn privacy_parameters_are_typed() {
        let found = super::bare_privacy_floats(&crate::project_root()).unwrap();
        assert!(
            found.is_empty(),
            "{} bare f64 privacy parameters: use dp-core's checked types\n{}",
            found.len(),
            found.join("\n")
        );
    }

    /// The installer's dependencies are found wherever the default features reach them, and
    /// not where only a non-default feature does.
    #[test]
    fn default_features_that_pull_the_installer_are_found() {
        let deps = r#"
[dependencies]
libz-sys = { version = "1", optional = true }
ureq = { version = "3", optional = true }
zip = { version = "9", optional = true }
tar = "0.4"
"#;
        let with = |features: &str| {
            super::default_pulls(
                &format!("{deps}\n[features]\n{features}"),
                &super::INSTALLER_ONLY,
            )
            .unwrap()
        };
        // tar is not optional at all; the rest sit behind `download`.
        assert_eq!(
            with("default = []\ndownload = [\"dep:ureq\", \"zip\"]\nzip = [\"dep:zip\"]"),
            ["tar"]
        );
        let mut found = with(
            "default = [\"net\"]\nnet = [\"download\"]\ndownload = [\"dep:ureq\", \"zip\"]\nzip = [\"dep:zip\"]\ninstall = [\"libz-sys/static\"]",
        );
        found.sort();
        assert_eq!(found, ["tar", "ureq", "zip"]);
        assert_eq!(
            with("default = [\"install\"]\ninstall = [\"libz-sys/static\"]"),
            ["tar", "libz-sys"]
        );
        assert!(super::default_pulls("[dependencies", &super::INSTALLER_ONLY).is_err());
    }

    /// Public fields and parameters named like privacy parameters with type `f64` are found,
    /// typed ones and private ones are not.
    #[test]
    fn bare_privacy_floats_are_found() {
        let d = tempfile::tempdir().unwrap();
        let src = d.path().join("crates/homdp/src");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(
            src.join("lib.rs"),
            "//! x\npub struct P {\n    pub eps: f64,\n    pub delta: Delta,\n    sigma: f64,\n    pub rho_total: f64,\n}\n\
             pub fn f(\n    g: &Graph,\n    sigma0: f64,\n    k: impl Fn(f64) -> f64,\n) {}\npub(crate) fn h(eps: f64) {}\n",
        )
        .unwrap();
        let found = super::bare_privacy_floats(d.path()).unwrap();
        assert_eq!(
            found,
            [
                "crates/homdp/src/lib.rs:3: field eps",
                "crates/homdp/src/lib.rs:8: parameter sigma0"
            ],
            "{found:?}"
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
