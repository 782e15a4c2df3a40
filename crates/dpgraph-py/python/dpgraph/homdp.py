"""homdp: homomorphism densities and private graph embeddings with their guarantee."""

from ._native import Pattern, densities, embed

__all__ = ["Pattern", "densities", "embed"]
