"""The distributed refine on a local Ray cluster (2 CPUs) equals single-process refine at
n = 20,000, ε = 1. `cargo xtask test` installs Ray and sets DPGRAPH_REQUIRE_RAY=1, so there a
missing Ray fails instead of skipping."""

import os
import signal

import numpy as np
import pytest

import dpgraph
from dpgraph import edgerefine

if os.environ.get("DPGRAPH_REQUIRE_RAY") == "1":
    import ray
else:
    ray = pytest.importorskip("ray")

LIMIT_S = 600


@pytest.fixture
def bounded():
    """Fails the test instead of hanging past LIMIT_S seconds."""

    def expire(*_):
        raise TimeoutError(f"the Ray test ran past {LIMIT_S} s")

    old = signal.signal(signal.SIGALRM, expire)
    signal.alarm(LIMIT_S)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


@pytest.fixture
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_ray_refine_equals_single_process_at_20k_nodes(tmp_path, bounded, cluster):
    n = 20_000
    rng = np.random.default_rng(20_000)
    ei = rng.integers(0, n, size=(2, 5 * n))
    g = dpgraph.Graph(ei[:, ei[0] != ei[1]], num_nodes=n)
    noisy = edgerefine.perturb(g, 1.0, seed=7)
    path = tmp_path / "noisy.rr"
    edgerefine.write_report(noisy, 1.0, path)
    local, info = edgerefine.refine(noisy, 1.0)
    dist, dinfo = edgerefine.refine_distributed(path, num_workers=2)
    assert dinfo["workers"] == 2 and dinfo["tiles"] == edgerefine.tile_count(n)
    assert dist.num_edges == info["k_target"] > 0
    assert np.array_equal(dist.to_edge_index(), local.to_edge_index())
    for key in ["k_real", "k_fake", "edges_used", "edge_count_source", "bin_edges", "bin_pairs"]:
        assert dinfo[key] == info[key], key
    # The reference tie-break too (a smaller graph: the point is the order of ties).
    small = edgerefine.perturb(g_small(rng), 1.0, seed=3)
    p2 = tmp_path / "small.rr"
    edgerefine.write_report(small, 1.0, p2)
    ref, _ = edgerefine.refine(small, 1.0, true_edges=1500, tie_break="reference")
    dref, _ = edgerefine.refine_distributed(p2, true_edges=1500, tie_break="reference", tile_rows=100)
    assert np.array_equal(dref.to_edge_index(), ref.to_edge_index())


def g_small(rng):
    ei = rng.integers(0, 800, size=(2, 3000))
    return dpgraph.Graph(ei[:, ei[0] != ei[1]], num_nodes=800)
