//! CE-FedGNN across organisations: each organisation runs an [`OrgClient`] over its own files
//! ([`OrgData`]), the aggregator runs an [`OrgServer`]; they exchange only the protocol's
//! encoded frames (plus a public [`Announcement`] before round 0 and a [`ClientFinal`] report
//! after the final broadcast), carried by whatever engine deploys them (Flower: the `dpgraph.fed`
//! Python apps).
//!
//! Faults: a round closes when at least `min_clients` updates are in ([`ServerOptions`]);
//! refused frames and absences are logged by client ([`Event`]); the server checkpoints after
//! every round ([`OrgServer::checkpoint`], [`OrgServer::resume`]); a client saves its state
//! after every answer ([`OrgClient::save`], [`OrgClient::open`]), rejoins at any later round and
//! answers a repeated broadcast with its saved update (no second release).
//!
//! With the same seed, options and partition, a deployed run computes exactly what
//! [`crate::train::simulate`] computes (same initial W, same trainer and noise streams per
//! client, same frames).

mod client;
mod data;
mod server;
mod wire;

pub use client::{ClientOptions, Fault, NoiseSource, OrgClient, Reply};
pub use data::{ORG_FORMAT, OrgData, OrgManifest, SplitTag};
pub use server::{Event, OrgServer, RoundOutcome, RunReport, ServerOptions};
pub use wire::{Announcement, ClientFinal, Evaluation, MAX_JSON_BYTES};

#[cfg(test)]
mod tests;
