"""EdgeRefine: the data owner's randomized response, the server's refinement (in one process or
on a Ray cluster), the baselines of the paper's evaluation, and the binary report files."""

from . import _native
from ._native import TiledRefine, TileWorker, read_report, report_header, tile_count
from .graph import as_graph

__all__ = [
    "BASELINES",
    "TileWorker",
    "TiledRefine",
    "baseline",
    "perturb",
    "read_report",
    "CALIBRATIONS",
    "refine",
    "refine_calibrated",
    "refine_distributed",
    "report_header",
    "tile_count",
    "write_report",
]

#: The methods :func:`baseline` knows (the Rust enum's list, as :func:`dpgraph.choices` gives it).
BASELINES = tuple(_native.choices()["baseline"]["names"])

#: The calibrations of the authors' artifact :func:`refine_calibrated` knows.
CALIBRATIONS = tuple(_native.choices()["calibration"]["names"])


def perturb(graph, eps, seed=None):
    """The data owner's ε-edge randomized response (ε-edge local DP) on every pair of the
    upper triangle; ``graph`` is anything :func:`dpgraph.graph.as_graph` takes. Without
    ``seed`` the noise comes from the OS CSPRNG; with it, the output equals ``dpgraph --seed
    SEED edgerefine perturb``. Releases the GIL.
    """
    return _native.perturb(as_graph(graph), eps, seed)


def refine(noisy, eps, k=0.01, true_edges=None, bins=10, tie_break="default", seed=None):
    """The EdgeRefine server: Jaccard similarities on the noisy graph, exact quantile bins and
    the deterministic top-K release of ⌊k·E⌋ edges. Without ``true_edges`` the server
    estimates E from the noisy graph (post-processing, no privacy cost). Returns ``(graph,
    info)``; ``info`` is the record ``dpgraph edgerefine refine --json`` prints (the same Rust
    value, without the CLI's ``out``): ``nodes``, ``released_edges``, ``edges_used``,
    ``edge_count_source`` (``"supplied"`` or ``"estimated"``), ``edge_estimate`` (the estimate
    and its standard error, or None), ``k_target``, ``k_real``, ``k_fake``, ``rho``, the bins,
    ``tie_break``, ``seed``, ``eps`` (the release's ε-edge LDP) and the timings. Same release
    as ``dpgraph --seed SEED edgerefine refine``. Releases the GIL.
    """
    return _native.refine(as_graph(noisy), eps, k, true_edges, bins, tie_break, seed)


def refine_calibrated(noisy, eps, calibration, k=0.01, true_edges=None, bins=10, seed=None):
    """The server under one of the authors' artifact's calibrations (one of
    :data:`CALIBRATIONS`: ``"jaccard-simple"``, ``"jaccard-isotonic"``, ``"jaccard-beta"``,
    ``"jaccard-temperature"``, ``"jaccard-histogram"`` (the paper's) or
    ``"adamic-adar-histogram"``), with the artifact's selection (ties by pair index); all pairs
    in memory, at most 65,536 nodes. Returns ``(graph, info)``; ``info`` (the CLI's record)
    has ``nodes``, ``released_edges``, ``k_target``, ``k_real``, ``k_fake``, ``edges_used``,
    ``edge_count_source``, ``edge_estimate``, ``calibration``, ``levels`` (distinct calibrated
    probabilities), ``fitted``, ``seed``, ``eps`` and ``refine_s``. Same output as ``dpgraph --seed SEED
    edgerefine refine --calibration NAME``. Releases the GIL.

    >>> import numpy as np, dpgraph
    >>> g = dpgraph.Graph(np.array([[0, 1, 2, 3], [1, 2, 3, 4]]), num_nodes=6)
    >>> noisy = perturb(g, 2.0, seed=1)
    >>> rel, info = refine_calibrated(noisy, 2.0, "jaccard-isotonic", k=1.0, true_edges=4)
    >>> info["k_target"], rel.num_edges == info["k_real"] + info["k_fake"]
    (4, True)
    """
    return _native.refine_calibrated(as_graph(noisy), eps, calibration, k, true_edges, bins, seed)


def baseline(graph, method, eps, seed=None):
    """A baseline of the paper's evaluation on the true graph (it simulates every user).

    ``method`` is one of :data:`BASELINES`: ``"rr"`` (both endpoints report, OR-symmetrised),
    ``"symrr"`` (each pair once), ``"blink-hard"`` / ``"blink-soft"`` / ``"blink-hybrid"``
    (Zhu et al. CCS 2023), ``"blink-artifact-hard"`` / ``"blink-artifact-hybrid"`` (the Blink
    variant inside the EdgeRefine artifact, not the original; ε must exceed 0.1), ``"ldpgen"``
    (Qin et al. CCS 2017) or ``"dprr"``. Returns ``(graph, info)``: ``info`` has ``name``,
    ``variant`` (the exact variant and its parameters), ``eps`` (per-user edge LDP; for the
    artifact's Blink only the paper's label), ``eps_edge`` (edge DP of the whole release: 2ε
    when both endpoints report on a pair; ``inf`` for the artifact's Blink, whose degree-1 fix
    is not differentially private) and ``weights`` (float32 per edge of ``graph.to_edge_index()``'s
    undirected edges in (u, v), u < v order, weighted variants only, else ``None``). Without
    ``seed`` the noise comes from the OS CSPRNG. Raises :class:`dpgraph.InvalidParameter` for
    an unknown method or a bad ε. Releases the GIL.
    """
    return _native.baseline(as_graph(graph), method, eps, seed)


def write_report(noisy, eps, path):
    """Writes the noisy graph as a binary report (``.rr``: a checked 64-byte header, then the
    bit-packed upper triangle or sorted pairs, whichever is smaller) atomically, as ``dpgraph
    edgerefine perturb --out x.rr`` does; returns the header as a dict. Releases the GIL."""
    return _native.write_report(as_graph(noisy), eps, str(path))


def refine_distributed(
    report_path,
    k=0.01,
    true_edges=None,
    bins=10,
    tie_break="default",
    seed=None,
    *,
    address=None,
    num_workers=None,
    threads_per_worker=1,
    tile_rows=1024,
    backend="auto",
    tasks_per_worker=4,
):
    """:func:`refine` of the noisy graph in the report ``report_path`` (``.rr``), its tiles run
    on a Ray cluster. The release is byte-identical to ``refine(read_report(report_path)[0],
    eps, ...)`` with the same arguments (ε is the report's).

    The report's bytes go into Ray's object store once; each of ``num_workers`` actors
    (default: the cluster's CPUs / ``threads_per_worker``) decodes it once and keeps the packed
    rows; the three passes of the tiled server run as waves of tasks (``tasks_per_worker``
    chunks of tiles of ``tile_rows`` rows per worker and pass), merged here by a
    :class:`TiledRefine`. Uses the Ray instance already initialised in this process, else
    connects to ``address`` (``None``: starts a local one, shut down at the end).

    Returns ``(graph, info)`` as :func:`refine`, with ``info`` also holding ``tiles``,
    ``workers`` and ``pass_seconds``. Needs the ``ray`` extra (``pip install
    'dpgraph[ray]'``); raises :class:`ImportError` naming it otherwise.
    """
    try:
        from . import _ray
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(
            "refine_distributed needs Ray: pip install 'dpgraph[ray]' (or ray==2.60.0)"
        ) from e
    return _ray.refine_distributed(
        str(report_path),
        k=k,
        true_edges=true_edges,
        bins=bins,
        tie_break=tie_break,
        seed=seed,
        address=address,
        num_workers=num_workers,
        threads_per_worker=threads_per_worker,
        tile_rows=tile_rows,
        backend=backend,
        tasks_per_worker=tasks_per_worker,
    )
