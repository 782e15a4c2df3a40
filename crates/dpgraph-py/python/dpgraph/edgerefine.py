"""EdgeRefine: the data owner's randomized response and the server's refinement."""

from ._native import perturb, refine

__all__ = ["perturb", "refine"]
