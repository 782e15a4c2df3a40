//! Generated fixtures shared by the integration tests.
#![allow(dead_code, unreachable_pub)] // each test binary uses its own subset

use graph_core::generate::ContextualSbm;
use graph_core::{Graph, GraphDataset, NodeDataset, Targets};

/// A homophilous 3-class SBM with weak features (240 nodes): the graph matters.
pub fn sbm(seed: u64) -> NodeDataset {
    ContextualSbm {
        n: 240,
        classes: 3,
        p_in: 0.08,
        p_out: 0.004,
        dim: 8,
        mu: 0.8,
    }
    .sample(&mut dp_core::rng::seeded_rng(seed))
    .unwrap()
}

/// Cycles (class 0) against stars (class 1), 8 nodes each, constant node labels: only the
/// structure separates the classes.
pub fn cycles_and_stars(count: usize) -> GraphDataset {
    let mut graphs = Vec::new();
    let mut labels = Vec::new();
    for i in 0..count {
        let edges: Vec<(u32, u32)> = if i % 2 == 0 {
            (0..8).map(|u| (u, (u + 1) % 8)).collect()
        } else {
            (1..8).map(|u| (0, u)).collect()
        };
        graphs.push(Graph::from_edges(8, &edges).unwrap());
        labels.push((i % 2) as u32);
    }
    let targets = Targets::Class {
        labels,
        num_classes: 2,
        original: vec![0, 1],
    };
    GraphDataset::new("toy", graphs, targets)
        .unwrap()
        .with_node_labels(vec![vec![0; 8]; count])
        .unwrap()
}
