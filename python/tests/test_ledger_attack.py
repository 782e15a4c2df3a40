"""The privacy ledger, homomorphism counts and the re-identification attack."""

import math

import numpy as np
import pytest

import dpgraph
from dpgraph import accounting, homdp


def test_ledger_composes_as_dp_core_and_refuses_without_recording():
    ledger = accounting.PrivacyLedger(1.0, 1e-6)
    assert ledger.total == (0.0, 0.0)
    assert ledger.record("degrees", eps=0.5, params={"scale": 2.0}) == (0.5, 0.0)
    eps, delta = ledger.record("embedding", rho=0.001)
    # Pure entries add; zCDP goes through one RDP curve converted at the budget's δ (CKS20).
    rdp = accounting.RdpAccountant()
    rdp.compose_zcdp(0.001)
    eps_rdp = rdp.epsilon(1e-6)[0]
    assert delta == 1e-6
    assert 0.5 + eps_rdp <= eps <= math.nextafter(0.5 + eps_rdp, math.inf)
    with pytest.raises(accounting.BudgetExceeded, match="eps"):
        ledger.record("edge count", eps=0.6)
    assert len(ledger) == 2 and ledger.total == (eps, delta)
    entries = ledger.entries()
    assert [e["label"] for e in entries] == ["degrees", "embedding"]
    assert entries[0] == {"label": "degrees", "measure": "pure", "eps": 0.5, "params": {"scale": 2.0}}
    assert entries[1]["measure"] == "zcdp" and entries[1]["rho"] == 0.001
    # The exception is one of the package's.
    assert issubclass(accounting.BudgetExceeded, dpgraph.DpgraphError)


def test_ledger_delta_budget_and_tcdp():
    ledger = accounting.PrivacyLedger(2.0, 1e-5)
    ledger.record("a", eps=0.1, delta=6e-6)
    with pytest.raises(dpgraph.BudgetExceeded, match="delta"):
        ledger.record("b", eps=0.1, delta=6e-6)
    eps, _ = ledger.record("c", rho=0.01, omega=50.0)
    assert 0.1 < eps <= 2.0
    assert ledger.entries()[1] == {"label": "c", "measure": "tcdp", "rho": 0.01, "omega": 50.0, "params": {}}


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"eps": -1.0},
        {"eps": float("nan")},
        {"rho": 0.1, "eps": 1.0},
        {"omega": 3.0},
        {"eps": 1.0, "delta": 1.5},
    ],
)
def test_ledger_bad_guarantees_are_invalid_parameters(kwargs):
    ledger = accounting.PrivacyLedger(1.0, 1e-6)
    with pytest.raises(dpgraph.InvalidParameter):
        ledger.record("x", **kwargs)
    assert len(ledger) == 0


@pytest.mark.parametrize("eps, delta", [(-0.5, 1e-6), (1.0, 1.0), (float("nan"), 1e-6)])
def test_ledger_bad_budget(eps, delta):
    with pytest.raises(dpgraph.InvalidParameter):
        accounting.PrivacyLedger(eps, delta)


def complete(n):
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    return dpgraph.Graph(np.array(pairs, dtype=np.int64).T, num_nodes=n)


def test_hom_counts_match_closed_forms_and_stay_exact():
    k4 = complete(4)
    edge = homdp.Pattern(2, [(0, 1)])
    wedge = homdp.Pattern(3, [(0, 1), (1, 2)])
    triangle = homdp.Pattern(3, [(0, 1), (1, 2), (0, 2)])
    dot = homdp.Pattern(1, [])
    # hom(edge) = 2m; hom(wedge) = Σ d²; hom(triangle) = 6 · triangles; hom(point) = n.
    assert homdp.hom_counts([k4], [edge, wedge, triangle, dot]) == [[12, 36, 24, 4]]
    # 20 isolated points into K_60: 60^20 > 2^64, still exact.
    points = homdp.Pattern(20, [])
    assert homdp.hom_counts([complete(60)], [points]) == [[60**20]]
    d = homdp.densities([k4], [edge, triangle])
    assert np.allclose(d, [[12 / 16, 24 / 64]])


def test_reidentification_worked_example_and_errors():
    clean = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    noisy = np.array([[0.1, 0.0], [0.0, 0.9], [0.0, 0.9], [0.9, 0.1]])
    # As the Rust doc example: graphs 0 and 2 at top-1, graph 3 ties with its duplicate 1.
    assert homdp.reidentification(clean, noisy, ks=[1, 2, 4]) == [0.5, 0.75, 1.0]
    assert homdp.reidentification_ranks(clean, noisy).tolist() == [0, 2, 0, 1]
    # A Fortran-ordered view gives the same (copied, not misread).
    assert homdp.reidentification(np.asfortranarray(clean), noisy, ks=[1]) == [0.5]
    with pytest.raises(dpgraph.InvalidParameter):
        homdp.reidentification(clean, noisy[:3])
    with pytest.raises(dpgraph.InvalidParameter):
        homdp.reidentification(clean, noisy, ks=[0])
    bad = noisy.copy()
    bad[1, 1] = np.nan
    with pytest.raises(dpgraph.InvalidParameter):
        homdp.reidentification(clean, bad)
    with pytest.raises(TypeError):
        homdp.reidentification(clean.astype(np.float32), noisy)


def test_private_embedding_resists_the_attack_better_than_clean():
    rng = np.random.default_rng(4)
    graphs = []
    for _ in range(60):
        n = int(rng.integers(8, 20))
        ei = rng.integers(0, n, size=(2, 2 * n))
        ei = ei[:, ei[0] != ei[1]]
        graphs.append(dpgraph.Graph(ei, num_nodes=n))
    patterns = homdp.sample_forests(10, seed=2)
    clean = homdp.densities(graphs, patterns)
    private, g = homdp.embed(graphs, patterns, rho=0.05, seed=9)
    top1_clean = homdp.reidentification(clean, clean, ks=[1])[0]
    top1_private = homdp.reidentification(clean, private, ks=[1])[0]
    assert top1_clean > 0.9
    assert top1_private < top1_clean
    assert g["eps"] > 0
