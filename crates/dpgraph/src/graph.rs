//! `dpgraph graph stats (--graph FILE | --dataset NAME)`.

use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::{Args, Subcommand};
use graph_core::registry::Dataset;
use graph_core::{Graph, GraphStats};
use serde_json::json;

use crate::{Global, emit};

#[derive(Subcommand, Debug)]
pub(crate) enum GraphCmd {
    /// Nodes, edges, degrees, components and density of a graph or a dataset.
    Stats(Source),
}

/// Where the graphs come from.
#[derive(Args, Debug)]
#[group(required = true, multiple = false)]
pub(crate) struct Source {
    /// An edge-list file (`# nodes N` header, `u v` per line, optionally `.gz`) or a graph-set
    /// JSON file (`.json`).
    #[arg(long)]
    graph: Option<PathBuf>,
    /// An installed registry dataset.
    #[arg(long)]
    dataset: Option<String>,
}

impl Source {
    /// The graphs of the source.
    pub(crate) fn graphs(&self) -> Result<Vec<Graph>> {
        match (&self.graph, &self.dataset) {
            (Some(p), None) => {
                let is_json = p.extension().is_some_and(|e| e == "json");
                Ok(if is_json {
                    graph_core::io::read_graph_set(p, graph_core::io::GraphSet::Graphs)?
                } else {
                    vec![graph_core::io::read_edge_list(p)?]
                })
            }
            (None, Some(name)) => match crate::datasets::load_named(name)? {
                Dataset::Nodes(d) => Ok(vec![d.graph().clone()]),
                Dataset::Graphs(d) => Ok(d.graphs().to_vec()),
                Dataset::Files(_) => bail!("dataset {name} is a transaction table, not a graph"),
            },
            _ => bail!("give exactly one of --graph FILE or --dataset NAME"),
        }
    }
}

pub(crate) fn run(cmd: &GraphCmd, global: Global) -> Result<()> {
    match cmd {
        GraphCmd::Stats(src) => {
            let graphs = src.graphs()?;
            let s = GraphStats::of(&graphs);
            emit(
                global,
                &json!({
                    "graphs": s.graphs,
                    "nodes": s.nodes,
                    "edges": s.edges,
                    "max_degree": s.max_degree,
                    "mean_degree": s.mean_degree,
                    "isolated": s.isolated,
                    "components": s.components,
                    "density": s.density,
                }),
            )
        }
    }
}
