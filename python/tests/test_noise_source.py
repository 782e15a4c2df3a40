"""The privacy boundary of the Python entry points: without ``seed`` two calls on the same input
release different noise and the returned information reproduces nothing; with ``seed`` the release
is reproducible (and therefore not private)."""

import json
import os
import subprocess

import numpy as np
import pytest

import dpgraph
from dpgraph import edgerefine, fed, homdp


def ring(n):
    src = np.arange(n, dtype=np.int64)
    return dpgraph.Graph(np.stack([src, (src + 1) % n]), num_nodes=n)


def edges(g):
    return g.to_edge_index().T.tolist()


def test_perturb_without_seed_is_fresh_and_with_seed_repeats():
    g = ring(60)
    a, b = edgerefine.perturb(g, 1.0), edgerefine.perturb(g, 1.0)
    assert edges(a) != edges(b)
    assert edges(edgerefine.perturb(g, 1.0, seed=2)) == edges(edgerefine.perturb(g, 1.0, seed=2))


def test_embed_without_seed_is_fresh_and_says_private():
    patterns = homdp.sample_forests(4, seed=1)
    graphs = [ring(6), ring(9)]
    x, info = homdp.embed(graphs, patterns, rho=0.5, degree_bound=4)
    y, _ = homdp.embed(graphs, patterns, rho=0.5, degree_bound=4)
    assert info["seed"] is None and info["private"] is True
    assert not np.array_equal(x, y)
    s, sinfo = homdp.embed(graphs, patterns, rho=0.5, degree_bound=4, seed=3)
    t, _ = homdp.embed(graphs, patterns, rho=0.5, degree_bound=4, seed=3)
    assert sinfo["private"] is False
    assert np.array_equal(s, t)


@pytest.fixture(scope="module")
def orgs(tmp_path_factory):
    exe = os.environ.get("DPGRAPH_CLI")
    if not exe:
        pytest.skip("DPGRAPH_CLI (path of the dpgraph binary) is not set")
    root = tmp_path_factory.mktemp("orgs")
    out = subprocess.run(
        [exe, "--seed", "3", "fed", "partition", "--dataset", "cora", "--clients", "2", "--out", root],
        capture_output=True, text=True,
    )
    # Cora is embedded: the CLI installs it on first use, so a failure here is a failure.
    assert out.returncode == 0, out.stderr
    return root


def first_update(orgs, noise_seed):
    """Client 0's first release after the bootstrap (round 1), under `noise_seed`."""
    cfg = fed.train_config("citation", json.dumps({"rounds": 1, "local_steps": 1, "seed": 3}))
    clients = [fed.FedClient(orgs / f"org-{i}", "cefedgnn", cfg, noise_seed=noise_seed) for i in range(2)]
    server = fed.FedServer("cefedgnn", cfg, num_clients=2)
    for c in clients:
        server.register(c.announcement())
    server.start()
    updates = []
    while not server.is_final:
        for c in clients:
            kind, update = c.handle(server.frame(c.client))
            assert kind == "update"
            server.accept(c.client, update)
            if c.client == 0:
                updates.append(bytes(update))
        server.finish_round()
    return updates


def test_fed_client_without_noise_seed_releases_fresh_rows(orgs):
    a, b = first_update(orgs, None), first_update(orgs, None)
    assert a != b
    # The training seed (3) is no noise seed: seeding the noise with it gives other rows.
    assert first_update(orgs, 3) != a
    assert first_update(orgs, 3) == first_update(orgs, 3)


def test_graph_too_large_for_memory_is_an_exception_under_a_3gb_limit():
    """`Graph(edge_index, num_nodes=2**31)` would need ~34 GB: refused before allocating."""
    import sys
    import textwrap

    code = textwrap.dedent(
        """
        import numpy as np
        import dpgraph
        try:
            dpgraph.Graph(np.array([[0], [1]], dtype=np.int64), num_nodes=2**31)
        except dpgraph.DpgraphError as e:
            print("refused:", e)
        """
    )
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", RAYON_NUM_THREADS="2")
    out = subprocess.run(
        ["sh", "-c", 'ulimit -v 3145728 && exec "$0" -c "$1"', sys.executable, code],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("refused:") and "needs about" in out.stdout, out.stdout


def test_flower_client_app_noise_is_the_os_unless_seeded_noise_is_asked():
    """The Flower ClientApp's client gets no noise seed from the run config by default (the seed
    in the config is the training seed), and the seed only with ``seeded-noise = true``."""
    flower = pytest.importorskip("dpgraph.fed.flower")
    s = flower.Settings.from_run_config({"num-clients": 2, "train": json.dumps({"seed": 11})})
    assert s.seed() == 11
    assert flower.noise_seed(s) is None
    seeded = flower.Settings.from_run_config({"num-clients": 2, "train": json.dumps({"seed": 11}), "seeded-noise": True})
    assert flower.noise_seed(seeded) == 11
