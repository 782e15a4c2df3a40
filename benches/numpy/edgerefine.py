#!/usr/bin/env python3
"""EdgeRefine in plain numpy: the dev-only comparison of `cargo xtask bench-e2e`.

Not part of the project (numpy is not a dependency): a straightforward numpy implementation of
the same two roles as `dpgraph edgerefine perturb | refine`, as a researcher would write it.

    python edgerefine.py perturb --graph G.txt --eps 1 --out noisy.npy [--seed S]
    python edgerefine.py refine --noisy noisy.npy --eps 1 --k 0.01 --out release.txt \
        [--true-edges E] [--bins 10] [--blocked [--block 1024]]

perturb: symmetric randomized response on the upper triangle (each pair kept with probability
rho = e^eps / (1 + e^eps)), the noisy edges saved as an int32 (2, m) array (numpy's own binary
format). refine: dense adjacency, common neighbours by A @ A (BLAS), or with --blocked by one
GEMM per block of rows over the upper triangle only (half the work: the fastest numpy version
we could write), Jaccard on every pair,
numpy's linear quantiles over all pairs as bin edges (edges within 1e-8 dropped, as
scikit-learn's KBinsDiscretizer), L = noisy edges / pairs per bin, the best round(rho K) noisy
edges and K - round(rho K) noisy non-edges by L (descending), ties by row-major pair order (the
authors' order: dpgraph's `--tie-break reference`). K = floor(k E); E supplied or estimated
(E_hat = (m - N (1 - rho)) / (2 rho - 1)).
"""

import argparse
import sys

import numpy as np


def read_edge_list(path):
    """The edge list text format of dpgraph: `# nodes N` header line, then `u v` lines."""
    n = None
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                parts = line[1:].split()
                if len(parts) == 2 and parts[0] == "nodes":
                    n = int(parts[1])
                continue
            break
    edges = np.loadtxt(path, dtype=np.int64, comments="#", ndmin=2)
    if n is None:
        n = int(edges.max()) + 1 if edges.size else 0
    return n, edges


def pair_index(n, i, j):
    return i * n - i * (i + 1) // 2 + (j - i - 1)


def perturb(args):
    n, edges = read_edge_list(args.graph)
    rho = np.exp(args.eps) / (1.0 + np.exp(args.eps))
    rng = np.random.default_rng(args.seed)
    m = n * (n - 1) // 2
    u, v = np.minimum(edges[:, 0], edges[:, 1]), np.maximum(edges[:, 0], edges[:, 1])
    truth = np.zeros(m, dtype=bool)
    truth[pair_index(n, u, v)] = True
    flip = rng.random(m, dtype=np.float32) >= rho
    noisy = np.flatnonzero(truth ^ flip)
    del truth, flip
    iu, ju = np.triu_indices(n, 1)
    out = np.stack([iu[noisy], ju[noisy]]).astype(np.int32)
    with open(args.out, "wb") as f:
        np.save(f, np.array([n], dtype=np.int64))
        np.save(f, out)
    print(f"perturb: n={n} noisy_edges={out.shape[1]}")


def load_noisy(path):
    """The noisy graph: this script's .npy pair, or a dpgraph text edge list."""
    if path.endswith(".npy"):
        with open(path, "rb") as f:
            n = int(np.load(f)[0])
            return n, np.load(f)
    n, edges = read_edge_list(path)
    return n, edges.T.astype(np.int32)


def upper_counts_blocked(a, block):
    """Common neighbours of the pairs i < j only, in row-major pair order: for each block of
    rows [r0, r1), one BLAS GEMM `A[r0:r1] @ A[r0:].T` (A is symmetric), keeping the entries
    above the diagonal. Half the multiply-adds of `A @ A`."""
    n = a.shape[0]
    cs, es = [], []
    for r0 in range(0, n, block):
        r1 = min(r0 + block, n)
        prod = a[r0:r1] @ a[r0:].T
        mask = np.arange(n - r0)[None, :] > np.arange(r1 - r0)[:, None]
        cs.append(prod[mask].astype(np.float64))
        es.append(a[r0:r1, r0:][mask] > 0)
        del prod, mask
    return np.concatenate(cs), np.concatenate(es)


def refine(args):
    n, edges = load_noisy(args.noisy)
    rho = np.exp(args.eps) / (1.0 + np.exp(args.eps))
    m_noisy = edges.shape[1]
    pairs = n * (n - 1) // 2
    if args.true_edges is None:
        e = max(0, min(pairs, round((m_noisy - pairs * (1.0 - rho)) / (2.0 * rho - 1.0))))
    else:
        e = args.true_edges
    a = np.zeros((n, n), dtype=np.float32)
    a[edges[0], edges[1]] = 1.0
    a[edges[1], edges[0]] = 1.0
    deg = a.sum(axis=1, dtype=np.float64)
    iu, ju = np.triu_indices(n, 1)
    if args.blocked:
        c, is_edge = upper_counts_blocked(a, args.block)
    else:
        common = a @ a
        c = common[iu, ju].astype(np.float64)
        is_edge = a[iu, ju] > 0
        del common
    del a
    union = deg[iu] + deg[ju] - c
    jac = np.divide(c, union, out=np.zeros_like(c), where=union > 0)
    del c, union
    raw = np.quantile(jac, np.linspace(0.0, 1.0, args.bins + 1))
    keep = np.ediff1d(raw, to_begin=np.inf) > 1e-8
    edges_q = raw[keep]
    inner = edges_q[1:-1]
    nbins = max(len(edges_q) - 1, 1)
    b = np.searchsorted(inner, jac, side="right")
    del jac
    bin_pairs = np.bincount(b, minlength=nbins)
    bin_noisy = np.bincount(b, weights=is_edge, minlength=nbins)
    prob = np.where(bin_pairs > 0, bin_noisy / np.maximum(bin_pairs, 1), 0.5)
    k_target = int(np.floor(args.k * e))
    k_real = min(round(rho * k_target), k_target)
    chosen = []
    for flag, want in ((True, k_real), (False, k_target - k_real)):
        pos = np.flatnonzero(is_edge == flag)
        order = np.argsort(-prob[b[pos]], kind="stable")[:want]
        chosen.append(pos[order])
    sel = np.concatenate(chosen)
    out = np.stack([iu[sel], ju[sel]], axis=1)
    out = out[np.lexsort((out[:, 1], out[:, 0]))]
    with open(args.out, "w") as f:
        f.write(f"# nodes {n}\n")
        np.savetxt(f, out, fmt="%d")
    print(f"refine: n={n} E={e} K={k_target} released={len(out)}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    q = sub.add_parser("perturb")
    q.add_argument("--graph", required=True)
    q.add_argument("--eps", type=float, required=True)
    q.add_argument("--out", required=True)
    q.add_argument("--seed", type=int, default=None)
    r = sub.add_parser("refine")
    r.add_argument("--noisy", required=True)
    r.add_argument("--eps", type=float, required=True)
    r.add_argument("--k", type=float, required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--true-edges", type=int, default=None)
    r.add_argument("--bins", type=int, default=10)
    r.add_argument(
        "--blocked",
        action="store_true",
        help="common neighbours by one GEMM per block of rows over the upper triangle only",
    )
    r.add_argument("--block", type=int, default=1024, help="rows per block with --blocked")
    args = p.parse_args()
    {"perturb": perturb, "refine": refine}[args.cmd](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
