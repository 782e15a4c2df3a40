//! `dpgraph.edgerefine`: the data owner's randomized response, the server's refinement, the
//! baselines and the report files.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use edgerefine::ops::{self, EdgeCount, NoisyGraph, RefineRequest};

use crate::error::{guard, record};
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
/// local DP), drawn by the operation the CLI uses (`edgerefine::ops::perturb`: into the packed
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
    // ε is refused here, once, with dp-core's message (as the CLI's parser does).
    let eps = guard(|| dp_core::params::Epsilon::new(eps))?;
    let noise = dp_core::rng::NoiseSource::from_seed(seed);
    let g = &graph.inner;
    let inner = py.detach(|| {
        guard(|| {
            let (bytes, _) = ops::perturb(g, eps, noise)?;
            edgerefine::report::decode_report(&bytes).map(|(_, noisy)| noisy)
        })
    })?;
    Ok(Graph { inner })
}

/// The refine request of `refine`, `refine_calibrated` and `TiledRefine` from Python's
/// keywords. Without `true_edges`, E is estimated from the noisy graph's edge count
/// (post-processing).
pub(crate) fn refine_request(
    eps: f64,
    k: f64,
    true_edges: Option<u64>,
    bins: usize,
    tie_break: &str,
    seed: Option<u64>,
) -> PyResult<RefineRequest> {
    let tie_break: edgerefine::TieBreak = crate::choices::parse(tie_break)?;
    // ε is refused here, once, with dp-core's message (as the CLI's parser does).
    let eps = guard(|| dp_core::params::Epsilon::new(eps))?;
    Ok(RefineRequest {
        k,
        bins,
        tie_break,
        seed: seed.unwrap_or(0),
        ..RefineRequest::new(
            eps,
            true_edges.map_or(EdgeCount::Estimated, EdgeCount::Supplied),
        )
    })
}

/// refine(noisy, eps, k=0.01, true_edges=None, bins=10, tie_break="default", seed=None)
///     -> tuple[Graph, dict]
///
/// The EdgeRefine server: Jaccard similarities on the noisy graph, exact quantile bins, and the
/// deterministic top-K release of ⌊k·E⌋ edges. Without `true_edges`, E is estimated from the
/// noisy graph (post-processing). The dict is the record `dpgraph edgerefine refine --json`
/// prints, from the same Rust value (`edgerefine::ops::RefineSummary`) but for the CLI's
/// `out`: `nodes`, `released_edges`, `edges_used`, `edge_count_source` ("supplied" or
/// "estimated"), `edge_estimate`, `k_target`, `k_real`, `k_fake`, `rho`, the bins, `tie_break`,
/// `seed`, `eps` (the release's ε-edge LDP) and the timings. Same release as `dpgraph --seed
/// SEED edgerefine refine` (the seed orders ties; default 0). Releases the GIL.
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
) -> PyResult<(Graph, Bound<'py, PyAny>)> {
    let request = refine_request(eps, k, true_edges, bins, tie_break, seed)?;
    let g = &noisy.inner;
    let (inner, summary) =
        py.detach(|| guard(|| ops::refine(NoisyGraph::Edges(g), &request, &mut |_, _| {})))?;
    Ok((Graph { inner }, record(py, &summary)?))
}

/// refine_calibrated(noisy, eps, calibration, k=0.01, true_edges=None, bins=10, seed=None)
///     -> tuple[Graph, dict]
///
/// The server under one of the authors' artifact's calibrations (`calibration`, a name of
/// `choices()["calibration"]`): all pairs in memory (at most 65,536 nodes), the artifact's
/// selection with ties by pair index. The dict (`edgerefine::ops::CalibratedSummary`, as
/// `dpgraph edgerefine refine --calibration NAME --json` prints it) holds `nodes`,
/// `released_edges`, `edges_used`, `edge_count_source`, `edge_estimate`, `k_target`,
/// `k_real`, `k_fake`, `calibration`, `levels`, `fitted`, `seed`, `eps` and `refine_s`. Same
/// output as `dpgraph --seed SEED edgerefine refine --calibration NAME` (the seed draws the
/// beta calibration's split; default 0). Releases the GIL.
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
) -> PyResult<(Graph, Bound<'py, PyAny>)> {
    let calibration: edgerefine::ArtifactCalibration = crate::choices::parse(calibration)?;
    let request = refine_request(eps, k, true_edges, bins, "default", seed)?;
    let g = &noisy.inner;
    let (inner, summary) =
        py.detach(|| guard(|| ops::refine_artifact(g, &request, calibration)))?;
    Ok((Graph { inner }, record(py, &summary)?))
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
    info.set_item("eps", r.eps.get())?;
    info.set_item("eps_edge", r.eps_edge.get())?;
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
    // ε is refused here, once, with dp-core's message.
    let eps = guard(|| dp_core::params::Epsilon::new(eps))?;
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
    d.set_item("eps", h.eps.get())?;
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
    // ε is refused here, once, with dp-core's message.
    let eps = guard(|| dp_core::params::Epsilon::new(eps))?;
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
