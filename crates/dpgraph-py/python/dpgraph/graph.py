"""Graphs: from a PyTorch Geometric ``edge_index``, any object with ``edge_index`` /
``num_nodes`` (duck typing: a PyG ``Data`` works without importing torch here), networkx, or
dpgraph's edge-list files."""

import numpy as np

from ._native import Graph, load_dataset, louvain, modularity, read_edge_list

__all__ = [
    "Graph",
    "as_graph",
    "from_networkx",
    "load_dataset",
    "louvain",
    "modularity",
    "read_edge_list",
]


def as_graph(x):
    """``x`` as a :class:`Graph`: a Graph itself, an object with ``edge_index`` (2 × E, any
    array-like: numpy, or a torch tensor via ``numpy()``) and optionally ``num_nodes``, or a
    2 × E array-like edge index.

    Raises :class:`dpgraph.DataError` on self-loops, negative or out-of-range ids and wrong
    shapes.
    """
    if isinstance(x, Graph):
        return x
    edge_index = getattr(x, "edge_index", x)
    num_nodes = getattr(x, "num_nodes", None)
    if hasattr(edge_index, "detach"):  # a torch tensor, without importing torch
        edge_index = edge_index.detach().cpu().numpy()
    ei = np.ascontiguousarray(np.asarray(edge_index), dtype=np.int64)
    if ei.ndim == 2 and ei.shape[1] == 0:
        ei = ei.reshape(2, 0)
    return Graph(ei, num_nodes=None if num_nodes is None else int(num_nodes))


def from_networkx(g):
    """A networkx graph as a :class:`Graph`, nodes numbered in ``g.nodes`` order.

    Returns ``(graph, nodes)`` where ``nodes[i]`` is the networkx node of id ``i``.
    """
    nodes = list(g.nodes)
    index = {v: i for i, v in enumerate(nodes)}
    pairs = [(index[u], index[v]) for u, v in g.edges]
    ei = np.array(pairs, dtype=np.int64).T if pairs else np.zeros((2, 0), dtype=np.int64)
    return Graph(ei, num_nodes=len(nodes)), nodes
