//! Project automation. See <https://github.com/matklad/cargo-xtask/>.
//!
//! `cargo xtask <command>`: `datasets` (list / install), `repro` (reproduce the experiments),
//! `tidy` (source hygiene), `bench` (criterion benchmarks), `ci` (what `.ci/run` checks).

mod datasets;
mod output;
mod plot;
mod repro;
mod tidy;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

const HELP: &str = "\
cargo xtask <command>

Commands:
  datasets list                          registry datasets and whether they are installed
  datasets install NAME... | --all       install into $DPGRAPH_DATA (default ./data): embedded copy,
      [--upstream SRC] [--offline]         else the registry's upstream archives (SRC: a directory or
      [--from MIRROR]                      URL standing in for every upstream host; $DPGRAPH_UPSTREAM);
                                           --from: a mirror of converted files ($DPGRAPH_MIRROR)
  datasets verify [NAME...]              re-check the SHA-256 of installed datasets
  repro [EXPERIMENT...] [--quick|--full] [--seed S] [--out DIR] [--offline] [--upstream SRC]
        [--check] [--reference DIR] [--update-reference]
                                         reproduce experiments into target/repro (CSV, JSON, Markdown,
                                         SVG) and compare with results/ (`repro --help` for details)
  tidy                                   every .rs starts with //!, no todo!/unimplemented!/dbg!
  bench [ARGS...]                        run the criterion benchmarks (release)
  ci                                     fmt --check, clippy -D warnings, test --workspace, tidy
";

fn main() {
    if let Err(e) = try_main() {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

fn try_main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("datasets") => datasets::run(&args[1..]),
        Some("repro") => repro::run(&args[1..]),
        Some("tidy") => {
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
        Some("bench") => {
            run_cargo(&[&["bench", "--workspace"], &str_refs(&args[1..])[..]].concat())
        }
        Some("ci") => {
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
        Some("-h" | "--help" | "help") | None => {
            print!("{HELP}");
            Ok(())
        }
        Some(other) => bail!("unknown command `{other}`\n\n{HELP}"),
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

/// `git describe`-style revision of the working tree (`<short sha>[-dirty]`), or `unknown`.
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
    let dirty = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=no"])
        .current_dir(&root)
        .output()
        .ok()
        .is_some_and(|o| !o.stdout.is_empty());
    if dirty { format!("{sha}-dirty") } else { sha }
}
