//! Federated GNN training with infrequent moving-average embedding exchange under metric-DP
//! (CE-FedGNN; method and reconstructed [R] choices in `shared/design/CEFEDGNN.md`).
//!
//! - [`federation`]: one graph split across clients ([`federation::FederatedGraph`]), each
//!   client's own nodes, local and cross edges, boundary set B_i and halo H_i, cross-edge
//!   statistics, and [`federation::ClientData`] holding only a client's own features and labels.
//! - [`aml`]: anti-money-laundering data: the common [`aml::TransactionGraph`], loaders for
//!   AMLworld CSVs and the AMLSim samples, a seeded multi-bank generator with the AMLworld schema
//!   and its 8 typologies, and the conversion to an account graph with features and labels.
//! - [`protocol`]: [`protocol::Server`] and [`protocol::Client`] exchanging typed, versioned,
//!   size-bounded messages through a [`protocol::Transport`], with byte accounting.
//! - [`estimator`]: the moving-average estimators H and G and their update rules.
//! - [`privacy`]: clipping, Gaussian noise σ = σ₀·C, release counts, ledger entries and ε(p).
//! - [`train`]: CE-FedGNN training (sampled mini-batches, H/G estimators, K local steps per
//!   protocol round), its ablations and baselines, with per-client F1, traffic and ε(p).
//!
//! The model is abstract here: W is a flat `Vec<f32>`, so the GNN of the `gnn` crate plugs in
//! without changing the protocol.
//!
//! # Architecture invariants
//! - Depends on `graph-core` and `dp-core` (and `gnn` for training); never on the other paper crates.
//! - Roles exchange only encoded frames; every received frame is size-checked before decoding and
//!   fully validated before any state changes.
//! - Released rows go through [`privacy::BoundaryReleaser`]; model and gradient sharing are not
//!   covered by the privacy guarantee, and every [`privacy::PrivacyReport`] says so.
//!
//! # Example
//! ```
//! use cefedgnn::estimator::{EmbeddingEstimator, MaConfig};
//! use cefedgnn::federation::FederatedGraph;
//! use cefedgnn::privacy::ReleaseConfig;
//! use cefedgnn::protocol::{Client, InProcessTransport, ProtocolConfig, Server};
//! use graph_core::{Graph, Partition};
//!
//! let g = Graph::from_edges(4, &[(0, 1), (1, 2), (2, 3)])?;
//! let fed = FederatedGraph::new(g, Partition::by_attribute(&[0, 0, 1, 1]))?;
//! let cfg = ProtocolConfig { num_clients: 2, num_params: 3, layer_dims: vec![2],
//!                            share_gradient: false, num_rounds: 1, local_steps: 4 };
//! let rel = ReleaseConfig { clip: 1.0, sigma0: 1.0, radius: 0.1, delta: 1e-5, budget_eps: None };
//! let mut net = InProcessTransport::new(2);
//! let mut server = Server::new(cfg.clone(), fed.clients(), vec![0.0; 3])?;
//! let mut clients = fed.clients().iter()
//!     .map(|t| Client::new(t, cfg.clone(), rel, dp_core::rng::seeded_rng(t.id().into())))
//!     .collect::<Result<Vec<_>, _>>()?;
//! server.start(&mut net)?;
//! for round in 0..=1u32 {
//!     for c in &mut clients {
//!         assert_eq!(c.poll(&mut net)?.map(|m| m.round), Some(round));
//!         let mut h = EmbeddingEstimator::new(MaConfig::new(0.5, 0.5)?, 2, &[2])?;
//!         h.update(0, 0, &[0.3, 0.4])?;
//!         h.update(0, 1, &[0.6, 0.8])?;
//!         c.upload(&mut net, &[c.id() as f32; 3], None, 2, &h)?;
//!     }
//!     server.poll(&mut net)?;
//!     server.finish_round(&mut net)?;
//! }
//! assert!(server.is_finished());
//! assert_eq!(server.params(), &[0.5, 0.5, 0.5]); // equal training sizes
//! assert!(server.table_row(0, 2).is_some());      // node 2 is on client 1's boundary
//! # Ok::<(), cefedgnn::FedError>(())
//! ```

pub mod aml;
mod error;
pub mod estimator;
pub mod federation;
pub mod privacy;
pub mod protocol;
pub mod train;

pub use error::{FedError, Result};
