//! Loaders for AMLworld `*_Trans.csv`, the `amlworld-sample` mirror files, and the AMLSim samples.

use std::path::Path;

use super::csv::{CsvFile, Record};
use super::schema::{Currency, PaymentFormat, Transaction, TransactionGraph, Typology};
use crate::error::{FedError, Result};

/// The AMLworld `*_Trans.csv` header (the second `Account` is the receiver; pandas' `Account.1`
/// is accepted too).
pub const AMLWORLD_HEADER: [&str; 11] = [
    "Timestamp",
    "From Bank",
    "Account",
    "To Bank",
    "Account",
    "Amount Received",
    "Receiving Currency",
    "Amount Paid",
    "Payment Currency",
    "Payment Format",
    "Is Laundering",
];

fn trans_header() -> Vec<&'static str> {
    let mut h = AMLWORLD_HEADER.to_vec();
    h[4] = "Account|Account.1";
    h
}

/// Parses the 11 AMLworld columns starting at `at` into a transaction of `g`.
fn amlworld_tx(g: &mut TransactionGraph, r: &Record<'_>, at: usize) -> Result<Transaction> {
    let time = r.timestamp(at)?;
    let fb = g.bank(&r.bank(at + 1)?);
    let src = g.account(fb, r.nonempty(at + 2)?)?;
    let tb = g.bank(&r.bank(at + 3)?);
    let dst = g.account(tb, r.nonempty(at + 4)?)?;
    Ok(Transaction {
        src,
        dst,
        time: Some(time),
        amount_received: Some(r.amount(at + 5)?),
        receiving_currency: r.currency(at + 6)?,
        amount_paid: Some(r.amount(at + 7)?),
        payment_currency: r.currency(at + 8)?,
        format: r.format(at + 9)?,
        is_laundering: Some(r.flag(at + 10)?),
        attempt: None,
    })
}

/// Loads an AMLworld `*_Trans.csv` (e.g. `HI-Small_Trans.csv`), plain or gzipped.
///
/// # Errors
/// [`FedError::MissingFile`]; [`FedError::Csv`] naming the line and column for a wrong header,
/// field count, timestamp, amount, currency, format or label.
///
/// # Complexity
/// O(rows) time; the whole file is held in memory.
pub fn load_amlworld_trans(path: &Path) -> Result<TransactionGraph> {
    let f = CsvFile::open(path)?;
    let mut g = TransactionGraph::new();
    for r in f.records(&trans_header())? {
        let tx = amlworld_tx(&mut g, &r, 0)?;
        g.push(tx)?;
    }
    Ok(g)
}

/// Adds the laundering attempts of a flattened patterns file (`HI-Small_Patterns_flat.csv`:
/// `attempt_id,typology,typology_detail` then the 11 AMLworld columns) to `g`.
///
/// # Errors
/// As [`load_amlworld_trans`]; [`FedError::Csv`] for an unknown typology or a row that is not
/// labelled laundering.
pub fn load_amlworld_patterns_flat(path: &Path, g: &mut TransactionGraph) -> Result<()> {
    let f = CsvFile::open(path)?;
    let mut header = vec!["attempt_id", "typology", "typology_detail"];
    header.extend(trans_header());
    let mut current: Option<(String, u32)> = None;
    for r in f.records(&header)? {
        let id = r.nonempty(0)?.to_owned();
        let typ = Typology::parse_any(r.str(1)).ok_or_else(|| {
            r.error(format!(
                "column 2 (`typology`) = {:?}: expected one of the 8 typologies",
                r.str(1)
            ))
        })?;
        let attempt = match &current {
            Some((cid, k)) if *cid == id => *k,
            _ => {
                let k = g.add_attempt(id.clone(), typ, r.str(2).to_owned());
                current = Some((id, k));
                k
            }
        };
        if g.attempts()[attempt as usize].typology != typ {
            return Err(r.error("typology differs from the earlier rows of the same attempt"));
        }
        let mut tx = amlworld_tx(g, &r, 3)?;
        if tx.is_laundering != Some(true) {
            return Err(r.error("pattern rows must have Is Laundering = 1"));
        }
        tx.attempt = Some(attempt);
        g.push(tx)?;
    }
    Ok(())
}

/// Loads the `amlworld-sample` mirror folder: `transactions_sample.csv` (1,000 normal rows,
/// snake_case columns) plus `HI-Small_Patterns_flat.csv` (all 370 attempts).
///
/// # Errors
/// As [`load_amlworld_trans`] for either file.
pub fn load_amlworld_mirror(dir: &Path) -> Result<TransactionGraph> {
    let f = CsvFile::open(&dir.join("transactions_sample.csv"))?;
    let header = [
        "timestamp",
        "from_bank_id",
        "from_account_id",
        "from_account_key",
        "to_bank_id",
        "to_account_id",
        "to_account_key",
        "amount_received",
        "receiving_currency",
        "amount_paid",
        "payment_currency",
        "payment_format",
        "is_laundering",
    ];
    let mut g = TransactionGraph::new();
    for r in f.records(&header)? {
        let time = r.timestamp(0)?;
        let fb = g.bank(&r.bank(1)?);
        let src = g.account(fb, r.nonempty(2)?)?;
        let tb = g.bank(&r.bank(4)?);
        let dst = g.account(tb, r.nonempty(5)?)?;
        for (key, bank, acc) in [(3, 1, 2), (6, 4, 5)] {
            let want = format!("{}:{}", r.str(bank), r.str(acc));
            if r.str(key) != want {
                return Err(r.error(format!(
                    "column {} = {:?}: expected the key {want:?}",
                    key + 1,
                    r.str(key)
                )));
            }
        }
        g.push(Transaction {
            src,
            dst,
            time: Some(time),
            amount_received: Some(r.amount(7)?),
            receiving_currency: r.currency(8)?,
            amount_paid: Some(r.amount(9)?),
            payment_currency: r.currency(10)?,
            format: r.format(11)?,
            is_laundering: Some(r.flag(12)?),
            attempt: None,
        })?;
    }
    load_amlworld_patterns_flat(&dir.join("HI-Small_Patterns_flat.csv"), &mut g)?;
    Ok(g)
}

/// AMLSim day step 0 (`base_date` 2017-01-01 in AMLSim's `conf.json`), in minutes since the epoch.
fn amlsim_step(step: i64) -> i64 {
    super::time::date_minutes(2017, 1, 1) + step * 1440
}

/// Loads `amlsim-small`: `accounts.csv` (banks), `transactions.csv` (normal relation edges, no
/// amount or time, label 0), `alert_transactions.csv` (typology edges with amount and day step,
/// labelled by `isSAR`, one attempt per alert) and account labels from `alert_members.csv`
/// (`isSAR`; accounts outside alerts are labelled 0).
///
/// # Errors
/// [`FedError::MissingFile`]; [`FedError::Csv`] for malformed rows or unknown account ids;
/// [`FedError::Csv`] when an alert transaction's bank differs from its account's bank.
pub fn load_amlsim_small(dir: &Path) -> Result<TransactionGraph> {
    let mut g = TransactionGraph::new();
    let accounts = CsvFile::open(&dir.join("accounts.csv"))?;
    let mut by_id = std::collections::HashMap::new();
    for r in accounts.records(&[
        "ACCOUNT_ID",
        "CUSTOMER_ID",
        "INIT_BALANCE",
        "COUNTRY",
        "ACCOUNT_TYPE",
        "IS_SAR",
        "BANK_ID",
    ])? {
        let id = r.nonempty(0)?.to_owned();
        let b = g.bank(r.nonempty(6)?);
        let a = g.account(b, &id)?;
        g.set_label(a, false)?;
        if by_id.insert(id, a).is_some() {
            return Err(r.error("duplicate ACCOUNT_ID"));
        }
    }
    let lookup = |r: &Record<'_>, col: usize| -> Result<u32> {
        by_id.get(r.str(col)).copied().ok_or_else(|| {
            r.error(format!(
                "column {} = {:?}: expected an ACCOUNT_ID of accounts.csv",
                col + 1,
                r.str(col)
            ))
        })
    };
    let normal = CsvFile::open(&dir.join("transactions.csv"))?;
    for r in normal.records(&["id", "src", "dst", "ttype"])? {
        let (src, dst) = (lookup(&r, 1)?, lookup(&r, 2)?);
        let format = PaymentFormat::parse(r.str(3)).unwrap_or(PaymentFormat::Unknown);
        g.push(Transaction {
            src,
            dst,
            time: None,
            amount_received: None,
            receiving_currency: Currency::Unknown,
            amount_paid: None,
            payment_currency: Currency::Unknown,
            format,
            is_laundering: Some(false),
            attempt: None,
        })?;
    }
    let alerts = CsvFile::open(&dir.join("alert_transactions.csv"))?;
    let mut attempt_of = std::collections::HashMap::new();
    for r in alerts.records(&[
        "alertID", "reason", "isSAR", "src", "dst", "amount", "step", "src_bank", "dst_bank",
    ])? {
        let (src, dst) = (lookup(&r, 3)?, lookup(&r, 4)?);
        for (acc, col) in [(src, 7), (dst, 8)] {
            let bank = &g.banks()[g.accounts()[acc as usize].bank as usize];
            if bank != r.str(col) {
                return Err(r.error(format!(
                    "column {} = {:?}: account is in bank {bank:?}",
                    col + 1,
                    r.str(col)
                )));
            }
        }
        let typ = Typology::parse_any(r.str(1)).ok_or_else(|| {
            r.error(format!(
                "column 2 (`reason`) = {:?}: expected an AMLSim typology",
                r.str(1)
            ))
        })?;
        let sar = r.flag(2)?;
        let alert = r.nonempty(0)?.to_owned();
        let k = match attempt_of.get(&alert) {
            Some(&k) => k,
            None => {
                let detail = if sar { "SAR" } else { "false alert" };
                let k = g.add_attempt(alert.clone(), typ, detail.into());
                attempt_of.insert(alert, k);
                k
            }
        };
        let amount = r.amount(5)?;
        g.push(Transaction {
            src,
            dst,
            time: Some(amlsim_step(r.int(6)?)),
            amount_received: Some(amount),
            receiving_currency: Currency::Unknown,
            amount_paid: Some(amount),
            payment_currency: Currency::Unknown,
            format: PaymentFormat::Transfer,
            is_laundering: Some(sar),
            attempt: Some(k),
        })?;
    }
    let members = CsvFile::open(&dir.join("alert_members.csv"))?;
    for r in members.records(&[
        "alertID",
        "reason",
        "accountID",
        "isMain",
        "isSAR",
        "modelID",
        "minAmount",
        "maxAmount",
        "startStep",
        "endStep",
        "scheduleID",
        "bankID",
    ])? {
        let a = lookup(&r, 2)?;
        if r.flag(4)? {
            g.set_label(a, true)?;
        }
    }
    Ok(g)
}

/// Loads `amlsim-sample-20k`: `nodes.csv(.gz)` (`nodeid,isFraud,init_balance,fraudStep`, one
/// bank named `0`, account labels from `isFraud`) and `transactions.csv(.gz)`
/// (`sourceNodeId,targetNodeId,value,time`; no transaction labels, no currency).
///
/// # Errors
/// [`FedError::MissingFile`]; [`FedError::Csv`] for malformed rows or unknown node ids.
pub fn load_amlsim_20k(dir: &Path) -> Result<TransactionGraph> {
    let mut g = TransactionGraph::new();
    let bank = g.bank("0");
    let nodes = CsvFile::open(&dir.join("nodes.csv"))?;
    let mut by_id = std::collections::HashMap::new();
    for r in nodes.records(&["nodeid", "isFraud", "init_balance", "fraudStep"])? {
        let id = r.uint(0)?;
        let a = g.account(bank, &id.to_string())?;
        g.set_label(a, r.flag(1)?)?;
        r.int(3)?;
        if by_id.insert(id, a).is_some() {
            return Err(r.error("duplicate nodeid"));
        }
    }
    let txs = CsvFile::open(&dir.join("transactions.csv"))?;
    for r in txs.records(&["sourceNodeId", "targetNodeId", "value", "time"])? {
        let mut ends = [0u32; 2];
        for (k, col) in [0usize, 1].into_iter().enumerate() {
            let id = r.uint(col)?;
            ends[k] = *by_id.get(&id).ok_or_else(|| {
                r.error(format!(
                    "column {} = {id}: expected a nodeid of nodes.csv",
                    col + 1
                ))
            })?;
        }
        let amount = r.amount(2)?;
        g.push(Transaction {
            src: ends[0],
            dst: ends[1],
            time: Some(amlsim_step(r.int(3)?)),
            amount_received: Some(amount),
            receiving_currency: Currency::Unknown,
            amount_paid: Some(amount),
            payment_currency: Currency::Unknown,
            format: PaymentFormat::Transfer,
            is_laundering: None,
            attempt: None,
        })?;
    }
    Ok(g)
}

/// Loads an installed mirror dataset by registry name (`amlworld-sample`, `amlsim-small`,
/// `amlsim-sample-20k`) from `data_dir/<name>`.
///
/// # Errors
/// [`FedError::InvalidParam`] (`name`) for another name; the loader's errors otherwise.
pub fn load_by_name(name: &str, data_dir: &Path) -> Result<TransactionGraph> {
    let dir = data_dir.join(name);
    match name {
        "amlworld-sample" => load_amlworld_mirror(&dir),
        "amlsim-small" => load_amlsim_small(&dir),
        "amlsim-sample-20k" => load_amlsim_20k(&dir),
        _ => Err(FedError::param(
            "name",
            name,
            "AML datasets are amlworld-sample, amlsim-small and amlsim-sample-20k",
        )),
    }
}
