//! `dpgraph edgerefine perturb | refine`: the two roles of EdgeRefine as separate commands.

use dp_core::params::Epsilon;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use clap::Subcommand;
use edgerefine::ops::{self, EdgeCount, NoisyGraph, RefineRequest};
use edgerefine::report::{Report, decode_report, is_report};
use edgerefine::{ArtifactCalibration, TieBreak};
use graph_core::Graph;
use graph_core::io::{read_edge_list, write_edge_list};

use crate::{Global, Written, emit};

#[derive(Subcommand, Debug)]
pub(crate) enum EdgeRefineCmd {
    /// Data owner: ε-edge randomized response on the graph; writes the noisy graph.
    Perturb {
        /// The private graph (edge list).
        #[arg(long)]
        graph: PathBuf,
        /// Privacy parameter ε (finite, > 0; refused here otherwise).
        #[arg(long, allow_negative_numbers = true)]
        eps: Epsilon,
        /// Where to write the noisy graph: the binary report format when the name ends in `.rr`
        /// (header with n, ε and a checksum, bit-packed rows; see crates/edgerefine/README.md),
        /// otherwise an edge list (`.gz` to compress).
        #[arg(long)]
        out: PathBuf,
    },
    /// Server: refines a noisy graph into a sparse release of ⌊k·E⌋ edges.
    Refine {
        /// The noisy graph written by `perturb`: a binary report (recognised by its magic bytes,
        /// memory-mapped) or an edge list.
        #[arg(long)]
        noisy: PathBuf,
        /// The ε the owner used. Optional for a binary report (which records it; if given, it
        /// must match); required for an edge list.
        #[arg(long, allow_negative_numbers = true)]
        eps: Option<Epsilon>,
        /// Sampling rate k in (0, 1].
        #[arg(long, allow_negative_numbers = true)]
        k: f64,
        /// The true edge count E, supplied as in the paper's protocol (which treats it as public).
        /// Without it the server estimates E from the report alone (unbiased, from the noisy edge
        /// count, n and ε: post-processing, no extra privacy cost) and prints the estimate ± SE.
        #[arg(long)]
        true_edges: Option<u64>,
        /// Number of quantile bins B (≥ 2).
        #[arg(long, default_value_t = 10)]
        bins: usize,
        /// Order of candidates with equal calibrated probability.
        #[arg(long, value_parser = crate::choices::parser::<TieBreak>(),
              default_value_t = TieBreak::Default)]
        tie_break: TieBreak,
        /// One of the authors' artifact's other calibrations instead of our server (all pairs
        /// in memory, at most 65,536 nodes; the artifact's selection, ties by pair index, so it
        /// excludes --tie-break). `jaccard-histogram` is the paper's calibration on that path.
        #[arg(long, value_parser = crate::choices::parser::<ArtifactCalibration>(),
              conflicts_with = "tie_break")]
        calibration: Option<ArtifactCalibration>,
        /// Declared node count; the noisy graph must have exactly this many.
        #[arg(long)]
        nodes: Option<usize>,
        /// Where to write the released graph (edge list).
        #[arg(long)]
        out: PathBuf,
    },
}

pub(crate) fn run(cmd: &EdgeRefineCmd, global: Global) -> Result<()> {
    match cmd {
        EdgeRefineCmd::Perturb { graph, eps, out } => perturb(graph, *eps, out, global),
        EdgeRefineCmd::Refine {
            noisy,
            eps,
            k,
            true_edges,
            bins,
            tie_break,
            calibration,
            nodes,
            out,
        } => {
            let (g, eps) = load_noisy(noisy, *eps)?;
            if let Some(n) = nodes
                && *n != g.num_nodes()
            {
                bail!(edgerefine::EdgeRefineError::NodeCountMismatch {
                    expected: *n,
                    got: g.num_nodes(),
                });
            }
            let request = RefineRequest {
                k: *k,
                bins: *bins,
                tie_break: *tie_break,
                seed: global.seed.unwrap_or(0),
                ..RefineRequest::new(
                    eps,
                    true_edges.map_or(EdgeCount::Estimated, EdgeCount::Supplied),
                )
            };
            match calibration {
                Some(c) => refine_artifact(g, &request, *c, out, global),
                None => refine(g, &request, out, global),
            }
        }
    }
}

/// The owner's side: the noisy graph of `graph` written to `out` (a `.rr` report or an edge
/// list).
fn perturb(graph: &Path, eps: Epsilon, out: &Path, global: Global) -> Result<()> {
    let g = read_edge_list(graph)?;
    let to_report = out.extension().is_some_and(|e| e == "rr");
    if !to_report {
        // An edge list of the noisy graph needs 16 bytes per edge: refuse before drawing.
        let n = g.num_nodes() as f64;
        let expected = (1.0 - edgerefine::keep_probability(eps)?) * n * (n - 1.0) / 2.0;
        graph_core::limits::check_allocation(
            &format!(
                "the randomized-response release of {} nodes ({expected:.0} noisy edges \
                 expected) as an edge list (a `.rr` report needs n²/16 bytes)",
                g.num_nodes()
            ),
            (16.0 * expected) as u64,
        )?;
    }
    // Drawn straight into the report's packed body (memory: the report), whatever the output
    // format, so `.rr` and edge-list outputs hold the same noisy graph.
    let noise = dp_core::rng::NoiseSource::from_seed(global.seed);
    let (bytes, summary) = ops::perturb(&g, eps, noise)?;
    let format = if to_report {
        graph_core::io::write_atomic(out, &bytes)?;
        "report"
    } else {
        let (_, noisy) = decode_report(&bytes)?;
        drop(bytes);
        write_edge_list(out, &noisy)?;
        "edge list"
    };
    #[derive(serde::Serialize)]
    struct Perturbed {
        #[serde(flatten)]
        summary: ops::PerturbSummary,
        format: &'static str,
    }
    emit(global, &Written::new(Perturbed { summary, format }, out))
}

/// The server's side with our calibration: the release of `g` written to `out`.
fn refine(g: Noisy, request: &RefineRequest, out: &Path, global: Global) -> Result<()> {
    let bar = progress_bar(global);
    let mut report = |done: usize, total: usize| {
        if let Some(b) = &bar {
            b.set_length(total as u64);
            b.set_position(done as u64);
        }
    };
    let r = match g {
        Noisy::Graph(g) => ops::refine(NoisyGraph::Edges(&g), request, &mut report),
        // The rows straight from the packed body: no edge list of the noisy graph.
        Noisy::Dense(rep) => {
            let edges = rep.header().edges;
            let rows = rep.to_bit_adjacency()?;
            drop(rep);
            ops::refine(
                NoisyGraph::Bits { rows: &rows, edges },
                request,
                &mut report,
            )
        }
    };
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let (release, summary) = r?;
    write_edge_list(out, &release)?;
    emit(global, &Written::new(summary, out))
}

/// The server's side under one of the artifact's calibrations.
fn refine_artifact(
    g: Noisy,
    request: &RefineRequest,
    calibration: ArtifactCalibration,
    out: &Path,
    global: Global,
) -> Result<()> {
    let (release, summary) = ops::refine_artifact(&g.into_graph()?, request, calibration)?;
    write_edge_list(out, &release)?;
    emit(global, &Written::new(summary, out))
}

/// A bar for the refine's progress (work done / total, rate, ETA) on stderr, or none when
/// stderr is not a terminal or `--json` is set.
fn progress_bar(global: Global) -> Option<indicatif::ProgressBar> {
    (!global.json && std::io::stderr().is_terminal()).then(|| {
        let b = indicatif::ProgressBar::new(1);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "refine {bar:40} {percent:>3}% {human_pos}/{human_len} ({per_sec}) \
                 {elapsed_precise} elapsed, ETA {eta_precise}",
            )
            .expect("a valid template"),
        );
        b
    })
}

/// The noisy graph as read: decoded into a graph (an edge list, a sparse report), or a dense
/// report kept as it is (memory-mapped) until the server unpacks its rows.
enum Noisy {
    Graph(Graph),
    Dense(Report),
}

impl Noisy {
    fn num_nodes(&self) -> usize {
        match self {
            Noisy::Graph(g) => g.num_nodes(),
            Noisy::Dense(r) => r.header().n as usize,
        }
    }

    /// The noisy graph as an edge list (the artifact's calibrations need one).
    fn into_graph(self) -> Result<Graph> {
        Ok(match self {
            Noisy::Graph(g) => g,
            Noisy::Dense(r) => r.to_graph()?,
        })
    }
}

/// Reads the noisy graph: a binary report (by its magic bytes, memory-mapped) or an edge list.
/// Returns it and the ε to use (the report's, which `--eps` must match when given).
fn load_noisy(path: &std::path::Path, eps: Option<Epsilon>) -> Result<(Noisy, Epsilon)> {
    if is_report(path)? {
        let report = Report::open(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        // Checked when the header was parsed.
        let stored = report.header().eps;
        if let Some(e) = eps
            && e.get().to_bits() != stored.get().to_bits()
        {
            bail!(
                "--eps {e} differs from the ε = {stored} recorded in the report {}",
                path.display()
            );
        }
        if report.header().encoding == edgerefine::report::Encoding::Dense {
            return Ok((Noisy::Dense(report), stored));
        }
        let g = report
            .to_graph()
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        Ok((Noisy::Graph(g), stored))
    } else {
        let Some(eps) = eps else {
            bail!(
                "--eps is required for an edge-list report ({} is not a binary `.rr` report)",
                path.display()
            );
        };
        Ok((Noisy::Graph(read_edge_list(path)?), eps))
    }
}
