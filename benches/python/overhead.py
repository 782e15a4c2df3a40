#!/usr/bin/env python3
"""The Python package's overhead against the Rust library on the same work, side by side in one
run (medians): `homdp.densities` on 1,000 graphs × 50 random forests, and `edgerefine.refine` at
n = 10,000, ε = 1. Needs the package installed (`maturin develop --release`) and the two timing
examples built (`cargo build --release -p homdp --example density_timing -p edgerefine
--example refine_file`).

    python benches/python/overhead.py [--target target/release/examples] [--reps 5]
"""

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

import dpgraph
from dpgraph import edgerefine, homdp


def median_time(f, reps):
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--target", default="target/release/examples")
    p.add_argument("--reps", type=int, default=5)
    a = p.parse_args()
    ex = Path(a.target)
    rng = np.random.default_rng(0)
    tmp = Path(tempfile.mkdtemp())

    # 1,000 random graphs (20-40 nodes, ~2.5 edges per node) and 50 forests.
    graphs, entries = [], []
    for _ in range(1000):
        n = int(rng.integers(20, 41))
        pairs = {tuple(sorted(map(int, rng.choice(n, 2, replace=False)))) for _ in range(int(2.5 * n))}
        ei = np.array(sorted(pairs), dtype=np.int64).T
        graphs.append(dpgraph.Graph(ei, num_nodes=n))
        entries.append({"n": n, "edges": [list(e) for e in sorted(pairs)]})
    patterns = homdp.sample_forests(50, seed=1)
    (tmp / "g.json").write_text(json.dumps({"graphs": entries}))
    (tmp / "p.json").write_text(json.dumps({"patterns": [{"n": q.num_nodes, "edges": [list(e) for e in q.edges()]} for q in patterns]}))
    results = {}
    for rep in range(2):  # interleaved: Rust, Python, Rust, Python
        rust = float(subprocess.run([str(ex / "density_timing"), str(tmp / "g.json"), str(tmp / "p.json"), str(a.reps)],
                                    check=True, capture_output=True, text=True).stdout)
        py = median_time(lambda: homdp.densities(graphs, patterns), a.reps)
        results.setdefault("densities", []).append((rust, py))

    # Refine at n = 10,000, ε = 1 on one noisy graph (written once for the Rust side).
    n = 10_000
    src = rng.integers(0, n, size=40_000)
    dst = rng.integers(0, n, size=40_000)
    keep = src != dst
    g = dpgraph.Graph(np.stack([src[keep], dst[keep]]).astype(np.int64), num_nodes=n)
    noisy = edgerefine.perturb(g, 1.0, seed=2)
    ei = noisy.to_edge_index()
    half = ei[:, ei[0] < ei[1]]
    with open(tmp / "noisy.txt", "w") as f:
        f.write(f"# nodes {n}\n")
        np.savetxt(f, half.T, fmt="%d")
    for rep in range(2):
        rust = float(subprocess.run([str(ex / "refine_file"), str(tmp / "noisy.txt"), "1", "0.01", str(g.num_edges), "3"],
                                    check=True, capture_output=True, text=True).stdout)
        py = median_time(lambda: edgerefine.refine(noisy, 1.0, k=0.01, true_edges=g.num_edges), 3)
        results.setdefault("refine", []).append((rust, py))

    for name, pairs in results.items():
        rust = statistics.median(r for r, _ in pairs)
        py = statistics.median(q for _, q in pairs)
        print(f"{name}: Rust {rust:.4f} s, Python {py:.4f} s, ratio {py / rust:.3f}")


if __name__ == "__main__":
    main()
