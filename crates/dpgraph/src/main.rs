//! `dpgraph`: the command-line tool for privacy-preserving graph learning.
//!
//! The command-line reference (every command's `--help`) is `docs/src/reference/cli.md`,
//! generated from this parser by the test in `cli_reference.rs`. Every command prints one line on stderr and exits non-zero on error;
//! `--json` prints exactly one JSON object on stdout.

mod account;
mod choices;
#[cfg(test)]
mod cli_reference;
mod datasets;
mod edgerefine_cmd;
mod fed_cmd;
mod graph;
mod homdp_cmd;

use clap::{Parser, Subcommand};

/// Privacy-preserving graph learning: private graph embeddings, local edge-DP graph release,
/// federated GNNs with metric-DP.
#[derive(Parser, Debug)]
#[command(name = "dpgraph", version, about, long_about = None)]
struct Cli {
    /// Print one JSON object on stdout instead of text.
    #[arg(long, global = true)]
    json: bool,
    /// Seed for reproducible randomness (echoed in the output). Without it, noise comes from
    /// the operating system's CSPRNG.
    #[arg(long, global = true)]
    seed: Option<u64>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Installed datasets and their counts.
    #[command(subcommand)]
    Datasets(datasets::DatasetsCmd),
    /// Graph statistics.
    #[command(subcommand)]
    Graph(graph::GraphCmd),
    /// EdgeRefine: local edge-DP graph release (owner: perturb; server: refine).
    #[command(subcommand)]
    Edgerefine(edgerefine_cmd::EdgeRefineCmd),
    /// homdp: homomorphism counts, densities and private embeddings.
    #[command(subcommand)]
    Homdp(homdp_cmd::HomdpCmd),
    /// CE-FedGNN: federated GNN training with metric-DP embedding exchange.
    #[command(subcommand)]
    Fed(fed_cmd::FedCmd),
    /// Privacy accounting: conversions between privacy measures.
    #[command(subcommand)]
    Account(account::AccountCmd),
    /// Every named choice (bounds, methods, models, …) with the names the flags accept.
    Choices,
}

/// Options every command sees.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Global {
    /// `--json`.
    pub(crate) json: bool,
    /// `--seed`.
    pub(crate) seed: Option<u64>,
}

fn main() {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => exit_on_usage_error(e),
    };
    let global = Global {
        json: cli.json,
        seed: cli.seed,
    };
    let result = match &cli.command {
        Command::Datasets(c) => datasets::run(c, global),
        Command::Graph(c) => graph::run(c, global),
        Command::Account(c) => account::run(c, global.json),
        Command::Edgerefine(c) => edgerefine_cmd::run(c, global),
        Command::Homdp(c) => homdp_cmd::run(c, global),
        Command::Fed(c) => fed_cmd::run(c, global),
        Command::Choices => choices::run(global),
    };
    if let Err(e) = result {
        eprintln!("error: {}", one_line(&e));
        std::process::exit(1);
    }
}

/// Help and version print as clap prints them; any other command-line error (an unknown flag,
/// a missing argument, a value its type refuses, such as `--eps 0`) prints one line and exits
/// with clap's usage status 2.
fn exit_on_usage_error(e: clap::Error) -> ! {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit()
    }
    let text = e.render().to_string();
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("invalid command line");
    eprintln!("{}", line.trim());
    std::process::exit(2);
}

/// The error and its causes on one line.
fn one_line(e: &anyhow::Error) -> String {
    e.chain()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(": ")
        .replace('\n', " ")
}

/// Prints `value` as one JSON object (with `--json`) or as `key: value` lines.
pub(crate) fn emit<T: serde::Serialize + ?Sized>(global: Global, value: &T) -> anyhow::Result<()> {
    let value = serde_json::to_value(value)?;
    if global.json {
        println!("{}", serde_json::to_string(&value)?);
    } else if let serde_json::Value::Object(m) = &value {
        for (k, v) in m {
            match v {
                serde_json::Value::String(s) => println!("{k}: {s}"),
                other => println!("{k}: {other}"),
            }
        }
    } else {
        println!("{value}");
    }
    Ok(())
}

/// An operation's summary and the file the command wrote it to: the summary's keys (those
/// Python's dict has) plus `out`.
#[derive(serde::Serialize)]
pub(crate) struct Written<T> {
    #[serde(flatten)]
    summary: T,
    out: String,
}

impl<T> Written<T> {
    pub(crate) fn new(summary: T, out: &std::path::Path) -> Self {
        Self {
            summary,
            out: out.display().to_string(),
        }
    }
}
