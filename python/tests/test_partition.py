"""Louvain communities and modularity against networkx on Cora (the partition FedSage+ and
CE-FedGNN's citation setting start from)."""

import numpy as np
import pytest

import dpgraph
from dpgraph import graph


def test_louvain_on_cora_matches_networkx_modularity():
    nx = pytest.importorskip("networkx")
    from networkx.algorithms.community import louvain_communities

    cora = graph.load_dataset("cora")["graph"]
    g = nx.Graph()
    g.add_nodes_from(range(cora.num_nodes))
    ei = cora.to_edge_index()
    g.add_edges_from(zip(ei[0].tolist(), ei[1].tolist()))
    theirs = [nx.community.modularity(g, louvain_communities(g, seed=s)) for s in range(3)]
    ours = []
    for s in range(3):
        comm = graph.louvain(cora, seed=s)
        assert comm.shape == (cora.num_nodes,) and comm.dtype == np.uint32
        q = graph.modularity(cora, comm)
        groups = {}
        for v, c in enumerate(comm.tolist()):
            groups.setdefault(c, set()).add(v)
        assert abs(q - nx.community.modularity(g, list(groups.values()))) < 1e-9
        ours.append(q)
    assert abs(np.mean(ours) - np.mean(theirs)) < 0.01, (ours, theirs)
    assert np.array_equal(graph.louvain(cora, seed=7), graph.louvain(cora, seed=7))


def test_bad_arguments_are_invalid_parameters():
    g = dpgraph.Graph(np.array([[0, 1], [1, 2]]), num_nodes=3)
    with pytest.raises(dpgraph.InvalidParameter):
        graph.louvain(g, resolution=0.0)
    with pytest.raises(dpgraph.InvalidParameter):
        graph.modularity(g, [0, 0])
