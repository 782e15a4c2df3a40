//! Per-epoch training time of the `epoch` benchmark's configurations, for a side-by-side run
//! with PyTorch Geometric (`benches/python/pyg_epoch.py` drives it).
//!
//! ```text
//! cargo run --release -p gnn --example epoch_time -- dump DIR
//! cargo run --release -p gnn --example epoch_time -- time MODEL GRAPH EPOCHS [AGGREGATION]
//! ```
//! `dump` writes the benchmark graphs (`cora`, `big`, and `cora-symrr`: Cora's nodes with a
//! symmetric randomized-response release of its edges at ε = 1, seed 0, 27 % of all pairs) to
//! `DIR/<graph>/` as raw little-endian
//! arrays so that PyG trains on exactly the same data: `src.u32` and `dst.u32` (the directed
//! edges, both directions of each undirected edge), `x.f32` (`n × d`, row-major), `y.u32`, and
//! `meta.json` (`n`, `d`, `classes`, `edges`). `time` runs 3 warm-up epochs, then `EPOCHS`
//! timed ones of `MODEL` (`gcn`, `gat`, `gin`) on `GRAPH` with the adjacency product
//! `AGGREGATION` (`auto`, the default, `sparse` or `dense`: [`gnn::Aggregation`]), and prints one
//! JSON line with the median and minimum epoch time in milliseconds.

#[path = "../benches/common/mod.rs"]
mod common;

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use gnn::{Aggregation, ModelConfig, NodeTask};

fn usage() -> ! {
    eprintln!(
        "usage: epoch_time dump DIR | epoch_time time gcn|gat|gin cora|big|cora-symrr EPOCHS [auto|sparse|dense]"
    );
    std::process::exit(2)
}

fn task(graph: &str) -> NodeTask {
    match graph {
        "cora" => common::cora(),
        "big" => common::big_graph(),
        "cora-symrr" => common::cora_symrr(&common::cora(), 1.0, 0),
        _ => usage(),
    }
}

fn write_raw(path: &Path, bytes: impl Iterator<Item = [u8; 4]>) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::new(std::fs::File::create(path)?);
    for b in bytes {
        w.write_all(&b)?;
    }
    w.flush()
}

fn dump(dir: &Path) -> std::io::Result<()> {
    for graph in ["cora", "big", "cora-symrr"] {
        let t = task(graph);
        let d = dir.join(graph);
        std::fs::create_dir_all(&d)?;
        let (src, dst) = t.edges().endpoints();
        write_raw(&d.join("src.u32"), src.iter().map(|v| v.to_le_bytes()))?;
        write_raw(&d.join("dst.u32"), dst.iter().map(|v| v.to_le_bytes()))?;
        write_raw(
            &d.join("x.f32"),
            t.features().iter().map(|v| v.to_le_bytes()),
        )?;
        write_raw(&d.join("y.u32"), t.labels().iter().map(|v| v.to_le_bytes()))?;
        std::fs::write(
            d.join("meta.json"),
            format!(
                "{{\"n\": {}, \"d\": {}, \"classes\": {}, \"edges\": {}}}\n",
                t.num_nodes(),
                t.num_features(),
                t.num_classes(),
                src.len()
            ),
        )?;
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["dump", dir] => {
            if let Err(e) = dump(Path::new(dir)) {
                eprintln!("epoch_time: cannot write {dir}: {e}");
                std::process::exit(1);
            }
        }
        ["time", model, graph, epochs] => time(model, graph, epochs, "auto"),
        ["time", model, graph, epochs, aggregation] => time(model, graph, epochs, aggregation),
        _ => usage(),
    }
}

fn time(model: &str, graph: &str, epochs: &str, aggregation: &str) {
    let aggregation = match aggregation {
        "auto" => Aggregation::Auto,
        "sparse" => Aggregation::Sparse,
        "dense" => Aggregation::Dense,
        _ => usage(),
    };
    let epochs: usize = epochs.parse().unwrap_or_else(|_| usage());
    if epochs == 0 {
        usage();
    }
    let config: fn(usize, usize) -> ModelConfig = match model {
        "gcn" => common::gcn,
        "gat" => common::gat,
        "gin" => common::gin,
        _ => usage(),
    };
    let mut e = common::Epoch::with(&task(graph), config, true, aggregation);
    for _ in 0..3 {
        e.step();
    }
    let mut ms: Vec<f64> = (0..epochs)
        .map(|_| {
            let t = Instant::now();
            e.step();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    println!(
        "{{\"model\": \"{model}\", \"graph\": \"{graph}\", \"epochs\": {epochs}, \"median_ms\": {:.4}, \"min_ms\": {:.4}}}",
        ms[epochs / 2],
        ms[0]
    );
}
