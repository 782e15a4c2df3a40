//! Evaluation metrics: accuracy, macro-F1, binary F1, ROC-AUC (ties by average ranks), RMSE.
//!
//! All functions are plain `f64` computations on slices, independent of Burn, and validate their
//! input: mismatched lengths and empty inputs are [`Error`]s, never panics or NaN.

use crate::error::{Error, Result};

fn check_len(what: &'static str, expected: usize, got: usize) -> Result<()> {
    if expected != got {
        return Err(Error::Shape {
            what,
            expected,
            got,
        });
    }
    if got == 0 {
        return Err(Error::Empty(what));
    }
    Ok(())
}

/// Share of positions where `pred == truth`.
///
/// # Errors
/// [`Error::Shape`] for different lengths, [`Error::Empty`] for empty input.
///
/// # Example
/// ```
/// let acc = gnn::metrics::accuracy(&[0, 1, 2, 2], &[0, 1, 1, 2])?;
/// assert!((acc - 0.75).abs() < 1e-12);
/// # Ok::<(), gnn::Error>(())
/// ```
pub fn accuracy(pred: &[u32], truth: &[u32]) -> Result<f64> {
    check_len("predictions vs. labels", truth.len(), pred.len())?;
    let hits = pred.iter().zip(truth).filter(|(p, t)| p == t).count();
    Ok(hits as f64 / truth.len() as f64)
}

/// Per-class `(tp, fp, fn)` counts.
fn confusion(pred: &[u32], truth: &[u32], num_classes: usize) -> Result<Vec<(u64, u64, u64)>> {
    check_len("predictions vs. labels", truth.len(), pred.len())?;
    let mut c = vec![(0u64, 0u64, 0u64); num_classes];
    for (i, (&p, &t)) in pred.iter().zip(truth).enumerate() {
        for (label, index) in [(p, i), (t, i)] {
            if label as usize >= num_classes {
                return Err(Error::LabelOutOfRange {
                    index,
                    label,
                    num_classes,
                });
            }
        }
        if p == t {
            c[p as usize].0 += 1;
        } else {
            c[p as usize].1 += 1;
            c[t as usize].2 += 1;
        }
    }
    Ok(c)
}

fn f1(tp: u64, fp: u64, fn_: u64) -> f64 {
    let denom = 2 * tp + fp + fn_;
    if denom == 0 {
        0.0
    } else {
        2.0 * tp as f64 / denom as f64
    }
}

/// Macro-averaged F1 over `num_classes` classes (scikit-learn's `f1_score(average="macro")` with
/// `labels=range(num_classes)` and `zero_division=0`: a class never predicted nor present
/// scores 0).
///
/// # Errors
/// [`Error::Shape`] / [`Error::Empty`] as [`accuracy`]; [`Error::LabelOutOfRange`] for a label
/// `>= num_classes`.
///
/// # Example
/// ```
/// // class 0: tp 1, fp 0, fn 1 → F1 2/3; class 1: tp 1, fp 1, fn 0 → F1 2/3
/// let f = gnn::metrics::macro_f1(&[0, 1, 1], &[0, 1, 0], 2)?;
/// assert!((f - 2.0 / 3.0).abs() < 1e-12);
/// # Ok::<(), gnn::Error>(())
/// ```
pub fn macro_f1(pred: &[u32], truth: &[u32], num_classes: usize) -> Result<f64> {
    if num_classes == 0 {
        return Err(Error::Empty("class set"));
    }
    let c = confusion(pred, truth, num_classes)?;
    Ok(c.iter().map(|&(tp, fp, fn_)| f1(tp, fp, fn_)).sum::<f64>() / num_classes as f64)
}

/// Macro-averaged F1 over the classes that occur in `truth` or `pred` only: scikit-learn's
/// `f1_score(truth, pred, average="macro")` without `labels`. [`macro_f1`] averages over all
/// `num_classes`, so a class absent from a client's test nodes and never predicted there counts
/// as F1 0; this reading leaves it out.
///
/// # Errors
/// As [`macro_f1`].
///
/// # Example
/// ```
/// // Classes 0 and 1 occur (F1 2/3 each), class 2 does not: 2/3 here, 4/9 by macro_f1.
/// let f = gnn::metrics::macro_f1_present(&[0, 1, 1], &[0, 1, 0], 3)?;
/// assert!((f - 2.0 / 3.0).abs() < 1e-12);
/// assert!((gnn::metrics::macro_f1(&[0, 1, 1], &[0, 1, 0], 3)? - 4.0 / 9.0).abs() < 1e-12);
/// # Ok::<(), gnn::Error>(())
/// ```
pub fn macro_f1_present(pred: &[u32], truth: &[u32], num_classes: usize) -> Result<f64> {
    if num_classes == 0 {
        return Err(Error::Empty("class set"));
    }
    let c = confusion(pred, truth, num_classes)?;
    let present: Vec<f64> = c
        .iter()
        .filter(|&&(tp, fp, fn_)| tp + fp + fn_ > 0)
        .map(|&(tp, fp, fn_)| f1(tp, fp, fn_))
        .collect();
    Ok(present.iter().sum::<f64>() / present.len().max(1) as f64)
}

/// F1 score of the positive class `1` for binary labels in `{0, 1}` (0 when there are no true
/// positives).
///
/// # Errors
/// As [`macro_f1`] with two classes.
///
/// # Example
/// ```
/// // tp 2, fp 1, fn 1 → 4 / 6
/// let f = gnn::metrics::binary_f1(&[1, 1, 1, 0, 0], &[1, 1, 0, 1, 0])?;
/// assert!((f - 4.0 / 6.0).abs() < 1e-12);
/// # Ok::<(), gnn::Error>(())
/// ```
pub fn binary_f1(pred: &[u32], truth: &[u32]) -> Result<f64> {
    let c = confusion(pred, truth, 2)?;
    let (tp, fp, fn_) = c[1];
    Ok(f1(tp, fp, fn_))
}

/// Area under the ROC curve of `scores` for binary labels in `{0, 1}`, by the Mann–Whitney
/// statistic with average ranks for ties (a tied positive/negative pair counts ½).
///
/// # Errors
/// [`Error::Shape`] / [`Error::Empty`] for bad lengths, [`Error::NonFinite`] for NaN scores,
/// [`Error::LabelOutOfRange`] for labels other than 0/1, [`Error::Empty`] when one class is
/// absent (AUC is undefined).
///
/// # Complexity
/// O(n log n).
///
/// # Example
/// ```
/// // pairs (pos, neg): (0.8 > 0.3) 1, (0.8 > 0.5) 1, (0.5 = 0.5) ½, (0.5 > 0.3) 1 → 3.5 / 4
/// let auc = gnn::metrics::roc_auc(&[0.8, 0.5, 0.5, 0.3], &[1, 1, 0, 0])?;
/// assert!((auc - 0.875).abs() < 1e-12);
/// # Ok::<(), gnn::Error>(())
/// ```
pub fn roc_auc(scores: &[f64], truth: &[u32]) -> Result<f64> {
    check_len("scores vs. labels", truth.len(), scores.len())?;
    if let Some(index) = scores.iter().position(|s| !s.is_finite()) {
        return Err(Error::NonFinite {
            what: "scores",
            index,
        });
    }
    if let Some(index) = truth.iter().position(|&t| t > 1) {
        return Err(Error::LabelOutOfRange {
            index,
            label: truth[index],
            num_classes: 2,
        });
    }
    let n_pos = truth.iter().filter(|&&t| t == 1).count();
    let n_neg = truth.len() - n_pos;
    if n_pos == 0 || n_neg == 0 {
        return Err(Error::Empty(
            "positive or negative class (ROC-AUC undefined)",
        ));
    }
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[a].total_cmp(&scores[b]));
    // Sum of the (1-based, tie-averaged) ranks of the positives.
    let mut rank_sum = 0.0;
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && scores[order[j + 1]] == scores[order[i]] {
            j += 1;
        }
        let avg_rank = (i + j) as f64 / 2.0 + 1.0;
        let pos_in_group = order[i..=j].iter().filter(|&&k| truth[k] == 1).count();
        rank_sum += avg_rank * pos_in_group as f64;
        i = j + 1;
    }
    let (p, q) = (n_pos as f64, n_neg as f64);
    Ok((rank_sum - p * (p + 1.0) / 2.0) / (p * q))
}

/// Root mean squared error.
///
/// # Errors
/// [`Error::Shape`] / [`Error::Empty`] for bad lengths.
///
/// # Example
/// ```
/// let e = gnn::metrics::rmse(&[1.0, 2.0, 3.0], &[1.0, 0.0, 5.0])?;
/// assert!((e - (8.0f64 / 3.0).sqrt()).abs() < 1e-12);
/// # Ok::<(), gnn::Error>(())
/// ```
pub fn rmse(pred: &[f64], truth: &[f64]) -> Result<f64> {
    check_len("predictions vs. targets", truth.len(), pred.len())?;
    let se: f64 = pred.iter().zip(truth).map(|(p, t)| (p - t) * (p - t)).sum();
    Ok((se / truth.len() as f64).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accuracy_by_hand() {
        assert_eq!(accuracy(&[1, 1, 0, 0, 2], &[1, 0, 0, 0, 1]).unwrap(), 0.6);
        assert!(matches!(accuracy(&[1], &[1, 2]), Err(Error::Shape { .. })));
        assert!(matches!(accuracy(&[], &[]), Err(Error::Empty(_))));
    }

    #[test]
    fn macro_f1_by_hand() {
        // truth: 0 0 1 1 2 2; pred: 0 1 1 1 0 2
        // class 0: tp 1, fp 1 (pos 4), fn 1 (pos 1) → 2/4 = 0.5
        // class 1: tp 2, fp 1 (pos 1), fn 0 → 4/5 = 0.8
        // class 2: tp 1, fp 0, fn 1 (pos 4) → 2/3
        let f = macro_f1(&[0, 1, 1, 1, 0, 2], &[0, 0, 1, 1, 2, 2], 3).unwrap();
        assert!((f - (0.5 + 0.8 + 2.0 / 3.0) / 3.0).abs() < 1e-12);
        // A class never seen nor predicted counts as 0 (sklearn labels=..., zero_division=0).
        let f4 = macro_f1(&[0, 1, 1, 1, 0, 2], &[0, 0, 1, 1, 2, 2], 4).unwrap();
        assert!((f4 - (0.5 + 0.8 + 2.0 / 3.0) / 4.0).abs() < 1e-12);
        assert!(matches!(
            macro_f1(&[0, 3], &[0, 1], 3),
            Err(Error::LabelOutOfRange { label: 3, .. })
        ));
    }

    #[test]
    fn binary_f1_by_hand() {
        assert_eq!(binary_f1(&[0, 0, 0], &[1, 0, 1]).unwrap(), 0.0);
        assert_eq!(binary_f1(&[1, 0, 1], &[1, 0, 1]).unwrap(), 1.0);
        // tp 1, fp 2, fn 1 → 2 / 5
        let f = binary_f1(&[1, 1, 1, 0], &[1, 0, 0, 1]).unwrap();
        assert!((f - 0.4).abs() < 1e-12);
    }

    #[test]
    fn roc_auc_by_hand() {
        // Perfect and inverted rankings.
        assert_eq!(roc_auc(&[0.1, 0.2, 0.8, 0.9], &[0, 0, 1, 1]).unwrap(), 1.0);
        assert_eq!(roc_auc(&[0.9, 0.8, 0.2, 0.1], &[0, 0, 1, 1]).unwrap(), 0.0);
        // All tied: 0.5.
        assert_eq!(roc_auc(&[0.3; 5], &[0, 1, 0, 1, 1]).unwrap(), 0.5);
        // pos scores 0.4, 0.35, 0.8; neg 0.1, 0.4, 0.35 (sklearn example variant).
        // pairs: 0.4 vs (0.1 >, 0.4 =, 0.35 >) = 2.5; 0.35 vs (>, <, =) = 1.5; 0.8 vs all = 3 → 7 / 9
        let auc = roc_auc(&[0.4, 0.35, 0.8, 0.1, 0.4, 0.35], &[1, 1, 1, 0, 0, 0]).unwrap();
        assert!((auc - 7.0 / 9.0).abs() < 1e-12);
        assert!(matches!(
            roc_auc(&[0.1, 0.2], &[1, 1]),
            Err(Error::Empty(_))
        ));
        assert!(matches!(
            roc_auc(&[f64::NAN, 0.2], &[0, 1]),
            Err(Error::NonFinite { index: 0, .. })
        ));
        assert!(matches!(
            roc_auc(&[0.1, 0.2], &[0, 2]),
            Err(Error::LabelOutOfRange { .. })
        ));
    }

    #[test]
    fn rmse_by_hand() {
        assert_eq!(rmse(&[3.0, 4.0], &[0.0, 0.0]).unwrap(), (12.5f64).sqrt());
    }
}
