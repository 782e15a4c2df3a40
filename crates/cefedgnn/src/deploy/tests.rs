//! End to end tests of a deployed run: organisations written to files and read back, the server
//! and clients driven frame by frame, compared with `simulate`; faults, restarts, hostile input.

use std::path::Path;

use graph_core::generate::ContextualSbm;
use rand::SeedableRng;

use super::*;
use crate::error::FedError;
use crate::train::{FedTask, FedTrainConfig, Method, PartitionKind, simulate};

fn task(clients: usize) -> FedTask {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let ds = ContextualSbm {
        n: 150,
        classes: 3,
        p_in: 0.08,
        p_out: 0.01,
        dim: 6,
        mu: 1.0,
    }
    .sample(&mut rng)
    .unwrap();
    FedTask::from_node_dataset(&ds, clients, PartitionKind::Random, 0.5, 0.2, &mut rng).unwrap()
}

fn cfg() -> FedTrainConfig {
    FedTrainConfig {
        rounds: 3,
        local_steps: 3,
        halo_average: Some(0.1),
        seed: 7,
        noise: NoiseSource::Seeded(7),
        ..FedTrainConfig::default()
    }
}

fn orgs(task: &FedTask, dir: &Path) -> Vec<OrgData> {
    OrgData::write_all(task, dir)
        .unwrap()
        .iter()
        .map(|d| OrgData::read(d).unwrap())
        .collect()
}

fn client_options(method: Method) -> ClientOptions {
    ClientOptions {
        method,
        train: cfg(),
        noise: NoiseSource::Seeded(cfg().seed),
    }
}

fn server_options(method: Method, n: u32, min: usize) -> ServerOptions {
    ServerOptions {
        method,
        train: cfg(),
        num_clients: n,
        min_clients: min,
    }
}

/// Whether client `i` takes part in `round` (answers the broadcast), and how.
#[derive(Clone, Copy, PartialEq)]
enum Act {
    Answer,
    Silent,
    Faulty(Fault),
}

/// Drives a run to its end; `act(round, client)` decides each client's part. Returns the report
/// and the finals.
fn drive(
    server: &mut OrgServer,
    clients: &mut [OrgClient],
    act: &dyn Fn(u32, u32) -> Act,
) -> RunReport {
    while !server.is_final() {
        let round = server.round().unwrap();
        for c in clients.iter_mut() {
            let i = c.id();
            let a = act(round, i);
            if a == Act::Silent {
                continue;
            }
            let frame = server.frame(i).unwrap().to_vec();
            let Reply::Update(up) = c.handle(&frame).unwrap() else {
                panic!("update expected")
            };
            let up = match a {
                Act::Faulty(f) => f.apply(&up).unwrap(),
                _ => up,
            };
            let _ = server.accept(i, &up);
        }
        server.finish_round().unwrap();
    }
    for c in clients.iter_mut() {
        let frame = server.frame(c.id()).unwrap().to_vec();
        let Reply::Final(f) = c.handle(&frame).unwrap() else {
            panic!("final report expected")
        };
        server.accept_final(c.id(), &f.to_json()).unwrap();
    }
    server.report().unwrap()
}

fn start(server: &mut OrgServer, clients: &[OrgClient]) {
    for c in clients {
        let a = Announcement::from_json(&c.announcement().to_json()).unwrap();
        server.register(a).unwrap();
    }
    server.start().unwrap();
}

#[test]
fn a_deployed_run_computes_what_simulate_computes() {
    let t = task(3);
    let dir = tempfile::tempdir().unwrap();
    let data = orgs(&t, dir.path());
    for method in [Method::FedAvg, Method::CeFedGnn] {
        let sim = simulate(&t, &cfg(), method, &mut |_| {}).unwrap();
        let mut clients: Vec<OrgClient> = data
            .iter()
            .map(|d| OrgClient::new(d, client_options(method)).unwrap())
            .collect();
        let mut server = OrgServer::new(server_options(method, 3, 3)).unwrap();
        start(&mut server, &clients);
        let r = drive(&mut server, &mut clients, &|_, _| Act::Answer);
        assert_eq!(r.f1_per_client, sim.f1_per_client, "{method:?}");
        assert_eq!(r.f1_pooled.to_bits(), sim.f1_pooled.to_bits());
        assert_eq!((r.bytes_up, r.bytes_down), (sim.bytes_up, sim.bytes_down));
        assert!(r.events.is_empty() && r.missing_finals.is_empty());
        let eps = sim.privacy.as_ref().map(|p| p.eps_rdp);
        assert_eq!(r.eps_max, eps);
        assert_eq!(r.not_covered, crate::privacy::NOT_COVERED);
        assert!(r.not_covered.contains("NOT covered"));
    }
}

#[test]
fn the_org_files_round_trip_and_hold_only_the_organisations_rows() {
    let t = task(3);
    let dir = tempfile::tempdir().unwrap();
    let data = orgs(&t, dir.path());
    for (i, d) in data.iter().enumerate() {
        assert_eq!(*d, OrgData::from_task(&t, i as u32).unwrap());
        let topo = t.fed.client(i as u32).unwrap();
        assert_eq!(d.nodes, topo.nodes());
        let mine = d.topology().unwrap();
        assert_eq!(mine.boundary(), topo.boundary());
        assert_eq!(mine.halo(), topo.halo());
        assert!(d.edges.iter().all(|&(u, v)| topo.owns(u) || topo.owns(v)));
    }
}

#[test]
fn a_round_completes_without_a_refused_or_absent_client_and_its_ledger_counts_everything() {
    let t = task(3);
    let dir = tempfile::tempdir().unwrap();
    let data = orgs(&t, dir.path());
    let mut clients: Vec<OrgClient> = data
        .iter()
        .map(|d| OrgClient::new(d, client_options(Method::CeFedGnn)).unwrap())
        .collect();
    let mut server = OrgServer::new(server_options(Method::CeFedGnn, 3, 2)).unwrap();
    start(&mut server, &clients);
    // Client 2 sends a NaN in round 1 and claims a wrong round in round 3; client 1 is down in
    // round 2 and rejoins in round 3.
    let act = |round: u32, i: u32| match (round, i) {
        (1, 2) => Act::Faulty(Fault::NonFinite),
        (3, 2) => Act::Faulty(Fault::WrongRound),
        (2, 1) => Act::Silent,
        _ => Act::Answer,
    };
    let r = drive(&mut server, &mut clients, &act);
    let ev: Vec<(u32, u32, &str)> = r
        .events
        .iter()
        .map(|e| (e.round, e.client, e.kind.as_str()))
        .collect();
    assert_eq!(
        ev,
        [
            (1, 2, "rejected"),
            (1, 2, "absent"),
            (2, 1, "absent"),
            (3, 2, "rejected"),
            (3, 2, "absent"),
        ]
    );
    assert!(
        r.events[0].detail.contains("non-finite"),
        "{:?}",
        r.events[0]
    );
    assert!(r.f1_per_client.iter().all(Option::is_some));
    // Client 2's refused updates still carried releases: its ledger counts all 4 rounds.
    let releases = |i: usize| r.privacy[i].as_ref().unwrap()["max_releases"].as_u64();
    assert_eq!(releases(2), Some(4));
    assert_eq!(releases(1), Some(3));
    // The server counts only the updates it accepted.
    let up_rounds: Vec<u64> = r.per_round.iter().map(|x| x.up).collect();
    assert_eq!(up_rounds.iter().filter(|&&b| b > 0).count(), 4);
    assert!(r.events[3].detail.contains("round 2"), "{:?}", r.events[3]);
    // Fewer than min_clients: the round does not close.
    let mut server = OrgServer::new(server_options(Method::CeFedGnn, 3, 3)).unwrap();
    start(&mut server, &clients_fresh(&data));
    assert!(matches!(server.finish_round(), Err(FedError::Rejected(_))));
}

fn clients_fresh(data: &[OrgData]) -> Vec<OrgClient> {
    data.iter()
        .map(|d| OrgClient::new(d, client_options(Method::CeFedGnn)).unwrap())
        .collect()
}

#[test]
fn a_restarted_server_and_restarted_clients_finish_the_same_run() {
    let t = task(3);
    let dir = tempfile::tempdir().unwrap();
    let data = orgs(&t, dir.path());
    let plain = {
        let mut clients = clients_fresh(&data);
        let mut server = OrgServer::new(server_options(Method::CeFedGnn, 3, 3)).unwrap();
        start(&mut server, &clients);
        drive(&mut server, &mut clients, &|_, _| Act::Answer)
    };
    let ckpt = dir.path().join("server.ckpt");
    let state = |i: u32| dir.path().join(format!("client-{i}.state"));
    let mut clients = clients_fresh(&data);
    let mut server = OrgServer::new(server_options(Method::CeFedGnn, 3, 3)).unwrap();
    start(&mut server, &clients);
    // Rounds 0 and 1, checkpoint after each; then round 2's broadcast reaches the clients,
    // which answer and save, and the server dies before aggregating.
    for _ in 0..2 {
        for c in &mut clients {
            let f = server.frame(c.id()).unwrap().to_vec();
            let Reply::Update(up) = c.handle(&f).unwrap() else {
                panic!()
            };
            c.save(&state(c.id())).unwrap();
            server.accept(c.id(), &up).unwrap();
        }
        server.finish_round().unwrap();
        server.checkpoint(&ckpt).unwrap();
    }
    for c in &mut clients {
        let f = server.frame(c.id()).unwrap().to_vec();
        c.handle(&f).unwrap();
        c.save(&state(c.id())).unwrap();
    }
    drop(server);
    drop(clients);
    // Everything restarts: the clients from their own state files, the server from its
    // checkpoint; the repeated round-2 broadcast is answered with the saved updates.
    let mut clients: Vec<OrgClient> = data
        .iter()
        .map(|d| {
            OrgClient::open(
                d,
                client_options(Method::CeFedGnn),
                &state(d.manifest.client),
            )
            .unwrap()
        })
        .collect();
    let mut server = OrgServer::resume(&ckpt, server_options(Method::CeFedGnn, 3, 3)).unwrap();
    assert_eq!(server.round(), Some(2));
    let r = drive(&mut server, &mut clients, &|_, _| Act::Answer);
    assert_eq!(r.f1_per_client, plain.f1_per_client);
    assert_eq!(r.privacy, plain.privacy);
    // The repeated broadcast of round 2 is real traffic; uploads are counted once.
    assert_eq!(r.bytes_up, plain.bytes_up);
    assert!(r.bytes_down > plain.bytes_down);
    // A checkpoint of other options is refused.
    let other = ServerOptions {
        min_clients: 2,
        ..server_options(Method::CeFedGnn, 3, 3)
    };
    assert!(matches!(
        OrgServer::resume(&ckpt, other),
        Err(FedError::Inconsistent(_))
    ));
}

#[test]
fn hostile_files_and_messages_get_typed_errors() {
    let t = task(3);
    let dir = tempfile::tempdir().unwrap();
    let paths = OrgData::write_all(&t, dir.path()).unwrap();
    let org = &paths[0];
    let nodes = std::fs::read_to_string(org.join("nodes.csv")).unwrap();
    let edges = std::fs::read_to_string(org.join("edges.csv")).unwrap();
    let cases: Vec<(&str, String)> = vec![
        ("nodes.csv", nodes.replacen(",train,", ",holiday,", 1)),
        ("nodes.csv", nodes.replacen("\n", "\n7,99,train\n", 1)),
        ("nodes.csv", format!("{nodes}999999,1,test,NaN,0,0,0,0,0\n")),
        ("edges.csv", format!("{edges}5,5\n")),
        ("edges.csv", format!("{edges}149999,149998\n")),
        ("edges.csv", format!("{edges}x,1\n")),
    ];
    for (file, text) in cases {
        std::fs::write(org.join(file), &text).unwrap();
        let e = OrgData::read(org).unwrap_err();
        assert!(
            matches!(e, FedError::Csv { .. } | FedError::Inconsistent(_)),
            "{file}: {e}"
        );
        std::fs::write(org.join("nodes.csv"), &nodes).unwrap();
        std::fs::write(org.join("edges.csv"), &edges).unwrap();
    }
    std::fs::remove_file(org.join("org.json")).unwrap();
    assert!(matches!(
        OrgData::read(org),
        Err(FedError::MissingFile { .. })
    ));
    assert!(matches!(
        Announcement::from_json(b"{\"client\": 1}"),
        Err(FedError::Malformed(_))
    ));
    let garbage = dir.path().join("garbage.ckpt");
    std::fs::write(&garbage, b"not a checkpoint").unwrap();
    assert!(matches!(
        OrgServer::resume(&garbage, server_options(Method::CeFedGnn, 3, 3)),
        Err(FedError::Malformed(_))
    ));
    // A client claiming another's boundary node, or another shape, is refused.
    let data = orgs(&t, &dir.path().join("again"));
    let clients = clients_fresh(&data);
    let mut server = OrgServer::new(server_options(Method::CeFedGnn, 3, 3)).unwrap();
    let mut a = clients[0].announcement();
    server.register(a.clone()).unwrap();
    a.num_classes = 4;
    assert!(server.register(a).is_err());
    let mut b = clients[1].announcement();
    b.num_params += 1;
    assert!(server.register(b).is_err());
    assert!(OrgServer::new(server_options(Method::CeFedGnn, 3, 4)).is_err());
    assert!(OrgServer::new(server_options(Method::SingleClient, 3, 3)).is_err());
    // The simulated-only baselines are refused by both roles.
    let dir = tempfile::tempdir().unwrap();
    let data = orgs(&task(3), dir.path());
    for m in [Method::FedGcn, Method::SwiftFedGnn] {
        assert!(OrgServer::new(server_options(m, 3, 3)).is_err(), "{m}");
        assert!(OrgClient::new(&data[0], client_options(m)).is_err(), "{m}");
    }
}
