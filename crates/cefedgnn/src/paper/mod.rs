//! The protocol of the CE-FedGNN tables as library code, so that the tables can be run on one's
//! own data and machine (`cargo xtask repro cefedgnn` is a thin driver of this module):
//!
//! - [`Plan`] ([`Plan::quick`], [`Plan::full`]): which citation and AML settings run, the total
//!   local steps per client, the K and σ₀ sweeps, the seeds, and the training configuration of
//!   one run ([`Plan::config`]: the citation or AML preset with T / K rounds);
//! - [`Setting`]: a federated task and its model, built from a given citation dataset
//!   ([`Setting::citation`]) or a generated AML graph ([`aml_task`]); [`Plan::settings`] builds
//!   all settings of a plan and marks the primary ones;
//! - [`Runs`]: the seeds protocol (each configuration over the setting's seeds, finished runs
//!   reused by the sweeps, diverged runs left out of the means and listed);
//! - [`methods_table`], [`local_steps_table`], [`privacy_table`]: one table of one setting as
//!   typed rows ([`MethodRow`], [`LocalStepsRow`], [`PrivacyRow`]);
//! - [`attack_table`]: the attribute-inference attack ([`crate::attack`]) over σ₀ ([`AttackRow`]);
//! - [`clip_table`]: CE-FedGNN over the clip norm C at equal noise σ and at equal σ₀
//!   ([`ClipRow`]);
//! - [`convergence_table`]: CE-FedGNN over T under the convergence theorem's schedule, the
//!   global objective traced every round, slopes fitted against −1/2 and 3/4
//!   ([`ConvergenceRow`]);
//! - [`paper_f1`] and [`ordering_row`]: the paper's Table 2 beside a setting's rows, and whether
//!   its ordering of the methods holds ([`OrderingRow`]).
//!
//! # Example
//! ```
//! use cefedgnn::paper::{Plan, Runs, Setting, methods_table};
//! use cefedgnn::train::{Method, PartitionKind};
//! use graph_core::generate::ContextualSbm;
//! use rand::SeedableRng;
//!
//! let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
//! let ds = ContextualSbm { n: 120, classes: 2, p_in: 0.1, p_out: 0.01, dim: 8, mu: 1.0 }
//!     .sample(&mut rng)?;
//! let plan = Plan { citation_steps: 8, k_default: 4, seeds: vec![0], ..Plan::quick() };
//! let mut setting = Setting::citation("csbm", &ds, 2, PartitionKind::Random, 7)?;
//! setting.primary = true;
//! let rows = methods_table(&plan, &setting, &mut Runs::new(false))?;
//! assert_eq!(rows.len(), Method::ALL.len());
//! assert!(rows.iter().all(|r| r.k == 4 && r.rounds == 2 && r.f1_pooled.is_finite()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod clip;
mod convergence;
mod plan;
mod reference;
mod runs;
mod setting;
mod tables;

pub use clip::{ClipHeld, ClipRow, FIXED_RADIUS, clip_table};
pub use convergence::{ConvergenceRow, convergence_table, slope};
pub use plan::{AmlDataSetting, AmlSetting, CitationSetting, Plan};
pub use reference::{OrderingRow, PAPER_ORDER, PAPER_SOURCE, ordering_row, paper_f1};
pub use runs::Runs;
pub use setting::{AML_SPLIT, CITATION_SPLIT, Setting, aml_gen_config, aml_task};
pub use tables::{
    ApproximationRow, AttackRow, CONTROL_STEP, LocalStepsRow, MethodRow, NO_CLIP, PrivacyRow,
    RadiusRow, approximations_table, attack_table, identical_pairs, local_steps_table,
    methods_table, privacy_table, radius_table,
};

/// A two-class contextual SBM of 120 nodes (8 features) split into 2 random clients, seeded:
/// the small setting of the paper module's tests.
#[cfg(test)]
pub(crate) fn test_setting(seed: u64, p_out: f64) -> Setting {
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let ds = graph_core::generate::ContextualSbm {
        n: 120,
        classes: 2,
        p_in: 0.1,
        p_out,
        dim: 8,
        mu: 1.0,
    }
    .sample(&mut rng)
    .expect("valid SBM");
    Setting::citation("csbm", &ds, 2, crate::train::PartitionKind::Random, 7).expect("a setting")
}
