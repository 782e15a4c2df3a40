//! Resource bombs against the protocol decoder: frames whose header or payload declares sizes
//! far beyond the bytes present (a 2³²−1-byte payload, 2³²−1 parameters, 2³²−1 row blocks) get a
//! typed error, with the peak of live heap bytes during decoding under 100 MB (a counting global
//! allocator; the frames are a few dozen bytes).

use cefedgnn::protocol::{ClientUpdate, FRAME_HEADER_BYTES, Message};

#[global_allocator]
static ALLOC: alloc_meter::Counting = alloc_meter::Counting;

#[test]
fn frames_declaring_huge_sizes_are_refused_without_large_allocations() {
    let valid = Message::Update(ClientUpdate {
        client: 1,
        round: 2,
        train_size: 3,
        params: vec![0.5; 2],
        grad: None,
        boundary: vec![],
    })
    .encode();
    assert!(Message::decode(&valid, 1 << 20).is_ok());
    let mut bombs = Vec::new();
    // The header's payload length says 2³² − 1.
    let mut b = valid.clone();
    b[7..11].copy_from_slice(&u32::MAX.to_le_bytes());
    bombs.push(("payload length", b));
    // The parameter count (after client, round, train_size) says 2³² − 1.
    let at = FRAME_HEADER_BYTES + 4 + 4 + 8;
    let mut b = valid.clone();
    b[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    bombs.push(("parameter count", b));
    // The row-block count (the last 4 bytes) says 2³² − 1.
    let mut b = valid.clone();
    let end = b.len();
    b[end - 4..].copy_from_slice(&u32::MAX.to_le_bytes());
    bombs.push(("block count", b));
    for (what, frame) in bombs {
        let (r, peak) = alloc_meter::peak_during(|| Message::decode(&frame, 1 << 20));
        eprintln!("{what}: peak live heap {peak} bytes");
        assert!(r.is_err(), "{what}: decoded");
        assert!(peak < 100 << 20, "{what}: peak {peak} bytes");
    }
}
