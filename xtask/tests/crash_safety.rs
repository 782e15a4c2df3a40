//! Crash safety of `cargo xtask repro`: a run killed with SIGKILL at 10 seeded random moments
//! never leaves a half-written result under its final name (every result file present is
//! byte-identical to the one an uninterrupted run writes; the writers' temporary files are
//! hidden `.<name>.<pid>.tmp` files), and a `--resume` run after the kills completes with the
//! same bytes (the per-run `run.json` and `index.html`, which record wall times, are checked to
//! be complete instead). The experiment is the reconstruction-attack table of `repro edgerefine` on the
//! embedded Cora (installed offline into a temporary data directory).

#![cfg(unix)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use rand::{RngExt, SeedableRng};

fn xtask(args: &[&str], data: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_xtask"));
    c.args(args)
        .env("DPGRAPH_DATA", data)
        .env_remove("DPGRAPH_MIRROR")
        .env("DPGRAPH_UPSTREAM", data.join("no-network"))
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

fn repro_args(out: &Path) -> Vec<String> {
    [
        "repro",
        "edgerefine",
        "--quick",
        "--offline",
        "--parts",
        "rae",
        "--resume",
        "--out",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([out.display().to_string()])
    .collect()
}

/// The per-run files, which hold the run's wall times and so differ between runs: checked to be
/// complete, not byte-identical.
const PER_RUN: [&str; 2] = ["run.json", "index.html"];

/// Checks that a per-run file is complete (parses, or ends its document).
fn assert_complete(path: &Path, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    if path.ends_with("run.json") {
        assert!(
            serde_json::from_str::<serde_json::Value>(&text).is_ok(),
            "{} is not complete JSON",
            path.display()
        );
    } else {
        assert!(
            text.ends_with("</html>\n"),
            "{} is cut short",
            path.display()
        );
    }
}

/// Every file under `dir` (relative path → bytes), the writers' hidden temporary files aside.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if !p.file_name().unwrap().to_string_lossy().starts_with('.') {
                let rel = p.strip_prefix(dir).unwrap().to_path_buf();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

#[test]
fn a_killed_repro_leaves_only_complete_results_and_resumes_to_the_same_bytes() {
    let d = tempfile::tempdir().unwrap();
    let data = d.path().join("data");
    let status = xtask(&["datasets", "install", "cora"], &data)
        .status()
        .unwrap();
    assert!(status.success(), "installing the embedded Cora");

    let reference = d.path().join("reference");
    let t = Instant::now();
    let status = xtask(&[], &data)
        .args(repro_args(&reference))
        .status()
        .unwrap();
    assert!(status.success(), "the uninterrupted run");
    let total = t.elapsed();
    let want = files(&reference);
    assert!(want.keys().any(|p| p.ends_with("rae.json")), "{want:?}");

    let out = d.path().join("out");
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(17);
    for _ in 0..10 {
        let after = total.mul_f64(rng.random_range(0.0..1.2));
        let mut child = xtask(&[], &data).args(repro_args(&out)).spawn().unwrap();
        std::thread::sleep(after);
        let _ = child.kill(); // SIGKILL; the run may have finished already
        child.wait().unwrap();
        for (path, bytes) in files(&out) {
            if PER_RUN.iter().any(|f| path.ends_with(f)) {
                assert_complete(&path, &bytes);
                continue;
            }
            let Some(full) = want.get(&path) else {
                panic!("{} is not a result of the run", path.display());
            };
            assert!(
                &bytes == full,
                "{} after a kill at {after:?}: {} bytes, not the complete {}",
                path.display(),
                bytes.len(),
                full.len()
            );
        }
    }
    let status = xtask(&[], &data).args(repro_args(&out)).status().unwrap();
    assert!(status.success(), "the resumed run");
    let got = files(&out);
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>()
    );
    for (path, bytes) in &want {
        if PER_RUN.iter().any(|f| path.ends_with(f)) {
            assert_complete(path, &got[path]);
            continue;
        }
        assert!(
            &got[path] == bytes,
            "{} differs after resuming",
            path.display()
        );
    }
}
