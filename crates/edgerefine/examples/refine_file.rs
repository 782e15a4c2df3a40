//! Times `refine` on a noisy graph read from an edge list (the Rust side of the Python overhead
//! benchmark, `benches/python/overhead.py`):
//! `cargo run --release -p edgerefine --example refine_file -- NOISY.txt EPS K TRUE_EDGES [REPS]`.
//! Prints the median seconds of REPS runs (default 3).

use edgerefine::{RefineParams, refine};
use graph_core::io::read_edge_list;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [noisy, eps, k, e, rest @ ..] = args.as_slice() else {
        return Err("usage: refine_file NOISY.txt EPS K TRUE_EDGES [REPS]".into());
    };
    let reps: usize = rest.first().map(|s| s.parse()).transpose()?.unwrap_or(3);
    let g = read_edge_list(noisy.as_ref())?;
    let params = RefineParams {
        k: k.parse()?,
        ..RefineParams::new(eps.parse()?, e.parse()?)
    };
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = std::time::Instant::now();
        let r = refine(&g, &params)?;
        times.push(t.elapsed().as_secs_f64());
        assert_eq!(r.graph.num_nodes(), g.num_nodes());
    }
    times.sort_by(f64::total_cmp);
    println!("{}", times[times.len() / 2]);
    Ok(())
}
