//! FedGCN's one pre-training exchange (Yao et al. 2023, 1-hop): every client uploads, for each
//! node with a neighbour (or itself) among its own nodes, the sum of its own nodes' feature
//! rows in that neighbourhood; the server adds the clients' parts and returns to each client
//! the full aggregate of its own nodes. Simulated here by computing the aggregates directly,
//! with the bytes that exchange would move.

use ndarray::Array2;

use super::FedTask;

/// Row `i` = Σ_{j ∈ N(i) ∪ {i}} x_j / √(d̃_i d̃_j), d̃ = degree + 1 in the whole graph: the
/// symmetric GCN normalisation (FedGCN-v2's option \[R\]; the original sends raw sums), i.e.
/// `Â X` of the global graph.
///
/// # Complexity
/// O((n + m)·d).
pub(crate) fn aggregates(task: &FedTask) -> Array2<f32> {
    let g = task.fed.graph();
    let x = &task.features;
    let deg: Vec<f32> = (0..g.num_nodes() as u32)
        .map(|v| (g.degree(v) + 1) as f32)
        .collect();
    let mut out = Array2::<f32>::zeros(x.dim());
    for i in 0..g.num_nodes() {
        let mut row = out.row_mut(i);
        row.scaled_add(1.0 / deg[i], &x.row(i));
        for &j in g.neighbors(i as u32) {
            let j = j as usize;
            if j != i {
                row.scaled_add(1.0 / (deg[i] * deg[j]).sqrt(), &x.row(j));
            }
        }
    }
    out
}

/// Bytes of the exchange as float32 rows: up, client k's partial rows for its own nodes and
/// their remote neighbours (|V_k| + |halo_k| rows); down, the aggregates of its own nodes
/// (|V_k| rows).
pub(crate) fn traffic(task: &FedTask) -> (u64, u64) {
    let row = task.features.ncols() as u64 * 4;
    task.fed.clients().iter().fold((0, 0), |(up, down), c| {
        let own = c.nodes().len() as u64;
        let halo = c.halo().len() as u64;
        (up + (own + halo) * row, down + own * row)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::federation::FederatedGraph;
    use crate::train::Metric;
    use graph_core::{Graph, NodeSplit, Partition};

    /// A path 0 - 1 - 2 with clients {0, 1} and {2}.
    fn path() -> FedTask {
        let g = Graph::from_edges(3, &[(0, 1), (1, 2)]).unwrap();
        let fed = FederatedGraph::new(g, Partition::by_attribute(&[0, 0, 1])).unwrap();
        let x = Array2::from_shape_vec((3, 2), vec![1.0, 0.0, 0.0, 2.0, 4.0, 4.0]).unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
        let split = NodeSplit::random(3, 0.34, 0.33, &mut rng).unwrap();
        FedTask::new(
            "path",
            fed,
            x,
            vec![0, 1, 0],
            2,
            split,
            None,
            Metric::MacroF1,
        )
        .unwrap()
    }

    use rand::SeedableRng;

    #[test]
    fn aggregates_are_the_normalised_adjacency_times_the_features() {
        let t = path();
        let a = aggregates(&t);
        // d̃ = (2, 3, 2). Row 1: x0/√6 + x1/3 + x2/√6.
        let r1 = [
            1.0 / 6f32.sqrt() + 4.0 / 6f32.sqrt(),
            2.0 / 3.0 + 4.0 / 6f32.sqrt(),
        ];
        for (got, want) in a.row(1).iter().zip(r1) {
            assert!((got - want).abs() < 1e-6, "{got} vs {want}");
        }
        // Row 0: x0/2 + x1/√6.
        assert!((a[[0, 0]] - 0.5).abs() < 1e-6);
        assert!((a[[0, 1]] - 2.0 / 6f32.sqrt()).abs() < 1e-6);
    }

    #[test]
    fn traffic_counts_own_and_halo_rows_up_and_own_rows_down() {
        let t = path();
        // Client 0: 2 own + 1 halo up, 2 down; client 1: 1 own + 1 halo up, 1 down; 8 B a row.
        assert_eq!(traffic(&t), ((3 + 2) * 8, 3 * 8));
    }
}
