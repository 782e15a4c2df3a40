"""One list of names per choice: the Python keywords accept exactly the names the CLI's flags
accept (both come from the Rust enums), and an unknown name is an InvalidParameter listing them."""

import json
import os
import subprocess

import numpy as np
import pytest

import dpgraph
from dpgraph import edgerefine, fed, homdp


def test_python_and_cli_list_the_same_choices():
    exe = os.environ.get("DPGRAPH_CLI")
    if not exe:
        pytest.skip("DPGRAPH_CLI (path of the dpgraph binary) is not set")
    out = subprocess.run([exe, "--json", "choices"], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == dpgraph.choices()


def test_every_listed_name_is_accepted_and_others_are_refused():
    c = dpgraph.choices()
    g = dpgraph.Graph(np.array([[0, 1, 2, 3], [1, 2, 3, 0]]), num_nodes=6)
    pats = homdp.sample_forests(2, seed=1)
    names = c["sensitivity bound"]["names"] + c["sensitivity bound"]["aliases"]["component-aware"]
    for bound in names:
        homdp.embed([g], pats, rho=1.0, degree_bound=2, bound=bound, seed=1)
    noisy = edgerefine.perturb(g, 2.0, seed=1)
    for tie in c["tie-break"]["names"]:
        edgerefine.refine(noisy, 2.0, true_edges=4, tie_break=tie, seed=1)
    assert list(edgerefine.CALIBRATIONS) == c["calibration"]["names"]
    # A ring with chords: enough pairs of both kinds for every fit (the beta fit needs ≥ 2
    # distinct scores per class; on the 6-node graph it is an InvalidParameter).
    src = list(range(60)) * 2
    dst = [(i + 1) % 60 for i in range(60)] + [(i + 7) % 60 for i in range(60)]
    ring = np.array([src, dst])
    big = edgerefine.perturb(dpgraph.Graph(ring, num_nodes=60), 2.0, seed=1)
    for cal in c["calibration"]["names"]:
        rel, info = edgerefine.refine_calibrated(big, 2.0, cal, k=0.5, true_edges=120, seed=1)
        assert info["calibration"] == cal
        assert rel.num_edges == info["k_real"] + info["k_fake"] == 60
    assert list(edgerefine.BASELINES) == c["baseline"]["names"]
    for m in c["baseline"]["names"]:
        edgerefine.baseline(g, m, 2.0, seed=1)
    for preset in c["preset"]["names"]:
        json.loads(fed.train_config(preset))
    for kind, call in [
        ("sensitivity bound", lambda s: homdp.embed([g], pats, rho=1.0, bound=s, seed=1)),
        ("tie-break", lambda s: edgerefine.refine(noisy, 2.0, true_edges=4, tie_break=s)),
        ("calibration", lambda s: edgerefine.refine_calibrated(noisy, 2.0, s, true_edges=4)),
        ("baseline", lambda s: edgerefine.baseline(g, s, 2.0, seed=1)),
        ("preset", lambda s: fed.train_config(s)),
    ]:
        with pytest.raises(dpgraph.InvalidParameter) as e:
            call("no-such-name")
        assert f"unknown {kind} `no-such-name`" in str(e.value)
        assert c[kind]["names"][0] in str(e.value)
