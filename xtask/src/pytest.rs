//! The Python half of `cargo xtask test`: a virtual environment in `target/py-venv` (made from
//! `python/requirements-test.txt` — maturin, numpy, pytest, networkx, scikit-learn and the pinned
//! Flower and Ray — and remade when that file changes), the package built into it by `maturin
//! develop --release`, then `pytest python/tests` with `DPGRAPH_CLI` set to the debug `dpgraph`
//! binary that `cargo test` built (for the CLI-equality tests) and `DPGRAPH_REQUIRE_RAY=1`,
//! `DPGRAPH_REQUIRE_FLOWER=1` (the Ray and Flower tests fail instead of skipping when their
//! package is missing).

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::project_root;

/// The requirements of the test environment, relative to the project root.
const REQUIREMENTS: &str = "python/requirements-test.txt";

/// The copy of the requirements the venv was made from (remade when they differ).
const STAMP: &str = ".dpgraph-requirements";

fn run(cmd: &mut Command, what: &str) -> Result<()> {
    let status = cmd.status().with_context(|| format!("running {what}"))?;
    if !status.success() {
        bail!("{what} failed ({status})");
    }
    Ok(())
}

/// Builds the package into the venv and runs the pytest suite.
///
/// # Errors
/// When the venv cannot be made, the build fails, or pytest reports a failure or no test
/// (pytest's exit status 5).
pub(crate) fn run_suite(python: &str) -> Result<()> {
    let root = project_root();
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let venv = target.join("py-venv");
    let bin = venv.join("bin");
    let requirements = root.join(REQUIREMENTS);
    let wanted = std::fs::read_to_string(&requirements)
        .with_context(|| format!("reading {}", requirements.display()))?;
    let stamp = venv.join(STAMP);
    let made = std::fs::read_to_string(&stamp).ok();
    if !bin.join("maturin").exists() || made.as_deref() != Some(wanted.as_str()) {
        run(
            Command::new(python)
                .args(["-m", "venv", "--clear"])
                .arg(&venv),
            "python -m venv",
        )?;
        run(
            Command::new(bin.join("pip"))
                .args(["install", "--quiet", "--disable-pip-version-check", "-r"])
                .arg(&requirements),
            "pip install",
        )?;
        std::fs::write(&stamp, &wanted).with_context(|| format!("writing {}", stamp.display()))?;
    }
    let path = std::env::join_paths(std::iter::once(bin.clone()).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))?;
    run(
        Command::new(bin.join("maturin"))
            .args(["develop", "--release", "--quiet"])
            .current_dir(root.join("crates/dpgraph-py"))
            .env("VIRTUAL_ENV", &venv)
            .env("PATH", &path),
        "maturin develop",
    )?;
    let cli = target.join("debug").join("dpgraph");
    let mut pytest = Command::new(bin.join("python"));
    pytest
        .args(["-m", "pytest", "-q"])
        .arg(Path::new("python").join("tests"))
        .current_dir(&root);
    if cli.exists() {
        pytest.env("DPGRAPH_CLI", &cli);
    }
    // The CLI and `load_dataset` install a dataset a test names on first use (Cora and MUTAG
    // from their embedded copies): without a data directory of the caller's, into the build's
    // own folder rather than ./data of the checkout.
    if std::env::var_os(graph_core::registry::DATA_ENV).is_none() {
        pytest.env(graph_core::registry::DATA_ENV, target.join("test-data"));
    }
    pytest.env("DPGRAPH_REQUIRE_RAY", "1");
    pytest.env("DPGRAPH_REQUIRE_FLOWER", "1");
    run(&mut pytest, "pytest python/tests")
}
