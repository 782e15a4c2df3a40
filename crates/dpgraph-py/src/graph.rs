//! `dpgraph.graph`: the Graph class, edge-list files and the datasets of the registry.

use numpy::{PyArray2, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::error::{DataError, guard};

/// An undirected graph (CSR, node ids `0..num_nodes`).
///
/// Built from a PyTorch Geometric style `edge_index` (a 2 × E int64 array; an undirected edge
/// may appear once or in both directions), it keeps each undirected edge once.
#[pyclass(frozen, module = "dpgraph")]
pub(crate) struct Graph {
    pub(crate) inner: graph_core::Graph,
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
pub(crate) fn read_edge_list(py: Python<'_>, path: std::path::PathBuf) -> PyResult<Graph> {
    let inner = py.detach(|| guard(|| graph_core::io::read_edge_list(&path)))?;
    Ok(Graph { inner })
}

/// louvain(graph, resolution=1.0, seed=None) -> numpy.ndarray
///
/// Louvain communities (python-louvain's `best_partition`: local moves in a random order, then
/// the graph of communities, the top level returned): uint32, one community id per node,
/// numbered in order of first appearance. `seed` fixes the node orders (else the OS draws
/// one; a partition is not a release). Raises `InvalidParameter` for a resolution that is not
/// finite and > 0. Releases the GIL.
#[pyfunction]
#[pyo3(signature = (graph, resolution=1.0, seed=None))]
pub(crate) fn louvain<'py>(
    py: Python<'py>,
    graph: &Graph,
    resolution: f64,
    seed: Option<u64>,
) -> PyResult<Bound<'py, numpy::PyArray1<u32>>> {
    check_resolution(resolution)?;
    let seed = match seed {
        Some(s) => s,
        None => guard(dp_core::rng::os_seed)?,
    };
    let mut rng = dp_core::rng::Seeds::new(seed).chacha8(LOUVAIN_STREAM, 0);
    let g = &graph.inner;
    let comm = py.detach(|| graph_core::partition::louvain(g, resolution, &mut rng));
    Ok(numpy::PyArray1::from_vec(py, comm))
}

/// Purpose name of the Louvain node orders in [`dp_core::rng::Seeds`].
const LOUVAIN_STREAM: &str = "graph/louvain";

/// modularity(graph, communities, resolution=1.0) -> float
///
/// Newman–Girvan modularity of `communities` (one non-negative id per node), as networkx's
/// `modularity`. Raises `InvalidParameter` for a wrong length or a bad resolution.
#[pyfunction]
#[pyo3(signature = (graph, communities, resolution=1.0))]
pub(crate) fn modularity(graph: &Graph, communities: Vec<u32>, resolution: f64) -> PyResult<f64> {
    check_resolution(resolution)?;
    if communities.len() != graph.inner.num_nodes() {
        return Err(crate::error::InvalidParameter::new_err(format!(
            "communities has {} entries for {} nodes",
            communities.len(),
            graph.inner.num_nodes()
        )));
    }
    Ok(graph_core::partition::modularity(
        &graph.inner,
        &communities,
        resolution,
    ))
}

fn check_resolution(resolution: f64) -> PyResult<()> {
    if resolution.is_finite() && resolution > 0.0 {
        Ok(())
    } else {
        Err(crate::error::InvalidParameter::new_err(format!(
            "resolution must be finite and > 0, got {resolution}"
        )))
    }
}

/// load_dataset(name, data_dir=None) -> dict
///
/// A dataset of the registry, from `data_dir` (default: `$DPGRAPH_DATA`, else `./data`, as the
/// CLI). A dataset not installed there is installed on first use, as the CLI does: the embedded
/// copy (Cora, MUTAG), else from `$DPGRAPH_MIRROR`, else upstream (`$DPGRAPH_UPSTREAM` standing
/// in for the hosts). Node datasets give
/// `{"kind": "nodes", "graph", "features" (float32 n × d), "labels" (uint32), "num_classes"}`;
/// graph collections `{"kind": "graphs", "graphs" (list of Graph), "targets" (int64 classes or
/// float64 values), "num_classes" (None for regression), "splits" (name → int64 indices)}`.
/// Raises `DataError` for an unknown dataset or one that cannot be installed here (the message
/// says why). Releases the GIL while installing and loading.
#[pyfunction]
#[pyo3(signature = (name, data_dir=None))]
pub(crate) fn load_dataset<'py>(
    py: Python<'py>,
    name: &str,
    data_dir: Option<std::path::PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    let dir = installed_dir(py, name, data_dir)?;
    let ds = py.detach(|| guard(|| graph_core::Registry::embedded().get(name)?.load(&dir)))?;
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

/// The data directory (`data_dir`, else `$DPGRAPH_DATA` or the default) with dataset `name`
/// installed in it on first use (from `$DPGRAPH_MIRROR`, the embedded copy or upstream).
/// The Python module is a front end: it reads the environment and passes paths and origins.
pub(crate) fn installed_dir(
    py: Python<'_>,
    name: &str,
    data_dir: Option<std::path::PathBuf>,
) -> PyResult<std::path::PathBuf> {
    let dir = data_dir.unwrap_or_else(|| {
        graph_core::registry::data_dir_or_default(std::env::var_os(graph_core::registry::DATA_ENV))
    });
    let origin = graph_core::install::Origin::from_args(
        std::env::var(graph_core::install::MIRROR_ENV).ok(),
        std::env::var(graph_core::install::UPSTREAM_ENV).ok(),
        false,
        std::time::Duration::from_secs(60),
    );
    // The GIL is released while installing (a download can take minutes).
    py.detach(|| {
        guard(|| {
            let spec = graph_core::Registry::embedded().get(name)?;
            graph_core::install::Installer::new(&origin).install_missing(
                spec,
                &dir,
                &mut graph_core::install::Quiet,
            )
        })
    })?;
    Ok(dir)
}
