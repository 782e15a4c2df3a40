//! The paper's table protocol (`homdp::paper`) on small generated datasets: the rows each table
//! returns, their seeding (the same seed gives the same rows) and the release shared by the clean
//! and noisy test-row points.

use dp_core::params::EpsilonBound;
use dp_core::params::Rho as RhoParam;
use graph_core::generate::erdos_renyi;
use homdp::downstream::{Downstream, Labels};
use homdp::paper::{
    Control, CurveRow, DatasetSetting, MainRow, Metric, PatternSet, Point, Prepared, Repetitions,
    Rho, RowKind, Score, SeedStream, Sizes, curve_table, main_grid, main_table, q1_sbm, q1_table,
    q2_table, setting, sweep,
};
use homdp::{HomdpError, SensitivityBound, Split};
use rand::SeedableRng;

/// 40 Erdős–Rényi graphs on 15–24 nodes, sparse (class 0) or dense (class 1), split 80/20.
fn two_densities(seed: u64) -> Result<Prepared, HomdpError> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut graphs = Vec::new();
    let mut y = Vec::new();
    for i in 0..40 {
        let class = i % 2;
        let p = if class == 0 { 0.1 } else { 0.3 };
        graphs.push(erdos_renyi(15 + i % 10, p, &mut rng)?);
        y.push(class);
    }
    let split = Split::holdout(graphs.len(), 0.2, seed)?;
    Ok(Prepared::subsample(
        graphs,
        Labels::Class(y),
        split,
        usize::MAX,
        usize::MAX,
        seed,
    ))
}

/// A binary-classification setting like BACE's, with a k-NN that fits 32 training rows.
fn small_setting() -> DatasetSetting {
    DatasetSetting {
        name: "ER",
        degree_bound: None,
        model: Downstream::Knn { k: 5 },
        ..setting("BACE").expect("a setting of the paper")
    }
}

fn one_rep() -> Sizes {
    Sizes {
        reps: 2,
        side_reps: 1,
        curve_rhos: vec![RhoParam::constant(1e-2), RhoParam::constant(1.0)],
        q1_rhos: vec![RhoParam::constant(1.0)],
        ..Sizes::quick()
    }
}

/// A row's ε as a number (NaN where the row has none, ∞ unbounded).
fn eps(e: Option<EpsilonBound>) -> f64 {
    e.map_or(f64::NAN, f64::from)
}

#[test]
fn main_table_rows_have_the_papers_fields_and_are_seeded() -> Result<(), HomdpError> {
    let p = two_densities(1)?;
    let s = small_setting();
    let t = main_table(&p, &s, 1, &one_rep(), 42, None)?;
    assert_eq!(
        t.rows.len(),
        9,
        "BACE's setting has noisy test rows, then private Δ, then the three controls"
    );
    assert_eq!(t.per_repetition.len(), 9);
    assert!(t.per_repetition.iter().all(|r| r.len() == 2));
    let kinds: Vec<RowKind> = t.rows.iter().map(|r| r.kind).collect();
    assert_eq!(
        kinds,
        [
            [RowKind::Embedding; 6].as_slice(),
            &[
                RowKind::NodesOnly,
                RowKind::WithoutNodes,
                RowKind::WithoutNodes
            ]
        ]
        .concat()
    );
    let col = |f: fn(&MainRow) -> &str| t.rows[..6].iter().map(f).collect::<Vec<_>>();
    assert_eq!(
        col(|r| &r.bound),
        [
            "components",
            "paper",
            "-",
            "components",
            "paper",
            "components"
        ]
    );
    assert_eq!(
        col(|r| &r.test_rows),
        ["clean", "clean", "clean", "noisy", "noisy", "clean"]
    );
    let degree = col(|r| &r.degree);
    assert!(degree[..5].iter().all(|d| *d == "none"), "{degree:?}");
    // One estimate per repetition, each a candidate bound.
    let estimate: Vec<usize> = degree[5]
        .strip_prefix("private ")
        .expect("private row")
        .split(' ')
        .map(|d| d.parse().expect("a bound"))
        .collect();
    assert_eq!(estimate.len(), 2, "{degree:?}");
    // The private row spends no more than the public rows: ρ 0.009 plus ρ_Δ 0.002.
    assert_eq!(t.rows[5].rho, Rho::Private(0.009));
    assert!(
        eps(t.rows[5].eps) <= eps(t.rows[0].eps) && eps(t.rows[5].eps) > 1.0,
        "{}",
        eps(t.rows[5].eps)
    );
    assert!(col(|r| &r.dataset).iter().all(|d| *d == "ER"));
    assert_eq!(t.rows[0].model, s.model.name(), "no subsample: k unscaled");
    assert_eq!(t.rows[0].metric, "ROC-AUC");
    assert_eq!(t.rows[0].rho, Rho::Private(0.01));
    assert_eq!(t.rows[2].rho, Rho::NonPrivate);
    for (k, r) in t.rows[..6].iter().enumerate() {
        let Score::Value(v) = r.value else {
            panic!("row {k} has a score: {:?}", r.value)
        };
        assert!((0.0..=1.0).contains(&v), "row {k}: ROC-AUC {v}");
        assert!((0.0..=1.0).contains(&r.attack_top1), "row {k}");
        assert!(r.attack_top10 >= r.attack_top1, "row {k}");
        assert_eq!(r.graphs, Some(40));
        if k < 5 {
            assert_eq!(r.clipped, Some(0));
        }
        // BACE's GIN baselines are in the paper; none were run here.
        assert_eq!((r.rr, r.dprr), (Score::NotInstalled, Score::NotInstalled));
        assert_eq!((r.paper_rr, r.paper_dprr), (0.457, 0.648));
    }
    // ε at ρ = 0.01 is finite, the non-private row's infinite (an empty cell).
    assert!(eps(t.rows[0].eps).is_finite() && eps(t.rows[0].eps) > 0.0);
    assert_eq!(t.rows[2].eps, Some(EpsilonBound::UNBOUNDED));
    assert_eq!(
        (t.rows[0].paper_value, t.rows[2].paper_value),
        (0.652, 0.752)
    );
    // The paper's attack success (compared with top-10) beside the notes' top-1 figure.
    assert_eq!(
        (t.rows[0].paper_attack_top10, t.rows[2].paper_attack_top10),
        (0.027, 0.990)
    );
    assert_eq!(
        (t.rows[0].paper_attack_top1, t.rows[2].paper_attack_top1),
        (4.2e-3, 0.629)
    );
    // Noisy test rows share the release of their clean row: the same attack figures.
    for (clean, noisy) in [(0, 3), (1, 4)] {
        assert_eq!(t.rows[clean].attack_top1, t.rows[noisy].attack_top1);
        assert_eq!(t.rows[clean].attack_top10, t.rows[noisy].attack_top10);
        assert_eq!(t.rows[clean].eps, t.rows[noisy].eps);
    }
    // The controls: |V(G)| alone is public (ε = 0, no attack), the densities without it are
    // the embedding's own rows here (BACE appends no |V(G)| column).
    let nodes = &t.rows[6];
    assert_eq!(
        (nodes.rho, nodes.eps, nodes.bound.as_str()),
        (Rho::Public, Some(EpsilonBound::ZERO), "-")
    );
    assert!(nodes.attack_top1.is_nan() && nodes.paper_value.is_nan());
    assert_eq!(
        nodes.model,
        s.model.name(),
        "k-NN on one column is the same model"
    );
    for (control, embedding) in [(7, 0), (8, 2)] {
        let (c, e) = (&t.rows[control], &t.rows[embedding]);
        assert_eq!(
            (c.rho, c.eps, c.value),
            (e.rho, e.eps, e.value),
            "{control}"
        );
        assert!(c.paper_value.is_nan());
    }
    // The same seed gives the same rows.
    let again = main_table(&p, &s, 1, &one_rep(), 42, None)?;
    assert_eq!(format!("{:?}", t.rows), format!("{:?}", again.rows));
    assert_eq!(t.per_repetition, again.per_repetition);
    Ok(())
}

/// The controls' features: `|V(G)|` alone is one column of node counts; the densities
/// without `|V(G)|` are the embedding's features less its last (`|V(G)|`) column.
#[test]
fn the_controls_features_are_node_counts_alone_and_densities_without_them() -> Result<(), HomdpError>
{
    let p = two_densities(3)?;
    let reddit = setting("REDDIT-BINARY").expect("a setting");
    assert!(reddit.append_num_nodes);
    let pats = PatternSet::of(&reddit).draw(&mut rand_chacha::ChaCha8Rng::seed_from_u64(2))?;
    let n: Vec<f64> = p.graphs.iter().map(|g| g.num_nodes() as f64).collect();
    let nodes = Control::NodesOnly.features(&pats, &p.graphs)?;
    assert_eq!(nodes.ncols(), 1);
    assert_eq!(nodes.column(0).to_vec(), n);
    let with = homdp::clean_features(&pats, &p.graphs, true)?;
    let without = Control::WithoutNodes.features(&pats, &p.graphs)?;
    assert_eq!(
        (with.ncols(), without.ncols()),
        (pats.len() + 1, pats.len())
    );
    assert_eq!(
        with.column(pats.len()).to_vec(),
        n,
        "the embedding's last column"
    );
    assert_eq!(without, with.slice(ndarray::s![.., ..pats.len()]));
    for j in 0..without.ncols() {
        assert_ne!(without.column(j).to_vec(), n, "column {j} is |V(G)|");
    }
    assert!(!Control::WithoutNodes.setting(&reddit).append_num_nodes);
    // |V(G)| alone carries what the node counts carry: labels that are a size threshold are
    // learnt perfectly, labels that ignore the size are not.
    let by_size = Labels::Class(n.iter().map(|&v| usize::from(v >= 20.0)).collect());
    let q = Prepared {
        labels: by_size,
        ..p.clone()
    };
    let s = DatasetSetting {
        model: Downstream::Knn { k: 3 },
        ..small_setting()
    };
    let reps = Repetitions::new(42, SeedStream::Main(1), 1);
    let runs = homdp::paper::nodes_only_runs(&q, &s, reps)?;
    assert_eq!(runs.metric, [1.0]);
    assert_eq!(runs.eps, Some(EpsilonBound::ZERO));
    Ok(())
}

#[test]
fn datasets_without_baselines_or_data_say_so() {
    let sbm = setting("SBM").expect("a setting");
    let r = MainRow::not_installed(&sbm);
    assert_eq!(
        (r.value, r.rho, r.graphs),
        (Score::NotInstalled, Rho::NotRun, None)
    );
    assert_eq!((r.dataset.as_str(), r.bound.as_str()), ("SBM", "-"));
    let c = CurveRow::not_installed(&sbm);
    assert_eq!(
        (c.metric.as_str(), c.value),
        ("accuracy", Score::NotInstalled)
    );
}

#[test]
fn sweep_shares_one_release_per_repetition() -> Result<(), HomdpError> {
    let p = two_densities(3)?;
    let s = small_setting();
    let reps = Repetitions {
        seed: 7,
        stream: SeedStream::Main(0),
        reps: 2,
    };
    let grid = main_grid(true);
    let a = sweep(&p, &s, PatternSet::Forests(8), reps, &grid)?;
    assert_eq!(a.len(), grid.len());
    assert!(a.iter().all(|r| r.metric.len() == 2 && r.top1.len() == 2));
    assert_eq!(a[0].top1, a[3].top1, "clean and noisy rows: one release");
    // The same grid reordered: every point gets the same runs (the noise is reseeded per point).
    let swapped = [grid[1], grid[0]];
    let b = sweep(&p, &s, PatternSet::Forests(8), reps, &swapped)?;
    assert_eq!(
        (a[0].metric.clone(), a[1].metric.clone()),
        (b[1].metric.clone(), b[0].metric.clone())
    );
    // A point alone gets the runs it has in the grid.
    let c = sweep(
        &p,
        &s,
        PatternSet::Forests(8),
        reps,
        &[Point::private(
            RhoParam::constant(1e-2),
            SensitivityBound::PaperTheorem45,
        )],
    )?;
    assert_eq!((&c[0].metric, &c[0].top1), (&a[1].metric, &a[1].top1));
    Ok(())
}

#[test]
fn q1_q2_and_the_curve_return_their_rows() -> Result<(), HomdpError> {
    let sz = one_rep();
    // Q1 on a small SBM collection: cycles and forests, every ρ under both bounds, then ρ = ∞.
    let (graphs, labels) = q1_sbm(3, 5)?;
    let split = Split::holdout(graphs.len(), 0.25, 5)?;
    let sbm = Prepared::subsample(graphs, labels, split, usize::MAX, usize::MAX, 5);
    let sbm_setting = DatasetSetting {
        model: Downstream::Knn { k: 3 },
        ..setting("SBM").expect("a setting")
    };
    let q1 = q1_table(&sbm, &sbm_setting, &sz, 42)?;
    let names: Vec<(&str, &str)> = q1
        .iter()
        .map(|r| (r.patterns.as_str(), r.bound.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("cycles C3+C4", "components"),
            ("cycles C3+C4", "paper"),
            ("cycles C3+C4", "-"),
            ("forests (50)", "components"),
            ("forests (50)", "paper"),
            ("forests (50)", "-"),
        ]
    );
    assert!(q1.iter().all(|r| (0.0..=1.0).contains(&r.accuracy)));
    // ε depends on ρ (and d) only, not on the bound.
    assert_eq!(q1[0].eps, q1[1].eps);

    // Q2: three treewidths, the main table's five points each.
    let p = two_densities(2)?;
    let s = DatasetSetting {
        metric: Metric::Auc,
        ..small_setting()
    };
    let q2 = q2_table(&p, &s, &sz, 42)?;
    // The paper's law: the main table's five points and the counting lemma per treewidth;
    // then the matched-e(F) and one-per-size blocks, three points per treewidth.
    assert_eq!(q2.rows.len(), 18 + 9 + 9);
    let tw: Vec<usize> = q2.rows.iter().map(|r| r.treewidth).collect();
    assert_eq!(
        tw,
        [
            &[1; 6][..],
            &[2; 6],
            &[3; 6],
            &[1; 3],
            &[2; 3],
            &[3; 3],
            &[1; 3],
            &[2; 3],
            &[3; 3]
        ]
        .concat()
    );
    let bounds: Vec<&str> = q2.rows[..6].iter().map(|r| r.bound.as_str()).collect();
    assert_eq!(
        bounds,
        [
            "components",
            "paper",
            "-",
            "components",
            "paper",
            "counting-lemma"
        ]
    );
    assert_eq!(q2.shapes.len(), 9);
    assert_eq!(q2.shapes[0].forests, 50, "treewidth 1: the paper's forests");
    assert_eq!(q2.shapes[0].with_triangle, 0);
    assert!(q2.shapes[2].with_triangle > 0, "{:?}", q2.shapes);
    // Matched on e(F): the same mean e(F) at every treewidth, the treewidth-1 block's.
    let matched: Vec<f64> = q2.shapes[3..6].iter().map(|s| s.mean_edges).collect();
    assert_eq!(matched, [q2.shapes[0].mean_edges; 3], "{:?}", q2.shapes);
    assert!(
        q2.shapes[2].mean_edges > q2.shapes[0].mean_edges,
        "{:?}",
        q2.shapes
    );
    // Matched rows at treewidth 1 are the paper-law rows (same patterns, same noise).
    assert_eq!(q2.rows[18].roc_auc, q2.rows[0].roc_auc);
    // One pattern per size: fewer distinct patterns.
    assert!(
        q2.shapes[6].distinct < q2.shapes[0].distinct,
        "{:?}",
        q2.shapes
    );
    assert!(q2.graphs_with_triangle > 0 && q2.graphs_with_triangle <= 40);
    assert!(q2.rows.iter().all(|r| r.graphs == 40));

    // The curve: every ρ under both bounds.
    let c = curve_table(&p, &s, 1, &sz, 42)?;
    let rho: Vec<(Rho, &str)> = c.iter().map(|r| (r.rho, r.bound.as_str())).collect();
    assert_eq!(
        rho,
        [
            (Rho::Private(1e-2), "components"),
            (Rho::Private(1e-2), "paper"),
            (Rho::Private(1.0), "components"),
            (Rho::Private(1.0), "paper"),
        ]
    );
    assert!(c[2].eps > c[0].eps, "a larger rho is a larger eps");
    Ok(())
}

#[test]
fn the_sensitivity_ablation_shares_the_main_tables_draws_and_scales_sigma_by_the_bound()
-> Result<(), HomdpError> {
    use homdp::paper::{SensitivityRow, sensitivity_table};
    let p = two_densities(3)?;
    // A degree bound below n: the bounded-degree bounds are smaller than the global one.
    let s = DatasetSetting {
        degree_bound: Some(6),
        ..small_setting()
    };
    let rows = sensitivity_table(&p, &s, 1, &one_rep(), 42)?;
    let col = |f: fn(&SensitivityRow) -> String| rows.iter().map(f).collect::<Vec<_>>();
    assert_eq!(
        col(|r| r.bound.clone()),
        [
            "counting-lemma",
            "paper",
            "components",
            "counting-lemma",
            "paper",
            "components",
            "-"
        ]
    );
    assert_eq!(rows[0].rho, Rho::Private(0.01));
    assert_eq!(rows[3].rho, Rho::Private(1.0));
    assert_eq!(rows[6].rho, Rho::NonPrivate);
    for block in [&rows[0..3], &rows[3..6]] {
        let (global, paper, comp) = (&block[0], &block[1], &block[2]);
        // Same ρ: same ε; the noise scale follows the bound.
        assert_eq!(global.eps, comp.eps);
        assert!(global.mean_sigma > comp.mean_sigma, "{global:?} {comp:?}");
        assert!(
            paper.mean_sigma <= comp.mean_sigma,
            "the paper's formula is never larger"
        );
        assert_eq!(comp.noise_ratio, 1.0);
        assert!((global.noise_ratio - global.mean_sigma / comp.mean_sigma).abs() < 1e-12);
    }
    // σ scales as 1/√ρ: ρ 100× larger, σ 10× smaller.
    assert!((rows[0].mean_sigma / rows[3].mean_sigma - 10.0).abs() < 1e-9);
    assert_eq!(rows[6].mean_sigma, 0.0);
    // The main table's draws: its components and paper rows at ρ = 0.01 are this table's.
    let main = main_table(&p, &s, 1, &one_rep(), 42, None)?;
    for (m, a) in [(&main.rows[0], &rows[2]), (&main.rows[1], &rows[1])] {
        assert_eq!(m.bound, a.bound);
        assert_eq!(m.value, a.value);
        assert_eq!(
            (m.attack_top1, m.attack_top10),
            (a.attack_top1, a.attack_top10)
        );
    }
    Ok(())
}

/// The reference code's SBM k-NN sees the features as they are: its score changes when one
/// column is rescaled, the scaled k-NN's does not.
#[test]
fn raw_knn_is_not_scale_invariant_and_knn_is() -> Result<(), HomdpError> {
    use homdp::downstream::fit_evaluate;
    use ndarray::Array2;
    // Column 0 is the class; column 1 an uninformative residue, small or ×1000.
    let rows = |range: std::ops::Range<usize>, scale: f64| {
        let x = Array2::from_shape_fn((range.len(), 2), |(r, c)| {
            let i = range.start + r;
            if c == 0 {
                (i % 2) as f64
            } else {
                (i % 5) as f64 * 0.01 * scale
            }
        });
        (x, Labels::Class(range.map(|i| i % 2).collect()))
    };
    let acc = |model: Downstream, scale: f64| -> Result<f64, HomdpError> {
        let ((xtr, ytr), (xte, yte)) = (rows(0..20, scale), rows(20..30, scale));
        let s = fit_evaluate(&model, xtr.view(), &ytr, xte.view(), &yte, 0)?;
        Ok(s.accuracy.expect("a classification score"))
    };
    let (raw, knn) = (Downstream::RawKnn { k: 4 }, Downstream::Knn { k: 4 });
    assert_eq!(acc(raw, 1.0)?, 1.0);
    assert!(
        acc(raw, 1000.0)? < 0.9,
        "the ×1000 residue decides the neighbours"
    );
    assert_eq!(acc(knn, 1.0)?, acc(knn, 1000.0)?);
    assert_eq!(raw.name(), "k-NN (k=4, unscaled)");
    Ok(())
}

/// SBM's main table: our protocol in the clean rows, the reference code's (noisy rows on both
/// sides, unscaled k-NN) in the noisy rows, both on one release per bound.
#[test]
fn sbm_reports_the_reference_protocol_in_its_noisy_rows() -> Result<(), HomdpError> {
    let (graphs, labels) = q1_sbm(5, 5)?;
    let split = Split::holdout(graphs.len(), 0.25, 5)?;
    let p = Prepared::subsample(graphs, labels, split, usize::MAX, usize::MAX, 5);
    let s = DatasetSetting {
        model: Downstream::Knn { k: 3 },
        noisy_test_model: Some(Downstream::RawKnn { k: 3 }),
        ..setting("SBM").expect("a setting")
    };
    assert!(setting("SBM").unwrap().noisy_test_rows);
    let sz = Sizes {
        reps: 1,
        ..one_rep()
    };
    let t = main_table(&p, &s, 5, &sz, 42, None)?;
    let cells: Vec<(&str, &str, &str)> = t
        .rows
        .iter()
        .map(|r| (r.bound.as_str(), r.test_rows.as_str(), r.model.as_str()))
        .collect();
    assert_eq!(
        cells,
        [
            ("components", "clean", "k-NN (k=3)"),
            ("paper", "clean", "k-NN (k=3)"),
            ("-", "clean", "k-NN (k=3)"),
            ("components", "noisy", "k-NN (k=3, unscaled)"),
            ("paper", "noisy", "k-NN (k=3, unscaled)"),
            ("components", "clean", "k-NN (k=3)"),
            // The controls use the clean rows' model.
            ("-", "clean", "k-NN (k=3)"),
            ("components", "clean", "k-NN (k=3)"),
            ("-", "clean", "k-NN (k=3)"),
        ]
    );
    assert!(t.rows[5].degree.starts_with("private "));
    assert_eq!(t.rows[0].attack_top1, t.rows[3].attack_top1, "one release");
    Ok(())
}

/// Theorems 4.1/4.2 as an experiment: tree densities never separate a 1-WL-equivalent pair,
/// cycle densities do, and the averaged releases separate at the rate Φ(D√T / 2σ) predicts.
#[test]
fn the_theory_table_separates_wl_pairs_only_with_cycles_at_the_predicted_rate()
-> Result<(), HomdpError> {
    use homdp::paper::{TheorySizes, expressivity_table, noise_scale_table};
    let sizes = TheorySizes {
        releases: vec![1, 256],
        trials: 400,
        rho: RhoParam::constant(1.0),
        noise_draws: 3_000,
    };
    let rows = expressivity_table(&sizes, 11)?;
    assert_eq!(rows.len(), 3 * 2 * 2, "3 pairs × 2 pattern sets × 2 T");
    for r in &rows {
        assert!(eps(r.eps).is_finite() && eps(r.eps) > 0.0);
        if r.patterns.starts_with("paths P2–P5 +") {
            assert!(r.distance > 0.0, "{r:?}");
            // Four standard errors of a share over 2 · trials draws.
            let se = (r.predicted * (1.0 - r.predicted) / (2.0 * r.trials as f64)).sqrt();
            assert!(
                (r.separated - r.predicted).abs() <= 4.0 * se + 1e-9,
                "{r:?}"
            );
        } else {
            assert_eq!(
                (r.distance, r.separated, r.predicted),
                (0.0, 0.5, 0.5),
                "{r:?}"
            );
        }
    }
    // More releases separate better where the patterns can (K3,3 / prism: 0.53 → 0.91).
    let k33: Vec<f64> = rows
        .iter()
        .filter(|r| r.pair == "K3,3 vs prism" && r.distance > 0.0)
        .map(|r| r.separated)
        .collect();
    assert!(k33[1] > k33[0] + 0.2, "{k33:?}");

    // Proposition 4.9: σ² ∝ e(F)² without a degree bound; a bound only shrinks σ.
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    let g = erdos_renyi(40, 0.1, &mut rng)?;
    let max_degree = g.degrees().max().unwrap();
    // The local sensitivity is measured on six small graphs (every single-edge flip).
    let collection: Vec<_> = (0..6)
        .map(|i| erdos_renyi(8 + i, 0.3, &mut rng))
        .collect::<Result<_, _>>()?;
    let scale = noise_scale_table(&g, max_degree, &collection, &sizes, 7)?;
    assert_eq!(
        scale.len(),
        26,
        "13 patterns, with and without a degree bound"
    );
    let (free, bounded) = scale.split_at(13);
    assert!((free[0].loglog_slope - 2.0).abs() < 1e-9, "{:?}", free[0]);
    assert!(free[8].loglog_slope.is_nan(), "the slope is the paths'");
    for (f, b) in free[..8].iter().zip(bounded) {
        assert!((f.variance_over_edges2 / free[0].variance_over_edges2 - 1.0).abs() < 1e-9);
        assert!(
            b.sigma.get() <= f.sigma.get() * (1.0 + 1e-12),
            "{b:?} {f:?}"
        );
    }
    for r in &scale {
        assert!(r.holds, "{r:?}");
        assert_eq!((r.draws, r.graphs), (3_000, 6), "{r:?}");
        assert!(
            r.local_sensitivity > 0.0 && r.max_ratio <= 1.0 + 1e-9,
            "{r:?}"
        );
    }
    // One edge without a degree bound: every flip moves t(K2, G) = 2m/n² by exactly 2/n²,
    // the bound itself (the measurement reaches it).
    assert!((free[0].max_ratio - 1.0).abs() < 1e-9, "{:?}", free[0]);
    homdp::paper::check_noise_scale(&scale)?;
    Ok(())
}
