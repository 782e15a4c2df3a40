//! `dpgraph datasets list | info NAME | install NAME…`.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Result, bail};
use clap::Subcommand;
use graph_core::install::{Installer, MIRROR_ENV, Origin, UPSTREAM_ENV};
use graph_core::registry::{DATA_ENV, Dataset, DatasetSpec, data_dir_or_default};
use graph_core::{GraphStats, Registry};
use serde_json::{Value, json};

use crate::{Global, emit};

#[derive(Subcommand, Debug)]
pub(crate) enum DatasetsCmd {
    /// Registry datasets: installed or not, with their counts (from the registry).
    List,
    /// Loads a dataset (installing it on first use) and reports its measured counts.
    Info {
        /// Dataset name (case-insensitive).
        name: String,
    },
    /// Installs datasets into $DPGRAPH_DATA (default ./data): from the copy embedded in dpgraph
    /// (cora, MUTAG), else by downloading the registry's upstream archives, converting them and
    /// verifying every file's SHA-256. Datasets with no plain download print their manual steps.
    Install {
        /// Dataset names (case-insensitive).
        names: Vec<String>,
        /// Every dataset of the registry (those needing manual steps are listed as skipped).
        #[arg(long)]
        all: bool,
        /// Install from a mirror of converted files laid out as DIR_OR_URL/NAME/FILE
        /// instead of upstream [env: DPGRAPH_MIRROR].
        #[arg(long, value_name = "DIR_OR_URL")]
        from: Option<String>,
        /// Read each upstream URL from DIR_OR_URL/SEGMENT, SEGMENT being the URL's last path
        /// segment (a cache, proxy or local copy) [env: DPGRAPH_UPSTREAM].
        #[arg(long, value_name = "DIR_OR_URL")]
        upstream: Option<String>,
        /// Never fetch: embedded copies only.
        #[arg(long)]
        offline: bool,
        /// Seconds a download may stall before it fails.
        #[arg(long, default_value_t = 60)]
        timeout: u64,
    },
}

/// The data directory: `$DPGRAPH_DATA`, else `./data`. The binary reads the environment; the
/// libraries take the path.
pub(crate) fn data_dir() -> PathBuf {
    data_dir_or_default(std::env::var_os(DATA_ENV))
}

/// Where installs come from: `from` else `$DPGRAPH_MIRROR` names a mirror of converted files;
/// otherwise the embedded copies, then upstream (each URL read from `upstream` else
/// `$DPGRAPH_UPSTREAM` when given).
fn origin(from: Option<String>, upstream: Option<String>, offline: bool, timeout: u64) -> Origin {
    Origin::from_args(
        from.or_else(|| std::env::var(MIRROR_ENV).ok()),
        upstream.or_else(|| std::env::var(UPSTREAM_ENV).ok()),
        offline,
        Duration::from_secs(timeout),
    )
}

/// Loads the registry dataset `name` from the data directory, installing it there first when
/// it is missing (the embedded copy, else `$DPGRAPH_MIRROR`, else upstream), as `repro` does: a
/// command that names a dataset needs no separate `datasets install`. A download shows a
/// progress bar; success prints one line on stderr; a failure is the command's one error line.
///
/// # Errors
/// An unknown name; a dataset that cannot be installed here (the message says why and what to
/// do: a manual download, or no network); a file that does not load.
pub(crate) fn load_named(name: &str) -> Result<Dataset> {
    let spec = Registry::embedded().get(name)?;
    let dir = data_dir();
    let installed = Installer::new(&origin(None, None, false, 60)).install_missing(
        spec,
        &dir,
        &mut FirstUse::default(),
    )?;
    if let Some(line) = installed {
        eprintln!("{line} (first use, into {})", dir.display());
    }
    Ok(spec.load(&dir)?)
}

/// The progress of a first-use install: download bars, but no per-source notes (a failure's
/// notes are in its one error line).
#[derive(Default)]
struct FirstUse(graph_core::install::ProgressBars);

impl graph_core::install::Progress for FirstUse {
    fn start(&mut self, label: &str, total: Option<u64>) {
        self.0.start(label, total);
    }
    fn advance(&mut self, bytes: u64) {
        self.0.advance(bytes);
    }
    fn finish(&mut self) {
        self.0.finish();
    }
}

pub(crate) fn run(cmd: &DatasetsCmd, global: Global) -> Result<()> {
    let reg = Registry::embedded();
    let dir = data_dir();
    match cmd {
        DatasetsCmd::List => list(reg, &dir, global),
        DatasetsCmd::Info { name } => {
            let spec = reg.get(name)?;
            let ds = load_named(name)?;
            emit(global, &info(spec, &ds))
        }
        DatasetsCmd::Install {
            names,
            all,
            from,
            upstream,
            offline,
            timeout,
        } => {
            let origin = origin(from.clone(), upstream.clone(), *offline, *timeout);
            install(reg, &dir, names, *all, &origin, global)
        }
    }
}

/// `datasets list`: every registry dataset, installed or not.
fn list(reg: &Registry, dir: &std::path::Path, global: Global) -> Result<()> {
    let rows: Vec<Value> = reg
        .datasets()
        .iter()
        .map(|d| {
            json!({
                "name": d.name,
                "task": d.task.as_str(),
                "installed": d.is_installed(dir),
                "graphs": d.expect.graphs.or(match d.task {
                    graph_core::registry::Task::NodeClassification => Some(1),
                    _ => None,
                }),
                "nodes": d.expect.nodes,
                "edges": d.expect.edges,
                "classes": d.expect.classes,
                "source": d.origin(),
                "verified_by": if d.checked_by_counts() { "counts" } else { "checksums" },
            })
        })
        .collect();
    if global.json {
        emit(
            global,
            &json!({ "data_dir": dir.display().to_string(), "datasets": rows }),
        )
    } else {
        println!("data directory: {} (DPGRAPH_DATA)", dir.display());
        println!(
            "{:<18} {:<22} {:<10} {:<9} {:>8} {:>10} {:>10} {:>8}",
            "name", "task", "installed", "source", "graphs", "nodes", "edges", "classes"
        );
        let s = |v: &Value| {
            if v.is_null() {
                "-".to_owned()
            } else {
                v.to_string()
            }
        };
        for r in rows {
            println!(
                "{:<18} {:<22} {:<10} {:<9} {:>8} {:>10} {:>10} {:>8}",
                r["name"].as_str().unwrap_or(""),
                r["task"].as_str().unwrap_or(""),
                if r["installed"] == json!(true) {
                    "yes"
                } else {
                    "no"
                },
                r["source"].as_str().unwrap_or(""),
                s(&r["graphs"]),
                s(&r["nodes"]),
                s(&r["edges"]),
                s(&r["classes"])
            );
        }
        Ok(())
    }
}

/// `datasets install`: `names` (or every dataset with `all`) from `origin` into `dir`.
fn install(
    reg: &Registry,
    dir: &std::path::Path,
    names: &[String],
    all: bool,
    origin: &Origin,
    global: Global,
) -> Result<()> {
    let specs: Vec<&DatasetSpec> = if all {
        reg.datasets().iter().collect()
    } else if names.is_empty() {
        bail!("name the datasets to install, or pass --all");
    } else {
        names.iter().map(|n| reg.get(n)).collect::<Result<_, _>>()?
    };
    let mut bars = graph_core::install::ProgressBars::default();
    let mut installer = Installer::new(origin);
    let mut rows = Vec::new();
    let mut failed = Vec::new();
    for spec in &specs {
        let t = std::time::Instant::now();
        let (name, report) = (spec.name.clone(), installer.install(spec, dir, &mut bars));
        let line = report.line(&name);
        if !global.json {
            println!("{line} [{:.1} s]", t.elapsed().as_secs_f64());
        }
        let status = match &report {
            graph_core::install::Report::Installed { .. } => "installed",
            graph_core::install::Report::AlreadyInstalled => "already-installed",
            graph_core::install::Report::Skipped { .. } => "skipped",
            graph_core::install::Report::Failed(_) => {
                failed.push(name.clone());
                "failed"
            }
        };
        rows.push(json!({ "name": name, "status": status, "message": line,
                          "seconds": t.elapsed().as_secs_f64() }));
    }
    if global.json {
        emit(
            global,
            &json!({ "data_dir": dir.display().to_string(), "datasets": rows }),
        )?;
    }
    if !failed.is_empty() {
        bail!(
            "{} of {} datasets failed to install: {}",
            failed.len(),
            specs.len(),
            failed.join(", ")
        );
    }
    let skipped: Vec<&str> = rows
        .iter()
        .filter(|r| r["status"] == "skipped")
        .filter_map(|r| r["name"].as_str())
        .collect();
    if !all && !skipped.is_empty() {
        bail!(
            "not installed: {} (see the steps above)",
            skipped.join(", ")
        );
    }
    Ok(())
}

fn info(spec: &DatasetSpec, ds: &Dataset) -> Value {
    let mut v =
        json!({ "name": spec.name, "task": spec.task.as_str(), "description": spec.description });
    let m = v.as_object_mut().expect("object");
    match ds {
        Dataset::Nodes(d) => {
            let s = GraphStats::of(std::slice::from_ref(d.graph()));
            m.insert("graphs".into(), json!(1));
            m.insert("nodes".into(), json!(s.nodes));
            m.insert("edges".into(), json!(s.edges));
            m.insert("classes".into(), json!(d.num_classes()));
            m.insert("features".into(), json!(d.features().ncols()));
            m.insert("max_degree".into(), json!(s.max_degree));
            m.insert("class_counts".into(), json!(d.class_counts()));
        }
        Dataset::Graphs(d) => {
            let s = GraphStats::of(d.graphs());
            m.insert("graphs".into(), json!(d.len()));
            m.insert("nodes".into(), json!(s.nodes));
            m.insert("edges".into(), json!(s.edges));
            m.insert("classes".into(), json!(d.targets().num_classes()));
            m.insert("max_degree".into(), json!(s.max_degree));
            m.insert("isolated".into(), json!(s.isolated));
            let splits: serde_json::Map<String, Value> = d
                .splits()
                .iter()
                .map(|(k, v)| (k.clone(), json!(v.len())))
                .collect();
            m.insert("splits".into(), Value::Object(splits));
        }
        Dataset::Files(f) => {
            m.insert("graphs".into(), Value::Null);
            m.insert("nodes".into(), Value::Null);
            m.insert("edges".into(), Value::Null);
            m.insert("classes".into(), Value::Null);
            m.insert("rows".into(), json!(f.rows));
        }
    }
    v
}
