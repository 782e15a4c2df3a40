//! `cargo xtask repro [EXPERIMENT…] [--quick|--full] [--seed S] [--out DIR]`.
//!
//! Each experiment writes `<out>/<experiment>/<table>.{csv,json,md}` and a plot (`.svg`), with the
//! seed, parameters and git revision recorded in every table.

mod cefedgnn;
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

pub(crate) fn run(args: &[String]) -> Result<()> {
    let mut effort = Effort::Quick;
    let mut seed = 42u64;
    let mut out = crate::project_root().join("results");
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
    let ctx = Ctx {
        effort,
        seed,
        out,
        revision: crate::git_revision(),
    };
    for w in which {
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
    Ok(())
}
