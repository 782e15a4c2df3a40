//! Clipping and noising of boundary rows, with per-node release counts and a ledger entry per
//! release batch.

use std::collections::BTreeMap;

use dp_core::calibrate::gaussian_rho;
use dp_core::ledger::PrivacyLedger;
use dp_core::measures::{ApproxDp, Zcdp};
use dp_core::mechanisms::{GaussianParams, ValidGaussian};
use dp_core::rng::ChaCha20Rng;
use serde::{Deserialize, Serialize};

use super::accounting::{PrivacyReport, ReleaseCounts};
use super::config::ReleaseConfig;
use crate::error::{FedError, Result};
use crate::protocol::EmbeddingRows;

/// Scales `row` so its L2 norm is at most `clip`; returns the norm before clipping.
///
/// Non-finite entries are set to 0 before the norm is taken, so the output norm is always ≤ C.
///
/// # Example
/// ```
/// let mut r = [3.0f32, 4.0];
/// let norm = cefedgnn::privacy::clip_l2(&mut r, 1.0);
/// assert_eq!(norm, 5.0);
/// assert!((r[0] - 0.6).abs() < 1e-6 && (r[1] - 0.8).abs() < 1e-6);
/// ```
pub fn clip_l2(row: &mut [f32], clip: f64) -> f64 {
    for x in row.iter_mut() {
        if !x.is_finite() {
            *x = 0.0;
        }
    }
    let norm = row
        .iter()
        .map(|&x| f64::from(x).powi(2))
        .sum::<f64>()
        .sqrt();
    if norm > clip && norm > 0.0 {
        // Shrink slightly below C so that f32 rounding cannot push the norm above C.
        let scale = clip / norm * (1.0 - 1e-6);
        for x in row.iter_mut() {
            *x = (f64::from(*x) * scale) as f32;
        }
    }
    norm
}

/// One client's releaser of noisy boundary rows: Ĥ_v = clip_C(H_v) + N(0, σ² I), σ = σ₀·C.
///
/// Counts the rows released per node, and records one [`PrivacyLedger`] entry per release batch
/// (the loss of one row at radius p, ρ = p²/(2σ²) zCDP; a batch holds each node at most once, and
/// rows of different nodes compose in parallel, so the ledger total bounds every node's loss).
///
/// # Privacy
/// Gaussian mechanism (dp-core's [`ValidGaussian::release`], floating-point Ziggurat sampler)
/// driven by a ChaCha20 CSPRNG: per row (ε(p), δ)-metric-DP with ρ(p) = p²/(2σ²)
/// (BS16 Prop. 1.6 at sensitivity p). See [`PrivacyReport`] for the composition over rounds.
///
/// # Example
/// ```
/// use cefedgnn::privacy::{BoundaryReleaser, ReleaseConfig};
/// # use dp_core::params::{Delta, NoiseMultiplier};
/// let (sigma0, delta) = (NoiseMultiplier::ONE, Delta::TEN_TO_MINUS_5);
/// let cfg = ReleaseConfig { clip: 1.0, sigma0, radius: 0.1, delta, budget_eps: None };
/// let mut rel = BoundaryReleaser::new(0, cfg, &[4, 9], dp_core::rng::seeded_rng(1))?;
/// let rows = rel.release(0, 0, &[9], &[30.0, 40.0], 2)?;
/// assert_eq!(rows.nodes, vec![9]);
/// assert_eq!(rel.count(9), 1);
/// assert_eq!(rel.ledger().map(|l| l.entries().len()), Some(1));
/// assert!(rel.release(1, 0, &[5], &[0.0, 0.0], 2).is_err()); // 5 is not a boundary node
/// # Ok::<(), cefedgnn::FedError>(())
/// ```
#[derive(Debug)]
pub struct BoundaryReleaser {
    client: u32,
    config: ReleaseConfig,
    mechanism: Option<ValidGaussian>,
    counts: BTreeMap<u32, u64>,
    ledger: Option<PrivacyLedger>,
    rng: ChaCha20Rng,
    norms: NormStats,
    /// Every release so far: (round, layer, rows), to rebuild the ledger from a snapshot.
    history: Vec<(u32, u16, u64)>,
}

/// The state of a [`BoundaryReleaser`] between rounds (release counts, the release history that
/// rebuilds the ledger, the noise generator's position, the norm statistics): what a client
/// process writes to its own disk so that a restart neither forgets a release nor reuses noise.
///
/// # Privacy
/// Holds the noise generator's seed and position: it must stay on the client, like its data.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ReleaserSnapshot {
    counts: BTreeMap<u32, u64>,
    history: Vec<(u32, u16, u64)>,
    rng: ChaCha20Rng,
    norms: NormStats,
}

/// Pre-clipping L2 norms of the rows a [`BoundaryReleaser`] released (diagnostics for choosing
/// C; computed on the client, never sent).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NormStats {
    /// Rows released.
    pub rows: u64,
    /// Rows whose norm exceeded C (scaled down to C).
    pub clipped: u64,
    /// Sum of the pre-clipping norms.
    pub norm_sum: f64,
}

impl NormStats {
    /// Mean pre-clipping norm (NaN without rows).
    pub(crate) fn mean_norm(&self) -> f64 {
        self.norm_sum / self.rows as f64
    }
    /// Fraction of rows clipped (NaN without rows).
    pub fn clipped_fraction(&self) -> f64 {
        self.clipped as f64 / self.rows as f64
    }
    /// The statistics of `self` and `other` together.
    pub(crate) fn merge(&self, other: &NormStats) -> NormStats {
        NormStats {
            rows: self.rows + other.rows,
            clipped: self.clipped + other.clipped,
            norm_sum: self.norm_sum + other.norm_sum,
        }
    }
}

impl BoundaryReleaser {
    /// A releaser for client `client` whose boundary set is `boundary`.
    ///
    /// # Arguments
    /// * `rng` — the CSPRNG: [`dp_core::rng::os_rng`] for real releases, a seeded one for experiments.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] for an invalid config; [`FedError::Dp`] for mechanism errors.
    pub fn new(
        client: u32,
        config: ReleaseConfig,
        boundary: &[u32],
        rng: ChaCha20Rng,
    ) -> Result<Self> {
        config.check()?;
        let sigma = config.sigma0.scale(config.clip)?.get();
        let (mechanism, ledger) = if config.sigma0.get() > 0.0 {
            let mech = GaussianParams::new(sigma).check()?;
            let budget = ApproxDp::new(config.budget_eps.unwrap_or(f64::MAX), config.delta.get())?;
            (Some(mech), Some(PrivacyLedger::new(budget)?))
        } else {
            (None, None)
        };
        Ok(Self {
            client,
            config,
            mechanism,
            counts: boundary.iter().map(|&v| (v, 0)).collect(),
            ledger,
            rng,
            norms: NormStats::default(),
            history: Vec::new(),
        })
    }

    /// The state to persist between rounds.
    pub(crate) fn snapshot(&self) -> ReleaserSnapshot {
        ReleaserSnapshot {
            counts: self.counts.clone(),
            history: self.history.clone(),
            rng: self.rng.clone(),
            norms: self.norms,
        }
    }

    /// A releaser restored from `snapshot`: the ledger is rebuilt by recording every past
    /// release again (same labels, same guarantee), so its total equals the original's.
    ///
    /// # Errors
    /// As [`BoundaryReleaser::new`]; [`FedError::Inconsistent`] when the snapshot's nodes differ
    /// from `boundary`; budget errors when the history exceeds the budget.
    pub(crate) fn restore(
        client: u32,
        config: ReleaseConfig,
        boundary: &[u32],
        snapshot: ReleaserSnapshot,
    ) -> Result<Self> {
        let mut r = Self::new(client, config, boundary, snapshot.rng)?;
        if !snapshot.counts.keys().copied().eq(boundary.iter().copied()) {
            return Err(FedError::Inconsistent(format!(
                "client {client}: the saved release counts are for another boundary set"
            )));
        }
        for &(round, layer, rows) in &snapshot.history {
            r.account(round, layer, rows)?;
        }
        r.history = snapshot.history;
        r.counts = snapshot.counts;
        r.norms = snapshot.norms;
        Ok(r)
    }

    /// Records one release of `rows` rows in the ledger (nothing when σ₀ = 0).
    fn account(&mut self, round: u32, layer: u16, rows: u64) -> Result<()> {
        if let (Some(ledger), Some(mech)) = (self.ledger.as_mut(), self.mechanism.as_ref()) {
            let p = self.config.radius;
            let rho = gaussian_rho(p, mech.sigma())?;
            ledger.record(
                format!(
                    "client {} round {round} layer {layer}: {rows} rows",
                    self.client
                ),
                Zcdp::new(rho)?,
                &[
                    ("sigma", mech.sigma()),
                    ("clip", self.config.clip),
                    ("radius", p),
                    ("rows", rows as f64),
                ],
            )?;
        }
        Ok(())
    }

    /// The configuration.
    pub fn config(&self) -> &ReleaseConfig {
        &self.config
    }

    /// Releases clipped, noised rows of boundary nodes `nodes` at shared layer `layer`.
    ///
    /// # Arguments
    /// * `rows` — `nodes.len() × dim` values, row-major (the MA estimates H_v^(layer)).
    ///
    /// # Errors
    /// [`FedError::NotInSet`] for a node outside the boundary set; [`FedError::InvalidParam`]
    /// for a shape mismatch or a node listed twice; [`FedError::Dp`] when the ledger budget would
    /// be exceeded. Nothing is released or counted on error.
    ///
    /// # Privacy
    /// See the type's docs.
    pub fn release(
        &mut self,
        round: u32,
        layer: u16,
        nodes: &[u32],
        rows: &[f32],
        dim: usize,
    ) -> Result<EmbeddingRows> {
        if dim == 0 || rows.len() != nodes.len() * dim {
            return Err(FedError::param(
                "rows",
                rows.len(),
                "must hold nodes.len() x dim values",
            ));
        }
        let mut seen = std::collections::HashSet::with_capacity(nodes.len());
        for &v in nodes {
            if !self.counts.contains_key(&v) {
                return Err(FedError::NotInSet {
                    client: self.client,
                    node: v,
                    set: "boundary",
                });
            }
            if !seen.insert(v) {
                return Err(FedError::param(
                    "nodes",
                    v,
                    "node listed twice in one release",
                ));
            }
        }
        self.account(round, layer, nodes.len() as u64)?;
        self.history.push((round, layer, nodes.len() as u64));
        let mut values = rows.to_vec();
        for row in values.chunks_mut(dim) {
            let norm = clip_l2(row, self.config.clip);
            self.norms.rows += 1;
            self.norms.norm_sum += norm;
            self.norms.clipped += u64::from(norm > self.config.clip);
            if let Some(mech) = &self.mechanism {
                for x in row.iter_mut() {
                    *x = mech.release(f64::from(*x), &mut self.rng) as f32;
                }
            }
        }
        for v in nodes {
            *self.counts.get_mut(v).expect("checked above") += 1;
        }
        Ok(EmbeddingRows {
            layer,
            dim: dim as u32,
            nodes: nodes.to_vec(),
            values,
        })
    }

    /// Rows released so far for node `v` (0 for nodes never released or not on the boundary).
    pub fn count(&self, v: u32) -> u64 {
        self.counts.get(&v).copied().unwrap_or(0)
    }

    /// Release counts of all boundary nodes.
    pub fn counts(&self) -> &BTreeMap<u32, u64> {
        &self.counts
    }

    /// Pre-clipping norms of the rows released so far.
    pub(crate) fn norm_stats(&self) -> NormStats {
        self.norms
    }

    /// The ledger (`None` when σ₀ = 0: nothing private is claimed).
    pub fn ledger(&self) -> Option<&PrivacyLedger> {
        self.ledger.as_ref()
    }

    /// The privacy report of this client's releases so far.
    ///
    /// # Errors
    /// As [`PrivacyReport::compute`].
    ///
    /// # Privacy
    /// R = the largest per-node release count.
    pub fn report(&self) -> Result<PrivacyReport> {
        let max = self.counts.values().copied().max().unwrap_or(0);
        let nodes = self.counts.values().filter(|&&c| c > 0).count();
        let total = self.counts.values().sum();
        let counts = ReleaseCounts {
            max_releases: max,
            nodes_released: nodes,
            total_releases: total,
            ledger_entries: self.ledger.as_ref().map_or(0, |l| l.entries().len()),
        };
        PrivacyReport::compute(&self.config, counts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dp_core::rng::seeded_rng;

    fn cfg(sigma0: f64) -> ReleaseConfig {
        ReleaseConfig {
            clip: 2.0,
            sigma0: dp_core::params::NoiseMultiplier::new(sigma0).unwrap(),
            radius: 0.2,
            delta: dp_core::params::Delta::TEN_TO_MINUS_5,
            budget_eps: None,
        }
    }

    #[test]
    fn clipping_bounds_the_norm() {
        let mut r = [1e30f32, -1e30, f32::NAN];
        clip_l2(&mut r, 1.5);
        let n: f64 = r.iter().map(|&x| f64::from(x).powi(2)).sum::<f64>().sqrt();
        assert!(n <= 1.5 && n > 1.49, "{n}");
        let mut small = [0.3f32, 0.4];
        assert!((clip_l2(&mut small, 1.0) - 0.5).abs() < 1e-6);
        assert_eq!(small, [0.3, 0.4]);
    }

    #[test]
    fn noise_has_the_calibrated_scale_and_is_seeded() {
        // σ = σ₀·C = 0.5·2 = 1: empirical variance of 20,000 coordinates within 5%.
        let n = 10_000usize;
        let nodes: Vec<u32> = (0..n as u32).collect();
        let mut rel = BoundaryReleaser::new(3, cfg(0.5), &nodes, seeded_rng(11)).unwrap();
        let out = rel.release(0, 0, &nodes, &vec![0.0; 2 * n], 2).unwrap();
        let var = out
            .values
            .iter()
            .map(|&x| f64::from(x).powi(2))
            .sum::<f64>()
            / (2 * n) as f64;
        assert!((var - 1.0).abs() < 0.05, "variance {var}");
        let mut again = BoundaryReleaser::new(3, cfg(0.5), &nodes, seeded_rng(11)).unwrap();
        assert_eq!(
            again.release(0, 0, &nodes, &vec![0.0; 2 * n], 2).unwrap(),
            out
        );
        assert_eq!(rel.count(17), 1);
        assert_eq!(rel.ledger().unwrap().entries().len(), 1);
        let rep = rel.report().unwrap();
        assert_eq!(
            (rep.max_releases, rep.nodes_released, rep.total_releases),
            (1, n, n as u64)
        );
    }

    #[test]
    fn ledger_rho_is_dp_cores_upper_bound() {
        // p = 0.2, σ = σ₀·C = 1: the ledger holds dp-core's ρ = p²/(2σ²) rounded up (0.02 and
        // a few ulps).
        let mut rel = BoundaryReleaser::new(0, cfg(0.5), &[1], seeded_rng(0)).unwrap();
        rel.release(0, 0, &[1], &[0.5], 1).unwrap();
        let entry = &rel.ledger().unwrap().entries()[0];
        let want = dp_core::calibrate::gaussian_rho(0.2, 1.0).unwrap();
        assert!(want >= 0.2 * 0.2 / 2.0 && want - 0.02 < 1e-16, "{want}");
        assert!(matches!(
            entry.measure(),
            dp_core::ledger::Measure::Zcdp(z) if z.rho() == want
        ));
    }

    #[test]
    fn bad_releases_change_nothing() {
        let mut rel = BoundaryReleaser::new(0, cfg(1.0), &[1, 2], seeded_rng(0)).unwrap();
        assert!(matches!(
            rel.release(0, 0, &[3], &[0.0], 1),
            Err(FedError::NotInSet {
                node: 3,
                set: "boundary",
                ..
            })
        ));
        assert!(rel.release(0, 0, &[1, 1], &[0.0, 0.0], 1).is_err());
        assert!(rel.release(0, 0, &[1], &[0.0, 0.0], 1).is_err());
        assert_eq!(rel.count(1), 0);
        assert!(rel.ledger().unwrap().entries().is_empty());
        // A budget refusal: one row at p/σ = 0.1 costs more than ε = 0.01.
        let mut capped = BoundaryReleaser::new(
            0,
            ReleaseConfig {
                budget_eps: Some(0.01),
                ..cfg(1.0)
            },
            &[1],
            seeded_rng(0),
        )
        .unwrap();
        assert!(matches!(
            capped.release(0, 0, &[1], &[0.0], 1),
            Err(FedError::Dp(_))
        ));
        assert_eq!(capped.count(1), 0);
        // σ₀ = 0: rows are only clipped, no ledger, ε = ∞.
        let mut open = BoundaryReleaser::new(0, cfg(0.0), &[1], seeded_rng(0)).unwrap();
        let r = open.release(0, 1, &[1], &[3.0, 4.0], 2).unwrap();
        assert!((r.values[0] - 1.2).abs() < 1e-5 && (r.values[1] - 1.6).abs() < 1e-5);
        assert!(open.ledger().is_none() && !open.report().unwrap().eps_rdp.is_finite());
        // σ₀ < 0 cannot reach a releaser: its type refuses it.
        assert!(dp_core::params::NoiseMultiplier::new(-1.0).is_err());
    }
}
