//! CE-FedGNN training on a [`FedTask`]: per client, mini-batches of training targets with their
//! L-hop neighbourhood sampled with a fanout per hop; own neighbours contribute their
//! moving-average estimate H (features at layer 0), remote neighbours the frozen noisy halo row
//! Ĥ received at the start of the round (no gradient); H ← (1−γ)H + γh̃, the next layer reads H
//! (value; gradients flow through h̃ by a straight-through estimator) or h̃ ([`ReadMode`]);
//! G ← (1−β)G + βg, W ← W − ηG; every K steps one protocol round through [`crate::protocol`]
//! (W as a flat vector, boundary rows through [`crate::privacy::BoundaryReleaser`], server
//! averaging weighted by training size). Round 0 bootstraps H and the server's table from a
//! full forward pass with the initial W.
//!
//! [`Method`] selects CE-FedGNN, its ablations and the baselines (single client, FedAvg ignoring
//! cross edges, stale shared embeddings without MA, centralised training); K = 1 is CE-FedGNN
//! with `local_steps = 1`.
//!
//! # Example
//! ```
//! use cefedgnn::train::{FedTask, FedTrainConfig, Method, PartitionKind, simulate};
//! use graph_core::generate::ContextualSbm;
//! use rand::SeedableRng;
//! let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
//! let ds = ContextualSbm { n: 120, classes: 2, p_in: 0.1, p_out: 0.01, dim: 8, mu: 1.0 }
//!     .sample(&mut rng)?;
//! let task = FedTask::from_node_dataset(&ds, 3, PartitionKind::Random, 0.5, 0.2, &mut rng)?;
//! let cfg = FedTrainConfig { rounds: 3, local_steps: 4, ..FedTrainConfig::default() };
//! let r = simulate(&task, &cfg, Method::CeFedGnn, &mut |_| {})?;
//! assert_eq!(r.f1_per_client.len(), 3);
//! assert!(r.bytes_up > 0 && r.privacy.is_some());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod fed_pub;
mod fedgcn;
mod fedsage;
mod local;
mod params;
mod run;
mod swift;
mod task;

pub use fedsage::{
    CountRounding, CrossTargets, MendOn, NeighGenConfig, NeighGenReport, NeighGenSplit,
};
pub(crate) use local::{EdgeIndex, HaloTable, LocalView, Trainer, TrainerState, ViewData};
pub use run::{
    ClientObservation, FedReport, ObjectivePoint, RoundInfo, simulate, simulate_observed,
    simulate_traced,
};
pub(crate) use run::{apply_broadcast, noise_rng, score, trainer_rng};
pub use task::{AmlSplit, AmlTaskOptions, FedTask, Metric, PartitionKind, task_rng};

use dp_core::params::{Delta, NoiseMultiplier};
use dp_core::rng::NoiseSource;
use serde::{Deserialize, Serialize};

use crate::error::{FedError, Result, positive, unit_interval};
use crate::estimator::{GradientMode, ReadMode};

graph_core::choice_enum! {
    /// Which GNN the clients train (`--model`).
    pub enum ModelKind: "model" {
        /// GCN (citation graphs).
        Gcn => "gcn",
        /// GIN (edge features ignored).
        Gin => "gin",
        /// GIN with edge features (AML; needs [`FedTask::edge_features`]).
        Gine => "gine",
        /// PNA (mean/min/max/std aggregators × identity/amplification/attenuation scalers,
        /// with the task's edge features where it has them; [`FedTrainConfig::pna_delta`]).
        Pna => "pna",
    }
}

graph_core::choice_enum! {
    /// The training method: CE-FedGNN, its ablations, or a baseline (`--method`), in table
    /// order. The ablations' short CLI spellings (`no-sharing`, …) are still accepted.
    pub enum Method: "method" {
        /// Baseline: each client alone on its own subgraph, no collaboration.
        SingleClient => "single-client",
        /// Baseline: FedAvg of W every K steps, cross edges ignored, plain SGD (β = 1).
        FedAvg => "fedavg",
        /// Baseline FedGCN (Yao et al. 2023, 1-hop): before training, one exchange of the
        /// neighbour-feature aggregates Σ_{j ∈ N(i) ∪ {i}} x_j/√(d̃_i d̃_j) through the server
        /// (raw sums, no noise); then FedAvg with a linear first layer on the aggregates and
        /// message passing over local edges.
        FedGcn => "fedgcn",
        /// Baseline Swift-FedGNN: local steps on local edges; once per round (correction
        /// period I = K) a sampled subset of clients ([`FedTrainConfig::swift_clients`]) takes
        /// one cross-client step with their halo neighbours' current rows, exact (no noise,
        /// no clipping, no MA), plain SGD.
        SwiftFedGnn => "swift-fedgnn",
        /// Baseline FED-PUB (Baek et al. 2023): local steps on local edges; each round every
        /// client's model gets a personalised average Σ_j α_ij θ_j, α_i = softmax(τ·cos(e_i, e_j))
        /// over the clients' functional embeddings e (mean first-layer output on one shared
        /// random proxy graph); each client trains personalised sparse masks on its weights
        /// with an L1 penalty and a proximal term towards its personalised model
        /// ([`FedTrainConfig::fed_pub`]). \[R\]: the setting's model and plain SGD, not the
        /// authors' masked 3-layer GCN with Adam.
        FedPub => "fed-pub",
        /// Baseline FedSage+ (Zhang et al. 2021): each client trains the missing-neighbour
        /// generator NeighGen on its local graph with hidden nodes, then fGen jointly against
        /// the other clients' neighbour features ([`FedTrainConfig::neighgen`]); then FedAvg
        /// (cross edges ignored, plain SGD) on the local graphs mended with generated
        /// neighbours. The setting's model, not GraphSAGE \[R\].
        FedSagePlus => "fedsage-plus",
        /// Baseline FedGNN-ST: stale shared embeddings without MA (γ = 1, β = 1).
        StaleEmbeddings => "fedgnn-st",
        /// The full algorithm: MA embeddings shared every K steps, gradient MA.
        CeFedGnn => "cefedgnn",
        /// Ablation: no embedding sharing (cross edges ignored), gradient MA kept.
        NoSharing => "ablation-no-sharing" | "no-sharing",
        /// Ablation: embeddings shared, no embedding MA (γ = 1, the next layer reads h̃).
        NoEmbeddingMa => "ablation-no-ma" | "no-ma",
        /// Ablation: no gradient MA (β = 1, plain SGD steps).
        NoGradientMa => "ablation-no-grad-ma" | "no-grad-ma",
        /// Upper bound: one model trained on the whole graph (no federation).
        Centralised => "centralised",
    }
}

graph_core::choice_enum! {
    /// A named training configuration ([`FedTrainConfig::preset`]).
    pub enum Preset: "preset" {
        /// [`FedTrainConfig::citation`].
        Citation => "citation",
        /// [`FedTrainConfig::aml`] with GINE.
        AmlGine => "aml-gine",
        /// [`FedTrainConfig::aml`] with GIN.
        AmlGin => "aml-gin",
        /// [`FedTrainConfig::aml`] with PNA.
        AmlPna => "aml-pna",
        /// [`FedTrainConfig::default`].
        Default => "default",
    }
}

impl Method {
    /// The method of a [`Method::name`] (or an alias).
    pub fn parse(name: &str) -> Option<Self> {
        name.parse().ok()
    }

    /// Whether the first layer reads FedGCN's neighbour-feature sums: FedGCN, and the methods
    /// that share halo rows under [`FedTrainConfig::exact_first_layer`].
    pub(crate) fn first_layer_on_sums(self, cfg: &FedTrainConfig) -> bool {
        self == Self::FedGcn || (cfg.exact_first_layer && self.shares_embeddings())
    }

    /// Whether halo embeddings are exchanged.
    pub(crate) fn shares_embeddings(self) -> bool {
        matches!(
            self,
            Self::CeFedGnn
                | Self::NoEmbeddingMa
                | Self::NoGradientMa
                | Self::StaleEmbeddings
                | Self::SwiftFedGnn
        )
    }

    /// What node data of one client crosses the wire under this method, and how it is
    /// protected (for the tables).
    pub fn wire(self) -> &'static str {
        match self {
            Self::SingleClient | Self::Centralised => "nothing (no exchange)",
            Self::FedAvg | Self::NoSharing => "model only",
            Self::FedPub => "model; a functional embedding per client (which clients behave alike)",
            Self::FedSagePlus => {
                "model; generator phase (simulated): generated neighbour rows out, their gradients back, unprotected (deployed, the gradients reveal other clients' matched raw feature rows)"
            }
            Self::FedGcn => {
                "model; once, neighbour-feature sums unprotected (a sum with one contributor is a raw feature row)"
            }
            Self::SwiftFedGnn => {
                "model; halo rows exact and unprotected at each round's cross-client step"
            }
            Self::StaleEmbeddings | Self::CeFedGnn | Self::NoEmbeddingMa | Self::NoGradientMa => {
                "model; boundary rows clipped and noised (metric-DP)"
            }
        }
    }

    /// The configuration a run of this method uses: Swift-FedGNN's rows are exact (σ₀ = 0,
    /// clipping off in effect); the others use `cfg` as given.
    pub(crate) fn run_config(self, cfg: &FedTrainConfig) -> FedTrainConfig {
        let mut c = cfg.clone();
        if self == Self::SwiftFedGnn {
            c.sigma0 = NoiseMultiplier::ZERO;
            c.clip = SWIFT_CLIP;
            c.radius = 0.1 * SWIFT_CLIP;
            c.halo_average = None;
        }
        c
    }

    /// Whether W is averaged through the server.
    pub(crate) fn federated(self) -> bool {
        !matches!(self, Self::SingleClient | Self::Centralised)
    }

    /// Whether the deployed roles ([`crate::deploy`]) run this method: the federated methods
    /// but the baselines simulated only (FedGCN's pre-training exchange, Swift-FedGNN's
    /// cross-client schedule, FED-PUB's personalised averaging and FedSage+'s generator phase
    /// are not part of the wire protocol).
    pub fn deployable(self) -> bool {
        self.federated()
            && !matches!(
                self,
                Self::FedGcn | Self::SwiftFedGnn | Self::FedPub | Self::FedSagePlus
            )
    }

    /// (γ, β, read mode) under this method.
    pub(crate) fn estimator(self, cfg: &FedTrainConfig) -> (f64, f64, ReadMode) {
        let (g, b, r) = (cfg.gamma, cfg.beta, cfg.read);
        match self {
            Self::CeFedGnn | Self::NoSharing => (g, b, r),
            Self::NoEmbeddingMa => (1.0, b, ReadMode::Fresh),
            Self::NoGradientMa => (g, 1.0, r),
            Self::StaleEmbeddings | Self::SwiftFedGnn => (1.0, 1.0, ReadMode::Fresh),
            Self::SingleClient
            | Self::FedAvg
            | Self::FedGcn
            | Self::FedPub
            | Self::FedSagePlus
            | Self::Centralised => (g, 1.0, r),
        }
    }
}

/// The citation preset's clip norm C of released rows. Chosen from the released rows' norms and
/// `results/cefedgnn/clip.md` (CE-FedGNN on Cora's random split, seeds 0–2): the final model's
/// first-layer rows have a median norm of 1.83 on Cora (`radius.md`), so C = 2 clips about half
/// of them (C = 1: 96 %), and 22 % of all rows released during training (C = 1: 30 %). At
/// σ₀ = 1 it costs no F1 (0.725 against 0.720, seed SD 0.02), halves ε(p) at every fixed radius
/// p ≤ 2 (1.71 against 3.70 at p = 0.1: the noise σ = σ₀·C doubles) and keeps the worst case
/// ε(2C) (205 at both). At equal σ, larger C gains F1 (0.695 / 0.720 / 0.744 / 0.757 at
/// C = 0.5 / 1 / 2 / 4) but the worst case grows with C (69 / 205 / 672 / 2386).
pub const CITATION_CLIP: f64 = 2.0;

/// The AML presets' clip norm C of released rows: 1, clipping nearly every row, because on AML
/// more clipping is better (`results/cefedgnn/clip.md`, CE-FedGNN with GINE on the
/// 2,000-account graph, seeds 0–2): the released rows' mean norm is 6.8, so no C with a useful
/// noise level keeps half of them whole; at equal noise σ the F1 does not depend on C
/// (0.776–0.784 over C = 0.5 … 4) while the worst case ε(2C) grows with it (27 / 72 / 213 /
/// 699), and at σ₀ = 1 a larger C only adds noise (F1 0.778 / 0.772 / 0.754 at C = 1 / 2 / 4).
/// C = 0.5 at σ₀ = 1 scores more (0.819) by halving the noise, at twice the ε(p) of a fixed
/// radius (3.79 against 1.75 at p = 0.1): the default does not trade ε for F1 and keeps 1.
pub const AML_CLIP: f64 = 1.0;

/// The clip norm of Swift-FedGNN's exact rows: far above any row norm, so no row is clipped.
const SWIFT_CLIP: f64 = 1e9;

/// Hyper-parameters of a federated run. Defaults: GCN, 2 layers, hidden 16, dropout 0.5,
/// K = 32, 20 rounds, η = 0.2, γ = β = 0.5, batch 64, fanout 10, C = 1, σ₀ = 1, p = 0.1·C,
/// δ = 1e-5.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FedTrainConfig {
    /// The GNN.
    pub model: ModelKind,
    /// Hidden width (the width of every shared layer).
    pub hidden: usize,
    /// Message-passing layers L (≥ 2: layers 1..L−1 are shared).
    pub num_layers: usize,
    /// Dropout.
    pub dropout: f64,
    /// Activation ([`gnn::Activation::Gelu`] or `Tanh` for the smooth variant of the theory).
    pub activation: gnn::Activation,
    /// Local steps K per round (≥ 1).
    pub local_steps: u32,
    /// Rounds R after the bootstrap round 0 (T = R·K steps per client).
    pub rounds: u32,
    /// Learning rate η.
    pub lr: f64,
    /// L2 weight decay added to the gradient.
    pub weight_decay: f64,
    /// Embedding MA rate γ ∈ (0, 1].
    pub gamma: f64,
    /// Gradient MA rate β ∈ (0, 1].
    pub beta: f64,
    /// What the next layer reads \[R\].
    pub read: ReadMode,
    /// What G tracks \[R\]: momentum on W (default), or the per-node backward signal
    /// ∂L/∂h_v^(ℓ) of every own node and shared layer, averaged with rate β; W then takes plain
    /// steps on the gradient of Σ_ℓ Σ_v ⟨G_v^(ℓ), h̃_v^(ℓ)⟩ plus the output layer's gradient.
    pub gradient: GradientMode,
    /// Whether G is averaged by the server too.
    pub share_gradient: bool,
    /// Training targets per step.
    pub batch_size: usize,
    /// Sampled neighbours per node and hop (`None`: all neighbours).
    pub fanout: Option<usize>,
    /// Receiver-side averaging of the noisy halo rows over rounds \[R\] (`None`: use the latest
    /// row, as the algorithm of the note). With `Some(a)` a client keeps, per halo node and
    /// shared layer, Ĥ ← (1−r)·Ĥ + r·(new row) with r = max(1/t, a) for the t-th row received:
    /// a running mean at first, then an exponential average. Post-processing of released
    /// rows: it costs no privacy and averages the independent noise of successive releases.
    pub halo_average: Option<f64>,
    /// Clip the L2 norm of each local step's parameter gradient to this value (`None`: off).
    pub grad_clip: Option<f64>,
    /// Clip norm C of released rows.
    pub clip: f64,
    /// Noise multiplier σ₀ (σ = σ₀·C; 0 = no noise).
    pub sigma0: NoiseMultiplier,
    /// Metric radius p of the privacy report.
    pub radius: f64,
    /// δ of the privacy report.
    pub delta: Delta,
    /// Weight the loss by inverse class frequency of the client's own training labels.
    pub balanced_loss: bool,
    /// Seed of initialisation, sampling and dropout (training randomness, never noise).
    pub seed: u64,
    /// Where the boundary noise of [`simulate`] comes from: the OS CSPRNG
    /// by default; [`NoiseSource::Seeded`] for reproducible (and therefore non-private)
    /// experiments. A deployment takes its clients' noise source from
    /// [`ClientOptions::noise`](crate::deploy::ClientOptions::noise) instead.
    #[serde(default)]
    pub noise: NoiseSource,
    /// PNA's degree normaliser δ (the mean of ln(degree + 1) over training nodes), shared by
    /// every client so that their models agree. `None`: [`simulate`] computes it from the
    /// task's training nodes over the whole graph \[R\]: a deployment must agree on a value
    /// (a pooled degree histogram reveals degrees), and its clients refuse PNA without one.
    #[serde(default)]
    pub pna_delta: Option<f64>,
    /// Clients sampled for each round's cross-client step of [`Method::SwiftFedGnn`] (`None`:
    /// half of them, rounded up).
    #[serde(default)]
    pub swift_clients: Option<usize>,
    /// NeighGen's hyper-parameters under [`Method::FedSagePlus`] (the spec's defaults).
    #[serde(default)]
    pub neighgen: NeighGenConfig,
    /// FED-PUB's masks, proximal term and temperature under [`Method::FedPub`].
    #[serde(default)]
    pub fed_pub: FedPubConfig,
    /// \[R\] A diagnostic, not a private method: under the methods that share halo rows, the
    /// first layer reads FedGCN's GCN-normalised neighbour-feature sums over the whole graph
    /// (exchanged once before training, unprotected) through a linear layer, instead of
    /// aggregating only the neighbours a client holds. With it and every approximation off
    /// the federation computes the centralised model's layers exactly: the control of the
    /// approximation ladder (`paper::approximations_table`).
    #[serde(default)]
    pub exact_first_layer: bool,
}

/// FED-PUB's hyper-parameters (the authors' code defaults: λ1 = λ2 = 1e-3, τ = 10).
///
/// # Example
/// ```
/// use cefedgnn::train::FedPubConfig;
/// let c: FedPubConfig = serde_json::from_str(r#"{"masks": false}"#)?;
/// assert_eq!((c.masks, c.l1, c.proximal, c.tau), (false, 1e-3, 1e-3, 10.0));
/// assert!(c.check().is_ok());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FedPubConfig {
    /// Train personalised multiplicative masks on the weight matrices (FED-PUB's sparse
    /// masks); `false`: dense weights only.
    pub masks: bool,
    /// λ1: weight of the masks' L1 penalty; also the magnitude below which a mask entry is
    /// zeroed in evaluation.
    pub l1: f64,
    /// λ2: weight of the proximal term λ2·Σ_tensors ‖θ − θ̄‖₂ towards the personalised model
    /// θ̄ (0: off).
    pub proximal: f64,
    /// τ: the temperature of the similarity weights softmax(τ·cos(e_i, e_j)).
    pub tau: f64,
}

impl Default for FedPubConfig {
    fn default() -> Self {
        Self {
            masks: true,
            l1: 1e-3,
            proximal: 1e-3,
            tau: 10.0,
        }
    }
}

impl FedPubConfig {
    /// Validates the configuration.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] for a negative or non-finite λ1 or λ2, or a τ that is not
    /// finite and positive.
    pub fn check(&self) -> Result<()> {
        crate::error::non_negative("fed_pub.l1", self.l1)?;
        crate::error::non_negative("fed_pub.proximal", self.proximal)?;
        positive("fed_pub.tau", self.tau)?;
        Ok(())
    }
}

impl Default for FedTrainConfig {
    fn default() -> Self {
        Self {
            model: ModelKind::Gcn,
            hidden: 16,
            num_layers: 2,
            dropout: 0.5,
            activation: gnn::Activation::Relu,
            local_steps: 32,
            rounds: 20,
            lr: 0.2,
            weight_decay: 5e-4,
            gamma: 0.5,
            beta: 0.5,
            read: ReadMode::MovingAverage,
            gradient: GradientMode::Momentum,
            share_gradient: false,
            halo_average: None,
            grad_clip: None,
            batch_size: 64,
            fanout: Some(10),
            clip: 1.0,
            sigma0: NoiseMultiplier::ONE,
            radius: 0.1,
            delta: Delta::TEN_TO_MINUS_5,
            balanced_loss: false,
            seed: 0,
            noise: NoiseSource::Os,
            pna_delta: None,
            swift_clients: None,
            neighgen: NeighGenConfig::default(),
            fed_pub: FedPubConfig::default(),
            exact_first_layer: false,
        }
    }
}

impl FedTrainConfig {
    /// The preset for citation graphs (GCN, macro-F1) used by `dpgraph fed simulate` and the
    /// repro: the defaults with a shared layer of width d = 8 (noise of norm σ₀·C·√d per row),
    /// receiver-side halo averaging at rate 0.1 ([`FedTrainConfig::halo_average`]), and
    /// C = [`CITATION_CLIP`] with p = 0.1·C. d and the averaging were chosen by validation
    /// macro-F1 of CE-FedGNN at σ₀ = 1 on Cora with 5 clients among d ∈ {8, 16} and averaging
    /// ∈ {none, 0.25, 0.1}; never on the test split. C: see [`CITATION_CLIP`].
    ///
    /// # Example
    /// ```
    /// use cefedgnn::train::{CITATION_CLIP, FedTrainConfig};
    /// let c = FedTrainConfig::citation();
    /// assert_eq!((c.clip, c.radius, c.sigma0.get()), (CITATION_CLIP, 0.1 * CITATION_CLIP, 1.0));
    /// ```
    pub fn citation() -> Self {
        Self {
            model: ModelKind::Gcn,
            hidden: 8,
            halo_average: Some(0.1),
            clip: CITATION_CLIP,
            radius: 0.1 * CITATION_CLIP,
            ..Self::default()
        }
    }

    /// The preset for AML graphs with `model` (GIN, GINE or PNA): hidden 32, fanout 100 (the note's
    /// AML fanout), η = 0.01, dropout 0.1, class-balanced loss, gradient clipping at norm 5
    /// (sums over high-degree accounts otherwise blow up a step), and C = [`AML_CLIP`].
    pub fn aml(model: ModelKind) -> Self {
        Self {
            model,
            hidden: 32,
            fanout: Some(100),
            lr: 0.01,
            dropout: 0.1,
            balanced_loss: true,
            grad_clip: Some(5.0),
            clip: AML_CLIP,
            radius: 0.1 * AML_CLIP,
            ..Self::default()
        }
    }

    /// This configuration with [`FedTrainConfig::pna_delta`] computed from `task` when the model
    /// is PNA and none is set: the mean of ln(degree + 1) over the training nodes in the whole
    /// graph \[R\].
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] for a task without training nodes or edges.
    pub fn with_pna_delta_of(&self, task: &FedTask) -> Result<Self> {
        let mut cfg = self.clone();
        if cfg.model == ModelKind::Pna && cfg.pna_delta.is_none() {
            let g = task.fed.graph();
            let degrees: Vec<usize> = (0..g.num_nodes() as u32)
                .filter(|&v| task.split.train[v as usize])
                .map(|v| g.degree(v))
                .collect();
            let delta = gnn::layers::avg_log_degree(&degrees)
                .map_err(|e| FedError::param("pna_delta", e, "cannot be computed from the task"))?;
            cfg.pna_delta = Some(delta);
        }
        Ok(cfg)
    }

    /// The configuration of a [`Preset`].
    pub fn preset(preset: Preset) -> Self {
        match preset {
            Preset::Citation => Self::citation(),
            Preset::AmlGine => Self::aml(ModelKind::Gine),
            Preset::AmlGin => Self::aml(ModelKind::Gin),
            Preset::AmlPna => Self::aml(ModelKind::Pna),
            Preset::Default => Self::default(),
        }
    }

    /// This configuration with the fields named in `overrides` replaced (field names as in the
    /// serialized form; `-` may stand for `_`), checked. As on the command line, the radius
    /// follows the clip norm (p = 0.1·C) unless it is given.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] for an unknown field, a value of the wrong type or outside its
    /// domain (σ₀ < 0, δ ∉ (0, 1): refused by their types), or a
    /// configuration [`FedTrainConfig::check`] refuses.
    ///
    /// # Example
    /// ```
    /// use cefedgnn::train::FedTrainConfig;
    /// let o = serde_json::json!({"rounds": 3, "local-steps": 8, "clip": 2.0});
    /// let c = FedTrainConfig::citation().with_overrides(o.as_object().unwrap())?;
    /// assert_eq!((c.rounds, c.local_steps, c.radius), (3, 8, 0.2));
    /// assert!(FedTrainConfig::citation()
    ///     .with_overrides(serde_json::json!({"round": 3}).as_object().unwrap())
    ///     .is_err());
    /// # Ok::<(), cefedgnn::FedError>(())
    /// ```
    pub fn with_overrides(
        &self,
        overrides: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<Self> {
        let serde_json::Value::Object(mut fields) =
            serde_json::to_value(self).expect("plain data serializes")
        else {
            unreachable!("a struct serializes to an object")
        };
        let mut radius_given = false;
        for (key, value) in overrides {
            let name = key.replace('-', "_");
            if !fields.contains_key(&name) {
                return Err(FedError::param(
                    "train config",
                    key,
                    "is not a field of FedTrainConfig",
                ));
            }
            radius_given |= name == "radius";
            fields.insert(name, value.clone());
        }
        let mut cfg: Self =
            serde_json::from_value(serde_json::Value::Object(fields)).map_err(|e| {
                FedError::param("train config", e, "a value of the wrong type or domain")
            })?;
        if !radius_given && overrides.keys().any(|k| k == "clip") {
            cfg.radius = 0.1 * cfg.clip;
        }
        cfg.check()?;
        Ok(cfg)
    }

    /// Validates the configuration.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] naming the offending field.
    pub fn check(&self) -> Result<()> {
        if self.local_steps == 0 {
            return Err(FedError::param("local_steps", 0, "K must be >= 1"));
        }
        if self.num_layers < 2 {
            return Err(FedError::param(
                "num_layers",
                self.num_layers,
                "needs >= 2 layers (at least one shared layer)",
            ));
        }
        if self.hidden == 0 || self.batch_size == 0 || self.fanout == Some(0) {
            return Err(FedError::param(
                "hidden/batch_size/fanout",
                format!("{}/{}/{:?}", self.hidden, self.batch_size, self.fanout),
                "must be positive",
            ));
        }
        if !(0.0..1.0).contains(&self.dropout) {
            return Err(FedError::param(
                "dropout",
                self.dropout,
                "must lie in [0, 1)",
            ));
        }
        if self.gradient == GradientMode::PerNodeSignal && self.share_gradient {
            return Err(FedError::param(
                "share_gradient",
                "true",
                "per-node signals stay on the client; only a momentum G can be shared",
            ));
        }
        if let Some(h) = self.halo_average {
            unit_interval("halo_average", h)?;
        }
        if let Some(c) = self.grad_clip {
            positive("grad_clip", c)?;
        }
        if self.swift_clients == Some(0) {
            return Err(FedError::param("swift_clients", 0, "must be >= 1"));
        }
        self.neighgen.check()?;
        self.fed_pub.check()?;
        positive("lr", self.lr)?;
        if !(self.weight_decay.is_finite() && self.weight_decay >= 0.0) {
            return Err(FedError::param(
                "weight_decay",
                self.weight_decay,
                "must be finite >= 0",
            ));
        }
        unit_interval("gamma", self.gamma)?;
        unit_interval("beta", self.beta)?;
        crate::privacy::ReleaseConfig {
            clip: self.clip,
            sigma0: self.sigma0,
            radius: self.radius,
            delta: self.delta,
            budget_eps: None,
        }
        .check()
    }

    /// The flat initial W of the model for `d_input` features, `d_edge` edge features and
    /// `classes` (seeded by [`FedTrainConfig::seed`]: every party builds the same W).
    pub(crate) fn initial_params(
        &self,
        d_input: usize,
        d_edge: Option<usize>,
        classes: usize,
    ) -> Result<Vec<f32>> {
        let device = burn::tensor::Device::flex().autodiff();
        let model = self.model_config(d_input, d_edge, classes)?.init(&device)?;
        Ok(params::flatten(&model))
    }

    /// The model configuration for `d_input` features, `d_edge` edge features and `classes`.
    pub(crate) fn model_config(
        &self,
        d_input: usize,
        d_edge: Option<usize>,
        classes: usize,
    ) -> Result<gnn::ModelConfig> {
        let base = match self.model {
            ModelKind::Gcn => gnn::ModelConfig::gcn(d_input, self.hidden, classes),
            ModelKind::Gin => gnn::ModelConfig::gin(d_input, self.hidden, classes),
            ModelKind::Gine => {
                let d_edge = d_edge.ok_or_else(|| {
                    FedError::param("model", "gine", "needs a task with edge features")
                })?;
                gnn::ModelConfig::gine(d_input, d_edge, self.hidden, classes)
            }
            ModelKind::Pna => {
                let delta = self.pna_delta.ok_or_else(|| {
                    FedError::param(
                        "pna_delta",
                        "none",
                        "PNA needs its degree normaliser δ agreed by every client",
                    )
                })?;
                positive("pna_delta", delta)?;
                // One tower: the output layer's width (the classes) must divide by the towers
                // [R: Multi-GNN uses 5 towers with an MLP readout].
                let settings = gnn::PnaSettings::new(delta).with_d_edge(d_edge);
                gnn::ModelConfig::pna(d_input, self.hidden, classes, settings)
            }
        };
        Ok(base
            .with_num_layers(self.num_layers)
            .with_dropout(self.dropout)
            .with_activation(self.activation)
            .with_seed(self.seed))
    }
}
