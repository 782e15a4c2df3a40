//! Attacks on the released boundary rows: what a bank learns about the other banks' nodes from
//! the halo rows it receives.
//!
//! - [`label_attack`] (in [`inference`]): the **label** of a remote node (illicit or not; the
//!   class of a paper), from a classifier fitted on the attacker's own rows and labels — what a
//!   bank cares about, and an attack that succeeds on exact rows.
//! - [`edge_attack`]: whether two remote nodes are linked, from the similarity of their rows.
//! - [`attack`]: the paper's attribute-inference attack (below), the weak one: it reconstructs
//!   input features, which the first layer compresses away, and does not beat the mean
//!   predictor even on exact rows on Cora.
//!
//! The attribute-inference attack on released boundary rows (the paper's empirical privacy
//! test): a client holding the first-layer halo rows it received, and its own nodes' features
//! and first hidden rows under the final model, learns a map from hidden rows back to features
//! on its own nodes and applies it to the halo rows, reconstructing remote nodes' input
//! features. Released rows are clipped to norm C and noised with N(0, σ²) (both public), so the
//! attacker releases its own hidden rows the same way (its own seeded noise) before fitting:
//! the regression then learns the map from *noisy* rows, which regularises it as much as the
//! noise requires.
//!
//! Three predictors of a remote node's features, scored by mean squared error per feature
//! entry against the true rows:
//! - **regression**: ridge regression of features on hidden rows (with intercept), fitted on
//!   the attacker's own nodes, its penalty chosen on a held-out fifth of them (so that where
//!   the rows carry nothing it falls back towards the mean);
//! - **nearest neighbour**: the features of the own node whose hidden row is nearest (L2) to
//!   the received row;
//! - **mean**: the mean of the attacker's own features (knows nothing about the remote node).
//!
//! An attack that learns something from the rows beats the mean predictor; noise (σ₀) should
//! push both attacks towards it.
//!
//! # Example
//! ```
//! use cefedgnn::attack::attack;
//! use cefedgnn::train::{FedTask, FedTrainConfig, Method, PartitionKind, simulate_observed};
//! use graph_core::generate::ContextualSbm;
//! use rand::SeedableRng;
//! let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
//! let ds = ContextualSbm { n: 120, classes: 2, p_in: 0.1, p_out: 0.05, dim: 8, mu: 1.0 }
//!     .sample(&mut rng)?;
//! let task = FedTask::from_node_dataset(&ds, 3, PartitionKind::Random, 0.5, 0.2, &mut rng)?;
//! let cfg = FedTrainConfig { rounds: 3, local_steps: 4, ..FedTrainConfig::default() };
//! let (_, seen) = simulate_observed(&task, &cfg, Method::CeFedGnn, &mut |_| {})?;
//! let r = attack(&task.features, &seen.unwrap())?;
//! assert!(r.targets > 0 && r.mse_mean > 0.0 && r.mse_regression.is_finite());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use ndarray::{Array2, Axis};
use serde::Serialize;

use crate::error::{FedError, Result};
use crate::train::ClientObservation;

pub mod inference;

pub use inference::{EdgeAttackReport, LabelAttackReport, edge_attack, label_attack};

/// The ridge penalties tried, per own node (λ = this × n_own on the centred Gram matrix).
const RIDGE_GRID: [f64; 9] = [1e-4, 1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0, 1e3, 1e4];

/// The attack's scores on one client's halo rows.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AttackReport {
    /// The attacking client.
    pub client: u32,
    /// Own nodes the attack is fitted on.
    pub own_nodes: usize,
    /// Remote (halo) nodes attacked.
    pub targets: usize,
    /// MSE per feature entry of the ridge-regression reconstruction.
    pub mse_regression: f64,
    /// The ridge penalty per own node chosen on the held-out own nodes.
    pub ridge: f64,
    /// MSE of the nearest-own-node reconstruction.
    pub mse_nearest: f64,
    /// MSE of the own-feature mean.
    pub mse_mean: f64,
}

/// Runs the three predictors on `seen`'s halo rows and scores them against the true rows of
/// `features` (all nodes, by global id).
///
/// # Errors
/// [`FedError::InvalidParam`] when the client holds no halo rows or no own nodes, or a halo
/// id lies outside `features`.
///
/// # Complexity
/// O(9·(n_own·d² + d³ + n_own·d·f) + targets·(d·f + n_own·d)) for hidden width d, f features and
/// the 9 penalties tried.
pub fn attack(features: &Array2<f32>, seen: &ClientObservation) -> Result<AttackReport> {
    let n = seen.own_hidden.nrows();
    let t = seen.halo_nodes.len();
    if n == 0 || t == 0 {
        return Err(FedError::param(
            "observation",
            format!("{n} own nodes, {t} halo rows"),
            "the attack needs own nodes and halo rows",
        ));
    }
    if let Some(&v) = seen
        .halo_nodes
        .iter()
        .find(|&&v| v as usize >= features.nrows())
    {
        return Err(FedError::param("halo node", v, "is not a node of the task"));
    }
    let truth = features.select(
        Axis(0),
        &seen
            .halo_nodes
            .iter()
            .map(|&v| v as usize)
            .collect::<Vec<_>>(),
    );
    let x = seen.own_features.mapv(f64::from);
    let h = released_own_rows(seen)?;
    let q = seen.halo_rows.mapv(f64::from);
    let mean_x = x.mean_axis(Axis(0)).expect("n > 0");
    let mse = |pred: &Array2<f64>| -> f64 {
        let diff = pred - &truth.mapv(f64::from);
        diff.mapv(|e| e * e).mean().unwrap_or(f64::NAN)
    };

    // Mean predictor.
    let mean_pred = Array2::from_shape_fn((t, x.ncols()), |(_, j)| mean_x[j]);

    // Ridge regression, the penalty chosen on every fifth own node held out.
    let fit_rows: Vec<usize> = (0..n).filter(|i| n < 5 || i % 5 != 4).collect();
    let val_rows: Vec<usize> = (0..n).filter(|i| n >= 5 && i % 5 == 4).collect();
    let mut ridge = RIDGE_GRID[RIDGE_GRID.len() / 2];
    if !val_rows.is_empty() {
        let (hf, xf) = (h.select(Axis(0), &fit_rows), x.select(Axis(0), &fit_rows));
        let (hv, xv) = (h.select(Axis(0), &val_rows), x.select(Axis(0), &val_rows));
        let mut best = f64::INFINITY;
        for &r in &RIDGE_GRID {
            let pred = ridge_fit(&hf, &xf, r)?.predict(&hv);
            let e = (&pred - &xv)
                .mapv(|e| e * e)
                .mean()
                .unwrap_or(f64::INFINITY);
            if e < best {
                best = e;
                ridge = r;
            }
        }
    }
    let reg_pred = ridge_fit(&h, &x, ridge)?.predict(&q);

    // Nearest own node.
    let mut nn_pred = Array2::<f64>::zeros((t, x.ncols()));
    for (i, row) in q.rows().into_iter().enumerate() {
        let best = h
            .rows()
            .into_iter()
            .map(|r| {
                r.iter()
                    .zip(row.iter())
                    .map(|(a, b)| (a - b) * (a - b))
                    .sum::<f64>()
            })
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map_or(0, |(k, _)| k);
        nn_pred.row_mut(i).assign(&x.row(best));
    }

    Ok(AttackReport {
        client: seen.client,
        own_nodes: n,
        targets: t,
        mse_regression: mse(&reg_pred),
        ridge,
        mse_nearest: mse(&nn_pred),
        mse_mean: mse(&mean_pred),
    })
}

/// The attacker's own hidden rows released as the protocol releases rows: clipped to norm C and
/// noised with N(0, σ²) (the attacker's own seeded noise; both C and σ are public).
///
/// # Errors
/// [`FedError::InvalidParam`] for a noise scale that is not valid.
pub(crate) fn released_own_rows(seen: &ClientObservation) -> Result<Array2<f64>> {
    let mut h = seen.own_hidden.mapv(f64::from);
    if seen.clip.is_finite() && seen.clip > 0.0 {
        for mut row in h.rows_mut() {
            let norm = row.iter().map(|v| v * v).sum::<f64>().sqrt();
            if norm > seen.clip {
                row.mapv_inplace(|v| v * seen.clip / norm);
            }
        }
    }
    let sigma = seen.sigma.get();
    if sigma > 0.0 {
        use rand::SeedableRng;
        use rand_distr::{Distribution, Normal};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(u64::from(seen.client));
        let normal = Normal::new(0.0, sigma)
            .map_err(|_| FedError::param("sigma", sigma, "is not a valid noise scale"))?;
        h.mapv_inplace(|v| v + normal.sample(&mut rng));
    }
    Ok(h)
}

/// A fitted ridge regression `x ≈ (h − mean_h) B + mean_x`.
struct Ridge {
    mean_h: ndarray::Array1<f64>,
    mean_x: ndarray::Array1<f64>,
    b: Array2<f64>,
}

impl Ridge {
    fn predict(&self, h: &Array2<f64>) -> Array2<f64> {
        (h - &self.mean_h).dot(&self.b) + &self.mean_x
    }
}

/// Ridge regression of `x` on `h` with penalty `per_node × rows` on centred data.
fn ridge_fit(h: &Array2<f64>, x: &Array2<f64>, per_node: f64) -> Result<Ridge> {
    let mean_h = h.mean_axis(Axis(0)).expect("rows > 0");
    let mean_x = x.mean_axis(Axis(0)).expect("rows > 0");
    let hc = h - &mean_h;
    let xc = x - &mean_x;
    let mut gram = hc.t().dot(&hc);
    let lambda = per_node * h.nrows() as f64;
    for i in 0..gram.nrows() {
        gram[[i, i]] += lambda;
    }
    let b = solve_spd(&gram, &hc.t().dot(&xc))?;
    Ok(Ridge { mean_h, mean_x, b })
}

/// Solves `A X = B` for a symmetric positive-definite `A` (Cholesky).
fn solve_spd(a: &Array2<f64>, b: &Array2<f64>) -> Result<Array2<f64>> {
    let d = a.nrows();
    let mut l = Array2::<f64>::zeros((d, d));
    for i in 0..d {
        for j in 0..=i {
            let s: f64 = (0..j).map(|k| l[[i, k]] * l[[j, k]]).sum();
            if i == j {
                let v = a[[i, i]] - s;
                if !(v > 0.0 && v.is_finite()) {
                    return Err(FedError::Inconsistent(
                        "the attack's Gram matrix is not positive definite".into(),
                    ));
                }
                l[[i, i]] = v.sqrt();
            } else {
                l[[i, j]] = (a[[i, j]] - s) / l[[j, j]];
            }
        }
    }
    // Forward then backward substitution, column by column.
    let mut x = b.clone();
    for mut col in x.columns_mut() {
        for i in 0..d {
            let s: f64 = (0..i).map(|k| l[[i, k]] * col[k]).sum();
            col[i] = (col[i] - s) / l[[i, i]];
        }
        for i in (0..d).rev() {
            let s: f64 = (i + 1..d).map(|k| l[[k, i]] * col[k]).sum();
            col[i] = (col[i] - s) / l[[i, i]];
        }
    }
    Ok(x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    /// Features are a linear function of the hidden rows: regression recovers remote rows
    /// exactly from exact rows, noise degrades it towards the mean predictor, and the mean
    /// predictor's error is the features' variance.
    #[test]
    fn regression_inverts_a_linear_map_and_noise_hurts_it() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let (n_all, d, f) = (300usize, 4usize, 6usize);
        let hidden = Array2::from_shape_fn((n_all, d), |_| rng.random_range(-1.0f32..1.0));
        let map = Array2::from_shape_fn((d, f), |_| rng.random_range(-1.0f32..1.0));
        let features = hidden.dot(&map);
        let own: Vec<usize> = (0..200).collect();
        let remote: Vec<u32> = (200..300).collect();
        let seen = |noise: f32, rng: &mut rand_chacha::ChaCha8Rng| ClientObservation {
            client: 0,
            own_nodes: (0..200).collect(),
            own_features: features.select(Axis(0), &own),
            own_hidden: hidden.select(Axis(0), &own),
            halo_nodes: remote.clone(),
            clip: f64::INFINITY,
            sigma: dp_core::params::NoiseScale::ZERO,
            halo_rows: hidden
                .select(Axis(0), &(200..300).collect::<Vec<_>>())
                .mapv(|v| v + noise * rng.random_range(-1.0f32..1.0)),
        };
        let exact = attack(&features, &seen(0.0, &mut rng)).unwrap();
        assert!(exact.mse_regression < 1e-3 * exact.mse_mean, "{exact:?}");
        assert!(exact.mse_nearest < exact.mse_mean, "{exact:?}");
        let noisy = attack(&features, &seen(3.0, &mut rng)).unwrap();
        assert!(
            noisy.mse_regression > 100.0 * exact.mse_regression,
            "{noisy:?}"
        );
        assert_eq!(noisy.mse_mean, exact.mse_mean);
        assert_eq!((exact.own_nodes, exact.targets), (200, 100));
    }

    /// Released rows are clipped to C: the attacker clips its own rows too, so a remote twin of
    /// an own node (same features, same hidden row) is matched exactly.
    #[test]
    fn the_attacker_clips_its_own_rows_like_the_released_ones() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let (n, d, f) = (50usize, 3usize, 4usize);
        let hidden = Array2::from_shape_fn((n, d), |_| rng.random_range(2.0f32..10.0));
        let own_features = Array2::from_shape_fn((n, f), |_| rng.random_range(0.0f32..1.0));
        let mut features = own_features.clone();
        features.append(Axis(0), own_features.view()).unwrap();
        let clipped = hidden.map_axis(Axis(1), |r| r.dot(&r).sqrt());
        let halo_rows = Array2::from_shape_fn((n, d), |(i, j)| hidden[[i, j]] / clipped[i]);
        let seen = ClientObservation {
            client: 0,
            own_nodes: (0..n as u32).collect(),
            own_features,
            own_hidden: hidden,
            halo_nodes: (n as u32..2 * n as u32).collect(),
            halo_rows,
            clip: 1.0,
            sigma: dp_core::params::NoiseScale::ZERO,
        };
        assert_eq!(attack(&features, &seen).unwrap().mse_nearest, 0.0);
    }

    /// Noisy released rows: the attacker that fits on its own rows noised the same way stays
    /// near the mean predictor instead of amplifying the noise (the noise-blind fit does).
    #[test]
    fn the_attacker_fits_on_rows_noised_like_the_released_ones() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let (n_all, d, f) = (400usize, 6usize, 5usize);
        let hidden = Array2::from_shape_fn((n_all, d), |_| rng.random_range(-0.3f32..0.3));
        let map = Array2::from_shape_fn((d, f), |_| rng.random_range(-3.0f32..3.0));
        let features = hidden.dot(&map);
        let own: Vec<usize> = (0..300).collect();
        let sigma = 1.0f32;
        let noisy = hidden
            .select(Axis(0), &(300..400).collect::<Vec<_>>())
            .mapv(|v| v + sigma * rng.random_range(-1.7f32..1.7));
        let seen = |known_sigma: f64| ClientObservation {
            client: 0,
            own_nodes: (0..300).collect(),
            own_features: features.select(Axis(0), &own),
            own_hidden: hidden.select(Axis(0), &own),
            halo_nodes: (300..400).collect(),
            halo_rows: noisy.clone(),
            clip: f64::INFINITY,
            sigma: dp_core::params::NoiseScale::new(known_sigma).unwrap(),
        };
        let aware = attack(&features, &seen(1.0)).unwrap();
        let blind = attack(&features, &seen(0.0)).unwrap();
        assert!(aware.mse_regression < 1.5 * aware.mse_mean, "{aware:?}");
        assert!(
            blind.mse_regression > 2.0 * aware.mse_regression,
            "{blind:?} vs {aware:?}"
        );
    }

    #[test]
    fn empty_observations_and_bad_ids_are_errors() {
        let features = Array2::<f32>::zeros((3, 2));
        let mut seen = ClientObservation {
            client: 0,
            own_nodes: vec![0, 1],
            own_features: Array2::zeros((2, 2)),
            own_hidden: Array2::zeros((2, 1)),
            halo_nodes: vec![],
            halo_rows: Array2::zeros((0, 1)),
            clip: 1.0,
            sigma: dp_core::params::NoiseScale::ZERO,
        };
        assert!(attack(&features, &seen).is_err());
        seen.halo_nodes = vec![7];
        seen.halo_rows = Array2::zeros((1, 1));
        assert!(attack(&features, &seen).is_err());
    }
}
