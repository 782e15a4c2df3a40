//! Tests of the attack: deductions, the spectral step, RAE.

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
        grand_attack(
            &truth,
            &AttackParams {
                max_rounds: 0,
                ..AttackParams::sound()
            }
        ),
        Err(EdgeRefineError::InvalidParam { .. })
    ));
    let rec = grand_attack(&other, &AttackParams::default()).unwrap();
    assert!(matches!(
        rec.rae(&Graph::empty(4).unwrap()),
        Err(EdgeRefineError::NodeCountMismatch { .. })
    ));
}

/// An estimate with the given known ones and zeros (symmetric pair lists), the rest unknown.
fn estimate(n: usize, ones: &[(usize, usize)], zeros: &[(usize, usize)]) -> Reconstruction {
    let (mut one, mut zero) = (BitMatrix::new(n), BitMatrix::new(n));
    for &(i, j) in ones {
        one.set(i, j);
        one.set(j, i);
    }
    for &(i, j) in zeros {
        zero.set(i, j);
        zero.set(j, i);
    }
    Reconstruction {
        one,
        zero,
        guessed: BitMatrix::new(n),
        steps: StepCounts::default(),
        rounds: 0,
        spectral: None,
        rounded: None,
    }
}

fn pairs(n: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..n).flat_map(move |i| (i + 1..n).map(move |j| (i, j)))
}

fn cycle(n: usize) -> Graph {
    let edges: Vec<(u32, u32)> = (0..n as u32).map(|u| (u, (u + 1) % n as u32)).collect();
    Graph::from_edges(n, &edges).unwrap()
}

/// R² as a dense matrix (the diagonal holds the degrees).
fn square(entry: impl Fn(usize, usize) -> bool, n: usize) -> Vec<u32> {
    let mut m = vec![0; n * n];
    for i in 0..n {
        for j in 0..n {
            m[i * n + j] = (0..n).filter(|&k| entry(i, k) && entry(k, j)).count() as u32;
        }
    }
    m
}

#[test]
fn rae_identities() {
    let mut rng = dp_core::rng::seeded_rng(60);
    for (n, p) in [(12, 0.3), (30, 0.1), (25, 0.5)] {
        let g = erdos_renyi(n, p, &mut rng).unwrap();
        let (nn, m) = ((n * (n - 1) / 2) as f64, g.num_edges() as f64);
        let is_edge = |(i, j): (usize, usize)| g.has_edge(i as u32, j as u32);
        let edges: Vec<_> = pairs(n).filter(|&p| is_edge(p)).collect();
        let non_edges: Vec<_> = pairs(n).filter(|&p| !is_edge(p)).collect();
        let all: Vec<_> = pairs(n).collect();
        // A* = A: 0. Everything unknown: (m·1 + (N − m)·4)/m = (4N − 3m)/m. The empty graph:
        // every edge missed, 1. The complete graph: every non-edge false, (N − m)/m.
        assert_eq!(estimate(n, &edges, &non_edges).rae(&g).unwrap(), 0.0);
        assert_eq!(
            estimate(n, &[], &[]).rae(&g).unwrap(),
            (4.0 * nn - 3.0 * m) / m
        );
        assert_eq!(estimate(n, &[], &all).rae(&g).unwrap(), 1.0);
        assert_eq!(estimate(n, &all, &[]).rae(&g).unwrap(), (nn - m) / m);
        // The class counts agree with the dense definition on a mixed estimate.
        let half: Vec<_> = all.iter().copied().step_by(2).collect();
        let rec = estimate(n, &edges[..edges.len() / 2], &half);
        let dense: Vec<u8> = (0..n * n).map(|k| rec.entry(k / n, k % n)).collect();
        assert!((rec.rae(&g).unwrap() - rae_dense(&dense, &g).unwrap()).abs() < 1e-12);
    }
}

#[test]
fn spectral_step_recovers_cycles_the_deductions_cannot() {
    // No rule fires on a cycle of 7 or 9 nodes (every degree 2, every M_ij ≤ 1); the spectral
    // step recovers both exactly and keeps every guess (B² = M everywhere).
    for n in [7, 9] {
        let c = cycle(n);
        let sound = grand_attack(&c, &AttackParams::sound()).unwrap();
        assert_eq!(sound.decided(), 0, "C{n}");
        let rec = grand_attack(&c, &AttackParams::complete()).unwrap();
        let report = rec.spectral.unwrap();
        assert_eq!(
            (rec.decided(), rec.guesses(), report.forgotten),
            ((n * (n - 1) / 2) as u64, (n * (n - 1) / 2) as u64, 0),
            "C{n}"
        );
        assert_eq!(rec.rae(&c).unwrap(), 0.0, "C{n}");
        assert_eq!(rec.guess_counts(&c).unwrap().accuracy(), Some(1.0));
    }
    // The 6-cycle is co-square with two triangles ({0, 2, 4}, {1, 3, 5}): the spectral step
    // returns the triangles, consistent with M (nothing forgotten) but not the release.
    let c6 = cycle(6);
    let rec = grand_attack(&c6, &AttackParams::complete()).unwrap();
    assert_eq!((rec.decided(), rec.spectral.unwrap().forgotten), (15, 0));
    let b = |i: usize, j: usize| i != j && rec.entry(i, j) == 1;
    assert!(b(0, 2) && b(2, 4) && b(1, 5) && !b(0, 1));
    assert_eq!(
        square(b, 6),
        square(|i, j| c6.has_edge(i as u32, j as u32), 6)
    );
    assert_eq!(rec.rae(&c6).unwrap(), 2.0);
    // A path with an isolated node, a star, a complete graph: the deductions already decide
    // everything, the spectral step does not run.
    let path = Graph::from_edges(4, &[(0, 1), (1, 2)]).unwrap();
    let star = Graph::from_edges(6, &[(0, 1), (0, 2), (0, 3), (0, 4), (0, 5)]).unwrap();
    let k5 = Graph::from_edges(
        5,
        &pairs(5)
            .map(|(i, j)| (i as u32, j as u32))
            .collect::<Vec<_>>(),
    )
    .unwrap();
    for g in [path, star, k5] {
        let rec = grand_attack(&g, &AttackParams::complete()).unwrap();
        assert_eq!((rec.rae(&g).unwrap(), rec.spectral), (0.0, None));
    }
}

#[test]
fn spectral_step_improves_on_deductions_on_small_random_graphs() {
    // Seeded random graphs of 20–60 nodes: the complete attack's RAE against the release is
    // never larger than the deductions', it decides strictly more pairs on a third of the
    // graphs (1.8 times as many in all), recovers half of them exactly, and the guesses that
    // survive forgetting are right.
    let mut rng = dp_core::rng::seeded_rng(77);
    let (mut runs, mut exact, mut more) = (0, 0, 0);
    let (mut decided, mut decided_sound) = (0, 0);
    let (mut kept, mut rounded) = (GuessCounts::default(), GuessCounts::default());
    for (n, p) in [
        (20, 0.15),
        (30, 0.1),
        (40, 0.08),
        (60, 0.05),
        (50, 0.2),
        (60, 0.1),
        (40, 0.3),
    ] {
        for _ in 0..6 {
            let g = erdos_renyi(n, p, &mut rng).unwrap();
            if g.num_edges() == 0 {
                continue;
            }
            runs += 1;
            let rec = grand_attack(&g, &AttackParams::complete()).unwrap();
            let sound = rec.sound_only();
            assert!(rec.rae(&g).unwrap() <= sound.rae(&g).unwrap());
            more += usize::from(rec.decided() > sound.decided());
            decided += rec.decided();
            decided_sound += sound.decided();
            exact += usize::from(rec.known().2 == 0 && rec.rae(&g).unwrap() == 0.0);
            let k = rec.guess_counts(&g).unwrap();
            kept.correct += k.correct;
            kept.wrong += k.wrong;
            if let Some(at_rounding) = rec.rounded() {
                let r = at_rounding.guess_counts(&g).unwrap();
                rounded.correct += r.correct;
                rounded.wrong += r.wrong;
            }
        }
    }
    assert_eq!(runs, 42);
    assert!(exact >= 18 && more >= 12, "exact {exact} more {more}");
    assert!(
        decided * 10 > decided_sound * 17,
        "{decided} {decided_sound}"
    );
    assert!(kept.correct > 5000 && kept.wrong == 0, "{kept:?}");
    // Before forgetting the rounding is right on most pairs but not all.
    let acc = rounded.accuracy().unwrap();
    assert!((0.8..0.95).contains(&acc), "{rounded:?}");
}

#[test]
fn spectral_step_never_overrides_a_deduced_entry() {
    let mut rng = dp_core::rng::seeded_rng(91);
    for (n, p) in [(40, 0.05), (60, 0.1), (80, 0.03), (120, 0.04), (30, 0.5)] {
        let g = erdos_renyi(n, p, &mut rng).unwrap();
        let sound = grand_attack(&g, &AttackParams::sound()).unwrap();
        for rank in [None, Some(8)] {
            let params = AttackParams {
                spectral: Some(SpectralParams {
                    rank,
                    ..SpectralParams::default()
                }),
                ..AttackParams::sound()
            };
            let rec = grand_attack(&g, &params).unwrap();
            assert_eq!(rec.sound_only(), sound, "n {n} p {p}");
            for (i, j) in pairs(n) {
                if sound.entry(i, j) != 2 {
                    assert_eq!(rec.entry(i, j), sound.entry(i, j), "({i}, {j})");
                    assert!(!rec.is_guess(i, j));
                    assert_eq!(rec.rounded().unwrap().entry(i, j), sound.entry(i, j));
                } else if rec.entry(i, j) != 2 {
                    assert!(rec.is_guess(i, j));
                }
            }
            // The rounding decides every pair; forgetting and the deductions after it only
            // touch guesses.
            let rounded = rec.rounded().unwrap();
            assert_eq!(rounded.known().2, 0);
            let report = rec.spectral.unwrap();
            assert_eq!(rounded.guesses(), report.guessed);
            assert_eq!(
                rec.guesses(),
                report.guessed - report.forgotten + report.deduced_after
            );
        }
    }
}

#[test]
fn spectral_step_fills_few_unknown_pairs_from_known_ones() {
    // A knowledgeable state: every pair of R known but a few. The β term (known share ≈ 1)
    // steers every sign to the truth, so the rounding fills the gaps with R's entries.
    let mut rng = dp_core::rng::seeded_rng(5);
    let g = erdos_renyi(150, 0.04, &mut rng).unwrap();
    let n = g.num_nodes();
    let obs = Observation::new(&g);
    let mut st = State::new(n);
    let mut hidden = Vec::new();
    for (k, (i, j)) in pairs(n).enumerate() {
        if k % 97 == 0 {
            hidden.push((i, j));
            continue;
        }
        st.apply(&[(i as u32, j as u32, g.has_edge(i as u32, j as u32))]);
    }
    let (report, _) = spectral::spectral_step(&obs, &mut st, &SpectralParams::default());
    assert_eq!(report.guessed, hidden.len() as u64);
    assert_eq!(report.forgotten, 0);
    for (i, j) in hidden {
        assert!(st.guessed.get(i, j));
        assert_eq!(
            st.one.get(i, j),
            g.has_edge(i as u32, j as u32),
            "({i}, {j})"
        );
    }
}

#[test]
fn rank_limit_runs_lanczos_and_is_deterministic() {
    let g = erdos_renyi(200, 0.04, &mut dp_core::rng::seeded_rng(12)).unwrap();
    let params = AttackParams {
        spectral: Some(SpectralParams {
            rank: Some(8),
            ..SpectralParams::default()
        }),
        ..AttackParams::sound()
    };
    let a = grand_attack(&g, &params).unwrap();
    let report = a.spectral.unwrap();
    assert!(
        report.lanczos_blocks >= 1 && report.eigenpairs == 8,
        "{report:?}"
    );
    assert_eq!(a, grand_attack(&g, &params).unwrap());
    // A large sparse graph: the rounding guesses almost only non-edges, and every row is
    // inconsistent afterwards (see the module docs), so nothing is kept.
    assert!(report.guessed_edges < 20, "{report:?}");
    assert_eq!(a.guesses(), 0);
    assert_eq!(a.rae(&g).unwrap(), a.sound_only().rae(&g).unwrap());
}

#[test]
fn hostile_inputs_are_typed_errors() {
    let g = cycle(5);
    assert!(matches!(
        grand_attack(&Graph::empty(0).unwrap(), &AttackParams::complete()),
        Err(EdgeRefineError::InvalidParam {
            name: "num_nodes",
            ..
        })
    ));
    for (rank, threshold, name) in [
        (Some(0), 0.5, "rank"),
        (None, f64::NAN, "threshold"),
        (None, 0.0, "threshold"),
        (None, 1.5, "threshold"),
        (None, f64::INFINITY, "threshold"),
    ] {
        let params = AttackParams {
            spectral: Some(SpectralParams {
                rank,
                threshold,
                forget: true,
            }),
            ..AttackParams::sound()
        };
        let r = grand_attack(&g, &params);
        assert!(
            matches!(r, Err(EdgeRefineError::InvalidParam { name: n, .. }) if n == name),
            "{r:?}"
        );
    }
    // No edges: the degree step decides every pair, the spectral step has nothing to do; RAE
    // against itself is undefined (no edges), against a graph with edges it is defined.
    let empty = Graph::empty(6).unwrap();
    let rec = grand_attack(&empty, &AttackParams::complete()).unwrap();
    assert_eq!((rec.decided(), rec.spectral), (15, None));
    assert!(rec.rae(&empty).is_err());
    let one = Graph::from_edges(6, &[(0, 1)]).unwrap();
    assert_eq!(rec.rae(&one).unwrap(), 1.0);
    // A single node.
    let rec = grand_attack(&Graph::empty(1).unwrap(), &AttackParams::complete()).unwrap();
    assert_eq!(rec.known(), (0, 0, 0));
}
