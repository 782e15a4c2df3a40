"""EdgeRefine: the data owner's randomized response and the server's refinement."""

from . import _native
from .graph import as_graph

__all__ = ["perturb", "refine"]


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
    info)``; ``info`` has ``k_target``, ``k_real``, ``k_fake``, ``rho``, ``edges_used``,
    ``edge_count_source`` and the bins. Same output as ``dpgraph --seed SEED edgerefine
    refine``. Releases the GIL.
    """
    return _native.refine(as_graph(noisy), eps, k, true_edges, bins, tie_break, seed)
