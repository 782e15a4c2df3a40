//! Conversion of a [`TransactionGraph`] into an account-level [`Graph`] with node and edge
//! features and labels, for illicit-account or illicit-edge classification with a GNN (GINE
//! reads the edge features: amount, time, currency, payment format).

use graph_core::{DuplicatePolicy, Graph, GraphBuilder, NodeDataset};
use ndarray::Array2;

use super::schema::{Currency, PaymentFormat, TransactionGraph};
use crate::error::{FedError, Result};
use crate::federation::FederatedGraph;

/// Names of the account features (columns of [`AccountGraph::node_features`]); the last block
/// is the share of the account's transactions per payment format.
pub const NODE_FEATURES: [&str; 8] = [
    "log1p_out_count",
    "log1p_in_count",
    "log1p_amount_out",
    "log1p_amount_in",
    "log1p_out_neighbours",
    "log1p_in_neighbours",
    "cross_bank_share",
    "log1p_self_count",
];

/// Names of the edge features (columns of [`AccountGraph::edge_features`], before the per-format
/// share block).
pub const EDGE_FEATURES: [&str; 9] = [
    "log1p_count_lo_to_hi",
    "log1p_count_hi_to_lo",
    "log1p_amount_sum",
    "log1p_amount_max",
    "time_mean",
    "time_span",
    "currency_mismatch_share",
    "cross_bank",
    "amount_known_share",
];

/// Names of the per-transaction features before the format and currency one-hot blocks.
pub const TX_FEATURES: [&str; 5] = [
    "log1p_amount_paid",
    "time",
    "cross_bank",
    "self",
    "amount_known",
];

/// An account-level graph with features and labels.
///
/// The graph is simple and undirected: all transactions between two accounts (either direction)
/// form one edge, self-transactions form no edge (they enter the node features). Edge `i` is the
/// `i`-th edge of [`Graph::edges`] (`(u, v)` with `u < v`).
#[derive(Clone, Debug)]
pub struct AccountGraph {
    /// The account graph.
    pub graph: Graph,
    /// Bank index of every account.
    pub banks: Vec<u32>,
    /// Account features (`n × (8 + formats)`).
    pub node_features: Array2<f32>,
    /// Account label: its own label when the source gives one, else 1 iff it takes part in a
    /// laundering transaction.
    pub node_labels: Vec<u32>,
    /// Edge features (`m × (9 + formats)`).
    pub edge_features: Array2<f32>,
    /// Edge label: 1 iff a laundering transaction runs along it.
    pub edge_labels: Vec<u32>,
    /// Edge index of every transaction (`None` for self-transactions).
    pub tx_edge: Vec<Option<u32>>,
    /// Time of every account's first transaction, self-transactions included (minutes since
    /// 1970-01-01 UTC; `None` when the source has no times).
    pub first_seen: Vec<Option<i64>>,
}

fn log1p(x: f64) -> f32 {
    x.ln_1p() as f32
}

impl TransactionGraph {
    /// The account graph with features and labels.
    ///
    /// # Errors
    /// [`FedError::Inconsistent`] for a graph without accounts; graph-core errors (too many nodes).
    ///
    /// # Complexity
    /// O(T log T) for T transactions.
    pub fn to_account_graph(&self) -> Result<AccountGraph> {
        let n = self.accounts().len();
        if n == 0 {
            return Err(FedError::Inconsistent("no accounts".into()));
        }
        let txs = self.transactions();
        let mut b = GraphBuilder::new(n)?.duplicates(DuplicatePolicy::Merge);
        for t in txs {
            if t.src != t.dst {
                b.add_edge(t.src, t.dst)?;
            }
        }
        let graph = b.build()?;
        let edges: Vec<(u32, u32)> = graph.edges().collect();
        let edge_of = |u: u32, v: u32| -> u32 {
            let key = if u < v { (u, v) } else { (v, u) };
            edges.binary_search(&key).expect("edge was added") as u32
        };
        let (t_min, t_max) = txs
            .iter()
            .filter_map(|t| t.time)
            .fold((i64::MAX, i64::MIN), |(a, b), t| (a.min(t), b.max(t)));
        let span = (t_max - t_min).max(1) as f64;
        let norm_t = |t: i64| ((t - t_min) as f64 / span) as f32;
        let bank = |a: u32| self.accounts()[a as usize].bank;
        let nf = PaymentFormat::ALL.len();

        let mut node = Array2::<f32>::zeros((n, NODE_FEATURES.len() + nf));
        let mut out_n: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut in_n: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut raw = vec![[0f64; 6]; n]; // out count, in count, amt out, amt in, cross, self
        let mut fmt = vec![vec![0f64; nf]; n];
        let m = edges.len();
        let mut edge = Array2::<f32>::zeros((m, EDGE_FEATURES.len() + nf));
        let mut eraw = vec![[0f64; 8]; m]; // c lo->hi, c hi->lo, sum, max, tsum, tcount, mismatch, known
        let mut etime = vec![(i64::MAX, i64::MIN); m];
        let mut efmt = vec![vec![0f64; nf]; m];
        let mut node_labels: Vec<u32> = self
            .accounts()
            .iter()
            .map(|a| u32::from(a.label == Some(true)))
            .collect();
        let has_account_labels = self.accounts().iter().any(|a| a.label.is_some());
        let mut edge_labels = vec![0u32; m];
        let mut tx_edge = Vec::with_capacity(txs.len());
        for t in txs {
            let (s, d) = (t.src as usize, t.dst as usize);
            let amt = t.amount_paid.unwrap_or(0.0);
            raw[s][0] += 1.0;
            raw[d][1] += 1.0;
            raw[s][2] += amt;
            raw[d][3] += t.amount_received.unwrap_or(0.0);
            fmt[s][t.format.index()] += 1.0;
            fmt[d][t.format.index()] += 1.0;
            let illicit = t.is_laundering == Some(true);
            if illicit && !has_account_labels {
                node_labels[s] = 1;
                node_labels[d] = 1;
            }
            if s == d {
                raw[s][5] += 1.0;
                tx_edge.push(None);
                continue;
            }
            if bank(t.src) != bank(t.dst) {
                raw[s][4] += 1.0;
                raw[d][4] += 1.0;
            }
            out_n[s].push(t.dst);
            in_n[d].push(t.src);
            let e = edge_of(t.src, t.dst) as usize;
            tx_edge.push(Some(e as u32));
            let r = &mut eraw[e];
            r[if t.src < t.dst { 0 } else { 1 }] += 1.0;
            r[2] += amt;
            r[3] = r[3].max(amt);
            if let Some(time) = t.time {
                r[4] += f64::from(norm_t(time));
                r[5] += 1.0;
                etime[e] = (etime[e].0.min(time), etime[e].1.max(time));
            }
            if t.receiving_currency != t.payment_currency
                && t.receiving_currency != Currency::Unknown
            {
                r[6] += 1.0;
            }
            if t.amount_paid.is_some() {
                r[7] += 1.0;
            }
            efmt[e][t.format.index()] += 1.0;
            if illicit {
                edge_labels[e] = 1;
            }
        }
        for v in 0..n {
            let r = &raw[v];
            let total = (r[0] + r[1]).max(1.0);
            for l in [&mut out_n[v], &mut in_n[v]] {
                l.sort_unstable();
                l.dedup();
            }
            let row = [
                log1p(r[0]),
                log1p(r[1]),
                log1p(r[2]),
                log1p(r[3]),
                log1p(out_n[v].len() as f64),
                log1p(in_n[v].len() as f64),
                (r[4] / total) as f32,
                log1p(r[5]),
            ];
            for (j, x) in row
                .into_iter()
                .chain(fmt[v].iter().map(|&c| (c / total) as f32))
                .enumerate()
            {
                node[[v, j]] = x;
            }
        }
        for (e, &(u, v)) in edges.iter().enumerate() {
            let r = &eraw[e];
            let count = (r[0] + r[1]).max(1.0);
            let (t_lo, t_hi) = etime[e];
            let row = [
                log1p(r[0]),
                log1p(r[1]),
                log1p(r[2]),
                log1p(r[3]),
                if r[5] > 0.0 {
                    (r[4] / r[5]) as f32
                } else {
                    0.0
                },
                if r[5] > 0.0 {
                    ((t_hi - t_lo) as f64 / span) as f32
                } else {
                    0.0
                },
                (r[6] / count) as f32,
                f32::from(u8::from(bank(u) != bank(v))),
                (r[7] / count) as f32,
            ];
            for (j, x) in row
                .into_iter()
                .chain(efmt[e].iter().map(|&c| (c / count) as f32))
                .enumerate()
            {
                edge[[e, j]] = x;
            }
        }
        Ok(AccountGraph {
            graph,
            banks: self.accounts().iter().map(|a| a.bank).collect(),
            node_features: node,
            node_labels,
            edge_features: edge,
            edge_labels,
            tx_edge,
            first_seen: {
                let mut first: Vec<Option<i64>> = vec![None; n];
                for t in txs {
                    if let Some(time) = t.time {
                        for a in [t.src, t.dst] {
                            let f = &mut first[a as usize];
                            *f = Some(f.map_or(time, |x| x.min(time)));
                        }
                    }
                }
                first
            },
        })
    }

    /// Per-transaction features for illicit-transaction classification: [`TX_FEATURES`], then a
    /// one-hot payment format and a one-hot receiving currency; and the labels (0 when unknown).
    pub fn transaction_features(&self) -> (Array2<f32>, Vec<u32>) {
        let txs = self.transactions();
        let (nf, nc) = (PaymentFormat::ALL.len(), Currency::ALL.len());
        let width = TX_FEATURES.len() + nf + nc;
        let (t_min, t_max) = txs
            .iter()
            .filter_map(|t| t.time)
            .fold((i64::MAX, i64::MIN), |(a, b), t| (a.min(t), b.max(t)));
        let span = (t_max - t_min).max(1) as f64;
        let mut x = Array2::<f32>::zeros((txs.len(), width));
        let bank = |a: u32| self.accounts()[a as usize].bank;
        for (i, t) in txs.iter().enumerate() {
            x[[i, 0]] = log1p(t.amount_paid.unwrap_or(0.0));
            x[[i, 1]] = t.time.map_or(0.0, |s| ((s - t_min) as f64 / span) as f32);
            x[[i, 2]] = f32::from(u8::from(bank(t.src) != bank(t.dst)));
            x[[i, 3]] = f32::from(u8::from(t.src == t.dst));
            x[[i, 4]] = f32::from(u8::from(t.amount_paid.is_some()));
            x[[i, TX_FEATURES.len() + t.format.index()]] = 1.0;
            x[[i, TX_FEATURES.len() + nf + t.receiving_currency.index()]] = 1.0;
        }
        let y = txs
            .iter()
            .map(|t| u32::from(t.is_laundering == Some(true)))
            .collect();
        (x, y)
    }
}

impl AccountGraph {
    /// The node-classification dataset (illicit accounts) of graph-core.
    ///
    /// # Errors
    /// graph-core's shape errors (cannot occur for a value built by
    /// [`TransactionGraph::to_account_graph`]).
    pub fn node_dataset(&self, name: &str) -> Result<NodeDataset> {
        Ok(NodeDataset::new(
            name,
            self.graph.clone(),
            self.node_features.clone(),
            self.node_labels.clone(),
        )?)
    }

    /// The federated setting with one client per bank.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] (`num_clients`) with fewer than 2 banks.
    pub fn federate_by_bank(&self) -> Result<FederatedGraph> {
        FederatedGraph::by_attribute(self.graph.clone(), &self.banks)
    }

    /// The bank → client map of [`Self::federate_by_bank_groups`]: banks by decreasing
    /// account count (ties by bank index), each to the client with the fewest accounts so far
    /// (ties by client index). Banks without accounts are left out.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] (`clients`) for fewer than 2 clients or more clients than
    /// banks with accounts.
    pub fn bank_groups(&self, clients: usize) -> Result<Vec<(u32, u32)>> {
        let mut count: std::collections::BTreeMap<u32, usize> = Default::default();
        for &b in &self.banks {
            *count.entry(b).or_default() += 1;
        }
        if clients < 2 || clients > count.len() {
            return Err(FedError::param(
                "clients",
                clients,
                "banks are grouped into between 2 clients and one client per bank",
            ));
        }
        let mut banks: Vec<(u32, usize)> = count.into_iter().collect();
        banks.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut load = vec![0usize; clients];
        let mut out = Vec::with_capacity(banks.len());
        for (bank, n) in banks {
            let c = (0..clients)
                .min_by_key(|&c| (load[c], c))
                .expect("at least 2 clients");
            load[c] += n;
            out.push((bank, c as u32));
        }
        out.sort_unstable();
        Ok(out)
    }

    /// The federated setting with the banks grouped into `clients` clients of about equal
    /// account counts ([`Self::bank_groups`]): one organisation per group, as banks that share
    /// a deployment would run it.
    ///
    /// # Errors
    /// As [`Self::bank_groups`].
    ///
    /// # Complexity
    /// O(n + B log B) for n accounts and B banks, then the setting's construction.
    pub fn federate_by_bank_groups(&self, clients: usize) -> Result<FederatedGraph> {
        let groups: std::collections::BTreeMap<u32, u32> =
            self.bank_groups(clients)?.into_iter().collect();
        let client: Vec<u32> = self.banks.iter().map(|b| groups[b]).collect();
        FederatedGraph::by_attribute(self.graph.clone(), &client)
    }

    /// The accounts in time order: by their first transaction ([`Self::first_seen`]), ties by
    /// account index; accounts without a timed transaction (none in an AMLworld file, where
    /// every account comes from a transaction; generated banks can have idle accounts) after
    /// every account that transacts.
    ///
    /// # Errors
    /// [`FedError::Inconsistent`] when no transaction has a time (a source without times
    /// cannot be split by time).
    pub fn time_order(&self) -> Result<Vec<usize>> {
        if self.first_seen.iter().all(Option::is_none) {
            return Err(FedError::Inconsistent(
                "no transaction has a time: a time-ordered split needs them".into(),
            ));
        }
        let mut keyed: Vec<(bool, i64, usize)> = self
            .first_seen
            .iter()
            .enumerate()
            .map(|(i, t)| (t.is_none(), t.unwrap_or(0), i))
            .collect();
        keyed.sort_unstable();
        Ok(keyed.into_iter().map(|(_, _, i)| i).collect())
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use crate::aml::{AmlGenConfig, generate};

    fn accounts() -> super::AccountGraph {
        let cfg = AmlGenConfig {
            num_banks: 6,
            num_accounts: 600,
            num_normal: 6000,
            ..AmlGenConfig::default()
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        generate(&cfg, &mut rng)
            .unwrap()
            .to_account_graph()
            .unwrap()
    }

    #[test]
    fn banks_are_grouped_into_clients_of_about_equal_size() {
        let ag = accounts();
        let mut size = std::collections::BTreeMap::<u32, usize>::new();
        for &b in &ag.banks {
            *size.entry(b).or_default() += 1;
        }
        let largest = *size.values().max().unwrap();
        for clients in 2..=size.len() {
            let groups = ag.bank_groups(clients).unwrap();
            assert_eq!(groups.len(), size.len(), "every bank in one group");
            let mut load = vec![0usize; clients];
            for (bank, c) in &groups {
                load[*c as usize] += size[bank];
            }
            assert!(load.iter().all(|&l| l > 0), "{clients}: {load:?}");
            let (lo, hi) = (load.iter().min().unwrap(), load.iter().max().unwrap());
            assert!(hi - lo <= largest, "{clients}: {load:?}");
            let fed = ag.federate_by_bank_groups(clients).unwrap();
            assert_eq!(fed.clients().len(), clients);
        }
        for bad in [0, 1, size.len() + 1] {
            assert!(ag.bank_groups(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_time_order_follows_the_first_transactions() {
        let mut ag = accounts();
        let order = ag.time_order().unwrap();
        assert_eq!(order.len(), ag.first_seen.len());
        // Timed accounts in time order, then the idle ones (the generator has some).
        let key = |i: usize| (ag.first_seen[i].is_none(), ag.first_seen[i]);
        assert!(order.windows(2).all(|w| key(w[0]) <= key(w[1])));
        let idle = ag.first_seen.iter().filter(|t| t.is_none()).count();
        assert!(idle < order.len() / 10, "{idle}");
        // A source without times cannot be split by time: a typed error.
        ag.first_seen.iter_mut().for_each(|t| *t = None);
        assert!(matches!(
            ag.time_order(),
            Err(crate::error::FedError::Inconsistent(_))
        ));
    }
}
