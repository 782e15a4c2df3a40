//! The reconstruction attack on the k = 1 EdgeRefine release (RAE = ‖A* − A‖²_F / ‖A‖²_F against
//! the true graph A, unknown pairs encoded as 2): the complete GRAND-style attacker (sound
//! deductions, the spectral step, deductions from its guesses), the sound deductions alone, the
//! attacker who takes the release itself as the adjacency, and the proxy 2·(1 − precision);
//! beside them the controls that give an RAE its meaning: the all-zero guess (RAE = 1 for any
//! graph: an RAE above 1 is not resilience, it is a guess worse than guessing nothing), and the
//! precision and recall of the recovered edges against the prior edge density (the precision of
//! a uniformly random guess). Needs no training (no feature).

use dp_core::params::Epsilon;
use graph_core::Graph;
use serde::Serialize;

use crate::TieBreak;
use crate::attack::{AttackParams, grand_attack, release_rae};
use crate::error::Result;
use crate::eval::{EdgeCount, Method, release, structure};

/// Rounds of the GRAND-style attacker's triangle and degree-completion steps.
pub const MAX_ROUNDS: usize = 20;

/// One row of the attack table: one dataset at one ε. Share columns are `None` (an empty
/// cell) where they have nothing to count.
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct RaeRow {
    /// Dataset name.
    pub dataset: String,
    /// ε of the release (`None` only in a default row).
    pub eps: Option<Epsilon>,
    /// RAE of the complete GRAND-style attacker (deductions, spectral step with error
    /// forgetting, deductions from its guesses).
    pub rae_grand: f64,
    /// RAE of the sound deductions alone (every decided pair certain).
    pub rae_grand_sound: f64,
    /// RAE of the estimate right after the spectral step's rounding, before error forgetting
    /// (every pair decided).
    pub rae_grand_unforgotten: f64,
    /// RAE of taking the release itself as the guess: (false + missed edges) / |E|.
    pub rae_release_as_guess: f64,
    /// The proxy 2·(1 − precision): equal to `rae_release_as_guess` when |release| = |E|.
    pub rae_proxy: f64,
    /// RAE of the all-zero guess (no edge anywhere): |E| / |E| = 1 whatever the graph, the
    /// control any attacker's RAE is read against.
    pub rae_all_zero: f64,
    /// Share of the complete attacker's edges (pairs it set to 1) that are true edges (`None`
    /// when it set none).
    pub grand_precision: Option<f64>,
    /// Share of the true edges the complete attacker set to 1.
    pub grand_recall: f64,
    /// Share of the true edges in the release.
    pub release_recall: f64,
    /// The prior edge density |E| / (n choose 2): the expected precision of a uniformly random
    /// guess.
    pub prior_density: f64,
    /// `grand_precision / prior_density`: how many times better than a random guess the
    /// recovered edges are (`None` without recovered edges).
    pub grand_precision_lift: Option<f64>,
    /// Pairs the complete attacker decided (edge or non-edge).
    pub decided_pairs_grand: u64,
    /// Pairs the sound deductions decided.
    pub decided_pairs_sound: u64,
    /// Pairs the spectral step's rounding decided (before forgetting).
    pub spectral_guesses: u64,
    /// Of those, the ones rounded to an edge.
    pub spectral_edges: u64,
    /// Share of the rounding's guesses equal to the true graph.
    pub spectral_accuracy: Option<f64>,
    /// Share of the guesses left in the complete attacker's estimate (after forgetting, and
    /// the deductions from them) equal to the true graph.
    pub kept_accuracy: Option<f64>,
    /// Share of released edges that are true edges.
    pub release_precision: f64,
    /// The paper's RAE on this dataset (≈ 1.962 on Cora, averaged over ε; NaN elsewhere).
    /// The artifact's attacker starts from the release itself, so the comparable columns are
    /// `rae_release_as_guess` and `rae_proxy`.
    pub paper_value: f64,
}

/// The paper's RAE on Cora (its attack starts from the release: compare with the
/// release-as-guess column).
pub(crate) const PAPER_RAE_CORA: f64 = 1.962;

/// The rows of `dataset` (true graph `graph`) with [`AttackParams::complete`]: one k = 1
/// EdgeRefine release (default tie-break, seeded by `seed`) per ε of `eps`, attacked.
///
/// # Errors
/// Invalid ε; a graph without nodes or edges (its RAE is undefined).
///
/// # Complexity
/// Per ε, the release's O(n²/64) all-pairs work plus the attack (see
/// [`crate::attack#complexity`]: a few seconds per ε at Cora's size with the default rank).
///
/// # Example
/// ```
/// use edgerefine::paper::rae;
/// let g = graph_core::generate::erdos_renyi(80, 0.08, &mut dp_core::rng::seeded_rng(1))?;
/// let rows = rae::rows("er", &g, &[1.0, 3.0], 0)?;
/// assert_eq!(rows.len(), 2);
/// assert_eq!(rows[1].dataset, "er");
/// assert_eq!(rows[1].eps.map(|e| e.get()), Some(3.0));
/// for r in &rows {
///     // A guess never costs more than an unknown pair.
///     assert!(r.rae_grand <= r.rae_grand_sound);
///     assert!(r.decided_pairs_sound <= r.decided_pairs_grand);
///     // The release has |E| edges: its RAE is the proxy.
///     assert!((r.rae_release_as_guess - r.rae_proxy).abs() < 1e-12);
///     // The all-zero guess scores exactly 1; recall and density are shares.
///     assert_eq!(r.rae_all_zero, 1.0);
///     assert!((0.0..=1.0).contains(&r.grand_recall) && r.prior_density > 0.0);
/// }
/// # Ok::<(), edgerefine::EdgeRefineError>(())
/// ```
pub fn rows(dataset: &str, graph: &Graph, eps: &[f64], seed: u64) -> Result<Vec<RaeRow>> {
    let params = AttackParams {
        max_rounds: MAX_ROUNDS,
        ..AttackParams::complete()
    };
    rows_with(dataset, graph, eps, seed, &params)
}

/// As [`rows`] with the attack's parameters given (`params.spectral = None` leaves the
/// spectral columns equal to the sound ones, without shares).
///
/// # Errors
/// As [`rows`], and invalid attack parameters.
///
/// # Complexity
/// As [`rows`].
pub fn rows_with(
    dataset: &str,
    graph: &Graph,
    eps: &[f64],
    seed: u64,
    params: &AttackParams,
) -> Result<Vec<RaeRow>> {
    let method = Method::EdgeRefine {
        k: 1.0,
        tie_break: TieBreak::Default,
        edge_count: EdgeCount::Supplied,
    };
    let mut out = Vec::with_capacity(eps.len());
    for &e in eps {
        let e = Epsilon::new(e)?;
        let rel = release(graph, method, e, seed)?;
        let rec = grand_attack(&rel.graph, params)?;
        let sound = rec.sound_only();
        let rounded = rec.rounded().unwrap_or(&rec);
        let st = structure(graph, &rel.graph);
        let precision = st.precision;
        let counts = rec.error_counts(graph)?;
        let found = counts.true_edges_found as f64;
        let claimed = found + counts.false_edges as f64;
        let m = graph.num_edges() as f64;
        let n = graph.num_nodes() as f64;
        let prior = m / (n * (n - 1.0) / 2.0);
        let grand_precision = (claimed > 0.0).then(|| found / claimed);
        out.push(RaeRow {
            dataset: dataset.into(),
            eps: Some(e),
            rae_grand: rec.rae(graph)?,
            rae_grand_sound: sound.rae(graph)?,
            rae_grand_unforgotten: rounded.rae(graph)?,
            rae_release_as_guess: release_rae(&rel.graph, graph)?,
            rae_proxy: 2.0 * (1.0 - precision),
            rae_all_zero: release_rae(&Graph::empty(graph.num_nodes())?, graph)?,
            grand_precision,
            grand_recall: found / m,
            release_recall: st.recall,
            prior_density: prior,
            grand_precision_lift: grand_precision.map(|p| p / prior),
            decided_pairs_grand: rec.decided(),
            decided_pairs_sound: sound.decided(),
            spectral_guesses: rec.spectral.map_or(0, |s| s.guessed),
            spectral_edges: rec.spectral.map_or(0, |s| s.guessed_edges),
            spectral_accuracy: rounded.guess_counts(graph)?.accuracy(),
            kept_accuracy: rec.guess_counts(graph)?.accuracy(),
            release_precision: precision,
            paper_value: if dataset == "cora" {
                PAPER_RAE_CORA
            } else {
                f64::NAN
            },
        });
    }
    Ok(out)
}
