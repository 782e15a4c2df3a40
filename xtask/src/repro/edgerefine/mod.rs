//! `cargo xtask repro edgerefine`: node-classification accuracy of GNNs trained on graphs
//! released under local edge-DP, over ε, per dataset and model, next to the non-private graph
//! and the features-only model; the structure of each release (density, true-edge precision
//! and recall) and its publish time; PUBI; the reconstruction attack; MUTAG graph
//! classification on per-graph releases; and Blink on Cora under its own 50/25/25 protocol.
//!
//! The protocols and the tables' rows come from `edgerefine::paper`; this file loads the
//! datasets, selects what runs (`--tables`, `--only`), keeps the node grid's
//! chunk cache on disk and writes the tables, their notes and plots.

use std::path::Path;
use std::time::Instant;

use anyhow::{Result, bail};
use edgerefine::paper::Plan;
use edgerefine::paper::node::{Chunk, NodeGrid, Slot};
use graph_core::registry::Dataset;
use graph_core::{GraphDataset, NodeDataset, Registry};

mod grid;
mod tables;
#[cfg(test)]
mod tests;

use grid::node_tables;
use tables::{
    blink_protocol_table, calibrations_table, edge_count_table, k_sweep_models_table,
    k_sweep_table, mutag_table, rae_table,
};

use super::runner::{Cell, Runner};
use super::{Ctx, Effort};
use crate::cli::ReproTable;
use crate::datasets::data_dir;

/// Which parts run: `--tables blink,mutag,rae,accuracy,…` (none of edgerefine's named: all) and
/// the node grid's datasets (`--only cora,dblp`). With `--resume`, a table whose output already
/// exists is not recomputed, and the node grid's chunks (one per dataset, ε or the ε-free rows,
/// and seed, under `<out>/edgerefine/cache/<dataset>/`) are taken from `--out` or the committed
/// reference's cache when made by the same plan ([`Runner`]): the long `--full` grid can run as
/// several processes (`--shard`) or within a time budget (`--budget-min`, the tables then name
/// the chunks left) and be assembled by a last run; a fresh clone reassembles the reference
/// tables and runs only the chunks it lacks.
pub(super) struct Parts<'a> {
    select: &'a super::Select,
    /// Caching, resume, shard and budget of the node grid's chunks.
    runner: Runner,
}

impl<'a> Parts<'a> {
    /// The selection of `ctx`'s flags.
    ///
    /// # Errors
    /// A budget that is not a number of minutes ≥ 0.
    fn new(ctx: &'a Ctx) -> Result<Self> {
        Ok(Self {
            select: &ctx.select,
            runner: Runner::new(ctx)?,
        })
    }

    /// Whether the node tables of dataset `name` run.
    fn wants_dataset(&self, name: &str) -> bool {
        self.select.wants_table(ReproTable::Accuracy) && self.select.wants_dataset(name)
    }

    /// Whether the table `stem` must be computed.
    fn table(&self, table: ReproTable, dir: &Path, stem: &str) -> bool {
        self.select.wants_table(table)
            && !(self.runner.resume() && dir.join(format!("{stem}.json")).exists())
    }
}

/// The datasets `--only` may name for edgerefine's node grid.
pub(crate) fn dataset_names(effort: Effort) -> Vec<&'static str> {
    let p = match effort {
        Effort::Quick => Plan::quick(),
        Effort::Full => Plan::full(),
    };
    p.datasets.iter().map(|d| d.name).collect()
}

pub(crate) fn run(ctx: &Ctx) -> Result<()> {
    let start = Instant::now();
    let dir = ctx.out.join("edgerefine");
    let p = match ctx.effort {
        Effort::Quick => Plan::quick(),
        Effort::Full => Plan::full(),
    };
    let parts = Parts::new(ctx)?;
    // The small acceptance tables first, the long node-classification grid last (it writes its
    // tables after every dataset).
    if parts.table(ReproTable::Blink, &dir, "blink_cora") {
        blink_protocol_table(ctx, &p, &dir)?;
    }
    if parts.table(ReproTable::Mutag, &dir, "mutag") {
        mutag_table(ctx, &p, &dir)?;
    }
    if parts.table(ReproTable::Rae, &dir, "rae") {
        rae_table(ctx, &p, &dir)?;
    }
    if parts.table(ReproTable::EdgeCount, &dir, "edge_count") {
        edge_count_table(ctx, &p, &dir)?;
    }
    if parts.table(ReproTable::KSweep, &dir, "k_sweep") {
        k_sweep_table(ctx, &p, &dir)?;
    }
    if parts.table(ReproTable::KSweepModels, &dir, "k_sweep_models") {
        k_sweep_models_table(ctx, &p, &dir)?;
    }
    if parts.table(ReproTable::Calibrations, &dir, "calibrations") {
        calibrations_table(ctx, &p, &dir)?;
    }
    node_tables(ctx, &p, &dir, &parts)?;
    eprintln!(
        "repro edgerefine: {:.0} s in all",
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The node dataset `name`, or `None` when it is not installed.
pub(super) fn node_dataset(name: &str) -> Result<Option<NodeDataset>> {
    let data = data_dir();
    let spec = Registry::embedded().get(name)?;
    if !spec.is_installed(&data) {
        return Ok(None);
    }
    let Dataset::Nodes(ds) = spec.load(&data)? else {
        bail!("{name} is not a node dataset");
    };
    Ok(Some(ds))
}

/// The graph collection `name`, or `None` when it is not installed.
pub(super) fn graph_dataset(name: &str) -> Result<Option<GraphDataset>> {
    let data = data_dir();
    let spec = Registry::embedded().get(name)?;
    if !spec.is_installed(&data) {
        return Ok(None);
    }
    let Dataset::Graphs(ds) = spec.load(&data)? else {
        bail!("{name} is not a graph dataset");
    };
    Ok(Some(ds))
}

/// The cache file of one chunk, relative to the results directory:
/// `edgerefine/cache/<dataset>/<fixed|eps…>-seed<seed>.json`.
fn chunk_rel(grid: &NodeGrid<'_>, slot: Slot, seed: u64) -> std::path::PathBuf {
    Path::new("edgerefine")
        .join("cache")
        .join(grid.dataset().name)
        .join(format!("{}-seed{seed}.json", grid.label(slot)))
}

impl Cell for Chunk {
    const PRETTY: bool = false;

    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }
}
