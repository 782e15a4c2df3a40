//! `dpgraph.homdp`: patterns, homomorphism counts and densities, the private embedding and the
//! re-identification attack.

use ndarray as ndarray016;
use numpy::{PyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::error::guard;
use crate::graph::Graph;

/// A pattern graph F of a homomorphism density t(F, G) (at most 64 nodes, no self-loops).
#[pyclass(frozen, module = "dpgraph.homdp")]
pub(crate) struct Pattern {
    pub(crate) inner: homdp::Pattern,
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
pub(crate) fn sample_forests(d: usize, seed: Option<u64>) -> PyResult<Vec<Pattern>> {
    let mut r = match seed {
        Some(s) => dp_core::rng::Seeds::new(s).chacha20(homdp::streams::PATTERNS, 0),
        None => guard(dp_core::rng::os_rng)?,
    };
    Ok(homdp::PatternSampler::forests()
        .sample_many(d, &mut r)
        .into_iter()
        .map(|inner| Pattern { inner })
        .collect())
}

/// A float matrix of the Rust crates as a numpy array (the buffer moves, no copy).
pub(crate) fn to_numpy<'py>(
    py: Python<'py>,
    a: ndarray016::Array2<f64>,
) -> Bound<'py, PyArray2<f64>> {
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
pub(crate) fn densities<'py>(
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
///       seed=None, private_degree_rho=None, degree_quantile=1.0, clip=False,
///       num_nodes_column=False) -> tuple[numpy.ndarray, dict]
///
/// The private embedding: densities plus Gaussian noise calibrated to each graph's smooth
/// sensitivity (σ_G = ‖S_G‖₂ / √(2ρ)). `bound`: "component-aware" (default, correct for every
/// pattern), "paper" (the paper's Theorem 4.5, wrong for disconnected patterns: for comparison
/// only) or "counting-lemma". `degree_bound`: a public Δ (`clip` drops edges of graphs above
/// it instead of failing). `private_degree_rho`: estimate Δ privately with that zCDP budget
/// instead (stable clipping, 3× sensitivity, ρ_Δ composed into the guarantee).
/// `num_nodes_column` appends |V(G)| (public under edge-level DP) as a last, un-noised column.
/// Without `seed`, noise from the OS CSPRNG.
///
/// The dict is the record `dpgraph homdp embed --json` prints, from the same Rust value
/// (`homdp::ops::EmbedSummary`) but for the CLI's `out`: the guarantee (`eps`, `delta`, `rho`,
/// `beta`, `dim`, `rho_prime`, `omega`, `degree_rho`), the patterns, `graphs`, `columns`,
/// `bound`, `max_degree`, `clip`, `num_nodes_column`, `private_degree`, `clipped`, `sigmas`,
/// `seed`, `private`, `noise` and `embed_s`. Releases the GIL.
#[pyfunction]
#[pyo3(signature = (graphs, patterns, rho, delta=1e-6, bound="component-aware", degree_bound=None, seed=None, private_degree_rho=None, degree_quantile=1.0, clip=false, num_nodes_column=false))]
#[allow(clippy::too_many_arguments)] // Python keyword arguments
pub(crate) fn embed<'py>(
    py: Python<'py>,
    graphs: Vec<PyRef<'py, Graph>>,
    patterns: Vec<PyRef<'py, Pattern>>,
    rho: f64,
    delta: f64,
    bound: &str,
    degree_bound: Option<usize>,
    seed: Option<u64>,
    private_degree_rho: Option<f64>,
    degree_quantile: f64,
    clip: bool,
    num_nodes_column: bool,
) -> PyResult<(Bound<'py, PyArray2<f64>>, Bound<'py, PyAny>)> {
    let bound: homdp::SensitivityBound = crate::choices::parse(bound)?;
    // ρ and δ are refused here, once, with dp-core's messages (as the CLI's parser does).
    let rho = guard(|| dp_core::params::Rho::new(rho))?;
    let delta = guard(|| dp_core::params::Delta::new(delta))?;
    let private_degree = private_degree_rho
        .map(|r| {
            let r = guard(|| dp_core::params::Rho::new(r))?;
            guard(|| homdp::PrivateDegree::new(r, degree_quantile))
        })
        .transpose()?;
    let gs: Vec<graph_core::Graph> = graphs.iter().map(|g| g.inner.clone()).collect();
    let ps: Vec<homdp::Pattern> = patterns.iter().map(|p| p.inner.clone()).collect();
    let params = homdp::EmbeddingParams::new(rho)
        .delta(delta)
        .bound(bound)
        .degree_bound(degree_bound)
        .clip_to_degree_bound(clip)
        .private_degree(private_degree)
        .append_num_nodes(num_nodes_column);
    let noise = dp_core::rng::NoiseSource::from_seed(seed);
    let (values, summary) = py.detach(|| guard(|| homdp::ops::embed(&ps, &gs, &params, noise)))?;
    Ok((to_numpy(py, values), crate::error::record(py, &summary)?))
}

/// hom_counts(graphs, patterns) -> list[list[int]]
///
/// The exact homomorphism counts hom(F, G), one row per graph and one column per pattern, as
/// Python integers (they can exceed 64 bits; `numpy.array(counts, dtype=object)` keeps them
/// exact). Releases the GIL.
#[pyfunction]
pub(crate) fn hom_counts<'py>(
    py: Python<'py>,
    graphs: Vec<PyRef<'py, Graph>>,
    patterns: Vec<PyRef<'py, Pattern>>,
) -> PyResult<Vec<Vec<u128>>> {
    let gs: Vec<&graph_core::Graph> = graphs.iter().map(|g| &g.inner).collect();
    let ps: Vec<&homdp::Pattern> = patterns.iter().map(|p| &p.inner).collect();
    py.detach(|| {
        guard(|| {
            gs.iter()
                .map(|g| ps.iter().map(|p| homdp::hom_count(p, g)).collect())
                .collect::<homdp::Result<Vec<Vec<u128>>>>()
        })
    })
}

/// A float matrix from numpy as an ndarray 0.16 view (no copy when C-contiguous, else a copy in
/// row-major order).
fn matrix<'a>(
    a: &'a numpy::PyReadonlyArray2<'_, f64>,
    owned: &'a mut Option<ndarray016::Array2<f64>>,
) -> ndarray016::ArrayView2<'a, f64> {
    let v = a.as_array();
    let (r, c) = v.dim();
    // `as_slice` also accepts Fortran order, which would be read transposed.
    if let (true, Ok(s)) = (a.is_c_contiguous(), a.as_slice()) {
        return ndarray016::ArrayView2::from_shape((r, c), s).expect("r × c contiguous values");
    }
    let copy = ndarray016::Array2::from_shape_vec((r, c), v.iter().copied().collect())
        .expect("r × c values");
    owned.insert(copy).view()
}

/// reidentification(clean, released, ks=(1, 5, 10)) -> list[float]
///
/// The paper's re-identification attack: an adversary who knows the clean density vectors
/// (rows of `clean`) looks up each released vector (row i of `released` is graph i's) among
/// them by exact Euclidean nearest-neighbour search; the share of graphs whose own clean vector
/// is among the k nearest, for each k of `ks`. Raises `InvalidParameter` for shapes that
/// differ, no rows, k = 0 or a non-finite entry. Releases the GIL.
#[pyfunction]
#[pyo3(signature = (clean, released, ks=vec![1, 5, 10]))]
pub(crate) fn reidentification(
    py: Python<'_>,
    clean: numpy::PyReadonlyArray2<'_, f64>,
    released: numpy::PyReadonlyArray2<'_, f64>,
    ks: Vec<usize>,
) -> PyResult<Vec<f64>> {
    let (mut a, mut b) = (None, None);
    let (c, r) = (matrix(&clean, &mut a), matrix(&released, &mut b));
    py.detach(|| guard(|| homdp::reidentification(c, r, &ks)))
}

/// reidentification_ranks(clean, released) -> numpy.ndarray
///
/// The 0-based rank of each graph's own clean vector among the neighbours of its released
/// vector (see `reidentification`), as an int64 array. Releases the GIL.
#[pyfunction]
pub(crate) fn reidentification_ranks<'py>(
    py: Python<'py>,
    clean: numpy::PyReadonlyArray2<'py, f64>,
    released: numpy::PyReadonlyArray2<'py, f64>,
) -> PyResult<Bound<'py, numpy::PyArray1<i64>>> {
    let (mut a, mut b) = (None, None);
    let (c, r) = (matrix(&clean, &mut a), matrix(&released, &mut b));
    let ranks = py.detach(|| guard(|| homdp::reidentification_ranks(c, r)))?;
    Ok(numpy::PyArray1::from_vec(
        py,
        ranks.into_iter().map(|x| x as i64).collect(),
    ))
}
