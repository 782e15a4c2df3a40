//! The privacy–utility curve ([`curve_table`]): one dataset's score and re-identification
//! rates over ρ, under both sensitivity bounds.

use dp_core::params::EpsilonBound;
use serde::Serialize;

use super::cells::{Rho, Score};
use super::protocol::{PatternSet, SeedStream, Sizes};
use super::sweep::{Repetitions, mean, rho_grid, sweep};
use super::{DatasetSetting, Prepared};
use crate::error::Result;

/// One row of the privacy–utility curve.
#[derive(Debug, Clone, Serialize, Default)]
pub struct CurveRow {
    /// The dataset.
    pub dataset: String,
    /// The metric's name ([`super::Metric::name`]).
    pub metric: String,
    /// `components` or `paper` (`-` when not run).
    pub bound: String,
    /// ρ of the release.
    pub rho: Rho,
    /// ε at δ = [`super::DELTA`].
    pub eps: Option<EpsilonBound>,
    /// Mean of the metric over the repetitions.
    pub value: Score,
    /// Its sample standard deviation.
    pub std: f64,
    /// Mean top-1 re-identification rate.
    pub attack_top1: f64,
    /// Mean top-10 re-identification rate.
    pub attack_top10: f64,
}

impl CurveRow {
    /// The row of a dataset that is not installed.
    pub fn not_installed(s: &DatasetSetting) -> Self {
        Self {
            dataset: s.name.to_owned(),
            metric: s.metric.name().to_owned(),
            bound: "-".into(),
            rho: Rho::NotRun,
            eps: None,
            value: Score::NotInstalled,
            std: f64::NAN,
            attack_top1: f64::NAN,
            attack_top10: f64::NAN,
        }
    }
}

/// Runs the curve on the prepared dataset `p` with its setting `s`: every ρ of
/// `sizes.curve_rhos` under both bounds (ρ outer), over `sizes.side_reps` repetitions of
/// [`SeedStream::Curve`]`(index)` (`index`: the dataset's position in [`super::settings`])
/// with [`PatternSet::of`] `s`, in a run seeded with `seed`.
///
/// # Errors
/// As [`sweep`].
///
/// # Privacy
/// As [`sweep`]: each row is one release at its ρ, with its ε in the row.
///
/// # Complexity
/// `sizes.side_reps` density computations and `2 · sizes.side_reps · |curve_rhos|`
/// evaluations.
pub fn curve_table(
    p: &Prepared,
    s: &DatasetSetting,
    index: usize,
    sizes: &Sizes,
    seed: u64,
) -> Result<Vec<CurveRow>> {
    let grid = rho_grid(&sizes.curve_rhos);
    let reps = Repetitions::new(seed, SeedStream::Curve(index), sizes.side_reps);
    let runs = sweep(p, s, PatternSet::of(s), reps, &grid)?;
    Ok(grid
        .iter()
        .zip(&runs)
        .map(|(pt, a)| {
            let (m, sd) = a.score();
            CurveRow {
                dataset: s.name.to_owned(),
                metric: s.metric.name().to_owned(),
                bound: pt.bound_name().to_owned(),
                rho: pt.rho.into(),
                eps: a.eps,
                value: Score::Value(m),
                std: sd,
                attack_top1: mean(&a.top1),
                attack_top10: mean(&a.top10),
            }
        })
        .collect())
}
