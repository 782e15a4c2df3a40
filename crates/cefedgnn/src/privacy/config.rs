//! [`ReleaseConfig`]: the parameters of the boundary release, read by the releaser and by the
//! accounting.

use dp_core::params::{Delta, NoiseMultiplier};
use serde::{Deserialize, Serialize};

use crate::error::{Result, non_negative, positive};

/// Parameters of the boundary release.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReleaseConfig {
    /// Clip norm C (> 0).
    pub clip: f64,
    /// Noise multiplier σ₀ ≥ 0 (σ = σ₀·C; 0 disables noise and privacy).
    pub sigma0: NoiseMultiplier,
    /// Metric radius p at which the ledger records each release.
    pub radius: f64,
    /// δ of the (ε, δ) figures.
    pub delta: Delta,
    /// Ledger budget ε at radius p; `None` records without a cap.
    pub budget_eps: Option<f64>,
}

impl ReleaseConfig {
    /// Validates the parameters.
    ///
    /// # Errors
    /// [`crate::FedError::InvalidParam`] naming `clip`, `radius` or `budget_eps` (σ₀ and δ are
    /// checked by their types).
    pub fn check(&self) -> Result<()> {
        positive("clip", self.clip)?;
        non_negative("radius", self.radius)?;
        if let Some(b) = self.budget_eps {
            non_negative("budget_eps", b)?;
        }
        Ok(())
    }
}
