#!/usr/bin/env python3
"""The Ray engine's overhead: `edgerefine.refine_distributed` with 2 local workers against
single-process refines of the same noisy graph (n = 20,000, ε = 1, E estimated), side by side in
one run (interleaved repetitions, medians). Single process: `refine` (the one-pass all-pairs
server it uses below 65,536 nodes) and the same tiled passes run in this process by a
`TileWorker` on 2 threads and a `TiledRefine` (the work Ray distributes, without Ray). Needs the
package with the `ray` extra (`maturin develop --release`, `pip install ray==2.60.0`).

    python benches/python/ray_refine.py [--nodes 20000] [--reps 3]
"""

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import ray

import dpgraph
from dpgraph import edgerefine


def tiled_in_process(path, header, tile_rows):
    worker = edgerefine.TileWorker(Path(path).read_bytes(), tile_rows, threads=2)
    c = edgerefine.TiledRefine(header["num_nodes"], header["eps"], noisy_edges=header["noisy_edges"])
    tiles = list(range(worker.num_tiles))
    rank = c.rank_buckets([worker.histogram(tiles)])
    plan = c.selection_plan([worker.values(rank, tiles)])
    return c.finish([worker.select(plan, tiles)])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--nodes", type=int, default=20_000)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--tile-rows", type=int, default=1024)
    a = p.parse_args()
    n = a.nodes
    rng = np.random.default_rng(n)
    ei = rng.integers(0, n, size=(2, 5 * n))
    g = dpgraph.Graph(ei[:, ei[0] != ei[1]], num_nodes=n)
    noisy = edgerefine.perturb(g, 1.0, seed=7)
    path = Path(tempfile.mkdtemp()) / "noisy.rr"
    header = edgerefine.write_report(noisy, 1.0, path)
    print(f"n = {n}, {g.num_edges} true edges, {noisy.num_edges} noisy edges, report {path.stat().st_size} bytes")
    t = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    print(f"ray.init(num_cpus=2): {time.perf_counter() - t:.2f} s (not counted below)")

    runs = {
        "refine (one process, all-pairs)": lambda: edgerefine.refine(noisy, 1.0),
        "tiled passes (one process, 2 threads)": lambda: tiled_in_process(path, header, a.tile_rows),
        "refine_distributed (Ray, 2 workers)": lambda: edgerefine.refine_distributed(
            path, num_workers=2, tile_rows=a.tile_rows
        ),
    }
    times = {k: [] for k in runs}
    releases = {}
    for _ in range(a.reps):
        for name, f in runs.items():
            t = time.perf_counter()
            r, info = f()
            times[name].append(time.perf_counter() - t)
            releases[name] = r.to_edge_index()
            if "pass_seconds" in info:
                print(f"  ray passes: {info['pass_seconds']}")
    ray.shutdown()
    first = next(iter(releases.values()))
    same = all(np.array_equal(first, r) for r in releases.values())
    base = statistics.median(times["refine (one process, all-pairs)"])
    tiled = statistics.median(times["tiled passes (one process, 2 threads)"])
    print(f"\n| {a.reps} reps, medians | seconds | / refine | / tiled in process |\n|---|---|---|---|")
    for name, ts in times.items():
        m = statistics.median(ts)
        print(f"| {name} | {m:.2f} | {m / base:.2f} | {m / tiled:.2f} |")
    print(f"\nidentical releases: {same}")


if __name__ == "__main__":
    main()
