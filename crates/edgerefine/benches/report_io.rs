//! Reading a noisy report of n = 10,000 at ε = 1 (≈ 13.5 M noisy edges): the text edge list
//! through graph-core's parser (MB/s of text) and the binary `.rr` report (open + decode), and
//! writing both. Run: `cargo bench -p edgerefine --bench report_io`.

use dp_core::params::Epsilon;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use edgerefine::perturb;
use edgerefine::report::{Report, write_report};
use graph_core::generate::erdos_renyi;
use graph_core::io::{read_edge_list, write_edge_list};

fn io_bench(c: &mut Criterion) {
    let n = 10_000;
    let mut rng = dp_core::rng::seeded_rng(7);
    let g = erdos_renyi(n, 4e4 / (n as f64 * (n as f64 - 1.0)), &mut rng).expect("valid p");
    let noisy = perturb(&g, Epsilon::new(1.0).unwrap(), &mut rng).expect("valid eps");
    let dir = std::env::temp_dir().join(format!("edgerefine-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (txt, rr) = (dir.join("noisy.txt"), dir.join("noisy.rr"));
    write_edge_list(&txt, &noisy).expect("write text");
    let eps = dp_core::params::Epsilon::new(1.0).expect("ε = 1");
    write_report(&rr, &noisy, eps).expect("write report");
    let text_len = std::fs::metadata(&txt).expect("text").len();
    let rr_len = std::fs::metadata(&rr).expect("report").len();

    let mut grp = c.benchmark_group("read");
    grp.sample_size(10);
    grp.throughput(Throughput::Bytes(text_len));
    grp.bench_function(format!("text edge list ({text_len} bytes)"), |b| {
        b.iter(|| read_edge_list(&txt).expect("parse"))
    });
    grp.throughput(Throughput::Bytes(rr_len));
    grp.bench_function(format!("binary report ({rr_len} bytes)"), |b| {
        b.iter(|| {
            Report::open(&rr)
                .and_then(|r| r.to_graph())
                .expect("decode")
        })
    });
    grp.finish();

    let mut grp = c.benchmark_group("write");
    grp.sample_size(10);
    grp.bench_function("text edge list", |b| {
        b.iter(|| write_edge_list(&txt, &noisy).expect("write"))
    });
    grp.bench_function("binary report", |b| {
        b.iter(|| write_report(&rr, &noisy, eps).expect("write"))
    });
    grp.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, io_bench);
criterion_main!(benches);
