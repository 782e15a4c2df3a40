"""Train a PyTorch Geometric GCN on an EdgeRefine release of Cora (needs torch and
torch_geometric, which the dpgraph package itself does not; and `dpgraph datasets install cora`).

The data owner randomizes Cora's adjacency (ε-edge local DP); the server refines the noisy
graph into a sparse release of ⌊k·E⌋ edges; a 2-layer GCN trains on the release with the true
features and labels (EdgeRefine's protocol: 60/20/20 split, Adam lr 0.005, weight decay 1e-5,
≤ 700 epochs with patience 100 on validation accuracy). The test accuracy is read at the best
validation epoch: nothing is tuned on the test split.

    python python/examples/pyg_gcn_edgerefine.py [--eps 2] [--k 0.01] [--seed 0]
"""

import argparse

import numpy as np
import torch
import torch.nn.functional as F
from torch_geometric.data import Data
from torch_geometric.nn import GCNConv

from dpgraph import edgerefine, graph


class Gcn(torch.nn.Module):
    def __init__(self, d_in, d_out, hidden=16, dropout=0.6):
        super().__init__()
        self.conv1, self.conv2, self.dropout = GCNConv(d_in, hidden), GCNConv(hidden, d_out), dropout

    def forward(self, x, edge_index):
        x = F.dropout(x, self.dropout, self.training)
        x = F.relu(self.conv1(x, edge_index))
        x = F.dropout(x, self.dropout, self.training)
        return self.conv2(x, edge_index)


def train(data, masks, num_classes, seed, epochs=700, patience=100):
    """Test accuracy at the epoch of best validation accuracy."""
    torch.manual_seed(seed)
    model = Gcn(data.num_features, num_classes)
    opt = torch.optim.Adam(model.parameters(), lr=0.005, weight_decay=1e-5)
    train_m, val_m, test_m = masks
    best_val, best_test, since = -1.0, 0.0, 0
    for _ in range(epochs):
        model.train()
        opt.zero_grad()
        F.cross_entropy(model(data.x, data.edge_index)[train_m], data.y[train_m]).backward()
        opt.step()
        model.eval()
        with torch.no_grad():
            pred = model(data.x, data.edge_index).argmax(1)
        val = (pred[val_m] == data.y[val_m]).float().mean().item()
        if val > best_val:
            best_val, since = val, 0
            best_test = (pred[test_m] == data.y[test_m]).float().mean().item()
        else:
            since += 1
            if since >= patience:
                break
    return best_test


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--eps", type=float, default=2.0, help="ε of the randomized response")
    ap.add_argument("--k", type=float, default=0.01, help="release ⌊k·E⌋ edges")
    ap.add_argument("--seed", type=int, default=0, help="seed of the noise, split and training")
    args = ap.parse_args()

    cora = graph.load_dataset("cora")
    g = cora["graph"]
    true = Data(
        x=torch.from_numpy(cora["features"]),
        edge_index=torch.from_numpy(g.to_edge_index()),
        y=torch.from_numpy(cora["labels"].astype(np.int64)),
        num_nodes=g.num_nodes,
    )
    # The owner's randomized response takes the PyG object as it is (duck typing on
    # edge_index / num_nodes); the server refines with E supplied (the paper's protocol).
    noisy = edgerefine.perturb(true, args.eps, seed=args.seed)
    release, info = edgerefine.refine(noisy, args.eps, k=args.k, true_edges=g.num_edges)
    private = Data(x=true.x, edge_index=torch.from_numpy(release.to_edge_index()), y=true.y)
    no_edges = Data(x=true.x, edge_index=torch.zeros((2, 0), dtype=torch.long), y=true.y)

    perm = np.random.default_rng(args.seed).permutation(g.num_nodes)
    n_train, n_val = int(0.6 * g.num_nodes), int(0.2 * g.num_nodes)
    masks = []
    for idx in (perm[:n_train], perm[n_train : n_train + n_val], perm[n_train + n_val :]):
        m = torch.zeros(g.num_nodes, dtype=torch.bool)
        m[torch.from_numpy(idx)] = True
        masks.append(m)

    print(f"Cora: {g.num_nodes} nodes, {g.num_edges} edges; ε = {args.eps}, k = {args.k}")
    print(
        f"release: {release.num_edges} edges ({info['k_real']} from noisy edges, "
        f"{info['k_fake']} from noisy non-edges)"
    )
    for name, data in [("true graph", true), ("EdgeRefine release", private), ("no edges", no_edges)]:
        acc = train(data, masks, cora["num_classes"], args.seed)
        print(f"GCN on {name:<19} test accuracy {acc:.3f}")


if __name__ == "__main__":
    main()
