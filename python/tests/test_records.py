"""The CLI and Python build their records from the same Rust values (`edgerefine::ops`,
`homdp::ops`, `cefedgnn::ops`): for one call per paper, `dpgraph --json` and the Python dict
have the same keys and the same values.

Two documented differences: the CLI adds `out` (the file it wrote; Python returns the object),
and wall-clock times differ between any two runs, so for those only the keys are compared.
"""

import json
import os
import subprocess

import numpy as np
import pytest

import dpgraph
from dpgraph import edgerefine, fed, homdp

CLI_ONLY = {"out"}
WALL_CLOCK = {"refine_s", "embed_s", "seconds", "timings"}


def cli_json(*args):
    cli = os.environ.get("DPGRAPH_CLI")
    if not cli:
        pytest.skip("DPGRAPH_CLI (path of the dpgraph binary) is not set")
    out = subprocess.run([cli, "--json", *args], check=True, capture_output=True)
    return json.loads(out.stdout)


def assert_same_record(cli, py):
    assert set(cli) - CLI_ONLY == set(py), (set(cli) ^ set(py)) - CLI_ONLY
    for key, value in py.items():
        if key in WALL_CLOCK:
            if isinstance(value, dict):
                assert set(value) == set(cli[key]), key
            continue
        # JSON has no tuples; a float prints and parses back to the same double.
        assert cli[key] == json.loads(json.dumps(value)), key


def path_graph(n):
    src = np.arange(n - 1, dtype=np.int64)
    return dpgraph.Graph(np.stack([src, src + 1]), num_nodes=n)


def test_edgerefine_refine_record_is_the_clis(tmp_path):
    n = 300
    text = f"# nodes {n}\n" + "".join(f"{u} {u + 1}\n" for u in range(n - 1))
    (tmp_path / "g.txt").write_text(text)
    cli_json("--seed", "3", "edgerefine", "perturb", "--graph", str(tmp_path / "g.txt"),
             "--eps", "2", "--out", str(tmp_path / "n.txt"))
    # Without --true-edges: the estimated edge count and its standard error are in both.
    cli = cli_json("--seed", "3", "edgerefine", "refine", "--noisy", str(tmp_path / "n.txt"),
                   "--eps", "2", "--k", "0.5", "--bins", "8", "--out", str(tmp_path / "r.txt"))
    noisy = edgerefine.perturb(path_graph(n), 2.0, seed=3)
    rel, py = edgerefine.refine(noisy, 2.0, k=0.5, bins=8, seed=3)
    assert py["edge_count_source"] == "estimated" and py["edge_estimate"]["std_error"] > 0
    assert py["released_edges"] == rel.num_edges == py["k_target"]
    assert_same_record(cli, py)
    # And with the count supplied, under the artifact's calibration.
    cli = cli_json("--seed", "3", "edgerefine", "refine", "--noisy", str(tmp_path / "n.txt"),
                   "--eps", "2", "--k", "0.5", "--true-edges", str(n - 1),
                   "--calibration", "jaccard-isotonic", "--out", str(tmp_path / "c.txt"))
    _, py = edgerefine.refine_calibrated(noisy, 2.0, "jaccard-isotonic", k=0.5,
                                         true_edges=n - 1, seed=3)
    assert py["edge_count_source"] == "supplied" and py["edge_estimate"] is None
    assert_same_record(cli, py)


def test_homdp_embed_record_is_the_clis(tmp_path):
    sizes = (5, 6, 7, 9, 12)
    graphs = [path_graph(n) for n in sizes]
    sets = {"graphs": [{"n": n, "edges": [[u, u + 1] for u in range(n - 1)]} for n in sizes]}
    (tmp_path / "g.json").write_text(json.dumps(sets))
    cli = cli_json("--seed", "4", "homdp", "embed", "--graphs", str(tmp_path / "g.json"),
                   "--rho", "0.5", "--delta", "1e-5", "--num-patterns", "6",
                   "--max-degree", "2", "--num-nodes-column", "--out", str(tmp_path / "x.npy"))
    patterns = homdp.sample_forests(6, seed=4)
    x, py = homdp.embed(graphs, patterns, 0.5, delta=1e-5, degree_bound=2, seed=4,
                        num_nodes_column=True)
    assert np.array_equal(x, np.load(tmp_path / "x.npy"))
    assert py["columns"] == 7 and py["noise"]["source"] == "seeded" and not py["private"]
    assert_same_record(cli, py)


def test_fed_simulate_record_is_the_clis():
    # A small generated AML task, so the test needs no dataset: two rounds of CE-FedGNN.
    args = dict(rounds=1, local_steps=2, sigma0=1.0, seed=7)
    cli = cli_json("--seed", "7", "fed", "simulate", "--dataset", "aml-generated",
                   "--generate-accounts", "300", "--banks", "3", "--rounds", "1",
                   "--local-steps", "2")
    py = fed.simulate("aml-generated", generate_accounts=300, banks=3, **args)
    assert py["rounds"] == 1 and py["eps"] > 0
    assert_same_record(cli, py)
