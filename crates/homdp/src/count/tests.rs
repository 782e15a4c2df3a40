//! Unit tests of the counters: the small exact values, overflow, and agreement of the paths.

use graph_core::Graph;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::PatternSampler;

fn complete(n: u32) -> Graph {
    let e: Vec<_> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .collect();
    Graph::from_edges(n as usize, &e).expect("valid")
}

fn path(n: u32) -> Graph {
    let e: Vec<_> = (1..n).map(|i| (i - 1, i)).collect();
    Graph::from_edges(n as usize, &e).expect("valid")
}

fn cycle(n: u32) -> Graph {
    let e: Vec<_> = (0..n).map(|i| (i, (i + 1) % n)).collect();
    Graph::from_edges(n as usize, &e).expect("valid")
}

/// Checks `hom(F, G) = expected` with every applicable method, and the density both ways.
fn check(f: &Pattern, g: &Graph, expected: u128) -> Result<()> {
    let mut methods = vec![
        Method::Auto,
        Method::TreeDecomposition,
        Method::SparseTreeDecomposition,
        Method::BruteForce,
    ];
    match f.kind() {
        PatternKind::Forest => methods.push(Method::Forest),
        PatternKind::Cycle(_) => methods.push(Method::Cycle),
        PatternKind::General => {}
    }
    let t = expected as f64 / (g.num_nodes() as f64).powi(f.num_nodes() as i32);
    for m in methods {
        assert_eq!(hom_count_with(f, g, m)?, expected, "{m:?}");
        let d = hom_density_with(f, g, m)?;
        assert!((d - t).abs() <= 1e-14 * t, "{m:?}: {d} vs {t}");
    }
    Ok(())
}

#[test]
fn small_exact_values() -> Result<()> {
    check(&Pattern::path(3)?, &complete(3), 12)?;
    check(&Pattern::cycle(4)?, &cycle(4), 32)?;
    check(&Pattern::star(3)?, &path(4), 18)?;
    let k2_k1 = Pattern::new(3, &[(0, 1)])?;
    check(&k2_k1, &path(5), 40)?;
    assert!((hom_density(&k2_k1, &path(5))? - 8.0 / 25.0).abs() < 1e-15);
    check(&Pattern::cycle(5)?, &complete(5), 1020)?;
    let p3_k2 = Pattern::path(3)?.disjoint_union(&Pattern::path(2)?)?;
    check(&p3_k2, &complete(4), 432)?;
    assert!((hom_density(&p3_k2, &complete(4))? - 27.0 / 64.0).abs() < 1e-15);
    // K4 into K4: 4! injective maps only.
    check(&Pattern::complete(4)?, &complete(4), 24)?;
    check(&Pattern::complete(4)?, &complete(3), 0)?;
    Ok(())
}

#[test]
fn wrong_method_and_empty_graph_are_errors() -> Result<()> {
    let g = complete(4);
    assert!(matches!(
        hom_count_with(&Pattern::cycle(4)?, &g, Method::Forest),
        Err(HomdpError::WrongPatternClass { .. })
    ));
    assert!(matches!(
        hom_count_with(&Pattern::path(4)?, &g, Method::Cycle),
        Err(HomdpError::WrongPatternClass { .. })
    ));
    let empty = Graph::empty(0)?;
    assert_eq!(hom_count(&Pattern::path(2)?, &empty)?, 0);
    assert!(matches!(
        hom_density(&Pattern::path(2)?, &empty),
        Err(HomdpError::EmptyGraph { index: 0 })
    ));
    assert!(matches!(
        density_matrix(&[Pattern::path(2)?], &[g, empty]),
        Err(HomdpError::EmptyGraph { index: 1 })
    ));
    Ok(())
}

#[test]
fn overflow_is_an_error_and_density_still_works() -> Result<()> {
    // hom(K_{1,40}, K_20) = 20 · 19^40 ≈ 2.7e52 > u128::MAX ≈ 3.4e38.
    let star = Pattern::star(40)?;
    let g = complete(20);
    assert!(matches!(
        hom_count(&star, &g),
        Err(HomdpError::Overflow {
            pattern_nodes: 41,
            graph_nodes: 20
        })
    ));
    for m in [Method::TreeDecomposition, Method::SparseTreeDecomposition] {
        assert!(matches!(
            hom_count_with(&star, &g, m),
            Err(HomdpError::Overflow { .. })
        ));
    }
    let t = hom_density(&star, &g)?;
    let expect = (19.0f64 / 20.0).powi(40);
    assert!((t - expect).abs() < 1e-13 * expect, "{t} vs {expect}");
    // C_30 on K_20: trace(A^30) = 19^30 + 19·(−1)^30 ≈ 2.3e38 fits; C_31 = 19^31 − 19 overflows.
    let c30 = hom_count(&Pattern::cycle(30)?, &g)?;
    assert_eq!(c30, 19u128.pow(30) + 19);
    assert!(matches!(
        hom_count(&Pattern::cycle(31)?, &g),
        Err(HomdpError::Overflow { .. })
    ));
    let t31 = hom_density(&Pattern::cycle(31)?, &g)?;
    let e31 = ((19.0f64).powi(31) - 19.0) / 20f64.powi(31);
    assert!((t31 - e31).abs() < 1e-12 * e31);
    Ok(())
}

#[test]
fn scaled_and_exact_densities_agree_where_u128_fits() -> Result<()> {
    let mut rng = ChaCha8Rng::seed_from_u64(2024);
    let forests = PatternSampler::forests().sample_many(40, &mut rng);
    let tw2 = PatternSampler::partial_ktrees(2)?
        .size_p(0.3)?
        .sample_many(15, &mut rng);
    let tw3 = PatternSampler::partial_ktrees(3)?
        .size_p(0.4)?
        .sample_many(6, &mut rng);
    let cycles = PatternSampler::cycles(12)?.sample_many(10, &mut rng);
    let mut compared = 0;
    for (n, p) in [(30usize, 0.2), (80, 0.08), (1500, 0.004)] {
        let g = graph_core::generate::erdos_renyi(n, p, &mut rng)?;
        let mut pats: Vec<&Pattern> = forests.iter().collect();
        // Keep the debug-profile run short: long cycles and wide tables on the small graphs.
        pats.extend(cycles.iter().filter(|c| n <= 80 || c.num_nodes() <= 6));
        if n <= 80 {
            pats.extend(&tw2);
        }
        if n <= 30 {
            pats.extend(&tw3);
        }
        for f in pats {
            let exact = match hom_density_exact(f, &g) {
                Ok(t) => t,
                Err(HomdpError::Overflow { .. }) => continue,
                Err(e) => return Err(e),
            };
            let scaled = hom_density(f, &g)?;
            assert!(
                (exact - scaled).abs() <= 1e-12 * exact,
                "{:?}: {exact} vs {scaled}",
                f.edges().collect::<Vec<_>>()
            );
            compared += 1;
        }
    }
    assert!(compared > 100, "only {compared} comparisons");
    Ok(())
}

#[test]
fn sparse_and_dense_decomposition_counters_agree() -> Result<()> {
    // Partial 2- and 3-trees (often disconnected after thinning) and arbitrary small patterns on
    // sparse and dense random graphs: exact counts equal; for connected patterns the scaled
    // densities are bit-identical (same non-zero terms, same summation order), otherwise equal
    // up to rounding (the sparse counter multiplies per-component densities).
    let mut rng = ChaCha8Rng::seed_from_u64(77);
    let mut pats = PatternSampler::partial_ktrees(2)?
        .size_p(0.25)?
        .sample_many(40, &mut rng);
    pats.extend(
        PatternSampler::partial_ktrees(3)?
            .size_p(0.3)?
            .sample_many(40, &mut rng),
    );
    // Heavier thinning: many disconnected patterns.
    pats.extend(
        PatternSampler::partial_ktrees(3)?
            .size_p(0.2)?
            .keep_prob(0.6)?
            .sample_many(30, &mut rng),
    );
    pats.push(Pattern::complete(4)?.disjoint_union(&Pattern::cycle(5)?)?);
    pats.push(Pattern::new(5, &[(0, 1), (2, 3), (3, 4), (2, 4)])?);
    let (mut compared, mut disconnected, mut nonzero) = (0, 0, 0);
    for (n, p) in [(12usize, 0.5), (20, 0.15), (30, 0.08)] {
        let g = graph_core::generate::erdos_renyi(n, p, &mut rng)?;
        for f in &pats {
            let dense = match hom_count_with(f, &g, Method::TreeDecomposition) {
                Ok(c) => c,
                Err(HomdpError::Overflow { .. }) => continue,
                Err(e) => return Err(e),
            };
            assert_eq!(
                hom_count_with(f, &g, Method::SparseTreeDecomposition)?,
                dense,
                "{:?}",
                f.edges().collect::<Vec<_>>()
            );
            let d = hom_density_with(f, &g, Method::TreeDecomposition)?;
            let s = hom_density_with(f, &g, Method::SparseTreeDecomposition)?;
            if f.num_components() == 1 {
                assert_eq!(d.to_bits(), s.to_bits(), "{d} vs {s}");
            } else {
                disconnected += 1;
                assert!((d - s).abs() <= 1e-13 * d, "{d} vs {s}");
            }
            compared += 1;
            nonzero += usize::from(dense > 0);
        }
    }
    assert!(
        compared > 200 && disconnected > 20 && nonzero > 100,
        "{compared} {disconnected} {nonzero}"
    );
    Ok(())
}

#[test]
fn sparse_counter_goes_beyond_the_dense_table_limit() -> Result<()> {
    // n = 400: the dense table of a width-2 decomposition (400³ = 6.4e7 entries) is refused;
    // the sparse counter agrees with the independent cycle (trace) and forest counters.
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let g = graph_core::generate::erdos_renyi(400, 0.01, &mut rng)?;
    for k in 3..=8 {
        let c = Pattern::cycle(k)?;
        assert!(matches!(
            hom_count_with(&c, &g, Method::TreeDecomposition),
            Err(HomdpError::TooExpensive { .. })
        ));
        assert_eq!(
            hom_count_with(&c, &g, Method::SparseTreeDecomposition)?,
            hom_count_with(&c, &g, Method::Cycle)?,
            "C{k}"
        );
    }
    for f in PatternSampler::forests().sample_many(30, &mut rng) {
        assert_eq!(
            hom_count_with(&f, &g, Method::SparseTreeDecomposition)?,
            hom_count_with(&f, &g, Method::Forest)?
        );
        let (s, t) = (
            hom_density_with(&f, &g, Method::SparseTreeDecomposition)?,
            hom_density_with(&f, &g, Method::Forest)?,
        );
        assert!((s - t).abs() <= 1e-12 * t, "{s} vs {t}");
    }
    // K4 in K70: 70·69·68·67 ≈ 2.2e7 non-zero entries in the last table: over the limit.
    assert!(matches!(
        hom_count_with(
            &Pattern::complete(4)?,
            &complete(70),
            Method::SparseTreeDecomposition
        ),
        Err(HomdpError::TooExpensive { .. })
    ));
    // K4 in K40: 40·39·38·37 = 2,193,360 injective maps (the limit is not hit).
    assert_eq!(
        hom_count(&Pattern::complete(4)?, &complete(40))?,
        40 * 39 * 38 * 37
    );
    Ok(())
}
