//! [`NeighGenConfig`]: the hyper-parameters of FedSage+'s missing-neighbour generator, with the
//! reconstruction switches ([`NeighGenSplit`], [`MendOn`], [`CountRounding`]).

use serde::{Deserialize, Serialize};

use crate::error::{FedError, Result, non_negative, positive};

graph_core::choice_enum! {
    /// Which of a client's nodes NeighGen trains on (its set T_i) and tests on
    /// ([`NeighGenConfig::split`]).
    pub enum NeighGenSplit: "NeighGen split" default TaskSplit {
        /// T_i = the client's training nodes of the task, NeighGen's test set = its validation
        /// nodes \[R\]: no label of an evaluation node trains the generator.
        TaskSplit => "task",
        /// The authors' code: an independent seeded stratified split, 60 % train and 20 % test,
        /// of all the client's nodes. The labels of the task's validation and test nodes then
        /// train NeighGen's classifier, which leaks evaluation labels into the mended graph:
        /// for reproducing the code only.
        Independent => "independent",
    }
}

graph_core::choice_enum! {
    /// Which graph the trained NeighGen reads when it mends a client's local graph for the
    /// classification run ([`NeighGenConfig::mend_on`]).
    pub enum MendOn: "mending graph" default Full {
        /// The paper: NeighGen applied to the full local graph G_i; every own node receives
        /// min(K, ⌊ñ_v⌋) generated neighbours.
        Full => "full",
        /// The authors' code \[R\]: ñ and g computed on the impaired graph G_i′ and attached,
        /// in G_i, to the nodes of G_i′ (the hidden nodes receive none).
        Impaired => "impaired",
    }
}

graph_core::choice_enum! {
    /// How a predicted missing-neighbour count ñ_v becomes the number m_v of generated
    /// neighbours attached to node v, capped at K ([`NeighGenConfig::rounding`]).
    pub enum CountRounding: "count rounding" default Stochastic {
        /// The paper's intent \[R\]: m_v = ⌊ñ_v⌋ + Bernoulli(ñ_v − ⌊ñ_v⌋), so that
        /// E\[m_v\] = ñ_v (below K) and a client attaches as many neighbours in expectation
        /// as dGen predicts are missing. Where dGen predicts fewer than one missing neighbour
        /// per node (the authors' schedule on our test graphs: ñ ≈ 0.1–0.5), this is the
        /// reading under which anything is mended at all.
        Stochastic => "stochastic",
        /// m_v = the nearest integer to ñ_v (half up).
        Nearest => "nearest",
        /// The authors' code: m_v = ⌊ñ_v⌋. Where every predicted count is below one, nothing
        /// is generated, the greedy feature loss has no slot to train and FedSage+ is FedAvg:
        /// for reproducing the code only.
        Floor => "floor",
    }
}

graph_core::choice_enum! {
    /// The targets of the cross-client feature loss L_f^{i←j} of the federated phase
    /// ([`NeighGenConfig::cross`]).
    pub enum CrossTargets: "cross-client targets" default Nearest {
        /// The paper: every generated slot p < m_v of every node v of T_i is matched with the
        /// nearest feature row of all of client j's nodes, min_{u ∈ V_j} ‖g_{v,p} − x_u‖²
        /// (a mean square over the d features), normalised as the own feature loss.
        Nearest => "nearest",
        /// The authors' code: per node v of T_i, K neighbours (with replacement) of a random
        /// node of client j, matched greedily within the first min(K, n_v) as v's own targets
        /// (nodes without a hidden neighbour get no cross-client term): targets that do not
        /// depend on v.
        RandomNeighbours => "random-neighbours",
    }
}

/// Hyper-parameters of NeighGen (FedSage+, Zhang et al. 2021). The defaults are the authors'
/// code defaults: K = 5, hide half of the nodes outside NeighGen's train and test sets, encoder
/// d → 32 → 128, fGen 128 → 256 → 2048 → K·d, classifier d → 32 → C, dropout 0.5,
/// λ_d = λ_f = λ_c = 1, fGen input noise N(0, I), 20 local and 20 federated epochs of Adam
/// (lr 1e-3, weight decay 1e-4); the predicted counts are rounded stochastically
/// ([`CountRounding::Stochastic`], not the code's floor, which mends nothing where fewer than
/// one neighbour per node is missing) and the cross-client feature loss is the paper's
/// ([`CrossTargets::Nearest`], not the code's random neighbours).
///
/// Every field has a default, so a partial (or absent) configuration loads.
///
/// # Example
/// ```
/// use cefedgnn::train::NeighGenConfig;
/// let c: NeighGenConfig = serde_json::from_str(r#"{"local_epochs": 2}"#)?;
/// assert_eq!((c.local_epochs, c.max_generated, c.fgen_hidden), (2, 5, [256, 2048]));
/// assert!(c.check().is_ok());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct NeighGenConfig {
    /// K: the most neighbours generated for one node (≥ 1).
    pub max_generated: usize,
    /// Share of the nodes outside NeighGen's train and test sets hidden to build G_i′
    /// (⌊share · |rest|⌋ nodes), in [0, 1].
    pub hide_fraction: f64,
    /// Width of the encoder's first GCN layer.
    pub encoder_hidden: usize,
    /// Width of the latent z (the encoder's output).
    pub latent: usize,
    /// Widths of fGen's two hidden layers.
    pub fgen_hidden: [usize; 2],
    /// Width of the hidden layer of NeighGen's internal classifier.
    pub classifier_hidden: usize,
    /// Dropout of the encoder, fGen and the classifier, in [0, 1).
    pub dropout: f64,
    /// σ of fGen's input noise ε ~ N(0, σ²I), ≥ 0. The paper and the code: 1. Against a latent
    /// of rms norm 1–3 (measured on the signal graph of the tests) |ε| ≈ √latent swamps z, and
    /// fGen learns rows that hardly depend on the node (class margin ≈ 0.03 where 0.2 is
    /// reached with σ = 0). σ = 0 \[R\] makes fGen a deterministic function of z.
    pub noise: f64,
    /// λ_d: weight of the count loss (smooth L1).
    pub lambda_count: f64,
    /// λ_f: weight of the greedy feature loss (local and cross-client).
    pub lambda_feature: f64,
    /// λ_c: weight of the classification loss on the mended impaired graph.
    pub lambda_class: f64,
    /// Full-batch epochs of local NeighGen training (all modules).
    pub local_epochs: u32,
    /// Epochs of federated fGen training (encoder, dGen and classifier frozen).
    pub fed_epochs: u32,
    /// Adam learning rate of both phases.
    pub lr: f64,
    /// Adam's L2 weight decay of both phases.
    pub weight_decay: f64,
    /// NeighGen's train and test sets.
    pub split: NeighGenSplit,
    /// The graph mended for classification.
    pub mend_on: MendOn,
    /// How a predicted count becomes a number of generated neighbours.
    pub rounding: CountRounding,
    /// The targets of the cross-client feature loss.
    pub cross: CrossTargets,
}

impl Default for NeighGenConfig {
    fn default() -> Self {
        Self {
            max_generated: 5,
            hide_fraction: 0.5,
            encoder_hidden: 32,
            latent: 128,
            fgen_hidden: [256, 2048],
            classifier_hidden: 32,
            dropout: 0.5,
            noise: 1.0,
            lambda_count: 1.0,
            lambda_feature: 1.0,
            lambda_class: 1.0,
            local_epochs: 20,
            fed_epochs: 20,
            lr: 1e-3,
            weight_decay: 1e-4,
            split: NeighGenSplit::TaskSplit,
            mend_on: MendOn::Full,
            rounding: CountRounding::Stochastic,
            cross: CrossTargets::Nearest,
        }
    }
}

impl NeighGenConfig {
    /// Validates the configuration.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] naming the offending field: a zero K or width, a share
    /// outside [0, 1], a dropout outside [0, 1), a negative or non-finite weight or decay, a
    /// learning rate that is not positive.
    pub fn check(&self) -> Result<()> {
        let widths = [
            self.max_generated,
            self.encoder_hidden,
            self.latent,
            self.fgen_hidden[0],
            self.fgen_hidden[1],
            self.classifier_hidden,
        ];
        if widths.contains(&0) {
            return Err(FedError::param(
                "neighgen widths",
                format!("{widths:?}"),
                "K and every layer width must be positive",
            ));
        }
        if !(0.0..=1.0).contains(&self.hide_fraction) {
            return Err(FedError::param(
                "neighgen.hide_fraction",
                self.hide_fraction,
                "must lie in [0, 1]",
            ));
        }
        if !(0.0..1.0).contains(&self.dropout) {
            return Err(FedError::param(
                "neighgen.dropout",
                self.dropout,
                "must lie in [0, 1)",
            ));
        }
        non_negative("neighgen.noise", self.noise)?;
        non_negative("neighgen.lambda_count", self.lambda_count)?;
        non_negative("neighgen.lambda_feature", self.lambda_feature)?;
        non_negative("neighgen.lambda_class", self.lambda_class)?;
        non_negative("neighgen.weight_decay", self.weight_decay)?;
        positive("neighgen.lr", self.lr)?;
        Ok(())
    }
}
