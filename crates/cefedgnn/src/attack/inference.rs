//! What a bank cares about, inferred from the halo rows it receives: the **label** of a remote
//! node and whether two remote nodes are **linked**. Both attacks succeed on exact rows (the
//! rows are what the shared layer computes to classify the nodes, so they carry the label, and
//! linked nodes aggregate over each other, so their rows are alike); the released rows' noise
//! (σ₀) should push them towards their priors.
//!
//! # Example
//! ```
//! use cefedgnn::attack::{edge_attack, label_attack};
//! use cefedgnn::train::{FedTask, FedTrainConfig, Method, PartitionKind, simulate_observed};
//! use graph_core::generate::ContextualSbm;
//! use rand::SeedableRng;
//! let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
//! let ds = ContextualSbm { n: 150, classes: 2, p_in: 0.1, p_out: 0.01, dim: 8, mu: 2.0 }
//!     .sample(&mut rng)?;
//! let task = FedTask::from_node_dataset(&ds, 3, PartitionKind::Random, 0.5, 0.2, &mut rng)?;
//! let sigma0 = dp_core::params::NoiseMultiplier::ZERO;
//! let cfg = FedTrainConfig { rounds: 4, local_steps: 8, sigma0, ..FedTrainConfig::default() };
//! let (_, seen) = simulate_observed(&task, &cfg, Method::CeFedGnn, &mut |_| {})?;
//! let seen = seen.unwrap();
//! let l = label_attack(&task.labels, task.num_classes, &seen)?;
//! assert!(l.targets > 0 && (0.0..=1.0).contains(&l.accuracy));
//! let e = edge_attack(task.fed.graph(), &seen)?;
//! assert!(e.auc.is_nan() || (0.0..=1.0).contains(&e.auc));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use ndarray::{Array2, ArrayView1};
use serde::Serialize;

use super::released_own_rows;
use crate::error::{FedError, Result};
use crate::train::ClientObservation;

/// The label attack's scores on one client's halo rows.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LabelAttackReport {
    /// Remote (halo) nodes whose label is inferred.
    pub targets: usize,
    /// Accuracy of the nearest-class-centroid classifier fitted on the attacker's own rows.
    pub accuracy: f64,
    /// Its balanced accuracy (mean recall over the classes present among the targets).
    pub balanced_accuracy: f64,
    /// The prior: accuracy of always answering the attacker's most frequent own label.
    pub prior_accuracy: f64,
    /// The prior's balanced accuracy: 1 / (classes present among the targets).
    pub prior_balanced_accuracy: f64,
}

/// The edge attack's scores on the pairs of one client's halo nodes.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct EdgeAttackReport {
    /// Linked pairs of halo nodes (the attacker does not see these edges).
    pub linked_pairs: usize,
    /// Unlinked pairs scored against them (all of them, or a seeded sample of at most
    /// [`EDGE_NEGATIVES`]).
    pub unlinked_pairs: usize,
    /// ROC-AUC of the rows' cosine similarity for "linked" (0.5: the prior; NaN without a
    /// linked or an unlinked pair).
    pub auc: f64,
}

/// Unlinked pairs sampled for [`edge_attack`] at most.
pub const EDGE_NEGATIVES: usize = 20_000;

/// Infers the labels of the halo nodes: the attacker releases its own rows as the protocol
/// does (clipped, noised with its own seeded noise), takes the mean row of each of its own
/// classes, and answers for each received row the class of the nearest mean (L2). Scored
/// against `labels` (all nodes, by global id).
///
/// # Errors
/// [`FedError::InvalidParam`] when the client holds no halo rows or no own nodes, a node id
/// lies outside `labels`, or a label is not below `num_classes`.
///
/// # Complexity
/// O((n_own + targets·classes)·d) for hidden width d.
pub fn label_attack(
    labels: &[u32],
    num_classes: usize,
    seen: &ClientObservation,
) -> Result<LabelAttackReport> {
    let (n, t) = (seen.own_nodes.len(), seen.halo_nodes.len());
    if n == 0 || t == 0 || seen.own_hidden.nrows() != n {
        return Err(FedError::param(
            "observation",
            format!("{n} own nodes, {t} halo rows"),
            "the attack needs own nodes (with their rows) and halo rows",
        ));
    }
    let label = |v: u32| -> Result<usize> {
        let y = *labels
            .get(v as usize)
            .ok_or_else(|| FedError::param("node", v, "is not a node of the task"))?;
        if y as usize >= num_classes {
            return Err(FedError::param("label", y, "is not below num_classes"));
        }
        Ok(y as usize)
    };
    let own_y = seen
        .own_nodes
        .iter()
        .map(|&v| label(v))
        .collect::<Result<Vec<_>>>()?;
    let target_y = seen
        .halo_nodes
        .iter()
        .map(|&v| label(v))
        .collect::<Result<Vec<_>>>()?;
    let h = released_own_rows(seen)?;
    let d = h.ncols();
    let mut sums = Array2::<f64>::zeros((num_classes, d));
    let mut counts = vec![0usize; num_classes];
    for (row, &y) in h.rows().into_iter().zip(&own_y) {
        sums.row_mut(y).scaled_add(1.0, &row);
        counts[y] += 1;
    }
    let majority = (0..num_classes)
        .max_by_key(|&c| (counts[c], std::cmp::Reverse(c)))
        .expect("num_classes > 0: own labels exist");
    let centroids: Vec<(usize, ndarray::Array1<f64>)> = (0..num_classes)
        .filter(|&c| counts[c] > 0)
        .map(|c| (c, sums.row(c).mapv(|v| v / counts[c] as f64)))
        .collect();
    let q = seen.halo_rows.mapv(f64::from);
    let predict = |row: ArrayView1<'_, f64>| -> usize {
        centroids
            .iter()
            .map(|(c, m)| {
                let dist: f64 = row.iter().zip(m).map(|(a, b)| (a - b) * (a - b)).sum();
                (dist, *c)
            })
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
            .map_or(majority, |(_, c)| c)
    };
    let pred: Vec<usize> = q.rows().into_iter().map(predict).collect();
    let (accuracy, balanced_accuracy) = scores(&pred, &target_y, num_classes);
    let (prior_accuracy, prior_balanced_accuracy) =
        scores(&vec![majority; t], &target_y, num_classes);
    Ok(LabelAttackReport {
        targets: t,
        accuracy,
        balanced_accuracy,
        prior_accuracy,
        prior_balanced_accuracy,
    })
}

/// Accuracy and balanced accuracy (mean recall over the classes present in `truth`).
fn scores(pred: &[usize], truth: &[usize], classes: usize) -> (f64, f64) {
    let mut hit = vec![0usize; classes];
    let mut total = vec![0usize; classes];
    for (&p, &y) in pred.iter().zip(truth) {
        total[y] += 1;
        hit[y] += usize::from(p == y);
    }
    let n: usize = total.iter().sum();
    let present: Vec<usize> = (0..classes).filter(|&c| total[c] > 0).collect();
    let acc = hit.iter().sum::<usize>() as f64 / n.max(1) as f64;
    let bal = present
        .iter()
        .map(|&c| hit[c] as f64 / total[c] as f64)
        .sum::<f64>()
        / present.len().max(1) as f64;
    (acc, bal)
}

/// Infers which pairs of halo nodes are linked: every pair scored by the cosine similarity of
/// the two received rows, against the edges of `graph` (which the attacker does not see); the
/// ROC-AUC over the linked pairs and the unlinked ones (all, or a seeded sample of
/// [`EDGE_NEGATIVES`]).
///
/// # Errors
/// [`FedError::InvalidParam`] when the client holds fewer than 2 halo rows or a halo id lies
/// outside `graph`.
///
/// # Complexity
/// O(linked·log deg + sampled pairs·d + P log P) for P scored pairs.
pub fn edge_attack(
    graph: &graph_core::Graph,
    seen: &ClientObservation,
) -> Result<EdgeAttackReport> {
    let t = seen.halo_nodes.len();
    if t < 2 {
        return Err(FedError::param(
            "observation",
            format!("{t} halo rows"),
            "the edge attack needs two halo rows",
        ));
    }
    if let Some(&v) = seen
        .halo_nodes
        .iter()
        .find(|&&v| v as usize >= graph.num_nodes())
    {
        return Err(FedError::param(
            "halo node",
            v,
            "is not a node of the graph",
        ));
    }
    let rows = seen.halo_rows.mapv(f64::from);
    let norms: Vec<f64> = rows
        .rows()
        .into_iter()
        .map(|r| r.dot(&r).sqrt().max(1e-300))
        .collect();
    let cosine = |i: usize, j: usize| rows.row(i).dot(&rows.row(j)) / (norms[i] * norms[j]);
    let index: std::collections::HashMap<u32, usize> = seen
        .halo_nodes
        .iter()
        .enumerate()
        .map(|(i, &v)| (v, i))
        .collect();
    let mut linked: Vec<(usize, usize)> = Vec::new();
    for (i, &v) in seen.halo_nodes.iter().enumerate() {
        for &w in graph.neighbors(v) {
            if let Some(&j) = index.get(&w)
                && i < j
            {
                linked.push((i, j));
            }
        }
    }
    linked.sort_unstable();
    linked.dedup();
    let is_linked = |i: usize, j: usize| linked.binary_search(&(i.min(j), i.max(j))).is_ok();
    let all_pairs = t * (t - 1) / 2;
    let mut unlinked: Vec<(usize, usize)> = Vec::new();
    if all_pairs - linked.len() <= EDGE_NEGATIVES {
        for i in 0..t {
            for j in i + 1..t {
                if !is_linked(i, j) {
                    unlinked.push((i, j));
                }
            }
        }
    } else {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(u64::from(seen.client));
        while unlinked.len() < EDGE_NEGATIVES {
            let (i, j) = (rng.random_range(0..t), rng.random_range(0..t));
            if i != j && !is_linked(i, j) {
                unlinked.push((i.min(j), i.max(j)));
            }
        }
    }
    let pos: Vec<f64> = linked.iter().map(|&(i, j)| cosine(i, j)).collect();
    let neg: Vec<f64> = unlinked.iter().map(|&(i, j)| cosine(i, j)).collect();
    Ok(EdgeAttackReport {
        linked_pairs: pos.len(),
        unlinked_pairs: neg.len(),
        auc: auc(&pos, &neg),
    })
}

/// ROC-AUC of scores `pos` against `neg` (Mann–Whitney, ties counted half); NaN when either
/// is empty.
fn auc(pos: &[f64], neg: &[f64]) -> f64 {
    if pos.is_empty() || neg.is_empty() {
        return f64::NAN;
    }
    let mut all: Vec<(f64, bool)> = pos
        .iter()
        .map(|&s| (s, true))
        .chain(neg.iter().map(|&s| (s, false)))
        .collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Average ranks over ties.
    let mut rank_sum_pos = 0.0;
    let mut k = 0;
    while k < all.len() {
        let mut e = k;
        while e + 1 < all.len() && all[e + 1].0 == all[k].0 {
            e += 1;
        }
        let rank = (k + e) as f64 / 2.0 + 1.0;
        rank_sum_pos += rank * all[k..=e].iter().filter(|x| x.1).count() as f64;
        k = e + 1;
    }
    let (p, n) = (pos.len() as f64, neg.len() as f64);
    (rank_sum_pos - p * (p + 1.0) / 2.0) / (p * n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    fn observation(
        own: &[u32],
        own_rows: Array2<f32>,
        halo: &[u32],
        halo_rows: Array2<f32>,
    ) -> ClientObservation {
        ClientObservation {
            client: 0,
            own_nodes: own.to_vec(),
            own_features: Array2::zeros((own.len(), 1)),
            own_hidden: own_rows,
            halo_nodes: halo.to_vec(),
            halo_rows,
            clip: f64::INFINITY,
            sigma: dp_core::params::NoiseScale::ZERO,
        }
    }

    /// Rows that sit at their class's centre plus small noise: exact rows give the label away,
    /// large noise on the received rows takes it back to the prior.
    #[test]
    fn the_label_attack_reads_labels_off_exact_rows_and_noise_stops_it() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
        let (n, d, classes) = (400usize, 6usize, 3usize);
        let labels: Vec<u32> = (0..n as u32)
            .map(|i| if i % 5 == 0 { 1 } else { i % 3 })
            .collect();
        let centre = Array2::from_shape_fn((classes, d), |_| rng.random_range(-1.0f32..1.0));
        let rows = Array2::from_shape_fn((n, d), |(i, j)| {
            centre[[labels[i] as usize, j]] + 0.1 * rng.random_range(-1.0f32..1.0)
        });
        let own: Vec<u32> = (0..300).collect();
        let halo: Vec<u32> = (300..400).collect();
        let pick = |ids: &[u32]| {
            rows.select(
                ndarray::Axis(0),
                &ids.iter().map(|&v| v as usize).collect::<Vec<_>>(),
            )
        };
        let exact = label_attack(
            &labels,
            classes,
            &observation(&own, pick(&own), &halo, pick(&halo)),
        )
        .unwrap();
        assert_eq!(exact.targets, 100);
        assert!(exact.accuracy > 0.99, "{exact:?}");
        assert!(exact.prior_accuracy < 0.6, "{exact:?}");
        assert!((exact.prior_balanced_accuracy - 1.0 / 3.0).abs() < 1e-12);
        let noisy_rows = pick(&halo).mapv(|v| v + 30.0 * rng.random_range(-1.0f32..1.0));
        let noisy = label_attack(
            &labels,
            classes,
            &observation(&own, pick(&own), &halo, noisy_rows),
        )
        .unwrap();
        assert!(noisy.balanced_accuracy < 0.55, "{noisy:?}");
        // Bad input: a label out of range, an unknown node, no halo rows.
        assert!(
            label_attack(
                &labels,
                2,
                &observation(&own, pick(&own), &halo, pick(&halo))
            )
            .is_err()
        );
        assert!(
            label_attack(
                &labels,
                classes,
                &observation(&[999], Array2::zeros((1, d)), &halo, pick(&halo))
            )
            .is_err()
        );
        assert!(
            label_attack(
                &labels,
                classes,
                &observation(&own, pick(&own), &[], Array2::zeros((0, d)))
            )
            .is_err()
        );
    }

    /// Two communities, linked inside: rows alike inside a community give AUC near 1; rows
    /// that are pure noise give AUC near 0.5.
    #[test]
    fn the_edge_attack_scores_linked_pairs_above_unlinked_ones() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        let n = 60u32;
        let mut b = graph_core::GraphBuilder::new(n as usize).unwrap();
        for u in 0..n {
            for v in u + 1..n {
                if u % 2 == v % 2 && rng.random_bool(0.3) {
                    b.add_edge(u, v).unwrap();
                }
            }
        }
        let g = b.build().unwrap();
        let halo: Vec<u32> = (0..n).collect();
        let alike = Array2::from_shape_fn((n as usize, 4), |(i, j)| {
            (if (i % 2 == 0) == (j < 2) { 1.0 } else { 0.0 })
                + 0.05 * rng.random_range(-1.0f32..1.0)
        });
        let r = edge_attack(&g, &observation(&[0], Array2::zeros((1, 4)), &halo, alike)).unwrap();
        assert!(
            r.linked_pairs > 50
                && r.unlinked_pairs == n as usize * (n as usize - 1) / 2 - r.linked_pairs
        );
        assert!(r.auc > 0.7, "{r:?}");
        let noise = Array2::from_shape_fn((n as usize, 4), |_| rng.random_range(-1.0f32..1.0));
        let r = edge_attack(&g, &observation(&[0], Array2::zeros((1, 4)), &halo, noise)).unwrap();
        assert!((r.auc - 0.5).abs() < 0.1, "{r:?}");
        assert!(
            edge_attack(
                &g,
                &observation(&[0], Array2::zeros((1, 4)), &[1], Array2::zeros((1, 4)))
            )
            .is_err()
        );
    }

    #[test]
    fn auc_counts_ties_half() {
        assert_eq!(auc(&[1.0, 2.0], &[0.0]), 1.0);
        assert_eq!(auc(&[0.0], &[1.0, 2.0]), 0.0);
        assert_eq!(auc(&[1.0], &[1.0]), 0.5);
        assert!(auc(&[], &[1.0]).is_nan());
    }
}
