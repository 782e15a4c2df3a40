//! The common transaction-graph type all AML loaders and the generator produce.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::error::{FedError, Result};

macro_rules! named_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $var:ident => $s:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        pub enum $name { $($(#[$vm])* $var),* }
        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [Self] = &[$(Self::$var),*];
            /// The AMLworld spelling.
            pub fn name(self) -> &'static str {
                match self { $(Self::$var => $s),* }
            }
            /// Parses the AMLworld spelling.
            pub fn parse(s: &str) -> Option<Self> {
                match s { $($s => Some(Self::$var),)* _ => None }
            }
            /// Position in [`Self::ALL`] (for one-hot features).
            pub fn index(self) -> usize {
                Self::ALL.iter().position(|&x| x == self).expect("listed in ALL")
            }
        }
    };
}

named_enum!(
    /// Currencies of AMLworld; `Unknown` where a source has none (AMLSim).
    Currency {
        /// US Dollar.
        UsDollar => "US Dollar",
        /// Euro.
        Euro => "Euro",
        /// Yuan.
        Yuan => "Yuan",
        /// Yen.
        Yen => "Yen",
        /// UK Pound.
        UkPound => "UK Pound",
        /// Swiss Franc.
        SwissFranc => "Swiss Franc",
        /// Canadian Dollar.
        CanadianDollar => "Canadian Dollar",
        /// Australian Dollar.
        AustralianDollar => "Australian Dollar",
        /// Mexican Peso.
        MexicanPeso => "Mexican Peso",
        /// Brazil Real.
        BrazilReal => "Brazil Real",
        /// Rupee.
        Rupee => "Rupee",
        /// Ruble.
        Ruble => "Ruble",
        /// Shekel.
        Shekel => "Shekel",
        /// Saudi Riyal.
        SaudiRiyal => "Saudi Riyal",
        /// Bitcoin.
        Bitcoin => "Bitcoin",
        /// Not given by the source.
        Unknown => "Unknown",
    }
);

named_enum!(
    /// Payment formats of AMLworld, plus AMLSim's `TRANSFER` and `Unknown`.
    PaymentFormat {
        /// Reinvestment (self-transactions).
        Reinvestment => "Reinvestment",
        /// Cheque.
        Cheque => "Cheque",
        /// ACH.
        Ach => "ACH",
        /// Credit card.
        CreditCard => "Credit Card",
        /// Wire.
        Wire => "Wire",
        /// Cash.
        Cash => "Cash",
        /// Bitcoin.
        Bitcoin => "Bitcoin",
        /// AMLSim's transaction type `TRANSFER`.
        Transfer => "TRANSFER",
        /// Not given by the source.
        Unknown => "Unknown",
    }
);

named_enum!(
    /// The 8 laundering typologies of AMLworld (and AMLSim).
    Typology {
        /// One source, many destinations.
        FanOut => "FAN-OUT",
        /// Many sources, one destination.
        FanIn => "FAN-IN",
        /// Fan-in to a hub, then fan-out.
        GatherScatter => "GATHER-SCATTER",
        /// Fan-out to intermediates, then fan-in to a sink.
        ScatterGather => "SCATTER-GATHER",
        /// A directed cycle.
        Cycle => "CYCLE",
        /// A random walk among a few accounts.
        Random => "RANDOM",
        /// Edges from one account set to another.
        Bipartite => "BIPARTITE",
        /// Two stacked bipartite layers.
        Stack => "STACK",
    }
);

impl Typology {
    /// Parses AMLworld (`FAN-OUT`) or AMLSim (`fan_out`) spellings.
    ///
    /// # Example
    /// ```
    /// use cefedgnn::aml::Typology;
    /// assert_eq!(Typology::parse_any("scatter_gather"), Some(Typology::ScatterGather));
    /// assert_eq!(Typology::parse_any("CYCLE"), Some(Typology::Cycle));
    /// ```
    pub fn parse_any(s: &str) -> Option<Self> {
        Self::parse(s).or_else(|| Self::parse(&s.to_ascii_uppercase().replace('_', "-")))
    }
}

/// An account: bank (index into [`TransactionGraph::banks`]) and its id within the bank.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Account {
    /// Bank index.
    pub bank: u32,
    /// Account id within the bank.
    pub id: String,
    /// Account-level label when the source gives one (AMLSim SAR / isFraud).
    pub label: Option<bool>,
}

/// One transaction between two accounts (indices into [`TransactionGraph::accounts`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Transaction {
    /// Paying account.
    pub src: u32,
    /// Receiving account.
    pub dst: u32,
    /// Minutes since 1970-01-01 UTC (`None` when the source has no time).
    pub time: Option<i64>,
    /// Amount received (`None` when the source has no amount).
    pub amount_received: Option<f64>,
    /// Receiving currency.
    pub receiving_currency: Currency,
    /// Amount paid.
    pub amount_paid: Option<f64>,
    /// Payment currency.
    pub payment_currency: Currency,
    /// Payment format.
    pub format: PaymentFormat,
    /// Transaction-level label (`None` when the source has none).
    pub is_laundering: Option<bool>,
    /// Index of the laundering attempt it belongs to, if known.
    pub attempt: Option<u32>,
}

/// One laundering attempt (typology instance).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempt {
    /// Source id (`IBM-0001`, an AMLSim alert id, …).
    pub id: String,
    /// Typology.
    pub typology: Typology,
    /// Sub-variant text (`Max 16-degree Fan-Out`), possibly empty.
    pub detail: String,
    /// Its transactions (indices).
    pub transactions: Vec<u32>,
}

/// Accounts grouped by bank, transactions between them, and laundering attempts.
///
/// Accounts are identified by (bank, id); banks and accounts are interned on first use.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TransactionGraph {
    banks: Vec<String>,
    bank_index: HashMap<String, u32>,
    accounts: Vec<Account>,
    account_index: HashMap<(u32, String), u32>,
    transactions: Vec<Transaction>,
    attempts: Vec<Attempt>,
}

impl TransactionGraph {
    /// An empty graph.
    pub fn new() -> Self {
        Self::default()
    }
    /// The bank index of `name`, interning it.
    pub(crate) fn bank(&mut self, name: &str) -> u32 {
        if let Some(&b) = self.bank_index.get(name) {
            return b;
        }
        let b = self.banks.len() as u32;
        self.banks.push(name.to_owned());
        self.bank_index.insert(name.to_owned(), b);
        b
    }
    /// The account index of (`bank`, `id`), interning it.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] (`bank`) for an unknown bank index.
    pub(crate) fn account(&mut self, bank: u32, id: &str) -> Result<u32> {
        if bank as usize >= self.banks.len() {
            return Err(FedError::param("bank", bank, "unknown bank index"));
        }
        if let Some(&a) = self.account_index.get(&(bank, id.to_owned())) {
            return Ok(a);
        }
        let a = u32::try_from(self.accounts.len()).map_err(|_| {
            FedError::param(
                "accounts",
                self.accounts.len(),
                "more than u32::MAX accounts",
            )
        })?;
        self.accounts.push(Account {
            bank,
            id: id.to_owned(),
            label: None,
        });
        self.account_index.insert((bank, id.to_owned()), a);
        Ok(a)
    }
    /// Looks an account up without interning.
    pub fn find_account(&self, bank: &str, id: &str) -> Option<u32> {
        let b = *self.bank_index.get(bank)?;
        self.account_index.get(&(b, id.to_owned())).copied()
    }
    /// Sets an account-level label.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] (`account`) for an unknown index.
    pub(crate) fn set_label(&mut self, account: u32, label: bool) -> Result<()> {
        self.accounts
            .get_mut(account as usize)
            .ok_or_else(|| FedError::param("account", account, "unknown account index"))?
            .label = Some(label);
        Ok(())
    }
    /// Appends a transaction; returns its index.
    ///
    /// # Errors
    /// [`FedError::InvalidParam`] for unknown account or attempt indices, or a negative or
    /// non-finite amount.
    pub(crate) fn push(&mut self, tx: Transaction) -> Result<u32> {
        let n = self.accounts.len() as u32;
        if tx.src >= n || tx.dst >= n {
            return Err(FedError::param(
                "account",
                tx.src.max(tx.dst),
                "unknown account index",
            ));
        }
        for a in [tx.amount_paid, tx.amount_received].into_iter().flatten() {
            if !a.is_finite() || a < 0.0 {
                return Err(FedError::param("amount", a, "must be finite and >= 0"));
            }
        }
        let i = self.transactions.len() as u32;
        if let Some(k) = tx.attempt {
            self.attempts
                .get_mut(k as usize)
                .ok_or_else(|| FedError::param("attempt", k, "unknown attempt index"))?
                .transactions
                .push(i);
        }
        self.transactions.push(tx);
        Ok(i)
    }
    /// Adds an (initially empty) laundering attempt; returns its index.
    pub(crate) fn add_attempt(&mut self, id: String, typology: Typology, detail: String) -> u32 {
        self.attempts.push(Attempt {
            id,
            typology,
            detail,
            transactions: Vec::new(),
        });
        (self.attempts.len() - 1) as u32
    }

    /// Bank names, by index.
    pub fn banks(&self) -> &[String] {
        &self.banks
    }
    /// Accounts, by index.
    pub fn accounts(&self) -> &[Account] {
        &self.accounts
    }
    /// Transactions, by index.
    pub fn transactions(&self) -> &[Transaction] {
        &self.transactions
    }
    /// Laundering attempts.
    pub fn attempts(&self) -> &[Attempt] {
        &self.attempts
    }
    /// Transactions labelled laundering.
    pub fn num_laundering(&self) -> usize {
        self.transactions
            .iter()
            .filter(|t| t.is_laundering == Some(true))
            .count()
    }
    /// Transactions between accounts of different banks.
    pub fn num_cross_bank(&self) -> usize {
        self.transactions
            .iter()
            .filter(|t| self.accounts[t.src as usize].bank != self.accounts[t.dst as usize].bank)
            .count()
    }
    /// Accounts labelled illicit (account-level labels only).
    pub fn num_labelled_accounts(&self) -> usize {
        self.accounts
            .iter()
            .filter(|a| a.label == Some(true))
            .count()
    }
    /// `(attempts, transactions)` per typology.
    pub fn typology_counts(&self) -> BTreeMap<Typology, (usize, usize)> {
        let mut m = BTreeMap::new();
        for a in &self.attempts {
            let e = m.entry(a.typology).or_insert((0, 0));
            e.0 += 1;
            e.1 += a.transactions.len();
        }
        m
    }
    /// Accounts per bank.
    pub fn bank_sizes(&self) -> Vec<usize> {
        let mut s = vec![0; self.banks.len()];
        for a in &self.accounts {
            s[a.bank as usize] += 1;
        }
        s
    }
}
