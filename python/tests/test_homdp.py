"""dpgraph.homdp: densities and the private embedding with its guarantee."""

import numpy as np
import pytest

import dpgraph
from dpgraph import homdp


def path(n):
    src = np.arange(n - 1, dtype=np.int64)
    return dpgraph.Graph(np.stack([src, src + 1]))


def test_densities_match_closed_forms():
    k2 = homdp.Pattern(2, [(0, 1)])
    k2_k1 = homdp.Pattern(3, [(0, 1)])
    d = homdp.densities([path(5), path(4)], [k2, k2_k1])
    assert d.shape == (2, 2) and d.dtype == np.float64
    # t(K2, G) = 2e/n², and K2+K1 has the same density.
    assert d[0] == pytest.approx([8 / 25, 8 / 25])
    assert d[1] == pytest.approx([6 / 16, 6 / 16])


def test_embed_guarantee_is_the_papers_worked_value_and_seeded():
    patterns = [homdp.Pattern(2, [(0, 1)])] * 50
    graphs = [path(6), path(7)]
    x, g = homdp.embed(graphs, patterns, rho=0.01, delta=1e-6, seed=4)
    assert x.shape == (2, 50)
    # HOMDP.md: d = 50, ρ = 0.01, δ = 1e-6 gives ε = 1.0929242831 (the paper's "ε ≈ 1").
    assert g["eps"] == pytest.approx(1.0929242831, abs=1e-9)
    y, _ = homdp.embed(graphs, patterns, rho=0.01, delta=1e-6, seed=4)
    assert np.array_equal(x, y)
    z, _ = homdp.embed(graphs, patterns, rho=0.01, delta=1e-6)
    assert not np.array_equal(x, z), "no seed: OS randomness"


def test_bad_parameters_raise_the_documented_exceptions():
    p = [homdp.Pattern(2, [(0, 1)])]
    for rho in [0.0, -1.0, float("nan")]:
        with pytest.raises(dpgraph.InvalidParameter):
            homdp.embed([path(5)], p, rho=rho)
    with pytest.raises(dpgraph.InvalidParameter):
        homdp.embed([path(5)], p, rho=0.1, bound="made-up")
    with pytest.raises(dpgraph.DataError):
        homdp.Pattern(2, [(0, 0)])
    with pytest.raises(dpgraph.DataError):
        homdp.Pattern(2, [(0, 5)])


def test_same_patterns_and_embedding_as_the_cli(tmp_path):
    import json
    import os
    import subprocess

    cli = os.environ.get("DPGRAPH_CLI")
    if not cli:
        pytest.skip("DPGRAPH_CLI (path of the dpgraph binary) is not set")
    graphs = [path(n) for n in (5, 6, 7, 9)]
    sets = {"graphs": [{"n": g.num_nodes, "edges": [[u, u + 1] for u in range(g.num_nodes - 1)]} for g in graphs]}
    (tmp_path / "g.json").write_text(json.dumps(sets))
    out = subprocess.run(
        [cli, "--seed", "3", "--json", "homdp", "embed", "--graphs", str(tmp_path / "g.json"),
         "--rho", "0.5", "--delta", "1e-6", "--num-patterns", "6", "--max-degree", "2",
         "--out", str(tmp_path / "x.npy")],
        check=True, capture_output=True,
    )
    report = json.loads(out.stdout)
    patterns = homdp.sample_forests(6, seed=3)
    assert [{"n": p.num_nodes, "edges": [list(e) for e in p.edges()]} for p in patterns] == report["patterns"]
    x, g = homdp.embed(graphs, patterns, rho=0.5, delta=1e-6, degree_bound=2, seed=3)
    assert np.array_equal(x, np.load(tmp_path / "x.npy"))
    assert g["eps"] == report["eps"]


def test_private_degree_bound_is_estimated_composed_and_clips():
    patterns = [homdp.Pattern(3, [(0, 1), (1, 2)])] * 4
    star = dpgraph.Graph(np.array([[0] * 7, list(range(1, 8))], dtype=np.int64))
    graphs = [path(8)] * 40 + [star]
    x, g = homdp.embed(graphs, patterns, rho=0.01, seed=3, private_degree_rho=0.5)
    _, plain = homdp.embed(graphs, patterns, rho=0.01, seed=3)
    est = g["private_degree"]
    assert plain["private_degree"] is None and plain["degree_rho"] == 0.0
    assert 1 <= est["bound"] <= 7 and g["degree_rho"] == pytest.approx(0.5)
    assert g["eps"] > plain["eps"]
    assert (40 in g["clipped"]) == (est["bound"] < 7)
    assert x.shape == (41, 4)
    with pytest.raises(dpgraph.InvalidParameter):
        homdp.embed(graphs, patterns, rho=0.01, degree_bound=3, private_degree_rho=0.5)
    with pytest.raises(dpgraph.InvalidParameter):
        homdp.embed(graphs, patterns, rho=0.01, private_degree_rho=0.5, degree_quantile=0.0)
