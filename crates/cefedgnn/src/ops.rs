//! A federated run as an operation: a task, typed run options and a method in; the report and a
//! serialisable summary (the guarantee included) out.
//!
//! `dpgraph fed simulate` prints the summary as JSON or text and Python's
//! `dpgraph.fed.simulate` converts the same value to a dict, so the two records cannot drift
//! apart: a test compares them key by key. Both build the training configuration from the same
//! [`RunOptions`] (the command's flags and the function's keywords).
//!
//! # Example
//! ```
//! use cefedgnn::ops::{RunOptions, TaskSpec, simulate};
//! use cefedgnn::train::{AmlTaskOptions, Method, task_rng};
//! use dp_core::rng::NoiseSource;
//!
//! let seed = 7;
//! let spec = TaskSpec::GeneratedAml { accounts: 200, banks: 3, options: AmlTaskOptions::default() };
//! let task = spec.build(&mut task_rng(seed))?;
//! let options = RunOptions { rounds: 1, local_steps: 1, ..RunOptions::default() };
//! let cfg = options.config(true, seed, NoiseSource::from_seed(Some(seed)))?;
//! let (_, summary) = simulate(&task, &cfg, Method::CeFedGnn, &mut |_| {})?;
//! assert_eq!(summary.rounds, 1);
//! assert!(summary.eps.is_some_and(|e| e > 0.0)); // ε(p) of the boundary rows released
//! # Ok::<(), cefedgnn::FedError>(())
//! ```

use dp_core::params::{Delta, NoiseMultiplier};
use dp_core::rng::{NoiseRecord, NoiseSource};
use serde::Serialize;

use crate::aml::{AccountGraph, AmlGenConfig, generate};
use crate::error::Result;
use crate::estimator::GradientMode;
use crate::privacy::{NOT_COVERED, PrivacyReport};
use crate::train::{
    AmlTaskOptions, FedReport, FedTask, FedTrainConfig, Method, ModelKind, PartitionKind, RoundInfo,
};

/// Where a run's task comes from, once its data are loaded.
#[derive(Clone, Copy, Debug)]
pub enum TaskSpec<'a> {
    /// A node-classification dataset split into `clients` by `partition` (20 % validation,
    /// 20 % test).
    Nodes {
        /// The dataset.
        dataset: &'a graph_core::NodeDataset,
        /// Number of clients.
        clients: usize,
        /// How nodes are assigned to clients.
        partition: PartitionKind,
    },
    /// An account graph (AML) named `name`, banks grouped into clients per `options`.
    Accounts {
        /// The task's name.
        name: &'a str,
        /// The graph.
        graph: &'a AccountGraph,
        /// Clients and split.
        options: AmlTaskOptions,
    },
    /// A generated AML graph of `accounts` accounts (ten normal transactions each) at `banks`
    /// banks (`aml-generated`).
    GeneratedAml {
        /// Accounts.
        accounts: usize,
        /// Banks.
        banks: usize,
        /// Clients and split.
        options: AmlTaskOptions,
    },
}

impl TaskSpec<'_> {
    /// The task, drawing its split (and a generated graph) from `rng`.
    ///
    /// # Errors
    /// The generator's and the task builders' errors (too few nodes for the clients, …).
    pub fn build(&self, rng: &mut dp_core::rng::ChaCha8Rng) -> Result<FedTask> {
        match *self {
            Self::Nodes {
                dataset,
                clients,
                partition,
            } => FedTask::from_node_dataset(dataset, clients, partition, 0.2, 0.2, rng),
            Self::Accounts {
                name,
                graph,
                options,
            } => FedTask::from_account_graph_with(name, graph, &options, rng),
            Self::GeneratedAml {
                accounts,
                banks,
                options,
            } => {
                let cfg = AmlGenConfig {
                    num_banks: banks,
                    num_accounts: accounts,
                    num_normal: accounts * 10,
                    ..AmlGenConfig::default()
                };
                let graph = generate(&cfg, rng)?.to_account_graph()?;
                FedTask::from_account_graph_with("aml-generated", &graph, &options, rng)
            }
        }
    }
}

/// The settings of a run that a user chooses (`dpgraph fed simulate`'s flags, Python's
/// keywords); `None` takes the task's preset ([`FedTrainConfig::citation`] or
/// [`FedTrainConfig::aml`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunOptions {
    /// Rounds R after the bootstrap round.
    pub rounds: u32,
    /// Local steps K per round.
    pub local_steps: u32,
    /// Noise multiplier σ₀ (σ = σ₀·C).
    pub sigma0: NoiseMultiplier,
    /// Metric radius p of ε(p) (`None`: 0.1·C).
    pub radius: Option<f64>,
    /// δ of ε(p).
    pub delta: Delta,
    /// Clip norm C of released rows.
    pub clip: Option<f64>,
    /// Model (`None`: GCN for citation graphs, GINE for AML).
    pub model: Option<ModelKind>,
    /// Learning rate η.
    pub lr: Option<f64>,
    /// Embedding MA rate γ.
    pub gamma: f64,
    /// Gradient MA rate β.
    pub beta: f64,
    /// Sampled neighbours per node and hop (`Some(0)`: all; `None`: 10, or 100 on AML).
    pub fanout: Option<usize>,
    /// Hidden width.
    pub hidden: Option<usize>,
    /// Receiver-side averaging rate of noisy halo rows (`Some(1.0)`: latest row only).
    pub halo_average: Option<f64>,
    /// Per-step gradient clip norm.
    pub grad_clip: Option<f64>,
    /// What G tracks.
    pub gradient: GradientMode,
    /// Dropout.
    pub dropout: Option<f64>,
}

impl Default for RunOptions {
    /// 20 rounds of 32 local steps, σ₀ = 1, δ = 1e-5, γ = β = 0.5, momentum; the rest from the
    /// task's preset.
    fn default() -> Self {
        Self {
            rounds: 20,
            local_steps: 32,
            sigma0: NoiseMultiplier::ONE,
            radius: None,
            delta: Delta::TEN_TO_MINUS_5,
            clip: None,
            model: None,
            lr: None,
            gamma: 0.5,
            beta: 0.5,
            fanout: None,
            hidden: None,
            halo_average: None,
            grad_clip: None,
            gradient: GradientMode::Momentum,
            dropout: None,
        }
    }
}

impl RunOptions {
    /// The checked training configuration for an AML task (`aml`) or a citation task, with
    /// training randomness from `seed` and boundary noise from `noise`.
    ///
    /// # Errors
    /// [`FedTrainConfig::check`]'s: a value outside its domain (σ₀ < 0, δ ∉ (0, 1), K = 0, …).
    pub fn config(&self, aml: bool, seed: u64, noise: NoiseSource) -> Result<FedTrainConfig> {
        let model = self
            .model
            .unwrap_or(if aml { ModelKind::Gine } else { ModelKind::Gcn });
        let base = if aml {
            FedTrainConfig::aml(model)
        } else {
            FedTrainConfig::citation()
        };
        let clip = self.clip.unwrap_or(base.clip);
        let cfg = FedTrainConfig {
            model,
            hidden: self.hidden.unwrap_or(base.hidden),
            dropout: self.dropout.unwrap_or(base.dropout),
            halo_average: match self.halo_average {
                Some(1.0) => None,
                Some(a) => Some(a),
                None => base.halo_average,
            },
            grad_clip: self.grad_clip.or(base.grad_clip),
            gradient: self.gradient,
            local_steps: self.local_steps,
            rounds: self.rounds,
            lr: self.lr.unwrap_or(base.lr),
            gamma: self.gamma,
            beta: self.beta,
            fanout: match self.fanout {
                Some(0) => None,
                Some(f) => Some(f),
                None => Some(if aml { 100 } else { 10 }),
            },
            clip,
            sigma0: self.sigma0,
            radius: self.radius.unwrap_or(0.1 * clip),
            delta: self.delta,
            seed,
            noise,
            ..base
        };
        cfg.check()?;
        Ok(cfg)
    }
}

/// The record of a federated run: what `dpgraph fed simulate --json` prints and what Python's
/// `fed.simulate` returns as its dict.
#[derive(Clone, Debug, Serialize)]
pub struct SimulationSummary {
    /// Task name.
    pub dataset: String,
    /// Method name.
    pub method: &'static str,
    /// Model name.
    pub model: &'static str,
    /// Number of clients.
    pub clients: usize,
    /// Share of edges between clients.
    pub cross_edge_fraction: f64,
    /// Rounds after the bootstrap.
    pub rounds: u32,
    /// Local steps per round.
    pub local_steps: u32,
    /// Mean per-client test F1.
    pub f1_mean: f64,
    /// Mean per-client macro-F1 over the classes present.
    pub f1_mean_present: f64,
    /// Test F1 per client.
    pub f1_per_client: Vec<Option<f64>>,
    /// Test F1 over all clients' test nodes.
    pub f1_pooled: f64,
    /// Mean per-client validation F1.
    pub val_f1_mean: f64,
    /// The F1 the task reports (`BinaryF1` or `MacroF1`).
    pub metric: String,
    /// Client → server bytes.
    pub bytes_up: u64,
    /// Server → client bytes.
    pub bytes_down: u64,
    /// Bytes per exchange.
    pub bytes_per_round: f64,
    /// Embedding-row bytes per exchange.
    pub embedding_bytes_per_round: f64,
    /// The guarantee: the largest ε(p) of any client (`None` without releases).
    pub eps: Option<f64>,
    /// Metric radius p.
    pub radius: f64,
    /// δ.
    pub delta: Delta,
    /// Noise multiplier σ₀.
    pub sigma0: NoiseMultiplier,
    /// Clip norm C.
    pub clip: f64,
    /// Hidden width.
    pub hidden: usize,
    /// Halo averaging rate.
    pub halo_average: Option<f64>,
    /// Mean pre-clipping norm of the released rows.
    pub boundary_norm_mean: f64,
    /// Share of released rows that were clipped.
    pub clipped_fraction: f64,
    /// The privacy report of the client with the largest ε(p).
    pub privacy: Option<PrivacyReport>,
    /// What the guarantee does not cover.
    pub not_covered: &'static str,
    /// The noise seed of a reproducible (not private) run.
    pub seed: Option<u64>,
    /// The seed of the training randomness (never of noise).
    pub training_seed: u64,
    /// The noise record.
    pub noise: NoiseRecord,
    /// SHA-256 of every frame exchanged.
    pub wire_digest: Option<String>,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// Runs `method` on `task` under `cfg` ([`crate::train::simulate`], `on_round` after each
/// round) and returns the report with its summary.
///
/// # Errors
/// [`crate::train::simulate`]'s.
///
/// # Privacy
/// The boundary rows each client releases are ε(p)-metric-DP per the summary's `privacy`
/// (Gaussian releases composed over rounds, [`crate::privacy`]); `not_covered` says what is
/// outside the guarantee. With a seeded `cfg.noise` the run is reproducible and not private.
pub fn simulate(
    task: &FedTask,
    cfg: &FedTrainConfig,
    method: Method,
    on_round: &mut dyn FnMut(RoundInfo),
) -> Result<(FedReport, SimulationSummary)> {
    let report = crate::train::simulate(task, cfg, method, on_round)?;
    let stats = task.fed.stats()?;
    let noise = cfg.noise.record();
    let summary = SimulationSummary {
        dataset: task.name.clone(),
        method: report.method,
        model: cfg.model.name(),
        clients: task.fed.num_clients(),
        cross_edge_fraction: stats.cross_fraction,
        rounds: report.rounds,
        local_steps: report.local_steps,
        f1_mean: report.f1_mean,
        f1_mean_present: report.f1_mean_present,
        f1_per_client: report.f1_per_client.clone(),
        f1_pooled: report.f1_pooled,
        val_f1_mean: report.val_f1_mean,
        metric: format!("{:?}", task.metric),
        bytes_up: report.bytes_up,
        bytes_down: report.bytes_down,
        bytes_per_round: report.bytes_per_round,
        embedding_bytes_per_round: report.embedding_bytes_per_round,
        eps: report.privacy.as_ref().map(|p| p.eps_rdp.get()),
        radius: cfg.radius,
        delta: cfg.delta,
        sigma0: cfg.sigma0,
        clip: cfg.clip,
        hidden: cfg.hidden,
        halo_average: cfg.halo_average,
        boundary_norm_mean: report.norms.mean_norm(),
        clipped_fraction: report.norms.clipped_fraction(),
        privacy: report.privacy.clone(),
        not_covered: NOT_COVERED,
        seed: noise.seed,
        training_seed: cfg.seed,
        noise,
        wire_digest: report.wire_digest.clone(),
        seconds: report.seconds,
    };
    Ok((report, summary))
}
