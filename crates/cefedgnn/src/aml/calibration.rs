//! The generator's calibration: statistics of the `amlworld-sample` mirror (HI-Small), embedded
//! as constants and recomputable from the files by [`Calibration::from_graph`].

use std::collections::BTreeMap;

use serde::Serialize;

use super::schema::{Currency, PaymentFormat, TransactionGraph, Typology};
use crate::error::{FedError, Result};

/// Transactions per attempt of the 370 HI-Small attempts, per typology, ascending
/// (from `HI-Small_Patterns_flat.csv`).
const SIZES: [(Typology, &[u32]); 8] = [
    (
        Typology::FanOut,
        &[
            1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 4, 4, 4, 6, 7, 7, 7, 7, 8, 8, 9,
            9, 9, 10, 10, 11, 11, 12, 12, 12, 13, 13, 13, 13, 14, 15, 16, 16, 16, 16,
        ],
    ),
    (
        Typology::FanIn,
        &[
            1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 5, 5, 6, 6, 8, 8, 8, 10, 10, 10, 10, 11, 11,
            12, 12, 13, 13, 13, 13, 13, 13, 15, 16, 16, 16, 16,
        ],
    ),
    (
        Typology::GatherScatter,
        &[
            2, 2, 2, 2, 2, 2, 2, 2, 4, 4, 5, 5, 5, 6, 6, 6, 6, 7, 8, 8, 9, 11, 12, 13, 14, 14, 15,
            17, 17, 17, 17, 19, 20, 21, 21, 21, 22, 22, 22, 22, 24, 24, 25, 25, 26, 26, 26, 26, 27,
            27, 28,
        ],
    ),
    (
        Typology::ScatterGather,
        &[
            2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 4, 4, 4, 6, 6, 6, 6, 12, 12, 12, 14, 14, 14, 14, 16,
            18, 18, 22, 24, 24, 24, 26, 26, 26, 26, 26, 26, 26, 26, 28, 30, 32, 32,
        ],
    ),
    (
        Typology::Cycle,
        &[
            2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4,
            4, 5, 5, 5, 6, 7, 7, 7, 7, 7, 8, 8, 8, 8, 10, 10, 10, 10, 10, 10, 11, 11, 11, 11, 12,
        ],
    ),
    (
        Typology::Random,
        &[
            1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 4, 5, 5, 6, 6, 7, 8, 8,
            8, 8, 8, 8, 8, 9, 9, 10, 10, 10, 11, 11,
        ],
    ),
    (
        Typology::Bipartite,
        &[
            1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 4, 5, 5, 5, 6,
            6, 6, 7, 7, 7, 8, 8, 9, 9, 9, 11, 11, 12, 12, 12, 13, 13, 13, 14, 15,
        ],
    ),
    (
        Typology::Stack,
        &[
            2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 4, 4, 6, 8, 10, 10, 10, 12, 12, 14, 14,
            14, 14, 14, 16, 16, 16, 16, 20, 22, 22, 22, 24, 26, 28, 30, 30,
        ],
    ),
];

/// Statistics the generator draws from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Calibration {
    /// Transactions per attempt, per typology (the empirical distribution; its length is the
    /// number of attempts).
    pub attempt_sizes: BTreeMap<Typology, Vec<u32>>,
    /// Mean and standard deviation of ln(amount) of laundering transactions.
    pub laundering_log_amount: (f64, f64),
    /// Share of laundering transactions between different banks.
    pub laundering_cross_bank: f64,
    /// Payment-format counts of laundering transactions.
    pub laundering_formats: Vec<(PaymentFormat, u32)>,
    /// Currency counts of laundering transactions (also the accounts' home-currency mix \[R\]: the
    /// normal sample holds only US Dollar).
    pub currencies: Vec<(Currency, u32)>,
    /// Payment-format counts of normal transactions.
    pub normal_formats: Vec<(PaymentFormat, u32)>,
    /// Mean and sd of ln(amount) of normal transactions per format.
    pub normal_log_amount: Vec<(PaymentFormat, f64, f64)>,
    /// Share of normal non-self transactions between different banks.
    pub normal_cross_bank: f64,
}

impl Default for Calibration {
    /// The HI-Small statistics of the `amlworld-sample` mirror (values as computed by
    /// [`Calibration::from_graph`] on it; a `real_data_*` test checks they agree).
    fn default() -> Self {
        use Currency as C;
        use PaymentFormat as F;
        Self {
            attempt_sizes: SIZES.iter().map(|(t, s)| (*t, s.to_vec())).collect(),
            laundering_log_amount: (9.7096, 2.0991),
            laundering_cross_bank: 3131.0 / 3209.0,
            laundering_formats: vec![(F::Ach, 3208), (F::Bitcoin, 1)],
            currencies: vec![
                (C::UsDollar, 1178),
                (C::Euro, 886),
                (C::SaudiRiyal, 336),
                (C::SwissFranc, 114),
                (C::Rupee, 111),
                (C::Yuan, 107),
                (C::Yen, 89),
                (C::CanadianDollar, 76),
                (C::Ruble, 72),
                (C::UkPound, 71),
                (C::AustralianDollar, 69),
                (C::MexicanPeso, 53),
                (C::Shekel, 25),
                (C::BrazilReal, 21),
                (C::Bitcoin, 1),
            ],
            normal_formats: vec![
                (F::Reinvestment, 720),
                (F::CreditCard, 114),
                (F::Cheque, 88),
                (F::Ach, 38),
                (F::Cash, 28),
                (F::Wire, 12),
            ],
            normal_log_amount: vec![
                (F::Reinvestment, 7.0487, 4.2253),
                (F::Cheque, 9.2805, 4.5380),
                (F::Ach, 9.7040, 3.9916),
                (F::CreditCard, 5.2743, 2.7448),
                (F::Wire, 8.4776, 2.6157),
                (F::Cash, 8.7760, 3.2987),
            ],
            normal_cross_bank: 224.0 / 268.0,
        }
    }
}

fn mean_sd(xs: &[f64]) -> (f64, f64) {
    let n = xs.len().max(1) as f64;
    let m = xs.iter().sum::<f64>() / n;
    (
        m,
        (xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / n).sqrt(),
    )
}

fn counts<T: Ord + Copy>(xs: impl Iterator<Item = T>) -> Vec<(T, u32)> {
    let mut m = BTreeMap::new();
    for x in xs {
        *m.entry(x).or_insert(0u32) += 1;
    }
    let mut v: Vec<(T, u32)> = m.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

impl Calibration {
    /// Recomputes the statistics from a loaded AMLworld graph with attempts (e.g.
    /// [`super::load_amlworld_mirror`]): laundering statistics from attempt transactions,
    /// normal statistics from transactions labelled 0.
    ///
    /// # Errors
    /// [`FedError::Inconsistent`] when the graph has no attempts or no normal transactions with
    /// amounts, or some typology has no attempt.
    pub fn from_graph(g: &TransactionGraph) -> Result<Self> {
        let txs = g.transactions();
        let mut attempt_sizes: BTreeMap<Typology, Vec<u32>> = BTreeMap::new();
        for a in g.attempts() {
            attempt_sizes
                .entry(a.typology)
                .or_default()
                .push(a.transactions.len() as u32);
        }
        if let Some(t) = Typology::ALL
            .iter()
            .find(|t| !attempt_sizes.contains_key(t))
        {
            return Err(FedError::Inconsistent(format!(
                "no attempt of typology {}",
                t.name()
            )));
        }
        for s in attempt_sizes.values_mut() {
            s.sort_unstable();
        }
        let laund: Vec<usize> = g
            .attempts()
            .iter()
            .flat_map(|a| a.transactions.iter().map(|&i| i as usize))
            .collect();
        let normal: Vec<usize> = (0..txs.len())
            .filter(|&i| {
                txs[i].is_laundering == Some(false) && txs[i].amount_paid.is_some_and(|a| a > 0.0)
            })
            .collect();
        if normal.is_empty() {
            return Err(FedError::Inconsistent(
                "no normal transactions with amounts".into(),
            ));
        }
        let bank = |a: u32| g.accounts()[a as usize].bank;
        let cross = |i: &usize| bank(txs[*i].src) != bank(txs[*i].dst);
        let ln: Vec<f64> = laund
            .iter()
            .filter_map(|&i| txs[i].amount_paid)
            .filter(|&a| a > 0.0)
            .map(f64::ln)
            .collect();
        let non_self: Vec<usize> = normal
            .iter()
            .copied()
            .filter(|&i| txs[i].src != txs[i].dst)
            .collect();
        let normal_formats = counts(normal.iter().map(|&i| txs[i].format));
        let normal_log_amount = normal_formats
            .iter()
            .map(|&(f, _)| {
                let xs: Vec<f64> = normal
                    .iter()
                    .filter(|&&i| txs[i].format == f)
                    .filter_map(|&i| txs[i].amount_paid)
                    .map(f64::ln)
                    .collect();
                let (m, s) = mean_sd(&xs);
                (f, m, s)
            })
            .collect();
        Ok(Self {
            attempt_sizes,
            laundering_log_amount: mean_sd(&ln),
            laundering_cross_bank: laund.iter().filter(|i| cross(i)).count() as f64
                / laund.len().max(1) as f64,
            laundering_formats: counts(laund.iter().map(|&i| txs[i].format)),
            currencies: counts(laund.iter().map(|&i| txs[i].receiving_currency)),
            normal_formats,
            normal_log_amount,
            normal_cross_bank: non_self.iter().filter(|i| cross(i)).count() as f64
                / non_self.len().max(1) as f64,
        })
    }

    /// Attempts per typology in HI-Small (the lengths of [`Calibration::attempt_sizes`]).
    pub fn attempt_counts(&self) -> BTreeMap<Typology, usize> {
        self.attempt_sizes
            .iter()
            .map(|(t, s)| (*t, s.len()))
            .collect()
    }
}
