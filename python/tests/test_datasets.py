"""Datasets by name from the registry, and the README's example (homdp embedding of HIV's
graphs, then scikit-learn's k-NN)."""

import os

import numpy as np
import pytest

import dpgraph
from dpgraph import graph, homdp


def installed(name):
    """The dataset, installed on first use; a dataset with no embedded copy that cannot be
    installed here (HIV without a mirror) skips unless DPGRAPH_REQUIRE_DATA=1."""
    if name in ("cora", "MUTAG"):
        return graph.load_dataset(name)
    try:
        return graph.load_dataset(name)
    except dpgraph.DataError as e:
        if os.environ.get("DPGRAPH_REQUIRE_DATA") == "1":
            raise
        pytest.skip(f"{name} is not installed: {e}")


def test_unknown_dataset_is_a_data_error():
    with pytest.raises(dpgraph.DataError):
        graph.load_dataset("no-such-dataset")


def test_mutag_and_cora_load_with_their_counts():
    m = installed("MUTAG")
    assert m["kind"] == "graphs" and len(m["graphs"]) == 188
    assert m["targets"].shape == (188,) and m["num_classes"] == 2
    c = installed("cora")
    assert c["kind"] == "nodes" and c["graph"].num_nodes == 2708
    assert c["features"].shape[0] == 2708 and c["features"].dtype == np.float32
    assert c["labels"].shape == (2708,) and c["num_classes"] == 7


def test_readme_example_hiv_embedding_and_knn():
    sklearn = pytest.importorskip("sklearn.neighbors")
    from sklearn.metrics import roc_auc_score

    hiv = installed("HIV")
    patterns = [homdp.Pattern(2, [(0, 1)]), homdp.Pattern(3, [(0, 1), (1, 2)]),
                homdp.Pattern(3, [(0, 1), (1, 2), (2, 0)])]
    train, test = hiv["splits"]["train"], hiv["splits"]["test"]
    graphs, y = hiv["graphs"], hiv["targets"]
    x_train, g = homdp.embed([graphs[i] for i in train], patterns, rho=1.0, degree_bound=10, seed=0)
    x_test = homdp.densities([graphs[i] for i in test], patterns)
    knn = sklearn.KNeighborsClassifier(n_neighbors=100).fit(x_train, y[train])
    auc = roc_auc_score(y[test], knn.predict_proba(x_test)[:, 1])
    assert 0.5 < auc < 1.0 and g["eps"] > 0
