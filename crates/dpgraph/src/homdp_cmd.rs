//! `dpgraph homdp count | density | account | embed`: homomorphism counts and densities of
//! pattern sets, the homdp guarantee, and the private embedding of a graph collection.

use dp_core::params::{Delta, Rho};
use dp_core::rng::{NoiseSource, Seeds};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Subcommand;
use graph_core::Graph;
use graph_core::io::{GraphSet, read_graph_set, write_atomic};
use graph_core::registry::Dataset;
use homdp::{EmbeddingParams, Guarantee, Pattern, PatternSampler, SensitivityBound};
use serde_json::json;

use crate::{Global, Written, emit};

#[derive(Subcommand, Debug)]
pub(crate) enum HomdpCmd {
    /// Exact homomorphism counts hom(F, G) of every pattern in every graph (decimal strings;
    /// exact u128, an overflow is an error).
    Count {
        /// Pattern set (graph-set JSON under the key "patterns").
        #[arg(long)]
        patterns: PathBuf,
        /// Graph set (graph-set JSON under the key "graphs").
        #[arg(long)]
        graphs: PathBuf,
    },
    /// Homomorphism densities t(F, G) = hom(F, G) / n^|V(F)|.
    Density {
        /// Pattern set (graph-set JSON under the key "patterns").
        #[arg(long)]
        patterns: PathBuf,
        /// Graph set (graph-set JSON under the key "graphs").
        #[arg(long)]
        graphs: PathBuf,
    },
    /// The guarantee of a release of D noisy densities at noise parameter ρ (β = ρ/5):
    /// (ρ', ω)-tCDP and its (ε, δ).
    Account {
        /// Noise parameter ρ (> 0).
        #[arg(long, allow_negative_numbers = true)]
        rho: f64,
        /// Number of patterns D.
        #[arg(long)]
        patterns: usize,
        /// Target δ in (0, 1).
        #[arg(long, allow_negative_numbers = true)]
        delta: f64,
        /// Smoothing β (default ρ/5, the reference code's choice; must be < 1/4).
        #[arg(long, allow_negative_numbers = true)]
        beta: Option<f64>,
    },
    /// Private embedding: D sampled forest patterns (the paper's law), noisy densities of every
    /// graph, written as a `.npy` f64 matrix [graphs, D(+1)].
    Embed(EmbedArgs),
}

/// The flags of `homdp embed`.
#[derive(clap::Args, Debug)]
pub(crate) struct EmbedArgs {
    /// An installed registry dataset.
    #[arg(long, conflicts_with = "graphs", required_unless_present = "graphs")]
    dataset: Option<String>,
    /// Graph set (graph-set JSON under the key "graphs").
    #[arg(long)]
    graphs: Option<PathBuf>,
    /// Noise parameter ρ (finite, > 0; refused here otherwise).
    #[arg(long, allow_negative_numbers = true)]
    rho: Rho,
    /// Target δ in (0, 1) (refused here otherwise).
    #[arg(long, allow_negative_numbers = true)]
    delta: Delta,
    /// Number of patterns D.
    #[arg(long)]
    num_patterns: usize,
    /// Public degree bound Δ (default: none, Δ = n per graph).
    #[arg(long)]
    max_degree: Option<usize>,
    /// Sensitivity bound: `component-aware` (correct for every pattern; `components` also
    /// accepted), `paper` (Theorem 4.5 as printed: under-estimates the noise for
    /// disconnected patterns) or `counting-lemma` (global, no degree bound used).
    #[arg(long, value_parser = crate::choices::parser::<SensitivityBound>(),
          default_value_t = SensitivityBound::ComponentAware)]
    bound: SensitivityBound,
    /// Clip graphs above --max-degree (drop edges) instead of failing.
    #[arg(long, requires = "max_degree")]
    clip: bool,
    /// Without a public bound: estimate Δ privately with this zCDP budget ρ_Δ (> 0;
    /// exponential mechanism), clip stably to it and triple the sensitivity; ρ_Δ is
    /// composed into the reported guarantee.
    #[arg(long, allow_negative_numbers = true, conflicts_with_all = ["max_degree", "clip"])]
    private_degree_rho: Option<Rho>,
    /// Share of graphs the private bound should cover, in (0, 1].
    #[arg(
        long,
        default_value_t = 1.0,
        allow_negative_numbers = true,
        requires = "private_degree_rho"
    )]
    degree_quantile: f64,
    /// Append |V(G)| (public under edge-level DP) as a last, un-noised column.
    #[arg(long)]
    num_nodes_column: bool,
    /// Output matrix (`.npy`, little-endian f64, C order).
    #[arg(long)]
    out: PathBuf,
    /// Also write the sampled patterns (graph-set JSON under "patterns").
    #[arg(long)]
    patterns_out: Option<PathBuf>,
}

pub(crate) fn run(cmd: &HomdpCmd, global: Global) -> Result<()> {
    match cmd {
        HomdpCmd::Count { patterns, graphs } => {
            let (pats, gs) = (read_patterns(patterns)?, read_graphs(graphs)?);
            let counts = gs
                .iter()
                .enumerate()
                .map(|(i, g)| {
                    pats.iter()
                        .map(|p| homdp::hom_count(p, g).map(|c| c.to_string()))
                        .collect::<Result<Vec<_>, _>>()
                        .with_context(|| format!("graph {i}"))
                })
                .collect::<Result<Vec<_>>>()?;
            emit(global, &json!({ "counts": counts }))
        }
        HomdpCmd::Density { patterns, graphs } => {
            let (pats, gs) = (read_patterns(patterns)?, read_graphs(graphs)?);
            let t = homdp::density_matrix(&pats, &gs)?;
            let rows: Vec<Vec<f64>> = t.outer_iter().map(|r| r.to_vec()).collect();
            emit(global, &json!({ "densities": rows }))
        }
        HomdpCmd::Account {
            rho,
            patterns,
            delta,
            beta,
        } => {
            let beta = beta.unwrap_or(*rho / 5.0);
            let g = Guarantee::new(Rho::new(*rho)?, beta, *patterns, Delta::new(*delta)?)?;
            emit(
                global,
                &json!({
                    "rho": rho,
                    "beta": g.beta(),
                    "patterns": patterns,
                    "rho_prime": g.rho_prime(),
                    "omega": g.omega(),
                    "eps": g.eps(),
                    "delta": g.delta(),
                }),
            )
        }
        HomdpCmd::Embed(args) => embed(args, global),
    }
}

/// The private embedding of `args`' graphs, written as `.npy`.
fn embed(args: &EmbedArgs, global: Global) -> Result<()> {
    let EmbedArgs {
        dataset,
        graphs,
        rho,
        delta,
        num_patterns,
        max_degree,
        bound,
        clip,
        private_degree_rho,
        degree_quantile,
        num_nodes_column,
        out,
        patterns_out,
    } = args;
    let private_degree = private_degree_rho
        .map(|r| homdp::PrivateDegree::new(r, *degree_quantile))
        .transpose()?;
    if *num_patterns == 0 {
        bail!("--num-patterns must be at least 1");
    }
    let gs = match (dataset, graphs) {
        (Some(name), None) => dataset_graphs(name)?,
        (None, Some(p)) => read_graphs(p)?,
        _ => bail!("give exactly one of --dataset NAME or --graphs FILE"),
    };
    // Patterns are public: a seeded stream of their own; the noise from the OS CSPRNG
    // unless --seed asks for a reproducible (non-private) run.
    let mut pattern_rng = match global.seed {
        Some(s) => Seeds::new(s).chacha20(homdp::streams::PATTERNS, 0),
        None => dp_core::rng::os_rng()?,
    };
    let pats = PatternSampler::forests().sample_many(*num_patterns, &mut pattern_rng);
    let params = EmbeddingParams::new(*rho)
        .delta(*delta)
        .bound(*bound)
        .degree_bound(*max_degree)
        .clip_to_degree_bound(*clip)
        .private_degree(private_degree)
        .append_num_nodes(*num_nodes_column);
    let noise = NoiseSource::from_seed(global.seed);
    let (values, summary) = homdp::ops::embed(&pats, &gs, &params, noise)?;
    let (rows, cols) = values.dim();
    let data: Vec<f64> = values.iter().copied().collect();
    write_atomic(out, &npy_f64(&data, rows, cols))
        .with_context(|| format!("writing {}", out.display()))?;
    if let Some(p) = patterns_out {
        let set = json!({ "patterns": summary.patterns });
        write_atomic(p, serde_json::to_string(&set)?.as_bytes())
            .with_context(|| format!("writing {}", p.display()))?;
    }
    emit(global, &Written::new(summary, out))
}

fn read_graphs(p: &Path) -> Result<Vec<Graph>> {
    Ok(read_graph_set(p, GraphSet::Graphs)?)
}

fn read_patterns(p: &Path) -> Result<Vec<Pattern>> {
    read_graph_set(p, GraphSet::Patterns)?
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let edges: Vec<(usize, usize)> =
                g.edges().map(|(u, v)| (u as usize, v as usize)).collect();
            Pattern::new(g.num_nodes(), &edges)
                .with_context(|| format!("pattern {i} of {}", p.display()))
        })
        .collect()
}

fn dataset_graphs(name: &str) -> Result<Vec<Graph>> {
    match crate::datasets::load_named(name)? {
        Dataset::Graphs(d) => Ok(d.graphs().to_vec()),
        Dataset::Nodes(d) => Ok(vec![d.graph().clone()]),
        Dataset::Files(_) => bail!("dataset {name} is a transaction table, not a graph"),
    }
}

/// A `.npy` (format 1.0) file of a C-order little-endian f64 matrix.
fn npy_f64(data: &[f64], rows: usize, cols: usize) -> Vec<u8> {
    debug_assert_eq!(data.len(), rows * cols);
    let mut header =
        format!("{{'descr': '<f8', 'fortran_order': False, 'shape': ({rows}, {cols}), }}");
    // magic (6) + version (2) + header length (2) + header, padded with spaces to a multiple of
    // 64 and ended by '\n'.
    let total = 10 + header.len() + 1;
    header.push_str(&" ".repeat(total.next_multiple_of(64) - total));
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + 8 * data.len());
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    for v in data {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npy_header_is_aligned_and_readable() {
        let data = [1.5, -2.0, 3.25, 0.0, 1e-300, 7.0];
        let bytes = npy_f64(&data, 2, 3);
        let hlen = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        assert_eq!((10 + hlen) % 64, 0);
        assert_eq!(bytes[10 + hlen - 1], b'\n');
        let d = tempfile::tempdir().expect("tempdir");
        let p = d.path().join("x.npy");
        std::fs::write(&p, &bytes).expect("write");
        let arr = graph_core::io::read_npy(&p).expect("graph-core reads it");
        assert_eq!(arr.shape, vec![2, 3]);
        let back: Vec<f64> = bytes[10 + hlen..]
            .chunks(8)
            .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        assert_eq!(back, data);
    }
}
