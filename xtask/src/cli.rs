//! The command line of `cargo xtask`: every command and flag, typed (clap). An unknown flag or
//! value is an error naming it; `--help` on any command lists its flags.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Project automation for dpgraph: datasets, the experiments of the papers, benchmarks, CI.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask")]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Registry datasets: list, install, verify ($DPGRAPH_DATA, default ./data).
    #[command(subcommand)]
    Datasets(DatasetsCommand),
    /// Reproduce the experiments into target/repro (CSV, JSON, Markdown, SVG) and compare
    /// them with the committed reference results in results/.
    Repro(ReproArgs),
    /// Redraw the plots of a results folder from its tables (JSON) and write its report page
    /// `<dir>/index.html` (no experiment is rerun); `--dir results` redraws the committed
    /// reference results.
    Report {
        /// The results folder (a `repro --out` folder, or `results`).
        #[arg(long, default_value = "target/repro")]
        dir: std::path::PathBuf,
    },
    /// Source hygiene: every .rs starts with //!, no todo!/unimplemented!/dbg!.
    Tidy,
    /// Run the criterion benchmarks (release); extra arguments go to `cargo bench`.
    Bench {
        /// Arguments passed to `cargo bench --workspace`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// The project's one test command: `cargo test --workspace` (extra arguments go to it), then
    /// the Python package built by maturin into target/py-venv and its pytest suite
    /// (python/tests). Fails when either fails, or when pytest collects no test.
    Test {
        /// Skip the Python part (no venv, no maturin).
        #[arg(long)]
        no_python: bool,
        /// The Python interpreter that makes the venv.
        #[arg(long, default_value = "python3")]
        python: String,
        /// Arguments passed to `cargo test --workspace`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// EdgeRefine end to end as a user runs it: the library, the CLI (with the binary report)
    /// and a numpy script side by side, with their ratios (`benches/numpy/edgerefine.py`).
    BenchE2e(crate::bench_e2e::E2eArgs),
    /// What .ci/run checks: fmt --check, clippy -D warnings, test --workspace, tidy.
    Ci,
}

/// `cargo xtask datasets …`.
#[derive(Debug, Subcommand)]
pub(crate) enum DatasetsCommand {
    /// Registry datasets and whether they are installed.
    List,
    /// Install datasets: the embedded copy, else the registry's upstream archives.
    Install {
        /// Dataset names (see `datasets list`).
        names: Vec<String>,
        /// Install every registry dataset.
        #[arg(long, conflicts_with = "names")]
        all: bool,
        #[command(flatten)]
        source: SourceArgs,
        /// A mirror of converted files to install from instead [env: DPGRAPH_MIRROR].
        #[arg(long, value_name = "DIR_OR_URL")]
        from: Option<String>,
    },
    /// Re-check the SHA-256 of installed datasets (default: all installed).
    Verify {
        /// Dataset names.
        names: Vec<String>,
    },
}

/// Where upstream archives come from.
#[derive(Debug, Args)]
pub(crate) struct SourceArgs {
    /// Read upstream archives from this directory or URL, standing in for every upstream
    /// host [env: DPGRAPH_UPSTREAM].
    #[arg(long, value_name = "DIR_OR_URL")]
    pub(crate) upstream: Option<String>,
    /// Never download: datasets that are not installed and not embedded are skipped.
    #[arg(long)]
    pub(crate) offline: bool,
}

/// A value of the old edgerefine `--parts` flag, kept as a hidden alias for one release: one of
/// edgerefine's tables, or a node dataset of its grid (`--tables accuracy --only DATASET`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OldPart {
    /// `blink`, `mutag`, `rae`, `edge-count`, `k-sweep`, `k-sweep-models` or `calibrations`.
    Table(ReproTable),
    /// `cora`, `acm`, `dblp` or `amap`.
    Dataset(&'static str),
}

impl std::str::FromStr for OldPart {
    type Err = String;

    /// A part's name, case-insensitive.
    fn from_str(s: &str) -> Result<Self, String> {
        const DATASETS: [&str; 4] = ["cora", "acm", "dblp", "amap"];
        let name = s.trim().to_ascii_lowercase();
        if let Some(d) = DATASETS.iter().find(|d| **d == name) {
            return Ok(Self::Dataset(d));
        }
        match ReproTable::from_str(&name, true) {
            Ok(
                t @ (ReproTable::Blink
                | ReproTable::Mutag
                | ReproTable::Rae
                | ReproTable::EdgeCount
                | ReproTable::KSweep
                | ReproTable::KSweepModels
                | ReproTable::Calibrations),
            ) => Ok(Self::Table(t)),
            _ => Err(format!(
                "unknown part {s:?} (blink, mutag, rae, edge-count, k-sweep, k-sweep-models, calibrations, cora, acm, dblp, amap)"
            )),
        }
    }
}

/// One of `count` processes that share a node grid (`--shard index/count`): it runs the chunks
/// whose position in the dataset's grid is `index` modulo `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shard {
    /// This process's share, `0 ≤ index < count`.
    pub(crate) index: usize,
    /// How many processes share the grid (≥ 1).
    pub(crate) count: usize,
}

impl Shard {
    /// Whether the chunk at `position` in a dataset's grid is this shard's.
    pub(crate) fn owns(self, position: usize) -> bool {
        position % self.count == self.index
    }
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// `"K/N"` with `N ≥ 1` and `K < N`.
    fn from_str(s: &str) -> Result<Self, String> {
        let (k, n) = s
            .split_once('/')
            .ok_or_else(|| format!("expected K/N (e.g. 0/2), got {s:?}"))?;
        let parse = |x: &str| {
            x.trim()
                .parse::<usize>()
                .map_err(|_| format!("expected K/N with whole numbers, got {s:?}"))
        };
        let (index, count) = (parse(k)?, parse(n)?);
        if count == 0 || index >= count {
            return Err(format!("expected K/N with 0 ≤ K < N, got {s:?}"));
        }
        Ok(Self { index, count })
    }
}

/// An experiment of `cargo xtask repro`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Experiment {
    /// Installed datasets checked against the registry; generators and partitions.
    Foundation,
    /// GCN/GAT/GIN/MLP on Cora and GIN on MUTAG (EdgeRefine's protocol), against the
    /// required accuracies.
    Gnn,
    /// The homdp tables: main, Q1, Q2 and the privacy–utility curve.
    Homdp,
    /// EdgeRefine: accuracy over ε of GNNs on every method's releases, PUBI, the attack.
    Edgerefine,
    /// CE-FedGNN against its baselines and ablations with the paper's values and ordering; F1 over K; ε(p) over σ₀; the attribute-inference attack.
    Cefedgnn,
}

impl Experiment {
    /// Every experiment, in run order.
    pub(crate) const ALL: [Self; 5] = [
        Self::Foundation,
        Self::Gnn,
        Self::Homdp,
        Self::Edgerefine,
        Self::Cefedgnn,
    ];

    /// The name of its output folder.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Foundation => "foundation",
            Self::Gnn => "gnn",
            Self::Homdp => "homdp",
            Self::Edgerefine => "edgerefine",
            Self::Cefedgnn => "cefedgnn",
        }
    }
}

/// A table of `cargo xtask repro` (`--tables`), named by the experiment that writes it. Each
/// experiment runs the tables of its own that are named (none named: all of them); the claims
/// tables of homdp and edgerefine are made from the tables on disk after every run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ReproTable {
    /// homdp: the main table (every dataset, ρ = 0.01 and ∞, the attack, the GIN baselines).
    Main,
    /// homdp: Q1, SBM, cycles against trees.
    Q1,
    /// homdp: Q2, HIV, treewidth of the patterns.
    Q2,
    /// homdp: the privacy–utility curve.
    Curve,
    /// homdp: Appendix D.3, the global (counting-lemma) sensitivity against the bounded-degree
    /// bounds.
    Sensitivity,
    /// homdp: the theory as experiments (1-WL-equivalent pairs separated by averaged releases;
    /// σ² over e(F)²).
    Theory,
    /// edgerefine: the node grid over the datasets of --only (accuracy, releases, PUBI, speed,
    /// claims).
    Accuracy,
    /// edgerefine: the Blink comparison on Cora.
    Blink,
    /// edgerefine: the MUTAG table.
    Mutag,
    /// edgerefine: the reconstruction attack.
    Rae,
    /// edgerefine: what not knowing E costs.
    EdgeCount,
    /// edgerefine: the k sweep and the calibration variants.
    KSweep,
    /// edgerefine: the k sweep with GAT and GIN (the artifact's Table 7).
    KSweepModels,
    /// edgerefine: the artifact's other calibrations (isotonic, beta, temperature, Adamic–Adar, …).
    Calibrations,
    /// cefedgnn: every method on every setting over every seed (and the ordering table).
    Methods,
    /// cefedgnn: the K sweep of the primary settings.
    LocalSteps,
    /// cefedgnn: the σ₀ sweep.
    Privacy,
    /// cefedgnn: the attacks over σ₀ (remote labels, remote links, attribute inference).
    Attack,
    /// cefedgnn: where ε(p) means something (the released rows' norms and distances, ε(p) at
    /// them).
    Radius,
    /// cefedgnn: the cost of each approximation, from centralised to CE-FedGNN (random
    /// partitions).
    Approximations,
    /// cefedgnn: the T sweep of the primary settings under the convergence theorem's schedule.
    Convergence,
    /// cefedgnn: CE-FedGNN over the clip norm C at equal noise and at equal σ₀.
    Clip,
    /// cefedgnn: the claims table, from the tables in --out (runs nothing else).
    Claims,
}

/// `cargo xtask repro …`.
#[derive(Debug, Args)]
#[command(after_help = "\
Every table records the seed, the parameters and the git revision; every run ends with
<out>/comparison.md against the reference. Datasets an experiment needs are installed on first
use (embedded copies, then upstream downloads). Environment: DPGRAPH_DATA (data directory),
DPGRAPH_UPSTREAM (as --upstream), DPGRAPH_MIRROR (install from a mirror of converted files).")]
pub(crate) struct ReproArgs {
    /// Experiments to run (default: all, in this order).
    #[arg(value_enum)]
    pub(crate) experiments: Vec<Experiment>,
    /// Minutes on 2 cores (the default).
    #[arg(long, conflicts_with = "full")]
    pub(crate) quick: bool,
    /// The full-size experiments.
    #[arg(long)]
    pub(crate) full: bool,
    /// Master seed.
    #[arg(long, default_value_t = 42)]
    pub(crate) seed: u64,
    /// Where the run writes (default target/repro; the reference folder needs
    /// --update-reference).
    #[arg(long, value_name = "DIR")]
    pub(crate) out: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) source: SourceArgs,
    /// Exit non-zero when a number that should agree with the reference does not.
    #[arg(long)]
    pub(crate) check: bool,
    /// The reference results to compare with (default results/).
    #[arg(long, value_name = "DIR")]
    pub(crate) reference: Option<PathBuf>,
    /// Allow --out to be the reference folder (rewrites committed results).
    #[arg(long)]
    pub(crate) update_reference: bool,
    /// Run the per-dataset tables only on these datasets or settings (comma-separated,
    /// case-insensitive): homdp's main table, curve and sensitivity (Q1 needs SBM, Q2 HIV) and
    /// edgerefine's node grid by dataset name (e.g. BBBP,cora), cefedgnn's settings whose label
    /// contains one (e.g. citeseer,aml-gen-2000); the other rows are kept from the tables in
    /// --out.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "NAMES",
        alias = "fed-settings"
    )]
    pub(crate) only: Vec<String>,
    /// Run and write only these tables (comma-separated; default: every table of each
    /// experiment); the others are left as they are in --out.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        value_name = "TABLES",
        alias = "fed-tables"
    )]
    pub(crate) tables: Vec<ReproTable>,
    /// Old edgerefine selection, kept for one release: a dataset part is `--tables accuracy
    /// --only DATASET`, another part `--tables PART`.
    #[arg(long, value_delimiter = ',', value_name = "PARTS", hide = true)]
    pub(crate) parts: Vec<OldPart>,
    /// Reuse what an earlier run in --out (or the committed reference) finished under the same
    /// plan: edgerefine's tables and (ε, seed) chunks, homdp's GIN trainings (each cached as it
    /// finishes; the reference's are copied into --out), cefedgnn's settings whose selected
    /// tables this git revision already wrote (tables are written after each setting).
    #[arg(long)]
    pub(crate) resume: bool,
    /// Start no new cached cell (an edgerefine chunk) after this many minutes; the tables say
    /// what is left for a later --resume.
    #[arg(long, value_name = "MINUTES")]
    pub(crate) budget_min: Option<f64>,
    /// Run only the cells (edgerefine's node-grid chunks) whose position in their grid is K
    /// modulo N, so that N processes (e.g. one thread each: RAYON_NUM_THREADS=1) fill one
    /// --out side by side; the others' chunks are read back with --resume or left for a later
    /// --resume run, which writes the complete tables.
    #[arg(long, value_name = "K/N")]
    pub(crate) shard: Option<Shard>,
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::{Cli, Command, Shard};

    fn shard_of(args: &[&str]) -> Result<Option<Shard>, String> {
        let argv = ["xtask", "repro", "edgerefine"].iter().chain(args);
        match Cli::try_parse_from(argv).map(|cli| cli.command) {
            Ok(Command::Repro(r)) => Ok(r.shard),
            Ok(other) => panic!("parsed as {other:?}"),
            Err(e) => Err(e.to_string()),
        }
    }

    #[test]
    fn shard_parses_k_of_n_and_refuses_the_rest_naming_it() {
        assert_eq!(shard_of(&[]), Ok(None));
        assert_eq!(
            shard_of(&["--shard", "1/2"]),
            Ok(Some(Shard { index: 1, count: 2 }))
        );
        for bad in ["2/2", "0/0", "1", "a/2", "1/x", "1/2/3"] {
            let e = shard_of(&["--shard", bad]).expect_err(bad);
            assert!(e.contains(bad), "{bad}: {e}");
        }
    }

    #[test]
    fn shards_split_the_positions_between_them_once_each() {
        let shards = [
            Shard { index: 0, count: 3 },
            Shard { index: 1, count: 3 },
            Shard { index: 2, count: 3 },
        ];
        for position in 0..40 {
            let owners = shards.iter().filter(|s| s.owns(position)).count();
            assert_eq!(owners, 1, "position {position}");
        }
        assert!(Shard { index: 0, count: 1 }.owns(7));
    }
}
