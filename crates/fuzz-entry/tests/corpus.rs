//! Replays the committed fuzz corpora and crash regressions (`fuzz/corpus/<target>/*`,
//! `fuzz/regressions/<target>/*`) through the fuzz targets' entry points on stable Rust: an input
//! that once crashed a decoder fails this test if the crash comes back. Every target must have a
//! non-empty committed corpus.

use std::path::PathBuf;

use dpgraph_fuzz_entry::{TARGETS, run};

fn fuzz_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

fn inputs(kind: &str, target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = fuzz_dir().join(kind).join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out: Vec<(PathBuf, Vec<u8>)> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn every_target_has_a_committed_corpus_and_replays_it() {
    for target in TARGETS {
        let corpus = inputs("corpus", target);
        assert!(!corpus.is_empty(), "fuzz/corpus/{target} is empty");
        for (path, bytes) in corpus {
            let r = std::panic::catch_unwind(|| run(target, &bytes).expect("a known target"));
            assert!(r.is_ok(), "{target}: {} panics", path.display());
        }
    }
}

#[test]
fn crash_regressions_stay_fixed() {
    for target in TARGETS {
        for (path, bytes) in inputs("regressions", target) {
            let r = std::panic::catch_unwind(|| run(target, &bytes).expect("a known target"));
            assert!(
                r.is_ok(),
                "{target}: regression {} panics again",
                path.display()
            );
        }
    }
}

#[test]
fn unknown_targets_are_refused() {
    assert_eq!(
        run("no-such-target", b""),
        Err("unknown fuzz target no-such-target".to_string())
    );
}
