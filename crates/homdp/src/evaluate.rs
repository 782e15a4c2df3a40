//! The paper's evaluation protocol: one private release of all graphs, a downstream model trained
//! on the noisy training rows and tested on clean (or, optionally, noisy) test rows, and the
//! re-identification attack on the release.

use dp_core::params::Rho;
use std::time::Instant;

use graph_core::{Graph, GraphDataset};
use ndarray::{Array2, ArrayView2, Axis};
use rand::seq::SliceRandom;
use rand::{CryptoRng, SeedableRng};

use crate::attack::reidentification;
use crate::count::density_matrix;
use crate::downstream::{Downstream, Labels, Scores, fit_evaluate};
use crate::embed::{EmbeddingParams, ReleaseOptions, embed_with_densities};
use crate::error::{Result, invalid};
use crate::guarantee::Guarantee;
use crate::pattern::Pattern;

/// Train and test graph indices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    /// Training graphs.
    pub train: Vec<usize>,
    /// Test graphs.
    pub test: Vec<usize>,
}

impl Split {
    /// A seeded random holdout: `⌈test_fraction·n⌉` graphs for testing, the rest for training
    /// (the paper's 80/20 split of the TU sets with `test_fraction = 0.2`).
    ///
    /// # Errors
    /// [`crate::HomdpError::InvalidParam`] unless `0 < test_fraction < 1` and both parts are
    /// non-empty.
    ///
    /// # Example
    /// ```
    /// let s = homdp::Split::holdout(10, 0.2, 7)?;
    /// assert_eq!((s.train.len(), s.test.len()), (8, 2));
    /// assert_eq!(s, homdp::Split::holdout(10, 0.2, 7)?);
    /// # Ok::<(), homdp::HomdpError>(())
    /// ```
    pub fn holdout(n: usize, test_fraction: f64, seed: u64) -> Result<Self> {
        if !(test_fraction > 0.0 && test_fraction < 1.0) {
            return invalid("test_fraction", test_fraction, "must be in (0, 1)");
        }
        let n_test = (test_fraction * n as f64).ceil() as usize;
        if n_test == 0 || n_test >= n {
            return invalid("n", n as f64, "both parts of the split must be non-empty");
        }
        let mut idx: Vec<usize> = (0..n).collect();
        idx.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
        let mut test = idx[..n_test].to_vec();
        let mut train = idx[n_test..].to_vec();
        test.sort_unstable();
        train.sort_unstable();
        Ok(Self { train, test })
    }

    /// The dataset's own `train`/`test` split (the scaffold split files of the molecule sets;
    /// `valid` is not used), or else [`Split::holdout`] with 20 % test graphs.
    ///
    /// # Errors
    /// As [`Split::holdout`].
    pub fn of_dataset(ds: &GraphDataset, seed: u64) -> Result<Self> {
        match (ds.split("train"), ds.split("test")) {
            (Some(tr), Some(te)) if !tr.is_empty() && !te.is_empty() => Ok(Self {
                train: tr.to_vec(),
                test: te.to_vec(),
            }),
            _ => Self::holdout(ds.len(), 0.2, seed),
        }
    }
}

/// How a dataset is evaluated (the paper's protocol, per dataset).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Protocol {
    /// How the rows are released, but ρ (the sweep's): δ, the sensitivity bound, Δ and its
    /// clipping (the number clipped is reported), the `|V(G)|` column of the social datasets.
    pub release: ReleaseOptions,
    /// Noisy test rows too (the paper: clean test rows).
    pub noisy_test: bool,
    /// The downstream model.
    pub model: Downstream,
    /// Run the re-identification attack.
    pub attack: bool,
    /// Let the attack also match on the public `|V(G)|` column (when `append_num_nodes`).
    /// `false` (the paper's threat model and the reference code): the adversary matches the
    /// noisy densities alone against the clean densities.
    pub attack_num_nodes: bool,
}

impl Protocol {
    /// The paper's protocol with model `model`: component-aware bound, no Δ, no clipping, no
    /// `|V(G)|` column, clean test rows, δ = 1e-6, attack on (on the densities only).
    pub fn new(model: Downstream) -> Self {
        Self {
            release: ReleaseOptions::default(),
            noisy_test: false,
            model,
            attack: true,
            attack_num_nodes: false,
        }
    }
}

/// Result of [`evaluate`].
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Outcome {
    /// Test metrics of the downstream model.
    pub scores: Scores,
    /// Top-1 re-identification rate (`None` when the attack was not run).
    pub attack_top1: Option<f64>,
    /// Top-10 re-identification rate.
    pub attack_top10: Option<f64>,
    /// The release's guarantee (`None` for the non-private baseline).
    pub guarantee: Option<Guarantee>,
    /// Graphs clipped to Δ.
    pub clipped: usize,
    /// The privately estimated Δ̂ (`None`: public or no bound).
    pub degree_bound: Option<usize>,
    /// Mean noise standard deviation over graphs (0 without noise).
    pub mean_sigma: f64,
    /// Seconds spent in the release, the model and the attack.
    pub seconds: [f64; 3],
}

/// Clean feature matrix: the densities `t(F_i, G)`, then `|V(G)|` if asked.
///
/// # Errors
/// As [`density_matrix`].
pub fn clean_features(
    patterns: &[Pattern],
    graphs: &[Graph],
    append_num_nodes: bool,
) -> Result<Array2<f64>> {
    let t = density_matrix(patterns, graphs)?;
    if !append_num_nodes {
        return Ok(t);
    }
    let n = Array2::from_shape_fn((graphs.len(), 1), |(i, _)| graphs[i].num_nodes() as f64);
    Ok(ndarray::concatenate(Axis(1), &[t.view(), n.view()]).expect("same number of rows"))
}

/// The inputs of [`evaluate`]: patterns, graphs with their targets and split, and the clean
/// features (computed once for a sweep over ρ).
#[derive(Clone, Copy, Debug)]
pub struct EvalData<'a> {
    /// The public patterns.
    pub patterns: &'a [Pattern],
    /// All graphs (each released once).
    pub graphs: &'a [Graph],
    /// One target per graph.
    pub labels: &'a Labels,
    /// Train/test indices into `graphs`.
    pub split: &'a Split,
    /// [`clean_features`] of `patterns`, `graphs` and the protocol's `append_num_nodes`.
    pub clean: ArrayView2<'a, f64>,
}

/// Releases all `graphs` privately at `rho` (`None`: the non-private baseline, no noise),
/// trains `protocol.model` on the released training rows and scores it on the test rows, and
/// runs the re-identification attack of the released vectors against `clean` (on the density
/// columns only unless `protocol.attack_num_nodes`).
///
/// The scaler (and the PCA of [`Downstream::PcaKnn`]) is fitted on the released (noisy)
/// training rows and applied to the clean test rows, as in the reference code.
///
/// # Arguments
/// * `data` — see [`EvalData`];
/// * `rng` — noise generator (CSPRNG); `seed` — drives the downstream model's randomness.
///
/// # Errors
/// As [`embed_with_densities`] and [`fit_evaluate`]; [`crate::HomdpError::InvalidParam`] when `clean`, `labels`
/// or `split` do not fit `graphs`.
///
/// # Privacy
/// The release is [`embed_with_densities`]'s (the same as [`crate::embed`]'s), and its [`Guarantee`] is returned in the outcome. Test rows are
/// clean unless `noisy_test` (the paper's protocol evaluates the model on clean test graphs).
pub fn evaluate<R: CryptoRng + ?Sized>(
    data: &EvalData<'_>,
    rho: Option<Rho>,
    protocol: &Protocol,
    rng: &mut R,
    seed: u64,
) -> Result<Outcome> {
    let EvalData {
        patterns,
        graphs,
        labels,
        split,
        clean,
    } = *data;
    let cols = patterns.len() + usize::from(protocol.release.append_num_nodes);
    if clean.dim() != (graphs.len(), cols) {
        return invalid(
            "clean",
            clean.nrows() as f64,
            "must be clean_features of the graphs",
        );
    }
    if labels.len() != graphs.len() {
        return invalid("labels", labels.len() as f64, "need one target per graph");
    }
    if let Some(&i) = split
        .train
        .iter()
        .chain(&split.test)
        .find(|&&i| i >= graphs.len())
    {
        return invalid("split", i as f64, "index out of range");
    }
    let t0 = Instant::now();
    let (released, guarantee, clipped, mean_sigma, degree_bound) = match rho {
        None => (clean.to_owned(), None, 0, 0.0, None),
        Some(rho) => {
            let params = EmbeddingParams::with_options(rho, protocol.release);
            let densities = clean.slice(ndarray::s![.., ..patterns.len()]);
            let emb = embed_with_densities(patterns, graphs, densities, &params, rng)?;
            let s = emb.sigmas();
            let mean_sigma = s.iter().sum::<f64>() / s.len().max(1) as f64;
            let (g, c) = (*emb.guarantee(), emb.clipped().len());
            let d = emb.degree_estimate().map(|e| e.bound);
            (emb.into_values(), Some(g), c, mean_sigma, d)
        }
    };
    let t1 = Instant::now();
    let x_train = released.select(Axis(0), &split.train);
    let x_test = if protocol.noisy_test {
        released.select(Axis(0), &split.test)
    } else {
        clean.select(Axis(0), &split.test)
    };
    let scores = fit_evaluate(
        &protocol.model,
        x_train.view(),
        &labels.select(&split.train),
        x_test.view(),
        &labels.select(&split.test),
        seed,
    )?;
    let t2 = Instant::now();
    let (top1, top10) = if protocol.attack {
        // Without `attack_num_nodes` the public |V(G)| column (the last one) is left out.
        let cols = if protocol.attack_num_nodes {
            cols
        } else {
            patterns.len()
        };
        let r = reidentification(
            clean.slice(ndarray::s![.., ..cols]),
            released.slice(ndarray::s![.., ..cols]),
            &[1, 10],
        )?;
        (Some(r[0]), Some(r[1]))
    } else {
        (None, None)
    };
    let t3 = Instant::now();
    Ok(Outcome {
        scores,
        attack_top1: top1,
        attack_top10: top10,
        guarantee,
        clipped,
        degree_bound,
        mean_sigma,
        seconds: [
            (t1 - t0).as_secs_f64(),
            (t2 - t1).as_secs_f64(),
            (t3 - t2).as_secs_f64(),
        ],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PatternSampler;
    use dp_core::rng::seeded_rng;

    /// Two SBM-like classes that cycle densities separate: G(n, p) vs two dense blocks.
    fn two_classes() -> Result<(Vec<Graph>, Labels)> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(21);
        let mut graphs = Vec::new();
        let mut y = Vec::new();
        for i in 0..120 {
            let (g, _) = if i % 2 == 0 {
                graph_core::generate::sbm(&[15, 15], 0.5, 0.5, &mut rng)?
            } else {
                graph_core::generate::sbm(&[15, 15], 0.9, 0.1, &mut rng)?
            };
            graphs.push(g);
            y.push(i % 2);
        }
        Ok((graphs, Labels::Class(y)))
    }

    #[test]
    fn clean_cycles_separate_and_heavy_noise_does_not() -> Result<()> {
        let (graphs, labels) = two_classes()?;
        let pats = vec![Pattern::cycle(3)?, Pattern::cycle(4)?];
        let clean = clean_features(&pats, &graphs, false)?;
        let split = Split::holdout(graphs.len(), 0.25, 3)?;
        let proto = Protocol::new(Downstream::Knn { k: 5 });
        let data = EvalData {
            patterns: &pats,
            graphs: &graphs,
            labels: &labels,
            split: &split,
            clean: clean.view(),
        };
        let exact = evaluate(&data, None, &proto, &mut seeded_rng(1), 0)?;
        assert!(
            exact.scores.accuracy.expect("classification") > 0.9,
            "{exact:?}"
        );
        assert_eq!(exact.attack_top1, Some(1.0));
        assert!(exact.guarantee.is_none());
        // ρ tiny: the training rows are noise, the attack fails.
        let noisy = evaluate(&data, Some(Rho::new(1e-6)?), &proto, &mut seeded_rng(1), 0)?;
        assert!(noisy.attack_top1.expect("attack run") < 0.1, "{noisy:?}");
        assert!(noisy.guarantee.expect("private").eps() < 0.05);
        assert!(noisy.mean_sigma > 1.0);
        Ok(())
    }

    #[test]
    fn attack_leaves_out_the_node_count_unless_asked() -> Result<()> {
        // K_{a,a} are blow-ups of K2: all their densities agree, only |V(G)| = 2a differs.
        let graphs: Vec<Graph> = (1..=12u32)
            .map(|a| {
                let edges: Vec<(u32, u32)> = (0..a)
                    .flat_map(|u| (a..2 * a).map(move |v| (u, v)))
                    .collect();
                Graph::from_edges(2 * a as usize, &edges)
            })
            .collect::<std::result::Result<_, _>>()?;
        let labels = Labels::Class((0..12).map(|i| i % 2).collect());
        let pats = vec![Pattern::path(3)?, Pattern::cycle(4)?];
        let clean = clean_features(&pats, &graphs, true)?;
        let split = Split::holdout(graphs.len(), 0.25, 1)?;
        let mut proto = Protocol::new(Downstream::Knn { k: 1 });
        proto.release.append_num_nodes = true;
        let data = EvalData {
            patterns: &pats,
            graphs: &graphs,
            labels: &labels,
            split: &split,
            clean: clean.view(),
        };
        let paper = evaluate(&data, None, &proto, &mut seeded_rng(1), 0)?;
        // Identical density vectors: only the first of the twelve is found at top-1.
        assert_eq!(paper.attack_top1, Some(1.0 / 12.0));
        proto.attack_num_nodes = true;
        let with_n = evaluate(&data, None, &proto, &mut seeded_rng(1), 0)?;
        assert_eq!(with_n.attack_top1, Some(1.0));
        Ok(())
    }

    #[test]
    fn append_num_nodes_and_shape_checks() -> Result<()> {
        let (graphs, labels) = two_classes()?;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
        let pats = PatternSampler::forests().sample_many(4, &mut rng);
        let clean = clean_features(&pats, &graphs, true)?;
        assert_eq!(clean.ncols(), 5);
        assert!(clean.column(4).iter().all(|&n| n == 30.0));
        let split = Split::holdout(graphs.len(), 0.2, 3)?;
        let data = EvalData {
            patterns: &pats,
            graphs: &graphs,
            labels: &labels,
            split: &split,
            clean: clean.view(),
        };
        let mut proto = Protocol::new(Downstream::RandomForest {
            trees: 5,
            min_split: 10,
        });
        proto.release.append_num_nodes = true;
        proto.noisy_test = true;
        let out = evaluate(&data, Some(Rho::new(0.1)?), &proto, &mut seeded_rng(4), 0)?;
        assert!(out.scores.roc_auc.is_some());
        // Mismatched clean matrix.
        let bad = clean_features(&pats, &graphs, false)?;
        assert!(
            evaluate(
                &EvalData {
                    patterns: &pats,
                    graphs: &graphs,
                    labels: &labels,
                    split: &split,
                    clean: bad.view()
                },
                None,
                &proto,
                &mut seeded_rng(4),
                0
            )
            .is_err()
        );
        assert!(Split::holdout(5, 1.0, 0).is_err());
        Ok(())
    }
}
