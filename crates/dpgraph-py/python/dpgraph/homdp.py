"""homdp: homomorphism counts and densities, private graph embeddings with their guarantee, and
the re-identification attack of the paper's evaluation."""

from . import _native
from ._native import Pattern, reidentification, reidentification_ranks, sample_forests
from .graph import as_graph

__all__ = [
    "Pattern",
    "densities",
    "embed",
    "hom_counts",
    "reidentification",
    "reidentification_ranks",
    "sample_forests",
]


def _graphs(graphs):
    return [as_graph(g) for g in graphs]


def hom_counts(graphs, patterns):
    """The exact homomorphism counts hom(F, G): one row per graph, one column per pattern, as
    Python integers (they can exceed 64 bits; ``numpy.array(counts, dtype=object)`` keeps them
    exact). ``graphs`` are anything :func:`dpgraph.graph.as_graph` takes. Not private.
    Releases the GIL."""
    return _native.hom_counts(_graphs(graphs), list(patterns))


def densities(graphs, patterns):
    """The exact homomorphism densities t(F, G) = hom(F, G) / |V(G)|^|V(F)| as a float64 array
    (graphs × patterns). Not private: use :func:`embed` for a release. Releases the GIL."""
    return _native.densities(_graphs(graphs), list(patterns))


def embed(
    graphs,
    patterns,
    rho,
    delta=1e-6,
    bound="component-aware",
    degree_bound=None,
    seed=None,
    private_degree_rho=None,
    degree_quantile=1.0,
    clip=False,
    num_nodes_column=False,
):
    """The private embedding: densities plus Gaussian noise calibrated to each graph's smooth
    sensitivity (σ_G = ‖S_G‖₂ / √(2ρ)). Returns ``(matrix, record)``: a float64 array
    (graphs × patterns, plus |V(G)| last with ``num_nodes_column``) and the record ``dpgraph
    homdp embed --json`` prints (the same Rust value, without the CLI's ``out``): ``eps``,
    ``delta`` (the (ε, δ) the (ρ', ω)-tCDP guarantee implies), ``rho``, ``beta``, ``dim``,
    ``rho_prime``, ``omega``, ``degree_rho``, ``patterns``, ``graphs``, ``columns``,
    ``bound``, ``max_degree``, ``clip``, ``num_nodes_column``, ``private_degree``,
    ``clipped``, ``sigmas`` (per graph), ``seed``, ``private``, ``noise`` and ``embed_s``.

    ``bound``: ``"component-aware"`` (default, correct for every pattern), ``"paper"`` (the
    paper's Theorem 4.5, wrong for disconnected patterns: for comparison only) or
    ``"counting-lemma"``. ``degree_bound``: a public maximum degree (graphs above it raise, or
    lose edges to it with ``clip=True``).
    ``private_degree_rho``: no public bound; estimate one privately with this zCDP budget
    (exponential mechanism covering a ``degree_quantile`` share of the graphs), clip stably to
    it and triple the sensitivity; the guarantee then includes the estimate (``degree_rho``),
    and ``private_degree`` / ``clipped`` in the dict say what it found. Without ``seed``
    the noise comes from the OS CSPRNG; with it, the output equals ``dpgraph --seed SEED homdp
    embed``. Raises :class:`dpgraph.InvalidParameter` for ρ ≤ 0, δ ∉ (0, 1) or an unknown bound.
    Releases the GIL.
    """
    return _native.embed(
        _graphs(graphs),
        list(patterns),
        rho,
        delta,
        bound,
        degree_bound,
        seed,
        private_degree_rho,
        degree_quantile,
        clip,
        num_nodes_column,
    )
