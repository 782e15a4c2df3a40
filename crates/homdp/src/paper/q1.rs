//! Q1 of the paper ([`q1_table`]): on the SBM collection ([`super::q1_sbm`]), the accuracy of
//! the cycle densities (`C3`, `C4`) against the densities of 50 forests, over ρ.

use dp_core::params::EpsilonBound;
use serde::Serialize;

use super::cells::Rho;
use super::protocol::{PATTERNS, PatternSet, SeedStream, Sizes};
use super::sweep::{Point, Repetitions, mean, rho_grid, sweep};
use super::{DatasetSetting, Prepared};
use crate::error::Result;

/// One row of Q1.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Q1Row {
    /// The pattern set (`cycles C3+C4` or `forests (50)`).
    pub patterns: String,
    /// `components`, `paper`, or `-` for the non-private row.
    pub bound: String,
    /// ρ of the release.
    pub rho: Rho,
    /// ε at δ = [`super::DELTA`] (empty for the non-private row).
    pub eps: Option<EpsilonBound>,
    /// Mean accuracy over the repetitions.
    pub accuracy: f64,
    /// Its sample standard deviation.
    pub std: f64,
    /// Mean top-1 re-identification rate.
    pub attack_top1: f64,
}

/// Q1's points: every ρ of `sizes.q1_rhos` under both bounds, then ρ = ∞.
pub fn q1_grid(sizes: &Sizes) -> Vec<Point> {
    let mut grid = rho_grid(&sizes.q1_rhos);
    grid.push(Point::non_private());
    grid
}

/// Runs Q1 on the prepared SBM collection `p` with its setting `s` (the `SBM` entry of
/// [`super::settings`]) in a run seeded with `seed`: [`q1_grid`] over `sizes.reps`
/// repetitions, first with the cycles ([`SeedStream::Q1Cycles`]), then with [`PATTERNS`]
/// forests ([`SeedStream::Q1Forests`]); one row per pattern set and point, in that order.
///
/// # Errors
/// As [`sweep`].
///
/// # Privacy
/// As [`sweep`]: each row is one release at its ρ, with its ε in the row.
///
/// # Complexity
/// `2 · sizes.reps · |q1_grid|` evaluations.
pub fn q1_table(p: &Prepared, s: &DatasetSetting, sizes: &Sizes, seed: u64) -> Result<Vec<Q1Row>> {
    let grid = q1_grid(sizes);
    let mut rows = Vec::new();
    for (name, stream, patterns) in [
        (
            "cycles C3+C4".to_owned(),
            SeedStream::Q1Cycles,
            PatternSet::Cycles,
        ),
        (
            format!("forests ({PATTERNS})"),
            SeedStream::Q1Forests,
            PatternSet::Forests(PATTERNS),
        ),
    ] {
        let reps = Repetitions::new(seed, stream, sizes.reps);
        let runs = sweep(p, s, patterns, reps, &grid)?;
        for (pt, a) in grid.iter().zip(&runs) {
            let (m, sd) = a.score();
            rows.push(Q1Row {
                patterns: name.clone(),
                bound: pt.bound_name().to_owned(),
                rho: pt.rho.into(),
                eps: a.eps,
                accuracy: m,
                std: sd,
                attack_top1: mean(&a.top1),
            });
        }
    }
    Ok(rows)
}
