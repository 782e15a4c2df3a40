//! Appendix D.3's ablation ([`sensitivity_table`]): the same releases calibrated by the global
//! (counting-lemma) sensitivity, the paper's bounded-degree formula and the corrected
//! component-aware bound — same ρ, same patterns, same noise draws (the main table's seed
//! stream, so the `components` and `paper` rows at ρ = 0.01 are the main table's) — with the
//! noise scale σ and the downstream score side by side.

use dp_core::params::EpsilonBound;
use serde::Serialize;

use super::cells::{Rho, Score};
use super::protocol::{MAIN_RHO, PatternSet, SeedStream, Sizes};
use super::sweep::{Point, Repetitions, Runs, mean, sweep};
use super::{DatasetSetting, Prepared};
use crate::error::Result;
use crate::sensitivity::SensitivityBound;

/// The ρ of the ablation: the main table's 0.01 and a budget 100 times larger.
pub const ABLATION_RHOS: [dp_core::params::Rho; 2] =
    [MAIN_RHO, dp_core::params::Rho::constant(1.0)];

/// The bounds of the ablation, global first, with their names in the table.
pub const ABLATION_BOUNDS: [(SensitivityBound, &str); 3] = [
    (SensitivityBound::CountingLemma, "counting-lemma"),
    (SensitivityBound::PaperTheorem45, "paper"),
    (SensitivityBound::ComponentAware, "components"),
];

/// One row of the ablation: one bound at one ρ on one dataset.
#[derive(Debug, Clone, Serialize, Default)]
pub struct SensitivityRow {
    /// The dataset.
    pub dataset: String,
    /// The downstream model.
    pub model: String,
    /// The metric's name.
    pub metric: String,
    /// `counting-lemma`, `paper`, `components`, or `-` for the non-private row.
    pub bound: String,
    /// ρ of the release.
    pub rho: Rho,
    /// ε at δ = [`super::DELTA`].
    pub eps: Option<EpsilonBound>,
    /// Mean over repetitions of the mean per-coordinate noise standard deviation σ.
    pub mean_sigma: f64,
    /// `mean_sigma` over the component-aware bound's at the same ρ.
    #[serde(rename = "sigma_ratio")]
    pub noise_ratio: f64,
    /// Mean of the metric over the repetitions.
    pub value: Score,
    /// Its sample standard deviation.
    pub std: f64,
    /// Mean top-1 re-identification rate.
    pub attack_top1: f64,
    /// Mean top-10 re-identification rate.
    pub attack_top10: f64,
    /// Graphs clipped to Δ (most in one repetition).
    pub clipped: usize,
    /// Graphs evaluated.
    pub graphs: usize,
}

/// The ablation's points: for each ρ of [`ABLATION_RHOS`] every bound of [`ABLATION_BOUNDS`]
/// (clean test rows), then the non-private point.
///
/// # Example
/// ```
/// let g = homdp::paper::sensitivity_grid();
/// assert_eq!(g.len(), 7);
/// assert_eq!(g[0].bound, homdp::SensitivityBound::CountingLemma);
/// assert!(g[6].rho.is_none());
/// ```
pub fn sensitivity_grid() -> Vec<Point> {
    let mut g: Vec<Point> = ABLATION_RHOS
        .iter()
        .flat_map(|&r| {
            ABLATION_BOUNDS
                .iter()
                .map(move |&(b, _)| Point::private(r, b))
        })
        .collect();
    g.push(Point::non_private());
    g
}

/// Runs the ablation on the prepared dataset `p` with its setting `s`: [`sensitivity_grid`]
/// over `sizes.reps` repetitions of the main table's stream [`SeedStream::Main`]`(index)`, in a
/// run seeded with `seed` (the main table's draws: its `components` and `paper` rows at
/// ρ = 0.01 are this table's).
///
/// # Errors
/// As [`sweep`].
///
/// # Privacy
/// Each row is one release at its ρ under its bound; the counting-lemma and component-aware
/// bounds are valid sensitivity bounds, the paper's formula under-estimates it for disconnected
/// patterns (see [`SensitivityBound`]).
///
/// # Complexity
/// `sizes.reps` density computations and `7 · sizes.reps` evaluations.
pub fn sensitivity_table(
    p: &Prepared,
    s: &DatasetSetting,
    index: usize,
    sizes: &Sizes,
    seed: u64,
) -> Result<Vec<SensitivityRow>> {
    let grid = sensitivity_grid();
    let reps = Repetitions::new(seed, SeedStream::Main(index), sizes.reps);
    let runs = sweep(p, s, PatternSet::of(s), reps, &grid)?;
    let reference = |rho: Option<dp_core::params::Rho>| {
        grid.iter()
            .zip(&runs)
            .find(|(q, _)| q.rho == rho && q.bound == SensitivityBound::ComponentAware)
            .map_or(f64::NAN, |(_, a)| mean(&a.sigma))
    };
    Ok(grid
        .iter()
        .zip(&runs)
        .map(|(pt, a)| row(p, s, pt, a, reference(pt.rho)))
        .collect())
}

fn row(p: &Prepared, s: &DatasetSetting, pt: &Point, a: &Runs, reference: f64) -> SensitivityRow {
    let (m, sd) = a.score();
    let sigma = mean(&a.sigma);
    let bound = if pt.rho.is_some() {
        ABLATION_BOUNDS
            .iter()
            .find(|(b, _)| *b == pt.bound)
            .map_or("other", |(_, n)| n)
    } else {
        "-"
    };
    SensitivityRow {
        dataset: s.name.to_owned(),
        model: p.scaled(s.model).name(),
        metric: s.metric.name().to_owned(),
        bound: bound.to_owned(),
        rho: pt.rho.into(),
        eps: a.eps,
        mean_sigma: sigma,
        noise_ratio: if pt.rho.is_some() {
            sigma / reference
        } else {
            f64::NAN
        },
        value: Score::Value(m),
        std: sd,
        attack_top1: mean(&a.top1),
        attack_top10: mean(&a.top10),
        clipped: a.clipped,
        graphs: p.graphs.len(),
    }
}
