//! End-to-end privacy audit of the owner's release path: `perturb` on two graphs that differ in
//! one edge, run many times each; the frequencies of "the pair is a noisy edge" give a
//! high-confidence lower bound on ε (`dp_core::audit`, Chernoff bounds, α = 1e-6 per side) that
//! must stay below the claimed ε, and must come close to it (the audit has power). A deliberately
//! under-noised variant (randomized response at 2ε, claimed as ε) must fail the same audit.
//! Seeded, no retries.

use dp_core::params::Epsilon;

use dp_core::audit::eps_lower_bound;
use dp_core::rng::seeded_rng;
use edgerefine::perturb;
use graph_core::Graph;

const RUNS: u64 = 20_000;
const ALPHA: f64 = 1e-6;

/// A 12-node graph with the edge (0, 1), and the same graph without it.
fn neighbours() -> (Graph, Graph) {
    let base = vec![
        (1, 2),
        (2, 3),
        (3, 4),
        (0, 5),
        (5, 6),
        (7, 8),
        (9, 10),
        (10, 11),
        (0, 11),
    ];
    let without = Graph::from_edges(12, &base).unwrap();
    let mut plus = base;
    plus.push((0, 1));
    let with = Graph::from_edges(12, &plus).unwrap();
    (with, without)
}

/// The lower bound on ε from runs of `release(graph, rng)` with the event "(0, 1) is an edge".
fn audit(release_eps: f64, seed: u64) -> f64 {
    let (with, without) = neighbours();
    let mut rng = seeded_rng(seed);
    let mut hits = |g: &Graph| {
        (0..RUNS)
            .filter(|_| {
                perturb(g, Epsilon::new(release_eps).unwrap(), &mut rng)
                    .unwrap()
                    .has_edge(0, 1)
            })
            .count() as u64
    };
    let (h1, h0) = (hits(&with), hits(&without));
    let lb1 = eps_lower_bound(h1, RUNS, h0, RUNS, 0.0, ALPHA).unwrap();
    // The complementary event covers the other direction of the neighbouring relation.
    let lb0 = eps_lower_bound(RUNS - h0, RUNS, RUNS - h1, RUNS, 0.0, ALPHA).unwrap();
    lb1.max(lb0)
}

#[test]
fn perturb_stays_within_its_claimed_eps_and_the_audit_has_power() {
    for (eps, seed) in [(0.5, 1), (1.0, 2), (2.0, 3)] {
        let lb = audit(eps, seed);
        eprintln!("perturb ε = {eps}: empirical lower bound {lb:.3}");
        assert!(
            lb <= eps,
            "ε = {eps}: empirical lower bound {lb} exceeds the claim"
        );
        assert!(lb > 0.8 * eps, "ε = {eps}: audit without power ({lb})");
    }
}

#[test]
fn an_under_noised_perturb_fails_the_audit() {
    // Randomized response at 2ε sold as ε: the audit must refute the claim.
    for (eps, seed) in [(0.5, 4), (1.0, 5)] {
        let lb = audit(2.0 * eps, seed);
        eprintln!("perturb at 2ε claimed as ε = {eps}: empirical lower bound {lb:.3}");
        assert!(
            lb > eps,
            "ε = {eps}: the under-noised variant passed ({lb})"
        );
    }
}
