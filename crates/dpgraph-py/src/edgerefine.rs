//! `dpgraph.edgerefine`: the data owner's randomized response, the server's refinement, the
//! baselines and the report files.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::error::{InvalidParameter, guard};
use crate::graph::Graph;

/// The noise generator of a call for `purpose`: stream `purpose` of a seeded
/// [`dp_core::rng::NoiseSource`] with `seed` (reproducible, not private: the CLI's `--seed`), else
/// ChaCha20 keyed from the operating system.
pub(crate) fn noise_rng(seed: Option<u64>, purpose: &str) -> PyResult<rand_chacha::ChaCha20Rng> {
    guard(|| dp_core::rng::NoiseSource::from_seed(seed).rng(purpose, 0))
}

/// perturb(graph, eps, seed=None) -> Graph
///
/// The data owner's ε-edge randomized response on every pair of the upper triangle (ε-edge
/// local DP), drawn as the CLI draws it (`edgerefine::report::perturb_report`: into the packed
/// report, 64 pairs per draw at ε ≤ ln 7). Without `seed`, noise comes from the OS CSPRNG;
/// with it, the output equals `dpgraph --seed SEED edgerefine perturb`. Releases the GIL.
#[pyfunction]
#[pyo3(signature = (graph, eps, seed=None))]
pub(crate) fn perturb(
    py: Python<'_>,
    graph: &Graph,
    eps: f64,
    seed: Option<u64>,
) -> PyResult<Graph> {
    let mut r = noise_rng(seed, edgerefine::streams::PERTURB)?;
    let g = &graph.inner;
    let inner = py.detach(|| {
        guard(|| {
            let rr = dp_core::mechanisms::RandomizedResponse::binary(eps)?;
            let bytes = edgerefine::report::perturb_report(g, &rr, &mut r)?;
            edgerefine::report::decode_report(&bytes).map(|(_, noisy)| noisy)
        })
    })?;
    Ok(Graph { inner })
}

/// The refine keywords of `refine` and `TiledRefine` as Python passed them.
pub(crate) struct RefineKwargs<'a> {
    pub(crate) eps: f64,
    pub(crate) k: f64,
    pub(crate) true_edges: Option<u64>,
    pub(crate) noisy_edges: Option<u64>,
    pub(crate) bins: usize,
    pub(crate) tie_break: &'a str,
    pub(crate) seed: Option<u64>,
}

/// The refine parameters for a graph of `n` nodes from Python's keywords, the edge count used
/// and where it came from. Without `true_edges`, E is estimated from `noisy_edges`
/// (post-processing).
pub(crate) fn refine_params(
    n: usize,
    kw: RefineKwargs<'_>,
) -> PyResult<(edgerefine::RefineParams, u64, String)> {
    let RefineKwargs {
        eps,
        k,
        true_edges,
        noisy_edges,
        bins,
        tie_break,
        seed,
    } = kw;
    let tie_break: edgerefine::TieBreak = crate::choices::parse(tie_break)?;
    // ε is refused here, once, with dp-core's message (as the CLI's parser does).
    let typed_eps = guard(|| dp_core::params::Epsilon::new(eps))?;
    let (edges_used, source) = match (true_edges, noisy_edges) {
        (Some(e), _) => (e, "supplied".to_string()),
        (None, Some(m)) => {
            let est = guard(|| edgerefine::estimate_edges(n, eps, m))?;
            (
                est.edges,
                format!("estimated ({:.1} ± {:.1})", est.estimate, est.std_error),
            )
        }
        (None, None) => {
            return Err(InvalidParameter::new_err(
                "give true_edges, or noisy_edges to estimate E from",
            ));
        }
    };
    let params = edgerefine::RefineParams {
        eps: typed_eps,
        k,
        true_edges: edges_used,
        bins,
        tie_break,
        seed: seed.unwrap_or(0),
    };
    Ok((params, edges_used, source))
}

/// A release and its dict, as `refine` returns them.
pub(crate) fn release_out<'py>(
    py: Python<'py>,
    r: edgerefine::Release,
    edges_used: u64,
    source: &str,
) -> PyResult<(Graph, Bound<'py, PyDict>)> {
    let info = PyDict::new(py);
    info.set_item("k_target", r.k_target)?;
    info.set_item("k_real", r.k_real)?;
    info.set_item("k_fake", r.k_fake)?;
    info.set_item("rho", r.rho)?;
    info.set_item("edges_used", edges_used)?;
    info.set_item("edge_count_source", source)?;
    info.set_item("bin_edges", r.bin_edges)?;
    info.set_item("bin_probability", r.bin_probability)?;
    info.set_item("bin_pairs", r.bin_pairs)?;
    Ok((Graph { inner: r.graph }, info))
}

/// refine(noisy, eps, k=0.01, true_edges=None, bins=10, tie_break="default", seed=None)
///     -> tuple[Graph, dict]
///
/// The EdgeRefine server: Jaccard similarities on the noisy graph, exact quantile bins, and the
/// deterministic top-K release of ⌊k·E⌋ edges. Without `true_edges`, E is estimated from the
/// noisy graph (post-processing). The dict holds `k_target`, `k_real`, `k_fake`, `rho`,
/// `edges_used`, `edge_count_source` and the bins. Same output as `dpgraph --seed SEED
/// edgerefine refine` (the seed orders ties; default 0). Releases the GIL.
#[pyfunction]
#[pyo3(signature = (noisy, eps, k=0.01, true_edges=None, bins=10, tie_break="default", seed=None))]
#[allow(clippy::too_many_arguments)] // Python keyword arguments
pub(crate) fn refine<'py>(
    py: Python<'py>,
    noisy: &Graph,
    eps: f64,
    k: f64,
    true_edges: Option<u64>,
    bins: usize,
    tie_break: &str,
    seed: Option<u64>,
) -> PyResult<(Graph, Bound<'py, PyDict>)> {
    let g = &noisy.inner;
    let kw = RefineKwargs {
        eps,
        k,
        true_edges,
        noisy_edges: Some(g.num_edges() as u64),
        bins,
        tie_break,
        seed,
    };
    let (params, edges_used, source) = refine_params(g.num_nodes(), kw)?;
    let r = py.detach(|| guard(|| edgerefine::refine(g, &params)))?;
    release_out(py, r, edges_used, &source)
}

/// refine_calibrated(noisy, eps, calibration, k=0.01, true_edges=None, bins=10, seed=None)
///     -> tuple[Graph, dict]
///
/// The server under one of the authors' artifact's calibrations (`calibration`, a name of
/// `choices()["calibration"]`): all pairs in memory (at most 65,536 nodes), the artifact's
/// selection with ties by pair index. The dict holds `k_target`, `k_real`, `k_fake`,
/// `edges_used`, `edge_count_source`, `calibration`, `levels` and `fitted`. Same output as
/// `dpgraph --seed SEED edgerefine refine --calibration NAME` (the seed draws the beta
/// calibration's split; default 0). Releases the GIL.
#[pyfunction]
#[pyo3(signature = (noisy, eps, calibration, k=0.01, true_edges=None, bins=10, seed=None))]
#[allow(clippy::too_many_arguments)] // Python keyword arguments
pub(crate) fn refine_calibrated<'py>(
    py: Python<'py>,
    noisy: &Graph,
    eps: f64,
    calibration: &str,
    k: f64,
    true_edges: Option<u64>,
    bins: usize,
    seed: Option<u64>,
) -> PyResult<(Graph, Bound<'py, PyDict>)> {
    let g = &noisy.inner;
    let calibration: edgerefine::ArtifactCalibration = crate::choices::parse(calibration)?;
    let kw = RefineKwargs {
        eps,
        k,
        true_edges,
        noisy_edges: Some(g.num_edges() as u64),
        bins,
        tie_break: "default",
        seed,
    };
    let (base, edges_used, source) = refine_params(g.num_nodes(), kw)?;
    let params = edgerefine::CalibratedParams {
        eps: base.eps,
        k,
        true_edges: edges_used,
        calibration,
        bins,
        seed: base.seed,
    };
    let r = py.detach(|| guard(|| edgerefine::refine_calibrated(g, &params)))?;
    let info = PyDict::new(py);
    info.set_item("k_target", r.k_target)?;
    info.set_item("k_real", r.k_real)?;
    info.set_item("k_fake", r.k_fake)?;
    info.set_item("edges_used", edges_used)?;
    info.set_item("edge_count_source", source)?;
    info.set_item("calibration", calibration.name())?;
    info.set_item("levels", r.levels)?;
    info.set_item("fitted", r.fitted)?;
    Ok((Graph { inner: r.graph }, info))
}

/// The dict of a baseline's release: name, variant, ε and the edge-DP ε of the release, and
/// the edge weights of the weighted variants (float32, aligned with the graph's edges).
fn baseline_out<'py>(
    py: Python<'py>,
    r: edgerefine::baselines::BaselineRelease,
) -> PyResult<(Graph, Bound<'py, PyDict>)> {
    let info = PyDict::new(py);
    info.set_item("name", r.name)?;
    info.set_item("variant", r.variant)?;
    info.set_item("eps", r.eps)?;
    info.set_item("eps_edge", r.eps_edge)?;
    match r.weights {
        Some(w) => info.set_item("weights", numpy::PyArray1::from_vec(py, w))?,
        None => info.set_item("weights", py.None())?,
    }
    Ok((Graph { inner: r.graph }, info))
}

/// baseline(graph, method, eps, seed=None) -> tuple[Graph, dict]
///
/// A baseline of the EdgeRefine evaluation on the true graph (it simulates every user):
/// `method` is "rr" (both endpoints report, OR-symmetrised), "symrr" (each pair once),
/// "blink-hard", "blink-soft", "blink-hybrid" (Zhu et al. CCS 2023, δ_b = 0.1),
/// "blink-artifact-hard", "blink-artifact-hybrid" (the Blink variant of the EdgeRefine
/// artifact, not the original; ε must exceed 0.1), "ldpgen" (Qin et al. CCS 2017) or "dprr"
/// (default ε₁). The dict holds `name`, `variant` (exact variant and parameters), `eps`
/// (per-user edge LDP; the artifact's Blink: only the paper's label), `eps_edge` (edge DP of
/// the release: 2ε when both endpoints report on a pair; inf for the artifact's Blink, whose
/// degree-1 fix is not DP) and `weights` (float32 per edge, weighted variants only). Without `seed`, noise from the OS CSPRNG. Releases the GIL.
#[pyfunction]
#[pyo3(signature = (graph, method, eps, seed=None))]
pub(crate) fn baseline<'py>(
    py: Python<'py>,
    graph: &Graph,
    method: &str,
    eps: f64,
    seed: Option<u64>,
) -> PyResult<(Graph, Bound<'py, PyDict>)> {
    let m: edgerefine::baselines::Baseline = crate::choices::parse(method)?;
    let mut r = noise_rng(seed, edgerefine::streams::BASELINE)?;
    let g = &graph.inner;
    let release = py.detach(|| guard(|| m.release(g, eps, &mut r)))?;
    baseline_out(py, release)
}

/// The header of a report as a dict.
fn header_dict<'py>(
    py: Python<'py>,
    h: &edgerefine::report::ReportHeader,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("num_nodes", h.n)?;
    d.set_item("noisy_edges", h.edges)?;
    d.set_item("eps", h.eps)?;
    d.set_item("keep_probability", h.keep_prob)?;
    d.set_item(
        "encoding",
        match h.encoding {
            edgerefine::report::Encoding::Dense => "dense",
            _ => "sparse",
        },
    )?;
    d.set_item("body_bytes", h.body_len)?;
    Ok(d)
}

/// write_report(noisy, eps, path) -> dict
///
/// Writes the noisy graph as a binary report (`.rr`: a checked 64-byte header, then the bit-packed
/// upper triangle or sorted pairs, whichever is smaller), atomically (temporary file, then
/// rename), as `dpgraph edgerefine perturb --out x.rr` does. Returns the header. Releases the
/// GIL.
#[pyfunction]
pub(crate) fn write_report<'py>(
    py: Python<'py>,
    noisy: &Graph,
    eps: f64,
    path: std::path::PathBuf,
) -> PyResult<Bound<'py, PyDict>> {
    let g = &noisy.inner;
    let h = py.detach(|| guard(|| edgerefine::report::write_report(&path, g, eps)))?;
    header_dict(py, &h)
}

/// read_report(path) -> tuple[Graph, dict]
///
/// Reads a report (`.rr`), checking every header field, the body's length and checksum before
/// decoding; returns the noisy graph and the header. Raises `DataError` naming the byte offset of
/// a corrupt or truncated file. Releases the GIL.
#[pyfunction]
pub(crate) fn read_report<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
) -> PyResult<(Graph, Bound<'py, PyDict>)> {
    let (h, inner) = py.detach(|| {
        guard(|| {
            let r = edgerefine::report::Report::open(&path)?;
            Ok::<_, edgerefine::EdgeRefineError>((*r.header(), r.to_graph()?))
        })
    })?;
    Ok((Graph { inner }, header_dict(py, &h)?))
}

/// report_header(path) -> dict
///
/// The checked header of a report (`.rr`) without decoding its graph: `num_nodes`,
/// `noisy_edges`, `eps`, `keep_probability`, `encoding`, `body_bytes`. The whole file is
/// validated (length, checksum). Raises `DataError` naming the byte offset of a fault.
#[pyfunction]
pub(crate) fn report_header<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
) -> PyResult<Bound<'py, PyDict>> {
    let h = py.detach(|| guard(|| edgerefine::report::Report::open(&path).map(|r| *r.header())))?;
    header_dict(py, &h)
}
