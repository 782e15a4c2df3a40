"""The federation on Flower's deployment engine, every party a separate process on 127.0.0.1: a
SuperLink with TLS and SuperNode authentication, 3 enrolled SuperNodes (one organisation's
folder each) and one that is not enrolled (refused). The first run's server crashes after
checkpointing round 1; the second run resumes from the checkpoint, a SuperNode is killed in
round 2, and the run completes with the two others (min-clients 2). Bounded time; every
process is stopped at the end."""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

if os.environ.get("DPGRAPH_REQUIRE_FLOWER") == "1":
    import flwr  # noqa: F401
else:
    pytest.importorskip("flwr")

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "python" / "fed-app"
BIN = Path(sys.executable).parent
SEED = 11
TRAIN = {"rounds": 3, "local_steps": 4, "seed": SEED}
LIMIT_S = 900


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Processes:
    """Processes in their own sessions, each logged to a file, all stopped at the end."""

    def __init__(self, logs: Path, env: dict):
        self.logs, self.env, self.procs = logs, env, {}

    def start(self, name, *args):
        log = open(self.logs / f"{name}.log", "w")
        p = subprocess.Popen(
            [str(BIN / args[0]), *map(str, args[1:])],
            stdout=log, stderr=subprocess.STDOUT, env=self.env, start_new_session=True,
        )
        self.procs[name] = (p, log)
        return p

    def kill(self, name):
        p, _ = self.procs[name]
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()  # reap at once: an unreaped SuperNode keeps its children retrying

    def log(self, name):
        return (self.logs / f"{name}.log").read_text(errors="replace")

    def stop_all(self):
        for p, _ in self.procs.values():
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        deadline = time.time() + 15
        for p, log in self.procs.values():
            try:
                p.wait(timeout=max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
            log.close()
        # Children started by the SuperLink and SuperNodes live in their process groups.
        for p, _ in self.procs.values():
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def flwr(env, *args, check=True):
    out = subprocess.run([str(BIN / "flwr"), *map(str, args)], env=env, capture_output=True, text=True, timeout=120)
    if check and out.returncode != 0:
        raise AssertionError(f"flwr {' '.join(map(str, args))}: {out.stdout}\n{out.stderr}")
    return out


def run_status(env, run_id):
    out = flwr(env, "ls", "dpgraph-tls", "--run-id", run_id, "--format", "json")
    runs = json.loads(out.stdout)["runs"]
    return runs[0]["status"]


def wait_run(env, run_id, limit_s):
    deadline = time.time() + limit_s
    while time.time() < deadline:
        status = run_status(env, run_id)
        if status.startswith("finished"):
            return status
        time.sleep(2)
    raise TimeoutError(f"run {run_id} did not finish within {limit_s} s")


def submit(env, app, config, path):
    """Starts a run with `config` (written as a TOML file, the form `--run-config` takes for
    values with spaces and quotes)."""
    path.write_text("".join(f"{k} = {json.dumps(v)}\n" for k, v in config.items()))
    out = flwr(env, "run", app, "dpgraph-tls", "--run-config", path, "--format", "json")
    res = json.loads(out.stdout)
    assert "run-id" in res, (path.read_text(), out.stdout, out.stderr)
    return str(res["run-id"])


@pytest.fixture
def bounded():
    def expire(*_):
        raise TimeoutError(f"the deployment test ran past {LIMIT_S} s")

    old = signal.signal(signal.SIGALRM, expire)
    signal.alarm(LIMIT_S)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def test_deployment_tls_auth_kill_and_resume(tmp_path, bounded):
    cli = os.environ.get("DPGRAPH_CLI")
    if not cli:
        pytest.skip("DPGRAPH_CLI (path of the dpgraph binary) is not set")
    orgs = tmp_path / "orgs"
    part = subprocess.run(
        [cli, "--seed", str(SEED), "fed", "partition", "--dataset", "cora", "--clients", "3", "--out", orgs],
        capture_output=True, text=True,
    )
    # Cora is embedded: the CLI installs it on first use, so a failure here is a failure.
    assert part.returncode == 0, part.stderr
    certs, home, logs = tmp_path / "certs", tmp_path / "flwr-home", tmp_path / "logs"
    home.mkdir()
    logs.mkdir()
    subprocess.run([sys.executable, APP / "make_certs.py", certs, "--nodes", "4"], check=True, capture_output=True)
    app = tmp_path / "fed-app"
    shutil.copytree(APP, app, ignore=shutil.ignore_patterns("__pycache__"))
    port = free_port()
    (home / "config.toml").write_text(
        f'[superlink]\ndefault = "dpgraph-tls"\n\n[superlink.dpgraph-tls]\n'
        f'address = "127.0.0.1:{port}"\nroot-certificates = "{certs / "ca.crt"}"\n'
    )
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "FLWR_HOME": str(home),
        "FLWR_TELEMETRY_ENABLED": "0",
        "FLWR_DISABLE_UPDATE_CHECK": "1",
    }
    procs = Processes(logs, env)
    timings = {}
    try:
        t = time.time()
        procs.start(
            "superlink", "flower-superlink",
            "--ssl-ca-certfile", certs / "ca.crt", "--ssl-certfile", certs / "server.pem",
            "--ssl-keyfile", certs / "server.key", "--enable-supernode-auth",
            "--disable-runtime-dependency-installation", "--host", "127.0.0.1", "--port", port,
            "--database", tmp_path / "superlink.db",
        )
        deadline = time.time() + 60
        while flwr(env, "supernode", "ls", "dpgraph-tls", check=False).returncode != 0:
            assert time.time() < deadline, procs.log("superlink")
            time.sleep(1)
        for i in range(3):
            flwr(env, "supernode", "register", certs / f"node-{i}.pub", "dpgraph-tls")
        timings["superlink_and_enrolment"] = time.time() - t
        for i in range(3):
            procs.start(
                f"supernode-{i}", "flower-supernode",
                "--superlink", f"127.0.0.1:{port}", "--root-certificates", certs / "ca.crt",
                "--auth-supernode-private-key", certs / f"node-{i}",
                "--node-config", f'org-dir="{orgs / f"org-{i}"}" state-dir="{tmp_path / f"state-{i}"}"',
                "--port", free_port(),
            )
            (tmp_path / f"state-{i}").mkdir()
        # Node 3's key was never registered: the SuperLink refuses it.
        rogue = procs.start(
            "supernode-rogue", "flower-supernode",
            "--superlink", f"127.0.0.1:{port}", "--root-certificates", certs / "ca.crt",
            "--auth-supernode-private-key", certs / "node-3",
            "--node-config", f'org-dir="{orgs / "org-0"}"', "--port", free_port(),
        )
        assert rogue.wait(timeout=120) != 0
        assert "Failed to activate SuperNode" in procs.log("supernode-rogue"), procs.log("supernode-rogue")

        ckpt, report = tmp_path / "server.ckpt", tmp_path / "report.json"
        config = {
            "num-clients": 3,
            "min-clients": 2,
            "train": json.dumps(TRAIN),
            "run-name": "deploy",
            "checkpoint": str(ckpt),
            "report": str(report),
            "round-timeout": 25.0,
            "join-timeout": 120.0,
        }
        # Run 1: the server crashes right after checkpointing round 1.
        t = time.time()
        run1 = submit(env, app, {**config, "crash-after": 1}, tmp_path / "run1.toml")
        status1 = wait_run(env, run1, 400)
        timings["run1_rounds_0_1"] = time.time() - t
        assert status1 == "finished:failed", status1
        assert ckpt.exists() and not report.exists()
        # Run 2: resumes at round 2; SuperNode 2 is killed during round 2.
        t = time.time()
        run2 = submit(env, app, config, tmp_path / "run2.toml")
        time.sleep(4)
        procs.kill("supernode-2")
        status2 = wait_run(env, run2, 500)
        timings["run2_rounds_2_3_final"] = time.time() - t
        assert status2 == "finished:completed", (status2, flwr(env, "log", run2, "dpgraph-tls", "--show", check=False).stdout)
        r = json.loads(report.read_text())
        assert r["flower"]["resumed"] is True
        assert [x["round"] for x in r["flower"]["rounds"]] == [2, 3]
        assert [x["absent"] for x in r["flower"]["rounds"]] == [[2], [2]]
        assert r["min_clients"] == 2 and r["missing_finals"] == [2]
        assert "NOT covered" in r["not_covered"], r["not_covered"]
        assert r["f1_per_client"][0] is not None and r["f1_per_client"][1] is not None
        # Clients 0 and 1 released in all 4 exchanges (0 and 1 in run 1, 2 and 3 in run 2).
        assert [r["privacy"][i]["max_releases"] for i in (0, 1)] == [4, 4]
        assert r["bytes_up"] == r["flower"]["bytes"]["up_accepted"] + sum(
            x["up"] for x in r["per_round"] if x["round"] < 2
        )
        print("\nFLOWER-DEPLOY", json.dumps({"timings": timings, "rounds": r["flower"]["rounds"],
                                             "bytes_per_round": r["bytes_per_round"], "f1": r["f1_per_client"]}))
    finally:
        procs.stop_all()
    for name, (p, _) in procs.procs.items():
        assert p.poll() is not None, f"{name} still running"


def test_the_run_configs_poll_interval_is_checked():
    import dpgraph
    from dpgraph.fed.flower import Settings

    assert Settings.from_run_config({"num-clients": 2}).poll_interval == 0.1
    assert Settings.from_run_config({"num-clients": 2, "poll-interval": 0.5}).poll_interval == 0.5
    for bad in (0.0, -1.0, float("nan"), 61.0):
        with pytest.raises(dpgraph.InvalidParameter, match="poll-interval"):
            Settings.from_run_config({"num-clients": 2, "poll-interval": bad})
