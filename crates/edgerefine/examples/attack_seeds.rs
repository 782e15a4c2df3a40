//! How the sound GRAND-style deductions fare on k = 1 releases over several seeds (the spread
//! behind one seed's row of the `rae` table):
//! `cargo run --release -p edgerefine --example attack_seeds -- EDGES.txt EPS[,EPS…] SEEDS`.
//! Prints, per (ε, seed), the release's precision, the pairs the deductions decide (of all
//! n(n−1)/2) and their RAE against the true graph beside the release-as-guess RAE.

use edgerefine::attack::AttackParams;
use edgerefine::paper::rae::{MAX_ROUNDS, rows_with};
use graph_core::io::read_edge_list;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [edges, eps, seeds] = args.as_slice() else {
        return Err("usage: attack_seeds EDGES.txt EPS[,EPS...] SEEDS".into());
    };
    let g = read_edge_list(edges.as_ref())?;
    let eps: Vec<f64> = eps.split(',').map(str::parse).collect::<Result<_, _>>()?;
    let seeds: u64 = seeds.parse()?;
    let pairs = g.num_nodes() as u64 * (g.num_nodes() as u64 - 1) / 2;
    let params = AttackParams {
        max_rounds: MAX_ROUNDS,
        ..AttackParams::sound()
    };
    println!("eps\tseed\tprecision\tdecided_share\trae_sound\trae_release");
    for seed in 0..seeds {
        for r in rows_with("g", &g, &eps, seed, &params)? {
            println!(
                "{}\t{seed}\t{:.3}\t{:.4}\t{:.4}\t{:.4}",
                r.eps.map_or(f64::NAN, dp_core::params::Epsilon::get),
                r.release_precision,
                r.decided_pairs_sound as f64 / pairs as f64,
                r.rae_grand_sound,
                r.rae_release_as_guess
            );
        }
    }
    Ok(())
}
