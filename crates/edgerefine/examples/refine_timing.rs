//! Times the client and the server on a G(n, p) graph: `cargo run --release -p edgerefine
//! --example refine_timing -- [n] [m] [eps]` (defaults: 10,000 nodes, 20,000 edges, ε = 1).

use dp_core::params::Epsilon;

use edgerefine::{RefineParams, perturb, refine};
use graph_core::generate::erdos_renyi;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<f64> = std::env::args()
        .skip(1)
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    let n = args.first().copied().unwrap_or(10_000.0) as usize;
    let m = args.get(1).copied().unwrap_or(20_000.0);
    let eps = args.get(2).copied().unwrap_or(1.0);
    let mut rng = dp_core::rng::seeded_rng(7);
    let g = erdos_renyi(n, 2.0 * m / (n as f64 * (n as f64 - 1.0)), &mut rng)?;
    let t = std::time::Instant::now();
    let noisy = perturb(&g, Epsilon::new(eps).unwrap(), &mut rng)?;
    println!(
        "perturb: {:.3} s, {} noisy edges",
        t.elapsed().as_secs_f64(),
        noisy.num_edges()
    );
    let t = std::time::Instant::now();
    let r = refine(
        &noisy,
        &RefineParams::new(Epsilon::new(eps).unwrap(), g.num_edges() as u64),
    )?;
    println!("refine: {:.3} s {:?}", t.elapsed().as_secs_f64(), r.timings);
    println!(
        "released {} edges ({} real, {} fake), bins {:?}",
        r.graph.num_edges(),
        r.k_real,
        r.k_fake,
        r.bin_probability
    );
    Ok(())
}
