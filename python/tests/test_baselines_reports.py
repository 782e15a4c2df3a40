"""Baselines, report files, and the tiled refine driven by hand (the pieces Ray runs)."""

import numpy as np
import pytest

import dpgraph
from dpgraph import edgerefine


def random_graph(n, m, seed):
    rng = np.random.default_rng(seed)
    ei = rng.integers(0, n, size=(2, m))
    return dpgraph.Graph(ei[:, ei[0] != ei[1]], num_nodes=n)


@pytest.mark.parametrize("method", [m for m in edgerefine.BASELINES if m != "blink-soft"])
def test_every_baseline_runs_seeded_with_its_guarantee(method):
    g = random_graph(150, 600, 1)
    a, info = edgerefine.baseline(g, method, 2.0, seed=5)
    b, _ = edgerefine.baseline(g, method, 2.0, seed=5)
    assert np.array_equal(a.to_edge_index(), b.to_edge_index())
    assert a.num_nodes == 150
    assert info["name"] == method
    assert info["eps"] == 2.0
    # Only SymRR randomizes each pair once; the others report a pair from both endpoints,
    # except the artifact's Blink, which has no finite edge-DP ε (its degree-1 fix).
    if method.startswith("blink-artifact"):
        assert info["eps_edge"] == float("inf")
    else:
        assert info["eps_edge"] == (2.0 if method == "symrr" else 4.0)
    if method in ("blink-hybrid", "blink-artifact-hybrid"):
        assert info["weights"].dtype == np.float32
        assert info["weights"].shape == (a.num_edges,)
        assert ((info["weights"] > 0) & (info["weights"] <= 1)).all()
    else:
        assert info["weights"] is None


def test_blink_soft_weights_every_released_pair():
    g = random_graph(60, 200, 2)
    r, info = edgerefine.baseline(g, "blink-soft", 3.0, seed=1)
    assert info["weights"].shape == (r.num_edges,)


@pytest.mark.parametrize("method, eps", [("nope", 1.0), ("rr", 0.0), ("dprr", -1.0), ("ldpgen", float("nan"))])
def test_baseline_bad_arguments(method, eps):
    with pytest.raises(dpgraph.InvalidParameter):
        edgerefine.baseline(random_graph(20, 40, 3), method, eps, seed=1)


def test_report_round_trip_and_corruption(tmp_path):
    g = random_graph(300, 900, 4)
    noisy = edgerefine.perturb(g, 2.0, seed=3)
    path = tmp_path / "x.rr"
    header = edgerefine.write_report(noisy, 2.0, path)
    assert header["num_nodes"] == 300 and header["noisy_edges"] == noisy.num_edges
    assert edgerefine.report_header(path) == header
    back, h = edgerefine.read_report(path)
    assert h == header
    assert np.array_equal(back.to_edge_index(), noisy.to_edge_index())
    data = bytearray(path.read_bytes())
    data[100] ^= 0x10
    (tmp_path / "bad.rr").write_bytes(bytes(data))
    with pytest.raises(dpgraph.DataError, match="byte"):
        edgerefine.read_report(tmp_path / "bad.rr")
    (tmp_path / "short.rr").write_bytes(bytes(data[:40]))
    with pytest.raises(dpgraph.DataError):
        edgerefine.report_header(tmp_path / "short.rr")
    with pytest.raises(dpgraph.DataError):
        edgerefine.TileWorker(bytes(data[:40]))


def run_tiles(report, n, noisy_edges, tile_rows, chunks, **kw):
    """The three passes with one worker per chunk of tile numbers."""
    workers = [edgerefine.TileWorker(report, tile_rows, threads=2) for _ in chunks]
    c = edgerefine.TiledRefine(n, 1.5, noisy_edges=noisy_edges, **kw)
    rank = c.rank_buckets([w.histogram(ch) for w, ch in zip(workers, chunks)])
    plan = c.selection_plan([w.values(rank, ch) for w, ch in zip(workers, chunks)])
    return c.finish([w.select(plan, ch) for w, ch in zip(workers, chunks)])


@pytest.mark.parametrize("tie_break", ["default", "reference"])
@pytest.mark.parametrize("backend", ["auto", "sparse"])
def test_tiles_run_by_hand_equal_refine(tmp_path, tie_break, backend):
    g = random_graph(500, 2500, 5)
    noisy = edgerefine.perturb(g, 1.5, seed=8)
    path = tmp_path / "n.rr"
    edgerefine.write_report(noisy, 1.5, path)
    report = path.read_bytes()
    local, info = edgerefine.refine(noisy, 1.5, tie_break=tie_break, seed=3)
    tiles = edgerefine.tile_count(500, 64)
    chunks = [list(range(0, tiles, 3)), list(range(1, tiles, 3)), list(range(2, tiles, 3))]
    w = edgerefine.TileWorker(report, 64, backend=backend)
    assert (w.num_nodes, w.num_tiles) == (500, tiles)
    got, ginfo = run_tiles(report, 500, noisy.num_edges, 64, chunks, tie_break=tie_break, seed=3)
    assert np.array_equal(got.to_edge_index(), local.to_edge_index())
    for key in ["k_target", "k_real", "k_fake", "edges_used", "edge_count_source", "bin_edges"]:
        assert ginfo[key] == info[key], key


def test_tiles_that_do_not_add_up_are_data_errors(tmp_path):
    g = random_graph(200, 800, 6)
    noisy = edgerefine.perturb(g, 1.5, seed=2)
    path = tmp_path / "n.rr"
    edgerefine.write_report(noisy, 1.5, path)
    report = path.read_bytes()
    w = edgerefine.TileWorker(report, 50)
    all_tiles = list(range(w.num_tiles))
    c = edgerefine.TiledRefine(200, 1.5, true_edges=g.num_edges)
    with pytest.raises(dpgraph.DataError, match="counts"):
        c.rank_buckets([w.histogram(all_tiles[1:])])  # a tile missing
    with pytest.raises(dpgraph.DataError, match="out of order"):
        c.finish([])
    with pytest.raises(dpgraph.DataError, match="not a tile histogram"):
        c.rank_buckets([b"garbage"])
    with pytest.raises(dpgraph.DataError, match="out of range"):
        w.histogram([w.num_tiles])
    rank = c.rank_buckets([w.histogram(all_tiles)])
    plan = c.selection_plan([w.values(rank, all_tiles)])
    # A worker of another graph refuses the plan before running a tile.
    other = tmp_path / "o.rr"
    edgerefine.write_report(edgerefine.perturb(random_graph(201, 800, 7), 1.5, seed=1), 1.5, other)
    with pytest.raises(dpgraph.DataError, match="201"):
        edgerefine.TileWorker(other.read_bytes(), 50).select(plan, [0])
    with pytest.raises(dpgraph.InvalidParameter):
        edgerefine.TileWorker(report, 0)
    with pytest.raises(dpgraph.InvalidParameter):
        edgerefine.TiledRefine(200, 1.5)  # neither true_edges nor noisy_edges
    graph, info = c.finish([w.select(plan, all_tiles)])
    assert graph.num_edges == info["k_target"]
