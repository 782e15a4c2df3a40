//! `dpgraph fed simulate`: one federated CE-FedGNN run (or a baseline) on a citation graph or an
//! AML graph, with a progress bar and the JSON report of CLI.md.

use std::io::IsTerminal;

use anyhow::{Context, Result, bail};
use cefedgnn::aml::{AmlGenConfig, generate, load_amlworld_trans, load_by_name};
use cefedgnn::estimator::GradientMode;
use cefedgnn::train::{
    AmlSplit, AmlTaskOptions, FedTask, FedTrainConfig, Method, ModelKind, PartitionKind, simulate,
    task_rng,
};
use clap::Subcommand;
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

#[derive(Subcommand, Debug)]
pub(crate) enum FedCmd {
    /// One federated run: CE-FedGNN or a baseline; prints F1 per client, traffic and ε(p).
    Simulate {
        #[command(flatten)]
        task: TaskArgs,
        /// Rounds R after the bootstrap round.
        #[arg(long, default_value_t = 20)]
        rounds: u32,
        /// Local steps K per round.
        #[arg(long, default_value_t = 32)]
        local_steps: u32,
        /// Noise multiplier σ₀ (σ = σ₀·C).
        #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
        sigma0: f64,
        /// Metric radius p of ε(p) [default: 0.1·C].
        #[arg(long, allow_negative_numbers = true)]
        radius: Option<f64>,
        /// δ of ε(p).
        #[arg(long, default_value_t = 1e-5)]
        delta: f64,
        /// Clip norm C of released rows [default: 2 on citation graphs, 1 on AML graphs]. Chosen
        /// from the released rows' norms (results/cefedgnn/clip.md, radius.md): on Cora the final
        /// rows' median norm is 1.83, so C = 2 clips about half of them (C = 1: 96 %); at σ₀ = 1 it
        /// costs no F1 on Cora's random split (0.725 vs 0.720) and halves ε(p) at every fixed
        /// radius p ≤ 2 with the same worst case ε(2C). On AML the rows' mean norm is 6.8 and more
        /// clipping is better: at equal noise σ the F1 does not depend on C while ε(2C) grows
        /// with it, and at σ₀ = 1 a larger C only adds noise (F1 0.778 at C = 1, 0.754 at C = 4).
        #[arg(long, allow_negative_numbers = true)]
        clip: Option<f64>,
        /// Method.
        #[arg(long, value_parser = crate::choices::parser::<Method>(),
              default_value_t = Method::CeFedGnn)]
        method: Method,
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
    },
    /// Writes each client's own files (`OUT/org-<i>/{org.json,nodes.csv,edges.csv}`): the
    /// partition `simulate` uses with the same seed, for running the clients as separate
    /// organisations (Flower: see the README, "Run a federation").
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
    Ok(if let Some(path) = &args.aml_file {
        let tg =
            load_amlworld_trans(path).with_context(|| format!("reading {}", path.display()))?;
        FedTask::from_account_graph_with(&name, &tg.to_account_graph()?, &options, rng)?
    } else if name == "aml-generated" || args.generate_accounts.is_some() {
        let accounts = args.generate_accounts.unwrap_or(4000);
        let cfg = AmlGenConfig {
            num_banks: args.banks,
            num_accounts: accounts,
            num_normal: accounts * 10,
            ..AmlGenConfig::default()
        };
        let tg = generate(&cfg, rng)?;
        FedTask::from_account_graph_with("aml-generated", &tg.to_account_graph()?, &options, rng)?
    } else if aml {
        // Installed on first use where it can be (else the manual steps), then read by
        // cefedgnn's AML loader.
        if !Registry::embedded().get(&name)?.is_installed(&data_dir()) {
            load_named(&name)?;
        }
        let tg = load_by_name(&name, &data_dir()).with_context(|| format!("loading {name}"))?;
        FedTask::from_account_graph_with(&name, &tg.to_account_graph()?, &options, rng)?
    } else {
        let Dataset::Nodes(ds) = load_named(&name)? else {
            bail!("{name} is not a node-classification dataset");
        };
        let part = args.partition;
        FedTask::from_node_dataset(&ds, args.clients.unwrap_or(5), part, 0.2, 0.2, rng)?
    })
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
        rounds,
        local_steps,
        sigma0,
        radius,
        delta,
        clip,
        method,
        model,
        lr,
        gamma,
        beta,
        fanout,
        hidden,
        halo_average,
        grad_clip,
        gradient,
        dropout,
    } = rest
    else {
        unreachable!("matched above")
    };
    // Training randomness from a printed seed; the boundary noise from the OS CSPRNG unless
    // --seed asks for a reproducible (and therefore non-private) run.
    let seed = training_seed(global)?;
    let noise = dp_core::rng::NoiseSource::from_seed(global.seed);
    let mut rng = task_rng(seed);
    let aml = task_args.is_aml();
    let task = build_task(task_args, &mut rng)?;
    let model = model.unwrap_or(if aml { ModelKind::Gine } else { ModelKind::Gcn });
    let base = if aml {
        FedTrainConfig::aml(model)
    } else {
        FedTrainConfig::citation()
    };
    let clip = clip.unwrap_or(base.clip);
    let cfg = FedTrainConfig {
        model,
        hidden: hidden.unwrap_or(base.hidden),
        dropout: dropout.unwrap_or(base.dropout),
        halo_average: match halo_average {
            Some(a) if *a == 1.0 => None,
            Some(a) => Some(*a),
            None => base.halo_average,
        },
        grad_clip: grad_clip.or(base.grad_clip),
        gradient: *gradient,
        local_steps: *local_steps,
        rounds: *rounds,
        lr: lr.unwrap_or(base.lr),
        gamma: *gamma,
        beta: *beta,
        fanout: match fanout {
            Some(0) => None,
            Some(f) => Some(*f),
            None => Some(if aml { 100 } else { 10 }),
        },
        clip,
        sigma0: *sigma0,
        radius: radius.unwrap_or(0.1 * clip),
        delta: *delta,
        seed,
        noise,
        ..base
    };
    cfg.check()?;
    let bar = (!global.json && std::io::stderr().is_terminal()).then(|| {
        let b = indicatif::ProgressBar::new(u64::from(*rounds) + 1);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} round {pos}/{len} {msg}")
                .expect("valid template"),
        );
        b
    });
    let report = simulate(&task, &cfg, *method, &mut |info| {
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
    let stats = task.fed.stats()?;
    let eps = report.privacy.as_ref().map(|p| p.eps_rdp);
    emit(
        global,
        &json!({
            "dataset": task.name,
            "method": report.method,
            "model": model.name(),
            "clients": task.fed.num_clients(),
            "cross_edge_fraction": stats.cross_fraction,
            "rounds": report.rounds,
            "local_steps": report.local_steps,
            "f1_mean": report.f1_mean,
            "f1_mean_present": report.f1_mean_present,
            "f1_per_client": report.f1_per_client,
            "f1_pooled": report.f1_pooled,
            "val_f1_mean": report.val_f1_mean,
            "metric": format!("{:?}", task.metric),
            "bytes_up": report.bytes_up,
            "bytes_down": report.bytes_down,
            "bytes_per_round": report.bytes_per_round,
            "embedding_bytes_per_round": report.embedding_bytes_per_round,
            "eps": eps,
            "radius": cfg.radius,
            "delta": cfg.delta,
            "sigma0": cfg.sigma0,
            "clip": cfg.clip,
            "hidden": cfg.hidden,
            "halo_average": cfg.halo_average,
            "boundary_norm_mean": report.norms.mean_norm(),
            "clipped_fraction": report.norms.clipped_fraction(),
            "privacy": report.privacy,
            "not_covered": cefedgnn::privacy::NOT_COVERED,
            "seed": global.seed,
            "training_seed": seed,
            "noise": noise.record(),
            "wire_digest": report.wire_digest,
            "seconds": report.seconds,
        }),
    )
}
