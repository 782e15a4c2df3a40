//! One-off timing of the tiled refine on a large generated graph, with its progress:
//! `cargo run --release -p edgerefine --example refine_large -- [n] [eps] [mean degree] [tile rows]`
//! (defaults 100000 3 20 1024). Run under `/usr/bin/time -v` for the peak memory.

use dp_core::params::Epsilon;

use std::time::Instant;

use edgerefine::{RefineParams, TileOptions, perturb, refine_tiled};
use graph_core::generate::erdos_renyi;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: f64| -> Result<f64, Box<dyn std::error::Error>> {
        Ok(args
            .get(i)
            .map(|s| s.parse())
            .transpose()?
            .unwrap_or(default))
    };
    let n = arg(0, 100_000.0)? as usize;
    let eps = arg(1, 3.0)?;
    let degree = arg(2, 20.0)?;
    let tile_rows = arg(3, 1024.0)? as usize;
    let mut rng = dp_core::rng::seeded_rng(100);
    let t = Instant::now();
    let truth = erdos_renyi(n, degree / (n as f64 - 1.0), &mut rng)?;
    let noisy = perturb(&truth, Epsilon::new(eps).unwrap(), &mut rng)?;
    eprintln!(
        "n={n} eps={eps}: {} true edges, {} noisy edges, generated and perturbed in {:.1} s",
        truth.num_edges(),
        noisy.num_edges(),
        t.elapsed().as_secs_f64()
    );
    let params = RefineParams::new(Epsilon::new(eps).unwrap(), truth.num_edges() as u64);
    let opts = TileOptions {
        tile_rows,
        ..TileOptions::default()
    };
    let t = Instant::now();
    let mut next = 0;
    let r = refine_tiled(&noisy, &params, &opts, &mut |done, total| {
        if done * 100 >= next * total {
            let s = t.elapsed().as_secs_f64();
            eprintln!("  {done}/{total} tiles, {s:.1} s");
            next = done * 100 / total + 1;
        }
    })?;
    println!(
        "n={n} eps={eps} tile_rows={tile_rows}: refine {:.1} s (context {:.1} s, bins {:.1} s, \
         select {:.1} s), released {} edges (k_real {}, k_fake {}), {} bins",
        t.elapsed().as_secs_f64(),
        r.timings.jaccard_s,
        r.timings.binning_s,
        r.timings.select_s,
        r.graph.num_edges(),
        r.k_real,
        r.k_fake,
        r.bin_pairs.len()
    );
    Ok(())
}
