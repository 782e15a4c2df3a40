"""Privacy accounting: conversions between privacy measures and the RDP accountant, computed by
dp-core (the same numbers as the Rust API, to the last bit)."""

from ._native import RdpAccountant, gaussian_exact_eps, tcdp_to_approx, zcdp_to_approx

__all__ = ["RdpAccountant", "gaussian_exact_eps", "tcdp_to_approx", "zcdp_to_approx"]
