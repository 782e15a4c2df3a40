//! [`FedTask`]: a federated graph with the (simulation-side) features, labels, split and edge
//! features of every node, and the metric of the task.

use graph_core::NodeSplit;
use ndarray::Array2;
use serde::{Deserialize, Serialize};

use crate::aml::AccountGraph;
use crate::error::{FedError, Result};
use crate::federation::FederatedGraph;

/// The evaluation metric.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Metric {
    /// F1 of class 1 (the illicit class of AML tasks).
    BinaryF1,
    /// Macro-F1 over all classes (citation graphs).
    MacroF1,
}

/// A node-classification task split across clients. Features and labels are global here
/// (simulation); training hands each client only its own rows ([`FederatedGraph::distribute`]).
#[derive(Clone, Debug)]
pub struct FedTask {
    /// Dataset name.
    pub name: String,
    /// The graph and its partition.
    pub fed: FederatedGraph,
    /// One feature row per node.
    pub features: Array2<f32>,
    /// One label per node.
    pub labels: Vec<u32>,
    /// Number of classes.
    pub num_classes: usize,
    /// Train/validation/test masks over all nodes.
    pub split: NodeSplit,
    /// One feature row per undirected edge, in the order of [`graph_core::Graph::edges`]
    /// (visible to both ends of the edge).
    pub edge_features: Option<Array2<f32>>,
    /// The metric.
    pub metric: Metric,
}

impl FedTask {
    /// Bundles and validates a task.
    ///
    /// # Errors
    /// [`FedError::Inconsistent`] for shapes that do not match the graph, labels out of range,
    /// non-finite features or fewer than 2 classes.
    #[allow(clippy::too_many_arguments)] // One flat constructor of a plain data bundle.
    pub fn new(
        name: &str,
        fed: FederatedGraph,
        features: Array2<f32>,
        labels: Vec<u32>,
        num_classes: usize,
        split: NodeSplit,
        edge_features: Option<Array2<f32>>,
        metric: Metric,
    ) -> Result<Self> {
        let n = fed.graph().num_nodes();
        let m = fed.graph().num_edges();
        let bad = |what: String| Err(FedError::Inconsistent(format!("task {name}: {what}")));
        if features.nrows() != n || labels.len() != n {
            return bad(format!(
                "{n} nodes but {} feature rows and {} labels",
                features.nrows(),
                labels.len()
            ));
        }
        if num_classes < 2 || labels.iter().any(|&l| l as usize >= num_classes) {
            return bad(format!(
                "labels must lie in 0..{num_classes} with >= 2 classes"
            ));
        }
        if features.iter().any(|x| !x.is_finite()) {
            return bad("non-finite feature".into());
        }
        if split.train.len() != n || split.val.len() != n || split.test.len() != n {
            return bad("split masks do not cover the nodes".into());
        }
        if let Some(e) = &edge_features
            && (e.nrows() != m || e.ncols() == 0 || e.iter().any(|x| !x.is_finite()))
        {
            return bad(format!(
                "edge features must be finite with one row per edge ({m}), got {}×{}",
                e.nrows(),
                e.ncols()
            ));
        }
        Ok(Self {
            name: name.to_string(),
            fed,
            features,
            labels,
            num_classes,
            split,
            edge_features,
            metric,
        })
    }

    /// Illicit-account classification on an AML account graph, one client per bank, with a
    /// random split (`train_frac`, `val_frac`, rest test), edge features for GINE and binary F1.
    ///
    /// # Errors
    /// As [`FedTask::new`]; [`FedError::InvalidParam`] with fewer than 2 banks.
    pub fn from_account_graph<R: rand::Rng + ?Sized>(
        name: &str,
        ag: &AccountGraph,
        train_frac: f64,
        val_frac: f64,
        rng: &mut R,
    ) -> Result<Self> {
        Self::from_account_graph_with(
            name,
            ag,
            &AmlTaskOptions {
                train_frac,
                val_frac,
                ..AmlTaskOptions::default()
            },
            rng,
        )
    }

    /// [`FedTask::from_account_graph`] with the clients and the split of `options`: the banks
    /// grouped into `options.clients` clients ([`AccountGraph::federate_by_bank_groups`]) or one
    /// client per bank, and a random or time-ordered split ([`AmlSplit`]).
    ///
    /// # Errors
    /// As [`FedTask::new`]; [`FedError::InvalidParam`] for a client count the banks cannot
    /// serve; [`FedError::Inconsistent`] for a time-ordered split of accounts without
    /// transaction times; graph-core's errors for the fractions.
    pub fn from_account_graph_with<R: rand::Rng + ?Sized>(
        name: &str,
        ag: &AccountGraph,
        options: &AmlTaskOptions,
        rng: &mut R,
    ) -> Result<Self> {
        let fed = match options.clients {
            Some(c) => ag.federate_by_bank_groups(c)?,
            None => ag.federate_by_bank()?,
        };
        let n = ag.graph.num_nodes();
        let (train_frac, val_frac) = (options.train_frac, options.val_frac);
        let split = match options.split {
            AmlSplit::Random => NodeSplit::random(n, train_frac, val_frac, rng)?,
            AmlSplit::Time => NodeSplit::ordered(&ag.time_order()?, train_frac, val_frac)?,
        };
        Self::new(
            name,
            fed,
            ag.node_features.clone(),
            ag.node_labels.clone(),
            2,
            split,
            Some(ag.edge_features.clone()),
            Metric::BinaryF1,
        )
    }
}

graph_core::choice_enum! {
    /// How the accounts of an AML task are split into training, validation and test (`--split`).
    pub enum AmlSplit: "split" {
        /// A seeded random split.
        Random => "random",
        /// By time, as Multi-GNN splits AMLworld: accounts ordered by their first transaction,
        /// the earliest train, the next validate, the latest test.
        Time => "time",
    }
}

/// The clients and the split of an AML task ([`FedTask::from_account_graph_with`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AmlTaskOptions {
    /// Banks grouped into this many clients (`None`: one client per bank).
    pub clients: Option<usize>,
    /// Random or time-ordered.
    pub split: AmlSplit,
    /// Share of the accounts that train.
    pub train_frac: f64,
    /// Share of the accounts that validate (the rest test).
    pub val_frac: f64,
}

impl Default for AmlTaskOptions {
    /// One client per bank, a random 60/20/20 split (the tables' AML protocol).
    fn default() -> Self {
        Self {
            clients: None,
            split: AmlSplit::Random,
            train_frac: 0.6,
            val_frac: 0.2,
        }
    }
}

graph_core::choice_enum! {
    /// How a graph without a client attribute is split into clients (`--partition`).
    pub enum PartitionKind: "partition" {
        /// Balanced random partition.
        Random => "random",
        /// Community partition (label propagation packed into N parts).
        Community => "community",
        /// FedSage+'s grouping: Louvain communities packed into clients of about N/M nodes
        /// (δ = 20) with its class repair ([`graph_core::partition::LouvainClients`]).
        Louvain => "louvain",
        /// FedGCN's label-Dirichlet skew, α = 1 (strongly non-IID), every client ≥ 10 nodes.
        LabelDirichlet1 => "label-dirichlet-1",
        /// FedGCN's label-Dirichlet skew, α = 100.
        LabelDirichlet100 => "label-dirichlet-100",
        /// FedGCN's label-Dirichlet skew, α = 10,000 (close to IID).
        LabelDirichlet10000 => "label-dirichlet-10000",
    }
}

impl PartitionKind {
    /// α of a label-Dirichlet partition.
    pub(crate) fn dirichlet_alpha(self) -> Option<f64> {
        match self {
            Self::LabelDirichlet1 => Some(1.0),
            Self::LabelDirichlet100 => Some(100.0),
            Self::LabelDirichlet10000 => Some(10_000.0),
            Self::Random | Self::Community | Self::Louvain => None,
        }
    }

    /// The partition of `graph` with node `labels` into `clients` parts.
    ///
    /// # Errors
    /// graph-core's [`graph_core::GraphError::InvalidParam`] for a count of clients the
    /// partition cannot serve.
    pub fn partition<R: rand::Rng + ?Sized>(
        self,
        graph: &graph_core::Graph,
        labels: &[u32],
        clients: usize,
        rng: &mut R,
    ) -> Result<graph_core::Partition> {
        use graph_core::partition::{LouvainClients, label_dirichlet};
        Ok(match self {
            Self::Random => graph_core::Partition::random(graph.num_nodes(), clients, rng)?,
            Self::Community => graph_core::Partition::community(graph, clients, rng)?,
            Self::Louvain => LouvainClients::new(clients).partition(graph, labels, rng)?,
            Self::LabelDirichlet1 | Self::LabelDirichlet100 | Self::LabelDirichlet10000 => {
                let alpha = self.dirichlet_alpha().expect("a Dirichlet kind");
                label_dirichlet(labels, clients, alpha, 10, rng)?
            }
        })
    }
}

impl FedTask {
    /// A node-classification dataset (e.g. a citation graph) split into `clients` clients,
    /// with a random split (`train_frac`, `val_frac`, rest test) and macro-F1.
    ///
    /// # Errors
    /// As [`FedTask::new`], [`FederatedGraph::random`] / [`FederatedGraph::community`] and
    /// [`PartitionKind::partition`].
    pub fn from_node_dataset<R: rand::Rng + ?Sized>(
        ds: &graph_core::NodeDataset,
        clients: usize,
        partition: PartitionKind,
        train_frac: f64,
        val_frac: f64,
        rng: &mut R,
    ) -> Result<Self> {
        let g = ds.graph().clone();
        let fed = match partition {
            PartitionKind::Random => FederatedGraph::random(g, clients, rng)?,
            PartitionKind::Community => FederatedGraph::community(g, clients, rng)?,
            other => {
                let p = other.partition(&g, ds.labels(), clients, rng)?;
                FederatedGraph::new(g, p)?
            }
        };
        let split = NodeSplit::random(ds.graph().num_nodes(), train_frac, val_frac, rng)?;
        Self::new(
            ds.name(),
            fed,
            ds.features().clone(),
            ds.labels().to_vec(),
            ds.num_classes(),
            split,
            None,
            Metric::MacroF1,
        )
    }
}

/// The stream a federated task (partition and split) is drawn from in a run with `seed`:
/// stream `("cefedgnn/task", 0)` of [`dp_core::rng::Seeds`]`::new(seed)`. `dpgraph fed simulate` and
/// `dpgraph fed partition` draw their tasks from it too, so the same seed gives the same task.
pub fn task_rng(seed: u64) -> dp_core::rng::ChaCha8Rng {
    dp_core::rng::Seeds::new(seed).chacha8("cefedgnn/task", 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use graph_core::choice::Choice;
    use graph_core::generate::ContextualSbm;

    #[test]
    fn every_partition_kind_makes_a_task_and_louvain_cuts_fewest_edges() {
        let ds = ContextualSbm {
            n: 600,
            classes: 3,
            p_in: 0.05,
            p_out: 0.002,
            dim: 4,
            mu: 1.0,
        }
        .sample(&mut task_rng(1))
        .unwrap();
        let mut cross = Vec::new();
        for &kind in PartitionKind::ALL {
            let task = FedTask::from_node_dataset(&ds, 3, kind, 0.6, 0.2, &mut task_rng(2))
                .unwrap_or_else(|e| panic!("{kind}: {e}"));
            assert_eq!(task.fed.num_clients(), 3, "{kind}");
            cross.push((kind, task.fed.stats().unwrap().cross_fraction));
        }
        let of = |k: PartitionKind| cross.iter().find(|(x, _)| *x == k).unwrap().1;
        assert!(
            of(PartitionKind::Louvain) < of(PartitionKind::Random) / 2.0,
            "{cross:?}"
        );
        assert_eq!(PartitionKind::LabelDirichlet1.dirichlet_alpha(), Some(1.0));
        assert_eq!(PartitionKind::names().len(), 6);
    }
}

#[cfg(test)]
mod metric_tests {
    use super::*;
    use crate::train::{FedTrainConfig, Method, simulate};
    use graph_core::generate::ContextualSbm;

    #[test]
    fn the_present_classes_reading_is_never_below_the_all_classes_one() {
        let ds = ContextualSbm {
            n: 300,
            classes: 5,
            p_in: 0.08,
            p_out: 0.005,
            dim: 4,
            mu: 2.0,
        }
        .sample(&mut task_rng(3))
        .unwrap();
        // α = 1: clients miss classes, so the two readings differ.
        let task = FedTask::from_node_dataset(
            &ds,
            3,
            PartitionKind::LabelDirichlet1,
            0.6,
            0.2,
            &mut task_rng(4),
        )
        .unwrap();
        let cfg = FedTrainConfig {
            rounds: 1,
            local_steps: 2,
            ..FedTrainConfig::citation()
        };
        let r = simulate(&task, &cfg, Method::SingleClient, &mut |_| {}).unwrap();
        assert!(r.f1_mean_present >= r.f1_mean, "{r:?}");
        assert!(
            r.f1_mean_present > r.f1_mean + 1e-9,
            "classes are missing: {r:?}"
        );
    }
}
