//! Tests of the server: a hand-worked 6-node example, the reference star, and agreement with a
//! naive implementation on random graphs.

use dp_core::params::Epsilon;

use super::jaccard::pair_index;
use super::*;
use graph_core::generate::erdos_renyi;

fn edges(g: &Graph) -> Vec<(u32, u32)> {
    g.edges().collect()
}

/// The noisy graph 0-1, 0-2, 1-2, 2-3, 3-4, 4-5. Jaccard values (see the module docs of the
/// test): eight pairs at 0, (0,2) (1,2) (2,4) at 1/4, (0,1) (0,3) (1,3) at 1/3, (3,5) at 1/2.
fn six() -> Graph {
    Graph::from_edges(6, &[(0, 1), (0, 2), (1, 2), (2, 3), (3, 4), (4, 5)]).unwrap()
}

#[test]
fn six_node_example_worked_by_hand() {
    // B = 3 over the 15 sorted values 0×8, ¼×3, ⅓×3, ½: quantiles at 0, ⅓, ⅔, 1 are
    // x[0] = 0, x[4.67] = 0, x[9.33] = ¼, x[14] = ½; the duplicate 0 edge is dropped, leaving
    // edges [0, ¼, ½] and two bins: J < ¼ (the 8 zero pairs, 3 noisy edges: L = 3/8) and
    // J ≥ ¼ (7 pairs, 3 noisy edges: L = 3/7).
    // ε = ln 3 → ρ = 3/4; E = 4, k = 1 → K = 4, K_real = 3 (all of bin 1's noisy edges),
    // K_fake = 1 from bin 1's non-edges (0,3) ⅓, (1,3) ⅓, (2,4) ¼, (3,5) ½.
    let mut p = RefineParams::new(Epsilon::new(3f64.ln()).unwrap(), 4);
    p.k = 1.0;
    p.bins = 3;
    let r = refine(&six(), &p).unwrap();
    assert_eq!(r.bin_edges, vec![0.0, 0.25, 0.5]);
    assert_eq!(r.bin_pairs, vec![8, 7]);
    assert_eq!(r.bin_noisy_edges, vec![3, 3]);
    assert_eq!(r.bin_probability, vec![3.0 / 8.0, 3.0 / 7.0]);
    assert_eq!((r.k_target, r.k_real, r.k_fake), (4, 3, 1));
    // Default tie-break: the best non-edge by Jaccard is (3,5).
    assert_eq!(edges(&r.graph), vec![(0, 1), (0, 2), (1, 2), (3, 5)]);
    // Reference tie-break: the first non-edge in row-major order is (0,3).
    p.tie_break = TieBreak::Reference;
    let r = refine(&six(), &p).unwrap();
    assert_eq!(edges(&r.graph), vec![(0, 1), (0, 2), (0, 3), (1, 2)]);
}

#[test]
fn reference_tie_break_releases_a_star_default_does_not() {
    // Every pair of a complete graph has the same similarity, so one bin and one level: the
    // reference order takes pairs (0,1), (0,2), … — a star on node 0.
    let n = 60u32;
    let all: Vec<(u32, u32)> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .collect();
    let g = Graph::from_edges(n as usize, &all).unwrap();
    let mut p = RefineParams::new(Epsilon::new(2.0).unwrap(), 30);
    p.k = 1.0;
    p.tie_break = TieBreak::Reference;
    // K = 30, K_real = round(ρ·30) = 26 (ρ = 0.881); there are no non-edges for the rest.
    let r = refine(&g, &p).unwrap();
    assert_eq!((r.k_real, r.k_fake), (26, 0));
    assert_eq!(
        r.graph.degree(0),
        26,
        "reference order collapses into a star"
    );
    p.tie_break = TieBreak::Default;
    let r = refine(&g, &p).unwrap();
    assert_eq!(r.graph.num_edges(), 26);
    assert!(
        r.graph.max_degree() <= 5,
        "max degree {}",
        r.graph.max_degree()
    );
}

#[test]
fn bad_parameters_are_errors() {
    // A bad ε never reaches `refine`: it is refused where it becomes an `Epsilon`.
    assert!(Epsilon::new(0.0).is_err() && Epsilon::new(f64::NAN).is_err());
    let g = six();
    for (k, bins, eps) in [
        (0.0, 10, 1.0),
        (1.5, 10, 1.0),
        (f64::NAN, 10, 1.0),
        (0.5, 1, 1.0),
    ] {
        let mut p = RefineParams::new(Epsilon::new(eps).unwrap(), 5);
        p.k = k;
        p.bins = bins;
        assert!(
            matches!(refine(&g, &p), Err(EdgeRefineError::InvalidParam { .. })),
            "{k} {bins} {eps}"
        );
    }
}

/// A direct implementation over sorted vectors, for comparison.
fn naive(g: &Graph, p: &RefineParams) -> (Vec<f64>, Vec<(u32, u32)>) {
    let n = g.num_nodes();
    let mut vals = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            let a: std::collections::HashSet<u32> = g.neighbors(i as u32).iter().copied().collect();
            let b: std::collections::HashSet<u32> = g.neighbors(j as u32).iter().copied().collect();
            let inter = a.intersection(&b).count() as f64;
            let uni = a.union(&b).count() as f64;
            let s = if uni == 0.0 { 0.0 } else { inter / uni };
            vals.push((
                s,
                g.has_edge(i as u32, j as u32),
                i as u32,
                j as u32,
                pair_index(n, i, j),
            ));
        }
    }
    let mut sorted: Vec<f64> = vals.iter().map(|v| v.0).collect();
    sorted.sort_by(f64::total_cmp);
    let raw: Vec<f64> = (0..=p.bins)
        .map(|k| {
            let (lo, t) = virtual_index(sorted.len() as u64, k as f64 / p.bins as f64);
            let hi = (lo as usize + 1).min(sorted.len() - 1);
            lerp(sorted[lo as usize], sorted[hi], t)
        })
        .collect();
    let e = dedup_edges(&raw);
    let inner = &e[1..e.len() - 1];
    let nb = e.len() - 1;
    let (mut pc, mut ec) = (vec![0u64; nb], vec![0u64; nb]);
    for v in &vals {
        let b = bin_of(inner, v.0);
        pc[b] += 1;
        ec[b] += u64::from(v.1);
    }
    let l: Vec<f64> = pc
        .iter()
        .zip(&ec)
        .map(|(&a, &b)| if a == 0 { 0.5 } else { b as f64 / a as f64 })
        .collect();
    let rho = keep_probability(p.eps).unwrap();
    let k = (p.k * p.true_edges as f64).floor() as u64;
    let kr = (rho * k as f64).round_ties_even() as u64;
    let mut out = Vec::new();
    for (flag, want) in [(true, kr), (false, k - kr)] {
        let mut c: Vec<_> = vals.iter().filter(|v| v.1 == flag).collect();
        c.sort_by(|a, b| {
            let (la, lb) = (l[bin_of(inner, a.0)], l[bin_of(inner, b.0)]);
            lb.total_cmp(&la).then_with(|| match p.tie_break {
                TieBreak::Reference => a.4.cmp(&b.4),
                TieBreak::Default => b.0.total_cmp(&a.0).then_with(|| {
                    let key = |x: usize| tie_mixer(p.seed).at(x as u64);
                    key(a.4).cmp(&key(b.4))
                }),
            })
        });
        out.extend(c.iter().take(want as usize).map(|v| (v.2, v.3)));
    }
    out.sort_unstable();
    (e, out)
}

#[test]
fn agrees_with_naive_implementation_on_random_graphs() {
    for (n, dens, eps, k, bins, seed) in [
        (40usize, 0.3, 1.0, 1.0, 10, 1u64),
        (55, 0.1, 3.0, 0.5, 10, 2),
        (64, 0.27, 1.0, 0.2, 7, 3),
        (30, 0.05, 2.0, 1.0, 4, 4),
        (70, 0.5, 0.5, 0.3, 10, 5),
    ] {
        let g = erdos_renyi(n, dens, &mut dp_core::rng::seeded_rng(seed)).unwrap();
        for tb in [TieBreak::Default, TieBreak::Reference] {
            let p = RefineParams {
                eps: Epsilon::new(eps).unwrap(),
                k,
                true_edges: (n * 3) as u64,
                bins,
                tie_break: tb,
                seed,
            };
            let r = refine(&g, &p).unwrap();
            let (e, want) = naive(&g, &p);
            assert_eq!(r.bin_edges, e, "edges n={n} {tb:?}");
            assert_eq!(edges(&r.graph), want, "release n={n} {tb:?}");
            assert_eq!(r.k_real + r.k_fake, r.graph.num_edges() as u64);
        }
    }
}

#[test]
fn same_input_same_release() {
    let g = erdos_renyi(120, 0.27, &mut dp_core::rng::seeded_rng(9)).unwrap();
    let p = RefineParams {
        k: 0.5,
        ..RefineParams::new(Epsilon::new(1.0).unwrap(), 300)
    };
    let a = refine(&g, &p).unwrap();
    let b = refine(&g, &p).unwrap();
    assert_eq!(a.graph, b.graph);
    let other = refine(
        &g,
        &RefineParams {
            seed: 1,
            ..p.clone()
        },
    )
    .unwrap();
    assert_eq!(other.graph.num_edges(), a.graph.num_edges());
}

/// Asserts that two releases are the same (graph and every reported number but timings).
fn assert_same(a: &Release, b: &Release, what: &str) {
    assert_eq!(a.graph, b.graph, "graph: {what}");
    assert_eq!(a.bin_edges, b.bin_edges, "bin edges: {what}");
    assert_eq!(a.bin_pairs, b.bin_pairs, "bin pairs: {what}");
    assert_eq!(a.bin_noisy_edges, b.bin_noisy_edges, "bin noisy: {what}");
    assert_eq!(a.bin_probability, b.bin_probability, "bin L: {what}");
    assert_eq!(
        (a.k_target, a.k_real, a.k_fake, a.keep_probability),
        (b.k_target, b.k_real, b.k_fake, b.keep_probability),
        "counts: {what}"
    );
}

/// Runs the tiled refine with every tile size and backend given and compares with the
/// all-pairs oracle, for both tie-breaks.
fn check_against_oracle(g: &Graph, p: &RefineParams, tiles: &[usize], backends: &[Backend]) {
    for tb in [TieBreak::Default, TieBreak::Reference] {
        let p = RefineParams {
            tie_break: tb,
            ..p.clone()
        };
        let want = oracle::refine_oracle(g, &p).unwrap();
        // From packed rows alone (a dense report): both servers.
        let bits = g.bit_adjacency();
        let from_bits = refine_bits_with_progress(&bits, &p, &mut |_, _| {}).unwrap();
        assert_same(
            &from_bits,
            &want,
            &format!("bits n={} {tb:?}", g.num_nodes()),
        );
        let ctx = TileContext::from_bits(&bits);
        assert!(ctx.is_dense());
        for &tile_rows in tiles {
            let got = refine_tiles(&ctx, &p, tile_rows, Instant::now(), &mut |_, _| {}).unwrap();
            let what = format!("bits n={} {tb:?} tile={tile_rows}", g.num_nodes());
            assert_same(&got, &want, &what);
            // Every way of saving work between passes: kept counts, exact values (and their
            // fallback when a cap of 1 or 3 distinct values is exceeded), neither.
            let plan = plan_tiles(g.num_nodes(), tile_rows);
            for (keep_counts, exact_values) in [
                (true, None),
                (false, Some(EXACT_VALUES_CAP)),
                (false, Some(1)),
                (false, Some(3)),
                (false, None),
                (true, Some(EXACT_VALUES_CAP)),
            ] {
                let passes = Passes {
                    keep_counts,
                    exact_values,
                };
                let mut calls = Vec::new();
                let got =
                    refine_tiles_with(&ctx, &p, &plan, passes, Instant::now(), &mut |d, t| {
                        calls.push((d, t))
                    })
                    .unwrap();
                assert_same(&got, &want, &format!("{what} {passes:?}"));
                let total = 3 * plan.len();
                assert!(calls.windows(2).all(|w| w[0].0 < w[1].0), "{what}");
                assert_eq!(calls.last(), Some(&(total, total)), "{what} {passes:?}");
            }
        }
        for &tile_rows in tiles {
            for &backend in backends {
                let opts = TileOptions { tile_rows, backend };
                let mut calls = Vec::new();
                let got = refine_tiled(g, &p, &opts, &mut |d, t| calls.push((d, t))).unwrap();
                let what = format!("n={} {tb:?} tile={tile_rows} {backend:?}", g.num_nodes());
                assert_same(&got, &want, &what);
                // Progress: increasing, ending at 3 passes × the tiles.
                let total = 3 * plan_tiles(g.num_nodes(), tile_rows).len();
                assert!(calls.windows(2).all(|w| w[0].0 < w[1].0), "{what}");
                assert_eq!(calls.last(), Some(&(total, total)), "{what}");
            }
        }
    }
}

const BOTH: [Backend; 2] = [Backend::Dense, Backend::Sparse];

#[test]
fn tiled_equals_all_pairs_on_the_suite_cases() {
    let mut p = RefineParams::new(Epsilon::new(3f64.ln()).unwrap(), 4);
    p.k = 1.0;
    p.bins = 3;
    check_against_oracle(&six(), &p, &[1, 2, 4, 6, 100], &BOTH);
    let n = 60u32;
    let all: Vec<(u32, u32)> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .collect();
    let complete = Graph::from_edges(n as usize, &all).unwrap();
    let p = RefineParams {
        k: 1.0,
        ..RefineParams::new(Epsilon::new(2.0).unwrap(), 30)
    };
    check_against_oracle(&complete, &p, &[7, 60], &BOTH);
    for (n, dens, eps, k, bins, seed) in [
        (40usize, 0.3, 1.0, 1.0, 10, 1u64),
        (55, 0.1, 3.0, 0.5, 10, 2),
        (64, 0.27, 1.0, 0.2, 7, 3),
        (30, 0.05, 2.0, 1.0, 4, 4),
        (70, 0.5, 0.5, 0.3, 10, 5),
        (120, 0.27, 1.0, 0.5, 10, 9),
    ] {
        let g = erdos_renyi(n, dens, &mut dp_core::rng::seeded_rng(seed)).unwrap();
        let p = RefineParams {
            eps: Epsilon::new(eps).unwrap(),
            k,
            true_edges: (n * 3) as u64,
            bins,
            tie_break: TieBreak::Default,
            seed,
        };
        check_against_oracle(&g, &p, &[7, 32, 1024], &BOTH);
    }
}

#[test]
fn tiled_equals_all_pairs_at_1k_nodes() {
    let mut rng = dp_core::rng::seeded_rng(16);
    let n = 1000;
    let truth = erdos_renyi(n, 0.01, &mut rng).unwrap();
    let e = truth.num_edges() as u64;
    // Dense noisy graph (ε = 1, density ≈ 0.27): the dense backend.
    let noisy = crate::perturb(&truth, Epsilon::new(1.0).unwrap(), &mut rng).unwrap();
    check_against_oracle(
        &noisy,
        &RefineParams::new(Epsilon::new(1.0).unwrap(), e),
        &[128, 333, 1000],
        &[Backend::Dense],
    );
    // Sparser noisy graph (ε = 3, density ≈ 0.06): both backends.
    let noisy = crate::perturb(&truth, Epsilon::new(3.0).unwrap(), &mut rng).unwrap();
    let p = RefineParams {
        k: 0.5,
        ..RefineParams::new(Epsilon::new(3.0).unwrap(), e)
    };
    check_against_oracle(&noisy, &p, &[200, 1000], &BOTH);
    // Very sparse, K beyond the available edges: the pairs of similarity 0 are candidates (the
    // bin of 0 is taken partly), so the sparse backend enumerates them.
    let sparse = erdos_renyi(n, 0.002, &mut rng).unwrap();
    let p = RefineParams {
        k: 1.0,
        ..RefineParams::new(Epsilon::new(1.0).unwrap(), 30 * sparse.num_edges() as u64)
    };
    check_against_oracle(&sparse, &p, &[97, 1000], &BOTH);
}

#[test]
fn tiled_at_20k_nodes_equals_all_pairs_for_every_tile_size() {
    // Blocks of 100 nodes (p_in = 0.3) plus sparse noise: 0.5% of the pairs have a common
    // neighbour, so 254 bins split off the high-similarity pairs and the sparse backend never
    // visits the 2·10⁸ pairs of similarity 0. The all-pairs server (dense counts of all pairs;
    // edgerefine is optimised in the test profile for it) gives the same release byte for byte.
    let mut rng = dp_core::rng::seeded_rng(20);
    let (g, _) = graph_core::generate::sbm(&[100; 200], 0.3, 2e-5, &mut rng).expect("valid blocks");
    let n = g.num_nodes();
    let ctx = TileContext::new(&g, Backend::Auto);
    assert!(!ctx.is_dense());
    for tb in [TieBreak::Default, TieBreak::Reference] {
        let p = RefineParams {
            bins: 254,
            tie_break: tb,
            ..RefineParams::new(Epsilon::new(2.0).unwrap(), g.num_edges() as u64)
        };
        let run = |tile_rows| {
            let opts = TileOptions {
                tile_rows,
                backend: Backend::Sparse,
            };
            refine_tiled(&g, &p, &opts, &mut |_, _| {}).unwrap()
        };
        let a = run(2_500);
        let b = run(n);
        assert_same(&a, &b, &format!("n={n} {tb:?}"));
        let all = oracle::refine_oracle(&g, &p).unwrap();
        assert_same(&a, &all, &format!("n={n} {tb:?} against all pairs"));
        assert!(a.bin_pairs.len() >= 2, "bins {:?}", a.bin_edges);
        assert_eq!(a.bin_pairs.iter().sum::<u64>(), (n * (n - 1) / 2) as u64);
        assert_eq!(a.graph.num_edges() as u64, a.k_target);
        assert!(a.k_real > 0 && a.k_fake > 0);
    }
}

#[test]
fn the_tiled_server_keeps_dense_counts_only_where_they_fit() {
    let g = erdos_renyi(300, 0.3, &mut dp_core::rng::seeded_rng(1)).unwrap();
    let tiles = plan_tiles(300, 64);
    assert!(keeps_counts(&TileContext::new(&g, Backend::Dense), &tiles));
    assert!(!keeps_counts(
        &TileContext::new(&g, Backend::Sparse),
        &tiles
    ));
    // Kept or recounted, the passes give the same tile results.
    let ctx = TileContext::new(&g, Backend::Dense);
    for t in &tiles {
        let mut slot = None;
        let kept = t.histogram_with(&ctx, Counts::Keep(&mut slot));
        let fresh = t.histogram(&ctx);
        assert_eq!(kept.pairs, fresh.pairs);
        assert_eq!(kept.noisy, fresh.noisy);
        let again = t.histogram_with(&ctx, Counts::Cached(slot.as_deref().unwrap()));
        assert_eq!(again.pairs, fresh.pairs);
    }
}
