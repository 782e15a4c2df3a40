//! Partitions of one graph's nodes into parts (clients, banks, …) and their cross-part edges:
//! by attribute, at random, by label-propagation communities ([`Partition`]), by Louvain
//! communities packed into clients as FedSage+ does ([`LouvainClients`]), and by FedGCN's
//! label-Dirichlet skew ([`label_dirichlet`]); [`louvain`] and [`modularity`] themselves.

mod clients;
mod louvain;

pub use clients::{LouvainClients, label_dirichlet};
pub use louvain::{louvain, modularity};

use rand::seq::SliceRandom;
use rand::{Rng, RngExt};

use crate::error::{GraphError, Result};
use crate::graph::Graph;

/// An assignment of every node to one of `num_parts` parts.
///
/// # Example
/// ```
/// use graph_core::{Graph, Partition};
/// let g = Graph::from_edges(4, &[(0, 1), (1, 2), (2, 3)])?;
/// let p = Partition::by_attribute(&["a", "a", "b", "b"]);
/// assert_eq!(p.num_parts(), 2);
/// assert_eq!(p.cross_edges(&g)?, 1);
/// # Ok::<(), graph_core::GraphError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    part: Vec<u32>,
    num_parts: usize,
}

impl Partition {
    /// Wraps an explicit assignment; the part count is `max + 1`.
    ///
    /// # Errors
    /// [`GraphError::Empty`] for an empty assignment; [`GraphError::InvalidParam`] when some
    /// part in `0..num_parts` has no node.
    pub fn from_assignment(part: Vec<u32>) -> Result<Self> {
        let num_parts = part
            .iter()
            .max()
            .map(|&m| m as usize + 1)
            .ok_or_else(|| GraphError::Empty("partition of zero nodes".into()))?;
        let p = Self { part, num_parts };
        if let Some(empty) = p.sizes().iter().position(|&s| s == 0) {
            return Err(GraphError::InvalidParam {
                name: "part",
                value: empty.to_string(),
                reason: "every part id below the maximum must have a node",
            });
        }
        Ok(p)
    }

    /// One part per distinct attribute value (parts numbered in sorted value order).
    pub fn by_attribute<T: Ord>(values: &[T]) -> Self {
        let mut distinct: Vec<&T> = values.iter().collect();
        distinct.sort();
        distinct.dedup();
        let part = values
            .iter()
            .map(|v| distinct.binary_search(&v).expect("value is in its own set") as u32)
            .collect();
        Self {
            part,
            num_parts: distinct.len(),
        }
    }

    /// A uniformly random balanced partition (sizes differ by at most one).
    ///
    /// # Errors
    /// [`GraphError::InvalidParam`] unless `1 <= k <= n`.
    pub fn random<R: Rng + ?Sized>(n: usize, k: usize, rng: &mut R) -> Result<Self> {
        check_k(n, k)?;
        let mut order: Vec<usize> = (0..n).collect();
        order.shuffle(rng);
        let mut part = vec![0u32; n];
        for (i, &u) in order.iter().enumerate() {
            part[u] = (i % k) as u32;
        }
        Ok(Self { part, num_parts: k })
    }

    /// A community-based partition: label propagation (asynchronous, random order and tie
    /// breaks, at most 100 sweeps) finds communities, which are then grown into `k` parts of
    /// about `n / k` nodes each: a part starts from the largest unassigned community and keeps
    /// absorbing the unassigned community with the most edges into it, so that adjacent
    /// communities share a part. Communities stay whole, so a giant community makes parts unbalanced.
    ///
    /// # Errors
    /// [`GraphError::InvalidParam`] unless `1 <= k <= n`.
    ///
    /// # Complexity
    /// O(sweeps · (n + m)) plus O(c log c) for c communities.
    pub fn community<R: Rng + ?Sized>(graph: &Graph, k: usize, rng: &mut R) -> Result<Self> {
        let n = graph.num_nodes();
        check_k(n, k)?;
        let comm = label_propagation(graph, rng);
        let part_of_comm = pack_communities(graph, &comm, k);
        let part = comm.iter().map(|&c| part_of_comm[c as usize]).collect();
        // With fewer communities than parts, some parts are empty: fall back to splitting.
        let p = Self { part, num_parts: k };
        if p.sizes().contains(&0) {
            return Err(GraphError::InvalidParam {
                name: "k",
                value: k.to_string(),
                reason: "more parts than communities found; use a random partition or fewer parts",
            });
        }
        Ok(p)
    }

    /// Number of parts.
    pub fn num_parts(&self) -> usize {
        self.num_parts
    }

    /// Part of every node.
    pub fn assignment(&self) -> &[u32] {
        &self.part
    }

    /// Part of node `u`.
    ///
    /// # Panics
    /// When `u` is out of range.
    pub fn part_of(&self, u: u32) -> u32 {
        self.part[u as usize]
    }

    /// Node count of every part.
    pub fn sizes(&self) -> Vec<usize> {
        let mut s = vec![0; self.num_parts];
        for &p in &self.part {
            s[p as usize] += 1;
        }
        s
    }

    /// Nodes of every part, ascending.
    pub fn members(&self) -> Vec<Vec<u32>> {
        let mut m = vec![Vec::new(); self.num_parts];
        for (u, &p) in self.part.iter().enumerate() {
            m[p as usize].push(u as u32);
        }
        m
    }

    /// Number of edges whose endpoints lie in different parts.
    ///
    /// # Errors
    /// [`GraphError::Shape`] when the partition does not cover exactly the graph's nodes.
    pub fn cross_edges(&self, graph: &Graph) -> Result<usize> {
        self.check_graph(graph)?;
        Ok(graph
            .edges()
            .filter(|&(u, v)| self.part[u as usize] != self.part[v as usize])
            .count())
    }

    /// Edge counts between every pair of parts (`[a][b]` for `a != b` symmetric; the diagonal
    /// counts edges inside a part).
    ///
    /// # Errors
    /// [`GraphError::Shape`] when the partition does not cover exactly the graph's nodes.
    pub fn edge_matrix(&self, graph: &Graph) -> Result<Vec<Vec<usize>>> {
        self.check_graph(graph)?;
        let mut m = vec![vec![0; self.num_parts]; self.num_parts];
        for (u, v) in graph.edges() {
            let (a, b) = (
                self.part[u as usize] as usize,
                self.part[v as usize] as usize,
            );
            m[a][b] += 1;
            if a != b {
                m[b][a] += 1;
            }
        }
        Ok(m)
    }

    fn check_graph(&self, graph: &Graph) -> Result<()> {
        if graph.num_nodes() != self.part.len() {
            return Err(GraphError::Shape(format!(
                "partition of {} nodes applied to a graph of {}",
                self.part.len(),
                graph.num_nodes()
            )));
        }
        Ok(())
    }
}

fn check_k(n: usize, k: usize) -> Result<()> {
    if k == 0 || k > n {
        return Err(GraphError::InvalidParam {
            name: "k",
            value: k.to_string(),
            reason: "number of parts must be between 1 and the number of nodes",
        });
    }
    Ok(())
}

/// Grows `k` parts from communities (see [`Partition::community`]); returns the part of each
/// community label (indexed by label, labels are node ids of `0..n`).
fn pack_communities(graph: &Graph, comm: &[u32], k: usize) -> Vec<u32> {
    use std::collections::{BinaryHeap, HashMap};
    let n = graph.num_nodes();
    let mut size = vec![0usize; n];
    for &c in comm {
        size[c as usize] += 1;
    }
    // Edge weights between communities.
    let mut adj: HashMap<u32, HashMap<u32, usize>> = HashMap::new();
    for (u, v) in graph.edges() {
        let (a, b) = (comm[u as usize], comm[v as usize]);
        if a != b {
            *adj.entry(a).or_default().entry(b).or_default() += 1;
            *adj.entry(b).or_default().entry(a).or_default() += 1;
        }
    }
    let mut by_size: Vec<u32> = (0..n as u32).filter(|&c| size[c as usize] > 0).collect();
    by_size.sort_by(|&a, &b| size[b as usize].cmp(&size[a as usize]).then(a.cmp(&b)));
    let mut part_of = vec![u32::MAX; n];
    let mut remaining = n;
    let mut next_seed = 0usize;
    for p in 0..k {
        let target = remaining.div_ceil(k - p);
        let mut load = 0usize;
        let mut weight: HashMap<u32, usize> = HashMap::new();
        let mut heap: BinaryHeap<(usize, usize, std::cmp::Reverse<u32>)> = BinaryHeap::new();
        while load < target {
            // The most connected unassigned community, or the largest one to (re)start.
            let pick = loop {
                match heap.pop() {
                    Some((w, _, std::cmp::Reverse(c))) => {
                        if part_of[c as usize] == u32::MAX && weight.get(&c) == Some(&w) {
                            break Some(c);
                        }
                    }
                    None => break None,
                }
            };
            let c = match pick {
                Some(c) => c,
                None => {
                    while next_seed < by_size.len()
                        && part_of[by_size[next_seed] as usize] != u32::MAX
                    {
                        next_seed += 1;
                    }
                    match by_size.get(next_seed) {
                        Some(&c) => c,
                        None => break,
                    }
                }
            };
            // The last part takes everything left; others stop before overshooting much.
            let s = size[c as usize];
            if p + 1 < k && load > 0 && load + s > target + target / 20 {
                weight.remove(&c);
                continue;
            }
            part_of[c as usize] = p as u32;
            load += s;
            if let Some(nb) = adj.get(&c) {
                for (&d, &w) in nb {
                    if part_of[d as usize] == u32::MAX {
                        let e = weight.entry(d).or_default();
                        *e += w;
                        heap.push((*e, size[d as usize], std::cmp::Reverse(d)));
                    }
                }
            }
        }
        remaining -= load;
    }
    // Communities skipped by every part (too large to fit) go to the least loaded part.
    let mut loads = vec![0usize; k];
    for c in 0..n {
        if part_of[c] != u32::MAX {
            loads[part_of[c] as usize] += size[c];
        }
    }
    for &c in &by_size {
        if part_of[c as usize] == u32::MAX {
            let (best, _) = loads
                .iter()
                .enumerate()
                .min_by_key(|&(i, &l)| (l, i))
                .expect("k >= 1");
            part_of[c as usize] = best as u32;
            loads[best] += size[c as usize];
        }
    }
    part_of
}

/// Asynchronous label propagation (Raghavan et al. 2007): community label per node.
fn label_propagation<R: Rng + ?Sized>(graph: &Graph, rng: &mut R) -> Vec<u32> {
    let n = graph.num_nodes();
    let mut label: Vec<u32> = (0..n as u32).collect();
    let mut order: Vec<u32> = (0..n as u32).collect();
    let mut counts: Vec<u32> = vec![0; n];
    let mut touched: Vec<u32> = Vec::new();
    let mut best: Vec<u32> = Vec::new();
    for _ in 0..100 {
        order.shuffle(rng);
        let mut changed = false;
        for &u in &order {
            let nb = graph.neighbors(u);
            if nb.is_empty() {
                continue;
            }
            for &v in nb {
                let l = label[v as usize];
                if counts[l as usize] == 0 {
                    touched.push(l);
                }
                counts[l as usize] += 1;
            }
            let top = touched
                .iter()
                .map(|&l| counts[l as usize])
                .max()
                .unwrap_or(0);
            best.clear();
            best.extend(
                touched
                    .iter()
                    .copied()
                    .filter(|&l| counts[l as usize] == top),
            );
            let current = label[u as usize];
            if !best.contains(&current) {
                label[u as usize] = best[rng.random_range(0..best.len())];
                changed = true;
            }
            for &l in &touched {
                counts[l as usize] = 0;
            }
            touched.clear();
        }
        if !changed {
            break;
        }
    }
    label
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::sbm;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn random_partition_is_balanced_and_covers() {
        let p = Partition::random(103, 4, &mut ChaCha8Rng::seed_from_u64(0)).unwrap();
        let s = p.sizes();
        assert_eq!(s.iter().sum::<usize>(), 103);
        assert!(s.iter().max().unwrap() - s.iter().min().unwrap() <= 1);
        assert!(Partition::random(3, 0, &mut ChaCha8Rng::seed_from_u64(0)).is_err());
        assert!(Partition::random(3, 4, &mut ChaCha8Rng::seed_from_u64(0)).is_err());
    }

    #[test]
    fn community_partition_cuts_fewer_edges_than_random() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let (g, blocks) = sbm(&[150, 150, 150, 150], 0.08, 0.002, &mut rng).unwrap();
        let comm = Partition::community(&g, 4, &mut rng).unwrap();
        let rand_p = Partition::random(600, 4, &mut rng).unwrap();
        let truth = Partition::by_attribute(&blocks);
        let (c, r, t) = (
            comm.cross_edges(&g).unwrap(),
            rand_p.cross_edges(&g).unwrap(),
            truth.cross_edges(&g).unwrap(),
        );
        assert!(c < r / 2, "community {c} vs random {r}");
        assert!(c <= 3 * t, "community {c} vs planted {t}");
        let m = comm.edge_matrix(&g).unwrap();
        let off: usize = (0..4)
            .flat_map(|a| (0..4).map(move |b| (a, b)))
            .filter(|(a, b)| a < b)
            .map(|(a, b)| m[a][b])
            .sum();
        assert_eq!(off, c);
    }

    #[test]
    fn attribute_partition_and_errors() {
        let p = Partition::by_attribute(&[3, 1, 3, 2]);
        assert_eq!(p.assignment(), &[2, 0, 2, 1]);
        assert_eq!(p.members(), vec![vec![1], vec![3], vec![0, 2]]);
        assert!(Partition::from_assignment(vec![]).is_err());
        assert!(Partition::from_assignment(vec![0, 2]).is_err());
        let g = Graph::empty(3).unwrap();
        assert!(p.cross_edges(&g).is_err());
    }
}
