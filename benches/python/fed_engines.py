"""Time per round of CE-FedGNN on Cora in three engines, same seed and parameters: the in-process
`dpgraph fed simulate`, Flower's simulation engine and Flower's deployment engine (a SuperLink
and one SuperNode per client on this machine, TLS and node authentication on), with the bytes
per round and the mean F1 of each.

    python benches/python/fed_engines.py --cli target/release/dpgraph [--clients 5] [--rounds 5]

Needs `dpgraph[flower]` in the running interpreter's environment and Cora installed
(DPGRAPH_DATA). Prints one JSON object and a Markdown table.
"""

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "python" / "fed-app"
BIN = Path(sys.executable).parent


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def in_process(a):
    out = subprocess.run(
        [a.cli, "--seed", str(a.seed), "--json", "fed", "simulate", "--dataset", "cora",
         "--clients", str(a.clients), "--rounds", str(a.rounds), "--local-steps", str(a.local_steps)],
        check=True, capture_output=True, text=True,
    )
    r = json.loads(out.stdout)
    return {"seconds_per_round": r["seconds"] / (a.rounds + 1), "bytes_per_round": r["bytes_per_round"],
            "f1_mean": r["f1_mean"], "seconds": r["seconds"]}


def summary(report, seconds):
    rounds = [x["seconds"] for x in report["flower"]["rounds"]]
    return {"seconds_per_round": sum(rounds) / len(rounds), "round_seconds": rounds,
            "bytes_per_round": report["bytes_per_round"], "f1_mean": report["f1_mean"], "seconds": seconds}


def simulation(a, orgs, work):
    from flwr.simulation import run_simulation

    from dpgraph.fed.flower import client_app, server_app

    rc = {"num-clients": a.clients, "train": json.dumps(a.train), "seeded-noise": True,
          "orgs-root": str(orgs), "run-name": "bench-sim", "report": str(work / "sim.json")}
    t = time.time()
    run_simulation(server_app=server_app(rc), client_app=client_app(rc), num_supernodes=a.clients,
                   backend_config={"init_args": {"num_cpus": 2}, "client_resources": {"num_cpus": 1}})
    return summary(json.loads((work / "sim.json").read_text()), time.time() - t)


def deployment(a, orgs, work):
    certs, home = work / "certs", work / "home"
    home.mkdir()
    subprocess.run([sys.executable, APP / "make_certs.py", certs, "--nodes", str(a.clients)], check=True,
                   capture_output=True)
    port = free_port()
    (home / "config.toml").write_text(
        f'[superlink]\ndefault = "bench"\n\n[superlink.bench]\naddress = "127.0.0.1:{port}"\n'
        f'root-certificates = "{certs / "ca.crt"}"\n')
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "FLWR_HOME": str(home),
           "FLWR_TELEMETRY_ENABLED": "0", "FLWR_DISABLE_UPDATE_CHECK": "1"}
    procs = []

    def start(*args):
        log = open(work / f"{len(procs)}.log", "w")
        procs.append(subprocess.Popen([str(BIN / args[0]), *map(str, args[1:])], stdout=log,
                                      stderr=subprocess.STDOUT, env=env, start_new_session=True))

    def flwr(*args):
        return subprocess.run([str(BIN / "flwr"), *map(str, args)], env=env, capture_output=True, text=True,
                              timeout=120)

    try:
        start("flower-superlink", "--ssl-ca-certfile", certs / "ca.crt", "--ssl-certfile", certs / "server.pem",
              "--ssl-keyfile", certs / "server.key", "--enable-supernode-auth",
              "--disable-runtime-dependency-installation", "--host", "127.0.0.1", "--port", port)
        while flwr("supernode", "ls", "bench").returncode != 0:
            time.sleep(1)
        for i in range(a.clients):
            flwr("supernode", "register", certs / f"node-{i}.pub", "bench")
            (work / f"state-{i}").mkdir()
            start("flower-supernode", "--superlink", f"127.0.0.1:{port}", "--root-certificates", certs / "ca.crt",
                  "--auth-supernode-private-key", certs / f"node-{i}", "--port", free_port(),
                  "--node-config", f'org-dir="{orgs / f"org-{i}"}" state-dir="{work / f"state-{i}"}"')
        cfg = {"num-clients": a.clients, "train": json.dumps(a.train), "seeded-noise": True,
               "run-name": "bench-deploy", "report": str(work / "deploy.json")}
        (work / "run.toml").write_text("".join(f"{k} = {json.dumps(v)}\n" for k, v in cfg.items()))
        t = time.time()
        res = json.loads(flwr("run", work / "app", "bench", "--run-config", work / "run.toml",
                              "--format", "json").stdout)
        run_id = str(res["run-id"])
        while True:
            runs = json.loads(flwr("ls", "bench", "--run-id", run_id, "--format", "json").stdout)["runs"]
            if runs[0]["status"].startswith("finished"):
                break
            time.sleep(2)
        assert runs[0]["status"] == "finished:completed", runs[0]
        return summary(json.loads((work / "deploy.json").read_text()), time.time() - t)
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cli", required=True, help="path of the dpgraph binary")
    p.add_argument("--clients", type=int, default=5)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--local-steps", type=int, default=32)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    a.train = {"rounds": a.rounds, "local_steps": a.local_steps, "seed": a.seed}
    work = Path(tempfile.mkdtemp(prefix="fed-engines-"))
    try:
        orgs = work / "orgs"
        subprocess.run([a.cli, "--seed", str(a.seed), "fed", "partition", "--dataset", "cora", "--clients",
                        str(a.clients), "--out", orgs], check=True, capture_output=True)
        shutil.copytree(APP, work / "app", ignore=shutil.ignore_patterns("__pycache__"))
        res = {"in_process": in_process(a), "simulation": simulation(a, orgs, work),
               "deployment": deployment(a, orgs, work)}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    import flwr

    print(json.dumps({"clients": a.clients, "rounds": a.rounds, "local_steps": a.local_steps, "seed": a.seed,
                      "flower": flwr.__version__ if hasattr(flwr, "__version__") else "1.42.0", **res}, indent=1))
    base = res["in_process"]["seconds_per_round"]
    print("\n| engine | s / round | × in-process | bytes / round | F1 (mean) |\n|---|---|---|---|---|")
    for k, v in res.items():
        print(f"| {k} | {v['seconds_per_round']:.2f} | {v['seconds_per_round'] / base:.1f}× | "
              f"{v['bytes_per_round']:.0f} | {v['f1_mean']:.4f} |")


if __name__ == "__main__":
    main()
