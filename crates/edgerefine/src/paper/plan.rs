//! EdgeRefine's experiment plan (feature `train`): the node-classification grid over ε, the
//! MUTAG table and Blink's own protocol, as typed configuration ([`Plan::quick`],
//! [`Plan::full`]), with the epoch budget by release size ([`Plan::epochs_for`]).

use crate::baselines::{BlinkArtifactVariant, BlinkVariant};
use crate::eval::{EdgeCount, GraphModel, Method, NodeModel};
use crate::{ArtifactCalibration, TieBreak};

/// Releases with more edges than this (dense randomized-response-style graphs) are dense: they
/// were trained with [`DenseCaps::dense_epochs`] in the plans that had caps.
pub const DENSE_EDGES: usize = 300_000;
/// Releases with more edges than this were trained with [`DenseCaps::very_dense_epochs`] in the
/// plans that had caps.
pub const VERY_DENSE_EDGES: usize = 500_000;
/// The [`Plan::train_edge_limit`] of [`Plan::full_before_dense_path`]: 4·10⁶ undirected edges
/// (8·10⁶ messages; GAT's 128-wide messages then took 4 GB a tensor). Above it are the dense
/// releases of AMAP at ε ≤ 2 (SymRR 3.5–11 M edges, RR up to 18 M) and of none of the smaller
/// datasets.
pub const TRAIN_EDGE_LIMIT: usize = 4_000_000;

/// One node dataset of the plan: its ε grid and epoch budget.
#[derive(Clone, Debug, PartialEq)]
pub struct DatasetPlan {
    /// Registry name.
    pub name: &'static str,
    /// The ε grid.
    pub eps: Vec<f64>,
    /// Epoch cap of releases that are not dense.
    pub max_epochs: usize,
    /// Early-stopping patience of releases that are not dense.
    pub patience: usize,
}

/// The epoch caps of dense releases in the plans made before the dense training path
/// (`gnn::Aggregation`): each capped run counts as trained to the cap, without early stopping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DenseCaps {
    /// Epoch cap (and patience) for releases with more than [`DENSE_EDGES`] edges.
    pub dense_epochs: usize,
    /// Epoch cap (and patience) for releases with more than [`VERY_DENSE_EDGES`] edges.
    pub very_dense_epochs: usize,
}

impl DenseCaps {
    /// The caps of the `--full` plans before the dense path: 20 and 3 epochs.
    pub const BEFORE_DENSE_PATH: Self = Self {
        dense_epochs: 20,
        very_dense_epochs: 3,
    };
}

/// The node-classification grid, the MUTAG table and Blink's own protocol: which datasets,
/// models, methods, ε and seeds run, and the epoch caps by release size.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Node datasets with their ε grid and epoch budget.
    pub datasets: Vec<DatasetPlan>,
    /// Models trained on every release.
    pub models: Vec<NodeModel>,
    /// Methods released at every ε.
    pub methods: Vec<Method>,
    /// Methods whose releases are dense at every ε (SymRR, RR, Blink-soft).
    pub dense_methods: Vec<Method>,
    /// The ε at which the dense methods run.
    pub dense_eps: Vec<f64>,
    /// Seeds: each release and training run is repeated per seed.
    pub seeds: Vec<u64>,
    /// Epoch caps of dense releases (`None`: every release trains under the dataset's own
    /// budget, as the paper's protocol).
    pub dense_caps: Option<DenseCaps>,
    /// Releases with more edges than this are released and measured but not trained on
    /// (`None`: no limit). The tables count the releases left out.
    pub train_edge_limit: Option<usize>,
    /// Methods of the MUTAG table (per-graph releases).
    pub mutag_methods: Vec<Method>,
    /// Graph-level models of the MUTAG table (the paper: GCN, GAT and GIN).
    pub mutag_models: Vec<GraphModel>,
    /// ε grid of the MUTAG table.
    pub mutag_eps: Vec<f64>,
    /// Blink's own protocol.
    pub blink: BlinkProtocol,
    /// The k sweep and the calibration variants.
    pub k_sweep: KSweep,
    /// The k sweep with other models (the artifact's Table 7: GAT and GIN beside GCN); no
    /// calibration variants.
    pub model_k_sweeps: Vec<KSweep>,
    /// The artifact's other calibrations against the paper's.
    pub calibrations: CalibrationTable,
}

/// The artifact's calibration variants (`exp_method_variant_comparison.py`: DBLP, ε = 1, GAT,
/// k = 0.01): each [`ArtifactCalibration`] of one noisy graph per (ε, seed), beside our
/// default server, trained with each model and compared with the features-only model.
#[derive(Clone, Debug, PartialEq)]
pub struct CalibrationTable {
    /// Datasets (each one of the plan's node datasets, for its epoch budget).
    pub datasets: Vec<&'static str>,
    /// Models trained on every release.
    pub models: Vec<NodeModel>,
    /// ε of the randomized response.
    pub eps: Vec<f64>,
    /// Sampling rate k.
    pub k: f64,
    /// The calibrations.
    pub calibrations: Vec<ArtifactCalibration>,
    /// Seeds (release, beta split and training).
    pub seeds: Vec<u64>,
}

/// The k sweep (how many edges EdgeRefine releases, `K = ⌊k·E⌋`) and the calibration
/// variants (number of quantile bins, tie-break): for each dataset, ε, k and variant, the
/// accuracy of one model on the release against the same model without edges — where does the
/// release start to help over features only, and at what ε?
#[derive(Clone, Debug, PartialEq)]
pub struct KSweep {
    /// Datasets (registry names; each must be one of the plan's node datasets for its epoch
    /// budget).
    pub datasets: Vec<&'static str>,
    /// The model trained on every release.
    pub model: NodeModel,
    /// ε of the sweep.
    pub eps: Vec<f64>,
    /// Sampling rates k.
    pub ks: Vec<f64>,
    /// Calibration variants run besides the default (B = 10, default tie-break), at every ε
    /// and at the rates of `variant_ks`.
    pub variants: Vec<Calibration>,
    /// The rates at which the variants run.
    pub variant_ks: Vec<f64>,
    /// Seeds (release and training).
    pub seeds: Vec<u64>,
}

/// A calibration variant of EdgeRefine's server: the number of quantile bins `B` of the
/// Jaccard values and the order inside a bin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Calibration {
    /// Quantile bins B (the paper: 10).
    pub bins: usize,
    /// Tie-break inside equal calibrated probabilities.
    pub tie_break: TieBreak,
}

impl Calibration {
    /// The paper's B = 10 with our default tie-break.
    pub const DEFAULT: Self = Self {
        bins: 10,
        tie_break: TieBreak::Default,
    };

    /// A short label: `B=10`, `B=10 reference` for the authors' tie-break.
    ///
    /// # Example
    /// ```
    /// use edgerefine::{TieBreak, paper::Calibration};
    /// assert_eq!(Calibration::DEFAULT.label(), "B=10");
    /// let r = Calibration { bins: 5, tie_break: TieBreak::Reference };
    /// assert_eq!(r.label(), "B=5 reference");
    /// ```
    pub fn label(&self) -> String {
        match self.tie_break {
            TieBreak::Default => format!("B={}", self.bins),
            TieBreak::Reference => format!("B={} reference", self.bins),
        }
    }
}

/// Blink's own protocol (Zhu et al., CCS 2023, artifact `zhxchd/Blink_GNN`): 50/25/25 split,
/// 2-layer GCN with 16 hidden units, 300 epochs, the test accuracy of the epoch with the lowest
/// validation loss, hyper-parameters chosen by validation loss over a grid.
#[derive(Clone, Debug, PartialEq)]
pub struct BlinkProtocol {
    /// The ε grid.
    pub eps: Vec<f64>,
    /// Blink's variants.
    pub variants: Vec<BlinkVariant>,
    /// Blink's δ (share of the budget for the degree vector) grid.
    pub deltas: Vec<f64>,
    /// Learning rates of the grid.
    pub lrs: Vec<f64>,
    /// Weight decays of the grid.
    pub wds: Vec<f64>,
    /// Dropouts of the grid.
    pub dropouts: Vec<f64>,
    /// Epochs (no early stopping; the weights of the lowest validation loss).
    pub epochs: usize,
}

/// The methods of the grid at every ε: EdgeRefine (k = 0.01 with both tie-breaks, k = 1; the
/// true E as in the paper), the original Blink-hard and -hybrid, the EdgeRefine artifact's
/// Blink-hard and -hybrid (the baseline the paper's gains are measured against), DPRR, LDPGen.
pub fn methods() -> Vec<Method> {
    vec![
        Method::EdgeRefine {
            k: 0.01,
            tie_break: TieBreak::Reference,
            edge_count: EdgeCount::Supplied,
        },
        Method::EdgeRefine {
            k: 0.01,
            tie_break: TieBreak::Default,
            edge_count: EdgeCount::Supplied,
        },
        Method::EdgeRefine {
            k: 1.0,
            tie_break: TieBreak::Default,
            edge_count: EdgeCount::Supplied,
        },
        Method::Blink(BlinkVariant::Hard),
        Method::Blink(BlinkVariant::Hybrid),
        Method::BlinkArtifact(BlinkArtifactVariant::Hard),
        Method::BlinkArtifact(BlinkArtifactVariant::Hybrid),
        Method::Dprr,
        Method::LdpGen,
    ]
}

impl Plan {
    /// `cargo xtask repro --quick`: Cora, GCN, ε ∈ {1, 2, 3}, 2 seeds, the MUTAG and Blink
    /// tables at reduced grids.
    pub fn quick() -> Self {
        let er1 = Method::EdgeRefine {
            k: 1.0,
            tie_break: TieBreak::Default,
            edge_count: EdgeCount::Supplied,
        };
        Plan {
            datasets: vec![DatasetPlan {
                name: "cora",
                eps: vec![1.0, 2.0, 3.0],
                max_epochs: 200,
                patience: 50,
            }],
            models: vec![NodeModel::Gcn],
            methods: methods(),
            dense_methods: vec![],
            dense_eps: vec![],
            seeds: vec![0, 1],
            dense_caps: Some(DenseCaps {
                dense_epochs: 20,
                very_dense_epochs: 5,
            }),
            train_edge_limit: None,
            mutag_methods: vec![Method::Origin, Method::NoGraph, er1, Method::SymRr],
            mutag_models: vec![GraphModel::Gin],
            mutag_eps: vec![1.0, 3.0],
            blink: BlinkProtocol {
                eps: vec![1.0, 2.0, 3.0],
                variants: vec![BlinkVariant::Hard],
                deltas: vec![0.1, 0.4, 0.7],
                lrs: vec![0.01],
                wds: vec![1e-3],
                dropouts: vec![0.1],
                epochs: 300,
            },
            k_sweep: KSweep {
                datasets: vec!["cora"],
                model: NodeModel::Gcn,
                eps: vec![1.0, 3.0],
                ks: vec![0.01, 0.1, 1.0],
                variants: vec![Calibration {
                    bins: 10,
                    tie_break: TieBreak::Reference,
                }],
                variant_ks: vec![0.01],
                seeds: vec![0, 1],
            },
            model_k_sweeps: vec![KSweep {
                datasets: vec!["cora"],
                model: NodeModel::Gat,
                eps: vec![2.0],
                ks: vec![0.01, 0.1],
                variants: vec![],
                variant_ks: vec![],
                seeds: vec![0],
            }],
            calibrations: CalibrationTable {
                datasets: vec!["cora"],
                models: vec![NodeModel::Gcn],
                eps: vec![1.0],
                k: 0.01,
                calibrations: ArtifactCalibration::ALL.to_vec(),
                seeds: vec![0],
            },
        }
    }

    /// `cargo xtask repro --full`, the paper's protocol: Cora, DBLP, ACM and AMAP over
    /// ε ∈ {0.5, …, 3.5}, GCN, GAT and GIN, ≤ 700 epochs with patience 100, 5 seeds, the dense
    /// baselines at every ε (under the same protocol: no caps, no edge limit; GCN and GIN
    /// aggregate them with the dense product), MUTAG with GCN, GAT and GIN, the
    /// full Blink grid, the k sweep over k ∈ {0.001, …, 1} (GCN; GAT and GIN at the artifact's
    /// Table 7 setting) and the artifact's calibrations on DBLP and Cora.
    pub fn full() -> Self {
        let er1 = Method::EdgeRefine {
            k: 1.0,
            tie_break: TieBreak::Default,
            edge_count: EdgeCount::Supplied,
        };
        Plan {
            datasets: ["cora", "dblp", "acm", "amap"]
                .into_iter()
                .map(|name| DatasetPlan {
                    name,
                    eps: vec![0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5],
                    max_epochs: 700,
                    patience: 100,
                })
                .collect(),
            models: vec![NodeModel::Gcn, NodeModel::Gat, NodeModel::Gin],
            methods: methods(),
            dense_methods: vec![Method::SymRr, Method::Rr, Method::Blink(BlinkVariant::Soft)],
            dense_eps: vec![0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5],
            seeds: vec![0, 1, 2, 3, 4],
            dense_caps: None,
            train_edge_limit: None,
            mutag_methods: vec![
                Method::Origin,
                Method::NoGraph,
                er1,
                Method::EdgeRefine {
                    k: 1.0,
                    tie_break: TieBreak::Reference,
                    edge_count: EdgeCount::Supplied,
                },
                Method::SymRr,
                Method::Blink(BlinkVariant::Hard),
                Method::LdpGen,
                Method::Dprr,
            ],
            mutag_models: vec![GraphModel::Gcn, GraphModel::Gat, GraphModel::Gin],
            mutag_eps: vec![0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5],
            blink: BlinkProtocol {
                eps: vec![1.0, 2.0, 3.0],
                variants: vec![BlinkVariant::Hard, BlinkVariant::Hybrid],
                deltas: vec![0.1, 0.4, 0.7],
                lrs: vec![0.1, 0.01],
                wds: vec![1e-3, 1e-4, 0.0],
                dropouts: vec![0.0, 0.1],
                epochs: 300,
            },
            k_sweep: KSweep {
                datasets: vec!["cora", "dblp", "acm", "amap"],
                model: NodeModel::Gcn,
                eps: vec![0.5, 1.0, 2.0, 3.5],
                // The artifact's Table 7 rates (0.005, 0.01, 0.05, 0.1, 0.3, 0.5) and both ends.
                ks: vec![0.001, 0.005, 0.01, 0.05, 0.1, 0.3, 0.5, 1.0],
                variants: vec![
                    Calibration {
                        bins: 5,
                        tie_break: TieBreak::Default,
                    },
                    Calibration {
                        bins: 20,
                        tie_break: TieBreak::Default,
                    },
                    Calibration {
                        bins: 10,
                        tie_break: TieBreak::Reference,
                    },
                ],
                variant_ks: vec![0.01, 0.1, 1.0],
                seeds: vec![0, 1, 2],
            },
            // The artifact's Table 7: DBLP and Cora, ε = 2, k ∈ {0.005, …, 0.5}, GAT and GIN
            // (GCN is in `k_sweep`).
            model_k_sweeps: [NodeModel::Gat, NodeModel::Gin]
                .into_iter()
                .map(|model| KSweep {
                    datasets: vec!["dblp", "cora"],
                    model,
                    eps: vec![2.0],
                    ks: vec![0.005, 0.01, 0.05, 0.1, 0.3, 0.5],
                    variants: vec![],
                    variant_ks: vec![],
                    seeds: vec![0, 1, 2],
                })
                .collect(),
            calibrations: CalibrationTable {
                datasets: vec!["dblp", "cora"],
                models: vec![NodeModel::Gat, NodeModel::Gcn],
                eps: vec![1.0, 2.0],
                k: 0.01,
                calibrations: ArtifactCalibration::ALL.to_vec(),
                seeds: vec![0, 1, 2],
            },
        }
    }

    /// The `--full` plan before the dense training path (committed chunk caches up to
    /// `5178361`): dense releases under [`DenseCaps::BEFORE_DENSE_PATH`], releases above
    /// [`TRAIN_EDGE_LIMIT`] not trained. Its chunks' plain methods (every method but the
    /// dense ones) ran exactly as [`Plan::full`] runs them, so `--resume` reuses them and runs
    /// only the dense methods again.
    pub fn full_before_dense_path() -> Self {
        Self {
            dense_caps: Some(DenseCaps::BEFORE_DENSE_PATH),
            train_edge_limit: Some(TRAIN_EDGE_LIMIT),
            ..Self::full()
        }
    }

    /// The plan of the `--full` reference committed before the paper's 700 / 100 protocol
    /// (`results/edgerefine/`): ≤ 300 epochs with patience 50, no artifact Blink, the dense
    /// baselines at ε = 3.5 only, no training edge limit. Its chunk cache (in the git history,
    /// `ba0accb`) is found under this plan's fingerprints.
    pub fn full_before_paper_protocol() -> Self {
        let full = Self::full_before_dense_path();
        Self {
            datasets: full
                .datasets
                .iter()
                .map(|d| DatasetPlan {
                    max_epochs: 300,
                    patience: 50,
                    ..d.clone()
                })
                .collect(),
            methods: full
                .methods
                .iter()
                .copied()
                .filter(|m| !matches!(m, Method::BlinkArtifact(_)))
                .collect(),
            dense_eps: vec![3.5],
            train_edge_limit: None,
            ..full
        }
    }

    /// The epoch cap and patience of a release with `edges` edges of dataset `ds`, and whether
    /// the release counts as dense (more than [`DENSE_EDGES`] edges). Under [`DenseCaps`],
    /// more than [`VERY_DENSE_EDGES`] edges get `very_dense_epochs` and more than
    /// [`DENSE_EDGES`] get `dense_epochs` (both without early stopping before the cap);
    /// otherwise, and without caps, the dataset's own budget.
    ///
    /// # Example
    /// ```
    /// use edgerefine::paper::{DENSE_EDGES, Plan};
    /// let p = Plan::quick();
    /// let cora = &p.datasets[0];
    /// assert_eq!(p.epochs_for(cora, 10_000), (200, 50, false));
    /// assert_eq!(p.epochs_for(cora, DENSE_EDGES + 1), (20, 20, true));
    /// let full = Plan::full();
    /// assert_eq!(full.epochs_for(&full.datasets[0], 10 * DENSE_EDGES), (700, 100, true));
    /// ```
    pub fn epochs_for(&self, ds: &DatasetPlan, edges: usize) -> (usize, usize, bool) {
        let dense = edges > DENSE_EDGES;
        match self.dense_caps {
            Some(c) if edges > VERY_DENSE_EDGES => (c.very_dense_epochs, c.very_dense_epochs, true),
            Some(c) if dense => (c.dense_epochs, c.dense_epochs, true),
            _ => (ds.max_epochs, ds.patience, dense),
        }
    }
}
