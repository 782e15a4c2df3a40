//! The plan of the CE-FedGNN tables as typed configuration ([`Plan::quick`], [`Plan::full`]):
//! which citation and AML settings run, the total local steps per client, the K and σ₀ sweeps
//! and the training seeds, with the training configuration of one run ([`Plan::config`]).

use serde::Serialize;

use crate::train::{AmlSplit, FedTrainConfig, Method, ModelKind, PartitionKind};

/// A citation graph of the plan, split into `clients` clients by `partition` (GCN, macro-F1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CitationSetting {
    /// Registry name of the dataset.
    pub dataset: String,
    /// Number of clients N.
    pub clients: usize,
    /// How nodes are assigned to clients.
    pub partition: PartitionKind,
}

/// A generated multi-bank AML graph of the plan ([`super::aml_gen_config`]), one client per
/// bank, trained with `model` (illicit-class F1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct AmlSetting {
    /// Accounts of the generated graph.
    pub accounts: usize,
    /// GIN or GINE.
    pub model: ModelKind,
}

/// An AML dataset of the registry (AMLworld-format accounts and transactions) as banks would run
/// it: the banks grouped into `clients` clients of about equal account counts, the accounts
/// split as `split` says (Multi-GNN: by time), trained with `model` (illicit-class F1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AmlDataSetting {
    /// Registry name (e.g. `amlworld-sample`).
    pub dataset: String,
    /// Clients the banks are grouped into.
    pub clients: usize,
    /// Random or time-ordered.
    pub split: AmlSplit,
    /// GINE, GIN or PNA.
    pub model: ModelKind,
}

/// What the tables run. Every setting runs every method over all [`Plan::seeds`] (the methods
/// table). The first available citation setting and the first AML setting are *primary*: they
/// also run the K sweep and the attack, and their σ₀ sweep runs every seed; the other settings'
/// σ₀ sweep runs the first seed only ([`Plan::seeds_for`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Plan {
    /// Citation graphs with their client counts.
    pub citation: Vec<CitationSetting>,
    /// Generated AML graphs with their models.
    pub aml: Vec<AmlSetting>,
    /// AML datasets of the registry (those installed), after the generated graphs.
    pub aml_data: Vec<AmlDataSetting>,
    /// Total local steps T per client on citation graphs (rounds = T / K).
    pub citation_steps: u32,
    /// Total local steps T per client on AML graphs.
    pub aml_steps: u32,
    /// K of the methods table and the σ₀ sweep.
    pub k_default: u32,
    /// The K sweep of the primary settings (same T: [`Plan::k_sweep_steps`]).
    pub k_sweep: Vec<u32>,
    /// Total local steps T per client of the K sweep on citation graphs, large enough for at
    /// least 8 rounds at the largest K.
    pub k_sweep_steps: u32,
    /// Total local steps T per client of the K sweep on AML graphs (`--full`: as many as on
    /// citation graphs, 8 rounds at K = 1024; `--quick`: the methods table's T).
    pub aml_k_sweep_steps: u32,
    /// The methods run over the K sweep (the paper's Figure 2 compares them as K grows).
    pub k_sweep_methods: Vec<Method>,
    /// The σ₀ sweep (noise multiplier of the released rows).
    pub sigmas: Vec<f64>,
    /// The σ₀ values of the attribute-inference attack on the primary settings (0: exact rows,
    /// the attack's best case).
    pub attack_sigmas: Vec<f64>,
    /// The T sweep of the convergence table on the primary settings: T = 2^d times the
    /// methods table's T per listed d, with the theorem's schedule
    /// ([`Plan::convergence_config`]).
    pub convergence_doublings: Vec<i32>,
    /// The clip norms C of the clip table ([`super::clip_table`]).
    pub clip_norms: Vec<f64>,
    /// The labels of the settings the clip table runs on (where C can matter: many halo rows).
    pub clip_settings: Vec<String>,
    /// The clip norm C (and p = 0.1·C) of every table's runs in place of the presets'
    /// (`None`: the presets' [`crate::train::CITATION_CLIP`] and [`crate::train::AML_CLIP`]).
    /// `Some(1.0)` in [`Plan::quick`] and [`Plan::full`]: every committed table ran at C = 1,
    /// the citation preset's C before the clip table moved it to 2, and a table's settings
    /// must not mix the two; the tables move to the presets' C when they are all regenerated
    /// at one revision.
    pub clip: Option<f64>,
    /// Training seeds (initialisation, sampling, dropout, noise) averaged in a row.
    pub seeds: Vec<u64>,
}

fn citation(list: &[(&str, usize, PartitionKind)]) -> Vec<CitationSetting> {
    list.iter()
        .map(|&(dataset, clients, partition)| CitationSetting {
            dataset: dataset.into(),
            clients,
            partition,
        })
        .collect()
}

fn aml(list: &[(usize, ModelKind)]) -> Vec<AmlSetting> {
    list.iter()
        .map(|&(accounts, model)| AmlSetting { accounts, model })
        .collect()
}

impl Plan {
    /// `cargo xtask repro --quick`: Cora with 5 clients of FedSage+'s Louvain grouping (the
    /// partition of the paper's citation datasets), the 2,000-account AML graph with GINE,
    /// 2048 (citation) / 256 (AML) steps per client, K ∈ {1, 8, 32, 128} (CE-FedGNN, T = 2048),
    /// σ₀ ∈ {0.5, 1, 1.2}, the attack at σ₀ ∈ {0, 1}, the convergence sweep at T = T₀/8, T₀/4,
    /// T₀/2 (too few values for a verdict: a smoke test), C ∈ {1, 2} on Cora, seed 0.
    pub fn quick() -> Self {
        Self {
            citation: citation(&[("cora", 5, PartitionKind::Louvain)]),
            aml: aml(&[(2000, ModelKind::Gine)]),
            aml_data: Vec::new(),
            citation_steps: 2048,
            aml_steps: 256,
            k_default: 32,
            k_sweep: vec![1, 8, 32, 128],
            k_sweep_steps: 2048,
            aml_k_sweep_steps: 256,
            k_sweep_methods: vec![Method::CeFedGnn],
            sigmas: vec![0.5, 1.0, 1.2],
            attack_sigmas: vec![0.0, 1.0],
            convergence_doublings: vec![-3, -2, -1],
            clip_norms: vec![1.0, 2.0],
            clip_settings: vec!["cora N=5 louvain".into()],
            clip: Some(1.0),
            seeds: vec![0],
        }
    }

    /// `cargo xtask repro --full`: the paper's citation datasets (Cora, CiteSeer, PubMed,
    /// MSAcademic; those installed) with 5 clients of the Louvain grouping, and Cora with 10
    /// Louvain clients for comparison; the settings with headroom, where most edges cross
    /// clients: the random partition of Cora, CiteSeer, ACM, DBLP and AMAP and FedGCN's
    /// label-Dirichlet skew (α = 1) of Cora and CiteSeer; AML graphs of 2,000
    /// accounts (GINE, GIN and PNA), 4,000 and 8,000 accounts (GINE); 2048 / 512 steps per client;
    /// K up to 1024 for CE-FedGNN, FedGNN-ST and FedAvg with T = 8192 on citation and AML
    /// graphs (8 rounds at K = 1024); the convergence sweep at T = T₀/2 … 8·T₀ (five values);
    /// C ∈ {0.5, 1, 2, 4} on Cora's random split and the 2,000-account GINE graph; seeds 0–2.
    pub fn full() -> Self {
        use PartitionKind::{LabelDirichlet1, Louvain, Random};
        Self {
            citation: citation(&[
                ("cora", 5, Louvain),
                ("citeseer", 5, Louvain),
                ("pubmed", 5, Louvain),
                ("msacademic", 5, Louvain),
                ("cora", 5, Random),
                ("cora", 10, Louvain),
                ("citeseer", 5, Random),
                ("cora", 5, LabelDirichlet1),
                ("citeseer", 5, LabelDirichlet1),
                ("acm", 5, Random),
                ("dblp", 5, Random),
                ("amap", 5, Random),
            ]),
            aml: aml(&[
                (2000, ModelKind::Gine),
                (2000, ModelKind::Gin),
                (2000, ModelKind::Pna),
                (4000, ModelKind::Gine),
                (8000, ModelKind::Gine),
            ]),
            // The AMLworld sample as banks would run it: 8 clients, split by time.
            aml_data: vec![AmlDataSetting {
                dataset: "amlworld-sample".into(),
                clients: 8,
                split: AmlSplit::Time,
                model: ModelKind::Gine,
            }],
            citation_steps: 2048,
            aml_steps: 512,
            k_default: 32,
            k_sweep: vec![1, 8, 32, 128, 1024],
            k_sweep_steps: 8192,
            aml_k_sweep_steps: 8192,
            k_sweep_methods: vec![Method::CeFedGnn, Method::StaleEmbeddings, Method::FedAvg],
            sigmas: vec![0.5, 1.0, 1.2],
            attack_sigmas: vec![0.0, 0.25, 0.5, 1.0, 2.0],
            convergence_doublings: vec![-1, 0, 1, 2, 3],
            clip_norms: vec![0.5, 1.0, 2.0, 4.0],
            clip_settings: vec!["cora N=5 random".into(), "aml-gen-2000 Gine".into()],
            clip: Some(1.0),
            seeds: vec![0, 1, 2],
        }
    }

    /// The training configuration of `model` with K = `k`: the citation preset
    /// ([`FedTrainConfig::citation`]) for GCN, the AML preset ([`FedTrainConfig::aml`])
    /// otherwise, with T / K rounds (at least 1) and [`Plan::clip`] in place of the preset's C
    /// where set. The seed is set per run by [`super::Runs::run_seeds`].
    ///
    /// # Example
    /// ```
    /// use cefedgnn::paper::Plan;
    /// use cefedgnn::train::ModelKind;
    /// let c = Plan::quick().config(ModelKind::Gine, 32);
    /// assert_eq!((c.local_steps, c.rounds, c.hidden), (32, 8, 32));
    /// let p = Plan::full().config(ModelKind::Gcn, 32);
    /// assert_eq!((p.clip, p.radius), (1.0, 0.1)); // the committed tables' C
    /// let own = Plan { clip: None, ..Plan::full() }.config(ModelKind::Gcn, 32);
    /// assert_eq!(own.clip, cefedgnn::train::CITATION_CLIP);
    /// assert_eq!(Plan::quick().config(ModelKind::Gcn, 4096).rounds, 1);
    /// ```
    pub fn config(&self, model: ModelKind, k: u32) -> FedTrainConfig {
        let (base, steps) = if model == ModelKind::Gcn {
            (FedTrainConfig::citation(), self.citation_steps)
        } else {
            (FedTrainConfig::aml(model), self.aml_steps)
        };
        let (clip, radius) = self.clip.map_or((base.clip, base.radius), |c| (c, 0.1 * c));
        FedTrainConfig {
            local_steps: k,
            rounds: (steps / k.max(1)).max(1),
            clip,
            radius,
            ..base
        }
    }

    /// The configuration of the K sweep at `k`: [`Plan::config`] with T = [`Plan::k_sweep_steps`]
    /// on citation graphs (GCN) and [`Plan::aml_k_sweep_steps`] on AML graphs.
    ///
    /// # Example
    /// ```
    /// use cefedgnn::paper::Plan;
    /// use cefedgnn::train::ModelKind;
    /// assert_eq!(Plan::full().sweep_config(ModelKind::Gcn, 1024).rounds, 8);
    /// assert_eq!(Plan::full().sweep_config(ModelKind::Gine, 1024).rounds, 8);
    /// assert_eq!(Plan::quick().sweep_config(ModelKind::Gine, 32).rounds, 8);
    /// ```
    pub fn sweep_config(&self, model: ModelKind, k: u32) -> FedTrainConfig {
        let mut cfg = self.config(model, k);
        let steps = if model == ModelKind::Gcn {
            self.k_sweep_steps
        } else {
            self.aml_k_sweep_steps
        };
        cfg.rounds = (steps / k.max(1)).max(1);
        cfg
    }

    /// The configuration of the convergence table at T = 2^`doublings` · T₀ local steps per
    /// client, T₀ and K₀ being the methods table's ([`Plan::config`] at [`Plan::k_default`]):
    /// the schedule of the paper's convergence theorem (η, γ, β = Θ(T^−1/2) and
    /// K = Θ(T^1/4) give O(1/√T) with O(T^3/4) rounds) anchored at the table's values,
    /// η = η₀·(T₀/T)^1/2, γ = min(1, γ₀·(T₀/T)^1/2), β likewise, K = max(1, round(K₀·(T/T₀)^1/4)),
    /// rounds = max(1, T / K).
    ///
    /// # Example
    /// ```
    /// use cefedgnn::paper::Plan;
    /// use cefedgnn::train::ModelKind;
    /// let plan = Plan::full();
    /// let base = plan.convergence_config(ModelKind::Gcn, 0);
    /// assert_eq!((base.local_steps, base.rounds), (32, 64));
    /// let long = plan.convergence_config(ModelKind::Gcn, 4);
    /// assert_eq!((long.local_steps, long.rounds), (64, 512)); // 16 T₀: K ×2, rounds ×8
    /// assert!((long.lr - base.lr / 4.0).abs() < 1e-12);
    /// ```
    pub fn convergence_config(&self, model: ModelKind, doublings: i32) -> FedTrainConfig {
        let base = self.config(model, self.k_default);
        let t0 = f64::from(base.local_steps * base.rounds);
        let ratio = 2f64.powi(doublings);
        let t = (t0 * ratio).round().max(1.0);
        let shrink = ratio.sqrt().recip();
        let k = (f64::from(base.local_steps) * ratio.powf(0.25))
            .round()
            .clamp(1.0, t);
        FedTrainConfig {
            local_steps: k as u32,
            rounds: ((t / k).round() as u32).max(1),
            lr: base.lr * shrink,
            gamma: (base.gamma * shrink).min(1.0),
            beta: (base.beta * shrink).min(1.0),
            ..base
        }
    }

    /// The seeds of a setting's sweeps (K and σ₀): all of [`Plan::seeds`] for a primary
    /// setting, the first one otherwise. The methods table runs every seed everywhere.
    pub fn seeds_for(&self, primary: bool) -> &[u64] {
        if primary {
            &self.seeds
        } else {
            &self.seeds[..self.seeds.len().min(1)]
        }
    }

    /// The K sweep a setting runs: [`Plan::k_sweep`] for a primary setting, none otherwise.
    pub fn k_sweep_for(&self, primary: bool) -> &[u32] {
        if primary { &self.k_sweep } else { &[] }
    }
}
