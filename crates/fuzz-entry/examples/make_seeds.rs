//! Writes the committed seed corpus of every fuzz target into `fuzz/corpus/<target>/`:
//! `cargo run -p dpgraph-fuzz-entry --example make_seeds`. Small valid inputs of each format,
//! made with the project's own writers (and, for the AMLSim CSVs, the first rows of the mirror's
//! `amlsim-small` files), so that the fuzzer starts from the formats' structure.

use std::path::{Path, PathBuf};

use cefedgnn::aml::{AmlGenConfig, generate, write_amlworld_trans};
use cefedgnn::protocol::{ClientUpdate, EmbeddingRows, Message};
use dpgraph_fuzz_entry::{SPLIT, TARGETS};
use graph_core::Graph;
use graph_core::install::{GzipProfile, gzip};
use graph_core::io::{GraphSet, write_graph_set};

type Seeds = Vec<(&'static str, Vec<u8>)>;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus");
    let tmp = tempfile::tempdir()?;
    let g = Graph::from_edges(6, &[(0, 1), (1, 2), (2, 0), (3, 4)])?;
    let edge_list = b"# nodes 6\n0 1\n0 2\n1 2\n3 4\n".to_vec();
    let mut seeds: Vec<(&str, Seeds)> = Vec::new();
    seeds.push((
        "edge_list",
        vec![
            ("sorted", edge_list.clone()),
            (
                "unsorted-tabs-comments",
                b"# nodes 5\n# a comment\n3\t1\n0 4\r\n\n2 1\n".to_vec(),
            ),
        ],
    ));
    seeds.push((
        "edge_list_gz",
        vec![("gnu", gzip(&edge_list, GzipProfile::Gnu, "g.txt"))],
    ));
    write_graph_set(
        &tmp.path().join("s.json"),
        &[g.clone(), Graph::empty(2)?],
        GraphSet::Graphs,
    )?;
    write_graph_set(
        &tmp.path().join("p.json"),
        std::slice::from_ref(&g),
        GraphSet::Patterns,
    )?;
    seeds.push((
        "graph_set",
        vec![
            ("graphs", std::fs::read(tmp.path().join("s.json"))?),
            ("patterns", std::fs::read(tmp.path().join("p.json"))?),
        ],
    ));
    seeds.push((
        "npy",
        vec![
            ("f8-2x3", npy("<f8", "(2, 3)", &[0u8; 48])),
            ("i8-4", npy("<i8", "(4,)", &[1u8; 32])),
        ],
    ));
    seeds.push((
        "tu",
        vec![(
            "two-graphs",
            join(&[
                b"1, 2\n2, 3\n3, 1\n4, 5\n",
                b"1\n1\n1\n2\n2\n",
                b"1\n-1\n",
                b"0\n1\n0\n2\n2\n",
            ]),
        )],
    ));
    seeds.push((
        "ogb_raw",
        vec![(
            "two-graphs",
            join(&[b"3\n2\n", b"2\n1\n", b"0,1\n1,2\n0,1\n", b"1\n0\n"]),
        )],
    ));
    let registry = std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../datasets/registry.toml"),
    )?;
    seeds.push(("registry_toml", vec![("project-registry", registry)]));
    seeds.push((
        "archive",
        vec![
            (
                "gz-member",
                gzip(b"1, 2\n2, 3\n", GzipProfile::Python, "MUTAG_A.txt"),
            ),
            ("plain", b"1, 2\n".to_vec()),
        ],
    ));
    let cfg = AmlGenConfig {
        num_accounts: 64,
        num_normal: 120,
        attempt_scale: 0.02,
        ..AmlGenConfig::default()
    };
    let aml = generate(&cfg, &mut dp_core_rng(3))?;
    write_amlworld_trans(&aml, &tmp.path().join("trans.csv"))?;
    seeds.push((
        "amlworld_csv",
        vec![("generated", std::fs::read(tmp.path().join("trans.csv"))?)],
    ));
    seeds.push(("amlsim_csv", vec![("mirror-rows", amlsim()?)]));
    let update = Message::Update(ClientUpdate {
        client: 2,
        round: 5,
        train_size: 40,
        params: vec![0.5; 3],
        grad: None,
        boundary: vec![EmbeddingRows {
            layer: 0,
            dim: 2,
            nodes: vec![7],
            values: vec![1.0, -1.0],
        }],
    });
    seeds.push(("protocol_frame", vec![("update", update.encode())]));
    let dense = graph_core::generate::erdos_renyi(40, 0.3, &mut dp_core_rng(4))?;
    seeds.push((
        "report_rr",
        vec![
            (
                "dense",
                edgerefine::report::encode_report(&dense, "1".parse()?)?,
            ),
            (
                "sparse",
                edgerefine::report::encode_report(&g, "2".parse()?)?,
            ),
        ],
    ));
    // Planetoid: a 4-node set of Python-2-style pickles assembled opcode by opcode (csr
    // features, one-hot int32 labels, a defaultdict graph; no 0xFF byte inside a part).
    seeds.push((
        "planetoid",
        vec![(
            "tiny",
            include_bytes!("../../../fuzz/corpus/planetoid/seed-tiny").to_vec(),
        )],
    ));
    // gnn-benchmark npz: the members of a 3-node graph (a path, one self-loop, attributes > 1),
    // in the order of `npz::MEMBERS`, joined by SPLIT (no 0xFF byte inside a member).
    let i32s = |v: &[i32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let f32s = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let i64s = |v: &[i64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let members = [
        npy("<f4", "(5,)", &f32s(&[1.0; 5])),
        npy("<i4", "(5,)", &i32s(&[1, 0, 2, 2, 1])),
        npy("<i4", "(4,)", &i32s(&[0, 1, 4, 5])),
        npy("<i8", "(2,)", &i64s(&[3, 3])),
        npy("<f4", "(3,)", &f32s(&[2.0, 1.0, 1.0])),
        npy("<i4", "(3,)", &i32s(&[0, 1, 1])),
        npy("<i4", "(4,)", &i32s(&[0, 1, 2, 3])),
        npy("<i8", "(2,)", &i64s(&[3, 2])),
        npy("<i8", "(3,)", &i64s(&[0, 1, 0])),
    ];
    assert!(members.iter().all(|m| !m.contains(&SPLIT)));
    seeds.push(("npz", vec![("path3", members.join(&SPLIT))]));
    assert_eq!(seeds.len(), TARGETS.len());
    for (target, files) in seeds {
        assert!(TARGETS.contains(&target), "{target}");
        let dir = root.join(target);
        std::fs::create_dir_all(&dir)?;
        for (name, bytes) in files {
            std::fs::write(dir.join(format!("seed-{name}")), bytes)?;
        }
    }
    println!("seeds written to {}", root.display());
    Ok(())
}

fn dp_core_rng(seed: u64) -> rand_chacha::ChaCha20Rng {
    use rand::SeedableRng;
    rand_chacha::ChaCha20Rng::seed_from_u64(seed)
}

/// A version-1 `.npy` file.
fn npy(descr: &str, shape: &str, body: &[u8]) -> Vec<u8> {
    let header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}\n");
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(body);
    out
}

/// The parts of a multi-file input, joined by the split byte.
fn join(parts: &[&[u8]]) -> Vec<u8> {
    parts.join(&SPLIT)
}

/// The header and first rows of the mirror's `amlsim-small` files (a fixed copy when the
/// mirror is absent).
fn amlsim() -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let files = [
        "accounts.csv",
        "transactions.csv",
        "alert_transactions.csv",
        "alert_members.csv",
    ];
    let fallback: [&[u8]; 4] = [
        b"ACCOUNT_ID,CUSTOMER_ID,INIT_BALANCE,COUNTRY,ACCOUNT_TYPE,IS_SAR,BANK_ID\n0,C_0,68934.46,US,I,false,bank_a\n1,C_1,64486.11,US,I,true,bank_b\n",
        b"id,src,dst,ttype\n0,0,1,TRANSFER\n",
        b"alertID,reason,isSAR,src,dst,amount,step,src_bank,dst_bank\n0,fan_in,true,1,0,2780.00,436,bank_b,bank_a\n",
        b"alertID,reason,accountID,isMain,isSAR,modelID,minAmount,maxAmount,startStep,endStep,scheduleID,bankID\n0,fan_in,0,true,true,2,2780.00,2780.00,433,448,2,bank_a\n0,fan_in,1,false,true,2,2780.00,2780.00,433,448,2,bank_b\n",
    ];
    let mirror: &Path = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = mirror.join("../../../shared/datasets/amlsim-small");
    let mut parts = Vec::new();
    for (f, fb) in files.iter().zip(fallback) {
        let part = match std::fs::read_to_string(dir.join(f)) {
            Ok(text) => text
                .lines()
                .take(6)
                .map(|l| format!("{l}\n"))
                .collect::<String>()
                .into_bytes(),
            Err(_) => fb.to_vec(),
        };
        parts.push(part);
    }
    let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    Ok(join(&refs))
}
