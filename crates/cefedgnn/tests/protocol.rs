//! Server and clients over the in-process transport: full rounds, byte accounting, rejection of
//! bad messages without state change, and determinism under a seed.

use cefedgnn::FedError;
use cefedgnn::estimator::{EmbeddingEstimator, MaConfig};
use cefedgnn::federation::FederatedGraph;
use cefedgnn::privacy::ReleaseConfig;
use cefedgnn::protocol::{
    Client, ClientUpdate, EmbeddingRows, Endpoint, InProcessTransport, Message, ProtocolConfig,
    Server, Transport,
};
use graph_core::{Graph, Partition};

const DIMS: [u32; 2] = [3, 2];

fn setup() -> (FederatedGraph, ProtocolConfig, ReleaseConfig) {
    // Path 0-1-2-3-4-5 plus 0-5; clients {0,1}, {2,3}, {4,5}.
    let g = Graph::from_edges(6, &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (0, 5)]).unwrap();
    let fed = FederatedGraph::new(g, Partition::by_attribute(&[0, 0, 1, 1, 2, 2])).unwrap();
    let cfg = ProtocolConfig {
        num_clients: 3,
        num_params: 4,
        layer_dims: DIMS.to_vec(),
        share_gradient: true,
        num_rounds: 3,
        local_steps: 8,
    };
    let rel = ReleaseConfig {
        clip: 1.0,
        sigma0: dp_core::params::NoiseMultiplier::new(0.5).unwrap(),
        radius: 0.1,
        delta: dp_core::params::Delta::TEN_TO_MINUS_5,
        budget_eps: None,
    };
    (fed, cfg, rel)
}

struct Run {
    server: Server,
    clients: Vec<Client>,
    net: InProcessTransport,
}

/// Runs all rounds; client i "trains" by adding i+1 to every parameter, and its H rows are
/// constant per node.
fn run(seed: u64) -> Run {
    let (fed, cfg, rel) = setup();
    let mut net = InProcessTransport::new(3);
    let mut server = Server::new(cfg.clone(), fed.clients(), vec![0.0; 4]).unwrap();
    let mut clients: Vec<Client> = fed
        .clients()
        .iter()
        .map(|t| {
            Client::new(
                t,
                cfg.clone(),
                rel,
                dp_core::rng::seeded_rng(seed + u64::from(t.id())),
            )
            .unwrap()
        })
        .collect();
    server.start(&mut net).unwrap();
    let ma = MaConfig::new(0.5, 0.5).unwrap();
    for round in 0..=cfg.num_rounds {
        for (i, c) in clients.iter_mut().enumerate() {
            let meta = c.poll(&mut net).unwrap().expect("a broadcast is waiting");
            assert_eq!(meta.round, round);
            let topo = &fed.clients()[i];
            let mut h = EmbeddingEstimator::new(ma, topo.nodes().len(), &[3, 2]).unwrap();
            for (k, &v) in topo.nodes().iter().enumerate() {
                h.update(0, k, &[v as f32 * 0.1, 0.0, 0.1]).unwrap();
                h.update(1, k, &[0.2, v as f32 * 0.05]).unwrap();
            }
            let params: Vec<f32> = c.params().iter().map(|w| w + (i + 1) as f32).collect();
            let grad = vec![i as f32; 4];
            c.upload(&mut net, &params, Some(&grad), (i + 1) as u64, &h)
                .unwrap();
        }
        assert_eq!(server.poll(&mut net).unwrap(), 3);
        server.finish_round(&mut net).unwrap();
    }
    for c in &mut clients {
        let last = c.poll(&mut net).unwrap().unwrap();
        assert_eq!(last.round, cfg.num_rounds + 1);
        assert!(
            c.upload(
                &mut net,
                &[0.0; 4],
                Some(&[0.0; 4]),
                1,
                &EmbeddingEstimator::new(ma, 2, &[3, 2]).unwrap()
            )
            .is_err()
        );
    }
    Run {
        server,
        clients,
        net,
    }
}

#[test]
fn rounds_average_weighted_and_route_halo_rows() {
    let r = run(1);
    assert!(r.server.is_finished());
    // Weighted mean of the increments (1·1 + 2·2 + 3·3)/6 = 14/6 per round, 4 uploads.
    let want = 4.0 * 14.0 / 6.0;
    for &w in r.server.params() {
        assert!((w - want).abs() < 1e-4, "{w} vs {want}");
    }
    assert_eq!(r.server.grad().unwrap(), &[(0.0 + 2.0 + 6.0) / 6.0; 4]);
    // Client 0 owns {0,1}; its halo is {2, 5}; it holds noisy rows of both after round 0.
    let c0 = &r.clients[0];
    assert!(c0.halo_row(0, 2).is_some() && c0.halo_row(1, 5).is_some());
    assert!(c0.halo_row(0, 3).is_none(), "3 is not in client 0's halo");
    let row = c0.halo_row(0, 2).unwrap();
    assert_eq!(row, r.server.table_row(0, 2).unwrap());
    // Noisy: the released row is not the clipped H row [0.2, 0, 0.1].
    assert!(
        row.iter()
            .zip([0.2f32, 0.0, 0.1])
            .any(|(a, b)| (a - b).abs() > 1e-3)
    );
    // Every boundary node released once per round per layer: 4 rounds × 2 layers.
    assert_eq!(c0.releaser().count(0), 8);
    assert_eq!(c0.releaser().ledger().unwrap().entries().len(), 8);
    let rep = c0.releaser().report().unwrap();
    assert_eq!(rep.max_releases, 8);
    assert!(rep.eps_rdp <= rep.eps_closed_form && rep.standard_dp.eps_rdp > rep.eps_rdp);
}

#[test]
fn byte_counts_agree_between_roles_and_transport() {
    let r = run(2);
    let (_, cfg, _) = setup();
    for (i, c) in r.clients.iter().enumerate() {
        let i = i as u32;
        assert_eq!(c.traffic().up_total(i), r.server.traffic().up_total(i));
        assert_eq!(c.traffic().down_total(i), r.server.traffic().down_total(i));
        assert_eq!(
            c.traffic().up_total(i),
            r.net.bytes_between(Endpoint::Client(i), Endpoint::Server)
        );
        assert_eq!(
            c.traffic().down_total(i),
            r.net.bytes_between(Endpoint::Server, Endpoint::Client(i))
        );
    }
    let rounds = r.server.traffic().per_round();
    assert_eq!(rounds.len(), 5, "rounds 0..=3 plus the final broadcast");
    // Uploads of a round: every client sends W, G and |B_i| rows per layer: exact sizes.
    let up0 = 3 * cfg.update_bound(2) as u64;
    assert_eq!(rounds[1].up, up0);
    // Round 0 broadcasts carry no halo rows; later ones carry 2 halo nodes × (3 + 2) floats each.
    assert!(rounds[0].down < rounds[1].down);
    assert_eq!(rounds[1].down, 3 * cfg.broadcast_bound(2) as u64);
    assert_eq!(r.server.traffic().total(), r.net.total_bytes());
}

#[test]
fn same_seed_same_run() {
    let (a, b, c) = (run(7), run(7), run(8));
    for i in 0..3 {
        assert_eq!(
            a.clients[i].halo_row(1, a.clients[i].halo_row(0, 0).map_or(2, |_| 0)),
            b.clients[i].halo_row(1, b.clients[i].halo_row(0, 0).map_or(2, |_| 0))
        );
    }
    assert_eq!(a.server.table_row(0, 3), b.server.table_row(0, 3));
    assert_ne!(a.server.table_row(0, 3), c.server.table_row(0, 3));
    assert_eq!(a.server.params(), b.server.params());
}

#[test]
fn bad_messages_are_rejected_without_state_change() {
    let (fed, cfg, rel) = setup();
    let mut net = InProcessTransport::new(3);
    let mut server = Server::new(cfg.clone(), fed.clients(), vec![0.0; 4]).unwrap();
    let mut c1 = Client::new(
        &fed.clients()[1],
        cfg.clone(),
        rel,
        dp_core::rng::seeded_rng(0),
    )
    .unwrap();
    server.start(&mut net).unwrap();
    let good = |boundary: Vec<EmbeddingRows>, client: u32, round: u32, params: usize| {
        Message::Update(ClientUpdate {
            client,
            round,
            train_size: 1,
            params: vec![0.5; params],
            grad: Some(vec![0.0; params]),
            boundary,
        })
        .encode()
    };
    let rows = |nodes: Vec<u32>| EmbeddingRows {
        layer: 0,
        dim: 3,
        values: vec![0.1; 3 * nodes.len()],
        nodes,
    };
    // Client 1 owns {2, 3}, both on the boundary; node 1 belongs to client 0.
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (good(vec![rows(vec![1])], 1, 0, 4), "not in set"),
        (good(vec![rows(vec![2])], 0, 0, 4), "signed"),
        (good(vec![rows(vec![2])], 1, 5, 4), "round"),
        (good(vec![rows(vec![2])], 1, 0, 3), "length"),
        (
            good(vec![rows(vec![2]), rows(vec![3])], 1, 0, 4),
            "two blocks",
        ),
    ];
    for (frame, what) in &cases {
        let e = server.accept(Endpoint::Client(1), frame).unwrap_err();
        assert!(
            e.to_string().contains(what) || matches!(e, FedError::NotInSet { .. }),
            "{what}: {e}"
        );
        assert!(!server.all_received());
    }
    let mut big = good(vec![rows(vec![2, 3])], 1, 0, 4);
    big.extend_from_slice(&[0; 64]);
    assert!(matches!(
        server.accept(Endpoint::Client(1), &big),
        Err(FedError::MessageTooLarge { .. })
    ));
    let mut v9 = good(vec![rows(vec![2])], 1, 0, 4);
    v9[4] = 9;
    assert!(matches!(
        server.accept(Endpoint::Client(1), &v9),
        Err(FedError::UnknownVersion { found: 9, .. })
    ));
    assert!(
        server.finish_round(&mut net).is_err(),
        "no update accepted yet"
    );
    // A good update is accepted once; a duplicate is rejected.
    let ok = good(vec![rows(vec![2, 3])], 1, 0, 4);
    server.accept(Endpoint::Client(1), &ok).unwrap();
    assert!(server.accept(Endpoint::Client(1), &ok).is_err());

    // Client side: a halo row for a node client 1 does not border (0) is rejected, state kept.
    let (from, frame) = net.recv(Endpoint::Client(1)).unwrap().unwrap();
    let Message::Broadcast(mut b) = Message::decode(&frame, usize::MAX).unwrap() else {
        panic!("broadcast expected")
    };
    b.halo = vec![rows(vec![0])];
    let bad = Message::Broadcast(b.clone()).encode();
    assert!(matches!(
        c1.accept(from, &bad),
        Err(FedError::NotInSet {
            node: 0,
            set: "halo",
            ..
        })
    ));
    assert!(c1.meta().is_none() && c1.params() == [0.0; 4]);
    b.halo = vec![rows(vec![1])];
    b.params = vec![2.0; 4];
    let halo_ok = Message::Broadcast(b.clone()).encode();
    assert!(
        c1.accept(Endpoint::Client(0), &halo_ok).is_err(),
        "only the server may broadcast"
    );
    c1.accept(Endpoint::Server, &halo_ok).unwrap();
    assert_eq!(c1.halo_row(0, 1), Some(&[0.1f32, 0.1, 0.1][..]));
    assert!(
        c1.accept(Endpoint::Server, &halo_ok).is_err(),
        "a replayed round is rejected"
    );
    assert_eq!(c1.params(), &[2.0; 4]);
    // Configuration errors.
    assert!(
        Server::new(
            ProtocolConfig {
                local_steps: 0,
                ..cfg.clone()
            },
            fed.clients(),
            vec![0.0; 4]
        )
        .is_err()
    );
    assert!(Server::new(cfg.clone(), &fed.clients()[..2], vec![0.0; 4]).is_err());
    assert!(Server::new(cfg, fed.clients(), vec![0.0; 3]).is_err());
}
