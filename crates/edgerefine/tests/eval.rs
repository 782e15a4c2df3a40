//! The evaluation layer (`edgerefine::eval`) through its public API: per-graph releases, and
//! (feature `train`) GNNs trained on releases.

mod common;

use common::cycles_and_stars;
use dp_core::params::Epsilon;
use edgerefine::TieBreak;
use edgerefine::eval::{EdgeCount, Method, release_graph_set};

#[test]
fn per_graph_release_keeps_each_graph_and_its_labels() {
    let ds = cycles_and_stars(20);
    let er = Method::EdgeRefine {
        k: 1.0,
        tie_break: TieBreak::Default,
        edge_count: EdgeCount::Supplied,
    };
    let (rel, s) = release_graph_set(&ds, er, Epsilon::constant(2.0), 5).unwrap();
    assert_eq!(rel.graphs().len(), 20);
    for (a, b) in ds.graphs().iter().zip(rel.graphs()) {
        assert_eq!(a.num_nodes(), b.num_nodes());
        // K = E, but each side (noisy edges, noisy non-edges) gives at most what it has.
        assert!(b.num_edges() <= a.num_edges());
    }
    assert_eq!(s.true_edges, 10 * 8 + 10 * 7);
    assert!(
        s.edges <= s.true_edges && s.edges * 2 > s.true_edges,
        "{}",
        s.edges
    );
    assert_eq!(rel.node_labels(), ds.node_labels());
    assert_eq!(rel.targets(), ds.targets());
    let (again, _) = release_graph_set(&ds, er, Epsilon::constant(2.0), 5).unwrap();
    assert_eq!(again.graphs(), rel.graphs(), "same seed, same release");
    let (origin, s) = release_graph_set(&ds, Method::Origin, Epsilon::constant(1.0), 0).unwrap();
    assert_eq!(origin.graphs(), ds.graphs());
    assert_eq!((s.precision, s.recall), (1.0, 1.0));
}

#[cfg(feature = "train")]
mod train {
    use super::common::{cycles_and_stars, sbm};
    use edgerefine::eval::{
        GraphModel, Method, NodeModel, TrainPlan, release_graph_set, train_graph_release,
        train_on_release,
    };
    use graph_core::Graph;

    fn plan(epochs: usize) -> TrainPlan {
        TrainPlan::edgerefine(NodeModel::Gcn, 1).with_epochs(epochs, Some(epochs))
    }

    #[test]
    fn training_on_the_true_graph_beats_no_graph_on_a_homophilous_sbm() {
        let ds = sbm(2);
        let empty = Graph::empty(240).unwrap();
        let with = train_on_release(&ds, ds.graph(), None, &plan(60)).unwrap();
        let without = train_on_release(&ds, &empty, None, &plan(60)).unwrap();
        assert!(
            with.test_acc > without.test_acc + 0.1,
            "{} vs {}",
            with.test_acc,
            without.test_acc
        );
        let wrong = Graph::empty(10).unwrap();
        assert!(train_on_release(&ds, &wrong, None, &plan(5)).is_err());
    }

    #[test]
    fn graph_classification_needs_the_edges() {
        // Constant node labels: only the structure separates cycles from stars.
        let ds = cycles_and_stars(40);
        let with = train_graph_release(&ds, GraphModel::Gin, 3).unwrap();
        let (empty, _) = release_graph_set(
            &ds,
            Method::NoGraph,
            dp_core::params::Epsilon::constant(1.0),
            0,
        )
        .unwrap();
        let without = train_graph_release(&empty, GraphModel::Gin, 3).unwrap();
        assert!(with.test_acc >= 0.99, "{}", with.test_acc);
        assert!(without.test_acc <= 0.75, "{}", without.test_acc);
    }
}
