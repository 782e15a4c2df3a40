//! The settings of the tables on given data: a citation dataset split into clients (Louvain
//! grouping, random, label skew), or a generated multi-bank AML graph with one client per bank.

use dp_core::rng::Seeds;
use graph_core::NodeDataset;

use super::{AmlDataSetting, Plan};
use crate::aml::{AccountGraph, AmlGenConfig, generate};
use crate::error::Result;
use crate::train::{AmlTaskOptions, FedTask, ModelKind, PartitionKind, task_rng};

/// Train and validation fractions of a citation split (the rest is test): 20/20/60.
pub const CITATION_SPLIT: (f64, f64) = (0.2, 0.2);

/// Train and validation fractions of an AML split (the rest is test): 60/20/20.
pub const AML_SPLIT: (f64, f64) = (0.6, 0.2);

/// One row group of the tables: a federated task and the model trained on it.
#[derive(Clone, Debug)]
pub struct Setting {
    /// The name in tables (`cora N=5`, `aml-gen-2000 Gine`).
    pub label: String,
    /// The federated task.
    pub task: FedTask,
    /// The GNN.
    pub model: ModelKind,
    /// Whether the setting runs all seeds and the K sweep ([`Plan::seeds_for`]).
    pub primary: bool,
}

impl Setting {
    /// Citation dataset `name` split into `clients` clients by `partition`, with a random
    /// 20/20/60 split, both drawn from the task stream [`task_rng`]`(seed)`; GCN, label
    /// `"{name} N={clients} {partition}"`, not primary.
    ///
    /// # Errors
    /// As [`FedTask::from_node_dataset`].
    pub fn citation(
        name: &str,
        ds: &NodeDataset,
        clients: usize,
        partition: PartitionKind,
        seed: u64,
    ) -> Result<Self> {
        let mut rng = task_rng(seed);
        let (train, val) = CITATION_SPLIT;
        let task = FedTask::from_node_dataset(ds, clients, partition, train, val, &mut rng)?;
        Ok(Self {
            label: format!("{name} N={clients} {partition}"),
            task,
            model: ModelKind::Gcn,
            primary: false,
        })
    }
}

/// The generator configuration of an AML graph with `accounts` accounts: 8 banks, ten normal
/// transactions per account, the HI-Small attempt counts scaled by `accounts / 4000`.
pub fn aml_gen_config(accounts: usize) -> AmlGenConfig {
    AmlGenConfig {
        num_banks: 8,
        num_accounts: accounts,
        num_normal: accounts * 10,
        attempt_scale: accounts as f64 / 4000.0,
        ..AmlGenConfig::default()
    }
}

/// The generated AML task `aml-gen-{accounts}`: [`aml_gen_config`] drawn from
/// stream `("cefedgnn/aml-task", accounts)` of [`Seeds`]`::new(seed)`, one client per bank, a random
/// 60/20/20 split from the same generator.
///
/// # Errors
/// As [`generate`] and [`FedTask::from_account_graph`].
pub fn aml_task(accounts: usize, seed: u64) -> Result<FedTask> {
    let mut rng = Seeds::new(seed).chacha8("cefedgnn/aml-task", accounts as u64);
    let ag = generate(&aml_gen_config(accounts), &mut rng)?.to_account_graph()?;
    let (train, val) = AML_SPLIT;
    FedTask::from_account_graph(&format!("aml-gen-{accounts}"), &ag, train, val, &mut rng)
}

impl Setting {
    /// The setting of an AML dataset of the registry, loaded as `ag`: the banks grouped into
    /// `a.clients` clients, the accounts split as `a.split` says (60/20/20), `a.model`.
    ///
    /// # Errors
    /// As [`FedTask::from_account_graph_with`].
    pub fn aml_data(a: &AmlDataSetting, ag: &AccountGraph, seed: u64) -> Result<Self> {
        let mut rng = task_rng(seed);
        let (train_frac, val_frac) = AML_SPLIT;
        let options = AmlTaskOptions {
            clients: Some(a.clients),
            split: a.split,
            train_frac,
            val_frac,
        };
        let task = FedTask::from_account_graph_with(&a.dataset, ag, &options, &mut rng)?;
        Ok(Self {
            label: format!("{} N={} {} {:?}", a.dataset, a.clients, a.split, a.model),
            task,
            model: a.model,
            primary: false,
        })
    }
}

impl Plan {
    /// The settings of the plan on the given citation datasets (`(registry name, dataset)`;
    /// plan entries whose dataset is not given are skipped) and on generated AML graphs
    /// ([`aml_task`], one graph per account count, shared by its models). The first citation
    /// setting built and the first AML entry of the plan are primary. `seed` draws the
    /// partitions, splits and AML graphs.
    ///
    /// # Errors
    /// As [`Setting::citation`] and [`aml_task`].
    pub fn settings(&self, citation: &[(&str, NodeDataset)], seed: u64) -> Result<Vec<Setting>> {
        let mut out = Vec::new();
        for c in &self.citation {
            let Some((_, ds)) = citation.iter().find(|(n, _)| *n == c.dataset) else {
                continue;
            };
            let mut s = Setting::citation(&c.dataset, ds, c.clients, c.partition, seed)?;
            s.primary = out.is_empty();
            out.push(s);
        }
        let mut tasks: Vec<(usize, FedTask)> = Vec::new();
        for (i, a) in self.aml.iter().enumerate() {
            let task = match tasks.iter().find(|(n, _)| *n == a.accounts) {
                Some((_, t)) => t.clone(),
                None => {
                    let t = aml_task(a.accounts, seed)?;
                    tasks.push((a.accounts, t.clone()));
                    t
                }
            };
            out.push(Setting {
                label: format!("aml-gen-{} {:?}", a.accounts, a.model),
                task,
                model: a.model,
                primary: i == 0,
            });
        }
        Ok(out)
    }

    /// The settings of [`Plan::aml_data`] on the given AML datasets (`(registry name,
    /// account graph)`; entries whose dataset is not given are skipped), after
    /// [`Plan::settings`]'s; never primary.
    ///
    /// # Errors
    /// As [`Setting::aml_data`].
    pub fn aml_data_settings(
        &self,
        data: &[(&str, AccountGraph)],
        seed: u64,
    ) -> Result<Vec<Setting>> {
        self.aml_data
            .iter()
            .filter_map(|a| {
                let (_, ag) = data.iter().find(|(n, _)| *n == a.dataset)?;
                Some(Setting::aml_data(a, ag, seed))
            })
            .collect()
    }
}
