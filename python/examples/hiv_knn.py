"""Private homomorphism-density embedding of HIV's molecules, then scikit-learn's k-NN
(needs `dpgraph datasets install hiv` and scikit-learn)."""
import dpgraph
from dpgraph import graph, homdp
from sklearn.metrics import roc_auc_score
from sklearn.neighbors import KNeighborsClassifier

hiv = graph.load_dataset("HIV")
g, y, split = hiv["graphs"], hiv["targets"], hiv["splits"]
patterns = [homdp.Pattern(2, [(0, 1)]), homdp.Pattern(3, [(0, 1), (1, 2)]), homdp.Pattern(4, [(0, 1), (1, 2), (2, 3)]), homdp.Pattern(3, [(0, 1), (1, 2), (2, 0)])]
x_train, guarantee = homdp.embed([g[i] for i in split["train"]], patterns, rho=0.05, degree_bound=10, seed=0)
x_test = homdp.densities([g[i] for i in split["test"]], patterns)  # the paper's protocol: clean test rows
knn = KNeighborsClassifier(n_neighbors=1000).fit(x_train, y[split["train"]])
auc = roc_auc_score(y[split["test"]], knn.predict_proba(x_test)[:, 1])
print(f"{len(g)} graphs, ε = {guarantee['eps']:.2f} at δ = {guarantee['delta']:g}: test ROC-AUC {auc:.3f}")
