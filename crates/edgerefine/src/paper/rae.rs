//! The reconstruction attack on the k = 1 EdgeRefine release (RAE = ‖A* − A‖²_F / ‖A‖²_F): the
//! GRAND-style attacker (degree, common-neighbour, triangle and degree-completion steps; unknown
//! pairs count as 2) and the attacker who takes the release itself as the adjacency. Needs no
//! training (no feature).

use graph_core::Graph;
use serde::Serialize;

use crate::TieBreak;
use crate::attack::{AttackParams, grand_attack, release_rae};
use crate::error::Result;
use crate::eval::{EdgeCount, Method, release, structure};

/// Rounds of the GRAND-style attacker's triangle and degree-completion steps.
pub const MAX_ROUNDS: usize = 20;

/// One row of the attack table: one dataset at one ε.
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct RaeRow {
    /// Dataset name.
    pub dataset: String,
    /// ε of the release.
    pub eps: f64,
    /// RAE of the GRAND-style attacker.
    pub rae_grand: f64,
    /// Pairs the GRAND-style attacker decided (edge or non-edge).
    pub decided_pairs: u64,
    /// RAE of taking the release as the guess (2·(1 − precision) when |release| = |E|).
    pub rae_release_as_guess: f64,
    /// Share of released edges that are true edges.
    pub release_precision: f64,
}

/// The rows of `dataset` (true graph `graph`): one k = 1 EdgeRefine release (default
/// tie-break, seeded by `seed`) per ε of `eps`, attacked.
///
/// # Errors
/// Invalid ε; a graph without edges (its RAE is undefined).
///
/// # Complexity
/// Per ε, the release's O(n²/64) all-pairs work plus the attack's rounds.
///
/// # Example
/// ```
/// use edgerefine::paper::rae;
/// let g = graph_core::generate::erdos_renyi(80, 0.08, &mut dp_core::rng::seeded_rng(1))?;
/// let rows = rae::rows("er", &g, &[1.0, 3.0], 0)?;
/// assert_eq!(rows.len(), 2);
/// assert_eq!((rows[1].dataset.as_str(), rows[1].eps), ("er", 3.0));
/// assert!(rows.iter().all(|r| r.rae_grand > 0.0 && r.release_precision <= 1.0));
/// # Ok::<(), edgerefine::EdgeRefineError>(())
/// ```
pub fn rows(dataset: &str, graph: &Graph, eps: &[f64], seed: u64) -> Result<Vec<RaeRow>> {
    let method = Method::EdgeRefine {
        k: 1.0,
        tie_break: TieBreak::Default,
        edge_count: EdgeCount::Supplied,
    };
    let mut out = Vec::with_capacity(eps.len());
    for &e in eps {
        let rel = release(graph, method, e, seed)?;
        let rec = grand_attack(
            &rel.graph,
            &AttackParams {
                max_rounds: MAX_ROUNDS,
            },
        )?;
        let (ones, zeros, _) = rec.known();
        out.push(RaeRow {
            dataset: dataset.into(),
            eps: e,
            rae_grand: rec.rae(graph)?,
            decided_pairs: ones + zeros,
            rae_release_as_guess: release_rae(&rel.graph, graph)?,
            release_precision: structure(graph, &rel.graph).precision,
        });
    }
    Ok(out)
}
