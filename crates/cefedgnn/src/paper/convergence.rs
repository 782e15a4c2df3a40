//! The convergence table: CE-FedGNN over the total local steps T under the theorem's schedule
//! ([`Plan::convergence_config`]), with the global objective traced after every round
//! ([`simulate_traced`]) and the slopes of ‖∇F‖² and of the rounds against T fitted on a log
//! scale, to be read against the theorem's −1/2 and 3/4.

use serde::Serialize;

use super::runs::sample_sd;
use super::{Plan, Setting};
use crate::error::{FedError, Result};
use crate::train::{FedReport, Method, ObjectivePoint, simulate_traced};

/// A row of the convergence table: CE-FedGNN with T local steps per client on one setting,
/// means over the setting's seeds.
#[derive(Debug, Clone, Serialize, Default)]
pub struct ConvergenceRow {
    /// The setting's label.
    pub setting: String,
    /// [`Method::name`].
    pub method: String,
    /// Local steps per client, K · rounds.
    #[serde(rename = "T")]
    pub steps: u32,
    /// Local steps K per round.
    #[serde(rename = "K")]
    pub k: u32,
    /// Rounds after the bootstrap.
    pub rounds: u32,
    /// Learning rate η of the schedule.
    pub lr: f64,
    /// Embedding MA rate γ of the schedule.
    pub gamma: f64,
    /// Gradient MA rate β of the schedule.
    pub beta: f64,
    /// The training seeds of the means.
    pub seeds: Vec<u64>,
    /// The theorem's quantity: the mean of ‖∇F(W)‖² at the start of every round (rounds 0 to
    /// R − 1, each standing for its K steps), averaged over the seeds.
    pub grad_norm_sq_avg: f64,
    /// Standard deviation of `grad_norm_sq_avg` over the seeds (n − 1; NaN for one seed).
    pub grad_norm_sq_avg_std: f64,
    /// min over the round starts and the end of ‖∇F(W)‖², averaged over the seeds.
    pub grad_norm_sq_min: f64,
    /// ‖∇F(W)‖² of the final model, averaged over the seeds.
    pub grad_norm_sq_last: f64,
    /// F of the initial model.
    pub loss_first: f64,
    /// F of the final model.
    pub loss_last: f64,
    /// Mean per-client test F1.
    pub f1_mean: f64,
    /// Standard deviation of `f1_mean` over the seeds.
    pub f1_std: f64,
    /// Least-squares slope of ln `grad_norm_sq_avg` on ln T over this setting's rows (the
    /// theorem: at most −1/2).
    pub slope_grad_norm_sq: f64,
    /// Least-squares slope of ln rounds on ln T over this setting's rows (the theorem's
    /// schedule: 3/4).
    pub slope_rounds: f64,
    /// Mean wall-clock seconds per run.
    pub seconds: f64,
}

/// The least-squares slope of `y` on `x` over their common length (NaN for fewer than two
/// distinct `x`).
///
/// # Example
/// ```
/// use cefedgnn::paper::slope;
/// assert!((slope(&[1.0, 2.0, 3.0], &[1.0, 3.0, 5.0]) - 2.0).abs() < 1e-12);
/// assert!(slope(&[1.0], &[2.0]).is_nan());
/// assert!((slope(&[1.0, 2.0, 3.0], &[1.0, 3.0]) - 2.0).abs() < 1e-12); // the common pairs
/// ```
pub fn slope(x: &[f64], y: &[f64]) -> f64 {
    // Over the pairs both slices have.
    let pairs: Vec<(f64, f64)> = x.iter().copied().zip(y.iter().copied()).collect();
    let n = pairs.len() as f64;
    let mx = pairs.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pairs.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pairs.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pairs.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    if sxx > 0.0 { sxy / sxx } else { f64::NAN }
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// One traced run, summarised.
struct Traced {
    report: FedReport,
    /// Mean of ‖∇F‖² at the round starts.
    avg: f64,
    /// Its minimum over the trace.
    min: f64,
    /// ‖∇F‖² of the final model.
    last: f64,
    /// F of the initial and of the final model.
    loss_first: f64,
    loss_last: f64,
}

impl Traced {
    /// `report` with its `trace` summarised.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] for an empty trace (a task without training nodes).
    fn new(report: FedReport, trace: &[ObjectivePoint]) -> Result<Self> {
        let (Some(&first), Some(&last)) = (trace.first(), trace.last()) else {
            return Err(FedError::param(
                "task",
                report.dataset,
                "has no training nodes: the objective cannot be traced",
            ));
        };
        let starts = &trace[..trace.len().saturating_sub(1).max(1)];
        Ok(Self {
            report,
            avg: mean(&starts.iter().map(|p| p.grad_norm_sq).collect::<Vec<_>>()),
            min: trace
                .iter()
                .map(|p| p.grad_norm_sq)
                .fold(f64::INFINITY, f64::min),
            last: last.grad_norm_sq,
            loss_first: first.loss,
            loss_last: last.loss,
        })
    }
}

/// CE-FedGNN on `s` at every T of [`Plan::convergence_doublings`] (primary settings only; none
/// otherwise) over [`Plan::seeds_for`], with the global objective traced every round and the
/// slopes fitted over the rows. Seeded noise (an experiment, not a private run).
///
/// # Errors
/// As [`simulate_traced`].
///
/// # Complexity
/// Σ_T T steps per client and seed, plus one full-graph gradient per round.
pub fn convergence_table(plan: &Plan, s: &Setting) -> Result<Vec<ConvergenceRow>> {
    if !s.primary {
        return Ok(Vec::new());
    }
    let seeds = plan.seeds_for(true);
    let method = Method::CeFedGnn;
    let mut rows = Vec::new();
    for &d in &plan.convergence_doublings {
        let cfg = plan.convergence_config(s.model, d);
        let mut per: Vec<Traced> = Vec::new();
        for &seed in seeds {
            let c = crate::train::FedTrainConfig {
                seed,
                noise: dp_core::rng::NoiseSource::Seeded(seed),
                ..cfg.clone()
            };
            let (report, trace) = simulate_traced(&s.task, &c, method, &mut |_| {})?;
            let t = Traced::new(report, &trace)?;
            eprintln!(
                "{} convergence T={} K={}: F {:.4} -> {:.4}, mean ‖∇F‖² {:.3e} ({:.1}s)",
                s.label,
                c.local_steps * c.rounds,
                c.local_steps,
                t.loss_first,
                t.loss_last,
                t.avg,
                t.report.seconds
            );
            per.push(t);
        }
        let col = |f: &dyn Fn(&Traced) -> f64| -> Vec<f64> { per.iter().map(f).collect() };
        let avg = col(&|t| t.avg);
        let f1 = col(&|t| t.report.f1_mean);
        rows.push(ConvergenceRow {
            setting: s.label.clone(),
            method: method.name().into(),
            steps: cfg.local_steps * cfg.rounds,
            k: cfg.local_steps,
            rounds: cfg.rounds,
            lr: cfg.lr,
            gamma: cfg.gamma,
            beta: cfg.beta,
            seeds: seeds.to_vec(),
            grad_norm_sq_avg: mean(&avg),
            grad_norm_sq_avg_std: sample_sd(&avg),
            grad_norm_sq_min: mean(&col(&|t| t.min)),
            grad_norm_sq_last: mean(&col(&|t| t.last)),
            loss_first: mean(&col(&|t| t.loss_first)),
            loss_last: mean(&col(&|t| t.loss_last)),
            f1_mean: mean(&f1),
            f1_std: sample_sd(&f1),
            seconds: mean(&col(&|t| t.report.seconds)),
            ..ConvergenceRow::default()
        });
    }
    let ln_t: Vec<f64> = rows.iter().map(|r| f64::from(r.steps).ln()).collect();
    let grad = slope(
        &ln_t,
        &rows
            .iter()
            .map(|r| r.grad_norm_sq_avg.ln())
            .collect::<Vec<_>>(),
    );
    let rounds = slope(
        &ln_t,
        &rows
            .iter()
            .map(|r| f64::from(r.rounds).ln())
            .collect::<Vec<_>>(),
    );
    for r in &mut rows {
        r.slope_grad_norm_sq = grad;
        r.slope_rounds = rounds;
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table's T follows the plan's doublings with the theorem's schedule, every row
    /// carries its traced objective, and the fitted rounds slope is the schedule's 3/4 (up to
    /// the rounding of K).
    #[test]
    fn the_table_follows_the_schedule_and_fits_its_slopes() {
        let plan = Plan {
            citation_steps: 64,
            k_default: 4,
            seeds: vec![0],
            convergence_doublings: vec![0, 2, 4],
            ..Plan::quick()
        };
        let mut s = super::super::test_setting(3, 0.01);
        assert!(
            convergence_table(&plan, &s).unwrap().is_empty(),
            "primary only"
        );
        s.primary = true;
        let rows = convergence_table(&plan, &s).unwrap();
        let shape: Vec<(u32, u32, u32)> = rows.iter().map(|r| (r.steps, r.k, r.rounds)).collect();
        // T₀ = 64 with K₀ = 4: K = 4·4^(d/4) rounded.
        assert_eq!(shape, [(64, 4, 16), (258, 6, 43), (1024, 8, 128)]);
        assert!((rows[2].lr - rows[0].lr / 4.0).abs() < 1e-12);
        assert!(
            rows.iter()
                .all(|r| r.grad_norm_sq_avg > 0.0 && r.loss_last < r.loss_first)
        );
        assert!(
            (rows[0].slope_rounds - 0.75).abs() < 0.05,
            "{}",
            rows[0].slope_rounds
        );
        assert!(rows[0].slope_grad_norm_sq.is_finite());
    }

    /// An empty trace (a task without training nodes) is an error, not a panic.
    #[test]
    fn an_empty_trace_is_an_error() {
        let s = super::super::test_setting(3, 0.01);
        let cfg = crate::train::FedTrainConfig {
            rounds: 1,
            local_steps: 1,
            noise: dp_core::rng::NoiseSource::Seeded(1),
            ..crate::train::FedTrainConfig::citation()
        };
        let (report, trace) =
            simulate_traced(&s.task, &cfg, Method::CeFedGnn, &mut |_| {}).unwrap();
        assert_eq!(trace.len(), 2, "the bootstrap and one round");
        let err = Traced::new(report, &[])
            .err()
            .expect("an empty trace is refused");
        assert!(matches!(err, FedError::InvalidParam { .. }), "{err}");
    }
}
