//! Tests of `repro edgerefine`: the chunk cache's format, resume and the committed chunks.

use edgerefine::paper::node::{ReleaseAcc, TrainAcc};

use std::path::Path;

use edgerefine::eval::NodeModel;
use edgerefine::paper::node::{AtCap, Chunk, NodeAcc, NodeGrid};
use edgerefine::paper::{DatasetPlan, Plan};

use crate::repro::runner::{Runner, Source};

use super::chunk_rel;
use super::grid::at_cap_note;

#[test]
fn at_cap_note_counts_runs_per_model() {
    let dp = DatasetPlan {
        name: "amap",
        eps: vec![1.0],
        max_epochs: 300,
        patience: 50,
    };
    let note = at_cap_note(
        "amap",
        &dp,
        &[NodeModel::Gcn, NodeModel::Gat],
        &[
            AtCap {
                reached: 155,
                runs: 270,
            },
            AtCap {
                reached: 0,
                runs: 270,
            },
        ],
    );
    assert!(
        note.starts_with(
            "amap: runs under the dataset's own budget that reached the 300-epoch cap"
        ),
        "{note}"
    );
    assert!(note.contains("last 50 epochs; the paper's"), "{note}");
    assert!(note.ends_with(": gcn 155/270, gat 0/270."), "{note}");
}

#[test]
fn chunk_round_trips_nan_statistics_through_json() {
    let rel = ReleaseAcc {
        n: 1,
        edges: 0.0,
        density: 0.0,
        precision: f64::NAN,
        recall: 0.25,
        publish_s: 1.5,
    };
    let c = Chunk {
        fingerprint: "cora eps None seed 0".into(),
        releases: vec![(1, rel)],
        trains: vec![(
            0,
            1,
            TrainAcc {
                runs: vec![0.75],
                train_s: 2.0,
                epochs: 120,
                cap: 300,
                at_cap: None,
            },
        )],
        seconds: 3.0,
    };
    let d = tempfile::tempdir().unwrap();
    let runner = Runner::at(d.path(), d.path(), true);
    let rel = Path::new("cache/cora/fixed-seed0.json");
    runner.record(rel, &c).unwrap();
    let path = d.path().join(rel);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"precision\":null"), "{text}");
    assert!(
        text.starts_with("{\"fingerprint\":\"cora eps None seed 0\",\"releases\":[[1,{\"n\":1,"),
        "{text}"
    );
    let (back, _) = runner.cached::<Chunk>(rel, &c.fingerprint).unwrap();
    assert_eq!(back.fingerprint, c.fingerprint);
    let r = &back.releases[0].1;
    assert!(r.precision.is_nan());
    assert_eq!((r.n, r.recall, r.publish_s), (1, 0.25, 1.5));
    assert_eq!(back.trains[0].2.runs, vec![0.75]);
    std::fs::write(&path, "{not json").unwrap();
    assert!(
        runner.cached::<Chunk>(rel, &c.fingerprint).is_none(),
        "an unreadable chunk is recomputed"
    );
}

#[test]
fn resume_takes_a_chunk_of_the_same_plan_from_the_reference_and_copies_it() {
    let plan = Plan::full();
    let grid = NodeGrid::new(&plan, &plan.datasets[0]);
    let slot = grid.slots()[1];
    let chunk = |fingerprint: String| Chunk {
        fingerprint,
        releases: vec![],
        trains: vec![],
        seconds: 1.0,
    };
    let d = tempfile::tempdir().unwrap();
    let (out, reference) = (d.path().join("out"), d.path().join("ref"));
    let runner = Runner::at(&out, &reference, true);
    let writer = Runner::at(&reference, &reference, false);
    let (rel, fingerprint) = (chunk_rel(&grid, slot, 0), grid.fingerprint(slot, 0));
    assert!(
        rel.starts_with("edgerefine/cache/cora"),
        "{}",
        rel.display()
    );
    // Neither has it.
    assert!(runner.cached::<Chunk>(&rel, &fingerprint).is_none());
    // The reference has it under another plan: not taken, not copied.
    writer.record(&rel, &chunk("another plan".into())).unwrap();
    assert!(runner.cached::<Chunk>(&rel, &fingerprint).is_none());
    assert!(!out.join(&rel).exists());
    // The reference has it under this plan: taken and copied into --out's cache.
    writer.record(&rel, &chunk(fingerprint.clone())).unwrap();
    let (c, source) = runner.cached::<Chunk>(&rel, &fingerprint).unwrap();
    assert_eq!(
        (c.fingerprint.as_str(), source),
        (fingerprint.as_str(), Source::Reference)
    );
    assert_eq!(
        std::fs::read(out.join(&rel)).unwrap(),
        std::fs::read(reference.join(&rel)).unwrap()
    );
    // Now --out has it; without a reference too.
    let alone = Runner::at(&out, &out, true);
    let (_, source) = alone.cached::<Chunk>(&rel, &fingerprint).unwrap();
    assert_eq!(source, Source::Out);
    // Another seed: in neither.
    let other = chunk_rel(&grid, slot, 1);
    assert!(
        runner
            .cached::<Chunk>(&other, &grid.fingerprint(slot, 1))
            .is_none()
    );
}

#[test]
fn the_committed_chunk_cache_matches_its_plan() {
    // `--resume` under the `--full` plan must find every committed chunk: same file names,
    // same fingerprints (the paper's 700 / 100 protocol; the earlier 300 / 50 plan's chunks
    // are in the git history only), and the same JSON fields when written again.
    let dir = crate::project_root().join("results");
    let plan = Plan::full();
    let before = Plan::full_before_dense_path();
    let mut n = 0;
    for dp in &plan.datasets {
        let grid = NodeGrid::new(&plan, dp);
        let before_grid = NodeGrid::new(&before, dp);
        for slot in grid.slots() {
            for &seed in &plan.seeds {
                let file = dir.join(chunk_rel(&grid, slot, seed));
                let text = std::fs::read_to_string(&file)
                    .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
                let c: Chunk = serde_json::from_str(&text).unwrap();
                // Made by this plan, or by the plan before the dense training path (whose
                // chunks --resume completes: `NodeGrid::rerun_dense`).
                assert!(
                    c.fingerprint == grid.fingerprint(slot, seed)
                        || c.fingerprint == before_grid.fingerprint(slot, seed),
                    "{}",
                    file.display()
                );
                // The same fields and values written again (serde_json's parser may move
                // a float by one ulp, so the values are compared as parsed).
                assert_eq!(
                    serde_json::to_value(&c).unwrap(),
                    serde_json::from_str::<serde_json::Value>(&text).unwrap(),
                    "{}",
                    file.display()
                );
                let mut acc = NodeAcc::new(&grid);
                acc.add(slot, &c);
                assert!(!grid.rows(&acc).unwrap().accuracy.is_empty());
                n += 1;
            }
        }
    }
    assert_eq!(n, 160);
}
