//! Crash safety of the commands that write files: `dpgraph edgerefine perturb` (binary report)
//! and `refine` (edge list) killed with SIGKILL at 10 seeded random moments each never leave a
//! half-written file under the output's name (it is absent or byte-identical to the output of an
//! uninterrupted run with the same seed), and a run after the kills completes with the same bytes.

#![cfg(unix)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rand::{RngExt, SeedableRng};

fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

fn dpgraph() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_dpgraph"));
    c.stdout(Stdio::null()).stderr(Stdio::null());
    c
}

/// Runs `args` to completion and returns its wall time.
fn complete(args: &[&str]) -> Duration {
    let t = Instant::now();
    let status = dpgraph().args(args).status().unwrap();
    assert!(status.success(), "dpgraph {args:?} failed");
    t.elapsed()
}

/// Starts `args`, kills it with SIGKILL after `after`, and checks `out`: absent or equal to
/// `want`.
fn kill_and_check(args: &[&str], after: Duration, out: &Path, want: &[u8]) {
    let _ = std::fs::remove_file(out);
    let mut child = dpgraph().args(args).spawn().unwrap();
    std::thread::sleep(after);
    let _ = child.kill(); // SIGKILL on unix; the process may have finished already
    child.wait().unwrap();
    if let Ok(got) = std::fs::read(out) {
        assert!(
            got == want,
            "{} after a kill at {after:?}: {} bytes, not the complete {} bytes",
            out.display(),
            got.len(),
            want.len()
        );
    }
}

#[test]
fn killed_perturb_and_refine_leave_no_partial_output() {
    let dir = tempfile::tempdir().unwrap();
    let p = |f: &str| dir.path().join(f).display().to_string();
    // A 3,000-node graph: about a million noisy edges at ε = 1 (a 1.1 MB report).
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(5);
    let mut text = String::from("# nodes 3000\n");
    for u in 0..3000u32 {
        for _ in 0..3 {
            let v = rng.random_range(0..3000u32);
            if v > u {
                text.push_str(&format!("{u} {v}\n"));
            }
        }
    }
    // Drop duplicate lines (the format refuses them).
    let mut lines: Vec<&str> = text.lines().collect();
    lines[1..].sort_unstable();
    lines.dedup();
    std::fs::write(dir.path().join("g.txt"), lines.join("\n") + "\n").unwrap();

    let perturb = |out: &str| {
        vec![
            "--seed".to_string(),
            "9".into(),
            "edgerefine".into(),
            "perturb".into(),
            "--graph".into(),
            p("g.txt"),
            "--eps".into(),
            "1".into(),
            "--out".into(),
            p(out),
        ]
    };
    let refine = |out: &str| {
        vec![
            "--seed".to_string(),
            "9".into(),
            "edgerefine".into(),
            "refine".into(),
            "--noisy".into(),
            p("ref.rr"),
            "--k".into(),
            "0.5".into(),
            "--out".into(),
            p(out),
        ]
    };

    // Uninterrupted references.
    let t_perturb = complete(&refs(&perturb("ref.rr")));
    let want_rr = std::fs::read(dir.path().join("ref.rr")).unwrap();
    let t_refine = complete(&refs(&refine("ref.txt")));
    let want_txt = std::fs::read(dir.path().join("ref.txt")).unwrap();

    let mut moments = rand_chacha::ChaCha20Rng::seed_from_u64(10);
    for (args, total, out, want) in [
        (perturb("x.rr"), t_perturb, "x.rr", &want_rr),
        (refine("x.txt"), t_refine, "x.txt", &want_txt),
    ] {
        let args = refs(&args);
        for _ in 0..10 {
            let after = total.mul_f64(moments.random_range(0.0..1.2));
            kill_and_check(&args, after, &dir.path().join(out), want);
        }
        // The run after the kills completes with the same bytes.
        complete(&args);
        assert_eq!(&std::fs::read(dir.path().join(out)).unwrap(), want);
    }
}
