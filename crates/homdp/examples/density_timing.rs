//! Times `density_matrix` on a graph set and a pattern set read from graph-set JSON files (the
//! Rust side of the Python overhead benchmark, `benches/python/overhead.py`):
//! `cargo run --release -p homdp --example density_timing -- GRAPHS.json PATTERNS.json [REPS]`.
//! Prints the median seconds of REPS runs (default 5).

use graph_core::io::{GraphSet, read_graph_set};
use homdp::{Pattern, density_matrix};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [graphs, patterns, rest @ ..] = args.as_slice() else {
        return Err("usage: density_timing GRAPHS.json PATTERNS.json [REPS]".into());
    };
    let reps: usize = rest.first().map(|s| s.parse()).transpose()?.unwrap_or(5);
    let gs = read_graph_set(graphs.as_ref(), GraphSet::Graphs)?;
    let ps: Vec<Pattern> = read_graph_set(patterns.as_ref(), GraphSet::Patterns)?
        .iter()
        .map(|p| {
            let edges: Vec<(usize, usize)> =
                p.edges().map(|(u, v)| (u as usize, v as usize)).collect();
            Pattern::new(p.num_nodes(), &edges)
        })
        .collect::<Result<_, _>>()?;
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = std::time::Instant::now();
        let m = density_matrix(&ps, &gs)?;
        times.push(t.elapsed().as_secs_f64());
        assert_eq!(m.dim(), (gs.len(), ps.len()));
    }
    times.sort_by(f64::total_cmp);
    println!("{}", times[times.len() / 2]);
    Ok(())
}
