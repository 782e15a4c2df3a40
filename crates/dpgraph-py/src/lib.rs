//! The native part of the Python package `dpgraph`: every call runs the Rust crates. The Python
//! modules in `python/dpgraph/` re-export these functions under `dpgraph.accounting`,
//! `dpgraph.graph` and `dpgraph.edgerefine`.
//!
//! Errors become exceptions of one small hierarchy (`dpgraph.DpgraphError`, with
//! `InvalidParameter` for bad arguments and `DataError` for bad data), carrying the Rust message;
//! a Rust panic is caught at the boundary and raised as `DpgraphError`, never as PyO3's
//! `PanicException`. Calls that can take more than a millisecond release the GIL.

use std::panic::{AssertUnwindSafe, catch_unwind};

use ndarray as ndarray016;
use numpy::{PyArray2, PyReadonlyArray2};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyDict;

create_exception!(
    _native,
    DpgraphError,
    PyException,
    "Base class of dpgraph's errors."
);
create_exception!(
    _native,
    InvalidParameter,
    DpgraphError,
    "A parameter outside its domain (ε ≤ 0, NaN, δ ∉ (0, 1), …)."
);
create_exception!(
    _native,
    DataError,
    DpgraphError,
    "Malformed data: a bad file, out-of-range node ids, self-loops, wrong shapes."
);

/// The exception for an error of the Rust crates.
trait IntoPyErr {
    fn into_py_err(self) -> PyErr;
}

impl IntoPyErr for dp_core::Error {
    fn into_py_err(self) -> PyErr {
        match self {
            dp_core::Error::InvalidParam { .. } => InvalidParameter::new_err(self.to_string()),
            e => DpgraphError::new_err(e.to_string()),
        }
    }
}

impl IntoPyErr for graph_core::GraphError {
    fn into_py_err(self) -> PyErr {
        match self {
            graph_core::GraphError::InvalidParam { .. } => {
                InvalidParameter::new_err(self.to_string())
            }
            e => DataError::new_err(e.to_string()),
        }
    }
}

impl IntoPyErr for edgerefine::EdgeRefineError {
    fn into_py_err(self) -> PyErr {
        match self {
            edgerefine::EdgeRefineError::InvalidParam { .. } => {
                InvalidParameter::new_err(self.to_string())
            }
            edgerefine::EdgeRefineError::Dp(e) => e.into_py_err(),
            e => DataError::new_err(e.to_string()),
        }
    }
}

impl IntoPyErr for homdp::HomdpError {
    fn into_py_err(self) -> PyErr {
        match self {
            homdp::HomdpError::InvalidParam { .. } => InvalidParameter::new_err(self.to_string()),
            homdp::HomdpError::Dp(e) => e.into_py_err(),
            homdp::HomdpError::Graph(e) => e.into_py_err(),
            e => DataError::new_err(e.to_string()),
        }
    }
}

/// Runs `f`, turning its error into the matching exception and a panic into `DpgraphError`.
fn guard<T, E: IntoPyErr>(f: impl FnOnce() -> Result<T, E>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(e.into_py_err()),
        Err(panic) => {
            let msg = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(DpgraphError::new_err(format!(
                "internal error (a bug of dpgraph, please report it): {msg}"
            )))
        }
    }
}

/// An undirected graph (CSR, node ids `0..num_nodes`).
///
/// Built from a PyTorch Geometric style `edge_index` (a 2 × E int64 array; an undirected edge
/// may appear once or in both directions), it keeps each undirected edge once.
#[pyclass(frozen, module = "dpgraph")]
struct Graph {
    inner: graph_core::Graph,
}

#[pymethods]
impl Graph {
    /// Graph(edge_index, num_nodes=None)
    ///
    /// `edge_index`: 2 × E integer array (both directions of an edge allowed, duplicates merged).
    /// `num_nodes`: node count (default: largest id + 1). Raises `DataError` on self-loops,
    /// negative or out-of-range ids, or a wrong shape.
    #[new]
    #[pyo3(signature = (edge_index, num_nodes=None))]
    fn new(edge_index: PyReadonlyArray2<'_, i64>, num_nodes: Option<usize>) -> PyResult<Self> {
        let a = edge_index.as_array();
        if a.nrows() != 2 {
            return Err(DataError::new_err(format!(
                "edge_index must have shape (2, E), got {:?}",
                a.shape()
            )));
        }
        let mut edges: Vec<(u32, u32)> = Vec::with_capacity(a.ncols());
        let mut max_id: i64 = -1;
        for k in 0..a.ncols() {
            let (u, v) = (a[[0, k]], a[[1, k]]);
            if u < 0 || v < 0 || u > i64::from(u32::MAX) || v > i64::from(u32::MAX) {
                return Err(DataError::new_err(format!(
                    "edge {k}: node id out of range ({u}, {v})"
                )));
            }
            if u == v {
                return Err(DataError::new_err(format!(
                    "edge {k}: self-loop on node {u}"
                )));
            }
            max_id = max_id.max(u).max(v);
            edges.push(((u.min(v)) as u32, (u.max(v)) as u32));
        }
        edges.sort_unstable();
        edges.dedup();
        let n = num_nodes.unwrap_or((max_id + 1) as usize);
        if (max_id + 1) as usize > n {
            return Err(DataError::new_err(format!(
                "node id {max_id} out of range 0..{n}"
            )));
        }
        let inner = guard(|| graph_core::Graph::from_edges(n, &edges))?;
        Ok(Self { inner })
    }

    /// Number of nodes.
    #[getter]
    fn num_nodes(&self) -> usize {
        self.inner.num_nodes()
    }

    /// Number of undirected edges.
    #[getter]
    fn num_edges(&self) -> usize {
        self.inner.num_edges()
    }

    /// The edges as a 2 × 2m int64 array with both directions of every edge (PyG's convention
    /// for undirected graphs), sorted by (source, target).
    fn to_edge_index<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<i64>> {
        let mut pairs: Vec<(i64, i64)> = self
            .inner
            .edges()
            .flat_map(|(u, v)| [(i64::from(u), i64::from(v)), (i64::from(v), i64::from(u))])
            .collect();
        pairs.sort_unstable();
        let mut flat = Vec::with_capacity(2 * pairs.len());
        flat.extend(pairs.iter().map(|p| p.0));
        flat.extend(pairs.iter().map(|p| p.1));
        numpy::ndarray::Array2::from_shape_vec((2, pairs.len()), flat)
            .map(|a| PyArray2::from_owned_array(py, a))
            .expect("2 × len values")
    }

    fn __repr__(&self) -> String {
        format!(
            "Graph(num_nodes={}, num_edges={})",
            self.inner.num_nodes(),
            self.inner.num_edges()
        )
    }
}

/// read_edge_list(path) -> Graph
///
/// Reads dpgraph's edge-list format (`# nodes N`, then `u v` lines; `.gz` transparent). Raises
/// `DataError` naming the file and line on malformed input.
#[pyfunction]
fn read_edge_list(py: Python<'_>, path: std::path::PathBuf) -> PyResult<Graph> {
    let inner = py.detach(|| guard(|| graph_core::io::read_edge_list(&path)))?;
    Ok(Graph { inner })
}

/// load_dataset(name, data_dir=None) -> dict
///
/// A dataset of the registry, installed under `data_dir` (default: `$DPGRAPH_DATA`, else
/// `./data`, as the CLI; install with `dpgraph datasets install NAME`). Node datasets give
/// `{"kind": "nodes", "graph", "features" (float32 n × d), "labels" (uint32), "num_classes"}`;
/// graph collections `{"kind": "graphs", "graphs" (list of Graph), "targets" (int64 classes or
/// float64 values), "num_classes" (None for regression), "splits" (name → int64 indices)}`.
/// Raises `DataError` for an unknown or uninstalled dataset. Releases the GIL while loading.
#[pyfunction]
#[pyo3(signature = (name, data_dir=None))]
fn load_dataset<'py>(
    py: Python<'py>,
    name: &str,
    data_dir: Option<std::path::PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    let dir = data_dir.unwrap_or_else(graph_core::registry::data_dir);
    let ds = py.detach(|| {
        guard(|| {
            let spec = graph_core::Registry::embedded().get(name)?;
            if !spec.is_installed(&dir) {
                return Err(graph_core::GraphError::Registry(format!(
                    "{name} is not installed in {} (install it with `dpgraph datasets install {name}`)",
                    dir.display()
                )));
            }
            spec.load(&dir)
        })
    })?;
    let out = PyDict::new(py);
    out.set_item("name", name)?;
    match ds {
        graph_core::Dataset::Nodes(nd) => {
            let f = nd.features();
            let (r, c) = f.dim();
            let feats = numpy::ndarray::Array2::from_shape_vec((r, c), f.iter().copied().collect())
                .expect("r × c features");
            out.set_item("kind", "nodes")?;
            out.set_item(
                "graph",
                Graph {
                    inner: nd.graph().clone(),
                },
            )?;
            out.set_item("features", PyArray2::from_owned_array(py, feats))?;
            out.set_item(
                "labels",
                numpy::PyArray1::from_vec(py, nd.labels().to_vec()),
            )?;
            out.set_item("num_classes", nd.num_classes())?;
        }
        graph_core::Dataset::Graphs(gd) => {
            out.set_item("kind", "graphs")?;
            let graphs: Vec<Graph> = gd
                .graphs()
                .iter()
                .map(|g| Graph { inner: g.clone() })
                .collect();
            out.set_item("graphs", graphs)?;
            match gd.targets() {
                graph_core::Targets::Class {
                    labels,
                    num_classes,
                    ..
                } => {
                    let t: Vec<i64> = labels.iter().map(|&l| i64::from(l)).collect();
                    out.set_item("targets", numpy::PyArray1::from_vec(py, t))?;
                    out.set_item("num_classes", *num_classes)?;
                }
                graph_core::Targets::Real(v) => {
                    out.set_item("targets", numpy::PyArray1::from_vec(py, v.clone()))?;
                    out.set_item("num_classes", py.None())?;
                }
            }
            let splits = PyDict::new(py);
            for (k, idx) in gd.splits() {
                let v: Vec<i64> = idx.iter().map(|&i| i as i64).collect();
                splits.set_item(k, numpy::PyArray1::from_vec(py, v))?;
            }
            out.set_item("splits", splits)?;
        }
        graph_core::Dataset::Files(_) => {
            return Err(DataError::new_err(format!(
                "{name} is a tabular dataset (transactions): load it with cefedgnn or the CLI"
            )));
        }
    }
    Ok(out)
}

/// zcdp_to_approx(rho, delta) -> float
///
/// ε of a ρ-zCDP mechanism at δ (Bun & Steinke 2016, Prop. 1.3: ρ + 2√(ρ ln(1/δ)), rounded up),
/// as dp-core computes it. Raises `InvalidParameter` for ρ < 0, NaN or δ ∉ (0, 1).
#[pyfunction]
fn zcdp_to_approx(rho: f64, delta: f64) -> PyResult<f64> {
    guard(|| dp_core::conversions::zcdp_to_approx(rho, delta))
}

/// gaussian_exact_eps(mu, delta) -> float
///
/// The tight ε(δ) of a Gaussian mechanism with shift μ = sensitivity/σ (Balle & Wang 2018,
/// Thm. 8).
#[pyfunction]
fn gaussian_exact_eps(mu: f64, delta: f64) -> PyResult<f64> {
    guard(|| dp_core::conversions::gaussian_exact_eps(mu, delta))
}

/// tcdp_to_approx(rho, omega, delta) -> tuple[float, float]
///
/// ε of a (ρ, ω)-tCDP mechanism at δ (Bun, Dwork, Rothblum & Steinke 2018) and the Rényi order
/// at which it is attained. Raises `InvalidParameter` for invalid arguments.
#[pyfunction]
fn tcdp_to_approx(rho: f64, omega: f64, delta: f64) -> PyResult<(f64, f64)> {
    guard(|| dp_core::conversions::tcdp_to_approx(rho, omega, delta))
}

/// RdpAccountant(orders=None)
///
/// Rényi-DP accountant over a grid of orders (dp_accounting's default grid unless given):
/// compose Gaussian mechanisms and zCDP, then convert to (ε, δ). Same numbers as dp-core's
/// `RdpAccountant` to the last bit.
#[pyclass(module = "dpgraph.accounting")]
struct RdpAccountant {
    inner: dp_core::accountant::RdpAccountant,
}

#[pymethods]
impl RdpAccountant {
    #[new]
    #[pyo3(signature = (orders=None))]
    fn new(orders: Option<Vec<f64>>) -> PyResult<Self> {
        let inner = match orders {
            None => dp_core::accountant::RdpAccountant::new(),
            Some(o) => guard(|| dp_core::accountant::RdpAccountant::with_orders(o))?,
        };
        Ok(Self { inner })
    }

    /// compose_gaussian(noise_multiplier, count=1)
    ///
    /// Adds `count` Gaussian mechanisms with noise multiplier σ/Δ.
    #[pyo3(signature = (noise_multiplier, count=1))]
    fn compose_gaussian(&mut self, noise_multiplier: f64, count: u64) -> PyResult<()> {
        guard(|| {
            self.inner
                .compose_gaussian(noise_multiplier, count)
                .map(|_| ())
        })
    }

    /// compose_zcdp(rho, count=1)
    #[pyo3(signature = (rho, count=1))]
    fn compose_zcdp(&mut self, rho: f64, count: u64) -> PyResult<()> {
        guard(|| {
            let z = dp_core::measures::Zcdp::new(rho)?;
            self.inner.compose_zcdp(&z, count).map(|_| ())
        })
    }

    /// epsilon(delta) -> tuple[float, float]: (ε, the order attaining it), the improved
    /// conversion (Canonne, Kamath & Steinke 2020, Prop. 12).
    fn epsilon(&self, delta: f64) -> PyResult<(f64, f64)> {
        guard(|| self.inner.epsilon(delta))
    }

    /// epsilon_classic(delta) -> tuple[float, float]: Mironov 2017, Prop. 3.
    fn epsilon_classic(&self, delta: f64) -> PyResult<(f64, f64)> {
        guard(|| self.inner.epsilon_classic(delta))
    }

    /// delta(eps) -> tuple[float, float]: (δ, the order attaining it).
    fn delta(&self, eps: f64) -> PyResult<(f64, f64)> {
        guard(|| self.inner.delta(eps))
    }
}

/// The CSPRNG of a call: seeded from `seed`, else from the operating system (as the CLI).
fn rng(seed: Option<u64>) -> PyResult<rand_chacha::ChaCha20Rng> {
    guard(|| dp_core::rng::project_rng(seed))
}

/// perturb(graph, eps, seed=None) -> Graph
///
/// The data owner's ε-edge randomized response on every pair of the upper triangle (ε-edge
/// local DP). Without `seed`, noise comes from the OS CSPRNG; with it, the output equals
/// `dpgraph --seed SEED edgerefine perturb`. Releases the GIL.
#[pyfunction]
#[pyo3(signature = (graph, eps, seed=None))]
fn perturb(py: Python<'_>, graph: &Graph, eps: f64, seed: Option<u64>) -> PyResult<Graph> {
    let mut r = rng(seed)?;
    let g = &graph.inner;
    let inner = py.detach(|| guard(|| edgerefine::perturb(g, eps, &mut r)))?;
    Ok(Graph { inner })
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
fn refine<'py>(
    py: Python<'py>,
    noisy: &Graph,
    eps: f64,
    k: f64,
    true_edges: Option<u64>,
    bins: usize,
    tie_break: &str,
    seed: Option<u64>,
) -> PyResult<(Graph, Bound<'py, PyDict>)> {
    let tie_break = match tie_break {
        "default" => edgerefine::TieBreak::Default,
        "reference" => edgerefine::TieBreak::Reference,
        other => {
            return Err(InvalidParameter::new_err(format!(
                "tie_break must be \"default\" or \"reference\", got {other:?}"
            )));
        }
    };
    let g = &noisy.inner;
    let (edges_used, source) = match true_edges {
        Some(e) => (e, "supplied".to_string()),
        None => {
            let est =
                guard(|| edgerefine::estimate_edges(g.num_nodes(), eps, g.num_edges() as u64))?;
            (
                est.edges,
                format!("estimated ({:.1} ± {:.1})", est.estimate, est.std_error),
            )
        }
    };
    let params = edgerefine::RefineParams {
        eps,
        k,
        true_edges: edges_used,
        bins,
        tie_break,
        seed: seed.unwrap_or(0),
    };
    let r = py.detach(|| guard(|| edgerefine::refine(g, &params)))?;
    let info = PyDict::new(py);
    info.set_item("k_target", r.k_target)?;
    info.set_item("k_real", r.k_real)?;
    info.set_item("k_fake", r.k_fake)?;
    info.set_item("rho", r.rho)?;
    info.set_item("edges_used", edges_used)?;
    info.set_item("edge_count_source", source)?;
    info.set_item("bin_edges", r.bin_edges.clone())?;
    info.set_item("bin_probability", r.bin_probability.clone())?;
    info.set_item("bin_pairs", r.bin_pairs.clone())?;
    Ok((Graph { inner: r.graph }, info))
}

/// A pattern graph F of a homomorphism density t(F, G) (at most 64 nodes, no self-loops).
#[pyclass(frozen, module = "dpgraph.homdp")]
struct Pattern {
    inner: homdp::Pattern,
}

#[pymethods]
impl Pattern {
    /// Pattern(num_nodes, edges)
    ///
    /// `edges`: a list of (u, v) pairs with 0 <= u, v < num_nodes. Raises `DataError` on
    /// self-loops, duplicate or out-of-range edges.
    #[new]
    fn new(num_nodes: usize, edges: Vec<(usize, usize)>) -> PyResult<Self> {
        let inner = guard(|| homdp::Pattern::new(num_nodes, &edges))?;
        Ok(Self { inner })
    }

    /// Number of nodes |V(F)|.
    #[getter]
    fn num_nodes(&self) -> usize {
        self.inner.num_nodes()
    }

    /// The edges as a list of (u, v) pairs.
    fn edges(&self) -> Vec<(usize, usize)> {
        self.inner.edges().collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "Pattern(num_nodes={}, edges={:?})",
            self.inner.num_nodes(),
            self.inner.edges().collect::<Vec<_>>()
        )
    }
}

/// sample_forests(d, seed=None) -> list[Pattern]
///
/// `d` random forest patterns as the paper samples them (a uniform labelled tree with a
/// geometric size, each edge kept independently). Patterns are public: with `seed` the stream is
/// the CLI's (`dpgraph --seed SEED homdp embed` samples the same patterns), without it the OS
/// CSPRNG.
#[pyfunction]
#[pyo3(signature = (d, seed=None))]
fn sample_forests(d: usize, seed: Option<u64>) -> PyResult<Vec<Pattern>> {
    use rand::SeedableRng;
    let mut r = match seed {
        Some(s) => rand_chacha::ChaCha20Rng::seed_from_u64(s ^ PATTERN_STREAM),
        None => guard(dp_core::rng::os_rng)?,
    };
    Ok(homdp::PatternSampler::forests()
        .sample_many(d, &mut r)
        .into_iter()
        .map(|inner| Pattern { inner })
        .collect())
}

/// The pattern stream's seed offset, as in `dpgraph homdp embed` (patterns are public; the noise
/// has its own stream).
const PATTERN_STREAM: u64 = 0x5041_5454_4552_4e53;

/// A float matrix of the Rust crates as a numpy array (the buffer moves, no copy).
fn to_numpy<'py>(py: Python<'py>, a: ndarray016::Array2<f64>) -> Bound<'py, PyArray2<f64>> {
    let (r, c) = a.dim();
    let (v, offset) = a.into_raw_vec_and_offset();
    debug_assert_eq!(offset.unwrap_or(0), 0);
    numpy::ndarray::Array2::from_shape_vec((r, c), v)
        .map(|a| PyArray2::from_owned_array(py, a))
        .expect("a standard-layout r × c matrix")
}

/// densities(graphs, patterns) -> numpy.ndarray
///
/// The exact homomorphism densities t(F, G) = hom(F, G) / |V(G)|^|V(F)|, one row per graph and
/// one column per pattern (no noise: not private). Releases the GIL.
#[pyfunction]
fn densities<'py>(
    py: Python<'py>,
    graphs: Vec<PyRef<'py, Graph>>,
    patterns: Vec<PyRef<'py, Pattern>>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let gs: Vec<&graph_core::Graph> = graphs.iter().map(|g| &g.inner).collect();
    let ps: Vec<homdp::Pattern> = patterns.iter().map(|p| p.inner.clone()).collect();
    let m = py.detach(|| guard(|| homdp::density_matrix(&ps, &gs)))?;
    Ok(to_numpy(py, m))
}

/// embed(graphs, patterns, rho, delta=1e-6, bound="component-aware", degree_bound=None,
///       seed=None) -> tuple[numpy.ndarray, dict]
///
/// The private embedding: densities plus Gaussian noise calibrated to each graph's smooth
/// sensitivity (σ_G = ‖S_G‖₂ / √(2ρ)), with its guarantee ((ρ', ω)-tCDP and the (ε, δ) it
/// implies) in the dict. `bound`: "component-aware" (default, correct for every pattern),
/// "paper" (the paper's Theorem 4.5, wrong for disconnected patterns: for comparison only) or
/// "counting-lemma". Without `seed`, noise from the OS CSPRNG. Releases the GIL.
#[pyfunction]
#[pyo3(signature = (graphs, patterns, rho, delta=1e-6, bound="component-aware", degree_bound=None, seed=None))]
#[allow(clippy::too_many_arguments)] // Python keyword arguments
fn embed<'py>(
    py: Python<'py>,
    graphs: Vec<PyRef<'py, Graph>>,
    patterns: Vec<PyRef<'py, Pattern>>,
    rho: f64,
    delta: f64,
    bound: &str,
    degree_bound: Option<usize>,
    seed: Option<u64>,
) -> PyResult<(Bound<'py, PyArray2<f64>>, Bound<'py, PyDict>)> {
    let bound = match bound {
        "component-aware" => homdp::SensitivityBound::ComponentAware,
        "paper" => homdp::SensitivityBound::PaperTheorem45,
        "counting-lemma" => homdp::SensitivityBound::CountingLemma,
        other => {
            return Err(InvalidParameter::new_err(format!(
                "bound must be \"component-aware\", \"paper\" or \"counting-lemma\", got {other:?}"
            )));
        }
    };
    let gs: Vec<graph_core::Graph> = graphs.iter().map(|g| g.inner.clone()).collect();
    let ps: Vec<homdp::Pattern> = patterns.iter().map(|p| p.inner.clone()).collect();
    let params = homdp::EmbeddingParams::new(rho)
        .delta(delta)
        .bound(bound)
        .degree_bound(degree_bound);
    let mut r = rng(seed)?;
    let e = py.detach(|| guard(|| homdp::embed(&ps, &gs, &params, &mut r)))?;
    let g = e.guarantee();
    let info = PyDict::new(py);
    info.set_item("eps", g.eps())?;
    info.set_item("delta", g.delta())?;
    info.set_item("rho", g.rho())?;
    info.set_item("beta", g.beta())?;
    info.set_item("rho_prime", g.rho_prime())?;
    info.set_item("omega", g.omega())?;
    info.set_item("sigmas", e.sigmas().to_vec())?;
    info.set_item("seed", seed)?;
    Ok((to_numpy(py, e.into_values()), info))
}

/// The native module `dpgraph._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("DpgraphError", py.get_type::<DpgraphError>())?;
    m.add("InvalidParameter", py.get_type::<InvalidParameter>())?;
    m.add("DataError", py.get_type::<DataError>())?;
    m.add_class::<Graph>()?;
    m.add_function(wrap_pyfunction!(read_edge_list, m)?)?;
    m.add_function(wrap_pyfunction!(load_dataset, m)?)?;
    m.add_function(wrap_pyfunction!(zcdp_to_approx, m)?)?;
    m.add_function(wrap_pyfunction!(gaussian_exact_eps, m)?)?;
    m.add_function(wrap_pyfunction!(tcdp_to_approx, m)?)?;
    m.add_class::<RdpAccountant>()?;
    m.add_function(wrap_pyfunction!(perturb, m)?)?;
    m.add_function(wrap_pyfunction!(refine, m)?)?;
    m.add_class::<Pattern>()?;
    m.add_function(wrap_pyfunction!(sample_forests, m)?)?;
    m.add_function(wrap_pyfunction!(densities, m)?)?;
    m.add_function(wrap_pyfunction!(embed, m)?)?;
    Ok(())
}
