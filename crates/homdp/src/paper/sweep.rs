//! One sweep of the paper's protocol: a prepared dataset evaluated at several (ρ, bound,
//! test-row) points over seeded repetitions, each repetition with a fresh pattern set and one
//! noise draw shared by all points ([`sweep`]); the runs of each point ([`Runs`]).

use std::time::Instant;

use serde::Serialize;

use super::protocol::{NOISE_DRAW, PATTERN_DRAW, PatternSet, SeedStream, rep_seeds};
use super::{BOUNDS, DELTA, DatasetSetting, Metric, Prepared};
use dp_core::params::{EpsilonBound, Rho};

use crate::degree::PrivateDegree;
use crate::embed::ReleaseOptions;
use crate::error::Result;
use crate::evaluate::{EvalData, Outcome, Protocol, clean_features, evaluate};
use crate::sensitivity::SensitivityBound;

/// One evaluation of a sweep: ρ (`None`: non-private), the sensitivity bound, and whether the
/// test rows are released with noise too (`false`: the paper's clean test rows).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Point {
    /// ρ of the release (`None`: no noise).
    pub rho: Option<Rho>,
    /// The sensitivity bound that calibrates the noise.
    pub bound: SensitivityBound,
    /// Noisy test rows (`false`: the paper's clean test rows).
    pub noisy_test: bool,
    /// Estimate Δ privately instead of the dataset's public bound
    /// ([`ReleaseOptions::private_degree`]).
    pub private_degree: Option<PrivateDegree>,
}

impl Point {
    /// A private point with clean test rows.
    pub fn private(rho: Rho, bound: SensitivityBound) -> Self {
        Self {
            rho: Some(rho),
            bound,
            noisy_test: false,
            private_degree: None,
        }
    }

    /// This point with a privately estimated degree bound.
    pub(crate) fn with_private_degree(self, private_degree: PrivateDegree) -> Self {
        Self {
            private_degree: Some(private_degree),
            ..self
        }
    }

    /// The non-private point (ρ = ∞, clean test rows).
    pub(crate) fn non_private() -> Self {
        Self {
            rho: None,
            bound: SensitivityBound::ComponentAware,
            noisy_test: false,
            private_degree: None,
        }
    }

    /// This point with noisy test rows.
    pub(crate) fn noisy(self) -> Self {
        Self {
            noisy_test: true,
            ..self
        }
    }

    /// The bound's name in tables (`components`, `paper`), `-` for the non-private point.
    pub(crate) fn bound_name(&self) -> &'static str {
        if self.rho.is_some() {
            bound_name(self.bound)
        } else {
            "-"
        }
    }

    /// `clean` or `noisy` (the `test_rows` column).
    pub(crate) fn test_rows(&self) -> &'static str {
        if self.noisy_test { "noisy" } else { "clean" }
    }
}

/// The name of `bound` in tables ([`BOUNDS`]; `counting-lemma` for the global bound).
pub(crate) fn bound_name(bound: SensitivityBound) -> &'static str {
    BOUNDS
        .iter()
        .find(|(b, _)| *b == bound)
        .map_or("counting-lemma", |(_, n)| n)
}

/// Every `(ρ, bound)` of `rhos` × [`BOUNDS`] (ρ outer), with clean test rows.
pub fn rho_grid(rhos: &[Rho]) -> Vec<Point> {
    rhos.iter()
        .flat_map(|&r| BOUNDS.iter().map(move |&(b, _)| Point::private(r, b)))
        .collect()
}

/// The runs of one [`Point`] over the repetitions of a sweep.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Runs {
    /// The dataset's [`Metric`], per repetition.
    pub metric: Vec<f64>,
    /// Accuracy per repetition (NaN where not computed).
    pub accuracy: Vec<f64>,
    /// Top-1 re-identification rate per repetition.
    pub top1: Vec<f64>,
    /// Top-10 re-identification rate per repetition.
    pub top10: Vec<f64>,
    /// Mean per-coordinate noise standard deviation σ per repetition (0 without noise).
    pub sigma: Vec<f64>,
    /// ε of the release (∞ for the non-private point; `None` before the first repetition).
    pub eps: Option<EpsilonBound>,
    /// Most graphs clipped to Δ in one repetition.
    pub clipped: usize,
    /// The privately estimated Δ̂ per repetition (empty for a public or no bound).
    pub degree_bounds: Vec<usize>,
    /// Seconds of the releases, models and attacks (all repetitions).
    pub seconds: f64,
    /// Seconds spent computing the clean densities (all repetitions).
    pub count_seconds: f64,
}

impl Runs {
    fn add(&mut self, o: &Outcome, m: Metric) {
        self.metric.push(m.of(o));
        self.accuracy.push(o.scores.accuracy.unwrap_or(f64::NAN));
        self.top1.push(o.attack_top1.unwrap_or(f64::NAN));
        self.top10.push(o.attack_top10.unwrap_or(f64::NAN));
        self.sigma.push(o.mean_sigma);
        self.eps = Some(
            o.guarantee
                .map_or(EpsilonBound::UNBOUNDED, |g| g.eps_bound()),
        );
        self.clipped = self.clipped.max(o.clipped);
        self.degree_bounds.extend(o.degree_bound);
        self.seconds += o.seconds.iter().sum::<f64>();
    }

    /// Mean and sample standard deviation of the metric (see [`mean_std`]).
    pub(crate) fn score(&self) -> (f64, f64) {
        mean_std(&self.metric)
    }
}

/// Mean and sample standard deviation (0 for one value), ignoring NaN (missing runs); NaN for
/// no value.
pub fn mean_std(v: &[f64]) -> (f64, f64) {
    let v: Vec<f64> = v.iter().copied().filter(|x| !x.is_nan()).collect();
    graph_core::mean_std(&v).unwrap_or((f64::NAN, f64::NAN))
}

/// The mean of [`mean_std`].
pub fn mean(v: &[f64]) -> f64 {
    mean_std(v).0
}

/// Which repetitions a sweep runs: `reps` repetitions of `stream` in a run seeded with `seed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Repetitions {
    /// The run seed.
    pub seed: u64,
    /// The table (and dataset) the repetitions belong to.
    pub stream: SeedStream,
    /// How many.
    pub reps: usize,
}

impl Repetitions {
    /// `reps` repetitions of `stream` in a run seeded with `seed`.
    pub fn new(seed: u64, stream: SeedStream, reps: usize) -> Self {
        Self { seed, stream, reps }
    }
}

/// Evaluates `patterns` on `p` with `setting` at every point of `grid` over the repetitions
/// `reps`; returns the runs of each point, in `grid`'s order. The attack runs on every release.
///
/// Repetition `r` draws its patterns from stream [`PATTERN_DRAW`] of [`rep_seeds`]`(seed, stream, r)`
/// and every point of it
/// the same noise (the generator is reseeded per point), so points that differ only in
/// `noisy_test` share one release: the model is trained on the same noisy training rows, and the
/// attack (which depends on the release only) runs once and is reported for both.
///
/// # Errors
/// As [`PatternSet::draw`], [`clean_features`] and [`evaluate`].
///
/// # Privacy
/// Each point is one release of all graphs, with the guarantee of [`evaluate`] (ε in
/// [`Runs::eps`]); repetitions and points are separate experiments, not a composed release.
///
/// # Complexity
/// `reps` density computations plus `reps · |grid|` evaluations.
pub fn sweep(
    p: &Prepared,
    setting: &DatasetSetting,
    patterns: PatternSet,
    reps: Repetitions,
    grid: &[Point],
) -> Result<Vec<Runs>> {
    let mut runs: Vec<Runs> = grid.iter().map(|_| Runs::default()).collect();
    let models = [
        p.scaled(setting.model_for(false)),
        p.scaled(setting.model_for(true)),
    ];
    for rep in 0..reps.reps {
        let seeds = rep_seeds(reps.seed, reps.stream, rep);
        let pats = patterns.draw(&mut seeds.chacha8(PATTERN_DRAW, 0))?;
        let count_start = Instant::now();
        let clean = clean_features(&pats, &p.graphs, setting.append_num_nodes)?;
        let count_secs = count_start.elapsed().as_secs_f64();
        for a in &mut runs {
            a.count_seconds += count_secs;
        }
        let mut outcomes: Vec<Outcome> = Vec::with_capacity(grid.len());
        for &Point {
            rho,
            bound,
            noisy_test,
            private_degree,
        } in grid
        {
            // An earlier point with the same release already ran the attack.
            let same_release = outcomes
                .iter()
                .zip(grid)
                .find(|(_, q)| {
                    q.rho == rho && q.bound == bound && q.private_degree == private_degree
                })
                .map(|(o, _)| (o.attack_top1, o.attack_top10));
            let proto = Protocol {
                release: ReleaseOptions {
                    degree_bound: setting.degree_bound.filter(|_| private_degree.is_none()),
                    bound,
                    clip: private_degree.is_none(),
                    append_num_nodes: setting.append_num_nodes,
                    delta: DELTA,
                    beta: None,
                    private_degree,
                },
                noisy_test,
                model: models[usize::from(noisy_test)],
                attack: same_release.is_none(),
                attack_num_nodes: false,
            };
            let mut noise = seeds.chacha20(NOISE_DRAW, 0);
            let data = EvalData {
                patterns: &pats,
                graphs: &p.graphs,
                labels: &p.labels,
                split: &p.split,
                clean: clean.view(),
            };
            let mut o = evaluate(&data, rho, &proto, &mut noise, seeds.root())?;
            if let Some((top1, top10)) = same_release {
                (o.attack_top1, o.attack_top10) = (top1, top10);
            }
            runs[outcomes.len()].add(&o, setting.metric);
            outcomes.push(o);
        }
    }
    Ok(runs)
}
