//! Tests of the artifact's calibrations: hand-worked releases, agreement with the production
//! server under the authors' tie-break, and the selection against a literal sort of all pairs.

use dp_core::params::Epsilon;

use super::*;
use crate::server::{RefineParams, TieBreak, refine};
use graph_core::generate::erdos_renyi;

/// The server tests' six-node noisy graph: Jaccard ¼ at (0,2) (1,2) (2,4), ⅓ at (0,1) (0,3)
/// (1,3), ½ at (3,5), 0 elsewhere.
fn six() -> Graph {
    Graph::from_edges(6, &[(0, 1), (0, 2), (1, 2), (2, 3), (3, 4), (4, 5)]).unwrap()
}

fn params(cal: ArtifactCalibration, eps: f64, e: u64, k: f64) -> CalibratedParams {
    CalibratedParams {
        k,
        ..CalibratedParams::new(Epsilon::new(eps).unwrap(), e, cal)
    }
}

fn edges(g: &Graph) -> Vec<(u32, u32)> {
    g.edges().collect()
}

#[test]
fn six_node_releases_worked_by_hand() {
    // ε = ln 3: ρ = ¾, K = 4 → 3 noisy edges and 1 non-edge.
    let eps = 3f64.ln();
    // Simple ranks by Jaccard, ties by index: edges (0,1) ⅓, (0,2) ¼, (1,2) ¼; non-edge (3,5) ½.
    let r = refine_calibrated(&six(), &params(ArtifactCalibration::Simple, eps, 4, 1.0)).unwrap();
    assert_eq!((r.k_target, r.k_real, r.k_fake), (4, 3, 1));
    assert_eq!(edges(&r.graph), vec![(0, 1), (0, 2), (1, 2), (3, 5)]);
    // Histogram with 3 bins: as the server's hand-worked example (two bins, L = 3/8 and 3/7),
    // the first non-edge of the upper bin by index is (0,3).
    let mut p = params(ArtifactCalibration::Histogram, eps, 4, 1.0);
    p.bins = 3;
    let r = refine_calibrated(&six(), &p).unwrap();
    assert_eq!(edges(&r.graph), vec![(0, 1), (0, 2), (0, 3), (1, 2)]);
    assert_eq!(r.levels, 2);
    assert!(r.fitted.contains("2 bins"), "{}", r.fitted);
}

#[test]
fn histogram_agrees_with_the_server_under_the_reference_tie_break() {
    for (seed, eps, k) in [(1, 1.0, 0.05), (2, 2.0, 0.3), (3, 0.5, 1.0)] {
        let g = erdos_renyi(120, 0.06, &mut dp_core::rng::seeded_rng(seed)).unwrap();
        let noisy = crate::perturb(
            &g,
            Epsilon::new(eps).unwrap(),
            &mut dp_core::rng::seeded_rng(seed + 10),
        )
        .unwrap();
        let e = g.num_edges() as u64;
        let ours =
            refine_calibrated(&noisy, &params(ArtifactCalibration::Histogram, eps, e, k)).unwrap();
        let server = refine(
            &noisy,
            &RefineParams {
                k,
                tie_break: TieBreak::Reference,
                ..RefineParams::new(Epsilon::new(eps).unwrap(), e)
            },
        )
        .unwrap();
        assert_eq!(edges(&ours.graph), edges(&server.graph), "seed {seed}");
        assert_eq!((ours.k_real, ours.k_fake), (server.k_real, server.k_fake));
    }
}

#[test]
fn simple_and_temperature_rank_alike() {
    // Temperature scaling is increasing in the score and the scaled Jaccard stays ≤ ½, where it
    // does not saturate: the same release as `simple`.
    let g = erdos_renyi(150, 0.05, &mut dp_core::rng::seeded_rng(4)).unwrap();
    let noisy = crate::perturb(
        &g,
        Epsilon::new(1.5).unwrap(),
        &mut dp_core::rng::seeded_rng(5),
    )
    .unwrap();
    let e = g.num_edges() as u64;
    let s = refine_calibrated(&noisy, &params(ArtifactCalibration::Simple, 1.5, e, 0.2)).unwrap();
    let t = refine_calibrated(
        &noisy,
        &params(ArtifactCalibration::Temperature, 1.5, e, 0.2),
    )
    .unwrap();
    assert_eq!(edges(&s.graph), edges(&t.graph));
    assert!(t.fitted.starts_with("temperature T = "), "{}", t.fitted);
}

/// The artifact's selection, literally: every pair with its calibrated probability, sorted
/// stably by descending probability, the first `k_real` noisy edges and `k_fake` non-edges.
fn literal(noisy: &Graph, p: &CalibratedParams) -> Vec<(u32, u32)> {
    let n = noisy.num_nodes();
    let bits = noisy.bit_adjacency();
    let scores = match p.calibration {
        ArtifactCalibration::AdamicAdar => adamic_adar(noisy),
        _ => half_jaccard(noisy, &bits),
    };
    let (groups, of_pair) = group(n, &scores, &bits);
    let (prob, _) = calibrate(&groups, p).unwrap();
    let mut cands: [Vec<(f64, (u32, u32))>; 2] = [Vec::new(), Vec::new()];
    for i in 0..n {
        for j in i + 1..n {
            let l = prob[of_pair[pair_index(n, i, j)] as usize];
            let f = usize::from(bits.contains(i, j));
            cands[f].push((l, (i as u32, j as u32)));
        }
    }
    let r = refine_calibrated(noisy, p).unwrap();
    let mut out = Vec::new();
    for (f, take) in [(1usize, r.k_real), (0, r.k_fake)] {
        cands[f].sort_by(|a, b| b.0.total_cmp(&a.0));
        out.extend(cands[f].iter().take(take as usize).map(|c| c.1));
    }
    out.sort_unstable();
    out
}

#[test]
fn every_calibration_selects_as_a_stable_sort_of_all_pairs() {
    let g = erdos_renyi(90, 0.08, &mut dp_core::rng::seeded_rng(6)).unwrap();
    let noisy = crate::perturb(
        &g,
        Epsilon::new(1.0).unwrap(),
        &mut dp_core::rng::seeded_rng(7),
    )
    .unwrap();
    let e = g.num_edges() as u64;
    for &cal in ArtifactCalibration::ALL {
        for k in [0.05, 0.5] {
            let p = params(cal, 1.0, e, k);
            let r = refine_calibrated(&noisy, &p).unwrap();
            assert_eq!(edges(&r.graph), literal(&noisy, &p), "{} k={k}", cal.name());
            assert_eq!(r.graph.num_edges() as u64, r.k_real + r.k_fake);
            assert_eq!(r.k_target, (k * e as f64).floor() as u64);
        }
    }
}

#[test]
fn adamic_adar_sums_inverse_log_degrees_of_common_neighbours() {
    let g = erdos_renyi(40, 0.2, &mut dp_core::rng::seeded_rng(8)).unwrap();
    let aa = adamic_adar(&g);
    let n = g.num_nodes();
    for i in 0..n as u32 {
        for j in i + 1..n as u32 {
            let want: f64 = g
                .neighbors(i)
                .iter()
                .filter(|v| g.neighbors(j).contains(v) && g.degree(**v) > 1)
                .map(|&v| 1.0 / (g.degree(v) as f64).ln())
                .sum();
            let got = aa[pair_index(n, i as usize, j as usize)];
            assert!((got - want).abs() < 1e-12, "({i},{j}) {got} {want}");
        }
    }
}

#[test]
fn the_beta_split_is_seeded() {
    let g = erdos_renyi(100, 0.08, &mut dp_core::rng::seeded_rng(9)).unwrap();
    let noisy = crate::perturb(
        &g,
        Epsilon::new(2.0).unwrap(),
        &mut dp_core::rng::seeded_rng(10),
    )
    .unwrap();
    let e = g.num_edges() as u64;
    let p = params(ArtifactCalibration::Beta, 2.0, e, 0.3);
    let a = refine_calibrated(&noisy, &p).unwrap();
    let b = refine_calibrated(&noisy, &p).unwrap();
    assert_eq!(edges(&a.graph), edges(&b.graph));
    assert_eq!(a.fitted, b.fitted);
    assert!(a.fitted.starts_with("beta edges"), "{}", a.fitted);
}

#[test]
fn hostile_parameters_are_typed_errors() {
    // A bad ε is refused where it becomes an `Epsilon`, before any params exist.
    assert!(Epsilon::new(0.0).is_err() && Epsilon::new(f64::NAN).is_err());
    let g = six();
    let ok = params(ArtifactCalibration::Simple, 1.0, 6, 0.5);
    for bad in [
        CalibratedParams {
            k: 0.0,
            ..ok.clone()
        },
        CalibratedParams {
            k: 1.5,
            ..ok.clone()
        },
        CalibratedParams {
            bins: 1,
            ..ok.clone()
        },
    ] {
        assert!(
            matches!(
                refine_calibrated(&g, &bad),
                Err(EdgeRefineError::InvalidParam { .. })
            ),
            "{bad:?}"
        );
    }
    let one = Graph::empty(1).unwrap();
    assert!(refine_calibrated(&one, &ok).is_err(), "no pair");
    let big = Graph::empty(ALL_PAIRS_MAX_NODES + 1).unwrap();
    assert!(matches!(
        refine_calibrated(&big, &ok),
        Err(EdgeRefineError::TooLarge { .. })
    ));
    // An empty noisy graph: every score 0, nothing to take from noisy edges.
    let empty = Graph::empty(10).unwrap();
    let r = refine_calibrated(&empty, &params(ArtifactCalibration::Beta, 1.0, 20, 0.5)).unwrap();
    assert_eq!((r.k_real, r.k_fake), (0, 3));
    assert_eq!(
        edges(&r.graph),
        vec![(0, 1), (0, 2), (0, 3)],
        "ties by index"
    );
}
