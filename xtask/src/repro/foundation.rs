//! The foundation experiment: what datasets are installed (with their measured counts checked
//! against the registry), and a demonstration of the generators and partitions.

use std::path::Path;
use std::time::Instant;

use anyhow::Result;
use graph_core::generate::{ContextualSbm, barabasi_albert, erdos_renyi, sbm};
use graph_core::partition::{LouvainClients, label_dirichlet};
use graph_core::registry::{Dataset, DatasetSpec};
use graph_core::{Graph, GraphStats, Partition, Registry};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde::Serialize;

use super::{Ctx, Effort};
use crate::datasets::data_dir;
use crate::output::{Table, write};

/// A row of the datasets table (empty cells for a dataset that is not installed).
#[derive(Debug, Clone, Serialize, Default)]
struct DatasetRow {
    dataset: String,
    task: String,
    /// `yes` or `no`.
    installed: String,
    graphs: Option<usize>,
    /// Total nodes (AML tables: total CSV data rows).
    nodes: Option<usize>,
    edges: Option<usize>,
    max_degree: Option<usize>,
    isolated: Option<usize>,
    components: Option<usize>,
    classes: Option<usize>,
    load_s: Option<f64>,
    /// Whether the measured counts are the registry's.
    matches_readme: Option<bool>,
}

/// A row of the generators table.
#[derive(Debug, Clone, Serialize, Default)]
struct GeneratorRow {
    generator: String,
    parameters: String,
    nodes: usize,
    edges: usize,
    /// The exact mean edge count of the model.
    expected_edges: f64,
    max_degree: usize,
    components: usize,
    gen_s: f64,
}

/// A row of the partitions table.
#[derive(Debug, Clone, Serialize, Default)]
struct PartitionRow {
    partition: String,
    parts: usize,
    min_size: Option<usize>,
    max_size: Option<usize>,
    cross_edges: usize,
    cross_share: f64,
}

/// `f`'s value and its wall-clock seconds.
fn timed<T>(f: impl FnOnce() -> Result<T>) -> Result<(T, f64)> {
    let start = Instant::now();
    let v = f()?;
    Ok((v, start.elapsed().as_secs_f64()))
}

/// Writes `table` as `<stem>.{csv,json,md}` and appends its Markdown to `md` (the plots are
/// drawn from the written tables by [`crate::figures`]).
fn emit(dir: &Path, md: &mut String, table: &Table, stem: &str) -> Result<()> {
    table.write(dir, stem)?;
    *md += &table.markdown();
    Ok(())
}

/// The row of one dataset.
fn dataset_row(spec: &DatasetSpec, data: &Path) -> Result<DatasetRow> {
    let mut row = DatasetRow {
        dataset: spec.name.clone(),
        task: spec.task.as_str().into(),
        installed: "no".into(),
        ..DatasetRow::default()
    };
    if !spec.is_installed(data) {
        return Ok(row);
    }
    let (ds, secs) = timed(|| Ok(spec.load(data)?))?;
    let e = &spec.expect;
    row.installed = "yes".into();
    row.load_s = Some(secs);
    let stats = |row: &mut DatasetRow, s: &GraphStats| {
        row.nodes = Some(s.nodes);
        row.edges = Some(s.edges);
        row.max_degree = Some(s.max_degree);
        row.isolated = Some(s.isolated);
        row.components = Some(s.components);
    };
    match &ds {
        Dataset::Nodes(d) => {
            let s = GraphStats::of(std::slice::from_ref(d.graph()));
            stats(&mut row, &s);
            row.graphs = Some(1);
            row.classes = Some(d.num_classes());
            row.matches_readme = Some(
                Some(s.nodes) == e.nodes
                    && Some(s.edges) == e.edges
                    && Some(d.num_classes()) == e.classes,
            );
        }
        Dataset::Graphs(d) => {
            let s = GraphStats::of(d.graphs());
            stats(&mut row, &s);
            row.graphs = Some(d.len());
            row.classes = d.targets().num_classes();
            row.matches_readme = Some(
                Some(d.len()) == e.graphs && Some(s.nodes) == e.nodes && Some(s.edges) == e.edges,
            );
        }
        Dataset::Files(f) => {
            row.nodes = Some(f.rows.values().sum());
            row.matches_readme = Some(
                f.rows
                    .iter()
                    .all(|(k, v)| e.rows.get(k).is_none_or(|w| w == v)),
            );
        }
    }
    Ok(row)
}

/// 1. The installed datasets.
fn datasets_table(ctx: &Ctx, dir: &Path, md: &mut String) -> Result<()> {
    let data = data_dir();
    let mut t = Table::typed::<DatasetRow>("Installed datasets (counts measured by the loaders)")?;
    t.meta = ctx.meta();
    for spec in Registry::embedded().datasets() {
        t.push_row(&dataset_row(spec, &data)?)?;
    }
    t.notes.push("AML datasets are tables: `nodes` holds their total CSV data rows; their graph loaders come with the cefedgnn crate.".into());
    t.notes.push("Install data with `cargo xtask datasets install --all --from <mirror>`; missing datasets show `no`.".into());
    emit(dir, md, &t, "datasets")
}

/// The row of one generated graph.
fn generated(
    name: &str,
    parameters: String,
    graph: &Graph,
    expected_edges: f64,
    gen_s: f64,
) -> GeneratorRow {
    let s = GraphStats::of(std::slice::from_ref(graph));
    GeneratorRow {
        generator: name.into(),
        parameters,
        nodes: s.nodes,
        edges: s.edges,
        expected_edges,
        max_degree: s.max_degree,
        components: s.components,
        gen_s,
    }
}

/// The generated graphs' rows, and the SBM graph with its blocks (for the partitions table).
struct Generated {
    rows: Vec<GeneratorRow>,
    sbm: (Graph, Vec<u32>),
}

/// The generated graphs: G(n,p), SBM, Barabási–Albert and a Cora-shaped contextual SBM, drawn
/// in this order from `rng`.
fn generate_graphs(n: usize, rng: &mut ChaCha20Rng) -> Result<Generated> {
    let mut out = Vec::new();
    let p = 10.0 / n as f64;
    let (er, secs) = timed(|| Ok(erdos_renyi(n, p, rng)?))?;
    let expected = p * n as f64 * (n as f64 - 1.0) / 2.0;
    out.push(generated(
        "G(n,p)",
        format!("n={n}, p={p:.2e}"),
        &er,
        expected,
        secs,
    ));
    let k = 4;
    let bs = n / 10 / k;
    let nb = (bs * k) as f64;
    let (p_in, p_out) = (40.0 / nb, 2.0 / nb);
    let ((sb, blocks), secs) = timed(|| Ok(sbm(&vec![bs; k], p_in, p_out, rng)?))?;
    let b = bs as f64;
    let expected = k as f64 * p_in * b * (b - 1.0) / 2.0 + (k * (k - 1) / 2) as f64 * p_out * b * b;
    let params = format!("{k} blocks of {bs}, p_in={p_in:.2e}, p_out={p_out:.2e}");
    out.push(generated("SBM", params, &sb, expected, secs));
    let (ba, secs) = timed(|| Ok(barabasi_albert(n / 10, 3, rng)?))?;
    let expected = (3 + 3 * (n / 10 - 4)) as f64;
    out.push(generated(
        "Barabási–Albert",
        format!("n={}, m=3", n / 10),
        &ba,
        expected,
        secs,
    ));
    let cora_like = ContextualSbm {
        n: 2708,
        classes: 7,
        p_in: 0.01,
        p_out: 0.0005,
        dim: 64,
        mu: 2.0,
    };
    let (cs, secs) = timed(|| Ok(cora_like.sample(rng)?))?;
    let csn = 2708.0 / 7.0;
    let expected = 7.0 * 0.01 * csn * (csn - 1.0) / 2.0 + 21.0 * 0.0005 * csn * csn;
    let params = "Cora-shaped: n=2708, 7 classes, d=64, mu=2".to_owned();
    out.push(generated(
        "contextual SBM",
        params,
        cs.graph(),
        expected,
        secs,
    ));
    Ok(Generated {
        rows: out,
        sbm: (sb, blocks),
    })
}

/// 2. The generators (n = 100,000 quick, 1,000,000 full); returns the SBM graph and blocks.
fn generators_table(
    ctx: &Ctx,
    rng: &mut ChaCha20Rng,
    dir: &Path,
    md: &mut String,
) -> Result<(Graph, Vec<u32>)> {
    let n = match ctx.effort {
        Effort::Quick => 100_000,
        Effort::Full => 1_000_000,
    };
    let generated = generate_graphs(n, rng)?;
    let mut g = Table::from_rows("Generated graphs (expected O(n + m))", &generated.rows)?;
    g.meta = ctx.meta();
    g.notes.push("Expected edge counts are the exact means of the models; the measured counts fall within a few standard deviations.".into());
    emit(dir, md, &g, "generators")?;
    Ok(generated.sbm)
}

/// 3. Partitions of the SBM graph into 4 parts, with the cross-part edges of each part.
fn partitions_table(
    ctx: &Ctx,
    (sb, blocks): (Graph, Vec<u32>),
    rng: &mut ChaCha20Rng,
    dir: &Path,
    md: &mut String,
) -> Result<()> {
    let mut rows = Vec::new();
    for (name, part) in [
        (
            "planted blocks (attribute)",
            Partition::by_attribute(&blocks),
        ),
        ("random", Partition::random(sb.num_nodes(), 4, rng)?),
        (
            "community (label propagation)",
            Partition::community(&sb, 4, rng)?,
        ),
        (
            "Louvain, FedSage+ grouping (delta = 20, blocks as labels)",
            LouvainClients::new(4).partition(&sb, &blocks, rng)?,
        ),
        (
            "label Dirichlet alpha = 1 (FedGCN)",
            label_dirichlet(&blocks, 4, 1.0, 10, rng)?,
        ),
        (
            "label Dirichlet alpha = 100",
            label_dirichlet(&blocks, 4, 100.0, 10, rng)?,
        ),
        (
            "label Dirichlet alpha = 10000",
            label_dirichlet(&blocks, 4, 10_000.0, 10, rng)?,
        ),
    ] {
        let sizes = part.sizes();
        let c = part.cross_edges(&sb)?;
        rows.push(PartitionRow {
            partition: name.into(),
            parts: part.num_parts(),
            min_size: sizes.iter().min().copied(),
            max_size: sizes.iter().max().copied(),
            cross_edges: c,
            cross_share: c as f64 / sb.num_edges() as f64,
        });
    }
    let mut pt = Table::from_rows("Partitions of the SBM graph into 4 parts", &rows)?;
    pt.meta = ctx.meta();
    emit(dir, md, &pt, "partitions")
}

pub(crate) fn run(ctx: &Ctx) -> Result<()> {
    let dir = ctx.out.join("foundation");
    let mut md = String::from("# Foundation: datasets and generators\n\n");
    datasets_table(ctx, &dir, &mut md)?;
    let mut rng = ChaCha20Rng::seed_from_u64(ctx.seed);
    let sbm = generators_table(ctx, &mut rng, &dir, &mut md)?;
    partitions_table(ctx, sbm, &mut rng, &dir, &mut md)?;
    write(&dir, "README.md", md.as_bytes())?;
    println!("{md}");
    Ok(())
}
