//! Writing a [`TransactionGraph`] in the AMLworld CSV format, atomically.

use std::fmt::Write as _;
use std::path::Path;

use super::loaders::AMLWORLD_HEADER;
use super::schema::{Transaction, TransactionGraph};
use super::time::format_timestamp;
use crate::error::{FedError, Result};

fn bank_field(name: &str) -> String {
    // AMLworld pads decimal bank ids to at least three digits (`001`, `012`, `021174`).
    if name.bytes().all(|b| b.is_ascii_digit()) && name.len() < 3 {
        format!("{name:0>3}")
    } else {
        name.to_owned()
    }
}

fn row(g: &TransactionGraph, t: &Transaction, out: &mut String) -> Result<()> {
    let (Some(time), Some(recv), Some(paid)) = (t.time, t.amount_received, t.amount_paid) else {
        return Err(FedError::param(
            "transaction",
            format!("{}->{}", t.src, t.dst),
            "AMLworld rows need a time and amounts",
        ));
    };
    let (s, d) = (&g.accounts()[t.src as usize], &g.accounts()[t.dst as usize]);
    let banks = g.banks();
    writeln!(
        out,
        "{},{},{},{},{},{recv:.2},{},{paid:.2},{},{},{}",
        format_timestamp(time),
        bank_field(&banks[s.bank as usize]),
        s.id,
        bank_field(&banks[d.bank as usize]),
        d.id,
        t.receiving_currency.name(),
        t.payment_currency.name(),
        t.format.name(),
        u8::from(t.is_laundering == Some(true)),
    )
    .expect("writing to a String");
    Ok(())
}

/// Writes all transactions as an AMLworld `*_Trans.csv`, sorted by time (stable), through a
/// temporary file and a rename.
///
/// # Errors
/// [`FedError::InvalidParam`] (`transaction`) for a transaction without time or amounts (AMLSim
/// relation edges); [`FedError::Graph`] wrapping the I/O error of the atomic write.
pub fn write_amlworld_trans(g: &TransactionGraph, path: &Path) -> Result<()> {
    let mut order: Vec<usize> = (0..g.transactions().len()).collect();
    order.sort_by_key(|&i| g.transactions()[i].time);
    let mut out = AMLWORLD_HEADER.join(",");
    out.push('\n');
    for i in order {
        row(g, &g.transactions()[i], &mut out)?;
    }
    graph_core::io::write_atomic(path, out.as_bytes())?;
    Ok(())
}

/// Writes the laundering attempts as a flattened patterns file (the layout of the mirror's
/// `HI-Small_Patterns_flat.csv`: `attempt_id,typology,typology_detail` + the AMLworld columns).
///
/// # Errors
/// As [`write_amlworld_trans`].
pub fn write_patterns_flat(g: &TransactionGraph, path: &Path) -> Result<()> {
    let mut out = String::from("attempt_id,typology,typology_detail,");
    out.push_str(&AMLWORLD_HEADER.join(","));
    out.push('\n');
    for a in g.attempts() {
        for &i in &a.transactions {
            write!(out, "{},{},{},", a.id, a.typology.name(), a.detail)
                .expect("writing to a String");
            row(g, &g.transactions()[i as usize], &mut out)?;
        }
    }
    graph_core::io::write_atomic(path, out.as_bytes())?;
    Ok(())
}
