//! `cargo xtask bench-e2e`: EdgeRefine as a user runs it, side by side in one run. On one
//! generated graph, each repetition runs, interleaved:
//!
//! - `library`: `edgerefine::perturb` + `edgerefine::refine` in this (release) process, the
//!   graph in memory, `E` estimated from the noisy graph;
//! - `cli`: `dpgraph edgerefine perturb --out noisy.rr` then `dpgraph edgerefine refine` (no
//!   `--true-edges`), two processes, file I/O included;
//! - `numpy`: `benches/numpy/edgerefine.py` perturb then refine (a plain numpy implementation
//!   of the same steps, `A @ A`, two processes; skipped with a message when the Python has no
//!   numpy);
//! - `numpy_blocked`: the same script's perturb then `refine --blocked` (one BLAS GEMM per block
//!   of rows over the upper triangle only: half the multiply-adds, the fastest numpy version we
//!   could write).
//!
//! Then a parity check: both numpy refines and `dpgraph edgerefine refine --tie-break reference`
//! on the same noisy graph (the CLI's, as text) with the same `E` must release the same edges.
//! Medians and ratios go to stdout and to `<out>/edgerefine_e2e.{json,md}`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail, ensure};
use clap::Args;
use edgerefine::{RefineParams, estimate_edges, perturb, refine};
use graph_core::Graph;
use graph_core::generate::erdos_renyi;
use graph_core::io::{read_edge_list, write_edge_list};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde_json::json;

use crate::{project_root, run_cargo};

/// `cargo xtask bench-e2e` flags.
#[derive(Debug, Args)]
pub(crate) struct E2eArgs {
    /// Nodes of the generated G(n, m) graph.
    #[arg(long, default_value_t = 10_000)]
    n: usize,
    /// Expected true edges of the generated graph.
    #[arg(long, default_value_t = 20_000)]
    m: usize,
    /// ε of the randomized response.
    #[arg(long, default_value_t = 1.0)]
    eps: f64,
    /// Sampling rate k of the refine.
    #[arg(long, default_value_t = 0.01)]
    k: f64,
    /// Repetitions of each variant (interleaved); the medians are reported.
    #[arg(long, default_value_t = 3)]
    reps: usize,
    /// The Python interpreter for the numpy comparison (needs numpy).
    #[arg(long, default_value = "python3")]
    python: PathBuf,
    /// Where the results go.
    #[arg(long, default_value = "target/bench")]
    out: PathBuf,
}

/// Runs the benchmark.
pub(crate) fn run(a: &E2eArgs) -> Result<()> {
    ensure!(a.reps >= 1, "--reps must be at least 1");
    ensure!(a.n >= 2, "--n must be at least 2");
    run_cargo(&["build", "--release", "--quiet", "-p", "dpgraph"])?;
    let root = project_root();
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let dpgraph = target.join("release").join("dpgraph");
    ensure!(dpgraph.exists(), "{} not found", dpgraph.display());
    let script = root.join("benches/numpy/edgerefine.py");
    let numpy = has_numpy(&a.python);
    if !numpy {
        eprintln!(
            "bench-e2e: {} has no numpy: the numpy column is skipped (pass --python)",
            a.python.display()
        );
    }

    let work = std::env::temp_dir().join(format!("dpgraph-bench-e2e-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let result = measure(a, &dpgraph, &script, numpy, &work);
    let _ = std::fs::remove_dir_all(&work);
    let report = result?;
    let out = if a.out.is_absolute() {
        a.out.clone()
    } else {
        root.join(&a.out)
    };
    std::fs::create_dir_all(&out)?;
    let md = markdown(&report);
    println!("{md}");
    crate::output::write(&out, "edgerefine_e2e.md", md.as_bytes())?;
    crate::output::write(
        &out,
        "edgerefine_e2e.json",
        serde_json::to_string_pretty(&report)?.as_bytes(),
    )?;
    Ok(())
}

fn measure(
    a: &E2eArgs,
    dpgraph: &Path,
    script: &Path,
    numpy: bool,
    work: &Path,
) -> Result<serde_json::Value> {
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let n = a.n as f64;
    let g = erdos_renyi(a.n, (2.0 * a.m as f64 / (n * (n - 1.0))).min(1.0), &mut rng)?;
    let graph = work.join("graph.txt");
    write_edge_list(&graph, &g)?;
    let s = |p: &Path| p.display().to_string();
    let (eps, k) = (a.eps.to_string(), a.k.to_string());
    let mut times: [Vec<f64>; 4] = Default::default();
    for rep in 0..a.reps {
        let seed = (rep + 1).to_string();
        let t = Instant::now();
        library(&g, a.eps, a.k, rep as u64 + 1)?;
        times[0].push(t.elapsed().as_secs_f64());

        let (rr, rel) = (work.join("noisy.rr"), work.join("release.txt"));
        let t = Instant::now();
        exec(
            Command::new(dpgraph)
                .args(["--seed", &seed, "edgerefine", "perturb"])
                .args(["--graph", &s(&graph), "--eps", &eps, "--out", &s(&rr)]),
        )?;
        exec(
            Command::new(dpgraph)
                .args(["--seed", &seed, "edgerefine", "refine"])
                .args(["--noisy", &s(&rr), "--k", &k, "--out", &s(&rel)]),
        )?;
        times[1].push(t.elapsed().as_secs_f64());

        if numpy {
            let npy = work.join("noisy.npy");
            // numpy perturb, then refine with `extra` flags: one timed variant.
            let variant = |extra: &[&str], out: &str| -> Result<f64> {
                let t = Instant::now();
                exec(Command::new(&a.python).arg(script).args([
                    "perturb",
                    "--graph",
                    &s(&graph),
                    "--eps",
                    &eps,
                    "--out",
                    &s(&npy),
                    "--seed",
                    &seed,
                ]))?;
                exec(
                    Command::new(&a.python)
                        .arg(script)
                        .arg("refine")
                        .args(extra)
                        .args(["--noisy", &s(&npy), "--eps", &eps, "--k", &k])
                        .args(["--out", &s(&work.join(out))]),
                )?;
                Ok(t.elapsed().as_secs_f64())
            };
            times[2].push(variant(&[], "release_np.txt")?);
            times[3].push(variant(&["--blocked"], "release_np_blocked.txt")?);
        }
        eprintln!(
            "bench-e2e rep {}/{}: library {:.2} s, cli {:.2} s{}",
            rep + 1,
            a.reps,
            times[0][rep],
            times[1][rep],
            times[2]
                .get(rep)
                .zip(times[3].get(rep))
                .map(|(x, y)| format!(", numpy {x:.2} s, numpy blocked {y:.2} s"))
                .unwrap_or_default()
        );
    }
    let parity = if numpy {
        Some(parity(a, dpgraph, script, &graph, work)?)
    } else {
        None
    };
    let med: Vec<Option<f64>> = times.iter().map(|t| median(t)).collect();
    Ok(json!({
        "n": a.n,
        "true_edges": g.num_edges(),
        "eps": a.eps,
        "k": a.k,
        "reps": a.reps,
        "threads": std::thread::available_parallelism().map(|x| x.get()).unwrap_or(1),
        "revision": crate::git_revision(),
        "machine": crate::machine::describe(),
        "seconds": {
            "library": times[0], "cli": times[1], "numpy": times[2], "numpy_blocked": times[3],
        },
        "median_s": {
            "library": med[0], "cli": med[1], "numpy": med[2], "numpy_blocked": med[3],
        },
        "cli_over_library": ratio(med[1], med[0]),
        "numpy_over_cli": ratio(med[2], med[1]),
        "numpy_blocked_over_cli": ratio(med[3], med[1]),
        "parity_reference_tie_break": parity,
    }))
}

/// The library's perturb + refine, `E` estimated as the CLI does without `--true-edges`.
fn library(g: &Graph, eps: f64, k: f64, seed: u64) -> Result<()> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let typed = dp_core::params::Epsilon::new(eps)?;
    let noisy = perturb(g, typed, &mut rng)?;
    let e = estimate_edges(noisy.num_nodes(), typed, noisy.num_edges() as u64)?.edges;
    let params = RefineParams {
        k,
        seed,
        ..RefineParams::new(typed, e)
    };
    let r = refine(&noisy, &params)?;
    ensure!(r.graph.num_nodes() == g.num_nodes(), "release lost nodes");
    Ok(())
}

/// numpy's refine and the CLI's `--tie-break reference` refine of the CLI's noisy graph (as
/// text) with the true `E`: the same edges, or an error.
fn parity(
    a: &E2eArgs,
    dpgraph: &Path,
    script: &Path,
    graph: &Path,
    work: &Path,
) -> Result<serde_json::Value> {
    let s = |p: &Path| p.display().to_string();
    let (eps, k) = (a.eps.to_string(), a.k.to_string());
    let (noisy, rust, np) = (
        work.join("parity_noisy.txt"),
        work.join("parity_rust.txt"),
        work.join("parity_np.txt"),
    );
    exec(
        Command::new(dpgraph)
            .args(["--seed", "99", "edgerefine", "perturb"])
            .args(["--graph", &s(graph), "--eps", &eps, "--out", &s(&noisy)]),
    )?;
    let e = read_edge_list(graph)?.num_edges().to_string();
    exec(Command::new(dpgraph).args(["edgerefine", "refine"]).args([
        "--noisy",
        &s(&noisy),
        "--eps",
        &eps,
        "--k",
        &k,
        "--true-edges",
        &e,
        "--tie-break",
        "reference",
        "--out",
        &s(&rust),
    ]))?;
    let np_blocked = work.join("parity_np_blocked.txt");
    for (extra, out) in [(None, &np), (Some("--blocked"), &np_blocked)] {
        exec(
            Command::new(&a.python)
                .arg(script)
                .arg("refine")
                .args(extra)
                .args(["--noisy", &s(&noisy), "--eps", &eps, "--k", &k])
                .args(["--true-edges", &e, "--out", &s(out)]),
        )?;
    }
    let r = read_edge_list(&rust)?;
    for (what, path) in [("numpy", &np), ("numpy --blocked", &np_blocked)] {
        let p = read_edge_list(path)?;
        if r != p {
            bail!(
                "{what} and dpgraph releases differ on the same noisy graph ({} vs {} edges)",
                p.num_edges(),
                r.num_edges()
            );
        }
    }
    Ok(json!({"released_edges": r.num_edges(), "identical": true}))
}

/// Runs a command to completion, its stdout discarded; a failure is an error with its stderr.
fn exec(cmd: &mut Command) -> Result<()> {
    let out = cmd.output().with_context(|| format!("running {cmd:?}"))?;
    if !out.status.success() {
        bail!(
            "{cmd:?} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}

fn has_numpy(python: &Path) -> bool {
    Command::new(python)
        .args(["-c", "import numpy"])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn median(v: &[f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let h = s.len() / 2;
    Some(if s.len() % 2 == 1 {
        s[h]
    } else {
        (s[h - 1] + s[h]) / 2.0
    })
}

fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    Some(a? / b?)
}

fn markdown(r: &serde_json::Value) -> String {
    let cell = |v: &serde_json::Value| v.as_f64().map_or("–".into(), |x| format!("{x:.2}"));
    format!(
        "## EdgeRefine end to end (n = {}, {} true edges, ε = {}, k = {}, {} reps, {} threads, {})\n\n\
         | variant | median s |\n|---|---|\n\
         | library perturb + refine (in memory) | {} |\n\
         | CLI perturb → .rr → refine (2 processes, file I/O) | {} |\n\
         | numpy script, `A @ A` (2 processes, .npy) | {} |\n\
         | numpy script, `--blocked` GEMM over the upper triangle (2 processes, .npy) | {} |\n\n\
         CLI / library: **{}** (target ≤ 1.5); numpy / CLI: **{}**; numpy blocked / CLI: **{}** \
         (target ≥ 8).\n\
         Both numpy refines vs dpgraph `--tie-break reference` on the same noisy graph: {}\n\n\
         Machine: {}\n",
        r["n"],
        r["true_edges"],
        r["eps"],
        r["k"],
        r["reps"],
        r["threads"],
        r["revision"].as_str().unwrap_or("?"),
        cell(&r["median_s"]["library"]),
        cell(&r["median_s"]["cli"]),
        cell(&r["median_s"]["numpy"]),
        cell(&r["median_s"]["numpy_blocked"]),
        cell(&r["cli_over_library"]),
        cell(&r["numpy_over_cli"]),
        cell(&r["numpy_blocked_over_cli"]),
        if r["parity_reference_tie_break"].is_null() {
            "not checked (no numpy)".to_string()
        } else {
            format!(
                "identical releases ({} edges)",
                r["parity_reference_tie_break"]["released_edges"]
            )
        },
        r["machine"].as_str().unwrap_or("?"),
    )
}
