"""The Flower components of a CE-FedGNN federation (see :mod:`dpgraph.fed.flower`)."""
