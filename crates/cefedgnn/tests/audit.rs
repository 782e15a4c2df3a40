//! End-to-end privacy audit of a client's boundary-row release (`BoundaryReleaser`): the same
//! node's row at two values at L2 distance p (the metric radius), released many times each; the
//! frequencies of "the noisy first coordinate exceeds a threshold" give a high-confidence lower
//! bound on ε (`dp_core::audit`, Chernoff bounds, α = 1e-6 per side, a union over thresholds)
//! that must stay below the client's own reported ε(p) (`PrivacyReport::eps_rdp`, the strictest of
//! the three figures). A deliberately under-noised variant (half σ, claimed with the full σ) must
//! fail the same audit. Seeded, no retries.

use cefedgnn::privacy::{BoundaryReleaser, ReleaseConfig};
use dp_core::audit::eps_lower_bound;
use dp_core::rng::seeded_rng;

const RUNS: usize = 200_000;
const ALPHA: f64 = 1e-6;
const RADIUS: f64 = 0.5;
const DELTA: f64 = 0.05;

fn config(sigma0: f64) -> ReleaseConfig {
    ReleaseConfig {
        clip: 1.0,
        sigma0: dp_core::params::NoiseMultiplier::new(sigma0).unwrap(),
        radius: RADIUS,
        delta: dp_core::params::Delta::new(DELTA).unwrap(),
        budget_eps: None,
    }
}

/// First coordinates of `RUNS` releases of the row `(x, 0)` (one node per run, one batch) and the
/// releaser's reported ε(p).
fn release(x: f32, sigma0: f64, seed: u64) -> (Vec<f64>, f64) {
    let nodes: Vec<u32> = (0..RUNS as u32).collect();
    let mut rel = BoundaryReleaser::new(0, config(sigma0), &nodes, seeded_rng(seed)).unwrap();
    let rows: Vec<f32> = (0..RUNS).flat_map(|_| [x, 0.0]).collect();
    let out = rel.release(0, 0, &nodes, &rows, 2).unwrap();
    let report = rel.report().unwrap();
    assert_eq!(report.max_releases, 1);
    let first = out.values.chunks(2).map(|r| f64::from(r[0])).collect();
    (first, report.eps_rdp.get())
}

/// The largest lower bound on ε over the events {y ≥ k·p}, both directions.
fn audit(sigma0: f64, seed: u64) -> (f64, f64) {
    let (y1, claimed) = release(RADIUS as f32, sigma0, seed);
    let (y0, claimed0) = release(0.0, sigma0, seed + 1000);
    assert_eq!(claimed, claimed0);
    let count = |y: &[f64], tau: f64| y.iter().filter(|&&v| v >= tau).count() as u64;
    let n = RUNS as u64;
    let mut lb = 0f64;
    for k in [0.5, 1.0, 1.5, 2.0, 2.5, 3.0] {
        let tau = k * RADIUS;
        let (h1, h0) = (count(&y1, tau), count(&y0, tau));
        lb = lb.max(eps_lower_bound(h1, n, h0, n, DELTA, ALPHA).unwrap());
        lb = lb.max(eps_lower_bound(n - h0, n, n - h1, n, DELTA, ALPHA).unwrap());
    }
    (lb, claimed)
}

#[test]
fn boundary_release_stays_within_its_metric_dp_claim() {
    // σ = p: one release at distance p is a Gaussian with shift 1 (in σ units).
    let (lb, claimed) = audit(RADIUS, 1);
    eprintln!("boundary release σ = p: empirical lower bound {lb:.3}, claimed ε(p) {claimed:.3}");
    assert!(
        lb <= claimed,
        "empirical ε ≥ {lb} > claimed ε(p) = {claimed}"
    );
    assert!(
        lb > 0.3 * claimed,
        "audit without power: {lb} (claimed {claimed})"
    );
}

#[test]
fn a_half_sigma_release_fails_the_audit() {
    let (_, claimed) = audit(RADIUS, 2);
    let (lb, _) = audit(RADIUS / 2.0, 3);
    eprintln!("boundary release σ = p/2: empirical lower bound {lb:.3}, claimed ε(p) {claimed:.3}");
    assert!(
        lb > claimed,
        "σ/2 passed: empirical ε ≥ {lb} ≤ claimed {claimed}"
    );
}
