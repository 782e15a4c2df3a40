//! The three tables of one [`Setting`] as typed rows: every method at the default K
//! ([`methods_table`]), CE-FedGNN over the local steps K ([`local_steps_table`]) and over the
//! noise multiplier σ₀ ([`privacy_table`]).

use dp_core::params::{EpsilonBound, NoiseMultiplier};
use serde::Serialize;

use super::runs::{avg, sd};
use super::{Plan, Runs, Setting};
use crate::attack::AttackReport;
use crate::error::Result;
use crate::train::{FedReport, FedTrainConfig, Method};

/// A row of the methods table: one method on one setting at K = [`Plan::k_default`], means over
/// the setting's seeds (NaN: every seed diverged).
#[derive(Debug, Clone, Serialize, Default)]
pub struct MethodRow {
    /// The setting's label.
    pub setting: String,
    /// [`Method::name`].
    pub method: String,
    /// Share of the setting's edges that cross clients ([`crate::federation::FederatedGraph::cross_edge_share`]).
    pub cross_edge_share: f64,
    /// Local steps K per round.
    #[serde(rename = "K")]
    pub k: u32,
    /// Rounds after the bootstrap.
    pub rounds: u32,
    /// The training seeds of the means.
    pub seeds: Vec<u64>,
    /// Mean over clients of the test F1 on each client's own test nodes.
    pub f1_mean: f64,
    /// Standard deviation of `f1_mean` over the seeds (n − 1; NaN for one seed).
    pub f1_std: f64,
    /// The paper's value for this method and dataset ([`super::paper_f1`]; NaN: none).
    pub paper_value: f64,
    /// As `f1_mean`, each client's macro-F1 over the classes present there only
    /// ([`crate::train::FedReport::f1_mean_present`]).
    pub f1_mean_present: f64,
    /// Test F1 over all test nodes.
    pub f1_pooled: f64,
    /// Mean per-client validation F1.
    pub val_f1_mean: f64,
    /// Bytes (up + down, all clients) per exchange.
    pub bytes_per_round: f64,
    /// Embedding-row bytes per exchange.
    pub embedding_bytes_per_round: f64,
    /// What node data crosses the wire, and its protection ([`Method::wire`]).
    pub wire: String,
    /// ε(p) (RDP accounting) of the first seed's released rows (NaN: no releases).
    pub eps_p: Option<EpsilonBound>,
    /// FedSage+: generated neighbours attached over all clients (mean over seeds; NaN for
    /// the other methods).
    pub generated_neighbours: f64,
    /// FedSage+: mean |ñ_v − n_v| of the count generator on NeighGen's test nodes, over
    /// clients and seeds (NaN for the other methods).
    pub count_mae: f64,
    /// FedSage+: mean true hidden-neighbour count n_v on those test nodes (the count a
    /// generator predicting the mean would be judged against).
    pub mean_missing: f64,
    /// Mean wall-clock seconds per run.
    pub seconds: f64,
    /// `f1_mean` of every seed, in seed order.
    pub f1_per_seed: Vec<f64>,
    /// `val_f1_mean` of every seed, in seed order.
    pub val_f1_per_seed: Vec<f64>,
}

/// The mean over the seeds' NeighGen reports of `f` of each client (None entries skipped; NaN
/// when there is none).
fn neighgen_mean(
    rs: &[FedReport],
    f: impl Fn(&crate::train::NeighGenReport) -> Option<f64>,
) -> f64 {
    let v: Vec<f64> = rs
        .iter()
        .flat_map(|r| r.neighgen.iter().filter_map(&f))
        .collect();
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// The pairs of methods of one setting's rows whose test and validation F1 agree to four
/// decimals in every seed (a sign that a switch does not reach the run), as
/// `"<setting>: <a> = <b>"`.
pub fn identical_pairs(rows: &[MethodRow]) -> Vec<String> {
    let r4 = |v: &[f64]| -> Vec<i64> { v.iter().map(|x| (x * 1e4).round() as i64).collect() };
    let mut out = Vec::new();
    for (i, a) in rows.iter().enumerate() {
        for b in &rows[i + 1..] {
            if a.setting == b.setting
                && !a.f1_per_seed.is_empty()
                && r4(&a.f1_per_seed) == r4(&b.f1_per_seed)
                && r4(&a.val_f1_per_seed) == r4(&b.val_f1_per_seed)
            {
                out.push(format!("{}: {} = {}", a.setting, a.method, b.method));
            }
        }
    }
    out
}

/// A row of the local-steps table: a method with K local steps per round, the same total
/// steps T per client.
#[derive(Debug, Clone, Serialize, Default)]
pub struct LocalStepsRow {
    /// The setting's label.
    pub setting: String,
    /// [`Method::name`].
    pub method: String,
    /// Local steps K per round.
    #[serde(rename = "K")]
    pub k: u32,
    /// Rounds T / K.
    pub rounds: u32,
    /// Mean per-client test F1.
    pub f1_mean: f64,
    /// Pooled test F1.
    pub f1_pooled: f64,
    /// Bytes per exchange.
    pub bytes_per_round: f64,
    /// Embedding-row bytes per exchange.
    pub embedding_bytes_per_round: f64,
    /// Embedding bytes per local step: one exchange of the same rows per K steps (the one-off
    /// bootstrap exchange of round 0 is not a training step).
    pub embedding_bytes_per_step: f64,
    /// `embedding_bytes_per_step` over its K = 1 value (NaN without a K = 1 row before it).
    pub embedding_vs_every_step: f64,
    /// 1 / K, the bound of `embedding_vs_every_step`.
    pub one_over_k: f64,
    /// Total bytes (up + down) of a run.
    pub bytes_total: f64,
}

/// A row of the privacy table: CE-FedGNN at noise multiplier σ₀ with ε(p) of the released rows
/// (p = [`FedTrainConfig::radius`]) and standard DP (p = 2C) for comparison.
#[derive(Debug, Clone, Serialize, Default)]
pub struct PrivacyRow {
    /// The setting's label.
    pub setting: String,
    /// Noise multiplier σ₀ (σ = σ₀·C).
    pub sigma0: NoiseMultiplier,
    /// Mean per-client test F1.
    pub f1_mean: f64,
    /// Pooled test F1.
    pub f1_pooled: f64,
    /// Most releases of one node (first seed; `None`: no releases).
    pub max_releases: Option<u64>,
    /// ε(p) by RDP accounting.
    pub eps_p_rdp: Option<EpsilonBound>,
    /// ε(p) by the closed form.
    pub eps_p_closed_form: Option<EpsilonBound>,
    /// ε of standard DP (p = 2C), RDP accounting.
    pub eps_standard_dp: Option<EpsilonBound>,
    /// Clip norm C.
    pub clip: f64,
    /// Width of the shared layers (the dimension of a released row).
    pub hidden: usize,
    /// Mean pre-clipping norm of the released rows.
    pub boundary_norm_mean: f64,
    /// Share of released rows that were clipped.
    pub clipped_fraction: f64,
}

/// The methods table of `s`: every method of [`Method::ALL`] at K = [`Plan::k_default`] over
/// all of [`Plan::seeds`] (every setting, primary or not).
///
/// # Errors
/// As [`Runs::run_seeds`].
pub fn methods_table(plan: &Plan, s: &Setting, runs: &mut Runs) -> Result<Vec<MethodRow>> {
    let seeds = plan.seeds.as_slice();
    let base = plan.config(s.model, plan.k_default);
    let mut rows = Vec::new();
    for &m in Method::ALL {
        let rs = runs.run_seeds(s, &base, m, seeds)?;
        let eps = rs
            .first()
            .and_then(|r| r.privacy.as_ref())
            .map(|r| r.eps_rdp);
        rows.push(MethodRow {
            setting: s.label.clone(),
            cross_edge_share: s.task.fed.cross_edge_share(),
            method: m.name().into(),
            k: base.local_steps,
            rounds: base.rounds,
            seeds: seeds.to_vec(),
            f1_mean: avg(&rs, |r| r.f1_mean),
            f1_std: sd(&rs, |r| r.f1_mean),
            paper_value: super::paper_f1(&s.task.name, m).unwrap_or(f64::NAN),
            f1_mean_present: avg(&rs, |r| r.f1_mean_present),
            f1_pooled: avg(&rs, |r| r.f1_pooled),
            val_f1_mean: avg(&rs, |r| r.val_f1_mean),
            bytes_per_round: avg(&rs, |r| r.bytes_per_round),
            embedding_bytes_per_round: avg(&rs, |r| r.embedding_bytes_per_round),
            wire: m.wire().into(),
            eps_p: eps,
            generated_neighbours: if m == Method::FedSagePlus {
                avg(&rs, |r| r.neighgen.iter().map(|c| c.generated as f64).sum())
            } else {
                f64::NAN
            },
            count_mae: neighgen_mean(&rs, |c| c.count_mae),
            mean_missing: neighgen_mean(&rs, |c| c.mean_missing),
            seconds: avg(&rs, |r| r.seconds),
            f1_per_seed: rs.iter().map(|r| r.f1_mean).collect(),
            val_f1_per_seed: rs.iter().map(|r| r.val_f1_mean).collect(),
        });
    }
    Ok(rows)
}

/// The local-steps table of `s`: each of [`Plan::k_sweep_methods`] over [`Plan::k_sweep_for`]
/// the setting (no rows for a setting that is not primary), T / K rounds each
/// ([`Plan::sweep_config`]).
///
/// # Errors
/// As [`Runs::run_seeds`].
pub fn local_steps_table(plan: &Plan, s: &Setting, runs: &mut Runs) -> Result<Vec<LocalStepsRow>> {
    let seeds = plan.seeds_for(s.primary);
    let mut rows = Vec::new();
    for &m in &plan.k_sweep_methods {
        let mut every_step = f64::NAN;
        for &k in plan.k_sweep_for(s.primary) {
            let cfg = plan.sweep_config(s.model, k);
            let rs = runs.run_seeds(s, &cfg, m, seeds)?;
            let per_step = avg(&rs, |r| r.embedding_bytes_per_round / f64::from(k));
            if k == 1 {
                every_step = per_step;
            }
            rows.push(local_steps_row(s, m, &cfg, &rs, per_step, every_step));
        }
    }
    Ok(rows)
}

fn local_steps_row(
    s: &Setting,
    m: Method,
    cfg: &FedTrainConfig,
    rs: &[FedReport],
    per_step: f64,
    every_step: f64,
) -> LocalStepsRow {
    let k = cfg.local_steps;
    LocalStepsRow {
        setting: s.label.clone(),
        method: m.name().into(),
        k,
        rounds: cfg.rounds,
        f1_mean: avg(rs, |r| r.f1_mean),
        f1_pooled: avg(rs, |r| r.f1_pooled),
        bytes_per_round: avg(rs, |r| r.bytes_per_round),
        embedding_bytes_per_round: avg(rs, |r| r.embedding_bytes_per_round),
        embedding_bytes_per_step: per_step,
        embedding_vs_every_step: per_step / every_step,
        one_over_k: 1.0 / f64::from(k),
        bytes_total: avg(rs, |r| (r.bytes_up + r.bytes_down) as f64),
    }
}

fn privacy_row(s: &Setting, cfg: &FedTrainConfig, rs: &[FedReport]) -> PrivacyRow {
    let pr = rs.first().and_then(|r| r.privacy.as_ref());
    let eps = |f: fn(&crate::privacy::PrivacyReport) -> EpsilonBound| pr.map(f);
    PrivacyRow {
        setting: s.label.clone(),
        sigma0: cfg.sigma0,
        f1_mean: avg(rs, |r| r.f1_mean),
        f1_pooled: avg(rs, |r| r.f1_pooled),
        max_releases: pr.map(|r| r.max_releases),
        eps_p_rdp: eps(|r| r.eps_rdp),
        eps_p_closed_form: eps(|r| r.eps_closed_form),
        eps_standard_dp: eps(|r| r.standard_dp.eps_rdp),
        clip: cfg.clip,
        hidden: cfg.hidden,
        boundary_norm_mean: avg(rs, |r| r.norms.mean_norm()),
        clipped_fraction: avg(rs, |r| r.norms.clipped_fraction()),
    }
}

/// The privacy table of `s`: CE-FedGNN at K = [`Plan::k_default`] over [`Plan::sigmas`].
///
/// # Errors
/// As [`Runs::run_seeds`].
pub fn privacy_table(plan: &Plan, s: &Setting, runs: &mut Runs) -> Result<Vec<PrivacyRow>> {
    let seeds = plan.seeds_for(s.primary);
    let base = plan.config(s.model, plan.k_default);
    let mut rows = Vec::new();
    for &sigma0 in &plan.sigmas {
        let cfg = FedTrainConfig {
            sigma0: NoiseMultiplier::new(sigma0)?,
            ..base.clone()
        };
        let rs = runs.run_seeds(s, &cfg, Method::CeFedGnn, seeds)?;
        rows.push(privacy_row(s, &cfg, &rs));
    }
    Ok(rows)
}

/// One step of the approximation ladder ([`approximations_table`]).
#[derive(Debug, Clone, Serialize, Default)]
pub struct ApproximationRow {
    /// The setting's label.
    pub setting: String,
    /// Position on the ladder (0: centralised).
    pub step: usize,
    /// What this row adds to the one before.
    pub adds: String,
    /// [`Method::name`].
    pub method: String,
    /// Local steps K per round.
    #[serde(rename = "K")]
    pub k: u32,
    /// Rounds after the bootstrap.
    pub rounds: u32,
    /// Embedding and gradient moving-average rates (γ, β; 1: off).
    pub gamma: f64,
    /// Gradient moving-average rate β (1: off).
    pub beta: f64,
    /// Receiver-side halo averaging rate (`None`: latest row).
    pub halo_average: Option<f64>,
    /// Clip norm C.
    pub clip: f64,
    /// Noise multiplier σ₀.
    pub sigma0: NoiseMultiplier,
    /// Seeds run.
    pub seeds: Vec<u64>,
    /// Runs averaged (seeds whose training did not diverge).
    pub runs: usize,
    /// Mean over seeds of the mean per-client test F1.
    pub f1_mean: f64,
    /// Its standard deviation over seeds.
    pub f1_std: f64,
    /// Per seed.
    pub f1_per_seed: Vec<f64>,
    /// Mean over seeds of the validation F1.
    pub val_f1_mean: f64,
    /// F1 this step costs: the previous row's `f1_mean` minus this one's (NaN for step 0).
    pub cost: f64,
    /// `f1_mean` minus the centralised row's.
    pub vs_centralised: f64,
}

/// The ladder's control row ([`approximations_table`]): step 1 with an exact first layer.
pub const CONTROL_STEP: usize = 7;

/// The clip norm that never clips (the rows' norms stay orders of magnitude below it).
pub const NO_CLIP: f64 = 1e6;

/// The approximation ladder of `s` (issue 48): centralised training on the same sampler and
/// model; then CE-FedGNN's federation with every approximation switched off (exact halo rows
/// every step: K = 1, no moving averages, no receiver-side averaging, no clipping, no noise —
/// what is left is what each client sees: the shared layers' halo rows only); then, one at a
/// time and cumulatively, staleness (K), the moving averages (γ, β), the receiver-side
/// averaging, clipping (C) and noise (σ₀), CE-FedGNN's default at step 6. Step
/// [`CONTROL_STEP`] is the control of step 1's gap: step 1 with an exact first layer
/// ([`FedTrainConfig::exact_first_layer`]); where it reaches centralised, the gap is the first
/// layer's missing remote inputs. Every row has the same T = K·rounds steps per client and
/// every seed of the plan.
///
/// # Errors
/// As [`Runs::run_seeds`].
pub fn approximations_table(
    plan: &Plan,
    s: &Setting,
    runs: &mut Runs,
) -> Result<Vec<ApproximationRow>> {
    let seeds = &plan.seeds;
    let default = plan.config(s.model, plan.k_default);
    let steps = default.local_steps * default.rounds;
    let exact = FedTrainConfig {
        local_steps: 1,
        rounds: steps,
        halo_average: None,
        clip: NO_CLIP,
        radius: 0.1 * NO_CLIP,
        sigma0: NoiseMultiplier::ZERO,
        ..default.clone()
    };
    let stale = FedTrainConfig {
        local_steps: default.local_steps,
        rounds: default.rounds,
        ..exact.clone()
    };
    let averaged = FedTrainConfig {
        halo_average: default.halo_average,
        ..stale.clone()
    };
    let clipped = FedTrainConfig {
        clip: default.clip,
        radius: default.radius,
        ..averaged.clone()
    };
    let exact_sums = FedTrainConfig {
        exact_first_layer: true,
        ..exact.clone()
    };
    let ladder: [(&str, Method, &FedTrainConfig); 8] = [
        (
            "centralised (same sampler and model)",
            Method::Centralised,
            &default,
        ),
        (
            "federated, every approximation off: exact halo rows of the shared layers every step (K = 1), no moving averages, no clipping, no noise",
            Method::StaleEmbeddings,
            &exact,
        ),
        (
            "staleness: halo rows exchanged every K steps",
            Method::StaleEmbeddings,
            &stale,
        ),
        (
            "moving averages of embeddings and gradients (γ, β)",
            Method::CeFedGnn,
            &stale,
        ),
        (
            "receiver-side averaging of halo rows",
            Method::CeFedGnn,
            &averaged,
        ),
        ("clipping of released rows (C)", Method::CeFedGnn, &clipped),
        (
            "noise (σ₀): CE-FedGNN's default",
            Method::CeFedGnn,
            &default,
        ),
        (
            "control of step 1: the same federation with an exact first layer (FedGCN's neighbour-feature sums over the whole graph, exchanged once, unprotected; FedTrainConfig::exact_first_layer); its cost is against step 1",
            Method::StaleEmbeddings,
            &exact_sums,
        ),
    ];
    let mut rows: Vec<ApproximationRow> = Vec::new();
    for (step, (adds, m, cfg)) in ladder.into_iter().enumerate() {
        let rs = runs.run_seeds(s, cfg, m, seeds)?;
        let (gamma, beta, _) = m.estimator(cfg);
        let f1 = avg(&rs, |r| r.f1_mean);
        // The control is read against step 1, the rest against the step before.
        let before = if step == CONTROL_STEP {
            rows.get(1)
        } else {
            rows.last()
        };
        let prev = before.map_or(f64::NAN, |r| r.f1_mean);
        let centralised = rows.first().map_or(f1, |r| r.f1_mean);
        rows.push(ApproximationRow {
            setting: s.label.clone(),
            step,
            adds: adds.into(),
            method: m.name().into(),
            k: cfg.local_steps,
            rounds: cfg.rounds,
            gamma,
            beta,
            halo_average: cfg.halo_average,
            clip: cfg.clip,
            sigma0: cfg.sigma0,
            seeds: seeds.clone(),
            runs: rs.len(),
            f1_mean: f1,
            f1_std: sd(&rs, |r| r.f1_mean),
            f1_per_seed: rs.iter().map(|r| r.f1_mean).collect(),
            val_f1_mean: avg(&rs, |r| r.val_f1_mean),
            cost: prev - f1,
            vs_centralised: f1 - centralised,
        });
    }
    Ok(rows)
}

/// A row of the radius table: where ε(p) means something. The rows the most exposed client
/// releases under CE-FedGNN's default configuration (first seed), before clipping
/// ([`crate::privacy::radius::RowGeometry`]), and ε(p) at radii read off them.
#[derive(Debug, Clone, Serialize, Default)]
pub struct RadiusRow {
    /// The setting's label.
    pub setting: String,
    /// Noise multiplier σ₀ of the run.
    pub sigma0: NoiseMultiplier,
    /// Clip norm C of the run.
    pub clip: f64,
    /// Releases of the most released row (the ε(p) composition count).
    pub max_releases: u64,
    /// The rows' geometry (its columns in place).
    #[serde(flatten)]
    pub geometry: crate::privacy::radius::RowGeometry,
    /// ε(p) at the configuration's radius p = 0.1·C (the tables' ε(p)).
    pub eps_p_default: Option<EpsilonBound>,
    /// ε(p) at p = the median distance between linked rows (capped at 2C, the largest distance
    /// of two clipped rows; clipping never moves two rows apart).
    pub eps_at_neighbour_median: Option<EpsilonBound>,
    /// ε(p) at the 0.9 quantile of the linked rows' distances (capped at 2C).
    pub eps_at_neighbour_p90: Option<EpsilonBound>,
    /// ε(p) at the median distance of random rows (capped at 2C).
    pub eps_at_random_median: Option<EpsilonBound>,
    /// ε(p) at the 0.9 quantile of random rows' distances (capped at 2C).
    pub eps_at_random_p90: Option<EpsilonBound>,
    /// Mean per-client test F1 of the run.
    pub f1_mean: f64,
}

/// CE-FedGNN on `s` at K = [`Plan::k_default`] and noise multiplier `sigma0`, with the first
/// seed (seeded noise), and what its most exposed client holds at the end. Not cached in
/// [`Runs`]: the observation is the run's final state.
///
/// # Errors
/// As [`crate::train::simulate_observed`].
fn observed_run(
    plan: &Plan,
    s: &Setting,
    sigma0: NoiseMultiplier,
) -> Result<(FedReport, Option<crate::train::ClientObservation>)> {
    let seed = plan.seeds_for(true).first().copied().unwrap_or(0);
    let cfg = FedTrainConfig {
        sigma0,
        seed,
        noise: dp_core::rng::NoiseSource::Seeded(seed),
        ..plan.config(s.model, plan.k_default)
    };
    crate::train::simulate_observed(&s.task, &cfg, Method::CeFedGnn, &mut |_| {})
}

/// The radius table of `s` (primary settings only): one CE-FedGNN run at the default
/// configuration, the most exposed client's rows measured, ε(p) at the radii they give.
///
/// # Errors
/// As [`crate::train::simulate_observed`], [`crate::privacy::radius::row_geometry`] and
/// [`crate::privacy::rdp_eps`].
pub fn radius_table(plan: &Plan, s: &Setting) -> Result<Vec<RadiusRow>> {
    if !s.primary {
        return Ok(Vec::new());
    }
    let sigma0 = plan.config(s.model, plan.k_default).sigma0;
    let (r, seen) = observed_run(plan, s, sigma0)?;
    let (Some(seen), Some(pr)) = (seen, r.privacy.as_ref()) else {
        return Ok(Vec::new());
    };
    let g =
        crate::privacy::radius::row_geometry(s.task.fed.graph(), &s.task.labels, &seen, pr.clip)?;
    let eps = |p: f64| -> Result<Option<EpsilonBound>> {
        if !p.is_finite() {
            return Ok(None);
        }
        let ((e, _), _) =
            crate::privacy::rdp_eps(pr.max_releases, pr.sigma, p.min(2.0 * pr.clip), pr.delta)?;
        Ok(Some(EpsilonBound::new(e)?))
    };
    Ok(vec![RadiusRow {
        setting: s.label.clone(),
        sigma0: pr.sigma0,
        clip: pr.clip,
        max_releases: pr.max_releases,
        eps_p_default: Some(pr.eps_rdp),
        eps_at_neighbour_median: eps(g.neighbour_median)?,
        eps_at_neighbour_p90: eps(g.neighbour_p90)?,
        eps_at_random_median: eps(g.random_median)?,
        eps_at_random_p90: eps(g.random_p90)?,
        geometry: g,
        f1_mean: r.f1_mean,
    }])
}

/// A row of the attack table: the attacks of [`crate::attack`] on the rows the most exposed
/// client received from CE-FedGNN at noise multiplier σ₀ (first seed): the label of remote
/// nodes and their links (what a bank cares about), and the paper's attribute inference (the
/// weak one).
#[derive(Debug, Clone, Serialize, Default)]
pub struct AttackRow {
    /// The setting's label.
    pub setting: String,
    /// Noise multiplier σ₀ (0: exact rows).
    pub sigma0: NoiseMultiplier,
    /// The attack's scores (their columns in place).
    #[serde(flatten)]
    pub attack: AttackReport,
    /// `mse_regression / mse_mean` (< 1: the rows leak something the mean does not know).
    pub regression_vs_mean: f64,
    /// Label attack ([`crate::attack::label_attack`]): accuracy on the remote nodes.
    pub label_accuracy: f64,
    /// Its balanced accuracy.
    pub label_balanced_accuracy: f64,
    /// The prior: the attacker's most frequent own label, its accuracy on the remote nodes.
    pub label_prior_accuracy: f64,
    /// The prior's balanced accuracy (1 / classes present).
    pub label_prior_balanced_accuracy: f64,
    /// Edge attack ([`crate::attack::edge_attack`]): ROC-AUC for "two remote nodes are
    /// linked" (0.5: the prior).
    pub edge_auc: f64,
    /// Linked pairs among the remote nodes the AUC is computed over.
    pub edge_linked_pairs: usize,
    /// Mean per-client test F1 of the run.
    pub f1_mean: f64,
}

/// The attack table of `s`: CE-FedGNN at K = [`Plan::k_default`] over [`Plan::attack_sigmas`]
/// with the first seed (no rows for a setting that is not primary). Runs are not cached: the
/// attack needs the run's final state.
///
/// # Errors
/// As [`crate::train::simulate_observed`] and [`crate::attack::attack`].
pub fn attack_table(plan: &Plan, s: &Setting) -> Result<Vec<AttackRow>> {
    if !s.primary {
        return Ok(Vec::new());
    }
    let mut rows = Vec::new();
    for &sigma0 in &plan.attack_sigmas {
        let sigma0 = NoiseMultiplier::new(sigma0)?;
        let (r, seen) = observed_run(plan, s, sigma0)?;
        let Some(seen) = seen else { continue };
        let a = crate::attack::attack(&s.task.features, &seen)?;
        let l = crate::attack::label_attack(&s.task.labels, s.task.num_classes, &seen)?;
        let e = crate::attack::edge_attack(s.task.fed.graph(), &seen)?;
        rows.push(AttackRow {
            setting: s.label.clone(),
            sigma0,
            regression_vs_mean: a.mse_regression / a.mse_mean,
            label_accuracy: l.accuracy,
            label_balanced_accuracy: l.balanced_accuracy,
            label_prior_accuracy: l.prior_accuracy,
            label_prior_balanced_accuracy: l.prior_balanced_accuracy,
            edge_auc: e.auc,
            edge_linked_pairs: e.linked_pairs,
            attack: a,
            f1_mean: r.f1_mean,
        });
    }
    Ok(rows)
}
