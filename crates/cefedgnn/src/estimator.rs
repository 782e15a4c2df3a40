//! The moving-average estimators of CE-FedGNN: H (per own node, per shared layer) tracks node
//! representations, G tracks the gradient.
//!
//! Update rules (CEFEDGNN.md): H_v^(ℓ) ← (1−γ) H_v^(ℓ) + γ h̃_v^(ℓ) and G ← (1−β) G + β g, then
//! W ← W − η G. The reconstructed \[R\] choices are switches: how a never-updated row starts
//! ([`Bootstrap`]), what the next layer reads ([`ReadMode`]) and what G tracks ([`GradientMode`]).

use serde::{Deserialize, Serialize};

use crate::error::{FedError, Result, positive, unit_interval};

/// How the first update of an estimator row behaves \[R\].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Bootstrap {
    /// The first update copies the fresh value (H = h̃): no bias towards zero. Default.
    #[default]
    Copy,
    /// Rows start at zero and the first update gives γ h̃ (the textbook recursion).
    Zero,
}

/// What the next layer reads for an own neighbour \[R\].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReadMode {
    /// The moving average H (value), gradients flow through h̃. Default.
    #[default]
    MovingAverage,
    /// The fresh h̃ of this step.
    Fresh,
}

graph_core::choice_enum! {
    /// What the gradient estimator G tracks \[R\] (`--gradient`).
    pub enum GradientMode: "gradient mode" default Momentum {
        /// G is a moving average of the parameter gradient (momentum). Default.
        Momentum => "momentum",
        /// G holds a moving average of the per-node backward signal ∂L/∂h̃_v, per shared
        /// layer. In training ([`crate::train::FedTrainConfig::gradient`]) the loss reaches the
        /// shared layers only through these signals: their parameters step along the gradient
        /// of Σ_ℓ Σ_v ⟨G_v^(ℓ), h̃_v^(ℓ)⟩ (G held constant), the output layer along the loss
        /// gradient, with plain (β = 1) steps on W.
        PerNodeSignal => "per-node",
    }
}

/// Validated coefficients of the two estimators.
///
/// # Example
/// ```
/// use cefedgnn::estimator::MaConfig;
/// let c = MaConfig::new(0.5, 0.1)?;
/// assert_eq!((c.gamma(), c.beta()), (0.5, 0.1));
/// assert!(MaConfig::new(0.0, 0.1).is_err() && MaConfig::new(0.5, 1.5).is_err());
/// # Ok::<(), cefedgnn::FedError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MaConfig {
    gamma: f64,
    beta: f64,
    /// First-update behaviour of H and G rows.
    pub bootstrap: Bootstrap,
    /// What the next layer reads.
    pub read: ReadMode,
    /// What G tracks.
    pub gradient: GradientMode,
}

impl MaConfig {
    /// γ (embedding MA) and β (gradient MA), both in (0, 1]; switches at their defaults.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] naming `gamma` or `beta` outside (0, 1].
    pub fn new(gamma: f64, beta: f64) -> Result<Self> {
        Ok(Self {
            gamma: unit_interval("gamma", gamma)?,
            beta: unit_interval("beta", beta)?,
            bootstrap: Bootstrap::default(),
            read: ReadMode::default(),
            gradient: GradientMode::default(),
        })
    }

    /// The theory's schedule γ = β = min(1, c/√T) for T iterations (CEFEDGNN.md: Θ(T^-1/2)).
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] for `iterations` = 0 or `c` not finite > 0.
    pub fn for_iterations(iterations: u64, c: f64) -> Result<Self> {
        if iterations == 0 {
            return Err(FedError::param("iterations", 0, "must be >= 1"));
        }
        let c = positive("c", c)?;
        let g = (c / (iterations as f64).sqrt()).min(1.0);
        Self::new(g, g)
    }

    /// γ.
    pub fn gamma(&self) -> f64 {
        self.gamma
    }
    /// β.
    pub fn beta(&self) -> f64 {
        self.beta
    }
}

/// A table of rows (one per own node) updated by an exponential moving average with rate `rate`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RowTable {
    dim: usize,
    rows: Vec<f32>,
    seen: Vec<bool>,
}

impl RowTable {
    /// `n` zero rows of width `dim`.
    pub(crate) fn new(n: usize, dim: usize) -> Self {
        Self {
            dim,
            rows: vec![0.0; n * dim],
            seen: vec![false; n],
        }
    }
    /// Number of rows.
    pub(crate) fn len(&self) -> usize {
        self.seen.len()
    }
    /// Whether the table has no rows.
    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }
    /// Row width.
    pub(crate) fn dim(&self) -> usize {
        self.dim
    }
    /// Row `i`.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] (`row`) when `i` is out of range.
    pub(crate) fn row(&self, i: usize) -> Result<&[f32]> {
        if i >= self.len() {
            return Err(FedError::param("row", i, "row index out of range"));
        }
        Ok(&self.rows[i * self.dim..(i + 1) * self.dim])
    }
    /// Whether row `i` has been updated at least once.
    pub(crate) fn is_seen(&self, i: usize) -> bool {
        self.seen.get(i).copied().unwrap_or(false)
    }
    /// All rows, row-major.
    pub(crate) fn as_slice(&self) -> &[f32] {
        &self.rows
    }

    /// row_i ← (1−rate)·row_i + rate·fresh (or row_i ← fresh on a first update under
    /// [`Bootstrap::Copy`]).
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] for an out-of-range row or a `fresh` of the wrong width; the
    /// table is unchanged then.
    pub(crate) fn update(
        &mut self,
        i: usize,
        fresh: &[f32],
        rate: f64,
        bootstrap: Bootstrap,
    ) -> Result<()> {
        if i >= self.len() {
            return Err(FedError::param("row", i, "row index out of range"));
        }
        if fresh.len() != self.dim {
            return Err(FedError::param(
                "fresh",
                fresh.len(),
                "row width differs from the table's",
            ));
        }
        let row = &mut self.rows[i * self.dim..(i + 1) * self.dim];
        if !self.seen[i] && bootstrap == Bootstrap::Copy {
            row.copy_from_slice(fresh);
        } else {
            ma_update(row, fresh, rate);
        }
        self.seen[i] = true;
        Ok(())
    }
}

/// x ← (1−rate)·x + rate·fresh, in f64 arithmetic per coordinate.
fn ma_update(x: &mut [f32], fresh: &[f32], rate: f64) {
    for (h, &f) in x.iter_mut().zip(fresh) {
        *h = ((1.0 - rate) * f64::from(*h) + rate * f64::from(f)) as f32;
    }
}

/// H: the moving-average estimate of every own node's representation at every shared layer.
///
/// # Example
/// ```
/// use cefedgnn::estimator::{EmbeddingEstimator, MaConfig};
/// let cfg = MaConfig::new(0.25, 0.1)?;
/// let mut h = EmbeddingEstimator::new(cfg, 3, &[2])?;
/// h.update(0, 1, &[4.0, 8.0])?;       // first update copies
/// h.update(0, 1, &[0.0, 0.0])?;       // (1 − 0.25)·[4, 8]
/// assert_eq!(h.get(0, 1)?, &[3.0, 6.0]);
/// # Ok::<(), cefedgnn::FedError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EmbeddingEstimator {
    config: MaConfig,
    layers: Vec<RowTable>,
}

impl EmbeddingEstimator {
    /// H for `num_nodes` own nodes and shared layers of widths `dims`.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] (`dims`) when there is no shared layer or a width is 0.
    pub fn new(config: MaConfig, num_nodes: usize, dims: &[usize]) -> Result<Self> {
        check_dims(dims)?;
        Ok(Self {
            config,
            layers: dims.iter().map(|&d| RowTable::new(num_nodes, d)).collect(),
        })
    }
    /// The configuration.
    pub fn config(&self) -> &MaConfig {
        &self.config
    }
    /// Number of shared layers.
    pub(crate) fn num_layers(&self) -> usize {
        self.layers.len()
    }
    /// The table of layer `layer`.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] (`layer`) when out of range.
    pub(crate) fn layer(&self, layer: usize) -> Result<&RowTable> {
        self.layers
            .get(layer)
            .ok_or_else(|| FedError::param("layer", layer, "no such shared layer"))
    }
    /// H_v^(layer) for own node at local index `node`.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] for an unknown layer or node.
    pub fn get(&self, layer: usize, node: usize) -> Result<&[f32]> {
        self.layer(layer)?.row(node)
    }
    /// What the next layer reads under [`MaConfig::read`]: H, or the given fresh h̃.
    ///
    /// # Errors
    /// As [`EmbeddingEstimator::get`].
    pub fn read<'a>(&'a self, layer: usize, node: usize, fresh: &'a [f32]) -> Result<&'a [f32]> {
        match self.config.read {
            ReadMode::MovingAverage => self.get(layer, node),
            ReadMode::Fresh => Ok(fresh),
        }
    }
    /// H_v ← (1−γ) H_v + γ h̃_v.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] for an unknown layer or node, or a row of the wrong width.
    pub fn update(&mut self, layer: usize, node: usize, fresh: &[f32]) -> Result<()> {
        let (gamma, bootstrap) = (self.config.gamma, self.config.bootstrap);
        self.layers
            .get_mut(layer)
            .ok_or_else(|| FedError::param("layer", layer, "no such shared layer"))?
            .update(node, fresh, gamma, bootstrap)
    }
}

/// G: the moving-average gradient estimator, and the parameter step W ← W − η G.
///
/// Under [`GradientMode::Momentum`] it tracks the flat parameter gradient; under
/// [`GradientMode::PerNodeSignal`] it tracks per-node rows (use [`GradientEstimator::update_node`]).
///
/// # Example
/// ```
/// use cefedgnn::estimator::{GradientEstimator, MaConfig};
/// let mut g = GradientEstimator::momentum(MaConfig::new(0.5, 0.5)?, 2);
/// g.update(&[2.0, -2.0])?; // first update copies: G = [2, −2]
/// g.update(&[0.0, 0.0])?;  // G = [1, −1]
/// let mut w = vec![1.0f32, 1.0];
/// g.step(&mut w, 0.5)?;
/// assert_eq!(w, vec![0.5, 1.5]);
/// # Ok::<(), cefedgnn::FedError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GradientEstimator {
    config: MaConfig,
    flat: RowTable,
    per_node: Vec<RowTable>,
}

impl GradientEstimator {
    /// A momentum estimator over `num_params` parameters.
    pub fn momentum(config: MaConfig, num_params: usize) -> Self {
        Self {
            config: MaConfig {
                gradient: GradientMode::Momentum,
                ..config
            },
            flat: RowTable::new(1, num_params),
            per_node: Vec::new(),
        }
    }

    /// A per-node backward-signal estimator for `num_nodes` own nodes and shared layers `dims`.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] (`dims`) when there is no layer or a width is 0.
    pub(crate) fn per_node(config: MaConfig, num_nodes: usize, dims: &[usize]) -> Result<Self> {
        check_dims(dims)?;
        Ok(Self {
            config: MaConfig {
                gradient: GradientMode::PerNodeSignal,
                ..config
            },
            flat: RowTable::new(0, 0),
            per_node: dims.iter().map(|&d| RowTable::new(num_nodes, d)).collect(),
        })
    }

    /// The mode.
    pub fn mode(&self) -> GradientMode {
        self.config.gradient
    }

    /// G ← (1−β) G + β g (momentum mode).
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] (`mode`) in per-node mode, or (`fresh`) for a gradient of the
    /// wrong length; G is unchanged then.
    pub fn update(&mut self, gradient: &[f32]) -> Result<()> {
        if self.config.gradient != GradientMode::Momentum {
            return Err(FedError::param(
                "mode",
                "per-node",
                "flat update needs momentum mode",
            ));
        }
        self.flat
            .update(0, gradient, self.config.beta, self.config.bootstrap)
    }

    /// G_v^(layer) ← (1−β) G_v^(layer) + β g_v (per-node mode).
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] in momentum mode or for an unknown layer, node or width.
    pub fn update_node(&mut self, layer: usize, node: usize, signal: &[f32]) -> Result<()> {
        let (beta, bootstrap) = (self.config.beta, self.config.bootstrap);
        self.per_node
            .get_mut(layer)
            .ok_or_else(|| FedError::param("layer", layer, "no such layer (or momentum mode)"))?
            .update(node, signal, beta, bootstrap)
    }

    /// The flat G (momentum mode; empty in per-node mode).
    pub(crate) fn value(&self) -> &[f32] {
        self.flat.as_slice()
    }

    /// Replaces the flat G (e.g. by the server's average).
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] (`value`) for a wrong length or per-node mode.
    pub(crate) fn set_value(&mut self, value: &[f32]) -> Result<()> {
        if self.config.gradient != GradientMode::Momentum || value.len() != self.flat.dim() {
            return Err(FedError::param(
                "value",
                value.len(),
                "length differs from G's",
            ));
        }
        self.flat.rows.copy_from_slice(value);
        self.flat.seen[0] = true;
        Ok(())
    }

    /// G_v^(layer) in per-node mode.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] for an unknown layer or node.
    pub(crate) fn node(&self, layer: usize, node: usize) -> Result<&[f32]> {
        self.per_node
            .get(layer)
            .ok_or_else(|| FedError::param("layer", layer, "no such layer (or momentum mode)"))?
            .row(node)
    }

    /// W ← W − η G (momentum mode).
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] naming `lr` (not finite > 0) or `params` (length differs).
    pub fn step(&self, params: &mut [f32], lr: f64) -> Result<()> {
        let lr = positive("lr", lr)?;
        if params.len() != self.flat.dim() || self.config.gradient != GradientMode::Momentum {
            return Err(FedError::param(
                "params",
                params.len(),
                "length differs from G's",
            ));
        }
        for (w, &g) in params.iter_mut().zip(self.flat.as_slice()) {
            *w = (f64::from(*w) - lr * f64::from(g)) as f32;
        }
        Ok(())
    }
}

/// Shared layer widths: at least one layer, each of width ≥ 1.
fn check_dims(dims: &[usize]) -> Result<()> {
    if dims.is_empty() || dims.contains(&0) {
        return Err(FedError::param(
            "dims",
            format!("{dims:?}"),
            "needs at least one shared layer, each of width >= 1",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ma_arithmetic_matches_the_recursion() {
        // Zero bootstrap: H_t = Σ γ(1−γ)^(t−s) h_s.
        let mut cfg = MaConfig::new(0.2, 0.3).unwrap();
        cfg.bootstrap = Bootstrap::Zero;
        let mut h = EmbeddingEstimator::new(cfg, 2, &[1, 3]).unwrap();
        let seq = [1.0f32, 2.0, 4.0];
        let mut want = 0.0f64;
        for &x in &seq {
            h.update(1, 0, &[x, -x, 0.5 * x]).unwrap();
            want = 0.8 * want + 0.2 * f64::from(x);
        }
        let got = h.get(1, 0).unwrap();
        assert!((f64::from(got[0]) - want).abs() < 1e-6, "{got:?} vs {want}");
        assert!((f64::from(got[1]) + want).abs() < 1e-6);
        assert!((f64::from(got[2]) - 0.5 * want).abs() < 1e-6);
        // Untouched rows and layers stay zero.
        assert_eq!(h.get(1, 1).unwrap(), &[0.0, 0.0, 0.0]);
        assert_eq!(h.get(0, 0).unwrap(), &[0.0]);
        assert!(!h.layer(0).unwrap().is_seen(0));
        // γ = 1 is "always fresh".
        let mut h1 = EmbeddingEstimator::new(MaConfig::new(1.0, 1.0).unwrap(), 1, &[2]).unwrap();
        h1.update(0, 0, &[1.0, 1.0]).unwrap();
        h1.update(0, 0, &[3.0, -1.0]).unwrap();
        assert_eq!(h1.get(0, 0).unwrap(), &[3.0, -1.0]);
    }

    #[test]
    fn read_mode_switch_and_bad_input() {
        let mut cfg = MaConfig::new(0.5, 0.5).unwrap();
        let mut h = EmbeddingEstimator::new(cfg, 1, &[2]).unwrap();
        h.update(0, 0, &[2.0, 2.0]).unwrap();
        let fresh = [9.0f32, 9.0];
        assert_eq!(h.read(0, 0, &fresh).unwrap(), &[2.0, 2.0]);
        cfg.read = ReadMode::Fresh;
        let hf = EmbeddingEstimator::new(cfg, 1, &[2]).unwrap();
        assert_eq!(hf.read(0, 0, &fresh).unwrap(), &fresh);
        let before = h.clone();
        assert!(h.update(0, 0, &[1.0]).is_err());
        assert!(h.update(0, 5, &[1.0, 1.0]).is_err());
        assert!(h.update(3, 0, &[1.0, 1.0]).is_err());
        assert_eq!(h, before, "rejected updates change nothing");
        assert!(EmbeddingEstimator::new(cfg, 1, &[]).is_err());
        for bad in [0.0, -0.1, 1.0001, f64::NAN] {
            assert!(matches!(
                MaConfig::new(bad, 0.5),
                Err(FedError::InvalidParam { name: "gamma", .. })
            ));
            assert!(matches!(
                MaConfig::new(0.5, bad),
                Err(FedError::InvalidParam { name: "beta", .. })
            ));
        }
        let t = MaConfig::for_iterations(10_000, 2.0).unwrap();
        assert!((t.gamma() - 0.02).abs() < 1e-12);
        assert!(MaConfig::for_iterations(0, 1.0).is_err());
    }

    #[test]
    fn gradient_momentum_and_per_node() {
        let cfg = MaConfig::new(0.5, 0.25).unwrap();
        let mut g = GradientEstimator::momentum(cfg, 2);
        g.update(&[4.0, 0.0]).unwrap();
        g.update(&[0.0, 4.0]).unwrap();
        assert_eq!(g.value(), &[3.0, 1.0]);
        let mut w = vec![0.0f32; 2];
        g.step(&mut w, 2.0).unwrap();
        assert_eq!(w, vec![-6.0, -2.0]);
        assert!(g.step(&mut w, 0.0).is_err());
        assert!(g.step(&mut [0.0f32; 3], 0.1).is_err());
        assert!(g.update(&[1.0]).is_err());
        assert!(g.update_node(0, 0, &[1.0]).is_err());
        g.set_value(&[1.0, 1.0]).unwrap();
        assert_eq!(g.value(), &[1.0, 1.0]);
        let mut p = GradientEstimator::per_node(cfg, 3, &[2]).unwrap();
        assert_eq!(p.mode(), GradientMode::PerNodeSignal);
        p.update_node(0, 2, &[1.0, 2.0]).unwrap();
        p.update_node(0, 2, &[5.0, 6.0]).unwrap();
        assert_eq!(p.node(0, 2).unwrap(), &[2.0, 3.0]);
        assert!(p.update(&[1.0]).is_err());
    }
}
