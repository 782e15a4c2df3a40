//! [`ReleaseConfig`]: the parameters of the boundary release, read by the releaser and by the
//! accounting.

use serde::{Deserialize, Serialize};

use crate::error::{Result, non_negative, positive};

/// Parameters of the boundary release.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReleaseConfig {
    /// Clip norm C (> 0).
    pub clip: f64,
    /// Noise multiplier σ₀ ≥ 0 (σ = σ₀·C; 0 disables noise and privacy).
    pub sigma0: f64,
    /// Metric radius p at which the ledger records each release.
    pub radius: f64,
    /// δ of the (ε, δ) figures.
    pub delta: f64,
    /// Ledger budget ε at radius p; `None` records without a cap.
    pub budget_eps: Option<f64>,
}

impl ReleaseConfig {
    /// Validates the parameters.
    ///
    /// # Errors
    /// [`crate::FedError::InvalidParam`] naming `clip`, `sigma0`, `radius`, `delta` or
    /// `budget_eps`.
    pub fn check(&self) -> Result<()> {
        positive("clip", self.clip)?;
        non_negative("sigma0", self.sigma0)?;
        non_negative("radius", self.radius)?;
        dp_core::params::Delta::new(self.delta)?;
        if let Some(b) = self.budget_eps {
            non_negative("budget_eps", b)?;
        }
        Ok(())
    }
}
