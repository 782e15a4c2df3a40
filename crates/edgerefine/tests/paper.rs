//! The paper's protocols (`edgerefine::paper`) on small generated data: a node grid run chunk by
//! chunk, Blink's validation-based selection, the MUTAG rows and the attack rows.

mod common;

use edgerefine::paper::rae;
use graph_core::generate::erdos_renyi;

#[test]
fn the_attack_rows_get_more_precise_with_eps() {
    let g = erdos_renyi(120, 0.08, &mut dp_core::rng::seeded_rng(5)).unwrap();
    let rows = rae::rows("er", &g, &[0.5, 6.0], 1).unwrap();
    assert_eq!(rows.len(), 2);
    let n = 120u64;
    for r in &rows {
        assert_eq!(r.dataset, "er");
        assert!(r.decided_pairs_grand <= n * (n - 1) / 2, "{r:?}");
        assert!(r.decided_pairs_sound <= r.decided_pairs_grand, "{r:?}");
        assert!(r.rae_grand > 0.0 && r.rae_release_as_guess >= 0.0, "{r:?}");
        assert!(r.rae_grand <= r.rae_grand_sound, "{r:?}");
        assert!(
            (r.rae_proxy - r.rae_release_as_guess).abs() < 1e-12,
            "{r:?}"
        );
        assert!((0.0..=1.0).contains(&r.release_precision), "{r:?}");
    }
    assert!(
        rows[1].release_precision > rows[0].release_precision + 0.3,
        "{rows:?}"
    );
    assert!(rows[1].rae_release_as_guess < rows[0].rae_release_as_guess);
    assert!(
        rows.iter().all(|r| r.paper_value.is_nan()),
        "the paper's RAE is Cora's"
    );
    // Seeded (compared as text: the paper column is NaN off Cora).
    assert_eq!(
        format!("{rows:?}"),
        format!("{:?}", rae::rows("er", &g, &[0.5, 6.0], 1).unwrap())
    );
}

#[cfg(feature = "train")]
mod train {
    use super::common::{cycles_and_stars, sbm};
    use edgerefine::TieBreak;
    use edgerefine::baselines::{BlinkParams, BlinkVariant};
    use edgerefine::eval::{
        EdgeCount, GraphModel, Method, NodeModel, blink_posterior, train_on_release,
    };
    use edgerefine::paper::node::{NodeAcc, NodeGrid};
    use edgerefine::paper::{
        BlinkProtocol, Calibration, CalibrationTable, DatasetPlan, DenseCaps, KSweep, Plan, blink,
        calibrations, k_sweep, mutag,
    };

    fn er1() -> Method {
        Method::EdgeRefine {
            k: 1.0,
            tie_break: TieBreak::Default,
            edge_count: EdgeCount::Supplied,
        }
    }

    #[test]
    fn a_small_grid_gives_finite_rows_and_the_true_graph_beats_no_graph() {
        let ds = sbm(2);
        let plan = Plan {
            datasets: vec![DatasetPlan {
                name: "sbm",
                eps: vec![2.0],
                max_epochs: 60,
                patience: 60,
            }],
            models: vec![NodeModel::Gcn],
            methods: vec![er1(), Method::Dprr],
            dense_methods: vec![],
            dense_eps: vec![],
            seeds: vec![0, 1],
            ..Plan::quick()
        };
        let grid = NodeGrid::new(&plan, &plan.datasets[0]);
        let mut acc = NodeAcc::new(&grid);
        for slot in grid.slots() {
            for &seed in &plan.seeds {
                let c = grid.run_chunk(&ds, slot, seed).unwrap();
                assert_eq!(c.fingerprint, grid.fingerprint(slot, seed));
                assert_eq!(c.releases.len(), grid.chunk_methods(slot).len());
                assert_eq!(c.trains.len(), c.releases.len() * plan.models.len());
                acc.add(slot, &c);
            }
        }
        let rows = grid.rows(&acc).unwrap();
        let labels: Vec<&str> = rows
            .accuracy
            .iter()
            .map(|r| r.scores.method.as_str())
            .collect();
        assert_eq!(
            labels,
            [
                "non-private",
                "no graph (features only)",
                "EdgeRefine k=1",
                "DPRR"
            ]
        );
        for r in &rows.accuracy {
            assert_eq!(r.scores.runs.len(), 2, "{r:?}");
            assert!(
                (0.0..=1.0).contains(&r.scores.acc_mean) && r.scores.acc_std.is_finite(),
                "{r:?}"
            );
            assert_eq!(r.max_epochs, 60);
        }
        let (origin, none) = (&rows.accuracy[0], &rows.accuracy[1]);
        assert!(
            origin.scores.acc_mean > none.scores.acc_mean + 0.05,
            "{} vs {}",
            origin.scores.acc_mean,
            none.scores.acc_mean
        );
        assert_eq!(
            (origin.edges, origin.precision),
            (ds.graph().num_edges() as f64, 1.0)
        );
        assert_eq!(none.edges, 0.0);
        assert!(none.precision.is_nan(), "an empty release has no precision");
        let er = &rows.releases[2];
        assert_eq!((er.method.as_str(), er.eps), ("EdgeRefine k=1", Some(2.0)));
        assert!(er.edges <= ds.graph().num_edges() as f64 && er.edges > 0.0);
        assert_eq!(rows.pubi.len(), 2);
        assert!(rows.pubi.iter().all(|r| r.pubi.is_finite()));
        assert_eq!(acc.at_cap().len(), 1);
        assert_eq!(acc.at_cap()[0].runs, 8);

        // The same chunk again: the same releases (a seeded experiment).
        let a = grid.run_chunk(&ds, Some(0), 1).unwrap();
        let b = grid.run_chunk(&ds, Some(0), 1).unwrap();
        for ((ma, ra), (mb, rb)) in a.releases.iter().zip(&b.releases) {
            assert_eq!(ma, mb);
            assert_eq!((ra.edges, ra.recall), (rb.edges, rb.recall));
        }
    }

    #[test]
    fn a_dense_rerun_keeps_the_plain_methods_and_reruns_the_dense_ones_under_the_new_plan() {
        let ds = sbm(2);
        let dataset = DatasetPlan {
            name: "sbm",
            eps: vec![2.0],
            max_epochs: 40,
            patience: 40,
        };
        let now = Plan {
            datasets: vec![dataset],
            models: vec![NodeModel::Gcn],
            methods: vec![Method::Dprr],
            dense_methods: vec![Method::SymRr],
            dense_eps: vec![2.0],
            seeds: vec![3],
            dense_caps: None,
            ..Plan::quick()
        };
        // The earlier plan: the same grid with caps (they change the fingerprint only here:
        // the generated graph's releases are below DENSE_EDGES).
        let before = Plan {
            dense_caps: Some(DenseCaps {
                dense_epochs: 2,
                very_dense_epochs: 1,
            }),
            ..now.clone()
        };
        let grid = NodeGrid::new(&now, &now.datasets[0]);
        let old = NodeGrid::new(&before, &before.datasets[0]);
        assert_ne!(grid.fingerprint(Some(0), 3), old.fingerprint(Some(0), 3));
        let (dprr, symrr) = (2, 3);
        assert!(!grid.is_dense_method(dprr) && grid.is_dense_method(symrr));
        let mut earlier = old.run_chunk(&ds, Some(0), 3).unwrap();
        // Mark the earlier runs, so that what is kept and what is rerun can be told apart.
        for (_, _, t) in &mut earlier.trains {
            t.runs[0] = -1.0;
        }
        let c = grid.rerun_dense(&ds, Some(0), 3, &earlier).unwrap();
        let fresh = grid.run_chunk(&ds, Some(0), 3).unwrap();
        assert_eq!(c.fingerprint, grid.fingerprint(Some(0), 3));
        let methods = |c: &edgerefine::paper::node::Chunk| {
            c.trains.iter().map(|t| (t.0, t.1)).collect::<Vec<_>>()
        };
        assert_eq!(methods(&c), methods(&fresh));
        for (_, mi, t) in &c.trains {
            assert_eq!(t.runs[0] == -1.0, *mi == dprr, "method {mi}: {t:?}");
        }
        for ((ma, ra), (mb, rb)) in c.releases.iter().zip(&fresh.releases) {
            assert_eq!(ma, mb);
            assert_eq!((ra.edges, ra.recall), (rb.edges, rb.recall));
        }
        assert_eq!(c.releases.len(), fresh.releases.len());
    }

    fn blink_plan() -> Plan {
        Plan {
            seeds: vec![0, 1],
            blink: BlinkProtocol {
                eps: vec![2.0],
                variants: vec![BlinkVariant::Hard],
                deltas: vec![0.1, 0.5],
                lrs: vec![0.01],
                wds: vec![0.0],
                dropouts: vec![0.0, 0.5],
                epochs: 25,
            },
            ..Plan::quick()
        }
    }

    #[test]
    fn blink_keeps_the_setting_of_the_lowest_validation_loss() {
        let ds = sbm(6);
        let plan = blink_plan();
        let b = &plan.blink;
        let row = blink::variant_row(
            &ds,
            &plan,
            BlinkVariant::Hard,
            dp_core::params::Epsilon::constant(2.0),
        )
        .unwrap();
        assert_eq!(row.scores.method, "Blink-hard (original, δ_b tuned)");
        assert_eq!((row.scores.eps, row.published), (Some(2.0), Some(0.712)));
        assert_eq!(row.scores.runs.len(), 2);
        assert!((0.0..=1.0).contains(&row.scores.acc_mean), "{row:?}");
        assert!(row.edges.value() > 0.0 && (0.0..=1.0).contains(&row.precision.unwrap()));
        // Every setting's validation loss on seed 0, as the protocol computes it.
        let mut losses = Vec::new();
        for &delta in &b.deltas {
            let params = BlinkParams {
                degree_share: delta,
                ..BlinkParams::new(dp_core::params::Epsilon::constant(2.0))
            };
            let r = blink_posterior(ds.graph(), &params, 0)
                .unwrap()
                .0
                .release(BlinkVariant::Hard)
                .unwrap();
            for hp in blink::grid(b, &[delta]) {
                let plan = blink::train_plan(b, 0, &hp);
                let s = train_on_release(&ds, &r.graph, r.weights.as_deref(), &plan).unwrap();
                losses.push((s.val_loss, hp));
            }
        }
        assert_eq!(losses.len(), 4);
        let min = losses.iter().map(|x| x.0).fold(f64::INFINITY, f64::min);
        assert!(
            (row.val_loss - min).abs() < 1e-6,
            "{} vs {losses:?}",
            row.val_loss
        );
        let chosen = losses.iter().find(|x| (x.0 - min).abs() < 1e-6).unwrap().1;
        assert_eq!(
            (row.delta_b, row.dropout),
            (Some(chosen.degree_share), chosen.dropout)
        );
    }

    #[test]
    fn blink_reference_rows_are_the_true_graph_and_no_graph() {
        let ds = sbm(6);
        let plan = blink_plan();
        let rows = blink::table(&ds, &plan, |_| {}).unwrap();
        assert_eq!(rows.len(), 3);
        let (origin, none) = (&rows[0], &rows[1]);
        assert_eq!(
            (origin.scores.method.as_str(), origin.scores.eps),
            ("non-private", None)
        );
        assert_eq!(origin.edges.value(), ds.graph().num_edges() as f64);
        assert_eq!(
            (none.edges.value(), none.delta_b, none.precision),
            (0.0, None, None)
        );
        assert_eq!(none.published, Some(0.710));
        assert!(origin.scores.acc_mean > none.scores.acc_mean, "{rows:?}");
        assert!(blink::reference_row(&ds, &plan, Method::SymRr).is_err());
        let no_seeds = Plan {
            seeds: vec![],
            ..blink_plan()
        };
        assert!(blink::reference_row(&ds, &no_seeds, Method::Origin).is_err());
    }

    #[test]
    fn the_mutag_table_has_a_row_per_method_eps_and_model() {
        let ds = cycles_and_stars(40);
        let plan = Plan {
            mutag_methods: vec![Method::Origin, Method::NoGraph, er1()],
            mutag_models: vec![GraphModel::Gin, GraphModel::Gcn],
            mutag_eps: vec![1.0, 3.0],
            seeds: vec![3],
            ..Plan::quick()
        };
        let mut seen = 0;
        let rows = mutag::table(&ds, &plan, |_| seen += 1).unwrap();
        assert_eq!(seen, 8);
        let cells: Vec<(&str, &str, Option<f64>)> = rows
            .iter()
            .map(|r| (r.scores.method.as_str(), r.model.as_str(), r.scores.eps))
            .collect();
        assert_eq!(
            cells,
            [
                ("non-private", "graph-gin", None),
                ("non-private", "graph-gcn", None),
                ("no graph (features only)", "graph-gin", None),
                ("no graph (features only)", "graph-gcn", None),
                ("EdgeRefine k=1", "graph-gin", Some(1.0)),
                ("EdgeRefine k=1", "graph-gcn", Some(1.0)),
                ("EdgeRefine k=1", "graph-gin", Some(3.0)),
                ("EdgeRefine k=1", "graph-gcn", Some(3.0)),
            ]
        );
        assert!(rows[0].scores.acc_mean >= 0.99, "{rows:?}");
        assert!(rows[2].scores.acc_mean <= 0.75, "{rows:?}");
        assert_eq!(
            (rows[0].edges, rows[0].precision),
            (300.0, 1.0),
            "20 cycles, 20 stars"
        );
        // The gap to the same model's non-private accuracy, and the paper's ≈ 5 % on the
        // EdgeRefine rows only.
        assert!(rows[0].below_non_private_pct.is_nan() && rows[0].paper_value.is_nan());
        let gap = (1.0 - rows[4].scores.acc_mean / rows[0].scores.acc_mean) * 100.0;
        assert!(
            (rows[4].below_non_private_pct - gap).abs() < 1e-9,
            "{rows:?}"
        );
        assert_eq!(rows[4].paper_value, 5.0);
        assert!(rows[2].paper_value.is_nan());
        // One release per (method, ε, seed), shared by the models.
        for pair in rows.chunks(2) {
            // (precision is NaN for the empty no-graph release: compare the bits.)
            assert_eq!(
                (
                    pair[0].edges,
                    pair[0].precision.to_bits(),
                    pair[0].publish_s
                ),
                (
                    pair[1].edges,
                    pair[1].precision.to_bits(),
                    pair[1].publish_s
                )
            );
        }
        assert!(
            rows.iter()
                .all(|r| r.scores.runs.len() == 1 && r.scores.acc_std == 0.0)
        );
        let curves = mutag::curves(&rows, "graph-gin", &plan.mutag_eps);
        assert_eq!(curves.len(), 3);
        assert!(curves.iter().all(|c| c.points.len() == 2));
        assert!(mutag::row(&ds, Method::Origin, None, GraphModel::Gin, &[]).is_err());
        assert!(mutag::rows(&ds, Method::Origin, None, &[], &[1]).is_err());
    }

    #[test]
    fn the_k_sweep_has_a_row_per_cell_against_one_features_only_baseline() {
        let ds = sbm(4);
        let dp = DatasetPlan {
            name: "sbm",
            eps: vec![4.0],
            max_epochs: 40,
            patience: 40,
        };
        let sweep = KSweep {
            datasets: vec!["sbm"],
            model: NodeModel::Gcn,
            eps: vec![1.0, 6.0],
            ks: vec![0.05, 1.0],
            variants: vec![Calibration {
                bins: 4,
                tie_break: TieBreak::Reference,
            }],
            variant_ks: vec![1.0],
            seeds: vec![0, 1],
        };
        let mut seen = 0;
        let rows = k_sweep::rows(&ds, &dp, &sweep, |_| seen += 1).unwrap();
        assert_eq!((rows.len(), seen), (6, 6), "2 ε × (2 k + 1 variant)");
        let cells: Vec<(f64, f64, &str)> = rows
            .iter()
            .map(|r| (r.scores.eps.unwrap(), r.k, r.release.calibration.as_str()))
            .collect();
        assert_eq!(
            cells,
            [
                (1.0, 0.05, "B=10"),
                (1.0, 1.0, "B=10"),
                (1.0, 1.0, "B=4 reference"),
                (6.0, 0.05, "B=10"),
                (6.0, 1.0, "B=10"),
                (6.0, 1.0, "B=4 reference"),
            ]
        );
        let e = ds.graph().num_edges() as f64;
        for r in &rows {
            assert_eq!(
                r.release.features_only, rows[0].release.features_only,
                "one baseline"
            );
            assert_eq!(r.scores.runs.len(), 2);
            assert!(
                (r.release.gain - (r.scores.acc_mean - r.release.features_only)).abs() < 1e-9,
                "{r:?}"
            );
            assert_eq!(
                r.release.helps,
                r.release.gain - 2.0 * r.release.gain_se > 0.0
            );
            let k_edges = (r.k * e).floor();
            assert!(r.release.released_edges <= k_edges, "{r:?}");
        }
        // At ε = 6 the k = 1 release is mostly the true graph (ρ ≈ 0.998, q ≈ 0.0025).
        assert!(
            rows[4].release.precision > rows[1].release.precision + 0.3,
            "{rows:?}"
        );
        // Seeded: the same numbers again (training times aside).
        let untimed = |rows: Vec<k_sweep::KSweepRow>| {
            rows.into_iter()
                .map(|r| k_sweep::KSweepRow { train_s: 0.0, ..r })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            untimed(rows.clone()),
            untimed(k_sweep::rows(&ds, &dp, &sweep, |_| ()).unwrap())
        );
        // A sweep dataset without an epoch budget in the plan is refused by name.
        let plan = Plan {
            k_sweep: sweep.clone(),
            ..Plan::quick()
        };
        let err = k_sweep::table(
            &plan,
            &plan.k_sweep,
            |_| Ok::<_, edgerefine::EdgeRefineError>(Some(sbm(4))),
            |_| (),
        )
        .unwrap_err();
        assert!(err.to_string().contains("sbm"), "{err}");
    }

    #[test]
    fn the_calibration_table_runs_ours_then_each_artifact_calibration_per_model() {
        use edgerefine::ArtifactCalibration;
        let ds = sbm(4);
        let dp = DatasetPlan {
            name: "sbm",
            eps: vec![4.0],
            max_epochs: 30,
            patience: 30,
        };
        let table = CalibrationTable {
            datasets: vec!["sbm"],
            models: vec![NodeModel::Gcn, NodeModel::Gin],
            eps: vec![3.0],
            k: 0.5,
            calibrations: ArtifactCalibration::ALL.to_vec(),
            seeds: vec![0, 1],
        };
        let mut seen = 0;
        let rows = calibrations::rows(&ds, &dp, &table, |_| seen += 1).unwrap();
        assert_eq!((rows.len(), seen), (14, 14), "2 models × (ours + 6)");
        assert_eq!(rows[0].release.calibration, calibrations::OURS);
        assert_eq!(rows[1].release.calibration, "jaccard-simple");
        assert_eq!(rows[7].model, "gin");
        let k_edges = (0.5 * ds.graph().num_edges() as f64).floor();
        for r in &rows {
            assert_eq!(r.scores.runs.len(), 2);
            assert!(r.release.released_edges <= k_edges, "{r:?}");
            assert!((r.release.gain - (r.scores.acc_mean - r.release.features_only)).abs() < 1e-9);
            assert!(!r.fitted.is_empty());
        }
        // simple and temperature rank alike: the same releases, so the same accuracies.
        let by = |c: &str| {
            rows.iter()
                .find(|r| r.release.calibration == c && r.model == "gcn")
                .unwrap()
        };
        assert_eq!(
            by("jaccard-simple").scores.runs,
            by("jaccard-temperature").scores.runs
        );
        for r in &rows {
            assert!((0.0..=1.0).contains(&r.release.precision), "{r:?}");
            assert_eq!(
                r.release.helps,
                r.release.gain - 2.0 * r.release.gain_se > 0.0,
                "{r:?}"
            );
        }
        // One seed has no standard error: no row of it counts as helping, whatever its gain.
        let one = CalibrationTable {
            models: vec![NodeModel::Gcn],
            calibrations: vec![ArtifactCalibration::Histogram],
            seeds: vec![0],
            ..table.clone()
        };
        let single = calibrations::rows(&ds, &dp, &one, |_| {}).unwrap();
        assert_eq!(single.len(), 2);
        for r in &single {
            assert_eq!((r.release.gain_se, r.release.helps), (0.0, false), "{r:?}");
        }
        // A dataset without an epoch budget in the plan is refused by name.
        let plan = Plan {
            calibrations: table,
            ..Plan::quick()
        };
        let err = calibrations::table(
            &plan,
            |_| Ok::<_, edgerefine::EdgeRefineError>(Some(sbm(4))),
            |_| (),
        )
        .unwrap_err();
        assert!(err.to_string().contains("sbm"), "{err}");
    }
}
