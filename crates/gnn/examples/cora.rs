//! The acceptance accuracy table on real data (run in release):
//! `DPGRAPH_DATA=/path/to/data cargo run --release -p gnn --example cora [cora|mutag|all]`.
//!
//! Needs Cora (and MUTAG for `mutag`/`all`) installed in graph-core's registry layout under
//! `$DPGRAPH_DATA`. Prints test accuracy (mean ± std over seeds 0–4) per model.

use gnn::repro;

fn main() {
    let which = std::env::args().nth(1).unwrap_or_else(|| "all".into());
    let dir = graph_core::registry::data_dir();
    let rows = match which.as_str() {
        "cora" => repro::cora_table(&dir, &repro::SEEDS, true),
        "mutag" => repro::mutag_table(&dir, &repro::SEEDS, true),
        _ => repro::table(&dir, &repro::SEEDS, true),
    };
    match rows {
        Ok(rows) => {
            print!("{}", repro::render(&rows));
            for r in &rows {
                println!("{} {}: {:?}", r.dataset, r.model, r.runs);
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
