//! The client partitions of the federated-GNN papers: FedSage+'s Louvain grouping (communities
//! packed into clients of about N/M nodes, then a class repair) and FedGCN's label-Dirichlet skew.

use rand::Rng;
use rand::seq::SliceRandom;
use rand_distr::Distribution;
use rand_distr::multi::Dirichlet;

use super::Partition;
use super::louvain::louvain;
use crate::error::{GraphError, Result};
use crate::graph::Graph;

/// FedSage+'s Louvain grouping (Zhang et al. 2021, `src/utils/louvain_networkx.py`), as the
/// design notes specify it from the authors' code.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LouvainClients {
    /// Clients M.
    pub clients: usize,
    /// Slack δ around the target size N/M (the code: 20).
    pub delta: usize,
    /// Class repair with one donor per (class, client) — the code's intent — instead of every
    /// donor giving a node, which is what the code does (its `break` leaves only the inner loop).
    pub single_donor: bool,
}

impl LouvainClients {
    /// `clients` clients with the code's δ = 20 and its class repair.
    pub fn new(clients: usize) -> Self {
        Self {
            clients,
            delta: 20,
            single_donor: false,
        }
    }

    /// Louvain communities of `graph` (resolution 1, seeded by `rng`) packed into clients:
    /// communities in order of first appearance, any above S = ⌊N/M⌋ − δ split (its first S
    /// nodes stay, the rest is appended as a new community), sorted by size (descending,
    /// stable), then dealt to owners that stay below ⌊N/M⌋ + δ (an owner that reached ⌊N/M⌋ is
    /// closed; when no open owner fits a community, the smallest takes it \[R\]); last, every
    /// owner holding fewer than 2 nodes of a class receives the last-listed node of that class
    /// from owners holding more than 2 (`single_donor`: from the first such owner only).
    ///
    /// # Errors
    /// [`GraphError::InvalidParam`] when `labels` does not have one entry per node, or
    /// `clients` is 0, above n, or leaves ⌊N/M⌋ − δ below 1.
    ///
    /// # Complexity
    /// Louvain's, plus O(n log n + c·M) for c communities and O(C·M²) for the repair.
    pub fn partition<R: Rng + ?Sized>(
        &self,
        graph: &Graph,
        labels: &[u32],
        rng: &mut R,
    ) -> Result<Partition> {
        let n = graph.num_nodes();
        let m = self.clients;
        if labels.len() != n {
            return Err(GraphError::InvalidParam {
                name: "labels",
                value: labels.len().to_string(),
                reason: "need one label per node",
            });
        }
        if m == 0 || m > n || n / m <= self.delta {
            return Err(GraphError::InvalidParam {
                name: "clients",
                value: m.to_string(),
                reason: "need 1 <= clients and floor(n / clients) - delta >= 1",
            });
        }
        let target = n / m;
        let cap = target - self.delta;
        let comm = louvain(graph, 1.0, rng);
        let mut groups: Vec<Vec<u32>> = Vec::new();
        for (u, &c) in comm.iter().enumerate() {
            let c = c as usize;
            if c == groups.len() {
                groups.push(Vec::new());
            }
            groups[c].push(u as u32);
        }
        let mut i = 0;
        while i < groups.len() {
            if groups[i].len() > cap {
                let rest = groups[i].split_off(cap);
                groups.push(rest);
            }
            i += 1;
        }
        groups.sort_by_key(|g| std::cmp::Reverse(g.len()));
        let mut owned: Vec<Vec<u32>> = vec![Vec::new(); m];
        let mut open: Vec<usize> = (0..m).collect();
        let mut p = 0usize;
        for g in groups {
            while !open.is_empty() && owned[open[p]].len() >= target {
                open.remove(p);
                if !open.is_empty() {
                    p %= open.len();
                }
            }
            let owner = if open.is_empty() {
                smallest(&owned)
            } else {
                let mut tries = 0;
                while owned[open[p]].len() + g.len() >= target + self.delta && tries < open.len() {
                    p = (p + 1) % open.len();
                    tries += 1;
                }
                if tries == open.len() {
                    smallest(&owned)
                } else {
                    open[p]
                }
            };
            owned[owner].extend(g);
        }
        self.repair(&mut owned, labels);
        let mut part = vec![0u32; n];
        for (o, nodes) in owned.iter().enumerate() {
            for &v in nodes {
                part[v as usize] = o as u32;
            }
        }
        Partition::from_assignment(part)
    }

    /// The class repair (step 5 of the notes).
    fn repair(&self, owned: &mut [Vec<u32>], labels: &[u32]) {
        let classes = labels.iter().map(|&l| l as usize + 1).max().unwrap_or(0);
        let count =
            |nodes: &[u32], k: u32| nodes.iter().filter(|&&v| labels[v as usize] == k).count();
        for k in 0..classes as u32 {
            for i in 0..owned.len() {
                if count(&owned[i], k) >= 2 {
                    continue;
                }
                for j in 0..owned.len() {
                    if j == i || count(&owned[j], k) <= 2 {
                        continue;
                    }
                    let pos = owned[j]
                        .iter()
                        .rposition(|&v| labels[v as usize] == k)
                        .expect("the donor holds nodes of the class");
                    let v = owned[j].remove(pos);
                    owned[i].push(v);
                    if self.single_donor {
                        break;
                    }
                }
            }
        }
    }
}

fn smallest(owned: &[Vec<u32>]) -> usize {
    (0..owned.len())
        .min_by_key(|&o| owned[o].len())
        .expect("at least one owner")
}

/// FedGCN's label-Dirichlet skew (`label_dirichlet_partition`): per class, its nodes in a
/// random order are cut among the clients by proportions drawn from Dirichlet(α, …, α), a client
/// already holding N/M nodes receiving none; redrawn until every client holds at least
/// `min_size` nodes. α = 10,000 is close to IID, α = 1 strongly skewed.
///
/// # Errors
/// [`GraphError::InvalidParam`] for `clients` outside `1..=n`, α not finite and > 0, or
/// `min_size · clients > n`; [`GraphError::InvalidParam`] (`min_size`) when 1,000 draws never
/// gave every client `min_size` nodes.
///
/// # Example
/// ```
/// use rand::SeedableRng;
/// let labels: Vec<u32> = (0..300).map(|i| i % 3).collect();
/// let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
/// let p = graph_core::partition::label_dirichlet(&labels, 4, 100.0, 10, &mut rng)?;
/// assert_eq!(p.num_parts(), 4);
/// assert!(p.sizes().iter().all(|&s| s >= 10));
/// # Ok::<(), graph_core::GraphError>(())
/// ```
pub fn label_dirichlet<R: Rng + ?Sized>(
    labels: &[u32],
    clients: usize,
    alpha: f64,
    min_size: usize,
    rng: &mut R,
) -> Result<Partition> {
    let n = labels.len();
    let bad = |name: &'static str, value: String, reason: &'static str| {
        Err(GraphError::InvalidParam {
            name,
            value,
            reason,
        })
    };
    if clients == 0 || clients > n {
        return bad("clients", clients.to_string(), "must be in 1..=n");
    }
    if !alpha.is_finite() || alpha <= 0.0 {
        return bad("alpha", alpha.to_string(), "must be finite and > 0");
    }
    if min_size.saturating_mul(clients) > n {
        return bad(
            "min_size",
            min_size.to_string(),
            "min_size * clients exceeds the nodes",
        );
    }
    let dirichlet =
        Dirichlet::new(&vec![alpha; clients]).map_err(|e| GraphError::InvalidParam {
            name: "alpha",
            value: alpha.to_string(),
            reason: if e.to_string().is_empty() {
                "invalid"
            } else {
                "Dirichlet parameters rejected"
            },
        })?;
    let classes = labels.iter().map(|&l| l as usize + 1).max().unwrap_or(0);
    let mut by_class: Vec<Vec<u32>> = vec![Vec::new(); classes];
    for (v, &l) in labels.iter().enumerate() {
        by_class[l as usize].push(v as u32);
    }
    let full = n as f64 / clients as f64;
    for _ in 0..1000 {
        let mut owned: Vec<Vec<u32>> = vec![Vec::new(); clients];
        for members in &by_class {
            let mut idx = members.clone();
            idx.shuffle(rng);
            let draw: Vec<f64> = dirichlet.sample(rng);
            let mut prop: Vec<f64> = draw
                .iter()
                .zip(&owned)
                .map(|(&p, o)| if (o.len() as f64) < full { p } else { 0.0 })
                .collect();
            let sum: f64 = prop.iter().sum();
            if sum > 0.0 {
                prop.iter_mut().for_each(|p| *p /= sum);
            }
            // Cut points ⌊cumsum · |idx|⌋ of the first M − 1 clients, as numpy's astype(int).
            let mut acc = 0.0;
            let mut start = 0usize;
            for (o, p) in owned.iter_mut().zip(&prop).take(clients - 1) {
                acc += p;
                let end = ((acc * idx.len() as f64) as usize).clamp(start, idx.len());
                o.extend_from_slice(&idx[start..end]);
                start = end;
            }
            owned[clients - 1].extend_from_slice(&idx[start..]);
        }
        if owned.iter().all(|o| o.len() >= min_size.max(1)) {
            let mut part = vec![0u32; n];
            for (o, nodes) in owned.iter().enumerate() {
                for &v in nodes {
                    part[v as usize] = o as u32;
                }
            }
            return Partition::from_assignment(part);
        }
    }
    bad(
        "min_size",
        min_size.to_string(),
        "1,000 Dirichlet draws never gave every client this many nodes",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn rng(seed: u64) -> rand_chacha::ChaCha8Rng {
        rand_chacha::ChaCha8Rng::seed_from_u64(seed)
    }

    /// Ten 30-node communities (dense inside, sparse across), labels by community mod 3.
    fn communities() -> (Graph, Vec<u32>) {
        let sizes = [30usize; 10];
        let (g, block) = crate::generate::sbm(&sizes, 0.3, 0.002, &mut rng(5)).unwrap();
        let labels = block.iter().map(|&b| b % 3).collect();
        (g, labels)
    }

    #[test]
    fn louvain_clients_are_balanced_and_keep_communities_together() {
        let (g, labels) = communities();
        let p = LouvainClients::new(3)
            .partition(&g, &labels, &mut rng(1))
            .unwrap();
        let sizes = p.sizes();
        assert_eq!(sizes.iter().sum::<usize>(), 300);
        // Target 100 ± δ = 20.
        assert!(sizes.iter().all(|&s| (80..=120).contains(&s)), "{sizes:?}");
        // Communities stay together: far fewer cross edges than a random split.
        let random = Partition::random(300, 3, &mut rng(2)).unwrap();
        assert!(p.cross_edges(&g).unwrap() * 4 < random.cross_edges(&g).unwrap());
        // Every client holds at least 2 nodes of every class after the repair.
        for members in p.members() {
            for k in 0..3 {
                assert!(members.iter().filter(|&&v| labels[v as usize] == k).count() >= 2);
            }
        }
        // Seeded.
        let again = LouvainClients::new(3)
            .partition(&g, &labels, &mut rng(1))
            .unwrap();
        assert_eq!(p, again);
    }

    #[test]
    fn louvain_clients_refuse_bad_parameters() {
        let (g, labels) = communities();
        let lc = LouvainClients::new;
        assert!(lc(0).partition(&g, &labels, &mut rng(0)).is_err());
        // 300 / 20 = 15 <= δ = 20.
        assert!(lc(20).partition(&g, &labels, &mut rng(0)).is_err());
        assert!(lc(3).partition(&g, &labels[..10], &mut rng(0)).is_err());
    }

    #[test]
    fn class_repair_gives_every_client_two_nodes_of_a_rare_class() {
        // Class 1 only in the first community: the repair spreads it.
        let (g, mut labels) = communities();
        labels.iter_mut().for_each(|l| *l = 0);
        for l in labels.iter_mut().take(12) {
            *l = 1;
        }
        for single_donor in [false, true] {
            let lc = LouvainClients {
                single_donor,
                ..LouvainClients::new(3)
            };
            let p = lc.partition(&g, &labels, &mut rng(4)).unwrap();
            for members in p.members() {
                let ones = members.iter().filter(|&&v| labels[v as usize] == 1).count();
                assert!(ones >= 1, "single_donor {single_donor}: {ones}");
            }
        }
    }

    #[test]
    fn label_dirichlet_skews_labels_as_alpha_shrinks() {
        let labels: Vec<u32> = (0..3000).map(|i| i % 5).collect();
        let skew = |alpha: f64| {
            let p = label_dirichlet(&labels, 5, alpha, 10, &mut rng(3)).unwrap();
            // Mean over clients of the largest class share.
            let mut total = 0.0;
            for members in p.members() {
                let mut counts = [0usize; 5];
                for &v in &members {
                    counts[labels[v as usize] as usize] += 1;
                }
                total += *counts.iter().max().unwrap() as f64 / members.len() as f64;
            }
            total / 5.0
        };
        let iid = skew(10_000.0);
        let skewed = skew(0.5);
        assert!(iid < 0.25, "{iid}");
        assert!(skewed > iid + 0.2, "{skewed} vs {iid}");
        assert!(label_dirichlet(&labels, 0, 1.0, 10, &mut rng(0)).is_err());
        assert!(label_dirichlet(&labels, 5, f64::NAN, 10, &mut rng(0)).is_err());
        assert!(label_dirichlet(&labels, 5, 1.0, 1000, &mut rng(0)).is_err());
    }
}
