//! [`ClientData`]: the private features and labels of one client's own nodes.

use ndarray::{Array2, ArrayView1, ArrayView2};

use super::setting::{ClientTopology, FederatedGraph};
use crate::error::{FedError, Result};

/// The private data of one client: features and labels of its own nodes only, with its train
/// mask. Rows are in the order of [`ClientTopology::nodes`].
///
/// The type holds no row of any other client, so code that is handed a `ClientData` cannot read
/// another client's features or labels: lookups of a foreign node id return `None`.
///
/// # Example
/// ```
/// use cefedgnn::federation::FederatedGraph;
/// use graph_core::{Graph, Partition};
/// use ndarray::array;
/// let g = Graph::from_edges(3, &[(0, 1), (1, 2)])?;
/// let fed = FederatedGraph::new(g, Partition::by_attribute(&[0, 1, 1]))?;
/// let x = array![[1.0f32], [2.0], [3.0]];
/// let parts = fed.distribute(&x, &[0, 1, 0], None)?;
/// assert_eq!(parts[1].features().nrows(), 2);
/// assert_eq!(parts[1].features_of(2).map(|r| r[0]), Some(3.0));
/// assert!(parts[1].features_of(0).is_none()); // client 1 cannot read node 0
/// # Ok::<(), cefedgnn::FedError>(())
/// ```
#[derive(Clone, Debug)]
pub struct ClientData {
    client: u32,
    nodes: Vec<u32>,
    features: Array2<f32>,
    labels: Vec<u32>,
    train: Vec<bool>,
}

impl ClientData {
    /// A client's own data, as loaded by the client itself in a deployment.
    ///
    /// # Errors
    /// [`FedError::Inconsistent`] when the rows, labels or mask do not match the topology's nodes,
    /// or a feature is not finite.
    pub fn new(
        topology: &ClientTopology,
        features: Array2<f32>,
        labels: Vec<u32>,
        train: Vec<bool>,
    ) -> Result<Self> {
        let n = topology.nodes().len();
        if features.nrows() != n || labels.len() != n || train.len() != n {
            return Err(FedError::Inconsistent(format!(
                "client {}: {} nodes but {} feature rows, {} labels, {} mask entries",
                topology.id(),
                n,
                features.nrows(),
                labels.len(),
                train.len()
            )));
        }
        if let Some(((r, c), _)) = features.indexed_iter().find(|(_, v)| !v.is_finite()) {
            return Err(FedError::Inconsistent(format!(
                "client {}: non-finite feature at local row {r}, column {c}",
                topology.id()
            )));
        }
        Ok(Self {
            client: topology.id(),
            nodes: topology.nodes().to_vec(),
            features,
            labels,
            train,
        })
    }

    /// The owning client.
    pub fn client(&self) -> u32 {
        self.client
    }
    /// Own node ids (global), ascending; row `i` of the features belongs to `nodes()[i]`.
    pub fn nodes(&self) -> &[u32] {
        &self.nodes
    }
    /// Feature rows of own nodes.
    pub fn features(&self) -> ArrayView2<'_, f32> {
        self.features.view()
    }
    /// Labels of own nodes.
    pub(crate) fn labels(&self) -> &[u32] {
        &self.labels
    }
    /// Train mask over own nodes.
    pub(crate) fn train_mask(&self) -> &[bool] {
        &self.train
    }
    /// Number of own training nodes (the server's averaging weight).
    pub fn train_size(&self) -> usize {
        self.train.iter().filter(|&&t| t).count()
    }
    /// Features of node `v` if this client owns it, `None` otherwise.
    pub fn features_of(&self, v: u32) -> Option<ArrayView1<'_, f32>> {
        let i = self.nodes.binary_search(&v).ok()?;
        Some(self.features.row(i))
    }
    /// Label of node `v` if this client owns it, `None` otherwise.
    pub fn label_of(&self, v: u32) -> Option<u32> {
        let i = self.nodes.binary_search(&v).ok()?;
        Some(self.labels[i])
    }
}

impl FederatedGraph {
    /// Simulation only: splits global features, labels and train mask into one [`ClientData`]
    /// per client (client `i` receives the rows of its own nodes and nothing else).
    ///
    /// # Arguments
    /// * `features` — one row per node of the graph.
    /// * `labels` — one label per node.
    /// * `train` — train mask per node; `None` marks every node as training.
    ///
    /// # Errors
    /// [`FedError::Inconsistent`] when a shape differs from the node count or a feature is not
    /// finite.
    pub fn distribute(
        &self,
        features: &Array2<f32>,
        labels: &[u32],
        train: Option<&[bool]>,
    ) -> Result<Vec<ClientData>> {
        let n = self.graph().num_nodes();
        if features.nrows() != n || labels.len() != n || train.is_some_and(|t| t.len() != n) {
            return Err(FedError::Inconsistent(format!(
                "graph has {n} nodes, got {} feature rows, {} labels and a mask of {:?}",
                features.nrows(),
                labels.len(),
                train.map(<[bool]>::len)
            )));
        }
        self.clients()
            .iter()
            .map(|c| {
                let idx: Vec<usize> = c.nodes().iter().map(|&v| v as usize).collect();
                let rows = features.select(ndarray::Axis(0), &idx);
                let l = idx.iter().map(|&i| labels[i]).collect();
                let t = idx.iter().map(|&i| train.is_none_or(|m| m[i])).collect();
                ClientData::new(c, rows, l, t)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use graph_core::{Graph, Partition};
    use ndarray::array;

    #[test]
    fn each_client_gets_only_its_rows() {
        let g = Graph::from_edges(4, &[(0, 1), (1, 2), (2, 3)]).unwrap();
        let fed = FederatedGraph::new(g, Partition::by_attribute(&[1, 0, 1, 0])).unwrap();
        let x = array![[0.0f32, 0.5], [1.0, 1.5], [2.0, 2.5], [3.0, 3.5]];
        let parts = fed
            .distribute(&x, &[7, 8, 9, 10], Some(&[true, false, true, true]))
            .unwrap();
        assert_eq!(parts[0].nodes(), &[1, 3]);
        assert_eq!(parts[0].features(), array![[1.0f32, 1.5], [3.0, 3.5]]);
        assert_eq!(parts[0].labels(), &[8, 10]);
        assert_eq!(parts[0].train_size(), 1);
        assert_eq!(parts[1].label_of(2), Some(9));
        assert_eq!(parts[1].label_of(1), None);
        assert!(fed.distribute(&x, &[1, 2], None).is_err());
        let bad = array![[f32::NAN, 0.0], [0.0, 0.0]];
        assert!(ClientData::new(&fed.clients()[0], bad, vec![0, 0], vec![true; 2]).is_err());
    }
}
