//! `cargo xtask repro [EXPERIMENT…] [--quick|--full] [--seed S] [--out DIR] [--offline] [--check]`.
//!
//! Each experiment writes `<out>/<experiment>/<table>.{csv,json,md}` and a plot (`.svg`), with the
//! seed, parameters and git revision recorded in every table. The default `<out>` is
//! `target/repro/`, never the committed reference results in `results/` (writing there needs
//! `--update-reference`). Datasets an experiment needs are installed on first use (embedded
//! copies, then upstream; `--offline` never fetches). Every run ends with a comparison of its
//! tables against the committed reference and the papers (`<out>/comparison.md`).

mod cefedgnn;
mod compare;
mod edgerefine;
mod foundation;
mod gnn;
mod homdp;

use std::path::PathBuf;

use anyhow::{Context, Result, bail};

/// How much work a run does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Effort {
    /// A few minutes on 2 cores.
    Quick,
    /// The full-size experiments.
    Full,
}

/// Settings shared by all experiments.
pub(crate) struct Ctx {
    pub(crate) effort: Effort,
    pub(crate) seed: u64,
    pub(crate) out: PathBuf,
    pub(crate) revision: String,
}

impl Ctx {
    /// Metadata recorded in every table.
    pub(crate) fn meta(&self) -> serde_json::Map<String, serde_json::Value> {
        let mut m = serde_json::Map::new();
        m.insert("seed".into(), self.seed.into());
        m.insert(
            "effort".into(),
            format!("{:?}", self.effort).to_lowercase().into(),
        );
        m.insert("git_revision".into(), self.revision.clone().into());
        m.insert(
            "data_dir".into(),
            graph_core::registry::data_dir()
                .display()
                .to_string()
                .into(),
        );
        m
    }
}

const EXPERIMENTS: &[&str] = &["foundation", "gnn", "homdp", "edgerefine", "cefedgnn"];

/// The registry datasets each experiment reads (installed on first use).
fn datasets_of(experiment: &str) -> &'static [&'static str] {
    match experiment {
        "gnn" => &["cora", "MUTAG"],
        "homdp" => &["HIV", "BACE", "BBBP", "Lipophilicity", "REDDIT-BINARY"],
        "edgerefine" => &["cora", "acm", "dblp", "amap", "MUTAG"],
        "cefedgnn" => &["cora"],
        _ => &[],
    }
}

const USAGE: &str = "cargo xtask repro [EXPERIMENT...] [--quick|--full] [--seed S] [--out DIR]
                 [--offline] [--upstream DIR_OR_URL] [--check] [--reference DIR] [--update-reference]

  EXPERIMENT          foundation, gnn, homdp, edgerefine, cefedgnn (default: all)
  --quick | --full    minutes on 2 cores (default) | the full-size experiments
  --seed S            master seed (default 42)
  --out DIR           where the run writes (default target/repro; results/ needs --update-reference)
  --offline           never download: datasets not installed and not embedded are skipped
  --upstream D        read upstream archives from D (directory or URL) [env DPGRAPH_UPSTREAM];
                      DPGRAPH_MIRROR installs from a mirror of converted files instead
  --check             exit non-zero when a number that should agree with the reference does not
  --reference DIR     the reference results to compare with (default results/)
  --update-reference  allow --out to be the reference folder (rewrites committed results)

Environment: HOMDP_ONLY, HOMDP_TABLES, EDGEREFINE_ONLY, EDGEREFINE_RESUME, EDGEREFINE_BUDGET_MIN
select parts of the homdp / edgerefine runs (see their module docs).
";

pub(crate) fn run(args: &[String]) -> Result<()> {
    let mut effort = Effort::Quick;
    let mut seed = 42u64;
    let mut out = crate::project_root().join("target").join("repro");
    let mut reference = crate::project_root().join("results");
    let (mut offline, mut check, mut update_reference) = (false, false, false);
    let mut upstream = None;
    let mut which = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--quick" => effort = Effort::Quick,
            "--full" => effort = Effort::Full,
            "--seed" => {
                seed = it
                    .next()
                    .context("--seed needs a value")?
                    .parse()
                    .context("--seed must be a non-negative integer")?;
            }
            "--out" => out = PathBuf::from(it.next().context("--out needs a directory")?),
            "--reference" => {
                reference = PathBuf::from(it.next().context("--reference needs a directory")?)
            }
            "--upstream" => {
                upstream = Some(
                    it.next()
                        .context("--upstream needs a directory or URL")?
                        .clone(),
                )
            }
            "--offline" => offline = true,
            "--check" => check = true,
            "--update-reference" => update_reference = true,
            "-h" | "--help" => {
                print!("{USAGE}");
                return Ok(());
            }
            s if s.starts_with("--") => bail!("unknown option {s}"),
            s if EXPERIMENTS.contains(&s) => which.push(s.to_owned()),
            s => bail!(
                "unknown experiment `{s}` (available: {})",
                EXPERIMENTS.join(", ")
            ),
        }
    }
    if which.is_empty() {
        which = EXPERIMENTS.iter().map(|s| (*s).to_owned()).collect();
    }
    let same_dir = |a: &std::path::Path, b: &std::path::Path| match (
        std::fs::canonicalize(a),
        std::fs::canonicalize(b),
    ) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    };
    if same_dir(&out, &reference) && !update_reference {
        bail!(
            "--out {} is the committed reference results; pass --update-reference to rewrite them",
            out.display()
        );
    }
    install_needed(&which, upstream, offline);
    let ctx = Ctx {
        effort,
        seed,
        out,
        revision: crate::git_revision(),
    };
    for w in which.clone() {
        let start = std::time::Instant::now();
        match w.as_str() {
            "foundation" => foundation::run(&ctx)?,
            "gnn" => gnn::run(&ctx)?,
            "homdp" => homdp::run(&ctx)?,
            "edgerefine" => edgerefine::run(&ctx)?,
            "cefedgnn" => cefedgnn::run(&ctx)?,
            _ => unreachable!("checked above"),
        }
        println!(
            "repro {w}: done in {:.1} s -> {}",
            start.elapsed().as_secs_f64(),
            ctx.out.join(&w).display()
        );
    }
    finish(
        &ctx.out,
        &reference,
        &which,
        check,
        same_dir(&ctx.out, &reference),
    )
}

/// Installs the datasets `which` needs that are not installed yet, one summary line each;
/// failures are reported and the experiments skip what is missing.
fn install_needed(which: &[String], upstream: Option<String>, offline: bool) {
    let reg = graph_core::Registry::embedded();
    let dir = graph_core::registry::data_dir();
    let mut names: Vec<&str> = which
        .iter()
        .flat_map(|w| datasets_of(w).iter().copied())
        .collect();
    names.dedup();
    let mut seen = std::collections::HashSet::new();
    let specs: Vec<_> = names
        .into_iter()
        .filter(|n| seen.insert(*n))
        .filter_map(|n| reg.get(n).ok())
        .filter(|s| !s.is_installed(&dir))
        .collect();
    if specs.is_empty() {
        return;
    }
    println!(
        "installing {} dataset(s) on first use into {}{}",
        specs.len(),
        dir.display(),
        if offline {
            " (offline: embedded copies only)"
        } else {
            ""
        }
    );
    let reports = crate::datasets::install_and_report(
        &specs,
        &crate::datasets::origin(None, upstream, offline),
    );
    let missing: Vec<&str> = reports
        .iter()
        .filter(|(_, r)| !r.is_ok())
        .map(|(n, _)| n.as_str())
        .collect();
    if !missing.is_empty() {
        println!(
            "not installed: {} (their tables are skipped; install them with `cargo xtask datasets install NAME`)",
            missing.join(", ")
        );
    }
}

/// Writes `<out>/comparison.{md,json}`, prints a summary, and fails under `--check` when a
/// number that should agree does not.
fn finish(
    out: &std::path::Path,
    reference: &std::path::Path,
    which: &[String],
    check: bool,
    is_reference: bool,
) -> Result<()> {
    if is_reference {
        println!("wrote the reference results themselves: no comparison");
        return Ok(());
    }
    let cmp = compare::compare_runs(out, reference, which)?;
    std::fs::create_dir_all(out)?;
    crate::output::write(out, "comparison.md", cmp.markdown(reference).as_bytes())?;
    crate::output::write(
        out,
        "comparison.json",
        serde_json::to_string_pretty(&cmp.json())?.as_bytes(),
    )?;
    let count = |v| cmp.entries.iter().filter(|e| e.verdict == v).count();
    println!(
        "comparison with {}: {} agree, {} differ, {} shown only (other effort or seed) -> {}",
        reference.display(),
        count(compare::Verdict::Agree),
        count(compare::Verdict::Differ),
        count(compare::Verdict::Informational),
        out.join("comparison.md").display()
    );
    let differing: Vec<String> = cmp
        .differing()
        .map(|e| {
            format!(
                "{} [{}] {}: {:.4} vs {:.4} (tolerance {:.3})",
                e.table, e.key, e.column, e.run, e.reference, e.tolerance
            )
        })
        .collect();
    for d in differing.iter().take(20) {
        println!("  differs: {d}");
    }
    if check && !differing.is_empty() {
        bail!(
            "--check: {} number(s) differ from the reference beyond tolerance",
            differing.len()
        );
    }
    Ok(())
}
