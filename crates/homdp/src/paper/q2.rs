//! Q2 of the paper ([`q2_table`]): on HIV, the ROC-AUC of 50 patterns of treewidth 1 (the
//! paper's forests), 2 and 3 (partial k-trees) at ρ = 0.01 and ρ = ∞, with the main table's
//! points ([`super::main_grid`] with noisy test rows).

use std::time::Instant;

use serde::Serialize;

use super::cells::Rho;
use super::main_table::main_grid;
use super::protocol::{PATTERN_DRAW, PATTERNS, PatternSet, SeedStream, Sizes, rep_seeds};
use super::sweep::{Repetitions, mean, sweep};
use super::{DatasetSetting, Prepared};
use crate::count::hom_count;
use crate::error::Result;
use crate::pattern::Pattern;

/// The treewidths Q2 compares.
pub const Q2_TREEWIDTHS: [usize; 3] = [1, 2, 3];

/// One row of Q2.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Q2Row {
    /// The patterns' treewidth.
    pub treewidth: usize,
    /// `components`, `paper`, or `-` for the non-private row.
    pub bound: String,
    /// `clean` (the paper's protocol) or `noisy` test rows.
    pub test_rows: String,
    /// ρ of the release.
    pub rho: Rho,
    /// ε at δ = [`super::DELTA`] (empty for the non-private row).
    pub eps: f64,
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
#[derive(Debug, Clone, Copy, Serialize, Default, PartialEq, Eq)]
pub struct PatternShapes {
    /// Patterns that are forests.
    pub forests: usize,
    /// Patterns that hold a triangle.
    pub with_triangle: usize,
}

/// Q2's rows with what its notes report.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Q2Table {
    /// The rows: per treewidth ([`Q2_TREEWIDTHS`]), one per point of [`main_grid`]`(true)`.
    pub rows: Vec<Q2Row>,
    /// Per treewidth, the shapes of the first repetition's patterns.
    pub shapes: Vec<PatternShapes>,
    /// Per treewidth, wall-clock seconds (counting and all rows).
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
/// setting `s` in a run seeded with `seed`: per treewidth of [`Q2_TREEWIDTHS`], [`PATTERNS`]
/// patterns ([`PatternSet::of_treewidth`]) over `sizes.side_reps` repetitions of
/// [`SeedStream::Q2`] at the points of [`main_grid`]`(true)`.
///
/// # Errors
/// As [`sweep`] and [`hom_count`].
///
/// # Privacy
/// As [`sweep`]: each row is one release at its ρ, with its ε in the row.
///
/// # Complexity
/// `3 · sizes.side_reps` density computations (treewidth ≤ 3) and five evaluations each.
pub fn q2_table(p: &Prepared, s: &DatasetSetting, sizes: &Sizes, seed: u64) -> Result<Q2Table> {
    let grid = main_grid(true);
    let mut out = Q2Table::default();
    for tw in Q2_TREEWIDTHS {
        let start = Instant::now();
        let patterns = PatternSet::of_treewidth(tw, PATTERNS);
        let stream = SeedStream::Q2 { treewidth: tw };
        let first = patterns.draw(&mut rep_seeds(seed, stream, 0).chacha8(PATTERN_DRAW, 0))?;
        out.shapes.push(PatternShapes {
            forests: first.iter().filter(|f| f.is_forest()).count(),
            with_triangle: first.iter().filter(|f| has_triangle(f)).count(),
        });
        let reps = Repetitions::new(seed, stream, sizes.side_reps);
        let runs = sweep(p, s, patterns, reps, &grid)?;
        for (pt, a) in grid.iter().zip(&runs) {
            let (m, sd) = a.score();
            out.rows.push(Q2Row {
                treewidth: tw,
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
    let triangle = Pattern::cycle(3)?;
    for g in &p.graphs {
        out.graphs_with_triangle += usize::from(hom_count(&triangle, g)? > 0);
    }
    Ok(out)
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
