//! Q2 of the paper ([`q2_table`]): on HIV, the ROC-AUC of 50 patterns of treewidth 1 (the
//! paper's forests), 2 and 3 (partial k-trees) at ρ = 0.01 and ρ = ∞, with the main table's
//! points ([`super::main_grid`] with noisy test rows) and the noise without the degree bound
//! (the counting lemma); and the experiment on the asserted cause ([`Q2Patterns`]): the same
//! treewidths with patterns matched on e(F), and with the reference's one-pattern-per-size
//! sampler.

use std::time::Instant;

use dp_core::params::EpsilonBound;
use serde::Serialize;

use super::cells::Rho;
use super::main_table::main_grid;
use super::protocol::{MAIN_RHO, PATTERN_DRAW, PATTERNS, PatternSet, SeedStream, Sizes, rep_seeds};
use super::sweep::{Point, Repetitions, mean, sweep};
use super::{DatasetSetting, Prepared};
use crate::count::hom_count;
use crate::error::Result;
use crate::pattern::Pattern;
use crate::sensitivity::SensitivityBound;

/// Which patterns a block of Q2 embeds with at each treewidth.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Q2Patterns {
    /// The paper's law: forests (treewidth 1) or partial k-trees of the same size law
    /// ([`PatternSet::of_treewidth`]), seeds [`SeedStream::Q2`] of the treewidth.
    PaperLaw,
    /// Matched on e(F) ([`PatternSet::MatchedEdges`]): at every treewidth the edge counts of
    /// the treewidth-1 block's forests (seeds [`SeedStream::Q2`] of treewidth 1 at every
    /// treewidth, so the forests and the noise draws are the treewidth-1 block's).
    MatchedEdges,
    /// One pattern per size ([`PatternSet::OnePerSize`]), on the paper-law block's draws.
    OnePerSize,
}

impl Q2Patterns {
    /// The blocks of Q2, the paper's law first.
    pub const ALL: [Self; 3] = [Self::PaperLaw, Self::MatchedEdges, Self::OnePerSize];

    /// The pattern set and seed stream of this block at `treewidth`.
    pub fn set(self, treewidth: usize) -> (PatternSet, SeedStream) {
        let count = PATTERNS;
        match self {
            Self::PaperLaw => (
                PatternSet::of_treewidth(treewidth, count),
                SeedStream::Q2 { treewidth },
            ),
            Self::MatchedEdges => (
                PatternSet::MatchedEdges { treewidth, count },
                SeedStream::Q2 { treewidth: 1 },
            ),
            Self::OnePerSize => (
                PatternSet::OnePerSize { treewidth, count },
                SeedStream::Q2 { treewidth },
            ),
        }
    }

    /// The points of this block: the paper's law runs [`main_grid`]`(true)` and the counting
    /// lemma (no degree bound); the controls the component-aware bound, the counting lemma
    /// and ρ = ∞, with clean test rows.
    pub fn grid(self) -> Vec<Point> {
        let counting = Point::private(MAIN_RHO, SensitivityBound::CountingLemma);
        match self {
            Self::PaperLaw => {
                let mut g = main_grid(true);
                g.push(counting);
                g
            }
            Self::MatchedEdges | Self::OnePerSize => vec![
                Point::private(MAIN_RHO, SensitivityBound::ComponentAware),
                counting,
                Point::non_private(),
            ],
        }
    }
}

/// The treewidths Q2 compares.
pub const Q2_TREEWIDTHS: [usize; 3] = [1, 2, 3];

/// One row of Q2.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Q2Row {
    /// The patterns' treewidth.
    pub treewidth: usize,
    /// How they were drawn ([`Q2Patterns`]: `paper-law`, `matched-edges`, `one-per-size`).
    pub patterns: String,
    /// Mean e(F) of the first repetition's patterns.
    pub mean_edges: f64,
    /// `components`, `paper`, `counting-lemma` (no degree bound), or `-` for the
    /// non-private row.
    pub bound: String,
    /// `clean` (the paper's protocol) or `noisy` test rows.
    pub test_rows: String,
    /// ρ of the release.
    pub rho: Rho,
    /// ε at δ = [`super::DELTA`] (empty for the non-private row).
    pub eps: Option<EpsilonBound>,
    /// Mean ROC-AUC over the repetitions.
    pub roc_auc: f64,
    /// Its sample standard deviation.
    pub std: f64,
    /// Mean top-1 re-identification rate.
    pub attack_top1: f64,
    /// Graphs evaluated.
    pub graphs: usize,
    /// Seconds of the release, the model and the attack of this row (all repetitions).
    pub seconds: f64,
    /// Seconds computing the clean densities (all repetitions).
    pub count_seconds: f64,
}

/// The shape of the first repetition's patterns of one treewidth.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct PatternShapes {
    /// The block ([`Q2Patterns`]).
    pub patterns: Q2Patterns,
    /// The treewidth.
    pub treewidth: usize,
    /// Mean e(F).
    pub mean_edges: f64,
    /// Distinct patterns.
    pub distinct: usize,
    /// Patterns that are forests.
    pub forests: usize,
    /// Patterns that hold a triangle.
    pub with_triangle: usize,
}

/// Q2's rows with what its notes report.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Q2Table {
    /// The rows: per block ([`Q2Patterns::ALL`]) and treewidth ([`Q2_TREEWIDTHS`]), one per
    /// point of [`Q2Patterns::grid`].
    pub rows: Vec<Q2Row>,
    /// Per block and treewidth, the shapes of the first repetition's patterns.
    pub shapes: Vec<PatternShapes>,
    /// Per block and treewidth, wall-clock seconds (counting and all rows).
    pub wall_seconds: Vec<f64>,
    /// Graphs of the dataset holding a triangle.
    pub graphs_with_triangle: usize,
}

/// Whether pattern `f` holds a triangle.
pub fn has_triangle(f: &Pattern) -> bool {
    f.edges()
        .any(|(u, v)| f.neighbor_mask(u) & f.neighbor_mask(v) != 0)
}

/// Runs Q2 on the prepared HIV graphs `p` (a subsample of [`Sizes::q2_limits`]) with HIV's
/// setting `s` in a run seeded with `seed`: per block of [`Q2Patterns::ALL`] and treewidth of
/// [`Q2_TREEWIDTHS`], [`PATTERNS`] patterns ([`Q2Patterns::set`]) over `sizes.side_reps`
/// repetitions at the points of [`Q2Patterns::grid`].
///
/// # Errors
/// As [`sweep`] and [`hom_count`].
///
/// # Privacy
/// As [`sweep`]: each row is one release at its ρ, with its ε in the row.
///
/// # Complexity
/// `9 · sizes.side_reps` density computations (treewidth ≤ 3) and 3–6 evaluations each.
pub fn q2_table(p: &Prepared, s: &DatasetSetting, sizes: &Sizes, seed: u64) -> Result<Q2Table> {
    let mut out = Q2Table::default();
    for block in Q2Patterns::ALL {
        let grid = block.grid();
        for tw in Q2_TREEWIDTHS {
            let start = Instant::now();
            let (patterns, stream) = block.set(tw);
            let first = patterns.draw(&mut rep_seeds(seed, stream, 0).chacha8(PATTERN_DRAW, 0))?;
            let mean_edges =
                first.iter().map(Pattern::num_edges).sum::<usize>() as f64 / first.len() as f64;
            let distinct = first
                .iter()
                .enumerate()
                .filter(|(i, f)| !first[..*i].contains(f))
                .count();
            out.shapes.push(PatternShapes {
                patterns: block,
                treewidth: tw,
                mean_edges,
                distinct,
                forests: first.iter().filter(|f| f.is_forest()).count(),
                with_triangle: first.iter().filter(|f| has_triangle(f)).count(),
            });
            let reps = Repetitions::new(seed, stream, sizes.side_reps);
            let runs = sweep(p, s, patterns, reps, &grid)?;
            let name = serde_name(block);
            for (pt, a) in grid.iter().zip(&runs) {
                let (m, sd) = a.score();
                out.rows.push(Q2Row {
                    treewidth: tw,
                    patterns: name.clone(),
                    mean_edges,
                    bound: pt.bound_name().to_owned(),
                    test_rows: pt.test_rows().to_owned(),
                    rho: pt.rho.into(),
                    eps: a.eps,
                    roc_auc: m,
                    std: sd,
                    attack_top1: mean(&a.top1),
                    graphs: p.graphs.len(),
                    seconds: a.seconds,
                    count_seconds: a.count_seconds,
                });
            }
            out.wall_seconds.push(start.elapsed().as_secs_f64());
        }
    }
    let triangle = Pattern::cycle(3)?;
    for g in &p.graphs {
        out.graphs_with_triangle += usize::from(hom_count(&triangle, g)? > 0);
    }
    Ok(out)
}

/// The block's name in the table (its serde name).
fn serde_name(block: Q2Patterns) -> String {
    match block {
        Q2Patterns::PaperLaw => "paper-law",
        Q2Patterns::MatchedEdges => "matched-edges",
        Q2Patterns::OnePerSize => "one-per-size",
    }
    .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triangles_in_patterns() -> Result<()> {
        assert!(has_triangle(&Pattern::complete(3)?));
        assert!(!has_triangle(&Pattern::cycle(4)?));
        let diamond = Pattern::new(4, &[(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)])?;
        assert!(has_triangle(&diamond));
        assert!(!has_triangle(&Pattern::path(5)?));
        Ok(())
    }
}
