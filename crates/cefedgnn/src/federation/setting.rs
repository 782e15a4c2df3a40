//! [`FederatedGraph`]: a graph, its partition into clients, and each client's topology.

use graph_core::{Graph, Partition};
use rand::Rng;
use serde::Serialize;

use crate::error::{FedError, Result};

/// What one client sees of the graph's structure: its own nodes, the edges among them, the cross
/// edges touching them, its boundary set B_i and its halo H_i. All ids are global node ids.
///
/// Per CEFEDGNN.md, the cross edges touching V_i (and their attributes) are visible to both ends,
/// so a client knows the ids of its halo nodes, but never their features or labels.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ClientTopology {
    id: u32,
    nodes: Vec<u32>,
    local_edges: Vec<(u32, u32)>,
    cross_edges: Vec<(u32, u32)>,
    boundary: Vec<u32>,
    halo: Vec<u32>,
    halo_owner: Vec<u32>,
}

impl ClientTopology {
    /// The client id (its part number).
    pub fn id(&self) -> u32 {
        self.id
    }
    /// Own nodes V_i, ascending.
    pub fn nodes(&self) -> &[u32] {
        &self.nodes
    }
    /// Edges `(u, v)` with `u < v` and both ends own.
    pub(crate) fn local_edges(&self) -> &[(u32, u32)] {
        &self.local_edges
    }
    /// Cross edges `(own, remote)`, sorted.
    pub(crate) fn cross_edges(&self) -> &[(u32, u32)] {
        &self.cross_edges
    }
    /// Boundary set B_i: own nodes with at least one remote neighbour, ascending.
    pub fn boundary(&self) -> &[u32] {
        &self.boundary
    }
    /// Halo H_i: remote neighbours of own nodes, ascending.
    pub fn halo(&self) -> &[u32] {
        &self.halo
    }
    /// The owning client of every halo node (same order as [`ClientTopology::halo`]; `u32::MAX`
    /// where not known, see [`ClientTopology::from_local`]).
    pub fn halo_owners(&self) -> &[u32] {
        &self.halo_owner
    }
    /// The topology one organisation can build from its own files: its nodes and every edge
    /// with at least one own end (edges between two remote nodes are refused). The owners of
    /// halo nodes are not known there: [`ClientTopology::halo_owners`] holds `u32::MAX`.
    ///
    /// # Errors
    /// [`FedError::Inconsistent`] for unsorted or duplicate nodes, no node, a self-loop or an
    /// edge without an own end.
    ///
    /// # Complexity
    /// O((n + m) log(n + m)).
    pub fn from_local(id: u32, nodes: Vec<u32>, edges: &[(u32, u32)]) -> Result<Self> {
        if nodes.is_empty() || !nodes.windows(2).all(|w| w[0] < w[1]) {
            return Err(FedError::Inconsistent(format!(
                "client {id}: own nodes must be non-empty and strictly ascending"
            )));
        }
        let own = |v: u32| nodes.binary_search(&v).is_ok();
        let mut local_edges = Vec::new();
        let mut cross_edges = Vec::new();
        for &(u, v) in edges {
            if u == v {
                return Err(FedError::Inconsistent(format!(
                    "client {id}: self-loop on node {u}"
                )));
            }
            match (own(u), own(v)) {
                (true, true) => local_edges.push((u.min(v), u.max(v))),
                (true, false) => cross_edges.push((u, v)),
                (false, true) => cross_edges.push((v, u)),
                (false, false) => {
                    return Err(FedError::Inconsistent(format!(
                        "client {id}: edge ({u}, {v}) has no own end"
                    )));
                }
            }
        }
        local_edges.sort_unstable();
        local_edges.dedup();
        cross_edges.sort_unstable();
        cross_edges.dedup();
        let mut boundary: Vec<u32> = cross_edges.iter().map(|&(own, _)| own).collect();
        boundary.dedup();
        let mut halo: Vec<u32> = cross_edges.iter().map(|&(_, remote)| remote).collect();
        halo.sort_unstable();
        halo.dedup();
        Ok(Self {
            id,
            halo_owner: vec![u32::MAX; halo.len()],
            nodes,
            local_edges,
            cross_edges,
            boundary,
            halo,
        })
    }

    /// Whether `v` is an own node.
    pub(crate) fn owns(&self, v: u32) -> bool {
        self.nodes.binary_search(&v).is_ok()
    }
    /// Position of own node `v` in [`ClientTopology::nodes`] (its local index).
    pub fn local_index(&self, v: u32) -> Option<usize> {
        self.nodes.binary_search(&v).ok()
    }
    /// Whether `v` is in the boundary set.
    pub fn is_boundary(&self, v: u32) -> bool {
        self.boundary.binary_search(&v).is_ok()
    }
    /// Whether `v` is in the halo.
    pub fn is_halo(&self, v: u32) -> bool {
        self.halo.binary_search(&v).is_ok()
    }
}

/// Size and cut figures of one client.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ClientStats {
    /// |V_i|.
    pub nodes: usize,
    /// Edges inside V_i.
    pub local_edges: usize,
    /// Edges from V_i to other clients.
    pub cross_edges: usize,
    /// |B_i|.
    pub boundary: usize,
    /// |H_i|.
    pub halo: usize,
}

/// Cross-edge statistics of a federated graph.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CrossEdgeStats {
    /// Number of clients N.
    pub num_clients: usize,
    /// Undirected edges of the whole graph.
    pub total_edges: usize,
    /// Edges whose ends lie in different clients.
    pub cross_edges: usize,
    /// `cross_edges / total_edges` (0 for an edgeless graph).
    pub cross_fraction: f64,
    /// Per-client figures.
    pub per_client: Vec<ClientStats>,
    /// Edge counts between client pairs (`[a][b]`, diagonal = local edges).
    pub edge_matrix: Vec<Vec<usize>>,
}

/// One graph partitioned across N ≥ 2 clients, with every client's [`ClientTopology`].
///
/// # Example
/// ```
/// use cefedgnn::federation::FederatedGraph;
/// use graph_core::{Graph, Partition};
/// // 0-1-2-3 path, clients {0,1} and {2,3}: the edge {1,2} is the only cross edge.
/// let g = Graph::from_edges(4, &[(0, 1), (1, 2), (2, 3)])?;
/// let fed = FederatedGraph::new(g, Partition::by_attribute(&[0, 0, 1, 1]))?;
/// assert_eq!(fed.client(0)?.boundary(), &[1]);
/// assert_eq!(fed.client(0)?.halo(), &[2]);
/// assert_eq!(fed.stats()?.cross_edges, 1);
/// # Ok::<(), cefedgnn::FedError>(())
/// ```
#[derive(Clone, Debug)]
pub struct FederatedGraph {
    graph: Graph,
    partition: Partition,
    clients: Vec<ClientTopology>,
}

impl FederatedGraph {
    /// Splits `graph` by `partition` and computes every client's topology.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] (`num_clients`) when the partition has fewer than 2 parts or
    /// more parts than nodes, or some part is empty; [`FedError::Graph`] when the partition does
    /// not cover exactly the graph's nodes.
    ///
    /// # Complexity
    /// O(n + m log m).
    pub fn new(graph: Graph, partition: Partition) -> Result<Self> {
        let n = graph.num_nodes();
        let k = partition.num_parts();
        if k < 2 || k > n {
            return Err(FedError::param(
                "num_clients",
                k,
                "needs at least 2 clients and at most one client per node",
            ));
        }
        // Validates the coverage (typed graph-core error otherwise).
        partition.cross_edges(&graph)?;
        if partition.sizes().contains(&0) {
            return Err(FedError::param(
                "num_clients",
                k,
                "every client must own at least one node",
            ));
        }
        let part = partition.assignment();
        let mut clients: Vec<ClientTopology> = partition
            .members()
            .into_iter()
            .enumerate()
            .map(|(i, nodes)| ClientTopology {
                id: i as u32,
                nodes,
                local_edges: Vec::new(),
                cross_edges: Vec::new(),
                boundary: Vec::new(),
                halo: Vec::new(),
                halo_owner: Vec::new(),
            })
            .collect();
        for (u, v) in graph.edges() {
            let (pu, pv) = (part[u as usize] as usize, part[v as usize] as usize);
            if pu == pv {
                clients[pu].local_edges.push((u, v));
            } else {
                clients[pu].cross_edges.push((u, v));
                clients[pv].cross_edges.push((v, u));
            }
        }
        for c in &mut clients {
            c.cross_edges.sort_unstable();
            c.boundary = c.cross_edges.iter().map(|&(own, _)| own).collect();
            c.boundary.dedup();
            c.halo = c.cross_edges.iter().map(|&(_, remote)| remote).collect();
            c.halo.sort_unstable();
            c.halo.dedup();
            c.halo_owner = c.halo.iter().map(|&v| part[v as usize]).collect();
        }
        Ok(Self {
            graph,
            partition,
            clients,
        })
    }

    /// One client per distinct attribute value (e.g. the bank of every account).
    ///
    /// # Errors
    /// As [`FederatedGraph::new`]; [`FedError::InvalidParam`] (`attribute`) when the attribute
    /// does not have one value per node.
    pub fn by_attribute<T: Ord>(graph: Graph, attribute: &[T]) -> Result<Self> {
        if attribute.len() != graph.num_nodes() {
            return Err(FedError::param(
                "attribute",
                attribute.len(),
                "needs one value per node",
            ));
        }
        let p = Partition::by_attribute(attribute);
        Self::new(graph, p)
    }

    /// A balanced random partition into `num_clients` clients.
    ///
    /// # Errors
    /// As [`FederatedGraph::new`].
    pub fn random<R: Rng + ?Sized>(graph: Graph, num_clients: usize, rng: &mut R) -> Result<Self> {
        check_clients(num_clients, graph.num_nodes())?;
        let p = Partition::random(graph.num_nodes(), num_clients, rng)?;
        Self::new(graph, p)
    }

    /// A community partition (label propagation packed into `num_clients` parts, graph-core's
    /// [`Partition::community`]): few cross edges, as between banks with distinct customer bases.
    ///
    /// # Errors
    /// As [`FederatedGraph::new`]; graph-core's error when fewer communities than clients exist.
    pub fn community<R: Rng + ?Sized>(
        graph: Graph,
        num_clients: usize,
        rng: &mut R,
    ) -> Result<Self> {
        check_clients(num_clients, graph.num_nodes())?;
        let p = Partition::community(&graph, num_clients, rng)?;
        Self::new(graph, p)
    }

    /// The whole graph (simulation side; a deployed client only has its [`ClientTopology`]).
    pub fn graph(&self) -> &Graph {
        &self.graph
    }
    /// The partition.
    pub fn partition(&self) -> &Partition {
        &self.partition
    }
    /// Number of clients N.
    pub fn num_clients(&self) -> usize {
        self.clients.len()
    }
    /// All client topologies, by id.
    pub fn clients(&self) -> &[ClientTopology] {
        &self.clients
    }

    /// The share of the graph's edges whose ends lie at two clients (0 without edges): how
    /// much sharing could bring.
    ///
    /// # Example
    /// ```
    /// use cefedgnn::federation::FederatedGraph;
    /// use graph_core::GraphBuilder;
    /// let mut b = GraphBuilder::new(4)?;
    /// for (u, v) in [(0, 1), (1, 2), (2, 3)] {
    ///     b.add_edge(u, v)?;
    /// }
    /// let fed = FederatedGraph::by_attribute(b.build()?, &[0, 0, 1, 1])?;
    /// assert!((fed.cross_edge_share() - 1.0 / 3.0).abs() < 1e-12);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn cross_edge_share(&self) -> f64 {
        let m = self.graph.num_edges();
        if m == 0 {
            return 0.0;
        }
        // Each cross edge is in the lists of both its clients.
        let listed: usize = self.clients.iter().map(|c| c.cross_edges().len()).sum();
        listed as f64 / 2.0 / m as f64
    }
    /// The topology of client `id`.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] (`client`) for an unknown id.
    pub fn client(&self, id: u32) -> Result<&ClientTopology> {
        self.clients
            .get(id as usize)
            .ok_or_else(|| FedError::param("client", id, "no such client"))
    }
    /// The owner of node `v`.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] (`node`) for an id out of range.
    pub fn owner(&self, v: u32) -> Result<u32> {
        self.partition
            .assignment()
            .get(v as usize)
            .copied()
            .ok_or_else(|| FedError::param("node", v, "node id out of range"))
    }

    /// Cross-edge statistics.
    ///
    /// # Errors
    /// Only graph-core's shape error, which cannot occur for a value built by [`FederatedGraph::new`].
    pub fn stats(&self) -> Result<CrossEdgeStats> {
        let total = self.graph.num_edges();
        let cross = self.partition.cross_edges(&self.graph)?;
        Ok(CrossEdgeStats {
            num_clients: self.clients.len(),
            total_edges: total,
            cross_edges: cross,
            cross_fraction: if total == 0 {
                0.0
            } else {
                cross as f64 / total as f64
            },
            per_client: self
                .clients
                .iter()
                .map(|c| ClientStats {
                    nodes: c.nodes.len(),
                    local_edges: c.local_edges.len(),
                    cross_edges: c.cross_edges.len(),
                    boundary: c.boundary.len(),
                    halo: c.halo.len(),
                })
                .collect(),
            edge_matrix: self.partition.edge_matrix(&self.graph)?,
        })
    }
}

fn check_clients(num_clients: usize, n: usize) -> Result<()> {
    if num_clients < 2 || num_clients > n {
        return Err(FedError::param(
            "num_clients",
            num_clients,
            "needs at least 2 clients and at most one client per node",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Hand-made graph: clients A = {0,1,2}, B = {3,4}, C = {5}.
    /// Edges: 0-1, 1-2 (A local), 2-3, 1-4 (A-B), 3-4 (B local), 4-5 (B-C), 0-5 (A-C).
    fn hand_made() -> FederatedGraph {
        let g = Graph::from_edges(6, &[(0, 1), (1, 2), (2, 3), (1, 4), (3, 4), (4, 5), (0, 5)])
            .unwrap();
        FederatedGraph::new(g, Partition::by_attribute(&["A", "A", "A", "B", "B", "C"])).unwrap()
    }

    #[test]
    fn boundary_and_halo_on_hand_made_partition() {
        let f = hand_made();
        let a = f.client(0).unwrap();
        assert_eq!(a.nodes(), &[0, 1, 2]);
        assert_eq!(a.local_edges(), &[(0, 1), (1, 2)]);
        assert_eq!(a.cross_edges(), &[(0, 5), (1, 4), (2, 3)]);
        assert_eq!(a.boundary(), &[0, 1, 2]);
        assert_eq!(a.halo(), &[3, 4, 5]);
        assert_eq!(a.halo_owners(), &[1, 1, 2]);
        let b = f.client(1).unwrap();
        assert_eq!(b.boundary(), &[3, 4]);
        assert_eq!(b.halo(), &[1, 2, 5]);
        assert_eq!(b.local_edges(), &[(3, 4)]);
        let c = f.client(2).unwrap();
        assert_eq!(c.boundary(), &[5]);
        assert_eq!(c.halo(), &[0, 4]);
        assert!(c.local_edges().is_empty());
        assert!(a.is_halo(4) && !a.is_halo(1) && a.owns(1) && !a.owns(3));
        assert_eq!(b.local_index(4), Some(1));
        assert_eq!(b.local_index(0), None);
        let s = f.stats().unwrap();
        assert_eq!((s.total_edges, s.cross_edges), (7, 4));
        assert!((s.cross_fraction - 4.0 / 7.0).abs() < 1e-12);
        assert_eq!(s.edge_matrix[0][1], 2);
        assert_eq!(s.per_client[2].halo, 2);
        // Every cross edge is seen from both ends.
        let total_cross: usize = s.per_client.iter().map(|c| c.cross_edges).sum();
        assert_eq!(total_cross, 2 * s.cross_edges);
    }

    #[test]
    fn bad_client_counts_are_typed_errors() {
        let g = Graph::from_edges(3, &[(0, 1)]).unwrap();
        let one = FederatedGraph::new(g.clone(), Partition::by_attribute(&[0, 0, 0]));
        assert!(matches!(
            one,
            Err(FedError::InvalidParam {
                name: "num_clients",
                ..
            })
        ));
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        assert!(matches!(
            FederatedGraph::random(g.clone(), 4, &mut rng),
            Err(FedError::InvalidParam {
                name: "num_clients",
                ..
            })
        ));
        assert!(FederatedGraph::random(g.clone(), 1, &mut rng).is_err());
        assert!(matches!(
            FederatedGraph::by_attribute(g.clone(), &[0, 1]),
            Err(FedError::InvalidParam {
                name: "attribute",
                ..
            })
        ));
        let f = FederatedGraph::random(g, 3, &mut rng).unwrap();
        assert!(f.client(3).is_err());
        assert!(f.owner(7).is_err());
    }

    #[test]
    fn random_and_community_partitions_cover_all_nodes() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let (g, _) =
            graph_core::generate::sbm(&[40, 40, 40], 0.2, 0.01, &mut rng).expect("valid sbm");
        for f in [
            FederatedGraph::random(g.clone(), 3, &mut rng).unwrap(),
            FederatedGraph::community(g.clone(), 3, &mut rng).unwrap(),
        ] {
            let owned: usize = f.clients().iter().map(|c| c.nodes().len()).sum();
            assert_eq!(owned, 120);
            for c in f.clients() {
                for &(own, remote) in c.cross_edges() {
                    assert!(c.owns(own) && !c.owns(remote) && c.is_boundary(own));
                    assert_eq!(
                        f.owner(remote).unwrap(),
                        c.halo_owners()[c.halo().binary_search(&remote).unwrap()]
                    );
                }
            }
        }
    }
}
