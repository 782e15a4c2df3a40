//! The Planetoid converter on CiteSeer's real files (`../shared/upstream/planetoid/`, byte for
//! byte as published): the result equals the mirror's independent conversion byte for byte;
//! hostile pickles are one typed error each.

mod common;

use std::path::{Path, PathBuf};

use graph_core::install::planetoid::{SUFFIXES, convert};
use graph_core::registry::sha256_hex;

fn upstream() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/upstream/planetoid");
    if p.join("ind.citeseer.allx").is_file() {
        Some(p)
    } else {
        assert!(
            !common::require(),
            "DPGRAPH_REQUIRE_DATA=1 but {} is missing",
            p.display()
        );
        eprintln!("skipping: {} not found", p.display());
        None
    }
}

fn files(dir: &Path) -> impl Fn(&str) -> Option<Vec<u8>> + '_ {
    move |s| std::fs::read(dir.join(format!("ind.citeseer.{s}"))).ok()
}

#[test]
fn citeseer_converts_to_the_mirrors_bytes() {
    let Some(dir) = upstream() else { return };
    let out = convert("citeseer", &files(&dir)).unwrap();
    // The mirror's checksums (datasets/citeseer/README.md of the shared mirror).
    for (file, sha) in [
        (
            "edges.txt",
            "1a689c95807a38c60f4ac5ed7a8a8f4565e9b5084b83d8ce62fa1e452e0c71cf",
        ),
        (
            "features.npy",
            "ed12710035bb5601ca2910148aed42b6f2474fb97593f213126a4941da21f27c",
        ),
        (
            "labels.npy",
            "2092ca9e11707a55e8c9b9fd5bbeb3f68a4db8bdd6987a956a8e3a95771362da",
        ),
    ] {
        assert_eq!(sha256_hex(&out[file]), sha, "{file}");
    }
    let edges = std::str::from_utf8(&out["edges.txt"])
        .unwrap()
        .lines()
        .count();
    assert_eq!(edges, 4552);
}

#[test]
fn hostile_planetoid_files_are_typed_errors() {
    let Some(dir) = upstream() else { return };
    let real = files(&dir);
    let with = |suffix: &'static str, bytes: Vec<u8>| {
        let real = &real;
        move |s: &str| {
            if s == suffix {
                Some(bytes.clone())
            } else {
                real(s)
            }
        }
    };
    // A global outside the subset (os.system): refused, nothing runs.
    let evil = b"\x80\x02cposix\nsystem\nU\x02idR.".to_vec();
    let e = convert("citeseer", &with("graph", evil))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("ind.citeseer.graph") && e.contains("not allowed"),
        "{e}"
    );
    // Truncated.
    let mut cut = std::fs::read(dir.join("ind.citeseer.tx")).unwrap();
    cut.truncate(cut.len() / 2);
    let e = convert("citeseer", &with("tx", cut))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("ind.citeseer.tx") && e.contains("truncated"),
        "{e}"
    );
    // A huge declared length.
    let huge = b"\x80\x02T\xff\xff\xff\xff.".to_vec();
    let e = convert("citeseer", &with("ally", huge))
        .unwrap_err()
        .to_string();
    assert!(e.contains("needs 4294967295 bytes"), "{e}");
    // A missing file and an out-of-range test id.
    let missing = |s: &str| if s == "ty" { None } else { real(s) };
    assert!(convert("citeseer", &missing).is_err());
    let e = convert("citeseer", &with("test.index", b"99999999\n".to_vec()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("test"), "{e}");
    assert_eq!(SUFFIXES.len(), 8);
}

#[test]
fn the_fuzz_seed_is_a_valid_four_node_set() {
    // fuzz/corpus/planetoid/seed-tiny: the eight files joined by 0xFF (made opcode by opcode).
    let seed = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/planetoid/seed-tiny"),
    )
    .unwrap();
    let parts: Vec<&[u8]> = seed.split(|&b| b == 0xFF).collect();
    assert_eq!(parts.len(), SUFFIXES.len());
    let file = |s: &str| {
        let i = SUFFIXES.iter().position(|&x| x == s)?;
        Some(parts[i].to_vec())
    };
    let out = convert("tiny", &file).unwrap();
    // allx rows 0–1, test ids 3 then 2 (tx row 0 → node 3), edges {0,1} and {2,3} (listed twice).
    assert_eq!(out["edges.txt"], b"0 1\n2 3\n");
    let labels = &out["labels.npy"][out["labels.npy"].len() - 32..];
    let labels: Vec<i64> = labels
        .chunks(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(labels, [0, 1, 0, 1]);
    let f = &out["features.npy"];
    assert_eq!(&f[f.len() - 12..], [1, 0, 0, 0, 1, 2, 3, 0, 0, 0, 0, 1]);
}

#[test]
fn mutated_pickles_never_panic() {
    use rand::{RngExt, SeedableRng};
    // Seeded mutations of the 4-node seed set (byte flips, truncations, insertions): every
    // outcome is Ok or a typed error; a panic fails the test.
    let seed = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/planetoid/seed-tiny"),
    )
    .unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(29);
    let (mut ok, mut errors) = (0, 0);
    for _ in 0..3000 {
        let mut data = seed.clone();
        for _ in 0..rng.random_range(1..4) {
            let i = rng.random_range(0..data.len());
            match rng.random_range(0..3) {
                0 => data[i] = rng.random(),
                1 => data.truncate(i),
                _ => data.insert(i, rng.random()),
            }
            if data.is_empty() {
                break;
            }
        }
        let parts: Vec<&[u8]> = data.split(|&b| b == 0xFF).collect();
        for p in &parts {
            let _ = graph_core::loaders::pickle::read("p", p);
        }
        let file = |s: &str| {
            let i = SUFFIXES.iter().position(|&x| x == s)?;
            parts.get(i).map(|p| p.to_vec())
        };
        match convert("tiny", &file) {
            Ok(_) => ok += 1,
            Err(_) => errors += 1,
        }
    }
    // Most mutations break the set; some (inside raw array data) leave it valid.
    assert!(errors > 1000 && ok > 10, "ok {ok}, errors {errors}");
}

/// PubMed's features are TF-IDF weights, not counts: a set whose `allx` holds a fraction converts
/// to float32 features (the value kept), as PyTorch Geometric reads it.
#[test]
fn fractional_features_convert_to_float32() {
    let seed = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/planetoid/seed-tiny"),
    )
    .unwrap();
    let mut parts: Vec<Vec<u8>> = seed.split(|&b| b == 0xFF).map(<[u8]>::to_vec).collect();
    let allx = SUFFIXES.iter().position(|&s| s == "allx").unwrap();
    let two = 2.0f32.to_le_bytes();
    let at = parts[allx]
        .windows(4)
        .position(|w| w == two)
        .expect("allx holds 2.0");
    parts[allx][at..at + 4].copy_from_slice(&0.25f32.to_le_bytes());
    let file = |s: &str| {
        let i = SUFFIXES.iter().position(|&x| x == s)?;
        Some(parts[i].clone())
    };
    let out = convert("tiny", &file).unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("features.npy"), &out["features.npy"]).unwrap();
    let x = graph_core::io::read_npy(&dir.path().join("features.npy")).unwrap();
    assert_eq!(x.shape, [4, 3]);
    assert_eq!(
        x.to_f32(),
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.25, 3.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    );
    assert!(matches!(x.data, graph_core::io::NpyData::F32(_)));
}
