//! The artifact's calibrations of a per-pair score into a link probability, on the exact
//! grouped scores: every calibration is a function of the score alone, so it is fitted once per
//! distinct score from `(pairs, noisy edges)` counts instead of once per pair.

use rand_distr::{Binomial, Distribution};

use super::special::{digamma, ln_beta, trigamma};
use crate::error::{EdgeRefineError, Result};
use crate::server::quantile::{bin_of, dedup_edges, lerp, virtual_index};

/// The distinct scores of all pairs in ascending order, with per score the number of pairs and
/// of noisy edges among them.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Grouped {
    pub(crate) values: Vec<f64>,
    pub(crate) pairs: Vec<u64>,
    pub(crate) edges: Vec<u64>,
}

impl Grouped {
    /// All pairs.
    pub(crate) fn total(&self) -> u64 {
        self.pairs.iter().sum()
    }

    /// All noisy edges.
    fn total_edges(&self) -> u64 {
        self.edges.iter().sum()
    }

    /// Whether both labels occur (`len(np.unique(y)) ≥ 2`).
    fn both_labels(&self) -> bool {
        let e = self.total_edges();
        e > 0 && e < self.total()
    }

    /// Whether every score is 0 (`np.all(X == 0)`).
    pub(crate) fn all_zero(&self) -> bool {
        self.values.iter().all(|&v| v == 0.0)
    }

    /// The `r`-th smallest score (0-based) over all pairs.
    fn order_statistic(&self, r: u64) -> f64 {
        let mut seen = 0;
        for (v, &c) in self.values.iter().zip(&self.pairs) {
            seen += c;
            if r < seen {
                return *v;
            }
        }
        *self.values.last().expect("at least one pair")
    }
}

/// `J / (max J + 1e-10)`, clipped to [0, 1] (`method="simple"`).
pub(crate) fn simple(g: &Grouped) -> Vec<f64> {
    let max = g
        .values
        .iter()
        .copied()
        .filter(|&v| v > 0.0)
        .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))))
        .unwrap_or(1.0);
    g.values
        .iter()
        .map(|&v| (v / (max + 1e-10)).clamp(0.0, 1.0))
        .collect()
}

/// Isotonic regression of the noisy-edge indicator on the score (`method="isotonic"`:
/// scikit-learn's `IsotonicRegression(y_min=0, y_max=1)`, whose fit first merges equal scores
/// into their weighted mean): the pool-adjacent-violators algorithm as scikit-learn's
/// `_inplace_contiguous_isotonic_regression`. All zeros when only one label occurs.
pub(crate) fn isotonic(g: &Grouped) -> Vec<f64> {
    if !g.both_labels() {
        return vec![0.0; g.values.len()];
    }
    let mut y: Vec<f64> = g
        .edges
        .iter()
        .zip(&g.pairs)
        .map(|(&e, &p)| e as f64 / p as f64)
        .collect();
    let mut w: Vec<f64> = g.pairs.iter().map(|&p| p as f64).collect();
    pav(&mut y, &mut w);
    y.iter().map(|v| v.clamp(0.0, 1.0)).collect()
}

/// scikit-learn's in-place pool-adjacent-violators (increasing), same arithmetic order.
fn pav(y: &mut [f64], w: &mut [f64]) {
    let n = y.len();
    // If [i..=j] is an active block, target[i] = j and target[j] = i.
    let mut target: Vec<usize> = (0..n).collect();
    let mut i = 0;
    while i < n {
        let mut k = target[i] + 1;
        if k == n {
            break;
        }
        if y[i] < y[k] {
            i = k;
            continue;
        }
        let mut sum_wy = w[i] * y[i];
        let mut sum_w = w[i];
        loop {
            let prev_y = y[k];
            sum_wy += w[k] * y[k];
            sum_w += w[k];
            k = target[k] + 1;
            if k == n || prev_y < y[k] {
                y[i] = sum_wy / sum_w;
                w[i] = sum_w;
                target[i] = k - 1;
                target[k - 1] = i;
                if i > 0 {
                    i = target[i - 1];
                }
                break;
            }
        }
    }
    let mut i = 0;
    while i < n {
        let k = target[i] + 1;
        let v = y[i];
        y[i + 1..k].iter_mut().for_each(|x| *x = v);
        i = k;
    }
}

/// The fitted parameters of [`beta`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BetaFit {
    pub(crate) pos: (f64, f64),
    pub(crate) neg: (f64, f64),
    pub(crate) prior: f64,
}

/// Scores are clipped to `[CLIP, 1 − CLIP]` before the beta and temperature fits.
const CLIP: f64 = 1e-6;

/// Posterior of a noisy edge under two beta densities fitted by maximum likelihood to the
/// scores of the noisy edges and non-edges of a random 70 % training split (`method="beta"`:
/// scipy's `beta.fit(floc=0, fscale=1)`), with the split's edge rate as prior. The split draws
/// each pair into training with probability 0.7 from `rng` (the artifact: scikit-learn's
/// `train_test_split(test_size=0.3)`, unseeded); drawn per score group as two binomials, which is
/// the same distribution.
///
/// # Errors
/// [`EdgeRefineError::InvalidParam`] when a class of the split is empty or its scores are all
/// equal (no maximum-likelihood fit exists; scipy raises too).
pub(crate) fn beta<R: rand::Rng>(g: &Grouped, rng: &mut R) -> Result<(Vec<f64>, Option<BetaFit>)> {
    if !g.both_labels() {
        return Ok((vec![0.0; g.values.len()], None));
    }
    let mut pos = Vec::with_capacity(g.values.len());
    let mut neg = Vec::with_capacity(g.values.len());
    let mut draw = |n: u64| -> u64 { Binomial::new(n, 0.7).map_or(0, |b| b.sample(rng)) };
    for ((&v, &p), &e) in g.values.iter().zip(&g.pairs).zip(&g.edges) {
        let x = v.clamp(CLIP, 1.0 - CLIP);
        pos.push((x, draw(e)));
        neg.push((x, draw(p - e)));
    }
    let (np_, nn): (u64, u64) = (pos.iter().map(|x| x.1).sum(), neg.iter().map(|x| x.1).sum());
    let fit_pos = beta_mle(&pos)?;
    let fit_neg = beta_mle(&neg)?;
    let prior = np_ as f64 / (np_ + nn) as f64;
    let fit = BetaFit {
        pos: fit_pos,
        neg: fit_neg,
        prior,
    };
    let l = g
        .values
        .iter()
        .map(|&v| {
            let x = v.clamp(CLIP, 1.0 - CLIP);
            let pp = beta_pdf(x, fit_pos) * prior;
            let pn = beta_pdf(x, fit_neg) * (1.0 - prior);
            pp / (pp + pn + 1e-10)
        })
        .collect();
    Ok((l, Some(fit)))
}

/// The beta density with shape `(a, b)` at `x ∈ (0, 1)`.
fn beta_pdf(x: f64, (a, b): (f64, f64)) -> f64 {
    ((a - 1.0) * x.ln() + (b - 1.0) * (-x).ln_1p() - ln_beta(a, b)).exp()
}

/// Maximum-likelihood beta shapes of weighted samples `(x, count)` in (0, 1): the root of
/// `ψ(a) − ψ(a+b) = mean ln x`, `ψ(b) − ψ(a+b) = mean ln(1−x)` (scipy's `_beta_mle_ab`) by
/// Newton's method from the method-of-moments start, to 1e-12 relative.
fn beta_mle(samples: &[(f64, u64)]) -> Result<(f64, f64)> {
    let n: f64 = samples.iter().map(|s| s.1 as f64).sum();
    let invalid = |reason| EdgeRefineError::InvalidParam {
        name: "beta calibration sample",
        value: n,
        reason,
    };
    if n < 2.0 {
        return Err(invalid(
            "a class of the training split has fewer than 2 pairs",
        ));
    }
    let mean = samples.iter().map(|s| s.0 * s.1 as f64).sum::<f64>() / n;
    let var = samples
        .iter()
        .map(|s| (s.0 - mean).powi(2) * s.1 as f64)
        .sum::<f64>()
        / n;
    if var <= 0.0 {
        return Err(invalid("the scores of a class are all equal: no beta fit"));
    }
    let s1 = samples.iter().map(|s| s.0.ln() * s.1 as f64).sum::<f64>() / n;
    let s2 = samples
        .iter()
        .map(|s| (-s.0).ln_1p() * s.1 as f64)
        .sum::<f64>()
        / n;
    let fac = (mean * (1.0 - mean) / var - 1.0).max(1e-3);
    let (mut a, mut b) = (mean * fac, (1.0 - mean) * fac);
    for _ in 0..200 {
        let (pab, tab) = (digamma(a + b), trigamma(a + b));
        let f1 = digamma(a) - pab - s1;
        let f2 = digamma(b) - pab - s2;
        // Jacobian [[ψ′(a) − ψ′(a+b), −ψ′(a+b)], [−ψ′(a+b), ψ′(b) − ψ′(a+b)]].
        let (j11, j12, j22) = (trigamma(a) - tab, -tab, trigamma(b) - tab);
        let det = j11 * j22 - j12 * j12;
        let da = (f1 * j22 - f2 * j12) / det;
        let db = (j11 * f2 - j12 * f1) / det;
        // Damped: keep both shapes positive.
        let mut t = 1.0;
        while a - t * da <= 0.0 || b - t * db <= 0.0 {
            t *= 0.5;
        }
        let (na, nb) = (a - t * da, b - t * db);
        let done = (na - a).abs() <= 1e-12 * na && (nb - b).abs() <= 1e-12 * nb;
        (a, b) = (na, nb);
        if done {
            return Ok((a, b));
        }
    }
    if a.is_finite() && b.is_finite() {
        Ok((a, b))
    } else {
        Err(invalid("the beta maximum-likelihood fit did not converge"))
    }
}

/// Temperature scaling (`method="temperature"`): `σ(logit(x)/T)` with `T ∈ [0.1, 10]`
/// minimising the cross-entropy over all pairs (scipy's bounded Brent, `xatol = 1e-3`); `x`
/// clipped to `[1e-6, 1 − 1e-6]`. Returns the probabilities and `T` (none when one label only).
pub(crate) fn temperature(g: &Grouped) -> (Vec<f64>, Option<f64>) {
    if !g.both_labels() {
        return (vec![0.0; g.values.len()], None);
    }
    let total = g.total() as f64;
    let logit: Vec<f64> = g
        .values
        .iter()
        .map(|&v| {
            let x = v.clamp(CLIP, 1.0 - CLIP);
            (x / (1.0 - x)).ln()
        })
        .collect();
    let prob = |lo: f64, t: f64| 1.0 / (1.0 + (-lo / t).exp());
    let loss = |t: f64| {
        let mut s = 0.0;
        for ((&lo, &p), &e) in logit.iter().zip(&g.pairs).zip(&g.edges) {
            let q = prob(lo, t).clamp(1e-10, 1.0 - 1e-10);
            s += e as f64 * q.ln() + (p - e) as f64 * (1.0 - q).ln();
        }
        -s / total
    };
    let t = fminbound(loss, 0.1, 10.0, 1e-3);
    (logit.iter().map(|&lo| prob(lo, t)).collect(), Some(t))
}

/// scipy's `_minimize_scalar_bounded` (Brent's method on `[lo, hi]`, 500 evaluations at most).
fn fminbound(f: impl Fn(f64) -> f64, lo: f64, hi: f64, xatol: f64) -> f64 {
    let sqrt_eps = 2.2e-16f64.sqrt();
    let golden_mean = 0.5 * (3.0 - 5f64.sqrt());
    let (mut a, mut b) = (lo, hi);
    let mut fulc = a + golden_mean * (b - a);
    let (mut nfc, mut xf) = (fulc, fulc);
    let (mut rat, mut e) = (0.0f64, 0.0f64);
    let mut fx = f(xf);
    let mut num = 1;
    let (mut ffulc, mut fnfc) = (fx, fx);
    let mut xm = 0.5 * (a + b);
    let mut tol1 = sqrt_eps * xf.abs() + xatol / 3.0;
    let mut tol2 = 2.0 * tol1;
    let sign = |v: f64| {
        if v > 0.0 {
            1.0
        } else if v < 0.0 {
            -1.0
        } else {
            0.0
        }
    };
    while (xf - xm).abs() > tol2 - 0.5 * (b - a) {
        let mut golden = true;
        if e.abs() > tol1 {
            golden = false;
            let mut r = (xf - nfc) * (fx - ffulc);
            let mut q = (xf - fulc) * (fx - fnfc);
            let mut p = (xf - fulc) * q - (xf - nfc) * r;
            q = 2.0 * (q - r);
            if q > 0.0 {
                p = -p;
            }
            q = q.abs();
            r = e;
            e = rat;
            if p.abs() < (0.5 * q * r).abs() && p > q * (a - xf) && p < q * (b - xf) {
                rat = p / q;
                let x = xf + rat;
                if (x - a) < tol2 || (b - x) < tol2 {
                    let si = sign(xm - xf) + if xm - xf == 0.0 { 1.0 } else { 0.0 };
                    rat = tol1 * si;
                }
            } else {
                golden = true;
            }
        }
        if golden {
            e = if xf >= xm { a - xf } else { b - xf };
            rat = golden_mean * e;
        }
        let si = sign(rat) + if rat == 0.0 { 1.0 } else { 0.0 };
        let x = xf + si * rat.abs().max(tol1);
        let fu = f(x);
        num += 1;
        if fu <= fx {
            if x >= xf {
                a = xf;
            } else {
                b = xf;
            }
            (fulc, ffulc) = (nfc, fnfc);
            (nfc, fnfc) = (xf, fx);
            (xf, fx) = (x, fu);
        } else {
            if x < xf {
                a = x;
            } else {
                b = x;
            }
            if fu <= fnfc || nfc == xf {
                (fulc, ffulc) = (nfc, fnfc);
                (nfc, fnfc) = (x, fu);
            } else if fu <= ffulc || fulc == xf || fulc == nfc {
                (fulc, ffulc) = (x, fu);
            }
        }
        xm = 0.5 * (a + b);
        tol1 = sqrt_eps * xf.abs() + xatol / 3.0;
        tol2 = 2.0 * tol1;
        if num >= 500 {
            break;
        }
    }
    xf
}

/// Quantile-bin calibration (`method="histogram"`, and the Adamic–Adar feature's): `bins`
/// quantile bins of all scores (scikit-learn's `KBinsDiscretizer(strategy="quantile")` with
/// exact quantiles — it subsamples 200,000 pairs on large graphs — and its removal of bins
/// narrower than 1e-8), each bin's noisy-edge rate as the probability of its scores, 0.5 for
/// an empty bin. Returns the probabilities and the kept bin edges.
pub(crate) fn histogram(g: &Grouped, bins: usize) -> (Vec<f64>, Vec<f64>) {
    let total = g.total();
    let raw: Vec<f64> = (0..=bins)
        .map(|b| {
            let q = b as f64 / bins as f64;
            let (lo, t) = virtual_index(total, q);
            let a = g.order_statistic(lo);
            let c = g.order_statistic((lo + 1).min(total - 1));
            lerp(a, c, t)
        })
        .collect();
    let edges = dedup_edges(&raw);
    let inner: &[f64] = if edges.len() >= 2 {
        &edges[1..edges.len() - 1]
    } else {
        &[]
    };
    let mut bin_pairs = vec![0u64; bins];
    let mut bin_edges = vec![0u64; bins];
    let bin: Vec<usize> = g
        .values
        .iter()
        .map(|&v| bin_of(inner, v).min(edges.len().saturating_sub(2)))
        .collect();
    for ((&b, &p), &e) in bin.iter().zip(&g.pairs).zip(&g.edges) {
        bin_pairs[b] += p;
        bin_edges[b] += e;
    }
    let rate: Vec<f64> = bin_pairs
        .iter()
        .zip(&bin_edges)
        .map(|(&p, &e)| if p == 0 { 0.5 } else { e as f64 / p as f64 })
        .collect();
    (bin.iter().map(|&b| rate[b]).collect(), edges)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grouped(v: &[(f64, u64, u64)]) -> Grouped {
        Grouped {
            values: v.iter().map(|x| x.0).collect(),
            pairs: v.iter().map(|x| x.1).collect(),
            edges: v.iter().map(|x| x.2).collect(),
        }
    }

    #[test]
    fn pav_pools_violators_into_weighted_means() {
        // sklearn: IsotonicRegression().fit([1,2,3,4], [1,3,2,4], sample_weight=[1,1,3,1])
        // .predict([1,2,3,4]) = [1, 2.25, 2.25, 4].
        let mut y = vec![1.0, 3.0, 2.0, 4.0];
        let mut w = vec![1.0, 1.0, 3.0, 1.0];
        pav(&mut y, &mut w);
        assert_eq!(y, vec![1.0, 2.25, 2.25, 4.0]);
        // A decreasing run pools into one block, then backtracks.
        let mut y = vec![3.0, 2.0, 1.0, 5.0, 0.0];
        let mut w = vec![1.0; 5];
        pav(&mut y, &mut w);
        assert_eq!(y, vec![2.0, 2.0, 2.0, 2.5, 2.5]);
    }

    #[test]
    fn isotonic_is_monotone_and_keeps_the_edge_count() {
        let g = grouped(&[(0.0, 100, 10), (0.1, 10, 5), (0.2, 10, 2), (0.3, 5, 5)]);
        let l = isotonic(&g);
        assert!(l.windows(2).all(|w| w[0] <= w[1]), "{l:?}");
        let mass: f64 = l.iter().zip(&g.pairs).map(|(p, &c)| p * c as f64).sum();
        assert!((mass - g.total_edges() as f64).abs() < 1e-9);
        assert_eq!(l[1], l[2], "0.1 and 0.2 violate and are pooled");
    }

    #[test]
    fn simple_scales_by_the_largest_score() {
        let g = grouped(&[(0.0, 10, 1), (0.25, 2, 1), (0.5, 1, 1)]);
        let l = simple(&g);
        assert_eq!(l[0], 0.0);
        assert!((l[2] - 1.0).abs() < 1e-9 && l[2] <= 1.0);
        assert!((l[1] - 0.5).abs() < 1e-9);
    }

    #[test]
    fn beta_mle_recovers_the_shapes_of_a_beta_sample() {
        use rand_distr::Beta;
        let mut rng = dp_core::rng::seeded_rng(7);
        let d = Beta::new(2.0, 5.0).unwrap();
        let s: Vec<(f64, u64)> = (0..20_000).map(|_| (d.sample(&mut rng), 1)).collect();
        let (a, b) = beta_mle(&s).unwrap();
        assert!((a - 2.0).abs() < 0.1 && (b - 5.0).abs() < 0.25, "{a} {b}");
        // The fit solves the likelihood equations.
        let s1 = s.iter().map(|x| x.0.ln()).sum::<f64>() / s.len() as f64;
        assert!((digamma(a) - digamma(a + b) - s1).abs() < 1e-10);
        assert!(beta_mle(&[(0.3, 10)]).is_err(), "all equal: no fit");
        assert!(beta_mle(&[(0.3, 1)]).is_err(), "one sample: no fit");
    }

    #[test]
    fn fminbound_finds_a_bounded_minimum() {
        let x = fminbound(|t| (t - 2.0).powi(2), 0.1, 10.0, 1e-3);
        assert!((x - 2.0).abs() < 1e-3, "{x}");
        // scipy: fminbound(lambda t: t, 0.1, 10, xtol=1e-3) ≈ 0.1 + a few tol.
        let x = fminbound(|t| t, 0.1, 10.0, 1e-3);
        assert!((0.1..0.102).contains(&x), "{x}");
    }

    #[test]
    fn temperature_ranks_as_the_score() {
        let g = grouped(&[(0.0, 100, 5), (0.05, 20, 4), (0.1, 10, 5), (0.4, 2, 2)]);
        let (l, t) = temperature(&g);
        let t = t.unwrap();
        assert!((0.1..=10.0).contains(&t));
        assert!(l.windows(2).all(|w| w[0] < w[1]), "{l:?}");
    }

    #[test]
    fn histogram_bins_by_quantiles_and_rates_each_bin() {
        // 10 pairs at 0 (1 edge), 10 at 0.5 (9 edges): two bins remain.
        let g = grouped(&[(0.0, 10, 1), (0.5, 10, 9)]);
        let (l, edges) = histogram(&g, 4);
        assert_eq!(edges, vec![0.0, 0.25, 0.5]);
        assert_eq!(l, vec![0.1, 0.9]);
    }
}
