//! The tiled refine for a cluster (`dpgraph.edgerefine.refine_distributed` runs it on Ray): a
//! `TileWorker` holds the noisy graph of a report and runs passes over lists of tiles; a
//! `TiledRefine` coordinator merges the workers' results and decides between the passes.
//!
//! Everything that travels between them is bytes (MessagePack of edgerefine's tile types), so
//! that any engine can carry it; what arrives is decoded and checked (a plan for another graph,
//! results that do not add up: `DataError`), never trusted.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{DataError, InvalidParameter, guard};
use crate::graph::Graph;

/// MessagePack bytes of a tile message.
fn encode<T: Serialize>(py: Python<'_>, value: &T) -> PyResult<Py<PyBytes>> {
    let bytes = rmp_serde::to_vec(value)
        .map_err(|e| DataError::new_err(format!("encoding a tile message: {e}")))?;
    Ok(PyBytes::new(py, &bytes).unbind())
}

/// A tile message from MessagePack bytes.
fn decode<T: DeserializeOwned>(what: &str, bytes: &[u8]) -> PyResult<T> {
    rmp_serde::from_slice(bytes).map_err(|e| DataError::new_err(format!("not a {what}: {e}")))
}

/// The tile backend named in Python.
fn backend(name: &str) -> PyResult<edgerefine::Backend> {
    crate::choices::parse(name)
}

/// The tiles of a graph of `n` nodes, checking the tile size.
fn tiles_of(n: usize, tile_rows: usize) -> PyResult<Vec<edgerefine::Tile>> {
    if tile_rows == 0 {
        return Err(InvalidParameter::new_err("tile_rows must be at least 1"));
    }
    Ok(edgerefine::plan_tiles(n, tile_rows))
}

/// TileWorker(report, tile_rows=1024, backend="auto", threads=1)
///
/// A worker of a tiled refine: decodes the noisy graph from the bytes of a report (`.rr`, as
/// `write_report` writes it), prepares its packed rows once, and runs the three passes over
/// lists of tile numbers (indices into the plan of `tile_rows`-row tiles) on `threads` threads,
/// returning each pass's merged result as bytes for `TiledRefine`. Raises `DataError` for a
/// corrupt report. Every pass releases the GIL.
#[pyclass(frozen, module = "dpgraph.edgerefine")]
pub(crate) struct TileWorker {
    ctx: edgerefine::TileContext<'static>,
    tiles: Vec<edgerefine::Tile>,
    pool: rayon::ThreadPool,
}

impl TileWorker {
    /// The tiles numbered `ids`, checking the numbers.
    fn pick(&self, ids: &[usize]) -> PyResult<Vec<&edgerefine::Tile>> {
        ids.iter()
            .map(|&i| {
                self.tiles.get(i).ok_or_else(|| {
                    DataError::new_err(format!(
                        "tile {i} out of range (the plan has {} tiles)",
                        self.tiles.len()
                    ))
                })
            })
            .collect()
    }
}

#[pymethods]
impl TileWorker {
    #[new]
    #[pyo3(signature = (report, tile_rows=edgerefine::DEFAULT_TILE_ROWS, backend="auto", threads=1))]
    fn new(
        py: Python<'_>,
        report: &[u8],
        tile_rows: usize,
        backend: &str,
        threads: usize,
    ) -> PyResult<Self> {
        let backend = self::backend(backend)?;
        if threads == 0 {
            return Err(InvalidParameter::new_err("threads must be at least 1"));
        }
        let (_, graph) = py.detach(|| guard(|| edgerefine::report::decode_report(report)))?;
        let tiles = tiles_of(graph.num_nodes(), tile_rows)?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| DataError::new_err(format!("thread pool: {e}")))?;
        let ctx = py.detach(|| edgerefine::TileContext::owned(graph, backend));
        Ok(Self { ctx, tiles, pool })
    }

    /// Number of nodes of the noisy graph.
    #[getter]
    fn num_nodes(&self) -> usize {
        self.ctx.num_nodes()
    }

    /// Number of tiles of the plan.
    #[getter]
    fn num_tiles(&self) -> usize {
        self.tiles.len()
    }

    /// histogram(tiles) -> bytes: pass 1 over the tiles numbered `tiles`, merged.
    fn histogram(&self, py: Python<'_>, tiles: Vec<usize>) -> PyResult<Py<PyBytes>> {
        use rayon::prelude::*;
        let picked = self.pick(&tiles)?;
        let h = py.detach(|| {
            self.pool.install(|| {
                picked.par_iter().map(|t| t.histogram(&self.ctx)).reduce(
                    edgerefine::TileHistogram::empty,
                    |mut a, b| {
                        a.merge(&b);
                        a
                    },
                )
            })
        });
        encode(py, &h)
    }

    /// values(rank, tiles) -> bytes: pass 2 over the tiles numbered `tiles` for the rank
    /// buckets `rank` (from `TiledRefine.rank_buckets`), merged.
    fn values(&self, py: Python<'_>, rank: &[u8], tiles: Vec<usize>) -> PyResult<Py<PyBytes>> {
        use rayon::prelude::*;
        let rank: edgerefine::RankBuckets = decode("rank-bucket list", rank)?;
        let picked = self.pick(&tiles)?;
        let v = py.detach(|| {
            self.pool.install(|| {
                picked
                    .par_iter()
                    .map(|t| t.values(&self.ctx, &rank))
                    .reduce(
                        || edgerefine::TileValues::empty(&rank),
                        |mut a, b| {
                            a.merge(b);
                            a
                        },
                    )
            })
        });
        encode(py, &v)
    }

    /// select(plan, tiles) -> bytes: pass 3 over the tiles numbered `tiles` with the selection
    /// plan `plan` (from `TiledRefine.selection_plan`, checked against this graph), merged.
    fn select(&self, py: Python<'_>, plan: &[u8], tiles: Vec<usize>) -> PyResult<Py<PyBytes>> {
        use rayon::prelude::*;
        let plan: edgerefine::SelectionPlan = decode("selection plan", plan)?;
        guard(|| plan.check(self.ctx.num_nodes()))?;
        let picked = self.pick(&tiles)?;
        let s = py.detach(|| {
            self.pool.install(|| {
                picked
                    .par_iter()
                    .map(|t| t.select(&self.ctx, &plan))
                    .reduce_with(|mut a, b| {
                        a.merge(b);
                        a
                    })
            })
        });
        encode(py, &s)
    }
}

/// TiledRefine(num_nodes, eps, k=0.01, true_edges=None, bins=10, tie_break="default", seed=None,
///             noisy_edges=None)
///
/// The coordinator of a tiled refine (edgerefine's `TiledRefine`): merges the workers' results
/// of each pass and decides what the next pass needs; `finish` builds the release, the same as
/// `refine` on the same noisy graph. Without `true_edges`, E is estimated from `noisy_edges`
/// (post-processing). Raises `DataError` when results do not add up (a tile missing or counted
/// twice, a result of another run) or arrive out of order.
#[pyclass(module = "dpgraph.edgerefine")]
pub(crate) struct TiledRefine {
    inner: edgerefine::TiledRefine,
    params: edgerefine::RefineParams,
    edge_count: edgerefine::ops::EdgeCountUsed,
    started: std::time::Instant,
}

#[pymethods]
impl TiledRefine {
    #[new]
    #[pyo3(signature = (num_nodes, eps, k=0.01, true_edges=None, bins=10, tie_break="default", seed=None, noisy_edges=None))]
    #[allow(clippy::too_many_arguments)] // Python keyword arguments
    fn new(
        num_nodes: usize,
        eps: f64,
        k: f64,
        true_edges: Option<u64>,
        bins: usize,
        tie_break: &str,
        seed: Option<u64>,
        noisy_edges: Option<u64>,
    ) -> PyResult<Self> {
        let request = crate::edgerefine::refine_request(eps, k, true_edges, bins, tie_break, seed)?;
        if true_edges.is_none() && noisy_edges.is_none() {
            return Err(InvalidParameter::new_err(
                "give true_edges, or noisy_edges to estimate E from",
            ));
        }
        let (params, edge_count) =
            guard(|| request.params(num_nodes, noisy_edges.unwrap_or_default()))?;
        let inner = guard(|| edgerefine::TiledRefine::new(num_nodes, &params))?;
        Ok(Self {
            inner,
            params,
            edge_count,
            started: std::time::Instant::now(),
        })
    }

    /// rank_buckets(histograms) -> bytes: merges pass 1's results and returns the buckets pass
    /// 2 needs.
    fn rank_buckets(&mut self, py: Python<'_>, histograms: Vec<Vec<u8>>) -> PyResult<Py<PyBytes>> {
        let mut hist = edgerefine::TileHistogram::empty();
        for h in &histograms {
            let h: edgerefine::TileHistogram = decode("tile histogram", h)?;
            if h.pairs.len() != hist.pairs.len() || h.noisy.len() != hist.noisy.len() {
                return Err(DataError::new_err("a tile histogram of another length"));
            }
            hist.merge(&h);
        }
        let rank = guard(|| self.inner.rank_buckets(&hist))?;
        encode(py, &rank)
    }

    /// selection_plan(values) -> bytes: merges pass 2's results and returns the plan of pass 3.
    fn selection_plan(&mut self, py: Python<'_>, values: Vec<Vec<u8>>) -> PyResult<Py<PyBytes>> {
        let mut merged: Option<edgerefine::TileValues> = None;
        for v in &values {
            let v: edgerefine::TileValues = decode("tile value table", v)?;
            match &mut merged {
                Some(m) => m.merge(v),
                None => merged = Some(v),
            }
        }
        let merged = merged.ok_or_else(|| DataError::new_err("no tile values to merge"))?;
        let plan = guard(|| self.inner.selection_plan(&merged))?;
        encode(py, &plan)
    }

    /// finish(selections) -> tuple[Graph, dict]: merges pass 3's results into the release and
    /// its dict (as `refine` returns them).
    fn finish<'py>(
        &mut self,
        py: Python<'py>,
        selections: Vec<Vec<u8>>,
    ) -> PyResult<(Graph, Bound<'py, PyAny>)> {
        let mut merged: Option<edgerefine::TileSelection> = None;
        for s in &selections {
            let s: Option<edgerefine::TileSelection> = decode("tile selection", s)?;
            match (&mut merged, s) {
                (Some(m), Some(s)) => m.merge(s),
                (None, s) => merged = s,
                (Some(_), None) => {}
            }
        }
        let r = guard(|| self.inner.finish(merged))?;
        let seconds = self.started.elapsed().as_secs_f64();
        let summary =
            edgerefine::ops::RefineSummary::new(&r, &self.params, self.edge_count, seconds);
        Ok((
            Graph { inner: r.graph },
            crate::error::record(py, &summary)?,
        ))
    }
}

/// tile_count(num_nodes, tile_rows=1024) -> int: the number of tiles of the plan.
#[pyfunction]
#[pyo3(signature = (num_nodes, tile_rows=edgerefine::DEFAULT_TILE_ROWS))]
pub(crate) fn tile_count(num_nodes: usize, tile_rows: usize) -> PyResult<usize> {
    if tile_rows == 0 {
        return Err(InvalidParameter::new_err("tile_rows must be at least 1"));
    }
    // The blocks (a, b), a <= b, of `plan_tiles`, without building the plan.
    let blocks = num_nodes.div_ceil(tile_rows);
    Ok(blocks * (blocks + 1) / 2)
}
