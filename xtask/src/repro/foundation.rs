//! The foundation experiment: what datasets are installed (with their measured counts checked
//! against the registry), and a demonstration of the generators and partitions.

use std::time::Instant;

use anyhow::Result;
use graph_core::generate::{ContextualSbm, barabasi_albert, erdos_renyi, sbm};
use graph_core::registry::{Dataset, data_dir};
use graph_core::{Graph, GraphStats, Partition, Registry};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde_json::json;

use super::{Ctx, Effort};
use crate::output::{Table, write};
use crate::plot::{Scale, Series, line_plot};

pub(crate) fn run(ctx: &Ctx) -> Result<()> {
    let dir = ctx.out.join("foundation");
    let mut md = String::from("# Foundation: datasets and generators\n\n");

    // 1. Installed datasets.
    let data = data_dir();
    let mut t = Table::new(
        "Installed datasets (counts measured by the loaders)",
        &[
            "dataset",
            "task",
            "installed",
            "graphs",
            "nodes",
            "edges",
            "max_degree",
            "isolated",
            "components",
            "classes",
            "load_s",
            "matches_readme",
        ],
    );
    t.meta = ctx.meta();
    let mut size_series = Vec::new();
    for spec in Registry::embedded().datasets() {
        if !spec.is_installed(&data) {
            t.push(vec![
                json!(spec.name),
                json!(spec.task.as_str()),
                json!("no"),
                json!(null),
                json!(null),
                json!(null),
                json!(null),
                json!(null),
                json!(null),
                json!(null),
                json!(null),
                json!(null),
            ]);
            continue;
        }
        let start = Instant::now();
        let ds = spec.load(&data)?;
        let secs = start.elapsed().as_secs_f64();
        let e = &spec.expect;
        match &ds {
            Dataset::Nodes(d) => {
                let s = GraphStats::of(std::slice::from_ref(d.graph()));
                let ok = Some(s.nodes) == e.nodes
                    && Some(s.edges) == e.edges
                    && Some(d.num_classes()) == e.classes;
                t.push(vec![
                    json!(spec.name),
                    json!(spec.task.as_str()),
                    json!("yes"),
                    json!(1),
                    json!(s.nodes),
                    json!(s.edges),
                    json!(s.max_degree),
                    json!(s.isolated),
                    json!(s.components),
                    json!(d.num_classes()),
                    json!(secs),
                    json!(ok),
                ]);
            }
            Dataset::Graphs(d) => {
                let s = GraphStats::of(d.graphs());
                let ok = Some(d.len()) == e.graphs
                    && Some(s.nodes) == e.nodes
                    && Some(s.edges) == e.edges;
                t.push(vec![
                    json!(spec.name),
                    json!(spec.task.as_str()),
                    json!("yes"),
                    json!(d.len()),
                    json!(s.nodes),
                    json!(s.edges),
                    json!(s.max_degree),
                    json!(s.isolated),
                    json!(s.components),
                    json!(d.targets().num_classes()),
                    json!(secs),
                    json!(ok),
                ]);
                let mut sizes: Vec<usize> = d.graphs().iter().map(Graph::num_nodes).collect();
                sizes.sort_unstable();
                let n = sizes.len() as f64;
                let pts = sizes
                    .iter()
                    .enumerate()
                    .step_by((sizes.len() / 200).max(1))
                    .map(|(i, &s)| (s as f64, 1.0 - i as f64 / n))
                    .collect();
                size_series.push(Series {
                    name: spec.name.clone(),
                    points: pts,
                });
            }
            Dataset::Files(f) => {
                let rows: usize = f.rows.values().sum();
                let ok = f
                    .rows
                    .iter()
                    .all(|(k, v)| e.rows.get(k).is_none_or(|w| w == v));
                t.push(vec![
                    json!(spec.name),
                    json!(spec.task.as_str()),
                    json!("yes"),
                    json!(null),
                    json!(rows),
                    json!(null),
                    json!(null),
                    json!(null),
                    json!(null),
                    json!(null),
                    json!(secs),
                    json!(ok),
                ]);
            }
        }
    }
    t.notes.push("AML datasets are tables: `nodes` holds their total CSV data rows; their graph loaders come with the cefedgnn crate.".into());
    t.notes.push("Install data with `cargo xtask datasets install --all --from <mirror>`; missing datasets show `no`.".into());
    t.write(&dir, "datasets")?;
    md += &t.markdown();
    write(
        &dir,
        "datasets.svg",
        line_plot(
            "Graph size distribution (CCDF)",
            "nodes per graph",
            "share of graphs with at least that many nodes",
            Scale::Log,
            Scale::Log,
            &size_series,
        )
        .as_bytes(),
    )?;

    // 2. Generators.
    let mut rng = ChaCha20Rng::seed_from_u64(ctx.seed);
    let n = match ctx.effort {
        Effort::Quick => 100_000,
        Effort::Full => 1_000_000,
    };
    let mut g = Table::new(
        "Generated graphs (expected O(n + m))",
        &[
            "generator",
            "parameters",
            "nodes",
            "edges",
            "expected_edges",
            "max_degree",
            "components",
            "gen_s",
        ],
    );
    g.meta = ctx.meta();
    let mut deg_series = Vec::new();
    let mut record =
        |g: &mut Table, name: &str, params: String, graph: &Graph, expected: f64, secs: f64| {
            let s = GraphStats::of(std::slice::from_ref(graph));
            g.push(vec![
                json!(name),
                json!(params),
                json!(s.nodes),
                json!(s.edges),
                json!(expected),
                json!(s.max_degree),
                json!(s.components),
                json!(secs),
            ]);
            let mut hist = vec![0usize; s.max_degree + 1];
            for d in graph.degrees() {
                hist[d] += 1;
            }
            let pts = hist
                .iter()
                .enumerate()
                .filter(|&(_, &c)| c > 0)
                .map(|(d, &c)| (d as f64, c as f64 / s.nodes as f64))
                .collect();
            deg_series.push(Series {
                name: name.to_owned(),
                points: pts,
            });
        };
    let p = 10.0 / n as f64;
    let start = Instant::now();
    let er = erdos_renyi(n, p, &mut rng)?;
    record(
        &mut g,
        "G(n,p)",
        format!("n={n}, p={p:.2e}"),
        &er,
        p * n as f64 * (n as f64 - 1.0) / 2.0,
        start.elapsed().as_secs_f64(),
    );
    let k = 4;
    let sizes = vec![n / 10 / k; k];
    let nb = sizes.iter().sum::<usize>() as f64;
    let (p_in, p_out) = (40.0 / nb, 2.0 / nb);
    let start = Instant::now();
    let (sb, blocks) = sbm(&sizes, p_in, p_out, &mut rng)?;
    let bs = (n / 10 / k) as f64;
    let exp_sbm =
        k as f64 * p_in * bs * (bs - 1.0) / 2.0 + (k * (k - 1) / 2) as f64 * p_out * bs * bs;
    record(
        &mut g,
        "SBM",
        format!(
            "{k} blocks of {}, p_in={p_in:.2e}, p_out={p_out:.2e}",
            n / 10 / k
        ),
        &sb,
        exp_sbm,
        start.elapsed().as_secs_f64(),
    );
    let start = Instant::now();
    let ba = barabasi_albert(n / 10, 3, &mut rng)?;
    record(
        &mut g,
        "Barabási–Albert",
        format!("n={}, m=3", n / 10),
        &ba,
        (3 + 3 * (n / 10 - 4)) as f64,
        start.elapsed().as_secs_f64(),
    );
    let start = Instant::now();
    let cs = ContextualSbm {
        n: 2708,
        classes: 7,
        p_in: 0.01,
        p_out: 0.0005,
        dim: 64,
        mu: 2.0,
    }
    .sample(&mut rng)?;
    let csn = 2708.0 / 7.0;
    let exp_cs = 7.0 * 0.01 * csn * (csn - 1.0) / 2.0 + 21.0 * 0.0005 * csn * csn;
    record(
        &mut g,
        "contextual SBM",
        "Cora-shaped: n=2708, 7 classes, d=64, mu=2".into(),
        cs.graph(),
        exp_cs,
        start.elapsed().as_secs_f64(),
    );
    g.notes.push("Expected edge counts are the exact means of the models; the measured counts fall within a few standard deviations.".into());
    g.write(&dir, "generators")?;
    md += &g.markdown();
    write(
        &dir,
        "generators.svg",
        line_plot(
            "Degree distributions of generated graphs",
            "degree",
            "share of nodes",
            Scale::Log,
            Scale::Log,
            &deg_series,
        )
        .as_bytes(),
    )?;

    // 3. Partitions of the SBM graph into 4 parts.
    let mut pt = Table::new(
        "Partitions of the SBM graph into 4 parts",
        &[
            "partition",
            "parts",
            "min_size",
            "max_size",
            "cross_edges",
            "cross_share",
        ],
    );
    pt.meta = ctx.meta();
    let mut cross_series = Vec::new();
    for (name, part) in [
        (
            "planted blocks (attribute)",
            Partition::by_attribute(&blocks),
        ),
        ("random", Partition::random(sb.num_nodes(), 4, &mut rng)?),
        (
            "community (label propagation)",
            Partition::community(&sb, 4, &mut rng)?,
        ),
    ] {
        let sizes = part.sizes();
        let c = part.cross_edges(&sb)?;
        pt.push(vec![
            json!(name),
            json!(part.num_parts()),
            json!(sizes.iter().min()),
            json!(sizes.iter().max()),
            json!(c),
            json!(c as f64 / sb.num_edges() as f64),
        ]);
        let m = part.edge_matrix(&sb)?;
        cross_series.push(Series {
            name: name.to_owned(),
            points: (0..4)
                .map(|a| {
                    (
                        a as f64,
                        (0..4).filter(|&b| b != a).map(|b| m[a][b]).sum::<usize>() as f64,
                    )
                })
                .collect(),
        });
    }
    pt.write(&dir, "partitions")?;
    md += &pt.markdown();
    write(
        &dir,
        "partitions.svg",
        line_plot(
            "Cross-part edges per part",
            "part",
            "edges leaving the part",
            Scale::Linear,
            Scale::Linear,
            &cross_series,
        )
        .as_bytes(),
    )?;

    write(&dir, "README.md", md.as_bytes())?;
    println!("{md}");
    Ok(())
}
