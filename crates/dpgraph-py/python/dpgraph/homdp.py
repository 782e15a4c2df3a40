"""homdp: homomorphism densities and private graph embeddings with their guarantee."""

from ._native import Pattern, densities, embed, sample_forests

__all__ = ["Pattern", "densities", "embed", "sample_forests"]
