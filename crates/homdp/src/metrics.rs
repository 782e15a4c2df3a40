//! Evaluation metrics of the downstream models: ROC-AUC (ties by average ranks), accuracy, RMSE.

use crate::error::{Result, invalid};

/// Area under the ROC curve of `scores` for binary `labels` (`true` = positive), i.e. the
/// Mann–Whitney statistic `P(score⁺ > score⁻) + ½·P(score⁺ = score⁻)`, computed from average
/// ranks so that tied scores count one half.
///
/// # Errors
/// [`crate::HomdpError::InvalidParam`] when the lengths differ, a score is NaN, or one class is
/// absent (the AUC is then undefined).
///
/// # Complexity
/// O(n log n).
///
/// # Example
/// ```
/// let auc = homdp::metrics::roc_auc(&[0.1, 0.4, 0.35, 0.8], &[false, false, true, true])?;
/// assert!((auc - 0.75).abs() < 1e-12);
/// // All scores tied: 0.5.
/// assert_eq!(homdp::metrics::roc_auc(&[1.0; 4], &[false, true, true, false])?, 0.5);
/// # Ok::<(), homdp::HomdpError>(())
/// ```
pub fn roc_auc(scores: &[f64], labels: &[bool]) -> Result<f64> {
    if scores.len() != labels.len() {
        return invalid(
            "labels",
            labels.len() as f64,
            "must have one label per score",
        );
    }
    if let Some(&s) = scores.iter().find(|s| s.is_nan()) {
        return invalid("scores", s, "scores must not be NaN");
    }
    let pos = labels.iter().filter(|&&l| l).count();
    let neg = labels.len() - pos;
    if pos == 0 || neg == 0 {
        return invalid("labels", pos as f64, "ROC-AUC needs both classes");
    }
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[a].total_cmp(&scores[b]));
    // Sum of the (1-based, tie-averaged) ranks of the positives.
    let mut rank_sum = 0.0;
    let mut i = 0;
    while i < order.len() {
        let mut j = i + 1;
        while j < order.len() && scores[order[j]] == scores[order[i]] {
            j += 1;
        }
        let avg_rank = (i + 1 + j) as f64 / 2.0;
        rank_sum += avg_rank * order[i..j].iter().filter(|&&k| labels[k]).count() as f64;
        i = j;
    }
    let (p, n) = (pos as f64, neg as f64);
    Ok((rank_sum - p * (p + 1.0) / 2.0) / (p * n))
}

/// Share of equal entries.
///
/// # Errors
/// [`crate::HomdpError::InvalidParam`] for different lengths or empty input.
///
/// # Example
/// ```
/// assert_eq!(homdp::metrics::accuracy(&[0, 1, 2, 1], &[0, 1, 1, 1])?, 0.75);
/// # Ok::<(), homdp::HomdpError>(())
/// ```
pub fn accuracy(predicted: &[usize], truth: &[usize]) -> Result<f64> {
    if predicted.len() != truth.len() || truth.is_empty() {
        return invalid(
            "truth",
            truth.len() as f64,
            "needs one non-empty label per prediction",
        );
    }
    let hits = predicted.iter().zip(truth).filter(|(p, t)| p == t).count();
    Ok(hits as f64 / truth.len() as f64)
}

/// Root mean squared error.
///
/// # Errors
/// [`crate::HomdpError::InvalidParam`] for different lengths or empty input.
///
/// # Example
/// ```
/// let r = homdp::metrics::rmse(&[1.0, 2.0], &[1.0, 4.0])?;
/// assert!((r - 2f64.sqrt()).abs() < 1e-15);
/// # Ok::<(), homdp::HomdpError>(())
/// ```
pub fn rmse(predicted: &[f64], truth: &[f64]) -> Result<f64> {
    if predicted.len() != truth.len() || truth.is_empty() {
        return invalid(
            "truth",
            truth.len() as f64,
            "needs one non-empty value per prediction",
        );
    }
    let sq: f64 = predicted
        .iter()
        .zip(truth)
        .map(|(p, t)| (p - t) * (p - t))
        .sum();
    Ok((sq / truth.len() as f64).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    /// AUC by counting all positive/negative pairs.
    fn auc_pairs(s: &[f64], l: &[bool]) -> f64 {
        let (mut num, mut den) = (0.0, 0.0);
        for i in 0..s.len() {
            for j in 0..s.len() {
                if l[i] && !l[j] {
                    den += 1.0;
                    num += if s[i] > s[j] {
                        1.0
                    } else if s[i] == s[j] {
                        0.5
                    } else {
                        0.0
                    };
                }
            }
        }
        num / den
    }

    #[test]
    fn auc_matches_pair_counting_with_ties() -> Result<()> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for _ in 0..50 {
            let n = rng.random_range(2..40);
            // Few distinct values: many ties.
            let s: Vec<f64> = (0..n)
                .map(|_| f64::from(rng.random_range(0..5u8)))
                .collect();
            let mut l: Vec<bool> = (0..n).map(|_| rng.random_bool(0.3)).collect();
            l[0] = true;
            l[1] = false;
            assert!((roc_auc(&s, &l)? - auc_pairs(&s, &l)).abs() < 1e-12);
        }
        assert_eq!(roc_auc(&[0.0, 1.0], &[false, true])?, 1.0);
        assert_eq!(roc_auc(&[1.0, 0.0], &[false, true])?, 0.0);
        Ok(())
    }

    #[test]
    fn bad_input_is_an_error() {
        assert!(roc_auc(&[0.1, 0.2], &[true, true]).is_err());
        assert!(roc_auc(&[f64::NAN, 0.2], &[true, false]).is_err());
        assert!(roc_auc(&[0.1], &[true, false]).is_err());
        assert!(accuracy(&[], &[]).is_err());
        assert!(rmse(&[1.0], &[1.0, 2.0]).is_err());
    }
}
