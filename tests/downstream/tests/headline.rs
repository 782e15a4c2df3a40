//! Each dpgraph crate's headline API, called from outside the workspace with default features.
//! Every test is seeded; statistical checks use bands derived from the sample size.

use graph_core::generate::{ContextualSbm, erdos_renyi};
use graph_core::{Graph, GraphError, Partition};

type TestResult = Result<(), Box<dyn std::error::Error>>;

#[test]
fn graph_core_generator_partition_and_from_edges() -> TestResult {
    let mut rng = dp_core::rng::seeded_rng(1);
    let g = erdos_renyi(200, 0.05, &mut rng)?;
    assert_eq!(g.num_nodes(), 200);
    // E[m] = 0.05 · 19 900 = 995, sd ≈ 30.7: a 5-sd band.
    assert!(
        (840..=1150).contains(&g.num_edges()),
        "{} edges",
        g.num_edges()
    );
    assert!(g.edges().all(|(u, v)| u < v && g.has_edge(v, u)));
    assert_eq!(g.degrees().sum::<usize>(), 2 * g.num_edges());

    let parts = Partition::random(200, 4, &mut rng)?;
    let cross = parts.cross_edges(&g)?;
    assert!(cross > 0 && cross <= g.num_edges());

    let path = Graph::from_edges(4, &[(0, 1), (1, 2), (2, 3)])?;
    assert_eq!(
        (path.num_edges(), path.degree(0), path.degree(1)),
        (3, 1, 2)
    );
    // Bad input is an error, never silently fixed.
    assert!(matches!(
        Graph::from_edges(3, &[(0, 0)]),
        Err(GraphError::SelfLoop { .. })
    ));
    assert!(Graph::from_edges(3, &[(0, 5)]).is_err());
    Ok(())
}

#[test]
fn dp_core_gaussian_mechanism_and_zcdp_to_approx() -> TestResult {
    use dp_core::mechanisms::GaussianParams;

    let gauss = GaussianParams::new(4.0).sensitivity(2.0).check()?;
    assert_eq!(gauss.zcdp().rho(), 0.125); // Δ²/(2σ²)

    // The noise has standard deviation σ: sd of the sample sd ≈ σ/√(2n) = 0.02 for n = 20 000.
    let mut rng = dp_core::rng::seeded_rng(7);
    let n = 20_000;
    let noise: Vec<f64> = (0..n)
        .map(|_| gauss.release(10.0, &mut rng) - 10.0)
        .collect();
    let mean = noise.iter().sum::<f64>() / n as f64;
    let sd = (noise.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
    assert!(mean.abs() < 5.0 * 4.0 / (n as f64).sqrt(), "mean {mean}");
    assert!((sd - 4.0).abs() < 0.1, "sd {sd}");

    // zCDP → (ε, δ): the Bun–Steinke closed form (rounded up, never below the formula) and the
    // tighter CKS20 conversion.
    let (rho, delta): (f64, f64) = (0.125, 1e-5);
    let bs16 = rho + 2.0 * (rho * (1.0 / delta).ln()).sqrt();
    let eps = dp_core::conversions::zcdp_to_approx(rho, delta)?;
    assert!(eps >= bs16 && eps - bs16 < 1e-12, "{eps} vs {bs16}");
    let cks = gauss.zcdp().to_approx(delta)?;
    assert!(cks.eps() > 0.0 && cks.eps() < bs16);

    // Invalid parameters are typed errors.
    assert!(matches!(
        GaussianParams::new(-1.0).check(),
        Err(dp_core::Error::InvalidParam { name: "sigma", .. })
    ));
    assert!(dp_core::conversions::zcdp_to_approx(rho, 1.5).is_err());
    Ok(())
}

#[test]
fn homdp_embed_sampled_patterns_on_generated_graphs() -> TestResult {
    use dp_core::params::{Delta, Rho};
    use homdp::{EmbeddingParams, Guarantee, PatternSampler, embed};

    let mut rng = dp_core::rng::seeded_rng(3);
    let graphs = (0..12)
        .map(|i| erdos_renyi(20 + i, 0.2, &mut rng))
        .collect::<Result<Vec<_>, _>>()?;
    let d = 20;
    let patterns = PatternSampler::forests().sample_many(d, &mut rng);
    assert_eq!(patterns.len(), d);

    let (rho, delta) = (Rho::new(0.5)?, Delta::new(1e-6)?);
    let params = EmbeddingParams::new(rho).append_num_nodes(true);
    let emb = embed(
        &patterns,
        &graphs,
        &params,
        &mut dp_core::rng::seeded_rng(11),
    )?;
    assert_eq!(emb.values().shape(), &[12, d + 1]);
    assert!(emb.values().iter().all(|x| x.is_finite()));
    assert!(emb.has_num_nodes_column());
    let sizes: Vec<f64> = (0..12).map(|i| (20 + i) as f64).collect();
    assert_eq!(emb.values().column(d).to_vec(), sizes);
    assert_eq!(emb.sigmas().len(), 12);
    assert!(emb.sigmas().iter().all(|&s| s.is_finite() && s > 0.0));

    // The guarantee: finite, positive, the paper's Theorem 4.6 for these parameters.
    let g = emb.guarantee();
    assert!(g.eps().is_finite() && g.eps() > 0.0, "eps {}", g.eps());
    assert_eq!((g.dim(), g.delta()), (d, 1e-6));
    let paper = Guarantee::paper(rho, d, delta)?;
    assert_eq!(g.eps(), paper.eps());
    // Less noise, weaker guarantee.
    assert!(Guarantee::paper(Rho::new(1.0)?, d, delta)?.eps() > g.eps());

    // Same noise seed, same release; another seed, another release.
    let again = embed(
        &patterns,
        &graphs,
        &params,
        &mut dp_core::rng::seeded_rng(11),
    )?;
    assert_eq!(again.values(), emb.values());
    let other = embed(
        &patterns,
        &graphs,
        &params,
        &mut dp_core::rng::seeded_rng(12),
    )?;
    assert_ne!(other.values(), emb.values());

    // Invalid ρ is an error.
    assert!(Rho::new(0.0).is_err());
    Ok(())
}

#[test]
fn edgerefine_perturb_then_refine() -> TestResult {
    use edgerefine::{RefineParams, perturb, refine};

    let eps = dp_core::params::Epsilon::new(2.0)?;
    assert!(dp_core::params::Epsilon::new(0.0).is_err());
    let mut rng = dp_core::rng::seeded_rng(3);
    let g = erdos_renyi(300, 0.03, &mut rng)?;
    let m = g.num_edges();
    let noisy = perturb(&g, eps, &mut rng)?;
    assert_eq!(noisy.num_nodes(), 300);

    // Randomized response keeps a true edge with probability e^ε/(1+e^ε) ≈ 0.881.
    let e = eps.get();
    let keep = e.exp() / (1.0 + e.exp());
    let kept = g.edges().filter(|&(u, v)| noisy.has_edge(u, v)).count();
    let band = 5.0 * (keep * (1.0 - keep) / m as f64).sqrt();
    assert!(
        (kept as f64 / m as f64 - keep).abs() < band,
        "kept {kept} of {m}"
    );
    // Each non-edge becomes an edge with probability 1 − keep: E[noisy edges] = keep·m +
    // (1 − keep)·(N − m) over N = n(n−1)/2 pairs, with variance N·keep·(1 − keep).
    let pairs = 300.0 * 299.0 / 2.0;
    let expected = keep * m as f64 + (1.0 - keep) * (pairs - m as f64);
    let sd = (pairs * keep * (1.0 - keep)).sqrt();
    let noisy_m = noisy.num_edges() as f64;
    assert!(
        (noisy_m - expected).abs() < 5.0 * sd,
        "{noisy_m} noisy edges, expected {expected}"
    );

    // The server releases K = ⌊k·E⌋ edges: round(ρK) noisy edges, the rest noisy non-edges.
    let params = RefineParams {
        k: 0.5,
        ..RefineParams::new(eps, m as u64)
    };
    let release = refine(&noisy, &params)?;
    assert_eq!(release.k_target, m as u64 / 2);
    assert_eq!(release.graph.num_edges() as u64, release.k_target);
    assert_eq!(release.k_real + release.k_fake, release.k_target);
    assert_eq!(
        release.k_real,
        (keep * release.k_target as f64).round() as u64
    );
    let from_noisy = release
        .graph
        .edges()
        .filter(|&(u, v)| noisy.has_edge(u, v))
        .count();
    assert_eq!(from_noisy as u64, release.k_real);

    assert!(refine(&noisy, &RefineParams { k: -1.0, ..params }).is_err());
    Ok(())
}

#[test]
fn cefedgnn_simulate_in_process() -> TestResult {
    use cefedgnn::train::{FedTask, FedTrainConfig, Method, PartitionKind, simulate};

    let mut rng = dp_core::rng::seeded_rng(1);
    let ds = ContextualSbm {
        n: 120,
        classes: 2,
        p_in: 0.1,
        p_out: 0.01,
        dim: 8,
        mu: 1.0,
    }
    .sample(&mut rng)?;
    let task = FedTask::from_node_dataset(&ds, 3, PartitionKind::Random, 0.5, 0.2, &mut rng)?;
    let cfg = FedTrainConfig {
        rounds: 3,
        local_steps: 4,
        seed: 5,
        ..FedTrainConfig::default()
    };
    let report = simulate(&task, &cfg, Method::CeFedGnn, &mut |_| {})?;

    assert_eq!(report.f1_per_client.len(), 3);
    let f1s: Vec<f64> = report.f1_per_client.iter().flatten().copied().collect();
    assert!(
        !f1s.is_empty() && f1s.iter().all(|f| (0.0..=1.0).contains(f)),
        "{f1s:?}"
    );
    assert_eq!((report.rounds, report.local_steps), (3, 4));
    assert!(report.bytes_up > 0 && report.bytes_down > 0);

    // Boundary rows were released: a finite, positive ε(p), and the report says what it does
    // not cover.
    let privacy = report.privacy.as_ref().ok_or("no privacy report")?;
    assert!(privacy.max_releases >= 1 && privacy.nodes_released > 0);
    assert!(
        privacy.eps_rdp.is_finite() && privacy.eps_rdp.get() > 0.0,
        "{}",
        privacy.eps_rdp
    );
    assert!(privacy.eps_closed_form.is_finite() && privacy.eps_closed_form.get() > 0.0);
    assert!(!privacy.not_covered.is_empty());

    // Without noise there is no guarantee to report.
    let no_noise = FedTrainConfig {
        sigma0: dp_core::params::NoiseMultiplier::ZERO,
        ..cfg
    };
    let r0 = simulate(&task, &no_noise, Method::CeFedGnn, &mut |_| {})?;
    assert!(r0.privacy.as_ref().is_none_or(|p| !p.eps_rdp.is_finite()));
    Ok(())
}
