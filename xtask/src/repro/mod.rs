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
mod gin_cache;
mod gnn;
mod homdp;
mod runner;
mod select;

use std::path::PathBuf;

use anyhow::{Result, bail};

pub(crate) use select::Select;
use select::check_only;

use crate::cli::{Experiment, ReproArgs};

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
    /// The committed reference results this run compares with (`results/` for `--full`):
    /// `--resume` also takes the edgerefine chunks of the same plan from its cache.
    pub(crate) reference: PathBuf,
    pub(crate) revision: String,
    /// Which parts of the homdp / edgerefine experiments run.
    pub(crate) select: Select,
}

/// Whether `a` and `b` name the same directory (compared canonically where both exist).
pub(crate) fn same_dir(a: &std::path::Path, b: &std::path::Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
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
        m.insert("data_dir".into(), recorded_data_dir().into());
        m
    }
}

/// The data directory as the tables record it: relative to the checkout when inside it, else
/// where it came from — committed tables carry no machine's paths (the run's own `run.json`
/// keeps the absolute path).
fn recorded_data_dir() -> String {
    let dir = crate::datasets::data_dir();
    match dir.strip_prefix(crate::project_root()) {
        Ok(rel) => rel.display().to_string(),
        Err(_) => format!(
            "outside the checkout (${} or the default)",
            graph_core::registry::DATA_ENV
        ),
    }
}

/// The registry datasets each experiment reads (installed on first use).
fn datasets_of(experiment: Experiment) -> &'static [&'static str] {
    match experiment {
        Experiment::Gnn => &["cora", "MUTAG"],
        // MUTAG: the graphs of the noise-scale table's local sensitivity (embedded, so a
        // fresh clone's `--offline` run measures the same graphs as a full one).
        Experiment::Homdp => &[
            "HIV",
            "BACE",
            "BBBP",
            "Lipophilicity",
            "REDDIT-BINARY",
            "MUTAG",
        ],
        Experiment::Edgerefine => &["cora", "acm", "dblp", "amap", "MUTAG"],
        Experiment::Cefedgnn => &["cora"],
        Experiment::Foundation => &[],
    }
}

/// `cargo xtask repro` with its parsed flags.
pub(crate) fn run(args: ReproArgs) -> Result<()> {
    let select = Select::new(&args);
    let effort = if args.full {
        Effort::Full
    } else {
        Effort::Quick
    };
    let root = crate::project_root();
    let out = args
        .out
        .unwrap_or_else(|| root.join("target").join("repro"));
    // The committed references: `results/` (full effort) and `results/quick/` (quick effort,
    // made on a fresh clone with no data and no network, so that such a clone checks every
    // table it prints).
    let committed = [root.join("results"), root.join("results").join("quick")];
    let reference = args.reference.unwrap_or_else(|| match effort {
        Effort::Full => committed[0].clone(),
        Effort::Quick => committed[1].clone(),
    });
    let which: Vec<Experiment> = if args.experiments.is_empty() {
        Experiment::ALL.to_vec()
    } else {
        Experiment::ALL
            .into_iter()
            .filter(|e| args.experiments.contains(e))
            .collect()
    };
    if (same_dir(&out, &reference) || committed.iter().any(|c| same_dir(&out, c)))
        && !args.update_reference
    {
        bail!(
            "--out {} is the committed reference results; pass --update-reference to rewrite them",
            out.display()
        );
    }
    // A run restricted to some parts keeps (or lacks) the other rows: a missing row is then not
    // a failure of --check.
    let partial = !args.only.is_empty()
        || !args.tables.is_empty()
        || !args.parts.is_empty()
        || args.budget_min.is_some()
        || args.shard.is_some();
    check_only(&select, &which, effort)?;
    install_needed(&which, args.source.upstream, args.source.offline);
    let ctx = Ctx {
        effort,
        seed: args.seed,
        out,
        reference: reference.clone(),
        revision: crate::git_revision(),
        select,
    };
    let run_start = std::time::Instant::now();
    let mut walls = serde_json::Map::new();
    for &w in &which {
        let start = std::time::Instant::now();
        match w {
            Experiment::Foundation => foundation::run(&ctx)?,
            Experiment::Gnn => gnn::run(&ctx)?,
            Experiment::Homdp => homdp::run(&ctx)?,
            Experiment::Edgerefine => edgerefine::run(&ctx)?,
            Experiment::Cefedgnn => cefedgnn::run(&ctx)?,
        }
        let dir = ctx.out.join(w.name());
        if dir.is_dir() {
            crate::figures::draw(w, &dir)?;
        }
        walls.insert(w.name().into(), start.elapsed().as_secs_f64().into());
        println!(
            "repro {}: done in {:.1} s -> {}",
            w.name(),
            start.elapsed().as_secs_f64(),
            ctx.out.join(w.name()).display()
        );
    }
    let names: Vec<String> = which.iter().map(|w| w.name().to_owned()).collect();
    let info = serde_json::json!({
        "git_revision": ctx.revision,
        "effort": format!("{:?}", ctx.effort).to_lowercase(),
        "seed": ctx.seed,
        // Experiments draw every noise from seeded streams: reproducible, so not private.
        "noise": dp_core::rng::NoiseSource::Seeded(ctx.seed).record(),
        "experiments": names.join(", "),
        "wall_seconds": walls,
        "total_seconds": run_start.elapsed().as_secs_f64(),
        "machine": crate::machine::describe(),
        "data_dir": crate::datasets::data_dir().display().to_string(),
    });
    std::fs::create_dir_all(&ctx.out)?;
    crate::output::write(
        &ctx.out,
        "run.json",
        serde_json::to_string_pretty(&info)?.as_bytes(),
    )?;
    let verdict = finish(
        &ctx.out,
        &reference,
        &names,
        Check {
            check: args.check,
            partial,
        },
        same_dir(&ctx.out, &reference),
    );
    let page = crate::report::write(&ctx.out)?;
    println!("report page: {}", page.display());
    verdict
}

/// Installs the datasets `which` needs that are not installed yet, one summary line each;
/// failures are reported and the experiments skip what is missing.
fn install_needed(which: &[Experiment], upstream: Option<String>, offline: bool) {
    let reg = graph_core::Registry::embedded();
    let dir = crate::datasets::data_dir();
    let mut names: Vec<&str> = which
        .iter()
        .flat_map(|&w| datasets_of(w).iter().copied())
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

/// What `--check` asks of a run.
#[derive(Clone, Copy, Debug)]
struct Check {
    /// `--check`: fail on a difference.
    check: bool,
    /// The run selected parts of an experiment (`--only`, `--tables`, `--parts`,
    /// `--budget-min`): reference rows it did not make are not failures.
    partial: bool,
}

/// Writes `<out>/comparison.{md,json}`, prints a summary, and fails under `--check` when a
/// number that should agree does not, or (for a whole run) a checked table lacks a reference row.
fn finish(
    out: &std::path::Path,
    reference: &std::path::Path,
    which: &[String],
    Check { check, partial }: Check,
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
    let unreferenced: Vec<&str> = cmp
        .tables
        .iter()
        .filter(|t| t.note == compare::NO_REFERENCE)
        .map(|t| t.table.as_str())
        .collect();
    println!(
        "comparison with {}: {} tables, {} agree, {} differ, {} shown only (other effort or seed), \
         {} reference rows missing, {} tables without a reference -> {}",
        reference.display(),
        cmp.tables.len(),
        count(compare::Verdict::Agree),
        count(compare::Verdict::Differ),
        count(compare::Verdict::Informational),
        cmp.missing_rows(),
        unreferenced.len(),
        out.join("comparison.md").display()
    );
    if !unreferenced.is_empty() {
        println!(
            "  not in the reference (shown only): {}",
            unreferenced.join(", ")
        );
    }
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
    if check && !partial && cmp.missing_rows() > 0 {
        for t in cmp.tables.iter().filter(|t| t.missing > 0) {
            println!(
                "  missing: {} lacks {} reference row(s)",
                t.table, t.missing
            );
        }
        bail!(
            "--check: {} reference row(s) missing from this run",
            cmp.missing_rows()
        );
    }
    Ok(())
}
