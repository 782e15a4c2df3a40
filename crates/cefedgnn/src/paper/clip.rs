//! The clip-norm table: CE-FedGNN over the clip norm C of the released rows, holding either the
//! noise σ = σ₀·C or the multiplier σ₀ fixed, with the share of rows clipped, F1 and ε(p) at a
//! fixed radius and at the worst case 2C: the evidence behind the presets' C.

use dp_core::params::{EpsilonBound, NoiseMultiplier, NoiseScale};
use serde::Serialize;

use super::runs::{avg, sd};
use super::{Plan, Runs, Setting};
use crate::error::Result;
use crate::train::{FedReport, Method};

/// What a row of the clip table holds fixed while C moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ClipHeld {
    /// The noise standard deviation σ = σ₀·C (σ₀ = σ_default / C): the same ε(p) at every
    /// radius p ≤ 2C, so F1 compares C at equal privacy for nearby rows.
    #[default]
    Sigma,
    /// The multiplier σ₀ (the tables' and the CLI's parameter): σ grows with C.
    Sigma0,
}

/// A row of the clip table: CE-FedGNN at clip norm C on one setting, means over the seeds.
#[derive(Debug, Clone, Serialize, Default)]
pub struct ClipRow {
    /// The setting's label.
    pub setting: String,
    /// What the row holds fixed.
    pub held: ClipHeld,
    /// Clip norm C.
    pub clip: f64,
    /// Noise multiplier σ₀.
    pub sigma0: NoiseMultiplier,
    /// Noise standard deviation σ = σ₀·C per coordinate.
    pub sigma: NoiseScale,
    /// The training seeds of the means.
    pub seeds: Vec<u64>,
    /// Share of released rows whose norm exceeded C (all clients and rounds).
    pub clipped_share: f64,
    /// Mean pre-clipping norm of the released rows.
    pub mean_norm: f64,
    /// Mean per-client test F1.
    pub f1_mean: f64,
    /// Standard deviation of `f1_mean` over the seeds (n − 1; NaN for one seed).
    pub f1_std: f64,
    /// Mean per-client validation F1 (what a choice of C may read).
    pub val_f1_mean: f64,
    /// ε(p) at the fixed radius [`FIXED_RADIUS`] (RDP accountant, the run's δ and release
    /// count; first seed).
    pub eps_at_fixed_radius: Option<EpsilonBound>,
    /// ε(2C): the worst case, two clipped rows at the largest distance they can have.
    pub eps_worst_case: Option<EpsilonBound>,
}

/// The radius of [`ClipRow::eps_at_fixed_radius`]: the citation tables' default p = 0.1·C at
/// C = 1, the same for every row.
pub const FIXED_RADIUS: f64 = 0.1;

/// CE-FedGNN on `s` (the settings of [`Plan::clip_settings`]; none otherwise) at every C of
/// [`Plan::clip_norms`], once holding σ = σ₀·C at the methods table's value and once holding
/// its σ₀, over [`Plan::seeds`]. Seeded noise (an experiment, not a private run).
///
/// # Errors
/// As [`Runs::run_seeds`]; accounting errors.
pub fn clip_table(plan: &Plan, s: &Setting, runs: &mut Runs) -> Result<Vec<ClipRow>> {
    if !plan.clip_settings.contains(&s.label) {
        return Ok(Vec::new());
    }
    let seeds = &plan.seeds;
    let base = plan.config(s.model, plan.k_default);
    let sigma = base.sigma0.get() * base.clip;
    let mut rows = Vec::new();
    for held in [ClipHeld::Sigma, ClipHeld::Sigma0] {
        for &c in &plan.clip_norms {
            let sigma0 = match held {
                ClipHeld::Sigma => NoiseMultiplier::new(sigma / c)?,
                ClipHeld::Sigma0 => base.sigma0,
            };
            let cfg = crate::train::FedTrainConfig {
                clip: c,
                sigma0,
                radius: FIXED_RADIUS,
                ..base.clone()
            };
            let rs = runs.run_seeds(s, &cfg, Method::CeFedGnn, seeds)?;
            rows.push(clip_row(s, held, &cfg, seeds, &rs)?);
        }
    }
    Ok(rows)
}

fn clip_row(
    s: &Setting,
    held: ClipHeld,
    cfg: &crate::train::FedTrainConfig,
    seeds: &[u64],
    rs: &[FedReport],
) -> Result<ClipRow> {
    let eps = |p: f64| -> Result<Option<EpsilonBound>> {
        match rs.first().and_then(|r| r.privacy.as_ref()) {
            Some(pr) => Ok(Some(EpsilonBound::new(
                crate::privacy::rdp_eps(pr.max_releases, pr.sigma, p, pr.delta)?
                    .0
                    .0,
            )?)),
            None => Ok(None),
        }
    };
    Ok(ClipRow {
        setting: s.label.clone(),
        held,
        clip: cfg.clip,
        sigma0: cfg.sigma0,
        sigma: cfg.sigma0.scale(cfg.clip)?,
        seeds: seeds.to_vec(),
        clipped_share: avg(rs, |r| r.norms.clipped_fraction()),
        mean_norm: avg(rs, |r| r.norms.mean_norm()),
        f1_mean: avg(rs, |r| r.f1_mean),
        f1_std: sd(rs, |r| r.f1_mean),
        val_f1_mean: avg(rs, |r| r.val_f1_mean),
        eps_at_fixed_radius: eps(FIXED_RADIUS)?,
        eps_worst_case: eps(2.0 * cfg.clip)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Holding σ, ε at the fixed radius is the same for every C while the worst case grows
    /// with C and fewer rows clip; holding σ₀, ε at the fixed radius falls as C grows.
    #[test]
    fn the_table_holds_what_it_says() {
        let plan = Plan {
            citation_steps: 16,
            k_default: 4,
            seeds: vec![0],
            clip_norms: vec![0.5, 2.0],
            clip_settings: vec!["other".into()],
            ..Plan::quick()
        };
        let s = super::super::test_setting(5, 0.05);
        let mut runs = Runs::new(false);
        assert!(clip_table(&plan, &s, &mut runs).unwrap().is_empty());
        let plan = Plan {
            clip_settings: vec![s.label.clone()],
            ..plan
        };
        let rows = clip_table(&plan, &s, &mut runs).unwrap();
        assert_eq!(rows.len(), 4);
        let (a, b) = (&rows[0], &rows[1]);
        assert_eq!((a.held, b.held), (ClipHeld::Sigma, ClipHeld::Sigma));
        assert!((a.sigma.get() - b.sigma.get()).abs() < 1e-12 && a.sigma0 > b.sigma0);
        let eps = |e: Option<EpsilonBound>| e.map_or(f64::NAN, f64::from);
        assert!((eps(a.eps_at_fixed_radius) - eps(b.eps_at_fixed_radius)).abs() < 1e-9);
        assert!(a.eps_worst_case < b.eps_worst_case);
        assert!(a.clipped_share >= b.clipped_share);
        let (c, d) = (&rows[2], &rows[3]);
        assert_eq!(c.sigma0, d.sigma0);
        assert!(c.eps_at_fixed_radius > d.eps_at_fixed_radius);
    }
}
