//! The Python half of `cargo xtask test`: a virtual environment in `target/py-venv` (made once,
//! with maturin, numpy, pytest, networkx and scikit-learn from PyPI), the package built into it
//! by `maturin develop --release`, then `pytest python/tests` with `DPGRAPH_CLI` set to the debug
//! `dpgraph` binary that `cargo test` built (for the CLI-equality tests).

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::project_root;

/// Packages of the test environment.
const PACKAGES: [&str; 5] = ["maturin", "numpy", "pytest", "networkx", "scikit-learn"];

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
    if !bin.join("maturin").exists() || !bin.join("pytest").exists() {
        run(
            Command::new(python).args(["-m", "venv"]).arg(&venv),
            "python -m venv",
        )?;
        run(
            Command::new(bin.join("pip"))
                .args(["install", "--quiet", "--disable-pip-version-check"])
                .args(PACKAGES),
            "pip install",
        )?;
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
    run(&mut pytest, "pytest python/tests")
}
