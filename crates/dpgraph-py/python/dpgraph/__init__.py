"""dpgraph: privacy-preserving graph learning, every call running the Rust crates.

Submodules: :mod:`dpgraph.accounting` (privacy conversions, ledger), :mod:`dpgraph.edgerefine` (local
edge-DP release), :mod:`dpgraph.homdp` (private embeddings). :class:`Graph` is built from a PyTorch Geometric style ``edge_index``.
"""

from ._native import BudgetExceeded, DataError, DpgraphError, Graph, InvalidParameter
from . import accounting, edgerefine, graph, homdp

__all__ = [
    "BudgetExceeded",
    "DataError",
    "DpgraphError",
    "Graph",
    "InvalidParameter",
    "accounting",
    "edgerefine",
    "graph",
    "homdp",
]
