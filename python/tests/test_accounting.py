"""dpgraph.accounting: the same numbers as the Rust API (through the CLI) to the last bit."""

import json
import os
import subprocess

import pytest

import dpgraph
from dpgraph import accounting


def cli_json(*args):
    cli = os.environ.get("DPGRAPH_CLI")
    if not cli:
        pytest.skip("DPGRAPH_CLI (path of the dpgraph binary) is not set")
    out = subprocess.run([cli, "account", *args, "--json"], check=True, capture_output=True)
    return json.loads(out.stdout)


def test_zcdp_and_tcdp_equal_the_cli_bit_for_bit():
    z = cli_json("zcdp", "--rho", "0.5", "--delta", "1e-6")
    assert accounting.zcdp_to_approx(0.5, 1e-6) == z["eps"]
    t = cli_json("tcdp", "--rho", "0.01", "--omega", "1.5", "--delta", "1e-5")
    eps, order = accounting.tcdp_to_approx(0.01, 1.5, 1e-5)
    assert (eps, order) == (t["eps"], t["order"])


def test_rdp_accountant_equals_the_cli_bit_for_bit():
    r = cli_json("rdp-gaussian", "--noise-multiplier", "1.1", "--steps", "1000", "--delta", "1e-5")
    acc = accounting.RdpAccountant()
    acc.compose_gaussian(1.1, 1000)
    eps, order = acc.epsilon(1e-5)
    assert (eps, order) == (r["eps"], r["order"])
    # Composition adds up: 1000 steps at once equal 10 batches of 100.
    acc2 = accounting.RdpAccountant()
    for _ in range(10):
        acc2.compose_gaussian(1.1, 100)
    assert acc2.epsilon(1e-5)[0] == pytest.approx(eps, rel=1e-12)
    delta, _ = acc.delta(eps)
    assert delta <= 1e-5 * (1 + 1e-9)


def test_accountant_refuses_bad_parameters():
    acc = accounting.RdpAccountant()
    with pytest.raises(dpgraph.InvalidParameter):
        acc.compose_gaussian(0.0, 1)
    with pytest.raises(dpgraph.InvalidParameter):
        acc.epsilon(1.5)
    with pytest.raises(dpgraph.InvalidParameter):
        accounting.RdpAccountant(orders=[0.5])
    with pytest.raises(dpgraph.InvalidParameter):
        acc.compose_zcdp(-1.0)
