//! Louvain community detection (Blondel et al. 2008) and Newman–Girvan modularity, as
//! python-louvain's `best_partition` computes them (the partition FedSage+ starts from): local
//! moves of single nodes in a random order to the neighbouring community of largest modularity
//! gain until a pass gains less than `1e-7`, then the graph of communities, repeated while
//! modularity grows; the top level of the dendrogram is returned.

use rand::Rng;
use rand::seq::SliceRandom;

use crate::graph::Graph;

/// Smallest modularity gain of a pass (python-louvain's `__MIN`).
const MIN_GAIN: f64 = 1e-7;

/// A weighted graph with self-loops: the graph of communities of one level.
struct Level {
    /// Per node: (neighbour, weight), neighbour ≠ node.
    adj: Vec<Vec<(u32, f64)>>,
    /// Per node: weight of its self-loop (edges inside the community it stands for).
    self_loop: Vec<f64>,
    /// Per node: weighted degree (a self-loop counts twice, as in networkx).
    degree: Vec<f64>,
    /// Total edge weight m.
    total: f64,
}

impl Level {
    fn of_graph(g: &Graph) -> Self {
        let n = g.num_nodes();
        let adj: Vec<Vec<(u32, f64)>> = (0..n as u32)
            .map(|u| g.neighbors(u).iter().map(|&v| (v, 1.0)).collect())
            .collect();
        let degree = adj.iter().map(|a| a.len() as f64).collect();
        Self {
            adj,
            self_loop: vec![0.0; n],
            degree,
            total: g.num_edges() as f64,
        }
    }

    /// One pass of local moves to convergence; the community of every node (renumbered
    /// `0..c` in order of first appearance) and whether anything moved.
    fn one_level<R: Rng + ?Sized>(&self, resolution: f64, rng: &mut R) -> (Vec<u32>, bool) {
        let n = self.adj.len();
        let m2 = 2.0 * self.total;
        let mut comm: Vec<usize> = (0..n).collect();
        // Σ_tot and Σ_in per community.
        let mut tot: Vec<f64> = self.degree.clone();
        let mut inside: Vec<f64> = self.self_loop.clone();
        let mut order: Vec<usize> = (0..n).collect();
        order.shuffle(rng);
        let mut weight_to = vec![0.0f64; n];
        let mut touched: Vec<usize> = Vec::new();
        let mut moved_any = false;
        let mut q = modularity_of(&tot, &inside, self.total, resolution);
        loop {
            let mut moved = false;
            for &u in &order {
                let cu = comm[u];
                let k = self.degree[u];
                let kc = k / m2;
                touched.clear();
                for &(v, w) in &self.adj[u] {
                    let c = comm[v as usize];
                    if weight_to[c] == 0.0 {
                        touched.push(c);
                    }
                    weight_to[c] += w;
                }
                // Remove u from its community.
                let to_own = weight_to[cu];
                tot[cu] -= k;
                inside[cu] -= 2.0 * to_own + self.self_loop[u];
                let score = |c: usize, w: f64| w - resolution * tot[c] * kc;
                let mut best = cu;
                let mut best_gain = 0.0;
                let stay = score(cu, to_own);
                touched.shuffle(rng);
                for &c in &touched {
                    let gain = score(c, weight_to[c]) - stay;
                    if gain > best_gain {
                        best_gain = gain;
                        best = c;
                    }
                }
                tot[best] += k;
                inside[best] += 2.0 * weight_to[best] + self.self_loop[u];
                if best != cu {
                    comm[u] = best;
                    moved = true;
                }
                for &c in &touched {
                    weight_to[c] = 0.0;
                }
            }
            let new_q = modularity_of(&tot, &inside, self.total, resolution);
            if moved {
                moved_any = true;
            }
            if !moved || new_q - q < MIN_GAIN {
                break;
            }
            q = new_q;
        }
        (renumber(&comm), moved_any)
    }

    /// The graph whose nodes are the communities of `comm` (`0..c`).
    fn induced(&self, comm: &[u32]) -> Self {
        let c = comm.iter().map(|&x| x as usize + 1).max().unwrap_or(0);
        let mut self_loop = vec![0.0; c];
        let mut maps: Vec<std::collections::BTreeMap<u32, f64>> = vec![Default::default(); c];
        for (u, nbrs) in self.adj.iter().enumerate() {
            let cu = comm[u];
            self_loop[cu as usize] += self.self_loop[u];
            for &(v, w) in nbrs {
                let cv = comm[v as usize];
                if cu == cv {
                    // Each internal edge is seen from both ends.
                    self_loop[cu as usize] += w / 2.0;
                } else {
                    *maps[cu as usize].entry(cv).or_insert(0.0) += w;
                }
            }
        }
        let adj: Vec<Vec<(u32, f64)>> = maps.into_iter().map(|m| m.into_iter().collect()).collect();
        let degree = adj
            .iter()
            .zip(&self_loop)
            .map(|(a, s)| a.iter().map(|&(_, w)| w).sum::<f64>() + 2.0 * s)
            .collect();
        Self {
            adj,
            self_loop,
            degree,
            total: self.total,
        }
    }
}

/// Σ_c Σ_in(c)/(2m) − γ (Σ_tot(c)/(2m))², Σ_in counting each internal edge twice.
fn modularity_of(tot: &[f64], inside: &[f64], total: f64, resolution: f64) -> f64 {
    if total == 0.0 {
        return 0.0;
    }
    let m2 = 2.0 * total;
    tot.iter()
        .zip(inside)
        .map(|(&t, &i)| i / m2 - resolution * (t / m2) * (t / m2))
        .sum()
}

/// Community ids renumbered `0..c` in order of first appearance over the nodes.
fn renumber(comm: &[usize]) -> Vec<u32> {
    let mut id = vec![u32::MAX; comm.len()];
    let mut next = 0u32;
    comm.iter()
        .map(|&c| {
            if id[c] == u32::MAX {
                id[c] = next;
                next += 1;
            }
            id[c]
        })
        .collect()
}

/// Louvain communities of `g` at `resolution` (1.0: plain modularity): the community of every
/// node, numbered `0..c` in order of first appearance over the nodes. Seeded by `rng` (the node
/// order of each pass and the order neighbouring communities are tried in).
///
/// # Complexity
/// O(passes · (n + m)) per level; a few levels in practice.
pub fn louvain<R: Rng + ?Sized>(g: &Graph, resolution: f64, rng: &mut R) -> Vec<u32> {
    let mut level = Level::of_graph(g);
    let mut node_comm: Vec<u32> = (0..g.num_nodes() as u32).collect();
    if g.num_edges() == 0 {
        return node_comm;
    }
    let mut q = modularity(g, &node_comm, resolution);
    loop {
        let (comm, moved) = level.one_level(resolution, rng);
        if !moved {
            break;
        }
        let next: Vec<u32> = node_comm.iter().map(|&c| comm[c as usize]).collect();
        let new_q = modularity(g, &next, resolution);
        if new_q - q < MIN_GAIN {
            break;
        }
        node_comm = next;
        q = new_q;
        level = level.induced(&comm);
    }
    let ids: Vec<usize> = node_comm.iter().map(|&c| c as usize).collect();
    renumber(&ids)
}

/// Newman–Girvan modularity of the communities `comm` (one id per node) at `resolution`:
/// Σ_c [L_c/m − γ (d_c/2m)²], as networkx's `modularity`. 0 for a graph without edges.
///
/// ```
/// use graph_core::Graph;
/// use graph_core::partition::modularity;
/// // Two triangles joined by one edge, split into the triangles.
/// let g = Graph::from_edges(6, &[(0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 5), (2, 3)])?;
/// let q = modularity(&g, &[0, 0, 0, 1, 1, 1], 1.0);
/// assert!((q - 0.357142857).abs() < 1e-6);
/// # Ok::<(), graph_core::GraphError>(())
/// ```
pub fn modularity(g: &Graph, comm: &[u32], resolution: f64) -> f64 {
    let m = g.num_edges() as f64;
    if m == 0.0 {
        return 0.0;
    }
    let c = comm.iter().map(|&x| x as usize + 1).max().unwrap_or(0);
    let mut internal = vec![0.0f64; c];
    let mut degree = vec![0.0f64; c];
    for (u, v) in g.edges() {
        let (cu, cv) = (comm[u as usize] as usize, comm[v as usize] as usize);
        degree[cu] += 1.0;
        degree[cv] += 1.0;
        if cu == cv {
            internal[cu] += 1.0;
        }
    }
    internal
        .iter()
        .zip(&degree)
        .map(|(&l, &d)| l / m - resolution * (d / (2.0 * m)).powi(2))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn rng(seed: u64) -> rand_chacha::ChaCha8Rng {
        rand_chacha::ChaCha8Rng::seed_from_u64(seed)
    }

    #[test]
    fn finds_planted_cliques_joined_by_single_edges() {
        // Four 6-cliques in a ring, one edge between neighbours.
        let mut edges = Vec::new();
        for b in 0..4u32 {
            for i in 0..6 {
                for j in i + 1..6 {
                    edges.push((b * 6 + i, b * 6 + j));
                }
            }
            edges.push((b * 6 + 5, ((b + 1) % 4) * 6));
        }
        let g = Graph::from_edges(24, &edges).unwrap();
        for seed in 0..5 {
            let c = louvain(&g, 1.0, &mut rng(seed));
            for b in 0..4 {
                let first = c[b * 6];
                assert!(c[b * 6..b * 6 + 6].iter().all(|&x| x == first), "{c:?}");
            }
            let distinct: std::collections::BTreeSet<u32> = c.iter().copied().collect();
            assert_eq!(distinct.len(), 4, "{c:?}");
            assert_eq!(c[0], 0, "numbered in order of first appearance");
            let q = modularity(&g, &c, 1.0);
            let blocks: Vec<u32> = (0..24).map(|u| u / 6).collect();
            assert!((q - modularity(&g, &blocks, 1.0)).abs() < 1e-12);
        }
    }

    #[test]
    fn modularity_matches_the_definition_on_small_cases() {
        let g = Graph::from_edges(4, &[(0, 1), (2, 3)]).unwrap();
        // Two components as communities: each L_c/m = 1/2, d_c/2m = 1/2: Q = 2·(1/2 − 1/4).
        assert!((modularity(&g, &[0, 0, 1, 1], 1.0) - 0.5).abs() < 1e-12);
        // All in one: 1 − 1 = 0.
        assert!(modularity(&g, &[0, 0, 0, 0], 1.0).abs() < 1e-12);
        let empty = Graph::from_edges(3, &[]).unwrap();
        assert_eq!(louvain(&empty, 1.0, &mut rng(0)), vec![0, 1, 2]);
        assert_eq!(modularity(&empty, &[0, 1, 2], 1.0), 0.0);
    }

    #[test]
    fn never_lowers_modularity_below_singletons_on_random_graphs() {
        let mut r = rng(3);
        let (g, _) = crate::generate::sbm(&[30, 30, 30], 0.3, 0.01, &mut r).unwrap();
        let c = louvain(&g, 1.0, &mut r);
        let single: Vec<u32> = (0..90).collect();
        assert!(modularity(&g, &c, 1.0) > modularity(&g, &single, 1.0) + 0.3);
    }
}
