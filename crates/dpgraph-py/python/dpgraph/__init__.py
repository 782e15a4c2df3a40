"""dpgraph: privacy-preserving graph learning, every call running the Rust crates.

Submodules: :mod:`dpgraph.accounting` (privacy conversions, ledger), :mod:`dpgraph.edgerefine` (local
edge-DP release), :mod:`dpgraph.homdp` (private embeddings), :mod:`dpgraph.fed` (CE-FedGNN across
organisations, on Flower). :class:`Graph` is built from a PyTorch Geometric style ``edge_index``. :func:`choices` lists every
named choice the keywords accept (the same names as the ``dpgraph`` CLI's flags).
"""

from ._native import (
    BudgetExceeded,
    DataError,
    DpgraphError,
    Graph,
    InvalidParameter,
    ProtocolError,
    choices,
)
from . import accounting, edgerefine, fed, graph, homdp

__all__ = [
    "BudgetExceeded",
    "DataError",
    "DpgraphError",
    "Graph",
    "InvalidParameter",
    "ProtocolError",
    "accounting",
    "choices",
    "edgerefine",
    "fed",
    "graph",
    "homdp",
]
