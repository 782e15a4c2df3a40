"""Privacy accounting: conversions between privacy measures, the RDP accountant and the privacy
ledger, computed by dp-core (the same numbers as the Rust API, to the last bit)."""

from ._native import (
    BudgetExceeded,
    PrivacyLedger,
    RdpAccountant,
    gaussian_exact_eps,
    tcdp_to_approx,
    zcdp_to_approx,
)

__all__ = [
    "BudgetExceeded",
    "PrivacyLedger",
    "RdpAccountant",
    "gaussian_exact_eps",
    "tcdp_to_approx",
    "zcdp_to_approx",
]
