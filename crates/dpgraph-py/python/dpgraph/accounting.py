"""Privacy accounting: conversions between privacy measures, computed by dp-core."""

from ._native import gaussian_exact_eps, zcdp_to_approx

__all__ = ["gaussian_exact_eps", "zcdp_to_approx"]
