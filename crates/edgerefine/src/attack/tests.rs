//! Tests of the attack: deductions and RAE.

use super::*;
use graph_core::generate::erdos_renyi;

#[test]
fn rae_hand_example() {
    // Truth: edges {0,1}, {1,2} (‖A‖² = 4). Estimate: (0,1)=1 ✓, (1,2)=2 (unknown edge: 1),
    // (0,2)=1 (false edge: 1), (0,3)=2 (unknown non-edge: 4), rest 0. Upper sum 6 → RAE 12/4.
    let truth = Graph::from_edges(4, &[(0, 1), (1, 2)]).unwrap();
    let mut est = vec![0u8; 16];
    for (i, j, v) in [(0, 1, 1), (1, 2, 2), (0, 2, 1), (0, 3, 2)] {
        est[i * 4 + j] = v;
        est[j * 4 + i] = v;
    }
    assert_eq!(rae_dense(&est, &truth).unwrap(), 3.0);
    let all_unknown: Vec<u8> = (0..16).map(|k| if k % 5 == 0 { 0 } else { 2 }).collect();
    // 2 unknown edges (1 each) + 4 unknown non-edges (4 each) = 18 → 36 / 4.
    assert_eq!(rae_dense(&all_unknown, &truth).unwrap(), 9.0);
    assert!(rae_dense(&est[..15], &truth).is_err());
    assert!(rae_dense(&est, &Graph::empty(4).unwrap()).is_err());
}

#[test]
fn leaf_and_degree_steps_reconstruct_small_graphs() {
    // Path with an isolated node: degree step (node 3) and the leaf rule decide everything.
    let path = Graph::from_edges(4, &[(0, 1), (1, 2)]).unwrap();
    let rec = grand_attack(&path, &AttackParams::default()).unwrap();
    assert_eq!(rec.known(), (2, 4, 0));
    for i in 0..4 {
        for j in 0..4 {
            let want = u8::from(path.has_edge(i as u32, j as u32));
            assert_eq!(rec.entry(i, j), want, "({i}, {j})");
        }
    }
    assert!(rec.steps.degree > 0);
    // A star: full row for the centre; leaves share the centre (M = 1 = min degree ⇒ 0).
    let star = Graph::from_edges(4, &[(0, 1), (0, 2), (0, 3)]).unwrap();
    let rec = grand_attack(&star, &AttackParams::default()).unwrap();
    assert_eq!(rec.known(), (3, 3, 0));
    assert_eq!(rec.rae(&star).unwrap(), 0.0);
}

#[test]
fn every_deduction_is_sound_on_random_graphs() {
    let mut rng = dp_core::rng::seeded_rng(51);
    let mut total = StepCounts::default();
    for (n, p) in [(40, 0.05), (60, 0.1), (50, 0.5), (30, 0.9), (80, 0.03)] {
        let g = erdos_renyi(n, p, &mut rng).unwrap();
        let rec = grand_attack(&g, &AttackParams::default()).unwrap();
        for i in 0..n {
            for j in 0..n {
                let e = rec.entry(i, j);
                if e != 2 {
                    assert_eq!(e, u8::from(g.has_edge(i as u32, j as u32)), "n {n} p {p}");
                }
            }
        }
        total.degree += rec.steps.degree;
        total.common_neighbour += rec.steps.common_neighbour;
        total.triangle += rec.steps.triangle;
        total.completion += rec.steps.completion;
        // The class counts agree with the dense definition.
        let dense: Vec<u8> = (0..n * n).map(|k| rec.entry(k / n, k % n)).collect();
        if g.num_edges() > 0 {
            let a = rec.rae(&g).unwrap();
            let b = rae_dense(&dense, &g).unwrap();
            assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        }
    }
    // Each step fires somewhere in this mix.
    assert!(total.degree > 0 && total.common_neighbour > 0, "{total:?}");
    assert!(total.triangle > 0 && total.completion > 0, "{total:?}");
}

#[test]
fn release_rae_and_errors() {
    let truth = Graph::from_edges(5, &[(0, 1), (1, 2), (3, 4)]).unwrap();
    // Release = truth: 0. Release = a disjoint graph with as many edges: 2.
    assert_eq!(release_rae(&truth, &truth).unwrap(), 0.0);
    let other = Graph::from_edges(5, &[(0, 2), (0, 3), (1, 4)]).unwrap();
    assert_eq!(release_rae(&other, &truth).unwrap(), 2.0);
    assert!(matches!(
        release_rae(&Graph::empty(4).unwrap(), &truth),
        Err(EdgeRefineError::NodeCountMismatch { .. })
    ));
    assert!(matches!(
        grand_attack(&truth, &AttackParams { max_rounds: 0 }),
        Err(EdgeRefineError::InvalidParam { .. })
    ));
    let rec = grand_attack(&other, &AttackParams::default()).unwrap();
    assert!(matches!(
        rec.rae(&Graph::empty(4).unwrap()),
        Err(EdgeRefineError::NodeCountMismatch { .. })
    ));
}
