//! `dpgraph edgerefine perturb | refine`: the two roles of EdgeRefine as separate commands.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Result, bail};
use clap::{Subcommand, ValueEnum};
use edgerefine::{RefineParams, TieBreak, perturb, refine};
use graph_core::io::{read_edge_list, write_edge_list};
use serde_json::json;

use crate::{Global, emit};

#[derive(Subcommand, Debug)]
pub(crate) enum EdgeRefineCmd {
    /// Data owner: ε-edge randomized response on the graph; writes the noisy graph.
    Perturb {
        /// The private graph (edge list).
        #[arg(long)]
        graph: PathBuf,
        /// Privacy parameter ε (> 0).
        #[arg(long, allow_negative_numbers = true)]
        eps: f64,
        /// Where to write the noisy graph (edge list; `.gz` to compress).
        #[arg(long)]
        out: PathBuf,
    },
    /// Server: refines a noisy graph into a sparse release of ⌊k·E⌋ edges.
    Refine {
        /// The noisy graph written by `perturb`.
        #[arg(long)]
        noisy: PathBuf,
        /// The ε the owner used.
        #[arg(long, allow_negative_numbers = true)]
        eps: f64,
        /// Sampling rate k in (0, 1].
        #[arg(long, allow_negative_numbers = true)]
        k: f64,
        /// The true edge count E (public, as in the paper).
        #[arg(long)]
        true_edges: u64,
        /// Number of quantile bins B (≥ 2).
        #[arg(long, default_value_t = 10)]
        bins: usize,
        /// Order of candidates with equal calibrated probability.
        #[arg(long, value_enum, default_value_t = TieBreakArg::Default)]
        tie_break: TieBreakArg,
        /// Declared node count; the noisy graph must have exactly this many.
        #[arg(long)]
        nodes: Option<usize>,
        /// Where to write the released graph (edge list).
        #[arg(long)]
        out: PathBuf,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum TieBreakArg {
    /// Jaccard similarity, then a seeded pseudo-random order.
    Default,
    /// Row-major pair order, as the authors' code (releases stars).
    Reference,
}

pub(crate) fn run(cmd: &EdgeRefineCmd, global: Global) -> Result<()> {
    match cmd {
        EdgeRefineCmd::Perturb { graph, eps, out } => {
            edgerefine::keep_probability(*eps)?;
            let g = read_edge_list(graph)?;
            let mut rng = dp_core::rng::project_rng(global.seed)?;
            let t = Instant::now();
            let noisy = perturb(&g, *eps, &mut rng)?;
            let secs = t.elapsed().as_secs_f64();
            write_edge_list(out, &noisy)?;
            emit(
                global,
                &json!({
                    "nodes": noisy.num_nodes(),
                    "noisy_edges": noisy.num_edges(),
                    "eps": eps,
                    "seed": global.seed,
                    "perturb_s": secs,
                    "out": out.display().to_string(),
                }),
            )
        }
        EdgeRefineCmd::Refine {
            noisy,
            eps,
            k,
            true_edges,
            bins,
            tie_break,
            nodes,
            out,
        } => {
            let g = read_edge_list(noisy)?;
            if let Some(n) = nodes
                && *n != g.num_nodes()
            {
                bail!(edgerefine::EdgeRefineError::NodeCountMismatch {
                    expected: *n,
                    got: g.num_nodes(),
                });
            }
            let params = RefineParams {
                eps: *eps,
                k: *k,
                true_edges: *true_edges,
                bins: *bins,
                tie_break: match tie_break {
                    TieBreakArg::Default => TieBreak::Default,
                    TieBreakArg::Reference => TieBreak::Reference,
                },
                seed: global.seed.unwrap_or(0),
            };
            let t = Instant::now();
            let r = refine(&g, &params)?;
            let secs = t.elapsed().as_secs_f64();
            write_edge_list(out, &r.graph)?;
            emit(
                global,
                &json!({
                    "nodes": r.graph.num_nodes(),
                    "released_edges": r.graph.num_edges(),
                    "k_target": r.k_target,
                    "k_real": r.k_real,
                    "k_fake": r.k_fake,
                    "rho": r.rho,
                    "bin_edges": r.bin_edges,
                    "bin_probability": r.bin_probability,
                    "bin_pairs": r.bin_pairs,
                    "tie_break": params.tie_break,
                    "seed": params.seed,
                    "refine_s": secs,
                    "timings": r.timings,
                    "out": out.display().to_string(),
                }),
            )
        }
    }
}
