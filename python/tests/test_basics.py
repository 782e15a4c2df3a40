"""The first bindings: graphs from edge_index, accounting, perturb/refine, errors."""

import json
import os
import subprocess

import numpy as np
import pytest

import dpgraph
from dpgraph import accounting, edgerefine


def path_graph(n):
    src = np.arange(n - 1, dtype=np.int64)
    return dpgraph.Graph(np.stack([src, src + 1]))


def test_graph_from_edge_index_both_directions_and_back():
    ei = np.array([[0, 1, 1, 2], [1, 0, 2, 1]], dtype=np.int64)
    g = dpgraph.Graph(ei, num_nodes=4)
    assert (g.num_nodes, g.num_edges) == (4, 2)
    assert np.array_equal(g.to_edge_index(), np.array([[0, 1, 1, 2], [1, 0, 2, 1]]))


@pytest.mark.parametrize(
    "ei, n",
    [
        (np.array([[0, 1], [0, 2]]), None),  # self-loop
        (np.array([[0, -1], [1, 2]]), None),  # negative id
        (np.array([[0, 5], [1, 2]]), 3),  # out of range
        (np.array([[0, 1, 2]]), None),  # wrong shape
    ],
)
def test_bad_edge_index_is_a_data_error(ei, n):
    with pytest.raises(dpgraph.DataError):
        dpgraph.Graph(ei.astype(np.int64), num_nodes=n)


def test_accounting_matches_the_closed_form_and_refuses_bad_parameters():
    eps = accounting.zcdp_to_approx(0.5, 1e-6)
    assert eps == pytest.approx(0.5 + 2 * np.sqrt(0.5 * np.log(1e6)), rel=1e-12)
    assert eps >= 0.5 + 2 * np.sqrt(0.5 * np.log(1e6))
    for rho, delta in [(-1.0, 1e-6), (0.5, 0.0), (0.5, 1.5), (float("nan"), 1e-6)]:
        with pytest.raises(dpgraph.InvalidParameter):
            accounting.zcdp_to_approx(rho, delta)
    assert issubclass(dpgraph.InvalidParameter, dpgraph.DpgraphError)


def test_perturb_and_refine_are_seeded_and_release_k_edges():
    g = path_graph(300)
    a = edgerefine.perturb(g, 2.0, seed=5)
    b = edgerefine.perturb(g, 2.0, seed=5)
    assert np.array_equal(a.to_edge_index(), b.to_edge_index())
    rel, info = edgerefine.refine(a, 2.0, k=0.5, true_edges=g.num_edges, seed=5)
    assert rel.num_edges == info["k_target"] == g.num_edges // 2
    assert info["edge_count_source"] == "supplied"
    _, est = edgerefine.refine(a, 2.0, k=0.5)
    assert est["edge_count_source"].startswith("estimated")
    for bad in [0.0, -1.0, float("nan")]:
        with pytest.raises(dpgraph.InvalidParameter):
            edgerefine.perturb(g, bad)
    with pytest.raises(dpgraph.InvalidParameter):
        edgerefine.refine(a, 2.0, tie_break="alphabetical")


def test_same_release_as_the_cli_with_the_same_seed(tmp_path):
    cli = os.environ.get("DPGRAPH_CLI")
    if not cli:
        pytest.skip("DPGRAPH_CLI (path of the dpgraph binary) is not set")
    g = path_graph(200)
    text = "# nodes 200\n" + "".join(f"{u} {u + 1}\n" for u in range(199))
    (tmp_path / "g.txt").write_text(text)
    run = lambda *a: subprocess.run([cli, "--seed", "3", *a], check=True, capture_output=True)
    run("edgerefine", "perturb", "--graph", str(tmp_path / "g.txt"), "--eps", "1", "--out", str(tmp_path / "n.txt"))
    run("edgerefine", "refine", "--noisy", str(tmp_path / "n.txt"), "--eps", "1", "--k", "0.5",
        "--true-edges", "199", "--out", str(tmp_path / "r.txt"))
    noisy = edgerefine.perturb(g, 1.0, seed=3)
    rel, _ = edgerefine.refine(noisy, 1.0, k=0.5, true_edges=199, seed=3)
    lines = (tmp_path / "r.txt").read_text().splitlines()[1:]
    cli_edges = sorted(tuple(map(int, l.split())) for l in lines)
    ei = rel.to_edge_index()
    ours = sorted((int(u), int(v)) for u, v in ei.T if u < v)
    assert ours == cli_edges
