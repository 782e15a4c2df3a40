//! Property tests: every counter agrees with enumeration of all maps V(F) → V(G) on random
//! small graphs and patterns (forests, partial 2-trees, cycles). Seeded for reproducibility.

use graph_core::Graph;
use homdp::{Method, Pattern, PatternKind, PatternSampler, hom_count_with, hom_density_with};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// A graph on `n ≤ 6` nodes whose edges are the set bits of `bits` over the 15 pairs of `K_6`.
fn graph(n: usize, bits: u16) -> Graph {
    let mut edges = Vec::new();
    let mut k = 0;
    for v in 1..6u32 {
        for u in 0..v {
            if (v as usize) < n && bits >> k & 1 == 1 {
                edges.push((u, v));
            }
            k += 1;
        }
    }
    Graph::from_edges(n, &edges).expect("valid small graph")
}

/// A pattern with at most `max_nodes` nodes from `sampler`, seeded.
fn pattern(sampler: &PatternSampler, seed: u64, max_nodes: usize) -> Pattern {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    loop {
        let p = sampler.sample(&mut rng);
        if p.num_nodes() <= max_nodes {
            return p;
        }
    }
}

fn agree(f: &Pattern, g: &Graph) -> Result<(), TestCaseError> {
    let truth = hom_count_with(f, g, Method::BruteForce).expect("small");
    let mut methods = vec![
        Method::Auto,
        Method::TreeDecomposition,
        Method::SparseTreeDecomposition,
    ];
    match f.kind() {
        PatternKind::Forest => methods.push(Method::Forest),
        PatternKind::Cycle(_) => methods.push(Method::Cycle),
        PatternKind::General => {}
    }
    let t = truth as f64 / (g.num_nodes() as f64).powi(f.num_nodes() as i32);
    for m in methods {
        prop_assert_eq!(hom_count_with(f, g, m).expect("fits"), truth, "{:?}", m);
        let d = hom_density_with(f, g, m).expect("n > 0");
        prop_assert!(
            (d - t).abs() <= 1e-13 * t.max(1e-300),
            "{:?}: {} vs {}",
            m,
            d,
            t
        );
    }
    Ok(())
}

fn config() -> Config {
    Config {
        cases: 150,
        rng_seed: RngSeed::Fixed(0x5eed),
        failure_persistence: None,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn forests_match_brute_force(n in 1usize..=6, bits in any::<u16>(), seed in any::<u64>()) {
        let f = pattern(&PatternSampler::forests(), seed, 6);
        prop_assert!(f.is_forest());
        agree(&f, &graph(n, bits))?;
    }

    #[test]
    fn partial_2trees_match_brute_force(n in 1usize..=6, bits in any::<u16>(), seed in any::<u64>()) {
        let s = PatternSampler::partial_ktrees(2).expect("k = 2").size_p(0.3).expect("p");
        let f = pattern(&s, seed, 6);
        prop_assert!(f.decomposition().width() <= 2);
        agree(&f, &graph(n, bits))?;
    }

    #[test]
    fn partial_3trees_match_brute_force(n in 1usize..=5, bits in any::<u16>(), seed in any::<u64>()) {
        let s = PatternSampler::partial_ktrees(3).expect("k = 3").size_p(0.3).expect("p");
        let f = pattern(&s, seed, 6);
        prop_assert!(f.decomposition().width() <= 3);
        agree(&f, &graph(n, bits))?;
    }

    #[test]
    fn cycles_match_brute_force(n in 1usize..=6, bits in any::<u16>(), k in 3usize..=7) {
        agree(&Pattern::cycle(k).expect("k >= 3"), &graph(n, bits))?;
    }

    #[test]
    fn arbitrary_patterns_match_brute_force(
        n in 1usize..=5,
        bits in any::<u16>(),
        m in 1usize..=5,
        fbits in any::<u16>(),
    ) {
        // Any graph on ≤ 5 nodes as a pattern (disconnected, dense, K5 …): min-degree decomposition.
        let mut edges = Vec::new();
        let mut k = 0;
        for v in 1..5 {
            for u in 0..v {
                if v < m && fbits >> k & 1 == 1 {
                    edges.push((u, v));
                }
                k += 1;
            }
        }
        agree(&Pattern::new(m, &edges).expect("valid"), &graph(n, bits))?;
    }
}
