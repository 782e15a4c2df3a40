//! Tests of the report format: round trips, every header field corrupted, truncation, hostile
//! sizes.

use dp_core::params::Epsilon;

use graph_core::Graph;
use graph_core::generate::erdos_renyi;

use super::*;
use crate::EdgeRefineError;

fn noisy(n: usize, eps: f64, seed: u64) -> Graph {
    let density = if eps > 4.0 { 0.005 } else { 0.05 };
    let g = erdos_renyi(n, density, &mut dp_core::rng::seeded_rng(seed)).unwrap();
    crate::perturb(
        &g,
        Epsilon::new(eps).unwrap(),
        &mut dp_core::rng::seeded_rng(seed + 1),
    )
    .unwrap()
}

fn offset_of(r: crate::Result<impl std::fmt::Debug>) -> (u64, ReportFault) {
    match r {
        Err(EdgeRefineError::Report { offset, fault }) => (offset, fault),
        other => panic!("expected a report error, got {other:?}"),
    }
}

#[test]
fn round_trip_dense_and_sparse_through_a_file() {
    let dir = std::env::temp_dir().join(format!("edgerefine-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (n, eps, want) in [
        (300, 1.0, Encoding::Dense),
        (301, 6.0, Encoding::Sparse),
        (65, 2.0, Encoding::Dense),
    ] {
        let g = noisy(n, eps, n as u64);
        let path = dir.join(format!("r{n}.rr"));
        let h = write_report(&path, &g, Epsilon::new(eps).unwrap()).unwrap();
        assert_eq!(h.encoding, want, "n = {n}");
        assert!(is_report(&path).unwrap());
        let r = Report::open(&path).unwrap();
        assert_eq!(*r.header(), h);
        assert_eq!(r.header().edges, g.num_edges() as u64);
        assert_eq!(r.to_graph().unwrap(), g);
        assert_eq!(r.to_bit_adjacency().unwrap(), g.bit_adjacency(), "n = {n}");
        let (h2, g2) = decode_report(r.as_bytes()).unwrap();
        assert_eq!((h2, g2), (h, g));
    }
    // Edge cases: no nodes, one node, an empty graph, the complete graph.
    for g in [
        Graph::empty(0).unwrap(),
        Graph::empty(1).unwrap(),
        Graph::empty(70).unwrap(),
        Graph::from_edges(
            9,
            &(0..9u32)
                .flat_map(|i| (i + 1..9).map(move |j| (i, j)))
                .collect::<Vec<_>>(),
        )
        .unwrap(),
    ] {
        let bytes = encode_report(&g, Epsilon::new(1.0).unwrap()).unwrap();
        assert_eq!(decode_report(&bytes).unwrap().1, g);
    }
    let text = dir.join("text.txt");
    std::fs::write(&text, "0 1\n").unwrap();
    assert!(!is_report(&text).unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_header_field_corrupted_is_an_error_at_its_offset() {
    for eps in [1.0, 6.0] {
        let bytes = encode_report(&noisy(200, eps, 9), Epsilon::new(eps).unwrap()).unwrap();
        // (field offset, field length, offsets at which its corruption may be reported).
        let fields: [(usize, usize, &[u64]); 9] = [
            (0, 8, &[0]),
            (8, 4, &[8]),
            (12, 4, &[12, 16, 24]),
            (16, 8, &[16, 24, 56]),
            (24, 8, &[24]),
            (32, 8, &[32, 40, 56]),
            (40, 8, &[40]),
            (48, 8, &[16, 24]),
            (56, 8, &[56]),
        ];
        for (at, len, allowed) in fields {
            for byte in at..at + len {
                for flip in [0x01u8, 0x80] {
                    let mut bad = bytes.clone();
                    bad[byte] ^= flip;
                    let (offset, fault) = offset_of(decode_report(&bad));
                    assert!(
                        allowed.contains(&offset),
                        "eps {eps} byte {byte}: offset {offset} ({fault})"
                    );
                }
            }
        }
        // Body bits changed with the edge count kept (one set bit cleared, one clear bit set,
        // or two sparse bytes swapped): the checksum catches it.
        let mut bad = bytes.clone();
        let body = &mut bad[HEADER_LEN..];
        let set = body.iter().position(|&b| b != 0 && b != 0xff).unwrap();
        let bit = body[set].trailing_zeros();
        let clear = (0..8).find(|&k| body[set] & (1 << k) == 0).unwrap();
        body[set] ^= (1 << bit) | (1 << clear);
        let (offset, fault) = offset_of(decode_report(&bad));
        assert!(
            offset == 56 && matches!(fault, ReportFault::Checksum { .. })
                || offset >= HEADER_LEN as u64 && matches!(fault, ReportFault::BadBody(_)),
            "eps {eps}: {offset} {fault}"
        );
    }
}

#[test]
fn truncation_at_many_offsets_names_the_end_of_the_file() {
    let bytes = encode_report(&noisy(120, 1.0, 4), Epsilon::new(1.0).unwrap()).unwrap();
    for cut in (0..bytes.len())
        .step_by(7)
        .chain([1, 8, 63, 64, 65, bytes.len() - 1])
    {
        let (offset, fault) = offset_of(decode_report(&bytes[..cut]));
        assert_eq!(offset, cut as u64, "cut {cut}: {fault}");
        assert!(matches!(fault, ReportFault::Truncated { len, .. } if len == cut as u64));
    }
    // Trailing bytes are refused too.
    let mut long = bytes.clone();
    long.push(0);
    assert!(matches!(
        offset_of(decode_report(&long)),
        (_, ReportFault::SizeMismatch { .. })
    ));
}

#[test]
fn a_header_claiming_2_pow_31_nodes_in_100_bytes_is_refused_without_allocating() {
    let mut bytes = encode_report(
        &Graph::from_edges(2, &[(0, 1)]).unwrap(),
        Epsilon::new(1.0).unwrap(),
    )
    .unwrap();
    assert_eq!(decode_report(&bytes).unwrap().0.encoding, Encoding::Dense);
    bytes.resize(100, 0);
    let n: u64 = 1 << 31;
    bytes[16..24].copy_from_slice(&n.to_le_bytes());
    // body_len left as is (8): it does not match n, refused at n's offset.
    let (offset, fault) = offset_of(decode_report(&bytes));
    assert_eq!(offset, 16);
    assert!(
        matches!(fault, ReportFault::SizeMismatch { expected, got: 8, .. } if expected == (u128::from(n) * u128::from(n - 1) / 2).div_ceil(64) * 8)
    );
    // A consistent body_len: the file is far too short, refused at its end.
    let want = (u128::from(n) * u128::from(n - 1) / 2).div_ceil(64) * 8;
    bytes[48..56].copy_from_slice(&(want as u64).to_le_bytes());
    let (offset, fault) = offset_of(decode_report(&bytes));
    assert_eq!(offset, 100);
    assert!(matches!(fault, ReportFault::Truncated { len: 100, .. }));
    // Sparse: 2^31 nodes are more than 100 bytes may declare (graph_core::limits), refused at
    // n's offset; with a small n and a huge m, refused at m's offset.
    bytes[12..16].copy_from_slice(&1u32.to_le_bytes());
    bytes[24..32].copy_from_slice(&(1u64 << 40).to_le_bytes());
    assert!(matches!(
        offset_of(decode_report(&bytes)),
        (16, ReportFault::BadField { field: "n", .. })
    ));
    bytes[16..24].copy_from_slice(&(1u64 << 20).to_le_bytes());
    bytes[24..32].copy_from_slice(&(1u64 << 35).to_le_bytes());
    assert!(matches!(
        offset_of(decode_report(&bytes)),
        (24, ReportFault::SizeMismatch { .. })
    ));
    bytes[16..24].copy_from_slice(&n.to_le_bytes());
    // More than 2^32 nodes: a bad field.
    bytes[16..24].copy_from_slice(&((1u64 << 32) + 1).to_le_bytes());
    assert!(matches!(
        offset_of(decode_report(&bytes)),
        (16, ReportFault::BadField { field: "n", .. })
    ));
}

#[test]
fn sparse_body_out_of_order_or_range_names_the_pair() {
    let g = Graph::from_edges(1000, &[(1, 2), (3, 900)]).unwrap();
    let bytes = encode_report(&g, Epsilon::new(8.0).unwrap()).unwrap();
    assert_eq!(decode_report(&bytes).unwrap().0.encoding, Encoding::Sparse);
    let fix = |b: &mut Vec<u8>| {
        let c = super::checksum::checksum(&b[..56], &b[HEADER_LEN..]);
        b[56..64].copy_from_slice(&c.to_le_bytes());
    };
    let mut swapped = bytes.clone();
    swapped.copy_within(64..72, 72); // second pair := first pair
    fix(&mut swapped);
    assert!(matches!(
        offset_of(decode_report(&swapped)),
        (72, ReportFault::BadBody(_))
    ));
    let mut out = bytes.clone();
    out[76..80].copy_from_slice(&1000u32.to_le_bytes());
    fix(&mut out);
    assert!(matches!(
        offset_of(decode_report(&out)),
        (72, ReportFault::BadBody(_))
    ));
}

#[test]
fn a_sparse_report_declaring_385m_nodes_in_72_bytes_is_refused() {
    // Found by the report_rr fuzz target (fuzz/regressions/report_rr/): a consistent sparse
    // report (one edge, valid checksum) whose n asked the decoder to build a graph of
    // 385,875,014 nodes, ≈ 3 GB of offsets, from 72 bytes.
    let g = Graph::from_edges(1000, &[(1, 2)]).unwrap();
    let mut bytes = encode_report(&g, Epsilon::new(1.0).unwrap()).unwrap();
    assert_eq!(decode_report(&bytes).unwrap().0.encoding, Encoding::Sparse);
    assert_eq!(bytes.len(), 72);
    bytes[16..24].copy_from_slice(&385_875_014u64.to_le_bytes());
    let sum = super::checksum::checksum(&bytes[..56], &bytes[64..]);
    bytes[56..64].copy_from_slice(&sum.to_le_bytes());
    assert!(matches!(
        offset_of(decode_report(&bytes)),
        (16, ReportFault::BadField { field: "n", .. })
    ));
    // Within the limit (2^20 + 64 per byte) a sparse report still declares isolated nodes.
    bytes[16..24].copy_from_slice(&1_000_000u64.to_le_bytes());
    let sum = super::checksum::checksum(&bytes[..56], &bytes[64..]);
    bytes[56..64].copy_from_slice(&sum.to_le_bytes());
    assert_eq!(decode_report(&bytes).unwrap().1.num_nodes(), 1_000_000);
}
