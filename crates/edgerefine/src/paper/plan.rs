//! EdgeRefine's experiment plan (feature `train`): the node-classification grid over ε, the
//! MUTAG table and Blink's own protocol, as typed configuration ([`Plan::quick`],
//! [`Plan::full`]), with the epoch caps by release size ([`Plan::epochs_for`]).

use crate::TieBreak;
use crate::baselines::BlinkVariant;
use crate::eval::{EdgeCount, Method, NodeModel};

/// Releases with more edges than this (dense randomized-response-style graphs) are trained
/// with the dense epoch cap.
pub const DENSE_EDGES: usize = 300_000;
/// Releases with more edges than this are trained with the very-dense epoch cap.
pub const VERY_DENSE_EDGES: usize = 500_000;

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
    /// Epoch cap (and patience) for releases with more than [`DENSE_EDGES`] edges.
    pub dense_epochs: usize,
    /// Epoch cap (and patience) for releases with more than [`VERY_DENSE_EDGES`] edges.
    pub very_dense_epochs: usize,
    /// Methods of the MUTAG table (per-graph releases).
    pub mutag_methods: Vec<Method>,
    /// ε grid of the MUTAG table.
    pub mutag_eps: Vec<f64>,
    /// Blink's own protocol.
    pub blink: BlinkProtocol,
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
/// true E as in the paper), Blink-hard and -hybrid, DPRR, LDPGen.
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
            dense_epochs: 20,
            very_dense_epochs: 5,
            mutag_methods: vec![Method::Origin, Method::NoGraph, er1, Method::SymRr],
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
        }
    }

    /// `cargo xtask repro --full`: Cora, DBLP, ACM and AMAP over ε ∈ {0.5, …, 3.5}, GCN, GAT
    /// and GIN, 5 seeds, the dense baselines at ε = 3.5, the full MUTAG and Blink grids.
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
                    max_epochs: 300,
                    patience: 50,
                })
                .collect(),
            models: vec![NodeModel::Gcn, NodeModel::Gat, NodeModel::Gin],
            methods: methods(),
            dense_methods: vec![Method::SymRr, Method::Rr, Method::Blink(BlinkVariant::Soft)],
            dense_eps: vec![3.5],
            seeds: vec![0, 1, 2, 3, 4],
            dense_epochs: 20,
            very_dense_epochs: 3,
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
        }
    }

    /// The epoch cap and patience of a release with `edges` edges of dataset `ds`, and whether
    /// the release counts as dense: more than [`VERY_DENSE_EDGES`] edges get
    /// `very_dense_epochs`, more than [`DENSE_EDGES`] get `dense_epochs` (both without early
    /// stopping before the cap), the rest the dataset's own budget.
    ///
    /// # Example
    /// ```
    /// use edgerefine::paper::{DENSE_EDGES, Plan};
    /// let p = Plan::quick();
    /// let cora = &p.datasets[0];
    /// assert_eq!(p.epochs_for(cora, 10_000), (200, 50, false));
    /// assert_eq!(p.epochs_for(cora, DENSE_EDGES + 1), (20, 20, true));
    /// ```
    pub fn epochs_for(&self, ds: &DatasetPlan, edges: usize) -> (usize, usize, bool) {
        if edges > VERY_DENSE_EDGES {
            (self.very_dense_epochs, self.very_dense_epochs, true)
        } else if edges > DENSE_EDGES {
            (self.dense_epochs, self.dense_epochs, true)
        } else {
            (ds.max_epochs, ds.patience, false)
        }
    }
}
