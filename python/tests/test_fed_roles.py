"""dpgraph.fed without an engine: the Rust client and server driven in one process (the module's
docstring example), their typed errors, and a client restarted from its state file."""

import json
import os
import subprocess

import pytest

import dpgraph
from dpgraph import fed

SEED = 3


@pytest.fixture(scope="module")
def orgs(tmp_path_factory):
    exe = os.environ.get("DPGRAPH_CLI")
    if not exe:
        pytest.skip("DPGRAPH_CLI (path of the dpgraph binary) is not set")
    root = tmp_path_factory.mktemp("orgs")
    out = subprocess.run(
        [exe, "--seed", str(SEED), "fed", "partition", "--dataset", "cora", "--clients", "3", "--out", root],
        capture_output=True, text=True,
    )
    # Cora is embedded: the CLI installs it on first use, so a failure here is a failure.
    assert out.returncode == 0, out.stderr
    return root


def config():
    return fed.train_config("citation", json.dumps({"rounds": 2, "local_steps": 2, "seed": SEED}))


def run(orgs, tmp_path, restart_after=None):
    cfg = config()
    tmp_path.mkdir(exist_ok=True)
    state = lambda i: tmp_path / f"client-{i}.state"
    clients = [fed.FedClient(orgs / f"org-{i}", "cefedgnn", cfg, state_path=state(i), noise_seed=SEED) for i in range(3)]
    server = fed.FedServer("cefedgnn", cfg, num_clients=3)
    for c in clients:
        assert server.register(c.announcement()) == c.client
    server.start()
    while not server.is_final:
        if server.round == restart_after:
            # Every client process restarts from its own state file.
            clients = [fed.FedClient(orgs / f"org-{i}", "cefedgnn", cfg, state_path=state(i), noise_seed=SEED) for i in range(3)]
        for c in clients:
            kind, update = c.handle(server.frame(c.client))
            assert kind == "update"
            server.accept(c.client, update)
        server.finish_round()
    for c in clients:
        kind, report = c.handle(server.frame(c.client))
        assert kind == "final"
        server.accept_final(c.client, report)
    return json.loads(server.report())


def test_in_process_run_and_restarted_clients_give_the_same_report(orgs, tmp_path):
    a = run(orgs, tmp_path / "a")
    b = run(orgs, tmp_path / "b", restart_after=2)
    assert a["f1_per_client"] == b["f1_per_client"] and all(f is not None for f in a["f1_per_client"])
    assert (a["bytes_up"], a["bytes_down"]) == (b["bytes_up"], b["bytes_down"])
    assert a["privacy"] == b["privacy"] and a["privacy"][0]["max_releases"] == 3
    assert a["seed"] == SEED and a["events"] == []
    # The report says what eps(p) leaves out, as `fed simulate --json` does.
    assert "Model parameters and gradients" in a["not_covered"] and "NOT covered" in a["not_covered"]


def test_typed_errors(orgs, tmp_path):
    with pytest.raises(dpgraph.InvalidParameter):
        fed.train_config("citation", json.dumps({"round": 3}))
    with pytest.raises(dpgraph.InvalidParameter):
        fed.train_config("no-such-preset")
    with pytest.raises(dpgraph.InvalidParameter):
        fed.FedServer("single-client", config(), num_clients=3)
    with pytest.raises(dpgraph.DataError):
        fed.FedClient(tmp_path / "missing", "cefedgnn", config())
    server = fed.FedServer("cefedgnn", config(), num_clients=3, min_clients=2)
    with pytest.raises(dpgraph.ProtocolError):
        server.register(b"not json")
    c = fed.FedClient(orgs / "org-0", "cefedgnn", config(), noise_seed=SEED)
    server.register(c.announcement())
    with pytest.raises(dpgraph.ProtocolError):
        server.start()  # clients 1 and 2 have not announced themselves
    for i in (1, 2):
        server.register(fed.FedClient(orgs / f"org-{i}", "cefedgnn", config(), noise_seed=SEED).announcement())
    server.start()
    with pytest.raises(dpgraph.ProtocolError):
        server.accept(0, b"\x00" * 64)
    kind, update = c.handle(server.frame(0))
    with pytest.raises(dpgraph.ProtocolError, match="non-finite"):
        server.accept(0, fed.apply_fault(update, "nonfinite"))
    with pytest.raises(dpgraph.ProtocolError):
        server.accept(0, fed.apply_fault(update, "truncated"))
    with pytest.raises(dpgraph.InvalidParameter):
        fed.apply_fault(update, "gremlins")
    server.accept(0, update)
    with pytest.raises(dpgraph.ProtocolError, match="1 updates in, 2 needed"):
        server.finish_round()
    with pytest.raises(dpgraph.ProtocolError):
        c.handle(b"garbage")
