//! A seeded generator of multi-bank transaction graphs with the AMLworld schema and its 8
//! laundering typologies, calibrated to the `amlworld-sample` mirror ([`Calibration`]).

use rand::{Rng, RngExt};
use rand_distr::{Distribution, LogNormal, Normal};
use serde::Serialize;

use super::calibration::Calibration;
use super::schema::{Currency, PaymentFormat, Transaction, TransactionGraph, Typology};
use super::time::date_minutes;
use crate::error::{FedError, Result, non_negative, positive};

/// Generator parameters. Defaults: 8 banks, 4,000 accounts, 40,000 normal transactions over the
/// 18 days of the HI-Small patterns (2022/09/01–18), the HI-Small attempt counts per typology.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AmlGenConfig {
    /// Banks (≥ 2); bank sizes follow a Zipf law with exponent `bank_zipf` \[R\].
    pub num_banks: usize,
    /// Accounts (≥ 2·`num_banks`... at least one per bank, and enough for the largest attempt).
    pub num_accounts: usize,
    /// Normal transactions.
    pub num_normal: usize,
    /// Multiplier of the HI-Small attempt counts per typology (1.0 = 370 attempts).
    pub attempt_scale: f64,
    /// Days covered, from 2022/09/01.
    pub days: u32,
    /// Zipf exponent of bank sizes \[R\] (0 = equal banks).
    pub bank_zipf: f64,
    /// Statistics to draw from.
    pub calibration: Calibration,
}

impl Default for AmlGenConfig {
    fn default() -> Self {
        Self {
            num_banks: 8,
            num_accounts: 4000,
            num_normal: 40_000,
            attempt_scale: 1.0,
            days: 18,
            bank_zipf: 1.0,
            calibration: Calibration::default(),
        }
    }
}

/// Draws an index with probability proportional to `weights` (cumulative + binary search).
struct Weighted {
    cum: Vec<f64>,
}

impl Weighted {
    /// The sampler of `weights` (negative weights count as 0).
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] naming `what` when there is no weight, or their total is not
    /// finite and positive (a calibration with an empty or all-zero list).
    fn new(what: &'static str, weights: impl IntoIterator<Item = f64>) -> Result<Self> {
        let mut acc = 0.0;
        let cum: Vec<f64> = weights
            .into_iter()
            .map(|w| {
                acc += w.max(0.0);
                acc
            })
            .collect();
        match cum.last() {
            Some(&t) if t.is_finite() && t > 0.0 => Ok(Self { cum }),
            _ => Err(FedError::param(
                what,
                cum.len(),
                "needs at least one entry and a finite positive total weight",
            )),
        }
    }
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        // Unreachable when empty: `new` refuses an empty list.
        let total = *self
            .cum
            .last()
            .expect("non-empty weights (checked in Weighted::new)");
        let x = rng.random::<f64>() * total;
        self.cum
            .partition_point(|&c| c <= x)
            .min(self.cum.len() - 1)
    }
}

struct World<'a> {
    cfg: &'a AmlGenConfig,
    bank_of: Vec<u32>,
    by_bank: Vec<Vec<u32>>,
    currency: Vec<Currency>,
    activity: Weighted,
    t0: i64,
}

impl World<'_> {
    /// An account in another bank than `bank` with probability `cross`, else in the same bank.
    fn neighbour<R: Rng + ?Sized>(&self, bank: u32, cross: f64, avoid: &[u32], rng: &mut R) -> u32 {
        let want_cross = rng.random::<f64>() < cross;
        for _ in 0..64 {
            let a = if want_cross {
                self.activity.sample(rng) as u32
            } else {
                let pool = &self.by_bank[bank as usize];
                pool[rng.random_range(0..pool.len())]
            };
            if (self.bank_of[a as usize] != bank) == want_cross && !avoid.contains(&a) {
                return a;
            }
        }
        // Fall back to any account not yet used.
        loop {
            let a = rng.random_range(0..self.bank_of.len() as u32);
            if !avoid.contains(&a) {
                return a;
            }
        }
    }
}

/// Generates a multi-bank transaction graph: normal traffic plus laundering attempts of the 8
/// typologies, with transaction labels and attempt records.
///
/// Normal traffic: Reinvestment rows are self-transactions (as in the sample); other formats pick
/// a counterpart in another bank with the sample's cross-bank share; amounts are log-normal per
/// format; accounts have log-normal activity. Laundering: attempt sizes drawn from the empirical
/// HI-Small sizes of the typology, members chained across banks with the laundering cross-bank
/// share, one currency per attempt, amounts log-normal and slightly decreasing along the flow,
/// times increasing within an attempt window of up to four days \[R\].
///
/// # Errors
/// [`FedError::InvalidParam`] naming `num_banks` (< 2), `num_accounts` (fewer than 2 per bank or
/// fewer than 64), `days` (0), `attempt_scale` or `bank_zipf` (negative or not finite).
///
/// # Complexity
/// O(num_normal · log num_accounts + laundering transactions).
///
/// # Example
/// ```
/// use cefedgnn::aml::{generate, AmlGenConfig, Typology};
/// let cfg = AmlGenConfig { num_accounts: 500, num_normal: 2000, attempt_scale: 0.1, ..Default::default() };
/// let g = generate(&cfg, &mut dp_core::rng::seeded_rng(3))?;
/// assert_eq!(g.banks().len(), 8);
/// assert_eq!(g.typology_counts().len(), 8);
/// assert!(g.num_laundering() > 0 && g.transactions().len() > 2000);
/// # Ok::<(), cefedgnn::FedError>(())
/// ```
pub fn generate<R: Rng + ?Sized>(cfg: &AmlGenConfig, rng: &mut R) -> Result<TransactionGraph> {
    if cfg.num_banks < 2 {
        return Err(FedError::param(
            "num_banks",
            cfg.num_banks,
            "needs at least 2 banks",
        ));
    }
    if cfg.num_accounts < (2 * cfg.num_banks).max(64) {
        return Err(FedError::param(
            "num_accounts",
            cfg.num_accounts,
            "needs at least 2 accounts per bank and 64 in all",
        ));
    }
    if cfg.days == 0 {
        return Err(FedError::param("days", 0, "must be >= 1"));
    }
    non_negative("attempt_scale", cfg.attempt_scale)?;
    non_negative("bank_zipf", cfg.bank_zipf)?;
    let cal = &cfg.calibration;
    let mut g = TransactionGraph::new();
    // Banks with Zipf sizes, at least 2 accounts each.
    let zipf = Weighted::new(
        "bank sizes",
        (1..=cfg.num_banks).map(|r| (r as f64).powf(-cfg.bank_zipf)),
    )?;
    let mut bank_of: Vec<u32> = (0..cfg.num_banks as u32).flat_map(|b| [b, b]).collect();
    while bank_of.len() < cfg.num_accounts {
        bank_of.push(zipf.sample(rng) as u32);
    }
    let bank_ids: Vec<u32> = (0..cfg.num_banks)
        .map(|b| g.bank(&format!("{}", 10 + b * 7)))
        .collect();
    let mut by_bank = vec![Vec::new(); cfg.num_banks];
    let mut used = std::collections::HashSet::new();
    for (a, &b) in bank_of.iter().enumerate() {
        let id = loop {
            let id = format!("8{:08X}", rng.random_range(0..0xFFFF_FFFFu32) & 0xFFFF_FFF0);
            if used.insert((b, id.clone())) {
                break id;
            }
        };
        let idx = g.account(bank_ids[b as usize], &id)?;
        debug_assert_eq!(idx as usize, a);
        by_bank[b as usize].push(a as u32);
    }
    let cur_w = Weighted::new(
        "calibration.currencies",
        cal.currencies.iter().map(|c| f64::from(c.1)),
    )?;
    let currency: Vec<Currency> = (0..cfg.num_accounts)
        .map(|_| cal.currencies[cur_w.sample(rng)].0)
        .collect();
    let act = LogNormal::new(0.0, 1.0).expect("valid log-normal");
    let world = World {
        cfg,
        bank_of,
        by_bank,
        currency,
        activity: Weighted::new(
            "account activity",
            (0..cfg.num_accounts).map(|_| act.sample(rng)),
        )?,
        t0: date_minutes(2022, 9, 1),
    };
    let horizon = i64::from(cfg.days) * 1440;
    let mut pending: Vec<Transaction> = Vec::with_capacity(cfg.num_normal);
    normal_traffic(&world, horizon, rng, &mut pending)?;
    for tx in pending {
        g.push(tx)?;
    }
    laundering(&world, &mut g, horizon, rng)?;
    Ok(g)
}

fn normal_traffic<R: Rng + ?Sized>(
    w: &World<'_>,
    horizon: i64,
    rng: &mut R,
    out: &mut Vec<Transaction>,
) -> Result<()> {
    let cal = &w.cfg.calibration;
    let fmt_w = Weighted::new(
        "calibration.normal_formats",
        cal.normal_formats.iter().map(|f| f64::from(f.1)),
    )?;
    let amounts: Vec<(PaymentFormat, LogNormal<f64>)> = cal
        .normal_log_amount
        .iter()
        .map(|&(f, m, s)| {
            let d = LogNormal::new(m, positive("sd", s)?)
                .map_err(|_| FedError::param("sd", s, "invalid log-normal parameters"))?;
            Ok((f, d))
        })
        .collect::<Result<_>>()?;
    for _ in 0..w.cfg.num_normal {
        let format = cal.normal_formats[fmt_w.sample(rng)].0;
        let src = w.activity.sample(rng) as u32;
        let dst = if format == PaymentFormat::Reinvestment {
            src
        } else {
            w.neighbour(w.bank_of[src as usize], cal.normal_cross_bank, &[src], rng)
        };
        let dist = amounts.iter().find(|(f, _)| *f == format).map(|(_, d)| d);
        let amount = dist.map_or(1000.0, |d| d.sample(rng)).clamp(0.01, 1e10);
        let amount = (amount * 100.0).round() / 100.0;
        let cur = w.currency[src as usize];
        out.push(Transaction {
            src,
            dst,
            time: Some(w.t0 + rng.random_range(0..horizon)),
            amount_received: Some(amount),
            receiving_currency: cur,
            amount_paid: Some(amount),
            payment_currency: cur,
            format,
            is_laundering: Some(false),
            attempt: None,
        });
    }
    Ok(())
}

/// The edges `(from, to)` of one attempt of `typ` with `k` transactions, over account slots that
/// are filled in order of first use (slot 0 first).
fn typology_edges<R: Rng + ?Sized>(
    typ: Typology,
    k: usize,
    rng: &mut R,
) -> (Vec<(usize, usize)>, String) {
    let k = k.max(1);
    match typ {
        Typology::FanOut => (
            (1..=k).map(|j| (0, j)).collect(),
            format!("Max {k}-degree Fan-Out"),
        ),
        Typology::FanIn => (
            (1..=k).map(|j| (j, 0)).collect(),
            format!("Max {k}-degree Fan-In"),
        ),
        Typology::GatherScatter => {
            let kin = k.div_ceil(2);
            let mut e: Vec<(usize, usize)> = (1..=kin).map(|j| (j, 0)).collect();
            e.extend((kin + 1..=k).map(|j| (0, j)));
            (e, format!("Max {kin}-degree Fan-In"))
        }
        Typology::ScatterGather => {
            let m = k.div_ceil(2);
            let sink = m + 1;
            let mut e: Vec<(usize, usize)> = (1..=m).map(|j| (0, j)).collect();
            e.extend((1..=k - m).map(|j| (j, sink)));
            (e, String::new())
        }
        Typology::Cycle => {
            let n = k.max(2);
            (
                (0..n).map(|j| (j, (j + 1) % n)).take(k.max(2)).collect(),
                format!("Max {n} hops"),
            )
        }
        Typology::Random => {
            let pool = (k / 2 + 2).min(k + 1);
            let mut cur = 0;
            let e = (0..k)
                .map(|_| {
                    let mut next = rng.random_range(0..pool);
                    if next == cur {
                        next = (next + 1) % pool;
                    }
                    let edge = (cur, next);
                    cur = next;
                    edge
                })
                .collect();
            (e, format!("Max {k} hops"))
        }
        Typology::Bipartite => (bipartite(0, k, rng), String::new()),
        Typology::Stack => {
            let k1 = k.div_ceil(2);
            let mut e = bipartite(0, k1, rng);
            let top = e.iter().map(|&(a, b)| a.max(b)).max().unwrap_or(0) + 1;
            // The second layer leaves from the first layer's receivers.
            let receivers: Vec<usize> = {
                let mut r: Vec<usize> = e.iter().map(|&(_, b)| b).collect();
                r.sort_unstable();
                r.dedup();
                r
            };
            let m = (k - k1).max(if k == 1 { 0 } else { 1 });
            let c = m.div_ceil(receivers.len()).max(1);
            let mut pairs = Vec::new();
            'outer: for j in 0..c {
                for &r in &receivers {
                    if pairs.len() == m {
                        break 'outer;
                    }
                    pairs.push((r, top + j));
                }
            }
            e.extend(pairs);
            (e, String::new())
        }
    }
}

/// `k` distinct edges from a set A (slots `base..base+a`) to a set B, |A|·|B| ≥ k.
fn bipartite<R: Rng + ?Sized>(base: usize, k: usize, rng: &mut R) -> Vec<(usize, usize)> {
    let a = (k as f64).sqrt().ceil().max(1.0) as usize;
    let b = k.div_ceil(a);
    let mut all: Vec<(usize, usize)> = (0..a)
        .flat_map(|i| (0..b).map(move |j| (base + i, base + a + j)))
        .collect();
    // Partial Fisher–Yates: the first k of a random permutation.
    for i in 0..k {
        let j = rng.random_range(i..all.len());
        all.swap(i, j);
    }
    all.truncate(k);
    all
}

fn laundering<R: Rng + ?Sized>(
    w: &World<'_>,
    g: &mut TransactionGraph,
    horizon: i64,
    rng: &mut R,
) -> Result<()> {
    let cal = &w.cfg.calibration;
    let (m, s) = cal.laundering_log_amount;
    let base = LogNormal::new(m, positive("laundering sd", s)?)
        .map_err(|_| FedError::param("laundering sd", s, "invalid log-normal"))?;
    let fmt_w = Weighted::new(
        "calibration.laundering_formats",
        cal.laundering_formats.iter().map(|f| f64::from(f.1)),
    )?;
    let jitter: Normal<f64> = Normal::new(0.0, 0.05).expect("valid normal");
    let mut serial = 0usize;
    for (&typ, sizes) in &cal.attempt_sizes {
        let count = (sizes.len() as f64 * w.cfg.attempt_scale).round() as usize;
        for _ in 0..count {
            serial += 1;
            let k = sizes[rng.random_range(0..sizes.len())] as usize;
            let (edges, detail) = typology_edges(typ, k, rng);
            let slots = edges.iter().map(|&(a, b)| a.max(b)).max().unwrap_or(0) + 1;
            if slots > w.bank_of.len() {
                continue;
            }
            // Fill slots in order of first use; each new member is chained from the first
            // endpoint already placed, crossing banks with the calibrated share.
            let mut acc: Vec<Option<u32>> = vec![None; slots];
            let mut members: Vec<u32> = Vec::with_capacity(slots);
            for &(a, b) in &edges {
                for (x, other) in [(a, b), (b, a)] {
                    if acc[x].is_none() {
                        let anchor = acc[other].or(members.first().copied());
                        let v = match anchor {
                            Some(p) => w.neighbour(
                                w.bank_of[p as usize],
                                cal.laundering_cross_bank,
                                &members,
                                rng,
                            ),
                            None => w.activity.sample(rng) as u32,
                        };
                        acc[x] = Some(v);
                        members.push(v);
                    }
                }
            }
            let attempt = g.add_attempt(format!("GEN-{serial:05}"), typ, detail);
            let window = rng.random_range(60..(4 * 1440).min(horizon).max(61));
            let start = rng.random_range(0..(horizon - window).max(1));
            let mut times: Vec<i64> = (0..edges.len())
                .map(|_| rng.random_range(0..window))
                .collect();
            times.sort_unstable();
            let cur = w.currency[acc[edges[0].0].expect("filled") as usize];
            let amount0 = base.sample(rng).clamp(1.0, 1e9);
            for (j, &(a, b)) in edges.iter().enumerate() {
                let decay = 1.0 - 0.02 * (j as f64 / edges.len() as f64)
                    + Distribution::<f64>::sample(&jitter, rng).clamp(-0.1, 0.1);
                let amount = ((amount0 * decay).max(0.01) * 100.0).round() / 100.0;
                g.push(Transaction {
                    src: acc[a].expect("filled"),
                    dst: acc[b].expect("filled"),
                    time: Some(w.t0 + start + times[j]),
                    amount_received: Some(amount),
                    receiving_currency: cur,
                    amount_paid: Some(amount),
                    payment_currency: cur,
                    format: cal.laundering_formats[fmt_w.sample(rng)].0,
                    is_laundering: Some(true),
                    attempt: Some(attempt),
                })?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use dp_core::rng::seeded_rng;

    #[test]
    fn typology_shapes_have_the_requested_size() {
        let mut rng = seeded_rng(0);
        for &t in Typology::ALL {
            for k in [1usize, 2, 3, 7, 16, 30] {
                let (e, _) = typology_edges(t, k, &mut rng);
                let want = if t == Typology::Cycle { k.max(2) } else { k };
                assert_eq!(e.len(), want, "{t:?} k={k}");
                assert!(e.iter().all(|&(a, b)| a != b), "{t:?} has a self-loop");
            }
        }
        let (cyc, _) = typology_edges(Typology::Cycle, 4, &mut rng);
        assert_eq!(cyc, vec![(0, 1), (1, 2), (2, 3), (3, 0)]);
        let (sg, _) = typology_edges(Typology::ScatterGather, 6, &mut rng);
        assert_eq!(sg.iter().filter(|e| e.0 == 0).count(), 3);
        assert_eq!(sg.iter().filter(|e| e.1 == 4).count(), 3);
    }

    #[test]
    fn empty_or_zero_calibration_lists_are_errors_not_panics() {
        let base = AmlGenConfig {
            num_accounts: 64,
            num_normal: 10,
            ..Default::default()
        };
        let mut no_currencies = base.clone();
        no_currencies.calibration.currencies.clear();
        let mut zero_formats = base.clone();
        for f in &mut zero_formats.calibration.normal_formats {
            f.1 = 0;
        }
        let mut no_laundering_formats = base.clone();
        no_laundering_formats.calibration.laundering_formats.clear();
        for (cfg, name) in [
            (no_currencies, "calibration.currencies"),
            (zero_formats, "calibration.normal_formats"),
            (no_laundering_formats, "calibration.laundering_formats"),
        ] {
            let e = generate(&cfg, &mut seeded_rng(1)).unwrap_err();
            assert!(e.to_string().contains(name), "{e}");
        }
        assert!(generate(&base, &mut seeded_rng(1)).is_ok());
    }

    #[test]
    fn generator_is_seeded_and_calibrated() {
        let cfg = AmlGenConfig {
            num_accounts: 800,
            num_normal: 4000,
            ..Default::default()
        };
        let a = generate(&cfg, &mut seeded_rng(9)).unwrap();
        let b = generate(&cfg, &mut seeded_rng(9)).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, generate(&cfg, &mut seeded_rng(10)).unwrap());
        let counts = a.typology_counts();
        let cal = Calibration::default().attempt_counts();
        for (t, &(att, _)) in &counts {
            assert_eq!(att, cal[t], "{t:?}");
        }
        // Cross-bank share of laundering near 3131/3209 (not exact: 8 banks, chained members).
        let txs = a.transactions();
        let laund: Vec<&Transaction> = txs
            .iter()
            .filter(|t| t.is_laundering == Some(true))
            .collect();
        let cross = laund
            .iter()
            .filter(|t| a.accounts()[t.src as usize].bank != a.accounts()[t.dst as usize].bank)
            .count() as f64
            / laund.len() as f64;
        assert!(cross > 0.85, "laundering cross-bank share {cross}");
        assert!(laund.iter().all(|t| t.src != t.dst));
        let self_share = txs
            .iter()
            .filter(|t| t.is_laundering == Some(false) && t.src == t.dst)
            .count() as f64
            / 4000.0;
        assert!((self_share - 0.72).abs() < 0.03, "self share {self_share}");
        assert!(matches!(
            generate(
                &AmlGenConfig {
                    num_banks: 1,
                    ..cfg.clone()
                },
                &mut seeded_rng(0)
            ),
            Err(FedError::InvalidParam {
                name: "num_banks",
                ..
            })
        ));
        assert!(
            generate(
                &AmlGenConfig {
                    num_accounts: 10,
                    ..cfg
                },
                &mut seeded_rng(0)
            )
            .is_err()
        );
    }
}
