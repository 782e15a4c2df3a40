"""Training epochs of our GNNs against PyTorch Geometric's, side by side in one run, on the same
data: GCN, GAT and GIN on Cora and GCN on a random graph of 100,000 nodes and 1,000,000 edges
(the `epoch` benchmark's configurations), and GCN and GIN on a dense release: Cora's nodes with a
symmetric randomized-response release of its edges at epsilon = 1 (27 % of all pairs), where our
dense adjacency product (`gnn::Aggregation::Dense`, chosen automatically) runs against PyG's
dense layers (`DenseGCNConv`, `DenseGINConv` on the n x n adjacency) and our sparse product
against PyG's sparse layers.

    cargo build --release -p gnn --example epoch_time
    python -m venv /tmp/pyg && /tmp/pyg/bin/pip install torch torch_geometric numpy
    DPGRAPH_DATA=... /tmp/pyg/bin/python benches/python/pyg_epoch.py \\
        --ours target/release/examples/epoch_time [--reps 3] [--out DIR]

torch and PyG live in their own environment (as PyG's examples install them); the dpgraph
package is not needed. `epoch_time dump` writes the graphs (Cora from DPGRAPH_DATA, or a stand-in
of its shape) and both sides train on them: full batch, training nodes `i % 5 < 3`, Adam (lr
0.005, weight decay 1e-5), negative log-likelihood of log-softmax, dropout on as in training.
Each repetition times our epochs (a fresh `epoch_time time` process: 3 warm-up epochs, then the
median of the timed ones) and then PyG's (the same), both on every core; the table gives the
median over repetitions and the ratio PyG / ours. Prints a Markdown table and one JSON object;
with --out, writes both there (pyg_epoch.json, pyg_epoch.md).
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
import torch_geometric
from torch_geometric.nn import DenseGCNConv, DenseGINConv, GATConv, GCNConv, GINConv

# (label, model, graph, timed epochs, our adjacency product, PyG's layers)
CONFIGS = [
    ("Cora GCN", "gcn", "cora", 50, "auto", "sparse"),
    ("Cora GAT", "gat", "cora", 30, "auto", "sparse"),
    ("Cora GIN", "gin", "cora", 50, "auto", "sparse"),
    ("100k nodes / 1M edges GCN", "gcn", "big", 10, "auto", "sparse"),
    ("Cora SymRR eps=1 GCN, dense (ours) vs DenseGCNConv", "gcn", "cora-symrr", 20, "dense", "dense"),
    ("Cora SymRR eps=1 GCN, sparse (ours) vs GCNConv", "gcn", "cora-symrr", 10, "sparse", "sparse"),
    ("Cora SymRR eps=1 GIN, dense (ours) vs DenseGINConv", "gin", "cora-symrr", 20, "dense", "dense"),
    ("Cora SymRR eps=1 GIN, sparse (ours) vs GINConv", "gin", "cora-symrr", 5, "sparse", "sparse"),
]
GRAPHS = ("cora", "big", "cora-symrr")
WARMUP = 3


class Gcn(torch.nn.Module):
    def __init__(self, d, c):
        super().__init__()
        self.c1, self.c2 = GCNConv(d, 16, cached=True), GCNConv(16, c, cached=True)

    def forward(self, x, ei):
        x = F.dropout(x, 0.6, self.training)
        x = F.dropout(F.relu(self.c1(x, ei)), 0.6, self.training)
        return self.c2(x, ei)


class Gat(torch.nn.Module):
    def __init__(self, d, c):
        super().__init__()
        self.c1 = GATConv(d, 16, heads=8, dropout=0.6)
        self.c2 = GATConv(16 * 8, c, heads=1, concat=False, dropout=0.6)

    def forward(self, x, ei):
        x = F.dropout(x, 0.6, self.training)
        x = F.dropout(F.elu(self.c1(x, ei)), 0.6, self.training)
        return self.c2(x, ei)


def mlp(a, b, c):
    return torch.nn.Sequential(torch.nn.Linear(a, b), torch.nn.ReLU(), torch.nn.Linear(b, c))


class Gin(torch.nn.Module):
    def __init__(self, d, c):
        super().__init__()
        self.c1 = GINConv(mlp(d, 32, 32), train_eps=True)
        self.c2 = GINConv(mlp(32, 32, c), train_eps=True)

    def forward(self, x, ei):
        x = F.dropout(F.relu(self.c1(x, ei)), 0.5, self.training)
        return self.c2(x, ei)


class DenseGcn(torch.nn.Module):
    """Gcn with PyG's dense layer on the n x n adjacency (self-loops and the symmetric
    normalisation computed by the layer, as GCNConv does on the edges)."""

    def __init__(self, d, c):
        super().__init__()
        self.c1, self.c2 = DenseGCNConv(d, 16), DenseGCNConv(16, c)

    def forward(self, x, adj):
        x = F.dropout(x, 0.6, self.training)
        x = F.dropout(F.relu(self.c1(x, adj).squeeze(0)), 0.6, self.training)
        return self.c2(x, adj).squeeze(0)


class DenseGin(torch.nn.Module):
    """Gin with PyG's dense layer on the n x n adjacency."""

    def __init__(self, d, c):
        super().__init__()
        self.c1 = DenseGINConv(mlp(d, 32, 32), train_eps=True)
        self.c2 = DenseGINConv(mlp(32, 32, c), train_eps=True)

    def forward(self, x, adj):
        x = F.dropout(F.relu(self.c1(x, adj).squeeze(0)), 0.5, self.training)
        return self.c2(x, adj).squeeze(0)


MODELS = {"gcn": Gcn, "gat": Gat, "gin": Gin}
DENSE_MODELS = {"gcn": DenseGcn, "gin": DenseGin}


def load(d):
    meta = json.loads((d / "meta.json").read_text())
    n, dim = meta["n"], meta["d"]
    src = np.fromfile(d / "src.u32", dtype="<u4").astype(np.int64)
    dst = np.fromfile(d / "dst.u32", dtype="<u4").astype(np.int64)
    x = np.fromfile(d / "x.f32", dtype="<f4").reshape(n, dim)
    y = np.fromfile(d / "y.u32", dtype="<u4").astype(np.int64)
    if len(src) != meta["edges"] or len(y) != n:
        sys.exit(f"pyg_epoch: {d} does not match its meta.json")
    return {
        "x": torch.from_numpy(x.copy()),
        "edge_index": torch.from_numpy(np.stack([src, dst])),
        "y": torch.from_numpy(y),
        "train": torch.from_numpy(np.nonzero(np.arange(n) % 5 < 3)[0]),
        "classes": meta["classes"],
    }


def dense_adjacency(data):
    n = data["x"].shape[0]
    adj = torch.zeros(n, n)
    src, dst = data["edge_index"]
    adj[dst, src] = 1.0
    return adj


def pyg_epoch_ms(data, model_name, epochs, layers):
    torch.manual_seed(0)
    models = DENSE_MODELS if layers == "dense" else MODELS
    model = models[model_name](data["x"].shape[1], data["classes"])
    opt = torch.optim.Adam(model.parameters(), lr=0.005, weight_decay=1e-5)
    model.train()
    x, ei, y, train = data["x"], data["edge_index"], data["y"], data["train"]
    if layers == "dense":
        ei = dense_adjacency(data)

    def step():
        opt.zero_grad()
        out = F.log_softmax(model(x, ei), dim=1)
        loss = F.nll_loss(out[train], y[train])
        loss.backward()
        opt.step()

    for _ in range(WARMUP):
        step()
    times = []
    for _ in range(epochs):
        t = time.perf_counter()
        step()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def ours_epoch_ms(binary, model_name, graph, epochs, aggregation, env):
    out = subprocess.run([binary, "time", model_name, graph, str(epochs), aggregation], check=True,
                         capture_output=True, text=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])["median_ms"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ours", required=True, help="the built epoch_time example")
    ap.add_argument("--reps", type=int, default=3, help="interleaved repetitions (default 3)")
    ap.add_argument("--only", choices=GRAPHS, help="run one graph's configurations")
    ap.add_argument("--out", type=Path, help="folder for pyg_epoch.json and pyg_epoch.md")
    a = ap.parse_args()
    if a.reps < 1:
        ap.error("--reps must be at least 1")
    threads = os.cpu_count() or 1
    torch.set_num_threads(threads)
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([a.ours, "dump", tmp], check=True)
        graphs = {g: load(Path(tmp) / g) for g in GRAPHS if not a.only or g == a.only}
        rows = []
        for label, model, graph, epochs, aggregation, layers in CONFIGS:
            if a.only and graph != a.only:
                continue
            ours, pyg = [], []
            for _ in range(a.reps):
                ours.append(ours_epoch_ms(a.ours, model, graph, epochs, aggregation, env))
                pyg.append(pyg_epoch_ms(graphs[graph], model, epochs, layers))
            o, p = statistics.median(ours), statistics.median(pyg)
            rows.append({"config": label, "model": model, "graph": graph, "epochs": epochs,
                         "ours_aggregation": aggregation, "pyg_layers": layers,
                         "ours_ms": o, "pyg_ms": p, "ratio": p / o, "ours_reps_ms": ours,
                         "pyg_reps_ms": pyg})
            print(f"{label}: ours {o:.2f} ms, PyG {p:.2f} ms, {p / o:.1f}x", file=sys.stderr)
    report = {
        "torch": torch.__version__, "torch_geometric": torch_geometric.__version__,
        "threads": threads, "reps": a.reps, "machine": platform.machine(),
        "cora": "DPGRAPH_DATA" if os.environ.get("DPGRAPH_DATA") else "stand-in", "rows": rows,
    }
    md = ["| configuration | ours (ms/epoch) | PyG (ms/epoch) | PyG / ours |", "|---|---:|---:|---:|"]
    md += [f"| {r['config']} | {r['ours_ms']:.2f} | {r['pyg_ms']:.2f} | {r['ratio']:.1f}× |" for r in rows]
    md.append("")
    md.append(f"torch {torch.__version__}, torch_geometric {torch_geometric.__version__}, "
              f"{threads} threads, medians of {a.reps} interleaved repetitions.")
    text = "\n".join(md)
    print(text)
    print(json.dumps(report))
    if a.out:
        a.out.mkdir(parents=True, exist_ok=True)
        for name, body in (("pyg_epoch.json", json.dumps(report, indent=2)), ("pyg_epoch.md", text)):
            tmp = a.out / (name + ".tmp")
            tmp.write_text(body + "\n")
            tmp.replace(a.out / name)


if __name__ == "__main__":
    main()
