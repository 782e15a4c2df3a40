//! `dpgraph fed simulate`: one federated CE-FedGNN run (or a baseline) on a citation graph or an
//! AML graph, with a progress bar and the JSON report of CLI.md.

use std::io::IsTerminal;

use anyhow::{Context, Result, bail};
use cefedgnn::aml::{load_amlworld_trans, load_by_name};
use cefedgnn::estimator::GradientMode;
use cefedgnn::ops::{RunOptions, TaskSpec};
use cefedgnn::train::{
    AmlSplit, AmlTaskOptions, FedTask, Method, ModelKind, PartitionKind, task_rng,
};
use clap::Subcommand;
use dp_core::params::{Delta, NoiseMultiplier};
use graph_core::Registry;
use graph_core::registry::Dataset;

use crate::datasets::{data_dir, load_named};
use serde_json::json;

use crate::{Global, emit};

/// The data of a federated run: which dataset and how it is split into clients.
#[derive(clap::Args, Debug)]
pub(crate) struct TaskArgs {
    /// Dataset: a citation graph (cora, acm, dblp, amap, …), an AML dataset (amlsim-small,
    /// amlworld-sample, …), or `aml-generated` (see --generate-accounts).
    #[arg(long, required_unless_present = "aml_file")]
    dataset: Option<String>,
    /// A bank's own AMLworld-format transaction file (`*_Trans.csv`, plain or gzipped, as the
    /// published HI/LI files: Timestamp, From Bank, Account, To Bank, Account, Amount Received,
    /// Receiving Currency, Amount Paid, Payment Currency, Payment Format, Is Laundering), read
    /// by the same checked loader as the registry's AMLworld sample; the task is named after
    /// the file.
    #[arg(long, value_name = "PATH", conflicts_with_all = ["dataset", "generate_accounts"])]
    aml_file: Option<std::path::PathBuf>,
    /// Number of clients N: citation graphs are partitioned into N (default 5); AML banks are
    /// grouped into N clients of about equal account counts (default: one client per bank).
    #[arg(long)]
    clients: Option<usize>,
    /// Split of AML accounts into training, validation and test (60/20/20): random (default)
    /// or time (by each account's first transaction, earliest training, as Multi-GNN splits
    /// AMLworld). Citation graphs have a random split only.
    #[arg(long, value_parser = crate::choices::parser::<AmlSplit>())]
    split: Option<AmlSplit>,
    /// Partition of citation graphs into clients.
    #[arg(long, value_parser = crate::choices::parser::<PartitionKind>(),
          default_value_t = PartitionKind::Random)]
    partition: PartitionKind,
    /// Generate an AML graph with this many accounts (dataset `aml-generated`).
    #[arg(long)]
    generate_accounts: Option<usize>,
    /// Banks of the generated AML graph.
    #[arg(long, default_value_t = 8)]
    banks: usize,
}

/// The settings of a run (`cefedgnn::ops::RunOptions`); unset ones take the task's preset.
#[derive(clap::Args, Debug)]
pub(crate) struct RunArgs {
    /// Rounds R after the bootstrap round.
    #[arg(long, default_value_t = 20)]
    rounds: u32,
    /// Local steps K per round.
    #[arg(long, default_value_t = 32)]
    local_steps: u32,
    /// Noise multiplier σ₀ (σ = σ₀·C).
    #[arg(long, default_value = "1", allow_negative_numbers = true)]
    sigma0: NoiseMultiplier,
    /// Metric radius p of ε(p) [default: 0.1·C].
    #[arg(long, allow_negative_numbers = true)]
    radius: Option<f64>,
    /// δ of ε(p).
    #[arg(long, default_value = "1e-5", allow_negative_numbers = true)]
    delta: Delta,
    /// Clip norm C of released rows [default: 2 on citation graphs, 1 on AML graphs]. Chosen
    /// from the released rows' norms (results/cefedgnn/clip.md, radius.md): on Cora the final
    /// rows' median norm is 1.83, so C = 2 clips about half of them (C = 1: 96 %); at σ₀ = 1 it
    /// costs no F1 on Cora's random split (0.725 vs 0.720) and halves ε(p) at every fixed
    /// radius p ≤ 2 with the same worst case ε(2C). On AML the rows' mean norm is 6.8 and more
    /// clipping is better: at equal noise σ the F1 does not depend on C while ε(2C) grows
    /// with it, and at σ₀ = 1 a larger C only adds noise (F1 0.778 at C = 1, 0.754 at C = 4).
    #[arg(long, allow_negative_numbers = true)]
    clip: Option<f64>,
    /// Model (default: GCN for citation graphs, GINE for AML).
    #[arg(long, value_parser = crate::choices::parser::<ModelKind>())]
    model: Option<ModelKind>,
    /// Learning rate η (default 0.2 for GCN, 0.01 for AML).
    #[arg(long)]
    lr: Option<f64>,
    /// Embedding MA rate γ.
    #[arg(long, default_value_t = 0.5, allow_negative_numbers = true)]
    gamma: f64,
    /// Gradient MA rate β.
    #[arg(long, default_value_t = 0.5, allow_negative_numbers = true)]
    beta: f64,
    /// Sampled neighbours per node and hop (0: all).
    #[arg(long)]
    fanout: Option<usize>,
    /// Hidden width (the width d of the shared layer; default 8 for GCN, as
    /// `FedTrainConfig::citation`, and 32 for AML).
    #[arg(long)]
    hidden: Option<usize>,
    /// Receiver-side averaging rate of noisy halo rows over rounds (running mean, then
    /// exponential with this rate; 1 = latest row only). Default: 0.1 for GCN, 1 for AML.
    #[arg(long)]
    halo_average: Option<f64>,
    /// Clip each step's gradient to this L2 norm (default: 5 for AML models, off for GCN).
    #[arg(long)]
    grad_clip: Option<f64>,
    /// What G tracks.
    #[arg(long, value_parser = crate::choices::parser::<GradientMode>(),
          default_value_t = GradientMode::Momentum)]
    gradient: GradientMode,
    /// Dropout (default 0.5 for GCN, 0.1 for AML).
    #[arg(long)]
    dropout: Option<f64>,
}

impl RunArgs {
    fn to_options(&self) -> RunOptions {
        RunOptions {
            rounds: self.rounds,
            local_steps: self.local_steps,
            sigma0: self.sigma0,
            radius: self.radius,
            delta: self.delta,
            clip: self.clip,
            model: self.model,
            lr: self.lr,
            gamma: self.gamma,
            beta: self.beta,
            fanout: self.fanout,
            hidden: self.hidden,
            halo_average: self.halo_average,
            grad_clip: self.grad_clip,
            gradient: self.gradient,
            dropout: self.dropout,
        }
    }
}

#[derive(Subcommand, Debug)]
pub(crate) enum FedCmd {
    /// One federated run: CE-FedGNN or a baseline; prints F1 per client, traffic and ε(p).
    Simulate {
        #[command(flatten)]
        task: TaskArgs,
        #[command(flatten)]
        options: RunArgs,
        /// Method.
        #[arg(long, value_parser = crate::choices::parser::<Method>(),
              default_value_t = Method::CeFedGnn)]
        method: Method,
    },
    /// Writes each client's own files (`OUT/org-<i>/{org.json,nodes.csv,edges.csv}`): the
    /// partition `simulate` uses with the same seed, for running the clients as separate
    /// organisations (Flower: see docs/src/getting-started/federation.md).
    Partition {
        #[command(flatten)]
        task: TaskArgs,
        /// Output folder (created; existing org folders are replaced file by file).
        #[arg(long)]
        out: std::path::PathBuf,
    },
}

impl TaskArgs {
    /// The task's name: the dataset in lower case, or the AML file's name.
    fn name(&self) -> String {
        match (&self.aml_file, &self.dataset) {
            (Some(path), _) => path
                .file_name()
                .map_or_else(|| "aml-file".into(), |f| f.to_string_lossy().into_owned()),
            (None, Some(d)) => d.to_ascii_lowercase(),
            // clap requires one of them.
            (None, None) => "aml-generated".into(),
        }
    }

    /// Whether the task is an AML one (account graph, GINE by default).
    fn is_aml(&self) -> bool {
        self.aml_file.is_some()
            || self.generate_accounts.is_some()
            || self.name().starts_with("aml")
    }

    /// The clients and split of an AML task.
    fn aml_options(&self) -> AmlTaskOptions {
        AmlTaskOptions {
            clients: self.clients,
            split: self.split.unwrap_or(AmlSplit::Random),
            ..AmlTaskOptions::default()
        }
    }
}

fn build_task(args: &TaskArgs, rng: &mut rand_chacha::ChaCha8Rng) -> Result<FedTask> {
    let name = args.name();
    let aml = args.is_aml();
    if !aml && args.split.is_some_and(|s| s != AmlSplit::Random) {
        bail!("--split time needs transaction times: only AML tasks have them");
    }
    let options = args.aml_options();
    let (tg, ds);
    let spec = if let Some(path) = &args.aml_file {
        tg = load_amlworld_trans(path)
            .with_context(|| format!("reading {}", path.display()))?
            .to_account_graph()?;
        TaskSpec::Accounts {
            name: &name,
            graph: &tg,
            options,
        }
    } else if name == "aml-generated" || args.generate_accounts.is_some() {
        TaskSpec::GeneratedAml {
            accounts: args.generate_accounts.unwrap_or(4000),
            banks: args.banks,
            options,
        }
    } else if aml {
        // Installed on first use where it can be (else the manual steps), then read by
        // cefedgnn's AML loader.
        if !Registry::embedded().get(&name)?.is_installed(&data_dir()) {
            load_named(&name)?;
        }
        tg = load_by_name(&name, &data_dir())
            .with_context(|| format!("loading {name}"))?
            .to_account_graph()?;
        TaskSpec::Accounts {
            name: &name,
            graph: &tg,
            options,
        }
    } else {
        let Dataset::Nodes(d) = load_named(&name)? else {
            bail!("{name} is not a node-classification dataset");
        };
        ds = d;
        TaskSpec::Nodes {
            dataset: &ds,
            clients: args.clients.unwrap_or(5),
            partition: args.partition,
        }
    };
    Ok(spec.build(rng)?)
}

/// The seed of the run's training randomness (task, initialisation, sampling, dropout): `--seed`,
/// else 64 bits of OS entropy. It is printed as `training_seed`; it never seeds noise.
fn training_seed(global: Global) -> Result<u64> {
    Ok(match global.seed {
        Some(s) => s,
        None => dp_core::rng::os_seed()?,
    })
}

fn partition(args: &TaskArgs, out: &std::path::Path, global: Global) -> Result<()> {
    // A partition releases nothing private: its seed only makes the folders reproducible.
    let seed = training_seed(global)?;
    let mut rng = task_rng(seed);
    let task = build_task(args, &mut rng)?;
    let dirs = cefedgnn::deploy::OrgData::write_all(&task, out)
        .with_context(|| format!("writing {}", out.display()))?;
    let clients: Vec<_> = task
        .fed
        .clients()
        .iter()
        .zip(&dirs)
        .map(|(c, d)| {
            json!({
                "client": c.id(),
                "dir": d,
                "nodes": c.nodes().len(),
                "boundary": c.boundary().len(),
                "halo": c.halo().len(),
            })
        })
        .collect();
    emit(
        global,
        &json!({
            "dataset": task.name,
            "clients": clients,
            "out": out,
            "seed": global.seed,
            "training_seed": seed,
        }),
    )
}

pub(crate) fn run(cmd: &FedCmd, global: Global) -> Result<()> {
    let (task_args, rest) = match cmd {
        FedCmd::Partition { task, out } => return partition(task, out, global),
        FedCmd::Simulate { task, .. } => (task, cmd),
    };
    let FedCmd::Simulate {
        task: _,
        options,
        method,
    } = rest
    else {
        unreachable!("matched above")
    };
    // Training randomness from a printed seed; the boundary noise from the OS CSPRNG unless
    // --seed asks for a reproducible (and therefore non-private) run.
    let seed = training_seed(global)?;
    let noise = dp_core::rng::NoiseSource::from_seed(global.seed);
    let task = build_task(task_args, &mut task_rng(seed))?;
    let cfg = options
        .to_options()
        .config(task_args.is_aml(), seed, noise)?;
    let bar = (!global.json && std::io::stderr().is_terminal()).then(|| {
        let b = indicatif::ProgressBar::new(u64::from(cfg.rounds) + 1);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} round {pos}/{len} {msg}")
                .expect("valid template"),
        );
        b
    });
    let (_, summary) = cefedgnn::ops::simulate(&task, &cfg, *method, &mut |info| {
        if let Some(b) = &bar {
            b.inc(1);
            if info.loss.is_finite() {
                b.set_message(format!("loss {:.3}", info.loss));
            }
        }
    })?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    emit(global, &summary)
}
