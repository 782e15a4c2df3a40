//! Anti-money-laundering data: the common [`TransactionGraph`] (accounts with banks, transactions
//! with amounts, times, currencies, formats and labels, laundering attempts with typologies),
//! loaders for AMLworld and AMLSim files, a seeded generator with the AMLworld schema and its
//! 8 typologies calibrated to the `amlworld-sample` mirror, the AMLworld CSV writer, and the
//! conversion to an account graph with node/edge features and labels for GNN training.

mod calibration;
mod convert;
mod csv;
mod generator;
mod loaders;
mod schema;
mod time;
mod writer;

pub use calibration::Calibration;
pub use convert::{AccountGraph, EDGE_FEATURES, NODE_FEATURES, TX_FEATURES};
pub use generator::{AmlGenConfig, generate};
pub use loaders::{
    AMLWORLD_HEADER, load_amlsim_20k, load_amlsim_small, load_amlworld_mirror,
    load_amlworld_patterns_flat, load_amlworld_trans, load_by_name,
};
pub use schema::{
    Account, Attempt, Currency, PaymentFormat, Transaction, TransactionGraph, Typology,
};
pub use time::{format_timestamp, parse_timestamp};
pub use writer::{write_amlworld_trans, write_patterns_flat};
