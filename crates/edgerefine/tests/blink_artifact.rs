//! The EdgeRefine artifact's Blink against the original Blink on Cora at ε = 2.5: how many
//! edges each releases, and how many of them are true.
//!
//! Test names start with `real_data_` so `.ci/run` can select them: the test skips with a
//! message when Cora is not installed in `$DPGRAPH_DATA`, and fails then if
//! `DPGRAPH_REQUIRE_DATA=1`.

use dp_core::params::Epsilon;
use edgerefine::baselines::{
    BlinkArtifactParams, BlinkArtifactVariant, BlinkParams, BlinkVariant, blink, blink_artifact,
};
use edgerefine::eval::structure;
use graph_core::Graph;
use graph_core::registry::{DATA_ENV, Dataset, data_dir_or_default};

/// Cora's true graph, or `None` (after printing why) when it is not installed.
fn cora() -> Option<Graph> {
    let dir = data_dir_or_default(std::env::var_os(DATA_ENV));
    let spec = graph_core::Registry::embedded()
        .get("cora")
        .expect("cora is registered");
    if !spec.is_installed(&dir) {
        assert!(
            std::env::var("DPGRAPH_REQUIRE_DATA").as_deref() != Ok("1"),
            "dataset cora is not installed in {} and DPGRAPH_REQUIRE_DATA=1",
            dir.display()
        );
        eprintln!(
            "skipping: dataset cora is not installed in {} (set DPGRAPH_DATA)",
            dir.display()
        );
        return None;
    }
    let Dataset::Nodes(ds) = spec.load(&dir).expect("load cora") else {
        panic!("cora is a node dataset")
    };
    Some(ds.graph().clone())
}

/// Released and true edges of a release.
fn counts(truth: &Graph, released: &Graph) -> (usize, usize) {
    let s = structure(truth, released);
    (s.edges, (s.precision * s.edges as f64).round() as usize)
}

/// Mean released and true edges of the hard release over `seeds`, and the same for the original.
fn mean_counts(g: &Graph, seeds: &[u64]) -> ((f64, f64), (f64, f64)) {
    let (mut a, mut o) = ((0.0, 0.0), (0.0, 0.0));
    for &seed in seeds {
        let mut rng = dp_core::rng::seeded_rng(seed);
        let r = blink_artifact(
            g,
            BlinkArtifactVariant::Hard,
            &BlinkArtifactParams::new(Epsilon::constant(2.5)),
            &mut rng,
        )
        .unwrap();
        let (e, t) = counts(g, &r.graph);
        eprintln!("seed {seed}: the artifact's Blink releases {e} edges, {t} true");
        a = (a.0 + e as f64, a.1 + t as f64);
        let mut rng = dp_core::rng::seeded_rng(seed);
        let r = blink(
            g,
            BlinkVariant::Hard,
            &BlinkParams::new(Epsilon::constant(2.5)),
            &mut rng,
        )
        .unwrap();
        let (e, t) = counts(g, &r.graph);
        eprintln!("seed {seed}: the original Blink releases {e} edges, {t} true");
        o = (o.0 + e as f64, o.1 + t as f64);
    }
    let k = seeds.len() as f64;
    ((a.0 / k, a.1 / k), (o.0 / k, o.1 / k))
}

/// Bands for the mean over two seeds, ± 4 standard deviations of that mean (per-seed sd / √2),
/// from the spread over seeds:
/// - the artifact's own code (`structure.py`'s `blink_hard` on the artifact's `cora_adj.npy`,
///   which is our Cora edge for edge; numpy seeds 0..12): 14,529–17,141 edges (mean 15,801,
///   sd 631), 976–1,090 true (mean 1,013, sd 31). Ours, seeds 0..8: 15,313–16,533 edges (mean
///   16,019, sd 393), 976–1,042 true (mean 1,021, sd 22). Centres 15,900 and 1,015; widths
///   from the code's larger sd: ± 1,800 and ± 90. The design doc's "≈ 15,987 released" is
///   inside; its "≈ 896 true" is not (≈ 5σ of the mean below what the artifact's own code
///   gives; the variant *without* its degree-1 fix gives ≈ 950).
/// - the original Blink (δ_b = 0.1), ours over seeds 0..8: 1,465–1,558 edges (mean 1,510,
///   sd 36), 661–700 true (mean 681, sd 14): 1,510 ± 105 and 681 ± 40, which hold the doc's
///   1,433 and 648.
#[test]
fn real_data_cora_blink_artifact_against_original_edge_counts() {
    let Some(g) = cora() else { return };
    assert_eq!((g.num_nodes(), g.num_edges()), (2708, 5278));
    let ((edges, true_edges), (o_edges, o_true)) = mean_counts(&g, &[0, 1]);
    assert!((14_100.0..=17_700.0).contains(&edges), "{edges}");
    assert!((925.0..=1_105.0).contains(&true_edges), "{true_edges}");
    assert!((1_405.0..=1_615.0).contains(&o_edges), "{o_edges}");
    assert!((641.0..=721.0).contains(&o_true), "{o_true}");
    // Ten times the edges at a sixth of the precision: the double-counted report passes every
    // reported pair whose prior odds exceed e^{−4ε_a}.
    assert!(edges > 8.0 * o_edges && true_edges > o_true);
    assert!(true_edges / edges < 0.1 && o_true / o_edges > 0.4);
}
