//! Project automation. See <https://github.com/matklad/cargo-xtask/>.
//!
//! `cargo xtask <command>`: `datasets` (list / install / verify), `repro` (reproduce the
//! experiments), `report` (redraw a results folder's plots and its report page), `tidy` (source hygiene), `bench` (criterion benchmarks), `bench-e2e`
//! (EdgeRefine end to end against a numpy script), `test` (`cargo test --workspace` and the
//! Python package's pytest suite), `ci` (what `.ci/run` checks). `cargo xtask --help` and `cargo xtask <command> --help` list every flag (see
//! [`cli`]).

mod bench_e2e;
mod cli;
mod datasets;
mod figures;
mod machine;
mod output;
mod plot;
mod pytest;
mod report;
mod repro;
mod row;
mod tidy;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use clap::Parser;

use cli::{Cli, Command as Cmd};

fn main() {
    let cli = Cli::parse();
    if let Err(e) = try_main(cli.command) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

fn try_main(command: Cmd) -> Result<()> {
    match command {
        Cmd::Datasets(c) => datasets::run(c),
        Cmd::Repro(args) => repro::run(args),
        Cmd::Report { dir } => {
            let dir = if dir.is_absolute() {
                dir
            } else {
                project_root().join(dir)
            };
            for e in cli::Experiment::ALL {
                let sub = dir.join(e.name());
                if sub.is_dir() {
                    let files = figures::draw(e, &sub)?;
                    println!("{}: {} plot file(s) drawn", e.name(), files.len());
                }
            }
            println!("wrote {}", report::write(&dir)?.display());
            Ok(())
        }
        Cmd::Tidy => {
            let problems = tidy::check(&project_root())?;
            if problems.is_empty() {
                println!("tidy: ok");
                Ok(())
            } else {
                for p in &problems {
                    eprintln!("{p}");
                }
                bail!("tidy: {} problem(s)", problems.len())
            }
        }
        Cmd::Bench { args } => {
            run_cargo(&[&["bench", "--workspace"], &str_refs(&args)[..]].concat())
        }
        Cmd::BenchE2e(a) => bench_e2e::run(&a),
        Cmd::Test {
            no_python,
            python,
            args,
        } => {
            run_cargo(&[&["test", "--workspace"], &str_refs(&args)[..]].concat())?;
            if no_python {
                return Ok(());
            }
            pytest::run_suite(&python)
        }
        Cmd::Ci => {
            run_cargo(&["fmt", "--all", "--", "--check"])?;
            run_cargo(&[
                "clippy",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ])?;
            run_cargo(&["test", "--workspace"])?;
            let problems = tidy::check(&project_root())?;
            if !problems.is_empty() {
                bail!("tidy: {}", problems.join("; "));
            }
            Ok(())
        }
    }
}

fn str_refs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

fn run_cargo(args: &[&str]) -> Result<()> {
    let status = cargo()
        .args(args)
        .current_dir(project_root())
        .status()
        .with_context(|| format!("running cargo {}", args.join(" ")))?;
    if !status.success() {
        bail!("cargo {} failed ({status})", args.join(" "));
    }
    Ok(())
}

/// The workspace root.
fn project_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace root")
        .to_path_buf()
}

/// `git describe`-style revision of the working tree (`<short sha>[-dirty]`, dirty for changes
/// outside `results/`), or `unknown`.
fn git_revision() -> String {
    let root = project_root();
    let sha = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(&root)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    let Some(sha) = sha else {
        return "unknown".into();
    };
    // What a run writes (results/) does not make the code it ran dirty: a second experiment
    // run in the same checkout after a first one wrote its tables records the same revision.
    let dirty = Command::new("git")
        .args([
            "status",
            "--porcelain",
            "--untracked-files=no",
            "--",
            ".",
            ":(exclude)results",
        ])
        .current_dir(&root)
        .output()
        .ok()
        .is_some_and(|o| !o.stdout.is_empty());
    if dirty { format!("{sha}-dirty") } else { sha }
}
