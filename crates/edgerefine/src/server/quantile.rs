//! Exact quantile bin edges over all pair similarities, without sorting them: a bucket histogram
//! locates each needed order statistic, and only the few buckets that hold one are examined.

/// Linear-interpolation quantile (numpy's default `linear` method) from two adjacent order
/// statistics `a = x[lo]`, `b = x[lo + 1]` and the fractional part `t` of `(P − 1)·q`, using
/// numpy's `_lerp` (`a + (b − a)·t`, or `b − (b − a)·(1 − t)` when `t ≥ 0.5`).
pub(crate) fn lerp(a: f64, b: f64, t: f64) -> f64 {
    let d = b - a;
    if t >= 0.5 {
        b - d * (1.0 - t)
    } else {
        a + d * t
    }
}

/// The order-statistic positions `(lo, t)` for quantile `q` over `count` values
/// (`virtual index = (count − 1)·q`, as numpy's `linear` method).
pub(crate) fn virtual_index(count: u64, q: f64) -> (u64, f64) {
    let h = (count - 1) as f64 * q;
    let lo = h.floor();
    (lo as u64, h - lo)
}

/// Drops edges whose difference to the preceding edge (in the original list) is at most 1e-8,
/// as scikit-learn's `KBinsDiscretizer` (`np.ediff1d(edges, to_begin=inf) > 1e-8`).
pub(crate) fn dedup_edges(edges: &[f64]) -> Vec<f64> {
    edges
        .iter()
        .enumerate()
        .filter(|&(i, &e)| i == 0 || e - edges[i - 1] > 1e-8)
        .map(|(_, &e)| e)
        .collect()
}

/// Bin of `value`: the number of inner edges `<= value` (`searchsorted(inner, v, side="right")`).
#[inline]
pub(crate) fn bin_of(inner: &[f64], value: f64) -> usize {
    inner.partition_point(|&e| e <= value)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// numpy.quantile(x, q) for sorted x, the slow way.
    fn numpy_quantile(sorted: &[f64], q: f64) -> f64 {
        let (lo, t) = virtual_index(sorted.len() as u64, q);
        let hi = (lo as usize + 1).min(sorted.len() - 1);
        lerp(sorted[lo as usize], sorted[hi], t)
    }

    #[test]
    fn quantiles_match_numpy_values() {
        // numpy.quantile([0, 1, 2, 3, 10], [0, .1, .25, .5, .9, 1]) = [0, .4, 1, 2, 7.2, 10]
        let x = [0.0, 1.0, 2.0, 3.0, 10.0];
        let want = [0.0, 0.4, 1.0, 2.0, 7.2, 10.0];
        for (q, w) in [0.0, 0.1, 0.25, 0.5, 0.9, 1.0].iter().zip(want) {
            assert!((numpy_quantile(&x, *q) - w).abs() < 1e-12, "q={q}");
        }
    }

    #[test]
    fn tiny_bins_are_removed_and_values_binned_right() {
        let e = dedup_edges(&[0.0, 0.0, 0.5, 0.5 + 1e-9, 1.0]);
        assert_eq!(e, vec![0.0, 0.5, 1.0]);
        let inner = &e[1..e.len() - 1];
        assert_eq!(bin_of(inner, 0.49), 0);
        assert_eq!(bin_of(inner, 0.5), 1, "a value equal to an edge goes up");
        assert_eq!(bin_of(inner, 1.0), 1);
    }
}
